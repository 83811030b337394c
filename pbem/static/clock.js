// Times for people, on every page. Progressive enhancement: the server writes each instant as
// `<time datetime="…Z" data-local>` with words in the player's zone (or UTC), readable without
// this script; here they are rewritten into the reader's own time with Intl.DateTimeFormat, the
// server's words kept as the element's title. `[data-time-left]` (the seconds the player to
// move has left, counted as the game's clock counts them) counts down while the page is open.
// On the dashboard, a player without a time zone gets the browser's, posted once.

import { t, tn } from "./kit.js";

const DAY = 86400;
const WEEK_DAYS_FREE = new Set([0, 6]); // Sunday and Saturday, UTC, as pbem.domain.clocks counts
const TICK_MS = 15000;

// --- instants in local time ---------------------------------------------------------------------

// Each language's day as pbem.domain.when writes it ("Thursday 3 December", "jeudi 3 décembre",
// "donderdag 3 december", "torsdag den 3. december"), then the time and the zone's abbreviation.
const LOCALES = { en: "en-GB" };
const DAY_WORDS = {
  en: (p) => `${p.weekday} ${p.day} ${p.month}`,
  da: (p) => `${p.weekday} den ${p.day}. ${p.month}`,
};
let zoneFormatter = null;
const dayFormatters = new Map(); // language -> its formatter of the day and the time

function pageLanguage() {
  const language = (document.documentElement.lang || "en").toLowerCase().split("-")[0];
  return ["en", "fr", "nl", "da"].includes(language) ? language : "en";
}

function parts(formatter, date) {
  return Object.fromEntries(formatter.formatToParts(date).map((p) => [p.type, p.value]));
}

function format(date) {
  const language = pageLanguage();
  if (!dayFormatters.has(language)) {
    const options = { weekday: "long", day: "numeric", month: "long", hour: "2-digit", minute: "2-digit", hourCycle: "h23" };
    dayFormatters.set(language, new Intl.DateTimeFormat(LOCALES[language] || language, options));
  }
  // The zone as the server names it in every language, "CET" where French would say "UTC+1";
  // the browser's own zone.
  zoneFormatter = zoneFormatter || new Intl.DateTimeFormat("en-GB", { timeZoneName: "short" });
  const p = parts(dayFormatters.get(language), date);
  const day = (DAY_WORDS[language] || DAY_WORDS.en)(p);
  return `${day}, ${p.hour}:${p.minute} ${parts(zoneFormatter, date).timeZoneName}`;
}

export function localise(root = document) {
  for (const node of root.querySelectorAll("time[data-local]")) {
    if (node.dataset.localDone === node.getAttribute("datetime")) continue;
    const date = new Date(node.getAttribute("datetime"));
    if (Number.isNaN(date.getTime())) continue;
    if (!node.title) node.title = node.textContent.trim();
    try {
      node.textContent = format(date);
    } catch {
      continue;
    }
    node.dataset.localDone = node.getAttribute("datetime");
  }
}

// --- the time left ------------------------------------------------------------------------------

function span(count, unit) {
  const amount = { amount: count };
  if (unit === "day") return tn("%(amount)s day", "%(amount)s days", count, amount);
  if (unit === "hour") return tn("%(amount)s hour", "%(amount)s hours", count, amount);
  return tn("%(amount)s minute", "%(amount)s minutes", count, amount);
}

// The same words as pbem.web.play.time_left_words (the same msgids, so the catalog holds them
// once), rounded down.
export function leftWords(seconds) {
  const whole = Math.max(0, Math.floor(seconds));
  if (whole <= 0) return t("no time left");
  if (whole < 60) return t("less than a minute left");
  const days = Math.floor(whole / DAY);
  const hours = Math.floor((whole % DAY) / 3600);
  const minutes = Math.floor((whole % 3600) / 60);
  let spans;
  if (days) spans = [span(days, "day"), ...(hours ? [span(hours, "hour")] : [])];
  else if (hours) spans = [span(hours, "hour"), ...(minutes ? [span(minutes, "minute")] : [])];
  else spans = [span(minutes, "minute")];
  return t("%(time)s left", { time: spans.join(" ") });
}

// Seconds between two instants that a clock counts: all of them, or weekdays only (UTC).
export function counted(fromMs, toMs, weekendsFree) {
  if (toMs <= fromMs) return 0;
  if (!weekendsFree) return (toMs - fromMs) / 1000;
  let total = 0;
  let at = fromMs;
  while (at < toMs) {
    const day = new Date(at);
    const next = Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate() + 1);
    const end = Math.min(next, toMs);
    if (!WEEK_DAYS_FREE.has(day.getUTCDay())) total += (end - at) / 1000;
    at = end;
  }
  return total;
}

const started = new WeakMap(); // element -> [the seconds it said, when it was first seen]

function countDown() {
  const now = Date.now();
  for (const node of document.querySelectorAll("[data-time-left]")) {
    const seconds = Number(node.dataset.timeLeft);
    if (!Number.isFinite(seconds)) continue;
    let seen = started.get(node);
    if (!seen || seen[0] !== seconds) {
      seen = [seconds, now];
      started.set(node, seen);
    }
    const spent = counted(seen[1], now, node.dataset.weekendsFree === "yes");
    const words = leftWords(seconds - spent);
    if (node.textContent !== words) node.textContent = words;
  }
}

// --- the dashboard's time zone, taken from the browser the first time -----------------------------

async function adoptZone() {
  const form = document.querySelector("form[data-zone-missing]");
  if (!form || !window.fetch) return;
  let zone = "";
  try {
    zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "";
  } catch {
    return;
  }
  if (!zone || zone.length > 64) return;
  const tried = `pbem-zone-tried:${zone}`;
  try {
    // A zone the server refused once is not sent again from this browser.
    if (window.localStorage && localStorage.getItem(tried)) return;
  } catch {
    // Storage may be off; then at most one attempt per visit.
  }
  const status = form.querySelector("#zone-status");
  try {
    const response = await fetch(form.action, {
      method: "POST",
      headers: { Accept: "application/json" },
      body: new URLSearchParams({ zone, if_unset: "1" }),
      cache: "no-store",
    });
    const body = await response.json().catch(() => ({}));
    if (!response.ok || !body.time_zone) {
      try {
        localStorage.setItem(tried, "refused");
      } catch {
        // Nothing to remember it in.
      }
      return;
    }
    form.removeAttribute("data-zone-missing");
    const select = form.querySelector("select[name=zone]");
    if (select) {
      const placeholder = select.querySelector('option[value=""]');
      if (placeholder) placeholder.remove();
      select.value = body.time_zone;
    }
    if (status) {
      status.textContent = body.changed
        ? t("Set to %(zone)s, your browser's time zone; change it here if it is not yours.", { zone: body.time_zone })
        : "";
    }
    document.documentElement.dataset.zoneAdopted = body.time_zone;
  } catch {
    // Offline: the next visit tries again.
  }
}

// --- start --------------------------------------------------------------------------------------

function start() {
  localise();
  countDown();
  setInterval(countDown, TICK_MS);
  // The game page swaps its live part when the game moves on: new <time> elements appear.
  if (window.MutationObserver) {
    let queued = false;
    new MutationObserver(() => {
      if (queued) return;
      queued = true;
      requestAnimationFrame(() => {
        queued = false;
        localise();
        countDown();
      });
    }).observe(document.body, { childList: true, subtree: true });
  }
  adoptZone();
  document.documentElement.dataset.clockReady = "yes";
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
else start();

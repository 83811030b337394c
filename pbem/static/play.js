// Click-to-move for the game page. Progressive enhancement: without this script the page's plain
// form (a list of legal moves, free text and the hidden ply) still works; with it, moves are built
// by clicking the board, confirmed by the player, posted to the JSON move API and the new position
// is shown without a reload.
//
// Everything is driven by two JSON islands the page embeds (`legal-moves` and `game-data`), the
// engine's drawings for building a move (fetched from `urls.assets`), and by the data attributes
// of the engines' SVG drawings; no move is ever sent before "Confirm". What a
// click means is the game's business: its controller, an ES module of its own that the page data
// names (`urls.controller`, see kit.js), is loaded on the seat's turn. Without one, or when it
// cannot be loaded, the page keeps the plain form and everything else (sending, refreshing,
// replay) works all the same.

import { $, $$, el, readJSON, t } from "./kit.js";
import { TARGETS, frameTargets, keepChoiceInView } from "./inview.js";
import { PanZoom } from "./panzoom.js";

const POLL_MS = 250;
const POLL_LIMIT_MS = 60000;
const WAIT_POLL_MS = 5000;

// --- the page controller -------------------------------------------------------------------------

class Play {
  constructor() {
    this.controller = null;
    this.replay = null;
    this.busy = false;
    this.waitTimer = null;
    document.addEventListener("keydown", (event) => this.onKey(event));
  }

  // (Re)reads the page: called on load and after the live part of the page was swapped. Resolves
  // once the game's controller (if any) has started.
  async init() {
    this.data = readJSON("game-data");
    this.legal = readJSON("legal-moves") || [];
    this.root = $("#play");
    this.boardBox = $("#board");
    this.picker = $("#picker");
    this.pending = $("#pending");
    this.form = $("#move-form");
    this.pendingMove = null;
    if (!this.data || !this.root || !this.boardBox) return;
    document.documentElement.classList.add("pbem-js");
    bindOnce(this.boardBox, "click", (event) => this.onBoardClick(event));
    if (this.picker) bindOnce(this.picker, "click", () => requestAnimationFrame(() => frameTargets(this)));
    this.watchBar();
    this.measureTop();
    if (this.zoom) this.zoom.destroy();
    this.zoom = new PanZoom(this.boardBox);
    if (this.form) bindOnce(this.form, "submit", (event) => this.onFormSubmit(event));
    this.replay = new Replay(this);
    this.replay.init();
    this.controller = null;
    this.showPending();
    if (this.picker) this.picker.hidden = true;
    this.watchForTurn();
    this.markTitle();
    this.watchFocus();
    const generation = (this.generation = (this.generation || 0) + 1);
    if (!this.data.your_turn || !this.picker || !this.legal.length) return;
    // The board and the page around it are painted first; the drawings for building a move
    // (a long game's are large) are asked for after that, while the controller's module loads.
    const [Controller, assets] = await Promise.all([
      loadController(this.data.urls && this.data.urls.controller),
      afterPaint().then(() => this.loadAssets()),
    ]);
    // The page may have been read again meanwhile (a refresh): that reading starts its own.
    if (generation !== this.generation) return;
    if (!assets) {
      // Drawings that could not be had leave the plain form, open, as the way to move (a game
      // that moved on meanwhile is refreshed by watchForTurn instead).
      if (assets === null) this.keepForm();
      return;
    }
    if (!Controller) return;
    Object.assign(this.data, assets);
    try {
      this.controller = new Controller(this);
      this.picker.hidden = false;
      this.controller.start();
      this.lit = $$(TARGETS, this.boardBox);
      this.syncFocus();
    } catch (error) {
      console.error("pbem: the board's controller failed to start; the form still works.", error);
      document.documentElement.classList.add("pbem-js-failed");
      this.controller = null;
      this.picker.hidden = true;
      this.picker.replaceChildren();
      this.clearPending();
      return;
    }
    // The list and text field stay one click away; an error or typed text keeps them open.
    const box = $("#move-form-box");
    if (box && !$("#move-error") && !$("#move-text")?.value) box.open = false;
  }

  // The engine's drawings for building a move (a game's tile previews and claim words), fetched
  // once the board is drawn rather than carried by the page, which a phone would then wait for.
  // Null when they cannot be had; false when the game moved on meanwhile (watchForTurn notices).
  async loadAssets() {
    const url = this.data.urls && this.data.urls.assets;
    if (!url) return {};
    try {
      const response = await fetch(url, { headers: this.authHeaders(), cache: "no-store" });
      if (!response.ok) throw new Error(`status ${response.status}`);
      const body = await response.json();
      return body.ply === this.data.ply && body.your_turn ? body.assets || {} : false;
    } catch (error) {
      console.error("pbem: the board's drawings could not be loaded; the form still works.", error);
      return null;
    }
  }

  // Without its controller the page moves by its plain form: the picker's room is given back
  // and the form shown open.
  keepForm() {
    document.documentElement.classList.add("pbem-js-failed");
    if (this.picker) this.picker.hidden = true;
    const box = $("#move-form-box");
    if (box) box.open = true;
  }

  // A tab left open shows in its title when the player is wanted.
  markTitle() {
    if (this.baseTitle === undefined) this.baseTitle = document.title;
    document.title = this.data.your_turn ? t("● Your turn · %(title)s", { title: this.baseTitle }) : this.baseTitle;
  }

  get svg() {
    return $("svg", this.boardBox);
  }

  // --- the move being built ---

  setPending(move, words) {
    this.pendingMove = move;
    this.pendingWords = words;
    this.pendingWarning = this.warningFor(move, words);
    this.fillForm(move);
    this.showPending();
    keepChoiceInView(this);
  }

  // What the engine says a move costs beyond what it shows (the tokens a flip removes, say),
  // when the controller's own words do not say it already. The page data's `warnings` map a
  // move, or the first words of moves ("flip -2,1"), to a sentence; the longest match wins.
  warningFor(move, words) {
    const warning = warningFor((this.data && this.data.warnings) || {}, move);
    return warning && !(words || "").includes(warning) ? warning : "";
  }

  clearPending() {
    this.pendingMove = null;
    this.pendingWords = null;
    this.pendingWarning = "";
    this.showPending();
  }

  fillForm(move) {
    if (!this.form) return;
    const select = $('select[name="move"]', this.form);
    if (select && Array.from(select.options).some((o) => o.value === move)) select.value = move;
    for (const radio of $$('input[type="radio"][name="move"]', this.form)) {
      radio.checked = radio.value === move;
    }
  }

  showPending(message = null, kind = "info") {
    if (!this.pending) return;
    this.pending.replaceChildren();
    if (this.pendingMove) {
      this.pending.append(
        el(
          "div",
          { class: "pbem-choice" },
          el("span", { class: "pbem-choice-words" }, this.pendingWords || this.pendingMove),
          " ",
          el("code", { class: "pbem-choice-move", "data-move": this.pendingMove }, this.pendingMove),
        ),
        ...(this.pendingWarning ? [el("p", { class: "pbem-choice-warning" }, this.pendingWarning)] : []),
        el(
          "div",
          { class: "pbem-actions" },
          el(
            "button",
            { type: "button", class: "pbem-confirm", onclick: () => this.confirm(this.pendingMove) },
            t("Confirm move"),
          ),
          el(
            "button",
            { type: "button", class: "pbem-cancel", onclick: () => this.cancel() },
            t("Cancel"),
          ),
        ),
      );
    }
    if (message) {
      this.pending.append(
        el("p", { class: `pbem-message pbem-${kind}`, role: kind === "error" ? "alert" : "status" }, message),
      );
    }
    barMeasure();
    // Without a move to confirm, words are part of the page, under the board: a refusal the
    // player would otherwise miss is scrolled to.
    if (message && kind === "error" && !this.pendingMove) this.pending.scrollIntoView({ block: "nearest" });
  }

  say(message, kind = "info") {
    this.showPending(message, kind);
  }

  cancel() {
    this.clearPending();
    if (this.controller) this.controller.reset();
  }

  // --- events ---

  onBoardClick(event) {
    if (this.busy || !this.controller || (this.replay && this.replay.active)) return;
    this.controller.click(event.target);
    frameTargets(this);
  }

  // The bar holding the move to confirm is fixed at the bottom of the screen: the page is padded
  // by its height, so that the end of the page and the board can still be scrolled above it.
  watchBar() {
    if (!this.pending) return;
    const root = document.documentElement;
    const measure = () => {
      const bar = this.pending;
      const fixed = bar && bar.isConnected && getComputedStyle(bar).position === "fixed";
      const height = fixed ? Math.ceil(bar.getBoundingClientRect().height) : 0;
      root.classList.toggle("pbem-bar", height > 0);
      setProperty(root, "--pbem-bar-h", height ? `${height}px` : "");
    };
    if (!barWatcher) barWatcher = new ResizeObserver(() => barMeasure());
    barMeasure = measure;
    barWatcher.disconnect();
    barWatcher.observe(this.pending);
    measure();
  }

  // Where the board starts on the page, for pbem.css to fit the board between there and the
  // bottom of the screen.
  measureTop() {
    const area = $("#board-area");
    const page = area && area.closest(".pbem-game");
    if (!page) return;
    const measure = () => {
      if (!area.isConnected) return;
      const top = Math.round(area.getBoundingClientRect().top + window.scrollY);
      setProperty(page, "--pbem-board-top", `${top}px`);
    };
    measure();
    if (!this.topWatched) {
      this.topWatched = true;
      window.addEventListener("resize", () => this.measureTopNow && this.measureTopNow());
    }
    this.measureTopNow = measure;
  }

  // Whatever can be clicked on the board can also be reached with Tab and chosen with Enter.
  watchFocus() {
    if (!this.boardBox || observed.has(this.boardBox)) return;
    let queued = false;
    const sync = () => {
      queued = false;
      this.syncFocus();
    };
    const observer = new MutationObserver(() => {
      if (!queued) {
        queued = true;
        requestAnimationFrame(sync);
      }
    });
    observer.observe(this.boardBox, { subtree: true, childList: true, attributes: true, attributeFilter: ["class"] });
    observed.add(this.boardBox);
    sync();
  }

  syncFocus() {
    if (!this.boardBox) return;
    const focusable = (this.controller && this.controller.constructor.focusable) || FOCUSABLE;
    const choosing = this.controller && !(this.replay && this.replay.active);
    // What stops being a choice loses what made it one (its name stays when the engine gave it).
    for (const node of $$("[tabindex], [data-pbem-choice]", this.boardBox)) {
      if (choosing && node.matches(focusable)) continue;
      node.removeAttribute("tabindex");
      if (node.dataset.pbemChoice !== undefined) {
        for (const attribute of node.dataset.pbemChoice.split(" ").filter(Boolean)) node.removeAttribute(attribute);
        delete node.dataset.pbemChoice;
      }
    }
    if (!choosing) return;
    const svg = this.svg;
    // A drawing that is one picture to assistive technology cannot hold choices: while the
    // player chooses on it, it is a group of them.
    if (svg && svg.getAttribute("role") === "img") {
      svg.setAttribute("role", "group");
      svg.dataset.roleWas = "img";
    }
    for (const node of $$(focusable, this.boardBox)) {
      if (node.getAttribute("tabindex") === "0") continue;
      node.setAttribute("tabindex", "0");
      const added = [];
      if (!node.getAttribute("aria-label")) {
        const name = accessibleName(node);
        if (name) {
          node.setAttribute("aria-label", name);
          added.push("aria-label");
        }
      }
      // A shape is a button. A group with text drawn in it is a named group, not a button: a
      // button's name must contain the text it shows ("6|0"), which says less than its name.
      // A plain <g> has no role, and ARIA prohibits a name on an element without one.
      if (!node.getAttribute("role")) {
        const text = !!node.textContent.trim();
        if (!text || node.getAttribute("aria-label")) {
          node.setAttribute("role", text ? "group" : "button");
          added.push("role");
        }
      }
      node.dataset.pbemChoice = added.join(" ");
    }
  }

  onKey(event) {
    if ((event.key === "Enter" || event.key === " ") && this.boardBox && this.boardBox.contains(event.target)) {
      if (this.controller && !this.busy && !(this.replay && this.replay.active)) {
        event.preventDefault();
        this.controller.click(event.target);
      }
      return;
    }
    if (event.target.closest && event.target.closest("input, select, textarea")) return;
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (this.replay && this.replay.onKey(event)) return;
    if (event.key === "Escape" && this.pendingMove) {
      this.cancel();
      event.preventDefault();
      return;
    }
    if (this.controller && this.controller.key && !this.busy) {
      if (this.controller.key(event)) event.preventDefault();
    }
  }

  onFormSubmit(event) {
    if (!this.data || !window.fetch) return;
    const move = readFormMove(this.form);
    event.preventDefault();
    if (!move) {
      this.say(t("Choose a move from the list or type one."), "error");
      return;
    }
    this.confirm(move);
  }

  // --- sending ---

  authHeaders(extra = {}) {
    return { Authorization: `Bearer ${this.data.token}`, Accept: "application/json", ...extra };
  }

  async confirm(move) {
    if (this.busy || !move) return;
    this.busy = true;
    this.root.classList.add("pbem-busy");
    this.showPending(t("Sending %(move)s…", { move }), "progress");
    try {
      const response = await fetch(this.data.urls.moves, {
        method: "POST",
        headers: this.authHeaders({ "Content-Type": "application/json" }),
        body: JSON.stringify({ move, ply: this.data.ply }),
      });
      if (response.status === 404 || response.status === 405) {
        // No move API on this server: fall back to the plain form, which carries the ply too.
        this.submitForm(move);
        return;
      }
      const body = await response.json().catch(() => ({}));
      if (!response.ok) {
        this.refused(body.message || t("The move was refused (%(status)s).", { status: response.status }));
        if (["stale_ply", "not_your_turn", "game_over"].includes(body.error)) this.offerRefresh();
        return;
      }
      this.showPending(t("Applying %(move)s…", { move }), "progress");
      const outcome = await this.waitForSubmission(body.submission);
      if (outcome.status === "applied") {
        this.showPending(t("%(move)s was played. Loading the new position…", { move }), "progress");
        await this.refresh();
      } else if (outcome.status === "rejected") {
        this.refused(outcome.error || outcome.message || t("The move was refused."));
      } else {
        this.busy = false;
        this.root.classList.remove("pbem-busy");
        this.clearPending();
        this.say(
          t("Your move is stored and will be applied shortly; this page updates when it is."),
          "info",
        );
        this.watchForTurn(true);
      }
    } catch (error) {
      this.refused(
        t("Could not reach the server (%(error)s). Nothing was changed; try again.", { error: error.message }),
      );
    }
  }

  submitForm(move) {
    if (!this.form) {
      this.refused(t("This page cannot send moves."));
      return;
    }
    let text = $('input[type="text"][name="move"], input[name="move"]:not([type="radio"]):not([type="hidden"])', this.form);
    if (!text) {
      text = el("input", { type: "hidden", name: "move" });
      this.form.append(text);
    }
    text.value = move;
    for (const other of $$('select[name="move"], input[type="radio"][name="move"]', this.form)) {
      other.disabled = true;
    }
    HTMLFormElement.prototype.submit.call(this.form);
  }

  refused(message) {
    this.busy = false;
    this.root.classList.remove("pbem-busy");
    this.clearPending();
    if (this.controller) this.controller.reset();
    this.say(message, "error");
  }

  // The game moved on elsewhere (another tab, the other player): offer its current position.
  offerRefresh() {
    if (!this.pending) return;
    this.pending.append(
      el(
        "button",
        {
          type: "button",
          class: "pbem-refresh",
          onclick: async () => {
            this.busy = true;
            await this.refresh("");
          },
        },
        t("Show the game as it is now"),
      ),
    );
  }

  async waitForSubmission(id) {
    const started = Date.now();
    let delay = POLL_MS;
    while (Date.now() - started < POLL_LIMIT_MS) {
      const response = await fetch(`${this.data.urls.submission}${id}`, {
        headers: this.authHeaders(),
        cache: "no-store",
      });
      const body = await response.json().catch(() => ({}));
      if (response.ok && body.status && body.status !== "pending") return body;
      if (!response.ok && response.status !== 503) {
        return {
          status: "rejected",
          error: body.message || t("Status %(status)s", { status: response.status }),
        };
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 1.5, 2000);
    }
    return { status: "pending" };
  }

  // Fetches this page again and swaps in its live regions: the new board, status and history.
  // `message` is said afterwards (by default, that the player's move was played; "" for none).
  async refresh(message = undefined) {
    const response = await fetch(this.data.urls.page || location.href, { cache: "no-store" });
    if (!response.ok) {
      location.reload();
      return;
    }
    const html = await response.text();
    const doc = new DOMParser().parseFromString(html, "text/html");
    const regions = $$("[data-pbem-live]");
    if (!regions.length) {
      location.reload();
      return;
    }
    for (const region of regions) {
      const fresh = region.id && doc.getElementById(region.id);
      if (fresh) region.replaceWith(document.importNode(fresh, true));
    }
    for (const id of ["game-data", "legal-moves"]) {
      const old = document.getElementById(id);
      const fresh = doc.getElementById(id);
      if (old && fresh) old.textContent = fresh.textContent;
    }
    this.busy = false;
    this.stopWatching();
    this.ready = this.init();
    await this.ready;
    if (message === undefined) {
      message = this.data.your_turn ? t("Your move was played. It is still your turn.") : t("Your move was played.");
    }
    if (this.pending && message) this.say(message, "ok");
  }

  // The seat whose draw offer stands, as the page shows it ("" for none).
  drawOffer() {
    const status = $("#status");
    return status ? status.dataset.drawOfferedBy || "" : "";
  }

  // The seats agreeing to cancel the game, as the page shows them ("" for none).
  cancelAgreed() {
    const status = $("#status");
    return status ? status.dataset.cancelAgreedBy || "" : "";
  }

  // While it is someone else's turn, look now and then whether the game moved on.
  watchForTurn(force = false) {
    this.stopWatching();
    if (!this.data || this.data.status !== "running") return;
    const mine = this.data.your_turn && !force;
    const tick = async () => {
      if (document.hidden || this.busy) return;
      try {
        const response = await fetch(this.data.urls.game, { headers: this.authHeaders(), cache: "no-store" });
        if (!response.ok) return;
        const body = await response.json();
        const ply = body.ply ?? (body.meta && body.meta.ply) ?? (body.game && body.game.ply);
        const status = body.status ?? (body.meta && body.meta.status) ?? (body.game && body.game.status);
        const moved = (typeof ply === "number" && ply !== this.data.ply) || (status && status !== this.data.status);
        // A draw offered or withdrawn changes neither the ply nor the status.
        const offer = "draw_offered_by" in body ? String(body.draw_offered_by ?? "") : this.drawOffer();
        const offered = offer !== this.drawOffer();
        // So does a proposal to cancel, agreed to or declined.
        const agreed = Array.isArray(body.cancel_agreed_by) ? body.cancel_agreed_by.join(",") : this.cancelAgreed();
        const proposed = agreed !== this.cancelAgreed();
        if (moved || offered || proposed) {
          this.stopWatching();
          if (mine) {
            // Moved from another tab or device: do not pull the board from under the player.
            this.clearPending();
            let news = t("The game moved on since this page was loaded.");
            if (!moved && offered) {
              news =
                offer && offer !== String(this.data.seat) ? t("Your opponent offers a draw.") : t("The draw offer was answered.");
            } else if (!moved) {
              news = agreed
                ? t("A player proposes cancelling the game, or agreed to it.")
                : t("The proposal to cancel the game was declined.");
            }
            this.say(news, "info");
            this.offerRefresh();
            return;
          }
          this.busy = true;
          let words = "";
          if (status && status !== "running") words = t("The game is over.");
          else if (offered && !moved && offer && offer !== String(this.data.seat)) words = t("Your opponent offers a draw.");
          await this.refresh(words);
          if (this.data.your_turn && moved) this.say(t("Your turn: the game moved on while you were here."), "ok");
        }
      } catch {
        // Offline for a moment: the next tick tries again.
      }
    };
    this.waitTimer = setInterval(tick, WAIT_POLL_MS);
  }

  stopWatching() {
    if (this.waitTimer) clearInterval(this.waitTimer);
    this.waitTimer = null;
  }
}

const bound = new WeakSet();
const observed = new WeakSet();

// Sets a custom property (or removes it, given "") only when its value changes: every element
// below may inherit it, so each write can restyle the whole board.
function setProperty(node, name, value) {
  if (node.style.getPropertyValue(name) === value) return;
  if (value) node.style.setProperty(name, value);
  else node.style.removeProperty(name);
}

let barWatcher = null;
let barMeasure = () => {};

function warningFor(warnings, move) {
  let best = "";
  let found = "";
  for (const [key, sentence] of Object.entries(warnings)) {
    if (typeof sentence !== "string" || !sentence) continue;
    if ((move === key || move.startsWith(`${key} `)) && key.length > best.length) {
      best = key;
      found = sentence;
    }
  }
  return found;
}

// What a choice on the board is called: the name the engine gave it (`data-name`, or its own
// <title>), else where it is ("c3", "0,-1").
function accessibleName(node) {
  if (node.dataset.name) return node.dataset.name;
  const title = Array.from(node.children).find((child) => child.nodeName.toLowerCase() === "title");
  if (title && title.textContent.trim()) return "";
  const d = node.dataset;
  if (d.cell || d.square) return d.cell || d.square;
  if (d.loc) return t("%(part)s of the tile", { part: d.loc });
  if (d.hand !== undefined && d.tile) return t("tile %(tile)s in your hand", { tile: d.tile });
  if (d.pos) {
    const at = { position: d.pos };
    return node.classList.contains("frontier") ? t("the place at %(position)s", at) : t("the tile at %(position)s", at);
  }
  return "";
}
// What the player can choose on the board is reachable with Tab: a controller names it (its static
// `focusable`), or else whatever it marked as a source or a target.
const FOCUSABLE = ".pbem-target, .pbem-source, .pbem-flippable, .pbem-loc";

// The page's regions may or may not be swapped on refresh; an element keeps one listener.
function bindOnce(element, type, listener) {
  if (bound.has(element)) return;
  bound.add(element);
  element.addEventListener(type, listener);
}

function readFormMove(form) {
  const typed = $$('input[name="move"], input[name="move_text"], input[name="text"]', form).find(
    (input) => input.type !== "radio" && input.type !== "hidden" && input.value.trim(),
  );
  if (typed) return typed.value.trim();
  const radio = $('input[type="radio"][name="move"]:checked', form);
  if (radio) return radio.value;
  const select = $('select[name="move"]', form);
  return select && select.value ? select.value : null;
}

// --- replay --------------------------------------------------------------------------------------

class Replay {
  constructor(play) {
    this.play = play;
    this.active = false;
    this.cache = new Map();
  }

  init() {
    this.box = $("#replay");
    this.banner = $("#replay-banner");
    this.plies = this.play.data.ply;
    this.current = null;
    this.liveSvg = null;
    if (!this.box) return;
    this.box.hidden = false;
    for (const area of [this.box, this.banner]) {
      if (!area) continue;
      bindOnce(area, "click", (event) => {
        const button = event.target.closest("[data-replay]");
        if (!button) return;
        event.preventDefault();
        if (button.getAttribute("aria-disabled") !== "true") this.go(button.dataset.replay);
      });
    }
    for (const link of $$("[data-ply]", $("#history") || document.createElement("div"))) {
      link.addEventListener("click", (event) => {
        event.preventDefault();
        this.show(Number(link.dataset.ply));
      });
    }
    this.update();
  }

  go(where) {
    const at = this.current ?? this.plies;
    const target = { first: 0, prev: at - 1, next: at + 1, last: this.plies, now: this.plies }[where];
    if (target === undefined) return;
    if (where === "now" || target >= this.plies) this.leave();
    else this.show(Math.max(0, target));
  }

  async show(ply) {
    if (ply >= this.plies) {
      this.leave();
      return;
    }
    const play = this.play;
    if (!this.active) {
      this.active = true;
      this.liveSvg = play.svg;
      play.root.classList.add("pbem-replaying");
    }
    this.current = ply;
    this.update(t("Loading move %(ply)s…", { ply }));
    let body = this.cache.get(ply);
    if (!body) {
      const response = await fetch(`${play.data.urls.position}${ply}`, { headers: play.authHeaders() });
      body = await response.json().catch(() => ({}));
      if (!response.ok) {
        this.update(body.message || t("That position could not be loaded."));
        return;
      }
      this.cache.set(ply, body);
    }
    if (this.current !== ply) return;
    const holder = document.createElement("div");
    holder.innerHTML = body.svg;
    const svg = $("svg", holder);
    const old = play.svg;
    if (svg && old) old.replaceWith(svg);
    // The move in words as the page's list says it, else its notation and who played it.
    const listed = $(`#history [data-ply="${ply}"] .pbem-words`);
    let words;
    if (ply === 0) words = t("Replay: the position after the start.");
    else if (listed) {
      const said = listed.textContent.trim().replace(/\.$/, "");
      words = t("Replay: the position after move %(ply)s: %(move)s.", { ply, move: said });
    } else {
      words = t("Replay: the position after move %(ply)s: %(move)s by %(player)s.", { ply, move: body.move, player: body.by });
    }
    this.update(words);
  }

  leave() {
    const play = this.play;
    if (this.active && this.liveSvg && play.svg) play.svg.replaceWith(this.liveSvg);
    this.active = false;
    this.current = null;
    play.root.classList.remove("pbem-replaying");
    this.update();
  }

  update(text = null) {
    const at = this.current ?? this.plies;
    const counter = $("[data-replay-at]", this.box);
    if (counter) counter.textContent = `${at} / ${this.plies}`;
    for (const button of [...$$("[data-replay]", this.box), ...$$("[data-replay]", this.banner || this.box)]) {
      const where = button.dataset.replay;
      const off =
        ((where === "first" || where === "prev") && at <= 0) ||
        ((where === "next" || where === "last" || where === "now") && at >= this.plies);
      button.setAttribute("aria-disabled", String(off));
    }
    for (const item of $$("[data-ply]", $("#history") || document.createElement("div"))) {
      item.classList.toggle("pbem-current", this.active && Number(item.dataset.ply) === at);
    }
    if (this.banner) {
      this.banner.hidden = !this.active;
      const words = $("[data-replay-words]", this.banner);
      if (words && text) words.textContent = text;
    }
  }

  onKey(event) {
    if (!this.active) return false;
    const where = { ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "now", Escape: "now" }[event.key];
    if (!where) return false;
    event.preventDefault();
    this.go(where);
    return true;
  }
}

// --- the game's controller ----------------------------------------------------------------------

const controllers = new Map(); // URL -> Promise of the controller class, or of null

// Resolves once the page has loaded (js-on.js has shown its main part by then) and the browser
// has shown it: the frame after that; while the tab is hidden, once it is shown. Where the browser
// reports its largest paint (Chromium), also once that paint is of the main part: a frame is
// committed long before a slow phone has drawn a long game's board, and what is fetched after
// the page is for building a move, never for seeing it. A paint that is never reported (the
// player clicked first) waits no longer than SHOWN_WAIT.
const SHOWN_WAIT = 3000;

function afterPaint() {
  const loaded =
    document.readyState === "complete"
      ? Promise.resolve()
      : new Promise((resolve) => window.addEventListener("load", resolve, { once: true }));
  const framed = loaded.then(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0))));
  const main = document.querySelector("main");
  const reported = (window.PerformanceObserver && PerformanceObserver.supportedEntryTypes) || [];
  if (!main || !reported.includes("largest-contentful-paint")) return framed;
  const shown = new Promise((resolve) => {
    let observer = null;
    const done = () => {
      if (observer) observer.disconnect();
      resolve();
    };
    try {
      observer = new PerformanceObserver((list) => {
        if (list.getEntries().some((entry) => entry.element && main.contains(entry.element))) done();
      });
      observer.observe({ type: "largest-contentful-paint", buffered: true });
    } catch {
      done();
      return;
    }
    loaded.then(() => setTimeout(done, SHOWN_WAIT));
  });
  return Promise.all([framed, shown]);
}

// The default export of the module at `url` (same origin only), or null when there is none or it
// cannot be loaded: the page then keeps its plain form.
function loadController(url) {
  if (!url) return Promise.resolve(null);
  let href;
  try {
    href = new URL(url, document.baseURI);
  } catch {
    return Promise.resolve(null);
  }
  if (href.origin !== location.origin) return Promise.resolve(null);
  if (!controllers.has(href.href)) {
    const loading = import(href.href).then(
      (module) => (typeof module.default === "function" ? module.default : null),
      (error) => {
        console.error("pbem: the board's controller could not be loaded; the form still works.", error);
        return null;
      },
    );
    controllers.set(href.href, loading);
  }
  return controllers.get(href.href);
}

// Exposed for the browser tests and for curious players' consoles; `ready` resolves once the page
// is read and the controller (if any) started.
const play = new Play();
window.pbemPlay = play;
if (document.readyState === "loading") {
  play.ready = new Promise((resolve) => {
    document.addEventListener("DOMContentLoaded", () => resolve(play.init()));
  });
} else {
  play.ready = play.init();
}

export { Play, Replay, readFormMove, bindOnce };
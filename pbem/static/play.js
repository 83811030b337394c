// Click-to-move for the game page. Progressive enhancement: without this script the page's plain
// form (a list of legal moves, free text and the hidden ply) still works; with it, moves are built
// by clicking the board, confirmed by the player, posted to the JSON move API and the new position
// is shown without a reload.
//
// Everything is driven by two JSON islands the page embeds (`legal-moves` and `game-data`) and by
// the data attributes of the engines' SVG drawings; no move is ever sent before "Confirm".

const SVGNS = "http://www.w3.org/2000/svg";
const POLL_MS = 250;
const POLL_LIMIT_MS = 60000;
const WAIT_POLL_MS = 5000;

const $ = (selector, root = document) => root.querySelector(selector);
const $$ = (selector, root = document) => Array.from(root.querySelectorAll(selector));

function readJSON(id) {
  const element = document.getElementById(id);
  if (!element) return null;
  try {
    return JSON.parse(element.textContent);
  } catch {
    return null;
  }
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === false || value === null || value === undefined) continue;
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined) {
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
  }
  return node;
}

function svgEl(tag, attrs = {}, text = null) {
  const node = document.createElementNS(SVGNS, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (text !== null) node.textContent = text;
  return node;
}

function cssEscape(value) {
  return window.CSS && CSS.escape ? CSS.escape(value) : String(value).replace(/["\\]/g, "\\$&");
}

// --- the page controller -------------------------------------------------------------------------

class Play {
  constructor() {
    this.controller = null;
    this.replay = null;
    this.busy = false;
    this.waitTimer = null;
    document.addEventListener("keydown", (event) => this.onKey(event));
  }

  // (Re)reads the page: called on load and after the live part of the page was swapped.
  init() {
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
    if (this.form) bindOnce(this.form, "submit", (event) => this.onFormSubmit(event));
    this.replay = new Replay(this);
    this.replay.init();
    const Controller = CONTROLLERS[this.data.engine];
    this.controller = null;
    this.showPending();
    if (this.data.your_turn && Controller && this.legal.length) {
      this.controller = new Controller(this);
      this.picker.hidden = false;
      this.controller.start();
      // The list and text field stay one click away; an error or typed text keeps them open.
      const box = $("#move-form-box");
      if (box && !$("#move-error") && !$("#move-text")?.value) box.open = false;
    } else if (this.picker) {
      this.picker.hidden = true;
    }
    this.watchForTurn();
    this.markTitle();
    this.watchFocus();
  }

  // A tab left open shows in its title when the player is wanted.
  markTitle() {
    if (this.baseTitle === undefined) this.baseTitle = document.title;
    document.title = this.data.your_turn ? `● Your turn · ${this.baseTitle}` : this.baseTitle;
  }

  get svg() {
    return $("svg", this.boardBox);
  }

  // --- the move being built ---

  setPending(move, words) {
    this.pendingMove = move;
    this.pendingWords = words;
    this.fillForm(move);
    this.showPending();
  }

  clearPending() {
    this.pendingMove = null;
    this.pendingWords = null;
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
        el(
          "div",
          { class: "pbem-actions" },
          el(
            "button",
            { type: "button", class: "pbem-confirm", onclick: () => this.confirm(this.pendingMove) },
            "Confirm move",
          ),
          el(
            "button",
            { type: "button", class: "pbem-cancel", onclick: () => this.cancel() },
            "Cancel",
          ),
        ),
      );
    }
    if (message) {
      this.pending.append(
        el("p", { class: `pbem-message pbem-${kind}`, role: kind === "error" ? "alert" : "status" }, message),
      );
    }
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
  }

  // Whatever can be clicked on the board can also be reached with Tab and chosen with Enter.
  watchFocus() {
    if (!this.boardBox || observed.has(this.boardBox)) return;
    let queued = false;
    const sync = () => {
      queued = false;
      for (const node of $$("[tabindex]", this.boardBox)) {
        if (!node.matches(FOCUSABLE)) node.removeAttribute("tabindex");
      }
      if (!this.controller || (this.replay && this.replay.active)) return;
      for (const node of $$(FOCUSABLE, this.boardBox)) {
        node.setAttribute("tabindex", "0");
        const name = node.dataset.cell || node.dataset.square || node.dataset.pos || node.dataset.loc;
        if (name && !node.getAttribute("aria-label")) node.setAttribute("aria-label", name);
      }
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
      this.say("Choose a move from the list or type one.", "error");
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
    this.showPending(`Sending ${move}…`, "progress");
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
        this.refused(body.message || `The move was refused (${response.status}).`);
        if (["stale_ply", "not_your_turn", "game_over"].includes(body.error)) this.offerRefresh();
        return;
      }
      this.showPending(`Applying ${move}…`, "progress");
      const outcome = await this.waitForSubmission(body.submission);
      if (outcome.status === "applied") {
        this.showPending(`${move} was played. Loading the new position…`, "progress");
        await this.refresh();
      } else if (outcome.status === "rejected") {
        this.refused(outcome.error || outcome.message || "The move was refused.");
      } else {
        this.busy = false;
        this.root.classList.remove("pbem-busy");
        this.clearPending();
        this.say(
          "Your move is stored and will be applied shortly; this page updates when it is.",
          "info",
        );
        this.watchForTurn(true);
      }
    } catch (error) {
      this.refused(`Could not reach the server (${error.message}). Nothing was changed; try again.`);
    }
  }

  submitForm(move) {
    if (!this.form) {
      this.refused("This page cannot send moves.");
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
            await this.refresh();
          },
        },
        "Show the game as it is now",
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
        return { status: "rejected", error: body.message || `Status ${response.status}` };
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 1.5, 2000);
    }
    return { status: "pending" };
  }

  // Fetches this page again and swaps in its live regions: the new board, status and history.
  async refresh() {
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
    this.init();
    const words = this.data.your_turn ? "Your move was played. It is still your turn." : "Your move was played.";
    if (this.pending) this.say(words, "ok");
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
        if ((typeof ply === "number" && ply !== this.data.ply) || (status && status !== this.data.status)) {
          this.stopWatching();
          if (mine) {
            // Moved from another tab or device: do not pull the board from under the player.
            this.clearPending();
            this.say("The game moved on since this page was loaded.", "info");
            this.offerRefresh();
            return;
          }
          this.busy = true;
          await this.refresh();
          if (this.data.your_turn) this.say("Your turn: the game moved on while you were here.", "ok");
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
const FOCUSABLE = [
  ".cell.pbem-target",
  ".square.pbem-source",
  ".square.pbem-target",
  ".frontier.pbem-target",
  ".tile.pbem-flippable",
  "[data-hand].pbem-source",
  ".pbem-preview .pbem-loc",
].join(", ");

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
    this.update(`Loading move ${ply}…`);
    let body = this.cache.get(ply);
    if (!body) {
      const response = await fetch(`${play.data.urls.position}${ply}`, { headers: play.authHeaders() });
      body = await response.json().catch(() => ({}));
      if (!response.ok) {
        this.update(body.message || "That position could not be loaded.");
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
    const what = ply === 0 ? "the start" : `move ${ply}: ${body.move} by ${body.by}`;
    this.update(`Replay: the position after ${what}.`);
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

// --- GORami: choose a disc value, then a cell ----------------------------------------------------

class Gorami {
  constructor(play) {
    this.play = play;
    this.view = play.data.view || {};
    this.seat = play.data.seat;
    this.byNumber = new Map();
    for (const move of play.legal) {
      const match = /^(\d)([a-z]\d+)$/.exec(move);
      if (!match) continue;
      const [, number, cell] = match;
      if (!this.byNumber.has(number)) this.byNumber.set(number, new Set());
      this.byNumber.get(number).add(cell);
    }
    this.cells = new Map((this.view.cells || []).map((cell) => [cell.name, cell]));
    this.hand = (this.view.hands || [])[this.seat] || {};
    this.colour = (this.view.colours || [])[this.seat] || "";
    this.number = null;
  }

  start() {
    const numbers = Object.keys(this.hand).sort();
    const buttons = numbers.map((number) => {
      const count = this.hand[number];
      const playable = this.byNumber.has(number);
      return el(
        "button",
        {
          type: "button",
          class: `pbem-disc pbem-disc-${this.colour}`,
          "data-number": number,
          "aria-pressed": "false",
          disabled: !playable,
          title: count ? (playable ? `place a ${number}` : `no cell takes a ${number} now`) : `you have no ${number} left`,
          onclick: () => this.choose(number),
        },
        el("span", { class: "pbem-disc-face" }, number),
        el("span", { class: "pbem-disc-count" }, `×${count}`),
      );
    });
    this.play.picker.replaceChildren(
      el("p", { class: "pbem-step" }, "1. Choose a disc, 2. click a free cell, 3. confirm."),
      el("div", { class: "pbem-discs", role: "group", "aria-label": "disc value" }, buttons),
    );
    const first = numbers.find((number) => this.byNumber.has(number));
    if (first) this.choose(first);
  }

  choose(number) {
    this.number = number;
    this.play.clearPending();
    for (const button of $$(".pbem-disc", this.play.picker)) {
      button.setAttribute("aria-pressed", String(button.dataset.number === number));
    }
    this.mark();
  }

  reason(number, name) {
    const cell = this.cells.get(name);
    if (cell && cell.disc) {
      return `${name} is taken (a ${cell.disc.colour} ${cell.disc.number}).`;
    }
    if (!this.hand[number]) return `You have no ${number} left.`;
    if (cell) {
      const clash = (cell.neighbours || []).find((n) => {
        const other = this.cells.get(n);
        return other && other.disc && String(other.disc.number) === String(number);
      });
      if (clash) {
        const other = this.cells.get(clash);
        return `${name} shares an edge with ${clash}, which holds a ${other.disc.colour} ${number}: two equal numbers may not touch along an edge.`;
      }
    }
    return `A ${number} cannot go on ${name} now.`;
  }

  mark() {
    const svg = this.play.svg;
    if (!svg) return;
    $$(".pbem-ghost, .pbem-mark", svg).forEach((node) => node.remove());
    const targets = this.byNumber.get(this.number) || new Set();
    for (const group of $$("[data-cell]", svg)) {
      const name = group.dataset.cell;
      group.classList.remove("pbem-target", "pbem-blocked", "pbem-selected");
      $$("title.pbem-reason", group).forEach((node) => node.remove());
      if (targets.has(name)) {
        group.classList.add("pbem-target");
        group.prepend(svgEl("title", { class: "pbem-reason" }, `place your ${this.number} on ${name}`));
      } else {
        const why = this.reason(this.number, name);
        group.classList.add("pbem-blocked");
        group.dataset.reason = why;
        group.prepend(svgEl("title", { class: "pbem-reason" }, why));
        if (!this.cells.get(name) || !this.cells.get(name).disc) {
          const [cx, cy] = centroid(group);
          group.append(svgEl("text", { class: "pbem-mark", x: cx, y: cy + 7, "text-anchor": "middle" }, "×"));
        }
      }
    }
    for (const disc of $$(`.hand-disc[data-seat="${this.seat}"]`, svg)) {
      disc.classList.toggle("pbem-chosen", disc.dataset.number === this.number);
    }
  }

  click(target) {
    const disc = target.closest(".hand-disc");
    if (disc && disc.dataset.seat === String(this.seat)) {
      if (this.byNumber.has(disc.dataset.number)) this.choose(disc.dataset.number);
      else this.play.say(this.reasonNoCell(disc.dataset.number), "error");
      return;
    }
    const group = target.closest("[data-cell]");
    if (!group || !this.number) return;
    const name = group.dataset.cell;
    if (!group.classList.contains("pbem-target")) {
      this.play.say(group.dataset.reason || `A ${this.number} cannot go on ${name}.`, "error");
      return;
    }
    $$(".pbem-ghost", this.play.svg).forEach((node) => node.remove());
    $$(".pbem-selected", this.play.svg).forEach((node) => node.classList.remove("pbem-selected"));
    group.classList.add("pbem-selected");
    const [cx, cy] = centroid(group);
    const ghost = svgEl("g", { class: `pbem-ghost pbem-ghost-${this.colour}`, "pointer-events": "none" });
    ghost.append(svgEl("circle", { cx, cy, r: 20.5 }));
    ghost.append(svgEl("text", { x: cx, y: cy + 8, "text-anchor": "middle" }, this.number));
    group.append(ghost);
    this.play.setPending(`${this.number}${name}`, `Place your ${this.number} on ${name}.`);
  }

  reasonNoCell(number) {
    return this.hand[number] ? `No free cell takes a ${number} now.` : `You have no ${number} left.`;
  }

  reset() {
    if (this.number) this.mark();
  }
}

function centroid(group) {
  const polygon = $("polygon", group);
  if (!polygon) {
    const box = group.getBBox();
    return [box.x + box.width / 2, box.y + box.height / 2];
  }
  const points = polygon
    .getAttribute("points")
    .trim()
    .split(/\s+/)
    .map((pair) => pair.split(",").map(Number));
  const x = points.reduce((sum, p) => sum + p[0], 0) / points.length;
  const y = points.reduce((sum, p) => sum + p[1], 0) / points.length;
  return [Math.round(x * 10) / 10, Math.round(y * 10) / 10];
}

// --- Martian Mud Wrestling: a stack, then a destination ------------------------------------------

class Mmw {
  constructor(play) {
    this.play = play;
    this.moves = new Map();
    for (const move of play.legal) {
      const [from, to] = move.split("-");
      if (!this.moves.has(from)) this.moves.set(from, []);
      this.moves.get(from).push(to);
    }
    this.from = null;
  }

  start() {
    this.play.picker.replaceChildren(
      el("p", { class: "pbem-step" }, "1. Click one of your stacks (outlined), 2. click where its top pyramid goes, 3. confirm."),
    );
    this.reset();
  }

  squares(name) {
    return $$(`.square[data-square="${cssEscape(name)}"]`, this.play.svg);
  }

  reset() {
    this.from = null;
    const svg = this.play.svg;
    if (!svg) return;
    for (const square of $$(".square[data-square]", svg)) {
      square.classList.remove("pbem-source", "pbem-selected", "pbem-target", "pbem-chosen");
      if (this.moves.has(square.dataset.square)) square.classList.add("pbem-source");
    }
  }

  select(from) {
    this.reset();
    this.from = from;
    for (const square of this.squares(from)) square.classList.add("pbem-selected");
    for (const to of this.moves.get(from)) {
      for (const square of this.squares(to)) square.classList.add("pbem-target");
    }
    const top = this.squares(from)[0];
    const stack = top ? top.dataset.stack || "" : "";
    const size = stack.slice(-1);
    this.play.clearPending();
    this.play.say(`Moving the top pyramid of ${from}${size ? ` (size ${size})` : ""}: click a lit square.`);
  }

  // What the rules say happens at the destination: it sinks when the points touching the board
  // are fewer than those resting on the pile (equal does not sink).
  sinking(from, to) {
    const squares = (this.play.data.view || {}).squares;
    if (!squares || !squares[from] || !squares[to]) return "";
    const moving = squares[from][squares[from].length - 1];
    const below = squares[to];
    const touches = below.every((p) => moving.size > p.size);
    let touching = touches ? moving.points : 0;
    let resting = touches ? 0 : moving.points;
    for (const p of below) {
      if (p.touching) touching += p.points;
      else resting += p.points;
    }
    if (touching < resting) {
      return ` The stack on ${to} sinks (touching ${touching} < resting ${resting}): all ${below.length + 1} pyramids leave the game.`;
    }
    return ` ${to} will hold ${touching} touching and ${resting} resting.`;
  }

  click(target) {
    const hit = target.closest("[data-square]");
    if (!hit) return;
    const name = hit.dataset.square;
    if (this.from && name === this.from) {
      this.reset();
      this.play.clearPending();
      return;
    }
    if (this.from && this.moves.get(this.from).includes(name)) {
      for (const square of $$(".pbem-chosen", this.play.svg)) square.classList.remove("pbem-chosen");
      for (const square of this.squares(name)) square.classList.add("pbem-chosen");
      const stack = (this.squares(name)[0] || hit).dataset.stack || "";
      const onto = stack ? `onto the stack on ${name}` : `to the empty square ${name}`;
      const words = `Move the top pyramid of ${this.from} ${onto}.${this.sinking(this.from, name)}`;
      this.play.setPending(`${this.from}-${name}`, words);
      return;
    }
    if (this.moves.has(name)) {
      this.select(name);
      return;
    }
    const square = this.squares(name)[0] || hit;
    const top = square.dataset.top;
    if (this.from) {
      this.play.say(`${name} is not next to ${this.from}: a pyramid moves one square in any direction.`, "error");
    } else if (!top) {
      this.play.say(`${name} is empty: click one of your stacks first.`, "error");
    } else {
      this.play.say(`The top pyramid on ${name} is ${top}, not yours.`, "error");
    }
  }
}

// --- Marram: a tile (from the hand, or a shovel tile to flip), a place, a rotation, a claim ------

const QUADS = ["NW", "NE", "SE", "SW"];
// Where marram/render.py draws the first token at a location, in tile units (100 a side).
const CLAIM_POINT = {
  NW: [32, 32], NE: [68, 32], SE: [68, 68], SW: [32, 68],
  N: [50, 31], E: [69, 50], S: [50, 69], W: [31, 50],
};
const BET_POINT = { N: [66, 13], E: [87, 66], S: [34, 87], W: [13, 34] };

class Marram {
  constructor(play) {
    this.play = play;
    this.previews = play.data.previews || {};
    this.view = play.data.view || {};
    this.actions = []; // parsed legal moves
    this.canPass = false;
    for (const move of play.legal) {
      const parsed = parseMarram(move);
      if (parsed && parsed.kind === "pass") this.canPass = true;
      else if (parsed) this.actions.push(parsed);
    }
    this.tilesAt = new Map((this.view.board || []).map((t) => [`${t.x},${t.y}`, t]));
    this.choice = null; // {kind, tile, pos, rot, claim, bet}
    this.keyListener = null;
  }

  start() {
    const hand = (this.view.hand || []).map(String);
    const placeable = new Set(this.actions.filter((a) => a.kind === "place").map((a) => a.tile));
    const flips = new Set(this.actions.filter((a) => a.kind === "flip").map((a) => a.pos));
    const supplies = (this.view.supplies || [])[this.play.data.seat] || {};
    const left = this.view.actions_left;
    const rows = [
      el(
        "p",
        { class: "pbem-step" },
        `${left === 1 ? "Your last action this turn" : "Your first of two actions"}: `,
        "choose a tile from your hand, or a tile with a shovel on the board to flip.",
      ),
      el(
        "div",
        { class: "pbem-tiles", role: "group", "aria-label": "your hand" },
        hand.map((tile) =>
          el(
            "button",
            {
              type: "button",
              class: "pbem-tile",
              "data-tile": tile,
              "aria-pressed": "false",
              disabled: !placeable.has(tile),
              title: placeable.has(tile) ? `lay tile ${tile}` : `tile ${tile} fits nowhere now`,
              onclick: () => this.chooseTile(tile),
            },
            this.thumb(tile),
            el("span", {}, `Tile ${tile}`),
          ),
        ),
        flips.size
          ? el(
              "button",
              {
                type: "button",
                class: "pbem-flip-mode",
                "aria-pressed": "false",
                onclick: () => this.chooseFlip(),
                title: `${supplies.shovels ?? 0} shovels left`,
              },
              `Flip a tile (${supplies.shovels ?? 0} shovels)`,
            )
          : null,
        this.canPass
          ? el(
              "button",
              {
                type: "button",
                class: "pbem-pass",
                onclick: () => this.play.setPending("pass", "Pass this action: nothing can be laid or flipped."),
              },
              "Pass",
            )
          : null,
      ),
      el("div", { class: "pbem-rotate", hidden: true }),
      el("div", { class: "pbem-claims", hidden: true }),
    ];
    this.play.picker.replaceChildren(...rows);
    this.reset();
    if (!hand.length && !flips.size && this.canPass) {
      this.play.setPending("pass", "Pass this action: nothing can be laid or flipped.");
    }
  }

  thumb(tile) {
    const markup = this.previews[`front:${tile}:0`];
    if (!markup) return null;
    const span = el("span", { class: "pbem-thumb", "aria-hidden": "true" });
    span.innerHTML = `<svg xmlns="${SVGNS}" viewBox="0 0 100 100" width="44" height="44">${markup}</svg>`;
    return span;
  }

  reset() {
    this.choice = null;
    this.clearBoard();
    this.markSources();
    this.showRotate();
    this.showClaims();
    for (const button of $$(".pbem-tile, .pbem-flip-mode", this.play.picker)) {
      button.setAttribute("aria-pressed", "false");
    }
  }

  clearBoard() {
    const svg = this.play.svg;
    if (!svg) return;
    $$(".pbem-preview", svg).forEach((node) => node.remove());
    for (const node of $$(".pbem-target, .pbem-flippable, .pbem-hidden, .pbem-chosen", svg)) {
      node.classList.remove("pbem-target", "pbem-flippable", "pbem-hidden", "pbem-chosen");
    }
  }

  markSources() {
    const svg = this.play.svg;
    if (!svg) return;
    for (const tile of $$("[data-hand]", svg)) {
      const id = tile.dataset.tile;
      if (this.actions.some((a) => a.kind === "place" && a.tile === id)) tile.classList.add("pbem-source");
    }
  }

  positionsFor(choice) {
    return new Set(
      this.actions
        .filter((a) => a.kind === choice.kind && (choice.kind === "flip" || a.tile === choice.tile))
        .map((a) => a.pos),
    );
  }

  chooseTile(tile) {
    this.clearBoard();
    this.play.clearPending();
    this.choice = { kind: "place", tile, pos: null, rot: null, claim: null, bet: null };
    for (const button of $$(".pbem-tile, .pbem-flip-mode", this.play.picker)) {
      button.setAttribute("aria-pressed", String(button.dataset.tile === tile));
    }
    const hand = $(`[data-hand][data-tile="${cssEscape(tile)}"]`, this.play.svg);
    if (hand) hand.classList.add("pbem-chosen");
    const spots = this.positionsFor(this.choice);
    for (const spot of $$(".frontier[data-pos]", this.play.svg)) {
      if (spots.has(spot.dataset.pos)) spot.classList.add("pbem-target");
    }
    this.showRotate();
    this.showClaims();
    this.play.say(`Tile ${tile}: click a lit place on the board (${spots.size} possible).`);
  }

  chooseFlip() {
    this.clearBoard();
    this.play.clearPending();
    this.choice = { kind: "flip", tile: null, pos: null, rot: null, claim: null, bet: null };
    for (const button of $$(".pbem-tile", this.play.picker)) button.setAttribute("aria-pressed", "false");
    const mode = $(".pbem-flip-mode", this.play.picker);
    if (mode) mode.setAttribute("aria-pressed", "true");
    const spots = this.positionsFor(this.choice);
    for (const tile of $$(".tile[data-pos]:not([data-hand])", this.play.svg)) {
      if (spots.has(tile.dataset.pos)) tile.classList.add("pbem-flippable");
    }
    this.showRotate();
    this.showClaims();
    this.play.say("Click a lit tile with a shovel to turn it over.");
  }

  rotationsFor(choice) {
    const rots = new Set(
      this.actions
        .filter(
          (a) =>
            a.kind === choice.kind &&
            a.pos === choice.pos &&
            (choice.kind === "flip" || a.tile === choice.tile),
        )
        .map((a) => a.rot),
    );
    return Array.from(rots).sort((a, b) => a - b);
  }

  choosePos(pos) {
    const choice = this.choice;
    choice.pos = pos;
    if (choice.kind === "flip") choice.tile = String(this.tilesAt.get(pos)?.tile ?? "");
    const rots = this.rotationsFor(choice);
    choice.rot = rots.includes(choice.rot) ? choice.rot : rots[0];
    choice.claim = null;
    choice.bet = null;
    this.draw();
  }

  rotate(step) {
    const choice = this.choice;
    if (!choice || choice.pos === null) return false;
    const rots = this.rotationsFor(choice);
    if (rots.length < 2) {
      this.play.say(`Only ${rots[0]}° fits here.`, "info");
      return true;
    }
    const index = rots.indexOf(choice.rot);
    choice.rot = rots[(index + step + rots.length) % rots.length];
    choice.claim = null;
    choice.bet = null;
    this.draw();
    return true;
  }

  origin(pos) {
    const svg = this.play.svg;
    const laid = $(`.tile[data-pos="${cssEscape(pos)}"]:not([data-hand])`, svg);
    if (laid) {
      const match = /translate\(\s*([-\d.]+)[ ,]+([-\d.]+)\s*\)/.exec(laid.getAttribute("transform") || "");
      if (match) return [Number(match[1]), Number(match[2])];
    }
    const frame = $(`.frontier[data-pos="${cssEscape(pos)}"] rect`, svg);
    if (frame) return [Number(frame.getAttribute("x")) - 3, Number(frame.getAttribute("y")) - 3];
    return null;
  }

  // Shows the chosen tile in place, turned, with its claim and bet locations lit.
  draw() {
    const svg = this.play.svg;
    const choice = this.choice;
    $$(".pbem-preview", svg).forEach((node) => node.remove());
    $$(".pbem-hidden", svg).forEach((node) => node.classList.remove("pbem-hidden"));
    const face = choice.kind === "flip" ? "back" : "front";
    const markup = this.previews[`${face}:${choice.tile}:${choice.rot}`];
    const at = this.origin(choice.pos);
    if (markup && at) {
      if (choice.kind === "flip") {
        const laid = $(`.tile[data-pos="${cssEscape(choice.pos)}"]:not([data-hand])`, svg);
        if (laid) laid.classList.add("pbem-hidden");
      }
      const holder = svgEl("g", { class: "pbem-preview", transform: `translate(${at[0]} ${at[1]})` });
      holder.innerHTML = markup;
      holder.append(svgEl("rect", { class: "pbem-preview-frame", x: 1, y: 1, width: 98, height: 98 }));
      svg.append(holder);
    }
    for (const spot of $$(".pbem-target, .pbem-flippable", svg)) {
      const here = spot.dataset.pos === choice.pos;
      spot.classList.toggle("pbem-chosen", here);
    }
    this.markLocations();
    this.showRotate();
    this.showClaims();
    this.compose();
  }

  options() {
    const c = this.choice;
    return this.actions.filter(
      (a) =>
        a.kind === c.kind &&
        a.pos === c.pos &&
        a.rot === c.rot &&
        (c.kind === "flip" || a.tile === c.tile),
    );
  }

  markLocations() {
    this.drawTokens();
    const options = this.options();
    const claims = new Set(options.filter((a) => a.claim).map((a) => a.claim.split(" ")[1]));
    const bets = new Set(options.filter((a) => a.bet).map((a) => a.bet));
    const preview = $(".pbem-preview", this.play.svg);
    if (!preview) return;
    for (const spot of $$("[data-loc]", preview)) {
      const loc = spot.dataset.loc;
      spot.classList.toggle("pbem-loc", claims.has(loc) || bets.has(loc));
      const chosen =
        (this.choice.claim && this.choice.claim.split(" ")[1] === loc) || this.choice.bet === loc;
      spot.classList.toggle("pbem-loc-chosen", Boolean(chosen));
    }
  }

  // The chosen claim and bet, drawn as the seat's own tokens where the engine will draw them.
  drawTokens() {
    const preview = $(".pbem-preview", this.play.svg);
    if (!preview) return;
    $$(".pbem-token", preview).forEach((node) => node.remove());
    const glyphs = this.play.data.glyphs || {};
    const put = (kind, [x, y]) => {
      if (!glyphs[kind]) return;
      const token = svgEl("g", { class: "pbem-token", transform: `translate(${x} ${y})`, "pointer-events": "none" });
      token.innerHTML = glyphs[kind];
      preview.append(token);
    };
    const c = this.choice;
    if (c.claim) {
      const [kind, loc] = c.claim.split(" ");
      put(kind, CLAIM_POINT[loc]);
    }
    if (c.bet) put("bet", BET_POINT[c.bet]);
  }

  showRotate() {
    const box = $(".pbem-rotate", this.play.picker);
    if (!box) return;
    const choice = this.choice;
    if (!choice || choice.pos === null) {
      box.hidden = true;
      box.replaceChildren();
      return;
    }
    const rots = this.rotationsFor(choice);
    box.hidden = false;
    box.replaceChildren(
      el(
        "button",
        { type: "button", class: "pbem-rot-left", onclick: () => this.rotate(-1), disabled: rots.length < 2, title: "turn back (R)" },
        "⟲",
      ),
      el(
        "span",
        { class: "pbem-rot-words", "data-rotation": choice.rot },
        `${choice.kind === "flip" ? "Back" : "Tile"} ${choice.tile} at ${choice.pos}, turned ${choice.rot}°`,
        rots.length > 1 ? ` (${rots.indexOf(choice.rot) + 1} of ${rots.length}; keys r / R)` : " (the only way it fits)",
      ),
      el(
        "button",
        { type: "button", class: "pbem-rot-right", onclick: () => this.rotate(1), disabled: rots.length < 2, title: "turn (r)" },
        "⟳",
      ),
    );
  }

  showClaims() {
    const box = $(".pbem-claims", this.play.picker);
    if (!box) return;
    const choice = this.choice;
    if (!choice || choice.pos === null) {
      box.hidden = true;
      box.replaceChildren();
      return;
    }
    const options = this.options();
    const claims = Array.from(new Set(options.filter((a) => a.claim).map((a) => a.claim)));
    const bets = Array.from(new Set(options.filter((a) => a.bet).map((a) => a.bet)));
    const chip = (label, pressed, onclick, data = {}) =>
      el("button", { type: "button", class: "pbem-chip", "aria-pressed": String(pressed), onclick, ...data }, label);
    const rows = [];
    if (claims.length) {
      rows.push(
        el(
          "div",
          { class: "pbem-chips", role: "group", "aria-label": "claim" },
          el("span", { class: "pbem-chips-label" }, "Claim:"),
          chip("none", !choice.claim, () => this.setClaim(null), { "data-claim": "" }),
          claims.map((c) => chip(c, choice.claim === c, () => this.setClaim(c), { "data-claim": c })),
        ),
      );
    }
    if (bets.length) {
      rows.push(
        el(
          "div",
          { class: "pbem-chips", role: "group", "aria-label": "bet" },
          el("span", { class: "pbem-chips-label" }, "Bet:"),
          chip("none", !choice.bet, () => this.setBet(null), { "data-bet": "" }),
          bets.map((b) => chip(`bet ${b}`, choice.bet === b, () => this.setBet(b), { "data-bet": b })),
        ),
      );
    }
    if (claims.length || bets.length) {
      rows.push(el("p", { class: "pbem-hint" }, "Or click a lit quadrant or snake on the tile."));
    }
    box.hidden = !rows.length;
    box.replaceChildren(...rows);
  }

  setClaim(claim) {
    this.choice.claim = claim;
    if (!this.exists(this.choice)) this.choice.bet = null;
    this.refreshChoice();
  }

  setBet(bet) {
    this.choice.bet = bet;
    if (!this.exists(this.choice)) this.choice.claim = null;
    this.refreshChoice();
  }

  refreshChoice() {
    this.markLocations();
    this.showClaims();
    this.compose();
  }

  exists(choice) {
    return this.options().some((a) => (a.claim || null) === (choice.claim || null) && (a.bet || null) === (choice.bet || null));
  }

  compose() {
    const c = this.choice;
    const parts = c.kind === "place" ? ["place", c.tile, c.pos, String(c.rot)] : ["flip", c.pos, String(c.rot)];
    if (c.claim) parts.push(c.claim);
    if (c.bet) parts.push("bet", c.bet);
    const move = parts.join(" ");
    if (!this.play.legal.includes(move)) {
      this.play.clearPending();
      return;
    }
    let words = c.kind === "place" ? `Lay tile ${c.tile} at ${c.pos}, turned ${c.rot}°` : `Flip tile ${c.tile} at ${c.pos}, its back turned ${c.rot}°`;
    if (c.claim) {
      const [kind, loc] = c.claim.split(" ");
      words += `, with a ${kind === "fork" ? "pitchfork" : "boot"} on ${loc}`;
    }
    if (c.bet) words += `, betting on the prey at ${c.bet}`;
    this.play.setPending(move, `${words}.`);
  }

  click(target) {
    const c = this.choice;
    const loc = target.closest(".pbem-preview [data-loc]");
    if (loc && c && c.pos !== null) {
      const name = loc.dataset.loc;
      const options = this.options();
      const claim = options.find((a) => a.claim && a.claim.endsWith(` ${name}`));
      const bet = options.find((a) => a.bet === name);
      const claimNow = c.claim && c.claim.endsWith(` ${name}`);
      if (claim && !claimNow) this.setClaim(claim.claim);
      else if (bet && c.bet !== name) this.setBet(name);
      else if (claimNow) this.setClaim(null);
      else if (c.bet === name) this.setBet(null);
      else this.play.say(`Nothing can be claimed on ${name} of this tile.`, "info");
      return;
    }
    const hand = target.closest("[data-hand]");
    if (hand) {
      const tile = hand.dataset.tile;
      if (this.actions.some((a) => a.kind === "place" && a.tile === tile)) this.chooseTile(tile);
      else this.play.say(`Tile ${tile} fits nowhere on the board now.`, "error");
      return;
    }
    const spot = target.closest("[data-pos]");
    if (!spot) return;
    const pos = spot.dataset.pos;
    if (spot.closest(".pbem-preview")) return;
    if (spot.classList.contains("frontier")) {
      if (c && c.kind === "place" && this.positionsFor(c).has(pos)) this.choosePos(pos);
      else if (c && c.kind === "place") this.play.say(`Tile ${c.tile} does not fit at ${pos} in any rotation.`, "error");
      else this.play.say("Choose a tile from your hand first.", "info");
      return;
    }
    // A laid tile: flip it if it can be flipped.
    const flippable = this.positionsFor({ kind: "flip" });
    if (flippable.has(pos)) {
      if (!c || c.kind !== "flip") this.chooseFlip();
      this.choosePos(pos);
    } else if (c && c.kind === "flip") {
      const laid = this.tilesAt.get(pos);
      this.play.say(
        laid && laid.tile === 0 ? "The start tile cannot be flipped." : `The tile at ${pos} cannot be flipped (no shovel, or its back fits no way).`,
        "error",
      );
    }
  }

  key(event) {
    if (event.key === "r") return this.rotate(1);
    if (event.key === "R") return this.rotate(-1);
    return false;
  }
}

function parseMarram(move) {
  const words = move.split(" ");
  if (words[0] === "pass") return { kind: "pass" };
  let rest;
  let action;
  if (words[0] === "place") {
    action = { kind: "place", tile: words[1], pos: words[2], rot: Number(words[3]) };
    rest = words.slice(4);
  } else if (words[0] === "flip") {
    action = { kind: "flip", tile: null, pos: words[1], rot: Number(words[2]) };
    rest = words.slice(3);
  } else {
    return null;
  }
  action.claim = null;
  action.bet = null;
  for (let i = 0; i < rest.length; i += 2) {
    if (rest[i] === "bet") action.bet = rest[i + 1];
    else action.claim = `${rest[i]} ${rest[i + 1]}`;
  }
  return action;
}

const CONTROLLERS = { gorami: Gorami, mmw: Mmw, marram: Marram };

// Exposed for the browser tests and for curious players' consoles.
const play = new Play();
window.pbemPlay = play;
if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", () => play.init());
} else {
  play.init();
}

export { parseMarram, readFormMove, QUADS };

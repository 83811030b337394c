// Click-to-move for Marram (the default export, loaded by the game page; the contract of a
// controller is described in pbem/static/kit.js): a tile (from the hand, or a shovel tile to
// flip), a place, a rotation, a claim.

import { $, $$, SVGNS, cssEscape, el, svgEl, wordsFrom } from "../../kit.js";

// What this controller says, in the page's language (Marram's catalog; see kit.js).
const { t, tn } = wordsFrom("pbem-words-marram");

export const QUADS = ["NW", "NE", "SE", "SW"];
// Where marram/render.py draws the first token at a location, in tile units (100 a side).
const CLAIM_POINT = {
  NW: [32, 32], NE: [68, 32], SE: [68, 68], SW: [32, 68],
  N: [50, 31], E: [69, 50], S: [50, 69], W: [31, 50],
};
const BET_POINT = { N: [66, 13], E: [87, 66], S: [34, 87], W: [13, 34] };

export default class Marram {
  static focusable = [
    ".frontier.pbem-target",
    ".tile.pbem-flippable",
    "[data-hand].pbem-source",
    ".pbem-preview .pbem-loc",
  ].join(", ");
  static shows = ".pbem-preview";

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
        left === 1
          ? t("Your last action this turn: choose a tile from your hand, or a tile with a shovel on the board to flip.")
          : t("Your first of two actions: choose a tile from your hand, or a tile with a shovel on the board to flip."),
      ),
      el(
        "div",
        { class: "pbem-tiles", role: "group", "aria-label": t("your hand") },
        hand.map((tile) =>
          el(
            "button",
            {
              type: "button",
              class: "pbem-tile",
              "data-tile": tile,
              "aria-pressed": "false",
              disabled: !placeable.has(tile),
              title: placeable.has(tile) ? t("lay tile %(tile)s", { tile }) : t("tile %(tile)s fits nowhere now", { tile }),
              onclick: () => this.chooseTile(tile),
            },
            this.thumb(tile),
            el("span", {}, t("Tile %(tile)s", { tile })),
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
                title: tn("%(num)d shovel left", "%(num)d shovels left", shovels(supplies)),
              },
              tn("Flip a tile (%(num)d shovel)", "Flip a tile (%(num)d shovels)", shovels(supplies)),
            )
          : null,
        this.canPass
          ? el(
              "button",
              {
                type: "button",
                class: "pbem-pass",
                onclick: () => this.play.setPending("pass", t("Pass this action: nothing can be laid or flipped.")),
              },
              t("Pass"),
            )
          : null,
      ),
      el("div", { class: "pbem-rotate", hidden: true }),
      el("div", { class: "pbem-claims", hidden: true }),
    ];
    this.play.picker.replaceChildren(...rows);
    this.reset();
    if (!hand.length && !flips.size && this.canPass) {
      this.play.setPending("pass", t("Pass this action: nothing can be laid or flipped."));
    }
  }

  thumb(tile) {
    const markup = this.previews[`front:${tile}:0`];
    if (!markup) return null;
    const span = el("span", { class: "pbem-thumb", "aria-hidden": "true" });
    span.innerHTML = `<svg xmlns="${SVGNS}" viewBox="0 0 100 100" width="44" height="44" font-family="sans-serif">${markup}</svg>`;
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
    this.play.say(
      tn(
        "Tile %(tile)s: click a lit place on the board (%(num)d possible).",
        "Tile %(tile)s: click a lit place on the board (%(num)d possible).",
        spots.size,
        { tile },
      ),
    );
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
    this.play.say(t("Click a lit tile with a shovel to turn it over."));
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
      this.play.say(t("Only %(rotation)s° fits here.", { rotation: rots[0] }), "info");
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

  // The picker's box `selector`, or null when there is none or no place is chosen yet (it is then
  // emptied and hidden, as nothing it offers applies).
  pickerBox(selector) {
    const box = $(selector, this.play.picker);
    if (!box) return null;
    if (!this.choice || this.choice.pos === null) {
      box.hidden = true;
      box.replaceChildren();
      return null;
    }
    return box;
  }

  showRotate() {
    const box = this.pickerBox(".pbem-rotate");
    if (!box) return;
    const choice = this.choice;
    const rots = this.rotationsFor(choice);
    const at = { tile: choice.tile, place: choice.pos, rotation: choice.rot };
    box.hidden = false;
    box.replaceChildren(
      el(
        "button",
        { type: "button", class: "pbem-rot-left", onclick: () => this.rotate(-1), disabled: rots.length < 2, title: t("turn back (R)") },
        "⟲",
      ),
      el(
        "span",
        { class: "pbem-rot-words", "data-rotation": choice.rot },
        choice.kind === "flip"
          ? t("Back %(tile)s at %(place)s, turned %(rotation)s°", at)
          : t("Tile %(tile)s at %(place)s, turned %(rotation)s°", at),
        " ",
        rots.length > 1
          ? t("(%(index)s of %(count)s; keys r / R)", { index: rots.indexOf(choice.rot) + 1, count: rots.length })
          : t("(the only way it fits)"),
      ),
      el(
        "button",
        { type: "button", class: "pbem-rot-right", onclick: () => this.rotate(1), disabled: rots.length < 2, title: t("turn (r)") },
        "⟳",
      ),
    );
  }

  showClaims() {
    const box = this.pickerBox(".pbem-claims");
    if (!box) return;
    const choice = this.choice;
    const options = this.options();
    const claims = Array.from(new Set(options.filter((a) => a.claim).map((a) => a.claim)));
    const bets = Array.from(new Set(options.filter((a) => a.bet).map((a) => a.bet)));
    const chip = (label, pressed, onclick, data = {}) =>
      el("button", { type: "button", class: "pbem-chip", "aria-pressed": String(pressed), onclick, ...data }, label);
    // A row of chips choosing one of `values`, or none, for the choice's `key`.
    const row = (key, name, heading, values, label, set) =>
      el(
        "div",
        { class: "pbem-chips", role: "group", "aria-label": name },
        el("span", { class: "pbem-chips-label" }, heading),
        chip(t("none"), !choice[key], () => set(null), { [`data-${key}`]: "" }),
        values.map((v) => chip(label(v), choice[key] === v, () => set(v), { [`data-${key}`]: v })),
      );
    const rows = [];
    if (claims.length) {
      rows.push(row("claim", t("claim"), t("Claim:"), claims, (c) => this.claimWords(c), (c) => this.setClaim(c)));
    }
    if (bets.length) {
      rows.push(row("bet", t("bet"), t("Bet:"), bets, (b) => t("bet %(place)s", { place: b }), (b) => this.setBet(b)));
    }
    if (claims.length || bets.length) {
      rows.push(el("p", { class: "pbem-hint" }, t("Or click a lit quadrant or snake on the tile.")));
    }
    box.hidden = !rows.length;
    box.replaceChildren(...rows);
  }

  // What a claim takes, in the engine's words (board_assets' `claims`, per action): "boot: the
  // grass tuft of 3 tiles (north-east quarter)"; the notation when the page has none.
  claimWords(claim) {
    const c = this.choice;
    const action = c.kind === "place" ? `place ${c.tile} ${c.pos} ${c.rot}` : `flip ${c.pos} ${c.rot}`;
    return ((this.play.data.claims || {})[action] || {})[claim] || claim;
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
    const at = { tile: c.tile, place: c.pos, rotation: c.rot };
    let words =
      c.kind === "place"
        ? t("Lay tile %(tile)s at %(place)s, turned %(rotation)s°", at)
        : t("Flip tile %(tile)s at %(place)s, its back turned %(rotation)s°", at);
    if (c.claim) words = t("%(action)s, with a %(claim)s", { action: words, claim: this.claimWords(c.claim) });
    if (c.bet) words = t("%(action)s, betting on the prey at %(place)s", { action: words, place: c.bet });
    this.play.setPending(move, t("%(action)s.", { action: words }));
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
      else this.play.say(t("Nothing can be claimed on %(place)s of this tile.", { place: name }), "info");
      return;
    }
    const hand = target.closest("[data-hand]");
    if (hand) {
      const tile = hand.dataset.tile;
      if (this.actions.some((a) => a.kind === "place" && a.tile === tile)) this.chooseTile(tile);
      else this.play.say(t("Tile %(tile)s fits nowhere on the board now.", { tile }), "error");
      return;
    }
    const spot = target.closest("[data-pos]");
    if (!spot) return;
    const pos = spot.dataset.pos;
    if (spot.closest(".pbem-preview")) return;
    if (spot.classList.contains("frontier")) {
      if (c && c.kind === "place" && this.positionsFor(c).has(pos)) this.choosePos(pos);
      else if (c && c.kind === "place") {
        this.play.say(t("Tile %(tile)s does not fit at %(place)s in any rotation.", { tile: c.tile, place: pos }), "error");
      } else this.play.say(t("Choose a tile from your hand first."), "info");
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
        laid && laid.tile === 0
          ? t("The start tile cannot be flipped.")
          : t("The tile at %(place)s cannot be flipped (no shovel, or its back fits no way).", { place: pos }),
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

export function parseMarram(move) {
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

// How many shovels the player holds: the flip button counts them.
function shovels(supplies) {
  return supplies.shovels ?? 0;
}

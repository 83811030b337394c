// Click-to-move for Martian Mud Wrestling (the default export, loaded by the game page; the
// contract of a controller is described in pbem/static/kit.js): a stack, then a destination.

import { $$, cssEscape, el, wordsFrom } from "../../kit.js";

// What this controller says, in the page's language (Martian Mud Wrestling's catalog; see kit.js).
const { t } = wordsFrom("pbem-words-mmw");

export default class Mmw {
  static focusable = ".square.pbem-source, .square.pbem-target";
  static shows = ".square.pbem-selected, .square.pbem-chosen";

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
      el("p", { class: "pbem-step" }, t("1. Click one of your stacks (outlined), 2. click where its top pyramid goes, 3. confirm.")),
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
    // The stack's code ends with the top pyramid's size; a "'" after it marks it resting.
    const size = stack.replace(/'/g, "").slice(-1);
    this.play.clearPending();
    this.play.say(
      size
        ? t("Moving the top pyramid of %(square)s (size %(size)s): click a lit square.", { square: from, size })
        : t("Moving the top pyramid of %(square)s: click a lit square.", { square: from }),
    );
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
      return t("The stack on %(square)s sinks (touching %(touching)s < resting %(resting)s): all %(count)s pyramids leave the game.", {
        square: to,
        touching,
        resting,
        count: below.length + 1,
      });
    }
    return t("%(square)s will hold %(touching)s touching and %(resting)s resting.", { square: to, touching, resting });
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
      const words = stack
        ? t("Move the top pyramid of %(from)s onto the stack on %(square)s.", { from: this.from, square: name })
        : t("Move the top pyramid of %(from)s to the empty square %(square)s.", { from: this.from, square: name });
      const after = this.sinking(this.from, name);
      this.play.setPending(`${this.from}-${name}`, after ? `${words} ${after}` : words);
      return;
    }
    if (this.moves.has(name)) {
      this.select(name);
      return;
    }
    const square = this.squares(name)[0] || hit;
    const top = square.dataset.top;
    if (this.from) {
      this.play.say(t("%(square)s is not next to %(from)s: a pyramid moves one square in any direction.", { square: name, from: this.from }), "error");
    } else if (!top) {
      this.play.say(t("%(square)s is empty: click one of your stacks first.", { square: name }), "error");
    } else {
      this.play.say(t("The top pyramid on %(square)s is %(top)s, not yours.", { square: name, top }), "error");
    }
  }
}

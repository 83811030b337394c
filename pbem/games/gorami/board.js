// Click-to-move for GORami (the default export, loaded by the game page; the contract of a
// controller is described in pbem/static/kit.js): choose a disc value, then a cell.

import { $, $$, el, svgEl, wordsFrom } from "../../kit.js";

// What this controller says, in the page's language (GORami's catalog; see kit.js).
const { t } = wordsFrom("pbem-words-gorami");

// A disc's colour as the view names it ("yellow"), in the page's language.
function colourWord(colour) {
  const words = { yellow: t("yellow"), blue: t("blue") };
  return words[colour] || colour;
}

export default class Gorami {
  static focusable = ".cell.pbem-target";
  static shows = ".cell.pbem-selected";

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
          title: count
            ? playable
              ? t("place a %(number)s", { number })
              : t("no cell takes a %(number)s now", { number })
            : t("you have no %(number)s left", { number }),
          onclick: () => this.choose(number),
        },
        el("span", { class: "pbem-disc-face" }, number),
        el("span", { class: "pbem-disc-count" }, `×${count}`),
      );
    });
    this.play.picker.replaceChildren(
      el("p", { class: "pbem-step" }, t("1. Choose a disc, 2. click a free cell, 3. confirm.")),
      el("div", { class: "pbem-discs", role: "group", "aria-label": t("disc value") }, buttons),
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
      return t("%(cell)s is taken (a %(colour)s %(number)s).", {
        cell: name,
        colour: colourWord(cell.disc.colour),
        number: cell.disc.number,
      });
    }
    if (!this.hand[number]) return t("You have no %(number)s left.", { number });
    if (cell) {
      const clash = (cell.neighbours || []).find((n) => {
        const other = this.cells.get(n);
        return other && other.disc && String(other.disc.number) === String(number);
      });
      if (clash) {
        const other = this.cells.get(clash);
        return t(
          "%(cell)s shares an edge with %(other)s, which holds a %(colour)s %(number)s: two equal numbers may not touch along an edge.",
          { cell: name, other: clash, colour: colourWord(other.disc.colour), number },
        );
      }
    }
    return t("A %(number)s cannot go on %(cell)s now.", { number, cell: name });
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
        group.prepend(svgEl("title", { class: "pbem-reason" }, t("place your %(number)s on %(cell)s", { number: this.number, cell: name })));
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
      this.play.say(group.dataset.reason || t("A %(number)s cannot go on %(cell)s.", { number: this.number, cell: name }), "error");
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
    this.play.setPending(`${this.number}${name}`, t("Place your %(number)s on %(cell)s.", { number: this.number, cell: name }));
  }

  reasonNoCell(number) {
    return this.hand[number]
      ? t("No free cell takes a %(number)s now.", { number })
      : t("You have no %(number)s left.", { number });
  }

  reset() {
    if (this.number) this.mark();
  }
}

export function centroid(group) {
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

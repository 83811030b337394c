// Panning and zooming a board drawn larger than its box (one that grows with every tile laid
// is soon wider than a phone). Generic: any board whose drawing would show at less than
// MIN_READABLE of its size gets a box of its own height that the player drags, pinches, or zooms
// with the buttons above it; the others stay as they are.
//
// The view is the SVG's viewBox, so clicks on the board keep working unchanged and the drawing
// stays sharp at any zoom. It starts centred on the last turn (the engines mark it with the class
// `last-move`), follows the keyboard focus, and keeps its place when the position shown changes
// (a replay, a refresh after a move). Pointer events only: mouse, pen and fingers alike.
//
// Whatever a player is asked to tap (the places lit for a tile, the move being confirmed) is
// framed whole in the box (`frame`), never left straddling its edge where a tap misses it.
//
// Every reading of the page's layout after the view changed lays the whole drawing out again
// (its text at a new scale), the costliest thing a phone does on the game page: the box's size
// is read once and then kept from the ResizeObserver, the first view is worked out from the
// drawing as the page first shows it, and a viewBox is written only when it changes.

import { $, $$, el, t } from "./kit.js";

const MIN_READABLE = 0.55; // below this scale a drawing's tiles are too small to read or tap
const START_SCALE = 0.8; // the scale a zoomed board opens at, unless the last turn needs less
const MAX_SCALE = 2.5;
const STEP = 1.4; // one press of + or -
const DRAG_SLOP = 6; // pixels a pointer moves before a press becomes a drag
// Framing what is to be tapped zooms out no further than this: a place drawn 100 units wide
// stays about 44 px, the smallest a finger hits reliably.
const TAP_SCALE = 0.45;
const FRAME_MARGIN = 12; // pixels kept between what is framed and the box's edge
// How long after a pointer lifts its click may still come (a tap focuses what it lands on
// between its pointerup and its click); a focus then is the pointer's doing, not the keyboard's.
const CLICK_WAIT_MS = 600;
// What the engines mark as the players' last turns (each `.last-turn` names its plies), and what
// they lay out as the board proper (not a side panel or hand): the first view is centred on the
// latest turn, else on the board.
const LAST_TURN = ".last-turn[data-plies]";
const LAST_MOVE = ".last-move";
const BOARD_PARTS = "[data-cell], [data-square], [data-pos]:not([data-hand])";
// What an engine draws beside its board (scores, a hand, the last turns, a key).
const PANEL = ".panel";
const PANEL_ZOOM_OUT = 0.75; // how far below its scale the first view may go to keep a panel whole

export class PanZoom {
  constructor(box) {
    this.box = box;
    this.area = box.parentElement;
    this.enabled = false;
    this.view = null; // {x, y, w, h} in the drawing's units
    this.full = null; // the drawing's own viewBox
    this.pointers = new Map();
    this.tapping = false; // a press on the board that has not ended in a click or a drag yet
    this.moved = 0;
    this.suppressClick = false;
    this.toolbar = this.makeToolbar();
    // Below the board, not above: inserted once the page is shown, it must not move the board.
    this.box.after(this.toolbar);
    // As tall as the page lets an unzoomed board be, and as tall as a zoomed board's box
    // (pbem.css), whatever the board is now.
    this.probe = el("div", { class: "pbem-zoom-probe", "aria-hidden": "true" });
    this.boxProbe = el("div", { class: "pbem-zoom-probe pbem-zoom-probe-box", "aria-hidden": "true" });
    this.box.before(this.probe, this.boxProbe);
    this.listen();
    this.size = null; // the box's inner size in pixels, as last laid out
    this.resizer = new ResizeObserver((entries) => {
      const { width, height } = entries[entries.length - 1].contentRect;
      this.size = { w: width, h: height };
      this.fit();
    });
    this.resizer.observe(this.box);
    this.swaps = new MutationObserver((records) => {
      if (records.some((r) => Array.from(r.addedNodes).some((n) => n.nodeName.toLowerCase() === "svg"))) this.adopt();
    });
    this.swaps.observe(this.box, { childList: true });
    this.width = 0;
    this.fit(true);
  }

  destroy() {
    this.resizer.disconnect();
    this.swaps.disconnect();
    this.toolbar.remove();
    this.probe.remove();
    this.boxProbe.remove();
  }

  get svg() {
    return $("svg", this.box);
  }

  makeToolbar() {
    const button = (label, name, onclick, extra = {}) =>
      el("button", { type: "button", "aria-label": name, title: name, onclick, ...extra }, label);
    return el(
      "div",
      { class: "pbem-zoom", role: "toolbar", "aria-label": t("view of the board"), "aria-controls": this.box.id || null, hidden: true },
      button("−", t("zoom out"), () => this.zoomBy(1 / STEP), { "data-zoom": "out" }),
      button("+", t("zoom in"), () => this.zoomBy(STEP), { "data-zoom": "in" }),
      button(t("Last turn"), t("centre on the last turn"), () => this.home(), { "data-zoom": "home" }),
      button(t("Whole board"), t("show the whole board"), () => this.whole(), { "data-zoom": "whole" }),
      el("span", { class: "pbem-hint" }, t("drag to move · pinch or + − to zoom")),
    );
  }

  // --- when to pan and zoom ---

  // Decides whether the board needs panning, on load and whenever its box changes width.
  fit(first = false) {
    const width = this.box.clientWidth;
    if (!width || (!first && Math.abs(width - this.width) < 1 && this.enabled)) {
      if (this.enabled) this.apply();
      return;
    }
    this.width = width;
    const svg = this.svg;
    if (!svg) return;
    this.full = this.full || readViewBox(svg);
    if (!this.full) return;
    // The scale the whole drawing would get in the box: as wide as the box, as tall as the page
    // lets a board be (pbem.css: the svg's max-height).
    const wasEnabled = this.enabled;
    const tallest = this.probe.getBoundingClientRect().height || Infinity;
    const shown = Math.min(width / this.full.w, tallest / this.full.h);
    const need = shown > 0 && shown < MIN_READABLE;
    this.enabled = need;
    if (need && !wasEnabled) {
      // The box as pbem.css is about to lay it out (as wide as now, as tall as its probe): the
      // first view is chosen before anything is written, so the drawing is laid out once, at it.
      this.size = { w: width, h: this.boxProbe.getBoundingClientRect().height || this.box.clientHeight };
    }
    if (need && (!wasEnabled || !this.view)) this.home();
    else if (need) this.apply();
    this.box.classList.toggle("pbem-zoomable", need);
    this.toolbar.hidden = !need;
    this.box.dataset.zoom = need ? "on" : "off";
    if (!need) {
      this.view = null;
      setAttr(svg, "viewBox", boxText(this.full));
    }
  }

  // A new drawing in the box (a replay step, the position after a move): keep the view.
  adopt() {
    const svg = this.svg;
    if (!svg) return;
    svg.removeAttribute("data-zoomed");
    this.full = readViewBox(svg);
    if (!this.full) return;
    if (this.enabled) this.apply();
    else this.fit(true);
  }

  // --- the view ---

  get boxSize() {
    if (!this.size) this.size = { w: this.box.clientWidth, h: this.box.clientHeight };
    return this.size;
  }

  get scale() {
    return this.view ? this.boxSize.w / this.view.w : 1;
  }

  limits() {
    const { w, h } = this.boxSize;
    const whole = Math.min(w / this.full.w, h / this.full.h);
    return { min: Math.min(whole, START_SCALE), max: Math.max(MAX_SCALE, whole) };
  }

  // Sets the view to `scale` centred on (cx, cy), in drawing units.
  show(scale, cx, cy) {
    const { w, h } = this.boxSize;
    const { min, max } = this.limits();
    const s = Math.min(max, Math.max(min, scale));
    this.view = { w: w / s, h: h / s, x: cx - w / s / 2, y: cy - h / s / 2 };
    this.apply();
  }

  // Keeps the drawing in the box (centred along a side it does not fill) and writes the viewBox.
  apply() {
    const svg = this.svg;
    if (!svg || !this.view || !this.full) return;
    const { w, h } = this.boxSize;
    const s = this.scale;
    const view = this.view;
    view.w = w / s;
    view.h = h / s;
    const full = this.full;
    for (const [pos, size, start, extent] of [["x", "w", full.x, full.w], ["y", "h", full.y, full.h]]) {
      if (view[size] >= extent) view[pos] = start + (extent - view[size]) / 2;
      else view[pos] = Math.min(Math.max(view[pos], start), start + extent - view[size]);
    }
    setAttr(svg, "viewBox", boxText(view));
    setAttr(svg, "preserveAspectRatio", "xMidYMid meet");
    setAttr(svg, "data-zoomed", "yes");
    setAttr(this.box, "data-scale", s.toFixed(3));
    const { min, max } = this.limits();
    const zoomOut = $('[data-zoom="out"]', this.toolbar);
    const zoomIn = $('[data-zoom="in"]', this.toolbar);
    if (zoomOut) zoomOut.disabled = s <= min + 1e-3;
    if (zoomIn) zoomIn.disabled = s >= max - 1e-3;
  }

  zoomBy(factor, at = null) {
    if (!this.view) return;
    const { w, h } = this.boxSize;
    const px = at ? at.x : w / 2;
    const py = at ? at.y : h / 2;
    const s = this.scale;
    // The point under (px, py) stays under it.
    const ux = this.view.x + px / s;
    const uy = this.view.y + py / s;
    const { min, max } = this.limits();
    const next = Math.min(max, Math.max(min, s * factor));
    this.view = { x: ux - px / next, y: uy - py / next, w: w / next, h: h / next };
    this.apply();
  }

  panBy(dx, dy) {
    if (!this.view) return;
    const s = this.scale;
    this.view.x -= dx / s;
    this.view.y -= dy / s;
    this.apply();
  }

  // Centred on the last turn, close enough to tap a tile (or far enough to see all of the turn).
  home() {
    const svg = this.svg;
    if (!svg || !this.full) return;
    const latest = latestTurn($$(LAST_TURN, svg));
    const marks = latest ? [latest] : $$(LAST_MOVE, svg);
    const parts = marks.length ? marks : $$(BOARD_PARTS, svg);
    const area = this.bounds(parts) || this.full;
    const { w, h } = this.boxSize;
    const fits = Math.min(w / (area.w * 1.25), h / (area.h * 1.25));
    const { min, max } = this.limits();
    const first = Math.min(max, Math.max(min, Math.min(START_SCALE, fits)));
    // A little further out, when that is what it takes to show a side panel whole or not at all
    // (as far as the whole drawing when the last turn alone already needs an overview).
    const floor = first < MIN_READABLE ? min : Math.max(min, first * PANEL_ZOOM_OUT);
    for (let s = first; s >= floor - 1e-9; s = s > floor ? Math.max(floor, s / 1.1) : 0) {
      const centre = this.clearOfPanels(area, s);
      if (centre) {
        this.show(s, centre[0], centre[1]);
        return;
      }
    }
    this.show(first, area.x + area.w / 2, area.y + area.h / 2);
  }

  // The centre nearest `area`'s of a view at scale `s` that keeps `area` in sight and shows each
  // side panel whole or not at all (null if none does): a first view does not open on a panel
  // cut mid-word (the page shows the scores and the hand beside the board, and "Whole board"
  // shows the panels whole).
  clearOfPanels(area, s) {
    const cx = area.x + area.w / 2;
    const cy = area.y + area.h / 2;
    // Measured at the whole view, a panel's edge is a few pixels out at this one: a margin.
    const m = 8 / s;
    const panels = $$(PANEL, this.svg)
      .map((node) => this.bounds([node]))
      .filter(Boolean)
      .map((p) => ({ x: p.x - m, y: p.y - m, w: p.w + 2 * m, h: p.h + 2 * m }));
    if (!panels.length) return [cx, cy];
    const { w, h } = this.boxSize;
    const vw = w / s;
    const vh = h / s;
    const full = this.full;
    const place = (c, size, start, extent) =>
      size >= extent ? start + extent / 2 : Math.min(Math.max(c, start + size / 2), start + extent - size / 2);
    const xs = [cx];
    const ys = [cy];
    for (const p of panels) {
      xs.push(p.x - vw / 2, p.x + p.w - vw / 2, p.x + vw / 2, p.x + p.w + vw / 2);
      ys.push(p.y - vh / 2, p.y + p.h - vh / 2, p.y + vh / 2, p.y + p.h + vh / 2);
    }
    let best = null;
    for (const x0 of xs) {
      for (const y0 of ys) {
        const x = place(x0, vw, full.x, full.w);
        const y = place(y0, vh, full.y, full.h);
        const view = { x: x - vw / 2, y: y - vh / 2, w: vw, h: vh };
        if (!contains(view, area) || panels.some((p) => overlap(view, p) && !contains(view, p))) continue;
        const d = Math.hypot(x - cx, y - cy);
        if (!best || d < best.d) best = { x, y, d };
      }
    }
    return best ? [best.x, best.y] : null;
  }

  whole() {
    if (!this.full) return;
    this.show(0, this.full.x + this.full.w / 2, this.full.y + this.full.h / 2);
  }

  // The box around `nodes` in drawing units, read from the screen under the view shown.
  bounds(nodes) {
    const svg = this.svg;
    const toScreen = svg && nodes.length ? svg.getScreenCTM() : null;
    if (!toScreen || !toScreen.a || !toScreen.d) return null;
    let left = Infinity;
    let top = Infinity;
    let right = -Infinity;
    let bottom = -Infinity;
    for (const node of nodes) {
      const r = node.getBoundingClientRect();
      if (!r.width && !r.height) continue;
      left = Math.min(left, r.left);
      top = Math.min(top, r.top);
      right = Math.max(right, r.right);
      bottom = Math.max(bottom, r.bottom);
    }
    if (left === Infinity) return null;
    // The drawing's own units map to the screen by a scale and a shift (no turn, no skew).
    return {
      x: (left - toScreen.e) / toScreen.a,
      y: (top - toScreen.f) / toScreen.d,
      w: (right - left) / toScreen.a,
      h: (bottom - top) / toScreen.d,
    };
  }

  // Whatever the keyboard reaches on the board is brought into view. Not what a pointer lands
  // on: moving the view between a tap's pointerdown and its click would send the click to
  // whatever slid under the finger, so a tap on a place half out of the box would be lost.
  reveal(node) {
    if (!this.enabled || !this.view || !node || !node.getBoundingClientRect) return;
    if (this.tapping) return;
    const r = node.getBoundingClientRect();
    const frame = this.box.getBoundingClientRect();
    const inside = r.left >= frame.left && r.right <= frame.right && r.top >= frame.top && r.bottom <= frame.bottom;
    if (inside) return;
    const area = this.bounds([node]);
    if (area) this.show(this.scale, area.x + area.w / 2, area.y + area.h / 2);
  }

  // Brings `nodes` wholly into the box, zooming out if they do not fit (down to TAP_SCALE), the
  // view left alone when they are in it already. With more than fits at that scale, the view is
  // centred on them all and what stays out lies wholly out, never cut by the box's edge.
  frame(nodes) {
    if (!this.enabled || !this.view || !this.full) return;
    const shown = nodes.filter((node) => {
      const r = node.getBoundingClientRect();
      return r.width || r.height;
    });
    if (!shown.length || shown.every((node) => this.holds(node))) return;
    const area = this.bounds(shown);
    if (!area) return;
    const { w, h } = this.boxSize;
    const room = (size) => Math.max(size - 2 * FRAME_MARGIN, size / 2);
    const fits = Math.min(room(w) / area.w, room(h) / area.h);
    const s = Math.min(this.scale, Math.max(fits, Math.min(this.scale, TAP_SCALE)));
    // Where no pan clears every edge at that scale, a little closer: those at the far ends then
    // lie wholly beyond the box instead of across its edge.
    let best = null;
    for (let step = 0; step < 6; step++) {
      this.show(s * 1.1 ** step, area.x + area.w / 2, area.y + area.h / 2);
      this.nudge(shown);
      const cut = shown.filter((node) => this.straddles(node)).length;
      if (!best || cut < best.cut) best = { cut, view: { ...this.view } };
      if (!cut) break;
    }
    this.view = best.view;
    this.apply();
  }

  // Whether `node` lies wholly in the box, to a pixel, and whether it lies partly in it.
  holds(node) {
    const r = node.getBoundingClientRect();
    const b = this.box.getBoundingClientRect();
    return r.left >= b.left - 1 && r.right <= b.right + 1 && r.top >= b.top - 1 && r.bottom <= b.bottom + 1;
  }

  straddles(node) {
    const r = node.getBoundingClientRect();
    const b = this.box.getBoundingClientRect();
    const touches = r.right > b.left && r.left < b.right && r.bottom > b.top && r.top < b.bottom;
    return touches && !this.holds(node);
  }

  // Pans by at most a node's size so that those of `nodes` cut by the box's edge fall wholly in
  // or wholly out of it: of the pans that clear one of them (pushed in or out, across or down),
  // the one leaving fewest cut, while that is fewer.
  nudge(nodes) {
    const cut = () => nodes.filter((node) => this.straddles(node)).length;
    for (let round = 0; round < 4; round++) {
      const was = cut();
      if (!was) return;
      const start = { ...this.view };
      let best = null;
      for (const [dx, dy] of this.clearing(nodes)) {
        this.panBy(dx, dy);
        const left = cut();
        const size = Math.abs(dx) + Math.abs(dy);
        if (left < was && (!best || left < best.left || (left === best.left && size < best.size))) {
          best = { view: { ...this.view }, left, size };
        }
        this.view = { ...start };
        this.apply();
      }
      if (!best) return;
      this.view = best.view;
      this.apply();
    }
  }

  // The pans (in screen pixels) that would put one of the cut `nodes` wholly in or wholly out.
  clearing(nodes) {
    const b = this.box.getBoundingClientRect();
    const pans = [];
    for (const node of nodes.filter((n) => this.straddles(n))) {
      const r = node.getBoundingClientRect();
      for (const [low, high, lo, hi, across] of [
        [r.left, r.right, b.left, b.right, true],
        [r.top, r.bottom, b.top, b.bottom, false],
      ]) {
        const moves = [];
        if (low < lo) moves.push(lo - low + 1, lo - high - 1);
        if (high > hi) moves.push(hi - high - 1, hi - low + 1);
        for (const d of moves) pans.push(across ? [d, 0] : [0, d]);
      }
    }
    return pans;
  }

  // --- pointers ---

  listen() {
    const box = this.box;
    box.addEventListener("pointerdown", () => (this.tapping = true), true);
    box.addEventListener("pointerup", () => setTimeout(() => (this.tapping = false), CLICK_WAIT_MS), true);
    box.addEventListener("click", () => setTimeout(() => (this.tapping = false), 0), true);
    box.addEventListener("pointercancel", () => (this.tapping = false), true);
    box.addEventListener("pointerdown", (event) => this.down(event));
    box.addEventListener("pointermove", (event) => this.move(event));
    for (const type of ["pointerup", "pointercancel"]) {
      box.addEventListener(type, (event) => this.up(event));
    }
    // Taking the pointer from the element a finger first touched makes that element lose it:
    // only the box losing it ends the gesture.
    box.addEventListener("lostpointercapture", (event) => {
      if (event.target === box) this.up(event);
    });
    // A drag ends with a click on whatever was under the pointer: it was not meant as one.
    box.addEventListener(
      "click",
      (event) => {
        if (this.suppressClick) {
          this.suppressClick = false;
          event.stopPropagation();
          event.preventDefault();
        }
      },
      true,
    );
    box.addEventListener(
      "wheel",
      (event) => {
        // A trackpad's pinch arrives as a wheel with Ctrl; a plain wheel scrolls the page.
        if (!this.enabled || !event.ctrlKey) return;
        event.preventDefault();
        const frame = box.getBoundingClientRect();
        this.zoomBy(Math.exp(-event.deltaY / 200), { x: event.clientX - frame.left, y: event.clientY - frame.top });
      },
      { passive: false },
    );
    box.addEventListener("focusin", (event) => this.reveal(event.target));
  }

  local(event) {
    const frame = this.box.getBoundingClientRect();
    return { x: event.clientX - frame.left, y: event.clientY - frame.top };
  }

  down(event) {
    if (!this.enabled || (event.pointerType === "mouse" && event.button !== 0)) return;
    this.pointers.set(event.pointerId, this.local(event));
    if (this.pointers.size === 1) {
      this.moved = 0;
      this.suppressClick = false;
    }
    if (this.pointers.size === 2) this.pinch = this.pinchOf();
  }

  move(event) {
    if (!this.enabled || !this.pointers.has(event.pointerId)) return;
    const before = this.pointers.get(event.pointerId);
    const now = this.local(event);
    this.pointers.set(event.pointerId, now);
    if (this.pointers.size >= 2) {
      const pinch = this.pinchOf();
      if (this.pinch && this.pinch.distance > 0) {
        this.zoomBy(pinch.distance / this.pinch.distance, pinch.centre);
        this.panBy(pinch.centre.x - this.pinch.centre.x, pinch.centre.y - this.pinch.centre.y);
      }
      this.pinch = pinch;
      this.startDrag(event);
      return;
    }
    const dx = now.x - before.x;
    const dy = now.y - before.y;
    this.moved += Math.abs(dx) + Math.abs(dy);
    if (this.moved < DRAG_SLOP && !this.box.classList.contains("pbem-dragging")) return;
    this.startDrag(event);
    this.panBy(dx, dy);
  }

  // From here on the gesture moves the view: it keeps the pointer, and ends in no click.
  startDrag(event) {
    this.tapping = false;
    if (!this.box.classList.contains("pbem-dragging")) {
      this.box.classList.add("pbem-dragging");
      this.suppressClick = true;
    }
    try {
      if (!this.box.hasPointerCapture(event.pointerId)) this.box.setPointerCapture(event.pointerId);
    } catch {
      // The pointer is already gone.
    }
    event.preventDefault();
  }

  up(event) {
    if (!this.pointers.has(event.pointerId)) return;
    this.pointers.delete(event.pointerId);
    this.pinch = this.pointers.size >= 2 ? this.pinchOf() : null;
    if (!this.pointers.size) {
      this.box.classList.remove("pbem-dragging");
      // A click follows pointerup at once when there is one; otherwise forget the drag.
      if (this.suppressClick) setTimeout(() => (this.suppressClick = false), 0);
    }
  }

  pinchOf() {
    const [a, b] = Array.from(this.pointers.values());
    return {
      distance: Math.hypot(a.x - b.x, a.y - b.y),
      centre: { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 },
    };
  }
}

// The turn played last: the mark whose plies reach furthest.
function latestTurn(marks) {
  let best = null;
  let bestPly = -1;
  for (const mark of marks) {
    const plies = (mark.dataset.plies || "").split(/\s+/).map(Number).filter(Number.isFinite);
    const last = plies.length ? Math.max(...plies) : -1;
    if (last > bestPly) {
      best = mark;
      bestPly = last;
    }
  }
  return best;
}

// Whether box `a` holds box `b` whole (a pixel's slack), and whether they share any area.
function contains(a, b) {
  return b.x >= a.x - 1 && b.y >= a.y - 1 && b.x + b.w <= a.x + a.w + 1 && b.y + b.h <= a.y + a.h + 1;
}

function overlap(a, b) {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

function readViewBox(svg) {
  const original = svg.dataset.viewBox || svg.getAttribute("viewBox");
  if (!original) return null;
  svg.dataset.viewBox = original;
  const [x, y, w, h] = original.split(/[\s,]+/).map(Number);
  return [x, y, w, h].every(Number.isFinite) && w > 0 && h > 0 ? { x, y, w, h } : null;
}

// Writes an attribute only when its value changes: writing even the same viewBox lays the
// drawing out again.
function setAttr(node, name, value) {
  if (node.getAttribute(name) !== value) node.setAttribute(name, value);
}

function boxText(view) {
  return [view.x, view.y, view.w, view.h].map((n) => Math.round(n * 100) / 100).join(" ");
}

// Keeping in view what the player is asked to tap or to confirm on the game page (play.js): on a
// phone the board, the choices under it and the bar holding Confirm share a small screen, and a
// board larger than its box pans and zooms (panzoom.js).

import { $, $$ } from "./kit.js";

// What a controller lights on the board as the places its choice can go (framed when they light
// up), and by default what pictures the move to confirm (a controller's static `shows` says).
export const TARGETS = ".pbem-target, .pbem-flippable";
const SHOWS = ".pbem-preview, .pbem-selected, .pbem-chosen:not([data-hand])";
const MARGIN = 8; // pixels between what is kept in view and the screen's edge or the bar

// What the move to confirm puts on the board (the tile in place, the disc, the stacks) is in view
// whenever Confirm is: framed in a zoomed board, and the page scrolled so that it is neither
// above the screen nor under the bar holding Confirm.
export function keepChoiceInView(play) {
  if (!play.pendingMove || !play.boardBox || !play.pending) return;
  const shows = (play.controller && play.controller.constructor.shows) || SHOWS;
  const nodes = $$(shows, play.boardBox);
  if (!nodes.length) return;
  if (play.zoom) play.zoom.frame(nodes);
  const spot = union(nodes.map((node) => node.getBoundingClientRect()));
  const bar = play.pending.getBoundingClientRect();
  const fixed = getComputedStyle(play.pending).position === "fixed";
  const across = fixed && spot.right > bar.left && spot.left < bar.right;
  const bottom = across ? bar.top : window.innerHeight;
  let by = 0;
  if (spot.bottom > bottom - MARGIN) by = spot.bottom - bottom + MARGIN;
  if (spot.top - by < MARGIN) by = spot.top - MARGIN;
  if (by) window.scrollBy({ top: by, behavior: "instant" });
}

// A choice lit other places on the board (a tile's places, the tiles to flip): they are framed in
// a zoomed board, and the board is scrolled wholly onto the screen. Only when they change: a
// turn of the tile or a claim leaves the view where the player put it.
export function frameTargets(play) {
  if (!play.boardBox || !play.controller) return;
  const lit = $$(TARGETS, play.boardBox);
  const same = play.lit && lit.length === play.lit.length && lit.every((node, i) => node === play.lit[i]);
  play.lit = lit;
  // A move to confirm is what the player looks at now (keepChoiceInView framed it).
  if (same || !lit.length || play.pendingMove) return;
  if (play.zoom) play.zoom.frame(lit);
  const area = $("#board-area") || play.boardBox;
  const r = area.getBoundingClientRect();
  if (r.top < 0 || r.bottom > window.innerHeight) area.scrollIntoView({ block: "nearest", behavior: "instant" });
}

function union(rects) {
  const box = { left: Infinity, top: Infinity, right: -Infinity, bottom: -Infinity };
  for (const r of rects) {
    box.left = Math.min(box.left, r.left);
    box.top = Math.min(box.top, r.top);
    box.right = Math.max(box.right, r.right);
    box.bottom = Math.max(box.bottom, r.bottom);
  }
  return box;
}

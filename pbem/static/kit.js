// The helpers shared by the game page (play.js) and the games' click-to-move controllers.
//
// A controller is a game's own ES module, served from its package at /static/games/<name>/board.js
// and named by the page data (`urls.controller`); it imports these helpers as "../../kit.js" so it
// shares this very module with play.js. Its default export is a class:
//
//   new Controller(play)  play gives: data (the `game-data` island), legal (the legal moves),
//                         picker (the element to fill with the move's choices), svg (the board),
//                         setPending(move, words), clearPending(), say(message, kind)
//   start()               fills the picker and marks the board: it is the seat's turn
//   click(target)         an element of the board was clicked (or chosen with Enter)
//   reset()               the pending move was cancelled or refused: start the choice again
//   key(event)            optional: a key pressed outside the form; true when it was used
//   static focusable      optional: a CSS selector of what can be chosen on the board now, which
//                         the page makes reachable with Tab
//   static shows          optional: a CSS selector of what pictures the move to confirm on the
//                         board (the tile in place, the disc), which the page keeps in view
//                         while Confirm is
//
// A controller never sends anything: it proposes a move from the legal ones with setPending and
// the page asks the player to confirm it.

export const SVGNS = "http://www.w3.org/2000/svg";

export const $ = (selector, root = document) => root.querySelector(selector);
export const $$ = (selector, root = document) => Array.from(root.querySelectorAll(selector));

export function readJSON(id) {
  const element = document.getElementById(id);
  if (!element) return null;
  try {
    return JSON.parse(element.textContent);
  } catch {
    return null;
  }
}

export function el(tag, attrs = {}, ...children) {
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

export function svgEl(tag, attrs = {}, text = null) {
  const node = document.createElementNS(SVGNS, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (text !== null) node.textContent = text;
  return node;
}

export function cssEscape(value) {
  return window.CSS && CSS.escape ? CSS.escape(value) : String(value).replace(/["\\]/g, "\\$&");
}

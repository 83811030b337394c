// The helpers shared by the game page (play.js) and the games' click-to-move controllers.
//
// A controller is a game's own ES module, served from its package at /static/games/<name>/board.js
// and named by the page data (`urls.controller`); it imports these helpers as "../../kit.js" so it
// shares this very module with play.js. Its default export is a class:
//
//   new Controller(play)  play gives: data (the `game-data` island, with the engine's
//                         `board_assets` fetched from `urls.assets`), legal (the legal moves),
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

// --- words in the page's language ----------------------------------------------------------------
//
// The scripts are written in English. A page in another language carries what they say in it as a
// JSON island, `<script type="application/json" id="pbem-words">` (pbem.web.script_words): for
// each msgid its translation, for a plural its forms [one, other]; whatever it lacks stays
// English. Babel extracts `t("…")` and `tn("…", "…", n)` from these files into the service's
// catalog (pbem/translations/babel.cfg), so the English must be a plain string literal there (a
// template literal's `${…}` would be extracted as written), a whole sentence with gettext's
// placeholders: t("Sending %(move)s…", { move }).
//
// A game's controller speaks from the game's own catalog: `const { t, tn } = wordsFrom(
// "pbem-words-<game>")`, the island its page carries for that catalog.

const islands = new Map(); // island id -> its words, read once
let pluralRules = null;

function islandWords(id) {
  if (!islands.has(id)) {
    const words = readJSON(id);
    islands.set(id, words && typeof words === "object" && !Array.isArray(words) ? words : {});
  }
  return islands.get(id);
}

// Which of the island's two forms: the one for what CLDR calls "one" (French 0 too, as gettext
// counts it), else the other; for English, French, Dutch and Danish that is the catalogs' choice.
function pluralForm(count) {
  if (!pluralRules) {
    try {
      pluralRules = new Intl.PluralRules(document.documentElement.lang || "en");
    } catch {
      pluralRules = new Intl.PluralRules("en");
    }
  }
  return pluralRules.select(count) === "one" ? 0 : 1;
}

// gettext's placeholders, `%(name)s` and `%(name)d`, filled as Python's `%` would (`%%` is "%").
function fill(text, params) {
  if (!params) return text;
  return text.replace(/%(?:\((\w+)\)[sd]|%)/g, (whole, name) => {
    if (name === undefined) return "%";
    return Object.prototype.hasOwnProperty.call(params, name) ? String(params[name]) : whole;
  });
}

// What a JSON island says: `t(text, params)`, `text` in the page's language, its placeholders filled
// from `params`; `tn(singular, plural, count, params)`, the form for `count`, `%(num)d` filled
// with it.
export function wordsFrom(id) {
  const translate = (text, params = null) => {
    const found = islandWords(id)[text];
    return fill(typeof found === "string" && found ? found : text, params);
  };
  const translatePlural = (singular, plural, count, params = {}) => {
    const form = pluralForm(count);
    const found = islandWords(id)[singular];
    const chosen = Array.isArray(found) && typeof found[form] === "string" && found[form] ? found[form] : null;
    return fill(chosen || (form === 0 ? singular : plural), { num: count, ...params });
  };
  return { t: translate, tn: translatePlural };
}

// The service's words, for pbem's own scripts.
export const { t, tn } = wordsFrom("pbem-words");

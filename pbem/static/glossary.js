// Explained words (pbem.domain.glossary). Each word is a button whose popover opens on click,
// tap, Enter or Space and closes on Escape or a tap elsewhere, with no script at all. This adds
// what only a script can: opening on hover with a mouse or pen, keeping an explanation opened by
// hover open when the word is then clicked, and placing it beside the word in browsers without
// CSS anchor positioning. Listeners sit on the document, so words in parts of the page that are
// swapped in later work too.

const OPEN_DELAY_MS = 120;
const CLOSE_DELAY_MS = 300;
const GAP_PX = 6;
const timers = new WeakMap();
const anchored = typeof CSS !== "undefined" && CSS.supports && CSS.supports("position-area: bottom");

function tipOf(term) {
  return term.querySelector(".pbem-term-tip");
}

function isOpen(tip) {
  try {
    return tip.matches(":popover-open");
  } catch {
    return false;
  }
}

function later(term, action, delay) {
  clearTimeout(timers.get(term));
  timers.set(term, setTimeout(action, delay));
}

function hovering(event) {
  return event.pointerType === "mouse" || event.pointerType === "pen";
}

document.addEventListener("pointerover", (event) => {
  if (!hovering(event)) return;
  const term = event.target.closest?.(".pbem-term");
  if (!term) return;
  const tip = tipOf(term);
  if (!tip || typeof tip.showPopover !== "function") return;
  later(
    term,
    () => {
      if (!isOpen(tip)) {
        tip.dataset.hover = "1";
        tip.showPopover();
      }
    },
    isOpen(tip) ? 0 : OPEN_DELAY_MS,
  );
});

document.addEventListener("pointerout", (event) => {
  if (!hovering(event)) return;
  const term = event.target.closest?.(".pbem-term");
  if (!term || term.contains(event.relatedTarget)) return;
  const tip = tipOf(term);
  later(
    term,
    () => {
      if (tip && tip.dataset.hover && isOpen(tip)) tip.hidePopover();
    },
    CLOSE_DELAY_MS,
  );
});

document.addEventListener("click", (event) => {
  const word = event.target.closest?.(".pbem-term-word");
  if (!word) return;
  const tip = tipOf(word.closest(".pbem-term"));
  // Opened by hovering: the click keeps it open (the browser would toggle it shut).
  if (tip && isOpen(tip) && tip.dataset.hover) {
    event.preventDefault();
    delete tip.dataset.hover;
  }
});

// Where the browser cannot anchor the popover to its word, place it below the word (above when
// there is no room below), inside the window.
document.addEventListener(
  "toggle",
  (event) => {
    const tip = event.target;
    if (!(tip instanceof HTMLElement) || !tip.classList.contains("pbem-term-tip")) return;
    if (event.newState !== "open") {
      delete tip.dataset.hover;
      // A hover that began before a click or Escape closed it must not open it again.
      clearTimeout(timers.get(tip.closest(".pbem-term")));
      return;
    }
    if (anchored) return;
    const word = tip.closest(".pbem-term")?.querySelector(".pbem-term-word");
    if (!word) return;
    const at = word.getBoundingClientRect();
    const box = tip.getBoundingClientRect();
    const width = document.documentElement.clientWidth;
    const height = document.documentElement.clientHeight;
    let top = at.bottom + GAP_PX;
    if (top + box.height > height && at.top - GAP_PX - box.height >= 0) top = at.top - GAP_PX - box.height;
    const left = Math.max(GAP_PX, Math.min(at.left, width - box.width - GAP_PX));
    tip.style.margin = "0";
    tip.style.inset = "auto";
    tip.style.left = `${left}px`;
    tip.style.top = `${Math.max(GAP_PX, top)}px`;
  },
  true,
);

// The one classic script in a game page's <head>, run before the first paint. It says that the
// page's scripts will run, so that pbem.css keeps the move picker's room from the first paint
// (play.js fills it once the board's controller is loaded); it closes the plain move form and
// keeps the page's main part unpainted until the whole page is parsed: painted before the board
// has arrived (a long game's board is large), the rest would move when it comes. Without
// scripts the page shows at once, its move form open.
const root = document.documentElement;
root.classList.add("pbem-js");
// "interactive", not DOMContentLoaded: the page's module scripts run between the two, and waiting
// for them (fetched, then their imports) would hold the first paint back by as much again.
function parsed() {
  if (document.readyState === "loading") return;
  document.removeEventListener("readystatechange", parsed);
  // The plain move form stays one click away (play.js does the same, but after the paint).
  const box = document.getElementById("move-form-box");
  const typed = document.getElementById("move-text");
  if (box && !document.getElementById("move-error") && !(typed && typed.value)) box.open = false;
  root.classList.add("pbem-parsed");
}
document.addEventListener("readystatechange", parsed);

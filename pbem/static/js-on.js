// The one classic script in a game page's <head>, run before the first paint. It says that the
// page's scripts will run, so that pbem.css keeps the move picker's room from the first paint
// (play.js fills it once the board's controller is loaded), and it keeps the page's main part
// unpainted until the whole page is parsed: painted before the board has arrived (a long game's
// board is large), the rest would move when it comes. Without scripts the page shows at once.
const root = document.documentElement;
root.classList.add("pbem-js");
document.addEventListener("DOMContentLoaded", () => root.classList.add("pbem-parsed"), { once: true });

// The one classic script in a game page's <head>, run before the first paint: it says that the
// page's scripts will run (play.js fills the move picker once the board's controller is loaded),
// so pbem.css keeps the picker's room from the first paint and nothing moves when it is filled.
document.documentElement.classList.add("pbem-js");

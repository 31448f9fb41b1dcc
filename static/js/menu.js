// The folded header menu (a <details>) closes as a menu does: on Escape, giving the
// focus back to its button, and on a click or tap anywhere outside it.
const menu = document.querySelector(".header-menu");
if (menu) {
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || !menu.open) return;
    menu.open = false;
    menu.querySelector("summary").focus();
  });
  document.addEventListener("click", (event) => {
    if (menu.open && !menu.contains(event.target)) menu.open = false;
  });
}

// Single-key shortcuts (the keys dialog lists them), and modal dialogs that keep
// the focus: Tab from a dialog's last control wraps to its first.
import { t } from "./i18n.js";
import { $ } from "./render.js";

export function initShortcuts(ctl) {
  const keys = {
    s: () => ctl.act("draw_stock") || ctl.explain(),
    d: () => ctl.act("draw_discard", "take_upcard") || ctl.explain(),
    t: () => ctl.act("take_upcard"),
    p: () => ctl.act("pass"),
    k: () => ctl.askKnock(false),
    g: () => ctl.askKnock(true),
    n: () => ctl.act("next_hand", "new_match"),
    m: () => ctl.sortBy("melds"),
    r: () => ctl.sortBy("rank"),
    u: () => ctl.sortBy("suit"),
    h: () => ctl.focusHand(),
    i: () => ctl.hint(),
    "?": () => $("help").showModal(),
  };
  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) return;
    if (event.target.closest?.("input, select, textarea, dialog, [contenteditable]")) return;
    const run = keys[event.key.toLowerCase()] || keys[event.key];
    if (!run || !ctl.state?.hand) return;
    event.preventDefault();
    if (!ctl.ui.online && event.key !== "?") return ctl.say(t("offline_me"));
    run();
  });
  $("help-open").addEventListener("click", () => $("help").showModal());

  for (const dialog of document.querySelectorAll("dialog")) {
    dialog.addEventListener("keydown", (event) => {
      if (event.key !== "Tab") return;
      const controls = [...dialog.querySelectorAll("button, input, select, a[href]")].filter((el) => !el.disabled && el.offsetParent !== null);
      const end = event.shiftKey ? controls[0] : controls.at(-1);
      if (end && document.activeElement === end) {
        event.preventDefault();
        (event.shiftKey ? controls.at(-1) : controls[0]).focus();
      }
    });
  }
}

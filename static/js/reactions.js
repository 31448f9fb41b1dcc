// Reactions (docs/protocol-guide.md "Around the match"): a bar of eight presets at the table,
// each shown briefly near the seat that sent it, in this page's language, and
// announced to screen readers. Each player can hide the other's reactions; the
// choice is remembered on this device (localStorage), per table and seat.
import { t } from "./i18n.js";
import { $, playerName, seatedIn } from "./render.js";
import { flag, setFlag } from "./store.js";

export const REACTIONS = ["hello", "gg", "nice", "thanks", "oops", "thinking", "hurry", "rematch"];
const SHOWN_MS = 4000;
const GAP_MS = 2000; // the server takes one per seat per 2 s
const timers = new Map();
let live = null;
let tableId = "";
let lastSent = -Infinity;

const muteKey = (seat) => `gin.mute_reactions.${tableId}.${seat}`;
export const isMuted = (seat) => flag(muteKey(seat));

// `send(reaction)`: sends one; `state()`: the latest state.
export function initReactions(id, send, state) {
  tableId = id;
  live = document.createElement("div");
  live.className = "sr-only";
  live.setAttribute("aria-live", "polite");
  live.id = "reaction-live";
  document.body.append(live);
  const bar = $("reaction-bar");
  for (const reaction of REACTIONS) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "reaction";
    button.dataset.reaction = reaction;
    button.textContent = t(`reaction.${reaction}`);
    button.addEventListener("click", () => {
      if (performance.now() - lastSent < GAP_MS) return;
      if (!send(reaction)) return;
      lastSent = performance.now();
      bar.classList.add("resting");
      setTimeout(() => bar.classList.remove("resting"), GAP_MS);
    });
    bar.append(button);
  }
  $("reactions-label").textContent = t("reactions");
  // On a phone the bar folds behind one button (CSS shows the toggle there only).
  const toggle = $("reaction-toggle");
  toggle.textContent = t("reactions");
  toggle.addEventListener("click", () => {
    const open = toggle.getAttribute("aria-expanded") !== "true";
    toggle.setAttribute("aria-expanded", String(open));
    bar.classList.toggle("open", open);
    if (open) bar.querySelector("button")?.focus({ preventScroll: true });
  });
  $("mute-reactions").addEventListener("change", (event) => {
    const s = state();
    if (!seatedIn(s)) return;
    setFlag(muteKey(1 - s.you), event.target.checked);
  });
}

function prefixOf(state, seat) {
  const bottom = seatedIn(state) ? state.you : 0;
  return seat === bottom ? "me" : "opp";
}

// Every state: the bar is for seated players; the mute names the opponent.
export function renderReactions(state) {
  const seated = seatedIn(state);
  $("reaction-bar").hidden = !seated;
  $("reaction-toggle").hidden = !seated;
  const choice = $("mute-reactions-choice");
  choice.hidden = !seated || !(state.table.players || []).some((p) => p.seat !== state.you && p.name);
  if (!choice.hidden) {
    const other = 1 - state.you;
    $("mute-reactions-label").textContent = t("reactions_mute", { name: playerName(state, other) });
    $("mute-reactions").checked = isMuted(other);
  }
}

// A `reaction` message: shown near its seat for a few seconds and spoken, unless muted.
export function showReaction(state, message) {
  if (!state || !REACTIONS.includes(message.reaction)) return;
  const seat = message.seat;
  if (seat !== state.you && isMuted(seat)) return;
  const text = t(`reaction.${message.reaction}`);
  const bubble = $(`${prefixOf(state, seat)}-bubble`);
  bubble.textContent = text;
  bubble.dataset.reaction = message.reaction;
  bubble.hidden = false;
  bubble.classList.remove("pop");
  void bubble.offsetWidth; // restart the entrance
  bubble.classList.add("pop");
  clearTimeout(timers.get(bubble));
  timers.set(
    bubble,
    setTimeout(() => {
      bubble.hidden = true;
    }, SHOWN_MS),
  );
  live.textContent = `${playerName(state, seat)}: ${text}`;
}

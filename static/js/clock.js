// The turn clock (docs/protocol-guide.md "The turn clock"): a countdown on the seat to
// act, from the server's deadline and the server's time (never this device's clock
// alone), with a sound and a visual cue in the last 10 s of this player's own turn.
import { t } from "./i18n.js";
import { $, seatedIn } from "./render.js";
import { play } from "./sound.js";
import { say } from "./announce.js";

const HURRY_MS = 10000;
let current = null; // { seat, prefix, deadline (this device's ms), key }
let warned = null;
let timer = null;

function format(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

function paint() {
  for (const prefix of ["opp", "me"]) {
    const el = $(`${prefix}-clock`);
    if (!current || current.prefix !== prefix) {
      el.hidden = true;
      el.classList.remove("hurry");
      continue;
    }
    const left = current.deadline - Date.now();
    el.hidden = false;
    el.textContent = format(left);
    el.setAttribute("aria-label", t("clock_left", { time: format(left) }));
    const hurry = left <= HURRY_MS;
    el.classList.toggle("hurry", hurry);
    if (hurry && current.mine && warned !== current.key && left > 0) {
      warned = current.key;
      play("hurry");
      say(t("clock_hurry"));
    }
  }
}

// Returns what to say: nothing of its own (a move the clock made is the status
// line's: "Bob's time ran out: the computer passed", render.js describeEvent).
export function renderClock(state) {
  const said = "";
  const hand = state.hand;
  const seated = seatedIn(state);
  if (!state.server_time || !hand || hand.turn_deadline == null || hand.phase === "over" || hand.turn == null) {
    current = null;
    paint();
    return said;
  }
  const offset = Date.now() - state.server_time; // this device's clock minus the server's
  const bottom = seated ? state.you : 0;
  current = {
    seat: hand.turn,
    prefix: hand.turn === bottom ? "me" : "opp",
    mine: seated && hand.turn === state.you,
    deadline: hand.turn_deadline + offset,
    key: `${state.version}`,
  };
  paint();
  if (!timer) timer = setInterval(paint, 250);
  return said;
}

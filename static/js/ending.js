// Ending a match early (docs/protocol-guide.md "Around the match"): how long a player has been
// away, the choices that open then (claim the match, let the computer stand in),
// resigning, a confirmation before anything final, and how a match ended, on the
// result panel, the score sheet and the match screen.
import { t, tn } from "./i18n.js";
import { $, gamesLeadText, player, playerName, seatedIn } from "./render.js";
import { openMoment } from "./board.js";
import { once } from "./store.js";

let ctx = null; // { send(action), legal(kind) }
let state = null;
let receivedAt = 0;
let pending = null; // the action the confirmation dialog asks about
let announcedOpen = false;


export function initEnding(context) {
  ctx = context;
  $("resign").textContent = t("resign");
  $("claim").textContent = t("claim");
  $("end-confirm-no").textContent = t("keep_playing");
  $("resign").addEventListener("click", () => confirmEnd("resign"));
  $("claim").addEventListener("click", () => confirmEnd("claim"));
  $("stand-in").addEventListener("click", () => {
    const a = ctx.legal("stand_in");
    if (a) ctx.send(a);
  });
  $("end-confirm").addEventListener("close", () => {
    const kind = pending;
    pending = null;
    if ($("end-confirm").returnValue !== "yes" || !kind) return;
    const a = ctx.legal(kind);
    if (a) ctx.send(a);
  });
  setInterval(paintAway, 15000);
}

function confirmEnd(kind) {
  if (!state || !ctx.legal(kind)) return;
  const other = playerName(state, 1 - state.you);
  pending = kind;
  $("end-confirm-title").textContent = t(`confirm_${kind}_title`);
  $("end-confirm-text").textContent = t(`confirm_${kind}_text`, { name: other });
  $("end-confirm-yes").textContent = kind === "resign" ? t("resign") : t("claim");
  const dialog = $("end-confirm");
  dialog.returnValue = "";
  if (!dialog.open) dialog.showModal();
}

// "Bob has been away for 3 minutes", counting on from the state's `away_seconds`.
export function awayText(s, seat) {
  const p = player(s, seat);
  if (!p || p.computer || !p.name) return "";
  const name = playerName(s, seat);
  if (p.away_seconds !== null && p.away_seconds !== undefined) {
    const secs = p.away_seconds + Math.floor((Date.now() - receivedAt) / 1000);
    if (secs < 60) return tn("away_seconds", secs, { name });
    if (secs < 3600) return tn("away_minutes", Math.floor(secs / 60), { name });
    return tn("away_hours", Math.floor(secs / 3600), { name });
  }
  if ((p.timeouts ?? 0) >= 3) return tn("away_timeouts", p.timeouts, { name });
  return "";
}

function paintAway() {
  if (!state) return;
  const seated = seatedIn(state);
  const top = seated ? 1 - state.you : 1;
  const away = $("opp-away");
  const text = awayText(state, top);
  // Before a minute has passed the seat head's own line ("offline, the game waits") stays.
  const p = player(state, top);
  if (text && (p?.away_seconds == null || p.away_seconds + (Date.now() - receivedAt) / 1000 >= 60 || (p?.timeouts ?? 0) >= 3)) {
    away.hidden = false;
    away.textContent = text;
  }
}

// "Bob resigned." / "You claimed the match while Bob was away."
function endedText(s) {
  const ended = s.table.ended;
  if (!ended) return "";
  const you = seatedIn(s) && ended.seat === s.you;
  const name = playerName(s, ended.seat);
  const other = playerName(s, 1 - ended.seat);
  if (ended.by === "resign") return you ? t("ended.resign_you") : t("ended.resign", { name });
  return you ? t("ended.claim_you", { other }) : t("ended.claim", { name, other });
}

function winnerText(s) {
  const winner = s.sheet?.match_winner;
  return winner === null || winner === undefined ? "" : t("match_winner", { name: playerName(s, winner) });
}

// Returns what to say.
export function renderEnding(s, kinds) {
  let said = "";
  state = s;
  receivedAt = Date.now();
  const seated = seatedIn(s);
  const status = s.table.status;
  const underWay = status === "playing" || status === "hand_over";
  $("match-tools").hidden = !seated || status === "waiting";
  $("resign").hidden = !kinds.has("resign");
  // The choices an away opponent opens, offered plainly, announced once.
  const open = kinds.has("claim") || kinds.has("stand_in");
  const box = $("endings");
  box.hidden = !open;
  if (open) {
    const other = playerName(s, 1 - s.you);
    const away = awayText(s, 1 - s.you);
    const text = kinds.has("stand_in") ? t("endings_open", { name: other }) : t("endings_claim_only");
    const line = away ? `${away}. ${text}` : text;
    $("endings-text").textContent = line;
    $("opp-away").hidden = !away;
    $("opp-away").textContent = away;
    $("claim").hidden = !kinds.has("claim");
    $("stand-in").hidden = !kinds.has("stand_in");
    $("stand-in").textContent = t("stand_in", { name: other });
    if (!announcedOpen) said = line;
  }
  announcedOpen = open;
  const stood = (s.table.players || []).filter((p) => p.stand_in);
  const note = $("stand-in-note");
  note.hidden = !stood.length || !underWay;
  note.textContent = stood.map((p) => t("stand_in_on", { name: playerName(s, p.seat) })).join(" · ");
  paintAway();
  // How the match ended: the result panel, the sheet, the match screen.
  const text = endedText(s);
  for (const id of ["ended-note", "sheet-ended", "moment-ended"]) {
    $(id).hidden = !text;
    $(id).textContent = text;
  }
  if (!text) return said;
  const hand = s.hand;
  if (!hand || hand.phase !== "over") {
    // Ended in the middle of a hand: no result to show, only who won and how; the
    // board shows nobody to move.
    $("result-title").textContent = winnerText(s) || text;
    $("status").textContent = text;
    for (const id of ["opponent", "me"]) $(id).classList.remove("turn");
    for (const id of ["result-math", "result-points", "result-layoffs", "result-games", "verify", "ready-status"]) $(id).textContent = "";
    $("verify-facts").hidden = true;
    $("result-bonuses").replaceChildren();
    $("result-hands").replaceChildren();
    $("download").hidden = true;
  }
  $("next-hand").hidden = true;
  $("rematch").hidden = !kinds.has("new_match");
  // Once per ending on this tab (a reload does not show it again).
  if (!once(`gin.ended.${s.table.id}.${s.version}`)) return said;
  showEndedMoment(s, kinds, text);
  return text;
}

// The match screen for a match that ended by resign or claim.
function showEndedMoment(s, kinds, text) {
  openMoment(s, kinds, {
    title: winnerText(s) || text,
    score: s.table.scoring === "hollywood" ? gamesLeadText(s) : "",
    summary: true, // the match so far (hands won, gins, time played)
    winner: s.sheet.match_winner,
  });
}

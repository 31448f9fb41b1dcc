// The words the page says (the table controller speaks them, each text once).
import { t } from "./i18n.js";
import { describeDeal, describeEvent, describeTurn, outcomeText, playerName, seatedIn } from "./render.js";


export const newDeal = (previous, s) => !previous?.hand || previous.hand.number !== s.hand.number;
export const moved = (previous, s) => Boolean(previous) && previous.version !== s.version;

// What just happened and whose turn it is; an `arrange` (same version) keeps `line`.
// A hand over: how it ended and who waits for whom.
export function statusLine(previous, s, kinds, line) {
  if (s.hand.result) return [outcomeText(s), readyText(s)].filter(Boolean).join(". ");
  const turn = describeTurn(s, kinds);
  // A page (re)loaded mid-hand says the last move.
  if (newDeal(previous, s) && (previous || !s.hand.events?.length)) return [describeDeal(s), turn].filter(Boolean).join(" ");
  if (!moved(previous, s) && line) return line;
  return [s.hand.events?.length ? describeEvent(s, s.hand.last_action) : "", turn].filter(Boolean).join(". ");
}

export function speaks(previous, s) {
  const actor = s.hand.last_action?.seat;
  // A move made for this seat is news to its player too.
  const forMe = Boolean(s.hand.last_action?.by);
  return newDeal(previous, s) || (moved(previous, s) && (actor !== s.you || forMe || s.hand.turn === s.you));
}

export function readyText(s) {
  const me = s.you;
  const ready = s.ready || [false, false];
  if (!seatedIn(s) || ready[me] === ready[1 - me]) return "";
  const name = playerName(s, 1 - me);
  const key = { hand_over: ["wait_for", "waits_for_you"], match_over: ["wait_rematch", "wants_rematch"] }[s.table.status];
  return key ? t(key[ready[me] ? 0 : 1], { name }) : "";
}

// Nothing for a stale version (the state follows), nor for an arrange made on
// `arrangedOn` that a move of this seat elsewhere (another tab, the stand-in) overtook.
export function errorText(error, arrangedOn) {
  if (error.code === "stale_version" || (error.code === "bad_message" && error.version > arrangedOn)) return "";
  const text = t(`error.${error.code}`);
  return text.startsWith("error.") ? t("error.other") : text;
}

// Why a click did nothing.
export function explainText(s, kinds, card) {
  if (!s?.hand || s.hand.phase === "over" || !seatedIn(s)) return "";
  if (s.hand.turn !== s.you) return t("wait_turn", { name: playerName(s, s.hand.turn) });
  if (kinds.has("take_upcard") || kinds.has("pass")) return t("turn.upcard");
  if (kinds.has("draw_stock")) return kinds.has("draw_discard") || !card ? t("need_draw") : t("need_stock");
  if (card && s.hand.events?.at(-1)?.card === card) return t("banned_discard");
  return t("turn.discard");
}

// The coach's review of a hand (docs/protocol-guide.md "Hand review") as the replay page reads
// it, and its words: which decision a move's mark or the coach's line speaks of, the
// summary, "Find the better move". Pure: no page, no fetch.
import { cardShort, lang, t } from "./i18n.js";

export const MARKS = { inaccuracy: "?!", mistake: "?", blunder: "??" };
const points = new Intl.NumberFormat(lang, { signDisplay: "exceptZero", minimumFractionDigits: 1, maximumFractionDigits: 1 });
const plain = new Intl.NumberFormat(lang, { minimumFractionDigits: 1, maximumFractionDigits: 1 });

// The seat asked for in the address (`?seat=0|1|both`), else the reader's own, else 0.
export function initialView(search, you) {
  const asked = new URLSearchParams(search).get("seat");
  if (asked === "0" || asked === "1") return Number(asked);
  if (asked === "both") return "both";
  return you === 0 || you === 1 ? you : 0;
}

// The seat drawn at the bottom, and the seats whose review marks are shown.
export const bottomSeat = (view, you) => (view === "both" ? (you === 1 ? 1 : 0) : view);
export const shownSeats = (view) => (view === "both" ? [0, 1] : [view]);

// The step after which action `index` of the hand stands (-1: none).
export const stepOf = (steps, index) => steps.findIndex((s) => s.move && s.move.index === index);

export function decisionAt(reviews, seat, index) {
  return reviews[seat]?.decisions.find((d) => d.index === index) || null;
}

// The marked decision of `move`, if its seat is one shown.
export function markOf(reviews, seats, move) {
  if (!move || !seats.includes(move.seat)) return null;
  const d = decisionAt(reviews, move.seat, move.index);
  return d?.label ? d : null;
}

// The decision the coach's line speaks of at `move` (marked or not).
export const coachedAt = (reviews, seats, move) => (move && seats.includes(move.seat) ? decisionAt(reviews, move.seat, move.index) : null);

// The decisions "Find the better move" asks, in the hand's order.
export const quizQueue = (review) => (review ? review.decisions.filter((d) => d.label) : []);

export const sameAction = (a, b) => a.kind === b.kind && (a.card || null) === (b.card || null);

export function actionText(action) {
  const card = action.card ? cardShort(action.card) : "";
  return t(`act.${action.kind}`, { card });
}

export function coachText(d) {
  const parts = [];
  if (d.label) parts.push(`${MARKS[d.label]} ${t(`label.${d.label}`)}.`);
  parts.push(t("replay.played", { action: actionText(d.chosen), ev: points.format(d.expected.chosen) }));
  parts.push(sameAction(d.best, d.chosen) ? t("replay.best_same") : t("replay.better", { action: actionText(d.best), ev: points.format(d.expected.best) }));
  return parts.join(" ");
}

// The costliest decision of a review (the first of equals), or null.
export const worstOf = (review) => review.decisions.reduce((a, d) => (a === null || d.loss > a.loss ? d : a), null);

// The summary of `seat`'s review, named `name`: the verdict, the loss, the luck.
export function summaryTexts(review, seat, name, steps) {
  const s = review.summary;
  const worst = worstOf(review);
  const verdict =
    worst && worst.label
      ? t("replay.verdict", { n: stepOf(steps, worst.index), best: actionText(worst.best), played: actionText(worst.chosen), loss: plain.format(worst.loss) })
      : t("replay.verdict_clean", { name });
  const marks = `?? ${s.blunders} · ? ${s.mistakes} · ?! ${s.inaccuracies}`;
  const loss = t("replay.loss", { name, loss: plain.format(s.loss), marks });
  const luck = s.luck;
  const lucky = luck
    ? t("replay.luck", { mine: luck.start_deadwood[seat], theirs: luck.start_deadwood[1 - seat], gain: luck.stock_gain[seat], ogain: luck.stock_gain[1 - seat] })
    : "";
  return { verdict, loss, luck: lucky };
}

// The choices of "Find the better move": every choice the coach priced (a review
// kept before it priced them: the one played and the best), each with its expected
// points, in the cards' order (the draw or the offer first), never the coach's.
const KINDS = ["take_upcard", "pass", "draw_stock", "draw_discard"];
const cardOrder = (c) => "A23456789TJQK".indexOf(c[0]) * 4 + "CDHS".indexOf(c[1]);
const orderOf = (a) => (a.card ? 10 + cardOrder(a.card) * 2 + (a.kind === "knock" ? 1 : 0) : KINDS.indexOf(a.kind));

export function quizChoices(d) {
  const priced = d.options?.length ? d.options : [{ ...d.chosen, expected: d.expected.chosen }, { ...d.best, expected: d.expected.best }];
  const byAction = new Map(priced.map((o) => [`${o.kind}:${o.card || ""}`, { kind: o.kind, card: o.card || null, expected: o.expected }]));
  return [...byAction.values()].sort((a, b) => orderOf(a) - orderOf(b));
}

// The answer to the reader's pick: the best, or what it cost against the coach's
// choice; and what was played in the game.
export function answerText(d, pick) {
  const ev = (x) => points.format(x);
  if (sameAction(pick, d.best) || pick.expected >= d.expected.best) return t("replay.quiz_right", { best: actionText(pick), ev: ev(pick.expected) });
  const cost = t("replay.quiz_cost", { pick: actionText(pick), pev: ev(pick.expected), cost: plain.format(d.expected.best - pick.expected), best: actionText(d.best), bev: ev(d.expected.best) });
  const played = sameAction(pick, d.chosen) ? t("replay.quiz_as_played") : t("replay.quiz_played", { played: actionText(d.chosen), cev: ev(d.expected.chosen) });
  return `${cost} ${played}`;
}

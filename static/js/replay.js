// The replay of a finished hand (`/t/{id}/hands/{n}`): the table as it was after each
// move, from one seat's view or with both hands, the coach's review beside it
// (PROTOCOL.md "Hand review"), and "Find the better move". The positions come from
// the server (the engine replayed the hand's record); this page only draws them.
import { backElement, cardElement, sortByMelds } from "./cards.js";
import { cardShort, lang, t, tn } from "./i18n.js";
import { $, describeDeal, describeEvent, playerName, renderResult } from "./render.js";

const config = JSON.parse($("replay-config").textContent);
const steps = config.steps;
const last = steps.length - 1;
const over = steps[last].phase === "over";
const MARKS = { inaccuracy: "?!", mistake: "?", blunder: "??" };
const points = new Intl.NumberFormat(lang, { signDisplay: "exceptZero", minimumFractionDigits: 1, maximumFractionDigits: 1 });
const plain = new Intl.NumberFormat(lang, { minimumFractionDigits: 1, maximumFractionDigits: 1 });

const reviews = [null, null];
let step = 0;
let view = initialView();
let quiz = null; // { queue: [decision...], at: i, answered: bool }

function initialView() {
  const asked = new URLSearchParams(location.search).get("seat");
  if (asked === "0" || asked === "1") return Number(asked);
  if (asked === "both") return "both";
  return config.you === 0 || config.you === 1 ? config.you : 0;
}

// The seat drawn at the bottom, and the seats whose review marks are shown.
const bottom = () => (view === "both" ? (config.you === 1 ? 1 : 0) : view);
const shownSeats = () => (view === "both" ? [0, 1] : [view]);

function fakeState(you) {
  return {
    you,
    table: { players: config.players, scoring: config.options?.scoring || "hand", status: "hand_over" },
    hand: { number: config.hand, dealer: config.dealer, result: config.result, phase: "over" },
    sheet: null,
  };
}

function stepOf(index) {
  return steps.findIndex((s) => s.move && s.move.index === index);
}

function decisionAt(seat, index) {
  return reviews[seat]?.decisions.find((d) => d.index === index) || null;
}

export function actionText(action) {
  const card = action.card ? cardShort(action.card) : "";
  return t(`act.${action.kind}`, { card });
}

// ---------- the table ----------

function renderSeat(prefix, seat, s, faceUp) {
  const state = fakeState(view === "both" ? null : view);
  $(`${prefix}-name`).textContent = playerName(state, seat);
  $(`${prefix}-note`).textContent = config.dealer === seat ? `(${t("dealer")})` : "";
  $(prefix === "opp" ? "opponent" : "me").classList.toggle("turn", s.phase !== "over" && s.turn === seat);
  const cards = s.hands[seat];
  const box = $(`${prefix}-cards`);
  box.setAttribute("aria-label", t("hand_of", { name: playerName(state, seat) }));
  box.setAttribute("role", "group");
  if (faceUp) {
    $(`${prefix}-deadwood`).textContent = t("deadwood", { n: s.deadwood[seat] });
    box.className = prefix === "me" ? "hand" : "hand opp-hand";
    const melds = s.melds[seat];
    const sorted = sortByMelds(cards, melds);
    const groups = [];
    melds.forEach((meld, i) => {
      const g = document.createElement("div");
      g.className = `group meld m${i % 4}`;
      for (const c of sorted.filter((x) => meld.includes(x))) g.append(cardElement(c, { mini: prefix !== "me" }));
      groups.push(g);
    });
    const inMeld = new Set(melds.flat());
    const loose = document.createElement("div");
    loose.className = "group";
    for (const c of sorted.filter((x) => !inMeld.has(x))) loose.append(cardElement(c, { mini: prefix !== "me" }));
    if (loose.childElementCount) groups.push(loose);
    box.replaceChildren(...groups);
    return;
  }
  // Hidden: the cards this seat took from the pile and still holds, the rest as backs.
  $(`${prefix}-deadwood`).textContent = "";
  box.className = "backs";
  const known = s.known[seat].filter((c) => cards.includes(c));
  const faces = known.map((c) => {
    const el = cardElement(c, { mini: true });
    el.classList.add("known");
    return el;
  });
  const backs = Array.from({ length: cards.length - faces.length }, () => backElement());
  const count = document.createElement("span");
  count.className = "sr-only";
  count.textContent = tn("cards_count", cards.length);
  box.replaceChildren(count, ...faces, ...backs);
}

function renderBoard() {
  const s = steps[step];
  const me = bottom();
  const opp = 1 - me;
  const end = step === last && over;
  renderSeat("me", me, s, true);
  renderSeat("opp", opp, s, view === "both" || end);
  $("stock-count").textContent = String(s.stock);
  $("stock").setAttribute("aria-label", t("stock_plain", { n: s.stock }));
  const pile = $("discard");
  const top = s.pile[s.pile.length - 1];
  pile.classList.toggle("empty", !top);
  if (top) {
    const face = cardElement(top);
    face.setAttribute("aria-hidden", "true");
    pile.replaceChildren(face);
    pile.setAttribute("aria-label", t("discard_plain", { card: cardShort(top) }));
  } else {
    pile.replaceChildren();
    pile.setAttribute("aria-label", t("discard_empty"));
  }
  const state = fakeState(view === "both" ? null : view);
  const caption = step === 0 ? describeDeal(state) : `${t("replay.step", { n: step, total: last })}: ${moveText(state, s.move)}`;
  $("step-caption").textContent = caption;
  const result = $("result");
  result.hidden = !(end && config.result);
  if (!result.hidden) renderResult(state);
}

function moveText(state, move) {
  const text = describeEvent(state, { seat: move.seat, kind: move.kind, card: move.card }, { short: true });
  return text || move.kind;
}

// ---------- the timeline ----------

function markOf(move) {
  if (!move) return null;
  for (const seat of shownSeats()) {
    if (seat !== move.seat) continue;
    const d = decisionAt(seat, move.index);
    if (d?.label) return d;
  }
  return null;
}

function renderTimeline() {
  // A keyboard user on the timeline stays on it: the current move gets the focus back.
  const hadFocus = Boolean(document.activeElement?.closest?.("#timeline"));
  const state = fakeState(view === "both" ? null : view);
  const items = steps.map((s, k) => {
    const li = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    button.className = "linkish step";
    button.dataset.step = String(k);
    const text = k === 0 ? describeDeal(state) : moveText(state, s.move);
    button.append(document.createTextNode(text));
    const d = markOf(s.move);
    if (d) {
      const mark = document.createElement("span");
      mark.className = `mark-${d.label} review-mark`;
      mark.setAttribute("aria-hidden", "true");
      mark.textContent = ` ${MARKS[d.label]}`;
      const spoken = document.createElement("span");
      spoken.className = "sr-only";
      spoken.textContent = ` (${t(`label.${d.label}`)})`;
      button.append(mark, spoken);
      li.dataset.label = d.label;
    }
    if (k === step) button.setAttribute("aria-current", "step");
    button.addEventListener("click", () => go(k));
    li.append(button);
    return li;
  });
  $("timeline").replaceChildren(...items);
  const list = $("timeline");
  const current = list.querySelector('[aria-current="step"]');
  if (!current) return;
  // Scroll the list alone (never the page: on a phone it is far below the table).
  const item = current.parentElement;
  if (item.offsetTop < list.scrollTop) list.scrollTop = item.offsetTop;
  else if (item.offsetTop + item.offsetHeight > list.scrollTop + list.clientHeight) {
    list.scrollTop = item.offsetTop + item.offsetHeight - list.clientHeight;
  }
  if (hadFocus) current.focus({ preventScroll: true });
}

// ---------- the coach ----------

function renderCoach() {
  const s = steps[step];
  const box = $("coach-box");
  const hide = quiz && !quiz.answered;
  const move = s.move;
  const d = move && shownSeats().includes(move.seat) ? decisionAt(move.seat, move.index) : null;
  box.hidden = !d || hide;
  if (!d || hide) return;
  const same = d.best.kind === d.chosen.kind && d.best.card === d.chosen.card;
  const parts = [];
  if (d.label) parts.push(`${MARKS[d.label]} ${t(`label.${d.label}`)}.`);
  parts.push(t("replay.played", { action: actionText(d.chosen), ev: points.format(d.expected.chosen) }));
  parts.push(same ? t("replay.best_same") : t("replay.better", { action: actionText(d.best), ev: points.format(d.expected.best) }));
  $("coach-line").textContent = parts.join(" ");
  box.dataset.label = d.label || "";
}

function renderSummary() {
  const seat = bottom();
  const review = reviews[seat];
  const status = $("review-status");
  if (!review) return;
  status.textContent = t("replay.ready");
  const name = playerName(fakeState(null), seat);
  const s = review.summary;
  const worst = review.decisions.reduce((a, d) => (a === null || d.loss > a.loss ? d : a), null);
  $("review-verdict").textContent =
    worst && worst.label
      ? t("replay.verdict", { n: stepOf(worst.index), best: actionText(worst.best), played: actionText(worst.chosen), loss: plain.format(worst.loss) })
      : t("replay.verdict_clean", { name });
  const marks = `?? ${s.blunders} · ? ${s.mistakes} · ?! ${s.inaccuracies}`;
  $("review-loss").textContent = t("replay.loss", { name, loss: plain.format(s.loss), marks });
  const luck = s.luck;
  $("review-luck").textContent = luck
    ? t("replay.luck", { mine: luck.start_deadwood[seat], theirs: luck.start_deadwood[1 - seat], gain: luck.stock_gain[seat], ogain: luck.stock_gain[1 - seat] })
    : "";
}

async function fetchReview(seat) {
  const url = `${config.api}/hands/${config.hand}/review?seat=${seat}`;
  for (;;) {
    let r;
    try {
      r = await fetch(url, { headers: { Accept: "application/json" } });
    } catch {
      await new Promise((done) => setTimeout(done, 2000));
      continue;
    }
    if (r.status === 200) {
      reviews[seat] = await r.json();
      render();
      return;
    }
    if (r.status !== 202) {
      $("review-status").textContent = t("replay.failed");
      return;
    }
    await new Promise((done) => setTimeout(done, 1000));
  }
}

// ---------- find the better move ----------

function quizDecisions() {
  const review = reviews[bottom()];
  return review ? review.decisions.filter((d) => d.label) : [];
}

function startQuiz() {
  const queue = quizDecisions();
  quiz = { queue, at: 0, answered: false };
  $("quiz-stop").hidden = false;
  $("quiz-start").hidden = true;
  if (!queue.length) {
    $("quiz-prompt").textContent = reviews[bottom()] ? t("replay.quiz_none", { name: playerName(fakeState(null), bottom()) }) : t("replay.quiz_wait");
    $("quiz-choices").replaceChildren();
    return;
  }
  askQuiz();
}

function askQuiz() {
  const d = quiz.queue[quiz.at];
  quiz.answered = false;
  const at = stepOf(d.index);
  go(at - 1);
  $("quiz-prompt").textContent = t("replay.quiz_prompt", { n: at });
  $("quiz-answer").textContent = "";
  $("quiz-next").hidden = true;
  const legal = steps[at].legal || [];
  const buttons = legal.map((a) => {
    const action = { kind: a.kind, card: a.card || a.discard || null };
    const b = document.createElement("button");
    b.type = "button";
    b.className = "button";
    b.textContent = actionText(action);
    b.addEventListener("click", () => answerQuiz(action));
    return b;
  });
  $("quiz-choices").replaceChildren(...buttons);
  buttons[0]?.focus();
}

function answerQuiz(pick) {
  const d = quiz.queue[quiz.at];
  quiz.answered = true;
  const right = pick.kind === d.best.kind && (pick.card || null) === (d.best.card || null);
  $("quiz-answer").textContent = right
    ? t("replay.quiz_right", { best: actionText(d.best), ev: points.format(d.expected.best) })
    : t("replay.quiz_other", { best: actionText(d.best), bev: points.format(d.expected.best), played: actionText(d.chosen), cev: points.format(d.expected.chosen) });
  $("quiz-choices").replaceChildren();
  const more = quiz.at + 1 < quiz.queue.length;
  $("quiz-next").hidden = !more;
  if (!more) $("quiz-prompt").textContent = t("replay.quiz_done");
  go(stepOf(d.index));
  (more ? $("quiz-next") : $("quiz-stop")).focus();
}

function stopQuiz() {
  quiz = null;
  $("quiz-prompt").textContent = "";
  $("quiz-answer").textContent = "";
  $("quiz-choices").replaceChildren();
  $("quiz-next").hidden = true;
  $("quiz-stop").hidden = true;
  $("quiz-start").hidden = false;
  render();
}

// ---------- stepping ----------

function go(k) {
  step = Math.max(0, Math.min(last, k));
  render();
}

function render() {
  renderBoard();
  renderTimeline();
  renderCoach();
  renderSummary();
  const slider = $("step-slider");
  slider.max = String(last);
  slider.value = String(step);
  slider.setAttribute("aria-valuetext", $("step-caption").textContent);
  $("step-count").textContent = `${step} / ${last}`;
  $("step-first").disabled = $("step-prev").disabled = step === 0;
  $("step-last").disabled = $("step-next").disabled = step === last;
  document.body.dataset.step = String(step);
}

function setView(v) {
  view = v;
  for (const input of document.querySelectorAll('input[name="view"]')) input.checked = input.value === String(v);
  const url = new URL(location.href);
  url.searchParams.set("seat", String(v));
  history.replaceState(null, "", url);
  if (quiz) stopQuiz();
  render();
}

$("view-0-name").textContent = playerName(fakeState(null), 0);
$("view-1-name").textContent = playerName(fakeState(null), 1);
for (const input of document.querySelectorAll('input[name="view"]')) {
  input.checked = input.value === String(view);
  input.addEventListener("change", () => setView(input.value === "both" ? "both" : Number(input.value)));
}
$("step-first").addEventListener("click", () => go(0));
$("step-prev").addEventListener("click", () => go(step - 1));
$("step-next").addEventListener("click", () => go(step + 1));
$("step-last").addEventListener("click", () => go(last));
$("step-slider").addEventListener("input", (e) => go(Number(e.target.value)));
$("quiz-start").addEventListener("click", startQuiz);
$("quiz-stop").addEventListener("click", stopQuiz);
$("quiz-next").addEventListener("click", () => {
  quiz.at += 1;
  askQuiz();
});
document.addEventListener("keydown", (e) => {
  if (e.altKey || e.ctrlKey || e.metaKey) return;
  const tag = e.target?.tagName;
  if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
  const to = { ArrowLeft: step - 1, ArrowRight: step + 1, Home: 0, End: last }[e.key];
  if (to === undefined) return;
  e.preventDefault();
  go(to);
});

go(new URLSearchParams(location.search).get("step") === "end" ? last : 0);
fetchReview(0);
fetchReview(1);

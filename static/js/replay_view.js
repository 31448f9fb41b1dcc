// The replay page's views: the table at a step, the timeline, the coach's line and
// summary, the choices of "Find the better move", from the page's state `r`
// (replay.js). They fetch nothing and handle no input.
import { cardElement, sortByMelds } from "./cards.js";
import { cardShort, t, tn } from "./i18n.js";
import { $, describeDeal, describeEvent, playerName, renderResult, renderRow } from "./render.js";
import { MARKS, actionText, bottomSeat, coachText, coachedAt, markOf, shownSeats, summaryTexts } from "./coach.js";

// The state render.js's words read: the hand's players, dealer, result and the sheet
// right after it (its games' bonuses; absent from records kept before it was), seen by `you`.
export function fakeState(config, you) {
  return {
    you,
    table: { players: config.players, scoring: config.options?.scoring || "hand", status: "hand_over" },
    hand: { number: config.hand, dealer: config.dealer, result: config.result, phase: "over" },
    sheet: config.sheet || null,
  };
}

// "You" is the viewer's own seat only; a guest reads both players' names.
const viewer = (r) => fakeState(r.config, r.config.you ?? null);

export function moveText(state, move) {
  const text = describeEvent(state, move, { short: true });
  return text || move.kind;
}

const stepText = (r, state, k) => (k === 0 ? describeDeal(state) : moveText(state, r.steps[k].move));

function groupOf(cards, mini, className) {
  const g = document.createElement("div");
  g.className = className;
  for (const c of cards) g.append(cardElement(c, { mini }));
  return g;
}

function renderSeat(r, prefix, seat, s, faceUp) {
  const state = viewer(r);
  $(`${prefix}-name`).textContent = playerName(state, seat);
  $(`${prefix}-note`).textContent = r.config.dealer === seat ? `(${t("dealer")})` : "";
  $(prefix === "opp" ? "opponent" : "me").classList.toggle("turn", s.phase !== "over" && s.turn === seat);
  const cards = s.hands[seat];
  const box = $(`${prefix}-cards`);
  box.setAttribute("aria-label", t("hand_of", { name: playerName(state, seat) }));
  box.setAttribute("role", "group");
  if (faceUp) {
    $(`${prefix}-deadwood`).textContent = t("deadwood", { n: s.deadwood[seat] });
    box.className = prefix === "me" ? "hand" : "hand opp-hand";
    const mini = prefix !== "me";
    const melds = s.melds[seat];
    const sorted = sortByMelds(cards, melds);
    const groups = melds.map((meld, i) => groupOf(sorted.filter((x) => meld.includes(x)), mini, `group meld m${i % 4}`));
    const inMeld = new Set(melds.flat());
    const loose = groupOf(sorted.filter((x) => !inMeld.has(x)), mini, "group");
    if (loose.childElementCount) groups.push(loose);
    box.replaceChildren(...groups);
    return;
  }
  // Hidden: the cards this seat took from the pile and still holds, the rest as backs.
  $(`${prefix}-deadwood`).textContent = "";
  box.className = "backs";
  renderRow(box, cards.length, s.known[seat].filter((c) => cards.includes(c)));
  const count = document.createElement("span");
  count.className = "sr-only";
  count.textContent = tn("cards_count", cards.length);
  box.prepend(count);
}

export function renderBoard(r) {
  const s = r.steps[r.step];
  const me = bottomSeat(r.view, r.config.you);
  const end = r.step === r.last && r.over;
  renderSeat(r, "me", me, s, true);
  renderSeat(r, "opp", 1 - me, s, r.view === "both" || end);
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
  const state = viewer(r);
  const text = stepText(r, state, r.step);
  $("step-caption").textContent = r.step === 0 ? text : `${t("replay.step", { n: r.step, total: r.last })}: ${text}`;
  const result = $("result");
  result.hidden = !(end && r.config.result);
  if (!result.hidden) renderResult(state);
}

// A button a step (`data-step`), the current one `aria-current`.
export function renderTimeline(r) {
  // A keyboard user on the timeline stays on it: after a step the current move gets
  // the focus; after a render for another reason (a review arriving) the same button.
  const hadFocus = Boolean(document.activeElement?.closest?.("#timeline"));
  const focusedStep = document.activeElement?.dataset?.step;
  const shown = $("timeline").querySelector('[aria-current="step"]')?.dataset.step;
  const stepped = shown !== String(r.step);
  const state = viewer(r);
  const seats = shownSeats(r.view);
  const items = r.steps.map((s, k) => {
    const li = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    button.className = "linkish step";
    button.dataset.step = String(k);
    button.append(document.createTextNode(stepText(r, state, k)));
    const d = markOf(r.reviews, seats, s.move);
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
    if (k === r.step) button.setAttribute("aria-current", "step");
    li.append(button);
    return li;
  });
  const list = $("timeline");
  list.replaceChildren(...items);
  const current = list.querySelector('[aria-current="step"]');
  if (!current) return;
  // Scroll the list alone (never the page: on a phone it is far below the table).
  const item = current.parentElement;
  if (item.offsetTop < list.scrollTop) list.scrollTop = item.offsetTop;
  else if (item.offsetTop + item.offsetHeight > list.scrollTop + list.clientHeight) {
    list.scrollTop = item.offsetTop + item.offsetHeight - list.clientHeight;
  }
  if (!hadFocus) return;
  const same = stepped ? null : list.querySelector(`button[data-step="${focusedStep}"]`);
  (same || current).focus({ preventScroll: true });
}

// Hidden while "Find the better move" waits for an answer.
export function renderCoach(r) {
  const box = $("coach-box");
  const d = coachedAt(r.reviews, shownSeats(r.view), r.steps[r.step].move);
  box.hidden = !d || (r.quiz && !r.quiz.answered);
  if (box.hidden) return;
  $("coach-line").textContent = coachText(d);
  box.dataset.label = d.label || "";
}

export function renderSummary(r) {
  const seat = bottomSeat(r.view, r.config.you);
  const review = r.reviews[seat];
  const bar = $("review-progress");
  bar.hidden = Boolean(review);
  if (!review) {
    const p = r.progress[seat];
    if (p && p.of > 0) {
      bar.max = p.of;
      bar.value = p.done;
    }
    return;
  }
  $("review-status").textContent = t("replay.ready");
  const texts = summaryTexts(review, seat, playerName(fakeState(r.config, null), seat), r.steps);
  $("review-verdict").textContent = texts.verdict;
  $("review-loss").textContent = texts.loss;
  $("review-luck").textContent = texts.luck;
}

export function renderControls(r) {
  const slider = $("step-slider");
  slider.max = String(r.last);
  slider.value = String(r.step);
  slider.setAttribute("aria-valuetext", $("step-caption").textContent);
  $("step-count").textContent = `${r.step} / ${r.last}`;
  $("step-first").disabled = $("step-prev").disabled = r.step === 0;
  $("step-last").disabled = $("step-next").disabled = r.step === r.last;
  document.body.dataset.step = String(r.step);
}

// The choices of a quiz question, a button each (`data-choice`: its place in `choices`).
export function renderChoices(choices) {
  const buttons = choices.map((action, i) => {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "button";
    b.dataset.choice = String(i);
    b.textContent = actionText(action);
    return b;
  });
  $("quiz-choices").replaceChildren(...buttons);
  return buttons;
}

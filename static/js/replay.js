// The replay of a finished hand (`/t/{id}/hands/{n}`): the table as it was after each
// move, from one seat's view or with both hands, the coach's review beside it
// (docs/protocol-guide.md "Hand review"), and "Find the better move". The positions come from
// the server (the engine replayed the hand's record); this page only draws them.
// The controller: it holds the state, fetches the reviews and handles the controls;
// replay_view.js draws, coach.js reads the reviews and words them.
import { t } from "./i18n.js";
import { $, keepRoomForResult, playerName } from "./render.js";
import { answerText, bottomSeat, initialView, quizChoices, quizQueue, stepOf } from "./coach.js";
import { fakeState, renderBoard, renderChoices, renderCoach, renderControls, renderSummary, renderTimeline } from "./replay_view.js";

const config = JSON.parse($("replay-config").textContent);
const steps = config.steps;
const last = steps.length - 1;
// `quiz`: { queue: [decision...], at: i, answered: bool, choices: [action...] }.
const r = { config, steps, last, over: steps[last].phase === "over", step: 0, view: initialView(location.search, config.you), reviews: [null, null], progress: [null, null], quiz: null };

const bottom = () => bottomSeat(r.view, config.you);
const nameOf = (seat) => playerName(fakeState(config, null), seat);

async function fetchReview(seat) {
  const url = `${config.api}/hands/${config.hand}/review?seat=${seat}`;
  for (;;) {
    let answer;
    try {
      answer = await fetch(url, { headers: { Accept: "application/json" } });
    } catch {
      await new Promise((done) => setTimeout(done, 2000));
      continue;
    }
    if (answer.status === 200) {
      r.reviews[seat] = await answer.json();
      render();
      return;
    }
    if (answer.status === 429) {
      // The table (or this address) has as many reviews under way as it may: later.
      await new Promise((done) => setTimeout(done, 2000));
      continue;
    }
    if (answer.status !== 202) {
      $("review-status").textContent = t("replay.failed");
      $("review-progress").hidden = true;
      return;
    }
    // `202 {"status": "computing", "done": k, "of": n}`: drawn as a progress bar.
    try {
      const body = await answer.json();
      r.progress[seat] = { done: body.done, of: body.of };
      renderSummary(r);
    } catch {
      // an answer without its progress: the bar stays as it is
    }
    await new Promise((done) => setTimeout(done, 1000));
  }
}

// ---------- find the better move ----------

function startQuiz() {
  const queue = quizQueue(r.reviews[bottom()]);
  r.quiz = { queue, at: 0, answered: false, choices: [] };
  $("quiz-stop").hidden = false;
  $("quiz-start").hidden = true;
  if (!queue.length) {
    $("quiz-prompt").textContent = r.reviews[bottom()] ? t("replay.quiz_none", { name: nameOf(bottom()) }) : t("replay.quiz_wait");
    $("quiz-choices").replaceChildren();
    return;
  }
  askQuiz();
}

function askQuiz() {
  const d = r.quiz.queue[r.quiz.at];
  r.quiz.answered = false;
  const at = stepOf(steps, d.index);
  go(at - 1);
  $("quiz-prompt").textContent = t("replay.quiz_prompt", { n: at });
  $("quiz-answer").textContent = "";
  $("quiz-next").hidden = true;
  r.quiz.choices = quizChoices(d);
  renderChoices(r.quiz.choices)[0]?.focus();
}

function answerQuiz(pick) {
  const d = r.quiz.queue[r.quiz.at];
  r.quiz.answered = true;
  $("quiz-answer").textContent = answerText(d, pick);
  $("quiz-choices").replaceChildren();
  const more = r.quiz.at + 1 < r.quiz.queue.length;
  $("quiz-next").hidden = !more;
  if (!more) $("quiz-prompt").textContent = t("replay.quiz_done");
  go(stepOf(steps, d.index));
  (more ? $("quiz-next") : $("quiz-stop")).focus();
}

function stopQuiz() {
  r.quiz = null;
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
  r.step = Math.max(0, Math.min(last, k));
  render();
}

function render() {
  renderBoard(r);
  renderTimeline(r);
  renderCoach(r);
  renderSummary(r);
  renderControls(r);
}

function setView(v) {
  r.view = v;
  for (const input of document.querySelectorAll('input[name="view"]')) input.checked = input.value === String(v);
  const url = new URL(location.href);
  url.searchParams.set("seat", String(v));
  history.replaceState(null, "", url);
  if (r.quiz) stopQuiz();
  render();
}

$("view-0-name").textContent = nameOf(0);
$("view-1-name").textContent = nameOf(1);
for (const input of document.querySelectorAll('input[name="view"]')) {
  input.checked = input.value === String(r.view);
  input.addEventListener("change", () => setView(input.value === "both" ? "both" : Number(input.value)));
}
$("step-first").addEventListener("click", () => go(0));
$("step-prev").addEventListener("click", () => go(r.step - 1));
$("step-next").addEventListener("click", () => go(r.step + 1));
$("step-last").addEventListener("click", () => go(last));
$("step-slider").addEventListener("input", (e) => go(Number(e.target.value)));
$("timeline").addEventListener("click", (e) => {
  const button = e.target.closest("button[data-step]");
  if (button) go(Number(button.dataset.step));
});
// On a phone the result lies over the board, as at the table: its button folds it.
$("result-fold").addEventListener("click", () => {
  const folded = $("result").classList.toggle("folded");
  $("result-fold").setAttribute("aria-expanded", String(!folded));
  $("result-fold").textContent = t(folded ? "show_result" : "show_table");
});
keepRoomForResult();
$("quiz-start").addEventListener("click", startQuiz);
$("quiz-stop").addEventListener("click", stopQuiz);
$("quiz-next").addEventListener("click", () => {
  r.quiz.at += 1;
  askQuiz();
});
$("quiz-choices").addEventListener("click", (e) => {
  const button = e.target.closest("button[data-choice]");
  if (button && r.quiz && !r.quiz.answered) answerQuiz(r.quiz.choices[Number(button.dataset.choice)]);
});
document.addEventListener("keydown", (e) => {
  if (e.altKey || e.ctrlKey || e.metaKey) return;
  const tag = e.target?.tagName;
  if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
  const to = { ArrowLeft: r.step - 1, ArrowRight: r.step + 1, Home: 0, End: last }[e.key];
  if (to === undefined) return;
  e.preventDefault();
  go(to);
});

go(new URLSearchParams(location.search).get("step") === "end" ? last : 0);
fetchReview(0);
fetchReview(1);

import "./dom.mjs";
import assert from "node:assert/strict";
import test from "node:test";
import { answerText, bottomSeat, coachText, coachedAt, initialView, markOf, quizChoices, quizQueue, shownSeats, stepOf, summaryTexts } from "../../static/js/coach.js";

// A hand's steps (step 0: the deal) and a review of each seat (docs/protocol-guide.md "Hand review").
const steps = [{ move: null }, ...[0, 1, 2, 3, 4].map((index) => ({ move: { index, seat: index % 2 === 0 ? 1 : 0 } }))];
const decision = (index, fields) => ({
  index,
  label: null,
  loss: 0,
  chosen: { kind: "pass", card: null },
  best: { kind: "pass", card: null },
  expected: { chosen: 10, best: 10 },
  ...fields,
});
const passed = decision(0, {
  label: "blunder",
  loss: 36.9,
  best: { kind: "take_upcard", card: null },
  expected: { chosen: 42.6, best: 79.5 },
});
const summary = (fields) => ({ loss: 36.9, blunders: 1, mistakes: 0, inaccuracies: 0, luck: null, ...fields });
const bob = { decisions: [passed, decision(2), decision(4, { loss: 1 })], summary: summary() };
const reviews = [null, bob];

test("the view asked for in the address, else the reader's seat, else seat 0", () => {
  assert.equal(initialView("?seat=1", 0), 1);
  assert.equal(initialView("?seat=0", 1), 0);
  assert.equal(initialView("?seat=both", 1), "both");
  assert.equal(initialView("?seat=2", 1), 1);
  assert.equal(initialView("", null), 0);
  assert.equal(bottomSeat("both", 1), 1);
  assert.equal(bottomSeat("both", null), 0);
  assert.equal(bottomSeat(0, 1), 0);
  assert.deepEqual(shownSeats("both"), [0, 1]);
  assert.deepEqual(shownSeats(1), [1]);
});

test("a move's mark is its own seat's marked decision, when that seat is shown", () => {
  assert.equal(stepOf(steps, 0), 1);
  assert.equal(stepOf(steps, 9), -1);
  assert.equal(markOf(reviews, [1], steps[1].move), passed);
  assert.equal(markOf(reviews, [0, 1], steps[1].move), passed);
  assert.equal(markOf(reviews, [0], steps[1].move), null); // Ann's view: Bob's marks hidden
  assert.equal(markOf(reviews, [1], steps[3].move), null); // reviewed, not marked
  assert.equal(markOf(reviews, [0, 1], steps[2].move), null); // Ann's review not there yet
  assert.equal(markOf(reviews, [1], null), null); // the deal
  // The coach's line speaks of a decision marked or not.
  assert.equal(coachedAt(reviews, [1], steps[3].move).index, 2);
  assert.equal(coachedAt(reviews, [0], steps[3].move), null);
  assert.deepEqual(quizQueue(bob), [passed]);
  assert.deepEqual(quizQueue(null), []);
});

test("the coach's line: the mark, what was played and what was better", () => {
  assert.equal(
    coachText(passed),
    "?? Blunder. Played: pass (+42.6 points expected). Better: take the upcard (+79.5 points expected).",
  );
  // The same action (a card absent or null alike): the coach agrees.
  const agreed = decision(2, { chosen: { kind: "discard", card: "KH" }, best: { kind: "discard", card: "KH" }, expected: { chosen: -3, best: -3 } });
  assert.equal(coachText(agreed), "Played: discard the K♥ (-3.0 points expected). The coach agrees.");
  assert.equal(coachText(decision(3, { chosen: { kind: "pass" }, expected: { chosen: 0, best: 0 } })), "Played: pass (0.0 points expected). The coach agrees.");
});

test("the summary names the costliest decision by its step, the first of equals", () => {
  const texts = summaryTexts(bob, 1, "Bob", steps);
  assert.equal(texts.verdict, "Costliest decision, move 1: “take the upcard” was worth 36.9 points more than “pass”.");
  assert.equal(texts.loss, "Bob lost 36.9 points to decisions (?? 1 · ? 0 · ?! 0).");
  assert.equal(texts.luck, "");
  const tie = { ...bob, decisions: [decision(2, { loss: 5, label: "mistake" }), decision(4, { loss: 5, label: "blunder" })] };
  assert.match(summaryTexts(tie, 1, "Bob", steps).verdict, /^Costliest decision, move 3:/);
  // The costliest unmarked: the hand was down to the cards.
  const clean = { decisions: [decision(2, { loss: 0.4 })], summary: summary({ loss: 0.4, blunders: 0 }) };
  assert.equal(summaryTexts(clean, 1, "Bob", steps).verdict, "No costly decision by Bob: this hand was down to the cards.");
  assert.equal(summaryTexts({ decisions: [], summary: summary() }, 0, "Ann", steps).verdict, "No costly decision by Ann: this hand was down to the cards.");
});

test("luck is told from the reviewed seat's side", () => {
  const luck = { start_deadwood: [30, 10], stock_gain: [0, 9] };
  const lucky = (seat) => summaryTexts({ ...bob, summary: summary({ luck }) }, seat, "X", steps).luck;
  assert.equal(lucky(1), "Luck: deadwood dealt 10 against 30; the stock lowered it by 9 against 0.");
  assert.equal(lucky(0), "Luck: deadwood dealt 30 against 10; the stock lowered it by 0 against 9.");
});

test("find the better move: the priced choices in the cards' order; the answer prices the pick", () => {
  // A discard: the coach played out four choices (the one played first).
  const discard = decision(4, {
    label: "mistake",
    loss: 9,
    chosen: { kind: "discard", card: "KS" },
    best: { kind: "discard", card: "9H" },
    expected: { chosen: -3, best: 6 },
    options: [
      { kind: "discard", card: "KS", expected: -3 },
      { kind: "discard", card: "9H", expected: 6 },
      { kind: "knock", card: "9H", expected: 2.5 },
      { kind: "discard", card: "2C", expected: 1.2 },
    ],
  });
  const order = quizChoices(discard).map((c) => `${c.kind} ${c.card}`);
  assert.deepEqual(order, ["discard 2C", "discard 9H", "knock 9H", "discard KS"]); // never the coach's order
  const pick = (kind, card) => quizChoices(discard).find((c) => c.kind === kind && c.card === card);
  assert.equal(answerText(discard, pick("discard", "9H")), "Yes: “discard the 9♥” is the coach's choice (+6.0 points expected).");
  assert.equal(
    answerText(discard, pick("discard", "2C")),
    "Not the best: “discard the 2♣” (+1.2) costs 4.8 points against the coach's choice, “discard the 9♥” (+6.0). Played in the game: “discard the K♠” (-3.0).",
  );
  assert.equal(
    answerText(discard, pick("discard", "KS")),
    "Not the best: “discard the K♠” (-3.0) costs 9.0 points against the coach's choice, “discard the 9♥” (+6.0). That is the move played in the game.",
  );
  // A review kept before the choices were priced: the one played and the best, in order.
  assert.deepEqual(quizChoices(passed), [
    { kind: "take_upcard", card: null, expected: 79.5 },
    { kind: "pass", card: null, expected: 42.6 },
  ]);
  assert.equal(answerText(passed, quizChoices(passed)[0]), "Yes: “take the upcard” is the coach's choice (+79.5 points expected).");
  assert.match(answerText(passed, quizChoices(passed)[1]), /^Not the best: “pass” \(\+42\.6\) costs 36\.9 points/);
});

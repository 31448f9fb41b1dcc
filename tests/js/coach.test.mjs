import "./dom.mjs";
import assert from "node:assert/strict";
import test from "node:test";
import { answerText, bottomSeat, choiceOf, coachText, coachedAt, initialView, markOf, quizQueue, shownSeats, stepOf, summaryTexts } from "../../static/js/coach.js";

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

test("find the better move: a knock offered names its discard; the answer says right or the coach's choice", () => {
  assert.deepEqual(choiceOf({ kind: "knock", discard: "7H", deadwood: 4 }), { kind: "knock", card: "7H" });
  assert.deepEqual(choiceOf({ kind: "discard", card: "7H" }), { kind: "discard", card: "7H" });
  assert.deepEqual(choiceOf({ kind: "pass" }), { kind: "pass", card: null });
  assert.equal(answerText(passed, choiceOf({ kind: "take_upcard" })), "Yes: “take the upcard” is the coach's choice (+79.5 points expected).");
  assert.equal(answerText(passed, choiceOf({ kind: "pass" })), "The coach's choice: “take the upcard” (+79.5). Played in the game: “pass” (+42.6).");
  const knock = decision(4, { best: { kind: "knock", card: "JD" }, chosen: { kind: "knock", card: "JD" } });
  assert.match(answerText(knock, choiceOf({ kind: "knock", discard: "QD" })), /^The coach's choice: “knock, discarding the J♦”/);
  assert.match(answerText(knock, choiceOf({ kind: "knock", discard: "JD" })), /^Yes:/);
});

import "./dom.mjs";
import assert from "node:assert/strict";
import test from "node:test";
import { arrivals, carry, meldGroups, moveCard, orderFor } from "../../static/js/hand.js";

const TEN = ["KS", "7H", "AC", "8H", "2C", "9H", "3C", "4D", "5D", "6D"];
const MELDS = [["AC", "2C", "3C"], ["4D", "5D", "6D"], ["7H", "8H", "9H"]];
const hand = (fields) => ({ number: 1, phase: "draw", my_cards: TEN, my_melds: MELDS, ...fields });

test("a new deal sorts the hand, melds first", () => {
  assert.deepEqual(orderFor(null, hand(), { mode: "melds" }), ["AC", "2C", "3C", "4D", "5D", "6D", "7H", "8H", "9H", "KS"]);
  assert.deepEqual(orderFor(null, hand(), { mode: "rank" }).slice(0, 3), ["AC", "2C", "3C"]);
  assert.deepEqual(orderFor(null, hand(), { mode: "suit" }).slice(-1), ["KS"]);
});

test("an order that changed alone (another tab's) is kept; one arranged by hand too", () => {
  const reordered = hand({ my_cards: [...TEN].reverse() });
  assert.deepEqual(orderFor(hand(), reordered, { mode: "melds" }), reordered.my_cards);
  const drew = hand({ phase: "discard", my_cards: [...TEN, "QS"] });
  assert.deepEqual(orderFor(hand(), drew, { mode: "melds", manual: true }), drew.my_cards);
});

test("a hand over is shown as the server keeps it", () => {
  const over = hand({ phase: "over" });
  assert.deepEqual(orderFor(null, over, { mode: "rank" }), TEN);
});

test("an order held while an action was on its way is carried onto the new cards", () => {
  const held = [...TEN].reverse();
  const drew = hand({ phase: "discard", my_cards: [...TEN, "QS"] });
  assert.deepEqual(orderFor(hand(), drew, { mode: "melds", manual: true, held }), [...held, "QS"]);
  // Sorting (not by hand) sorts the new cards afresh.
  assert.equal(orderFor(hand(), drew, { mode: "rank", held }).at(-1), "KS");
  assert.deepEqual(carry(["B", "A", "C"], ["A", "C", "D"]), ["A", "C", "D"]);
  assert.deepEqual(carry(["C", "B", "A"], ["A", "C", "D"]), ["C", "A", "D"]);
});

test("the card just drawn is marked; an arrange of the same cards keeps the mark", () => {
  const drew = hand({ my_cards: [...TEN, "QS"] });
  assert.deepEqual(arrivals(hand(), drew, []), ["QS"]);
  assert.deepEqual(arrivals(drew, hand({ my_cards: ["QS", ...TEN] }), ["QS"]), ["QS"]);
  assert.deepEqual(arrivals(hand(), hand({ number: 2 }), ["QS"]), []);
});

test("a card moves to its new place", () => {
  assert.deepEqual(moveCard(["A", "B", "C", "D"], 0, 2), ["B", "C", "A", "D"]);
  assert.deepEqual(moveCard(["A", "B", "C", "D"], 3, 0), ["D", "A", "B", "C"]);
});

test("a meld is framed only where its cards sit side by side", () => {
  const sorted = ["AC", "2C", "3C", "KS", "7H", "8H", "4D", "9H"];
  const { groups, meldOf } = meldGroups(sorted, [["AC", "2C", "3C"], ["7H", "8H", "9H"]]);
  assert.deepEqual(
    groups.map((g) => [g.meld, g.cards]),
    [
      [0, ["AC", "2C", "3C"]],
      [null, ["KS", "7H", "8H", "4D", "9H"]],
    ],
  );
  assert.equal(meldOf.get("9H"), 1); // still marked with its meld's colour
});

test("a page that (re)loads mid-turn marks the card the state says was drawn", () => {
  const drew = hand({ phase: "discard", my_cards: ["QS", ...TEN], my_drawn: "QS" });
  assert.deepEqual(arrivals(null, drew, []), ["QS"]);
  assert.deepEqual(arrivals(null, hand(), []), []);
});

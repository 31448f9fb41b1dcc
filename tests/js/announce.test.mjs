import { stateOf } from "./dom.mjs";
import assert from "node:assert/strict";
import test from "node:test";
import { errorText, explainText, readyText, speaks, statusLine } from "../../static/js/announce.js";

const kinds = (...names) => new Set(names);

test("a new deal is said with whose turn it is", () => {
  const s = stateOf({ hand: { number: 2 } });
  assert.equal(statusLine(stateOf(), s, kinds("draw_stock"), "old"), "deal turn.draw");
  assert.ok(speaks(stateOf(), s));
});

test("a move is said with whose turn it is; an arrange (same version) keeps the line", () => {
  const before = stateOf({ version: 5, hand: { turn: 1 } });
  const after = stateOf({ version: 6, hand: { turn: 0, events: [{ seat: 1, kind: "discard", card: "7H" }], last_action: { seat: 1, kind: "discard", card: "7H" } } });
  assert.equal(statusLine(before, after, kinds("draw_stock"), "old"), "Bob discarded the seven of hearts. turn.draw");
  assert.ok(speaks(before, after));
  assert.equal(statusLine(after, { ...after }, kinds("draw_stock"), "kept"), "kept");
  assert.ok(!speaks(after, { ...after }));
});

test("one's own move is said only when the turn stays here", () => {
  const before = stateOf({ version: 5 });
  const drew = stateOf({ version: 6, hand: { phase: "discard", turn: 0, last_action: { seat: 0, kind: "draw_stock" } } });
  const threw = stateOf({ version: 7, hand: { turn: 1, last_action: { seat: 0, kind: "discard", card: "KS" } } });
  assert.ok(speaks(before, drew));
  assert.ok(!speaks(drew, threw));
});

test("a hand over is said as it ended, with who waits for whom: never as dealt", () => {
  const knocked = { phase: "over", last_action: { seat: 1, kind: "knock" }, result: { kind: "knock", knocker: 1, winner: 1 } };
  const over = stateOf({ version: 8, status: "hand_over", ready: [false, false], hand: knocked });
  // A page opened at the hand's end (no state before) and one that saw the knock.
  assert.equal(statusLine(null, over, kinds("next_hand"), ""), "Bob knocked and won");
  assert.equal(statusLine(stateOf({ version: 7, hand: { turn: 1 } }), over, kinds("next_hand"), "old"), "Bob knocked and won");
  // Bob is ready: said to Ann, who has not pressed Next hand.
  const ready = stateOf({ version: 9, status: "hand_over", ready: [false, true], hand: { ...knocked, last_action: { seat: 1, kind: "next_hand" } } });
  assert.equal(statusLine(over, ready, kinds("next_hand"), "Bob knocked and won"), "Bob knocked and won. waits_for_you");
  assert.ok(speaks(over, ready));
  const undercut = stateOf({ status: "match_over", hand: { phase: "over", result: { kind: "undercut", knocker: 1, winner: 0 } } });
  assert.equal(statusLine(null, undercut, kinds("new_match"), ""), "Ann undercut Bob and wins the hand");
});

test("who waits for whom between hands and matches", () => {
  assert.equal(readyText(stateOf({ status: "hand_over", ready: [true, false] })), "wait_for");
  assert.equal(readyText(stateOf({ status: "hand_over", ready: [false, true] })), "waits_for_you");
  assert.equal(readyText(stateOf({ status: "match_over", ready: [false, true] })), "wants_rematch");
  assert.equal(readyText(stateOf({ status: "hand_over", ready: [true, true] })), "");
  assert.equal(readyText(stateOf({ you: null, status: "hand_over", ready: [true, false] })), "");
});

test("why a click did nothing", () => {
  assert.equal(explainText(stateOf({ hand: { turn: 1 } }), kinds(), "KS"), "wait_turn");
  assert.equal(explainText(stateOf(), kinds("draw_stock", "draw_discard"), "KS"), "need_draw");
  assert.equal(explainText(stateOf(), kinds("draw_stock"), "KS"), "need_stock");
  const taken = stateOf({ hand: { phase: "discard", events: [{ seat: 0, kind: "draw_discard", card: "KS" }] } });
  assert.equal(explainText(taken, kinds("discard"), "KS"), "banned_discard");
  assert.equal(explainText(stateOf({ you: null }), kinds(), "KS"), "");
});

test("a refusal is said, except a stale version and an arrange a move elsewhere overtook", () => {
  assert.equal(errorText({ code: "not_your_turn", version: 6 }, 6), "error.other"); // no strings loaded: the fallback
  assert.equal(errorText({ code: "stale_version", version: 7 }, 6), "");
  // An arrange made on version 6 refused at version 7: another tab (or the stand-in) moved first.
  assert.equal(errorText({ code: "bad_message", version: 7 }, 6), "");
  // Refused on the version it was made on: a real error, said.
  assert.notEqual(errorText({ code: "bad_message", version: 6 }, 6), "");
  assert.notEqual(errorText({ code: "bad_message", version: 6 }, undefined), "");
});

test("a page that (re)loads mid-hand says the last move, as the page that saw it did", () => {
  const after = stateOf({ version: 6, hand: { turn: 0, events: [{ seat: 1, kind: "discard", card: "7H" }], last_action: { seat: 1, kind: "discard", card: "7H" } } });
  assert.equal(statusLine(null, after, kinds("draw_stock"), ""), "Bob discarded the seven of hearts. turn.draw");
  assert.equal(statusLine(null, stateOf({ hand: { number: 2 } }), kinds("draw_stock"), ""), "deal turn.draw");
});

test("a move the computer made for a seat says so, and its own player hears it", () => {
  const before = stateOf({ version: 5, hand: { turn: 1 } });
  const event = { seat: 1, kind: "discard", card: "7H", by: "stand_in" };
  const after = stateOf({ version: 6, hand: { turn: 0, events: [event], last_action: event } });
  assert.equal(statusLine(before, after, kinds("draw_stock"), "old"), "Bob is away: the computer discarded the seven of hearts. turn.draw");
  // Ann's own clock ran out: said to her, though the turn passed to Bob.
  const mine = { seat: 0, kind: "pass", by: "timeout" };
  const passed = stateOf({ version: 6, hand: { turn: 1, events: [mine], last_action: mine } });
  assert.equal(statusLine(stateOf({ version: 5 }), passed, kinds(), "old"), "Your time ran out: the computer passed. turn.other");
  assert.ok(speaks(stateOf({ version: 5 }), passed));
  const own = { seat: 0, kind: "pass" };
  assert.ok(!speaks(stateOf({ version: 5 }), stateOf({ version: 6, hand: { turn: 1, events: [own], last_action: own } })));
});

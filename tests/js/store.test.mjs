import { stateOf } from "./dom.mjs";
import assert from "node:assert/strict";
import test from "node:test";
import * as store from "../../static/js/store.js";
import * as ladder from "../../static/js/ladder.js";

test("the sort is melds unless rank or suit was chosen; a new choice ends a hand's own order", () => {
  localStorage.clear();
  assert.equal(store.sortMode(), "melds");
  localStorage.setItem("gin.sort", "nonsense");
  assert.equal(store.sortMode(), "melds");
  const s = stateOf({ hand: { deck_commitment: "abcdef0123456789" } });
  store.setManual(s);
  assert.ok(store.isManual(s));
  assert.equal(localStorage.getItem("gin.manual"), "T1:1:abcdef01");
  store.setSortMode("suit");
  assert.equal(store.sortMode(), "suit");
  assert.ok(!store.isManual(s));
});

test("an order made by hand belongs to that hand of that deal", () => {
  localStorage.clear();
  const s = stateOf({ hand: { deck_commitment: "aa" } });
  store.setManual(s);
  assert.ok(!store.isManual(stateOf({ hand: { number: 2, deck_commitment: "aa" } })));
  assert.ok(!store.isManual(stateOf({ hand: { deck_commitment: "bb" } })));
});

test("flags, watching per tab, and screens shown once", () => {
  store.setFlag("four-colour", true);
  assert.ok(store.flag("four-colour"));
  store.setFlag("four-colour", false);
  assert.ok(!store.flag("four-colour"));
  store.setWatching("T1", true);
  assert.ok(store.watching("T1") && !store.watching("T2"));
  store.setWatching("T1", false);
  assert.ok(!store.watching("T1"));
  assert.ok(store.once("gin.moment.x"));
  assert.ok(!store.once("gin.moment.x"));
});

test("a JSON map: {} when absent or unreadable; saved with only its newest numbered keys", () => {
  localStorage.clear();
  assert.deepEqual(store.load("gin.deals.T1"), {});
  localStorage.setItem("gin.deals.T1", "{not json");
  assert.deepEqual(store.load("gin.deals.T1"), {});
  assert.ok(store.save("gin.times.T1", { 1: "a", 10: "b", 2: "c", 9: "d" }, localStorage, 2));
  assert.deepEqual(store.load("gin.times.T1"), { 10: "b", 9: "d" });
  assert.ok(store.save("gin.tables", { x: 1 }, sessionStorage));
  assert.deepEqual(store.load("gin.tables", sessionStorage), { x: 1 });
  const full = { getItem: () => null, setItem: () => { throw new Error("QuotaExceededError"); } };
  assert.equal(store.save("gin.tables", { x: 1 }, full), false);
});

test("the record against each computer: a finished match counted once, the last one kept", () => {
  localStorage.clear();
  const over = (id, hand, winner, computer = "magpie") => ({
    you: 0,
    table: { id, status: "match_over", players: [{ seat: 0, name: "Ann" }, { seat: 1, name: "Computer", computer }] },
    hand: { number: hand },
    sheet: { match_winner: winner },
  });
  ladder.noteLadder(over("T1", 3, 0));
  ladder.noteLadder(over("T1", 3, 0)); // the same end again (a reload): not counted twice
  ladder.noteLadder(over("T1", 7, 1)); // the rematch, lost
  ladder.noteLadder({ ...over("T2", 2, 0), table: { ...over("T2", 2, 0).table, status: "playing" } });
  ladder.noteLadder(over("T3", 4, 0, null)); // two people: no record
  ladder.noteLadder(over("T4", 5, 0, "rookie"));
  const all = store.load(ladder.LADDER_KEY);
  assert.deepEqual(all.magpie, { won: 1, played: 2 });
  assert.deepEqual(all.rookie, { won: 1, played: 1 });
  assert.deepEqual(all.last, { id: "rookie", won: true });
});

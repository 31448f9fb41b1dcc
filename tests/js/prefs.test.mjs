import { stateOf } from "./dom.mjs";
import assert from "node:assert/strict";
import test from "node:test";
import * as prefs from "../../static/js/prefs.js";

test("the sort is melds unless rank or suit was chosen; a new choice ends a hand's own order", () => {
  localStorage.clear();
  assert.equal(prefs.sortMode(), "melds");
  localStorage.setItem("gin.sort", "nonsense");
  assert.equal(prefs.sortMode(), "melds");
  const s = stateOf({ hand: { deck_commitment: "abcdef0123456789" } });
  prefs.setManual(s);
  assert.ok(prefs.isManual(s));
  assert.equal(localStorage.getItem("gin.manual"), "T1:1:abcdef01");
  prefs.setSortMode("suit");
  assert.equal(prefs.sortMode(), "suit");
  assert.ok(!prefs.isManual(s));
});

test("an order made by hand belongs to that hand of that deal", () => {
  localStorage.clear();
  const s = stateOf({ hand: { deck_commitment: "aa" } });
  prefs.setManual(s);
  assert.ok(!prefs.isManual(stateOf({ hand: { number: 2, deck_commitment: "aa" } })));
  assert.ok(!prefs.isManual(stateOf({ hand: { deck_commitment: "bb" } })));
});

test("flags, watching per tab, and screens shown once", () => {
  prefs.setFlag("four-colour", true);
  assert.ok(prefs.flag("four-colour"));
  prefs.setFlag("four-colour", false);
  assert.ok(!prefs.flag("four-colour"));
  prefs.setWatching("T1", true);
  assert.ok(prefs.watching("T1") && !prefs.watching("T2"));
  prefs.setWatching("T1", false);
  assert.equal(sessionStorage.getItem("gin.watch.T1"), null);
  assert.ok(prefs.once("gin.moment.x"));
  assert.ok(!prefs.once("gin.moment.x"));
});

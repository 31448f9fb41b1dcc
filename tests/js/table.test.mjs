import { $, elements, FakeSocket } from "./page.mjs";
import { stateOf } from "./dom.mjs";
import assert from "node:assert/strict";
import test from "node:test";
import { TableSocket } from "../../static/js/socket.js";
import { TableController } from "../../static/js/table.js";

const config = { table_id: "T1", ws: "/ws/T1", api: "/api/tables/T1", claim_after: 120 };
const TEN = ["2C", "3C", "4C", "5D", "6D", "7D", "8H", "9H", "TH", "KS"];

// A controller whose socket is open; `frames()` are those it sent since the last call.
function table() {
  localStorage.clear();
  localStorage.setItem("gin.motion", "off");
  elements.clear();
  const ctl = new TableController(config);
  ctl.socket.connect();
  const ws = FakeSocket.last;
  ws.open();
  ws.sent = [];
  const frames = () => ws.sent.splice(0);
  return { ctl, ws, frames };
}

// Ann's state: her turn to discard, the cards in the order given (the server's).
const discarding = (version, cards = TEN, extra = {}) => ({
  ...stateOf({ version, hand: { phase: "discard", turn: 0, my_cards: cards, my_melds: [] }, ...extra }),
  legal: cards.map((card) => ({ kind: "discard", card })),
});
const withLegal = (s, legal) => ({ ...s, type: "state", legal });

test("the socket dispatches each frame type through the handlers map, and only there", () => {
  const calls = [];
  const handlers = { state: (m) => calls.push(["state", m.version]), error: (m) => calls.push(["error", m.code]), reaction: (m) => calls.push(["reaction", m.reaction]) };
  const statuses = [];
  const socket = new TableSocket("/ws/T1", handlers, (s) => statuses.push(s));
  socket.connect();
  const ws = FakeSocket.last;
  assert.equal(ws.url, "ws://localhost/ws/T1");
  ws.open();
  assert.deepEqual(statuses, ["open"]);
  assert.deepEqual(ws.sent.map((f) => f.type), ["hello", "ping"]);
  ws.deliver({ type: "state", version: 4 });
  ws.deliver({ type: "reaction", seat: 1, reaction: "gg" });
  ws.deliver({ type: "error", code: "not_your_turn", version: 4 });
  ws.deliver({ type: "pong", build: null }); // the socket's own: no handler hears it
  ws.deliver({ type: "state", version: 3 }); // older than the last: dropped
  ws.deliver({ type: "state", version: 4 }); // as new (an arrange's): passed on
  ws.deliver({ type: "hint" }); // no handler: dropped
  ws.deliver({ type: "constructor" }); // not an own key of the map: dropped
  ws.deliver({ type: "toString" });
  ws.deliver({ type: "__proto__" });
  ws.deliver("not json");
  ws.deliver("null");
  assert.deepEqual(calls, [["state", 4], ["reaction", "gg"], ["error", "not_your_turn"], ["state", 4]]);
  assert.equal(socket.version, 4);
  assert.ok(socket.act({ kind: "draw_stock" }));
  assert.deepEqual(ws.sent.at(-1), { type: "action", version: 4, action: { kind: "draw_stock" } });
});

test("the controller's map sends states, errors, reactions and hints each to its owner", () => {
  const { ctl, ws } = table();
  assert.deepEqual(Object.keys(ctl.handlers).sort(), ["error", "hint", "reaction", "state"]);
  // A hint nobody on this page asked for (no hint.js loaded yet) is dropped.
  ws.deliver({ type: "hint", version: 0, best: { kind: "pass" }, choices: [] });
  const shown = [];
  ctl.reactions.show = (m) => shown.push(m.reaction);
  const refused = [];
  const refuse = ctl.refused.bind(ctl);
  ctl.refused = (e) => refused.push(e.code) && refuse(e);
  ws.deliver({ ...discarding(5), type: "state" });
  assert.equal(ctl.state.version, 5);
  assert.deepEqual(ctl.ui.order, TEN);
  ws.deliver({ type: "reaction", seat: 1, reaction: "hello" });
  ws.deliver({ type: "error", code: "not_your_turn", version: 5 });
  assert.deepEqual(shown, ["hello"]);
  assert.deepEqual(refused, ["not_your_turn"]);
  assert.equal(ctl.state.version, 5, "neither a reaction nor an error is a state");
  assert.equal($("live").textContent, "error.other");
});

test("an arrange made while an action is on its way is held, then carried onto the next state", () => {
  const { ctl, ws, frames } = table();
  ws.deliver({ ...discarding(5), type: "state" });
  assert.ok(ctl.act("discard"));
  assert.deepEqual(frames(), [{ type: "action", version: 5, action: { kind: "discard", card: "2C" } }]);
  assert.equal(ctl.acted, 5);
  const mine = ["KS", "TH", "9H", "8H", "7D", "6D", "5D", "4C", "3C"];
  ctl.arrange([...mine, "2C"], true);
  assert.deepEqual(frames(), [], "no arrange crosses the action");
  assert.deepEqual(ctl.held, [...mine, "2C"]);
  // A state of the same version (another tab's arrange): still nothing crosses it.
  ws.deliver({ ...discarding(5, [...TEN].reverse()), type: "state" });
  assert.deepEqual(frames(), []);
  assert.deepEqual(ctl.held, [...mine, "2C"]);
  // The discard's state: the server's order, the held one carried onto it and sent.
  ws.deliver({ ...stateOf({ version: 6, hand: { turn: 1, my_cards: [...mine].reverse() } }), type: "state", legal: [] });
  assert.equal(ctl.acted, undefined);
  assert.equal(ctl.held, undefined);
  assert.deepEqual(ctl.ui.order, mine);
  assert.deepEqual(frames(), [{ type: "arrange", cards: mine }]);
  // Its echo (the same version, the cards in that order) sends nothing again.
  ws.deliver({ ...stateOf({ version: 6, hand: { turn: 1, my_cards: mine } }), type: "state", legal: [] });
  assert.deepEqual(frames(), []);
});

test("a refused action sends the held arrange at once", () => {
  const { ctl, ws, frames } = table();
  ws.deliver({ ...discarding(5), type: "state" });
  ctl.discard("KS");
  ctl.arrange([...TEN].reverse(), true);
  frames();
  ws.deliver({ type: "error", code: "not_your_turn", version: 5 });
  assert.deepEqual(frames(), [{ type: "arrange", cards: [...TEN].reverse() }]);
  assert.equal(ctl.acted, undefined);
  assert.equal(ctl.held, undefined);
});

test("an action refused as stale is sent again when the next state offers it, once", () => {
  const { ctl, ws, frames } = table();
  ws.deliver({ ...discarding(5), type: "state" });
  ctl.discard("KS");
  frames();
  $("live").textContent = "";
  ws.deliver({ type: "error", code: "stale_version", version: 6 });
  assert.equal($("live").textContent, "", "a stale version says nothing");
  ws.deliver({ ...discarding(6), type: "state" });
  assert.deepEqual(frames(), [{ type: "action", version: 6, action: { kind: "discard", card: "KS" } }]);
  ws.deliver({ ...discarding(6), type: "state" });
  assert.deepEqual(frames(), [], "sent again once only");
  // Refused as stale and no longer offered: not sent.
  ctl.discard("KS");
  ws.deliver({ type: "error", code: "stale_version", version: 7 });
  frames();
  ws.deliver({ ...withLegal(stateOf({ version: 7, hand: { turn: 1, my_cards: TEN } }), []) });
  assert.deepEqual(frames(), []);
});

test("the connection's status: offline forgets what was on its way and sends nothing", () => {
  const { ctl, ws, frames } = table();
  ws.deliver({ ...discarding(5), type: "state" });
  assert.equal(ctl.ui.online, true);
  ctl.discard("KS");
  assert.equal(ctl.acted, 5);
  ctl.connection("reconnecting");
  assert.equal(ctl.ui.online, false);
  assert.equal(ctl.acted, undefined);
  assert.equal($("board").inert, true);
  ws.readyState = 3;
  frames();
  ctl.discard("2C");
  assert.deepEqual(frames(), []);
  assert.equal($("live").textContent, "offline_me");
});

test("a reaction shows by its seat's bubble, unless that seat is muted or no state came", () => {
  const { ctl, ws } = table();
  ctl.reactions.live = $("reaction-live");
  ws.deliver({ type: "reaction", seat: 1, reaction: "gg" });
  assert.equal($("opp-bubble").textContent, "", "no state yet: nothing to show it by");
  ws.deliver({ ...discarding(5), type: "state" });
  ws.deliver({ type: "reaction", seat: 1, reaction: "gg" });
  assert.equal($("opp-bubble").textContent, "reaction.gg");
  assert.equal($("reaction-live").textContent, "Bob: reaction.gg");
  ws.deliver({ type: "reaction", seat: 0, reaction: "hello" });
  assert.equal($("me-bubble").textContent, "reaction.hello");
  localStorage.setItem(ctl.reactions.muteKey(1), "1");
  ws.deliver({ type: "reaction", seat: 1, reaction: "oops" });
  assert.equal($("opp-bubble").textContent, "reaction.gg", "muted");
  ws.deliver({ type: "reaction", seat: 0, reaction: "not-one" });
  assert.equal($("reaction-live").textContent, "Ann: reaction.hello", "not a reaction");
});

test("the clock sub-controller times the seat to move and hurries its own player once a version", () => {
  const { ctl, ws } = table();
  const now = Date.now();
  const timed = (version, turn, left) => ({ ...discarding(version, TEN, {}), type: "state", server_time: now, hand: { ...discarding(version).hand, turn, turn_deadline: now + left } });
  ws.deliver(timed(5, 1, 60000));
  assert.equal(ctl.clock.current.prefix, "opp");
  assert.equal($("opp-clock").hidden, false);
  assert.equal($("me-clock").hidden, true);
  const said = [];
  ctl.say = (text) => text === "clock_hurry" && said.push(text);
  ws.deliver(timed(6, 0, 5000));
  assert.equal(ctl.clock.current.prefix, "me");
  ctl.clock.paint();
  assert.deepEqual(said, ["clock_hurry"], "once a version");
  ws.deliver(timed(7, 0, 4000));
  assert.deepEqual(said, ["clock_hurry", "clock_hurry"]);
  ws.deliver({ ...discarding(8), type: "state" });
  assert.equal(ctl.clock.current, null);
  assert.equal($("me-clock").hidden, true);
});

test("the ending sub-controller opens the claim when the away time counted here is up", () => {
  const { ctl, ws } = table();
  const away = (secs) => [
    { seat: 0, name: "Ann", connected: true },
    { seat: 1, name: "Bob", connected: false, away_seconds: secs },
  ];
  ws.deliver({ ...discarding(5, TEN, { players: away(30) }), type: "state" });
  assert.equal(ctl.ending.action("claim"), false);
  assert.equal($("endings").hidden, true);
  ws.deliver({ ...discarding(6, TEN, { players: away(130) }), type: "state" });
  assert.deepEqual(ctl.ending.action("claim"), { kind: "claim" });
  assert.equal($("endings").hidden, false);
  assert.equal($("live").textContent, "away_for. endings_open", "said as it opens");
  ctl.ending.confirm("claim");
  assert.equal(ctl.ending.pending, "claim");
});

test("the controller speaks each text once, unless again; the computer's note goes first", () => {
  const { ctl, ws } = table();
  ctl.say("hello");
  $("live").textContent = "";
  ctl.say("hello");
  assert.equal($("live").textContent, "", "said once");
  ctl.say("hello", true);
  assert.equal($("live").textContent, "hello");
  const players = [
    { seat: 0, name: "Ann", connected: true },
    { seat: 1, name: "Bob", computer: true, bot: true },
  ];
  ws.deliver({ ...discarding(5, TEN, { players }), type: "state" });
  assert.equal($("live").textContent, "bot_note deal turn.discard");
  $("live").textContent = "";
  ws.deliver({ ...discarding(6, TEN, { players }), type: "state" });
  assert.ok(!$("live").textContent.includes("bot_note"), "told once");
});

test("a button naming an action kind (data-act) sends that action when clicked", () => {
  const { ctl, ws, frames } = table();
  const clicks = [];
  const button = { dataset: { act: "pass" }, addEventListener: (type, run) => clicks.push(run) };
  const all = document.querySelectorAll;
  document.querySelectorAll = (selector) => (selector === "[data-act]" ? [button] : []);
  try {
    ctl.mount();
  } finally {
    document.querySelectorAll = all;
  }
  const socket = FakeSocket.last;
  socket.open();
  socket.deliver({ ...stateOf({ version: 3, hand: { phase: "upcard", turn: 0, my_cards: TEN } }), type: "state", legal: [{ kind: "take_upcard" }, { kind: "pass" }] });
  socket.sent = [];
  assert.equal(clicks.length, 1);
  clicks[0]();
  assert.deepEqual(socket.sent, [{ type: "action", version: 3, action: { kind: "pass" } }]);
  assert.notEqual(socket, ws);
  frames();
});

// The table page's controller: it holds the state, turns socket messages and the
// player's intents into messages, has board.js draw and announce.js speak. It knows
// no rules: only what `legal` offers.
import { cardElement, sortCards } from "./cards.js";
import { cardName, t } from "./i18n.js";
import { animate, finishAll, fly, motionAllowed, play, snapshot } from "./motion.js";
import { rememberTable } from "./mytables.js";
import { $, describeEvent, keepRoomForResult, player, playerName, seatedIn } from "./render.js";
import { errorText, explainText, moved, newDeal, say, sayFirst, speaks, statusLine } from "./announce.js";
import { foldResult, phone, renderEnd, renderHand, renderHeads, renderPage, showMoment, showSummary, verifyDeal } from "./board.js";
import { arrivals, focusHand, initHand, orderFor } from "./hand.js";
import { initInvite } from "./invite.js";
import { initPrefs, showSoundHint } from "./prefs.js";
import * as store from "./store.js";
import { entropyFor, noteTimes, sawCommitment } from "./store.js";
import { initShortcuts } from "./shortcuts.js";
import { initEnding, initReactions, renderClock, renderEnding, renderReactions, showEndedMoment, showReaction } from "./ending.js";
import { TableSocket } from "./socket.js";

const config = JSON.parse($("table-config").textContent);
let state = null;
const ui = { legal: [], kinds: new Set(), order: [], focus: 0, arrived: [], line: "", online: false, watching: store.watching(config.table_id) };
let botTold = false;
let oppConnected = null;
let verified = null;
// An arrange never crosses an action of this page: while one is on its way (`acted`:
// its version) an order arranged is `held`. `arrangedOn`: the version of the oldest
// arrange on its way (`sent`: the last).
let acted;
let held;
let arrangedOn;
let sent;
// The last action sent; one refused as stale is sent again if the next state offers it.
let last;
let stale;

const socket = new TableSocket(config.ws, {
  onState(message) {
    const previous = state?.you === message.you ? state : null;
    finishAll();
    const board = document.querySelector(".table-main");
    const rects = previous?.hand && motionAllowed() ? snapshot(board) : null;
    const active = document.activeElement;
    const focusWasInGame = !active || active === document.body || board.contains(active);
    const s = (state = message);
    const hand = s.hand;
    const seated = seatedIn(s);
    if (s.version > acted) acted = undefined;
    if (hand?.my_cards?.join() === sent) sent = undefined;
    ui.legal = s.legal || [];
    ui.kinds = new Set(ui.legal.map((a) => a.kind));
    noteTimes(s);
    if (seated && s.next_deal?.commitment) sawCommitment(config.table_id, (hand?.number || 0) + 1, s.next_deal.commitment);
    if (seated && hand?.my_cards) {
      ui.arrived = arrivals(previous?.hand, hand, ui.arrived);
      ui.manual = store.isManual(s);
      ui.mode = store.sortMode();
      ui.order = orderFor(previous?.hand, hand, { ...ui, held });
      if (acted === undefined) {
        held = undefined;
        if (ui.order.join() !== hand.my_cards.join()) sendArrange(ui.order);
      }
    }
    if (hand) ui.line = statusLine(previous, s, ui.kinds, ui.line);
    renderPage(s, ui);
    showSoundHint();
    const summary = renderEnd(s, ui);
    const ended = hand?.phase === "over" && (previous?.hand?.phase !== "over" || previous.hand.number !== hand.number);
    if (hand) {
      const opp = player(s, seated ? 1 - s.you : 1);
      const connected = Boolean(opp?.connected || opp?.computer);
      if (speaks(previous, s)) say(ui.line);
      if (seated && ui.online && connected !== oppConnected && !connected && !s.table.move_days) say(t("offline_waits", { name: playerName(s, 1 - s.you) }));
      oppConnected = connected;
    }
    const bot = seated && player(s, 1 - s.you);
    if (bot?.bot && !botTold) {
      botTold = true;
      sayFirst(t("bot_note", { name: bot.name }));
    }
    if (summary && ended) {
      say(summary);
      foldResult(ui, false);
      if (previous && !phone.matches) $("result").scrollIntoView({ block: "nearest" });
      showMoment(s, ui.kinds);
    }
    if (summary && verified !== hand.number) {
      verified = hand.number;
      verifyDeal(s);
    }
    if (rects) animate(previous, s, rects);
    if (hand) cues(previous, focusWasInGame, summary && ended);
    if (seated) rememberTable(s, playerName(s, 1 - s.you), describeEvent(s, s.hand?.last_action, { short: true }));
    const rematched = previous?.table.status === "match_over" && s.table.status !== "match_over";
    // The match screen never covers the next match's first deal.
    if (rematched) $("moment").close();
    if (!previous || ended || rematched) showSummary($("sheet-summary"), s);
    renderAround();
    const again = stale;
    stale = undefined;
    if (again && ui.legal.some((a) => a.kind === again.kind && a.card === again.card && a.discard === again.discard)) send(again);
  },
  onOther(message) {
    if (message.type === "reaction") showReaction(state, message);
  },
  onError(message) {
    if (acted !== undefined) {
      acted = undefined;
      if (held) sendArrange(held);
      held = undefined;
    }
    if (message.code === "stale_version") stale = last;
    say(errorText(message, arrangedOn));
    if (message.code === "bad_message") sent = undefined;
  },
  onStatus(status) {
    const online = (ui.online = status === "open");
    acted = sent = undefined;
    $("connection").hidden = online;
    if (!online) $("connection").textContent = t("reconnecting");
    $("board").inert = !online;
    $("board").classList.toggle("offline", !online);
    $("offline-cover").hidden = online;
    if (state?.hand) renderHeads(state, online);
    if (state) renderAround();
  },
});

function sendArrange(cards) {
  if (!sent) arrangedOn = state.version;
  sent = cards.join();
  socket.send({ type: "arrange", cards });
}

function renderAround() {
  renderReactions(state);
  say(renderClock(state));
  say(renderEnding(state, ui.kinds));
}


const favicon = document.querySelector('link[rel="icon"]');
const plainIcon = favicon?.href;
const plainTitle = document.title;

function clearTurnCue() {
  if (state && daysMine(state)) return;
  document.title = plainTitle;
  if (favicon) favicon.href = plainIcon;
}
addEventListener("focus", clearTurnCue);
document.addEventListener("visibilitychange", () => document.hidden || clearTurnCue());

// A table played over days where something is asked of this seat (its deadline runs).
const daysMine = (s) => Boolean(s.table.move_days && seatedIn(s) && s.table.players?.find((p) => p.seat === s.you)?.deadline != null);
const myTurn = (s) => seatedIn(s) && s.hand && s.hand.phase !== "over" && s.hand.turn === s.you;

function cues(previous, focusWasInGame, handEnds) {
  const s = state;
  const last = s.hand.last_action;
  const kinds = ui.kinds;
  const fresh = newDeal(previous, s);
  if (moved(previous, s) && last && !fresh && last.kind !== "pass" && last.kind !== "next_hand") {
    play(last.kind === "knock" ? (s.hand.result?.kind === "gin" ? "gin" : "knock") : last.kind === "discard" ? "discard" : "draw");
  }
  const turnStarts = myTurn(s) && (!myTurn(previous) || fresh);
  if (turnStarts && previous) {
    play("turn");
    if (document.hidden || !document.hasFocus()) {
      document.title = `● ${t("turn_title")} · ${plainTitle}`;
      if (favicon) favicon.href = "/static/favicon-turn.svg";
      if (store.flag("gin.notify") && globalThis.Notification?.permission === "granted" && document.hidden) {
        new Notification(t("turn_title"), { body: ui.line, tag: `gin-${s.table.id}`, icon: "/static/favicon.svg" });
      }
    }
  }
  if (daysMine(s)) {
    // Played over days: the tab says so for as long as the move is this player's.
    document.title = `● ${t("move_title")} · ${plainTitle}`;
    if (favicon) favicon.href = "/static/favicon-turn.svg";
  } else if (!myTurn(s)) clearTurnCue();
  const active = document.activeElement;
  const lost = !active || active === document.body || !active.isConnected || !active.checkVisibility();
  if (focusWasInGame && seatedIn(s) && (lost || $("board").contains(active)) && !document.querySelector("dialog[open]")) {
    const quiet = (id) => $(id).focus({ preventScroll: true });
    if (handEnds && kinds.has("next_hand")) quiet("next-hand");
    else if (handEnds && kinds.has("new_match")) quiet("rematch");
    else if (turnStarts && kinds.has("draw_stock")) quiet("stock");
    else if (turnStarts && kinds.has("take_upcard")) quiet("take");
    else if (moved(previous, s) && last?.seat === s.you && kinds.has("discard")) {
      const i = ui.order.indexOf(ui.arrived[0]);
      if (i >= 0) ui.focus = i;
      focusHand(ui);
    } else if (lost) focusHand(ui);
  }
  if ((fresh || turnStarts) && previous) {
    const middle = document.querySelector(".middle").getBoundingClientRect();
    if ($("opponent").getBoundingClientRect().top < 0 || middle.bottom > innerHeight) $("board").scrollIntoView({ block: "start", behavior: motionAllowed() ? "smooth" : "auto" });
  }
}


const legalFor = (kind) => ui.legal.filter((a) => a.kind === kind);

function send(action) {
  last = action;
  // With this browser's part of the next deal (fairness.js).
  const commitment = state?.next_deal?.commitment;
  if (commitment && seatedIn(state) && ["next_hand", "new_match"].includes(action.kind)) {
    action = { ...action, entropy: entropyFor(config.table_id, (state.hand?.number || 0) + 1, commitment) };
  }
  if (socket.act(action)) acted = state.version;
  else say(t("offline_me"));
}

const ctl = {
  ui,
  state: () => state,
  say,
  rejoin: () => socket.restart(),
  render: () => state && renderPage(state, ui),
  renderHand: () => renderHand(state, ui),
  focusHand: () => focusHand(ui, false),
  act(kind, fallback) {
    const a = legalFor(kind)[0] || (fallback && legalFor(fallback)[0]);
    if (a) send(a);
    return Boolean(a);
  },
  discard(card) {
    const a = ui.legal.find((x) => x.kind === "discard" && x.card === card);
    if (a) send(a);
    else ctl.explain(card);
  },
  explain(card) {
    const text = explainText(state, ui.kinds, card);
    if (!text) return;
    const box = $("status");
    box.textContent = text;
    say(text, true);
    if (motionAllowed()) box.animate([{ transform: "translateX(-4px)" }, { transform: "translateX(4px)" }, { transform: "none" }], { duration: 180 });
  },
  arrange(cards, manual) {
    ui.order = cards;
    if (manual) store.setManual(state);
    ui.manual = store.isManual(state);
    renderHand(state, ui);
    if (acted === undefined) sendArrange(cards);
    else held = cards;
  },
  sortBy(mode) {
    if (!ui.order.length || !seatedIn(state) || !state.hand?.my_cards) return;
    store.setSortMode((ui.mode = mode));
    const cards = () => $("hand").querySelectorAll("[data-card]");
    const before = new Map([...cards()].map((el) => [el.dataset.card, el.getBoundingClientRect()]));
    ctl.arrange(sortCards(state.hand.my_cards, mode, state.hand.my_melds), false);
    for (const el of cards()) fly(el, before.get(el.dataset.card));
  },
  askKnock(gin) {
    options = legalFor("knock")
      .filter((k) => (gin ? k.deadwood === 0 : k.deadwood > 0))
      .sort((a, b) => a.deadwood - b.deadwood);
    if (!options.length) return;
    $("confirm-title").textContent = t(gin ? "confirm.gin_title" : "confirm.knock_title");
    const choices = $("confirm-choices");
    const rows = options.map(({ discard, deadwood }, i) => {
      const label = document.createElement("label");
      label.className = "knock-choice";
      const input = document.createElement("input");
      Object.assign(input, { type: "radio", name: "knock-card", value: String(i), checked: !i });
      input.addEventListener("change", describeKnock);
      const face = cardElement(discard, { mini: true });
      face.setAttribute("aria-hidden", "true");
      const text = document.createElement("span");
      text.textContent = gin ? cardName(discard) : t("choice_deadwood", { card: cardName(discard), n: deadwood });
      label.append(input, face, text);
      return label;
    });
    choices.replaceChildren(choices.querySelector("legend"), ...rows);
    choices.hidden = options.length < 2;
    describeKnock();
    $("confirm-yes").textContent = t("confirm.yes");
    $("confirm-no").textContent = t("confirm.no");
    knockDialog.returnValue = "";
    knockDialog.showModal();
    $("confirm-yes").focus({ preventScroll: true });
  },
};

const knockDialog = $("confirm");
let options = [];
const chosenKnock = () => options[Number(knockDialog.querySelector("input:checked")?.value ?? 0)];

function describeKnock() {
  const { discard, deadwood } = chosenKnock();
  $("confirm-text").textContent = t(deadwood ? "confirm.knock" : "confirm.gin", { card: cardName(discard), deadwood });
}

knockDialog.addEventListener("close", () => {
  const pending = knockDialog.returnValue === "yes" && chosenKnock();
  if (pending) send(pending);
  options = [];
});

const click = (id, run) => $(id).addEventListener("click", run);
click("stock", () => ctl.act("draw_stock") || ctl.explain());
click("discard", () => ctl.act("take_upcard", "draw_discard") || ctl.explain());
click("take", () => ctl.act("take_upcard"));
click("pass", () => ctl.act("pass"));
click("next-hand", () => ctl.act("next_hand"));
click("rematch", () => ctl.act("new_match"));
click("knock", () => ctl.askKnock(false));
click("gin", () => ctl.askKnock(true));
click("result-fold", () => foldResult(ui, !ui.folded));
keepRoomForResult();
click("summary-open", () => (state.table.ended ? showEndedMoment(state, ui.kinds) : showMoment(state, ui.kinds, true)));
click("moment-rematch", () => {
  ctl.act("new_match");
  $("moment").close();
});
for (const b of document.querySelectorAll("[data-sort]")) b.addEventListener("click", () => ctl.sortBy(b.dataset.sort));

initReactions(config.table_id, (reaction) => socket.send({ type: "react", reaction }), () => state);
initEnding({ send, legal: (kind) => legalFor(kind)[0] });
initHand(ctl);
initShortcuts(ctl);
initInvite(ctl, config);
initPrefs(() => !seatedIn(state) && state?.hand);
socket.connect();

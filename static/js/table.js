// The table page's controller (as lichess's RoundController): it holds the state,
// takes the socket's frames through `handlers`, turns the player's intents into
// messages, owns the clock, ending and reactions (ending.js), has the views draw and
// speaks (announce.js words it). It knows no rules: only what `legal` offers.
import { cardElement, sortCards } from "./cards.js";
import { cardName, t } from "./i18n.js";
import { animate, finishAll, fly, motionAllowed, play, snapshot } from "./motion.js";
import { rememberTable } from "./mytables.js";
import { $, describeEvent, keepRoomForResult, player, playerName, seatedIn } from "./render.js";
import { errorText, explainText, moved, newDeal, speaks, statusLine } from "./announce.js";
import { foldResult, phone, renderEnd, renderHand, renderHeads, renderPage, showMoment, showSummary, verifyDeal } from "./board.js";
import { arrivals, focusHand, initHand, orderFor } from "./hand.js";
import { initInvite } from "./invite.js";
import { initPrefs } from "./prefs.js";
import * as store from "./store.js";
import { entropyFor, noteTimes, sawCommitment } from "./store.js";
import { initShortcuts } from "./shortcuts.js";
import { Clock, Ending, Reactions, showEndedMoment } from "./ending.js";
import { TableSocket } from "./socket.js";

// A table played over days where something is asked of this seat (its deadline runs).
const daysMine = (s) => Boolean(s.table.move_days && seatedIn(s) && s.table.players?.find((p) => p.seat === s.you)?.deadline != null);
const myTurn = (s) => seatedIn(s) && s.hand && s.hand.phase !== "over" && s.hand.turn === s.you;
const favicon = document.querySelector('link[rel="icon"]');
const plainIcon = favicon?.href;
const plainTitle = document.title;

export class TableController {
  constructor(config) {
    this.config = config;
    this.state = null;
    this.ui = { legal: [], kinds: new Set(), order: [], focus: 0, arrived: [], line: "", online: false, watching: store.watching(config.table_id) };
    this.said = ""; // the live region's last words
    this.botTold = false;
    this.oppConnected = null;
    this.verified = null;
    // An arrange never crosses an action of this page: while one is on its way (`acted`:
    // its version) an order arranged is `held`. `arrangedOn`: the version of the oldest
    // arrange on its way (`sent`: the last). `last`: the last action sent; one refused
    // as `stale` is sent again if the next state offers it.
    this.acted = this.held = this.arrangedOn = this.sent = this.last = this.stale = undefined;
    this.knocks = []; // the knocks the dialog offers
    this.soundHint = () => {};
    this.clock = new Clock(this);
    this.ending = new Ending(this);
    this.reactions = new Reactions(this);
    // The server's frames by type (socket.js dispatches; pong stays there).
    this.handlers = {
      state: (s) => this.receive(s),
      error: (e) => this.refused(e),
      reaction: (r) => this.reactions.show(r),
      hint: (h) => this.hints?.show(h),
    };
    this.socket = new TableSocket(config.ws, this.handlers, (status) => this.connection(status));
  }

  receive(message) {
    const ui = this.ui;
    const previous = this.state?.you === message.you ? this.state : null;
    finishAll();
    const board = document.querySelector(".table-main");
    const rects = previous?.hand && motionAllowed() ? snapshot(board) : null;
    const active = document.activeElement;
    const focusWasInGame = !active || active === document.body || board.contains(active);
    const s = (this.state = message);
    const hand = s.hand;
    const seated = seatedIn(s);
    if (s.version > this.acted) this.acted = undefined;
    if (hand?.my_cards?.join() === this.sent) this.sent = undefined;
    ui.legal = s.legal || [];
    ui.kinds = new Set(ui.legal.map((a) => a.kind));
    noteTimes(s);
    if (seated && s.next_deal?.commitment) sawCommitment(this.config.table_id, (hand?.number || 0) + 1, s.next_deal.commitment);
    if (seated && hand?.my_cards) {
      ui.arrived = arrivals(previous?.hand, hand, ui.arrived);
      ui.manual = store.isManual(s);
      ui.mode = store.sortMode();
      ui.order = orderFor(previous?.hand, hand, { ...ui, held: this.held });
      if (this.acted === undefined) {
        this.held = undefined;
        if (ui.order.join() !== hand.my_cards.join()) this.sendArrange(ui.order);
      }
    }
    if (hand) ui.line = statusLine(previous, s, ui.kinds, ui.line);
    renderPage(s, ui);
    this.soundHint();
    const summary = renderEnd(s, ui);
    const ended = hand?.phase === "over" && (previous?.hand?.phase !== "over" || previous.hand.number !== hand.number);
    if (hand) {
      const opp = player(s, seated ? 1 - s.you : 1);
      const connected = Boolean(opp?.connected || opp?.computer);
      if (speaks(previous, s)) this.say(ui.line);
      if (seated && ui.online && connected !== this.oppConnected && !connected && !s.table.move_days) this.say(t("offline_waits", { name: playerName(s, 1 - s.you) }));
      this.oppConnected = connected;
    }
    const bot = seated && player(s, 1 - s.you);
    if (bot?.bot && !this.botTold) {
      this.botTold = true;
      this.say([t("bot_note", { name: bot.name }), this.said].filter(Boolean).join(" "));
    }
    if (summary && ended) {
      this.say(summary);
      foldResult(ui, false);
      if (previous && !phone.matches) $("result").scrollIntoView({ block: "nearest" });
      showMoment(s, ui.kinds);
    }
    if (summary && this.verified !== hand.number) {
      this.verified = hand.number;
      verifyDeal(s);
    }
    if (rects) animate(previous, s, rects);
    if (hand) this.cues(previous, focusWasInGame, summary && ended);
    if (seated) rememberTable(s, playerName(s, 1 - s.you), describeEvent(s, s.hand?.last_action, { short: true }));
    const rematched = previous?.table.status === "match_over" && s.table.status !== "match_over";
    // The match screen never covers the next match's first deal.
    if (rematched) $("moment").close();
    if (!previous || ended || rematched) showSummary($("sheet-summary"), s);
    this.renderAround();
    const again = this.stale;
    this.stale = undefined;
    if (again && ui.legal.some((a) => a.kind === again.kind && a.card === again.card && a.discard === again.discard)) this.send(again);
  }

  refused(message) {
    if (this.acted !== undefined) {
      this.acted = undefined;
      if (this.held) this.sendArrange(this.held);
      this.held = undefined;
    }
    if (message.code === "stale_version") this.stale = this.last;
    this.hints?.render(null);
    this.say(errorText(message, this.arrangedOn));
    if (message.code === "bad_message") this.sent = undefined;
  }

  connection(status) {
    const online = (this.ui.online = status === "open");
    this.acted = this.sent = undefined;
    $("connection").hidden = online;
    if (!online) $("connection").textContent = t("reconnecting");
    $("board").inert = !online;
    $("board").classList.toggle("offline", !online);
    $("offline-cover").hidden = online;
    if (this.state?.hand) renderHeads(this.state, online);
    if (this.state) this.renderAround();
  }

  // The live region: each text once, unless `again`.
  say(text, again) {
    if (!text || (text === this.said && !again)) return;
    this.said = text;
    $("live").textContent = text;
  }

  sendArrange(cards) {
    if (!this.sent) this.arrangedOn = this.state.version;
    this.sent = cards.join();
    this.socket.send({ type: "arrange", cards });
  }

  // Hints (hint.js): a seat playing the computer, with its move to make.
  hint() {
    if (!$("hint").hidden) import("./hint.js").then((m) => (this.hints ??= new m.Hints(this)).ask());
  }

  renderAround() {
    const s = this.state;
    $("hint").hidden = !(seatedIn(s) && player(s, 1 - s.you)?.computer && ["pass", "draw_stock", "discard"].some((k) => this.ui.kinds.has(k)));
    this.hints?.render(s);
    this.reactions.render(s);
    this.clock.render(s);
    this.say(this.ending.render(s, this.ui.kinds));
  }

  clearTurnCue() {
    if (this.state && daysMine(this.state)) return;
    document.title = plainTitle;
    if (favicon) favicon.href = plainIcon;
  }

  cues(previous, focusWasInGame, handEnds) {
    const { state: s, ui } = this;
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
    } else if (!myTurn(s)) this.clearTurnCue();
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

  legalFor(kind) {
    return this.ui.legal.filter((a) => a.kind === kind);
  }

  send(action) {
    const state = this.state;
    this.last = action;
    // With this browser's part of the next deal (fairness.js).
    const commitment = state?.next_deal?.commitment;
    if (commitment && seatedIn(state) && ["next_hand", "new_match"].includes(action.kind)) {
      action = { ...action, entropy: entropyFor(this.config.table_id, (state.hand?.number || 0) + 1, commitment) };
    }
    if (this.socket.act(action)) this.acted = state.version;
    else this.say(t("offline_me"));
  }

  rejoin() {
    this.socket.restart();
  }

  render() {
    if (this.state) renderPage(this.state, this.ui);
  }

  renderHand() {
    renderHand(this.state, this.ui);
  }

  focusHand() {
    focusHand(this.ui, false);
  }

  act(kind, fallback) {
    const a = this.legalFor(kind)[0] || (fallback && this.legalFor(fallback)[0]);
    if (a) this.send(a);
    return Boolean(a);
  }

  discard(card) {
    const a = this.ui.legal.find((x) => x.kind === "discard" && x.card === card);
    if (a) this.send(a);
    else this.explain(card);
  }

  explain(card) {
    const text = explainText(this.state, this.ui.kinds, card);
    if (!text) return;
    const box = $("status");
    box.textContent = text;
    this.say(text, true);
    if (motionAllowed()) box.animate([{ transform: "translateX(-4px)" }, { transform: "translateX(4px)" }, { transform: "none" }], { duration: 180 });
  }

  arrange(cards, manual) {
    const { state, ui } = this;
    ui.order = cards;
    if (manual) store.setManual(state);
    ui.manual = store.isManual(state);
    renderHand(state, ui);
    if (this.acted === undefined) this.sendArrange(cards);
    else this.held = cards;
  }

  sortBy(mode) {
    const { state, ui } = this;
    if (!ui.order.length || !seatedIn(state) || !state.hand?.my_cards) return;
    store.setSortMode((ui.mode = mode));
    const cards = () => $("hand").querySelectorAll("[data-card]");
    const before = new Map([...cards()].map((el) => [el.dataset.card, el.getBoundingClientRect()]));
    this.arrange(sortCards(state.hand.my_cards, mode, state.hand.my_melds), false);
    for (const el of cards()) fly(el, before.get(el.dataset.card));
  }

  chosenKnock() {
    return this.knocks[Number($("confirm").querySelector("input:checked")?.value ?? 0)];
  }

  describeKnock() {
    const { discard, deadwood } = this.chosenKnock();
    $("confirm-text").textContent = t(deadwood ? "confirm.knock" : "confirm.gin", { card: cardName(discard), deadwood });
  }

  askKnock(gin) {
    const options = (this.knocks = this.legalFor("knock")
      .filter((k) => (gin ? k.deadwood === 0 : k.deadwood > 0))
      .sort((a, b) => a.deadwood - b.deadwood));
    if (!options.length) return;
    $("confirm-title").textContent = t(gin ? "confirm.gin_title" : "confirm.knock_title");
    const choices = $("confirm-choices");
    const rows = options.map(({ discard, deadwood }, i) => {
      const label = document.createElement("label");
      label.className = "knock-choice";
      const input = document.createElement("input");
      Object.assign(input, { type: "radio", name: "knock-card", value: String(i), checked: !i });
      input.addEventListener("change", () => this.describeKnock());
      const face = cardElement(discard, { mini: true });
      face.setAttribute("aria-hidden", "true");
      const text = document.createElement("span");
      text.textContent = gin ? cardName(discard) : t("choice_deadwood", { card: cardName(discard), n: deadwood });
      label.append(input, face, text);
      return label;
    });
    choices.replaceChildren(choices.querySelector("legend"), ...rows);
    choices.hidden = options.length < 2;
    this.describeKnock();
    $("confirm-yes").textContent = t("confirm.yes");
    $("confirm-no").textContent = t("confirm.no");
    const dialog = $("confirm");
    dialog.returnValue = "";
    dialog.showModal();
    $("confirm-yes").focus({ preventScroll: true });
  }

  // The page's controls, the views' listeners and the socket.
  mount() {
    const ui = this.ui;
    const clear = () => this.clearTurnCue();
    addEventListener("focus", clear);
    document.addEventListener("visibilitychange", () => document.hidden || clear());
    const knockDialog = $("confirm");
    knockDialog.addEventListener("close", () => {
      const pending = knockDialog.returnValue === "yes" && this.chosenKnock();
      if (pending) this.send(pending);
      this.knocks = [];
    });
    const click = (id, run) => $(id).addEventListener("click", run);
    click("stock", () => this.act("draw_stock") || this.explain());
    click("discard", () => this.act("take_upcard", "draw_discard") || this.explain());
    // A button for one action kind names it (`data-act`): a new kind is a button.
    for (const b of document.querySelectorAll("[data-act]")) b.addEventListener("click", () => this.act(b.dataset.act));
    click("knock", () => this.askKnock(false));
    click("gin", () => this.askKnock(true));
    click("hint", () => this.hint());
    click("result-fold", () => foldResult(ui, !ui.folded));
    keepRoomForResult();
    click("summary-open", () => (this.state.table.ended ? showEndedMoment(this.state, ui.kinds) : showMoment(this.state, ui.kinds, true)));
    click("moment-rematch", () => {
      this.act("new_match");
      $("moment").close();
    });
    for (const b of document.querySelectorAll("[data-sort]")) b.addEventListener("click", () => this.sortBy(b.dataset.sort));
    this.reactions.mount();
    this.ending.mount();
    initHand(this);
    initShortcuts(this);
    initInvite(this, this.config);
    this.soundHint = initPrefs(() => !seatedIn(this.state) && this.state?.hand);
    this.socket.connect();
  }
}

// The page (a test imports the controller without one).
const config = $("table-config");
if (config) new TableController(JSON.parse(config.textContent)).mount();

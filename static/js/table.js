// The table page: connects, renders each state, and turns clicks, keys and drags
// into the protocol's messages. It knows no rules: only what `legal` offers.
import { cardElement, sortCards } from "./cards.js";
import { checkDeal, dealRecord, deckMatches, entropyFor, sawCommitment } from "./fairness.js";
import { cardName, list, t, tn } from "./i18n.js";
import { applyMotionClass, finishAll, fly, motionAllowed, motionSpeed, reducedBySystem, setMotionSpeed, snapshot } from "./motion.js";
import { rememberTable } from "./mytables.js";
import {
  $,
  bonusTable,
  describeDeal,
  describeEvent,
  describeTurn,
  gamesToText,
  knownCards,
  matchWinnerText,
  player,
  playerName,
  renderLog,
  renderPiles,
  renderResult,
  renderRow,
  renderSeatHead,
} from "./render.js";
import { initClock, renderClock } from "./clock.js";
import { initEnding, renderEnding } from "./ending.js";
import { initReactions, renderReactions, showReaction } from "./reactions.js";
import { renderSheet } from "./sheet.js";
import { audioRunning, muted, onAudioChange, play, setMuted, unlockAudio } from "./sound.js";
import { TableSocket } from "./socket.js";
import { noteTimes, showSummary } from "./summary.js";

const config = JSON.parse($("table-config").textContent);
const optionNames = JSON.parse($("option-names").textContent);
const SORT_KEY = "gin.sort"; // melds | rank | suit, per device
const MANUAL_KEY = "gin.manual"; // "<table>:<hand>" once the player dragged in that hand
let state = null;
let legal = [];
let kinds = new Set();
let order = []; // this seat's cards in the order shown
let focusIndex = 0;
let lastSpoken = "";
let verifiedHand = null;
let lastOppConnected = null;
let arrived = []; // the card this seat just drew, marked in the hand
let online = false;
let statusLine = "";
let arrangedAt = 0;
let botTold = false; // the person was told the opponent is a program
let watching = sessionStorage.getItem(`gin.watch.${config.table_id}`) === "1";

const seatedIn = (s) => s && s.you !== null && s.you !== undefined;

const socket = new TableSocket(config.ws, {
  onState: (message) => {
    // A state for another seat than the last one (a spectator who just took a seat)
    // is a fresh start: nothing of the spectator's page (its status line) is kept.
    const previous = state && state.you === message.you ? state : null;
    finishAll(); // a new state mid-animation jumps to the end
    const board = document.querySelector(".table-main");
    const rects = previous?.hand && motionAllowed() ? snapshot(board) : null;
    const focusWasInGame = !document.activeElement || document.activeElement === document.body || board.contains(document.activeElement);
    state = message;
    noteTimes(state);
    if (seatedIn(state) && state.next_deal?.commitment) {
      sawCommitment(config.table_id, nextDealNumber(state), state.next_deal.commitment);
    }
    render(previous);
    if (rects) animate(previous, rects);
    cues(previous, focusWasInGame);
    if (seatedIn(state)) rememberTable(state, playerName(state, 1 - state.you));
    // The match summary on the sheet: at the page's first state and after each hand.
    const handEnded = state.hand?.phase === "over" && (previous?.hand?.phase !== "over" || previous?.hand?.number !== state.hand.number);
    const newMatch = previous && previous.table.status === "match_over" && state.table.status !== "match_over";
    if (!previous || handEnded || newMatch) showSummary($("sheet-summary"), state);
    renderAround();
  },
  onOther: (message) => {
    if (message.type === "reaction") showReaction(state, message);
  },
  onError: (message) => {
    if (message.code === "stale_version") return;
    // An automatic sort that crossed a move is refused; the next state sorts again.
    if (message.code === "bad_message" && performance.now() - arrangedAt < 3000) return;
    const text = t(`error.${message.code}`);
    say(text.startsWith("error.") ? t("error.other") : text);
  },
  onStatus: (status) => {
    online = status === "open";
    const banner = $("connection");
    banner.hidden = online;
    if (!online) banner.textContent = t("reconnecting");
    const board = $("board");
    board.inert = !online;
    board.classList.toggle("offline", !online);
    $("offline-cover").hidden = online;
    if (state?.hand) renderHeads();
    if (state) renderAround();
  },
});

// Around the match: reactions, the turn clock, resign / claim / stand-in (own modules).
initReactions(config.table_id, (reaction) => socket.send({ type: "react", reaction }), () => state);
initClock(say);
initEnding({ send, say, legal: (kind) => legalFor(kind)[0] });
function renderAround() {
  renderReactions(state);
  renderClock(state);
  renderEnding(state, kinds);
}

function say(text) {
  if (!text || text === lastSpoken) return;
  lastSpoken = text;
  $("live").textContent = text;
}

function legalFor(kind) {
  return legal.filter((a) => a.kind === kind);
}

function send(action) {
  if (!socket.act(withEntropy(action))) say(t("offline_me"));
}

// The deal after this hand: its number and, once the server committed to it, the
// commitment (PROTOCOL.md "Deals nobody can choose").
const nextDealNumber = (s) => (s?.hand?.number || 0) + 1;

function withEntropy(action) {
  const commitment = state?.next_deal?.commitment;
  if (!commitment || !seatedIn(state) || !["next_hand", "new_match"].includes(action.kind)) return action;
  return { ...action, entropy: entropyFor(config.table_id, nextDealNumber(state), commitment) };
}

// ---------- rendering ----------

function render(previous) {
  legal = state.legal || [];
  kinds = new Set(legal.map((a) => a.kind));
  const seated = seatedIn(state);
  const status = state.table.status;
  const players = state.table.players || [];
  const taken = players.filter((p) => p.name).length;
  $("invite").hidden = !(seated && status === "waiting");
  const canJoin = !seated && taken < 2;
  $("join").hidden = !canJoin || watching;
  $("watching-box").hidden = seated || (canJoin && !watching);
  $("join-instead").hidden = !canJoin;
  showSoundHint();
  if (canJoin) $("join-title").textContent = t("invite", { name: playerName(state, 0), rules: rulesText() });
  $("board").hidden = !state.hand;
  $("log-toggle").hidden = !state.hand;
  $("log-box").hidden = !state.hand;
  $("board").classList.toggle("spectating", !seated);
  renderOptions();
  renderSheet(state);
  if (state.hand) renderBoard(previous);
  renderBotNotes(seated, canJoin);
  renderEnd(previous);
}

// A person always knows, before the first move, that the other seat is a program:
// on the invitation, and on the table while the match lasts (said once aloud).
function renderBotNotes(seated, canJoin) {
  const host = player(state, 0);
  const invite = $("join-bot");
  invite.hidden = !(canJoin && host?.bot);
  invite.textContent = invite.hidden ? "" : t("bot_note", { name: host.name });
  const opp = seated ? player(state, 1 - state.you) : null;
  const note = $("bot-note");
  note.hidden = !opp?.bot;
  note.textContent = opp?.bot ? t("bot_note", { name: opp.name }) : "";
  if (opp?.bot && !botTold) {
    botTold = true;
    say([note.textContent, lastSpoken].filter(Boolean).join(" "));
  }
}

// The table's options in words: "Standard", "Hollywood", " to 100" (none for a hand).
function optionWords() {
  const table = state.table;
  return {
    rules: optionNames[table.rules] || table.rules,
    scoring: optionNames[table.scoring] || table.scoring,
    target: table.scoring === "hand" ? "" : ` ${optionNames.target.replace("{n}", table.target)}`,
  };
}

function rulesText() {
  const words = optionWords();
  return `${words.rules}, ${words.scoring}${words.target}`;
}

function renderOptions() {
  const words = optionWords();
  $("opt-rules").textContent = words.rules;
  $("opt-scoring").textContent = words.scoring;
  $("opt-target").textContent = words.target;
  const limit = state.hand?.knock_limit;
  $("opt-limit").textContent = limit === undefined || limit === null ? "" : ` · ${t("knock_limit", { n: limit })}`;
}

function seats() {
  const me = state.you;
  const seated = seatedIn(state);
  return { top: seated ? 1 - me : 1, bottom: seated ? me : 0, seated };
}

function renderHeads() {
  const { top, bottom } = seats();
  const oppConnected = renderSeatHead(state, top, "opp", online);
  renderSeatHead(state, bottom, "me", online);
  return oppConnected;
}

function renderBoard(previous) {
  const hand = state.hand;
  const { top, bottom, seated } = seats();
  const oppConnected = renderHeads();
  const counts = hand.card_counts || [];
  const oppCount = seated ? hand.opponent_card_count : counts[top] ?? 10;
  const known = hand.phase === "over" ? [] : knownCards(state, top);
  renderRow($("opp-cards"), oppCount, known);
  const holds = known.length ? ` ${t("holds", { name: playerName(state, top), cards: list(known.map(cardName)) })}` : "";
  $("opp-count").textContent = `${playerName(state, top)}: ${tn("cards_count", oppCount)}.${holds}`;
  renderPiles(state, kinds);
  renderLog(state);

  // The offer of the upcard.
  const offer = kinds.has("take_upcard") || kinds.has("pass");
  $("offer").hidden = !offer;
  $("take").textContent = t("take");
  $("pass").textContent = t("pass");

  if (seated && hand.my_cards) {
    const mine = hand.my_cards;
    if (previous?.hand?.number !== hand.number) arrived = [];
    else {
      const before = previous.hand.my_cards || [];
      // An `arrange` resends the same cards: keep the mark on the card drawn.
      if (mine.length !== before.length || mine.some((c) => !before.includes(c))) {
        arrived = mine.filter((c) => !before.includes(c));
      }
    }
    order = mine.slice();
    // Sort when the cards change (a deal, a draw, a discard) or the page opens; an
    // order that changed alone came from the player's other tab or device: kept,
    // so two tabs with different sort choices never undo each other in turn.
    const before = previous?.hand?.number === hand.number ? previous.hand.my_cards || [] : null;
    const sameCards = before && before.length === mine.length && mine.every((c) => before.includes(c));
    if (hand.phase !== "over" && !isManual() && !sameCards) {
      // The hand organises itself: melds first (or by rank, by suit), kept by the server.
      const sorted = sortCards(mine, sortMode(), hand.my_melds);
      if (sorted.join() !== mine.join()) {
        order = sorted;
        arrangedAt = performance.now();
        socket.send({ type: "arrange", cards: sorted });
      }
    }
    renderHand();
  } else {
    // A spectator never sees a hand: the bottom seat is shown as backs.
    const box = $("hand");
    box.setAttribute("aria-label", t("hand_of", { name: playerName(state, bottom) }));
    renderRow(box, counts[bottom] ?? 10, hand.phase === "over" ? [] : knownCards(state, bottom));
    box.classList.add("backs");
    $("deadwood").textContent = "";
  }
  $("hand-tools").hidden = !seated;
  $("keys-hint").hidden = !seated;
  renderKnockButtons();

  // The line under the table: what just happened and whose turn it is. A state
  // with the same version (an `arrange`) keeps the line as it was.
  const newDeal = !previous?.hand || previous.hand.number !== hand.number;
  const moved = previous && previous.version !== state.version;
  const turn = describeTurn(state, kinds);
  if (newDeal) statusLine = [describeDeal(state), turn].filter(Boolean).join(" ");
  else if (moved || !statusLine) {
    const happened = hand.events?.length ? describeEvent(state, hand.last_action) : "";
    statusLine = [happened, turn].filter(Boolean).join(". ");
  }
  $("status").textContent = statusLine;
  const actor = hand.last_action?.seat;
  if (newDeal || (moved && (actor !== state.you || hand.turn === state.you))) say(statusLine);
  // Announce a change of presence once, not on every state.
  if (seated && online && oppConnected !== lastOppConnected && !oppConnected) say(t("offline_waits", { name: playerName(state, top) }));
  lastOppConnected = oppConnected;

  if (hand.deck_commitment) {
    $("fingerprint").textContent = t("fingerprint", { hash: hand.deck_commitment.slice(0, 16) });
    $("fingerprint").title = hand.deck_commitment;
  }
}

// ---------- the hand: sorting, groups, marks ----------

function sortMode() {
  const mode = localStorage.getItem(SORT_KEY);
  return mode === "rank" || mode === "suit" ? mode : "melds";
}

function handKey() {
  return `${config.table_id}:${state?.hand?.number}:${state?.hand?.deck_commitment?.slice(0, 8)}`;
}

function isManual() {
  return localStorage.getItem(MANUAL_KEY) === handKey();
}

function meldGroups() {
  // Melds for display come from the server (`hand.my_melds`).
  const melds = state.hand.my_melds || [];
  const meldOf = new Map();
  melds.forEach((meld, i) => meld.forEach((card) => meldOf.set(card, i)));
  // A meld gets a frame only where its cards sit side by side: sorted by suit, a
  // set is spread over its suits, and one-card frames would say nothing. Its cards
  // keep their meld's colour bar.
  const framed = new Set(
    melds
      .map((meld, i) => {
        const places = meld.map((card) => order.indexOf(card)).sort((a, b) => a - b);
        return places[0] >= 0 && places.at(-1) - places[0] === meld.length - 1 ? i : null;
      })
      .filter((i) => i !== null),
  );
  const groups = [];
  for (const card of order) {
    const m = meldOf.has(card) && framed.has(meldOf.get(card)) ? meldOf.get(card) : null;
    const last = groups[groups.length - 1];
    if (last && last.meld === m) last.cards.push(card);
    else groups.push({ meld: m, cards: [card] });
  }
  return { groups, meldOf };
}

function renderHand() {
  const box = $("hand");
  box.classList.remove("backs");
  box.setAttribute("aria-label", t("your_hand"));
  const discardable = new Set(legalFor("discard").map((a) => a.card));
  const drawn = new Set(state.hand.phase === "discard" && state.hand.turn === state.you ? arrived : []);
  const children = [];
  focusIndex = Math.max(0, Math.min(focusIndex, order.length - 1));
  let index = 0;
  const { groups, meldOf } = meldGroups();
  for (const g of groups) {
    // Each meld, and each run of loose cards, is a group with a gap around it.
    const wrap = document.createElement("div");
    wrap.className = g.meld === null ? "group loose" : `group meld m${g.meld % 4}`;
    if (g.meld !== null) {
      wrap.setAttribute("role", "group");
      wrap.setAttribute("aria-label", t("meld_n", { n: g.meld + 1 }));
    }
    for (const card of g.cards) {
      const el = cardElement(card, { tag: "button" });
      el.dataset.index = String(index);
      el.tabIndex = index === focusIndex ? 0 : -1;
      if (discardable.has(card)) el.classList.add("can");
      if (meldOf.has(card)) el.classList.add("in-meld", `m${meldOf.get(card) % 4}`);
      if (drawn.has(card)) {
        el.classList.add("drawn");
        el.querySelector(".sr-only").textContent = `${cardName(card)} (${t("just_drawn")})`;
      }
      el.setAttribute("aria-disabled", discardable.has(card) ? "false" : "true");
      wrap.append(el);
      index += 1;
    }
    children.push(wrap);
  }
  const hadFocus = box.contains(document.activeElement);
  box.replaceChildren(...children);
  // The focus stays on its card, and the page where it is: a state never scrolls.
  if (hadFocus) box.querySelector(`[data-index="${focusIndex}"]`)?.focus({ preventScroll: true });
  const deadwood = state.hand.my_deadwood;
  $("deadwood").textContent = deadwood === undefined || deadwood === null ? "" : t("deadwood", { n: deadwood });
  const manual = isManual();
  for (const b of document.querySelectorAll("[data-sort]")) b.setAttribute("aria-pressed", String(!manual && b.dataset.sort === sortMode()));
}

function renderKnockButtons() {
  const knocks = legalFor("knock");
  const plain = knocks.filter((k) => k.deadwood > 0);
  const gins = knocks.filter((k) => k.deadwood === 0);
  $("knock").hidden = plain.length === 0;
  if (plain.length) $("knock").textContent = t("knock", { deadwood: Math.min(...plain.map((k) => k.deadwood)) });
  $("gin").hidden = gins.length === 0;
  $("gin").textContent = t("gin");
}

// ---------- the end of a hand, a game, the match ----------

async function renderEnd(previous) {
  const hand = state.hand;
  const box = $("result");
  renderReviewLinks(state.table.status === "match_over" && hand ? hand.number : 0);
  const over = Boolean(hand && hand.phase === "over" && hand.result);
  box.hidden = !over && state.table.status !== "match_over";
  if (!over) return;
  const summary = renderResult(state);
  const me = state.you;
  const seated = seatedIn(state);
  const ready = state.ready || [false, false];
  const status = state.table.status;
  $("next-hand").hidden = !kinds.has("next_hand");
  $("rematch").hidden = !kinds.has("new_match");
  let readyText = "";
  if (seated) {
    const opp = playerName(state, 1 - me);
    if (status === "hand_over") {
      if (ready[me] && !ready[1 - me]) readyText = t("wait_for", { name: opp });
      else if (ready[1 - me] && !ready[me]) readyText = t("waits_for_you", { name: opp });
    } else if (status === "match_over") {
      if (ready[me] && !ready[1 - me]) readyText = t("wait_rematch", { name: opp });
      else if (ready[1 - me] && !ready[me]) readyText = t("wants_rematch", { name: opp });
    }
  }
  if (status === "match_over") readyText = [matchLine(), readyText].filter(Boolean).join(". ");
  $("ready-status").textContent = readyText;
  const review = $("review-link");
  review.hidden = false;
  review.href = `/t/${config.table_id}/hands/${hand.number}`;
  const link = $("download");
  link.hidden = false;
  link.href = `${config.api}/hands/${hand.number}`;
  link.setAttribute("download", `hollywood-gin-${config.table_id}-hand-${hand.number}.json`);
  link.textContent = t("download", { n: hand.number });
  const fresh = !previous?.hand || previous.hand.phase !== "over" || previous.hand.number !== hand.number;
  if (fresh) {
    say(summary);
    foldResult(false);
    // On a phone the result lies over the table, with "Next hand" at the bottom of
    // the screen, and nothing scrolls; on a wide screen it is brought into view once.
    if (previous && !phone.matches) box.scrollIntoView({ block: "nearest" });
    showMoment();
  }
  if (verifiedHand !== hand.number) {
    verifiedHand = hand.number;
    const reveal = hand.result.deck_reveal;
    const verify = $("verify");
    const record = seatedIn(state) ? dealRecord(config.table_id, hand.number) : null;
    const problems = await checkDeal(record, state.you, hand.deck_commitment, reveal);
    if (problems === null) {
      // This browser added nothing to the deal: the fingerprint is what it can check.
      const ok = await deckMatches(hand.deck_commitment, reveal);
      verify.classList.toggle("ok", ok === true);
      verify.classList.toggle("bad", ok === false);
      verify.textContent = ok === null ? "" : t(ok ? "verified" : "not_verified");
    } else {
      verify.classList.toggle("ok", problems.length === 0);
      verify.classList.toggle("bad", problems.length > 0);
      verify.textContent = problems.length
        ? t("deal_warning", { what: problems.map((p) => t(`deal_problem.${p}`)).join("; ") })
        : t("deal_checked");
    }
    if (reveal) verify.title = reveal.server_secret ? `salt ${reveal.salt}, server secret ${reveal.server_secret}` : `salt ${reveal.salt}`;
  }
}

// The sheet of a finished match links the replay of each hand played at this table.
function renderReviewLinks(hands) {
  const box = $("sheet-reviews");
  box.hidden = !hands;
  if (!hands) return box.replaceChildren();
  const links = Array.from({ length: hands }, (_, i) => {
    const a = document.createElement("a");
    a.href = `/t/${config.table_id}/hands/${i + 1}`;
    a.textContent = t("review_link", { n: i + 1 });
    return a;
  });
  box.replaceChildren(t("review_hands"), " ", ...links.flatMap((a, i) => (i ? [" · ", a] : [a])));
}

// "You win the match, 2 games to 1" (the games only where there are three).
function matchLine() {
  return [matchWinnerText(state), gamesToText(state)].filter(Boolean).join(", ");
}

// On a phone the result can be folded down to its title and buttons, to look at
// the table under it.
const phone = matchMedia("(max-width: 40rem), (orientation: landscape) and (max-height: 32rem)");

function foldResult(folded) {
  $("result").classList.toggle("folded", folded);
  $("result-fold").setAttribute("aria-expanded", String(!folded));
  $("result-fold").textContent = folded ? t("show_result") : t("show_table");
}

$("result-fold").addEventListener("click", () => foldResult(!$("result").classList.contains("folded")));

// A finished game of the sheet, or the end of the match, gets a screen of its own.
function showMoment() {
  const result = state.hand.result;
  const sheet = state.sheet;
  const matchOver = state.table.status === "match_over";
  const finished = state.table.scoring === "hand" ? [] : (result.games || []).filter((g) => sheet.games[g]?.finished);
  if (!matchOver && !finished.length) return;
  const key = `gin.moment.${handKey()}`;
  if (sessionStorage.getItem(key)) return;
  sessionStorage.setItem(key, "1");
  const dialog = $("moment");
  const names = [playerName(state, 0), playerName(state, 1)];
  if (matchOver) $("moment-title").textContent = matchWinnerText(state);
  else {
    const winners = finished.map((g) => t("game_won", { game: t("game_n", { n: g + 1 }), name: names[sheet.games[g].winner] }));
    $("moment-title").textContent = list(winners);
  }
  // The games score where there are games to count: "2 games to 1" at the match's
  // end, "Games: Ann 1 – 0 Bob" when one of Hollywood's three has finished.
  const won = [0, 1].map((s) => sheet.games.filter((g) => g.finished && g.winner === s).length);
  let score = "";
  if (state.table.scoring === "hollywood") {
    score = matchOver ? gamesToText(state) : t("games_score", { a: won[0], b: won[1], name0: names[0], name1: names[1] });
  }
  $("moment-score").textContent = score;
  $("moment-score").hidden = !score;
  const bonuses = bonusTable(state, matchOver ? sheet.games.map((_, i) => i) : finished);
  $("moment-lines").replaceChildren(...(bonuses ? [bonuses] : []));
  $("moment-totals").textContent = `${t("total")}: ${names[0]} ${sheet.totals[0]} · ${names[1]} ${sheet.totals[1]}`;
  $("moment-summary").replaceChildren();
  if (matchOver) showSummary($("moment-summary"), state);
  $("moment-rematch").hidden = !kinds.has("new_match");
  const mine = matchOver ? sheet.match_winner : sheet.games[finished[0]].winner;
  dialog.classList.toggle("mine", seatedIn(state) && mine === state.you);
  if (!dialog.open) dialog.showModal();
  play("won");
}

$("moment-rematch").addEventListener("click", () => {
  const a = legalFor("new_match")[0];
  if (a) send(a);
  $("moment").close();
});

// ---------- motion, sound, the turn cue, focus ----------

function animate(previous, rects) {
  const hand = state.hand;
  const last = hand.last_action;
  const newDeal = previous.hand?.number !== hand.number;
  const mineSeat = state.you;
  const pileRect = rects.get("zone:pile");
  const stockRect = rects.get("zone:stock");
  // The hand: cards that stayed slide to their new places; new ones come from a pile.
  $("hand")
    .querySelectorAll("[data-card]")
    .forEach((el, i) => {
      const card = el.dataset.card;
      const before = rects.get(`hand:${card}`);
      if (newDeal) fly(el, stockRect, { delay: i * 35 });
      else if (before) fly(el, before);
      else if (last?.seat === mineSeat && last.kind === "draw_stock") fly(el, stockRect);
      else if (last?.seat === mineSeat) fly(el, pileRect);
    });
  if (newDeal) {
    $("opp-cards")
      .querySelectorAll(".card-back, .card")
      .forEach((el, i) => fly(el, stockRect, { delay: i * 35 }));
    return;
  }
  if (previous.version === state.version || !last) return;
  const opp = last.seat !== mineSeat;
  const pileTop = $("discard").querySelector(".card");
  if (last.kind === "discard" && pileTop) {
    // From the hand that threw it: mine by its card, the opponent's from its place
    // in their row (a known card) or from one card-sized slot of it, never the row.
    fly(pileTop, rects.get(`hand:${last.card}`) || rects.get(`opp:${last.card}`) || rowSlot(rects, last.seat, 0));
  }
  if (opp && (last.kind === "draw_stock" || last.kind === "draw_discard" || last.kind === "take_upcard")) {
    const row = $("opp-cards");
    const target = last.card ? row.querySelector(`[data-card="${last.card}"]`) : row.lastElementChild;
    if (target) fly(target, last.kind === "draw_stock" ? stockRect : pileRect);
  }
  if (last.kind === "knock") {
    // The lay-down: each card of the result comes from the hand it was in (the
    // opponent's hidden ones each from a slot of their row).
    const hidden = [0, 0];
    for (const el of $("result-hands").querySelectorAll("[data-card]")) {
      const seat = Number(el.closest("[data-zone]")?.dataset.zone.slice(-1));
      const from = rects.get(`hand:${el.dataset.card}`) || rects.get(`opp:${el.dataset.card}`) || rowSlot(rects, seat, hidden[seat]++);
      fly(el, from);
    }
  }
}

// One card-sized place in a hidden hand's row (its backs counted from the right,
// `i` wrapping), before the change: where a card that seat showed now comes from.
// The top row is the opponent's; a spectator sees seat 0 at the bottom, as backs.
function rowSlot(rects, seat, i) {
  const zone = seatedIn(state) || seat === 1 ? "opp" : "hand";
  const backs = [];
  for (let k = 0; rects.has(`${zone}:back${k}`); k += 1) backs.push(rects.get(`${zone}:back${k}`));
  if (backs.length) return backs[backs.length - 1 - (i % backs.length)];
  const row = rects.get(`zone:${zone}`);
  if (!row) return null;
  // No back to start from: a card's size at the row's centre.
  const width = Math.min(row.width, 40);
  const height = Math.min(row.height, 56);
  const left = row.left + (row.width - width) / 2;
  const top = row.top + (row.height - height) / 2;
  return { left, top, width, height };
}

const favicon = document.querySelector('link[rel="icon"]');
const plainIcon = favicon?.href;
const plainTitle = document.title;

function clearTurnCue() {
  document.title = plainTitle;
  if (favicon) favicon.href = plainIcon;
}

function myTurn(s) {
  return seatedIn(s) && s.hand && s.hand.phase !== "over" && s.hand.turn === s.you;
}

function cues(previous, focusWasInGame) {
  const hand = state.hand;
  if (!hand) return;
  const moved = previous && previous.version !== state.version;
  const newDeal = !previous?.hand || previous.hand.number !== hand.number;
  const last = hand.last_action;
  if (moved && last && !newDeal) {
    if (last.kind === "knock") play(hand.result?.kind === "gin" ? "gin" : "knock");
    else if (last.kind === "discard") play("discard");
    else if (last.kind !== "pass" && last.kind !== "next_hand") play("draw");
  }
  const turnStarts = myTurn(state) && (!myTurn(previous) || newDeal);
  if (turnStarts && previous) {
    play("turn");
    if (document.hidden || !document.hasFocus()) {
      document.title = `● ${t("turn_title")} · ${plainTitle}`;
      if (favicon) favicon.href = "/static/favicon-turn.svg";
      if ($("notify").checked && globalThis.Notification?.permission === "granted" && document.hidden) {
        new Notification(t("turn_title"), { body: $("status").textContent, tag: `gin-${config.table_id}`, icon: "/static/favicon.svg" });
      }
    }
  }
  if (!myTurn(state)) clearTurnCue();
  // Focus stays in the game: on the stock when a turn starts, on the card drawn,
  // on the hand after a discard, on "Next hand" when the hand ends. A move of the
  // focus never scrolls the page: the page scrolls only below, on purpose.
  const active = document.activeElement;
  // A focused control that was just hidden (Next hand, once the deal came) keeps the
  // focus until the browser's next rendering: it counts as lost already.
  const lost = !active || active === document.body || !active.isConnected || !active.checkVisibility();
  const handEnds = hand.phase === "over" && (previous?.hand?.phase !== "over" || previous.hand.number !== hand.number);
  if (focusWasInGame && seatedIn(state) && (lost || $("board").contains(active)) && !document.querySelector("dialog[open]")) {
    if (handEnds && !$("next-hand").hidden) focusQuietly($("next-hand"));
    else if (handEnds && !$("rematch").hidden) focusQuietly($("rematch"));
    else if (turnStarts && kinds.has("draw_stock")) focusQuietly($("stock"));
    else if (turnStarts && kinds.has("take_upcard")) focusQuietly($("take"));
    else if (moved && last?.seat === state.you && kinds.has("discard")) {
      const i = order.indexOf(arrived[0]);
      if (i >= 0) focusIndex = i;
      focusHand();
    } else if (lost) focusHand();
  }
  // On a phone, the table comes back into view when the player's eye is needed:
  // the opponent's name at the top of the screen, the piles under it.
  if ((newDeal || turnStarts) && previous) {
    const top = $("opponent").getBoundingClientRect();
    const middle = document.querySelector(".middle").getBoundingClientRect();
    if (top.top < 0 || middle.bottom > innerHeight) $("board").scrollIntoView({ block: "start", behavior: motionAllowed() ? "smooth" : "auto" });
  }
}

function focusQuietly(el) {
  el.focus({ preventScroll: true });
}

// `quiet`: a move of the game's, which never scrolls; a key of the player's brings
// the card into view.
function focusHand(quiet = true) {
  const el = $("hand").querySelector(`[data-index="${focusIndex}"]`) || $("hand").querySelector("button.card");
  if (!el) return;
  for (const b of $("hand").querySelectorAll("button.card")) b.tabIndex = b === el ? 0 : -1;
  el.focus({ preventScroll: quiet });
}

addEventListener("focus", clearTurnCue);
document.addEventListener("visibilitychange", () => {
  if (!document.hidden) clearTurnCue();
});

// ---------- actions ----------

// Why a click did nothing: said in the status line and the live region.
function explain(card) {
  if (!state?.hand || state.hand.phase === "over" || !seatedIn(state)) return;
  let text;
  if (state.hand.turn !== state.you) text = t("wait_turn", { name: playerName(state, state.hand.turn) });
  else if (kinds.has("take_upcard") || kinds.has("pass")) text = t("turn.upcard");
  else if (kinds.has("draw_stock")) text = kinds.has("draw_discard") || !card ? t("need_draw") : t("need_stock");
  else if (card && state.hand.events?.at(-1)?.card === card) text = t("banned_discard");
  else text = t("turn.discard");
  $("status").textContent = text;
  lastSpoken = "";
  say(text);
  const box = $("status");
  if (motionAllowed()) box.animate([{ transform: "translateX(-4px)" }, { transform: "translateX(4px)" }, { transform: "none" }], { duration: 180 });
}

function act(kind, fallback) {
  const a = legalFor(kind)[0] || (fallback && legalFor(fallback)[0]);
  if (a) send(a);
  return Boolean(a);
}

$("stock").addEventListener("click", () => act("draw_stock") || explain());
$("discard").addEventListener("click", () => act("take_upcard", "draw_discard") || explain());
$("take").addEventListener("click", () => act("take_upcard"));
$("pass").addEventListener("click", () => act("pass"));
$("next-hand").addEventListener("click", () => act("next_hand"));
$("rematch").addEventListener("click", () => act("new_match"));

// Knock and gin ask once, in a modal dialog; with several possible discards the
// player picks one, each shown with the deadwood it leaves.
const confirmDialog = $("confirm");
let pendingOptions = [];

function askKnock(gin) {
  pendingOptions = legalFor("knock")
    .filter((k) => (gin ? k.deadwood === 0 : k.deadwood > 0))
    .sort((a, b) => a.deadwood - b.deadwood);
  if (!pendingOptions.length) return;
  $("confirm-title").textContent = gin ? t("confirm.gin_title") : t("confirm.knock_title");
  const choices = $("confirm-choices");
  const legend = choices.querySelector("legend");
  const rows = pendingOptions.map((option, i) => {
    const label = document.createElement("label");
    label.className = "knock-choice";
    const input = document.createElement("input");
    input.type = "radio";
    input.name = "knock-card";
    input.value = String(i);
    input.checked = i === 0;
    const face = cardElement(option.discard, { mini: true });
    face.setAttribute("aria-hidden", "true");
    const text = document.createElement("span");
    text.textContent = gin ? cardName(option.discard) : t("choice_deadwood", { card: cardName(option.discard), n: option.deadwood });
    label.append(input, face, text);
    input.addEventListener("change", describeKnock);
    return label;
  });
  choices.replaceChildren(legend, ...rows);
  choices.hidden = pendingOptions.length < 2;
  describeKnock();
  $("confirm-yes").textContent = t("confirm.yes");
  $("confirm-no").textContent = t("confirm.no");
  confirmDialog.returnValue = "";
  confirmDialog.showModal();
  $("confirm-yes").focus({ preventScroll: true });
}

function chosenKnock() {
  const i = Number(confirmDialog.querySelector('input[name="knock-card"]:checked')?.value ?? 0);
  return pendingOptions[i];
}

function describeKnock() {
  const pending = chosenKnock();
  const gin = pending.deadwood === 0;
  $("confirm-text").textContent = gin
    ? t("confirm.gin", { card: cardName(pending.discard) })
    : t("confirm.knock", { card: cardName(pending.discard), deadwood: pending.deadwood });
}

confirmDialog.addEventListener("close", () => {
  if (confirmDialog.returnValue === "yes") {
    const pending = chosenKnock();
    if (pending) send(pending);
  }
  pendingOptions = [];
});

// A modal dialog keeps the focus: Tab from its last control wraps to its first
// (the browser would otherwise move on to its own toolbar).
for (const dialog of document.querySelectorAll("dialog")) {
  dialog.addEventListener("keydown", (event) => {
    if (event.key !== "Tab") return;
    const controls = [...dialog.querySelectorAll("button, input, select, a[href]")].filter((el) => !el.disabled && el.offsetParent !== null);
    if (!controls.length) return;
    const first = controls[0];
    const last = controls[controls.length - 1];
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first.focus();
    }
  });
}

$("knock").addEventListener("click", () => askKnock(false));
$("gin").addEventListener("click", () => askKnock(true));

function discard(card) {
  const a = legal.find((x) => x.kind === "discard" && x.card === card);
  if (a) send(a);
  else explain(card);
}

// ---------- arranging: drag, keys, sort ----------

function arrange(cards, manual) {
  order = cards;
  if (manual) localStorage.setItem(MANUAL_KEY, handKey());
  renderHand();
  arrangedAt = performance.now();
  socket.send({ type: "arrange", cards });
}

function sortBy(mode) {
  if (!order.length || !seatedIn(state) || !state.hand?.my_cards) return;
  localStorage.setItem(SORT_KEY, mode);
  localStorage.removeItem(MANUAL_KEY);
  const before = new Map([...$("hand").querySelectorAll("[data-card]")].map((el) => [el.dataset.card, el.getBoundingClientRect()]));
  arrange(sortCards(state.hand.my_cards, mode, state.hand.my_melds), false);
  for (const el of $("hand").querySelectorAll("[data-card]")) fly(el, before.get(el.dataset.card));
}

for (const b of document.querySelectorAll("[data-sort]")) b.addEventListener("click", () => sortBy(b.dataset.sort));

const hand = $("hand");
let drag = null;
let suppressClick = false;

hand.addEventListener("click", (event) => {
  const el = event.target.closest("button.card");
  if (!el) return;
  if (suppressClick) {
    suppressClick = false;
    return;
  }
  focusIndex = Number(el.dataset.index);
  discard(el.dataset.card);
});

hand.addEventListener("keydown", (event) => {
  const el = event.target.closest("button.card");
  if (!el) return;
  const i = Number(el.dataset.index);
  const step = { ArrowLeft: -1, ArrowUp: -1, ArrowRight: 1, ArrowDown: 1 }[event.key];
  if (step === undefined && event.key !== "Home" && event.key !== "End") return;
  event.preventDefault();
  event.stopPropagation();
  let j = event.key === "Home" ? 0 : event.key === "End" ? order.length - 1 : i + step;
  j = Math.max(0, Math.min(order.length - 1, j));
  if (event.altKey || event.shiftKey || event.ctrlKey) {
    if (j === i) return;
    const cards = order.slice();
    const [card] = cards.splice(i, 1);
    cards.splice(j, 0, card);
    focusIndex = j;
    arrange(cards, true);
    hand.querySelector(`[data-index="${j}"]`)?.focus({ preventScroll: true });
    say(t("moved", { card: cardName(card), n: j + 1 }));
  } else {
    focusIndex = j;
    focusHand(false);
  }
});

hand.addEventListener("pointerdown", (event) => {
  const el = event.target.closest("button.card");
  if (!el || event.button > 0) return;
  drag = { el, x: event.clientX, y: event.clientY, moving: false, id: event.pointerId };
});

hand.addEventListener("pointermove", (event) => {
  if (!drag || event.pointerId !== drag.id) return;
  const dx = event.clientX - drag.x;
  const dy = event.clientY - drag.y;
  if (!drag.moving && Math.hypot(dx, dy) < 8) return;
  if (!drag.moving) {
    drag.moving = true;
    drag.el.setPointerCapture(event.pointerId);
    drag.el.classList.add("dragging");
  }
  drag.el.style.transform = `translate(${dx}px, ${dy}px)`;
  drag.target = dropIndex(event.clientX, event.clientY);
  for (const b of hand.querySelectorAll("button.card")) b.classList.toggle("drop-before", Number(b.dataset.index) === drag.target);
});

function dropIndex(x, y) {
  // The card whose centre is nearest the pointer; dropping goes before it.
  let best = order.length;
  let bestDistance = Infinity;
  for (const b of hand.querySelectorAll("button.card")) {
    if (b === drag.el) continue;
    const r = b.getBoundingClientRect();
    const d = Math.hypot(x - (r.left + r.width / 2), y - (r.top + r.height / 2));
    if (d < bestDistance) {
      bestDistance = d;
      best = x < r.left + r.width / 2 ? Number(b.dataset.index) : Number(b.dataset.index) + 1;
    }
  }
  return best;
}

function endDrag(event, cancelled) {
  if (!drag || event.pointerId !== drag.id) return;
  const { el, moving, target } = drag;
  drag = null;
  if (!moving) return;
  suppressClick = true;
  setTimeout(() => (suppressClick = false), 0);
  el.style.transform = "";
  el.classList.remove("dragging");
  if (cancelled || target === undefined) return renderHand();
  const from = Number(el.dataset.index);
  const cards = order.slice();
  const [card] = cards.splice(from, 1);
  cards.splice(target > from ? target - 1 : target, 0, card);
  arrange(cards, true);
}

hand.addEventListener("pointerup", (event) => endDrag(event, false));
hand.addEventListener("pointercancel", (event) => endDrag(event, true));

// ---------- single-key shortcuts ----------

const SHORTCUTS = {
  s: () => act("draw_stock") || explain(),
  d: () => act("draw_discard", "take_upcard") || explain(),
  t: () => act("take_upcard"),
  p: () => act("pass"),
  k: () => !$("knock").hidden && askKnock(false),
  g: () => !$("gin").hidden && askKnock(true),
  n: () => act("next_hand", "new_match"),
  m: () => sortBy("melds"),
  r: () => sortBy("rank"),
  u: () => sortBy("suit"),
  h: () => focusHand(false),
  "?": () => $("help").showModal(),
};

document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) return;
  const target = event.target;
  if (target.closest?.("input, select, textarea, dialog, [contenteditable]")) return;
  const run = SHORTCUTS[event.key.toLowerCase()] || SHORTCUTS[event.key];
  if (!run || !state?.hand) return;
  event.preventDefault();
  if (!online && event.key !== "?") {
    say(t("offline_me"));
    return;
  }
  run();
});
$("help-open").addEventListener("click", () => $("help").showModal());

// ---------- the share box, joining, watching, the computer ----------

$("copy-link").addEventListener("click", async () => {
  const input = $("share-url");
  let ok = false;
  try {
    await navigator.clipboard.writeText(input.value);
    ok = true;
  } catch {
    input.select();
    try {
      ok = document.execCommand("copy");
    } catch {
      ok = false;
    }
  }
  $("copy-status").textContent = ok ? t("copied") : t("copy_failed");
  if (!ok) input.select();
});

if (navigator.share) {
  $("share-link").hidden = false;
  $("share-link").addEventListener("click", () => {
    navigator.share({ url: $("share-url").value, title: document.title }).catch(() => {});
  });
}

$("join-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const name = $("join-name").value.trim() || $("join-name").placeholder;
  const response = await fetch(`${config.api}/seats`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    // This browser's part of the first deal, after the commitment shown while waiting.
    body: JSON.stringify({ name, entropy: entropyFor(config.table_id, 1, state?.next_deal?.commitment) }),
    credentials: "same-origin",
  }).catch(() => null);
  if (response && response.status === 201) {
    const answer = await response.json();
    showSeatLink(answer.token);
    $("join").hidden = true;
    socket.restart();
  } else {
    say(t(response && response.status === 409 ? "error.table_full" : "error.other"));
    $("join").hidden = response?.status === 409;
  }
});

$("watch").addEventListener("click", () => {
  watching = true;
  sessionStorage.setItem(`gin.watch.${config.table_id}`, "1");
  if (state) render(state);
  $("join-instead").focus({ preventScroll: true });
});

$("join-instead").addEventListener("click", () => {
  watching = false;
  sessionStorage.removeItem(`gin.watch.${config.table_id}`);
  if (state) render(state);
  $("join-name").focus();
});

$("add-computer").addEventListener("click", async () => {
  const response = await fetch(`${config.api}/computer`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ strength: $("strength").value }),
    credentials: "same-origin",
  }).catch(() => null);
  if (!response || response.status >= 300) say(t("error.other"));
});

function showSeatLink(token) {
  const url = `${location.origin}/t/${config.table_id}/seat/${token}`;
  $("seat-link").href = url;
  $("seat-link").textContent = url;
  $("seat-link-box").hidden = false;
}

// ---------- display settings ----------

function setting(id, className) {
  const box = $(id);
  box.checked = localStorage.getItem(className) === "1";
  document.body.classList.toggle(className, box.checked);
  box.addEventListener("change", () => {
    localStorage.setItem(className, box.checked ? "1" : "0");
    document.body.classList.toggle(className, box.checked);
  });
}
setting("large-cards", "large-cards");
setting("four-colour", "four-colour");

// How fast cards move (normal / fast / off); the system's reduced motion wins.
const speed = $("motion-speed");
function showSpeed() {
  const reduced = reducedBySystem();
  speed.value = reduced ? "off" : motionSpeed();
  speed.disabled = reduced;
  $("motion-note").hidden = !reduced;
  applyMotionClass();
}
speed.addEventListener("change", () => setMotionSpeed(speed.value));
matchMedia("(prefers-reduced-motion: reduce)").addEventListener("change", showSpeed);
showSpeed();

const mute = $("mute");
mute.setAttribute("aria-pressed", String(muted()));
mute.addEventListener("click", () => {
  setMuted(!muted());
  mute.setAttribute("aria-pressed", String(muted()));
  showSoundHint();
});

// Browsers play nothing before a click or a key on the page: a spectator may never
// click, so until then the page tells them, with a button that is that click. It
// goes once the click is over (never under the finger while it presses).
function showSoundHint() {
  $("sound-on").hidden = muted() || audioRunning() || seatedIn(state) || !state?.hand;
}
$("sound-on").addEventListener("click", () => {
  unlockAudio();
  showSoundHint();
});
for (const type of ["click", "keyup"]) addEventListener(type, () => setTimeout(showSoundHint, 0));
onAudioChange(() => {
  if (!audioRunning()) showSoundHint();
});

// Focus rings for the keyboard only: a script's move of the focus after a click or
// a tap (the Take button at an upcard offer, Next hand) shows none. Until the first
// key the page counts as used by pointer; that key brings the rings back.
document.documentElement.dataset.input = "pointer";
for (const type of ["pointerdown", "keydown"]) {
  addEventListener(
    type,
    (event) => {
      const keyboard = type === "keydown" && !["Shift", "Control", "Alt", "Meta"].includes(event.key);
      if (type === "pointerdown" || keyboard) document.documentElement.dataset.input = keyboard ? "keys" : "pointer";
    },
    { capture: true, passive: true },
  );
}

// Desktop notifications only when the player asks for them (never on page load).
const notify = $("notify");
notify.checked = localStorage.getItem("gin.notify") === "1" && globalThis.Notification?.permission === "granted";
notify.disabled = !globalThis.Notification;
notify.addEventListener("change", async () => {
  if (notify.checked && Notification.permission !== "granted") notify.checked = (await Notification.requestPermission()) === "granted";
  localStorage.setItem("gin.notify", notify.checked ? "1" : "0");
});

function panelToggle(buttonId, panelId) {
  const panel = $(panelId);
  const toggle = $(buttonId);
  panel.classList.add("collapsed");
  toggle.addEventListener("click", () => {
    const open = panel.classList.toggle("collapsed") === false;
    toggle.setAttribute("aria-expanded", String(open));
  });
}
panelToggle("sheet-toggle", "sheet");
panelToggle("log-toggle", "log-box");

socket.connect();

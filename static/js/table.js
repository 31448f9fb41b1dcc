// The table page: connects, renders each state, and turns clicks, keys and drags
// into the protocol's messages. It knows no rules: only what `legal` offers.
import { cardElement, sortByRank, sortBySuit } from "./cards.js";
import { deckMatches } from "./fairness.js";
import { cardName, t } from "./i18n.js";
import {
  $,
  describeAction,
  describeTurn,
  playerName,
  renderBacks,
  renderPiles,
  renderResult,
  renderSeatHead,
} from "./render.js";
import { renderSheet } from "./sheet.js";
import { TableSocket } from "./socket.js";

const config = JSON.parse($("table-config").textContent);
const optionNames = JSON.parse($("option-names").textContent);
let state = null;
let legal = [];
let kinds = new Set();
let order = []; // this seat's cards in the order shown (kept by the server)
let focusIndex = 0;
let lastSpoken = "";
let verifiedHand = null;
let lastOppConnected = null;
let arrived = []; // the card this seat just drew, marked in the hand

const socket = new TableSocket(config.ws, {
  onState: (message) => {
    const previous = state;
    state = message;
    render(previous);
  },
  onError: (message) => {
    if (message.code === "stale_version") return;
    const text = t(`error.${message.code}`);
    say(text.startsWith("error.") ? t("error.other") : text);
  },
  onStatus: (status) => {
    const banner = $("connection");
    banner.hidden = status === "open";
    if (status !== "open") banner.textContent = t("reconnecting");
  },
});

function say(text) {
  if (!text || text === lastSpoken) return;
  lastSpoken = text;
  $("live").textContent = text;
}

function legalFor(kind) {
  return legal.filter((a) => a.kind === kind);
}

function send(action) {
  if (!socket.act(action)) say(t("reconnecting"));
}

// ---------- rendering ----------

function render(previous) {
  legal = state.legal || [];
  kinds = new Set(legal.map((a) => a.kind));
  const me = state.you;
  const seated = me !== null && me !== undefined;
  const status = state.table.status;
  const players = state.table.players || [];
  const taken = players.filter((p) => p.name).length;
  $("invite").hidden = !(seated && status === "waiting");
  $("join").hidden = seated || taken >= 2;
  $("board").hidden = !state.hand;
  renderOptions();
  renderSheet(state);
  if (state.hand) renderBoard(previous);
  renderEnd(previous);
  document.title = document.title.replace(/^\(\!\) /, "");
  if (seated && state.hand && state.hand.turn === me && state.hand.phase !== "over" && !document.hasFocus()) {
    document.title = `(!) ${document.title}`;
  }
}

function renderOptions() {
  const table = state.table;
  $("opt-rules").textContent = optionNames[table.rules] || table.rules;
  $("opt-scoring").textContent = optionNames[table.scoring] || table.scoring;
  $("opt-target").textContent = table.scoring === "hand" ? "" : ` ${optionNames.target.replace("{n}", table.target)}`;
  const limit = state.hand?.knock_limit;
  $("opt-limit").textContent = limit === undefined || limit === null ? "" : ` · ${t("knock_limit", { n: limit })}`;
}

function renderBoard(previous) {
  const hand = state.hand;
  const me = state.you;
  const seated = me !== null && me !== undefined;
  const top = seated ? 1 - me : 1;
  const bottom = seated ? me : 0;
  const oppConnected = renderSeatHead(state, top, "opp");
  renderSeatHead(state, bottom, "me");
  const counts = hand.card_counts || [];
  const oppCount = seated ? hand.opponent_card_count : counts[top] ?? hand.opponent_card_count ?? 10;
  renderBacks($("opp-cards"), oppCount);
  $("opp-count").textContent = `${playerName(state, top)}: ${t("cards_count", { n: oppCount })}`;
  renderPiles(state, kinds);

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
    renderHand();
  } else {
    // A spectator never sees a hand: the bottom seat is shown as backs.
    const box = $("hand");
    box.setAttribute("aria-label", t("hand_of", { name: playerName(state, bottom) }));
    renderBacks(box, counts[bottom] ?? 10);
    box.classList.add("backs");
  }
  renderKnockButtons();
  if (hand.phase !== "over") $("confirm").hidden = $("confirm").hidden || !kinds.has("knock");

  // The line under the table and the live region.
  const happened = previous?.hand && previous.version !== state.version ? describeAction(state) : "";
  const turn = describeTurn(state, kinds);
  const newDeal = !previous?.hand || previous.hand.number !== hand.number;
  let line = [happened, turn].filter(Boolean).join(". ");
  if (newDeal) line = [t("deal", { n: hand.number, name: playerName(state, hand.dealer) }), turn].filter(Boolean).join(" ");
  $("status").textContent = line;
  const actor = hand.last_action?.seat;
  if (newDeal || (happened && actor !== me) || (turn && seated && hand.turn === me && happened)) say(line);
  // Announce a change of presence once, not on every state.
  if (seated && oppConnected !== lastOppConnected && !oppConnected) say(t("offline_waits", { name: playerName(state, top) }));
  lastOppConnected = oppConnected;

  if (hand.deck_commitment) {
    $("fingerprint").textContent = t("fingerprint", { hash: hand.deck_commitment.slice(0, 16) });
    $("fingerprint").title = hand.deck_commitment;
  }
}

function meldGroups() {
  // Melds for display come from the server (`hand.my_melds`) when it sends them.
  const melds = state.hand.my_melds || [];
  const meldOf = new Map();
  melds.forEach((meld, i) => meld.forEach((card) => meldOf.set(card, i)));
  const groups = [];
  for (const card of order) {
    const m = meldOf.has(card) ? meldOf.get(card) : null;
    const last = groups[groups.length - 1];
    if (last && m !== null && last.meld === m) last.cards.push(card);
    else groups.push({ meld: m, cards: [card] });
  }
  return groups;
}

function renderHand() {
  const box = $("hand");
  box.classList.remove("backs");
  box.setAttribute("aria-label", t("your_hand"));
  const discardable = new Set(legalFor("discard").map((a) => a.card));
  const drawn = new Set(state.hand.phase === "discard" && state.hand.turn === state.you ? arrived : []);
  const children = [];
  focusIndex = Math.min(focusIndex, order.length - 1);
  let index = 0;
  for (const g of meldGroups()) {
    // A meld is a highlighted group; loose cards sit directly in the hand.
    let wrap = null;
    if (g.meld !== null) {
      wrap = document.createElement("div");
      wrap.className = "group meld";
      wrap.setAttribute("role", "group");
      wrap.setAttribute("aria-label", t("meld"));
    }
    for (const card of g.cards) {
      const el = cardElement(card, { tag: "button" });
      el.dataset.index = String(index);
      el.tabIndex = index === focusIndex ? 0 : -1;
      if (discardable.has(card)) el.classList.add("can");
      if (drawn.has(card)) el.classList.add("drawn");
      el.setAttribute("aria-disabled", discardable.has(card) ? "false" : "true");
      if (wrap) wrap.append(el);
      else children.push(el);
      index += 1;
    }
    if (wrap) children.push(wrap);
  }
  const hadFocus = box.contains(document.activeElement);
  box.replaceChildren(...children);
  if (hadFocus) box.querySelector(`[data-index="${focusIndex}"]`)?.focus();
  const deadwood = state.hand.my_deadwood;
  const knocks = legalFor("knock");
  let shown = deadwood;
  if (shown === undefined && knocks.length) shown = Math.min(...knocks.map((k) => k.deadwood));
  $("deadwood").textContent = shown === undefined ? "" : t("deadwood", { n: shown });
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

async function renderEnd(previous) {
  const hand = state.hand;
  const box = $("result");
  const over = Boolean(hand && hand.phase === "over" && hand.result);
  box.hidden = !over && state.table.status !== "match_over";
  if (!over) return;
  const summary = renderResult(state);
  const me = state.you;
  const seated = me !== null && me !== undefined;
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
  if (status === "match_over") {
    const w = state.sheet?.match_winner;
    const text = w === null || w === undefined ? t("match_drawn") : t("match_winner", { name: playerName(state, w) });
    readyText = [text, readyText].filter(Boolean).join(". ");
  }
  $("ready-status").textContent = readyText;
  const link = $("download");
  link.hidden = false;
  link.href = `${config.api}/hands/${hand.number}`;
  link.setAttribute("download", `hollywood-gin-${config.table_id}-hand-${hand.number}.json`);
  link.textContent = t("download", { n: hand.number });
  if (!previous?.hand || previous.hand.phase !== "over" || previous.hand.number !== hand.number) {
    say(summary);
    // On a phone the result is below the table: bring it into view once.
    if (previous) box.scrollIntoView({ block: "nearest" });
  }
  if (verifiedHand !== hand.number) {
    verifiedHand = hand.number;
    const ok = await deckMatches(hand.deck_commitment, hand.result.deck_reveal);
    const verify = $("verify");
    verify.classList.toggle("ok", ok === true);
    verify.classList.toggle("bad", ok === false);
    verify.textContent = ok === null ? "" : t(ok ? "verified" : "not_verified");
    if (hand.result.deck_reveal) verify.title = `salt ${hand.result.deck_reveal.salt}`;
  }
}

// ---------- actions ----------

$("stock").addEventListener("click", () => {
  const a = legalFor("draw_stock")[0];
  if (a) send(a);
});
$("discard").addEventListener("click", () => {
  const a = legalFor("take_upcard")[0] || legalFor("draw_discard")[0];
  if (a) send(a);
});
$("take").addEventListener("click", () => {
  const a = legalFor("take_upcard")[0];
  if (a) send(a);
});
$("pass").addEventListener("click", () => {
  const a = legalFor("pass")[0];
  if (a) send(a);
});
$("next-hand").addEventListener("click", () => {
  const a = legalFor("next_hand")[0];
  if (a) send(a);
});
$("rematch").addEventListener("click", () => {
  const a = legalFor("new_match")[0];
  if (a) send(a);
});

// Knock and gin ask once; with several possible discards the player picks one.
let pending = null;
let returnFocus = null;

function askKnock(gin) {
  const options = legalFor("knock")
    .filter((k) => (gin ? k.deadwood === 0 : k.deadwood > 0))
    .sort((a, b) => a.deadwood - b.deadwood);
  if (!options.length) return;
  returnFocus = document.activeElement;
  pending = options[0];
  const choices = $("confirm-choices");
  choices.replaceChildren();
  const describe = () => {
    $("confirm-text").textContent = gin
      ? t("confirm.gin", { card: cardName(pending.discard) })
      : t("confirm.knock", { card: cardName(pending.discard), deadwood: pending.deadwood });
  };
  if (options.length > 1) {
    const label = document.createElement("p");
    label.className = "hint";
    label.textContent = t("choose_knock");
    choices.append(label);
    for (const option of options) {
      const el = cardElement(option.discard, { tag: "button" });
      el.classList.add("mini");
      el.setAttribute("aria-pressed", option === pending ? "true" : "false");
      el.addEventListener("click", () => {
        pending = option;
        for (const b of choices.querySelectorAll("button")) b.setAttribute("aria-pressed", b === el ? "true" : "false");
        describe();
      });
      choices.append(el);
    }
  }
  describe();
  $("confirm-yes").textContent = t("confirm.yes");
  $("confirm-no").textContent = t("confirm.no");
  $("confirm").hidden = false;
  $("confirm-yes").focus();
}

function closeConfirm() {
  $("confirm").hidden = true;
  pending = null;
  returnFocus?.focus?.();
}

$("knock").addEventListener("click", () => askKnock(false));
$("gin").addEventListener("click", () => askKnock(true));
$("confirm-yes").addEventListener("click", () => {
  if (pending) send(pending);
  closeConfirm();
});
$("confirm-no").addEventListener("click", closeConfirm);
$("confirm").addEventListener("keydown", (event) => {
  if (event.key === "Escape") closeConfirm();
});

function discard(card) {
  const a = legal.find((x) => x.kind === "discard" && x.card === card);
  if (a) send(a);
}

// ---------- arranging: drag, keys, sort ----------

function arrange(cards) {
  order = cards;
  renderHand();
  socket.send({ type: "arrange", cards });
}

$("sort-rank").addEventListener("click", () => order.length && arrange(sortByRank(order)));
$("sort-suit").addEventListener("click", () => order.length && arrange(sortBySuit(order)));

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
  let j = event.key === "Home" ? 0 : event.key === "End" ? order.length - 1 : i + step;
  j = Math.max(0, Math.min(order.length - 1, j));
  if (event.altKey || event.shiftKey || event.ctrlKey) {
    if (j === i) return;
    const cards = order.slice();
    const [card] = cards.splice(i, 1);
    cards.splice(j, 0, card);
    focusIndex = j;
    arrange(cards);
    hand.querySelector(`[data-index="${j}"]`)?.focus();
    say(t("moved", { card: cardName(card), n: j + 1 }));
  } else {
    focusIndex = j;
    for (const b of hand.querySelectorAll("button.card")) b.tabIndex = Number(b.dataset.index) === j ? 0 : -1;
    hand.querySelector(`[data-index="${j}"]`)?.focus();
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
  arrange(cards);
}

hand.addEventListener("pointerup", (event) => endDrag(event, false));
hand.addEventListener("pointercancel", (event) => endDrag(event, true));

// ---------- the share box, joining, the computer ----------

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
    body: JSON.stringify({ name }),
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

const sheet = $("sheet");
const toggle = $("sheet-toggle");
sheet.classList.add("collapsed");
toggle.addEventListener("click", () => {
  const open = sheet.classList.toggle("collapsed") === false;
  toggle.setAttribute("aria-expanded", String(open));
});

socket.connect();

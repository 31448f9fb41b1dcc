// The player's hand: its order (sorted, or arranged by drag and keys) and groups.
import { sortCards } from "./cards.js";
import { cardName, t } from "./i18n.js";
import { $ } from "./render.js";

const sameSet = (a, b) => a.length === b.length && a.every((c) => b.includes(c));

export function arrivals(before, hand, arrived) {
  // A page (re)loaded mid-turn: the state names the drawn card.
  if (before?.number !== hand.number) return hand.my_drawn ? [hand.my_drawn] : [];
  const old = before.my_cards || [];
  return sameSet(hand.my_cards, old) ? arrived : hand.my_cards.filter((c) => !old.includes(c));
}

export const carry = (order, cards) => [...order.filter((c) => cards.includes(c)), ...cards.filter((c) => !order.includes(c))];

// Sorted when the cards change; an order changed alone (another tab's) is kept.
export function orderFor(before, hand, { mode, manual, held }) {
  const mine = hand.my_cards;
  const same = before?.number === hand.number && sameSet(mine, before.my_cards || []);
  if (held && (manual || same)) return carry(held, mine);
  return hand.phase === "over" || manual || same ? mine : sortCards(mine, mode, hand.my_melds);
}

export function moveCard(cards, from, to) {
  const out = cards.slice();
  out.splice(to, 0, ...out.splice(from, 1));
  return out;
}

// A meld gets a frame only where its cards sit side by side.
export function meldGroups(order, melds = []) {
  const meldOf = new Map();
  melds.forEach((meld, i) => meld.forEach((card) => meldOf.set(card, i)));
  const framed = new Set();
  melds.forEach((meld, i) => {
    const places = meld.map((card) => order.indexOf(card)).sort((a, b) => a - b);
    if (places[0] >= 0 && places.at(-1) - places[0] === meld.length - 1) framed.add(i);
  });
  const groups = [];
  for (const card of order) {
    const m = framed.has(meldOf.get(card)) ? meldOf.get(card) : null;
    const last = groups.at(-1);
    if (last && last.meld === m) last.cards.push(card);
    else groups.push({ meld: m, cards: [card] });
  }
  return { groups, meldOf };
}

export function focusHand(ui, quiet = true) {
  const hand = $("hand");
  const el = hand.querySelector(`[data-index="${ui.focus}"]`) || hand.querySelector("button.card");
  if (!el) return;
  for (const b of hand.querySelectorAll("button.card")) b.tabIndex = b === el ? 0 : -1;
  el.focus({ preventScroll: quiet });
}

// Arrows move the focus, with Alt, Shift or Ctrl the card; a drag puts a card
// before the one nearest the pointer.
export function initHand(ctl) {
  const { ui } = ctl;
  const hand = $("hand");
  let drag = null;
  let suppressClick = false;
  const cardOf = (event) => event.target.closest("button.card");

  hand.addEventListener("click", (event) => {
    const el = cardOf(event);
    if (!el) return;
    if (suppressClick) return (suppressClick = false);
    ui.focus = Number(el.dataset.index);
    ctl.discard(el.dataset.card);
  });

  hand.addEventListener("keydown", (event) => {
    const el = cardOf(event);
    if (!el) return;
    const i = Number(el.dataset.index);
    const step = { ArrowLeft: -1, ArrowUp: -1, ArrowRight: 1, ArrowDown: 1 }[event.key];
    if (step === undefined && event.key !== "Home" && event.key !== "End") return;
    event.preventDefault();
    event.stopPropagation();
    const end = ui.order.length - 1;
    const j = Math.max(0, Math.min(end, event.key === "Home" ? 0 : event.key === "End" ? end : i + step));
    if (event.altKey || event.shiftKey || event.ctrlKey) {
      if (j === i) return;
      ui.focus = j;
      ctl.arrange(moveCard(ui.order, i, j), true); // the focus moves with the card
      ctl.say(t("moved", { card: cardName(el.dataset.card), n: j + 1 }));
    } else {
      ui.focus = j;
      focusHand(ui, false);
    }
  });

  hand.addEventListener("pointerdown", (event) => {
    const el = cardOf(event);
    if (el && event.button <= 0) drag = { el, x: event.clientX, y: event.clientY, moving: false, id: event.pointerId };
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
    let bestDistance = Infinity;
    drag.target = ui.order.length;
    for (const b of hand.querySelectorAll("button.card")) {
      if (b === drag.el) continue;
      const r = b.getBoundingClientRect();
      const d = Math.hypot(event.clientX - (r.left + r.width / 2), event.clientY - (r.top + r.height / 2));
      if (d < bestDistance) {
        bestDistance = d;
        drag.target = Number(b.dataset.index) + (event.clientX < r.left + r.width / 2 ? 0 : 1);
      }
    }
    for (const b of hand.querySelectorAll("button.card")) b.classList.toggle("drop-before", Number(b.dataset.index) === drag.target);
  });

  function endDrag(event, cancelled) {
    if (!drag || event.pointerId !== drag.id) return;
    const { el, moving, target } = drag;
    drag = null;
    if (!moving) return;
    suppressClick = true;
    setTimeout(() => (suppressClick = false), 0);
    el.style.transform = "";
    el.classList.remove("dragging");
    if (cancelled || target === undefined) return ctl.renderHand();
    const from = Number(el.dataset.index);
    ctl.arrange(moveCard(ui.order, from, target > from ? target - 1 : target), true);
  }
  hand.addEventListener("pointerup", (event) => endDrag(event, false));
  hand.addEventListener("pointercancel", (event) => endDrag(event, true));
}

// Cards drawn with CSS: rank and suit symbol (so colour is never the only clue).
import { cardName, rankLabel, SUIT_SYMBOLS } from "./i18n.js";

export const RANK_ORDER = "A23456789TJQK";
export const SUIT_ORDER = "CDHS";

export function cardElement(card, { tag = "span", mini = false } = {}) {
  const el = document.createElement(tag);
  el.className = `card s-${card[1]}` + ("DH".includes(card[1]) ? " red" : "") + (mini ? " mini" : "");
  el.dataset.card = card;
  if (tag === "button") el.type = "button";
  // The spoken name is the element's text; the drawn face is hidden from readers.
  const name = document.createElement("span");
  name.className = "sr-only";
  name.textContent = cardName(card);
  const corner = document.createElement("span");
  corner.className = "corner";
  corner.setAttribute("aria-hidden", "true");
  const rank = document.createElement("span");
  rank.textContent = rankLabel(card);
  const suit = document.createElement("span");
  suit.textContent = SUIT_SYMBOLS[card[1]];
  corner.append(rank, suit);
  const pip = document.createElement("span");
  pip.className = "pip";
  pip.setAttribute("aria-hidden", "true");
  pip.textContent = SUIT_SYMBOLS[card[1]];
  el.append(name, corner, pip);
  return el;
}

export function backElement() {
  const el = document.createElement("span");
  el.className = "card-back";
  return el;
}

const rankIndex = (c) => RANK_ORDER.indexOf(c[0]);
const suitIndex = (c) => SUIT_ORDER.indexOf(c[1]);

export function sortByRank(cards) {
  return [...cards].sort((a, b) => rankIndex(a) - rankIndex(b) || suitIndex(a) - suitIndex(b));
}

export function sortBySuit(cards) {
  return [...cards].sort((a, b) => suitIndex(a) - suitIndex(b) || rankIndex(a) - rankIndex(b));
}

// Melds first, in the server's order (`my_melds`), then the deadwood by rank.
export function sortByMelds(cards, melds) {
  const inMeld = new Set(melds.flat());
  const first = melds.flat().filter((c) => cards.includes(c));
  return [...first, ...sortByRank(cards.filter((c) => !inMeld.has(c)))];
}

export function sortCards(cards, mode, melds) {
  if (mode === "rank") return sortByRank(cards);
  if (mode === "suit") return sortBySuit(cards);
  return sortByMelds(cards, melds || []);
}

// Rendering of the parts of a state that need no input handling: the opponent,
// the piles, the status words and the hand end (the sheet is sheet.js).
import { backElement, cardElement } from "./cards.js";
import { cardName, t } from "./i18n.js";

export const $ = (id) => document.getElementById(id);

export function playerName(state, seat) {
  const player = (state.table.players || []).find((p) => p.seat === seat);
  return player?.name || t(`seat.${seat}`); // an empty seat: "Player 2"
}

export function player(state, seat) {
  return (state.table.players || []).find((p) => p.seat === seat) || null;
}

// "Bob" or "You" for the line under the table.
export function who(state, seat) {
  return seat === state.you ? t("you") : playerName(state, seat);
}

export function renderSeatHead(state, seat, prefix) {
  const p = player(state, seat);
  const connected = Boolean(p?.connected) || Boolean(p?.computer);
  $(`${prefix}-dot`).classList.toggle("on", connected);
  $(`${prefix}-dot`).title = connected ? t("online") : t("offline");
  $(`${prefix}-name`).textContent = playerName(state, seat);
  const notes = [];
  if (p?.computer) notes.push(t("computer", { strength: t(`strength.${p.computer}`) }));
  if (state.hand && state.hand.dealer === seat) notes.push(t("dealer"));
  const note = $(`${prefix}-note`);
  if (note) note.textContent = notes.length ? `(${notes.join(", ")})` : "";
  const away = $(`${prefix}-away`);
  if (away) {
    away.hidden = !(p && p.name && !connected);
    away.textContent = away.hidden ? "" : t("offline_waits", { name: playerName(state, seat) });
  }
  return connected;
}

export function renderBacks(container, count) {
  container.replaceChildren(...Array.from({ length: count }, () => backElement()));
}

export function renderPiles(state, legalKinds) {
  const hand = state.hand;
  const stock = $("stock");
  const canStock = legalKinds.has("draw_stock");
  stock.disabled = !canStock;
  stock.classList.toggle("can", canStock);
  $("stock-count").textContent = String(hand.stock_count);
  stock.setAttribute("aria-label", t(canStock ? "stock" : "stock_plain", { n: hand.stock_count }));
  const pile = $("discard");
  const canDiscard = legalKinds.has("draw_discard") || legalKinds.has("take_upcard");
  pile.disabled = !canDiscard;
  pile.classList.toggle("can", canDiscard);
  pile.classList.toggle("empty", !hand.discard_top);
  if (hand.discard_top) {
    const face = cardElement(hand.discard_top);
    face.setAttribute("aria-hidden", "true"); // the pile's own label names the card
    pile.replaceChildren(face);
    const name = cardName(hand.discard_top);
    pile.setAttribute("aria-label", t(canDiscard ? "discard_pile" : "discard_plain", { card: name }));
  } else {
    pile.replaceChildren();
    pile.setAttribute("aria-label", t("discard_empty"));
  }
}

// What just happened, in words, from `last_action`.
export function describeAction(state) {
  const action = state.hand?.last_action;
  if (!action || action.seat === undefined || action.seat === null) return "";
  const key = `did.${action.kind}`;
  const text = t(key, { name: who(state, action.seat), card: action.card ? cardName(action.card) : "" });
  return text === key ? "" : text;
}

export function describeTurn(state, legalKinds) {
  const hand = state.hand;
  if (state.table.status === "waiting") return t("turn.waiting");
  if (!hand || hand.phase === "over") return "";
  if (state.you !== null && hand.turn === state.you) {
    if (legalKinds.has("take_upcard") || legalKinds.has("pass")) return t("turn.upcard");
    if (legalKinds.has("draw_stock") || legalKinds.has("draw_discard")) return t("turn.draw");
    if (legalKinds.has("discard")) return t("turn.discard");
  }
  return t("turn.other", { name: playerName(state, hand.turn) });
}

function group(cards, className, markLayoffs = new Set()) {
  const box = document.createElement("div");
  box.className = `group ${className}`;
  for (const card of cards) {
    const el = cardElement(card, { mini: true });
    if (markLayoffs.has(card)) {
      el.classList.add("layoff");
      el.querySelector(".sr-only").textContent = `${cardName(card)} (${t("laid_off")})`;
    }
    box.append(el);
  }
  return box;
}

export function renderResult(state) {
  const result = state.hand.result;
  const knocker = result.knocker;
  const winnerName = result.winner === null ? "" : playerName(state, result.winner);
  const kind = result.kind;
  const title =
    kind === "draw" ? t("outcome.draw") : t(`outcome.${kind}`, { name: kind === "undercut" ? winnerName : playerName(state, knocker) });
  $("result-title").textContent = title;
  $("result-points").textContent =
    result.winner === null ? "" : t(result.points === 1 ? "points_one" : "points", { name: winnerName, points: result.points });
  const games = result.games || [];
  let where = "";
  if (result.winner !== null && state.table.scoring !== "hand") {
    where = games.length ? t("went_into", { games: games.map((g) => g + 1).join(", ") }) : t("went_nowhere");
  }
  $("result-games").textContent = where;
  const seats = [0, 1];
  if (knocker === 1) seats.reverse();
  const boxes = seats.map((seat) => {
    const info = result.seats[seat];
    const box = document.createElement("div");
    box.className = "result-seat";
    const h = document.createElement("h3");
    h.textContent = t("deadwood_of", { name: playerName(state, seat), n: info.deadwood_value }) + (seat === knocker ? ` · ${t("knocker")}` : "");
    const melds = document.createElement("div");
    melds.className = "result-melds";
    const other = result.seats[1 - seat];
    (info.melds || []).forEach((meld, index) => {
      // The defender's lay-offs are shown on the knocker's melds, marked.
      const added = seat === knocker ? (other.layoffs || []).filter((l) => l.meld === index).map((l) => l.card) : [];
      melds.append(group([...meld, ...added], "meld", new Set(added)));
    });
    if (seat !== knocker && info.layoffs?.length) {
      const note = document.createElement("p");
      note.className = "hint";
      note.textContent = `${t("laid_off")}: ${info.layoffs.map((l) => cardName(l.card)).join(", ")}`;
      box.append(h, melds, note);
    } else {
      box.append(h, melds);
    }
    if (info.deadwood?.length) melds.append(group(info.deadwood, "dead"));
    if (seat === knocker && result.knock_discard) {
      const thrown = document.createElement("p");
      thrown.className = "hint";
      thrown.textContent = t("knock_discard", { card: cardName(result.knock_discard) });
      box.append(thrown);
    }
    return box;
  });
  $("result-hands").replaceChildren(...boxes);
  return [title, $("result-points").textContent, where].filter(Boolean).join(". ");
}

// Rendering of the parts of a state that need no input handling: the seats, the
// piles, the move log, the words of the status line and the hand's result (the
// sheet is sheet.js).
import { backElement, cardElement, sortByRank } from "./cards.js";
import { cardName, cardShort, list, t, tn } from "./i18n.js";

export const $ = (id) => document.getElementById(id);

export function player(state, seat) {
  return (state.table.players || []).find((p) => p.seat === seat) || null;
}

// A person's own name; the computer's name in the page's language; a bot's name
// marked as a bot ("Bob (bot)").
export function playerName(state, seat) {
  const p = player(state, seat);
  if (p?.computer) return t("computer_name", { strength: t(`strength.${p.computer}`) });
  const name = p?.name || t(`seat.${seat}`); // an empty seat: "Player 2"
  return p?.bot ? t("bot_name", { name }) : name;
}

export const seatedIn = (s) => Boolean(s) && s.you !== null && s.you !== undefined;

// `online`: whether this page is connected; while it is not, nobody's presence is known.
export function renderSeatHead(state, seat, prefix, online) {
  const p = player(state, seat);
  const connected = Boolean(p?.connected) || Boolean(p?.computer);
  const dot = $(`${prefix}-dot`);
  dot.classList.toggle("on", online && connected);
  dot.classList.toggle("unknown", !online);
  dot.title = !online ? t("presence_unknown") : connected ? t("online") : t("offline");
  $(`${prefix}-name`).textContent = p?.bot ? p.name : playerName(state, seat);
  const badge = $(`${prefix}-bot`);
  if (badge) {
    // A program plays this seat: its name and a badge that says so.
    badge.hidden = !p?.bot;
    badge.textContent = p?.bot ? t("bot_badge") : "";
    badge.title = p?.bot ? t("bot_title") : "";
  }
  const note = $(`${prefix}-note`);
  const deals = state.hand && state.hand.dealer === seat;
  note.textContent = deals ? `(${seat === state.you ? t("you_deal") : t("dealer")})` : "";
  const area = $(prefix === "opp" ? "opponent" : "me");
  const hand = state.hand;
  area.classList.toggle("turn", Boolean(hand && hand.phase !== "over" && hand.turn === seat));
  const away = $(`${prefix}-away`);
  if (away) {
    // A table played over days: players close the page between moves, so no
    // connection is normal there (its time left says whose move it is).
    away.hidden = !(online && p && p.name && !connected && !state.table.move_days);
    away.textContent = away.hidden ? "" : t("offline_waits", { name: playerName(state, seat) });
  }
  return connected;
}

// The cards a seat took face up from the pile and still holds: known to both.
export function knownCards(state, seat) {
  const known = [];
  for (const e of state.hand?.events || []) {
    if (e.seat !== seat || !e.card) continue;
    if (e.kind === "take_upcard" || e.kind === "draw_discard") known.push(e.card);
    else if (e.kind === "discard") {
      const i = known.indexOf(e.card);
      if (i >= 0) known.splice(i, 1);
    }
  }
  return known;
}

// A row of a hidden hand: the known cards face up, the rest as backs.
export function renderRow(container, count, known) {
  const faces = known.slice(0, count).map((card) => {
    const el = cardElement(card, { mini: true });
    el.classList.add("known");
    return el;
  });
  const backs = Array.from({ length: Math.max(0, count - faces.length) }, (_, i) => {
    const el = backElement();
    el.dataset.card = `back${i}`;
    return el;
  });
  container.replaceChildren(...faces, ...backs);
}

export function renderPiles(state, legalKinds) {
  const hand = state.hand;
  const stock = $("stock");
  const canStock = legalKinds.has("draw_stock");
  stock.setAttribute("aria-disabled", String(!canStock));
  stock.classList.toggle("can", canStock);
  $("stock-count").textContent = String(hand.stock_count);
  stock.setAttribute("aria-label", t(canStock ? "stock" : "stock_plain", { n: hand.stock_count }));
  const pile = $("discard");
  const canDiscard = legalKinds.has("draw_discard") || legalKinds.has("take_upcard");
  pile.setAttribute("aria-disabled", String(!canDiscard));
  pile.classList.toggle("can", canDiscard);
  pile.classList.toggle("empty", !hand.discard_top);
  const last = hand.last_action;
  const justThrown = Boolean(hand.discard_top && last?.kind === "discard" && last.card === hand.discard_top);
  pile.classList.toggle("fresh", justThrown);
  $("pile-note").textContent = justThrown ? (last.seat === state.you ? t("pile_yours") : t("pile_by", { name: playerName(state, last.seat) })) : "";
  // The pile's name is its text (hidden from sight), the drawn face is hidden from
  // readers: so the visible card never contradicts the spoken name.
  const label = document.createElement("span");
  label.className = "sr-only";
  if (hand.discard_top) {
    const face = cardElement(hand.discard_top);
    face.setAttribute("aria-hidden", "true");
    label.textContent = t(canDiscard ? "discard_pile" : "discard_plain", { card: cardName(hand.discard_top) });
    pile.replaceChildren(label, face);
  } else {
    label.textContent = t("discard_empty");
    pile.replaceChildren(label);
  }
}

// One public move in words: "You discarded the seven of hearts", "Bob passed".
export function describeEvent(state, event, { short = false } = {}) {
  if (!event || event.seat === undefined || event.seat === null) return "";
  let kind = event.kind;
  if (kind === "knock" && state.hand?.result?.kind === "gin") kind = "gin";
  const card = event.card ? (short ? cardShort(event.card) : cardName(event.card)) : "";
  const mine = event.seat === state.you;
  const name = playerName(state, event.seat);
  // A move made for the seat (its clock ran out, a stand-in): said so, never as its own.
  const key = event.by ? `pc.${kind}` : mine ? `you.${kind}` : `did.${kind}`;
  const text = t(key, { name, card });
  if (text === key) return "";
  return event.by ? t(`by.${event.by}${mine ? "_you" : ""}`, { name, move: text }) : text;
}

export function describeDeal(state) {
  const hand = state.hand;
  return hand.dealer === state.you ? t("deal_you", { n: hand.number }) : t("deal", { n: hand.number, name: playerName(state, hand.dealer) });
}

export function describeTurn(state, legalKinds) {
  const hand = state.hand;
  if (state.table.status === "waiting") return t("turn.waiting");
  if (!hand || hand.phase === "over") return "";
  if (seatedIn(state) && hand.turn === state.you) {
    if (legalKinds.has("take_upcard") || legalKinds.has("pass")) return t("turn.upcard");
    if (legalKinds.has("draw_stock") || legalKinds.has("draw_discard")) return t("turn.draw");
    if (legalKinds.has("discard")) return t("turn.discard");
  }
  return t("turn.other", { name: playerName(state, hand.turn) });
}

// The move log of this hand: the deal, then every public move, newest last.
export function renderLog(state) {
  const box = $("log");
  const items = [describeDeal(state), ...(state.hand.events || []).map((e) => describeEvent(state, e, { short: true }))];
  const lines = items.filter(Boolean).map((text, i) => {
    const li = document.createElement("li");
    li.textContent = text;
    const e = i > 0 ? state.hand.events[i - 1] : null;
    if (e && e.seat !== state.you && seatedIn(state)) li.className = "theirs";
    if (e?.by) li.classList.add("for");
    return li;
  });
  box.replaceChildren(...lines);
  box.scrollTop = box.scrollHeight;
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

// The outcome's arithmetic, from the result's own numbers (docs/rules.md "Scoring a hand").
export function resultMath(result) {
  if (result.kind === "draw") return t("math.draw");
  const k = result.seats[result.knocker].deadwood_value;
  const d = result.seats[1 - result.knocker].deadwood_value;
  return t(`math.${result.kind}`, { k, d, bonus: result.bonus ?? 25, points: result.points });
}

// The bonuses of each game that this hand finished, spelled out.
export function gameBonusLines(state, games) {
  const lines = [];
  for (const index of games) {
    const game = state.sheet?.games?.[index];
    if (!game?.finished || game.winner === null || state.table.scoring === "hand") continue;
    const parts = [];
    for (const seat of [game.winner, 1 - game.winner]) {
      const s = game.seats[seat];
      const hands = s.entries.length;
      const pieces = [];
      if (s.game_bonus) pieces.push(t(s.game_bonus >= 200 ? "bonus.shutout" : "bonus.game", { n: s.game_bonus }));
      if (s.line_bonus) pieces.push(tn("bonus.line", hands, { each: s.line_bonus / hands, total: s.line_bonus }));
      if (pieces.length) parts.push(`${playerName(state, seat)}: ${pieces.join(", ")}`);
    }
    lines.push(`${gameWonText(state, index)}. ${parts.join("; ")}`);
  }
  return lines;
}

// The bonuses of the games that finished, as a short table: a column per player,
// for each game its winner, then the game bonus and the line bonus (won hands × 25).
export function bonusTable(state, games) {
  const finished = games.filter((index) => {
    const game = state.sheet?.games?.[index];
    return game?.finished && game.winner !== null && state.table.scoring !== "hand";
  });
  if (!finished.length) return null;
  const cell = (tag, text, attrs = {}) => {
    const el = document.createElement(tag);
    el.textContent = text;
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
    return el;
  };
  const table = document.createElement("table");
  table.className = "bonus-table";
  const head = table.createTHead().insertRow();
  head.append(cell("td", ""), nameHead(playerName(state, 0)), nameHead(playerName(state, 1)));
  for (const index of finished) {
    const game = state.sheet.games[index];
    const body = table.createTBody();
    const title = body.insertRow();
    title.className = "bonus-game";
    title.append(cell("th", gameWonText(state, index), { scope: "rowgroup", colspan: "3" }));
    const gameRow = body.insertRow();
    const lineRow = body.insertRow();
    gameRow.append(cell("th", t("bonus.game_row"), { scope: "row" }));
    lineRow.append(cell("th", t("bonus.line_row"), { scope: "row" }));
    for (const seat of [0, 1]) {
      const s = game.seats[seat];
      const hands = s.entries.length;
      // The total, and under it how it came: "200" over "shutout", "125" over "5 × 25".
      const bonus = cell("td", s.game_bonus || "–");
      if (s.game_bonus >= 200) bonus.append(cell("small", t("shutout")));
      gameRow.append(bonus);
      const line = cell("td", s.line_bonus ? String(s.line_bonus) : "–");
      if (s.line_bonus) line.append(cell("small", ` = ${hands} × ${s.line_bonus / hands}`));
      lineRow.append(line);
    }
  }
  return table;
}

// A column head naming a player: the name wraps between words only, and a word too
// long for the column is cut with an ellipsis (site.css .nm); the full name stays
// the cell's text, which is what a screen reader reads, and its title.
export function nameHead(name) {
  const th = document.createElement("th");
  th.scope = "col";
  th.title = name;
  const span = document.createElement("span");
  span.className = "nm";
  span.textContent = name;
  th.append(span);
  return th;
}

// "Alexandra wins game 1, 112 to 64" (the game's points), "You win game 1, …".
export function gameWonText(state, index) {
  const game = state.sheet.games[index];
  const w = game.winner;
  const key = seatedIn(state) && w === state.you ? "game_won_you" : "game_won";
  return t(key, { n: index + 1, name: playerName(state, w), a: game.seats[w].points, b: game.seats[1 - w].points });
}

// The games so far, as a person says it: "Ann leads, 1 game to 0", "You lead, 2
// games to 1", "Level at 1 game each"; nothing before a game is won.
export function gamesLeadText(state) {
  const won = gamesWon(state);
  if (!won[0] && !won[1]) return "";
  if (won[0] === won[1]) return tn("games_level", won[0]);
  const w = won[1] > won[0] ? 1 : 0;
  const key = seatedIn(state) && w === state.you ? "games_lead_you" : "games_lead";
  return tn(key, won[w], { name: playerName(state, w), b: won[1 - w] });
}

// The record between the two seats of this table, rematches included
// (`table.matches_won`): "Ann leads Bob 3–2 in matches", "You lead Bob 3–2 …",
// "You and Bob are level at 3–3 …"; the plural by the matches played. "" before any.
export function recordText(state) {
  const won = state.table.matches_won;
  if (!won) return "";
  const seated = seatedIn(state);
  const me = seated ? state.you : 0;
  const played = won[0] + won[1];
  const name = (seat) => playerName(state, seat);
  if (won[0] === won[1]) return tn(seated ? "record.level_you" : "record.level", played, { name: name(me), other: name(1 - me), a: won[0] });
  const lead = won[0] > won[1] ? 0 : 1;
  const key = !seated ? "record.lead" : lead === me ? "record.lead_you" : "record.trails_you";
  const other = lead === me ? name(1 - me) : name(me);
  return tn(key, played, { name: name(lead), other, a: won[lead], b: won[1 - lead] });
}

// Who won the match, from the reader's seat: "You win the match", "Bob wins the
// match"; a one-game table's winner wins "the game", a single hand's "the hand".
export function matchWinnerText(state) {
  const w = state.sheet?.match_winner;
  if (w === null || w === undefined) return t("match_drawn");
  const what = state.table.scoring === "hollywood" ? "match" : state.table.scoring === "game" ? "game" : "hand";
  if (seatedIn(state) && w === state.you) return t(`you_win.${what}`);
  return t(what === "match" ? "match_winner" : `wins.${what}`, { name: playerName(state, w) });
}

// "2 games to 1", the winner's count first (Hollywood only: the other scorings
// have a single game, whose score says nothing).
export function gamesToText(state) {
  const sheet = state.sheet;
  if (state.table.scoring !== "hollywood" || !sheet) return "";
  const won = gamesWon(state);
  const w = sheet.match_winner ?? (won[1] > won[0] ? 1 : 0);
  // Nothing to say of no game won ("0 games to 0"), nor of a match resigned or
  // claimed while its winner was behind ("1 game to 2").
  if (!won[w] || won[w] < won[1 - w]) return "";
  return tn("games_to", won[w], { b: won[1 - w] });
}

export const gamesWon = (state) => [0, 1].map((seat) => state.sheet.games.filter((g) => g.finished && g.winner === seat).length);

export function gamesList(indices) {
  return list(indices.map((g) => t("game_in", { n: g + 1 })));
}

// The hand's outcome: "Bob went gin", "Ann undercut Bob and wins the hand".
export function outcomeText(state) {
  const { kind, knocker, winner } = state.hand.result;
  return t(`outcome.${kind}`, { name: playerName(state, kind === "undercut" ? winner : knocker), knocker: playerName(state, knocker) });
}

// On a phone the page keeps room under its footer for the folded result (site.css).
export function keepRoomForResult() {
  const parts = document.querySelectorAll(".result-head, .result-actions");
  const room = () => [...parts].reduce((h, p) => h + p.offsetHeight + parseFloat(getComputedStyle(p).marginTop), 0);
  const watch = new ResizeObserver(() => document.body.style.setProperty("--result-folded", `${room()}px`));
  parts.forEach((p) => watch.observe(p));
}

export function renderResult(state) {
  const result = state.hand.result;
  const knocker = result.knocker;
  const winnerName = result.winner === null ? "" : playerName(state, result.winner);
  const kind = result.kind;
  const title = outcomeText(state);
  $("result-title").textContent = title;
  $("result-math").textContent = resultMath(result);
  $("result-points").textContent = result.winner === null ? "" : tn("points", result.points, { name: winnerName, points: result.points });
  // The defender's deadwood before and after laying off.
  let layoffs = "";
  if (kind !== "draw" && kind !== "gin") {
    const defender = 1 - knocker;
    const info = result.seats[defender];
    const before = info.deadwood_before_layoffs ?? info.deadwood_value;
    layoffs = info.layoffs?.length
      ? t("layoffs", { name: playerName(state, defender), before, after: info.deadwood_value, cards: list(sortByRank(info.layoffs.map((l) => l.card)).map(cardName)) })
      : t("no_layoffs", { name: playerName(state, defender) });
  }
  $("result-layoffs").textContent = layoffs;
  const games = result.games || [];
  let where = "";
  if (result.winner !== null && state.table.scoring !== "hand") {
    where = games.length ? t("went_into", { games: gamesList(games) }) : t("went_nowhere");
  }
  $("result-games").textContent = where;
  const bonuses = gameBonusLines(state, games);
  const bonusBox = bonusTable(state, games);
  $("result-bonuses").replaceChildren(...(bonusBox ? [bonusBox] : []));
  const seats = [0, 1];
  if (knocker === 1) seats.reverse();
  const boxes = seats.map((seat) => {
    const info = result.seats[seat];
    const box = document.createElement("div");
    box.className = "result-seat";
    box.dataset.zone = `result${seat}`;
    const h = document.createElement("h3");
    h.textContent = t("deadwood_of", { name: playerName(state, seat), n: info.deadwood_value }) + (seat === knocker ? ` · ${t("knocker")}` : "");
    const melds = document.createElement("div");
    melds.className = "result-melds";
    const other = result.seats[1 - seat];
    (info.melds || []).forEach((meld, index) => {
      // The defender's lay-offs are shown on the knocker's melds, marked.
      const added = seat === knocker ? (other.layoffs || []).filter((l) => l.meld === index).map((l) => l.card) : [];
      // In the meld's order, lay-offs among its cards: 3♥ 4♥ 5♥ 6♥, never 4♥ 5♥ 6♥ 3♥.
      melds.append(group(sortByRank([...meld, ...added]), "meld", new Set(added)));
    });
    if (info.deadwood?.length) melds.append(group(info.deadwood, "dead"));
    box.append(h, melds);
    if (seat === knocker && result.knock_discard) {
      const thrown = document.createElement("p");
      thrown.className = "hint";
      thrown.textContent = t("knock_discard", { card: cardName(result.knock_discard) });
      box.append(thrown);
    }
    return box;
  });
  $("result-hands").replaceChildren(...boxes);
  return [title, $("result-math").textContent, $("result-points").textContent, layoffs, where, ...bonuses]
    .filter(Boolean)
    .join(". ");
}

// The match summary: hands played and won, gins, undercuts, best hand, average
// deadwood at knock, time played. The figures come from the records of the match's
// finished hands (GET /api/tables/{id}/hands/{n}, public and never changed once the
// hand is over), fetched once each and kept for the tab's life; the time played is
// what this device saw (the first deal of the match to its last hand's end) and is
// left out when it did not see both (store.js noteTimes). Loaded when a match ends
// (board.js, table.js): nothing here is needed before.
import { lang, t } from "./i18n.js";
import { nameHead, playerName } from "./render.js";
import { noteLadder } from "./ladder.js";
import { load, save, timesKey } from "./store.js";

const config = JSON.parse(document.getElementById("table-config")?.textContent || "{}");
const HANDS_KEY = `gin.hands.${config.table_id}`; // sessionStorage: n -> compact record
const KEEP = 80; // hands kept per table
const numbers = new Intl.NumberFormat(lang, { maximumFractionDigits: 1 });


const records = load(HANDS_KEY, sessionStorage);

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const pending = new Map(); // n -> the fetch under way, shared by every caller

function record(n) {
  if (records[n]) return Promise.resolve(records[n]);
  if (!pending.has(n)) pending.set(n, fetchRecord(n).finally(() => pending.delete(n)));
  return pending.get(n);
}

async function fetchRecord(n) {
  for (let attempt = 1; attempt <= 4; attempt += 1) {
    const answer = await fetch(`${config.api}/hands/${n}`, { credentials: "same-origin" }).catch(() => null);
    if (answer?.status === 429) {
      await sleep(1000 * attempt);
      continue;
    }
    if (!answer?.ok) return null;
    const result = (await answer.json().catch(() => ({}))).result;
    if (!result) return null;
    const compact = {
      n,
      kind: result.kind,
      knocker: result.knocker,
      winner: result.winner,
      points: result.points,
      deadwood: result.seats.map((s) => s.deadwood_value),
      games: result.games || [],
    };
    records[n] = compact;
    save(HANDS_KEY, records, sessionStorage, KEEP);
    return compact;
  }
  return null;
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

// The finished hands of the sheet's match, oldest first, or null when they cannot
// be told. Hand numbers run over the table's life; walking back from the newest,
// the match's hands are found when the points they entered are exactly the
// sheet's, then the drawn hands before its first win; the hand before those is
// the last match's final hand, always a won one.
export async function matchHands(state) {
  const hand = state.hand;
  const sheet = state.sheet;
  if (!hand || !sheet) return null;
  const wanted = sheet.games.map((g) => g.seats.map((s) => s.entries));
  const entered = sheet.games.map(() => [[], []]);
  const hands = [];
  let complete = same(entered, wanted);
  for (let n = hand.phase === "over" ? hand.number : hand.number - 1; n >= 1; n -= 1) {
    const r = await record(n);
    if (!r) return null;
    if (complete && r.winner !== null) break;
    hands.unshift(r);
    if (r.winner !== null) for (const g of r.games) entered[g]?.[r.winner].unshift(r.points);
    complete = same(entered, wanted);
  }
  return complete ? hands : null;
}

function minutes(ms) {
  const total = Math.max(1, Math.round(ms / 60000));
  const h = Math.floor(total / 60);
  const m = total % 60;
  return h ? t("time.h_min", { h, m }) : t("time.min", { m });
}

// The figures of each seat, and the time played (null when not seen here).
export function summarise(hands) {
  const seats = [0, 1].map((seat) => {
    const won = hands.filter((h) => h.winner === seat);
    const knocks = hands.filter((h) => h.knocker === seat && (h.kind === "knock" || h.kind === "undercut"));
    const best = won.reduce((top, h) => (!top || h.points > top.points ? h : top), null);
    return {
      won: won.length,
      gins: won.filter((h) => h.kind === "gin").length,
      undercuts: won.filter((h) => h.kind === "undercut").length,
      best,
      knockDeadwood: knocks.length ? knocks.reduce((sum, h) => sum + h.deadwood[seat], 0) / knocks.length : null,
    };
  });
  const times = load(timesKey(config.table_id));
  const first = hands.length ? times[hands[0].n]?.[0] : null;
  const last = hands.length ? times[hands.at(-1).n]?.[1] : null;
  return { played: hands.length, seats, ms: first && last && last >= first ? last - first : null };
}

function el(tag, text, attrs = {}) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

// The summary as a short table (a column per player) and a line under it.
export function summaryElement(state, summary) {
  const box = el("div");
  box.className = "match-summary";
  const title = state.table.scoring === "hollywood" ? t("summary.title") : t("summary.title_game");
  const table = el("table");
  table.className = "summary-table";
  table.append(el("caption", title));
  const head = table.createTHead().insertRow();
  head.append(el("td", ""), nameHead(playerName(state, 0)), nameHead(playerName(state, 1)));
  const body = table.createTBody();
  const row = (label, value) => {
    const tr = body.insertRow();
    tr.append(el("th", label, { scope: "row" }), ...summary.seats.map((s) => el("td", value(s))));
    return tr;
  };
  row(t("summary.won"), (s) => String(s.won));
  row(t("summary.gins"), (s) => String(s.gins));
  row(t("summary.undercuts"), (s) => String(s.undercuts));
  // The best hand's points, and under them how it was won ("61" over "gin").
  const best = row(t("summary.best"), (s) => (s.best ? String(s.best.points) : "–"));
  summary.seats.forEach((s, i) => {
    if (s.best) best.cells[i + 1].append(el("small", ` (${t(`summary.kind.${s.best.kind}`)})`));
  });
  row(t("summary.knock_deadwood"), (s) => (s.knockDeadwood === null ? "–" : numbers.format(s.knockDeadwood)));
  const line = [t("summary.played", { n: summary.played })];
  if (summary.ms !== null) line.push(t("summary.time", { time: minutes(summary.ms) }));
  box.append(table, el("p", line.join(" · ")));
  box.lastChild.className = "summary-line";
  return box;
}

// Fill `container` with the summary of the state's match (nothing for a single
// hand, or before the first hand ends). Later calls win over slower earlier ones.
export async function showSummary(container, state) {
  noteLadder(state);
  if (!container) return;
  const mine = String(Number(container.dataset.asked || 0) + 1);
  container.dataset.asked = mine;
  if (state.table.scoring === "hand") {
    container.replaceChildren();
    return;
  }
  const hands = await matchHands(state);
  if (container.dataset.asked !== mine) return;
  if (!hands || !hands.length) {
    container.replaceChildren();
    return;
  }
  container.replaceChildren(summaryElement(state, summarise(hands)));
}

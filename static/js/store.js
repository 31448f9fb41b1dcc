// Every key the site keeps in the browser (localStorage per device, sessionStorage per tab).
export const get = (key, where = localStorage) => where.getItem(key);
export const put = (key, value, where = localStorage) => (value === null ? where.removeItem(key) : where.setItem(key, value));

export const flag = (key, where) => get(key, where) === "1";
export const setFlag = (key, on, where) => put(key, on ? "1" : "0", where);

export function sortMode() {
  const mode = get("gin.sort");
  return mode === "rank" || mode === "suit" ? mode : "melds";
}
export function setSortMode(mode) {
  put("gin.sort", mode);
  put("gin.manual", null);
}

export const handKey = (s) => `${s.table.id}:${s.hand?.number}:${s.hand?.deck_commitment?.slice(0, 8)}`;
export const isManual = (s) => get("gin.manual") === handKey(s);
export const setManual = (s) => put("gin.manual", handKey(s));

export const watching = (table) => flag(`gin.watch.${table}`, sessionStorage);
export const setWatching = (table, on) => setFlag(`gin.watch.${table}`, on, sessionStorage);

export function once(key) {
  const first = !flag(key, sessionStorage);
  setFlag(key, true, sessionStorage);
  return first;
}

// JSON maps ({} when absent or unreadable).
export function load(key, where = localStorage) {
  try {
    return JSON.parse(get(key, where) || "{}") || {};
  } catch {
    return {};
  }
}
// `newest`: that many of the highest numbered keys are kept. False when refused.
export function save(key, map, where = localStorage, newest = 0) {
  const keys = Object.keys(map).sort((a, b) => b - a);
  if (newest) map = Object.fromEntries(keys.slice(0, newest).map((k) => [k, map[k]]));
  try {
    put(key, JSON.stringify(map), where);
    return true;
  } catch {
    return false; // full, or private mode
  }
}

// ---------- Deals nobody can choose ----------
// Every deal this browser takes part in gets 16 bytes of its own; the server committed
// to its secret before. After the hand the page checks the commitment it saw first,
// that its own bytes were used, and the deck, from the revealed secrets.

const DEALS_KEY = (tableId) => `gin.deals.${tableId}`;
const KEPT_HANDS = 30;

export function newEntropy() {
  if (!globalThis.crypto?.getRandomValues) return null; // then the seat adds nothing
  return [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

const loadDeals = (tableId) => load(DEALS_KEY(tableId));

const KEPT_TABLES = 40;

function saveDeals(tableId, deals) {
  const newest = deals[Math.max(...Object.keys(deals))];
  if (newest) newest.at = Date.now();
  if (save(DEALS_KEY(tableId), deals, localStorage, KEPT_HANDS)) pruneTables();
}

// Only the tables used last keep their records (a few hundred bytes a hand).
function pruneTables() {
  const prefix = DEALS_KEY("");
  const tables = [];
  for (let i = 0; i < localStorage.length; i += 1) {
    const key = localStorage.key(i);
    if (!key?.startsWith(prefix)) continue;
    let last = 0;
    for (const record of Object.values(load(key))) last = Math.max(last, record?.at || 0);
    tables.push([last, key]);
  }
  tables.sort((a, b) => b[0] - a[0]);
  for (const [, key] of tables.slice(KEPT_TABLES)) localStorage.removeItem(key);
}

// What this browser knows of deal `hand` at a table: {commitment, entropy}.
export function dealRecord(tableId, hand) {
  return loadDeals(tableId)[hand] || null;
}

// What was sent with a table's creation (the table id is known only from the answer).
export function rememberDeal(tableId, hand, commitment, entropy) {
  const deals = loadDeals(tableId);
  deals[hand] = { commitment: commitment || null, entropy };
  saveDeals(tableId, deals);
}

// The first commitment seen for deal `hand` is kept; a later, different one is not.
export function sawCommitment(tableId, hand, commitment) {
  const deals = loadDeals(tableId);
  if (deals[hand]?.commitment) return;
  deals[hand] = { ...(deals[hand] || {}), commitment };
  saveDeals(tableId, deals);
}

// This browser's entropy for deal `hand`, made once and kept (sent with create, join,
// next_hand or new_match). A resend after a reload sends the same bytes.
export function entropyFor(tableId, hand, commitment) {
  const deals = loadDeals(tableId);
  const known = deals[hand] || {};
  if (!known.entropy) {
    known.entropy = newEntropy();
    if (!known.entropy) return undefined;
    if (commitment && !known.commitment) known.commitment = commitment;
    deals[hand] = known;
    saveDeals(tableId, deals);
  }
  return known.entropy;
}

// localStorage: hand number -> [dealt ms, over ms] (summary.js's time played).
export const timesKey = (table) => `gin.times.${table}`;

// What this device saw of each hand: when it was dealt (seen before any move) and
// when it ended. Called with every state.
export function noteTimes(state) {
  const hand = state.hand;
  if (!hand) return;
  const key = timesKey(state.table.id);
  const times = load(key);
  const seen = times[hand.number] || [null, null];
  const now = Date.now();
  let changed = false;
  if (seen[0] === null && hand.phase !== "over" && !(hand.events || []).length) {
    seen[0] = now;
    changed = true;
  }
  if (seen[1] === null && hand.phase === "over") {
    seen[1] = now;
    changed = true;
  }
  if (changed) {
    times[hand.number] = seen;
    save(key, times, localStorage, 80);
  }
}


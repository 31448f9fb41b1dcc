// "My tables": the tables this device holds a seat at, kept in its own storage (no
// account). The table page notes each state it gets as a seated player; the home
// page (home.js) lists them and drops a table whose match ended or that no longer
// exists.
import { load, save } from "./store.js";

const KEY = "gin.tables";
const MAX = 30;

export function read() {
  const all = load(KEY);
  return typeof all === "object" ? all : {};
}

export function write(all) {
  const kept = Object.values(all)
    .sort((a, b) => b.updated - a.updated)
    .slice(0, MAX);
  save(KEY, Object.fromEntries(kept.map((e) => [e.id, e])));
}

export function forgetTable(id) {
  const all = read();
  if (!(id in all)) return;
  delete all[id];
  write(all);
}

// From the table page, with each state of a seated player: the opponent's name (as
// the page shows it), the totals (mine first), whose turn, the matches won here. A
// finished match drops off, but for a table played over days.
// `lastMove`: the last public move in words ("Bob discarded 7♥"), as the page said it.
export function rememberTable(state, opponentName, lastMove = "") {
  const seat = state.you;
  if (seat === null || seat === undefined) return;
  const id = state.table.id;
  // A table played over days stays: the friends' rematch waits there, with their record.
  if (state.table.status === "match_over" && !state.table.move_days) {
    forgetTable(id);
    return;
  }
  const all = read();
  const totals = state.sheet?.totals || [0, 0];
  const hand = state.hand;
  const entry = {
    id,
    seat,
    opponent: opponentName,
    score: [totals[seat], totals[1 - seat]],
    status: state.table.status,
    turn: state.table.status === "playing" && hand && hand.phase !== "over" ? hand.turn : null,
    version: state.version,
    last: lastMove || all[id]?.last || "",
    // A table played over days: by when this seat must act (this device's clock).
    deadline: deadlineOf(state.table, seat, state.server_time),
    record: recordOf(state.table, seat),
    updated: all[id]?.version === state.version ? all[id].updated : Date.now(),
  };
  const before = all[id];
  if (before && JSON.stringify(before) === JSON.stringify(entry)) return;
  all[id] = entry;
  write(all);
}

// The matches won at this table, this seat's first (null: none ended yet).
export function recordOf(table, seat) {
  const won = table.matches_won;
  return won ? [won[seat], won[1 - seat]] : null;
}

// The seat's deadline on a table played over days, moved to this device's clock.
export function deadlineOf(table, seat, serverTime) {
  const mine = (table.players || []).find((p) => p.seat === seat);
  if (!table.move_days || !serverTime || mine?.deadline == null) return null;
  return mine.deadline + (Date.now() - serverTime);
}

export function myTables() {
  return Object.values(read()).sort((a, b) => b.updated - a.updated);
}

// The record against each computer opponent, kept on this device for the home page's
// ladder (home.js). Imported by summary.js, which the table page loads when needed,
// so it stays off the table page's first load.
import { load, save } from "./store.js";

// localStorage "gin.ladder": {id: {won, played}}, `last`: the latest match's {id, won},
// `seen`: the matches counted (table:hand of their end), so a reload counts none twice.
export const LADDER_KEY = "gin.ladder";

export function noteLadder(s) {
  const me = s.you;
  const opp = s.table.players?.find((p) => p.seat === 1 - me)?.computer;
  const winner = s.sheet?.match_winner;
  if (s.table.status !== "match_over" || !opp || (me !== 0 && me !== 1) || winner == null) return;
  const all = load(LADDER_KEY);
  const match = `${s.table.id}:${s.hand?.number}`;
  const seen = all.seen || [];
  if (seen.includes(match)) return;
  const row = (all[opp] ||= { won: 0, played: 0 });
  row.played += 1;
  row.won += winner === me ? 1 : 0;
  all.last = { id: opp, won: winner === me };
  all.seen = [...seen, match].slice(-50);
  save(LADDER_KEY, all);
}

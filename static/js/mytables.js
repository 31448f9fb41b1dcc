// "My tables": the tables this device holds a seat at, kept in its own storage (no
// account). The table page notes each state it gets as a seated player; the home
// page lists them and drops a table whose match ended or that no longer exists.
const KEY = "gin.tables";
const MAX = 30;

function read() {
  try {
    const all = JSON.parse(localStorage.getItem(KEY) || "{}");
    return all && typeof all === "object" ? all : {};
  } catch {
    return {};
  }
}

function write(all) {
  const kept = Object.values(all)
    .sort((a, b) => b.updated - a.updated)
    .slice(0, MAX);
  try {
    localStorage.setItem(KEY, JSON.stringify(Object.fromEntries(kept.map((e) => [e.id, e]))));
  } catch {
    // A full storage: the list is only a convenience.
  }
}

export function forgetTable(id) {
  const all = read();
  if (!(id in all)) return;
  delete all[id];
  write(all);
}

// From the table page, with each state of a seated player: the opponent's name (as
// the page shows it), the totals (mine first), whose turn. A finished match drops off.
export function rememberTable(state, opponentName) {
  const seat = state.you;
  if (seat === null || seat === undefined) return;
  const id = state.table.id;
  if (state.table.status === "match_over") {
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
    updated: all[id]?.version === state.version ? all[id].updated : Date.now(),
  };
  const before = all[id];
  if (before && JSON.stringify(before) === JSON.stringify(entry)) return;
  all[id] = entry;
  write(all);
}

export function myTables() {
  return Object.values(read()).sort((a, b) => b.updated - a.updated);
}

// The home page's list: what this device remembers, then corrected by each table's
// public facts (whose turn now, the opponent's name), or dropped when it is gone.
export async function showMyTables(section, list, strings) {
  const say = (key, params = {}) => (strings[key] || key).replace(/\{(\w+)\}/g, (m, k) => (k in params ? String(params[k]) : m));
  const render = () => {
    const tables = myTables();
    section.hidden = tables.length === 0;
    list.replaceChildren(
      ...tables.map((e) => {
        const li = document.createElement("li");
        li.className = "my-table";
        const link = document.createElement("a");
        link.href = `/t/${e.id}`;
        link.textContent = say("with", { name: e.opponent });
        const score = document.createElement("span");
        score.className = "my-score";
        score.textContent = say("score", { a: e.score[0], b: e.score[1] });
        const turn = document.createElement("span");
        turn.className = "my-turn" + (e.status === "playing" && e.turn === e.seat ? " mine" : "");
        turn.textContent =
          e.status === "waiting"
            ? say("waiting")
            : e.status === "hand_over"
              ? say("hand_over")
              : e.turn === e.seat
                ? say("your_turn")
                : say("their_turn", { name: e.opponent });
        li.append(link, score, turn);
        return li;
      }),
    );
  };
  render();
  for (const e of myTables()) {
    const answer = await fetch(`/api/tables/${encodeURIComponent(e.id)}`, { credentials: "same-origin" }).catch(() => null);
    if (!answer) continue;
    if (answer.status === 404) {
      forgetTable(e.id);
      continue;
    }
    if (!answer.ok) continue;
    const facts = await answer.json().catch(() => null);
    if (!facts) continue;
    if (facts.status === "match_over") {
      forgetTable(e.id);
      continue;
    }
    const all = read();
    const known = all[e.id];
    if (!known) continue;
    const other = (facts.players || []).find((p) => p.seat === 1 - known.seat);
    known.status = facts.status;
    known.turn = facts.turn ?? null;
    // A person's name as they chose it; the computer's as the table page put it.
    if (other?.name && !other.computer) known.opponent = other.name;
    all[e.id] = known;
    write(all);
  }
  render();
}

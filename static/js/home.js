// Home page: create a table through the API, then go to it (the seat cookie is set);
// beside the form, the tables this device holds a seat at.
import { LADDER_KEY } from "./ladder.js";
import { load, newEntropy, rememberDeal } from "./store.js";
import { deadlineOf, forgetTable, myTables, read, recordOf, write } from "./mytables.js";

const form = document.getElementById("create-table");
const strings = JSON.parse(document.getElementById("i18n").textContent);
const targetField = document.getElementById("target-field");
const errorBox = document.getElementById("create-error");

// The record against each rung, kept on this device ("won 3 of 4"), and after a win
// over a rung the next one chosen in the picker, with a line saying so.
function showLadder() {
  const all = load(LADDER_KEY);
  const rungs = [...document.querySelectorAll("#strength-levels li[data-id]")];
  for (const li of rungs) {
    const row = all[li.dataset.id];
    if (!row?.played) continue;
    const small = document.createElement("small");
    small.className = "ladder-record";
    small.textContent = ` · ${strings.ladder_won.replace("{won}", row.won).replace("{played}", row.played)}`;
    li.querySelector("strong").after(small);
  }
  const at = rungs.findIndex((li) => li.dataset.id === all.last?.id);
  const next = rungs[at + 1];
  if (!all.last?.won || at < 0 || !next) return;
  form.elements.strength.value = next.dataset.id;
  const note = document.getElementById("ladder-next");
  note.textContent = strings.ladder_next.replace("{name}", rungs[at].dataset.name).replace("{level}", next.value).replace("{next}", next.dataset.name);
  note.hidden = false;
}
showLadder();

function showTarget() {
  targetField.hidden = form.elements.scoring.value === "hand";
}
form.addEventListener("change", showTarget);
showTarget();

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const data = new FormData(form);
  const body = {
    rules: data.get("rules"),
    scoring: data.get("scoring"),
    target: Number(data.get("target")),
    name: (data.get("name") || "").trim() || strings.default_name,
    lang: document.documentElement.lang, // the link preview speaks the creator's language
  };
  if (event.submitter?.value === "computer") body.computer = data.get("strength");
  if (data.get("no_bots")) body.bots = false; // default: bots welcome
  const moveDays = Number(data.get("move_days"));
  const turnSeconds = Number(data.get("turn_seconds"));
  if (moveDays) body.move_days = moveDays; // played over days: no turn clock as well
  else if (turnSeconds) body.turn_seconds = turnSeconds; // the optional turn clock
  // This browser's part of the first deal (docs/protocol-guide.md "Deals nobody can choose").
  const entropy = newEntropy();
  if (entropy) body.entropy = entropy;
  errorBox.hidden = true;
  for (const b of form.querySelectorAll("button")) b.disabled = true;
  try {
    const response = await fetch("/api/tables", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
      credentials: "same-origin",
    });
    if (response.status !== 201) throw new Error(String(response.status));
    const answer = await response.json();
    if (entropy) rememberDeal(answer.table_id, 1, answer.next_deal?.commitment, entropy);
    location.assign(new URL(answer.url, location.href).pathname);
  } catch {
    errorBox.textContent = strings.error;
    errorBox.hidden = false;
    for (const b of form.querySelectorAll("button")) b.disabled = false;
  }
});

// The home page's list: what this device remembers, then corrected by each table's
// public facts (whose turn now, the opponent's name), or dropped when it is gone.
async function showMyTables(section, list, strings) {
  const say = (key, params = {}) => (strings[key] || key).replace(/\{(\w+)\}/g, (m, k) => (k in params ? String(params[k]) : m));
  // A count's form (`key.one`, `key.other`) by the language's own plural rules.
  const plural = new Intl.PluralRules(document.documentElement.lang || "en");
  const sayN = (key, n, params) => say(`${key}.${plural.select(n)}` in strings ? `${key}.${plural.select(n)}` : `${key}.other`, { ...params, n });
  // The matches won at this table, mine first: "You lead Bob 3–2 in matches".
  const record = (e) => {
    const r = e.record;
    if (!r || e.status === "waiting") return "";
    const n = r[0] + r[1];
    if (r[0] === r[1]) return sayN("record.level_you", n, { other: e.opponent, a: r[0] });
    if (r[0] > r[1]) return sayN("record.lead_you", n, { other: e.opponent, a: r[0], b: r[1] });
    return sayN("record.trails_you", n, { name: e.opponent, a: r[1], b: r[0] });
  };
  const mine = (e) => e.deadline != null || (e.status === "playing" && e.turn === e.seat);
  const left = (ms) => {
    const units = (unit, n) => new Intl.NumberFormat(document.documentElement.lang || "en", { style: "unit", unit, unitDisplay: "short", maximumFractionDigits: 0 }).format(n);
    if (ms >= 2 * 86400000) return units("day", Math.floor(ms / 86400000));
    if (ms >= 3600000) return units("hour", Math.floor(ms / 3600000));
    return units("minute", Math.max(0, Math.ceil(ms / 60000)));
  };
  const render = () => {
    // The tables waiting for this player first, then the most recent.
    const tables = myTables().sort((a, b) => mine(b) - mine(a));
    section.hidden = tables.length === 0;
    list.replaceChildren(
      ...tables.map((e) => {
        const li = document.createElement("li");
        li.className = "my-table";
        const link = document.createElement("a");
        link.href = `/t/${e.id}`;
        // A table still waiting for its second player has nobody to name yet.
        link.textContent = e.status === "waiting" ? say("new_table") : say("with", { name: e.opponent });
        const score = document.createElement("span");
        score.className = "my-score";
        score.textContent = e.status === "waiting" ? "" : say("score", { a: e.score[0], b: e.score[1] });
        const turn = document.createElement("span");
        turn.className = "my-turn" + (mine(e) ? " mine" : "");
        turn.textContent =
          e.deadline != null
            ? say("days_mine", { time: left(e.deadline - Date.now()) })
            : e.status === "waiting"
            ? say("waiting")
            : e.status === "hand_over"
              ? say("hand_over")
              : e.status === "match_over"
              ? say("match_over")
              : e.turn === e.seat
                ? say("your_turn")
                : say("their_turn", { name: e.opponent });
        li.append(link, score, turn);
        const words = record(e);
        if (words) {
          const line = document.createElement("span");
          line.className = "my-record";
          line.textContent = words;
          li.append(line);
        }
        if (e.last) {
          const last = document.createElement("span");
          last.className = "my-last";
          last.textContent = e.last;
          li.append(last);
        }
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
    if (facts.status === "match_over" && !facts.move_days) {
      forgetTable(e.id);
      continue;
    }
    const all = read();
    const known = all[e.id];
    if (!known) continue;
    const other = (facts.players || []).find((p) => p.seat === 1 - known.seat);
    known.status = facts.status;
    known.turn = facts.turn ?? null;
    known.deadline = deadlineOf(facts, known.seat, facts.server_time);
    known.record = recordOf(facts, known.seat);
    // A person's name as they chose it; the computer's as the table page put it.
    if (other?.name && !other.computer) known.opponent = other.name;
    all[e.id] = known;
    write(all);
  }
  render();
}

showMyTables(document.getElementById("my-tables"), document.getElementById("my-tables-list"), strings);

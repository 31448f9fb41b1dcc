// The score sheet, as on paper: the games side by side, each with a column per
// player, one row per won hand, then the labelled rows points, bonus and total.
// Columns are headed by each player's mark (an initial); the key above the table
// gives the full names, on lines of their own, so no name is ever cut or broken.
import { t } from "./i18n.js";
import { $, gamesLeadText, gamesToText, matchWinnerText, playerName, recordText } from "./render.js";

const SEATS = [0, 1];

// One short mark per player: the initials, longer while they are the same, else 1 and 2.
export function marks(names) {
  const letters = names.map((name) => Array.from(name.replace(/[\s()]+/g, "")));
  for (const length of [1, 2, 3]) {
    const cut = letters.map((l) => l.slice(0, length));
    const [a, b] = cut.map((l) => l.join("").toLocaleUpperCase());
    if (a && b && a !== b) return cut.map((l) => l[0].toLocaleUpperCase() + l.slice(1).join(""));
  }
  return ["1", "2"];
}

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function srOnly(text) {
  return el("span", "sr-only", text);
}

function markBadge(seat, mark) {
  const badge = el("span", `mark m${seat}`, mark);
  badge.setAttribute("aria-hidden", "true");
  return badge;
}

function key(names, mk) {
  const list = el("ul", "sheet-key");
  for (const s of SEATS) {
    const item = el("li");
    item.append(markBadge(s, mk[s]), el("span", "sheet-name", names[s]));
    list.append(item);
  }
  return list;
}

function table(state, games, names, mk) {
  const scoring = state.table?.scoring;
  const grid = el("table", `sheet-table games-${games.length}`);
  grid.setAttribute("aria-labelledby", "sheet-title");
  const cols = el("colgroup");
  cols.append(el("col", "label-col"));
  for (let g = 0; g < games.length * 2; g += 1) cols.append(el("col"));

  // Head: the games, then each game's two players, the winner's mark starred.
  const head = el("thead");
  const gameRow = head.insertRow();
  gameRow.append(el("td", "corner"));
  const seatRow = head.insertRow();
  seatRow.append(el("td", "corner"));
  games.forEach((game, g) => {
    const th = el("th", "game" + (game.finished ? " finished" : ""), t("game_n", { n: g + 1 }));
    th.scope = "colgroup";
    th.colSpan = 2;
    gameRow.append(th);
    for (const s of SEATS) {
      const won = game.finished && game.winner === s;
      const cell = el("th", "seat" + (won ? " winner" : "") + (s === 1 ? " last" : ""));
      cell.scope = "col";
      cell.title = names[s];
      cell.append(markBadge(s, mk[s]), srOnly(names[s]));
      if (won) {
        const star = el("span", "star", "★");
        star.setAttribute("aria-hidden", "true");
        cell.append(star, srOnly(`, ${t("won_by", { name: names[s] })}`));
      }
      seatRow.append(cell);
    }
  });

  // Body: each won hand's points, in the game they went into.
  const body = el("tbody");
  const rows = Math.max(0, ...games.flatMap((game) => SEATS.map((s) => game.seats[s].entries.length)));
  for (let r = 0; r < rows; r += 1) {
    const row = body.insertRow();
    row.append(el("td", "label"));
    for (const game of games) {
      for (const s of SEATS) {
        const value = game.seats[s].entries[r];
        row.append(el("td", s === 1 ? "last" : "", value === undefined ? "" : String(value)));
      }
    }
  }

  // Foot: points, then, once a game has finished and bonuses exist, bonus and total.
  const foot = el("tfoot");
  const labelled = (label, value, className) => {
    const row = foot.insertRow();
    row.className = className;
    const th = el("th", "label", label);
    th.scope = "row";
    row.append(th);
    for (const game of games) {
      for (const s of SEATS) {
        const won = game.finished && game.winner === s;
        row.append(el("td", (s === 1 ? "last" : "") + (won ? " winner" : ""), value(game, s)));
      }
    }
  };
  labelled(t("sheet.points"), (game, s) => String(game.seats[s].points), "points");
  if (scoring !== "hand" && games.some((game) => game.finished)) {
    labelled(t("bonus"), (game, s) => (game.finished ? String(game.seats[s].bonus) : ""), "bonus");
    labelled(t("total"), (game, s) => String(game.seats[s].points + (game.finished ? game.seats[s].bonus : 0)), "total");
  }
  grid.append(cols, head, body, foot);
  return grid;
}

function printButton() {
  let button = $("sheet-print");
  if (!button) {
    button = el("button", "button sheet-print", t("sheet.print"));
    button.type = "button";
    button.id = "sheet-print";
    button.addEventListener("click", () => window.print());
    $("sheet-totals").after(button);
  }
  return button;
}

export function renderSheet(state) {
  const sheet = state.sheet;
  const games = sheet?.games || [];
  const names = [playerName(state, 0), playerName(state, 1)];
  const mk = marks(names);
  const parts = games.length ? [key(names, mk), table(state, games, names, mk)] : [];
  $("sheet-games").replaceChildren(...parts);
  const totals = sheet?.totals || [0, 0];
  let text = `${t("total")}: ${names[0]} ${totals[0]} · ${names[1]} ${totals[1]}`;
  if (sheet && sheet.match_winner !== null && sheet.match_winner !== undefined) {
    // "— You win the match, 2 games to 1": the games decide, whatever the totals.
    text += ` — ${[matchWinnerText(state), gamesToText(state)].filter(Boolean).join(", ")}`;
  } else if (state.table?.scoring === "hollywood" && games.some((g) => g.finished)) {
    // Before the end the games won so far, which decide the match, not the totals.
    text += ` · ${gamesLeadText(state)}`;
  }
  $("sheet-totals").textContent = text;
  printButton().hidden = !games.length;
  const record = recordText(state);
  $("match-record").hidden = !record;
  $("match-record").textContent = record;
}

// The score sheet: one box per game of the sheet, both players' columns, the totals.
import { t } from "./i18n.js";
import { $, playerName } from "./render.js";

export function renderSheet(state) {
  const sheet = state.sheet;
  const games = sheet?.games || [];
  const names = [playerName(state, 0), playerName(state, 1)];
  const boxes = games.map((game, index) => {
    const box = document.createElement("div");
    box.className = "sheet-game" + (game.finished ? " finished" : "");
    const table = document.createElement("table");
    const caption = document.createElement("caption");
    caption.textContent = t("game_n", { n: index + 1 }) + (game.finished && game.winner !== null ? ` · ${t("won_by", { name: names[game.winner] })}` : "");
    const head = document.createElement("thead");
    const headRow = head.insertRow();
    for (const name of names) {
      const th = document.createElement("th");
      th.scope = "col";
      th.textContent = name;
      th.title = name; // narrow columns cut long names with an ellipsis
      headRow.append(th);
    }
    const body = document.createElement("tbody");
    const rows = Math.max(game.seats[0].entries.length, game.seats[1].entries.length);
    for (let r = 0; r < rows; r += 1) {
      const row = body.insertRow();
      for (const s of [0, 1]) row.insertCell().textContent = game.seats[s].entries[r] ?? "";
    }
    const foot = document.createElement("tfoot");
    const points = foot.insertRow();
    for (const s of [0, 1]) points.insertCell().textContent = String(game.seats[s].points);
    if (game.finished) {
      const bonus = foot.insertRow();
      for (const s of [0, 1]) bonus.insertCell().textContent = `+${game.seats[s].bonus}`;
      bonus.title = t("bonus");
    }
    table.append(caption, head, body, foot);
    box.append(table);
    return box;
  });
  $("sheet-games").replaceChildren(...boxes);
  const totals = sheet?.totals || [0, 0];
  let text = `${t("total")}: ${names[0]} ${totals[0]} · ${names[1]} ${totals[1]}`;
  if (sheet && sheet.match_winner !== null && sheet.match_winner !== undefined) {
    text += ` — ${t("match_winner", { name: names[sheet.match_winner] })}`;
  }
  $("sheet-totals").textContent = text;
}

// The views: the table as the state shows it (which boxes are open, the options, the
// seats, the rows, the piles, the log, the hand and its buttons), the result of a
// hand, the screen of a finished game. They draw only: they send nothing and say
// nothing (table.js decides, announce.js speaks).
import { cardElement } from "./cards.js";
import { checkDeal, dealRecord, deckMatches } from "./fairness.js";
import { cardName, list, t, tn } from "./i18n.js";
import { $, bonusTable, gamesToText, knownCards, matchWinnerText, player, playerName, renderLog, renderPiles, renderResult, renderRow, renderSeatHead } from "./render.js";
import { renderSheet } from "./sheet.js";
import { play } from "./sound.js";
import { showSummary } from "./summary.js";
import { readyText } from "./announce.js";
import { meldGroups } from "./hand.js";
import { handKey, once } from "./prefs.js";

const optionNames = JSON.parse($("option-names").textContent);
export const seatedIn = (s) => Boolean(s) && s.you !== null && s.you !== undefined;

// The seat shown at the top (the opponent; seat 1 to a spectator) and at the bottom.
export function seats(s) {
  const seated = seatedIn(s);
  return { top: seated ? 1 - s.you : 1, bottom: seated ? s.you : 0, seated };
}

// "Standard, Hollywood to 100" (no target for a single hand).
export function optionWords(s) {
  const table = s.table;
  return [optionNames[table.rules] || table.rules, optionNames[table.scoring] || table.scoring, table.scoring === "hand" ? "" : ` ${optionNames.target.replace("{n}", table.target)}`];
}

// `ui`: the page's own part (table.js): legal moves, the hand's order, the status line...
export function renderPage(s, ui) {
  const { seated } = seats(s);
  const status = s.table.status;
  const canJoin = !seated && (s.table.players || []).filter((p) => p.name).length < 2;
  $("invite").hidden = !(seated && status === "waiting");
  $("join").hidden = !canJoin || ui.watching;
  $("watching-box").hidden = seated || (canJoin && !ui.watching);
  $("join-instead").hidden = !canJoin;
  const [rules, scoring, target] = optionWords(s);
  if (canJoin) $("join-title").textContent = t("invite", { name: playerName(s, 0), rules: `${rules}, ${scoring}${target}` });
  for (const id of ["board", "log-toggle", "log-box"]) $(id).hidden = !s.hand;
  $("board").classList.toggle("spectating", !seated);
  $("opt-rules").textContent = rules;
  $("opt-scoring").textContent = scoring;
  $("opt-target").textContent = target;
  const limit = s.hand?.knock_limit;
  $("opt-limit").textContent = limit === undefined || limit === null ? "" : ` · ${t("knock_limit", { n: limit })}`;
  renderSheet(s);
  if (s.hand) renderBoard(s, ui);
  // A program at the table is named on the invitation and, while the match lasts, on the table.
  const host = player(s, 0);
  const invite = $("join-bot");
  invite.hidden = !(canJoin && host?.bot);
  invite.textContent = invite.hidden ? "" : t("bot_note", { name: host.name });
  const opp = seated ? player(s, 1 - s.you) : null;
  const note = $("bot-note");
  note.hidden = !opp?.bot;
  note.textContent = opp?.bot ? t("bot_note", { name: opp.name }) : "";
}

export function renderHeads(s, online) {
  const { top, bottom } = seats(s);
  renderSeatHead(s, top, "opp", online);
  renderSeatHead(s, bottom, "me", online);
}

function renderBoard(s, ui) {
  const hand = s.hand;
  const { top, bottom, seated } = seats(s);
  renderHeads(s, ui.online);
  const counts = hand.card_counts || [];
  const oppCount = seated ? hand.opponent_card_count : counts[top] ?? 10;
  const known = hand.phase === "over" ? [] : knownCards(s, top);
  renderRow($("opp-cards"), oppCount, known);
  const holds = known.length ? ` ${t("holds", { name: playerName(s, top), cards: list(known.map(cardName)) })}` : "";
  $("opp-count").textContent = `${playerName(s, top)}: ${tn("cards_count", oppCount)}.${holds}`;
  renderPiles(s, ui.kinds);
  renderLog(s);
  $("offer").hidden = !(ui.kinds.has("take_upcard") || ui.kinds.has("pass"));
  $("take").textContent = t("take");
  $("pass").textContent = t("pass");
  if (seated && hand.my_cards) renderHand(s, ui);
  else {
    // A spectator never sees a hand: the bottom seat is shown as backs.
    const box = $("hand");
    box.setAttribute("aria-label", t("hand_of", { name: playerName(s, bottom) }));
    renderRow(box, counts[bottom] ?? 10, hand.phase === "over" ? [] : knownCards(s, bottom));
    box.classList.add("backs");
    $("deadwood").textContent = "";
  }
  $("hand-tools").hidden = !seated;
  $("keys-hint").hidden = !seated;
  // Knock (with the least deadwood on offer) and gin, each only where legal.
  const knocks = ui.legal.filter((a) => a.kind === "knock");
  const plain = knocks.filter((k) => k.deadwood > 0);
  $("knock").hidden = !plain.length;
  if (plain.length) $("knock").textContent = t("knock", { deadwood: Math.min(...plain.map((k) => k.deadwood)) });
  $("gin").hidden = plain.length === knocks.length;
  $("gin").textContent = t("gin");
  $("status").textContent = ui.line;
  if (hand.deck_commitment) {
    $("fingerprint").textContent = t("fingerprint", { hash: hand.deck_commitment.slice(0, 16) });
    $("fingerprint").title = hand.deck_commitment;
  }
}

export function renderHand(s, ui) {
  const box = $("hand");
  box.classList.remove("backs");
  box.setAttribute("aria-label", t("your_hand"));
  const discardable = new Set(ui.legal.filter((a) => a.kind === "discard").map((a) => a.card));
  const drawn = new Set(s.hand.phase === "discard" && s.hand.turn === s.you ? ui.arrived : []);
  ui.focus = Math.max(0, Math.min(ui.focus, ui.order.length - 1));
  let index = 0;
  const { groups, meldOf } = meldGroups(ui.order, s.hand.my_melds);
  const children = groups.map((g) => {
    // Each meld, and each run of loose cards, is a group with a gap around it.
    const wrap = document.createElement("div");
    wrap.className = g.meld === null ? "group loose" : `group meld m${g.meld % 4}`;
    if (g.meld !== null) {
      wrap.setAttribute("role", "group");
      wrap.setAttribute("aria-label", t("meld_n", { n: g.meld + 1 }));
    }
    for (const card of g.cards) {
      const el = cardElement(card, { tag: "button" });
      el.dataset.index = String(index);
      el.tabIndex = index === ui.focus ? 0 : -1;
      if (discardable.has(card)) el.classList.add("can");
      if (meldOf.has(card)) el.classList.add("in-meld", `m${meldOf.get(card) % 4}`);
      if (drawn.has(card)) {
        el.classList.add("drawn");
        el.querySelector(".sr-only").textContent = `${cardName(card)} (${t("just_drawn")})`;
      }
      el.setAttribute("aria-disabled", String(!discardable.has(card)));
      wrap.append(el);
      index += 1;
    }
    return wrap;
  });
  const hadFocus = box.contains(document.activeElement);
  box.replaceChildren(...children);
  // The focus stays on its card, and the page where it is: a state never scrolls.
  if (hadFocus) box.querySelector(`[data-index="${ui.focus}"]`)?.focus({ preventScroll: true });
  const deadwood = s.hand.my_deadwood;
  $("deadwood").textContent = deadwood === undefined || deadwood === null ? "" : t("deadwood", { n: deadwood });
  for (const b of document.querySelectorAll("[data-sort]")) b.setAttribute("aria-pressed", String(!ui.manual && b.dataset.sort === ui.mode));
}

// The result panel; returns the result in words ("" before the hand's end).
export function renderEnd(s, ui) {
  const hand = s.hand;
  const id = s.table.id;
  const matchOver = s.table.status === "match_over";
  // The sheet of a finished match links the replay of each hand played at this table.
  const played = matchOver && hand ? hand.number : 0;
  const reviews = $("sheet-reviews");
  reviews.hidden = !played;
  const links = Array.from({ length: played }, (_, i) => {
    const a = document.createElement("a");
    a.href = `/t/${id}/hands/${i + 1}`;
    a.textContent = t("review_link", { n: i + 1 });
    return a;
  });
  reviews.replaceChildren(...(played ? [t("review_hands"), " ", ...links.flatMap((a, i) => (i ? [" · ", a] : [a]))] : []));
  const over = Boolean(hand?.phase === "over" && hand.result);
  $("result").hidden = !over && !matchOver;
  if (!over) return "";
  const summary = renderResult(s);
  $("next-hand").hidden = !ui.kinds.has("next_hand");
  $("rematch").hidden = !ui.kinds.has("new_match");
  // "You win the match, 2 games to 1" (the games only where there are three).
  const matchLine = matchOver ? [matchWinnerText(s), gamesToText(s)].filter(Boolean).join(", ") : "";
  $("ready-status").textContent = [matchLine, readyText(s)].filter(Boolean).join(". ");
  const review = $("review-link");
  review.hidden = false;
  review.href = `/t/${id}/hands/${hand.number}`;
  const link = $("download");
  link.hidden = false;
  link.href = `/api/tables/${id}/hands/${hand.number}`;
  link.setAttribute("download", `hollywood-gin-${id}-hand-${hand.number}.json`);
  link.textContent = t("download", { n: hand.number });
  return summary;
}

// The deal checked once per hand: by this browser's own part in it where it added
// one, else by the fingerprint alone.
export async function verifyDeal(s) {
  const hand = s.hand;
  const reveal = hand.result.deck_reveal;
  const verify = $("verify");
  const record = seatedIn(s) ? dealRecord(s.table.id, hand.number) : null;
  const problems = await checkDeal(record, s.you, hand.deck_commitment, reveal);
  if (problems === null) {
    const ok = await deckMatches(hand.deck_commitment, reveal);
    verify.classList.toggle("ok", ok === true);
    verify.classList.toggle("bad", ok === false);
    verify.textContent = ok === null ? "" : t(ok ? "verified" : "not_verified");
  } else {
    verify.classList.toggle("ok", !problems.length);
    verify.classList.toggle("bad", problems.length > 0);
    verify.textContent = problems.length ? t("deal_warning", { what: problems.map((p) => t(`deal_problem.${p}`)).join("; ") }) : t("deal_checked");
  }
  if (reveal) verify.title = reveal.server_secret ? `salt ${reveal.salt}, server secret ${reveal.server_secret}` : `salt ${reveal.salt}`;
}

// On a phone the result lies over the table, with "Next hand" at the bottom of the
// screen, and can be folded down to its title and buttons to look at the table.
export const phone = matchMedia("(max-width: 40rem), (orientation: landscape) and (max-height: 32rem)");

export function foldResult(ui, folded) {
  ui.folded = folded;
  $("result").classList.toggle("folded", folded);
  $("result-fold").setAttribute("aria-expanded", String(!folded));
  $("result-fold").textContent = folded ? t("show_result") : t("show_table");
}

// A finished game of the sheet, or the end of the match, gets a screen of its own,
// once per tab.
export function showMoment(s, kinds) {
  const sheet = s.sheet;
  const matchOver = s.table.status === "match_over";
  const finished = s.table.scoring === "hand" ? [] : (s.hand.result.games || []).filter((g) => sheet.games[g]?.finished);
  if ((!matchOver && !finished.length) || !once(`gin.moment.${handKey(s)}`)) return;
  const names = [playerName(s, 0), playerName(s, 1)];
  $("moment-title").textContent = matchOver ? matchWinnerText(s) : list(finished.map((g) => t("game_won", { game: t("game_n", { n: g + 1 }), name: names[sheet.games[g].winner] })));
  // The games score where there are games to count: "2 games to 1" at the match's
  // end, "Games: Ann 1 – 0 Bob" when one of Hollywood's three has finished.
  const won = [0, 1].map((seat) => sheet.games.filter((g) => g.finished && g.winner === seat).length);
  const score = s.table.scoring !== "hollywood" ? "" : matchOver ? gamesToText(s) : t("games_score", { a: won[0], b: won[1], name0: names[0], name1: names[1] });
  $("moment-score").textContent = score;
  $("moment-score").hidden = !score;
  const bonuses = bonusTable(s, matchOver ? sheet.games.map((_, i) => i) : finished);
  $("moment-lines").replaceChildren(...(bonuses ? [bonuses] : []));
  $("moment-totals").textContent = `${t("total")}: ${names[0]} ${sheet.totals[0]} · ${names[1]} ${sheet.totals[1]}`;
  $("moment-summary").replaceChildren();
  if (matchOver) showSummary($("moment-summary"), s);
  $("moment-rematch").hidden = !kinds.has("new_match");
  const dialog = $("moment");
  dialog.classList.toggle("mine", seatedIn(s) && (matchOver ? sheet.match_winner : sheet.games[finished[0]].winner) === s.you);
  if (!dialog.open) dialog.showModal();
  play("won");
}

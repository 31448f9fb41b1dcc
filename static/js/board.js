// The views: the table, the hand, the result and the screen of a finished game, as
// the state and `ui` (table.js) show them. They send nothing and say nothing.
import { cardElement } from "./cards.js";
import { cardName, list, t, tn } from "./i18n.js";
import { $, bonusTable, gameWonText, gamesLeadText, gamesToText, knownCards, matchWinnerText, player, playerName, recordText, renderLog, renderPiles, renderResult, renderRow, renderSeatHead, seatedIn } from "./render.js";
import { renderSheet } from "./sheet.js";
import { play } from "./motion.js";
import { readyText } from "./announce.js";
import { meldGroups } from "./hand.js";
import { dealRecord, handKey, once } from "./store.js";

const optionNames = JSON.parse($("option-names").textContent);

// The record on a match's end screens: from the second match on (after the first it
// would only repeat the winner above it; a single hand's screen says no "match").
function endRecord(s) {
  const won = s.table.matches_won;
  return won && won[0] + won[1] > 1 ? recordText(s) : "";
}

export function seats(s) {
  const seated = seatedIn(s);
  return { top: seated ? 1 - s.you : 1, bottom: seated ? s.you : 0, seated };
}

export function renderPage(s, ui) {
  const { seated } = seats(s);
  const status = s.table.status;
  const canJoin = !seated && (s.table.players || []).filter((p) => p.name).length < 2;
  $("invite").hidden = !(seated && status === "waiting");
  $("join").hidden = !canJoin || ui.watching;
  $("watching-box").hidden = seated || (canJoin && !ui.watching);
  $("join-instead").hidden = !canJoin;
  const { rules, scoring, target } = s.table;
  const words = [optionNames[rules] || rules, optionNames[scoring] || scoring, scoring === "hand" ? "" : ` ${optionNames.target.replace("{n}", target)}`];
  if (canJoin) $("join-title").textContent = t("invite", { name: playerName(s, 0), rules: `${words[0]}, ${words[1]}${words[2]}` });
  for (const id of ["board", "log-toggle", "log-box"]) $(id).hidden = !s.hand;
  $("board").classList.toggle("spectating", !seated);
  ["opt-rules", "opt-scoring", "opt-target"].forEach((id, i) => ($(id).textContent = words[i]));
  const limit = s.hand?.knock_limit;
  $("opt-limit").textContent = limit === undefined || limit === null ? "" : ` · ${t("knock_limit", { n: limit })}`;
  renderSheet(s);
  if (s.hand) renderBoard(s, ui);
  const botNote = (id, p) => {
    $(id).hidden = !p?.bot;
    $(id).textContent = p?.bot ? t("bot_note", { name: p.name }) : "";
  };
  botNote("join-bot", canJoin && player(s, 0));
  botNote("bot-note", seated && player(s, 1 - s.you));
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
  // A board's button for one action kind (`data-act`) shows when `legal` offers it.
  for (const b of $("board").querySelectorAll("[data-act]")) b.hidden = !ui.kinds.has(b.dataset.act);
  $("take").textContent = t("take");
  $("pass").textContent = t("pass");
  if (seated && hand.my_cards) renderHand(s, ui);
  else {
    const box = $("hand");
    box.setAttribute("aria-label", t("hand_of", { name: playerName(s, bottom) }));
    renderRow(box, counts[bottom] ?? 10, hand.phase === "over" ? [] : knownCards(s, bottom));
    box.classList.add("backs");
    $("deadwood").textContent = "";
  }
  $("hand-tools").hidden = !seated;
  $("keys-hint").hidden = !seated;
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
  // The focus stays on its card; a state never scrolls.
  if (hadFocus) box.querySelector(`[data-index="${ui.focus}"]`)?.focus({ preventScroll: true });
  const deadwood = s.hand.my_deadwood;
  $("deadwood").textContent = deadwood === undefined || deadwood === null ? "" : t("deadwood", { n: deadwood });
  for (const b of document.querySelectorAll("[data-sort]")) b.setAttribute("aria-pressed", String(!ui.manual && b.dataset.sort === ui.mode));
}

// Returns the result in words ("" before the hand's end).
export function renderEnd(s, ui) {
  const hand = s.hand;
  const id = s.table.id;
  const matchOver = s.table.status === "match_over";
  // Finished hands only: one ended by a resign or claim has no record.
  const played = matchOver && hand ? hand.number - (hand.phase === "over" ? 0 : 1) : 0;
  const reviews = $("sheet-reviews");
  reviews.hidden = !played;
  const links = Array.from({ length: played }, (_, i) => {
    const a = document.createElement("a");
    a.href = `/t/${id}/hands/${i + 1}`;
    a.textContent = t("review_link", { n: i + 1 });
    return [i ? " · " : " ", a];
  });
  reviews.replaceChildren(...(played ? [t("review_hands"), ...links.flat()] : []));
  const over = Boolean(hand?.phase === "over" && hand.result);
  $("result").hidden = !over && !matchOver;
  const open = $("summary-open");
  open.hidden = !matchOver;
  open.textContent = t(s.table.scoring === "hollywood" ? "summary.title" : "summary.title_game");
  // At a match's end, however it ended: the record between the two at this table.
  const record = matchOver ? endRecord(s) : "";
  $("result-record").hidden = !record;
  $("result-record").textContent = record;
  if (!over) return "";
  const summary = renderResult(s);
  $("next-hand").hidden = !ui.kinds.has("next_hand");
  $("rematch").hidden = !ui.kinds.has("new_match");
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

// The match summary, loaded when it is first shown (its weight stays off the page).
export async function showSummary(container, s) {
  (await import("./summary.js")).showSummary(container, s);
}

// The deal checked: by this browser's part in it, else by the fingerprint. The
// checking code is loaded when a hand ends.
export async function verifyDeal(s) {
  const { checkDeal, deckMatches } = await import("./fairness.js");
  const hand = s.hand;
  const reveal = hand.result.deck_reveal;
  const verify = $("verify");
  const record = seatedIn(s) ? dealRecord(s.table.id, hand.number) : null;
  const problems = await checkDeal(record, s.you, hand.deck_commitment, reveal);
  const ok = problems ? !problems.length : await deckMatches(hand.deck_commitment, reveal);
  verify.classList.toggle("ok", ok === true);
  verify.classList.toggle("bad", ok === false);
  if (problems) verify.textContent = ok ? t("deal_checked") : t("deal_warning", { what: problems.map((p) => t(`deal_problem.${p}`)).join("; ") });
  else verify.textContent = ok === null ? "" : t(ok ? "verified" : "not_verified");
  if (reveal) verify.title = reveal.server_secret ? `salt ${reveal.salt}, server secret ${reveal.server_secret}` : `salt ${reveal.salt}`;
  showFacts(s, record, reveal);
}

// The numbers the check compared, and the command that checks them again
// (`hollywood-gin verify`); only for a deal derived from secrets (not test decks).
function showFacts(s, record, reveal) {
  const box = $("verify-facts");
  box.hidden = !reveal?.server_secret;
  if (box.hidden) return;
  const hand = s.hand;
  const commitment = record?.commitment || "";
  const mine = seatedIn(s) ? record?.entropy || "" : "";
  $("vf-commitment").textContent = commitment || "–";
  $("vf-secret").textContent = reveal.server_secret;
  $("vf-entropy").textContent = [0, 1].map((seat) => `${seat === s.you ? t("you") : playerName(s, seat)}: ${reveal.entropy?.[seat] || "–"}`).join(" · ");
  $("vf-deck").textContent = hand.deck_commitment;
  const file = `hollywood-gin-${s.table.id}-hand-${hand.number}.json`;
  $("vf-command").textContent = ["hollywood-gin verify", file, commitment && `--commitment ${commitment}`, mine && `--entropy ${mine}`].filter(Boolean).join(" ");
}

// On a phone the result lies over the table and folds down to its buttons.
export const phone = matchMedia("(max-width: 40rem), (orientation: landscape) and (max-height: 32rem)");

export function foldResult(ui, folded) {
  ui.folded = folded;
  $("result").classList.toggle("folded", folded);
  $("result-fold").setAttribute("aria-expanded", String(!folded));
  $("result-fold").textContent = folded ? t("show_result") : t("show_table");
}

// A finished game, or the match's end, gets a screen of its own, once per tab.
export function showMoment(s, kinds, again) {
  const sheet = s.sheet;
  const matchOver = s.table.status === "match_over";
  const finished = s.table.scoring === "hand" ? [] : (s.hand.result.games || []).filter((g) => sheet.games[g]?.finished);
  if ((!matchOver && !finished.length) || (!once(`gin.moment.${handKey(s)}`) && !again)) return;
  openMoment(s, kinds, {
    title: matchOver ? matchWinnerText(s) : list(finished.map((g) => gameWonText(s, g))),
    score: s.table.scoring !== "hollywood" ? "" : matchOver ? gamesToText(s) : gamesLeadText(s),
    bonuses: bonusTable(s, matchOver ? sheet.games.map((_, i) => i) : finished),
    summary: matchOver,
    winner: matchOver ? sheet.match_winner : sheet.games[finished[0]].winner,
  });
  if (!again) play("won");
}

export function openMoment(s, kinds, { title, score, bonuses, summary, winner }) {
  const names = [playerName(s, 0), playerName(s, 1)];
  $("moment-title").textContent = title;
  $("moment-score").textContent = score;
  $("moment-score").hidden = !score;
  $("moment-lines").replaceChildren(...(bonuses ? [bonuses] : []));
  $("moment-totals").textContent = `${t("total")}: ${names[0]} ${s.sheet.totals[0]} · ${names[1]} ${s.sheet.totals[1]}`;
  const record = s.table.status === "match_over" ? endRecord(s) : "";
  $("moment-record").textContent = record;
  $("moment-record").hidden = !record;
  $("moment-summary").replaceChildren();
  if (summary) showSummary($("moment-summary"), s);
  $("moment-rematch").hidden = !kinds.has("new_match");
  const dialog = $("moment");
  dialog.classList.toggle("mine", seatedIn(s) && winner === s.you);
  if (!dialog.open) dialog.showModal();
}

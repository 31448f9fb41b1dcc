// Around the match (docs/protocol-guide.md "Around the match"): the turn clock (the
// server's deadline and time, never this device's clock alone), the away time and the
// claim it opens, resigning, how a match ended, and reactions: sub-controllers of the
// table controller (table.js), which keep what they count; `draw*` only draw.
import { t, tn } from "./i18n.js";
import { $, gamesLeadText, player, playerName, seatedIn } from "./render.js";
import { openMoment } from "./board.js";
import { flag, handKey, once, setFlag } from "./store.js";
import { play } from "./motion.js";
import { readyText } from "./announce.js";

const HURRY_MS = 10000;

// "1:05", "1:02:05".
function format(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  const two = (n) => String(n).padStart(2, "0");
  return s < 3600 ? `${Math.floor(s / 60)}:${two(s % 60)}` : `${Math.floor(s / 3600)}:${two(Math.floor(s / 60) % 60)}:${two(s % 60)}`;
}

// Draws the turn clock `current` ({ prefix, deadline }: null hides both); returns the
// time left on it.
function drawClock(current) {
  let left = null;
  for (const prefix of ["opp", "me"]) {
    const el = $(`${prefix}-clock`);
    if (!current || current.prefix !== prefix) {
      el.hidden = true;
      el.classList.remove("hurry");
      continue;
    }
    left = current.deadline - Date.now();
    el.hidden = false;
    el.textContent = format(left);
    el.setAttribute("aria-label", t("clock_left", { time: format(left) }));
    el.classList.toggle("hurry", left <= HURRY_MS);
  }
  return left;
}

// A table played over days: "Your move · 23 h left" (whole hours or days, in the
// browser's own CLDR units), under an hour a live countdown; from the server's time.
const units = (unit, n) => new Intl.NumberFormat(document.documentElement.lang || "en", { style: "unit", unit, unitDisplay: "short", maximumFractionDigits: 0 }).format(n);
export function timeLeft(ms) {
  if (ms >= 2 * 86400000) return units("day", Math.floor(ms / 86400000));
  if (ms >= 3600000) return units("hour", Math.floor(ms / 3600000));
  return format(ms);
}

function drawDays(days) {
  const el = $("days-left");
  if (!days) {
    el.hidden = true;
    return;
  }
  const left = days.deadline - Date.now();
  el.hidden = false;
  const time = timeLeft(left);
  el.textContent = left <= 0 ? t(days.mine ? "days.late_you" : "days.late", { name: days.name }) : days.mine ? t("days.mine", { time }) : t("days.theirs", { name: days.name, time });
  el.classList.toggle("mine", days.mine);
  el.classList.toggle("hurry", left < 3600000);
}

// The turn clock and a table's days. A move the clock made is the status line's
// ("Bob's time ran out: the computer passed", render.js describeEvent).
export class Clock {
  constructor(table) {
    this.table = table;
    this.current = null; // { prefix, mine, deadline (this device's ms), key }
    this.warned = null;
    this.timer = null;
    this.days = null; // { deadline (this device's ms), mine, name }
    this.daysTimer = null;
  }

  paint() {
    const current = this.current;
    const left = drawClock(current);
    if (left > 0 && left <= HURRY_MS && current.mine && this.warned !== current.key) {
      this.warned = current.key;
      play("hurry");
      this.table.say(t("clock_hurry"));
    }
  }

  render(state) {
    const hand = state.hand;
    const seated = seatedIn(state);
    const players = state.table.players || [];
    const asked = players.find((p) => p.deadline != null && (p.seat === state.you || players.every((q) => q.seat === p.seat || q.deadline == null)));
    if (!state.table.move_days || !state.server_time || !asked) {
      this.days = null;
    } else {
      this.days = { deadline: asked.deadline + (Date.now() - state.server_time), mine: seated && asked.seat === state.you, name: playerName(state, asked.seat) };
      this.daysTimer ||= setInterval(() => drawDays(this.days), 1000);
    }
    drawDays(this.days);
    // Between hands the clock times the seat someone is waiting for (its next_hand or
    // new_match): the one not yet ready.
    const ready = state.ready || [false, false];
    const waited = hand && hand.phase === "over" ? (ready[0] === ready[1] ? null : ready.indexOf(false)) : hand && hand.turn;
    if (!state.server_time || !hand || hand.turn_deadline == null || waited == null) {
      this.current = null;
      return this.paint();
    }
    const offset = Date.now() - state.server_time; // this device's clock minus the server's
    const bottom = seated ? state.you : 0;
    this.current = {
      prefix: waited === bottom ? "me" : "opp",
      mine: seated && waited === state.you,
      deadline: hand.turn_deadline + offset,
      key: `${state.version}`,
    };
    this.paint();
    this.timer ||= setInterval(() => this.paint(), 250);
  }
}

const underWay = (s) => s.table.status === "playing" || s.table.status === "hand_over";

// Resigning, the away time and the claim or stand-in it opens, how a match ended.
export class Ending {
  constructor(table) {
    this.table = table;
    this.state = null;
    this.receivedAt = 0;
    this.pending = null; // the action the confirmation dialog asks about
    this.announcedOpen = false;
  }

  // As `legal` lists it, or as the away time counted here opens it (the server's agrees).
  action(kind) {
    return this.table.legalFor(kind)[0] || (this.due(this.state) && { kind });
  }

  mount() {
    const table = this.table;
    $("resign").textContent = t("resign");
    $("claim").textContent = t("claim");
    $("end-confirm-no").textContent = t("keep_playing");
    $("resign").addEventListener("click", () => this.confirm("resign"));
    $("claim").addEventListener("click", () => this.confirm("claim"));
    $("stand-in").addEventListener("click", () => {
      const a = this.action("stand_in");
      if (a) table.send(a);
    });
    $("end-confirm").addEventListener("close", () => {
      const kind = this.pending;
      this.pending = null;
      if ($("end-confirm").returnValue !== "yes" || !kind) return;
      const a = this.action(kind);
      if (a) table.send(a);
    });
    setInterval(() => this.state && table.say(this.paintAway(this.state, table.ui.kinds)), 1000);
  }

  confirm(kind) {
    const state = this.state;
    if (!state || !this.action(kind)) return;
    const other = playerName(state, 1 - state.you);
    this.pending = kind;
    $("end-confirm-title").textContent = t(`confirm_${kind}_title`);
    $("end-confirm-text").textContent = t(`confirm_${kind}_text`, { name: other });
    $("end-confirm-yes").textContent = kind === "resign" ? t("resign") : t("claim");
    const dialog = $("end-confirm");
    dialog.returnValue = "";
    if (!dialog.open) dialog.showModal();
  }

  // Seconds away (null: here): the state's `away_seconds` and the time since it came.
  // A table played over days: nobody is away for want of a connection (the deadline says).
  awaySeconds(s, seat) {
    const p = player(s, seat);
    return s.table.move_days || !p || p.computer || p.away_seconds == null ? null : p.away_seconds + (Date.now() - this.receivedAt) / 1000;
  }

  claimIn(s) {
    const secs = seatedIn(s) && underWay(s) ? this.awaySeconds(s, 1 - s.you) : null;
    return secs === null ? null : this.table.config.claim_after - secs;
  }

  due(s) {
    return Boolean(s) && this.claimIn(s) !== null && this.claimIn(s) <= 0;
  }

  // "Bob left 0:45 ago · you can claim in 1:15", live.
  awayText(s, seat) {
    const p = player(s, seat);
    if (!p || p.computer || !p.name) return "";
    const name = playerName(s, seat);
    const secs = this.awaySeconds(s, seat);
    if (secs !== null) {
      const text = t("away_for", { name, time: format(Math.floor(secs) * 1000) });
      const wait = this.claimIn(s);
      return wait > 0 ? `${text} · ${t("claim_in", { time: format(wait * 1000) })}` : text;
    }
    if ((p.timeouts ?? 0) >= 3) return tn("away_timeouts", p.timeouts, { name });
    return "";
  }

  // The away line and the choices it opens; returns what to say as they open.
  paintAway(s, kinds) {
    const top = seatedIn(s) ? 1 - s.you : 1;
    const away = $("opp-away");
    const text = this.awayText(s, top);
    if (text) away.textContent = text;
    away.hidden = !text && !away.textContent;
    const stood = player(s, top)?.stand_in;
    const due = this.due(s);
    const claim = kinds.has("claim") || due;
    const standIn = kinds.has("stand_in") || (due && !stood);
    const open = claim || standIn;
    $("endings").hidden = !open;
    let said = "";
    if (open) {
      const other = playerName(s, top);
      const line = text ? `${text}. ${standIn ? t("endings_open", { name: other }) : t("endings_claim_only")}` : t("endings_claim_only");
      $("endings-text").textContent = line;
      $("claim").hidden = !claim;
      $("stand-in").hidden = !standIn;
      $("stand-in").textContent = t("stand_in", { name: other });
      if (!this.announcedOpen) said = line;
    }
    this.announcedOpen = open;
    return said;
  }

  // Returns what to say.
  render(s, kinds) {
    this.state = s;
    this.receivedAt = Date.now();
    const said = this.paintAway(s, kinds);
    const text = endedText(s);
    drawEnding(s, kinds, text);
    // Once per ended match on this tab, whatever changes after.
    if (!text || !once(`gin.ended.${handKey(s)}`)) return said;
    showEndedMoment(s, kinds, text);
    return text;
  }
}

// "Bob resigned." / "You claimed the match while Bob was away."
function endedText(s) {
  const ended = s.table.ended;
  if (!ended) return "";
  const you = seatedIn(s) && ended.seat === s.you;
  const name = playerName(s, ended.seat);
  const other = playerName(s, 1 - ended.seat);
  if (ended.by === "resign") return you ? t("ended.resign_you") : t("ended.resign", { name });
  return you ? t("ended.claim_you", { other }) : t("ended.claim", { name, other });
}

function winnerText(s) {
  const winner = s.sheet?.match_winner;
  return winner === null || winner === undefined ? "" : t("match_winner", { name: playerName(s, winner) });
}

// Resign, the stand-in note and how the match ended (`text`): the result panel,
// the sheet, the match screen.
function drawEnding(s, kinds, text) {
  const status = s.table.status;
  $("match-tools").hidden = !seatedIn(s) || status === "waiting";
  $("resign").hidden = !kinds.has("resign");
  const stood = (s.table.players || []).filter((p) => p.stand_in);
  const note = $("stand-in-note");
  note.hidden = !stood.length || !underWay(s);
  note.textContent = stood.map((p) => t("stand_in_on", { name: playerName(s, p.seat) })).join(" · ");
  for (const id of ["ended-note", "sheet-ended", "moment-ended"]) {
    $(id).hidden = !text;
    $(id).textContent = text;
  }
  const hand = s.hand;
  const early = Boolean(text) && hand?.phase !== "over";
  // Ended mid-hand: the result panel is a slim bar (who won, Rematch, the summary).
  $("result").classList.toggle("slim", early);
  if (!text) return;
  if (early) {
    // Ended in the middle of a hand: no result to show, only who won and how; the
    // board shows nobody to move.
    $("result-title").textContent = winnerText(s) || text;
    $("status").textContent = text;
    for (const id of ["opponent", "me"]) $(id).classList.remove("turn");
    for (const id of ["result-math", "result-points", "result-layoffs", "result-games", "verify"]) $(id).textContent = "";
    $("ready-status").textContent = readyText(s);
    $("verify-facts").hidden = true;
    $("result-bonuses").replaceChildren();
    $("result-hands").replaceChildren();
    $("download").hidden = true;
  }
  $("next-hand").hidden = true;
  $("rematch").hidden = !kinds.has("new_match");
}

// The match screen for a match that ended by resign or claim.
export function showEndedMoment(s, kinds, text = endedText(s)) {
  openMoment(s, kinds, {
    title: winnerText(s) || text,
    score: s.table.scoring === "hollywood" ? gamesLeadText(s) : "",
    summary: true, // the match so far (hands won, gins, time played)
    winner: s.sheet.match_winner,
  });
}

// ---------- Reactions ----------
export const REACTIONS = ["hello", "gg", "nice", "thanks", "oops", "thinking", "hurry", "rematch"];
const SHOWN_MS = 4000;
const GAP_MS = 2000; // the server takes one per seat per 2 s

const prefixOf = (state, seat) => (seat === (seatedIn(state) ? state.you : 0) ? "me" : "opp");

// The bar sends; a `reaction` frame shows near its seat for a few seconds and is
// spoken, unless muted.
export class Reactions {
  constructor(table) {
    this.table = table;
    this.timers = new Map();
    this.live = null;
    this.lastSent = -Infinity;
  }

  muteKey(seat) {
    return `gin.mute_reactions.${this.table.config.table_id}.${seat}`;
  }

  mount() {
    const live = (this.live = document.createElement("div"));
    live.className = "sr-only";
    live.setAttribute("aria-live", "polite");
    live.id = "reaction-live";
    document.body.append(live);
    const bar = $("reaction-bar");
    for (const reaction of REACTIONS) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "reaction";
      button.dataset.reaction = reaction;
      button.textContent = t(`reaction.${reaction}`);
      button.addEventListener("click", () => {
        if (performance.now() - this.lastSent < GAP_MS) return;
        if (!this.table.socket.send({ type: "react", reaction })) return;
        this.lastSent = performance.now();
        bar.classList.add("resting");
        setTimeout(() => bar.classList.remove("resting"), GAP_MS);
      });
      bar.append(button);
    }
    $("reactions-label").textContent = t("reactions");
    // On a phone the bar folds behind one button (CSS shows the toggle there only).
    const toggle = $("reaction-toggle");
    toggle.textContent = t("reactions");
    toggle.addEventListener("click", () => {
      const open = toggle.getAttribute("aria-expanded") !== "true";
      toggle.setAttribute("aria-expanded", String(open));
      bar.classList.toggle("open", open);
      if (open) bar.querySelector("button")?.focus({ preventScroll: true });
    });
    $("mute-reactions").addEventListener("change", (event) => {
      const s = this.table.state;
      if (!seatedIn(s)) return;
      setFlag(this.muteKey(1 - s.you), event.target.checked);
    });
  }

  // Every state: the bar is for seated players; the mute names the opponent.
  render(state) {
    const seated = seatedIn(state);
    $("reaction-bar").hidden = !seated;
    $("reaction-toggle").hidden = !seated;
    const choice = $("mute-reactions-choice");
    choice.hidden = !seated || !(state.table.players || []).some((p) => p.seat !== state.you && p.name);
    if (!choice.hidden) {
      const other = 1 - state.you;
      $("mute-reactions-label").textContent = t("reactions_mute", { name: playerName(state, other) });
      $("mute-reactions").checked = flag(this.muteKey(other));
    }
  }

  // A `reaction` frame.
  show(message) {
    const state = this.table.state;
    if (!state || !REACTIONS.includes(message.reaction)) return;
    const seat = message.seat;
    if (seat !== state.you && flag(this.muteKey(seat))) return;
    const text = t(`reaction.${message.reaction}`);
    const bubble = $(`${prefixOf(state, seat)}-bubble`);
    bubble.textContent = text;
    bubble.dataset.reaction = message.reaction;
    bubble.hidden = false;
    bubble.classList.remove("pop");
    void bubble.offsetWidth; // restart the entrance
    bubble.classList.add("pop");
    clearTimeout(this.timers.get(bubble));
    this.timers.set(
      bubble,
      setTimeout(() => {
        bubble.hidden = true;
      }, SHOWN_MS),
    );
    this.live.textContent = `${playerName(state, seat)}: ${text}`;
  }
}

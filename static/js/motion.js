// The table's feel. Cards that move from where they were to where they are (FLIP, Web Animations).
// Nothing waits for an animation: a new state finishes every running one first.
// The player's speed (normal / fast / off) comes on top of the system's
// `prefers-reduced-motion`, which always wins.
import { flag, get, put, setFlag } from "./store.js";

const DURATION = 240;
export const SPEEDS = ["normal", "fast", "off"];
const FACTOR = { normal: 1, fast: 0.5, off: 0 };
// A card never grows or shrinks by more than this on its way (a source bigger than
// a card, such as a whole row, is taken as a card-sized slot at its centre).
const MAX_SCALE = 2;
const reduceMotion = matchMedia("(prefers-reduced-motion: reduce)");
const running = new Set();

export function reducedBySystem() {
  return reduceMotion.matches;
}

export function motionSpeed() {
  const speed = get("gin.motion");
  return SPEEDS.includes(speed) ? speed : "normal";
}

export function setMotionSpeed(speed) {
  put("gin.motion", SPEEDS.includes(speed) ? speed : "normal");
  applyMotionClass();
}

// The page's class for CSS transitions: `motion-off` or `motion-fast`.
export function applyMotionClass() {
  const speed = reducedBySystem() ? "off" : motionSpeed();
  document.documentElement.classList.toggle("motion-off", speed === "off");
  document.documentElement.classList.toggle("motion-fast", speed === "fast");
}

export function motionAllowed() {
  return !reduceMotion.matches && motionSpeed() !== "off";
}

// Jump every running card animation to its end (a new state arrived).
export function finishAll() {
  for (const animation of running) animation.finish();
  running.clear();
}

// Where each card and landmark is now, before the page changes.
export function snapshot(root) {
  const rects = new Map();
  for (const el of root.querySelectorAll("[data-card]")) {
    const key = `${el.closest("[data-zone]")?.dataset.zone || ""}:${el.dataset.card}`;
    rects.set(key, el.getBoundingClientRect());
    if (!rects.has(el.dataset.card)) rects.set(el.dataset.card, el.getBoundingClientRect());
  }
  for (const el of root.querySelectorAll("[data-zone]")) rects.set(`zone:${el.dataset.zone}`, el.getBoundingClientRect());
  return rects;
}

// Move `el` from `from` (a DOMRect) to where it is laid out now.
export function fly(el, from, { delay = 0, duration = DURATION } = {}) {
  if (!from || !motionAllowed() || !el.isConnected) return null;
  const to = el.getBoundingClientRect();
  if (!to.width || !from.width) return null;
  const factor = FACTOR[motionSpeed()];
  const dx = from.left + from.width / 2 - (to.left + to.width / 2);
  const dy = from.top + from.height / 2 - (to.top + to.height / 2);
  const scale = Math.min(MAX_SCALE, Math.max(1 / MAX_SCALE, from.width / to.width));
  if (Math.abs(dx) < 1 && Math.abs(dy) < 1 && Math.abs(scale - 1) < 0.02) return null;
  const animation = el.animate(
    [{ transform: `translate(${dx}px, ${dy}px) scale(${scale})` }, { transform: "none" }],
    { duration: duration * factor, delay: delay * factor, easing: "cubic-bezier(.2,.7,.3,1)", fill: "backwards" },
  );
  running.add(animation);
  animation.finished.then(
    () => running.delete(animation),
    () => running.delete(animation),
  );
  return animation;
}

// The table after a state (`rects`: its `snapshot` before).
export function animate(previous, s, rects) {
  const last = s.hand.last_action;
  const fresh = previous.hand?.number !== s.hand.number;
  const $ = (id) => document.getElementById(id);
  const at = (zone) => rects.get(`zone:${zone}`);
  const pile = (kind) => at(kind === "draw_stock" ? "stock" : "pile");
  const seated = s.you !== null && s.you !== undefined;
  $("hand")
    .querySelectorAll("[data-card]")
    .forEach((el, i) => fly(el, fresh ? at("stock") : rects.get(`hand:${el.dataset.card}`) || (last?.seat === s.you ? pile(last.kind) : null), { delay: fresh ? i * 35 : 0 }));
  if (fresh) return $("opp-cards").querySelectorAll(".card-back, .card").forEach((el, i) => fly(el, at("stock"), { delay: i * 35 }));
  if (previous.version === s.version || !last) return;
  const from = (card, seat, i) => rects.get(`hand:${card}`) || rects.get(`opp:${card}`) || rowSlot(rects, seated || seat === 1 ? "opp" : "hand", i);
  const pileTop = $("discard").querySelector(".card");
  if (last.kind === "discard" && pileTop) fly(pileTop, from(last.card, last.seat, 0));
  if (last.seat !== s.you && ["draw_stock", "draw_discard", "take_upcard"].includes(last.kind)) {
    const row = $("opp-cards");
    const target = last.card ? row.querySelector(`[data-card="${last.card}"]`) : row.lastElementChild;
    if (target) fly(target, pile(last.kind));
  }
  if (last.kind === "knock") {
    const hidden = [0, 0];
    for (const el of $("result-hands").querySelectorAll("[data-card]")) {
      const seat = Number(el.closest("[data-zone]")?.dataset.zone.slice(-1));
      fly(el, from(el.dataset.card, seat, hidden[seat]++));
    }
  }
}

function rowSlot(rects, zone, i) {
  const backs = [];
  for (let k = 0; rects.has(`${zone}:back${k}`); k += 1) backs.push(rects.get(`${zone}:back${k}`));
  if (backs.length) return backs[backs.length - 1 - (i % backs.length)];
  const row = rects.get(`zone:${zone}`);
  if (!row) return null;
  const width = Math.min(row.width, 40);
  const height = Math.min(row.height, 56);
  return { left: row.left + (row.width - width) / 2, top: row.top + (row.height - height) / 2, width, height };
}

// ---------- Sound ----------
// Short sounds synthesised with Web Audio (no files): draw, discard, your turn,
// knock, gin, a won game. Muted by a toggle that the device remembers.
let context = null;

export function muted() {
  return flag("gin.muted");
}

export function setMuted(value) {
  setFlag("gin.muted", value);
}

// Browsers start audio only after a gesture: the first click or key opens it.
const listeners = new Set();

export function audioRunning() {
  return context?.state === "running";
}

// `callback` runs whenever the audio starts or stops (the page says when sound
// still needs a gesture).
export function onAudioChange(callback) {
  listeners.add(callback);
}

export function unlockAudio() {
  if (!context && globalThis.AudioContext) {
    context = new AudioContext();
    context.addEventListener("statechange", () => listeners.forEach((f) => f()));
  }
  const told = () => listeners.forEach((f) => f());
  if (context?.state === "suspended") context.resume().then(told, () => {});
  queueMicrotask(told);
}
for (const type of ["pointerdown", "keydown"]) addEventListener(type, unlockAudio, { passive: true });

// One note: frequency (Hz), start offset and length (s), wave shape, loudness.
function tone(freq, at, length, { type = "sine", gain = 0.18, to = null } = {}) {
  const start = context.currentTime + at;
  const osc = context.createOscillator();
  const amp = context.createGain();
  osc.type = type;
  osc.frequency.setValueAtTime(freq, start);
  if (to) osc.frequency.exponentialRampToValueAtTime(to, start + length);
  amp.gain.setValueAtTime(0.0001, start);
  amp.gain.exponentialRampToValueAtTime(gain, start + 0.01);
  amp.gain.exponentialRampToValueAtTime(0.0001, start + length);
  osc.connect(amp).connect(context.destination);
  osc.start(start);
  osc.stop(start + length + 0.02);
}

// A short burst of noise: a card sliding on felt.
function swish(at, length, gain = 0.12) {
  const frames = Math.floor(context.sampleRate * length);
  const buffer = context.createBuffer(1, frames, context.sampleRate);
  const data = buffer.getChannelData(0);
  for (let i = 0; i < frames; i += 1) data[i] = (Math.random() * 2 - 1) * (1 - i / frames);
  const source = context.createBufferSource();
  source.buffer = buffer;
  const filter = context.createBiquadFilter();
  filter.type = "bandpass";
  filter.frequency.value = 2400;
  const amp = context.createGain();
  amp.gain.value = gain;
  source.connect(filter).connect(amp).connect(context.destination);
  source.start(context.currentTime + at);
}

const SOUNDS = {
  draw: () => swish(0, 0.12),
  discard: () => {
    swish(0, 0.08, 0.1);
    tone(180, 0.05, 0.08, { type: "triangle", gain: 0.2 });
  },
  turn: () => {
    tone(660, 0, 0.12);
    tone(880, 0.12, 0.18);
  },
  knock: () => {
    tone(140, 0, 0.09, { type: "square", gain: 0.12 });
    tone(140, 0.16, 0.09, { type: "square", gain: 0.12 });
  },
  gin: () => [523, 659, 784, 1047].forEach((f, i) => tone(f, i * 0.09, 0.22)),
  hurry: () => [880, 880, 880].forEach((f, i) => tone(f, i * 0.16, 0.08, { type: "square", gain: 0.08 })),
  won: () => [392, 523, 659, 784, 659, 784].forEach((f, i) => tone(f, i * 0.12, 0.25, { type: "triangle" })),
};

export function play(name) {
  if (muted() || !context || context.state !== "running" || !SOUNDS[name]) return;
  SOUNDS[name]();
}

// Short sounds synthesised with Web Audio (no files): draw, discard, your turn,
// knock, gin, a won game. Muted by a toggle that the device remembers.
import { flag, setFlag } from "./store.js";

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

// Cards that move: each card travels from where it was to where it is now (FLIP
// with the Web Animations API). Nothing waits for an animation: a new state
// finishes every running one first, and with reduced motion none starts.
// The player's own speed (normal / fast / off, remembered per device) comes on top
// of the system's `prefers-reduced-motion`, which always wins.
const DURATION = 240;
const SPEED_KEY = "gin.motion";
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
  const speed = localStorage.getItem(SPEED_KEY);
  return SPEEDS.includes(speed) ? speed : "normal";
}

export function setMotionSpeed(speed) {
  localStorage.setItem(SPEED_KEY, SPEEDS.includes(speed) ? speed : "normal");
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

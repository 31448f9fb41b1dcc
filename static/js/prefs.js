// The settings' controls (kept in the browser by store.js).
import { $ } from "./render.js";
import { applyMotionClass, audioRunning, motionSpeed, muted, onAudioChange, reducedBySystem, setMotionSpeed, setMuted, unlockAudio } from "./motion.js";
import { flag, setFlag } from "./store.js";

// Returns `showSoundHint()`: browsers play nothing before a click, so a spectator
// (`spectatorHand()`) gets a button that is one.
export function initPrefs(spectatorHand) {
  const showSoundHint = () => ($("sound-on").hidden = muted() || audioRunning() || !spectatorHand());
  for (const key of ["large-cards", "four-colour"]) {
    const box = $(key);
    box.checked = flag(key);
    document.body.classList.toggle(key, box.checked);
    box.addEventListener("change", () => {
      setFlag(key, box.checked);
      document.body.classList.toggle(key, box.checked);
    });
  }
  const speed = $("motion-speed");
  const showSpeed = () => {
    const reduced = reducedBySystem();
    speed.value = reduced ? "off" : motionSpeed();
    speed.disabled = reduced;
    $("motion-note").hidden = !reduced;
    applyMotionClass();
  };
  speed.addEventListener("change", () => setMotionSpeed(speed.value));
  matchMedia("(prefers-reduced-motion: reduce)").addEventListener("change", showSpeed);
  showSpeed();

  const mute = $("mute");
  mute.setAttribute("aria-pressed", String(muted()));
  mute.addEventListener("click", () => {
    setMuted(!muted());
    mute.setAttribute("aria-pressed", String(muted()));
    showSoundHint();
  });
  $("sound-on").addEventListener("click", () => {
    unlockAudio();
    showSoundHint();
  });
  for (const type of ["click", "keyup"]) addEventListener(type, () => setTimeout(showSoundHint, 0));
  onAudioChange(() => audioRunning() || showSoundHint());

  // Focus rings for the keyboard only.
  const root = document.documentElement;
  root.dataset.input = "pointer";
  addEventListener("pointerdown", () => (root.dataset.input = "pointer"), { capture: true, passive: true });
  addEventListener("keydown", (event) => ["Shift", "Control", "Alt", "Meta"].includes(event.key) || (root.dataset.input = "keys"), { capture: true, passive: true });

  const notify = $("notify");
  notify.checked = flag("gin.notify") && globalThis.Notification?.permission === "granted";
  notify.disabled = !globalThis.Notification;
  notify.addEventListener("change", async () => {
    if (notify.checked && Notification.permission !== "granted") notify.checked = (await Notification.requestPermission()) === "granted";
    setFlag("gin.notify", notify.checked);
  });

  for (const [button, id] of [["sheet-toggle", "sheet"], ["log-toggle", "log-box"]]) {
    const panel = $(id);
    panel.classList.add("collapsed");
    $(button).addEventListener("click", () => $(button).setAttribute("aria-expanded", String(!panel.classList.toggle("collapsed"))));
  }
  return showSoundHint;
}

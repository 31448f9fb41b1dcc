// "Notify me" (Web Push), loaded only when pressed: asks the browser's permission,
// registers the service worker, subscribes with the server's key and tells the table.
import { lang } from "./i18n.js";

const TABLES = "gin_push_tables"; // the tables this browser's subscription was given to

export function pushTables() {
  try {
    return JSON.parse(localStorage.getItem(TABLES) || "[]");
  } catch {
    return [];
  }
}

function keep(tables) {
  try {
    localStorage.setItem(TABLES, JSON.stringify(tables));
  } catch {}
}

const call = (url, method, body) => fetch(url, { method, headers: { "Content-Type": "application/json" }, body: JSON.stringify(body), credentials: "same-origin" });

function bytes(base64url) {
  const raw = atob(base64url.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(raw, (c) => c.charCodeAt(0));
}

// "on", "off" (the player said no for now), "blocked", or "failed".
export async function turnOn(config) {
  const permission = await Notification.requestPermission();
  if (permission !== "granted") return permission === "denied" ? "blocked" : "off";
  try {
    const registration = await navigator.serviceWorker.register("/sw.js", { scope: "/" });
    await navigator.serviceWorker.ready;
    let subscription = await registration.pushManager.getSubscription();
    if (!subscription) {
      const answer = await fetch("/api/push/key");
      if (!answer.ok) return "failed";
      const { key } = await answer.json();
      subscription = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: bytes(key) });
    }
    const answer = await call(`${config.api}/push`, "POST", { ...subscription.toJSON(), lang });
    if (answer.status !== 201) return "failed";
    keep([...new Set([...pushTables(), config.table_id])]);
    return "on";
  } catch {
    return "failed";
  }
}

export async function turnOff(config) {
  const registration = await navigator.serviceWorker.getRegistration("/");
  const subscription = await registration?.pushManager.getSubscription();
  const others = pushTables().filter((id) => id !== config.table_id);
  keep(others);
  if (subscription) {
    await call(`${config.api}/push`, "DELETE", { endpoint: subscription.endpoint }).catch(() => null);
    if (!others.length) await subscription.unsubscribe().catch(() => null);
  }
  return "off";
}

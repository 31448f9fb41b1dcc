// The invitation: the share link (copy, share), taking the free seat, watching
// instead, and asking the computer to play.
import { t } from "./i18n.js";
import { $ } from "./render.js";
import { entropyFor, setWatching } from "./store.js";

const post = (url, body) => fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body), credentials: "same-origin" }).catch(() => null);

// Copy `input`'s link (the Clipboard API, else the selection); say how it went.
async function copy(input, status) {
  let ok = false;
  try {
    await navigator.clipboard.writeText(input.value);
    ok = true;
  } catch {
    input.hidden = false;
    input.select();
    try {
      ok = document.execCommand("copy");
    } catch {}
  }
  $(status).textContent = ok ? t("copied") : t("copy_failed");
  if (ok) input.hidden = input.id === "seat-url";
  else input.select();
}

// "Notify me": shown to a seat where the server and the browser have push; its state
// is read from what the browser already holds (no request on load); the work itself
// (notify.js) is loaded when pressed.
export function initNotify(config) {
  const box = $("push-box");
  const button = $("push-notify");
  const status = $("push-status");
  const ios = /iP(hone|ad|od)/.test(navigator.userAgent) && !navigator.standalone;
  const push = "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;
  if (!config.push || !$("seat-link").dataset.url || (!push && !ios) || !box.hidden) return;
  box.hidden = false;
  const show = (state) => {
    button.setAttribute("aria-pressed", String(state === "on"));
    button.disabled = state === "blocked" || state === "ios";
    box.dataset.state = state;
    status.textContent = state === "off" ? "" : t(`notify.${state}`);
  };
  if (!push) return show("ios");
  if (Notification.permission === "denied") return show("blocked");
  show("off");
  const mine = () => {
    try {
      return JSON.parse(localStorage.getItem("gin_push_tables") || "[]").includes(config.table_id);
    } catch {
      return false;
    }
  };
  if (Notification.permission === "granted" && mine()) {
    navigator.serviceWorker
      .getRegistration("/")
      .then((r) => r?.pushManager.getSubscription())
      .then((s) => show(s ? "on" : "off"))
      .catch(() => {});
  }
  button.addEventListener("click", async () => {
    button.disabled = true;
    const notify = await import("./notify.js");
    show(box.dataset.state === "on" ? await notify.turnOff(config) : await notify.turnOn(config));
  });
}

export function initInvite(ctl, config) {
  initNotify(config);
  $("copy-link").addEventListener("click", () => copy($("share-url"), "copy-status"));
  // The seat link's field stays hidden unless the browser would not copy it.
  $("seat-link").addEventListener("click", () => {
    $("seat-url").value = $("seat-link").dataset.url;
    copy($("seat-url"), "seat-copy-status");
  });

  if (navigator.share) {
    $("share-link").hidden = false;
    $("share-link").addEventListener("click", () => navigator.share({ url: $("share-url").value, title: document.title }).catch(() => {}));
  }

  $("join-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const name = $("join-name").value.trim() || $("join-name").placeholder;
    // This browser's part of the first deal.
    const response = await post(`${config.api}/seats`, { name, entropy: entropyFor(config.table_id, 1, ctl.state?.next_deal?.commitment) });
    if (response?.status === 201) {
      const url = `${location.origin}/t/${config.table_id}/seat/${(await response.json()).token}`;
      $("seat-link").dataset.url = url;
      $("seat-link-box").hidden = false;
      $("join").hidden = true;
      initNotify(config);
      ctl.rejoin();
    } else {
      ctl.say(t(response?.status === 409 ? "error.table_full" : "error.other"));
      $("join").hidden = response?.status === 409;
    }
  });

  const watch = (on, focus) => {
    ctl.ui.watching = on;
    setWatching(config.table_id, on);
    ctl.render();
    $(focus).focus({ preventScroll: on });
  };
  $("watch").addEventListener("click", () => watch(true, "join-instead"));
  $("join-instead").addEventListener("click", () => watch(false, "join-name"));

  $("add-computer").addEventListener("click", async () => {
    const response = await post(`${config.api}/computer`, { strength: $("strength").value });
    if (!response || response.status >= 300) ctl.say(t("error.other"));
  });
}

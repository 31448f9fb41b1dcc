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

export function initInvite(ctl, config) {
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
    const response = await post(`${config.api}/seats`, { name, entropy: entropyFor(config.table_id, 1, ctl.state()?.next_deal?.commitment) });
    if (response?.status === 201) {
      const url = `${location.origin}/t/${config.table_id}/seat/${(await response.json()).token}`;
      $("seat-link").dataset.url = url;
      $("seat-link-box").hidden = false;
      $("join").hidden = true;
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

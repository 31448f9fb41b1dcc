// The service worker (scope /): shows Web Push messages as notifications, one per
// table (tagged with its id, so a newer one replaces it), focuses or opens the table
// on a click, and answers a friendly page when the site cannot be reached. It never
// caches anything: a table's state always comes from the server.
"use strict";

const OFFLINE = {
  en: ["You are offline", "Hollywood Gin needs the network. Your tables wait for you: try again when you are back online."],
  de: ["Sie sind offline", "Hollywood Gin braucht das Netz. Ihre Tische warten auf Sie: versuchen Sie es wieder, wenn Sie online sind."],
  da: ["Du er offline", "Hollywood Gin kræver netværk. Dine borde venter på dig: prøv igen, når du er online."],
  hu: ["Nincs kapcsolat", "A Hollywood Ginhez hálózat kell. Az asztalaid várnak: próbáld újra, ha újra online vagy."],
  et: ["Oled võrguühenduseta", "Hollywood Gin vajab võrku. Sinu lauad ootavad: proovi uuesti, kui oled taas võrgus."],
};

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

self.addEventListener("push", (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch {}
  if (typeof data.table !== "string") return;
  event.waitUntil(
    self.registration.showNotification(String(data.title || "Hollywood Gin"), {
      body: String(data.body || ""),
      tag: data.table,
      renotify: true,
      icon: "/static/img/icon-192.png",
      data: { url: `/t/${encodeURIComponent(data.table)}` },
    }),
  );
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = new URL(event.notification.data?.url || "/", self.location.origin);
  event.waitUntil(
    (async () => {
      const tabs = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
      const tab = tabs.find((c) => new URL(c.url).pathname === url.pathname);
      if (tab) return tab.focus();
      return self.clients.openWindow(url.href);
    })(),
  );
});

// Only a page's own navigation, only when the network fails: never a cached answer.
self.addEventListener("fetch", (event) => {
  if (event.request.mode !== "navigate") return;
  event.respondWith(
    fetch(event.request).catch(() => {
      const lang = (self.navigator.language || "en").slice(0, 2);
      const [title, text] = OFFLINE[lang] || OFFLINE.en;
      const html = `<!doctype html><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${title}</title><body style="font:1.1rem/1.5 system-ui,sans-serif;margin:2rem auto;max-width:32rem;padding:0 1rem"><h1>${title}</h1><p>${text}</p>`;
      return new Response(html, { headers: { "Content-Type": "text/html; charset=utf-8" } });
    }),
  );
});

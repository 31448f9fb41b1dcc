// The table's WebSocket: reconnects with backoff, at once when the tab wakes or the
// network returns, and passes on only states newer than (or as new as) the last one.
// A heartbeat (`ping` every 25 s) notices a half-open socket: no `pong` within 10 s
// and the socket is given up and opened again. Each `pong` names the server's build;
// one other than the page's (<html data-build>) offers a reload (the server was upgraded).
// Other frames go to `handlers[type]` (the table controller's map), or nowhere.
import { t } from "./i18n.js";

export const PING_EVERY_MS = 25000;
export const PONG_WITHIN_MS = 10000;

export class TableSocket {
  constructor(path, handlers, onStatus) {
    this.url = `${location.protocol === "https:" ? "wss:" : "ws:"}//${location.host}${path}`;
    this.handlers = handlers;
    this.onStatus = onStatus;
    this.version = 0;
    this.ws = null;
    this.attempt = 0;
    this.timer = null;
    this.closedByUs = false;
    this.heartbeat = null;
    this.deadline = null;
    this.build = document.documentElement.dataset.build || null;
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") this.reconnectNow();
    });
    addEventListener("online", () => this.reconnectNow());
  }

  connect() {
    clearTimeout(this.timer);
    this.timer = null;
    this.closedByUs = false;
    const ws = new WebSocket(this.url);
    this.ws = ws;
    ws.addEventListener("open", () => {
      this.attempt = 0;
      ws.send(JSON.stringify({ type: "hello", version: this.version }));
      this.onStatus("open");
      this.ping(ws); // at once: its pong tells the server's build
    });
    ws.addEventListener("message", (event) => {
      // A socket replaced by `restart` (a spectator's, before taking a seat) may
      // still deliver a state: it must not overwrite the seat's.
      if (this.ws !== ws) return;
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      const type = message?.type;
      if (type === "pong") return this.pong(ws, message);
      if (type === "state") {
        // `arrange` sends a fresh state with the same version: accept equal ones.
        if (message.version < this.version) return;
        this.version = message.version;
      }
      // Own keys only ("constructor" is no handler).
      if (Object.hasOwn(this.handlers, type)) this.handlers[type](message);
    });
    ws.addEventListener("close", () => {
      if (this.ws !== ws) return;
      this.stopHeartbeat();
      this.ws = null;
      if (this.closedByUs) return;
      this.onStatus("reconnecting");
      this.schedule();
    });
  }

  ping(ws) {
    if (this.ws !== ws || ws.readyState !== WebSocket.OPEN) return;
    clearTimeout(this.heartbeat);
    this.heartbeat = null;
    ws.send(JSON.stringify({ type: "ping" }));
    if (!this.deadline) this.deadline = setTimeout(() => this.silent(ws), PONG_WITHIN_MS);
  }

  pong(ws, message) {
    if (this.ws !== ws) return;
    clearTimeout(this.deadline);
    this.deadline = null;
    clearTimeout(this.heartbeat);
    this.heartbeat = setTimeout(() => this.ping(ws), PING_EVERY_MS);
    if (message.build && this.build && message.build !== this.build) offerReload();
  }

  // No pong in time: the socket is half-open (a sleeping laptop, a NAT that forgot
  // it). Give it up without waiting for a close that may never come, and reconnect.
  silent(ws) {
    this.deadline = null;
    if (this.ws !== ws) return;
    this.stopHeartbeat();
    this.ws = null;
    try {
      ws.close(4000, "no pong");
    } catch {
      // already closing
    }
    this.onStatus("reconnecting");
    this.schedule();
  }

  stopHeartbeat() {
    clearTimeout(this.heartbeat);
    clearTimeout(this.deadline);
    this.heartbeat = null;
    this.deadline = null;
  }

  schedule() {
    if (this.timer) return;
    // 0.5 s, 1 s, 2 s ... up to 15 s, with jitter so tabs do not reconnect in step.
    const delay = Math.min(15000, 500 * 2 ** this.attempt) * (0.75 + Math.random() * 0.5);
    this.attempt += 1;
    this.timer = setTimeout(() => this.connect(), delay);
  }

  reconnectNow() {
    // An open socket after a sleep may be half-open: a ping now finds out.
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ping(this.ws);
    if (this.ws && this.ws.readyState <= WebSocket.OPEN) return;
    this.connect();
  }

  // A fresh connection (after taking a seat the cookie names us).
  restart() {
    this.stopHeartbeat();
    if (this.ws) {
      this.closedByUs = true;
      this.ws.close();
      this.ws = null;
    }
    this.connect();
  }

  send(message) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(message));
    return true;
  }

  // An action as `legal` offered it (a knock's display `deadwood` included: the
  // server ignores it).
  act(action) {
    return this.send({ type: "action", version: this.version, action });
  }
}

// "A new version of Hollywood Gin is ready": a banner with a reload button, shown once.
// Nothing reloads by itself (a player may be mid-move); the game goes on meanwhile.
function offerReload() {
  if (document.getElementById("reload-offer")) return;
  const box = document.createElement("div");
  box.id = "reload-offer";
  box.className = "reload-offer";
  box.setAttribute("role", "status");
  const text = document.createElement("span");
  text.textContent = t("reload.text");
  const button = document.createElement("button");
  button.type = "button";
  button.className = "button primary";
  button.textContent = t("reload.button");
  button.addEventListener("click", () => location.reload());
  box.append(text, " ", button);
  const skip = document.querySelector(".skip-link");
  if (skip) skip.after(box);
  else document.body.prepend(box);
}

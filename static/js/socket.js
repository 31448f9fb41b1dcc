// The table's WebSocket: reconnects with backoff, at once when the tab wakes or the
// network returns, and passes on only states newer than (or as new as) the last one.
export class TableSocket {
  constructor(path, { onState, onError, onStatus, onOther }) {
    this.url = `${location.protocol === "https:" ? "wss:" : "ws:"}//${location.host}${path}`;
    this.onState = onState;
    this.onOther = onOther; // any other message (a reaction)
    this.onError = onError;
    this.onStatus = onStatus;
    this.version = 0;
    this.ws = null;
    this.attempt = 0;
    this.timer = null;
    this.closedByUs = false;
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") this.reconnectNow();
    });
    window.addEventListener("online", () => this.reconnectNow());
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
    });
    ws.addEventListener("message", (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      if (message.type === "state") {
        // `arrange` sends a fresh state with the same version: accept equal ones.
        if (message.version < this.version) return;
        this.version = message.version;
        this.onState(message);
      } else if (message.type === "error") {
        this.onError(message);
      } else if (this.onOther) {
        this.onOther(message);
      }
    });
    ws.addEventListener("close", () => {
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.closedByUs) return;
      this.onStatus("reconnecting");
      this.schedule();
    });
  }

  schedule() {
    if (this.timer) return;
    // 0.5 s, 1 s, 2 s ... up to 15 s, with jitter so tabs do not reconnect in step.
    const delay = Math.min(15000, 500 * 2 ** this.attempt) * (0.75 + Math.random() * 0.5);
    this.attempt += 1;
    this.timer = setTimeout(() => this.connect(), delay);
  }

  reconnectNow() {
    if (this.ws && this.ws.readyState <= WebSocket.OPEN) return;
    this.connect();
  }

  // A fresh connection (after taking a seat the cookie names us).
  restart() {
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
  // server ignores it, PROTOCOL.md).
  act(action) {
    return this.send({ type: "action", version: this.version, action });
  }
}

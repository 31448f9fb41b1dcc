// A table page under Node, enough for table.js's controller to run whole: every
// element is a stand-in that keeps what is written to it, timers are held (never
// run), and the socket is a FakeSocket whose frames a test delivers. Import it
// before the page's modules (ES imports run in order).
import "./dom.mjs";

const RECT = { top: 0, bottom: 0, left: 0, right: 0, width: 0, height: 0 };
const METHODS = {
  querySelectorAll: () => [],
  querySelector: () => null,
  getBoundingClientRect: () => RECT,
  contains: () => false,
  checkVisibility: () => true,
  getAttribute: () => null,
  animate: () => ({ finish() {}, cancel() {} }),
};

// An element: what is set on it reads back; any method does nothing.
function element(fields = {}) {
  const own = { hidden: false, textContent: "", dataset: {}, style: { setProperty() {} }, classList: { toggle() {}, add() {}, remove() {}, contains: () => false }, ...fields };
  return new Proxy(own, {
    get: (target, key) => (key in target ? target[key] : METHODS[key] || (() => {})),
    set: (target, key, value) => ((target[key] = value), true),
  });
}

export const elements = new Map();
export const $ = (id) => {
  if (!elements.has(id)) elements.set(id, element({ id, textContent: id === "option-names" ? '{"target": "to {n}"}' : "" }));
  return elements.get(id);
};
const strings = document.getElementById("i18n");
Object.assign(globalThis.document, {
  title: "Table",
  hidden: false,
  body: element(),
  activeElement: null,
  getElementById: (id) => (id === "table-config" ? null : id === "i18n" ? strings : $(id)),
  querySelector: (selector) => (selector === "dialog[open]" || selector.startsWith("link") ? null : element()),
  querySelectorAll: () => [],
  createElement: () => element(),
  hasFocus: () => true,
});
globalThis.location = { protocol: "http:", host: "localhost", origin: "http://localhost" };
globalThis.innerHeight = 800;
globalThis.navigator ??= {}; // no clipboard, share or push here
globalThis.ResizeObserver = class {
  observe() {}
};
// Timers are held, never run: the tests step the controller themselves.
globalThis.setTimeout = globalThis.setInterval = () => 0;
globalThis.clearTimeout = globalThis.clearInterval = () => {};
// No card flies (motion.js): the snapshot and animations need a layout.
localStorage.setItem("gin.motion", "off");

// The browser's WebSocket: `sent` holds what the page sent (parsed), `deliver` a frame.
export class FakeSocket {
  static OPEN = 1;
  static last = null;
  readyState = 0;
  sent = [];
  #listeners = {};
  constructor(url) {
    this.url = url;
    FakeSocket.last = this;
  }
  addEventListener(type, run) {
    this.#listeners[type] = run;
  }
  send(text) {
    this.sent.push(JSON.parse(text));
  }
  close() {
    this.readyState = 3;
  }
  open() {
    this.readyState = FakeSocket.OPEN;
    this.#listeners.open();
  }
  deliver(frame) {
    this.#listeners.message({ data: typeof frame === "string" ? frame : JSON.stringify(frame) });
  }
}
globalThis.WebSocket = FakeSocket;

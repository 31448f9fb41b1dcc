// The few browser globals the table page's modules touch when they load: enough to
// test their pure parts under Node (`node --test tests/js/`). A few English strings
// are loaded; any other `t(key)` answers the key itself.
const strings = {
  card: "{rank} of {suit}",
  "rank.7": "seven",
  "suit.H": "hearts",
  "did.discard": "{name} discarded the {card}",
};
class Storage {
  #items = new Map();
  getItem(key) {
    return this.#items.has(key) ? this.#items.get(key) : null;
  }
  setItem(key, value) {
    this.#items.set(key, String(value));
  }
  removeItem(key) {
    this.#items.delete(key);
  }
  clear() {
    this.#items.clear();
  }
}

globalThis.localStorage = new Storage();
globalThis.sessionStorage = new Storage();
globalThis.matchMedia = () => ({ matches: false, addEventListener() {} });
globalThis.addEventListener = () => {};
globalThis.document = {
  documentElement: { lang: "en", dataset: {}, classList: { toggle() {} } },
  getElementById: (id) => (id === "i18n" ? { textContent: JSON.stringify(strings) } : null),
  querySelector: () => null,
  addEventListener() {},
};

// A state as the server sends it (PROTOCOL.md), for seat `you`, with `hand` fields over the defaults.
export function stateOf({ you = 0, version = 5, status = "playing", hand = {}, players, ready } = {}) {
  return {
    version,
    you,
    ready,
    table: {
      id: "T1",
      status,
      scoring: "game",
      players: players || [
        { seat: 0, name: "Ann", connected: true },
        { seat: 1, name: "Bob", connected: true },
      ],
    },
    hand: { number: 1, dealer: 1, turn: 0, phase: "draw", events: [], my_cards: [], ...hand },
  };
}

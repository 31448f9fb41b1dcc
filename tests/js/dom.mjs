// The few browser globals the table and replay pages' modules touch when they load: enough to
// test their pure parts under Node (`node --test tests/js/`). A few English strings
// are loaded; any other `t(key)` answers the key itself.
const strings = {
  card: "{rank} of {suit}",
  "rank.7": "seven",
  "suit.H": "hearts",
  "did.discard": "{name} discarded the {card}",
  "pc.discard": "the computer discarded the {card}",
  "pc.pass": "the computer passed",
  "by.timeout": "{name}'s time ran out: {move}",
  "by.timeout_you": "Your time ran out: {move}",
  "by.stand_in": "{name} is away: {move}",
  "outcome.knock": "{name} knocked and won",
  "outcome.undercut": "{name} undercut {knocker} and wins the hand",
  "act.pass": "pass",
  "act.take_upcard": "take the upcard",
  "act.discard": "discard the {card}",
  "act.knock": "knock, discarding the {card}",
  "label.blunder": "Blunder",
  "replay.played": "Played: {action} ({ev} points expected).",
  "replay.better": "Better: {action} ({ev} points expected).",
  "replay.best_same": "The coach agrees.",
  "replay.verdict": "Costliest decision, move {n}: “{best}” was worth {loss} points more than “{played}”.",
  "replay.verdict_clean": "No costly decision by {name}: this hand was down to the cards.",
  "replay.loss": "{name} lost {loss} points to decisions ({marks}).",
  "replay.luck": "Luck: deadwood dealt {mine} against {theirs}; the stock lowered it by {gain} against {ogain}.",
  "replay.quiz_right": "Yes: “{best}” is the coach's choice ({ev} points expected).",
  "replay.quiz_cost": "Not the best: “{pick}” ({pev}) costs {cost} points against the coach's choice, “{best}” ({bev}).",
  "replay.quiz_played": "Played in the game: “{played}” ({cev}).",
  "replay.quiz_as_played": "That is the move played in the game.",
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

// A state as the server sends it (docs/protocol-guide.md "The state"), for seat `you`, with `hand` fields over the defaults.
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

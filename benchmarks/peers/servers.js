// The peers of bench_peers, each with a trivial game: one move adds one to a counter;
// and of bench_capacity (`bgio-cards`, `colyseus-cards`): a two-seat card game, each
// turn a draw then a discard, each seat sent its own view (its hand, the other's count)
// of about our state's size after every move.
// Run from the temporary folder where bench_peers installed them with npm:
//   node servers.js bgio|colyseus|bgio-cards|colyseus-cards PORT
"use strict";

const [kind, portText] = process.argv.slice(2);
const port = Number(portText);

// The card game's rules, shared by both peers: 10 cards each, a stock and a discard
// pile; a new deal when the stock runs low. `pad` brings a seat's view to about the
// ~990 bytes of JSON of our state frame.
const RANKS = "A23456789TJQK";
const DECK = [...RANKS].flatMap((r) => [..."SHDC"].map((s) => r + s));
const PAD = "x".repeat(560);
function deal(shuffle) {
  const cards = shuffle(DECK.slice());
  return { hands: [cards.slice(0, 10), cards.slice(10, 20)], discard: [cards[20]], stock: cards.slice(21), step: "draw", deals: 0, log: [] };
}
function draw(G, seat, from) {
  const pile = from === "discard" && G.discard.length ? G.discard : G.stock;
  G.hands[seat].push(pile.pop());
  G.step = "discard";
  G.log = [...G.log.slice(-7), { seat, kind: "draw", from }];
}
function discard(G, seat, card, shuffle) {
  const hand = G.hands[seat];
  const at = Math.max(0, hand.indexOf(card));
  G.discard.push(hand.splice(at, 1)[0]);
  G.step = "draw";
  G.log = [...G.log.slice(-7), { seat, kind: "discard", card: G.discard[G.discard.length - 1] }];
  if (G.stock.length <= 2) Object.assign(G, deal(shuffle), { deals: G.deals + 1 });
}
function view(G, seat) {
  return {
    hand: G.hands[seat], other: G.hands[1 - seat].length, discard: G.discard.slice(-3),
    stock: G.stock.length, step: G.step, deals: G.deals, log: G.log, pad: PAD,
  };
}
function shuffleWith(random) {
  return (cards) => {
    for (let i = cards.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [cards[i], cards[j]] = [cards[j], cards[i]];
    }
    return cards;
  };
}

if (kind === "bgio-cards") {
  const { Server, Origins } = require("boardgame.io/server");
  const Cards = {
    name: "cards",
    setup: ({ random }) => deal((c) => random.Shuffle(c)),
    // Moves run on the server only (`client: false`): each state a client sees is the
    // server's, as ours are.
    moves: {
      draw: { move: ({ G, ctx }, from) => { draw(G, Number(ctx.currentPlayer), from); }, client: false },
      discard: {
        move: ({ G, ctx, random }, card) => { discard(G, Number(ctx.currentPlayer), card, (c) => random.Shuffle(c)); },
        client: false,
      },
    },
    turn: { minMoves: 2, maxMoves: 2 },
    playerView: ({ G, playerID }) => (playerID === null || playerID === undefined ? {} : view(G, Number(playerID))),
  };
  const server = Server({ games: [Cards], origins: [Origins.LOCALHOST, /.*/] });
  server.run({ port, callback: () => console.log("ready") });
} else if (kind === "colyseus-cards") {
  const { Server, Room } = require("@colyseus/core");
  const { WebSocketTransport } = require("@colyseus/ws-transport");
  const shuffle = shuffleWith(Math.random);
  class Cards extends Room {
    onCreate() {
      this.maxClients = 2;
      this.autoDispose = true;
      this.G = deal(shuffle);
      this.version = 0;
      this.turn = 0;
      this.onMessage("move", (client, message) => {
        const seat = this.clients.indexOf(client);
        if (seat !== this.turn || message.version !== this.version) {
          client.send("error", { code: "stale_version", version: this.version });
          return;
        }
        if (message.kind === "draw" && this.G.step === "draw") draw(this.G, seat, message.from);
        else if (message.kind === "discard" && this.G.step === "discard") {
          discard(this.G, seat, message.card, shuffle);
          this.turn = 1 - this.turn;
        } else {
          client.send("error", { code: "illegal", version: this.version });
          return;
        }
        this.version += 1;
        this.sendViews();
      });
      this.ready = 0;
      this.onMessage("ready", () => { this.ready += 1; if (this.ready === 2) this.sendViews(); });
    }
    sendViews() {
      this.clients.forEach((client, seat) => {
        client.send("state", { version: this.version, you: seat, turn: this.turn, ...view(this.G, seat) });
      });
    }
  }
  // The page's heartbeat is a ping every 25 s: the transport's own pings at that pace.
  const gameServer = new Server({ transport: new WebSocketTransport({ pingInterval: 25000 }) });
  gameServer.define("cards", Cards);
  gameServer.listen(port, "127.0.0.1").then(() => console.log("ready"));
} else if (kind === "bgio") {
  const { Server, Origins } = require("boardgame.io/server");
  const Tick = {
    name: "tick",
    setup: () => ({ n: 0 }),
    moves: { tick: ({ G }) => { G.n += 1; } },
    turn: { minMoves: 1, maxMoves: 1 },
  };
  const server = Server({ games: [Tick], origins: [Origins.LOCALHOST, /.*/] });
  server.run({ port, callback: () => console.log("ready") });
} else if (kind === "colyseus") {
  const { Server, Room } = require("@colyseus/core");
  const { WebSocketTransport } = require("@colyseus/ws-transport");
  const { Schema, defineTypes } = require("@colyseus/schema");
  class State extends Schema {
    constructor() { super(); this.n = 0; }
  }
  defineTypes(State, { n: "number" });
  class Tick extends Room {
    onCreate() {
      this.maxClients = 3;
      this.setState(new State());
      // A patch per move, sent at once, as a turn-based game would (not every 50 ms).
      this.setPatchRate(null);
      this.onMessage("tick", () => {
        this.state.n += 1;
        this.broadcastPatch();
      });
    }
  }
  const gameServer = new Server({ transport: new WebSocketTransport() });
  gameServer.define("tick", Tick);
  gameServer.listen(port, "127.0.0.1").then(() => console.log("ready"));
} else {
  throw new Error(`unknown peer ${kind}`);
}

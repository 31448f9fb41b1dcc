// The peers of bench_peers, each with a trivial game: one move adds one to a counter.
// Run from the temporary folder where bench_peers installed them with npm:
//   node servers.js bgio|colyseus PORT
"use strict";

const [kind, portText] = process.argv.slice(2);
const port = Number(portText);

if (kind === "bgio") {
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

// The load client of bench_peers for the Node.js peers: T tables of two seats and a
// spectator on every tenth, flat out (a table moves again once both seats hold the
// last move), in windows. Prints "connected N", then "start i" and
// "end i MOVES SECONDS P50_MS P99_MS" per window, which bench_peers times the
// server's CPU by.
//   node client.js bgio|colyseus BASE_URL TABLES SECONDS WINDOWS
"use strict";

const [kind, base, tablesText, secondsText, windowsText] = process.argv.slice(2);
const tables = Number(tablesText);
const seconds = Number(secondsText);
const windows = Number(windowsText);
const now = () => Number(process.hrtime.bigint()) / 1e6;

class Table {
  constructor() { this.seats = []; this.versions = [0, 0]; this.version = 0; this.waiter = null; }
  seen(seat, version) {
    this.versions[seat] = Math.max(this.versions[seat], version);
    if (this.waiter && this.versions[0] > this.version && this.versions[1] > this.version) {
      const done = this.waiter; this.waiter = null; done();
    }
  }
  both() { return new Promise((resolve) => { this.waiter = resolve; this.seen(0, 0); }); }
}

async function openBgio(table, index) {
  const { Client } = require("boardgame.io/client");
  const { SocketIO } = require("boardgame.io/multiplayer");
  const game = {
    name: "tick", setup: () => ({ n: 0 }),
    moves: { tick: ({ G }) => { G.n += 1; } }, turn: { minMoves: 1, maxMoves: 1 },
  };
  const made = await fetch(`${base}/games/tick/create`, {
    method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify({ numPlayers: 2 }),
  }).then((r) => r.json());
  const ids = index % 10 === 0 ? ["0", "1", null] : ["0", "1"];
  const ready = [];
  for (const playerID of ids) {
    const client = Client({
      game, multiplayer: SocketIO({ server: base }), matchID: made.matchID,
      debug: false, ...(playerID === null ? {} : { playerID }),
    });
    ready.push(new Promise((resolve) => {
      client.subscribe((state) => {
        // The first call is the client's own initial state, before the server's sync.
        if (!state || !state.isConnected) return;
        // Each move ends the turn, so the server's state k has player k % 2 to move; the
        // mover's own optimistic copy (same k, its turn not yet ended) is not counted.
        if (state.ctx.currentPlayer !== String(state._stateID % 2)) return;
        if (playerID !== null) table.seen(Number(playerID), state._stateID);
        resolve();
      });
    }));
    client.start();
    if (playerID !== null) table.seats.push(client);
  }
  await Promise.all(ready);
  table.move = () => table.seats[table.version % 2].moves.tick();
}

async function openColyseus(table, index) {
  const { Client } = require("colyseus.js");
  const client = new Client(base);
  const first = await client.create("tick");
  const rooms = [first, await client.joinById(first.roomId)];
  if (index % 10 === 0) rooms.push(await client.joinById(first.roomId));
  rooms.forEach((room, seat) => {
    if (seat < 2) room.onStateChange((state) => table.seen(seat, state.n));
  });
  table.seats = rooms.slice(0, 2);
  table.move = () => table.seats[table.version % 2].send("tick");
}

async function main() {
  const all = Array.from({ length: tables }, () => new Table());
  const open = kind === "bgio" ? openBgio : openColyseus;
  for (let i = 0; i < all.length; i += 16) {
    await Promise.all(all.slice(i, i + 16).map((t, j) => open(t, i + j)));
  }
  for (const t of all) t.version = Math.min(...t.versions);
  console.log(`connected ${tables * 2 + Math.ceil(tables / 10)}`);
  for (let w = 0; w < windows; w++) {
    const latencies = [];
    console.log(`start ${w}`);
    const began = now();
    const deadline = began + seconds * 1000;
    await Promise.all(all.map(async (t) => {
      while (now() < deadline) {
        const sent = now();
        const arrived = t.both();
        t.move();
        await arrived;
        t.version += 1;
        latencies.push(now() - sent);
      }
    }));
    const taken = (now() - began) / 1000;
    latencies.sort((a, b) => a - b);
    const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
    console.log(`end ${w} ${latencies.length} ${taken} ${at(0.5)} ${at(0.99)}`);
  }
  process.exit(0);
}

main().catch((err) => { console.error(err); process.exit(1); });

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

// bench_capacity's load (`bgio-paced`, `colyseus-paced`): the card game of servers.js
// at human pace. Each seat acts 1.5 to 4 s after a state asks it to; the tables ramp
// up by STEPS (comma-separated); per step, once the new tables have settled for
// SETTLE seconds, "start T" and after HOLD seconds "end {json}" (moves, latency
// from a move's send to both seats holding it, errors, this process's CPU and the
// lateness of its timers).
//   node client.js bgio-paced|colyseus-paced BASE_URL STEPS HOLD SETTLE
const THINK = [1.5, 4.0];
let win = null;
function newWindow() { return { latencies: [], lateness: [], errors: {}, stale: 0 }; }
function countError(code) { win.errors[code] = (win.errors[code] || 0) + 1; }

class PacedTable {
  constructor() { this.versions = [-1, -1]; this.pending = []; this.timers = [null, null]; this.views = [null, null]; }
  seen(seat, version, view) {
    if (version < this.versions[seat]) return;
    this.versions[seat] = version;
    this.views[seat] = view;
    const low = Math.min(...this.versions);
    const t = now();
    this.pending = this.pending.filter(([v, sent]) => {
      if (low > v) { win.latencies.push(t - sent); return false; }
      if (t - sent > 10000) { countError("timeout"); return false; }
      return true;
    });
    clearTimeout(this.timers[seat]);
    this.timers[seat] = null;
    if (view && view.mine) {
      const delay = (THINK[0] + Math.random() * (THINK[1] - THINK[0])) * 1000;
      const due = now() + delay;
      this.timers[seat] = setTimeout(() => {
        this.timers[seat] = null;
        win.lateness.push(now() - due);
        this.pending.push([this.versions[seat], now()]);
        this.act(seat, this.versions[seat], this.views[seat]);
      }, delay);
    }
  }
}
function choose(view) {
  if (view.step === "draw") return { kind: "draw", from: Math.random() < 0.5 ? "stock" : "discard" };
  return { kind: "discard", card: view.hand[Math.floor(Math.random() * view.hand.length)] };
}

async function openBgioPaced(table) {
  const { Client } = require("boardgame.io/client");
  const { SocketIO } = require("boardgame.io/multiplayer");
  // The client's copy of the game: moves run on the server only (`client: false`).
  const game = {
    name: "cards", setup: () => ({}),
    moves: { draw: { move: () => {}, client: false }, discard: { move: () => {}, client: false } },
    turn: { minMoves: 2, maxMoves: 2 },
  };
  const made = await fetch(`${base}/games/cards/create`, {
    method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify({ numPlayers: 2 }),
  }).then((r) => r.json());
  const clients = [];
  const ready = [];
  for (const playerID of ["0", "1"]) {
    const client = Client({ game, multiplayer: SocketIO({ server: base }), matchID: made.matchID, playerID, debug: false });
    const seat = Number(playerID);
    ready.push(new Promise((resolve) => {
      client.subscribe((state) => {
        if (!state || !state.isConnected || !state.G || !state.G.hand) return;
        const view = { ...state.G, mine: state.ctx.currentPlayer === playerID };
        table.seen(seat, state._stateID, view);
        resolve();
      });
    }));
    client.start();
    clients.push(client);
  }
  table.act = (seat, version, view) => {
    const move = choose(view);
    if (move.kind === "draw") clients[seat].moves.draw(move.from);
    else clients[seat].moves.discard(move.card);
  };
  await Promise.all(ready);
}

async function openColyseusPaced(table) {
  const { Client } = require("colyseus.js");
  const client = new Client(base);
  const ready = [];
  const rooms = [];
  // Each seat's handlers first, then "ready": the server deals once both are ready.
  const listen = (room, seat) => {
    ready.push(new Promise((resolve) => {
      room.onMessage("state", (view) => {
        table.seen(seat, view.version, { ...view, mine: view.turn === seat });
        resolve();
      });
    }));
    room.onMessage("error", (e) => { if (e.code === "stale_version") win.stale += 1; else countError(e.code); });
    room.onLeave(() => { if (!table.closing) countError("dropped"); });
    room.send("ready");
    rooms.push(room);
  };
  const first = await client.create("cards");
  listen(first, 0);
  listen(await client.joinById(first.roomId), 1);
  table.act = (seat, version, view) => rooms[seat].send("move", { version, ...choose(view) });
  await Promise.all(ready);
}

async function paced() {
  const steps = tablesText.split(",").map(Number);
  const hold = Number(secondsText);
  const settle = Number(windowsText);
  const open = kind === "bgio-paced" ? openBgioPaced : openColyseusPaced;
  const all = [];
  win = newWindow();
  for (const target of steps) {
    const began = now();
    const fresh = Array.from({ length: target - all.length }, () => new PacedTable());
    for (let i = 0; i < fresh.length; i += 32) {
      await Promise.all(fresh.slice(i, i + 32).map((t) => open(t)));
    }
    all.push(...fresh);
    console.error(`  ${kind}: ${target} tables open in ${((now() - began) / 1000).toFixed(0)} s`);
    await new Promise((r) => setTimeout(r, settle * 1000));
    win = newWindow();
    let stall = 0;
    const cpu0 = process.cpuUsage();
    const t0 = now();
    console.log(`start ${target}`);
    await new Promise((resolve) => {
      let last = now();
      const tick = setInterval(() => {
        const t = now();
        stall = Math.max(stall, t - last - 10);
        last = t;
        if (t - t0 >= hold * 1000) { clearInterval(tick); resolve(); }
      }, 10);
    });
    const wall = (now() - t0) / 1000;
    const used = process.cpuUsage(cpu0);
    const lat = win.latencies.slice().sort((a, b) => a - b);
    const late = win.lateness.slice().sort((a, b) => a - b);
    const at = (xs, q) => (xs.length ? xs[Math.min(xs.length - 1, Math.floor(q * xs.length))] : NaN);
    console.log("end " + JSON.stringify({
      tables: target, moves: lat.length, p50_ms: at(lat, 0.5), p99_ms: at(lat, 0.99),
      max_ms: lat.length ? lat[lat.length - 1] : NaN, errors: win.errors, stale: win.stale,
      client_cpu: (used.user + used.system) / 1e6 / wall,
      late_p99_ms: at(late, 0.99), late_max_ms: late.length ? late[late.length - 1] : NaN,
      client_stall_ms: stall,
    }));
  }
  process.exit(0);
}

async function main() {
  if (kind.endsWith("-paced")) return paced();
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

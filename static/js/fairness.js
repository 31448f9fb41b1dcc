// Check the revealed deck against the fingerprint shown at the deal, and the deal
// against the secrets (docs/protocol-guide.md "Deals nobody can choose"). Loaded only
// when a hand ends (board.js verifyDeal): nothing here is needed before. What this
// browser sent for each deal is kept by store.js.
// Browsers give `crypto.subtle` only to secure contexts (HTTPS, localhost); a host
// on http://192.168.x.x has none, so a small SHA-256 (FIPS 180-4) stands in there.

export async function deckMatches(commitment, reveal) {
  if (!reveal) return null;
  const text = `${reveal.salt}:${reveal.deck.join(",")}`;
  return (await sha256Hex(new TextEncoder().encode(text))) === commitment;
}

export async function sha256Hex(bytes) {
  return toHex(await sha256Bytes(bytes));
}

async function sha256Bytes(bytes) {
  if (globalThis.crypto?.subtle) return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  // Loaded only where it is needed (an insecure context): most visitors never fetch it.
  const { sha256 } = await import("./sha256.js");
  return sha256(bytes);
}

const toHex = (bytes) => [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");

function fromHex(hex) {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i += 1) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

// The deck order the protocol derives from the server secret and the seats' entropy:
// seed = SHA-256(secret || e0 || e1); stream SHA-256(seed || k), k as 8-byte big-endian,
// read as 4-byte big-endian integers; Fisher-Yates from AC 2C ... KS with rejection.
export async function deriveDeck(secretHex, entropy) {
  const parts = [secretHex, ...entropy.map((e) => e || "")].join("");
  const seed = await sha256Bytes(fromHex(parts));
  const cards = [];
  for (const suit of "CDHS") for (const rank of "A23456789TJQK") cards.push(rank + suit);
  let block = null;
  let at = 32;
  let k = 0;
  const input = new Uint8Array(40);
  input.set(seed);
  const next = async () => {
    if (at === 32) {
      const view = new DataView(input.buffer);
      view.setUint32(32, Math.floor(k / 2 ** 32));
      view.setUint32(36, k >>> 0);
      block = new DataView((await sha256Bytes(input)).buffer);
      k += 1;
      at = 0;
    }
    const x = block.getUint32(at);
    at += 4;
    return x;
  };
  for (let i = 51; i >= 1; i -= 1) {
    const n = i + 1;
    const limit = 2 ** 32 - (2 ** 32 % n);
    let x = await next();
    while (x >= limit) x = await next();
    const j = x % n;
    [cards[i], cards[j]] = [cards[j], cards[i]];
  }
  return cards;
}

// After a hand: what did not match, as a list of keys (empty: all checked), or null
// when this browser took no part in the deal (nothing of its own to check).
//   commitment: the revealed secret is not the one committed to before the deal
//   entropy:    this browser's secret is not the one the server says it used
//   deck:       the deck is not the one the secrets give
//   fingerprint: the deck does not match the deck_commitment shown at the deal
export async function checkDeal(record, seat, deckCommitment, reveal) {
  if (!record?.entropy || !reveal || seat === null || seat === undefined) return null;
  // No commitment seen and no secret revealed: a deal not derived (test decks).
  if (!record.commitment && (reveal.server_secret === null || reveal.server_secret === undefined)) return null;
  const problems = [];
  if (!(await deckMatches(deckCommitment, reveal))) problems.push("fingerprint");
  const secret = reveal.server_secret;
  if (typeof secret !== "string" || !/^[0-9a-f]{64}$/.test(secret)) {
    problems.push("commitment", "deck");
    if (!Array.isArray(reveal.entropy) || reveal.entropy[seat] !== record.entropy) problems.push("entropy");
  } else {
    if (!record.commitment || (await sha256Hex(fromHex(secret))) !== record.commitment) problems.push("commitment");
    const entropy = Array.isArray(reveal.entropy) ? reveal.entropy : [null, null];
    const clean = entropy.map((e) => (typeof e === "string" && /^[0-9a-fA-F]{32}$/.test(e) ? e.toLowerCase() : null));
    if (clean[seat] !== record.entropy) problems.push("entropy");
    const derived = await deriveDeck(secret, clean.slice(0, 2));
    if (derived.join(",") !== (reveal.deck || []).join(",")) problems.push("deck");
  }
  return problems;
}

// Check the revealed deck against the fingerprint shown at the deal (PROTOCOL.md).
export async function deckMatches(commitment, reveal) {
  if (!globalThis.crypto?.subtle || !reveal) return null;
  const text = `${reveal.salt}:${reveal.deck.join(",")}`;
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return hex === commitment;
}

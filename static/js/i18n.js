// The page's strings, rendered by the server into <script type="application/json" id="i18n">.
const strings = JSON.parse(document.getElementById("i18n")?.textContent || "{}");

export function t(key, params = {}) {
  const text = strings[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
}

export const SUIT_SYMBOLS = { C: "♣", D: "♦", H: "♥", S: "♠" };
export const RANK_LABELS = { A: "A", T: "10", J: "J", Q: "Q", K: "K" };

// "7H" -> "seven of hearts" in the page's language.
export function cardName(card) {
  return t("card", { rank: t(`rank.${card[0]}`), suit: t(`suit.${card[1]}`) });
}

export function rankLabel(card) {
  return RANK_LABELS[card[0]] || card[0];
}

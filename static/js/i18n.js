// The page's strings, rendered by the server into <script type="application/json" id="i18n">.
const strings = JSON.parse(document.getElementById("i18n")?.textContent || "{}");
export const lang = document.documentElement.lang || "en";
const plurals = new Intl.PluralRules(lang);
const lists = new Intl.ListFormat(lang, { type: "conjunction" });

export function t(key, params = {}) {
  const text = strings[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
}

// A string that depends on a count: `key.one`, `key.other` ... chosen by the
// language's own plural rules (Intl.PluralRules), `{n}` filled in.
export function tn(key, n, params = {}) {
  const form = `${key}.${plurals.select(n)}`;
  return t(form in strings ? form : `${key}.other`, { ...params, n });
}

// "a, b and c" in the page's language.
export function list(items) {
  return lists.format(items.map(String));
}

export const SUIT_SYMBOLS = { C: "♣", D: "♦", H: "♥", S: "♠" };
export const RANK_LABELS = { A: "A", T: "10", J: "J", Q: "Q", K: "K" };

// "7H" -> "seven of hearts" in the page's language.
export function cardName(card) {
  return t("card", { rank: t(`rank.${card[0]}`), suit: t(`suit.${card[1]}`) });
}

// "7H" -> "7♥", for short lines such as the move log.
export function cardShort(card) {
  return `${rankLabel(card)}${SUIT_SYMBOLS[card[1]]}`;
}

export function rankLabel(card) {
  return RANK_LABELS[card[0]] || card[0];
}

// Every key the site keeps in the browser (localStorage per device, sessionStorage per tab).
export const get = (key, where = localStorage) => where.getItem(key);
export const put = (key, value, where = localStorage) => (value === null ? where.removeItem(key) : where.setItem(key, value));

export const flag = (key, where) => get(key, where) === "1";
export const setFlag = (key, on, where) => put(key, on ? "1" : "0", where);

export function sortMode() {
  const mode = get("gin.sort");
  return mode === "rank" || mode === "suit" ? mode : "melds";
}
export function setSortMode(mode) {
  put("gin.sort", mode);
  put("gin.manual", null);
}

export const handKey = (s) => `${s.table.id}:${s.hand?.number}:${s.hand?.deck_commitment?.slice(0, 8)}`;
export const isManual = (s) => get("gin.manual") === handKey(s);
export const setManual = (s) => put("gin.manual", handKey(s));

export const watching = (table) => flag(`gin.watch.${table}`, sessionStorage);
export const setWatching = (table, on) => setFlag(`gin.watch.${table}`, on, sessionStorage);

export function once(key) {
  const first = !flag(key, sessionStorage);
  setFlag(key, true, sessionStorage);
  return first;
}

// JSON maps ({} when absent or unreadable).
export function load(key, where = localStorage) {
  try {
    return JSON.parse(get(key, where) || "{}") || {};
  } catch {
    return {};
  }
}
// `newest`: that many of the highest numbered keys are kept. False when refused.
export function save(key, map, where = localStorage, newest = 0) {
  const keys = Object.keys(map).sort((a, b) => b - a);
  if (newest) map = Object.fromEntries(keys.slice(0, newest).map((k) => [k, map[k]]));
  try {
    put(key, JSON.stringify(map), where);
    return true;
  } catch {
    return false; // full, or private mode
  }
}

// The coach's hint at a table with the computer (docs/protocol-guide.md "Hints"): its
// choice, and every choice it priced with the points it expects for the hand. Loaded
// by table.js at the first hint, with its words (`/{lang}/hint-words.json`), so the
// table page's first load stays light.
import { cardShort, lang } from "./i18n.js";
import { $ } from "./render.js";

const points = new Intl.NumberFormat(lang, { signDisplay: "exceptZero", minimumFractionDigits: 1, maximumFractionDigits: 1 });
const words = fetch(`/${lang}/hint-words.json`).then((r) => r.json());

const fill = (text, params) => text.replace(/\{(\w+)\}/g, (whole, name) => params[name] ?? whole);

export class Hints {
  constructor(ctl) {
    this.ctl = ctl;
    this.box = $("hint-box");
    this.words = {};
  }

  w(key, params = {}) {
    return fill(this.words[key] ?? key, params);
  }

  action(a) {
    const card = a.card || a.discard;
    return this.w(`act.${a.kind}`, { card: card ? cardShort(card) : "" });
  }

  async ask() {
    const version = this.ctl.state.version;
    this.words = await words;
    if (this.ctl.state.version !== version) return;
    const box = this.box;
    Object.assign(box, { hidden: false, textContent: this.w("hint.thinking") });
    box.dataset.version = version;
    if (!this.ctl.socket.send({ type: "hint" })) box.hidden = true;
  }

  // A new state (or a refusal: null): the hint of another state goes.
  render(s) {
    if (s && this.box.dataset.version === String(s.version) && !$("hint").hidden) return;
    this.box.hidden = true;
    delete this.box.dataset.version;
    for (const el of document.querySelectorAll("#hand .hinted")) el.classList.remove("hinted");
  }

  show(hint) {
    // An answer for a state already left behind (the player moved meanwhile) is dropped.
    if (this.box.dataset.version !== String(hint.version) || this.ctl.state?.version !== hint.version) return;
    const best = document.createElement("p");
    best.className = "hint-best";
    best.textContent = this.w("hint.best", { action: this.action(hint.best) });
    const list = document.createElement("ol");
    for (const c of hint.choices) {
      const item = document.createElement("li");
      item.textContent = this.w("hint.choice", { action: this.action(c.action), ev: points.format(c.expected) });
      list.append(item);
    }
    const note = document.createElement("p");
    note.style.fontSize = "0.85rem";
    note.textContent = this.w("hint.note");
    this.box.replaceChildren(best, list, note);
    this.box.hidden = false;
    const card = hint.best.card || hint.best.discard;
    for (const el of document.querySelectorAll("#hand [data-card]")) el.classList.toggle("hinted", el.dataset.card === card);
  }
}

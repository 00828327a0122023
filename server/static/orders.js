// The orders panel: legal orders by unit (also offered by clicking a unit on the map), orders typed in the
// short notation (or in words: full names and common abbreviations) and checked as they are typed, what is still
// to order, submit (in a bar that stays in view), change, and keeping the turn open. Drafts are kept in
// localStorage per game, phase and power, so that a reload loses nothing.

import { api } from "./api.js";
import { $, fill, h } from "./dom.js";
import { coastsOf, describe, normaliseOrder, placeName, provinceOf, readOrder } from "./notation.js";
import { phaseName } from "./powers.js";

const NOTE_TEXT = {
  MBV: "accepted",
  FAR: "cannot reach there",
  NSP: "no such province",
  NSU: "no such unit",
  NAS: "not at sea",
  NSF: "no such fleet",
  NSA: "no such army",
  NYU: "not your unit",
  NRN: "no retreat needed",
  NVR: "not a valid retreat",
  YSC: "not your supply centre",
  ESC: "not an empty supply centre",
  HSC: "not a home centre",
  NSC: "not a supply centre",
  CST: "no coast given",
  NMB: "no more builds",
  NMR: "no more removals",
  NRS: "not this season",
};

const STATUS_MARK = { draft: "•", sent: "…", ok: "✓", rejected: "✕" };
const STATUS_WORDS = { draft: "chosen, not sent yet", sent: "sent", ok: "accepted by the game server", rejected: "refused" };
const STORE = "detente.orders";

export class OrdersPanel {
  /** `send(text)` sends DAIDE; `changed()` is called whenever the drafts change (to redraw the map);
   * `check(game, power, text)` checks a typed order (the server's, unless given); `bar` is where the
   * status line and the Submit and Ready buttons go (a bar that stays in view), by default in `root`. */
  constructor(root, { send, changed, check = api.check, bar = null }) {
    this.root = root;
    this.barRoot = bar;
    this.send = send;
    this.changed = changed;
    this.check = check;
    this.game = null;
    this.power = null;
    this.legal = null;
    this.drafts = new Map(); // key (unit name, or WAIVE1...) -> {order, daide, status, note}
    this.mis = null;
    this.holding = false;
    this.over = false;
    this.checkTimer = null;
    this.checked = null;
    this.build();
  }

  build() {
    this.title = h("h2", {}, "Orders");
    this.help = h("p", { class: "help" }, "Tap a unit on the map, or choose below, or type an order (A PAR - BUR, or army paris to burgundy).");
    this.misLine = h("p", { class: "mis", id: "mis", "aria-live": "polite" });
    this.units = h("div", { class: "unit-orders" });
    this.input = h("input", {
      id: "order-input",
      type: "text",
      placeholder: "type an order: A PAR - BUR, F Brest to Mid-Atlantic",
      autocomplete: "off",
      autocapitalize: "off",
      spellcheck: "false",
      oninput: () => this.typed(),
      onkeydown: (event) => {
        if (event.key === "Enter") this.addTyped();
      },
    });
    this.feedback = h("div", { class: "feedback", id: "order-feedback", "aria-live": "polite" });
    this.addButton = h("button", { type: "button", id: "order-add", onclick: () => this.addTyped(), disabled: true }, "Add");
    this.othersHold = h("input", { type: "checkbox", id: "others-hold" });
    this.submitButton = h("button", { type: "button", id: "submit-orders", class: "primary", onclick: () => this.submit() }, "Submit orders");
    this.holdButton = h("button", { type: "button", id: "hold-phase", onclick: () => this.toggleHold() }, "Not ready: keep the turn open");
    this.readyState = h("span", { class: "ready-state", id: "ready-state" });
    this.prompt = h("div", { class: "prompt", id: "submit-prompt", role: "alertdialog", hidden: true });
    this.status = h("p", { class: "status", id: "orders-status" });
    this.typedRow = h("div", { class: "typed" }, h("div", { class: "typed-input" }, this.input, this.addButton), this.feedback);
    this.actions = h(
      "div",
      { class: "actions" },
      this.submitButton,
      h("label", { class: "check" }, this.othersHold, " units without an order hold"),
      this.holdButton,
      this.readyState,
    );
    this.bar = h("div", { class: "order-bar", id: "order-bar" }, this.misLine, this.prompt, this.actions, this.status);
    fill(this.root, this.title, this.help, this.units, this.typedRow);
    (this.barRoot || this.root).append(this.bar);
  }

  /** A new phase (or the first view of one): the legal orders of `power`, or none (observer, nothing due). */
  reset({ game, power, phase, legal, over = false, recordEnds = false }) {
    this.game = game;
    this.power = power;
    this.phase = phase;
    this.legal = legal;
    this.over = over;
    this.recordEnds = recordEnds; // an imported game whose file stops before the end: it is not over
    this.drafts.clear();
    this.mis = null;
    this.holding = false;
    this.input.value = "";
    fill(this.feedback);
    this.status.textContent = "";
    this.prompt.hidden = true;
    this.othersHold.checked = false; // holding every unit without an order is asked each phase, never kept
    this.checked = null;
    const restored = this.restore();
    this.render();
    if (restored) this.changed();
  }

  // --- drafts kept across reloads ----------------------------------------------------------------

  get storeKey() {
    return this.game && this.phase && this.power ? `${STORE}.${this.game}.${this.phase}.${this.power}` : null;
  }

  save() {
    const key = this.storeKey;
    if (!key || !this.due) return;
    const kept = {};
    for (const [k, d] of this.drafts) kept[k] = { order: d.order, daide: d.daide, status: d.status, note: d.note };
    try {
      if (this.drafts.size) localStorage.setItem(key, JSON.stringify(kept));
      else localStorage.removeItem(key);
    } catch {
      // storage full or refused: the drafts live as long as the page
    }
  }

  /** The drafts kept for this game, phase and power (the orders of other phases are dropped). */
  restore() {
    const key = this.storeKey;
    if (!key) return false;
    const prefix = `${STORE}.${this.game}.`;
    for (let i = localStorage.length - 1; i >= 0; i--) {
      const k = localStorage.key(i);
      if (k && k.startsWith(prefix) && k !== key && k.endsWith(`.${this.power}`)) localStorage.removeItem(k);
    }
    if (!this.due) return false;
    let kept = null;
    try {
      kept = JSON.parse(localStorage.getItem(key) || "null");
    } catch {
      kept = null;
    }
    if (!kept || typeof kept !== "object") return false;
    const legalOrders = new Set([
      ...Object.values(this.legal.units).flat().map((o) => o.order),
      ...this.legal.adjustments.map((o) => o.order),
    ]);
    for (const [k, d] of Object.entries(kept)) {
      if (!d || !legalOrders.has(d.order)) continue;
      // sent before the reload: the server's MIS says whether it has it
      const status = d.status === "ok" || d.status === "sent" ? "sent" : d.status === "rejected" ? "rejected" : "draft";
      this.drafts.set(k, { order: d.order, daide: d.daide, status, note: d.note || null });
    }
    return this.drafts.size > 0;
  }

  get due() {
    if (!this.legal || this.over) return false;
    return Object.keys(this.legal.units).length > 0 || this.legal.adjustments.length > 0;
  }

  /** The legal orders of one unit, for the map's menu. */
  optionsFor(unit) {
    return (this.legal && this.legal.units[unit]) || [];
  }

  selectableUnits() {
    return new Set(this.due ? Object.keys(this.legal.units) : []);
  }

  /** The orders to draw on the map: the drafts, with their status. */
  drawn() {
    return [...this.drafts.values()].map((d) => ({ power: this.power, text: d.order, status: d.status }));
  }

  /** The units (movement, retreats) with no order yet, or with a refused one. */
  missing() {
    if (!this.due) return [];
    return Object.keys(this.legal.units).filter((unit) => {
      const d = this.drafts.get(unit);
      return !d || d.status === "rejected";
    });
  }

  pick(unit, option) {
    const current = this.drafts.get(unit);
    if (current && current.order === option.order && current.status !== "rejected") return;
    this.drafts.set(unit, { order: option.order, daide: option.daide, status: "draft", note: null });
    this.prompt.hidden = true;
    this.save();
    this.render();
    this.changed();
  }

  unpick(key) {
    const draft = this.drafts.get(key);
    if (!draft) return;
    if (draft.status === "ok" || draft.status === "sent") this.send(`NOT (SUB (${draft.daide}))`);
    this.drafts.delete(key);
    this.save();
    this.render();
    this.changed();
  }

  // --- typed orders ------------------------------------------------------------------------------

  /** The unit a typed order is for, among the person's (its type may be left out: "PAR - BUR"). */
  unitFor(order) {
    if (!this.legal || !order || !order.at) return null;
    const units = Object.keys(this.legal.units);
    const exact = order.type ? units.find((u) => u === order.unit) : null;
    return exact || units.find((u) => provinceOf(u.split(" ")[1]) === provinceOf(order.at) && (!order.type || u[0] === order.type)) || null;
  }

  /** A move to a province with coasts and no coast named: the legal moves of the unit to each coast. */
  coastChoices(order) {
    if (!order || !(order.kind === "move" || order.kind === "retreat") || !order.to || order.to.includes("/")) return null;
    if (!coastsOf(order.to).length) return null;
    const unit = this.unitFor(order);
    if (!unit) return null;
    const options = this.optionsFor(unit).filter((o) => {
      const r = readOrder(o.order);
      return r && r.kind === order.kind && provinceOf(r.to) === order.to && r.to.includes("/");
    });
    return options.length ? { unit, options } : null;
  }

  typed() {
    clearTimeout(this.checkTimer);
    const raw = this.input.value.trim();
    this.checked = null;
    this.addButton.disabled = true;
    if (!raw) {
      fill(this.feedback);
      this.feedback.className = "feedback";
      return;
    }
    const text = normaliseOrder(raw) || raw;
    const coast = this.coastChoices(readOrder(text));
    if (coast && coast.options.length > 1) {
      this.feedback.className = "feedback ask";
      const to = readOrder(text).to;
      fill(
        this.feedback,
        h("span", {}, `Which coast of ${placeName(to)}? `),
        coast.options.map((option) =>
          h(
            "button",
            {
              type: "button",
              class: "coast",
              "data-order": option.order,
              onclick: () => {
                this.pick(coast.unit, option);
                this.input.value = "";
                this.typed();
                this.feedback.className = "feedback ok";
                this.feedback.textContent = `✓ added ${option.order} — ${describe(option.order)}`;
              },
            },
            placeName(readOrder(option.order).to).replace(/^.*\((.*)\)$/, "$1"),
          ),
        ),
      );
      return;
    }
    const wanted = coast ? coast.options[0].order : text;
    this.checkTimer = setTimeout(async () => {
      try {
        const result = await this.check(this.game, this.power, wanted);
        if (this.input.value.trim() !== raw) return; // typed on since
        this.checked = result.ok ? result : null;
        this.addButton.disabled = !result.ok;
        this.feedback.className = `feedback ${result.ok ? "ok" : "bad"}`;
        const read = wanted.toUpperCase() !== raw.toUpperCase() ? ` (read as ${wanted})` : "";
        this.feedback.textContent = result.ok ? `✓ ${result.order} — ${describe(result.order)}` : `✕ ${result.reason}${read}`;
      } catch (error) {
        this.feedback.className = "feedback bad";
        this.feedback.textContent = `✕ ${error.message}`;
      }
    }, 120);
  }

  addTyped() {
    const result = this.checked;
    if (!result) return;
    let key = result.unit;
    if (!key) {
      let n = 1;
      while (this.drafts.has(`WAIVE${n}`)) n++;
      key = `WAIVE${n}`;
    }
    this.pick(key, result);
    this.input.value = "";
    this.typed();
  }

  // --- submitting --------------------------------------------------------------------------------

  /** The order a unit without one gets if the person lets it: hold, or disband in a retreat. */
  defaultFor(unit) {
    const verb = this.legal.kind === "retreat" ? " D" : " H";
    return this.optionsFor(unit).find((o) => o.order.endsWith(verb)) || null;
  }

  /** SUB the drafts not yet accepted. Units without an order are never held silently: unless "units
   * without an order hold" is ticked, the person is asked first. */
  submit({ fillIn = null } = {}) {
    if (!this.due) return;
    const missing = this.legal.kind === "adjustment" ? [] : this.missing().filter((u) => !this.drafts.has(u));
    const fill_ = fillIn === null ? (this.othersHold.checked ? true : null) : fillIn;
    if (missing.length && fill_ === null) {
      this.ask(missing);
      return;
    }
    this.prompt.hidden = true;
    const clauses = [];
    for (const draft of this.drafts.values()) {
      if (draft.status === "ok" || draft.status === "sent") continue;
      draft.status = "sent";
      clauses.push(`(${draft.daide})`);
    }
    if (fill_) {
      for (const unit of missing) {
        const option = this.defaultFor(unit);
        if (!option) continue;
        this.drafts.set(unit, { order: option.order, daide: option.daide, status: "sent", note: null });
        clauses.push(`(${option.daide})`);
      }
    }
    if (!clauses.length) {
      this.send("MIS");
      return;
    }
    this.send(`SUB ${clauses.join(" ")}`);
    this.send("MIS");
    this.status.textContent = "Orders sent.";
    this.save();
    this.render();
    this.changed();
  }

  /** The prompt before submitting with units that have no order. */
  ask(missing) {
    const retreat = this.legal.kind === "retreat";
    const fate = retreat ? "disbanded" : "hold";
    const names = missing.map((u) => `${u} (${placeName(u.split(" ")[1])})`).join(", ");
    fill(
      this.prompt,
      h("p", {}, `No order yet for ${missing.length === 1 ? "this unit" : `these ${missing.length} units`}: `, h("strong", {}, names), "."),
      h(
        "div",
        { class: "prompt-actions" },
        h("button", { type: "button", id: "submit-holding", class: "primary", onclick: () => this.submit({ fillIn: true }) },
          retreat ? "Disband them and submit" : "They hold: submit"),
        h("button", { type: "button", id: "submit-partial", onclick: () => this.submit({ fillIn: false }) }, "Send the others, order these later"),
        h("button", { type: "button", id: "submit-cancel", onclick: () => (this.prompt.hidden = true) }, "Go back"),
      ),
    );
    this.prompt.dataset.fate = fate;
    this.prompt.hidden = false;
  }

  toggleHold() {
    this.send(this.holding ? "GOF" : "NOT (GOF)");
  }

  /** YES or REJ to GOF / NOT (GOF). */
  holdAnswer(holding, accepted) {
    if (accepted) this.holding = holding;
    this.render();
  }

  /** THX: the game master's note on one order. */
  thx(unit, note) {
    let key = unit;
    if (unit === "WAIVE") key = [...this.drafts.keys()].find((k) => k.startsWith("WAIVE") && this.drafts.get(k).status === "sent");
    const draft = key && this.drafts.get(key);
    if (!draft) return;
    draft.status = note === "MBV" ? "ok" : "rejected";
    draft.note = note;
    this.save();
    this.render();
    this.changed();
  }

  /** MIS: what the server still misses. Orders sent before a reload are known to it unless listed. */
  setMis(mis) {
    this.mis = mis;
    let moved = false;
    for (const [key, draft] of this.drafts) {
      if (draft.status !== "sent") continue;
      if (mis.units.length ? !mis.units.includes(key) : mis.count === null || mis.count === 0) {
        draft.status = "ok";
        moved = true;
      } else if (mis.units.includes(key)) {
        draft.status = "draft";
        moved = true;
      }
    }
    if (moved) this.save();
    this.render();
    if (moved) this.changed();
  }

  // --- drawing -----------------------------------------------------------------------------------

  statusLine() {
    const { legal } = this;
    if (this.over && this.recordEnds) return ["No orders: this is the record of a game, and it stops here.", "neutral"];
    if (this.over) return ["The game is over: this is its record, read-only.", "neutral"];
    if (!this.power) return ["You are watching.", "neutral"];
    if (!legal) return ["Loading your orders…", "neutral"];
    if (!this.due) return ["You have no orders to give in this phase.", "neutral"];
    const drafts = [...this.drafts.values()];
    const pending = drafts.some((d) => d.status === "draft");
    const sending = drafts.some((d) => d.status === "sent");
    if (legal.kind === "adjustment") {
      const owed = Math.abs(legal.owed) || 0;
      const chosen = drafts.filter((d) => d.status !== "rejected").length;
      const word = legal.owed > 0 ? "Builds" : "Removals";
      if (chosen < owed) {
        return [legal.owed > 0 ? `Builds still owed: ${owed - chosen} (choose, or waive)` : `Removals still to choose: ${owed - chosen}`, "bad"];
      }
      if (pending) return [`${word} chosen: press Submit to send them.`, "complete"];
      if (sending) return ["Sending your orders…", "complete"];
      return ["All your orders are in.", "complete"];
    }
    const missing = this.missing();
    const total = Object.keys(legal.units).length;
    if (missing.length) return [`Still to order (${missing.length} of ${total}): ${missing.join(", ")}`, "bad"];
    if (pending) return ["Every unit has an order: press Submit to send them.", "complete"];
    if (sending) return ["Sending your orders…", "complete"];
    return ["All your orders are in.", "complete"];
  }

  render() {
    const { legal } = this;
    this.title.textContent = this.phase ? `Orders — ${phaseName(this.phase)}` : "Orders";
    const due = this.due;
    this.typedRow.hidden = !due;
    this.help.hidden = !due;
    this.actions.hidden = !due;
    if (!due) this.prompt.hidden = true;
    this.holdButton.textContent = this.holding ? "Ready: end my turn" : "Not ready: keep the turn open";
    this.holdButton.title = this.holding
      ? "You keep the turn open: press when you are done, and the turn ends once every power is ready."
      : "The turn ends as soon as every power's orders are in. Press to keep it open while you negotiate.";
    this.readyState.textContent = this.holding ? "You keep the turn open." : "";
    this.holdButton.classList.toggle("active", this.holding);
    const [text, kind] = this.statusLine();
    this.misLine.textContent = text;
    this.misLine.classList.toggle("neutral", kind === "neutral");
    this.misLine.classList.toggle("complete", kind === "complete");
    this.bar.classList.toggle("complete", kind === "complete");
    this.bar.hidden = kind === "neutral" && !text;
    fill(this.units);
    if (!due) return;
    for (const [unit, options] of Object.entries(legal.units)) this.units.append(this.unitRow(unit, options));
    if (legal.adjustments.length) this.units.append(this.adjustmentRows());
    const drafts = [...this.drafts.values()];
    const pending = drafts.some((d) => d.status === "draft" || d.status === "rejected");
    this.submitButton.textContent = drafts.some((d) => d.status === "ok") && pending ? "Submit changes" : "Submit orders";
  }

  unitRow(unit, options) {
    const draft = this.drafts.get(unit);
    const select = h(
      "select",
      {
        "aria-label": `order for ${unit}`,
        "data-unit": unit,
        onchange: (event) => {
          const option = options.find((o) => o.order === event.target.value);
          if (option) this.pick(unit, option);
          else this.unpick(unit);
        },
      },
      h("option", { value: "" }, "— choose an order —"),
      options.map((o) => h("option", { value: o.order, selected: draft && draft.order === o.order }, `${o.order} — ${describe(o.order)}`)),
    );
    const mark = draft ? STATUS_MARK[draft.status] : "";
    const note = draft && draft.status === "rejected" ? NOTE_TEXT[draft.note] || draft.note : "";
    return h(
      "div",
      { class: ["unit-row", draft && `status-${draft.status}`], "data-unit": unit },
      h("span", { class: "unit-name", title: placeName(unit.split(" ")[1]) }, unit),
      select,
      h("span", { class: "mark", title: draft ? STATUS_WORDS[draft.status] : "no order yet" }, mark),
      note ? h("span", { class: "note" }, note) : null,
    );
  }

  adjustmentRows() {
    const { legal } = this;
    const owed = Math.abs(legal.owed) || 0;
    const chosen = [...this.drafts.entries()];
    const box = h("div", { class: "adjustments" }, h("p", {}, legal.owed > 0 ? `Builds: choose up to ${owed}` : `Removals: choose ${owed}`));
    for (const option of legal.adjustments) {
      const entry = chosen.find(([, d]) => d.order === option.order);
      const key = option.order === "WAIVE" ? null : option.order.split(" ").slice(0, 2).join(" ");
      box.append(
        h(
          "button",
          {
            type: "button",
            class: ["option", entry && "chosen", entry && `status-${entry[1].status}`],
            "data-order": option.order,
            title: describe(option.order),
            onclick: () => {
              if (entry) this.unpick(entry[0]);
              else if (this.drafts.size < owed) {
                if (key) this.pick(key, option);
                else {
                  let n = 1;
                  while (this.drafts.has(`WAIVE${n}`)) n++;
                  this.pick(`WAIVE${n}`, option);
                }
              }
            },
          },
          option.order,
        ),
      );
    }
    return box;
  }
}

/** The menu of a unit's legal orders, shown where the unit was clicked. */
/**
 * The menu of `options` for `unit`, in `container`, placed by `place`: beside `anchor` (the unit's
 * box on the screen) where it covers the least of the boxes in `avoid` (the destinations the map
 * highlights); on a phone, where the menu is a sheet across the screen, on the side of the screen
 * away from the unit.
 */
export function showMenu(container, { anchor, avoid = [] }, unit, options, pick, title = null) {
  closeMenu();
  const groups = { Hold: [], Move: [], Support: [], Convoy: [], Retreat: [], Disband: [], Other: [] };
  for (const option of options) {
    const verb = option.order.split(" ")[2];
    const group =
      { H: "Hold", "-": "Move", S: "Support", C: "Convoy", R: "Retreat", D: "Disband" }[verb] || "Other";
    groups[group].push(option);
  }
  const menu = h(
    "div",
    { class: "menu", id: "unit-menu", role: "menu", "data-unit": unit },
    h("div", { class: "menu-title" }, title || `${unit} — ${placeName(unit.split(" ")[1])}`, h("button", { type: "button", class: "close", onclick: closeMenu, "aria-label": "close" }, "×")),
    Object.entries(groups)
      .filter(([, list]) => list.length)
      .map(([name, list]) =>
        h(
          "div",
          { class: "menu-group" },
          h("div", { class: "menu-group-name" }, name),
          list.map((option) =>
            h(
              "button",
              {
                type: "button",
                role: "menuitem",
                class: "menu-item",
                "data-order": option.order,
                onclick: () => {
                  closeMenu();
                  pick(option);
                },
              },
              h("span", { class: "code" }, option.order),
              h("span", { class: "words" }, describe(option.order)),
            ),
          ),
        ),
      ),
  );
  container.append(menu);
  if (getComputedStyle(menu).position === "fixed") placeSheet(menu, anchor);
  else placeBeside(menu, container.getBoundingClientRect(), anchor, avoid);
}

const GAP = 8;

/** The area two boxes share, in square pixels. */
function overlap(a, b) {
  const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
  const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
  return w > 0 && h > 0 ? w * h : 0;
}

/** The gap between two boxes, in pixels (0 when they touch or overlap). */
function gap(a, b) {
  const dx = Math.max(0, a.left - b.right, b.left - a.right);
  const dy = Math.max(0, a.top - b.bottom, b.top - a.bottom);
  return Math.hypot(dx, dy);
}

/** Beside the unit, inside the map: of the places around it (its sides, above, below, the corners),
 * the one that covers the unit least, then the fewest of `avoid`, then is nearest. */
function placeBeside(menu, bounds, anchor, avoid) {
  const w = menu.offsetWidth;
  const h = menu.offsetHeight;
  const a = anchor || new DOMRect(bounds.left, bounds.top, 0, 0);
  const clampX = (x) => Math.max(bounds.left, Math.min(x, bounds.right - w));
  const clampY = (y) => Math.max(bounds.top, Math.min(y, bounds.bottom - h));
  const xs = [a.right + GAP, a.left - GAP - w, a.left + a.width / 2 - w / 2];
  const ys = [a.top + a.height / 2 - h / 2, a.top, a.bottom - h, a.bottom + GAP, a.top - GAP - h];
  const candidates = xs.flatMap((x) => ys.map((y) => new DOMRect(clampX(x), clampY(y), w, h)));
  const cost = (box) =>
    overlap(box, a) * 1e9 + avoid.reduce((sum, b) => sum + overlap(box, b), 0) * 1e3 + gap(box, a);
  const best = candidates.reduce((b, c) => (cost(c) < cost(b) ? c : b));
  menu.style.left = `${best.left - bounds.left}px`;
  menu.style.top = `${best.top - bounds.top}px`;
}

/** A phone's sheet: at the bottom of the screen, or at the top when the unit is in the lower half,
 * never taller than the room left beside the unit. */
function placeSheet(menu, anchor) {
  const height = window.innerHeight;
  const above = anchor ? anchor.top - 2 * GAP : 0;
  const below = anchor ? height - anchor.bottom - 2 * GAP : height;
  menu.classList.toggle("at-top", above > below);
  menu.style.maxHeight = `${Math.max(above, below)}px`;
}

export function closeMenu() {
  const menu = $("#unit-menu");
  if (menu) menu.remove();
}

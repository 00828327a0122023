// The orders panel: legal orders by unit (also offered by clicking a unit on the map), orders typed in the
// short notation and checked as they are typed, what is missing (MIS), submit, change, and holding the phase open.

import { api } from "./api.js";
import { $, fill, h } from "./dom.js";
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

export class OrdersPanel {
  /** `send(text)` sends DAIDE; `changed()` is called whenever the drafts change (to redraw the map). */
  constructor(root, { send, changed }) {
    this.root = root;
    this.send = send;
    this.changed = changed;
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
    this.misLine = h("p", { class: "mis", id: "mis" });
    this.units = h("div", { class: "unit-orders" });
    this.input = h("input", {
      id: "order-input",
      type: "text",
      placeholder: "type an order: A PAR - BUR",
      autocomplete: "off",
      spellcheck: "false",
      oninput: () => this.typed(),
      onkeydown: (event) => {
        if (event.key === "Enter") this.addTyped();
      },
    });
    this.feedback = h("span", { class: "feedback", id: "order-feedback", "aria-live": "polite" });
    this.addButton = h("button", { type: "button", onclick: () => this.addTyped(), disabled: true }, "Add");
    this.othersHold = h("input", { type: "checkbox", id: "others-hold", checked: true });
    this.submitButton = h("button", { type: "button", id: "submit-orders", class: "primary", onclick: () => this.submit() }, "Submit orders");
    this.holdButton = h("button", { type: "button", id: "hold-phase", onclick: () => this.toggleHold() }, "Hold the phase open");
    this.status = h("p", { class: "status", id: "orders-status" });
    this.typedRow = h("div", { class: "typed" }, this.input, this.addButton, this.feedback);
    this.actions = h(
      "div",
      { class: "actions" },
      this.submitButton,
      h("label", { class: "check" }, this.othersHold, " units without an order hold"),
      this.holdButton,
    );
    fill(this.root, this.title, this.misLine, this.units, this.typedRow, this.actions, this.status);
  }

  /** A new phase (or the first view of one): the legal orders of `power`, or none (observer, nothing due). */
  reset({ game, power, phase, legal, over = false }) {
    this.game = game;
    this.power = power;
    this.phase = phase;
    this.legal = legal;
    this.over = over;
    this.drafts.clear();
    this.mis = null;
    this.holding = false;
    this.input.value = "";
    this.feedback.textContent = "";
    this.status.textContent = "";
    this.checked = null;
    this.render();
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

  pick(unit, option) {
    const current = this.drafts.get(unit);
    if (current && current.order === option.order && current.status !== "rejected") return;
    this.drafts.set(unit, { order: option.order, daide: option.daide, status: "draft", note: null });
    this.render();
    this.changed();
  }

  unpick(key) {
    const draft = this.drafts.get(key);
    if (!draft) return;
    if (draft.status === "ok" || draft.status === "sent") this.send(`NOT (SUB (${draft.daide}))`);
    this.drafts.delete(key);
    this.render();
    this.changed();
  }

  typed() {
    clearTimeout(this.checkTimer);
    const text = this.input.value.trim();
    this.checked = null;
    this.addButton.disabled = true;
    if (!text) {
      this.feedback.textContent = "";
      this.feedback.className = "feedback";
      return;
    }
    this.checkTimer = setTimeout(async () => {
      try {
        const result = await api.check(this.game, this.power, text);
        if (this.input.value.trim() !== text) return; // typed on since
        this.checked = result.ok ? result : null;
        this.addButton.disabled = !result.ok;
        this.feedback.className = `feedback ${result.ok ? "ok" : "bad"}`;
        this.feedback.textContent = result.ok ? `✓ ${result.order}` : `✕ ${result.reason}`;
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

  /** SUB the drafts not yet accepted, and holds for the units without one when asked. */
  submit() {
    if (!this.due) return;
    const clauses = [];
    for (const draft of this.drafts.values()) {
      if (draft.status === "ok") continue;
      draft.status = "sent";
      clauses.push(`(${draft.daide})`);
    }
    if (this.othersHold.checked && this.legal.kind === "movement") {
      for (const [unit, options] of Object.entries(this.legal.units)) {
        if (this.drafts.has(unit)) continue;
        const hold = options.find((o) => o.order.endsWith(" H"));
        if (!hold) continue;
        this.drafts.set(unit, { order: hold.order, daide: hold.daide, status: "sent", note: null });
        clauses.push(`(${hold.daide})`);
      }
    }
    if (!clauses.length) {
      this.send("MIS");
      return;
    }
    this.send(`SUB ${clauses.join(" ")}`);
    this.send("MIS");
    this.status.textContent = "Orders sent.";
    this.render();
    this.changed();
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
    this.render();
    this.changed();
  }

  setMis(mis) {
    this.mis = mis;
    this.render();
  }

  render() {
    const { legal } = this;
    this.title.textContent = this.phase ? `Orders — ${phaseName(this.phase)}` : "Orders";
    const due = this.due;
    this.typedRow.hidden = !due;
    this.actions.hidden = !due;
    this.holdButton.textContent = this.holding ? "Let the phase end (GOF)" : "Hold the phase open";
    this.holdButton.classList.toggle("active", this.holding);
    this.misLine.classList.toggle("neutral", this.over || !legal || !due);
    if (this.over) {
      this.misLine.textContent = "The game is over.";
    } else if (!legal) {
      this.misLine.textContent = this.power ? "" : "You are watching.";
    } else if (!due) {
      this.misLine.textContent = "You have no orders to give in this phase.";
    } else if (this.mis) {
      const { units, count } = this.mis;
      if (units.length) this.misLine.textContent = `Still to order: ${units.join(", ")}`;
      else if (count !== null && count < 0) this.misLine.textContent = `Builds still owed: ${-count}`;
      else if (count !== null && count > 0) this.misLine.textContent = `Removals still owed: ${count}`;
      else this.misLine.textContent = "All your orders are in.";
    } else {
      this.misLine.textContent = "";
    }
    this.misLine.classList.toggle("complete", Boolean(this.mis && !this.mis.units.length && this.mis.count === null));
    fill(this.units);
    if (!due) return;
    for (const [unit, options] of Object.entries(legal.units)) this.units.append(this.unitRow(unit, options));
    if (legal.adjustments.length) this.units.append(this.adjustmentRows());
    const pending = [...this.drafts.values()].some((d) => d.status === "draft" || d.status === "rejected");
    this.submitButton.textContent = [...this.drafts.values()].some((d) => d.status === "ok") && pending ? "Submit changes" : "Submit orders";
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
      h("option", { value: "" }, "—"),
      options.map((o) => h("option", { value: o.order, selected: draft && draft.order === o.order }, o.order)),
    );
    const mark = draft ? STATUS_MARK[draft.status] : "";
    const note = draft && draft.status === "rejected" ? NOTE_TEXT[draft.note] || draft.note : "";
    return h(
      "div",
      { class: ["unit-row", draft && `status-${draft.status}`], "data-unit": unit },
      h("span", { class: "unit-name" }, unit),
      select,
      h("span", { class: "mark", title: draft ? draft.status : "" }, mark),
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
export function showMenu(container, event, unit, options, pick) {
  closeMenu();
  const bounds = container.getBoundingClientRect();
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
    h("div", { class: "menu-title" }, unit, h("button", { type: "button", class: "close", onclick: closeMenu, "aria-label": "close" }, "×")),
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
              option.order,
            ),
          ),
        ),
      ),
  );
  container.append(menu);
  const x = Math.min(event.clientX - bounds.left + 12, bounds.width - 240);
  const y = Math.min(event.clientY - bounds.top + 12, Math.max(0, bounds.height - menu.offsetHeight - 8));
  menu.style.left = `${Math.max(0, x)}px`;
  menu.style.top = `${Math.max(0, y)}px`;
}

export function closeMenu() {
  const menu = $("#unit-menu");
  if (menu) menu.remove();
}

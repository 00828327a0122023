// The results panel: what every power ordered in a phase and what came of it, in words (from the history API).
// Live, it shows the phases since the last movement phase (so a Fall's results stay in view through its
// retreats and a Winter that passes at once) until the person hides them or the next results come; with the
// history slider, the phase picked.

import { fill, h } from "./dom.js";
import { describe, readOrder } from "./notation.js";
import { POWERS, abbr, nameOf, phaseName } from "./powers.js";

const FAILED = new Set(["bounce", "void", "disrupted", "no convoy", "cut"]);

/** The result words of one order, in plain English. */
export function resultWords(order, words) {
  if (!words || !words.length) return "no result";
  const kind = order ? order.kind : null;
  const done = {
    move: "moved",
    hold: "held",
    support: "support given",
    convoy: "convoyed",
    retreat: "retreated",
    build: "built",
    disband: "removed",
    waive: "waived",
  };
  const said = [];
  for (const word of words) {
    if (word === "ok") said.push(done[kind] || "succeeded");
    else if (word === "bounce") said.push(kind === "retreat" ? "bounced (disbanded)" : "bounced");
    else if (word === "cut") said.push("support cut");
    else if (word === "void") said.push(kind === "support" ? "void: no such move to support" : "void: it did nothing");
    else if (word === "disrupted") said.push(kind === "convoy" ? "convoy failed" : "convoy disrupted: did not move");
    else if (word === "no convoy") said.push("no convoy: did not move");
    else if (word === "dislodged") said.push("dislodged");
    else if (word === "disband") said.push(kind === "disband" ? "removed" : "disbanded");
    else said.push(word);
  }
  return [...new Set(said)].join(", ");
}

/** The phases to show live: from the newest back to (and with) the last movement phase. */
export function sinceLastMovement(history) {
  const out = [];
  for (let i = history.length - 1; i >= 0; i--) {
    out.push(i);
    if (history[i].phase.endsWith("M")) break;
  }
  return out;
}

export class ResultsPanel {
  /** `onToggle(hidden)` when the person hides or shows the live results. */
  constructor(root, { onToggle = () => {} } = {}) {
    this.root = root;
    this.onToggle = onToggle;
  }

  /**
   * Show `items` (each {entry, dislodged: [{unit, power}], orders: [{power, text, result}]}), newest first.
   * `live`: the results of the latest phases (which may be hidden); `hidden`: hidden by the person.
   */
  show(items, { live = false, hidden = false } = {}) {
    this.root.hidden = !items.length;
    if (!items.length) {
      fill(this.root);
      return;
    }
    const first = items[0].entry.phase;
    const title = live
      ? `Results — ${items.map((i) => phaseName(i.entry.phase)).join(", ")}`
      : `Results — ${phaseName(first)}`;
    this.root.dataset.phase = first;
    this.root.classList.toggle("collapsed", hidden);
    const toggle = live
      ? h(
          "button",
          {
            type: "button",
            id: "results-toggle",
            class: "link",
            "aria-expanded": hidden ? "false" : "true",
            onclick: () => this.onToggle(!hidden),
          },
          hidden ? "Show" : "Hide",
        )
      : null;
    fill(this.root, h("div", { class: "results-head" }, h("h2", {}, title), toggle));
    if (hidden) return;
    for (const item of items) this.root.append(this.phase(item, items.length > 1));
  }

  phase({ entry, orders, dislodged, standIns = {} }, titled) {
    const byPower = new Map(POWERS.map((p) => [p, []]));
    for (const o of orders) {
      const p = abbr(o.power);
      if (!byPower.has(p)) byPower.set(p, []);
      byPower.get(p).push(o);
    }
    const lost = new Map();
    for (const d of dislodged) {
      const p = abbr(d.power);
      if (!lost.has(p)) lost.set(p, []);
      lost.get(p).push(d.unit);
    }
    const movement = entry.phase.endsWith("M");
    const blocks = [];
    for (const [power, list] of byPower) {
      const extra = lost.get(power) || [];
      if (!list.length && !extra.length && !movement) continue;
      const lines = list.map((o) => {
        const order = readOrder(o.text);
        const words = o.result || [];
        const failed = words.some((w) => FAILED.has(w)) || words.includes("dislodged");
        return h(
          "li",
          { class: ["result", failed ? "failed" : "ok"], "data-order": o.text },
          h("code", {}, o.text),
          " ",
          h("span", { class: "words" }, describe(o.text)),
          h("span", { class: "outcome" }, o.result ? `: ${resultWords(order, words)}` : ""),
        );
      });
      for (const unit of extra) {
        lines.push(h("li", { class: "result failed", "data-unit": unit }, h("code", {}, unit), h("span", { class: "outcome" }, ": no order; dislodged")));
      }
      if (!lines.length) lines.push(h("li", { class: "result none" }, "no orders"));
      blocks.push(
        h(
          "div",
          { class: ["power-results", `power-${power}`], "data-power": power, "data-stand-in": standIns[power] || null },
          h(
            "h3",
            {},
            h("span", { class: `dot power-${power}` }),
            nameOf(power),
            standIns[power] ? h("small", { class: "who" }, `played by ${standIns[power]} while its player was away`) : null,
          ),
          h("ul", {}, lines),
        ),
      );
    }
    return h(
      "section",
      { class: "phase-results", "data-phase": entry.phase },
      titled ? h("h3", { class: "phase-title" }, phaseName(entry.phase)) : null,
      blocks.length ? h("div", { class: "power-grid" }, blocks) : h("p", { class: "help" }, "Nothing was ordered."),
    );
  }
}

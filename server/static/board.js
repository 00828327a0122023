// The map: an SVG drawn from /api/map (regions, adjacency, supply centres), with units, orders and results on top.

import { fill, s } from "./dom.js";
import { abbr, colourOf, nameOf } from "./powers.js";
import { provinceOf, readOrder } from "./notation.js";

const FAILED = new Set(["bounce", "void", "disrupted", "no convoy", "cut"]);

export class Board {
  /** `handlers`: onUnit(unitName, event), onTarget(provinceId, event). */
  constructor(root, map, handlers = {}) {
    this.root = root;
    this.map = map;
    this.handlers = handlers;
    this.provinces = new Map(map.provinces.map((p) => [p.id, p]));
    this.names = false;
    this.svg = s("svg", {
      viewBox: `0 0 ${map.width} ${map.height}`,
      class: "board",
      role: "img",
      "aria-label": "the map",
      preserveAspectRatio: "xMidYMid meet",
    });
    for (const layer of ["regions", "tints", "edges", "centres", "labels", "last", "units", "orders", "marks"]) {
      this[layer] = s("g", { class: `layer ${layer}` });
      this.svg.append(this[layer]);
    }
    this.regionOf = new Map();
    this.drawBase();
    root.append(this.svg);
  }

  /** Where a unit at `location` stands: a coast's own point, or just below the province's label. */
  point(location) {
    if (location && location.includes("/") && this.map.locations[location]) return this.map.locations[location];
    const p = this.provinces.get(provinceOf(location));
    return p ? [p.x, p.y + 6] : [0, 0];
  }

  drawBase() {
    const { map } = this;
    for (const blank of map.blanks) {
      const points = blank.region.map((q) => q.join(",")).join(" ");
      this.regions.append(s("polygon", { points, class: blank.radius ? "region water" : "region blank" }));
      if (blank.radius) this.regions.append(s("circle", { cx: blank.x, cy: blank.y, r: blank.radius, class: "island" }));
    }
    for (const p of map.provinces) {
      const points = p.region.map((q) => q.join(",")).join(" ");
      const facts = [p.supply_centre ? "supply centre" : null, p.home ? `home of ${nameOf(p.home)}` : null];
      const title = `${p.name} (${p.id})${facts.some(Boolean) ? " — " + facts.filter(Boolean).join(", ") : ""}`;
      const region = s(
        "polygon",
        {
          points,
          class: `region ${p.kind}`,
          "data-province": p.id,
          onclick: (event) => this.handlers.onTarget && this.handlers.onTarget(p.id, event),
        },
        s("title", {}, title),
      );
      this.regionOf.set(p.id, region);
      this.regions.append(region);
    }
    for (const edge of map.edges) {
      const a = this.provinces.get(edge.a);
      const b = this.provinces.get(edge.b);
      const kind = edge.army && edge.fleet ? "both" : edge.army ? "army" : "fleet";
      this.edges.append(s("line", { x1: a.x, y1: a.y, x2: b.x, y2: b.y, class: `edge ${kind}` }));
    }
    for (const p of map.provinces) {
      if (p.supply_centre) {
        this.centres.append(s("circle", { cx: p.x + 17, cy: p.y - 16, r: 4.5, class: "centre", "data-centre": p.id }));
      }
    }
    this.drawLabels();
  }

  drawLabels() {
    fill(this.labels);
    for (const p of this.map.provinces) {
      const text = this.names ? p.name : p.id;
      this.labels.append(
        s("text", { x: p.x, y: p.y - 12, class: `label ${p.kind}${this.names ? " long" : ""}` }, text),
      );
    }
  }

  setNames(on) {
    this.names = on;
    this.drawLabels();
  }

  setEdges(on) {
    this.svg.classList.toggle("hide-edges", !on);
  }

  /**
   * Draw a view: `position` (the API's GamePosition), `orders` (drawn bold: the person's drafts or
   * a past phase's orders, each {power, text, result, status}), `last` (drawn faint), `marks` (units
   * dislodged without an order of their own), `mine` (the person's power: only its units may be
   * clicked), `selectable`
   * (unit names that may be clicked), `selected` and `targets` (provinces to highlight).
   */
  show({ position, orders = [], last = [], marks = [], mine = null, selectable = new Set(), selected = null, targets = new Set() }) {
    // supply centres and their regions in their owner's colour
    const owner = new Map();
    for (const [power, centres] of Object.entries(position.centers || {})) {
      for (const c of centres) owner.set(c, power);
    }
    fill(this.tints);
    for (const [id, region] of this.regionOf) {
      const p = this.provinces.get(id);
      const power = owner.get(id);
      region.classList.toggle("owned", Boolean(power));
      region.classList.toggle("target", targets.has(id));
      if (power) {
        this.tints.append(
          s("polygon", { points: region.getAttribute("points"), class: "tint", fill: colourOf(power), "data-owner": abbr(power) }),
        );
      }
      if (p.supply_centre) {
        const dot = this.centres.querySelector(`[data-centre="${id}"]`);
        dot.style.fill = power ? colourOf(power) : "";
        dot.dataset.owner = power ? abbr(power) : "";
      }
    }
    fill(this.units);
    for (const [power, units] of Object.entries(position.units || {})) {
      const retreating = Object.keys(position.dislodged || {}).length > 0;
      for (const name of units) {
        const can = !retreating && abbr(power) === mine && selectable.has(name);
        this.units.append(this.unit(power, name, { can, selected }));
      }
    }
    for (const [name, d] of Object.entries(position.dislodged || {})) {
      const can = abbr(d.power) === mine && selectable.has(name);
      this.units.append(this.unit(d.power, name, { dislodged: true, can, selected }));
    }
    fill(this.last);
    fill(this.orders);
    fill(this.marks);
    for (const order of last) this.drawOrder(this.last, order);
    for (const order of orders) this.drawOrder(this.orders, order);
    this.markDislodged(this.marks, marks);
  }

  unit(power, name, { dislodged = false, can = false, selected = null }) {
    const [type, location] = name.split(" ");
    let [x, y] = this.point(location);
    if (dislodged) {
      x += 15;
      y += 12;
    }
    const colour = colourOf(power);
    const shape =
      type === "F"
        ? s("rect", { x: x - 11, y: y - 7, width: 22, height: 14, rx: 3, fill: colour, class: "body" })
        : s("circle", { cx: x, cy: y, r: 9, fill: colour, class: "body" });
    const classes = ["unit", `power-${abbr(power)}`, dislodged && "dislodged", can && "selectable", can && selected === name && "selected"];
    return s(
      "g",
      {
        class: classes,
        "data-unit": name,
        "data-power": abbr(power),
        onclick: (event) => {
          if (can && this.handlers.onUnit) {
            event.stopPropagation();
            this.handlers.onUnit(name, event);
          }
        },
      },
      shape,
      s("text", { x, y: y + 4, class: "letter" }, type),
      s("title", {}, `${nameOf(power)}: ${dislodged ? "dislodged " : ""}${name}`),
    );
  }

  /** One order, with its result words when it has been adjudicated. */
  drawOrder(layer, { power, text, result = null, status = null }) {
    const order = readOrder(text);
    if (!order || order.kind === "waive") return;
    const colour = colourOf(power);
    const words = result || [];
    const failed = words.some((w) => FAILED.has(w));
    const classes = [
      "order",
      `kind-${order.kind}`,
      status && `status-${status}`,
      result && (failed ? "failed" : "succeeded"),
      ...words.map((w) => `result-${w.replace(/\s+/g, "-")}`),
    ];
    const g = s("g", { class: classes, "data-order": text, "data-power": abbr(power) });
    const from = this.point(order.at);
    if (order.kind === "move" || order.kind === "retreat") {
      const to = this.point(order.to);
      g.append(...arrow(from, to, colour, order.kind === "retreat" ? "retreat" : order.via ? "via" : "move"));
      if (failed) g.append(...cross(along(from, to, 0.62), "result-mark bounce", colour));
    } else if (order.kind === "hold") {
      g.append(s("circle", { cx: from[0], cy: from[1], r: 14, class: "ring", stroke: colour }));
    } else if (order.kind === "support") {
      const target = this.point(order.target);
      const end = order.to ? along(target, this.point(order.to), 0.5) : target;
      g.append(...arrow(from, end, colour, "support", order.to ? 4 : 14));
      if (!order.to) g.append(s("circle", { cx: target[0], cy: target[1], r: 14, class: "ring support", stroke: colour }));
      if (failed) g.append(...cross(along(from, end, 0.3), "result-mark cut", colour));
    } else if (order.kind === "convoy") {
      const army = this.point(order.target);
      const to = order.to ? this.point(order.to) : army;
      g.append(
        s("polyline", { points: [army, from, to].map((q) => q.join(",")).join(" "), class: "line convoy", stroke: colour }),
      );
      if (failed) g.append(...cross(from, "result-mark cut", colour));
    } else if (order.kind === "disband") {
      g.append(...cross(from, "result-mark disband", colour));
    } else if (order.kind === "build") {
      g.append(s("circle", { cx: from[0], cy: from[1], r: 14, class: "ring build", stroke: colour }));
    }
    if (words.includes("dislodged")) {
      g.append(...ring(from, colour));
    }
    layer.append(g);
  }

  /** Units dislodged without an order of their own: a ring where they stood, in their power's colour
   * (each is a unit name, or {unit, power}). */
  markDislodged(layer, units) {
    for (const item of units) {
      const name = typeof item === "string" ? item : item.unit;
      const power = typeof item === "string" ? null : item.power;
      const g = s("g", { class: "dislodged-mark", "data-unit": name, "data-power": power ? abbr(power) : "" });
      g.append(...ring(this.point(name.split(" ")[1]), power ? colourOf(power) : null));
      layer.append(g);
    }
  }
}

function along([x1, y1], [x2, y2], t) {
  return [x1 + (x2 - x1) * t, y1 + (y2 - y1) * t];
}

/** A line from `a` to `b`, trimmed at both ends, with an arrowhead. */
function arrow(a, b, colour, kind, trimEnd = 11) {
  const dx = b[0] - a[0];
  const dy = b[1] - a[1];
  const length = Math.hypot(dx, dy) || 1;
  const ux = dx / length;
  const uy = dy / length;
  const trimStart = Math.min(10, length * 0.18); // a short arrow keeps most of its length
  const start = [a[0] + ux * trimStart, a[1] + uy * trimStart];
  const end = [b[0] - ux * Math.min(trimEnd, length * 0.18), b[1] - uy * Math.min(trimEnd, length * 0.18)];
  const size = 9;
  const head = [
    end,
    [end[0] - ux * size - uy * size * 0.55, end[1] - uy * size + ux * size * 0.55],
    [end[0] - ux * size + uy * size * 0.55, end[1] - uy * size - ux * size * 0.55],
  ];
  return [
    s("line", {
      x1: start[0], y1: start[1], x2: end[0] - ux * size * 0.8, y2: end[1] - uy * size * 0.8,
      class: `line ${kind}`, stroke: colour,
    }),
    s("polygon", { points: head.map((q) => q.join(",")).join(" "), class: `head ${kind}`, fill: colour }),
  ];
}

/** A cross (a failed order) in the colour of the power that gave it, on a white halo to be seen on any ground. */
function cross([x, y], cls, colour) {
  const r = 6;
  const d = `M${x - r},${y - r} L${x + r},${y + r} M${x - r},${y + r} L${x + r},${y - r}`;
  return [s("path", { d, class: `${cls} halo` }), s("path", { d, class: cls, stroke: colour || null })];
}

/** A dashed ring where a unit was dislodged, in its power's colour. */
function ring([x, y], colour) {
  return [
    s("circle", { cx: x, cy: y, r: 17, class: "result-mark dislodged halo" }),
    s("circle", { cx: x, cy: y, r: 17, class: "result-mark dislodged", stroke: colour || null }),
  ];
}

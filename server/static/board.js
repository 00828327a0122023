// The map: an SVG drawn from the game's map (/api/maps/NAME: province shapes, names, adjacency, supply centres),
// with units, orders and results on top, and a tap read as a person means it.

import { fill, h, s } from "./dom.js";
import { abbr, colourOf, nameOf } from "./powers.js";
import { provinceOf, readOrder } from "./notation.js";

const FAILED = new Set(["bounce", "void", "disrupted", "no convoy", "cut"]);

/** The least a unit's tap target measures across, in CSS pixels (WCAG's 44). */
const TARGET_PX = 44;

export class Board {
  /** `handlers`: onUnit(unitName, event), onTarget(provinceId, event) (a province tapped where no unit
   * of the person's is to be chosen), onBlank(event) (a tap on no province). */
  constructor(root, map, handlers = {}) {
    this.root = root;
    this.map = map;
    this.handlers = handlers;
    this.provinces = new Map(map.provinces.map((p) => [p.id, p]));
    this.names = false;
    this.state = { selected: null, targets: new Set() };
    this.tappable = new Map(); // unit name -> its province, for the units the person may order now
    this.svg = s("svg", {
      viewBox: `0 0 ${map.width} ${map.height}`,
      class: "board",
      role: "img",
      "aria-label": `the map: ${map.name}`,
      "data-map": map.name,
      preserveAspectRatio: "xMidYMid meet",
      onclick: (event) => this.tap(event),
    });
    for (const layer of ["regions", "tints", "edges", "centres", "hits", "labels", "last", "units", "orders", "marks"]) {
      this[layer] = s("g", { class: `layer ${layer}` });
      this.svg.append(this[layer]);
    }
    this.regionOf = new Map();
    this.drawBase();
    root.append(this.svg);
    // on a phone the map's box takes the map's own shape (style.css)
    root.style.setProperty("--map-aspect", `${map.width} / ${map.height}`);
    // the geography's credit, small in a corner of the map (an HTML line: it keeps its size at any zoom)
    if (map.credit) root.append(h("div", { class: "credit", id: "map-credit" }, map.credit));
    // a unit's tap target is 44 CSS px at the size the map is drawn: drawn again when that size changes
    this.scale = 0;
    new ResizeObserver(() => this.drawHits()).observe(this.svg);
  }

  /** Where a unit at `location` stands: the map's point for it (a coast's own point for a fleet on a coast). */
  point(location) {
    const at = location && this.map.locations[location];
    if (at) return at;
    const p = this.provinces.get(provinceOf(location));
    return p ? [p.x, p.y] : [0, 0];
  }

  /** A province's shape: its outline when the map has one, else the polygon of its region. */
  shape(place, attrs) {
    if (place.shape) return s("path", { d: place.shape, ...attrs });
    return s("polygon", { points: place.region.map((q) => q.join(",")).join(" "), ...attrs });
  }

  drawBase() {
    const { map } = this;
    for (const blank of map.blanks) {
      this.regions.append(this.shape(blank, { class: blank.radius ? "region water" : "region blank" }));
      if (blank.radius && !blank.shape) this.regions.append(s("circle", { cx: blank.x, cy: blank.y, r: blank.radius, class: "island" }));
    }
    for (const p of map.provinces) {
      const facts = [p.supply_centre ? "supply centre" : null, p.home ? `home of ${nameOf(p.home)}` : null];
      const title = `${p.name} (${p.id})${facts.some(Boolean) ? " — " + facts.filter(Boolean).join(", ") : ""}`;
      const region = this.shape(p, { class: `region ${p.kind}`, "data-province": p.id });
      region.append(s("title", {}, title));
      this.regionOf.set(p.id, region);
      this.regions.append(region);
    }
    for (const edge of map.edges) {
      const a = this.point(edge.a);
      const b = this.point(edge.b);
      const kind = edge.army && edge.fleet ? "both" : edge.army ? "army" : "fleet";
      this.edges.append(s("line", { x1: a[0], y1: a[1], x2: b[0], y2: b[1], class: `edge ${kind}` }));
    }
    for (const p of map.provinces) {
      if (p.supply_centre) {
        const [x, y] = this.centrePoint(p);
        this.centres.append(s("circle", { cx: x, cy: y, r: 4.5, class: "centre", "data-centre": p.id }));
      }
    }
    this.drawLabels();
  }

  /** Where a province's name is written. */
  labelPoint(p) {
    return p.label || [p.x, p.y - 12];
  }

  /** Where a supply centre's dot is drawn: beside the name, clear of the unit. */
  centrePoint(p) {
    if (p.centre) return p.centre;
    const [x, y] = this.labelPoint(p);
    return [x + 5 + 3.6 * p.id.length, y - 4];
  }

  drawLabels() {
    fill(this.labels);
    for (const p of this.map.provinces) {
      const text = this.names ? p.name : p.id;
      const [x, y] = this.labelPoint(p);
      this.labels.append(
        s("text", { x, y, class: `label ${p.kind}${this.names ? " long" : ""}`, "data-province": p.id }, text),
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
   * One tap (or click) on the map, read as a person means it, whatever is drawn on top: a province
   * is found under the point (its name counts as the province), a unit by its body or the ring of
   * 44 px around it. With a unit selected, a tap on one of its destinations orders the move; else a
   * tap on a unit of the person's, or anywhere in its province, selects it.
   */
  tap(event) {
    const stack = document.elementsFromPoint(event.clientX, event.clientY);
    const label = stack.find((e) => e.classList && e.classList.contains("label"));
    const region = stack.find((e) => e.classList && e.classList.contains("region") && e.dataset.province);
    const province = label ? label.dataset.province : region ? region.dataset.province : null;
    const { selected, targets } = this.state;
    const unit = this.unitAt(stack, event);
    if (selected && province && targets.has(province) && unit !== selected) {
      this.handlers.onTarget && this.handlers.onTarget(province, event);
    } else if (unit) {
      this.handlers.onUnit && this.handlers.onUnit(unit, event);
    } else if (province && this.unitIn(province)) {
      this.handlers.onUnit && this.handlers.onUnit(this.unitIn(province), event);
    } else if (province) {
      this.handlers.onTarget && this.handlers.onTarget(province, event);
    } else if (this.handlers.onBlank) {
      this.handlers.onBlank(event);
    }
  }

  /** The person's unit tapped: one whose body is under the point, else the nearest whose ring is. */
  unitAt(stack, event) {
    const body = stack.map((e) => e.closest && e.closest("g.unit")).find((g) => g && this.tappable.has(g.dataset.unit));
    if (body) return body.dataset.unit;
    const rings = stack.filter((e) => e.classList && e.classList.contains("hit") && this.tappable.has(e.dataset.unit));
    const distance = (e) => {
      const r = e.getBoundingClientRect();
      return Math.hypot(r.x + r.width / 2 - event.clientX, r.y + r.height / 2 - event.clientY);
    };
    rings.sort((a, b) => distance(a) - distance(b));
    return rings.length ? rings[0].dataset.unit : null;
  }

  /** The unit of the person's to be ordered in a province, if there is one. */
  unitIn(province) {
    for (const [unit, at] of this.tappable) if (at === province) return unit;
    return null;
  }

  /** The CSS pixels one unit of the map's frame is drawn as (0 while the map is not shown). */
  pixelsPerUnit() {
    const ctm = this.svg.getScreenCTM();
    return ctm ? Math.hypot(ctm.a, ctm.b) : 0;
  }

  /** The rings around the person's units that take a tap: 44 CSS px across at the size drawn. */
  drawHits() {
    const scale = this.pixelsPerUnit();
    this.scale = scale;
    fill(this.hits);
    if (!scale) return;
    const r = TARGET_PX / 2 / scale;
    for (const [unit, , point] of this.hitPoints || []) {
      this.hits.append(s("circle", { cx: point[0], cy: point[1], r, class: "hit", "data-unit": unit }));
    }
  }

  /**
   * Draw a view: `position` (the API's GamePosition), `orders` (drawn bold: the person's drafts or
   * a past phase's orders, each {power, text, result, status}), `last` (last turn's, drawn faint and
   * grey), `marks` (units dislodged without an order of their own), `mine` (the person's power: only
   * its units may be chosen), `selectable` (unit names that may be chosen), `selected` and `targets`
   * (provinces to highlight: the destinations of the selected unit).
   */
  show({ position, orders = [], last = [], marks = [], mine = null, selectable = new Set(), selected = null, targets = new Set() }) {
    this.state = { selected, targets };
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
      if (power) this.tints.append(this.shape(p, { class: "tint", fill: colourOf(power), "data-owner": abbr(power) }));
      if (p.supply_centre) {
        const dot = this.centres.querySelector(`[data-centre="${id}"]`);
        dot.style.fill = power ? colourOf(power) : "";
        dot.dataset.owner = power ? abbr(power) : "";
      }
    }
    for (const label of this.labels.children) label.classList.toggle("target", targets.has(label.dataset.province));
    fill(this.units);
    this.tappable = new Map();
    this.hitPoints = [];
    const retreating = Object.keys(position.dislodged || {}).length > 0;
    const add = (power, name, dislodged) => {
      const can = (dislodged || !retreating) && abbr(power) === mine && selectable.has(name);
      const g = this.unit(power, name, { dislodged, can, selected });
      this.units.append(g);
      if (can) {
        const location = name.split(" ")[1];
        this.tappable.set(name, provinceOf(location));
        this.hitPoints.push([name, location, this.unitPoint(location, dislodged)]);
      }
    };
    for (const [power, units] of Object.entries(position.units || {})) for (const name of units) add(power, name, false);
    for (const [name, d] of Object.entries(position.dislodged || {})) add(d.power, name, true);
    this.drawHits();
    fill(this.last);
    fill(this.orders);
    fill(this.marks);
    for (const order of last) this.drawOrder(this.last, order);
    for (const order of orders) this.drawOrder(this.orders, order);
    this.markDislodged(this.marks, marks);
  }

  unitPoint(location, dislodged = false) {
    const [x, y] = this.point(location);
    return dislodged ? [x + 15, y + 12] : [x, y];
  }

  unit(power, name, { dislodged = false, can = false, selected = null }) {
    const [type, location] = name.split(" ");
    const [x, y] = this.unitPoint(location, dislodged);
    const colour = colourOf(power);
    const shape =
      type === "F"
        ? s("rect", { x: x - 11, y: y - 7, width: 22, height: 14, rx: 3, fill: colour, class: "body" })
        : s("circle", { cx: x, cy: y, r: 9, fill: colour, class: "body" });
    const classes = ["unit", `power-${abbr(power)}`, dislodged && "dislodged", can && "selectable", can && selected === name && "selected"];
    return s(
      "g",
      { class: classes, "data-unit": name, "data-power": abbr(power) },
      shape,
      s("text", { x, y: y + 4, class: "letter", fill: inkOn(colour) }, type),
      s("title", {}, `${nameOf(power)}: ${dislodged ? "dislodged " : ""}${name}`),
    );
  }

  /** A box around where a province's unit and name are drawn, in the page's coordinates: what the
   * order menu must leave in view when the province is a destination. */
  placeBox(province) {
    const p = this.provinces.get(province);
    const boxes = [];
    const label = this.labels.querySelector(`[data-province="${province}"]`);
    if (label) boxes.push(label.getBoundingClientRect());
    const unit = this.units.querySelector(`g.unit[data-unit$=" ${province}"], g.unit[data-unit*=" ${province}/"]`);
    if (unit) boxes.push(unit.getBoundingClientRect());
    else if (p) {
      const scale = this.pixelsPerUnit();
      const m = this.svg.getScreenCTM();
      const [x, y] = this.point(province);
      const c = new DOMPoint(x, y).matrixTransform(m);
      boxes.push(new DOMRect(c.x - 12 * scale, c.y - 9 * scale, 24 * scale, 18 * scale));
    }
    return boxes;
  }

  /** The page box of a unit's body (where its menu is to be put beside). */
  unitBox(unit) {
    const g = this.units.querySelector(`g.unit[data-unit="${unit}"]`);
    return g ? g.getBoundingClientRect() : null;
  }

  /** One order, with its result words when it has been adjudicated. An order with a `status` is one
   * of the person's drafts of this turn: drawn on a white halo, unlike the grey of last turn's. */
  drawOrder(layer, { power, text, result = null, status = null }) {
    const order = readOrder(text);
    if (!order || order.kind === "waive") return;
    const colour = colourOf(power);
    const words = result || [];
    const failed = words.some((w) => FAILED.has(w));
    const classes = [
      "order",
      `kind-${order.kind}`,
      status && "draft",
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
    if (status) {
      for (const part of [...g.children]) {
        const halo = part.cloneNode();
        halo.classList.add("draft-halo");
        halo.removeAttribute("stroke");
        halo.removeAttribute("fill");
        g.insertBefore(halo, part);
      }
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

/** The letter's colour on a unit of `colour` (#rrggbb): dark on a light colour, white on a dark one. */
function inkOn(colour) {
  const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(colour || "");
  if (!m) return "#fff";
  const [r, g, b] = m.slice(1).map((x) => parseInt(x, 16) / 255);
  return 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.5 ? "#1d2330" : "#fff";
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

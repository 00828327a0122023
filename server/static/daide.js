// DAIDE in text form over the game server's /daide websocket: a link and the few readings the page needs.

const SEASON_PHASE = { SPR: ["S", "M"], SUM: ["S", "R"], FAL: ["F", "M"], AUT: ["F", "R"], WIN: ["W", "A"] };
const COAST = { NCS: "NC", SCS: "SC", ECS: "EC", WCS: "WC" };

/** DAIDE text -> nested arrays: words stay strings, numbers become numbers, 'text' becomes {text}. */
export function parseDaide(text) {
  const stack = [[]];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === "(") {
      stack.push([]);
      i++;
    } else if (c === ")") {
      if (stack.length > 1) {
        const inner = stack.pop();
        stack[stack.length - 1].push(inner);
      }
      i++;
    } else if (c === "'") {
      let j = text.indexOf("'", i + 1);
      if (j < 0) j = text.length;
      stack[stack.length - 1].push({ text: text.slice(i + 1, j) });
      i = j + 1;
    } else if (/\s/.test(c)) {
      i++;
    } else {
      let j = i;
      while (j < text.length && !/[\s()']/.test(text[j])) j++;
      const word = text.slice(i, j);
      stack[stack.length - 1].push(/^-?\d+$/.test(word) ? Number(word) : word);
      i = j;
    }
  }
  while (stack.length > 1) {
    const inner = stack.pop();
    stack[stack.length - 1].push(inner);
  }
  return stack[0];
}

/** ["SPR", 1901] -> "S1901M". */
export function phaseOfTurn(turn) {
  const [season, kind] = SEASON_PHASE[turn[0]] || ["?", "?"];
  return `${season}${turn[1]}${kind}`;
}

/** A location of a DAIDE unit: "PAR" or ["STP", "NCS"] -> "STP/NC". */
export function placeName(place) {
  return Array.isArray(place) ? `${place[0]}/${COAST[place[1]] || place[1]}` : String(place);
}

/** ["ENG", "FLT", "LON"] -> {power: "ENG", name: "F LON"}. */
export function readUnit(unit) {
  return { power: unit[0], name: `${unit[1] === "FLT" ? "F" : "A"} ${placeName(unit[2])}` };
}

/** MIS: the units still to order (names), or the builds (count < 0) or removals (count > 0) still owed. */
export function readMis(tree) {
  const args = tree.slice(1);
  if (args.length === 1 && Array.isArray(args[0]) && typeof args[0][0] === "number") {
    return { units: [], count: args[0][0] };
  }
  return { units: args.filter(Array.isArray).map((u) => readUnit(u).name), count: null };
}

/** THX: the unit the order is for ("WAIVE" for a waive) and the note. */
export function readThx(tree) {
  const order = tree[1];
  const note = Array.isArray(tree[2]) ? tree[2][0] : tree[2];
  if (Array.isArray(order) && order[1] === "WVE") return { unit: "WAIVE", note };
  const unit = Array.isArray(order) && Array.isArray(order[0]) ? readUnit(order[0]).name : null;
  return { unit, note };
}

/** A websocket speaking DAIDE text; "message" events carry {head, tree, text}. */
export class DaideLink extends EventTarget {
  constructor(url) {
    super();
    this.url = url;
    this.ws = null;
    this.log = [];
  }

  open() {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(this.url);
      this.ws = ws;
      ws.addEventListener("open", () => resolve(this), { once: true });
      ws.addEventListener("error", () => reject(new Error("cannot reach the game server")), { once: true });
      ws.addEventListener("message", (event) => {
        const text = String(event.data);
        const tree = parseDaide(text);
        this.log.push(`< ${text}`);
        this.dispatchEvent(new CustomEvent("message", { detail: { head: tree[0], tree, text } }));
      });
      ws.addEventListener("close", (event) => {
        this.dispatchEvent(new CustomEvent("close", { detail: { code: event.code, reason: event.reason } }));
      });
    });
  }

  get open_() {
    return this.ws && this.ws.readyState === WebSocket.OPEN;
  }

  send(text) {
    if (!this.open_) return false;
    this.log.push(`> ${text}`);
    this.ws.send(text);
    return true;
  }

  close() {
    if (this.ws) this.ws.close();
  }
}

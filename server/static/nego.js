// The negotiation server's /nego websocket: hello, say (answered by ack or error), and every frame as an event.

export class NegoLink extends EventTarget {
  /** `hello` is the frame to open with: {type: "hello", game, power, session}. */
  constructor(url, hello) {
    super();
    this.url = url;
    this.hello = hello;
    this.ws = null;
    this.nextId = 1;
    this.waiting = new Map(); // id -> resolve
    this.closed = false;
    this.failures = 0;
    this.welcome = null;
  }

  connect() {
    if (this.closed) return;
    const ws = new WebSocket(this.url);
    this.ws = ws;
    ws.addEventListener("open", () => ws.send(JSON.stringify(this.hello)));
    ws.addEventListener("message", (event) => {
      let frame;
      try {
        frame = JSON.parse(event.data);
      } catch {
        return;
      }
      if (frame.type === "welcome") {
        this.failures = 0;
        this.welcome = frame;
      }
      if ((frame.type === "ack" || frame.type === "error") && this.waiting.has(frame.id)) {
        this.waiting.get(frame.id)(frame);
        this.waiting.delete(frame.id);
        return;
      }
      // the session was refused, or another window took the seat's place: do not come back unasked
      // (an "unavailable" hello is closed by the server, and the link comes back by itself)
      if (frame.type === "error" && (frame.code === "auth" || frame.code === "replaced")) this.closed = true;
      this.dispatchEvent(new CustomEvent("frame", { detail: frame }));
    });
    ws.addEventListener("close", () => {
      for (const resolve of this.waiting.values()) resolve({ type: "error", code: "closed", message: "the link closed" });
      this.waiting.clear();
      this.welcome = null;
      this.dispatchEvent(new CustomEvent("down"));
      if (this.closed) return;
      this.failures += 1;
      setTimeout(() => this.connect(), Math.min(10000, 500 * 2 ** this.failures));
    });
  }

  get up() {
    return Boolean(this.ws && this.ws.readyState === WebSocket.OPEN && this.welcome);
  }

  /** Say an L message: resolves with the ack or error frame. */
  say(text) {
    if (!this.up) return Promise.resolve({ type: "error", code: "closed", message: "not connected to the negotiation server" });
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.ws.send(JSON.stringify({ type: "say", id, text }));
    });
  }

  close() {
    this.closed = true;
    if (this.ws) this.ws.close();
  }
}

/** The /nego websocket URL from the negotiation server's URL in /api/config (http(s) or ws(s), with or without /nego). */
export function negoSocketUrl(configured) {
  if (!configured) return null;
  const url = new URL(configured, window.location.href);
  if (url.protocol === "http:") url.protocol = "ws:";
  if (url.protocol === "https:") url.protocol = "wss:";
  if (!url.pathname.endsWith("/nego")) url.pathname = url.pathname.replace(/\/$/, "") + "/nego";
  return url.toString();
}

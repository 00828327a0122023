// The game server's JSON API, as the page uses it.

async function call(method, path, body) {
  const init = { method, headers: { Accept: "application/json" } };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = { error: `HTTP ${response.status}` };
  }
  if (!response.ok) {
    const error = new Error(data && data.error ? data.error : `HTTP ${response.status}`);
    error.status = response.status;
    error.body = data;
    throw error;
  }
  return data;
}

const rendered = new Map(); // "viewer|l" -> Promise<string>: incoming L is rendered once
const maps = new Map(); // map name -> Promise<MapData>

export const api = {
  config: () => call("GET", "/api/config"),
  games: () => call("GET", "/api/games"),
  /** A game of this person against the server's bots: {id, power, name, bot}; `name` takes the seat. */
  againstBots: (body) => call("POST", "/api/games/against-bots", body),
  game: (id) => call("GET", `/api/games/${encodeURIComponent(id)}`),
  history: (id) => call("GET", `/api/games/${encodeURIComponent(id)}/history`),
  /** The game's messages the public may read (all of them for a game imported as public), oldest first. */
  messages: (id) => call("GET", `/api/games/${encodeURIComponent(id)}/export?format=detente`).then((d) => d.messages),
  /** The maps a game may be played on: {maps: [{name, description, powers, ...}]}. */
  maps: () => call("GET", "/api/maps"),
  /** A map as the page draws it (each fetched once a page: the server revalidates with its ETag). */
  map(name = "standard") {
    if (!maps.has(name)) {
      const loading = call("GET", `/api/maps/${encodeURIComponent(name)}`);
      loading.catch(() => maps.delete(name)); // a failure is tried again next time
      maps.set(name, loading);
    }
    return maps.get(name);
  },
  legal: (id, power) => call("GET", `/api/games/${encodeURIComponent(id)}/legal?power=${encodeURIComponent(power)}`),
  check: (game, power, text) => call("POST", "/api/orders/check", { game, power, text }),
  understand: (body) => call("POST", "/api/english/understand", body),
  /** An L message in English for `viewer`; a text that is not L comes back as it is. */
  render(l, viewer) {
    const key = `${viewer}|${l}`;
    if (!rendered.has(key)) {
      rendered.set(
        key,
        call("POST", "/api/english/render", { l, viewer }).then((r) => r.english, () => l),
      );
    }
    return rendered.get(key);
  },
  renderDeal(deal, viewer) {
    const key = `${viewer}|deal|${deal}`;
    if (!rendered.has(key)) {
      rendered.set(
        key,
        call("POST", "/api/english/render", { deal, viewer }).then((r) => r.english, () => deal),
      );
    }
    return rendered.get(key);
  },
};

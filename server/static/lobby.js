// The lobby: the open, running and finished games (each on its map); join one as a player or watch it, or make a
// game against the server's bots on any map.

import { api } from "./api.js";
import { fill, h } from "./dom.js";
import { phaseName } from "./powers.js";

const NAME_KEY = "detente.name";

/** The seat this browser holds in a game: {power, session}, the session token the game server
 * gave at join (a seat kept before session tokens, with a passcode alone, is no seat any more). */
export function seatOf(game) {
  try {
    const seat = JSON.parse(localStorage.getItem(`detente.seat.${game}`) || "null");
    return seat && typeof seat.session === "string" && seat.power ? seat : null;
  } catch {
    return null;
  }
}

export function keepSeat(game, power, session) {
  localStorage.setItem(`detente.seat.${game}`, JSON.stringify({ power, session }));
}

/** The link that brings this seat to another browser: whoever opens it plays the seat. */
export function seatLink(game, seat) {
  const url = new URL(window.location.href);
  url.hash = `#/game/${encodeURIComponent(game)}?power=${seat.power}&session=${encodeURIComponent(seat.session)}`;
  return url.toString();
}

export function playerName() {
  return localStorage.getItem(NAME_KEY) || "player";
}

export class Lobby {
  constructor(root, config, maps) {
    this.root = root;
    this.config = config;
    this.maps = maps; // [{name, description, powers: [{token, name, english, colour}], ...}], the standard one first
    this.timer = null;
    this.against = { map: maps.length ? maps[0].name : "standard", power: "", bot: config.house_default || "", error: "", busy: false };
  }

  mapOf(name) {
    return this.maps.find((m) => m.name === name) || null;
  }

  async show() {
    this.root.hidden = false;
    await this.render();
    this.timer = setInterval(() => this.render(), 5000);
  }

  hide() {
    this.root.hidden = true;
    clearInterval(this.timer);
  }

  async render() {
    let games;
    try {
      games = (await api.games()).games;
    } catch (error) {
      fill(this.root, h("p", { class: "bad" }, `Cannot list the games: ${error.message}`));
      return;
    }
    const byStatus = { forming: [], playing: [], finished: [] };
    for (const game of games) (byStatus[game.status] || byStatus.finished).push(game);
    byStatus.finished.reverse();
    const nameInput = h("input", {
      id: "player-name",
      type: "text",
      value: playerName(),
      maxlength: 40,
      onchange: (event) => localStorage.setItem(NAME_KEY, event.target.value.trim() || "player"),
    });
    const focused = document.activeElement && document.activeElement.id === "player-name";
    fill(
      this.root,
      h(
        "section",
        { class: "intro" },
        h("h1", {}, "détente"),
        h("p", {}, "Play Diplomacy and negotiate in plain English. ", this.config.nego_url ? "" : "(There is no negotiation server: press is off.)"),
        h("label", { class: "name" }, "Your name ", nameInput),
      ),
      this.againstBots(),
      this.table("Open games", byStatus.forming, "forming"),
      this.table("Games in play", byStatus.playing, "playing"),
      this.table("Finished games", byStatus.finished.slice(0, 20), "finished"),
    );
    if (focused) nameInput.focus();
  }

  /** "Play against bots": one click makes a game of this person against six bots of the server
   * and takes its seat (the server keeps the power for a secret name it gives back). */
  againstBots() {
    const bots = this.config.house_bots || [];
    if (!bots.length) return null;
    const a = this.against;
    const chosen = this.mapOf(a.map);
    const powers = chosen ? chosen.powers : [];
    const mapSelect = h(
      "select",
      {
        id: "against-map",
        onchange: (event) => {
          a.map = event.target.value;
          a.power = ""; // the powers are the map's
          this.render();
        },
      },
      this.maps.map((m) =>
        h("option", { value: m.name, selected: a.map === m.name, title: m.description }, `${mapTitle(m)} — ${m.powers.length} powers`),
      ),
    );
    const powerSelect = h(
      "select",
      { id: "against-power", onchange: (event) => (a.power = event.target.value) },
      h("option", { value: "", selected: a.power === "" }, "drawn at random"),
      powers.map((p) => h("option", { value: p.name, selected: a.power === p.name }, p.english)),
    );
    const botSelect = h(
      "select",
      { id: "against-bot", onchange: (event) => (a.bot = event.target.value) },
      bots.map((b) => h("option", { value: b, selected: a.bot === b }, b)),
    );
    return h(
      "section",
      { class: "against-bots" },
      h("h2", {}, "Play against bots"),
      h("p", {}, `You against ${others(powers.length)} of this server. No deadlines: each phase waits for you.`),
      h("div", { class: "controls" },
        h("label", {}, "Map ", mapSelect),
        h("label", {}, "Your power ", powerSelect),
        h("label", {}, "Bots ", botSelect),
        h("button", { type: "button", id: "play-against-bots", class: "button join", disabled: a.busy, onclick: () => this.playAgainstBots() }, "Play against bots"),
      ),
      chosen ? h("p", { class: "map-description", id: "against-map-description" }, chosen.description) : null,
      a.error ? h("p", { class: "bad", id: "against-error" }, a.error) : null,
    );
  }

  async playAgainstBots() {
    const a = this.against;
    a.busy = true;
    a.error = "";
    await this.render();
    try {
      const made = await api.againstBots({ map: a.map, power: a.power || null, bot: a.bot || null });
      a.busy = false;
      window.location.hash = `#/game/${encodeURIComponent(made.id)}?as=player&name=${encodeURIComponent(made.name)}`;
    } catch (error) {
      a.busy = false;
      a.error = `No game against bots: ${error.message}`;
      await this.render();
    }
  }

  table(title, games, status) {
    const rows = games.map((game) => {
      const taken = game.players.filter((p) => p.taken).length;
      const seats = game.players.length;
      const seat = seatOf(game.id);
      const actions = [];
      if (status === "forming") {
        if (seat) actions.push(link(`#/game/${game.id}`, `Back to your seat`, "join"));
        else if (taken < seats) actions.push(link(`#/game/${game.id}?as=player`, "Join as a player", "join"));
      }
      if (status === "playing" && seat) actions.push(link(`#/game/${game.id}`, `Rejoin as ${seat.power}`, "join"));
      actions.push(link(`#/game/${game.id}?as=observer`, status === "finished" ? "Review" : "Watch", "watch"));
      const s = game.settings;
      const deadline = s.deadlines ? `${s.deadlines.movement}s a move` : "no deadlines";
      const standIn =
        (s.stand_in ? `; ${s.stand_in} stands in after ${minutes(s.stand_in_after)} away` : "") +
        (s.fill_with && status === "forming" ? `; empty seats go to ${s.fill_with} ${minutes(s.fill_after)} after the last join` : "");
      return h(
        "tr",
        { "data-game": game.id },
        h("td", {}, h("strong", {}, game.settings.name || "(no name)"), h("div", { class: "id" }, game.id)),
        h("td", { class: "map", "data-map": s.map }, (this.mapOf(s.map) && mapTitle(this.mapOf(s.map))) || s.map),
        h("td", {}, status === "forming" ? `${taken} of ${seats} seats taken` : phaseName(game.phase) || game.phase || ""),
        h("td", {}, `${s.protocol} press, L ${s.l_levels}${s.binding ? ", binding" : ""}; ${deadline}${standIn}`),
        h("td", {}, h("div", { class: "actions" }, actions)),
      );
    });
    return h(
      "section",
      { class: `games ${status}` },
      h("h2", {}, title),
      rows.length
        ? h("table", {}, h("thead", {}, h("tr", {}, h("th", {}, "game"), h("th", {}, "map"), h("th", {}, "state"), h("th", {}, "rules"), h("th", {}, ""))), h("tbody", {}, rows))
        : h("p", { class: "empty" }, "None."),
    );
  }
}

/** A map as the lobby names it: "pure" -> "Pure", "fleet_rome" -> "Fleet rome". */
function mapTitle(m) {
  const words = m.name.replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function others(powers) {
  const n = Math.max(0, powers - 1);
  const WORDS = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"];
  return `${WORDS[n] || n} bot${n === 1 ? "" : "s"}`;
}

function minutes(seconds) {
  return seconds < 120 ? `${Math.round(seconds)} s` : `${Math.round(seconds / 60)} min`;
}

function link(href, text, kind) {
  return h("a", { href, class: `button ${kind}` }, text);
}

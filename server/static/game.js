// One game in the page: the DAIDE link (join, rejoin or watch), the game's own map and its history, the orders and
// the chat.

import { alerts } from "./alerts.js";
import { api } from "./api.js";
import { Board } from "./board.js";
import { ChatPanel } from "./chat.js";
import { Countdown } from "./clock.js";
import { DaideLink, phaseOfTurn, readMis, readThx } from "./daide.js";
import { $, fill, h } from "./dom.js";
import { keepSeat, playerName, seatLink, seatOf } from "./lobby.js";
import { NegoLink, negoSocketUrl } from "./nego.js";
import { placeName, provinceOf, readOrder, setProvinces } from "./notation.js";
import { OrdersPanel, closeMenu, showMenu } from "./orders.js";
import { FULL, POWERS, abbr, nameOf, phaseName, setPowers } from "./powers.js";
import { ResultsPanel, sinceLastMovement } from "./results.js";

/** The pauses between attempts to read the legal orders again after a failure (the last one repeats). */
const RETRIES_MS = [500, 1000, 2000, 4000, 8000, 15000];

/** The server's ADM that says another connection took this seat with its session token. */
const TAKEN_OVER = "another connection took this seat";

export class GameView {
  constructor(root, id, params, shared) {
    this.root = root;
    this.id = id;
    this.wants = params.get("as"); // "player", "observer" or null (a kept seat, else watch)
    this.name = params.get("name"); // the name to join with (a power kept for it: detente play)
    if (params.get("session") && params.get("power")) {
      // a seat link from another browser: the seat is this browser's now; the token leaves the address bar
      keepSeat(id, params.get("power"), params.get("session"));
      history.replaceState(null, "", `#/game/${id}`);
      this.wants = null;
    }
    this.config = shared.config;
    this.map = null; // the game's own map, once read (start)
    this.power = null;
    this.session = null; // the token of the server's ADM after YES (NME), until HLO says the power
    this.replaced = false; // another window or browser took the seat: do not take it back unasked
    this.detail = null;
    this.history = [];
    this.legal = null;
    this.view = null; // the history index shown; null: the live phase
    this.phase = null;
    this.selected = null;
    this.showLast = true;
    this.over = false;
    this.closed = false;
    this.chat = null;
    this.said = null; // a finished game's messages, shown by phase where the chat would be
    this.formingTimer = null;
    this.legalFailures = 0;
    this.legalTimer = null;
    this.tab = "map";
  }

  // --- the page --------------------------------------------------------------------------------

  build() {
    const header = $("#bar");
    this.phaseEl = $("#phase", header);
    this.countdown = new Countdown($("#countdown", header));
    this.powerEl = $("#power", header);
    this.root.hidden = false;
    this.boardBox = h("div", { class: "board-box", id: "board" });
    this.slider = h("input", {
      type: "range",
      id: "history",
      min: 0,
      max: 0,
      value: 0,
      "aria-label": "phase shown",
      oninput: () => this.scrub(),
    });
    this.sliderLabel = h("span", { class: "history-label", id: "history-label" });
    this.liveButton = h("button", { type: "button", id: "live", onclick: () => this.goLive() }, "Now");
    const toggle = (id, text, checked, onchange) =>
      h("label", { class: "check" }, h("input", { type: "checkbox", id, checked, onchange }), ` ${text}`);
    this.controls = h(
      "div",
      { class: "board-controls" },
      h("div", { class: "history" }, h("span", {}, "History"), this.slider, this.sliderLabel, this.liveButton),
      h(
        "div",
        { class: "toggles" },
        toggle("show-names", "names", false, (e) => this.board.setNames(e.target.checked)),
        toggle("show-edges", "adjacency", false, (e) => this.board.setEdges(e.target.checked)),
        toggle("show-last", "last orders", true, (e) => {
          this.showLast = e.target.checked;
          this.redraw();
        }),
      ),
    );
    this.powersEl = h("div", { class: "powers", id: "powers" });
    this.banner = h("div", { class: "banner", id: "banner", hidden: true });
    this.errorBanner = h("div", { class: "banner error", id: "error-banner", role: "alert", hidden: true });
    this.resultsEl = h("section", { class: "results", id: "results", hidden: true });
    this.ordersEl = h("section", { class: "orders", id: "orders" });
    this.barEl = h("div", { class: "order-bar-box", id: "order-bar-box" });
    this.chatEl = h("aside", { class: "chat", id: "chat" }, h("p", { class: "chat-state" }, "Negotiation is for the players of a game."));
    // on a phone: the map first, and a tab bar to the orders and the chat
    const tab = (name, text) =>
      h("button", { type: "button", class: "tab", id: `tab-${name}`, "data-tab": name, onclick: () => this.showTab(name) }, text);
    this.chatBadge = h("span", { class: "badge", id: "chat-unread", hidden: true });
    this.tabs = h(
      "nav",
      { class: "tabs", id: "tabs", "aria-label": "views" },
      tab("map", "Map"),
      tab("orders", "Orders"),
      h("button", { type: "button", class: "tab", id: "tab-chat", "data-tab": "chat", onclick: () => this.showTab("chat") }, "Chat", this.chatBadge),
    );
    this.zoomButton = h(
      "button",
      { type: "button", class: "zoom", id: "zoom", "aria-pressed": "false", onclick: () => this.zoom() },
      "Zoom in",
    );
    // the bar with Submit sticks to the bottom of the view while the map and the orders above it
    // are read, and scrolls away with them: the results and the powers come after it, so that
    // nothing is ever drawn over them
    this.left = h(
      "div",
      { class: "left", id: "left" },
      this.banner,
      this.errorBanner,
      this.boardBox,
      this.controls,
      this.ordersEl,
      this.barEl,
      this.resultsEl,
      this.powersEl,
    );
    this.column = h("div", { class: "column" }, this.left);
    fill(this.root, this.tabs, this.column, this.chatEl);
    this.controls.querySelector(".toggles").prepend(this.zoomButton);
    this.board = new Board(this.boardBox, this.map, {
      onUnit: (unit, event) => this.unitClicked(unit, event),
      onTarget: (province, event) => this.targetClicked(province, event),
      onBlank: () => this.deselect(),
    });
    this.board.setEdges(false);
    this.orders = new OrdersPanel(this.ordersEl, {
      send: (text) => this.daide && this.daide.send(text),
      changed: () => this.redraw(),
      bar: this.barEl,
    });
    this.results = new ResultsPanel(this.resultsEl, {
      onToggle: (hide) => {
        const key = `detente.results.hidden.${this.id}`;
        if (hide) localStorage.setItem(key, this.history.length ? this.history[this.history.length - 1].phase : "");
        else localStorage.removeItem(key);
        this.redraw();
      },
    });
    this.showTab("map", false);
    this.keyHandler = (event) => {
      if (event.key === "Escape") this.deselect();
    };
    document.addEventListener("keydown", this.keyHandler);
  }

  /** The game's map (the standard one if the game cannot be read now: the page says why later). */
  async loadMap() {
    let name = "standard";
    // the first refresh's reads go out with this one, not after the map: a round trip less on a phone
    this.firstRead = Promise.all([api.game(this.id), api.history(this.id)]);
    this.firstRead.catch(() => {}); // read again, and said, by the refresh
    try {
      name = (await this.firstRead)[0].settings.map;
    } catch {
      // no such game, or the server is busy: the refresh that follows says so
    }
    this.map = await api.map(name);
    setPowers(this.map.power_table);
    setProvinces(this.map.provinces);
  }

  async start() {
    try {
      await this.loadMap();
    } catch (error) {
      this.root.hidden = false;
      fill(this.root, h("p", { class: "banner error" }, `Cannot read the map of this game: ${error.message}`));
      return;
    }
    if (this.closed) return;
    this.build();
    await this.refresh();
    const url = new URL("/daide", window.location.href);
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    url.searchParams.set("game", this.id);
    this.daideUrl = url.toString();
    if (this.detail && this.detail.status === "finished") {
      this.finished();
      return;
    }
    await this.connect();
  }

  async connect() {
    this.daide = new DaideLink(this.daideUrl);
    this.daide.addEventListener("message", (event) => this.receive(event.detail));
    this.daide.addEventListener("close", (event) => this.lost(event.detail));
    try {
      await this.daide.open();
    } catch (error) {
      this.setBanner(`Cannot reach the game server: ${error.message}`);
      return;
    }
    const seat = seatOf(this.id);
    if (seat && this.wants !== "observer") {
      this.iam(seat);
    } else if (this.wants === "player") {
      const name = (this.name || playerName()).replace(/'/g, "");
      this.daide.send(`NME ('${name}') ('detente-web')`);
    } else {
      this.daide.send("OBS");
    }
  }

  iam(seat) {
    this.daide.send(`IAM (${seat.power}) ('${seat.session}')`);
  }

  lost({ code }) {
    if (this.closed || this.over || this.replaced) return;
    if (code === 4404) {
      this.setBanner("There is no such game on this server.");
      return;
    }
    this.setBanner("The connection to the game server was lost: reconnecting…");
    setTimeout(() => !this.closed && this.connect(), 1500);
  }

  close() {
    this.closed = true;
    document.removeEventListener("keydown", this.keyHandler);
    clearInterval(this.formingTimer);
    clearTimeout(this.legalTimer);
    document.body.classList.remove("tab-chat", "tab-map", "tab-orders");
    if (this.countdown) this.countdown.stop();
    if (this.daide) this.daide.close();
    if (this.chat) this.chat.close();
    if (this.seatLinkEl) this.seatLinkEl.remove();
    closeMenu();
    this.root.hidden = true;
    if (this.phaseEl) this.phaseEl.textContent = "";
    if (this.powerEl) this.powerEl.textContent = "";
    if (this.powerEl) this.powerEl.removeAttribute("data-power");
    if (this.countdown) this.countdown.el.textContent = "";
  }

  /** A failure the page is working around (it says so, and keeps the person's role). */
  setError(text) {
    this.errorBanner.hidden = !text;
    this.errorBanner.textContent = text || "";
  }

  /** Phones: the map (and orders) or the chat; on a wide screen both are shown and this only scrolls. */
  showTab(name, scroll = true) {
    this.tab = name;
    for (const b of this.tabs.querySelectorAll(".tab")) {
      const on = b.dataset.tab === name;
      b.classList.toggle("active", on);
      b.setAttribute("aria-pressed", on ? "true" : "false");
    }
    document.body.classList.toggle("tab-chat", name === "chat");
    this.root.dataset.tab = name === "chat" ? "chat" : "board";
    if (!scroll) return;
    if (name === "orders") this.ordersEl.scrollIntoView({ block: "start" });
    else if (name === "map") {
      window.scrollTo(0, 0);
      this.left.scrollTop = 0;
    }
    else if (name === "chat") {
      window.scrollTo(0, 0);
      const input = document.getElementById("chat-input");
      const list = this.chatEl.querySelector("ol.messages:not([hidden])");
      if (list && list.lastElementChild) list.parentElement.scrollTop = list.parentElement.scrollHeight;
      if (input && !input.disabled && !window.matchMedia("(pointer: coarse)").matches) input.focus();
    }
  }

  zoom() {
    const on = !this.boardBox.classList.contains("zoomed");
    this.boardBox.classList.toggle("zoomed", on);
    this.zoomButton.textContent = on ? "Zoom out" : "Zoom in";
    this.zoomButton.setAttribute("aria-pressed", on ? "true" : "false");
  }

  setBanner(text, kind = "info") {
    this.banner.hidden = !text;
    this.banner.className = `banner ${kind}`;
    this.banner.textContent = text || "";
  }

  // --- DAIDE -------------------------------------------------------------------------------------

  receive({ head, tree, text }) {
    switch (head) {
      case "MAP":
        this.daide.send(`YES (MAP ('${tree[1] && tree[1][0] ? tree[1][0].text : "standard"}'))`);
        break;
      case "YES":
        this.yes(tree[1] || []);
        break;
      case "REJ":
        this.rej(tree[1] || []);
        break;
      case "HLO":
        this.hello(tree[1][0]);
        break;
      case "ADM":
        this.adm(tree[1]?.[0]?.text, tree[2]?.[0]?.text || "");
        break;
      case "NOW":
        this.now(phaseOfTurn(tree[1]));
        break;
      case "MIS":
        this.orders.setMis(readMis(tree));
        break;
      case "THX": {
        const { unit, note } = readThx(tree);
        this.orders.thx(unit, note);
        break;
      }
      case "TME":
        this.countdown.set(typeof tree[1]?.[0] === "number" ? Date.now() + tree[1][0] * 1000 : null);
        break;
      case "SLO":
        this.gameOver(`${nameOf(tree[1][0])} wins alone.`);
        break;
      case "DRW":
        this.gameOver(tree.length > 1 ? `A draw between ${tree[1].map(nameOf).join(", ")}.` : "The game is drawn.");
        break;
      case "SMR":
        this.over = true;
        break;
      case "OFF":
        if (!this.replaced) this.setBanner("The game server closed the connection.");
        break;
      case "HUH":
        alerts.notice(`The game server did not understand: ${text}`);
        break;
      default:
        break; // SCO, ORD, CCD, FRM...: the JSON API and the negotiation server tell the page the same
    }
  }

  yes(content) {
    const what = content[0];
    if (what === "NME") {
      this.setBanner("You have a seat: the game starts when every power has a player.");
      this.startFormingPoll();
    } else if (what === "OBS") {
      this.setBanner(this.over ? "" : "You are watching this game.");
      this.daide.send("NOW");
      this.daide.send("TME");
      if (this.detail && this.detail.status === "forming") this.startFormingPoll();
    } else if (what === "IAM") {
      this.setBanner("");
      this.daide.send("HLO");
      this.daide.send("NOW");
      this.daide.send("TME");
    } else if (what === "NOT" && content[1] && content[1][0] === "GOF") {
      this.orders.holdAnswer(true, true);
    } else if (what === "GOF") {
      this.orders.holdAnswer(false, true);
    }
  }

  rej(content) {
    const what = content[0];
    if (what === "NME") {
      this.setBanner("This game has no free seat any more: you are watching it.");
      this.daide.send("OBS");
    } else if (what === "IAM") {
      // the session token takes a seat even from a connection the server still holds: a
      // refusal means this browser's seat is gone (the game ended, or it was left while forming)
      this.setBanner("The game server does not know this browser's seat any more: you are watching.");
      this.wants = "observer"; // the server closes after REJ (IAM): come back as an observer
    } else if (what === "GOF" || what === "NOT") {
      this.orders.holdAnswer(this.orders.holding, false);
    }
  }

  /** The server's own ADM: the session token after YES (NME), or the notice that another
   * connection took the seat. A player's ADM may not use the server's name. */
  adm(name, text) {
    if (name !== "detente") return;
    if (text.startsWith("session ") && !this.power) {
      this.session = text.slice("session ".length);
    } else if (text.includes(" played your seat while you were away")) {
      // the truth about the orders in the book: kept up through the greeting that follows
      this.backNote = `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
      this.setBanner(this.backNote);
    } else if (text.includes(" is played by ") || text.startsWith("the player of ")) {
      // a bot of the server stands in for an absent player, or the player is back: everyone is told
      alerts.notice(text.charAt(0).toUpperCase() + text.slice(1) + ".");
      this.refresh();
    } else if (text.startsWith(TAKEN_OVER)) {
      this.replaced = true;
      if (this.chat) this.chat.close();
      this.chat = null;
      const back = h("button", { type: "button", id: "take-back", onclick: () => this.takeBack() }, "Play here");
      this.setBanner("");
      this.banner.append("Your seat is now played from another window or browser. ", back);
      this.banner.hidden = false;
    }
  }

  takeBack() {
    this.replaced = false;
    this.setBanner("");
    fill(this.chatEl, h("p", { class: "chat-state" }, "Connecting…"));
    this.connect();
  }

  hello(power) {
    this.power = abbr(power) || power;
    const kept = seatOf(this.id);
    const session = this.session || (kept && kept.power === this.power ? kept.session : null);
    if (session) keepSeat(this.id, this.power, session);
    if (this.wants) history.replaceState(null, "", `#/game/${this.id}`);
    this.wants = null;
    clearInterval(this.formingTimer);
    this.setBanner(this.backNote || "");
    this.powerEl.textContent = nameOf(this.power);
    this.powerEl.dataset.power = this.power;
    this.powerEl.className = `power-badge power-${this.power}`;
    const seat = seatOf(this.id);
    if (this.seatLinkEl) this.seatLinkEl.remove();
    if (seat) {
      const link = h(
        "a",
        { id: "seat-link", class: "seat-link", href: seatLink(this.id, seat), title: "Open this link in another browser to play your seat there. Keep it to yourself: it is your seat." },
        "seat link",
      );
      link.addEventListener("click", (event) => {
        event.preventDefault();
        if (navigator.clipboard) navigator.clipboard.writeText(link.href).catch(() => {});
        alerts.notice("The link to your seat is copied: open it in another browser to play there. Keep it to yourself.");
      });
      this.powerEl.after(link);
      this.seatLinkEl = link;
    }
    this.startChat();
  }

  startChat() {
    if (this.chat) return;
    const url = negoSocketUrl(this.config.nego_url);
    if (!url) {
      fill(this.chatEl, h("p", { class: "chat-state" }, "This server has no negotiation server: there is no press."));
      return;
    }
    const seat = seatOf(this.id);
    if (!seat) {
      fill(this.chatEl, h("p", { class: "chat-state" }, "This browser has no session for this seat: there is no press here."));
      return;
    }
    const link = new NegoLink(url, { type: "hello", game: this.id, power: this.power, session: seat.session });
    this.chat = new ChatPanel(this.chatEl, {
      game: this.id,
      me: this.power,
      link,
      onUnread: (n) => {
        alerts.setUnread(n);
        this.chatBadge.hidden = !n;
        this.chatBadge.textContent = n ? String(n) : "";
      },
    });
    link.connect();
  }

  async now(phase) {
    const changed = this.phase !== null && this.phase !== phase;
    this.phase = phase;
    await this.refresh();
    if (changed) alerts.phase(phaseName(phase));
    if (this.power && this.orders.due) this.daide.send("MIS");
  }

  gameOver(text) {
    this.over = true;
    this.setBanner(`Game over: ${text}`, "over");
    this.countdown.set(null);
    this.refresh();
  }

  finished() {
    this.over = true;
    const result = this.detail.result;
    const text = result
      ? result.outcome === "solo"
        ? `${nameOf(result.powers[0])} won alone.`
        : result.outcome === "draw"
          ? `a draw between ${result.powers.map(nameOf).join(", ")}.`
          : result.outcome === "unfinished"
            ? null
            : "the game was cancelled."
      : "";
    // an imported game whose file stops early: it did not end, so the page must not say it did
    if (text === null) this.setBanner("The record of this game stops here, before the game ended.", "over");
    else this.setBanner(`Game over${text ? ": " + text : "."}`, "over");
    this.countdown.set(null);
  }

  startFormingPoll() {
    clearInterval(this.formingTimer);
    this.formingTimer = setInterval(async () => {
      await this.refresh();
      if (!this.detail || this.detail.status === "forming") return;
      clearInterval(this.formingTimer);
      const seat = seatOf(this.id);
      if (!this.power && seat && this.wants !== "observer") {
        // the seat was taken by an earlier connection of this browser: it is claimed now the game has begun
        this.iam(seat);
      }
    }, 2000);
  }

  // --- the state ---------------------------------------------------------------------------------

  /** Read the game again. Refreshes overlap when phases come fast: only the last one started is applied,
   * since an earlier one may answer later with an older state. */
  async refresh() {
    const ticket = (this.refreshes = (this.refreshes || 0) + 1);
    let detail;
    let history;
    let legal = null;
    let legalError = null;
    try {
      const first = this.firstRead;
      this.firstRead = null;
      [detail, history] = await (first || Promise.all([api.game(this.id), api.history(this.id)]));
      if (this.power && detail.status === "playing") {
        legal = await api.legal(this.id, this.power).catch((error) => {
          legalError = error;
          return null;
        });
      }
    } catch (error) {
      if (ticket === this.refreshes) {
        this.setError(`Cannot read the game: ${error.message}. Trying again…`);
        this.retryLater();
      }
      return;
    }
    if (this.closed || ticket !== this.refreshes) return;
    const livePhase = detail.position ? detail.position.phase : null;
    if (legalError) {
      // a failed request is no change of role: keep the orders of this phase if they came before,
      // say so, and try again a little later
      if (this.legal && this.legal.phase === livePhase) legal = this.legal;
      this.setError(`Could not load your orders (${legalError.message}): trying again…`);
      this.retryLater();
    } else {
      this.legalFailures = 0;
      clearTimeout(this.legalTimer);
      this.legalTimer = null;
      this.setError("");
    }
    this.detail = detail;
    this.legal = legal;
    const live = this.view === null;
    this.history = history.phases;
    this.standIns = history.stand_ins || [];
    const phase = detail.position ? detail.position.phase : null;
    const over = detail.status === "finished";
    if (this.orders.phase !== phase || !this.legal !== !this.orders.legal || this.orders.over !== over) {
      const recordEnds = over && detail.result?.outcome === "unfinished";
      this.orders.reset({ game: this.id, power: this.power, phase, legal: this.legal, over, recordEnds });
    }
    this.slider.max = String(this.history.length);
    if (live) this.slider.value = String(this.history.length);
    if (over && this.said === null && !this.chat) {
      this.said = [];
      api.messages(this.id).then(
        (messages) => {
          this.said = messages;
          this.redraw();
        },
        () => {}, // no messages to show: the panel keeps its words
      );
    }
    this.header();
    this.powers();
    this.redraw();
  }

  retryLater() {
    if (this.legalTimer || this.closed) return;
    const wait = RETRIES_MS[Math.min(this.legalFailures, RETRIES_MS.length - 1)];
    this.legalFailures += 1;
    this.legalTimer = setTimeout(() => {
      this.legalTimer = null;
      if (!this.closed) this.refresh();
    }, wait);
  }

  header() {
    const d = this.detail;
    if (!d) return;
    if (d.status === "finished" && d.result?.outcome === "unfinished") {
      this.phaseEl.textContent = `record ends at ${d.result.phase}`;
      this.phaseEl.dataset.phase = d.result.phase;
    } else if (d.status === "finished") {
      this.phaseEl.textContent = `game over${d.result ? ` after ${d.result.phase}` : ""}`;
      this.phaseEl.dataset.phase = "COMPLETED";
    } else if (d.status === "forming") {
      const taken = d.players.filter((p) => p.taken).length;
      this.phaseEl.textContent = `waiting for players: ${taken} of ${d.players.length}`;
    } else if (d.position) {
      this.phaseEl.textContent = `${phaseName(d.position.phase)} (${d.position.phase})`;
      this.phaseEl.dataset.phase = d.position.phase;
    }
  }

  powers() {
    const d = this.detail;
    if (!d) return;
    const position = d.position || this.map.initial;
    const players = new Map((d.players || []).map((p) => [abbr(p.power), p]));
    fill(
      this.powersEl,
      POWERS.map((p) => {
        const centres = (position.centers[FULL[p]] || []).length;
        const units = (position.units[FULL[p]] || []).length;
        const seat = players.get(p) || {};
        const out = seat.eliminated;
        // who plays the power, when it is not a person: shown to everyone, as the server says it
        const who = seat.stand_in ? `played by ${seat.stand_in} while its player is away` : seat.bot ? `played by the bot ${seat.bot}` : "";
        return h(
          "span",
          {
            class: ["power-chip", `power-${p}`, out && "eliminated", p === this.power && "me", seat.stand_in && "stand-in", seat.bot && "bot"],
            "data-power": p,
            "data-stand-in": seat.stand_in || null,
            "data-bot": seat.bot || null,
            title: who || null,
          },
          h("span", { class: `dot power-${p}` }),
          `${nameOf(p)} ${centres}`,
          h("small", {}, out ? " out" : ` · ${units}u`),
          seat.stand_in ? h("small", { class: "who" }, ` · stand-in: ${seat.stand_in}`) : seat.bot ? h("small", { class: "who" }, " · bot") : null,
        );
      }),
    );
  }

  // --- the map -----------------------------------------------------------------------------------

  scrub() {
    const index = Number(this.slider.value);
    this.view = index >= this.history.length ? null : index;
    this.deselect(false);
    this.redraw();
  }

  goLive() {
    this.view = null;
    this.slider.value = String(this.history.length);
    this.redraw();
  }

  /** The position before history entry `index`. */
  before(index) {
    return index === 0 ? this.map.initial : this.history[index - 1].position;
  }

  /** The orders of a past phase, each with its result words, and the units dislodged without an order
   * ({unit, power}). */
  ordersOf(entry, before = null) {
    const out = [];
    const ordered = new Set();
    for (const [power, texts] of Object.entries(entry.orders)) {
      for (const text of texts) {
        const order = readOrder(text);
        let result = null;
        if (order && order.unit) {
          const candidates = order.type ? [order.unit] : [`A ${order.at}`, `F ${order.at}`];
          const key = candidates.find((c) => entry.results[c]);
          if (key) {
            result = entry.results[key];
            ordered.add(key);
          }
        }
        out.push({ power, text, result });
      }
    }
    const ownerOf = new Map();
    for (const [power, units] of Object.entries((before && before.units) || {})) for (const u of units) ownerOf.set(u, power);
    const dislodged = Object.entries(entry.results)
      .filter(([unit, words]) => words.includes("dislodged") && !ordered.has(unit))
      .map(([unit]) => ({ unit, power: ownerOf.get(unit) || null }));
    return { orders: out, dislodged };
  }

  redraw() {
    if (!this.board || !this.detail) return;
    const n = this.history.length;
    if (this.view === null) {
      const position = this.detail.position || this.map.initial;
      const last = this.showLast && n > 0 ? this.ordersOf(this.history[n - 1], this.before(n - 1)) : { orders: [], dislodged: [] };
      const options = this.selected ? this.orders.optionsFor(this.selected) : [];
      const targets = new Set(
        options.map((o) => readOrder(o.order)).filter((o) => o && (o.kind === "move" || o.kind === "retreat")).map((o) => provinceOf(o.to)),
      );
      this.board.show({
        position,
        orders: this.orders.drawn(),
        last: last.orders,
        marks: last.dislodged,
        mine: this.power,
        selectable: this.orders.selectableUnits(),
        selected: this.selected,
        targets,
      });
      this.sliderLabel.textContent = position.phase ? `now: ${phaseName(position.phase)}` : "now";
      this.liveButton.disabled = true;
      const shown = sinceLastMovement(this.history);
      const hiddenAt = localStorage.getItem(`detente.results.hidden.${this.id}`);
      const hidden = hiddenAt !== null && n > 0 && hiddenAt === this.history[n - 1].phase;
      this.results.show(
        shown.map((i) => ({ entry: this.history[i], ...this.ordersOf(this.history[i], this.before(i)), standIns: this.standInsAt(i) })),
        { live: true, hidden },
      );
    } else {
      const entry = this.history[this.view];
      const before = this.before(this.view);
      const { orders, dislodged } = this.ordersOf(entry, before);
      this.board.show({ position: before, orders, marks: dislodged });
      this.sliderLabel.textContent = `${phaseName(entry.phase)}: orders and results`;
      this.liveButton.disabled = false;
      this.results.show([{ entry, orders, dislodged, standIns: this.standInsAt(this.view) }]);
    }
    this.root.classList.toggle("past", this.view !== null);
    this.showSaid();
  }

  /** The bots that stood in during history entry `index`: power token -> bot. A stand-in that came
   * in or left during a phase played part of it, and is named for it. */
  standInsAt(index) {
    const at = (phase) => {
      const i = this.history.findIndex((e) => e.phase === phase);
      return i < 0 ? this.history.length : i; // the phase being played
    };
    const out = {};
    for (const s of this.standIns || []) {
      if (at(s.since) <= index && (s.until === null || index <= at(s.until))) out[abbr(s.power)] = s.bot;
    }
    return out;
  }

  /** A finished game's messages of the phase shown (the last one played when none is chosen), for
   * those who are not at the table: a review, or a game file shown by detente replay. */
  showSaid() {
    if (this.chat || !this.said || !this.said.length || !this.history.length) return;
    const index = this.view === null ? this.history.length - 1 : this.view;
    const phase = this.history[index].phase;
    const here = this.said.filter((m) => m.phase === phase);
    const names = (list) => list.map((p) => nameOf(abbr(p))).join(", ");
    fill(
      this.chatEl,
      h("h3", { class: "said-title" }, `Messages of ${phaseName(phase)}`),
      here.length
        ? h(
            "ol",
            { class: "said", id: "said", "data-phase": phase },
            here.map((m) =>
              h(
                "li",
                { class: `said-message power-${abbr(m.sender)}` },
                h("strong", {}, nameOf(abbr(m.sender))),
                ` to ${names(m.recipients || [])}: `,
                h("span", { class: "said-text" }, m.text ?? m.press ?? ""),
              ),
            ),
          )
        : h("p", { class: "chat-state", id: "said", "data-phase": phase }, "No message in this phase."),
    );
  }

  unitClicked(unit, event) {
    if (this.view !== null) return;
    this.selected = unit;
    this.redraw();
    this.menuFor(unit, this.orders.optionsFor(unit));
  }

  /** The menu of `options` for `unit`, beside the unit and clear of the destinations highlighted. */
  menuFor(unit, options, title = null) {
    const avoid = [...this.board.state.targets].flatMap((province) => this.board.placeBox(province));
    showMenu(this.boardBox, { anchor: this.board.unitBox(unit), avoid }, unit, options, (option) => {
      this.selected = null;
      this.orders.pick(unit, option);
    }, title);
  }

  targetClicked(province, event) {
    if (!this.selected || this.view !== null) {
      this.deselect();
      return;
    }
    const options = this.orders.optionsFor(this.selected).filter((o) => {
      const order = readOrder(o.order);
      return order && (order.kind === "move" || order.kind === "retreat") && provinceOf(order.to) === province && !order.via;
    });
    if (!options.length) {
      this.deselect();
      return;
    }
    event.stopPropagation();
    const unit = this.selected;
    if (options.length > 1) {
      // a province with two coasts this fleet can reach: ask which
      this.menuFor(unit, options, `Which coast of ${placeName(province)}?`);
      return;
    }
    this.selected = null;
    closeMenu();
    this.orders.pick(unit, options[0]);
  }

  deselect(redraw = true) {
    closeMenu();
    if (this.selected === null) return;
    this.selected = null;
    if (redraw) this.redraw();
  }
}

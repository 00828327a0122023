// The page's entry: load the config and the list of maps, then show the lobby or a game (on its own map), by the
// address's hash.

import { alerts } from "./alerts.js";
import { api } from "./api.js";
import { $, h } from "./dom.js";
import { GameView } from "./game.js";
import { Lobby } from "./lobby.js";

const shared = { config: null, maps: [] };
let lobby = null;
let game = null;

function route() {
  if (game) {
    game.close();
    game = null;
  }
  const match = /^#\/game\/([^/?]+)(?:\?(.*))?$/.exec(window.location.hash);
  document.body.dataset.view = match ? "game" : "lobby";
  if (match) {
    lobby.hide();
    game = new GameView($("#game"), decodeURIComponent(match[1]), new URLSearchParams(match[2] || ""), shared);
    game.start();
  } else {
    lobby.show();
  }
}

function muteButton() {
  const button = $("#mute");
  const label = () => {
    button.textContent = alerts.muted ? "alerts muted" : "alerts on";
    button.setAttribute("aria-pressed", alerts.muted ? "true" : "false");
  };
  button.addEventListener("click", () => {
    alerts.setMuted(!alerts.muted);
    label();
  });
  label();
}

async function boot() {
  try {
    [shared.config, shared.maps] = await Promise.all([api.config(), api.maps().then((r) => r.maps)]);
  } catch (error) {
    $("#lobby").append(h("p", { class: "bad" }, `The game server does not answer: ${error.message}`));
    return;
  }
  lobby = new Lobby($("#lobby"), shared.config, shared.maps);
  muteButton();
  window.addEventListener("hashchange", route);
  route();
  document.body.dataset.ready = "true";
}

boot();

// The powers: names, adjectives and colours, as the server's /api/map gives them (its
// power_table, from the engine's Power), so that the page holds no copy of its own.

/** The DAIDE tokens in the map's order: "AUS", "ENG", ... */
export const POWERS = [];
/** Token -> English name: ENG -> "England". */
export const NAMES = {};
/** Token -> adjective: ENG -> "English". */
export const ADJECTIVES = {};
/** Token -> the engine's full name: ENG -> "ENGLAND". */
export const FULL = {};
/** Token -> colour on the board; the CSS reads the same colours as --ENG, ... */
export const COLOURS = {};

const ABBREVIATION = {};

/**
 * Fill the tables (in place: the modules that import them keep the same objects) from the
 * map's power_table, and give the CSS its colours. Called once, when the map has come,
 * before anything is drawn.
 */
export function setPowers(table) {
  POWERS.length = 0;
  for (const p of table) {
    POWERS.push(p.token);
    NAMES[p.token] = p.english;
    ADJECTIVES[p.token] = p.adjective;
    FULL[p.token] = p.name;
    COLOURS[p.token] = p.colour;
    ABBREVIATION[p.name] = p.token;
    document.documentElement.style.setProperty(`--${p.token}`, p.colour);
  }
}

/** The abbreviation of a power from either form ("ENGLAND" or "ENG"). */
export function abbr(power) {
  if (!power) return null;
  const upper = power.toUpperCase();
  return ABBREVIATION[upper] || (NAMES[upper] ? upper : null);
}

export const nameOf = (power) => NAMES[abbr(power)] || power;
export const colourOf = (power) => COLOURS[abbr(power)] || "#888";

const SEASONS = { S: "Spring", F: "Fall", W: "Winter" };
const KINDS = { M: "movement", R: "retreats", A: "adjustments" };

/** "S1901M" -> "Spring 1901 movement". */
export function phaseName(phase) {
  if (!phase || phase === "COMPLETED") return phase === "COMPLETED" ? "game over" : "";
  const m = /^([SFW])(\d{4})([MRA])$/.exec(phase);
  return m ? `${SEASONS[m[1]]} ${m[2]} ${KINDS[m[3]]}` : phase;
}

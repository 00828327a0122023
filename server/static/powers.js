// The powers of the map shown: names, adjectives and colours, as the server's map gives them (its
// power_table), so that the page holds no copy of its own; each map has its own powers.

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

/** The CSS of each power's class (.power-ENG { --c: ... }), made for the powers of the map shown:
 * a stylesheet built in script, which the page's Content-Security-Policy allows (no inline style). */
const SHEET = new CSSStyleSheet();
document.adoptedStyleSheets = [...document.adoptedStyleSheets, SHEET];

/**
 * Fill the tables (in place: the modules that import them keep the same objects) from the
 * map's power_table, and give the CSS its colours. Called when a map has come (the lobby's,
 * then each game's), before anything is drawn with it.
 */
export function setPowers(table) {
  POWERS.length = 0;
  for (const t of [NAMES, ADJECTIVES, FULL, COLOURS, ABBREVIATION]) for (const k of Object.keys(t)) delete t[k];
  SHEET.replaceSync(table.map((p) => `.power-${p.token} { --c: var(--${p.token}); }`).join("\n"));
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

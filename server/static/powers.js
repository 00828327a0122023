// The powers: names, adjectives and colours (the CSS uses the same colours by class).

export const POWERS = ["AUS", "ENG", "FRA", "GER", "ITA", "RUS", "TUR"];

export const NAMES = {
  AUS: "Austria", ENG: "England", FRA: "France", GER: "Germany", ITA: "Italy", RUS: "Russia", TUR: "Turkey",
};

export const FULL = {
  AUS: "AUSTRIA", ENG: "ENGLAND", FRA: "FRANCE", GER: "GERMANY", ITA: "ITALY", RUS: "RUSSIA", TUR: "TURKEY",
};

export const COLOURS = {
  AUS: "#c8322a", ENG: "#2f4fb0", FRA: "#2aa3d6", GER: "#5a5a5a", ITA: "#2c9447", RUS: "#8a4bb3", TUR: "#d9a90b",
};

const ABBREVIATION = Object.fromEntries(Object.entries(FULL).map(([a, f]) => [f, a]));

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

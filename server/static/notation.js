// The short notation of orders (A PAR - BUR, F NTH C A LON - NWY, ...), read just enough to draw them.

function place(token) {
  return token ? token.toUpperCase().replace(/\((\w+)\)/, "/$1") : null;
}

/**
 * "A MAR S A PAR - BUR" -> {kind: "support", unit: "A MAR", at: "MAR", target: "PAR", to: "BUR"}.
 * Kinds: hold, move (via), support, convoy, retreat, disband, build, waive. Null if unreadable.
 */
export function readOrder(text) {
  const tokens = text.trim().toUpperCase().split(/\s+/).filter(Boolean);
  if (!tokens.length) return null;
  if (tokens[0] === "WAIVE" || tokens[0] === "WVE") return { kind: "waive", unit: null };
  let i = 0;
  let type = null;
  if (tokens[i] === "A" || tokens[i] === "F") type = tokens[i++];
  const at = place(tokens[i++]);
  if (!at) return null;
  const unit = `${type || "A"} ${at}`;
  const verb = tokens[i++] || "H";
  const rest = tokens.slice(i);
  const base = { unit, at, type };
  if (verb === "H" || verb === "HOLD") return { ...base, kind: "hold" };
  if (verb === "-") return { ...base, kind: "move", to: place(rest[0]), via: rest.includes("VIA") };
  if (verb === "R") return { ...base, kind: "retreat", to: place(rest[0]) };
  if (verb === "D") return { ...base, kind: "disband" };
  if (verb === "B") return { ...base, kind: "build" };
  if (verb === "S" || verb === "C") {
    let j = 0;
    if (rest[j] === "A" || rest[j] === "F") j++;
    const target = place(rest[j++]);
    const to = rest[j] === "-" ? place(rest[j + 1]) : null;
    return { ...base, kind: verb === "S" ? "support" : "convoy", target, to };
  }
  return null;
}

/** The province of a location: "STP/NC" -> "STP". */
export const provinceOf = (location) => (location ? location.split("/")[0] : null);

// --- names: the short notation from what a person types ------------------------------------------

const PROVINCES = new Map(); // id -> {id, name, coasts}
const BY_NAME = new Map(); // "mid atlantic ocean" -> "MAO", "mid atlantic" -> "MAO", "mao" -> "MAO"

/** Common abbreviations of other conventions (webDiplomacy, jDip, Backstabbr, the rulebook) -> the map's ids. */
const ALIASES = {
  eng: "ECH", ech: "ECH", channel: "ECH", mid: "MAO", mat: "MAO", mao: "MAO", nat: "NAO", nao: "NAO",
  nts: "NTH", nrg: "NWG", nws: "NWG", nor: "NWY", lyo: "GOL", gol: "GOL", gul: "GOL", bot: "GOB", gob: "GOB",
  tyn: "TYS", tyh: "TYS", wms: "WES", wme: "WES", ems: "EAS", eme: "EAS", lpl: "LVP", liv: "LVN", lvn: "LVN",
  tyl: "TYR", trl: "TYR", hel: "HEL", hol: "HOL", ska: "SKA", skag: "SKA", stp: "STP", pet: "STP",
  "saint petersburg": "STP", "st petersburg": "STP", petersburg: "STP", sebastopol: "SEV", "bothnia": "GOB",
  lyon: "GOL", lyons: "GOL", "gulf of lyons": "GOL", helgoland: "HEL", heligoland: "HEL", "heligoland bight": "HEL",
  "east med": "EAS", "eastern med": "EAS", "west med": "WES", "western med": "WES", "eastern mediterranean": "EAS",
  "western mediterranean": "WES", tyrrhenian: "TYS", ionian: "ION", aegean: "AEG", adriatic: "ADR", baltic: "BAL",
  barents: "BAR", skagerrack: "SKA", irish: "IRI", norwegian: "NWG", "black": "BLA", tyrol: "TYR", "mid atlantic": "MAO",
  "north atlantic": "NAO", constantinople: "CON", istanbul: "CON", rumania: "RUM", romania: "RUM",
};
const COASTS = { nc: "NC", sc: "SC", ec: "EC", wc: "WC", north: "NC", south: "SC", east: "EC", west: "WC", n: "NC", s: "SC", e: "EC", w: "WC" };
const COAST_NAMES = { NC: "north coast", SC: "south coast", EC: "east coast", WC: "west coast" };
const VERBS = {
  h: "H", hold: "H", holds: "H", stand: "H", stands: "H",
  "-": "-", to: "-", move: "-", moves: "-", go: "-", goes: "-", "->": "-", attack: "-", attacks: "-", into: "-",
  s: "S", support: "S", supports: "S", c: "C", convoy: "C", convoys: "C",
  r: "R", retreat: "R", retreats: "R", d: "D", disband: "D", disbands: "D", remove: "D", b: "B", build: "B", builds: "B",
};
const FILLER = new Set(["the", "in", "at", "from", "of", "an", "unit", "my", "and"]);

const key = (text) => text.toLowerCase().replace(/\./g, "").replace(/[-\s]+/g, " ").trim();

/** The map's provinces (from /api/map), for reading names: called once when the map has come. */
export function setProvinces(provinces) {
  PROVINCES.clear();
  BY_NAME.clear();
  for (const p of provinces) {
    PROVINCES.set(p.id, p);
    BY_NAME.set(key(p.name), p.id);
    BY_NAME.set(p.id.toLowerCase(), p.id);
    const short = key(p.name).replace(/ (sea|ocean|bight)$/, "");
    if (!BY_NAME.has(short)) BY_NAME.set(short, p.id);
  }
  for (const [alias, id] of Object.entries(ALIASES)) if (PROVINCES.has(id) && !BY_NAME.has(alias)) BY_NAME.set(alias, id);
}

/** A province's English name: "MAO" -> "Mid-Atlantic Ocean", "SPA/NC" -> "Spain (north coast)". */
export function placeName(location) {
  if (!location) return "";
  const [id, coast] = location.split("/");
  const p = PROVINCES.get(id);
  const name = p ? p.name : id;
  return coast ? `${name} (${COAST_NAMES[coast] || coast})` : name;
}

/** The coasts of a province (["SPA/NC", "SPA/SC"]), or none. */
export const coastsOf = (id) => (PROVINCES.get(id) && PROVINCES.get(id).coasts) || [];

/**
 * What a person typed, in the short notation the server reads: full names ("mid atlantic",
 * "Mid-Atlantic Ocean"), common abbreviations (ENG for the English Channel, LYO, NRG, ...), words for
 * the verbs ("army paris moves to burgundy") and coasts ("spain north coast", "SPA(sc)", "stp nc").
 * Words it does not know are kept as they are (the server then says which one it does not know).
 */
export function normaliseOrder(text) {
  let t = ` ${text.toLowerCase()} `
    .replace(/[–—→]|->|=>/g, " - ")
    .replace(/\((n|s|e|w)c?\)|\((north|south|east|west) coast\)/g, (_, a, b) => ` /${(a || b)[0]}c `)
    .replace(/[(),;]/g, " ")
    .replace(/mid-atlantic/g, "mid atlantic")
    .replace(/(\w)-(\w)/g, "$1 - $2")
    .replace(/\s-(?=\S)|(?<=\S)-\s/g, " - ")
    .replace(/\bvia convoy\b|\bby convoy\b/g, " via ")
    .replace(/\bst\.? /g, "st ");
  const words = t.split(/\s+/).filter(Boolean);
  const out = [];
  const last = () => out[out.length - 1] || "";
  let i = 0;
  while (i < words.length) {
    const word = words[i];
    if (["a", "f", "army", "fleet"].includes(word)) {
      out.push(word[0].toUpperCase());
      i += 1;
      continue;
    }
    // a place: the longest run of words that names one
    let matched = null;
    for (let n = Math.min(4, words.length - i); n >= 1 && !matched; n--) {
      const phrase = words.slice(i, i + n).join(" ");
      if (n > 1 && phrase.includes("/")) continue;
      const [bare, slash] = phrase.split("/");
      const id = BY_NAME.get(bare);
      if (id) matched = { id, n, slash: slash === undefined ? null : slash };
    }
    if (matched) {
      let place = matched.id;
      i += matched.n;
      const coastWord = (w) => COASTS[(w || "").replace(/^\//, "").replace(/(.)c$/, "$1")];
      let coast = matched.slash !== null ? coastWord(matched.slash) : null;
      if (!coast && words[i] && words[i].startsWith("/")) {
        coast = coastWord(words[i]);
        i += 1;
      } else if (!coast && coastsOf(place).length && coastWord(words[i]) && (words[i + 1] === "coast" || /^[nsew]c$/.test(words[i]))) {
        coast = coastWord(words[i]);
        i += words[i + 1] === "coast" ? 2 : 1;
      }
      out.push(coast && coastsOf(place).includes(`${place}/${coast}`) ? `${place}/${coast}` : place);
      continue;
    }
    i += 1;
    if (VERBS[word]) {
      const verb = VERBS[word];
      if (verb === "-" && (last() === "R" || last() === "-")) continue; // "retreats to", "moves to"
      out.push(verb);
    } else if (word === "via") out.push("VIA");
    else if (word === "waive" || word === "wve") out.push("WAIVE");
    else if (!FILLER.has(word) && word !== "coast") out.push(word.toUpperCase());
  }
  return out.join(" ");
}

/** An order in words: "A PAR - BUR" -> "Paris moves to Burgundy". */
export function describe(text) {
  const o = readOrder(text);
  if (!o) return "";
  const at = placeName(o.at);
  switch (o.kind) {
    case "waive":
      return "waive a build";
    case "hold":
      return `${at} holds`;
    case "move":
      return `${at} moves to ${placeName(o.to)}${o.via ? " by convoy" : ""}`;
    case "retreat":
      return `${at} retreats to ${placeName(o.to)}`;
    case "disband":
      return `${at} is disbanded`;
    case "build":
      return `build ${o.type === "F" ? "a fleet" : "an army"} in ${at}`;
    case "support":
      return o.to ? `${at} supports ${placeName(o.target)} to ${placeName(o.to)}` : `${at} supports ${placeName(o.target)} to hold`;
    case "convoy":
      return `${at} convoys ${placeName(o.target)} to ${placeName(o.to)}`;
    default:
      return "";
  }
}

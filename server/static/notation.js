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

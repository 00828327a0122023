"""Derive, from the rules and the map alone, the parts of a DATC case's position that the DATC text leaves unsaid.

The DATC (v3.0, the Diplomacy Adjudicator Test Cases) states, per test case, the orders and
what happens to the units; it seldom states where a dislodged unit may retreat to,
who owns the centres afterwards or which phase comes next. Those values in
``tests/datc/data/*.json`` are computed here and listed under ``derived`` in the
turn's ``expect`` entry; see the docstring of ``tests/test_datc.py``.

This module never asks the engine to adjudicate: it does not import ``engine`` or
``detente`` at all. It reads the ``[borders]`` and ``[homes]`` of the map *file*
(``engine/data/standard.map``, whose borders are those of the Parlance
the standard map of the DAIDE reference (``standard-map.cfg``)) and applies the rules to the orders of
the turn and to the units the DATC says stand on the board after it:

* retreats: a unit dislodged in a movement turn may retreat to a place next to it
  (armies by land, fleets along their coast) whose province is empty after the turn,
  is not the province its attacker came from (unless the attacker came by convoy,
  DATC 4.A.5 / 2023 rules) and was not left empty by a standoff: two or more moves
  into it that bounced (the case's ``bounce`` result words). A unit with no such
  place is disbanded at once.
* retreat turns: a retreat to one of the unit's options succeeds unless another unit
  retreats to the same province; any other dislodged unit is disbanded.
* adjustments: builds one by one (home centre, owned, empty, fitting the unit type
  and, for a fleet in a two-coast province, naming the coast), removals one by one,
  then civil disorder (2023 rules: the greatest distance to an owned centre over land
  and sea, fleets before armies, then alphabetically by English province name).
* centres change only after a fall turn with no retreats to follow, or after the fall
  retreats: a centre goes to the power whose unit stands on it.
* phases: S..M -> S..R if a dislodged unit has somewhere to go, else F..M;
  S..R -> F..M; the fall ends in W..A if any power's units and centres differ in
  number, else S(next year)M; W..A -> S(next year)M.

Run ``python tests/datc/derive.py`` to check every case's expectation against these
rules (it prints each disagreement and exits 1 if there is one).
"""

from __future__ import annotations

import json
import re
import sys
from collections import deque
from pathlib import Path

DATA = Path(__file__).parent / "data"
MAP_FILE = Path(__file__).parents[2] / "engine" / "data" / "standard.map"
_COAST = {"NCS": "NC", "SCS": "SC", "ECS": "EC", "WCS": "WC"}


class Board:
    """Adjacency and homes read from a map file: places are names (``PAR``, ``STP/NC``)."""

    def __init__(self, path: Path = MAP_FILE) -> None:
        section = ""
        self.army: dict[str, set[str]] = {}
        self.fleet: dict[str, set[str]] = {}
        self.english: dict[str, str] = {}
        self.powers: dict[str, str] = {}
        self.homes: dict[str, set[str]] = {}
        self.centers: set[str] = set()
        for raw in path.read_text().splitlines():
            line = raw.split("#")[0].strip()
            if not line:
                continue
            if line.startswith("["):
                section = line.strip("[]")
                continue
            key, _, value = line.partition("=")
            key = key.strip()
            if section == "powers":
                self.powers[key] = value.split(",")[0].strip().upper()
            elif section == "provinces":
                self.english[key] = value.strip()
            elif section == "homes":
                names = {v.strip() for v in value.split(",") if v.strip()}
                self.centers |= names
                if key != "UNO":
                    self.homes[self.powers[key]] = names
            elif section == "borders":
                self._borders(key, value)

    def _borders(self, province: str, value: str) -> None:
        for group in value.split(","):
            tokens = group.replace("(", " ( ").replace(")", " ) ").split()
            if tokens[0] == "(":  # (FLT NCS) opens the fleet list of a coast
                source, tokens = f"{province}/{_COAST[tokens[2]]}", tokens[4:]
                table = self.fleet
            else:
                source, table, tokens = province, self.army if tokens[0] == "AMY" else self.fleet, tokens[1:]
            places, i = table.setdefault(source, set()), 0
            while i < len(tokens):
                if tokens[i] == "(":
                    places.add(f"{tokens[i + 1]}/{_COAST[tokens[i + 2]]}")
                    i += 4
                else:
                    places.add(tokens[i])
                    i += 1

    def coasts(self, province: str) -> list[str]:
        return sorted(p for p in self.fleet if p.startswith(province + "/"))

    def neighbours(self, province: str) -> set[str]:
        """Provinces next to ``province`` by land or sea, from any of its coasts."""
        places = set(self.army.get(province, ()))
        for source in [province, *self.coasts(province)]:
            places |= self.fleet.get(source, set())
        return {prov(p) for p in places}


def prov(place: str) -> str:
    return place.split("/")[0]


def split(unit: str) -> tuple[str, str]:
    """``"F SPA/SC"`` -> ``("F", "SPA/SC")``."""
    letter, place = unit.split()
    return letter, place


def _where(units: dict[str, list[str]]) -> dict[str, tuple[str, str]]:
    """Province -> (power, unit name)."""
    return {prov(split(u)[1]): (power, u) for power, names in units.items() for u in names}


_MOVE = re.compile(r"^([AF]) (\S+) - (\S+?)(?: VIA)?$")
_CONVOY = re.compile(r"^F (\S+) C A (\S+) - (\S+)$")


def _moves(board: Board, before: dict[str, list[str]], orders: dict[str, list[str]]) -> list[dict]:
    """The move orders of the turn given to units that are there (by their own power)."""
    here = _where(before)
    convoys = {  # (power of the fleet, origin, target)
        (power, prov(m.group(2)), prov(m.group(3)))
        for power, texts in orders.items()
        for text in texts
        if (m := _CONVOY.match(" ".join(text.upper().split())))
    }
    found = []
    for power, texts in orders.items():
        for text in texts:
            text = " ".join(text.upper().split())
            m = _MOVE.match(text)
            if not m or here.get(prov(m.group(2)), (None, ""))[0] != power:
                continue
            unit = here[prov(m.group(2))][1]
            if split(unit)[0] != m.group(1):
                continue
            origin, target = prov(m.group(2)), prov(m.group(3))
            adjacent = target in {prov(p) for p in board.army.get(origin, ())} if m.group(1) == "A" else True
            found.append(
                {
                    "power": power,
                    "unit": unit,
                    "origin": origin,
                    "target": target,
                    "convoyed": text.endswith(" VIA") or (m.group(1) == "A" and not adjacent),
                    # 2023 rules (DATC 4.A.3): only a fleet of the army's own power shows the
                    # intent to go by convoy to a neighbour without "via convoy"
                    "own convoy ordered": (power, origin, target) in convoys,
                }
            )
    return found


def movement(
    board: Board,
    before: dict[str, list[str]],
    orders: dict[str, list[str]],
    after: dict[str, list[str]],
    dislodged: list[str],
    results: dict[str, list[str]],
):
    """Retreat options of the units ``dislodged`` in a movement turn, and notes for a human.

    Returns ``({unit: {"power": ..., "retreats": [...]}}, [units with nowhere to go], notes)``.
    """
    notes: list[str] = []
    occupied = _where(after)
    owner = {u: power for power, names in before.items() for u in names}
    moves = _moves(board, before, orders)
    standoffs = set()
    for target in {m["target"] for m in moves} - set(occupied):
        into = [m for m in moves if m["target"] == target]
        if any(m["unit"] not in results for m in into):
            notes.append(f"no result word for a move into the empty {target}")
        if sum("bounce" in results.get(m["unit"], []) for m in into) >= 2:
            standoffs.add(target)
    waiting, gone = {}, []
    for unit in dislodged:
        letter, place = split(unit)
        power_a, attacker = occupied[prov(place)]
        came = [
            m
            for m in moves
            if m["target"] == prov(place) and m["power"] == power_a and split(m["unit"])[0] == split(attacker)[0]
        ]
        if len(came) != 1:
            notes.append(f"{unit}: cannot tell its attacker from {came}")
            continue
        attack = came[0]
        if attack["own convoy ordered"] and not attack["convoyed"]:
            notes.append(f"{unit}: attacked from {attack['origin']} by a move its own power convoys: by land or sea?")
        barred = set(standoffs) | set(occupied)
        if not attack["convoyed"]:
            barred.add(attack["origin"])
        reach = board.army.get(place, set()) if letter == "A" else board.fleet.get(place, set())
        options = sorted(p for p in reach if prov(p) not in barred)
        if options:
            waiting[unit] = {"power": owner[unit], "retreats": options}
        else:
            gone.append(unit)
    return waiting, sorted(gone), notes


_RETREAT = re.compile(r"^([AF]) (\S+) R (\S+)$")


def retreat(before_dislodged: dict[str, dict], orders: dict[str, list[str]]):
    """The units that retreat (power -> new unit names) and those disbanded, in a retreat turn."""
    chosen: dict[str, tuple[str, str]] = {}  # dislodged unit -> (power, place)
    for power, texts in orders.items():
        for text in texts:
            m = _RETREAT.match(" ".join(text.upper().split()))
            if not m:
                continue
            for unit, info in before_dislodged.items():
                letter, place = split(unit)
                if info["power"] == power and letter == m.group(1) and prov(place) == prov(m.group(2)):
                    fits = [p for p in info["retreats"] if p == m.group(3) or prov(p) == m.group(3)]
                    if len(fits) == 1 and unit not in chosen:
                        chosen[unit] = (power, fits[0])
    count: dict[str, int] = {}
    for _, place in chosen.values():
        count[prov(place)] = count.get(prov(place), 0) + 1
    moved: dict[str, list[str]] = {}
    for unit, (power, place) in chosen.items():
        if count[prov(place)] == 1:
            moved.setdefault(power, []).append(f"{split(unit)[0]} {place}")
    gone = sorted(u for u in before_dislodged if u not in chosen or count[prov(chosen[u][1])] > 1)
    return moved, gone


def distance(board: Board, province: str, targets: set[str]) -> int:
    """Steps from ``province`` to the nearest of ``targets``, over land and sea."""
    seen, queue = {province}, deque([(province, 0)])
    while queue:
        here, steps = queue.popleft()
        if here in targets:
            return steps
        for there in board.neighbours(here) - seen:
            seen.add(there)
            queue.append((there, steps + 1))
    return 10**6


_ADJUST = re.compile(r"^([AF]) (\S+) ([BD])$")


def adjustment(
    board: Board, before: dict[str, list[str]], centers: dict[str, list[str]], orders: dict[str, list[str]]
) -> dict[str, list[str]]:
    """The units after an adjustment turn."""
    units = {power: list(names) for power, names in before.items()}
    for power in set(units) | set(centers) | set(orders):
        mine, owned = units.setdefault(power, []), set(centers.get(power, ()))
        change = len(owned) - len(mine)
        for text in orders.get(power, []):
            m = _ADJUST.match(" ".join(text.upper().split()))
            if not m:
                continue
            letter, place, kind = m.groups()
            taken = {prov(p) for names in units.values() for u in names for p in [split(u)[1]]}
            if (
                kind == "B"
                and change > 0
                and prov(place) in owned & board.homes.get(power, set())
                and prov(place) not in taken
            ):
                if letter == "A" and prov(place) in board.army:
                    mine.append(f"A {prov(place)}")
                    change -= 1
                elif letter == "F" and place in board.fleet and not (place == prov(place) and board.coasts(place)):
                    mine.append(f"F {place}")
                    change -= 1
            elif kind == "D" and change < 0:
                for unit in mine:
                    if split(unit)[0] == letter and prov(split(unit)[1]) == prov(place):
                        mine.remove(unit)
                        change += 1
                        break
        if change < 0:  # civil disorder
            ranked = sorted(
                mine,
                key=lambda u: (
                    -distance(board, prov(split(u)[1]), owned),
                    split(u)[0] != "F",
                    board.english[prov(split(u)[1])],
                ),
            )
            for unit in ranked[:-change]:
                mine.remove(unit)
    return {power: names for power, names in units.items() if names}


def next_phase(phase: str, retreats_due: bool, units: dict, centers: dict) -> str:
    season, year, kind = phase[0], int(phase[1:5]), phase[5]
    if kind == "M" and retreats_due:
        return f"{season}{year}R"
    if season == "S":
        return f"F{year}M"
    if season == "F":
        powers = set(units) | set(centers)
        due = any(len(units.get(p, [])) != len(centers.get(p, [])) for p in powers)
        return f"W{year}A" if due else f"S{year + 1}M"
    return f"S{year + 1}M"


def new_centers(phase: str, retreats_due: bool, units: dict, centers: dict, board: Board) -> dict:
    if phase[0] != "F" or retreats_due:
        return {p: sorted(c) for p, c in centers.items() if c}
    owners = {c: p for p, cs in centers.items() for c in cs}
    for power, names in units.items():
        for u in names:
            if prov(split(u)[1]) in board.centers:
                owners[prov(split(u)[1])] = power
    out: dict[str, list[str]] = {}
    for c, p in owners.items():
        out.setdefault(p, []).append(c)
    return {p: sorted(c) for p, c in out.items()}


def turn(
    board: Board, phase: str, units: dict, dislodged: dict, centers: dict, orders: dict, want: dict
) -> tuple[dict, list[str]]:
    """What the rules give for one turn, from the position before it and the units the
    DATC gives after it (``want``): the fields units, dislodged, disbanded, centers, phase."""
    notes: list[str] = []
    got: dict = {}
    if phase.endswith("M"):
        hit = sorted([*want.get("dislodged", {}), *want.get("disbanded", [])])
        got["dislodged"], got["disbanded"], notes = movement(
            board, units, orders, want["units"], hit, want.get("results", {})
        )
        got["units"] = want["units"]
    elif phase.endswith("R"):
        moved, got["disbanded"] = retreat(dislodged, orders)
        got["units"] = {p: [*units.get(p, []), *moved.get(p, [])] for p in set(units) | set(moved)}
        got["dislodged"] = {}
    else:
        got["units"] = adjustment(board, units, centers, orders)
        had = {(p, u) for p, names in units.items() for u in names}
        now = {(p, u) for p, names in got["units"].items() for u in names}
        got["disbanded"] = sorted(u for p, u in had - now)
        got["dislodged"] = {}
    due = bool(got["dislodged"])
    got["centers"] = new_centers(phase, due, got["units"], centers, board)
    got["phase"] = next_phase(phase, due, got["units"], got["centers"])
    return got, notes


def _norm_units(units: dict) -> dict:
    return {p: sorted(n) for p, n in units.items() if n}


def check(cases: list[dict], board: Board | None = None) -> list[str]:
    """Every disagreement between the cases' expectations and the rules, as text."""
    board = board or Board()
    problems = []
    for case in cases:
        start = case["start"]
        phase, units, centers = start["phase"], start["units"], start.get("centers", {})
        dislodged = start.get("dislodged", {})
        for number, (t, want) in enumerate(zip(case["turns"], case["expect"], strict=True), 1):
            got, notes = turn(board, phase, units, dislodged, centers, t["orders"], want)
            where = f"{case['name']}, turn {number}"
            problems += [f"{where}: {note}" for note in notes]
            for field, a, b in [
                ("units", _norm_units(got["units"]), _norm_units(want["units"])),
                ("dislodged", got["dislodged"], want.get("dislodged")),
                ("disbanded", got["disbanded"], sorted(want.get("disbanded", []))),
                ("centers", got["centers"], _norm_units(want.get("centers", {}))),
                ("phase", got["phase"], want.get("phase")),
            ]:
                if a != b:
                    problems.append(f"{where}: {field}: rules give {a}, data says {b}")
            phase, units, centers, dislodged = want["phase"], want["units"], want["centers"], want["dislodged"]
    return problems


def load() -> list[dict]:
    return [case for path in sorted(DATA.glob("*.json")) for case in json.loads(path.read_text())]


if __name__ == "__main__":
    found = check(load())
    print("\n".join(found) or "every expectation agrees with the rules")
    sys.exit(1 if found else 0)

"""Phases, units and positions: the immutable state of a game between two phases.

>>> from engine.position import Position
>>> start = Position.initial()
>>> str(start.phase), len(start.units)
('S1901M', 22)
>>> start.unit_name(start.unit_in("STP"))
'F STP/SC'
>>> start.centers_of("RUS")
('MOS', 'SEV', 'STP', 'WAR')
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.maps import ARMY, FLEET, LAND, SEA, UNIT_LETTERS, Map, standard_map

SEASONS = ("S", "F", "W")
MOVEMENT, RETREATS, ADJUSTMENTS = "M", "R", "A"
#: The kinds of phase by their letter, named as settings, the API and the page name them.
PHASE_KINDS = {MOVEMENT: "movement", RETREATS: "retreat", ADJUSTMENTS: "adjustment"}


@functools.total_ordering
@dataclass(frozen=True, slots=True)
class Phase:
    """A phase of the game: ``Phase(1901, "S", "M")`` is written ``S1901M``.

    Phases compare in the order they are played:

    >>> Phase.parse("S1901R") < Phase.parse("F1901M") < Phase.parse("W1901A") < Phase.parse("S1902M")
    True
    """

    year: int
    season: str
    kind: str

    @property
    def _key(self) -> tuple[int, int, int]:
        return (self.year, SEASONS.index(self.season), "MRA".index(self.kind))

    def __lt__(self, other: Phase) -> bool:
        return self._key < other._key

    @classmethod
    def parse(cls, text: str) -> Phase:
        match = re.fullmatch(r"([SFW])(\d{4})([MRA])", text.strip().upper())
        if match is None:
            raise ValueError(f"not a phase: {text!r} (expected e.g. S1901M)")
        season, year, kind = match.groups()
        return cls(int(year), season, kind)

    def __str__(self) -> str:
        return f"{self.season}{self.year}{self.kind}"


@dataclass(frozen=True, slots=True)
class Unit:
    """A unit on the board: its power, type (``ARMY`` or ``FLEET``) and location.

    Its repr names the location as the standard map does (a unit does not hold its map;
    :meth:`Position.unit_name` names it on its own map):

    >>> Position.initial().unit_in("LON")
    <Unit ENG F LON>
    """

    power: str
    type: int
    location: int

    def __repr__(self) -> str:
        letter = UNIT_LETTERS[self.type] if self.type in (ARMY, FLEET) else f"?{self.type}"
        names = standard_map().locations
        place = names[self.location] if 0 <= self.location < len(names) else f"#{self.location}"
        return f"<Unit {self.power} {letter} {place}>"


def named_unit(power: str, order: object) -> Unit:
    """The unit an order names, as written (for reporting orders to absent units)."""
    unit_type = getattr(order, "type", None)
    return Unit(power, ARMY if unit_type is None else unit_type, getattr(order, "location", -1))


@dataclass(frozen=True, slots=True)
class Dislodged:
    """A unit dislodged in the last movement phase and the locations it may retreat to."""

    unit: Unit
    retreats: frozenset[int]


@dataclass(frozen=True)
class Position:
    """Everything the rules need to play the next phase.

    ``centers`` holds, for each province, the power owning it (``None`` for a
    province that is no supply centre or is unowned). A position is a value: the
    adjudicator returns a new one and never changes the old.
    """

    map: Map = field(repr=False)
    phase: Phase
    units: tuple[Unit, ...]
    centers: tuple[str | None, ...] = field(repr=False)
    dislodged: tuple[Dislodged, ...] = ()
    completed: bool = False

    @classmethod
    def initial(cls, m: Map | None = None) -> Position:
        """The starting position of a map (the standard one by default)."""
        m = m or standard_map()
        units = tuple(Unit(power, unit_type, loc) for power, unit_type, loc in m.starting_units)
        centers: list[str | None] = [None] * len(m.locations)
        for power, homes in m.homes.items():
            for p in homes:
                centers[p] = power
        return cls(m, Phase(m.first_year, "S", MOVEMENT), units, tuple(centers))

    @classmethod
    def build(
        cls,
        phase: str | Phase,
        units: Mapping[str, Iterable[str]],
        centers: Mapping[str, Iterable[str]] | None = None,
        dislodged: Mapping[str, tuple[str, Iterable[str]]] | None = None,
        m: Map | None = None,
    ) -> Position:
        """A position from names: ``units={"ENGLAND": ["F LON", "A LVP"]}``.

        ``dislodged`` maps a unit name to ``(power, retreat location names)``.
        Powers may be full names or DAIDE abbreviations.
        """
        m = m or standard_map()
        phase = phase if isinstance(phase, Phase) else Phase.parse(phase)
        placed = tuple(parse_unit(m, _power(m, power), name) for power, names in units.items() for name in names)
        owners: list[str | None] = [None] * len(m.locations)
        for power, names in (centers or {}).items():
            for name in names:
                owners[m.province_of[_location(m, name)]] = _power(m, power)
        gone = tuple(
            Dislodged(parse_unit(m, _power(m, power), name), frozenset(_location(m, r) for r in retreats))
            for name, (power, retreats) in (dislodged or {}).items()
        )
        seen: set[int] = set()
        for unit in placed:
            province = m.province_of[unit.location]
            if province in seen:
                raise ValueError(f"two units in {m.name_of(province)}")
            seen.add(province)
        for p in (p for p, owner in enumerate(owners) if owner is not None):
            if not m.is_supply_center[p]:
                raise ValueError(f"{m.name_of(p)} is no supply centre")
        return cls(m, phase, placed, tuple(owners), gone)

    def same_board(self, other: Position) -> bool:
        """Whether ``other`` holds the same phase, units, dislodged units and centres in
        whatever order it lists them: a position read back from JSON lists its units by
        power, the adjudicator as it moved them, and ``==`` compares the lists.

        >>> p = Position.initial()
        >>> q = Position(p.map, p.phase, p.units[::-1], p.centers)
        >>> p == q, p.same_board(q)
        (False, True)
        """
        return (
            self.map == other.map
            and self.phase == other.phase
            and self.completed == other.completed
            and self.centers == other.centers
            and set(self.units) == set(other.units)
            and set(self.dislodged) == set(other.dislodged)
        )

    # --- looking at the board ----------------------------------------------------------

    @functools.cached_property
    def unit_at(self) -> dict[int, Unit]:
        """Province -> the unit in it."""
        province = self.map.province_of
        return {province[u.location]: u for u in self.units}

    def unit_in(self, name: str) -> Unit | None:
        """The unit in the province called ``name``, if any."""
        return self.unit_at.get(self.map.province_of[self.map.location(name)])

    def unit_name(self, unit: Unit) -> str:
        """``"A PAR"``, ``"F STP/SC"``."""
        return f"{UNIT_LETTERS[unit.type]} {self.map.name_of(unit.location)}"

    def units_of(self, power: str) -> tuple[Unit, ...]:
        return tuple(u for u in self.units if u.power == power)

    def centers_of(self, power: str) -> tuple[str, ...]:
        """The names of the supply centres ``power`` owns, sorted."""
        names = self.map.locations
        return tuple(sorted(names[p] for p, owner in enumerate(self.centers) if owner == power))

    @functools.cached_property
    def center_counts(self) -> dict[str, int]:
        counts = dict.fromkeys(self.map.powers, 0)
        for owner in self.centers:
            if owner is not None:
                counts[owner] += 1
        return counts

    @functools.cached_property
    def adjustments(self) -> dict[str, int]:
        """Power -> builds allowed (positive) or removals owed (negative) this winter.

        A power with more centres than units but no free home centre has nothing to do
        and is left out, as is a power whose counts are equal.
        """
        units = dict.fromkeys(self.map.powers, 0)
        for u in self.units:
            units[u.power] += 1
        occupied = self.unit_at
        result = {}
        for power in self.map.powers:
            delta = self.center_counts[power] - units[power]
            if delta > 0:
                free = sum(1 for p in self.map.homes.get(power, ()) if self.centers[p] == power and p not in occupied)
                delta = min(delta, free)
            if delta:
                result[power] = delta
        return result

    @property
    def winner(self) -> str | None:
        """The power owning enough centres to win, if any."""
        for power, count in self.center_counts.items():
            if count >= self.map.victory_centers:
                return power
        return None

    # --- as plain data -----------------------------------------------------------------

    @classmethod
    def from_json(cls, data: Mapping[str, Any], m: Map | None = None, played: Phase | None = None) -> Position:
        """The position that :meth:`to_json` wrote. A finished game's ``COMPLETED`` names no
        phase: given the phase ``played`` that ended the game, it is the completed position
        of that year's winter, as :class:`engine.Game` leaves it; without it, ``ValueError``.

        >>> start = Position.initial()
        >>> Position.from_json(start.to_json()) == start
        True
        >>> over = Position.from_json({**start.to_json(), "phase": "COMPLETED"}, played=Phase.parse("F1907M"))
        >>> over.completed, str(over.phase)
        (True, 'W1907A')
        """
        dislodged = {name: (d["power"], d["retreats"]) for name, d in data.get("dislodged", {}).items()}
        phase = data["phase"]
        if phase == "COMPLETED" and played is not None:
            winter = Phase(played.year, "W", ADJUSTMENTS)
            built = cls.build(winter, data["units"], data.get("centers", {}), dislodged, m)
            return cls(built.map, winter, built.units, built.centers, built.dislodged, completed=True)
        return cls.build(phase, data["units"], data.get("centers", {}), dislodged, m)

    def to_json(self) -> dict:
        """The position as the adjudication-case JSON writes it (without ``results``): its
        powers by their full names, as the game files write them."""
        names, full = self.map.locations, self.map.power_names
        units: dict[str, list[str]] = {}
        for u in self.units:
            units.setdefault(full[u.power], []).append(self.unit_name(u))
        centers: dict[str, list[str]] = {}
        for p, owner in enumerate(self.centers):
            if owner is not None:
                centers.setdefault(full[owner], []).append(names[p])
        return {
            "phase": "COMPLETED" if self.completed else str(self.phase),
            "units": units,
            "centers": centers,
            "dislodged": {
                self.unit_name(d.unit): {"power": full[d.unit.power], "retreats": sorted(names[r] for r in d.retreats)}
                for d in self.dislodged
            },
        }


def _power(m: Map, name: str) -> str:
    try:
        return m.power(name)
    except KeyError:
        raise ValueError(f"unknown power {name!r}") from None


def _location(m: Map, name: str) -> int:
    try:
        return m.location(name)
    except KeyError:
        raise ValueError(f"unknown province {name!r}") from None


def parse_unit(m: Map, power: str, name: str) -> Unit:
    """``parse_unit(m, "FRA", "F SPA/SC")``."""
    letter, _, place = name.strip().partition(" ")
    if letter.upper() not in ("A", "F") or not place:
        raise ValueError(f"not a unit: {name!r} (expected e.g. 'A PAR' or 'F STP/NC')")
    try:
        location = m.location(place)
    except KeyError:
        raise ValueError(f"unknown province in {name!r}") from None
    province = m.province_of[location]
    if letter.upper() == "A":
        if m.kind[province] == SEA:
            raise ValueError(f"an army cannot stand at sea: {name!r}")
        return Unit(power, ARMY, province)
    if m.kind[province] == LAND:
        raise ValueError(f"a fleet cannot stand inland: {name!r}")
    if m.coasts[province] and location == province:
        raise ValueError(f"a fleet there must name its coast: {name!r}")
    return Unit(power, FLEET, location)

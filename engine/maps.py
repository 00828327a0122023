"""Maps: provinces, coasts, adjacency and home centres, loaded from a map file.

Every place a unit can stand is a *location*, numbered from 0. The first locations
are the provinces themselves, in the order of the map file; the coasts of
multi-coast provinces (``STP/NC``, ``SPA/SC``, ...) come after them. A province is
identified by the number of its own location, so ``map.province_of[loc]`` turns
any location into its province.

>>> from engine.maps import standard_map
>>> m = standard_map()
>>> len(m.provinces), len(m.supply_centers)
(75, 34)
>>> m.name_of(m.location("stp/nc"))
'STP/NC'
>>> sorted(m.name_of(loc) for loc in m.fleet_moves[m.location("MAO")] if m.province_of[loc] == m.location("SPA"))
['SPA/NC', 'SPA/SC']

A power is named by its token, the three letters the map file keys it by; the full name is
what the game files write:

>>> m.powers
('AUS', 'ENG', 'FRA', 'GER', 'ITA', 'RUS', 'TUR')
>>> m.power("England"), m.power("eng"), m.power_names["ENG"]
('ENG', 'ENG', 'ENGLAND')
"""

from __future__ import annotations

import functools
import os
import re
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

ARMY = 0
FLEET = 1
UNIT_LETTERS = ("A", "F")

_COAST_ALIASES = {"NC": "NC", "NCS": "NC", "SC": "SC", "SCS": "SC", "EC": "EC", "ECS": "EC", "WC": "WC", "WCS": "WC"}
_DAIDE_COAST = {"NC": "NCS", "SC": "SCS", "EC": "ECS", "WC": "WCS"}

LAND = 0
COAST = 1
SEA = 2


class MapError(ValueError):
    """A map file that cannot be read as a map."""


@dataclass(frozen=True, eq=False)
class Map:
    """The board: immutable, integer-indexed, and shared by every position on it."""

    name: str
    victory_centers: int
    first_year: int
    powers: tuple[str, ...]
    power_names: dict[str, str]
    locations: tuple[str, ...]
    province_of: tuple[int, ...]
    provinces: tuple[int, ...]
    english_names: tuple[str, ...]
    kind: tuple[int, ...]
    coasts: tuple[tuple[int, ...], ...]
    army_moves: tuple[frozenset[int], ...]
    fleet_moves: tuple[frozenset[int], ...]
    supply_centers: tuple[int, ...]
    homes: dict[str, tuple[int, ...]]
    starting_units: tuple[tuple[str, int, int], ...]
    aliases: dict[str, int]
    description: str = ""  # one line for people choosing a map ([variant] description=)

    # --- names -----------------------------------------------------------------

    def location(self, name: str) -> int:
        """The location named ``name`` (``"PAR"``, ``"stp/nc"``, ``"STP NCS"``, an alias).

        A coast that the province does not have is dropped (DATC 4.B.6: an unknown
        coast is ignored), so ``"BRE/EC"`` is Brest. Raises ``KeyError`` for an
        unknown province.
        """
        return self._location_index(name.strip().upper())

    @functools.cached_property
    def _names(self) -> dict[str, int]:
        names = {n: i for i, n in enumerate(self.locations)}
        names.update(self.aliases)
        return names

    @functools.cache  # noqa: B019 - maps live as long as the process
    def _location_index(self, name: str) -> int:
        found = self._names.get(name)
        if found is not None:
            return found
        match = re.fullmatch(r"([A-Z]{3})\s*(?:/|\s|\()\s*([A-Z]{2,3})\)?", name)
        if match is None:
            raise KeyError(name)
        province = self._names[match.group(1)]
        coast = _COAST_ALIASES.get(match.group(2))
        if coast is not None:
            found = self._names.get(f"{self.locations[province]}/{coast}")
            if found is not None:
                return found
        return province

    def name_of(self, location: int) -> str:
        """The DAIDE name of a location: ``"PAR"``, ``"STP/NC"``."""
        return self.locations[location]

    def daide_location(self, location: int) -> str:
        """A location as DAIDE writes it: ``PAR`` or ``( STP NCS )``."""
        province = self.province_of[location]
        if province == location:
            return self.locations[location]
        coast = self.locations[location].split("/")[1]
        return f"( {self.locations[province]} {_DAIDE_COAST[coast]} )"

    def power(self, name: str) -> str:
        """The power called ``name``: its token, from the token in either case (DAIDE's
        ``ENG``, L's ``eng``) or the full name the game files write (``ENGLAND``).

        A power is its token everywhere inside the code; the full names are for the files.
        """
        key = name.strip().upper()
        found = self._power_spellings.get(key)
        if found is None:
            raise KeyError(name)
        return found

    @functools.cached_property
    def _power_spellings(self) -> dict[str, str]:
        spellings = {full: token for token, full in self.power_names.items()}
        spellings.update((token, token) for token in self.powers)
        return spellings

    # --- derived geography -----------------------------------------------------------

    @functools.cached_property
    def is_supply_center(self) -> tuple[bool, ...]:
        centers = set(self.supply_centers)
        return tuple(p in centers for p in range(len(self.locations)))

    @functools.cached_property
    def home_of(self) -> tuple[str | None, ...]:
        """The power whose home centre a province is, or None."""
        owner: list[str | None] = [None] * len(self.locations)
        for power, provinces in self.homes.items():
            for p in provinces:
                owner[p] = power
        return tuple(owner)

    @functools.cached_property
    def fleet_reach(self) -> tuple[frozenset[int], ...]:
        """The provinces a fleet at each location can move to (any coast of them)."""
        return tuple(frozenset(self.province_of[d] for d in dests) for dests in self.fleet_moves)

    @functools.cached_property
    def reach(self) -> tuple[tuple[frozenset[int], ...], tuple[frozenset[int], ...]]:
        """``reach[unit_type][location]``: the provinces such a unit can move to."""
        return (self.army_moves, self.fleet_reach)

    @functools.cached_property
    def sorted_reach(self) -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]:
        """``reach`` with each set as a sorted tuple, for output in a stable order."""
        return tuple(tuple(tuple(sorted(r)) for r in by_type) for by_type in self.reach)  # type: ignore[return-value]

    @functools.cached_property
    def seas_touching(self) -> tuple[frozenset[int], ...]:
        """For each province, the sea provinces a fleet there could sail to or from."""
        touching: list[set[int]] = [set() for _ in self.locations]
        for loc, dests in enumerate(self.fleet_moves):
            here = self.province_of[loc]
            for d in dests:
                there = self.province_of[d]
                if self.kind[there] == SEA:
                    touching[here].add(there)
        return tuple(frozenset(s) for s in touching)

    @functools.cached_property
    def shores(self) -> tuple[frozenset[int], ...]:
        """For each sea province, the coastal provinces it touches (empty for others)."""
        shores: list[set[int]] = [set() for _ in self.locations]
        for p, seas in enumerate(self.seas_touching):
            if self.kind[p] == COAST and self.province_of[p] == p:
                for sea in seas:
                    shores[sea].add(p)
        return tuple(frozenset(s) for s in shores)

    @functools.cached_property
    def distances(self) -> tuple[tuple[int, ...], ...]:
        """Moves between provinces over land and sea alike (DATC 4.D.8, 2023 rules):
        ``unit_distances(None)``."""
        return self.unit_distances(None)

    @functools.cache  # noqa: B019 - maps live as long as the process
    def within(self, moves: int) -> tuple[frozenset[int], ...]:
        """For each province, the provinces (and coasts) at most ``moves`` moves away, over land
        and sea alike (:attr:`distances`), itself included.

        >>> m = standard_map()
        >>> L = m.location
        >>> sorted(m.name_of(q) for q in m.within(1)[L("SPA")] if m.province_of[q] == q)
        ['GAS', 'GOL', 'MAO', 'MAR', 'POR', 'SPA', 'WES']
        """
        return tuple(frozenset(q for q, d in enumerate(row) if 0 <= d <= moves) for row in self.distances)

    @functools.cache  # noqa: B019 - maps live as long as the process
    def unit_distances(self, unit_type: int | None, *, coasts: bool = False) -> tuple[tuple[int, ...], ...]:
        """``table[start][province]``: the fewest moves a unit of ``unit_type`` needs from
        ``start`` to ``province`` (to any coast of it), -1 where it can never get there.

        ``unit_type`` is ``ARMY``, ``FLEET`` or ``None`` for any unit (each move an army's or a
        fleet's, as a convoy's route or the DATC's distance to home takes them). With
        ``coasts=False`` a province's coasts are one place (a fleet leaves it by any of them),
        and ``start`` is a province: the rows of coast locations are all -1. With
        ``coasts=True`` a unit stays on the coast it came to, and ``start`` is any location
        (a fleet on ``STP/NC`` is not on ``STP/SC``). A table is computed once per map.

        >>> m = standard_map()
        >>> L = m.location
        >>> m.unit_distances(FLEET)[L("STP")][L("BOT")], m.unit_distances(FLEET, coasts=True)[L("STP/NC")][L("BOT")]
        (1, 3)
        >>> m.unit_distances(ARMY)[L("PAR")][L("MOS")], m.unit_distances(ARMY)[L("PAR")][L("LON")]
        (5, -1)
        >>> m.unit_distances(None)[L("PAR")][L("LON")], m.unit_distances(None) is m.distances
        (3, True)
        """
        n = len(self.locations)
        province_of = self.province_of
        if unit_type is None:
            kinds = (self.army_moves, self.fleet_moves)
        else:
            kinds = (self.army_moves if unit_type == ARMY else self.fleet_moves,)
        neighbours: list[set[int]] = [set() for _ in range(n)]
        for moves in kinds:
            for loc, dests in enumerate(moves):
                if coasts:
                    neighbours[loc].update(dests)
                else:
                    neighbours[province_of[loc]].update(province_of[d] for d in dests)
        table = []
        for start in range(n):
            dist = [-1] * n
            if coasts or province_of[start] == start:
                dist[start] = 0
                queue = deque([start])
                while queue:
                    here = queue.popleft()
                    for there in neighbours[here]:
                        if dist[there] < 0:
                            dist[there] = dist[here] + 1
                            queue.append(there)
            if coasts:  # to a province: to the nearest of its locations
                row = [-1] * n
                for loc, d in enumerate(dist):
                    p = province_of[loc]
                    if d >= 0 and (row[p] < 0 or d < row[p]):
                        row[p] = d
                dist = row
            table.append(tuple(dist))
        return tuple(table)


# --- the file format ---------------------------------------------------------------


def _sections(text: str) -> dict[str, list[tuple[str, str]]]:
    sections: dict[str, list[tuple[str, str]]] = {}
    current: list[tuple[str, str]] | None = None
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1].strip().lower(), [])
            continue
        if current is None or "=" not in line:
            shown = raw if len(raw) <= 60 else f"{raw[:60]}..."
            raise MapError(f"line {number}: expected [section] or KEY=VALUE, got {shown!r}")
        key, value = line.split("=", 1)
        current.append((key.strip().upper(), value.strip()))
    return sections


def _parse_borders(spec: str) -> list[tuple[str | None, str | None, list[tuple[str, str | None]]]]:
    """Split ``AMY A B, FLT C (D NCS), (FLT NCS) E`` into (unit, from-coast, destinations)."""
    groups = []
    for part in spec.split(","):
        tokens = re.findall(r"\([^)]*\)|[A-Z]+", part.upper())
        if not tokens:
            continue
        head = tokens[0]
        if head.startswith("("):
            unit, coast = head[1:-1].split()
        else:
            unit, coast = head, None
        if unit not in ("AMY", "FLT"):
            raise MapError(f"border group must start with AMY or FLT: {part!r}")
        dests: list[tuple[str, str | None]] = []
        for token in tokens[1:]:
            if token.startswith("("):
                province, dest_coast = token[1:-1].split()
                dests.append((province, _COAST_ALIASES[dest_coast]))
            else:
                dests.append((token, None))
        groups.append((unit, _COAST_ALIASES[coast] if coast else None, dests))
    return groups


def _resolved(text: str, read: Callable[[str], str] | None, depth: int = 0) -> dict[str, list[tuple[str, str]]]:
    """The sections of a map file, those it lacks taken from its ``[variant] base=`` (read by
    ``read``, a map's name -> its text); the ``[variant]`` keys of both, its own first."""
    sections = _sections(text)
    base = dict(sections.get("variant", [])).get("BASE")
    if base is None:
        return sections
    if read is None or depth > 4:
        raise MapError(f"a map based on {base!r} needs the maps it is based on (at most 4 deep)")
    inherited = _resolved(read(base.lower()), read, depth + 1)
    own = dict(sections.get("variant", []))
    merged = {**inherited, **sections}
    merged["variant"] = [(k, v) for k, v in {**dict(inherited.get("variant", [])), **own}.items() if k != "BASE"]
    return merged


def parse_map(text: str, read: Callable[[str], str] | None = None) -> Map:
    """Build a :class:`Map` from the text of a map file (see ``engine/data/standard.map``);
    ``read`` gives the text of the map a variant file names as its ``base``."""
    sections = _resolved(text, read)
    for required in ("powers", "provinces", "homes", "positions", "borders"):
        if required not in sections:
            raise MapError(f"map file has no [{required}] section")
    variant = dict(sections.get("variant", []))
    start = variant.get("START", "SPR 1901").split()
    names = {short: full.split(",")[0].strip().upper() for short, full in sections["powers"]}
    province_names = [short for short, _ in sections["provinces"]]
    english = {short: name for short, name in sections["provinces"]}
    index = {name: i for i, name in enumerate(province_names)}

    borders = {short: _parse_borders(spec) for short, spec in sections["borders"]}
    coast_names: list[str] = []
    for province in province_names:
        for _, coast, dests in borders.get(province, []):
            if coast and f"{province}/{coast}" not in coast_names:
                coast_names.append(f"{province}/{coast}")
            for dest, dest_coast in dests:
                if dest_coast and f"{dest}/{dest_coast}" not in coast_names:
                    coast_names.append(f"{dest}/{dest_coast}")
    locations = province_names + sorted(coast_names)
    loc_index = {name: i for i, name in enumerate(locations)}
    province_of = [index[name.split("/")[0]] for name in locations]
    n = len(locations)
    army: list[set[int]] = [set() for _ in range(n)]
    fleet: list[set[int]] = [set() for _ in range(n)]
    for province, groups in borders.items():
        if province not in index:
            raise MapError(f"borders of unknown province {province}")
        for unit, coast, dests in groups:
            src = loc_index[f"{province}/{coast}"] if coast else index[province]
            for dest, dest_coast in dests:
                if dest not in index:
                    raise MapError(f"{province} borders unknown province {dest}")
                target = loc_index[f"{dest}/{dest_coast}"] if dest_coast else index[dest]
                (army if unit == "AMY" else fleet)[src].add(target)

    kind = []
    for p in range(n):
        if province_of[p] != p:
            kind.append(COAST)
            continue
        locs = [loc for loc in range(n) if province_of[loc] == p]
        has_fleet = any(fleet[loc] for loc in locs)
        kind.append(SEA if has_fleet and not army[p] else COAST if has_fleet else LAND)
    coasts = tuple(tuple(loc for loc in range(n) if province_of[loc] == p and loc != p) for p in range(n))

    homes: dict[str, tuple[int, ...]] = {}
    centers: list[int] = []
    for short, spec in sections["homes"]:
        provinces = [index[x.strip().upper()] for x in spec.split(",") if x.strip()]
        centers.extend(provinces)
        if short != "UNO":
            homes[short] = tuple(provinces)
    starting = []
    for short, spec in sections["positions"]:
        for item in spec.split(","):
            words = item.split()
            if not words:
                continue
            unit_type = ARMY if words[0].upper() == "AMY" else FLEET
            name = words[1].upper() + (f"/{_COAST_ALIASES[words[2].upper()]}" if len(words) > 2 else "")
            starting.append((short, unit_type, loc_index[name]))
    aliases = {short: loc_index[target.strip().upper()] for short, target in sections.get("aliases", [])}
    return Map(
        name=variant.get("NAME", "unnamed"),
        victory_centers=int(variant.get("VICTORY", len(set(centers)) // 2 + 1)),
        first_year=int(start[1]) if len(start) > 1 else 1901,
        powers=tuple(names),
        power_names=names,
        locations=tuple(locations),
        province_of=tuple(province_of),
        provinces=tuple(range(len(province_names))),
        english_names=tuple(english[name.split("/")[0]] for name in locations),
        kind=tuple(kind),
        coasts=coasts,
        army_moves=tuple(frozenset(s) for s in army),
        fleet_moves=tuple(frozenset(s) for s in fleet),
        supply_centers=tuple(sorted(set(centers))),
        homes=homes,
        starting_units=tuple(starting),
        aliases=aliases,
        description=variant.get("DESCRIPTION", ""),
    )


def load_map(path: str | Path) -> Map:
    """Read a map file (a ``base`` it names is one of the shipped maps, or a file beside it)."""
    path = Path(path)

    def read(name: str) -> str:
        beside = path.with_name(f"{name}.map")
        return _read_text(beside) if beside.exists() else _shipped_text(name)

    return parse_map(_read_text(path), read)


MAX_MAP_BYTES = 1 << 20
"""The largest map file read (the standard map's is 6 KB): a bound on what a mistyped path costs."""


def _read_text(path: Path) -> str:
    with path.open("rb") as file:
        data = file.read(MAX_MAP_BYTES + 1)
    if len(data) > MAX_MAP_BYTES:
        raise MapError(f"{path.name} is larger than a map file may be ({MAX_MAP_BYTES >> 20} MiB)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise MapError(f"{path.name} is not a text file (UTF-8): byte {e.start} is {data[e.start]:#04x}") from None


_MAP_NAME = re.compile(r"[a-z][a-z0-9_]{0,31}")


# Maps read from files the user named (``--map FILE``), by name: a game names its map, and
# every part of one process (servers, bots, formats) finds it here as it finds a shipped one.
_ADDED: dict[str, Map] = {}
_added_from: dict[str, Path] = {}


def map_names() -> tuple[str, ...]:
    """The names of the maps a game may name, sorted: those shipped with the engine
    (``engine/data/NAME.map``) and those added from files with :func:`add_map_file`."""
    return tuple(sorted({*_shipped_names(), *_ADDED}))


@functools.cache
def _shipped_names() -> frozenset[str]:
    folder = resources.files("engine").joinpath("data")
    return frozenset(p.name[: -len(".map")] for p in folder.iterdir() if p.name.endswith(".map"))


def power_names() -> dict[str, str]:
    """Every power of every map a game may name, token -> full name (``ENG`` -> ``ENGLAND``):
    what reads a power's full name without its game's map at hand (the feed's notices, the
    API). A token names one power on every map that has it; the first map (by name) says its
    full name.

    >>> power_names()["FRA"]
    'FRANCE'
    """
    return _power_names(map_names())


def power_spellings() -> dict[str, str]:
    """Every power of every map a game may name, by its token and by its full name -> its token.

    >>> power_spellings()["FRANCE"], power_spellings()["FRA"]
    ('FRA', 'FRA')
    """
    return _power_spellings(map_names())


# keyed by the names of the maps: a map file added while the process runs makes a new table
@functools.cache
def _power_names(names: tuple[str, ...]) -> dict[str, str]:
    merged: dict[str, str] = {}
    for name in names:
        for token, full in variant_map(name).power_names.items():
            merged.setdefault(token, full)
    return merged


@functools.cache
def _power_spellings(names: tuple[str, ...]) -> dict[str, str]:
    return {**{full: token for token, full in _power_names(names).items()}, **{t: t for t in _power_names(names)}}


def map_named(text: str) -> Map:
    """The map a user names (``--map``): a map's name (:func:`map_names`), or the path of a map
    file, which is read and added (:func:`add_map_file`); :class:`MapError` in one line.

    >>> map_named("pure").name
    'pure'
    >>> map_named("no-such.map")
    Traceback (most recent call last):
    ...
    engine.maps.MapError: cannot read the map file no-such.map: No such file or directory
    """
    if text.endswith(".map") or "/" in text or os.sep in text:
        return add_map_file(text)
    return variant_map(text)


def _shipped_text(name: str) -> str:
    if not _MAP_NAME.fullmatch(name) or name not in _shipped_names():
        raise MapError(f"unknown map {name!r}: the maps are {', '.join(map_names())}")
    return resources.files("engine").joinpath(f"data/{name}.map").read_text(encoding="utf-8")


def variant_map(name: str) -> Map:
    """The map called ``name``: a shipped one or one added from a file (see
    :func:`map_names`); :class:`MapError` in one line for a name that is none of them.

    >>> variant_map("fleet_rome").name, variant_map("pure").victory_centers
    ('fleet_rome', 4)
    """
    added = _ADDED.get(name)
    return added if added is not None else _shipped_map(name)


@functools.cache
def _shipped_map(name: str) -> Map:
    m = parse_map(_shipped_text(name), _shipped_text)
    if m.name != name:
        raise MapError(f"engine/data/{name}.map calls itself {m.name!r}")
    return m


def add_map_file(path: str | Path) -> Map:
    """Read a map file and let games name it (:func:`variant_map` finds it by the ``name`` of
    its ``[variant]``). A name that is a shipped map's, or another file's, is refused with
    :class:`MapError`; the same file added twice is the same map.

    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "again.map").write_text("[variant]\\nbase=standard\\nname=pure\\n")
    >>> add_map_file(folder / "again.map")
    Traceback (most recent call last):
    ...
    engine.maps.MapError: again.map calls itself 'pure', the name of a shipped map
    """
    path = Path(path)
    try:
        m = load_map(path)
    except OSError as e:
        raise MapError(f"cannot read the map file {path}: {e.strerror or e}") from None
    if not _MAP_NAME.fullmatch(m.name):
        raise MapError(
            f"{path.name}: a map's name is 1 to 32 small letters, digits or _, first a letter; not {m.name!r}"
        )
    if m.name not in _ADDED and m.name in map_names():
        raise MapError(f"{path.name} calls itself {m.name!r}, the name of a shipped map")
    known = _ADDED.get(m.name)
    if known is not None and _added_from.get(m.name) != path.resolve():
        raise MapError(f"{path.name} calls itself {m.name!r}, as {_added_from[m.name]} does")
    if known is None:
        _ADDED[m.name] = m
        _added_from[m.name] = path.resolve()
    return _ADDED[m.name]


def standard_map() -> Map:
    """The standard map of 1901 Europe, shipped with the engine."""
    return variant_map("standard")

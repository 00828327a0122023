"""A map's names as :meth:`engine.Position.to_json` writes them, made once per map, and a
position's units and dislodged units written from them: the saved-game reader and the
adjudication cases write a position every phase, so neither names a unit twice. Like
``to_json``, they write each power by its full name (``"ENGLAND"``), as the files do.

>>> from engine import Position
>>> start = Position.initial()
>>> names = MapNames(start.map)
>>> names.units_json(start) == start.to_json()["units"]
True
>>> names.centres_json(start) == start.to_json()["centers"]
True
>>> standing = {names.units[u.type][u.location] for u in names.standing()}
>>> ("F STP/NC" in standing, "F STP" in standing, "A MAO" in standing)  # a fleet on a coast, no army at sea
(True, False, False)
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from engine.maps import UNIT_LETTERS, Map
from engine.position import Position, Unit, parse_unit


class MapNames:
    """Names by unit and location on one map."""

    def __init__(self, m: Map) -> None:
        count = len(m.locations)
        self.map = m
        #: a power (its token) -> its full name, as the files write it
        self.power_names = m.power_names
        #: unit type -> location -> the unit's name, as :meth:`Position.unit_name` writes it (a
        #: dict: no location -1 in it)
        self.units = [{loc: f"{letter} {m.name_of(loc)}" for loc in range(count)} for letter in UNIT_LETTERS]
        self.places = list(m.locations)
        self.centres = [p for p in range(count) if m.is_supply_center[p]]
        # the last centres written, (owners, as JSON): one attribute, set in one step, as the
        # server reads games in threads
        self._last_centres: tuple[tuple[str | None, ...] | None, dict[str, list[str]]] = (None, {})

    def standing(self) -> Iterator[Unit]:
        """Every unit that can stand on the map, of no power (``""``)."""
        for letter in UNIT_LETTERS:
            for name in self.places:
                try:
                    yield parse_unit(self.map, "", f"{letter} {name}")
                except ValueError:
                    continue

    def units_json(self, position: Position) -> dict[str, list[str]]:
        """``position.to_json()["units"]``: power -> its units' names (every list a new one)."""
        names = self.units
        full = self.power_names
        units: dict[str, list[str]] = {}
        for u in position.units:
            power = full[u.power]
            if power in units:
                units[power].append(names[u.type][u.location])
            else:
                units[power] = [names[u.type][u.location]]
        return units

    def centres_json(self, position: Position) -> dict[str, list[str]]:
        """``position.to_json()["centers"]``: power -> its centres' names. The same dict again
        (do not change it) while the owners are the very same tuple, as the adjudicator hands
        it on while no centre changes hands."""
        owners = position.centers
        last, written = self._last_centres
        if owners is not last:
            written = {}
            places = self.places
            full = self.power_names
            for p in self.centres:
                owner = owners[p]
                if owner is not None:
                    name = full[owner]
                    if name in written:
                        written[name].append(places[p])
                    else:
                        written[name] = [places[p]]
            self._last_centres = (owners, written)
        return written

    def dislodged_json(self, position: Position) -> dict[str, Any]:
        """``position.to_json()["dislodged"]``: a dislodged unit's name -> its power and retreats."""
        if not position.dislodged:
            return {}
        names = self.units
        places = self.places
        return {
            names[d.unit.type][d.unit.location]: {
                "power": self.power_names[d.unit.power],
                "retreats": sorted(places[r] for r in d.retreats),
            }
            for d in position.dislodged
        }

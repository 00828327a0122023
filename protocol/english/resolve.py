"""Units and places in words, made L units and regions against the position when there is one.

"my army in Paris" must be a unit that exists when the position is known; without one it
is built from the words, and the words must say (or the map imply) what it is. A
:class:`Scene` that is not ``strict`` guesses where a strict one asks: that is how the
closest L to a sentence that is not quite right is built.

>>> from engine import Position
>>> from engine.maps import standard_map
>>> scene = Scene("FRA", "GER", Names.of(standard_map()), Position.initial())
>>> str(scene.unit(UnitWords("FRA", None, Place("bre")), agent="FRA"))
'Unit(fra, Region(bre, coast))'
>>> scene.unit(UnitWords("FRA", "army", Place("bre")), agent="FRA")
Traceback (most recent call last):
...
protocol.english.resolve.Misunderstanding: your unit in Brest is a fleet, not an army
>>> str(scene.region(a.Unit("tur", a.Region("bla", "sea")), Place("bul")))  # the one coast it can reach
'Region(bul, ecs)'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.maps import FLEET, LAND, SEA, Map
from engine.position import Position
from protocol.english.names import Names
from protocol.l import ast as a
from protocol.l.actions import region_to_location, unit_from_engine

__all__ = ["AGENT", "Misunderstanding", "Place", "Scene", "UnitWords", "kind_of"]

#: The owner of "its army": the power that the clause is about, known only with the clause.
AGENT = "its"

_KIND = {"amy": "army"}


def _a(kind: str) -> str:
    return f"an {kind}" if kind == "army" else f"a {kind}"


class Misunderstanding(Exception):
    """Words that name something that is not there, or not only one thing: the reason, for a person."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Place:
    """A province, and the coast when one was named (``ncs``, ``scs``, ``ecs``, ``wcs``)."""

    province: str
    coast: str | None = None


@dataclass(frozen=True, slots=True)
class UnitWords:
    """A unit as said: its owner (a power, :data:`AGENT`, or None when unsaid), ``army``,
    ``fleet`` or None, and its place."""

    owner: str | None
    kind: str | None
    place: Place


def kind_of(unit: a.Unit) -> str:
    """``army`` or ``fleet``."""
    return _KIND.get(unit.region.rtype, "fleet")


@dataclass(frozen=True)
class Scene:
    """The conversation (``me`` writes to ``you``, both powers), the map's names,
    the position if known, whether to ask (``strict``) or to guess, and the orders that the
    rest of the message plans (``planned``: "I move to Belgium and you support me")."""

    me: str
    you: str
    names: Names
    position: Position | None
    strict: bool = True
    planned: tuple[a.Action, ...] = ()

    @property
    def map(self) -> Map:
        return self.names.map

    # --- words for the person ---------------------------------------------------------

    def whose(self, power: str) -> str:
        return "your" if power == self.me else f"{self.names.power(power)}'s"

    def describe(self, unit: a.Unit) -> str:
        return f"{self.whose(unit.power)} {kind_of(unit)} in {self.names.province(unit.region.province)}"

    def ask(self, reason: str) -> None:
        """Raise the question when strict; a guessing scene goes on with its guess."""
        if self.strict:
            raise Misunderstanding(reason)

    # --- units ----------------------------------------------------------------------------

    def unit(
        self, words: UnitWords, agent: str | None, default_owner: str | None = None, reaching: str | None = None
    ) -> a.Unit:
        """The unit the words name; "its" is ``agent``'s, and an unsaid owner is found on the
        board or else is ``default_owner``. Off the board, an unsaid kind is the one the map
        implies, or the one that can move to ``reaching`` ("support me from Picardy into Burgundy")."""
        owner = agent if words.owner == AGENT else words.owner
        if words.owner == AGENT and agent is None:
            raise Misunderstanding("whose unit is 'its'?")
        place = self.names.province(words.place.province)
        said = words.kind or "unit"
        if self.position is not None:
            found = [u for u in self._units_in(words.place.province) if owner is None or u.power == owner]
            if found:
                unit = found[0]
                if words.kind is not None and kind_of(unit) != words.kind:
                    self.ask(f"{self.whose(unit.power)} unit in {place} is {_a(kind_of(unit))}, not {_a(said)}")
                return unit
            self.ask(
                f"there is no {said} in {place}"
                if owner is None
                else f"{'you have' if owner == self.me else self.names.power(owner) + ' has'} no {said} in {place}"
            )
        owner = owner or default_owner
        if owner is None:
            raise Misunderstanding(f"whose {said} in {place}?")
        kind = words.kind or self._kind_in(words.place.province, reaching)
        return a.Unit(owner, self._region(kind, words.place, f"{self.whose(owner)} {kind} in {place}"))

    def _units_in(self, province: str) -> list[a.Unit]:
        """The units in a province, the dislodged ones last."""
        assert self.position is not None
        m = self.map
        p = m.province_of[m.location(province)]
        here = [u for u in self.position.units if m.province_of[u.location] == p]
        here += [d.unit for d in self.position.dislodged if m.province_of[d.unit.location] == p]
        return [unit_from_engine(m, u) for u in here]

    def _kind_in(self, province: str, reaching: str | None) -> str:
        m = self.map
        p = m.location(province)
        if m.kind[p] == LAND:
            return "army"
        if m.kind[p] == SEA:
            return "fleet"
        if reaching is not None:
            target = m.province_of[m.location(reaching)]
            fleet_reach = frozenset().union(*(m.fleet_reach[c] for c in m.coasts[p] or (p,)))
            kinds = [k for k, reach in (("army", m.army_moves[p]), ("fleet", fleet_reach)) if target in reach]
            if len(kinds) == 1:
                return kinds[0]
        self.ask(f"is it an army or a fleet in {self.names.province(province)}?")
        return "army"

    def _region(self, kind: str, place: Place, what: str) -> a.Region:
        """Where a unit of ``kind`` stands, or goes, at ``place``."""
        m = self.map
        p = m.location(place.province)
        name = self.names.province(place.province)
        if kind == "army":
            if m.kind[p] == SEA:
                raise Misunderstanding(f"{what}: an army cannot be in {name}")
            return a.Region(place.province, "amy")
        if m.kind[p] == LAND:
            raise Misunderstanding(f"{what}: a fleet cannot be in {name}")
        if m.kind[p] == SEA:
            return a.Region(place.province, "sea")
        coasts = self.coasts(place.province)
        if not coasts:
            return a.Region(place.province, "coast")
        if place.coast in coasts:
            return a.Region(place.province, place.coast)
        self.ask(f"{what}: which coast of {name}?")
        return a.Region(place.province, coasts[0])

    def coasts(self, province: str) -> tuple[str, ...]:
        """``stp`` -> ``("ncs", "scs")``; empty for a province of one coast or none."""
        m = self.map
        return tuple(m.locations[c].split("/")[1].lower() + "s" for c in m.coasts[m.location(province)])

    def region(self, unit: a.Unit, place: Place) -> a.Region:
        """Where ``unit`` would go at ``place``: for a fleet, the one coast it can reach if
        the words name none."""
        if kind_of(unit) == "fleet" and place.coast is None and len(self.coasts(place.province)) > 1:
            reachable = [c for c in self.coasts(place.province) if self._reaches(unit, place.province, c)]
            if len(reachable) == 1:
                return a.Region(place.province, reachable[0])
        what = f"{self.describe(unit)} to {self.names.province(place.province)}"
        return self._region(kind_of(unit), place, what)

    def _reaches(self, unit: a.Unit, province: str, coast: str | None = None) -> bool:
        m = self.map
        unit_type, location = region_to_location(m, unit.region)  # the unit is on the board, or made to fit it
        target = m.location(province if coast is None else f"{province}/{coast[:2]}")
        if coast is not None:
            return target in m.fleet_moves[location]
        return m.province_of[target] in m.reach[unit_type][location]

    # --- units the words leave to be found -----------------------------------------------

    def units_reaching(self, power: str, province: str, kind: str | None = None) -> list[a.Unit]:
        """``power``'s units on the board that can move to ``province`` (of ``kind`` if given)."""
        if self.position is None:
            return []
        m = self.map
        units = [unit_from_engine(m, u) for u in self.position.units if u.power == power]
        return [u for u in units if (kind is None or kind_of(u) == kind) and self._reaches(u, province)]

    def convoying_fleets(self, power: str, army: a.Unit, destination: str) -> list[a.Unit]:
        """``power``'s fleets at sea that touch both the army's province and the destination."""
        if self.position is None:
            return []
        m = self.map
        ends = {m.location(army.region.province), m.location(destination)}
        fleets = [u for u in self.position.units if u.type == FLEET and m.kind[u.location] == SEA]
        return [
            unit_from_engine(m, u)
            for u in fleets
            if u.power == power and ends <= m.shores[u.location]
        ]

    def choose(self, candidates: Sequence[a.Unit], what: str, power: str | None = None) -> a.Unit:
        """The one unit (of ``power``, when said) that can do ``what`` (e.g. "support into Burgundy")."""
        if self.position is None:
            raise Misunderstanding(f"which unit will {what}? Say which, e.g. 'with my army in Ruhr'")
        if not candidates:
            if power is not None:
                whose = "your" if power == self.me else f"{self.names.power(power)}'s"
                raise Misunderstanding(f"none of {whose} units can {what}")
            raise Misunderstanding(f"no unit can {what}")
        candidates = sorted(candidates, key=str)
        if len(candidates) > 1:
            self.ask(f"which unit will {what}: {' or '.join(map(self.describe, candidates))}?")
        return candidates[0]

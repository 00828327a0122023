"""DumbBot: David Norman's classic DAIDE bot (2003), rewritten from its published description.

DumbBot negotiates with no one and looks no further than one phase ahead, yet plays a
recognisable game, which makes it the usual yardstick for Diplomacy bots. It works in
two stages.

**What every place is worth.** Each supply centre gets a seed value: a centre someone
else owns is worth the *size* of its owner (the attack value), one of our own centres
the size of the largest enemy power with a unit next to it or in it (the defence value).
The size of a power with ``n`` centres is ``n*n + 4*n + 16``, so big powers are both the
juiciest targets and the most dangerous neighbours. Unowned centres count as the centres
of one more power, the neutrals, sized by how many of them are left: at the start they
outweigh everyone (12 neutral centres: 208 against 48 for a power of 4), and the pull
fades as they are taken. The seed of a centre is ``attack_weight * attack +
defence_weight * defence``.

The seeds are then spread over the board, separately for armies (over land) and for
fleets (over sea and along coasts, one node per coast): ``proximity[k]`` of a place is
``(proximity[k-1]`` of itself ``+`` the sum of ``proximity[k-1]`` of the places one move
away``) / 5``, for ten depths. A place's value is the weighted sum of its ten proximity
values, plus ``strength_weight`` times how many of our units could be there next phase,
minus ``competition_weight`` times the most units any single other power could have there.

**What each unit does.** Units choose one by one in random order, each among holding and
its moves, best value first: it takes the best, or passes to the next best with
probability ``PLAY_ALTERNATIVE - ALTERNATIVE_SPREAD * (best - next) / |best|``, and so on
down the list. A unit that picks the province of one of our units that has not chosen yet
waits for it (and that unit may then not move into the waiting unit's province, which
would be a swap that bounces). A pick where one of our units holds becomes a support of
it if some other power has two units in or next to the place, and is dropped otherwise; a
pick where one of our units is already going becomes a support of that move if some other
power has a unit in or next to the place, and is dropped otherwise. Finally a unit left
holding supports, instead, the most valuable of our moves and holds next to it that such
a support would help.

Retreats go to the best place by the same values (two units never to the same province),
else the unit disbands. Builds go to the best free home centres, army or fleet by the
value of the army or fleet node there; removals take the least valuable units; both pick
with the same randomness.

Constants (class attributes, change them in a subclass):

* sizes ``SIZE = (1, 4, 16)``: ``n*n + 4*n + 16``;
* spring: attack 700, defence 300, proximity weights ``100, 1000, 30, 10, 6, 5, 4, 3, 2, 1``
  (in spring, being *next to* a centre is worth most: centres change hands in the fall),
  strength 1000, competition 1000;
* fall: attack 600, defence 400, proximity weights ``1000, 100, 30, 10, 6, 5, 4, 3, 2, 1``,
  strength 1000, competition 1000;
* winter (builds and removals): attack 700, defence 300, the fall's proximity weights, no
  strength or competition, but 1000 times the defence value of the place itself (the home
  centre of a build, the centre a unit to remove stands on);
* randomness ``PLAY_ALTERNATIVE = 0.5``, ``ALTERNATIVE_SPREAD = 5``: an alternative within
  10% of the current best is still taken with some chance, one 10% worse never.

Where this departs from the original:

* the description leaves unowned centres out; we size them as DAIDE's ``UNO`` pseudo-power
  (above), which sends the first years after the neutrals as a human would;
* convoys are ignored: armies move and are valued over land only, so an English army
  stays at home and England builds fleets;
* a unit standing in a province counts, with those next to it, for strength, competition
  and defence (the description counts adjacent units only), so that a second unit
  supports an attack on a holding enemy unit rather than turning away from it;
* the spread is linear, so it is computed once per map and weight set as a matrix from
  the centres to every place; a phase then costs a few dot products instead of ten sweeps
  of the board (the values are the same);
* a place's own term in the spread is that place, not the best coast of its province;
* a unit waits for another at most ``MAX_WAITS`` times, then moves anyway, so choosing
  always ends; a move that would then run into one of our units that holds becomes a
  support of that unit;
* builds are waived when the best one left is worth no more than ``MIN_BUILD_VALUE``
  (with these weights only when nothing to take or defend is within ten moves).
"""

from __future__ import annotations

import functools
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from operator import mul
from typing import ClassVar

import engine.orders as eo
from bots.base import Bot, LegalOrders
from engine.maps import ARMY, FLEET, LAND, SEA, Map
from engine.position import ADJUSTMENTS, MOVEMENT, Position, Unit

__all__ = ["DumbBot", "Weights"]


@dataclass(frozen=True, slots=True)
class Weights:
    """How one season turns the board into values (see the module docstring)."""

    attack: float
    defence: float
    proximity: tuple[float, ...]
    strength: float
    competition: float
    home_defence: float = 0.0


@dataclass(frozen=True, slots=True)
class _Geometry:
    """The board as DumbBot sees it: a node for each place a unit of each type can stand.

    Armies stand on provinces, fleets on seas, coastal provinces and each coast of a
    province with several; the two kinds of node never touch, since a unit keeps its type.
    """

    node: tuple[tuple[int, ...], tuple[int, ...]]  # node[type][location]; -1 where no such unit stands
    province: tuple[int, ...]
    unit_type: tuple[int, ...]
    location: tuple[int, ...]
    neighbours: tuple[tuple[int, ...], ...]  # the nodes one move away (convoys aside)
    centres: tuple[int, ...]  # the nodes on supply centres: the columns of a spread


@functools.cache
def _geometry(m: Map) -> _Geometry:
    node: list[list[int]] = [[-1] * len(m.locations), [-1] * len(m.locations)]
    province: list[int] = []
    unit_type: list[int] = []
    location: list[int] = []
    for loc in range(len(m.locations)):
        p = m.province_of[loc]
        stands = (
            (ARMY, loc == p and m.kind[p] != SEA),
            (FLEET, m.kind[p] != LAND and (loc != p or not m.coasts[p])),
        )
        for t, ok in stands:
            if ok:
                node[t][loc] = len(province)
                province.append(p)
                unit_type.append(t)
                location.append(loc)
    moves = (m.army_moves, m.fleet_moves)
    neighbours = tuple(
        tuple(sorted(node[t][d] for d in moves[t][loc] if node[t][d] >= 0))
        for t, loc in zip(unit_type, location, strict=True)
    )
    centres = tuple(n for n, p in enumerate(province) if m.is_supply_center[p])
    return _Geometry(
        (tuple(node[0]), tuple(node[1])), tuple(province), tuple(unit_type), tuple(location), neighbours, centres
    )


@functools.cache
def _spread(m: Map, proximity: tuple[float, ...]) -> tuple[tuple[float, ...], ...]:
    """``spread[node][i]``: what a seed of 1 on centre node ``centres[i]`` adds to the value of ``node``.

    The ten proximity sweeps are linear in the seeds, so their weighted sum is one matrix,
    built here for all centre columns at once, a row of the board at a time.
    """
    g = _geometry(m)
    width = len(g.centres)
    level = [[0.0] * width for _ in g.province]
    for i, n in enumerate(g.centres):
        level[n][i] = 1.0
    total = [[0.0] * width for _ in g.province]
    for depth, weight in enumerate(proximity):
        if depth:
            level = [
                [s / 5 for s in map(sum, zip(level[n], *(level[j] for j in g.neighbours[n]), strict=True))]
                for n in range(len(g.province))
            ]
        for row, values in zip(total, level, strict=True):
            row[:] = [r + weight * v for r, v in zip(row, values, strict=True)]
    return tuple(tuple(row) for row in total)


class _Appraisal:
    """What every node is worth to one power in one phase (DumbBot's first stage), computed on demand."""

    __slots__ = ("_defence", "_memo", "_near", "_power", "_rows", "_seeds", "_weights", "geometry")

    def __init__(self, position: Position, power: str, weights: Weights, size: tuple[float, float, float]) -> None:
        m = position.map
        self.geometry = g = _geometry(m)
        self._rows = _spread(m, weights.proximity)
        self._weights = weights
        self._power = power
        self._memo: dict[int, float] = {}
        # province -> power -> how many of its units stand there or could move there
        near: dict[int, dict[str, int]] = {}
        reach = m.reach
        province_of = m.province_of
        for u in position.units:
            for p in (province_of[u.location], *reach[u.type][u.location]):
                counts = near.setdefault(p, {})
                counts[u.power] = counts.get(u.power, 0) + 1
        self._near = near
        a, b, c = size
        counts = position.center_counts
        sizes = {pw: a * k * k + b * k + c for pw, k in counts.items()}
        neutral = len(m.supply_centers) - sum(counts.values())
        neutral_size = a * neutral * neutral + b * neutral + c
        self._defence: dict[int, float] = {}
        seeds: list[float] = []
        for n in g.centres:
            p = g.province[n]
            owner = position.centers[p]
            if owner == power:
                defence = self._defence.get(p)
                if defence is None:
                    threats = [sizes[pw] for pw in near.get(p, {}) if pw != power]
                    defence = self._defence[p] = max(threats, default=0.0)
                seeds.append(weights.defence * defence)
            else:
                seeds.append(weights.attack * (neutral_size if owner is None else sizes[owner]))
        self._seeds = seeds

    def competition(self, province: int) -> int:
        """The most units any one other power has in or next to ``province``."""
        counts = self._near.get(province, {})
        return max((k for pw, k in counts.items() if pw != self._power), default=0)

    def __call__(self, node: int) -> float:
        value = self._memo.get(node)
        if value is None:
            w = self._weights
            p = self.geometry.province[node]
            value = sum(map(mul, self._rows[node], self._seeds))
            if w.strength or w.competition:
                value += w.strength * self._near.get(p, {}).get(self._power, 0) - w.competition * self.competition(p)
            if w.home_defence:
                value += w.home_defence * self._defence.get(p, 0.0)
            self._memo[node] = value
        return value


def _ranked(nodes: Sequence[int], value: Callable[[int], float], best_first: bool = True) -> list[int]:
    """``nodes`` by value, ties by node number so that a seed replays exactly."""
    sign = -1 if best_first else 1
    return sorted(nodes, key=lambda n: (sign * value(n), n))


@dataclass(frozen=True, slots=True)
class _Choice:
    """A unit's decision in the movement phase, before it becomes an order."""

    order: eo.Order
    worth: float  # the value of the place the unit goes to or stays in
    destination: int = -1  # the province it moves to, for a move


class DumbBot(Bot):
    """David Norman's DumbBot: no press, one phase of foresight, weighted-random greed.

    >>> import random
    >>> from engine import Position, format_order, legal_orders
    >>> start = Position.initial()
    >>> bot = DumbBot(random.Random(1))
    >>> bot.start("FRANCE", start.map)
    >>> sorted(format_order(start.map, o) for o in bot.orders(start, legal_orders(start, "FRANCE")))
    ['A MAR - SPA', 'A PAR - BUR', 'F BRE - MAO']
    """

    name = "dumbbot"

    SIZE: ClassVar[tuple[float, float, float]] = (1, 4, 16)
    SPRING: ClassVar[Weights] = Weights(700, 300, (100, 1000, 30, 10, 6, 5, 4, 3, 2, 1), 1000, 1000)
    FALL: ClassVar[Weights] = Weights(600, 400, (1000, 100, 30, 10, 6, 5, 4, 3, 2, 1), 1000, 1000)
    WINTER: ClassVar[Weights] = Weights(700, 300, (1000, 100, 30, 10, 6, 5, 4, 3, 2, 1), 0, 0, 1000)
    PLAY_ALTERNATIVE: ClassVar[float] = 0.5
    ALTERNATIVE_SPREAD: ClassVar[float] = 5.0
    MAX_WAITS: ClassVar[int] = 2
    MIN_BUILD_VALUE: ClassVar[float] = 0.0

    def orders(self, position: Position, legal: LegalOrders) -> list[eo.Order]:
        kind = position.phase.kind
        if kind == ADJUSTMENTS:
            return self._adjustments(position, legal.get(None, ()))
        weights = self.SPRING if position.phase.season == "S" else self.FALL
        value = _Appraisal(position, self.power, weights, self.SIZE)
        units = [u for u in legal if u is not None]
        if kind == MOVEMENT:
            return self._movement(position, units, value)
        return self._retreats(units, legal, value)

    # --- choosing ------------------------------------------------------------------------

    def _pick(self, values: Sequence[float]) -> int:
        """An index into ``values`` (best first): the first, or with DumbBot's odds a later one.

        Passing from one candidate to the next is likelier the closer their values are,
        and never happens once the gap reaches ``PLAY_ALTERNATIVE / ALTERNATIVE_SPREAD``
        of the better one.
        """
        i = 0
        while i + 1 < len(values):
            here = values[i]
            gap = abs(here - values[i + 1]) / abs(here) if here else 0.0
            if self.rng.random() >= self.PLAY_ALTERNATIVE - self.ALTERNATIVE_SPREAD * gap:
                break
            i += 1
        return i

    # --- movement ------------------------------------------------------------------------

    def _movement(self, position: Position, units: list[Unit], value: _Appraisal) -> list[eo.Order]:
        g = value.geometry
        province_of = position.map.province_of
        self.rng.shuffle(units)
        ours = {province_of[u.location]: u for u in units}
        choices: dict[Unit, _Choice] = {}
        arriving: dict[int, Unit] = {}  # province -> our unit moving there
        barred: dict[Unit, set[int]] = {u: set() for u in units}  # provinces a unit may not enter
        waits = dict.fromkeys(units, 0)
        queue = deque(units)
        while queue:
            unit = queue.popleft()
            here = g.node[unit.type][unit.location]
            nodes = _ranked([here, *(n for n in g.neighbours[here] if g.province[n] not in barred[unit])], value)
            while True:
                n = nodes[self._pick([value(x) for x in nodes])]
                if n == here:
                    choices[unit] = _Choice(eo.Hold(unit.type, unit.location), value(n))
                    break
                target = g.province[n]
                occupant = ours.get(target)
                if occupant is not None and occupant not in choices:
                    barred[occupant].add(province_of[unit.location])
                    if waits[unit] < self.MAX_WAITS:
                        waits[unit] += 1
                        queue.insert(queue.index(occupant) + 1, unit)
                        break
                elif occupant is not None and choices[occupant].destination < 0:
                    if value.competition(target) > 1:
                        choices[unit] = _Choice(
                            eo.SupportHold(unit.type, unit.location, occupant.type, occupant.location), value(here)
                        )
                        break
                    nodes.remove(n)
                    continue
                mover = arriving.get(target)
                if mover is not None:
                    if value.competition(target) > 0:
                        choices[unit] = _Choice(
                            eo.SupportMove(unit.type, unit.location, mover.type, mover.location, target), value(here)
                        )
                        break
                    nodes.remove(n)
                    continue
                choices[unit] = _Choice(eo.Move(unit.type, unit.location, g.location[n]), value(n), target)
                arriving[target] = unit
                break
        self._no_bumping(choices, ours, arriving, value)
        self._no_idle_holds(position, choices, ours, arriving, value)
        return [choices[u].order for u in units]

    def _no_bumping(
        self, choices: dict[Unit, _Choice], ours: dict[int, Unit], arriving: dict[int, Unit], value: _Appraisal
    ) -> None:
        """A unit that moved on after waiting too long, into one of ours that then stayed, supports it instead.

        That unit stays in turn, so a unit moving into its province is looked at again.
        """
        g = value.geometry
        bumped = True
        while bumped:
            bumped = False
            for unit, choice in choices.items():
                occupant = ours.get(choice.destination)
                if occupant is not None and choices[occupant].destination < 0:
                    del arriving[choice.destination]
                    support = eo.SupportHold(unit.type, unit.location, occupant.type, occupant.location)
                    choices[unit] = _Choice(support, value(g.node[unit.type][unit.location]))
                    bumped = True

    def _no_idle_holds(
        self,
        position: Position,
        choices: dict[Unit, _Choice],
        ours: dict[int, Unit],
        arriving: dict[int, Unit],
        value: _Appraisal,
    ) -> None:
        """A holding unit supports the most valuable contested move or hold of ours it can reach."""
        reach = position.map.reach
        for unit, choice in list(choices.items()):
            if not isinstance(choice.order, eo.Hold):
                continue
            best: tuple[float, eo.Order] | None = None
            for q in sorted(reach[unit.type][unit.location]):
                mover = arriving.get(q)
                if mover is not None and value.competition(q) > 0:
                    worth = choices[mover].worth
                    support: eo.Order = eo.SupportMove(unit.type, unit.location, mover.type, mover.location, q)
                else:
                    other = ours.get(q)
                    if other is None or choices[other].destination >= 0 or value.competition(q) <= 1:
                        continue
                    worth = choices[other].worth
                    support = eo.SupportHold(unit.type, unit.location, other.type, other.location)
                if best is None or worth > best[0]:
                    best = (worth, support)
            if best is not None:
                choices[unit] = _Choice(best[1], choice.worth)

    # --- retreats and adjustments ----------------------------------------------------------

    def _retreats(self, units: list[Unit], legal: LegalOrders, value: _Appraisal) -> list[eo.Order]:
        g = value.geometry
        self.rng.shuffle(units)
        taken: set[int] = set()
        chosen: list[eo.Order] = []
        for unit in units:
            places = [o.destination for o in legal[unit] if isinstance(o, eo.Retreat)]
            nodes = _ranked([g.node[unit.type][loc] for loc in places], value)
            nodes = [n for n in nodes if g.province[n] not in taken]
            if not nodes:
                chosen.append(eo.Disband(unit.type, unit.location))
                continue
            n = nodes[self._pick([value(x) for x in nodes])]
            taken.add(g.province[n])
            chosen.append(eo.Retreat(unit.type, unit.location, g.location[n]))
        return chosen

    def _adjustments(self, position: Position, options: Sequence[eo.Order]) -> list[eo.Order]:
        owed = position.adjustments.get(self.power, 0)
        if owed == 0:
            return []
        value = _Appraisal(position, self.power, self.WINTER, self.SIZE)
        g = value.geometry
        if owed < 0:
            removable = [
                g.node[o.type][o.location] for o in options if isinstance(o, eo.Disband) and o.type is not None
            ]
            nodes = _ranked(removable, value, best_first=False)
            removals: list[eo.Order] = []
            while nodes and len(removals) < -owed:
                n = nodes.pop(self._pick([value(x) for x in nodes]))
                removals.append(eo.Disband(g.unit_type[n], g.location[n]))
            return removals
        builds: list[eo.Order] = []
        buildable = [g.node[o.type][o.location] for o in options if isinstance(o, eo.Build) and o.type is not None]
        nodes = _ranked(buildable, value)
        while nodes and len(builds) < owed and value(nodes[0]) > self.MIN_BUILD_VALUE:
            n = nodes[self._pick([value(x) for x in nodes])]
            builds.append(eo.Build(g.unit_type[n], g.location[n]))
            nodes = [x for x in nodes if g.province[x] != g.province[n]]
        return builds + [eo.Waive()] * (owed - len(builds))

"""The strategy finder of the Bordeaux diplomat: Refined Evolutionary Search (RES).

Loeb's treatise (*Challenges in Gaming by Computers*, section "The Strategic Core" and
"Search Techniques with Simultaneous Movement") splits the diplomat into a negotiator and
a strategic core that knows nothing of the negotiation: it is given a position, the
"concerned" powers divided into alliances (each with its "mortal enemies"), constraints
(demilitarised zones, required moves, forbidden moves), a search length and a seed, and
returns for each alliance the orders that maximise its value, with those values.

The search is the treatise's procedure RES1-RES8, for movement phases:

1. **RES1** The best orders ``BestM`` and best raw orders ``RBestM`` of every alliance are
   its default orders (here: the seeds the caller gives, DumbBot's orders, made to respect
   the constraints); the position they lead to is valued for each alliance. Each unit gets
   its list ``LM(u)`` of holds and moves allowed by the map and the constraints.
2. **RES2** Alliance ``p = i mod`` the number of alliances (alliances with no unit free to
   change are left out of the rotation); or, with :attr:`Search.focus`, the first alliance
   (the asker's) for that share of the iterations (see :class:`Search`).
3. **RES3** ``n`` of its units are chosen at random (see *the garbled formula* below).
4. **RES4** ``RM`` is ``RBestM_p`` with each chosen unit given a random order of ``LM(u)``.
5. **RES5** Supports are made: of two units of the alliance moving to the same province,
   one (at random) moves and the other supports it; a unit moving where a unit of the
   alliance stays supports it instead ("where allied forces are ordered to attack each
   other, the moves are changed into mutual support"). Supports are only among units of
   one alliance.
6. **RES6** ``M`` is adjudicated (:func:`engine.adjudicate`) against the current best
   orders of the other alliances and valued for every alliance.
7. **RES7** If it is better for ``p`` than ``VBestM_p``, it becomes ``p``'s best, and every
   alliance's value is that of the new position.
8. **RES8** Until ``length`` iterations have been made.

The value of a position for an alliance is the sum of its members' values minus those of
its mortal enemies (the treatise's note to RES1 and RES6).

**The garbled formula (RES3, RES8).** The treatise reads "let n be the smallest integer
greater than or equal to the number of units in alliance p times width - width" and "if i
is less than width, then continue", while the text says the search is *refined*: "at the
beginning of the research, all units are reassigned new orders ... as the search limit
approaches, we only consider changing the order of one unit at a time, or permute the
supports used". We read *width* in both places as the search length ``L`` and the formula
as the fraction of the units still to change, falling linearly with ``i``:
``n = max(1, ceil(units_p * (L - i) / L))``. It is ``units_p`` at the first iteration and 1
at the last. "Permute the supports used" we read as a second kind of mutation once
``n = 1``: with probability :attr:`Search.permute`, the unit supports (in RES4, before
RES5) the order of another unit of its alliance it can reach instead of taking a random
order of ``LM(u)``.

**Constraints.** A unit whose every order is forbidden holds (the treatise aborts: we
break the constraint in the smallest way instead, so that a diplomat always has orders).
A required order is never changed, nor turned into a support. Convoys are not searched
(``LM`` holds no convoyed move), as DumbBot does not search them either.

**The value of a position for one power** (the treatise defers the evaluator to Hall and
Loeb 1995, which we do not have; this is our own, see :class:`Values`): the supply
centres it would own if the units stood where they end the phase, the places its units
stand in as DumbBot values them this season (:mod:`bots.dumbbot`, scaled so that the best
place within reach of the power's units is worth :attr:`Values.place`), and a penalty
for each unit dislodged.

**Speed.** Each iteration is one adjudication of the board and one valuation, about
0.1 ms; the board adjudicated holds only the searched units and the units that can meet
them (:func:`_board`). The default 240 iterations take 25 to 30 ms of CPU a movement phase
on average, 50 ms at most (games to 1920 on the 2-core reference machine; 13 ms a phase
over all phases, retreats and builds included).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import engine.orders as eo
from bots.dumbbot import DumbBot, _Appraisal, _geometry
from engine import adjudicate
from engine.position import Position, Unit

__all__ = [
    "Alliance",
    "Constraints",
    "Evaluator",
    "Search",
    "Strategy",
    "Values",
    "find_strategy",
    "make_supports",
    "moves_of",
]


@dataclass(frozen=True, slots=True)
class Alliance:
    """Powers whose orders are searched together, and the powers whose value they subtract
    from theirs (the treatise's "mortal enemies")."""

    members: frozenset[str]
    enemies: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class Constraints:
    """What deals bind the searched powers to (by power, in province numbers).

    * ``no_entry``: demilitarised zones: the power may not move a unit into these
      provinces, nor keep one there (hold, support or convoy from them);
    * ``no_attack``: the power may not move into these provinces nor support a move into
      them (peace and alliances: the provinces of the partners' units and their centres);
    * ``required``: the order each unit must be given (``Do``);
    * ``forbidden``: orders that may not be given (``~Do``).
    """

    no_entry: Mapping[str, frozenset[int]] = field(default_factory=dict)
    no_attack: Mapping[str, frozenset[int]] = field(default_factory=dict)
    required: Mapping[Unit, eo.Order] = field(default_factory=dict)
    forbidden: frozenset[eo.Order] = frozenset()

    def allows(self, position: Position, unit: Unit, order: eo.Order) -> bool:
        """Whether ``unit`` may be given ``order``."""
        if order in self.forbidden:
            return False
        required = self.required.get(unit)
        if required is not None:
            return order == required
        province_of = position.map.province_of
        if isinstance(order, eo.Move):
            into = province_of[order.destination]
            return into not in self.no_entry.get(unit.power, ()) and into not in self.no_attack.get(unit.power, ())
        if province_of[unit.location] in self.no_entry.get(unit.power, ()):
            return False
        if isinstance(order, eo.SupportMove | eo.Convoy):
            return order.destination not in self.no_attack.get(unit.power, ())
        return True


@dataclass(frozen=True, slots=True)
class Search:
    """The search's parameters: ``length`` iterations (RES8); the chance of a support
    mutation once a single unit is changed (our reading of "permute the supports used");
    the share ``focus`` of the iterations given to the first alliance, the one whose
    negotiator asks.

    ``focus = 0`` is the treatise's RES2, every alliance in turn (``i mod`` their number).
    Our default is 1: the other alliances keep their seeds, the orders the negotiator
    predicts for them, and RES refines the asker's orders against them. Against DumbBots
    (one Bordeaux, six DumbBots, games to 1910, 240 iterations; the Bordeaux's mean
    centres at the end): the treatise's turn with our alliance on half the iterations
    (focus 0.5) 4.9 ± 0.4 (40 games), focus 0.8 5.7 ± 0.4 (40), the others searched one
    unit at a time on 15% of the iterations 6.2 ± 0.3 (60), keeping their predicted
    orders 9.4 ± 0.6 (40): a search of the others' best replies replaces a good
    prediction of a bot that does not search by a worse one.
    """

    length: int = 240
    permute: float = 0.3
    focus: float = 1.0


@dataclass(frozen=True, slots=True)
class Values:
    """How a position after a movement phase is valued for a power, in supply centres.

    ``centre`` (fall) or ``spring_centre`` per supply centre the power would own if its
    units kept the places they end the phase in (in the fall they do: ownership changes);
    ``place`` times the sum over its units of DumbBot's value of the place each stands in,
    divided by the best such value within one move of the power's units; ``loss`` per unit
    dislodged (beyond losing its place). Our constants: a centre is worth its count in the
    fall and half of it in the spring, when a unit standing on it may still be pushed off;
    a unit's place a fifth of a centre at best; losing a unit half a centre.
    """

    centre: float = 1.0
    spring_centre: float = 0.5
    place: float = 0.2
    loss: float = 0.5


class Evaluator:
    """The values of the positions reached from ``position`` for each of ``powers``.

    The DumbBot appraisal of each power (:class:`bots.dumbbot._Appraisal`, this season's
    weights) is made once; each call then looks up where every unit ended.
    """

    def __init__(self, position: Position, powers: Sequence[str], values: Values = Values()) -> None:
        self.position = position
        self.powers = tuple(powers)
        m = position.map
        self._geometry = g = _geometry(m)
        weights = DumbBot.SPRING if position.phase.season == "S" else DumbBot.FALL
        self._centre = values.centre if position.phase.season == "F" else values.spring_centre
        self._values = values
        self._appraisal = {p: _Appraisal(position, p, weights, DumbBot.SIZE) for p in self.powers}
        self._scale: dict[str, float] = {}
        for power, appraisal in self._appraisal.items():
            near = [
                n
                for u in position.units
                if u.power == power
                for here in (g.node[u.type][u.location],)
                for n in (here, *g.neighbours[here])
            ]
            best = max((appraisal(n) for n in near), default=0.0)
            self._scale[power] = values.place / best if best > 0 else 0.0
        self._units = {p: 0 for p in self.powers}
        for u in position.units:
            if u.power in self._units:
                self._units[u.power] += 1
        self._base = {p: self._centre * position.center_counts.get(p, 0) - values.loss * self._units[p] for p in powers}

    def __call__(self, units: Sequence[Unit]) -> dict[str, float]:
        """The value for each power of the board where ``units`` stand (the units not dislodged)."""
        value = dict(self._base)
        m = self.position.map
        province_of, is_centre = m.province_of, m.is_supply_center
        centres = self.position.centers
        node = self._geometry.node
        loss, centre = self._values.loss, self._centre
        for u in units:
            power = u.power
            p = province_of[u.location]
            if power in value:
                value[power] += loss + self._scale[power] * self._appraisal[power](node[u.type][u.location])
                if is_centre[p] and centres[p] != power:
                    value[power] += centre
            owner = centres[p]
            if is_centre[p] and owner != power and owner in value:
                value[owner] -= centre
        return value


@dataclass(frozen=True, slots=True)
class Strategy:
    """What the search returns: the best orders found for every unit of the alliances
    (unit -> order), the value of the final position for each alliance, the value of the
    starting orders for each, and how many positions were adjudicated."""

    orders: Mapping[Unit, eo.Order]
    values: tuple[float, ...]
    start_values: tuple[float, ...]
    evaluations: int

    def orders_of(self, power: str) -> list[eo.Order]:
        return [order for unit, order in self.orders.items() if unit.power == power]


def moves_of(position: Position, unit: Unit, legal: Sequence[eo.Order]) -> list[eo.Order]:
    """The hold and the moves to neighbouring provinces among ``legal`` (no convoyed move)."""
    m = position.map
    reach = m.reach[unit.type][unit.location]
    return [
        o
        for o in legal
        if isinstance(o, eo.Hold)
        or (isinstance(o, eo.Move) and not o.via_convoy and m.province_of[o.destination] in reach)
    ]


def find_strategy(
    position: Position,
    alliances: Sequence[Alliance],
    seeds: Mapping[Unit, eo.Order],
    options: Mapping[Unit, Sequence[eo.Order]],
    constraints: Constraints,
    evaluate: Callable[[Sequence[Unit]], Mapping[str, float]],
    rng: random.Random,
    search: Search = Search(),
) -> Strategy:
    """RES (see the module) from ``seeds`` (an order for each unit of the alliances), with
    ``options[u]`` the holds and moves of each unit (:func:`moves_of`) before constraints."""
    units = [[u for u in position.units if u.power in a.members] for a in alliances]
    allowed = {
        u: [o for o in options.get(u, ()) if constraints.allows(position, u, o)] or [eo.Hold(u.type, u.location)]
        for group in units
        for u in group
    }
    # RES1: the seeds, made to keep the constraints
    raw: list[dict[Unit, eo.Order]] = []
    for group in units:
        chosen: dict[Unit, eo.Order] = {}
        for u in group:
            required = constraints.required.get(u)
            seed = seeds.get(u, eo.Hold(u.type, u.location))
            if required is not None:
                chosen[u] = required
            elif constraints.allows(position, u, seed):
                chosen[u] = seed
            else:
                chosen[u] = rng.choice(allowed[u])
        raw.append(chosen)
    best = [dict(r) for r in raw]
    current: dict[Unit, eo.Order] = {u: o for b in best for u, o in b.items()}

    free = [[u for u in group if u not in constraints.required] for group in units]
    rotation = [j for j, group in enumerate(free) if group]
    others = [j for j in rotation if j]
    searched = [0] if search.focus >= 1 and rotation[:1] == [0] else rotation
    board = _board(position, [u for j in searched for u in units[j]])
    on_board = set(board.units)

    def value_of(orders: Mapping[Unit, eo.Order]) -> tuple[float, ...]:
        by_power: dict[str, list[eo.Order]] = {}
        for u, o in orders.items():
            if u in on_board:
                by_power.setdefault(u.power, []).append(o)
        outcome = adjudicate(board, by_power)
        worth = evaluate(outcome.position.units)
        # in a fixed order: a float sum over a set's order (string hashes, new in each process)
        # rounds differently, and a near tie then falls another way in another process
        return tuple(
            sum(worth.get(p, 0.0) for p in sorted(a.members)) - sum(worth.get(p, 0.0) for p in sorted(a.enemies))
            for a in alliances
        )

    start = value_of(current)
    values = start
    evaluations = 1
    length = search.length
    for i in range(1, length if rotation else 0):
        p = _turn(i, rotation, others, search.focus)  # RES2
        group = free[p]
        n = max(1, math.ceil(len(group) * (length - i) / length))  # RES3, our reading
        candidate = dict(raw[p])  # RES4
        for u in rng.sample(group, n):
            support = _support(position, u, best[p], constraints) if n == 1 and rng.random() < search.permute else None
            candidate[u] = support if support is not None else rng.choice(allowed[u])
        made = make_supports(position, candidate, constraints, rng)  # RES5
        if made == best[p]:
            continue
        trial = dict(current)
        trial.update(made)
        new = value_of(trial)  # RES6
        evaluations += 1
        if new[p] > values[p]:  # RES7
            raw[p], best[p], current, values = candidate, made, trial, new
    return Strategy(current, values, start, evaluations)


def _turn(i: int, rotation: Sequence[int], others: Sequence[int], focus: float) -> int:
    """RES2: the alliance of iteration ``i``; the first (the asker's) takes a share ``focus`` of them."""
    if not focus or not rotation or rotation[0] or not others:
        return rotation[i % len(rotation)]
    if math.floor(i * focus) > math.floor((i - 1) * focus):
        return 0
    return others[(i - math.floor(i * focus)) % len(others)]


def _board(position: Position, searched: Sequence[Unit]) -> Position:
    """``position`` with only the searched units and the others that can meet them.

    The others keep their orders, which matter to the searched units only where they
    stand in, move into or support into a province a searched unit can stand in or reach;
    the units that can do none of that are left out, and the adjudication is cheaper. (A
    unit left out could still cut the support of one kept: the price of the speed.)
    """
    m = position.map
    reach, province_of = m.reach, m.province_of
    near: set[int] = set()
    for u in searched:
        near.add(province_of[u.location])
        near |= reach[u.type][u.location]
    kept = tuple(u for u in position.units if province_of[u.location] in near or reach[u.type][u.location] & near)
    return Position(m, position.phase, kept, position.centers)


def _support(
    position: Position, unit: Unit, orders: Mapping[Unit, eo.Order], constraints: Constraints
) -> eo.Order | None:
    """A support by ``unit`` of the order of another unit of its alliance that it can reach."""
    m = position.map
    reach = m.reach[unit.type][unit.location]
    province_of = m.province_of
    for other, order in sorted(orders.items(), key=lambda item: (item[0].location, item[0].type)):
        if other == unit:
            continue
        if isinstance(order, eo.Move):
            into = province_of[order.destination]
            if into in reach and into != province_of[unit.location]:
                support: eo.Order = eo.SupportMove(unit.type, unit.location, other.type, other.location, into)
                if constraints.allows(position, unit, support):
                    return support
        elif province_of[other.location] in reach:
            support = eo.SupportHold(unit.type, unit.location, other.type, other.location)
            if constraints.allows(position, unit, support):
                return support
    return None


def make_supports(
    position: Position, raw: Mapping[Unit, eo.Order], constraints: Constraints, rng: random.Random
) -> dict[Unit, eo.Order]:
    """RES5: the raw orders of one alliance with colliding moves turned into supports.

    Of the units moving to one province, one chosen at random moves and the others
    support it; a unit moving where a unit of the alliance stays supports it to hold.
    The second rule is applied until nothing changes, since a unit turned into a support
    stays where it is. A support the constraints forbid leaves the move as it was.
    """
    made = dict(raw)
    province_of = position.map.province_of
    movers: dict[int, list[Unit]] = {}
    for u, o in made.items():
        if isinstance(o, eo.Move) and u not in constraints.required:
            movers.setdefault(province_of[o.destination], []).append(u)
    for into, group in movers.items():
        if len(group) < 2:
            continue
        group.sort(key=lambda u: (u.location, u.type))
        leader = group[rng.randrange(len(group))]
        for u in group:
            if u is leader:
                continue
            support: eo.Order = eo.SupportMove(u.type, u.location, leader.type, leader.location, into)
            if constraints.allows(position, u, support):
                made[u] = support
    at = {province_of[u.location]: u for u in made}
    changed = True
    while changed:
        changed = False
        for u, o in made.items():
            if not isinstance(o, eo.Move) or u in constraints.required:
                continue
            other = at.get(province_of[o.destination])
            if other is None or other == u or isinstance(made[other], eo.Move):
                continue
            support = eo.SupportHold(u.type, u.location, other.type, other.location)
            if constraints.allows(position, u, support):
                made[u] = support
                changed = True
    return made

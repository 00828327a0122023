"""DumbBot: David Norman's classic DAIDE bot (2003), rewritten to play as his C++ DumbBot does.

DumbBot negotiates with no one and looks no further than one phase ahead, yet plays a
recognisable game, which makes it the usual yardstick for Diplomacy bots. This is our own
Python, written to make the same choices with the same odds as the C++ bot of the AiClient
framework (release 8~2, measured against a build of github.com/diplomacy/daide-client; see
``benchmarks/dumbbot_fidelity.py``). It works in two stages.

**What every place is worth.** Each supply centre gets a seed value: a centre someone
else owns is worth the *size* of its owner (the attack value), one of our own centres
the size of the largest enemy power with a unit that could move into it from next door
(the defence value; a unit standing on the centre does not count). The size of a power
with ``n`` centres is ``n*n + 4*n + 16``, so big powers are both the juiciest targets and
the most dangerous neighbours. Unowned centres count as the centres of one more power,
the neutrals, sized by how many of them are left: at the start they outweigh everyone (12
neutral centres: 208 against 48 for a power of 4), and the pull fades as they are taken.
The seed of a centre is ``attack_weight * attack + defence_weight * defence``.

The seeds are then spread over the board, separately for armies (over land) and for
fleets (over sea and along coasts, one node per coast), in whole numbers as the original
does: ``proximity[k]`` of a node is ``(proximity[k-1]`` of itself ``+`` the sum of
``proximity[k-1]`` of the provinces one move away``) // 5`` for ten depths, where a
province reached by two of its coasts (Spain from the Mid-Atlantic) counts once, by the
better coast. A node's value is the weighted sum of its ten proximities, plus
``strength_weight`` times how many of our units stand in the province or next to it,
minus ``competition_weight`` times the most units any single other power has so. A fleet
next to two coasts of a province is counted there twice, as in the original.

**Choosing.** Candidates are ranked by value, best first, and *keyed* by value as in the
original's ``std::map``: of two candidates of exactly the same value only the first in
DAIDE order (province token, then coast: army, fleet, north coast, ..., north-west coast)
is kept, the other is never chosen. Starting at the best, the bot passes on to the next
with probability ``1/2 * (100 - c) / 100``, where ``c = trunc(500 * (here - next) / here)``
clipped to 0..100 (0 when ``here`` is 0; negative, so no bar, when ``here`` is negative),
and goes on down the list the same way.

**Movement.** Units choose one by one in random order among holding (valued one more
than the place itself, so a hold beats an equal move) and moving to each adjacent node. A
unit whose pick is the province of one of our units that has not chosen yet waits: it is
put back right after that unit and later chooses again from scratch. A pick where one of
our units stays becomes a support of it if some other power has more than one unit in or
next to the place, and is struck off the list otherwise; a pick where one of our units is
already going becomes a support of that move if some other power has a unit in or next to
the place, and is struck off otherwise. Finally each unit left holding (in province order)
supports the move or stay of ours next to it that such a support would help and whose
place is worth most *to the supporting unit*, if that worth is above 0. Armies never
convoy, as in the original.

**Retreats** go, in random order, to the place picked as above; a pick another of our
units already retreats to is struck off and the pick made again; with nothing left the
unit disbands. **Builds** pick among every (coast of every) free home centre, then strike
off the other options of the province built in, until the builds are done or the options
run out; the rest are waived, whatever the values. **Removals** rank our units by the
value of where they stand, keyed by value with the *last* unit in province order kept on
a tie (the original assigns into its map), and start from the least valuable: passing on
to the next, more valuable, unit then has probability 1/2 whenever the values are
positive, since ``c`` is then negative.

Constants (class attributes, change them in a subclass):

* sizes ``SIZE = (1, 4, 16)``: ``n*n + 4*n + 16`` (AiClient 8~2~b; the repository's 2019
  refactor has ``-n*n``, which the measured binary had restored to ``+``);
* spring (and summer retreats): attack 700, defence 300, proximity weights
  ``100, 1000, 30, 10, 6, 5, 4, 3, 2, 1``, strength 1000, competition 1000;
* fall (and autumn retreats): attack 600, defence 400, proximity weights
  ``1000, 100, 30, 10, 6, 5, 4, 3, 2, 1``, strength 1000, competition 1000;
* winter (builds and removals): attack 700, defence 300, the fall's proximity weights, no
  strength or competition, but 1000 times the defence value of the place itself;
* ``PLAY_ALTERNATIVE = 50`` (per cent) and ``ALTERNATIVE_SPREAD = 500``, as above.

Where this departs from the C++ bot (each kept on purpose):

* random numbers come from the bot's ``random.Random`` (seeded, so a game replays), not from
  C's ``rand() % 100``; the odds are the same up to ``rand``'s bias of a few parts in 10^8;
* a unit waits for another at most ``MAX_WAITS`` times and then holds: the original lets
  two units that each want the other's province wait for each other for ever (its orders
  then never go in and the server holds every unit); holding the one unit keeps the rest
  of our orders and always ends;
* where the original would read past the end of an empty candidate list (a unit whose
  every option was struck off after its hold was dropped as a duplicate value, or more
  removals owed than distinct values), we hold, or remove the remaining units least
  valuable first; neither case has been seen in play;
* the unit order is a shuffle, not a sort on random keys (the same law, without ties).
"""

from __future__ import annotations

import bisect
import functools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from operator import add, itemgetter
from typing import ClassVar

import engine.orders as eo
from bots.base import Bot, LegalOrders
from engine.graph import SpreadGraph, spread
from engine.maps import ARMY, FLEET, LAND, SEA, Map
from engine.position import ADJUSTMENTS, MOVEMENT, Position, Unit

__all__ = ["DumbBot", "Weights"]

Number = int | float


@dataclass(frozen=True, slots=True)
class Weights:
    """How one season turns the board into values (see the module docstring)."""

    attack: Number
    defence: Number
    proximity: tuple[Number, ...]
    strength: Number
    competition: Number
    home_defence: Number = 0


# DAIDE numbers provinces by category (inland, sea, coastal, bicoastal; each without then
# with a supply centre) and alphabetically within one, and orders the coasts of a province
# army, fleet, then the coast tokens NCS NEC ECS SEC SCS SWC WCS NWC. The original breaks
# every tie in that order, so we sort by it too.
_COAST_RANK = {"NC": 0, "NE": 1, "EC": 2, "SE": 3, "SC": 4, "SW": 5, "WC": 6, "NW": 7}


def _daide_rank(m: Map) -> tuple[int, ...]:
    """``rank[province]``: the province's index in DAIDE token order."""

    def category(p: int) -> int:
        kind = 0 if m.kind[p] == LAND else 1 if m.kind[p] == SEA else 3 if m.coasts[p] else 2
        return 2 * kind + bool(m.is_supply_center[p])

    rank = [0] * len(m.locations)
    for i, p in enumerate(sorted(m.provinces, key=lambda p: (category(p), m.locations[p]))):
        rank[p] = i
    return tuple(rank)


@dataclass(frozen=True, slots=True, eq=False)  # one per map (cached): hashed by identity, not by its long tuples
class _Geometry:
    """The board as DumbBot sees it: a node for each place a unit of each type can stand.

    Armies stand on provinces, fleets on seas, coastal provinces and each coast of a
    province with several; the two kinds of node never touch, since a unit keeps its type.
    Nodes are numbered in DAIDE order, so sorting nodes sorts them as the original does.
    """

    node: tuple[tuple[int, ...], tuple[int, ...]]  # node[type][location]; -1 where no such unit stands
    province: tuple[int, ...]
    unit_type: tuple[int, ...]
    location: tuple[int, ...]
    neighbours: tuple[tuple[int, ...], ...]  # the nodes one move away (no convoys), in DAIDE order
    groups: tuple[tuple[tuple[int, ...], ...], ...]  # the same, one tuple per province reached
    centres: tuple[int, ...]  # the nodes on supply centres, where seeds are sown
    rank: tuple[int, ...]  # rank[province]: its DAIDE index


@functools.cache
def _geometry(m: Map) -> _Geometry:
    rank = _daide_rank(m)

    def coast_rank(t: int, loc: int) -> int:
        if t == ARMY:
            return 0
        return 1 if loc == m.province_of[loc] else 2 + _COAST_RANK[m.locations[loc].split("/")[1]]

    places: list[tuple[int, int, int]] = []  # (type, location, province)
    for loc in range(len(m.locations)):
        p = m.province_of[loc]
        if loc == p and m.kind[p] != SEA:
            places.append((ARMY, loc, p))
        if m.kind[p] != LAND and (loc != p or not m.coasts[p]):
            places.append((FLEET, loc, p))
    places.sort(key=lambda x: (rank[x[2]], coast_rank(x[0], x[1])))
    node: list[list[int]] = [[-1] * len(m.locations), [-1] * len(m.locations)]
    for n, (t, loc, _) in enumerate(places):
        node[t][loc] = n
    moves = (m.army_moves, m.fleet_moves)
    neighbours = tuple(tuple(sorted(node[t][d] for d in moves[t][loc] if node[t][d] >= 0)) for t, loc, _ in places)
    groups = []
    for around in neighbours:
        by_province: dict[int, list[int]] = {}
        for n in around:
            by_province.setdefault(places[n][2], []).append(n)
        groups.append(tuple(tuple(g) for g in by_province.values()))
    province = tuple(p for _, _, p in places)
    centres = tuple(n for n, p in enumerate(province) if m.is_supply_center[p])
    return _Geometry(
        (tuple(node[0]), tuple(node[1])),
        province,
        tuple(t for t, _, _ in places),
        tuple(loc for _, loc, _ in places),
        neighbours,
        tuple(groups),
        centres,
        rank,
    )


@functools.cache
def _sweep_plan(g: _Geometry) -> tuple[tuple[itemgetter, ...], tuple[tuple[int, tuple[tuple[int, ...], ...]], ...]]:
    """How a sweep reads the last level: for each node a getter of itself, a spare 0 and the
    provinces it reaches by one coast; then the nodes that reach a province by several, with those."""
    spare = len(g.province)
    singles = tuple(
        itemgetter(n, spare, *(grp[0] for grp in groups if len(grp) == 1)) for n, groups in enumerate(g.groups)
    )
    multiples = tuple(
        (n, tuple(grp for grp in groups if len(grp) > 1))
        for n, groups in enumerate(g.groups)
        if any(len(grp) > 1 for grp in groups)
    )
    return singles, multiples


@functools.cache
def _nodes_of(g: _Geometry) -> dict[int, tuple[int, ...]]:
    """Province -> its nodes (army, fleet, coasts), in order."""
    nodes: dict[int, list[int]] = {}
    for n, p in enumerate(g.province):
        nodes.setdefault(p, []).append(n)
    return {p: tuple(ns) for p, ns in nodes.items()}


@functools.cache
def _touches(m: Map) -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]:
    """``touches[type][location]``: the province of such a unit, then that of each location it can
    move to (a province reached by two coasts twice), as the strength counts take them."""
    moves = (m.army_moves, m.fleet_moves)
    return tuple(  # type: ignore[return-value]
        tuple((m.province_of[loc], *(m.province_of[d] for d in moves[t][loc])) for loc in range(len(m.locations)))
        for t in (ARMY, FLEET)
    )


@functools.cache
def _centres_near(m: Map) -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]:
    """``centres_near[type][location]``: the supply centres such a unit could move into, its own
    province left out (the units that threaten a centre)."""
    centres = set(m.supply_centers)
    return tuple(  # type: ignore[return-value]
        tuple(
            tuple(p for p in m.reach[t][loc] if p != m.province_of[loc] and p in centres)
            for loc in range(len(m.locations))
        )
        for t in (ARMY, FLEET)
    )


def _sweep_totals(g: _Geometry, seeds: Sequence[Number], proximity: tuple[Number, ...]) -> list[Number]:
    """The weighted sum of the proximities of every node, from the seeds of the centre nodes
    (``seeds[i]`` of node ``g.centres[i]``): the sweeps of one power, for any numbers."""
    size = len(g.province)
    # one more, always 0, so that each getter takes at least two items and returns a tuple
    level: list[Number] = [0] * (size + 1)
    for n, seed in zip(g.centres, seeds, strict=True):
        level[n] = seed
    singles, multiples = _sweep_plan(g)
    total = [proximity[0] * v for v in level[:size]]
    for weight in proximity[1:]:
        sums = [sum(get(level)) for get in singles]
        for n, groups in multiples:
            sums[n] += sum(max(level[x] for x in grp) for grp in groups)
        # C++ divides whole numbers toward zero; // alone would round negative sums down
        level = [s // 5 if s >= 0 else -(-s // 5) for s in sums]
        level.append(0)
        total = [t + weight * v for t, v in zip(total, level, strict=False)]
    return total


def _tdiv(a: Number, b: Number) -> Number:
    """``a / b`` rounded toward zero, exactly for whole numbers, as C++ divides integers."""
    if isinstance(a, int) and isinstance(b, int):
        q = abs(a) // abs(b)
        return q if (a >= 0) == (b >= 0) else -q
    return math.trunc(a / b)


# --- the sweeps of several powers at once ---------------------------------------------------------
#
# Whole-number sweeps cost one Python-level step per node and sweep, the bulk of DumbBot's
# time in pure Python. They are the engine's weighted spread over a graph
# (:func:`engine.graph.spread`: compiled where built, else all powers of a phase packed into
# one Python integer), with exactly the numbers of the one-power sweeps above, which remain
# for seeds that are not whole numbers >= 0 (a subclass's, as the sanctioning baseline's).


@functools.cache
def _spread_graph(g: _Geometry) -> SpreadGraph:
    """The sweeps as a graph: a node counts itself and the best of its nodes in each province it reaches."""
    return SpreadGraph.of([((n,), *groups) for n, groups in enumerate(g.groups)], g.centres)


def _whole(values: Iterable[object]) -> bool:
    """Whether ``values`` are all whole numbers >= 0 (``int``, not ``bool`` nor ``float``)."""
    values = tuple(values)
    return set(map(type, values)) <= {int} and min(values, default=0) >= 0


# --- what one position tells every power ----------------------------------------------------------


class _Board:
    """What a position tells every power alike, worked out once and shared by the appraisals
    of all powers (the seven bots of a game in one process see the same position object)."""

    __slots__ = (
        "attack_sizes",
        "attacks",
        "counts",
        "geometry",
        "base",
        "owned",
        "position",
        "present",
        "seeds",
        "size",
        "sizes",
        "threats",
        "top",
        "totals",
    )

    def __init__(self, position: Position, size: tuple[Number, Number, Number]) -> None:
        m = position.map
        self.position = position
        self.geometry = g = _geometry(m)
        self.size = size
        touches = _touches(m)
        # province -> power -> its units in the province, plus one per coast of the province
        # each unit could move to (so a fleet next to two coasts of Spain counts twice there)
        counts: dict[int, dict[str, int]] = {}
        for u in position.units:
            power = u.power
            for p in touches[u.type][u.location]:
                by_power = counts.get(p)
                if by_power is None:
                    counts[p] = {power: 1}
                else:
                    by_power[power] = by_power.get(power, 0) + 1
        self.counts = counts
        # province -> (the power with the most units there, how many, the most of any other
        # power): the competition a power meets is the second count if it leads, else the first;
        # power -> (province, its units there) where it has some, where its competition is not
        # simply the leader's count
        top: dict[int, tuple[str | None, int, int]] = {}
        present: dict[str, list[tuple[int, int]]] = {}
        for p, by_power in counts.items():
            leader: str | None = None
            lead = second = 0
            for pw, k in by_power.items():
                where = present.get(pw)
                if where is None:
                    present[pw] = [(p, k)]
                else:
                    where.append((p, k))
                if k > lead:
                    leader, lead, second = pw, k, lead
                elif k > second:
                    second = k
            top[p] = (leader, lead, second)
        self.top = top
        self.present = present
        self.base: dict[tuple, list[Number]] = {}
        a, b, c = size
        centre_counts = position.center_counts
        self.sizes = sizes = {pw: a * k * k + b * k + c for pw, k in centre_counts.items()}
        neutral = len(m.supply_centers) - sum(centre_counts.values())
        neutral_size = a * neutral * neutral + b * neutral + c
        # owned centre -> the powers of the units next door that could move in, in unit order
        # (a unit on the centre itself is not counted)
        centres = position.centers
        centres_near = _centres_near(m)
        threats: dict[int, list[str]] = {p: [] for p in m.supply_centers if centres[p] is not None}
        for u in position.units:
            for p in centres_near[u.type][u.location]:
                if p in threats:
                    threats[p].append(u.power)
        self.threats = threats
        # centre node -> the size of its owner (the neutrals' if unowned), what attacking it is worth;
        # power -> its centres, and the (index, province) of the centre nodes on them, whose
        # seeds are defence values
        self.attack_sizes: list[Number] = []
        self.owned: dict[str, tuple[list[int], list[tuple[int, int]]]] = {}
        for p in m.supply_centers:
            if centres[p] is not None:
                self.owned.setdefault(centres[p], ([], []))[0].append(p)
        for i, n in enumerate(g.centres):
            p = g.province[n]
            owner = centres[p]
            self.attack_sizes.append(neutral_size if owner is None else sizes[owner])
            if owner is not None:
                self.owned[owner][1].append((i, p))
        self.seeds: dict[tuple, tuple[dict[int, Number], tuple[Number, ...]]] = {}
        self.attacks: dict[tuple, list[Number]] = {}
        self.totals: dict[tuple, dict[str, list[int]]] = {}

    def seeds_of(self, power: str, weights: Weights) -> tuple[dict[int, Number], tuple[Number, ...]]:
        """The defence value of each of ``power``'s centres, and the seed of each centre node."""
        attack, defence = weights.attack, weights.defence
        key = (power, attack, defence, type(attack), type(defence))
        found = self.seeds.get(key)
        if found is None:
            sizes, c = self.sizes, self.size[2]
            attacks = self.attacks.get((attack, type(attack)))  # every power's seeds before defence
            if attacks is None:
                attacks = self.attacks[attack, type(attack)] = [attack * s for s in self.attack_sizes]
            seeds = list(attacks)
            # The defence value of each of our centres: the size of the largest other power with
            # a unit next door that could move in.
            values: dict[int, Number] = {}
            provinces, nodes = self.owned.get(power, ((), ()))
            for p in provinces:
                values[p] = max([sizes.get(q, c) for q in self.threats[p] if q != power], default=0)
            for i, p in nodes:
                seeds[i] = defence * values[p]
            found = self.seeds[key] = (values, tuple(seeds))
        return found

    def base_extra(self, strength: Number, competition: Number) -> list[Number]:
        """What strength and competition add to each node for a power with no unit in or next
        to it: none of its own, less ``competition`` times the most units any power has there
        (do not change the list)."""
        key = (strength, competition, type(strength), type(competition))
        found = self.base.get(key)
        if found is None:
            found = self.base[key] = [0] * len(self.geometry.province)
            nodes_of = _nodes_of(self.geometry)
            for p, (_, lead, _) in self.top.items():
                e = strength * 0 - competition * lead  # _spread's sum with none of our units there
                for n in nodes_of[p]:
                    found[n] = e
        return found

    def totals_of(self, power: str, weights: Weights) -> list[int] | None:
        """The weighted proximities of every node for ``power`` with its own seeds (whole
        numbers >= 0 with whole ``weights.proximity`` >= 0; else None), swept together with
        those of the other powers this phase asks for (do not change the list)."""
        global _several_powers
        proximity = weights.proximity
        if not _whole(proximity):
            return None
        done = self.totals.setdefault((weights.attack, weights.defence, proximity), {})
        found = done.get(power)
        if found is None:
            # Sweeping the others too pays only if they ask in this process (they do when the
            # seven bots of a game share it, not when each bot plays in a process of its own).
            _several_powers = _several_powers or bool(done)
            wanted = [power]
            if _several_powers:
                wanted += [p for p in self._asking() if p != power and p not in done]
            sown = [(p, seeds) for p in wanted if _whole(seeds := self.seeds_of(p, weights)[1])]
            wanted = [p for p, _ in sown]
            seeds = [s for _, s in sown]
            if not wanted or wanted[0] != power:
                return None
            totals = spread(_spread_graph(self.geometry), seeds, proximity)
            done.update(zip(wanted, totals, strict=True))
            found = done[power]
        return found

    def _asking(self) -> list[str]:
        """The powers likely to want values this phase: those with units to order, retreat or adjust."""
        position = self.position
        if position.phase.kind == MOVEMENT:
            powers = {u.power for u in position.units}
        elif position.phase.kind == ADJUSTMENTS:
            powers = set(position.adjustments)
        else:
            powers = {d.unit.power for d in position.dislodged}
        return [p for p in position.map.powers if p in powers]


_BOARDS: dict[tuple, _Board] = {}
_several_powers = False  # whether appraisals of several powers of one position were asked for in this process
_BOARDS_KEPT = 16
_LAST_KEY: list[tuple] = [()]


def _board(position: Position, size: tuple[Number, Number, Number]) -> _Board:
    """The board of ``position`` with power sizes ``size``, from a small cache of the last ones.

    Keyed by the position's identity: a board keeps its position alive, so the id is not
    reused while the board is cached; the types of ``size`` are in the key as ``1 == 1.0``.
    """
    board = _BOARDS.get(_LAST_KEY[0])
    if board is not None and board.position is position and board.size is size:
        return board  # the board just asked for (same objects): the common case
    key = _LAST_KEY[0] = (id(position), size, tuple(map(type, size)))
    board = _BOARDS.get(key)
    if board is None or board.position is not position:
        board = _BOARDS[key] = _Board(position, size)
        for stale in list(_BOARDS)[:-_BOARDS_KEPT]:  # the oldest first
            _BOARDS.pop(stale, None)
    return board


class _Appraisal:
    """What every node is worth to one power in one phase (DumbBot's first stage).

    ``_seeds[i]`` is the seed of node ``geometry.centres[i]``; a subclass may change the seeds
    after ``__init__``: the spread is made on the first value asked for. What is the same for
    every power (unit counts, sizes, threats, and the sweeps of the seeds as first computed)
    is made once per position and shared (see :class:`_Board`).
    """

    __slots__ = ("_board", "_defence", "_power", "_seeds", "_standard", "_values", "_weights", "geometry")

    def __init__(self, position: Position, power: str, weights: Weights, size: tuple[Number, Number, Number]) -> None:
        self._board = board = _board(position, size)
        self.geometry = board.geometry
        self._weights = weights
        self._power = power
        self._values: list[Number] | None = None
        self._defence, self._standard = board.seeds_of(power, weights)
        self._seeds: list[Number] = list(self._standard)

    def strength(self, province: int) -> int:
        """Our units in or next to ``province``."""
        return self._board.counts.get(province, {}).get(self._power, 0)

    def competition(self, province: int) -> int:
        """The most units any one other power has in or next to ``province``."""
        top = self._board.top.get(province)
        if top is None:
            return 0
        leader, lead, second = top
        return second if leader == self._power else lead

    def defence(self, province: int) -> Number:
        """The defence value of ``province`` if it is one of our centres, else 0."""
        return self._defence.get(province, 0)

    def _proximities(self) -> list[Number]:
        """The weighted sum of the ten proximities of every node (do not change the list)."""
        seeds = self._seeds
        # The seeds as first computed (a subclass may have changed them), in whole numbers:
        # swept with the other powers' (equal values of another type, 0.0 for 0, would not do).
        if tuple(seeds) == self._standard and set(map(type, seeds)) <= {int}:
            totals = self._board.totals_of(self._power, self._weights)
            if totals is not None:
                return totals
        return _sweep_totals(self.geometry, seeds, self._weights.proximity)

    def _spread(self) -> list[Number]:
        """The value of every node: the weighted proximities, then strength, competition and defence."""
        g = self.geometry
        w = self._weights
        board = self._board
        nodes_of = _nodes_of(g)
        # node -> what strength, competition and defence add (the same for every node of a province)
        if w.strength or w.competition:
            # where we have no unit, the leader's count is the competition: the board's base
            extra = list(board.base_extra(w.strength, w.competition))
            power = self._power
            top = board.top
            for p, mine in board.present.get(power, ()):
                leader, lead, second = top[p]
                e = w.strength * mine - w.competition * (second if leader == power else lead)
                for n in nodes_of[p]:
                    extra[n] = e
        else:
            extra = [0] * len(g.province)
        if w.home_defence:
            for p, defence in self._defence.items():
                for n in nodes_of[p]:
                    extra[n] += w.home_defence * defence
        return list(map(add, self._proximities(), extra))

    def __call__(self, node: int) -> Number:
        if self._values is None:
            self._values = self._spread()
        return self._values[node]


def _keyed(candidates: Iterable[tuple[Number, int]], keep_last: bool = False) -> list[tuple[Number, int]]:
    """``(value, node)`` candidates as the original's value-keyed map holds them, best first.

    One candidate per value: the first offered (``insert`` into a ``std::map``), or with
    ``keep_last`` the last (assignment through ``operator[]``).
    """
    by_value: dict[Number, int] = {}
    for value, n in candidates:
        if keep_last or value not in by_value:
            by_value[value] = n
    return sorted(by_value.items(), key=itemgetter(0), reverse=True)  # values are unique: no ties


class DumbBot(Bot):
    """David Norman's DumbBot: no press, one phase of foresight, weighted-random greed.

    >>> import random
    >>> from engine import Position, format_order, legal_orders
    >>> start = Position.initial()
    >>> bot = DumbBot(random.Random(1))
    >>> bot.start("FRA", start.map)
    >>> sorted(format_order(start.map, o) for o in bot.orders(start, legal_orders(start, "FRA")))
    ['A MAR - SPA', 'A PAR - BUR', 'F BRE - MAO']
    """

    name = "dumbbot"

    SIZE: ClassVar[tuple[Number, Number, Number]] = (1, 4, 16)
    SPRING: ClassVar[Weights] = Weights(700, 300, (100, 1000, 30, 10, 6, 5, 4, 3, 2, 1), 1000, 1000)
    FALL: ClassVar[Weights] = Weights(600, 400, (1000, 100, 30, 10, 6, 5, 4, 3, 2, 1), 1000, 1000)
    WINTER: ClassVar[Weights] = Weights(700, 300, (1000, 100, 30, 10, 6, 5, 4, 3, 2, 1), 0, 0, 1000)
    PLAY_ALTERNATIVE: ClassVar[int] = 50  # per cent: the most a pass to the next candidate can be
    ALTERNATIVE_SPREAD: ClassVar[int] = 500  # per cent of bar per unit of relative gap
    MAX_WAITS: ClassVar[int] = 10

    @classmethod
    def season_weights(cls, position: Position) -> Weights:
        """The weights of a movement or retreat phase of ``position``'s season (spring, or autumn)."""
        return cls.SPRING if position.phase.season == "S" else cls.FALL

    def orders(self, position: Position, legal: LegalOrders) -> list[eo.Order]:
        kind = position.phase.kind
        if kind == ADJUSTMENTS:
            return self._adjustments(position, legal.get(None, ()))
        value = _Appraisal(position, self.power, self.season_weights(position), self.SIZE)
        units = [u for u in legal if u is not None]
        if kind == MOVEMENT:
            return self._movement(position, units, value)
        return self._retreats(units, legal, value)

    # --- choosing ------------------------------------------------------------------------

    def _pick(self, values: Sequence[Number]) -> int:
        """An index into ``values`` (in the order the original walks them): the first, or a later one.

        At each step the bot moves on when a coin comes up (``PLAY_ALTERNATIVE`` per cent) and
        a percentage draw clears the bar ``ALTERNATIVE_SPREAD * (here - next) / here``,
        truncated as the original's integer division truncates.
        """
        i = 0
        while i + 1 < len(values):
            here, after = values[i], values[i + 1]
            bar = 0 if here == 0 else _tdiv((here - after) * self.ALTERNATIVE_SPREAD, here)
            if self.rng.randrange(100) >= self.PLAY_ALTERNATIVE or self.rng.randrange(100) < bar:
                break
            i += 1
        return i

    def _choose(self, ranked: list[tuple[Number, int]]) -> int:
        """Pick from ``(value, node)`` candidates ranked best first; the position in ``ranked``."""
        return self._pick([v for v, _ in ranked])

    # --- movement ------------------------------------------------------------------------

    def _movement(self, position: Position, units: list[Unit], value: _Appraisal) -> list[eo.Order]:
        g = value.geometry
        province_of = position.map.province_of
        order = list(units)
        self.rng.shuffle(order)
        # The original sorts units on random keys, best first, and sends a unit that must wait
        # for another to the key of that unit less one; the gaps between our keys are as wide.
        queue: list[tuple[int, Unit]] = [((i + 1) << 32, u) for i, u in enumerate(order)]
        ours = {province_of[u.location]: u for u in units}
        # our unit's location -> its order (a location, an int, hashes in C; a Unit in Python)
        orders: dict[int, eo.Order] = {}
        moving: dict[int, Unit] = {}  # province -> our unit moving there
        waits = dict.fromkeys([u.location for u in units], 0)
        while queue:
            _, unit = queue.pop(0)
            here = g.node[unit.type][unit.location]
            # Holding is offered last and one better than standing, so a hold wins a tie with a move.
            candidates = [(value(n), n) for n in g.neighbours[here]]  # (a comprehension: no generator to resume)
            candidates.append((value(here) + 1, here))
            ranked = _keyed(candidates)
            while True:
                if not ranked:  # every option struck off (see the module docstring)
                    orders[unit.location] = eo.Hold(unit.type, unit.location)
                    break
                i = self._choose(ranked)
                n = ranked[i][1]
                if n == here:
                    orders[unit.location] = eo.Hold(unit.type, unit.location)
                    break
                target = g.province[n]
                occupant = ours.get(target)
                if occupant is not None and occupant.location not in orders:
                    # We cannot know yet whether it leaves: choose again once it has chosen.
                    if waits[unit.location] < self.MAX_WAITS:
                        waits[unit.location] += 1
                        key = next(k for k, u in queue if u is occupant) + 1  # our keys are the negated ones
                        bisect.insort_right(queue, (key, unit), key=lambda ku: ku[0])
                    else:
                        orders[unit.location] = eo.Hold(unit.type, unit.location)
                    break
                if occupant is not None and not isinstance(orders[occupant.location], eo.Move):
                    if value.competition(target) > 1:
                        support = eo.SupportHold(unit.type, unit.location, occupant.type, occupant.location)
                        orders[unit.location] = support
                        break
                    del ranked[i]
                    continue
                mover = moving.get(target)
                if mover is not None:
                    if value.competition(target) > 0:
                        moved = eo.SupportMove(unit.type, unit.location, mover.type, mover.location, target)
                        orders[unit.location] = moved
                        break
                    del ranked[i]
                    continue
                orders[unit.location] = eo.Move(unit.type, unit.location, g.location[n])
                moving[target] = unit
                break
        self._support_from_holds(position, units, orders, ours, moving, value)
        return [orders[u.location] for u in units]

    def _support_from_holds(
        self,
        position: Position,
        units: list[Unit],
        orders: dict[int, eo.Order],
        ours: dict[int, Unit],
        moving: dict[int, Unit],
        value: _Appraisal,
    ) -> None:
        """Each unit left holding supports the move or stay next to it worth most to it, if above 0
        (``orders`` by the location of each of ``units``).

        Units are taken in DAIDE province order and neighbours in DAIDE order, the first of
        equal worth kept; a unit already turned into a support still counts as staying.
        """
        g = value.geometry
        province_of = position.map.province_of
        for unit in sorted(units, key=lambda u: g.rank[province_of[u.location]]):
            if not isinstance(orders[unit.location], eo.Hold):
                continue
            best: Number = 0
            support: eo.Order | None = None
            for n in g.neighbours[g.node[unit.type][unit.location]]:
                q = g.province[n]
                mover = moving.get(q)
                if mover is not None:
                    if value.competition(q) > 0 and value(n) > best:
                        best = value(n)
                        support = eo.SupportMove(unit.type, unit.location, mover.type, mover.location, q)
                    continue
                other = ours.get(q)
                if other is None or isinstance(orders[other.location], eo.Move):
                    continue
                if value.competition(q) > 1 and value(n) > best:
                    best = value(n)
                    support = eo.SupportHold(unit.type, unit.location, other.type, other.location)
            if support is not None:
                orders[unit.location] = support

    # --- retreats and adjustments ----------------------------------------------------------

    def _retreats(self, units: list[Unit], legal: LegalOrders, value: _Appraisal) -> list[eo.Order]:
        g = value.geometry
        self.rng.shuffle(units)
        taken: set[int] = set()
        chosen: list[eo.Order] = []
        for unit in units:
            places = sorted(g.node[unit.type][o.destination] for o in legal[unit] if isinstance(o, eo.Retreat))
            ranked = _keyed((value(n), n) for n in places)
            while ranked:
                i = self._choose(ranked)
                n = ranked[i][1]
                if g.province[n] in taken:  # another of ours retreats there: strike it off, pick again
                    del ranked[i]
                    continue
                taken.add(g.province[n])
                chosen.append(eo.Retreat(unit.type, unit.location, g.location[n]))
                break
            else:
                chosen.append(eo.Disband(unit.type, unit.location))
        return chosen

    def _adjustments(self, position: Position, options: Sequence[eo.Order]) -> list[eo.Order]:
        owed = position.adjustments.get(self.power, 0)
        if owed == 0:
            return []
        value = _Appraisal(position, self.power, self.WINTER, self.SIZE)
        g = value.geometry
        if owed < 0:
            return self._removals(-owed, options, value)
        buildable = sorted(
            g.node[o.type][o.location] for o in options if isinstance(o, eo.Build) and o.type is not None
        )
        ranked = _keyed((value(n), n) for n in buildable)
        builds: list[eo.Order] = []
        while ranked and len(builds) < owed:
            n = ranked[self._choose(ranked)][1]
            builds.append(eo.Build(g.unit_type[n], g.location[n]))
            ranked = [(v, x) for v, x in ranked if g.province[x] != g.province[n]]
        return builds + [eo.Waive()] * (owed - len(builds))

    def _removals(self, count: int, options: Sequence[eo.Order], value: _Appraisal) -> list[eo.Order]:
        """Remove ``count`` units, starting from the least valuable (see the module docstring)."""
        g = value.geometry
        nodes = sorted(g.node[o.type][o.location] for o in options if isinstance(o, eo.Disband) and o.type is not None)
        # The original walks its best-first map from the end: least valuable first.
        ranked = _keyed(((value(n), n) for n in nodes), keep_last=True)[::-1]
        removals: list[eo.Order] = []
        while ranked and len(removals) < count:
            n = ranked.pop(self._choose(ranked))[1]
            removals.append(eo.Disband(g.unit_type[n], g.location[n]))
        if len(removals) < count:  # ties hid some units: remove them too, least valuable first
            done = {r.location for r in removals}
            rest = sorted((value(n), n) for n in nodes if g.location[n] not in done)
            for _, n in rest[: count - len(removals)]:
                removals.append(eo.Disband(g.unit_type[n], g.location[n]))
        return removals

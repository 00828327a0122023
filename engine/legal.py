"""Legal order generation, for bots and for DAIDE ``MIS``.

"Legal" is meant as DATC 4.E.1 means it: an order that could be valid, whatever the
other orders are. Supports and convoys are listed only where they could match a
legal order of the unit they are for (so, as DATC 6.D.31 asks, no support by the
only fleet that could convoy the supported army).

>>> from engine.orders import format_order
>>> from engine.position import Position
>>> start = Position.initial()
>>> orders = legal_orders(start, "ENG")
>>> [format_order(start.map, o) for o in orders[start.unit_in("LVP")]]  # doctest: +NORMALIZE_WHITESPACE
['A LVP H', 'A LVP - CLY', 'A LVP - EDI', 'A LVP - WAL', 'A LVP - YOR', 'A LVP S F EDI - CLY',
 'A LVP S F EDI', 'A LVP S F LON - WAL', 'A LVP S F EDI - YOR', 'A LVP S F LON - YOR']
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from engine import _native
from engine.convoys import ConvoyRoutes
from engine.maps import ARMY, COAST, FLEET, SEA, Map
from engine.orders import Build, Convoy, Disband, Hold, Move, Order, Retreat, SupportHold, SupportMove, Waive
from engine.position import ADJUSTMENTS, MOVEMENT, RETREATS, Position, Unit


def legal_orders(position: Position, power: str) -> dict[Unit | None, list[Order]]:
    """Every legal order of ``power`` in the current phase, by unit.

    In a retreat phase the keys are the dislodged units. In an adjustment phase the
    orders are chosen for the power as a whole, so they are all under the key
    ``None`` (see :func:`adjustment_orders`).
    """
    kind = position.phase.kind
    if position.completed:
        return {}
    if kind == MOVEMENT:
        compiled = _compiled_board(position)
        if compiled is not None:
            return compiled.for_power(power)
        board = _BOARDS(position)
        return {u: board.orders_for(u) for u in position.units if u.power == power}
    if kind == RETREATS:
        return {
            d.unit: _retreat_orders(position.map, d.unit, d.retreats)
            for d in position.dislodged
            if d.unit.power == power
        }
    if kind == ADJUSTMENTS:
        orders = adjustment_orders(position, power)
        return {None: orders} if orders else {}
    return {}


def legal_orders_for(position: Position, unit: Unit) -> list[Order]:
    """The legal orders of one unit (a dislodged one in a retreat phase)."""
    if position.phase.kind == MOVEMENT:
        compiled = _compiled_board(position)
        if compiled is not None:
            orders = compiled.for_unit(unit)
            if orders is not None:
                return orders
        return _BOARDS(position).orders_for(unit)
    for d in position.dislodged:
        if d.unit == unit:
            return _retreat_orders(position.map, unit, d.retreats)
    return []


T = TypeVar("T")


class _PerPosition(Generic[T]):
    """``make(position)``, kept for the last ``maxsize`` positions by value: an LRU, where equal
    positions share an entry and an entry holds its position (so no later object is ever
    taken for a gone one, as it could be by its ``id()``).

    Hashing a position hashes each of its units in Python (some 3 µs, ten times what a legal
    list costs once made), so the last ``recent`` positions looked up answer first by identity:
    in a game the game master and the sessions each ask about one position object, again and
    again, for the whole phase. They are held here too (at most ``maxsize + recent`` positions
    in all), so none of them can be another object.

    >>> calls = []
    >>> units = _PerPosition(lambda position: calls.append(position) or len(position.units), maxsize=2)
    >>> units(Position.initial()), units(Position.initial()), len(calls), len(units)
    (22, 22, 1, 1)
    """

    __slots__ = ("_by_value", "_recent", "maxsize", "recent")

    def __init__(self, make: Callable[[Position], T], maxsize: int, recent: int = 4) -> None:
        self.maxsize = maxsize
        self.recent = recent
        self._by_value = functools.lru_cache(maxsize=maxsize)(make)
        self._recent: tuple[tuple[Position, T], ...] = ()

    def __call__(self, position: Position) -> T:
        for seen, value in self._recent:
            if seen is position:
                return value
        value = self._by_value(position)
        self._recent = ((position, value), *self._recent[: self.recent - 1])
        return value

    def __len__(self) -> int:
        """The positions kept by value (never more than ``maxsize``)."""
        return self._by_value.cache_info().currsize

    def cache_clear(self) -> None:
        self._by_value.cache_clear()
        self._recent = ()


# The size of each: a game asks about two positions a movement phase (its game master's, and
# the one its sessions read from NOW, the same units in another order), a bot's search a few
# more; 256 keep those of every game a server plays at once and the positions a search looks
# at in a phase. A board is some 4 KB (compiled) to 20 KB (pure Python): a few MB at most.
_POSITIONS_KEPT = 256


def _compiled_board(position: Position) -> Any:
    """The compiled core's legal orders of a movement position, or None (no core, or it declines)."""
    if _native.core_for(position.map) is None:
        return None
    return _COMPILED_BOARDS(position)


#: What :func:`_compiled_board` gives, by position (None where the core declines).
_COMPILED_BOARDS: _PerPosition[Any] = _PerPosition(
    lambda position: _native.core_for(position.map).legal_board(position.units), _POSITIONS_KEPT
)


def adjustment_orders(position: Position, power: str) -> list[Order]:
    """The builds (and ``Waive``) or removals ``power`` may order this winter."""
    m = position.map
    owed = position.adjustments.get(power, 0)
    if owed < 0:
        return [Disband(u.type, u.location) for u in position.units if u.power == power]
    if owed == 0:
        return []
    orders: list[Order] = []
    occupied = position.unit_at
    for p in m.homes.get(power, ()):
        if position.centers[p] != power or p in occupied:
            continue
        if m.kind[p] != SEA:
            orders.append(Build(ARMY, p))
        if m.kind[p] == COAST:
            orders.extend(Build(FLEET, c) for c in (m.coasts[p] or (p,)))
    orders.append(Waive())
    return orders


def _retreat_orders(m: Map, unit: Unit, retreats: frozenset[int]) -> list[Order]:
    orders: list[Order] = [Retreat(unit.type, unit.location, loc) for loc in sorted(retreats)]
    orders.append(Disband(unit.type, unit.location))
    return orders


@functools.cache
def _moves(m: Map, unit_type: int, location: int) -> tuple[Order, ...]:
    """Hold and the moves over land or along coasts, which depend on the map alone."""
    if unit_type == ARMY:
        targets = sorted(m.army_moves[location])
    else:
        targets = sorted(m.fleet_moves[location])
    return (Hold(unit_type, location),) + tuple(Move(unit_type, location, t) for t in targets)


class _Interned(dict[int, Order]):
    """Support orders of one unit into one province, made once per map and reused.

    Keys are the supported unit's code (``type * 1024 + location``).
    """

    __slots__ = ("destination", "location", "unit_type")

    def __init__(self, unit_type: int, location: int, destination: int) -> None:
        super().__init__()
        self.unit_type = unit_type
        self.location = location
        self.destination = destination

    def __missing__(self, code: int) -> Order:
        supported_type, supported = divmod(code, 1024)
        if self.destination < 0:
            order: Order = SupportHold(self.unit_type, self.location, supported_type, supported)
        else:
            order = SupportMove(self.unit_type, self.location, supported_type, supported, self.destination)
        self[code] = order
        return order


@functools.cache
def _supports(m: Map, unit_type: int, location: int) -> tuple[tuple[int, _Interned, _Interned], ...]:
    """For each province the unit can reach: its support-hold and support-move tables."""
    return tuple(
        (q, _Interned(unit_type, location, -1), _Interned(unit_type, location, q))
        for q in m.sorted_reach[unit_type][location]
    )


class _Board:
    """What legal orders depend on in one movement position, computed once per position."""

    __slots__ = ("can_reach", "carried", "carried_to", "convoying", "convoys", "m", "unit_at")

    def __init__(self, position: Position) -> None:
        m = position.map
        self.m = m
        unit_at = self.unit_at = position.unit_at
        fleets = frozenset(p for p, u in unit_at.items() if u.type == FLEET and m.kind[p] == SEA)
        convoys = self.convoys = ConvoyRoutes(m, unit_at)
        reach = m.reach
        # province -> the codes of the units that could move there over land or along a coast
        can_reach: dict[int, list[int]] = {}
        for u in unit_at.values():
            code = u.type * 1024 + u.location
            for q in reach[u.type][u.location]:
                can_reach.setdefault(q, []).append(code)
        self.can_reach = can_reach
        # army province -> its convoy destinations; destination -> armies that need a
        # convoy to get there; fleet province -> the (army, destination) it could carry
        self.carried: dict[int, list[int]] = {}
        self.carried_to: dict[int, list[int]] = {}
        self.convoying: dict[int, list[tuple[int, int]]] = {}
        if fleets:
            for a, u in unit_at.items():
                if u.type != ARMY:
                    continue
                routes = convoys.routes(a)
                if not routes:
                    continue
                self.carried[a] = sorted(routes)
                for d in self.carried[a]:
                    if d not in m.army_moves[a]:
                        self.carried_to.setdefault(d, []).append(a)
                    for f in routes[d]:
                        self.convoying.setdefault(f, []).append((a, d))

    def orders_for(self, unit: Unit) -> list[Order]:
        m = self.m
        t, loc = unit.type, unit.location
        here = m.province_of[loc]
        orders: list[Order] = list(_moves(m, t, loc))
        carried = self.carried
        if here in carried:
            next_to = m.army_moves[here]
            # next to the destination, only an explicit VIA makes it a convoyed move
            orders += [Move(ARMY, loc, d, d in next_to) for d in carried[here]]
        unit_at = self.unit_at
        can_reach = self.can_reach
        carried_to = self.carried_to
        on_a_route = here in self.convoying
        mine = t * 1024 + loc
        for q, holds, moves in _supports(m, t, loc):
            other = unit_at.get(q)
            if other is not None:
                orders.append(holds[other.type * 1024 + other.location])
            if q in can_reach:
                orders += [moves[code] for code in can_reach[q] if code != mine]
            if q in carried_to:
                for a in carried_to[q]:
                    # a fleet cannot support a move that only it could convoy (DATC 6.D.31)
                    if a != here and (not on_a_route or self.convoys.fleets(a, q, here)):
                        orders.append(moves[ARMY * 1024 + a])
        if here in self.convoying:
            orders += [Convoy(FLEET, loc, a, d) for a, d in self.convoying[here]]
        return orders


#: The pure-Python :class:`_Board` of a movement position the compiled core does not answer, by position.
_BOARDS: _PerPosition[_Board] = _PerPosition(_Board, _POSITIONS_KEPT)

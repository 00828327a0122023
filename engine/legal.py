"""Legal order generation, for bots and for DAIDE ``MIS``.

"Legal" is meant as DATC 4.E.1 means it: an order that could be valid, whatever the
other orders are. Supports and convoys are listed only where they could match a
legal order of the unit they are for (so, as DATC 6.D.31 asks, no support by the
only fleet that could convoy the supported army).

>>> from engine.orders import format_order
>>> from engine.position import Position
>>> start = Position.initial()
>>> orders = legal_orders(start, "ENGLAND")
>>> [format_order(start.map, o) for o in orders[start.unit_in("LVP")]]  # doctest: +NORMALIZE_WHITESPACE
['A LVP H', 'A LVP - CLY', 'A LVP - EDI', 'A LVP - WAL', 'A LVP - YOR', 'A LVP S F EDI - CLY',
 'A LVP S F EDI', 'A LVP S F LON - WAL', 'A LVP S F EDI - YOR', 'A LVP S F LON - YOR']
"""

from __future__ import annotations

import functools

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
        board = _Board.of(position)
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
        return _Board.of(position).orders_for(unit)
    for d in position.dislodged:
        if d.unit == unit:
            return _retreat_orders(position.map, unit, d.retreats)
    return []


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
    return [Retreat(unit.type, unit.location, loc) for loc in sorted(retreats)] + [Disband(unit.type, unit.location)]


@functools.cache
def _moves(m: Map, unit_type: int, location: int) -> tuple[Order, ...]:
    """Hold and the moves over land or along coasts, which depend on the map alone."""
    if unit_type == ARMY:
        targets = sorted(m.army_moves[location])
    else:
        targets = sorted(m.fleet_moves[location])
    return (Hold(unit_type, location),) + tuple(Move(unit_type, location, t) for t in targets)


class _Board:
    """What legal orders depend on in one movement position, computed once per position."""

    __slots__ = ("position", "m", "convoys", "unit_at", "can_reach", "carried")

    def __init__(self, position: Position) -> None:
        m = position.map
        self.position = position
        self.m = m
        self.unit_at = position.unit_at
        fleets = frozenset(p for p, u in self.unit_at.items() if u.type == FLEET and m.kind[p] == SEA)
        self.convoys = ConvoyRoutes(m, fleets)
        # province -> provinces whose units could move there over land or along coasts
        can_reach: dict[int, list[int]] = {}
        reach = m.reach
        for p, u in self.unit_at.items():
            for q in reach[u.type][u.location]:
                can_reach.setdefault(q, []).append(p)
        # army province -> destinations reachable by convoy
        carried: dict[int, frozenset[int]] = {}
        if fleets:
            for p, u in self.unit_at.items():
                if u.type == ARMY:
                    destinations = self.convoys.destinations(p)
                    if destinations:
                        carried[p] = destinations
        self.can_reach = can_reach
        self.carried = carried

    @staticmethod
    def of(position: Position) -> _Board:
        board = position.__dict__.get("_legal_board")
        if board is None:
            board = position.__dict__["_legal_board"] = _Board(position)
        return board

    def orders_for(self, unit: Unit) -> list[Order]:
        m = self.m
        here = m.province_of[unit.location]
        t, loc = unit.type, unit.location
        orders: list[Order] = list(_moves(m, t, loc))
        for d in sorted(self.carried.get(here, ())):
            # next to the destination, only an explicit VIA makes it a convoyed move
            orders.append(Move(ARMY, loc, d, d in m.army_moves[here]))
        unit_at = self.unit_at
        at_sea = t == FLEET and m.kind[here] == SEA
        convoys = self.convoys
        for q in sorted(m.reach[t][loc]):
            other = unit_at.get(q)
            if other is not None:
                orders.append(SupportHold(t, loc, other.type, other.location))
            for p in self.can_reach.get(q, ()):
                if p != here:
                    mover = unit_at[p]
                    orders.append(SupportMove(t, loc, mover.type, mover.location, q))
            for a, destinations in self.carried.items():
                if a == here or q not in destinations or q in m.army_moves[a]:
                    continue
                # a fleet at sea cannot support a move that only it could convoy (DATC 6.D.31)
                if not at_sea or convoys.fleets(a, q, here):
                    orders.append(SupportMove(t, loc, ARMY, a, q))
        if at_sea:
            for a, destinations in self.carried.items():
                for d in sorted(destinations):
                    if here in convoys.fleets(a, d):
                        orders.append(Convoy(FLEET, loc, a, d))
        return orders

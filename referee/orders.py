"""Order checking: what the game master answers a submitted order, and what that means to a person.

:func:`check_order` gives the ``THX`` note of an order as ``SUB`` sends it (``MBV`` for an
order that could be valid whatever the others do; otherwise the most telling note of the
DAIDE syntax document), the key the order is kept under, and the engine's order;
:data:`NOTES` says each note in plain words, for the page.

>>> from engine import Position
>>> from protocol.daide.parser import parse
>>> sub = parse("SUB ((FRA AMY PAR) MTO BUR) ((FRA AMY MAR) MTO LON)")
>>> [check_order(Position.initial(), "FRA", order)[0] for order in sub.orders]
['MBV', 'FAR']
>>> NOTES["FAR"]
'the unit cannot reach that place (not adjacent, or no convoy can carry it)'
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import fields, replace
from typing import Any

import engine.orders as eo
from engine import Position, legal_orders_for
from engine.legal import adjustment_orders
from engine.maps import ARMY, FLEET, SEA, Map
from engine.position import ADJUSTMENTS, MOVEMENT, RETREATS, Unit
from protocol.daide.messages import (
    Build,
    Convoy,
    Disband,
    Hold,
    Move,
    MoveByConvoy,
    Order,
    Remove,
    Retreat,
    SupportHold,
    SupportMove,
    Waive,
)
from protocol.daide.orders import DaideOrderError, order_from_engine, order_to_engine

__all__ = ["NOTES", "check_order", "daide_order", "daide_text", "listed", "order_key"]

NOTES = {
    "FAR": "the unit cannot reach that place (not adjacent, or no convoy can carry it)",
    "NSP": "there is no such province",
    "NSU": "there is no such unit there",
    "NAS": "only a fleet at sea can convoy",
    "NSF": "there is no fleet there",
    "NSA": "there is no army there",
    "NYU": "that is not your unit",
    "NRN": "that unit needs no retreat",
    "NVR": "that is not a retreat the unit may make",
    "YSC": "that is not your supply centre",
    "ESC": "that supply centre is not empty",
    "HSC": "that is not one of your home supply centres",
    "NSC": "that is not a supply centre",
    "CST": "say which coast",
    "NMB": "you have no more builds",
    "NMR": "you have no more removals",
    "NRS": "that kind of order is not given in this phase",
}
"""What each ``THX`` note means, for a person."""


def order_key(m: Map, location: int) -> str:
    """The key an order is kept under: its unit's province (a new order replaces the old)."""
    return str(m.locations[m.province_of[location]])


_PHASE_ORDERS: dict[str, tuple[type, ...]] = {
    MOVEMENT: (Hold, Move, SupportHold, SupportMove, Convoy, MoveByConvoy),
    RETREATS: (Retreat, Disband),
    ADJUSTMENTS: (Build, Remove, Waive),
}


_FIELDS: dict[type, tuple[str, ...]] = {
    t: tuple(f.name for f in fields(t) if f.name != "via_convoy")
    for t in (eo.Hold, eo.Move, eo.SupportHold, eo.SupportMove, eo.Convoy, eo.Retreat, eo.Disband, eo.Build, eo.Waive)
}


def _matches(given: eo.Order, legal: eo.Order, m: Map) -> bool:
    """``given`` is ``legal``, where the types it leaves out (None) match any."""
    if type(given) is not type(legal):
        return False
    for name in _FIELDS[type(given)]:
        mine = getattr(given, name)
        if mine is not None and mine != getattr(legal, name):
            return False
    if isinstance(given, eo.Move) and isinstance(legal, eo.Move) and given.via_convoy and not legal.via_convoy:
        # a CTO must name a convoy the board allows; the list writes far convoys without the flag
        return m.province_of[legal.destination] not in m.army_moves[m.province_of[legal.location]]
    return True


def check_order(position: Position, power: str, order: Order) -> tuple[str, str | None, eo.Order | None]:
    """The ``THX`` note of ``power``'s ``order``, the key it is kept under, and the engine's order.

    Only an order that could be valid whatever the others do gets ``MBV`` (the game is not
    AOA); the others get the most telling note of the syntax document.
    """
    if position.phase.kind == MOVEMENT and isinstance(order, Hold | Move):
        plain = _plain(order, position.map, power)
        if plain is not None:
            engine_order, province, key = plain
            unit = position.unit_at.get(province)
            if (
                unit is not None
                and unit.power == power
                and unit.type == engine_order.type
                and unit.location == engine_order.location
            ):
                return "MBV", key, engine_order  # what the full check finds, without the unit's list
    return _full_check(position, power, order)


def _full_check(position: Position, power: str, order: Order) -> tuple[str, str | None, eo.Order | None]:
    """:func:`check_order` without its shortcut for a plain hold or move (see :func:`_plain`)."""
    m = position.map
    kind = position.phase.kind
    if not isinstance(order, _PHASE_ORDERS[kind]):
        return "NRS", None, None
    if isinstance(order, Waive):
        if order.power not in (None, power):
            return "NYU", None, None
        if position.adjustments.get(power, 0) <= 0:
            return "NMB", None, None
        return "MBV", "WVE", eo.Waive()
    if order.unit.power not in (None, power):
        return "NYU", None, None
    try:
        _, engine_order = order_to_engine(order, m, power)
    except DaideOrderError:
        return "NSP", None, None
    assert not isinstance(engine_order, eo.Waive)
    province = m.province_of[engine_order.location]
    key = m.locations[province]
    if kind == MOVEMENT:
        unit = position.unit_at.get(province)
        return _check_movement(position, power, engine_order, unit, key)
    if kind == RETREATS:
        dislodged = next((d for d in position.dislodged if m.province_of[d.unit.location] == province), None)
        if dislodged is None:
            here = position.unit_at.get(province)
            return ("NYU" if here is not None and here.power != power else "NRN" if here else "NSU"), None, None
        if dislodged.unit.power != power:
            return "NYU", None, None
        if not _same_unit(m, engine_order, dislodged.unit):
            return "NSU", None, None
        normal = _normal(engine_order, dislodged.unit)
        if any(_matches(normal, legal, m) for legal in legal_orders_for(position, dislodged.unit)):
            return "MBV", key, normal
        return "NVR", None, None
    # adjustments
    owed = position.adjustments.get(power, 0)
    if isinstance(engine_order, eo.Build):
        if not m.is_supply_center[province]:
            return "NSC", None, None
        if m.home_of[province] != power:
            return "HSC", None, None
        if position.centers[province] != power:
            return "YSC", None, None
        if province in position.unit_at:
            return "ESC", None, None
        if owed <= 0:
            return "NMB", None, None
        for legal in adjustment_orders(position, power):
            if isinstance(legal, eo.Build) and _matches(engine_order, legal, m):
                return "MBV", key, legal
        return "CST", None, None
    unit = position.unit_at.get(province)
    if unit is None or not _same_unit(m, engine_order, unit):
        return "NSU", None, None
    if unit.power != power:
        return "NYU", None, None
    if owed >= 0:
        return "NMR", None, None
    return "MBV", key, eo.Disband(unit.type, unit.location)


# The conversions below are kept by value, each in an LRU of its own (``cache_info()``,
# ``cache_clear()``): a DAIDE order is a frozen dataclass, so an equal order, wherever it was
# made, shares an entry, and an entry holds its key, so no later object is ever taken for a
# gone one (as a key made of an ``id()`` would be once its object was collected). The engine
# form of a support or a convoy is not kept: few come again, and hashing a DAIDE order (nested
# dataclasses, in Python) costs about what converting it does.
#
# The size of each: a game of seven DumbBots to 1920 gives some 550 distinct order texts, 430
# kept DAIDE forms and 350 plain holds and moves, and the orders of one phase mostly come
# again in the next few; 16,384 entries keep those of some thirty games a server plays at once
# (an entry is a few hundred bytes: some 5 MB at most), or every kept DAIDE form of the
# standard map (7 powers x some 1,370 holds, moves, retreats, disbands and builds).
_ORDERS_KEPT = 16_384


@functools.lru_cache(maxsize=_ORDERS_KEPT)
def _plain(order: Hold | Move, m: Map, power: str) -> tuple[eo.Hold | eo.Move, int, str] | None:
    """For a hold or a move of ``power``'s own unit which is legal in any position where that
    very unit (type, location, power) stands: a hold, or a move not by convoy to a place next
    to it (the first orders of every unit's legal list, made from the map alone), its engine
    order, province and key; else None. Kept, as :func:`check_order` asks for most orders."""
    if order.unit.power not in (None, power):
        return None
    try:
        _, engine_order = order_to_engine(order, m, power)
    except DaideOrderError:
        return None
    if engine_order.type is None:
        return None
    t, location = engine_order.type, engine_order.location
    moves = m.army_moves if t == ARMY else m.fleet_moves
    if type(engine_order) is eo.Hold or (
        type(engine_order) is eo.Move and not engine_order.via_convoy and engine_order.destination in moves[location]
    ):
        province = m.province_of[location]
        return engine_order, province, m.locations[province]
    return None


@functools.lru_cache(maxsize=_ORDERS_KEPT)
def daide_text(order: Order) -> str:
    """``str(order)``, kept (the record of a ``SUB`` keeps its orders' texts, and a game gives
    the same orders again and again)."""
    return str(order)


def daide_order(power: str, order: eo.Order, position: Position) -> Order:
    """``order_from_engine(power, order, position)``, kept where it depends on nothing but the
    order's fields, ``power``, the map and the kind of phase: a hold, a disband, a build, a
    retreat or a move not by convoy, naming its unit's type (a support or a convoy names
    another unit as the position shows it; a convoyed move, a route through its fleets).

    Those are most orders, and a game gives the same few hundred again and again: the
    sessions convert each order they send, the game master each order's result. Kept by a
    tuple of plain fields, which hashes in C (an engine order, a dataclass, in Python).

    >>> from engine import Position
    >>> start = Position.initial()
    >>> move = eo.Move(0, start.map.location("PAR"), start.map.location("BUR"))
    >>> str(daide_order("FRA", move, start))
    '(FRA AMY PAR) MTO BUR'
    >>> daide_order("FRA", move, start) is daide_order("FRA", eo.Move(0, move.location, move.destination), start)
    True
    """
    kind = type(order)
    values: tuple[int, ...]
    if kind is eo.Move or kind is eo.Retreat:
        if order.type is None or (kind is eo.Move and order.via_convoy):
            return order_from_engine(power, order, position)
        values = (order.type, order.location, order.destination)
    elif kind is eo.Hold or kind is eo.Disband or kind is eo.Build:
        if order.type is None:
            return order_from_engine(power, order, position)
        values = (order.type, order.location)
    else:
        return order_from_engine(power, order, position)
    return _kept_daide_order(position.map, power, position.phase.kind, kind, values)


@functools.lru_cache(maxsize=_ORDERS_KEPT)
def _kept_daide_order(m: Map, power: str, phase_kind: str, kind: type[eo.Order], values: tuple[int, ...]) -> Order:
    """The DAIDE order :func:`daide_order` keeps: ``power``'s order ``kind(*values)`` on the map
    alone (such an order names no other unit and no route), its ``DSB`` or ``REM`` by the
    kind of phase."""
    return order_from_engine(power, kind(*values), m, phase_kind)


def listed(order: eo.Order, options: Sequence[eo.Order]) -> bool:
    """``order in options``, comparing only options of its type: ``in`` runs the dataclasses'
    ``__eq__`` (in Python) both ways on every option of another type before the one it finds,
    and a unit's list has dozens of supports after its moves. (A dataclass equals only an
    instance of its very class, so the answer is the same.)

    >>> hold, move = eo.Hold(0, 1), eo.Move(0, 1, 2)
    >>> listed(eo.Move(0, 1, 2), [hold, move]), listed(eo.Move(0, 1, 3), [hold, move])
    (True, False)
    """
    kind = type(order)
    for option in options:
        if type(option) is kind and option == order:
            return True
    return False


def _normal(order: Any, unit: Unit) -> Any:
    """``order`` with the type and location of the unit it names (the order itself if it
    names them so already, as nearly every order does)."""
    if order.type == unit.type and order.location == unit.location:
        return order
    return replace(order, type=unit.type, location=unit.location)


def _same_unit(m: Map, order: Any, unit: Unit) -> bool:
    """The order names ``unit``: its type if given, and its coast if the order names one."""
    if order.type is not None and order.type != unit.type:
        return False
    return bool(order.location == unit.location or order.location == m.province_of[unit.location])


def _check_movement(
    position: Position, power: str, order: Any, unit: Unit | None, key: str
) -> tuple[str, str | None, eo.Order | None]:
    m = position.map
    if unit is None or not _same_unit(m, order, unit):
        return "NSU", None, None
    if unit.power != power:
        return "NYU", None, None
    normal = _normal(order, unit)
    legal_orders = legal_orders_for(position, unit)
    if listed(normal, legal_orders) or any(_matches(normal, legal, m) for legal in legal_orders):
        return "MBV", key, normal
    if isinstance(normal, eo.Move) and normal.via_convoy:
        return ("NSA" if unit.type != ARMY else "FAR"), None, None
    if isinstance(normal, eo.SupportHold | eo.SupportMove):
        if m.province_of[normal.supported_location] not in position.unit_at:
            return "NSU", None, None
        return "FAR", None, None
    if isinstance(normal, eo.Convoy):
        if unit.type != FLEET:
            return "NSF", None, None
        if m.kind[m.province_of[unit.location]] != SEA:
            return "NAS", None, None
        army = position.unit_at.get(normal.army_location)
        if army is None or army.type != ARMY:
            return "NSA", None, None
    return "FAR", None, None

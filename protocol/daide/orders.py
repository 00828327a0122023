"""DAIDE orders, units, turns and maps to the engine's values and back.

The engine names powers in full (``"ENGLAND"``) and places by location number; DAIDE names
them with tokens (``ENG``, ``(STP NCS)``). An engine order leaves out what DAIDE writes
about other units (who owns a supported unit) and the sea route of a convoyed move, so
:func:`order_from_engine` takes the position to find them; given only the map, it writes
such units loosely (``(FLT LON)``, a form ``SUB`` accepts) and routes convoys over any seas.

>>> from engine import Position, parse_order
>>> start = Position.initial()
>>> order = order_from_engine("FRA", parse_order(start.map, "A MAR S A PAR - BUR"), start)
>>> str(order)
'(FRA AMY MAR) SUP (FRA AMY PAR) MTO BUR'
>>> power, back = order_to_engine(order, start.map)
>>> power, back == parse_order(start.map, "A MAR S A PAR - BUR")
('FRA', True)
"""

from __future__ import annotations

from collections import deque
from collections.abc import Collection

import engine.orders as eo
from engine.maps import ARMY, FLEET, LAND, SEA, Map
from engine.position import ADJUSTMENTS, RETREATS, Position, Unit
from protocol.daide.messages import (
    Build,
    CoastAdjacency,
    Convoy,
    DaideUnit,
    Disband,
    Hold,
    HomeCentres,
    Location,
    LooseUnit,
    Mdf,
    Move,
    MoveByConvoy,
    Order,
    ProvinceAdjacency,
    Remove,
    Retreat,
    SupportHold,
    SupportMove,
    Waive,
)

__all__ = [
    "DaideOrderError",
    "convoy_route",
    "location_from_engine",
    "location_to_engine",
    "map_definition",
    "order_from_engine",
    "order_to_engine",
    "province_categories",
    "unit_from_engine",
    "unit_to_engine",
]


class DaideOrderError(ValueError):
    """A DAIDE order or unit that names nothing on the map, or that the engine cannot express."""


_COAST = {"NC": "NCS", "SC": "SCS", "EC": "ECS", "WC": "WCS"}
_TYPES = {"AMY": ARMY, "FLT": FLEET}
_TYPE_NAMES = {ARMY: "AMY", FLEET: "FLT"}


# --- turns, places, units --------------------------------------------------------------------------


def location_to_engine(location: Location, m: Map) -> int:
    """The engine's location of ``LON`` or ``(STP NCS)`` (a coast the province lacks is dropped)."""
    name = location.province if location.coast is None else f"{location.province} {location.coast}"
    try:
        return m.location(name)
    except KeyError:
        raise DaideOrderError(f"unknown province {location.province}") from None


def location_from_engine(location: int, m: Map) -> Location:
    province = m.province_of[location]
    if province == location:
        return Location(m.locations[location])
    return Location(m.locations[province], _COAST[m.locations[location].split("/")[1]])


def _power(token: str, m: Map) -> str:
    if token not in m.powers:
        raise DaideOrderError(f"unknown power {token}")
    return token


def unit_to_engine(unit: DaideUnit, m: Map) -> Unit:
    if unit.unit_type not in _TYPES:
        raise DaideOrderError(f"{unit.unit_type} is no unit type of the board")
    return Unit(_power(unit.power, m), _TYPES[unit.unit_type], location_to_engine(unit.location, m))


def unit_from_engine(unit: Unit, m: Map) -> DaideUnit:
    return DaideUnit(unit.power, _TYPE_NAMES[unit.type], location_from_engine(unit.location, m))


# --- orders ------------------------------------------------------------------------------------------


def _parts(unit: DaideUnit | LooseUnit, m: Map) -> tuple[str | None, int | None, int]:
    unit_type = None if unit.unit_type is None else _TYPES.get(unit.unit_type)
    if unit.unit_type is not None and unit_type is None:
        raise DaideOrderError(f"{unit.unit_type} is no unit type of the board")
    power = None if unit.power is None else _power(unit.power, m)
    return power, unit_type, location_to_engine(unit.location, m)


def order_to_engine(order: Order, m: Map, power: str | None = None) -> tuple[str, eo.Order]:
    """The power (in full) and the engine's order of a DAIDE order.

    ``power`` is the power to assume where a loosely written order leaves it out (the one
    that submitted it). The sea route of ``CTO ... VIA`` is not kept: the engine finds routes
    itself.
    """
    if isinstance(order, Waive):
        owner = power if order.power is None else _power(order.power, m)
        if owner is None:
            raise DaideOrderError("WVE names no power")
        return owner, eo.Waive()
    named, unit_type, location = _parts(order.unit, m)
    owner = named or power
    if owner is None:
        raise DaideOrderError(f"{order} names no power")
    province = m.province_of
    result: eo.Order
    if isinstance(order, Hold):
        result = eo.Hold(unit_type, location)
    elif isinstance(order, Move):
        result = eo.Move(unit_type, location, location_to_engine(order.destination, m))
    elif isinstance(order, MoveByConvoy):
        result = eo.Move(unit_type, location, location_to_engine(order.destination, m), True)
    elif isinstance(order, SupportHold):
        _, supported_type, supported = _parts(order.supported, m)
        result = eo.SupportHold(unit_type, location, supported_type, supported)
    elif isinstance(order, SupportMove):
        _, supported_type, supported = _parts(order.supported, m)
        destination = province[location_to_engine(order.destination, m)]
        result = eo.SupportMove(unit_type, location, supported_type, supported, destination)
    elif isinstance(order, Convoy):
        _, _, army = _parts(order.army, m)
        result = eo.Convoy(unit_type, location, province[army], province[location_to_engine(order.destination, m)])
    elif isinstance(order, Retreat):
        result = eo.Retreat(unit_type, location, location_to_engine(order.destination, m))
    elif isinstance(order, Disband | Remove):
        result = eo.Disband(unit_type, location)
    elif isinstance(order, Build):
        result = eo.Build(unit_type, location)
    else:
        raise DaideOrderError(f"not an order: {order!r}")
    return owner, result


def _other_unit(unit_type: int | None, location: int, board: Position | Map) -> DaideUnit | LooseUnit:
    """A unit named by an order of another unit: complete where the position shows it."""
    if isinstance(board, Position):
        m = board.map
        found = board.unit_at.get(m.province_of[location])
        if found is not None and (unit_type is None or found.type == unit_type):
            return DaideUnit(found.power, _TYPE_NAMES[found.type], location_from_engine(location, m))
    else:
        m = board
    return LooseUnit(None, None if unit_type is None else _TYPE_NAMES[unit_type], location_from_engine(location, m))


def _own_unit(power: str, unit_type: int | None, location: int, board: Position | Map) -> DaideUnit | LooseUnit:
    m = board.map if isinstance(board, Position) else board
    if unit_type is None and isinstance(board, Position):
        province = m.province_of[location]
        candidates = [d.unit for d in board.dislodged] + list(board.units)
        for candidate in candidates:
            if m.province_of[candidate.location] == province and candidate.power == power:
                unit_type = candidate.type
                break
    if unit_type is None:
        return LooseUnit(power, None, location_from_engine(location, m))
    return DaideUnit(power, _TYPE_NAMES[unit_type], location_from_engine(location, m))


def order_from_engine(power: str, order: eo.Order, board: Position | Map, phase_kind: str | None = None) -> Order:
    """The DAIDE order of ``power``'s engine order.

    ``board`` is the position the order is for, or just the map. ``phase_kind`` (``"M"``,
    ``"R"`` or ``"A"``, by default the position's) tells a retreat phase's ``DSB`` from an
    adjustment phase's ``REM``.
    """
    m = board.map if isinstance(board, Position) else board
    kind = phase_kind or (board.phase.kind if isinstance(board, Position) else "M")
    if isinstance(order, eo.Waive):
        return Waive(power)
    unit = _own_unit(power, order.type, order.location, board)
    if isinstance(order, eo.Hold):
        return Hold(unit)
    if isinstance(order, eo.Move):
        destination = location_from_engine(order.destination, m)
        if not order.via_convoy:
            return Move(unit, destination)
        route = convoy_route(m, order.location, order.destination, _fleets(board))
        if route is None:
            route = convoy_route(m, order.location, order.destination)
        if route is None:
            raise DaideOrderError(f"no sea route for {eo.format_order(m, order)}")
        return MoveByConvoy(unit, destination, route)
    if isinstance(order, eo.SupportHold):
        return SupportHold(unit, _other_unit(order.supported_type, order.supported_location, board))
    if isinstance(order, eo.SupportMove):
        supported = _other_unit(order.supported_type, order.supported_location, board)
        return SupportMove(unit, supported, Location(m.locations[m.province_of[order.destination]]))
    if isinstance(order, eo.Convoy):
        army = _other_unit(ARMY, order.army_location, board)
        return Convoy(unit, army, Location(m.locations[m.province_of[order.destination]]))
    if isinstance(order, eo.Retreat):
        return Retreat(unit, location_from_engine(order.destination, m))
    if isinstance(order, eo.Disband):
        return Remove(unit) if kind == ADJUSTMENTS else Disband(unit)
    if isinstance(order, eo.Build):
        return Build(unit)
    raise DaideOrderError(f"not an engine order: {order!r}")


def _fleets(board: Position | Map) -> frozenset[int] | None:
    if not isinstance(board, Position) or board.phase.kind == RETREATS:
        return None
    m = board.map
    return frozenset(p for p, u in board.unit_at.items() if u.type == FLEET and m.kind[p] == SEA)


def convoy_route(m: Map, start: int, end: int, seas: Collection[int] | None = None) -> tuple[str, ...] | None:
    """The sea provinces of a shortest convoy route from ``start`` to ``end`` (locations), in
    the order the army passes them, using only ``seas`` if given; None if there is none.

    >>> from engine import standard_map
    >>> m = standard_map()
    >>> convoy_route(m, m.location("TUN"), m.location("SYR"))
    ('ION', 'EAS')
    """
    start, end = m.province_of[start], m.province_of[end]
    allowed = [p for p in m.provinces if m.kind[p] == SEA and (seas is None or p in seas)]
    open_seas = set(allowed)
    came_from: dict[int, int | None] = {}
    queue: deque[int] = deque()
    for sea in sorted(m.seas_touching[start]):
        if sea in open_seas:
            came_from[sea] = None
            queue.append(sea)
    while queue:
        sea = queue.popleft()
        if end in m.fleet_reach[sea] and end != start:
            route = [sea]
            while (previous := came_from[route[-1]]) is not None:
                route.append(previous)
            return tuple(m.locations[p] for p in reversed(route))
        for there in sorted(m.fleet_reach[sea]):
            if there in open_seas and there not in came_from:
                came_from[there] = sea
                queue.append(there)
    return None


# --- the map ------------------------------------------------------------------------------------------


def province_categories(m: Map) -> dict[str, tuple[str, ...]]:
    """The provinces of a map by token category, for :class:`~protocol.daide.parser.DaideParser`."""
    categories: dict[str, list[str]] = {}
    for p in m.provinces:
        if m.kind[p] == LAND:
            kind = "INLAND"
        elif m.kind[p] == SEA:
            kind = "SEA"
        else:
            kind = "BICOASTAL" if m.coasts[p] else "COASTAL"
        if m.is_supply_center[p]:
            kind += "_SC"
        categories.setdefault(kind, []).append(m.locations[p])
    return {kind: tuple(names) for kind, names in categories.items()}


def map_definition(m: Map) -> Mdf:
    """The ``MDF`` message of a map: its powers, home and neutral centres, and adjacencies."""
    names = m.locations
    powers = m.powers
    owners: dict[int, list[str]] = {}
    for power in m.powers:
        for p in m.homes.get(power, ()):
            owners.setdefault(p, []).append(power)
    groups: dict[str | tuple[str, ...], list[str]] = {power: [] for power in powers}
    for p in m.supply_centers:
        homes = owners.get(p, [])
        key: str | tuple[str, ...] = "UNO" if not homes else homes[0] if len(homes) == 1 else tuple(homes)
        groups.setdefault(key, []).append(names[p])
    centres = tuple(HomeCentres(key, tuple(sorted(found))) for key, found in groups.items())
    non_centres = tuple(names[p] for p in m.provinces if not m.is_supply_center[p])

    def places(locations: Collection[int]) -> tuple[Location, ...]:
        return tuple(sorted((location_from_engine(loc, m) for loc in locations), key=str))

    adjacencies = []
    for p in m.provinces:
        coasts = []
        if m.kind[p] != SEA:
            coasts.append(CoastAdjacency("AMY", None, places(m.army_moves[p])))
        if m.kind[p] != LAND:
            if m.coasts[p]:
                for coast in m.coasts[p]:
                    coasts.append(
                        CoastAdjacency("FLT", location_from_engine(coast, m).coast, places(m.fleet_moves[coast]))
                    )
            else:
                coasts.append(CoastAdjacency("FLT", None, places(m.fleet_moves[p])))
        adjacencies.append(ProvinceAdjacency(names[p], tuple(coasts)))
    return Mdf(powers, centres, non_centres, tuple(adjacencies))

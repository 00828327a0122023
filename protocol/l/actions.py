"""L's units, regions and actions to the engine's units and orders, and back.

L names a unit by its power and region (``Unit(fra, Region(stp, ncs))``); the engine by
power, unit type and location number. An L action says whose units it moves
(``sup(Unit(rus, ...), mto(Unit(ita, ...), ...))``), an engine order does not, so
:func:`action_from_order` takes the position to find the owners.

>>> from engine import Position, parse_order
>>> start = Position.initial()
>>> action = action_from_order(start, "FRA", parse_order(start.map, "A MAR S A PAR - BUR"))
>>> str(action)
'sup(Unit(fra, Region(mar, amy)), mto(Unit(fra, Region(par, amy)), Region(bur, amy)))'
>>> power, order = order_from_action(start.map, action)
>>> power, order == parse_order(start.map, "A MAR S A PAR - BUR")
('FRA', True)
"""

from __future__ import annotations

import engine.orders as eo
from engine.maps import ARMY, FLEET, SEA, Map
from engine.position import ADJUSTMENTS, RETREATS, Position
from engine.position import Unit
from protocol.l import ast as a

__all__ = [
    "ActionError",
    "action_from_order",
    "order_from_action",
    "region_from_location",
    "region_to_location",
    "unit_from_engine",
    "unit_to_engine",
]

_COAST_RTYPES = {"NC": "ncs", "SC": "scs", "EC": "ecs", "WC": "wcs"}


class ActionError(ValueError):
    """An L unit, region or action that has no meaning on the map (or an order with no unit)."""


def region_from_location(m: Map, unit_type: int, location: int) -> a.Region:
    """The region of a unit of ``unit_type`` at ``location``: ``amy``, ``sea``, ``coast`` or a coast."""
    province = m.locations[m.province_of[location]].lower()
    if unit_type == ARMY:
        return a.Region(province, "amy")
    if location != m.province_of[location]:
        return a.Region(province, _COAST_RTYPES[m.locations[location].split("/")[1]])
    return a.Region(province, "sea" if m.kind[location] == SEA else "coast")


def region_to_location(m: Map, region: a.Region) -> tuple[int, int]:
    """The unit type and location of an L region (``ActionError`` when the map has none)."""
    try:
        province = m.location(region.province)
    except KeyError:
        raise ActionError(f"no province {region.province} on the map") from None
    if region.rtype == "amy":
        return ARMY, province
    if region.rtype in ("sea", "coast"):
        return FLEET, province
    coast = f"{m.locations[province]}/{region.rtype[:2].upper()}"
    if coast not in m.locations:
        raise ActionError(f"{region.province} has no coast {region.rtype}")
    return FLEET, m.locations.index(coast)


def unit_from_engine(m: Map, unit: Unit) -> a.Unit:
    return a.Unit(unit.power, region_from_location(m, unit.type, unit.location))


def unit_to_engine(m: Map, unit: a.Unit) -> Unit:
    if unit.power not in m.powers:
        raise ActionError(f"no power {unit.power.lower()} on the map")
    unit_type, location = region_to_location(m, unit.region)
    return Unit(unit.power, unit_type, location)


def action_from_order(position: Position, power: str, order: eo.Order) -> a.Action:
    """The L action of ``power``'s engine ``order`` in ``position`` (``ActionError`` when an
    order names a unit the position does not have, other than a build)."""
    m = position.map

    def unit_at(location: int, owner: str | None = None) -> a.Unit:
        # in a retreat phase the unit ordered is the dislodged one, not its dislodger
        province = m.province_of[location]
        found = next((d.unit for d in position.dislodged if m.province_of[d.unit.location] == province), None)
        if found is None or position.phase.kind != RETREATS:
            found = position.unit_at.get(province, found)
        if found is None or (owner is not None and found.power != owner):
            raise ActionError(f"no unit of {owner or 'any power'} at {m.name_of(location)}")
        return unit_from_engine(m, found)

    def army_region(location: int) -> a.Region:
        return region_from_location(m, ARMY, location)

    def region_for(unit: a.Unit, destination: int) -> a.Region:
        unit_type = ARMY if unit.region.rtype == "amy" else FLEET
        return region_from_location(m, unit_type, destination)

    if isinstance(order, eo.Waive):
        return a.Wve(power)
    if isinstance(order, eo.Build):
        unit_type = order.type if order.type is not None else ARMY
        return a.Bld(unit_from_engine(m, Unit(power, unit_type, order.location)))
    actor = unit_at(order.location, power)
    if isinstance(order, eo.Hold):
        return a.Hld(actor)
    if isinstance(order, eo.Move):
        if order.via_convoy:
            return a.Cto(actor, army_region(order.destination))
        return a.Mto(actor, region_for(actor, order.destination))
    if isinstance(order, eo.SupportHold):
        return a.Sup(actor, a.Hld(unit_at(order.supported_location)))
    if isinstance(order, eo.SupportMove):
        supported = unit_at(order.supported_location)
        return a.Sup(actor, a.Mto(supported, region_for(supported, order.destination)))
    if isinstance(order, eo.Convoy):
        return a.Cvy(actor, a.Cto(unit_at(order.army_location), army_region(order.destination)))
    if isinstance(order, eo.Retreat):
        return a.Rto(actor, region_for(actor, order.destination))
    if isinstance(order, eo.Disband):
        if position.phase.kind == ADJUSTMENTS:
            return a.Rem(actor)
        return a.Dsb(actor)
    raise ActionError(f"not an order: {order!r}")  # pragma: no cover - the union is exhausted


def order_from_action(m: Map, action: a.Action) -> tuple[str, eo.Order]:
    """The power that gives ``action`` and the engine order it is."""
    if isinstance(action, a.Wve):
        if action.power not in m.powers:
            raise ActionError(f"no power {action.power.lower()} on the map")
        return action.power, eo.Waive()
    actor = unit_to_engine(m, action.unit)
    power, unit_type, location = actor.power, actor.type, actor.location
    order: eo.Order
    if isinstance(action, a.Hld):
        order = eo.Hold(unit_type, location)
    elif isinstance(action, a.Mto):
        order = eo.Move(unit_type, location, region_to_location(m, action.region)[1])
    elif isinstance(action, a.Cto):
        order = eo.Move(unit_type, location, region_to_location(m, action.region)[1], via_convoy=True)
    elif isinstance(action, a.Sup):
        supported = unit_to_engine(m, action.order.unit)
        if isinstance(action.order, a.Hld):
            order = eo.SupportHold(unit_type, location, supported.type, supported.location)
        else:
            destination = region_to_location(m, action.order.region)[1]
            order = eo.SupportMove(unit_type, location, supported.type, supported.location, destination)
    elif isinstance(action, a.Cvy):
        army = unit_to_engine(m, action.move.unit)
        order = eo.Convoy(unit_type, location, army.location, region_to_location(m, action.move.region)[1])
    elif isinstance(action, a.Rto):
        order = eo.Retreat(unit_type, location, region_to_location(m, action.region)[1])
    elif isinstance(action, a.Dsb | a.Rem):
        order = eo.Disband(unit_type, location)
    elif isinstance(action, a.Bld):
        order = eo.Build(unit_type, location)
    else:  # pragma: no cover - the union is exhausted
        raise ActionError(f"not an action: {action!r}")
    return power, order

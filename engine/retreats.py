"""Adjudication of a retreat phase.

A dislodged unit retreats to one of the places it was allowed when it was dislodged,
or disbands. Two retreats to the same province both fail and both units disband; a
unit with no valid retreat order disbands.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from engine import _native
from engine.maps import FLEET
from engine.orders import Disband, Order, Retreat
from engine.position import Dislodged, Position, Unit, named_unit
from engine.results import Result


def adjudicate_retreats(
    position: Position, orders: Mapping[str, Iterable[Order]]
) -> tuple[tuple[Unit, ...], dict[Unit, tuple[str, ...]]]:
    """The units after the retreat phase, and the result words (see :func:`reference_adjudicate_retreats`).

    The compiled core answers where it is active and the input is one it models; the
    reference answers the rest (and everything under ``DETENTE_PURE_PYTHON=1``).
    """
    core = _native.core_for(position.map)
    if core is not None:
        outcome = core.adjudicate_other(position.units, position.dislodged, position.centers, orders, False)
        if outcome is not None:
            return outcome
    return reference_adjudicate_retreats(position, orders)


def reference_adjudicate_retreats(
    position: Position, orders: Mapping[str, Iterable[Order]]
) -> tuple[tuple[Unit, ...], dict[Unit, tuple[str, ...]]]:
    """The units after the retreats, and the result words of each dislodged unit."""
    m = position.map
    province_of = m.province_of
    waiting = {province_of[d.unit.location]: d for d in position.dislodged}
    chosen: dict[int, list[int]] = {}  # province -> retreat locations ordered (-1: disband)
    ordered: set[int] = set()
    void: dict[Unit, tuple[str, ...]] = {}  # orders for units that are not retreating
    for power, power_orders in orders.items():
        for order in power_orders:
            location = getattr(order, "location", None)
            if location is None:
                continue
            here = province_of[location]
            d = waiting.get(here)
            if d is None:
                void[position.unit_at.get(here) or named_unit(power, order)] = (Result.VOID,)
                continue
            ordered.add(here)
            if d.unit.power != power or not isinstance(order, (Retreat, Disband)):
                continue
            destination = -1 if isinstance(order, Disband) else _retreat_location(m, d, order.destination)
            if destination is not None:
                chosen.setdefault(here, []).append(destination)

    going: dict[int, int] = {}
    for here, destinations in chosen.items():
        if all(x == destinations[0] for x in destinations) and destinations[0] >= 0:
            going[here] = destinations[0]
    arrivals: dict[int, int] = {}
    for target in going.values():
        arrivals[province_of[target]] = arrivals.get(province_of[target], 0) + 1

    units = list(position.units)
    results = void
    for here, d in waiting.items():
        loc = going.get(here, -1)
        if loc >= 0 and arrivals[province_of[loc]] == 1:
            units.append(Unit(d.unit.power, d.unit.type, loc))
            results[d.unit] = (Result.OK,)
        elif loc >= 0:
            results[d.unit] = (Result.BOUNCE, Result.DISBAND)
        elif here in chosen and chosen[here] == [-1] * len(chosen[here]):
            results[d.unit] = (Result.DISBAND,)
        elif here in ordered:
            results[d.unit] = (Result.VOID, Result.DISBAND)
        else:
            results[d.unit] = (Result.DISBAND,)
    return tuple(units), results


def _retreat_location(m, d: Dislodged, written: int) -> int | None:
    """The allowed location a retreat order names, or None (coasts as DATC 4.B)."""
    if d.unit.type != FLEET:
        province = m.province_of[written]
        return province if province in d.retreats else None
    if written in d.retreats:
        return written
    if m.province_of[written] == written:
        possible = [loc for loc in d.retreats if m.province_of[loc] == written]
        if len(possible) == 1:
            return possible[0]
    return None

"""Adjudication of a winter adjustment phase: builds, removals, waives, civil disorder.

Orders are taken one by one, the first legal ones first (DATC 4.D.4-4.D.6); a power
that removes too few units loses the rest by the 2023 rule (DATC 4.D.8): farthest
first from its nearest owned supply centre, counting moves over land and sea alike;
at equal distance fleets before armies, then by the English name of the province.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from engine import _native
from engine.maps import ARMY, COAST, FLEET, SEA, Map
from engine.orders import Build, Disband, Order, Waive
from engine.position import Position, Unit, named_unit
from engine.results import Result


def adjudicate_adjustments(
    position: Position, orders: Mapping[str, Iterable[Order]]
) -> tuple[tuple[Unit, ...], dict[Unit, tuple[str, ...]]]:
    """The units after the adjustment phase, and the result words (see :func:`reference_adjudicate_adjustments`).

    The compiled core answers where it is active and the input is one it models; the
    reference answers the rest (and everything under ``DETENTE_PURE_PYTHON=1``).
    """
    core = _native.core_for(position.map)
    if core is not None:
        outcome = core.adjudicate_other(position.units, position.dislodged, position.centers, orders, True)
        if outcome is not None:
            return outcome
    return reference_adjudicate_adjustments(position, orders)


def reference_adjudicate_adjustments(
    position: Position, orders: Mapping[str, Iterable[Order]]
) -> tuple[tuple[Unit, ...], dict[Unit, tuple[str, ...]]]:
    """The units after the adjustments, and the result words of each order."""
    m = position.map
    province_of = m.province_of
    owed = position.adjustments
    unit_at = position.unit_at
    units = {province_of[u.location]: u for u in position.units}
    results: dict[Unit, tuple[str, ...]] = {}

    for power, power_orders in orders.items():
        left = owed.get(power, 0)
        for order in power_orders:
            if isinstance(order, Waive):
                if left > 0:
                    left -= 1
                continue
            if isinstance(order, Build):
                unit = _buildable(m, position, power, order, units)
                if unit is not None and left > 0:
                    units[province_of[unit.location]] = unit
                    results[unit] = (Result.OK,)
                    left -= 1
                else:
                    results.setdefault(named_unit(power, order), (Result.VOID,))
            elif isinstance(order, Disband):
                here = province_of[order.location]
                unit = unit_at.get(here)
                if unit is None:
                    results.setdefault(named_unit(power, order), (Result.VOID,))
                    continue
                if left < 0 and unit.power == power and here in units and unit not in results:
                    del units[here]
                    results[unit] = (Result.OK,)
                    left += 1
                else:
                    results.setdefault(unit, (Result.VOID,))
        owed = {**owed, power: left}

    for power, left in owed.items():
        if left < 0:
            for unit in _civil_disorder(m, position, power, [u for u in units.values() if u.power == power])[:-left]:
                del units[province_of[unit.location]]
                results[unit] = (Result.DISBAND,)
    return tuple(units.values()), results


def _buildable(m: Map, position: Position, power: str, order: Build, units: dict[int, Unit]) -> Unit | None:
    """The unit a build order makes, or None where it may not be built (DATC 4.B.7, 4.C.3-4)."""
    here = m.province_of[order.location]
    if m.home_of[here] != power or position.centers[here] != power or here in units:
        return None
    unit_type = order.type
    if unit_type is None:
        if m.kind[here] == COAST and order.location == here:
            return None
        unit_type = FLEET if order.location != here else ARMY
    if unit_type == ARMY:
        return None if m.kind[here] == SEA else Unit(power, ARMY, here)
    if m.kind[here] != COAST:
        return None
    if m.coasts[here] and order.location == here:
        return None
    return Unit(power, FLEET, order.location)


def _civil_disorder(m: Map, position: Position, power: str, units: list[Unit]) -> list[Unit]:
    """The units of ``power`` in the order the civil disorder rule removes them."""
    owned = [p for p, owner in enumerate(position.centers) if owner == power]
    far = len(m.locations)

    def key(unit: Unit) -> tuple[int, int, str]:
        row = m.distances[m.province_of[unit.location]]
        distance = min((row[c] for c in owned if row[c] >= 0), default=far)
        return (-distance, 0 if unit.type == FLEET else 1, m.english_names[unit.location])

    return sorted(units, key=key)

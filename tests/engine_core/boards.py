"""Random boards and orders (legal and garbage) for comparing the two cores, and the comparison:
the object API under both cores, and the batch API against the reference.

Used by the differential tests here and by ``benchmarks/core_differential.py``.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any

from engine import _native, adjudicate, legal_orders, legal_orders_for
from engine.batch import (
    adjudicate_many,
    decode_legal,
    decode_outcome,
    encode_orders,
    encode_position,
    legal_orders_many,
)
from engine.maps import ARMY, COAST, FLEET, LAND, Map
from engine.orders import Build, Convoy, Disband, Hold, Move, Order, Retreat, SupportHold, SupportMove, Waive
from engine.position import ADJUSTMENTS, MOVEMENT, RETREATS, Dislodged, Phase, Position, Unit


def random_unit(rng: random.Random, m: Map, power: str, province: int, garbage: bool) -> Unit:
    """A unit that may stand in ``province`` (or, if ``garbage``, sometimes one that may not)."""
    kind = m.kind[province]
    if garbage and rng.random() < 0.05:
        return Unit(power, rng.choice((ARMY, FLEET)), province)
    if kind == LAND or (kind == COAST and rng.random() < 0.5):
        return Unit(power, ARMY, province)
    coasts = m.coasts[province]
    return Unit(power, FLEET, rng.choice(coasts) if coasts else province)


def random_position(rng: random.Random, m: Map, phase_kind: str, garbage: bool = True) -> Position:
    """A random position of the given phase kind: units, owners and (retreats) dislodged units."""
    provinces = list(m.provinces)
    rng.shuffle(provinces)
    count = rng.randint(0, 34)
    powers = list(m.powers)
    units = tuple(random_unit(rng, m, rng.choice(powers), p, garbage) for p in provinces[:count])
    centers = tuple(
        rng.choice(powers) if m.is_supply_center[p] and rng.random() < 0.8 else None for p in range(len(m.locations))
    )
    dislodged: tuple[Dislodged, ...] = ()
    if phase_kind == RETREATS:
        gone = []
        for p in rng.sample(provinces, rng.randint(1, 4)):
            u = random_unit(rng, m, rng.choice(powers), p, garbage)
            options = sorted(m.army_moves[p] if u.type == ARMY else m.fleet_moves[u.location])
            gone.append(Dislodged(u, frozenset(rng.sample(options, rng.randint(0, len(options))))))
        dislodged = tuple(gone)
    season = {MOVEMENT: rng.choice("SF"), RETREATS: rng.choice("SF"), ADJUSTMENTS: "W"}[phase_kind]
    return Position(m, Phase(1901 + rng.randint(0, 5), season, phase_kind), units, centers, dislodged)


def _location(rng: random.Random, m: Map) -> int:
    return rng.randrange(len(m.locations))


def garbage_order(rng: random.Random, m: Map, position: Position) -> Order:
    """An order of any kind for any place: mostly illegal, sometimes for no unit at all."""
    near = [u.location for u in position.units] + [d.unit.location for d in position.dislodged]
    loc = rng.choice(near) if near and rng.random() < 0.8 else _location(rng, m)
    t = rng.choice((None, ARMY, FLEET))
    other = rng.choice(near) if near and rng.random() < 0.7 else _location(rng, m)
    dest = _location(rng, m)
    kind = rng.randrange(9)
    if kind == 0:
        return Hold(t, loc)
    if kind == 1:
        return Move(t, loc, dest, rng.random() < 0.2)
    if kind == 2:
        return SupportHold(t, loc, rng.choice((None, ARMY, FLEET)), other)
    if kind == 3:
        return SupportMove(t, loc, rng.choice((None, ARMY, FLEET)), other, dest)
    if kind == 4:
        return Convoy(t, loc, other, dest)
    if kind == 5:
        return Retreat(t, loc, dest)
    if kind == 6:
        return Disband(t, loc)
    if kind == 7:
        return Build(t, loc)
    return Waive()


def random_orders(rng: random.Random, position: Position, garbage: float) -> dict[str, list[Order]]:
    """Orders by power: a random legal order for most units, garbage with probability ``garbage``."""
    m = position.map
    orders: dict[str, list[Order]] = {}
    with _native.pure_python():
        legal = {power: legal_orders(dataclasses.replace(position), power) for power in m.powers}
    for power in m.powers:
        mine: list[Order] = []
        for options in legal[power].values():
            if position.phase.kind == ADJUSTMENTS:
                mine += rng.sample(options, rng.randint(0, min(len(options), 4)))
            elif options and rng.random() < 0.9:
                mine.append(rng.choice(options))
        for _ in range(rng.randint(0, 3) if rng.random() < garbage else 0):
            mine.insert(rng.randint(0, len(mine)), garbage_order(rng, m, position))
        if mine or rng.random() < 0.5:
            orders[power] = mine
    return orders


def outcome(position: Position, orders: dict[str, list[Order]]) -> Any:
    """Everything an adjudication shows, in order (or the exception it raised)."""
    try:
        a = adjudicate(dataclasses.replace(position), orders)
    except Exception as error:  # noqa: BLE001 - the two cores must fail alike
        return ("error", type(error).__name__, str(error))
    after = a.position
    return (
        str(after.phase),
        after.completed,
        [(type(u.power), u.power, u.type, u.location) for u in after.units],
        after.centers,
        [(d.unit, list(d.retreats)) for d in after.dislodged],
        [(u, words) for u, words in a.results.items()],
    )


def legal(position: Position) -> Any:
    """Every power's legal orders, and each unit's, in order."""
    fresh = dataclasses.replace(position)
    by_power = [list(legal_orders(fresh, power).items()) for power in position.map.powers]
    by_unit = [legal_orders_for(fresh, u) for u in position.units]
    return by_power, by_unit


def batch_view(position: Position, orders: dict[str, list[Order]]) -> Any:
    """What the batch API gives for one phase, decoded (movement results sorted: the batch
    lists them by first order, the reference by a set's order)."""
    m = position.map
    [done] = adjudicate_many(m, [encode_position(position)], [encode_orders(m, orders)])
    [legal_bytes] = legal_orders_many(m, [encode_position(position)])
    if done is None or legal_bytes is None:
        return None
    units, dislodged, results = decode_outcome(done)
    if position.phase.kind == MOVEMENT:
        results = sorted(results)
    return units, dislodged, results, [records for _, records in decode_legal(legal_bytes)]


def reference_view(position: Position, orders: dict[str, list[Order]]) -> Any:
    """The same view of the reference's outcome (run under the pure-Python core)."""
    m = position.map
    index = {p: i for i, p in enumerate(m.powers)}
    with _native.pure_python():
        a = adjudicate(dataclasses.replace(position), orders)
        fresh = dataclasses.replace(position)
        if position.phase.kind == MOVEMENT:
            groups = [legal_orders_for(fresh, u) for u in position.units]
        elif position.phase.kind == RETREATS:
            groups = [legal_orders_for(fresh, d.unit) for d in position.dislodged]
        else:
            groups = [g for g in (legal_orders(fresh, power).get(None) for power in m.powers) if g]
    units = [(index[u.power], u.type, u.location) for u in a.position.units]
    dislodged = [
        ((index[d.unit.power], d.unit.type, d.unit.location), tuple(sorted(d.retreats))) for d in a.position.dislodged
    ]
    results = [((index[u.power], u.type, u.location), words) for u, words in a.results.items()]
    if position.phase.kind == MOVEMENT:
        results = sorted(results)
    records = []
    for group in groups:
        flat = encode_orders(m, {m.powers[0]: group})
        records.append([tuple(flat[i + 1 : i + 8]) for i in range(0, len(flat), 8)])
    return units, dislodged, results, records


def differences(position: Position, orders: dict[str, list[Order]]) -> list[str]:
    """What the compiled core does differently from the reference on this phase (nothing, we hope)."""
    found = []
    with _native.pure_python():
        want, want_legal = outcome(position, orders), legal(position)
    with _native.pure_python(False):
        got, got_legal = outcome(position, orders), legal(position)
    if got != want:
        found.append(f"adjudication:\n  reference {want}\n  compiled  {got}")
    if got_legal != want_legal:
        found.append("legal orders differ")
    if not isinstance(want[0], str) or want[0] != "error":
        with _native.pure_python(False):
            got_batch = batch_view(position, orders)
        want_batch = reference_view(position, orders)
        if got_batch != want_batch:
            found.append(f"batch API:\n  reference {want_batch}\n  compiled  {got_batch}")
    return found

"""Property tests: random positions and random (legal or garbage) orders.

Whatever the orders, the engine must not crash, must leave at most one unit per
province, and must never make a unit out of nothing.
"""

from __future__ import annotations

from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import (
    ARMY,
    FLEET,
    Build,
    Convoy,
    Disband,
    Hold,
    Move,
    Position,
    Retreat,
    SupportHold,
    SupportMove,
    Unit,
    Waive,
    adjudicate,
    legal_orders,
    standard_map,
)
from engine.maps import COAST, LAND, SEA
from engine.position import Phase

M = standard_map()
POWERS = M.powers
PROVINCES = list(M.provinces)
LOCATIONS = list(range(len(M.locations)))
SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def positions(draw: st.DrawFn, kind: str = "M") -> Position:
    chosen = draw(st.lists(st.sampled_from(PROVINCES), min_size=1, max_size=34, unique=True))
    units = []
    for p in chosen:
        power = draw(st.sampled_from(POWERS))
        if M.kind[p] == LAND:
            units.append(Unit(power, ARMY, p))
        elif M.kind[p] == SEA:
            units.append(Unit(power, FLEET, p))
        elif draw(st.booleans()):
            units.append(Unit(power, ARMY, p))
        else:
            units.append(Unit(power, FLEET, draw(st.sampled_from(M.coasts[p] or (p,)))))
    centers = tuple(draw(st.sampled_from((None,) + POWERS)) if M.is_supply_center[p] else None for p in LOCATIONS)
    season = draw(st.sampled_from("SF"))
    return Position(M, Phase(1901 + draw(st.integers(0, 5)), season, kind), tuple(units), centers)


unit_types = st.sampled_from([ARMY, FLEET, None])
places = st.sampled_from(LOCATIONS)
garbage_orders = st.one_of(
    st.builds(Hold, unit_types, places),
    st.builds(Move, unit_types, places, places, st.booleans()),
    st.builds(SupportHold, unit_types, places, unit_types, places),
    st.builds(SupportMove, unit_types, places, unit_types, places, places),
    st.builds(Convoy, unit_types, places, places, places),
    st.builds(Retreat, unit_types, places, places),
    st.builds(Disband, unit_types, places),
    st.builds(Build, unit_types, places),
    st.just(Waive()),
)


def random_orders(draw: st.DrawFn, position: Position) -> dict[str, list]:
    orders: dict[str, list] = {}
    for power in POWERS:
        chosen = []
        for options in legal_orders(position, power).values():
            if options and draw(st.integers(0, 9)) > 0:
                chosen.append(draw(st.sampled_from(options)))
        chosen += draw(st.lists(garbage_orders, max_size=3))
        orders[power] = chosen
    return orders


def assert_one_unit_per_province(position: Position) -> None:
    provinces = [M.province_of[u.location] for u in position.units]
    assert len(provinces) == len(set(provinces))


def assert_unit_fits_place(position: Position) -> None:
    for u in position.units:
        kind = M.kind[M.province_of[u.location]]
        assert (kind != SEA) if u.type == ARMY else (kind in (SEA, COAST) and not M.coasts[u.location])


def kinds(units) -> Counter:
    return Counter((u.power, u.type) for u in units)


@SETTINGS
@given(st.data())
def test_movement_never_crashes_and_keeps_every_unit(data: st.DataObject) -> None:
    before = data.draw(positions())
    orders = random_orders(data.draw, before)
    outcome = adjudicate(before, orders)
    after = outcome.position
    assert_one_unit_per_province(after)
    assert_unit_fits_place(after)
    # every unit is still on the board, waiting to retreat, or dislodged with nowhere to go
    destroyed = [u for u, words in outcome.results.items() if "dislodged" in words and "disband" in words]
    assert all(u in before.units for u in destroyed)
    assert kinds(after.units) + kinds(d.unit for d in after.dislodged) + kinds(destroyed) == kinds(before.units)
    # a dislodged unit's province is now held by another power's unit
    for d in after.dislodged:
        holder = after.unit_at[M.province_of[d.unit.location]]
        assert holder.power != d.unit.power
        assert all(M.province_of[r] not in after.unit_at for r in d.retreats)


@SETTINGS
@given(st.data())
def test_retreats_never_crash_or_stack_units(data: st.DataObject) -> None:
    start = data.draw(positions())
    moved = adjudicate(start, random_orders(data.draw, start)).position
    if not moved.dislodged:
        return
    assert moved.phase.kind == "R"
    after = adjudicate(moved, random_orders(data.draw, moved)).position
    assert_one_unit_per_province(after)
    assert_unit_fits_place(after)
    assert not after.dislodged or after.phase.kind == "R" and after.phase != moved.phase
    gained = kinds(after.units) - kinds(moved.units)
    assert gained <= kinds(d.unit for d in moved.dislodged)
    assert not (kinds(moved.units) - kinds(after.units)), "a retreat phase removed a unit that was not dislodged"


@SETTINGS
@given(st.data())
def test_adjustments_build_only_where_allowed(data: st.DataObject) -> None:
    before = data.draw(positions(kind="A"))
    outcome = adjudicate(before, random_orders(data.draw, before))
    after = outcome.position
    assert_one_unit_per_province(after)
    assert_unit_fits_place(after)
    old = set(before.units)
    for power in POWERS:
        owed = before.adjustments.get(power, 0)
        new = [u for u in after.units if u.power == power and u not in old]
        lost = [u for u in before.units if u.power == power and u not in set(after.units)]
        assert len(new) <= max(owed, 0)
        assert len(lost) == max(-owed, 0)
        for u in new:
            p = M.province_of[u.location]
            assert M.home_of[p] == power and before.centers[p] == power and p not in before.unit_at


@settings(max_examples=12, deadline=None)
@given(st.data())
def test_random_games_keep_their_invariants(data: st.DataObject) -> None:
    position = Position.initial()
    for _ in range(data.draw(st.integers(5, 30))):
        if position.completed:
            break
        outcome = adjudicate(position, random_orders(data.draw, position))
        after = outcome.position
        assert_one_unit_per_province(after)
        assert_unit_fits_place(after)
        assert after.phase > position.phase
        if position.phase.kind != "A":
            assert len(after.units) + len(after.dislodged) <= len(position.units) + len(position.dislodged)
        # supply centres change hands only after a fall
        if position.phase.season == "S":
            assert after.centers == position.centers
        assert sum(after.center_counts.values()) <= len(M.supply_centers)
        position = after

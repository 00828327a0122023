"""Legal order generation agrees with the adjudicator about what is legal."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import (
    Convoy,
    Hold,
    Move,
    Position,
    SupportHold,
    SupportMove,
    adjudicate,
    format_order,
    legal_orders,
    standard_map,
)
from engine.movement import adjudicate_movement
from tests.test_properties import positions

M = standard_map()


def result_of(position: Position, power: str, unit, orders_by_power: dict) -> tuple[str, ...]:
    return adjudicate_movement(position, orders_by_power).results[unit]


@settings(max_examples=60, deadline=None)
@given(positions())
def test_every_generated_order_is_legal(position: Position) -> None:
    for power in M.powers:
        for unit, options in legal_orders(position, power).items():
            for order in options:
                context: dict[str, list] = {power: [order]}
                if isinstance(order, SupportMove):
                    mover = position.unit_at[M.province_of[order.supported_location]]
                    moves = [
                        o
                        for o in legal_orders(position, mover.power)[mover]
                        if isinstance(o, Move) and M.province_of[o.destination] == M.province_of[order.destination]
                    ]
                    context.setdefault(mover.power, []).append(moves[0])
                elif isinstance(order, Convoy):
                    army = position.unit_at[M.province_of[order.army_location]]
                    fleets = [
                        f
                        for f in position.units
                        if M.kind[M.province_of[f.location]] == 2 and f.type == 1 and f != unit
                    ]
                    context.setdefault(army.power, []).append(Move(0, order.army_location, order.destination, True))
                    for f in fleets:
                        context.setdefault(f.power, []).append(
                            Convoy(1, f.location, order.army_location, order.destination)
                        )
                words = result_of(position, power, unit, context)
                assert "void" not in words, format_order(M, order)
                if isinstance(order, (Hold, SupportHold)) or isinstance(order, Move) and not order.via_convoy:
                    if (
                        isinstance(order, Move)
                        and M.province_of[order.destination] not in M.reach[unit.type][unit.location]
                    ):
                        assert words[0] in ("no convoy", "ok", "bounce", "disrupted")
                    else:
                        assert "no convoy" not in words


@settings(max_examples=60, deadline=None)
@given(positions(), st.data())
def test_every_legal_hold_move_or_support_hold_is_generated(position: Position, data: st.DataObject) -> None:
    unit = data.draw(st.sampled_from(position.units))
    generated = set(legal_orders(position, unit.power)[unit])
    place = st.sampled_from(range(len(M.locations)))
    candidates = [Hold(unit.type, unit.location)]
    # the generator names each destination one way: a coast for fleets where there are
    # coasts, the bare province for armies
    for _ in range(10):
        destination = data.draw(place)
        if (unit.type == 0 and M.province_of[destination] != destination) or (unit.type == 1 and M.coasts[destination]):
            continue
        candidates.append(Move(unit.type, unit.location, destination))
    others = [u for u in position.units if u != unit]
    if others:
        for _ in range(5):
            other = data.draw(st.sampled_from(others))
            candidates.append(SupportHold(unit.type, unit.location, other.type, other.location))
    for order in candidates:
        words = result_of(position, unit.power, unit, {unit.power: [order]})
        if "void" not in words and "no convoy" not in words:
            assert order in generated, format_order(M, order)


@settings(max_examples=40, deadline=None)
@given(positions())
def test_retreat_and_adjustment_orders_are_legal(position: Position) -> None:
    orders = {power: [o for opts in legal_orders(position, power).values() for o in opts[:1]] for power in M.powers}
    moved = adjudicate(position, orders).position
    if moved.phase.kind == "R":
        for power in M.powers:
            for unit, options in legal_orders(moved, power).items():
                for order in options:
                    assert "void" not in adjudicate(moved, {power: [order]}).results[unit]
    winter = Position(M, moved.phase.__class__(1901, "W", "A"), moved.units, moved.centers)
    for power in winter.adjustments:
        options = legal_orders(winter, power)[None]
        outcome = adjudicate(winter, {power: options[:1]})
        assert all(words != ("void",) for words in outcome.results.values())

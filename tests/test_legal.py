"""Legal order generation agrees with the adjudicator about what is legal."""

from __future__ import annotations

import dataclasses
import functools
import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import (
    Convoy,
    Hold,
    Move,
    Position,
    SupportHold,
    SupportMove,
    _native,
    adjudicate,
    format_order,
    legal,
    legal_orders,
    legal_orders_for,
    standard_map,
)
from engine.movement import adjudicate_movement
from engine.position import Phase
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


# --- the legal boards kept by position (engine.legal._COMPILED_BOARDS, _BOARDS) -------------------

#: What a position keeps in its ``__dict__``: its fields and its own cached properties, nothing of engine.legal.
OWN = {f.name for f in dataclasses.fields(Position)} | {
    name for name, value in vars(Position).items() if isinstance(value, functools.cached_property)
}


def _every_legal_order(position: Position) -> list:
    orders = [legal_orders(position, power) for power in M.powers]
    return [*orders, *(legal_orders_for(position, unit) for unit in position.units)]


def _in_year(year: int) -> Position:
    """The opening position, in spring of ``year``: a position of its own for every year."""
    start = Position.initial()
    return Position(M, Phase(year, "S", "M"), start.units, start.centers)


@pytest.mark.parametrize("pure", [False, True], ids=["compiled", "pure Python"])
def test_legal_orders_are_kept_by_position_value_outside_the_position(pure: bool) -> None:
    boards = legal._BOARDS if pure or not _native.compiled_available() else legal._COMPILED_BOARDS
    with _native.pure_python(pure):
        boards.cache_clear()
        first, again = Position.initial(), Position.initial()
        assert first is not again and first == again
        expected = _every_legal_order(first)
        assert set(vars(first)) <= OWN  # nothing of engine.legal in the frozen position
        assert _every_legal_order(again) == expected and len(boards) == 1  # equal positions: one entry
        assert _every_legal_order(_in_year(1902)) == expected and len(boards) == 2  # another: its own
        assert vars(pickle.loads(pickle.dumps(first))).keys() == vars(first).keys()  # pickled as it was


@pytest.mark.parametrize("pure", [False, True], ids=["compiled", "pure Python"])
def test_legal_boards_are_bounded_and_answer_as_if_made_afresh(pure: bool) -> None:
    boards = legal._BOARDS if pure or not _native.compiled_available() else legal._COMPILED_BOARDS
    with _native.pure_python(pure):
        boards.cache_clear()
        expected = _every_legal_order(Position.initial())
        for year in range(1901, 1901 + boards.maxsize + 50):
            assert _every_legal_order(_in_year(year)) == expected
            assert len(boards) <= boards.maxsize
        assert len(boards) == boards.maxsize
        boards.cache_clear()
        assert len(boards) == 0


def test_a_position_given_a_gone_positions_id_gets_its_own_legal_orders(monkeypatch: pytest.MonkeyPatch) -> None:
    """Once a position is gone, a new one may be given its ``id()``; here every position is given
    the same one (as :mod:`engine.legal` would see it), and each still gets its own legal orders."""
    monkeypatch.setattr(legal, "id", lambda _: 1, raising=False)
    start = Position.initial()
    for count in range(0, len(start.units), 3):
        fewer = Position(M, start.phase, start.units[:count], start.centers)
        for power in M.powers:
            board = legal._Board(fewer)  # made afresh, kept nowhere
            assert legal_orders(fewer, power) == {u: board.orders_for(u) for u in fewer.units_of(power)}

"""Binding orders: what confirmed deals commit each power to, and the orders adjudicated."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from engine import Order, Position, adjudicate, format_order, parse_orders
from protocol.l import ast as a
from referee.binding import apply_binding, binding_orders, committed, literals
from tests.referee.deals import START, deal


def texts(position: Position, orders: Mapping[str, Sequence[Order]]) -> dict[str, list[str]]:
    return {power: [format_order(position.map, o) for o in given] for power, given in orders.items()}


def given(position: Position, orders: dict[str, list[str]]) -> dict[str, list[Order]]:
    parsed, unreadable = parse_orders(position.map, orders)
    assert not unreadable
    return parsed


def units(position: Position, power: str) -> list[str]:
    return sorted(position.unit_name(u) for u in position.units_of(power))


def test_what_a_deal_commits() -> None:
    both = deal("[Commit(eng, fra, pce([eng fra])) Commit(fra, [eng ger], pce([eng fra]))]")
    assert committed(both) == frozenset({"ENG", "FRA"})
    assert committed(deal("Agree([eng fra ger], pce([eng fra ger]))")) == frozenset({"ENG", "FRA", "GER"})
    assert str((a.Turn("win", 1902)).phase) == "W1902A"
    # a sequence keeps its timed steps only; a negated conjunction binds nothing on its own
    timed = deal(
        "Commit(eng, fra, Do(hld(Unit(eng, Region(lon, coast)))) ; Do(hld(Unit(eng, Region(lon, coast))), (fal, 1901)))"
    )
    assert [(x.time, x.positive) for x in literals(timed)] == [(a.Turn("fal", 1901), True)]
    negated = deal("Commit(eng, fra, ~(Do(hld(Unit(eng, Region(lon, coast)))) & pce([eng fra])))")
    assert literals(negated) == []


def test_binding_orders_are_the_positive_own_orders_of_this_phase() -> None:
    confirmed = [
        deal("Commit(eng, fra, Do(mto(Unit(eng, Region(lon, coast)), Region(nth, sea))))"),
        deal(
            "[Commit(fra, eng, Do(sup(Unit(fra, Region(mar, amy)), mto(Unit(fra, Region(par, amy)), Region(bur, amy)))))"
            " Commit(ger, eng, ~Do(mto(Unit(ger, Region(mun, amy)), Region(bur, amy))))]"
        ),
        # not enforced: another power's order, another phase, another phase kind, no such unit
        deal("Commit(ita, eng, Do(hld(Unit(aus, Region(vie, amy)))))"),
        deal("Commit(rus, eng, Do(hld(Unit(rus, Region(mos, amy))), (fal, 1901)))"),
        deal("Commit(tur, eng, Do(rto(Unit(tur, Region(con, amy)), Region(bul, amy))))"),
        deal("Commit(eng, fra, Do(hld(Unit(eng, Region(wal, amy)))))"),
        # timed for this very phase: enforced
        deal("Commit(tur, eng, Do(mto(Unit(tur, Region(con, amy)), Region(bul, amy)), (spr, 1901)))"),
    ]
    bound = binding_orders(confirmed, START)
    assert texts(START, bound) == {
        "ENG": ["F LON - NTH"],
        "FRA": ["A MAR S A PAR - BUR"],
        "TUR": ["A CON - BUL"],
    }


def test_the_first_deal_binds_a_unit_committed_twice() -> None:
    first = deal("Commit(eng, fra, Do(mto(Unit(eng, Region(lon, coast)), Region(nth, sea))))")
    second = deal("Commit(eng, ger, Do(hld(Unit(eng, Region(lon, coast)))))")
    assert texts(START, binding_orders([first, second], START)) == {"ENG": ["F LON - NTH"]}
    assert texts(START, binding_orders([second, first], START)) == {"ENG": ["F LON H"]}


def test_binding_replaces_an_order_that_breaks_a_commitment() -> None:
    promise = deal("Commit(eng, fra, Do(mto(Unit(eng, Region(lon, coast)), Region(nth, sea))))")
    support = deal(
        "Commit(fra, eng, Do(sup(Unit(fra, Region(mar, amy)), mto(Unit(fra, Region(par, amy)), Region(bur, amy)))))"
    )
    orders = given(START, {"ENG": ["F LON - ECH", "A LVP - YOR"], "GER": ["A MUN - BUR"]})
    played = apply_binding(START, orders, binding_orders([promise, support], START))
    # the breaking order replaced in its place, a missing one added, the others untouched
    assert texts(START, played) == {
        "ENG": ["F LON - NTH", "A LVP - YOR"],
        "GER": ["A MUN - BUR"],
        "FRA": ["A MAR S A PAR - BUR"],
    }
    assert texts(START, orders) == {"ENG": ["F LON - ECH", "A LVP - YOR"], "GER": ["A MUN - BUR"]}
    after = adjudicate(START, played).position
    assert "F NTH" in units(after, "ENG") and "F ECH" not in units(after, "ENG")
    # an order that keeps the commitment stays as it was
    keeping = given(START, {"ENG": ["F LON - NTH"]})
    assert apply_binding(START, keeping, binding_orders([promise], START)) == keeping


def test_binding_in_a_retreat_phase() -> None:
    board = Position.build(
        "S1901R",
        {"GER": ["A BUR"], "FRA": ["A PAR"]},
        dislodged={"A BUR": ("FRA", ["PIC", "GAS"])},
    )
    retreat = deal("Commit(fra, ger, Do(rto(Unit(fra, Region(bur, amy)), Region(gas, amy))))")
    bound = binding_orders([retreat], board)
    assert texts(board, bound) == {"FRA": ["A BUR R GAS"]}
    played = apply_binding(board, given(board, {"FRA": ["A BUR R PIC"]}), bound)
    assert texts(board, played) == {"FRA": ["A BUR R GAS"]}
    assert "A GAS" in units(adjudicate(board, played).position, "FRA")


def test_a_committed_build_replaces_another_while_one_is_owed() -> None:
    board = Position.build("W1901A", {"FRA": ["A BUR"]}, centers={"FRA": ["BRE", "PAR", "BEL"]})
    assert board.adjustments == {"FRA": 2}
    build = deal("Commit(fra, eng, Do(bld(Unit(fra, Region(bre, coast)))))")
    bound = binding_orders([build], board)
    assert texts(board, bound) == {"FRA": ["F BRE B"]}
    played = apply_binding(board, given(board, {"FRA": ["A BRE B", "A PAR B"]}), bound)
    assert texts(board, played) == {"FRA": ["F BRE B", "A PAR B"]}
    played = apply_binding(board, given(board, {"FRA": ["A PAR B", "WAIVE"]}), bound)
    assert texts(board, played) == {"FRA": ["F BRE B", "A PAR B", "WAIVE"]}
    assert units(adjudicate(board, played).position, "FRA") == ["A BUR", "A PAR", "F BRE"]
    # no build is bound when none is owed
    even = Position.build("W1901A", {"FRA": ["A BUR"]}, centers={"FRA": ["BEL"]})
    assert binding_orders([build], even) == {}


def test_a_committed_removal_replaces_another() -> None:
    board = Position.build("W1901A", {"FRA": ["A BUR", "A PAR"]}, centers={"FRA": ["PAR"]})
    assert board.adjustments == {"FRA": -1}
    removal = deal("Commit(fra, ger, Do(rem(Unit(fra, Region(bur, amy)))))")
    bound = binding_orders([removal], board)
    played = apply_binding(board, given(board, {"FRA": ["A PAR D"]}), bound)
    assert texts(board, played) == {"FRA": ["A BUR D", "A PAR D"]}
    assert units(adjudicate(board, played).position, "FRA") == ["A PAR"]

"""The short notation of orders (DAIDE clauses are tested in tests/protocol/test_daide_orders.py)."""

from __future__ import annotations

import pytest

from engine import (
    ARMY,
    FLEET,
    Build,
    Convoy,
    Disband,
    Hold,
    Move,
    OrderSyntaxError,
    Position,
    Retreat,
    SupportHold,
    SupportMove,
    Waive,
    format_order,
    legal_orders,
    parse_order,
    standard_map,
)

M = standard_map()
L = M.location


@pytest.mark.parametrize(
    ("text", "order"),
    [
        ("A PAR H", Hold(ARMY, L("PAR"))),
        ("A PAR", Hold(ARMY, L("PAR"))),
        ("a par - bur", Move(ARMY, L("PAR"), L("BUR"))),
        ("A LON - NWY VIA", Move(ARMY, L("LON"), L("NWY"), True)),
        ("A LON - NWY via convoy", Move(ARMY, L("LON"), L("NWY"), True)),
        ("F MAO - SPA/NC", Move(FLEET, L("MAO"), L("SPA/NC"))),
        ("F MAO - SPA(nc)", Move(FLEET, L("MAO"), L("SPA/NC"))),
        ("F ENG - LYO", Move(FLEET, L("ECH"), L("GOL"))),
        ("A BUR S A PAR - MAR", SupportMove(ARMY, L("BUR"), ARMY, L("PAR"), L("MAR"))),
        ("A BUR S A PAR", SupportHold(ARMY, L("BUR"), ARMY, L("PAR"))),
        ("A BUR S A PAR H", SupportHold(ARMY, L("BUR"), ARMY, L("PAR"))),
        ("A BUR S PAR", SupportHold(ARMY, L("BUR"), None, L("PAR"))),
        ("F NTH C A LON - NWY", Convoy(FLEET, L("NTH"), L("LON"), L("NWY"))),
        ("F TRI R ALB", Retreat(FLEET, L("TRI"), L("ALB"))),
        ("F TRI D", Disband(FLEET, L("TRI"))),
        ("F STP/NC B", Build(FLEET, L("STP/NC"))),
        ("WAIVE", Waive()),
        ("F BRE/EC - MAO", Move(FLEET, L("BRE"), L("MAO"))),  # DATC 4.B.6: an unknown coast is ignored
    ],
)
def test_short_notation(text: str, order) -> None:
    assert parse_order(M, text) == order


@pytest.mark.parametrize(
    "text", ["", "A XYZ - PAR", "A PAR -", "A PAR S", "A PAR - BUR - MAR", "F NTH C A LON", "HELLO"]
)
def test_text_that_is_no_order_is_a_syntax_error(text: str) -> None:
    with pytest.raises(OrderSyntaxError):
        parse_order(M, text)


def test_every_legal_order_of_the_opening_round_trips_through_the_short_notation() -> None:
    start = Position.initial()
    count = 0
    for power in M.powers:
        for orders in legal_orders(start, power).values():
            for order in orders:
                assert parse_order(M, format_order(M, order)) == order
                count += 1
    assert count > 100

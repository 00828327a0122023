"""The two text forms of orders: the short notation and DAIDE clauses."""

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
    parse_daide_order,
    parse_order,
    standard_map,
)
from protocol.daide.orders import order_from_engine

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


def test_every_legal_order_of_the_opening_round_trips_through_both_notations() -> None:
    start = Position.initial()
    count = 0
    for power in M.powers:
        for orders in legal_orders(start, power).values():
            for order in orders:
                assert parse_order(M, format_order(M, order)) == order
                daide = str(order_from_engine(power, order, start))
                assert parse_daide_order(M, daide) == (power, order)
                count += 1
    assert count > 100


@pytest.mark.parametrize(
    ("clause", "power", "order"),
    [
        ("( ( ENG FLT LON ) MTO NTH )", "ENGLAND", Move(FLEET, L("LON"), L("NTH"))),
        ("( ( RUS FLT ( STP SCS ) ) MTO BOT )", "RUSSIA", Move(FLEET, L("STP/SC"), L("GOB"))),
        (
            "( ( ENG AMY LVP ) SUP ( ENG FLT LON ) MTO NTH )",
            "ENGLAND",
            SupportMove(ARMY, L("LVP"), FLEET, L("LON"), L("NTH")),
        ),
        ("( ( FRA AMY PAR ) SUP ( FRA AMY MAR ) )", "FRANCE", SupportHold(ARMY, L("PAR"), ARMY, L("MAR"))),
        ("( ( ENG FLT NTH ) CVY ( ENG AMY LON ) CTO NWY )", "ENGLAND", Convoy(FLEET, L("NTH"), L("LON"), L("NWY"))),
        ("( ( ENG AMY LON ) CTO NWY VIA ( NTH ) )", "ENGLAND", Move(ARMY, L("LON"), L("NWY"), True)),
        ("( ( AUS FLT TRI ) RTO ALB )", "AUSTRIA", Retreat(FLEET, L("TRI"), L("ALB"))),
        ("( ( AUS FLT TRI ) DSB )", "AUSTRIA", Disband(FLEET, L("TRI"))),
        ("( ( AUS AMY VIE ) REM )", "AUSTRIA", Disband(ARMY, L("VIE"))),
        ("( ( RUS FLT ( STP NCS ) ) BLD )", "RUSSIA", Build(FLEET, L("STP/NC"))),
        ("( GER WVE )", "GERMANY", Waive()),
        ("( ( GER AMY MUN ) HLD )", "GERMANY", Hold(ARMY, L("MUN"))),
    ],
)
def test_daide_clauses(clause: str, power: str, order) -> None:
    assert parse_daide_order(M, clause) == (power, order)


@pytest.mark.parametrize(
    "clause",
    [
        "( ( ENG FLT LON ) MTO",
        "( ( ENG FLT LON ) FLY NTH )",
        "( ( XXX FLT LON ) HLD )",
        "( ( ENG BOAT LON ) HLD )",
        ")",
    ],
)
def test_bad_daide_clauses_are_syntax_errors(clause: str) -> None:
    with pytest.raises(OrderSyntaxError):
        parse_daide_order(M, clause)

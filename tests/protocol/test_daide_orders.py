"""DAIDE orders, units, turns and the map against the engine's."""

from __future__ import annotations

import pytest

from engine import Phase, Position, Unit, legal_orders, parse_order, standard_map
from engine.maps import ARMY, FLEET
from protocol.daide.messages import (
    PROVINCES_BY_CATEGORY,
    DaideUnit,
    Disband,
    Location,
    LooseUnit,
    Move,
    MoveByConvoy,
    Remove,
    Sub,
    SupportHold,
    Turn,
    Waive,
    Xdo,
)
from protocol.daide.orders import (
    DaideOrderError,
    convoy_route,
    location_from_engine,
    location_to_engine,
    map_definition,
    order_from_engine,
    order_to_engine,
    province_categories,
    unit_from_engine,
    unit_to_engine,
)
from protocol.daide.parser import DaideParser, parse, press_level, to_text


def _round_trip(position: Position, loose: bool = False) -> int:
    """Every legal order of every power, through DAIDE text and back; returns how many."""
    m = position.map
    board = m if loose else position
    count = 0
    for power in m.powers:
        for orders in legal_orders(position, power).values():
            for order in orders:
                typed = order_from_engine(power, order, board, position.phase.kind)
                message = Sub((typed,), Turn.of(position.phase))
                parsed = parse(to_text(message))
                assert parsed == message
                assert order_to_engine(parsed.orders[0], m) == (power, order)
                if not loose:
                    # a complete order is also a strict one: ORD and XDO take it
                    assert parse(f"SND (FRA) (PRP ({Xdo(typed)}))").press.arrangement.order == typed
                count += 1
    return count


def test_every_legal_opening_order_round_trips() -> None:
    assert _round_trip(Position.initial()) > 200


def test_every_legal_opening_order_round_trips_given_only_the_map() -> None:
    assert _round_trip(Position.initial(), loose=True) > 200


def test_orders_of_other_phases_round_trip() -> None:
    retreats = Position.build(
        "F1901R",
        {"ENG": ["F NTH", "A HOL"], "FRA": ["A BEL"]},
        dislodged={"F HOL": ("GER", ["HEL", "KIE"])},
    )
    assert _round_trip(retreats) == 3
    winter = Position.build(
        "W1901A",
        {"RUS": ["A MOS"], "ENG": ["F NTH", "F ECH", "A YOR"]},
        centers={"RUS": ["STP", "MOS", "SEV", "WAR", "RUM"], "ENG": ["LON"]},
    )
    assert _round_trip(winter) > 5
    removals = [order_from_engine("ENG", o, winter) for o in legal_orders(winter, "ENG")[None]]
    assert {type(o) for o in removals} == {Remove}


def test_order_from_engine() -> None:
    start = Position.initial()
    m = start.map
    assert str(order_from_engine("RUS", parse_order(m, "F STP/SC - BOT"), start)) == "(RUS FLT (STP SCS)) MTO GOB"
    assert str(order_from_engine("ENG", parse_order(m, "F LON S A LVP - YOR"), start)) == (
        "(ENG FLT LON) SUP (ENG AMY LVP) MTO YOR"
    )
    # a foreign unit's owner comes from the position, or is left out without one
    order = parse_order(m, "A MUN S A VIE - BOH")
    assert str(order_from_engine("GER", order, start)) == "(GER AMY MUN) SUP (AUS AMY VIE) MTO BOH"
    assert str(order_from_engine("GER", order, m)) == "(GER AMY MUN) SUP (AMY VIE) MTO BOH"
    assert order_from_engine("GER", parse_order(m, "MUN S VIE"), m) == SupportHold(
        LooseUnit("GER", None, Location("MUN")), LooseUnit(None, None, Location("VIE"))
    )
    assert order_from_engine("GER", parse_order(m, "MUN S VIE"), start) == SupportHold(
        DaideUnit("GER", "AMY", Location("MUN")), DaideUnit("AUS", "AMY", Location("VIE"))
    )
    assert order_from_engine("ITA", parse_order(m, "WAIVE"), m) == Waive("ITA")
    assert order_from_engine("ITA", parse_order(m, "A ROM D"), m, "R") == Disband(DaideUnit("ITA", "AMY", Location("ROM")))
    assert order_from_engine("ITA", parse_order(m, "A ROM D"), m, "A") == Remove(DaideUnit("ITA", "AMY", Location("ROM")))


def test_convoyed_moves_get_a_sea_route() -> None:
    position = Position.build("S1901M", {"ENG": ["A LON", "F ECH", "F MAO"], "FRA": ["F NTH"]})
    m = position.map
    order = parse_order(m, "A LON - SPA VIA")
    assert order_from_engine("ENG", order, position) == MoveByConvoy(
        DaideUnit("ENG", "AMY", Location("LON")), Location("SPA"), ("ECH", "MAO")
    )
    # without the position, any shortest route over the seas
    assert order_from_engine("ENG", parse_order(m, "A LON - NWY VIA"), m).via == ("NTH",)
    # the route of the English fleets, not the shorter one through the French fleet
    only_english = Position.build("S1901M", {"ENG": ["A LON", "F ECH", "F MAO"]})
    assert order_from_engine("ENG", parse_order(m, "A LON - SPA VIA"), only_english).via == ("ECH", "MAO")
    assert convoy_route(m, m.location("TUN"), m.location("SYR")) == ("ION", "EAS")
    assert convoy_route(m, m.location("PAR"), m.location("LON")) is None
    assert convoy_route(m, m.location("LON"), m.location("NWY"), seas=()) is None
    with pytest.raises(DaideOrderError, match="sea route"):
        order_from_engine("FRA", parse_order(m, "A PAR - LON VIA"), m)


def test_order_to_engine() -> None:
    m = standard_map()
    move = parse("SUB ((ENG FLT BAR) MTO (STP NCS))").orders[0]
    assert order_to_engine(move, m) == ("ENG", parse_order(m, "F BAR - STP/NC"))
    loose = parse("SUB (LVP MTO YOR) (WVE) ((FLT LON) SUP (ENG EDI) MTO NTH)").orders
    assert order_to_engine(loose[0], m, "ENG") == ("ENG", parse_order(m, "LVP - YOR"))
    assert order_to_engine(loose[1], m, "ENG") == ("ENG", parse_order(m, "WAIVE"))
    assert order_to_engine(loose[2], m, "ENG") == ("ENG", parse_order(m, "F LON S EDI - NTH"))
    convoyed = parse("SUB ((ITA AMY TUN) CTO SYR VIA (ION EAS))").orders[0]
    assert order_to_engine(convoyed, m) == ("ITA", parse_order(m, "A TUN - SYR VIA"))
    with pytest.raises(DaideOrderError, match="no power"):
        order_to_engine(loose[0], m)
    with pytest.raises(DaideOrderError, match="no power"):
        order_to_engine(loose[1], m)
    with pytest.raises(DaideOrderError, match="unknown power"):
        order_to_engine(Move(DaideUnit("XXX", "AMY", Location("PAR")), Location("BUR")), m)
    with pytest.raises(DaideOrderError, match="unknown province"):
        order_to_engine(Move(DaideUnit("FRA", "AMY", Location("QQQ")), Location("BUR")), m)
    with pytest.raises(DaideOrderError, match="unit type"):
        order_to_engine(Move(DaideUnit("FRA", "UNT", Location("PAR")), Location("BUR")), m)


def test_turns_places_and_units() -> None:
    m = standard_map()
    for text, turn in [
        ("S1901M", Turn("SPR", 1901)),
        ("S1901R", Turn("SUM", 1901)),
        ("F1901M", Turn("FAL", 1901)),
        ("F1901R", Turn("AUT", 1901)),
        ("W1901A", Turn("WIN", 1901)),
    ]:
        assert Turn.of(Phase.parse(text)) == turn
        assert turn.phase == Phase.parse(text)
    assert location_from_engine(m.location("STP/NC"), m) == Location("STP", "NCS")
    assert location_to_engine(Location("SPA", "SCS"), m) == m.location("SPA/SC")
    assert location_from_engine(m.location("PAR"), m) == Location("PAR")
    fleet = Unit("RUS", FLEET, m.location("STP/SC"))
    assert unit_from_engine(fleet, m) == DaideUnit("RUS", "FLT", Location("STP", "SCS"))
    assert unit_to_engine(DaideUnit("RUS", "FLT", Location("STP", "SCS")), m) == fleet
    assert unit_to_engine(DaideUnit("FRA", "AMY", Location("PAR")), m) == Unit("FRA", ARMY, m.location("PAR"))


def test_the_map_definition_of_the_standard_map() -> None:
    m = standard_map()
    mdf = map_definition(m)
    text = to_text(mdf)
    assert parse(text) == mdf
    assert press_level(mdf) == 0
    assert mdf.powers == ("AUS", "ENG", "FRA", "GER", "ITA", "RUS", "TUR")
    homes = {group.powers: group.centres for group in mdf.centres}
    assert homes["ENG"] == ("EDI", "LON", "LVP")
    assert len(homes["UNO"]) == 12
    assert sum(len(c) for c in homes.values()) == 34
    assert len(mdf.non_centres) == 75 - 34
    adjacency = {a.province: a for a in mdf.adjacencies}
    assert "((FLT ECS) BLA CON RUM)" in str(adjacency["BUL"])
    assert str(adjacency["BOH"]) == "BOH (AMY GAL MUN SIL TYR VIE)"
    assert str(adjacency["ADR"]) == "ADR (FLT ALB APU ION TRI VEN)"


def test_province_categories_of_the_standard_map_are_the_token_table() -> None:
    categories = province_categories(standard_map())
    assert categories == {c: names for c, names in PROVINCES_BY_CATEGORY.items() if names}
    variant = DaideParser(provinces=categories)
    assert variant.parse("NOW (SPR 1901) (RUS FLT (STP SCS))") == parse("NOW (SPR 1901) (RUS FLT (STP SCS))")

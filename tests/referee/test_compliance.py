"""Compliance reports: commitments checked against the orders of an adjudicated phase."""

from __future__ import annotations

from engine import Order, Position, adjudicate, parse_orders
from protocol.l import ast as a
from referee.compliance import Attack, Commitment, Report, attacks, check
from tests.referee.deals import START, deal


def orders_of(position: Position, orders: dict[str, list[str]]) -> dict[str, list[Order]]:
    parsed, unreadable = parse_orders(position.map, orders)
    assert not unreadable
    return parsed


def play(position: Position, commitments: list[Commitment], orders: dict[str, list[str]]) -> list[Report]:
    """Adjudicate the phase and check the commitments against it."""
    given = orders_of(position, orders)
    outcome = adjudicate(position, given)
    return check(commitments, position, given, outcome.results, outcome.position)


def made(text: str, phase: str = "S1901M", *powers: str) -> Commitment:
    d = deal(text)
    every = (
        {c.agent for c in d.commits} | {p for c in d.commits for p in c.agents} if isinstance(d, a.Deal) else d.agents
    )
    return Commitment(d, frozenset(powers or every), phase)


def verdicts(reports: list[Report]) -> list[tuple[str, str, bool]]:
    return [(r.power, r.part, r.kept) for r in reports]


def test_a_kept_and_a_broken_promise() -> None:
    promises = made(
        "[Commit(eng, fra, Do(mto(Unit(eng, Region(lon, coast)), Region(nth, sea))))"
        " Commit(ger, fra, Do(mto(Unit(ger, Region(kie, coast)), Region(hol, coast))))]"
    )
    reports = play(START, [promises], {"ENG": ["F LON - NTH"], "GER": ["A MUN - RUH"]})
    assert verdicts(reports) == [
        ("ENG", "Do(mto(Unit(eng, Region(lon, coast)), Region(nth, sea)))", True),
        ("GER", "Do(mto(Unit(ger, Region(kie, coast)), Region(hol, coast)))", False),
    ]
    assert reports[0].detail == "F LON - NTH (ok)"
    assert reports[1].detail == "F KIE held (no order)"
    assert reports[0].deal == promises.deal and reports[0].commitment == 0
    assert reports[1].to_json() == {
        "power": "ger",
        "part": "Do(mto(Unit(ger, Region(kie, coast)), Region(hol, coast)))",
        "kept": False,
        "detail": "F KIE held (no order)",
    }
    other = play(START, [promises], {"GER": ["F KIE - DEN"]})
    assert other[1].detail == "ordered F KIE - DEN (ok)"


def test_refusals_defaults_and_negations() -> None:
    no_bur = made("Commit(fra, ger, ~Do(mto(Unit(fra, Region(par, amy)), Region(bur, amy))))")
    holds = made("Commit(fra, ger, Do(hld(Unit(fra, Region(mar, amy)))))")
    either = made(
        "Commit(ger, fra, ~(Do(mto(Unit(ger, Region(mun, amy)), Region(bur, amy)))"
        " & Do(mto(Unit(ger, Region(ber, amy)), Region(mun, amy)))))"
    )
    reports = play(START, [no_bur, holds, either], {"FRA": ["A PAR - BUR"], "GER": ["A MUN - BUR"]})
    assert [(r.power, r.kept, r.detail) for r in reports] == [
        ("FRA", False, "A PAR - BUR (bounce)"),
        ("FRA", True, "A MAR held (no order)"),  # a unit without an order holds
        ("GER", True, "A BER held (no order)"),  # not both moves
    ]
    reports = play(START, [no_bur, either], {"FRA": ["A PAR - PIC"], "GER": ["A MUN - BUR", "A BER - MUN"]})
    assert [(r.power, r.kept) for r in reports] == [("FRA", True), ("GER", False)]


def test_peace_is_broken_by_an_attack_and_kept_by_a_follow_in() -> None:
    board = Position.build(
        "S1901M",
        {"FRA": ["A PAR", "A PIC"], "GER": ["A BUR", "A MUN"], "ENG": ["A BEL"]},
        centers={"FRA": ["PAR"], "GER": ["MUN"]},
    )
    peace = made("Agree([fra ger], pce([fra ger]))")
    reports = play(board, [peace], {"FRA": ["A PAR - BUR", "A PIC - BEL"], "GER": ["A MUN H"]})
    assert verdicts(reports) == [("FRA", "pce([fra ger])", False), ("GER", "pce([fra ger])", True)]
    assert reports[0].detail == "A PAR - BUR (bounce) attacks ger in bur"  # attacking eng is no breach
    assert reports[1].detail == "no attack on fra"
    # following a unit that leaves is no attack; a support into a partner's centre is one
    reports = play(
        board,
        [peace],
        {"FRA": ["A PAR - BUR", "A PIC S A PAR - BUR"], "GER": ["A BUR - RUH", "A MUN S A BUR - PAR"]},
    )
    assert verdicts(reports) == [("FRA", "pce([fra ger])", True), ("GER", "pce([fra ger])", False)]
    assert "A MUN S A BUR - PAR" in reports[1].detail and "fra in par" in reports[1].detail


def test_an_alliance_is_broken_by_attacking_an_ally_not_by_sparing_the_enemy() -> None:
    board = Position.build(
        "S1901M",
        {"ITA": ["A VEN", "A TRI"], "AUS": ["A VIE"], "RUS": ["A GAL"], "TUR": ["A SER"]},
        centers={"AUS": ["VIE"], "TUR": ["SER"]},
    )
    alliance = made("Agree([ita rus], aly([ita rus], [tur]))")
    reports = play(board, [alliance], {"ITA": ["A TRI - SER"], "RUS": ["A GAL - VIE"]})
    assert verdicts(reports) == [("ITA", "aly([ita rus], [tur])", True), ("RUS", "aly([ita rus], [tur])", True)]
    with_austria = made("Agree([aus ita], aly([aus ita], [tur]))")
    reports = play(board, [with_austria], {"ITA": ["A TRI - VIE"]})
    assert verdicts(reports) == [("AUS", "aly([aus ita], [tur])", True), ("ITA", "aly([aus ita], [tur])", False)]


def test_a_demilitarised_zone_is_violated_by_moving_in_or_staying() -> None:
    board = Position.build("S1901M", {"FRA": ["A PAR", "A BUR"], "GER": ["A MUN", "A RUH"]})
    zone = made("Agree([fra ger], dmz([fra ger], [bur]))")
    reports = play(board, [zone], {"FRA": ["A BUR - PIC", "A PAR H"], "GER": ["A MUN - BUR"]})
    assert [(r.power, r.kept, r.detail) for r in reports] == [
        ("FRA", True, "no unit of fra ordered into or kept in bur"),
        ("GER", False, "A MUN - BUR (ok); A BUR there after the phase"),
    ]
    # a unit left in the zone without an order, or supporting from it, stays in it
    reports = play(board, [zone], {"FRA": ["A PAR H"], "GER": ["A RUH S A MUN"]})
    assert [(r.power, r.kept, r.detail) for r in reports] == [
        ("FRA", False, "A BUR held (no order); A BUR there after the phase"),
        ("GER", True, "no unit of ger ordered into or kept in bur"),
    ]
    # a move out that bounces keeps the zone
    reports = play(board, [zone], {"FRA": ["A BUR - MUN"], "GER": ["A MUN H"]})
    assert reports[0].kept is True


def test_what_is_not_checked_gives_no_report() -> None:
    unchecked = [
        made("Agree([fra ger], ~pce([fra ger]))"),
        made("Agree([fra ger], drw([fra ger]) & slo(fra))"),
        made("Commit(fra, ger, Do(mto(Unit(fra, Region(par, amy)), Region(bur, amy)), t1))"),
        made("Commit(fra, ger, dmz([ger], [bur]))"),  # not about fra's own orders
        made("Commit(fra, ger, Do(hld(Unit(ger, Region(mun, amy)))))"),  # ger's order: ger did not commit
        made("Commit(fra, ger, Do(rto(Unit(fra, Region(par, amy)), Region(bur, amy))))"),  # no retreat this phase
        made("Commit(fra, ger, Do(hld(Unit(fra, Region(par, amy))), (fal, 1901)))"),  # a later phase
        made("Agree([fra ger], pce([fra ger]))", "F1901M"),  # made later
        made("Agree([fra ger], pce([fra ger]))", "S1901M", "ENG"),  # no committed participant
    ]
    assert play(START, unchecked, {"FRA": ["A PAR - BUR"], "GER": ["A MUN - BUR"]}) == []


def test_times_decide_the_phase_a_part_is_checked_in() -> None:
    deals = [
        made("Commit(fra, ger, Do(hld(Unit(fra, Region(par, amy)))))"),  # untimed: spring only
        made("Commit(fra, ger, Do(mto(Unit(fra, Region(par, amy)), Region(bur, amy)), (fal, 1901)))"),
        made("Agree([fra ger], dmz([fra ger], [ruh]))"),  # untimed predicate: from spring on
        made("Agree([fra ger], dmz([fra ger], [pic]), (spr, 1901))"),  # spring only
    ]
    fall = Position.build("F1901M", {"FRA": ["A PAR"], "GER": ["A MUN"]})
    reports = play(fall, deals, {"FRA": ["A PAR - BUR"], "GER": ["A MUN - RUH"]})
    assert [(r.commitment, r.power, r.kept) for r in reports] == [
        (1, "FRA", True),
        (2, "FRA", True),
        (2, "GER", False),
    ]
    assert [c.lasts_after("S1901M") for c in deals] == [False, True, True, False]
    assert [c.lasts_after("F1901M") for c in deals] == [False, False, True, False]


def test_a_sequence_checks_its_timed_steps() -> None:
    plan = made(
        "Commit(fra, ger, Do(hld(Unit(fra, Region(par, amy)))) ;"
        " Do(mto(Unit(fra, Region(par, amy)), Region(bur, amy)), (fal, 1901)))"
    )
    fall = Position.build("F1901M", {"FRA": ["A PAR"]})
    assert [r.kept for r in play(fall, [plan], {"FRA": ["A PAR - BUR"]})] == [True]
    assert [r.kept for r in play(fall, [plan], {"FRA": ["A PAR - PIC"]})] == [False]
    assert play(START, [plan], {"FRA": ["A PAR H"]}) == []  # the untimed step has no fixed phase


def test_retreats_and_adjustments() -> None:
    board = Position.build(
        "S1901R", {"GER": ["A BUR"], "FRA": ["A PAR"]}, dislodged={"A BUR": ("FRA", ["PIC", "GAS"])}
    )
    retreat = made("Commit(fra, ger, Do(rto(Unit(fra, Region(bur, amy)), Region(gas, amy))))", "S1901R")
    assert [(r.kept, r.detail) for r in play(board, [retreat], {"FRA": ["A BUR R GAS"]})] == [
        (True, "A BUR R GAS (ok)")
    ]
    assert [(r.kept, r.detail) for r in play(board, [retreat], {})] == [(False, "A BUR disbanded (no order)")]
    winter = Position.build("W1901A", {"FRA": ["A BUR"]}, centers={"FRA": ["BRE", "PAR"]})
    build = made("Commit(fra, eng, Do(bld(Unit(fra, Region(bre, coast)))) & dmz([fra], [par]))", "W1901A")
    reports = play(winter, [build], {"FRA": ["F BRE B"]})
    assert [(r.part, r.kept, r.detail) for r in reports] == [
        ("Do(bld(Unit(fra, Region(bre, coast))))", True, "F BRE B (ok)"),
        ("dmz([fra], [par])", True, "no unit of fra ordered into or kept in par"),
    ]
    assert (
        play(winter, [made("Agree([eng fra], pce([eng fra]))")], {"FRA": ["F BRE B"]}) == []
    )  # no attacks in winter
    reports = play(winter, [build], {"FRA": ["A PAR B"]})
    assert [(r.kept, r.detail) for r in reports] == [
        (False, "not ordered"),
        (False, "A PAR B (ok); A PAR there after the phase"),
    ]


def test_attacks_of_a_phase() -> None:
    board = Position.build(
        "S1901M",
        {
            "FRA": ["A PAR", "A PIC", "F MAO"],
            "GER": ["A BUR", "A MUN", "A BEL"],
            "ENG": ["F ECH", "A LON"],
        },
        centers={"FRA": ["PAR", "BRE"], "GER": ["MUN", "BEL"], "ENG": ["LON"]},
    )
    orders = orders_of(
        board,
        {
            "FRA": ["A PAR - BUR", "A PIC S A PAR - BUR", "F MAO - BRE"],
            "GER": ["A BUR - PAR", "A MUN - RUH", "A BEL - HOL"],
            "ENG": ["F ECH C A LON - PIC", "A LON - PIC VIA"],
        },
    )
    assert attacks(board, orders) == [
        Attack("ENG", "FRA", "PIC"),  # the convoy and the convoyed move into a unit that stays
        Attack("ENG", "FRA", "PIC"),
        Attack("GER", "FRA", "PAR"),  # into a centre; the swap itself is no attack on the unit
    ]
    # a unit that stays is attacked, and the owner of a centre moved into too
    orders = orders_of(board, {"FRA": ["A PIC - BEL"], "GER": ["A BEL H"], "ENG": ["A LON - WAL"]})
    assert attacks(board, orders) == [Attack("FRA", "GER", "BEL")]
    # orders for another power's units attack no one, nor do moves into one's own centres
    orders = orders_of(board, {"FRA": ["A BUR - MUN", "F MAO - BRE"], "GER": ["A BUR - MUN"]})
    assert attacks(board, orders) == []
    # a retreat into another power's centre
    retreats = Position.build(
        "F1901R",
        {"GER": ["A PIC"], "FRA": ["A PAR"]},
        centers={"ENG": ["BEL"]},
        dislodged={"A PIC": ("FRA", ["BEL", "BRE"])},
    )
    assert attacks(retreats, orders_of(retreats, {"FRA": ["A PIC R BEL"]})) == [Attack("FRA", "ENG", "BEL")]

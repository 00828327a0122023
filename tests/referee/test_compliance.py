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
    reports = play(START, [promises], {"ENGLAND": ["F LON - NTH"], "GERMANY": ["A MUN - RUH"]})
    assert verdicts(reports) == [
        ("eng", "Do(mto(Unit(eng, Region(lon, coast)), Region(nth, sea)))", True),
        ("ger", "Do(mto(Unit(ger, Region(kie, coast)), Region(hol, coast)))", False),
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
    other = play(START, [promises], {"GERMANY": ["F KIE - DEN"]})
    assert other[1].detail == "ordered F KIE - DEN (ok)"


def test_refusals_defaults_and_negations() -> None:
    no_bur = made("Commit(fra, ger, ~Do(mto(Unit(fra, Region(par, amy)), Region(bur, amy))))")
    holds = made("Commit(fra, ger, Do(hld(Unit(fra, Region(mar, amy)))))")
    either = made(
        "Commit(ger, fra, ~(Do(mto(Unit(ger, Region(mun, amy)), Region(bur, amy)))"
        " & Do(mto(Unit(ger, Region(ber, amy)), Region(mun, amy)))))"
    )
    reports = play(START, [no_bur, holds, either], {"FRANCE": ["A PAR - BUR"], "GERMANY": ["A MUN - BUR"]})
    assert [(r.power, r.kept, r.detail) for r in reports] == [
        ("fra", False, "A PAR - BUR (bounce)"),
        ("fra", True, "A MAR held (no order)"),  # a unit without an order holds
        ("ger", True, "A BER held (no order)"),  # not both moves
    ]
    reports = play(START, [no_bur, either], {"FRANCE": ["A PAR - PIC"], "GERMANY": ["A MUN - BUR", "A BER - MUN"]})
    assert [(r.power, r.kept) for r in reports] == [("fra", True), ("ger", False)]


def test_peace_is_broken_by_an_attack_and_kept_by_a_follow_in() -> None:
    board = Position.build(
        "S1901M",
        {"FRANCE": ["A PAR", "A PIC"], "GERMANY": ["A BUR", "A MUN"], "ENGLAND": ["A BEL"]},
        centers={"FRANCE": ["PAR"], "GERMANY": ["MUN"]},
    )
    peace = made("Agree([fra ger], pce([fra ger]))")
    reports = play(board, [peace], {"FRANCE": ["A PAR - BUR", "A PIC - BEL"], "GERMANY": ["A MUN H"]})
    assert verdicts(reports) == [("fra", "pce([fra ger])", False), ("ger", "pce([fra ger])", True)]
    assert reports[0].detail == "A PAR - BUR (bounce) attacks ger in bur"  # attacking eng is no breach
    assert reports[1].detail == "no attack on fra"
    # following a unit that leaves is no attack; a support into a partner's centre is one
    reports = play(
        board,
        [peace],
        {"FRANCE": ["A PAR - BUR", "A PIC S A PAR - BUR"], "GERMANY": ["A BUR - RUH", "A MUN S A BUR - PAR"]},
    )
    assert verdicts(reports) == [("fra", "pce([fra ger])", True), ("ger", "pce([fra ger])", False)]
    assert "A MUN S A BUR - PAR" in reports[1].detail and "fra in par" in reports[1].detail


def test_an_alliance_is_broken_by_attacking_an_ally_not_by_sparing_the_enemy() -> None:
    board = Position.build(
        "S1901M",
        {"ITALY": ["A VEN", "A TRI"], "AUSTRIA": ["A VIE"], "RUSSIA": ["A GAL"], "TURKEY": ["A SER"]},
        centers={"AUSTRIA": ["VIE"], "TURKEY": ["SER"]},
    )
    alliance = made("Agree([ita rus], aly([ita rus], [tur]))")
    reports = play(board, [alliance], {"ITALY": ["A TRI - SER"], "RUSSIA": ["A GAL - VIE"]})
    assert verdicts(reports) == [("ita", "aly([ita rus], [tur])", True), ("rus", "aly([ita rus], [tur])", True)]
    with_austria = made("Agree([aus ita], aly([aus ita], [tur]))")
    reports = play(board, [with_austria], {"ITALY": ["A TRI - VIE"]})
    assert verdicts(reports) == [("aus", "aly([aus ita], [tur])", True), ("ita", "aly([aus ita], [tur])", False)]


def test_a_demilitarised_zone_is_violated_by_moving_in_or_staying() -> None:
    board = Position.build("S1901M", {"FRANCE": ["A PAR", "A BUR"], "GERMANY": ["A MUN", "A RUH"]})
    zone = made("Agree([fra ger], dmz([fra ger], [bur]))")
    reports = play(board, [zone], {"FRANCE": ["A BUR - PIC", "A PAR H"], "GERMANY": ["A MUN - BUR"]})
    assert [(r.power, r.kept, r.detail) for r in reports] == [
        ("fra", True, "no unit of fra ordered into or kept in bur"),
        ("ger", False, "A MUN - BUR (ok); A BUR there after the phase"),
    ]
    # a unit left in the zone without an order, or supporting from it, stays in it
    reports = play(board, [zone], {"FRANCE": ["A PAR H"], "GERMANY": ["A RUH S A MUN"]})
    assert [(r.power, r.kept, r.detail) for r in reports] == [
        ("fra", False, "A BUR held (no order); A BUR there after the phase"),
        ("ger", True, "no unit of ger ordered into or kept in bur"),
    ]
    # a move out that bounces keeps the zone
    reports = play(board, [zone], {"FRANCE": ["A BUR - MUN"], "GERMANY": ["A MUN H"]})
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
        made("Agree([fra ger], pce([fra ger]))", "S1901M", "eng"),  # no committed participant
    ]
    assert play(START, unchecked, {"FRANCE": ["A PAR - BUR"], "GERMANY": ["A MUN - BUR"]}) == []


def test_times_decide_the_phase_a_part_is_checked_in() -> None:
    deals = [
        made("Commit(fra, ger, Do(hld(Unit(fra, Region(par, amy)))))"),  # untimed: spring only
        made("Commit(fra, ger, Do(mto(Unit(fra, Region(par, amy)), Region(bur, amy)), (fal, 1901)))"),
        made("Agree([fra ger], dmz([fra ger], [ruh]))"),  # untimed predicate: from spring on
        made("Agree([fra ger], dmz([fra ger], [pic]), (spr, 1901))"),  # spring only
    ]
    fall = Position.build("F1901M", {"FRANCE": ["A PAR"], "GERMANY": ["A MUN"]})
    reports = play(fall, deals, {"FRANCE": ["A PAR - BUR"], "GERMANY": ["A MUN - RUH"]})
    assert [(r.commitment, r.power, r.kept) for r in reports] == [
        (1, "fra", True),
        (2, "fra", True),
        (2, "ger", False),
    ]
    assert [c.lasts_after("S1901M") for c in deals] == [False, True, True, False]
    assert [c.lasts_after("F1901M") for c in deals] == [False, False, True, False]


def test_a_sequence_checks_its_timed_steps() -> None:
    plan = made(
        "Commit(fra, ger, Do(hld(Unit(fra, Region(par, amy)))) ;"
        " Do(mto(Unit(fra, Region(par, amy)), Region(bur, amy)), (fal, 1901)))"
    )
    fall = Position.build("F1901M", {"FRANCE": ["A PAR"]})
    assert [r.kept for r in play(fall, [plan], {"FRANCE": ["A PAR - BUR"]})] == [True]
    assert [r.kept for r in play(fall, [plan], {"FRANCE": ["A PAR - PIC"]})] == [False]
    assert play(START, [plan], {"FRANCE": ["A PAR H"]}) == []  # the untimed step has no fixed phase


def test_retreats_and_adjustments() -> None:
    board = Position.build(
        "S1901R", {"GERMANY": ["A BUR"], "FRANCE": ["A PAR"]}, dislodged={"A BUR": ("FRANCE", ["PIC", "GAS"])}
    )
    retreat = made("Commit(fra, ger, Do(rto(Unit(fra, Region(bur, amy)), Region(gas, amy))))", "S1901R")
    assert [(r.kept, r.detail) for r in play(board, [retreat], {"FRANCE": ["A BUR R GAS"]})] == [
        (True, "A BUR R GAS (ok)")
    ]
    assert [(r.kept, r.detail) for r in play(board, [retreat], {})] == [(False, "A BUR disbanded (no order)")]
    winter = Position.build("W1901A", {"FRANCE": ["A BUR"]}, centers={"FRANCE": ["BRE", "PAR"]})
    build = made("Commit(fra, eng, Do(bld(Unit(fra, Region(bre, coast)))) & dmz([fra], [par]))", "W1901A")
    reports = play(winter, [build], {"FRANCE": ["F BRE B"]})
    assert [(r.part, r.kept, r.detail) for r in reports] == [
        ("Do(bld(Unit(fra, Region(bre, coast))))", True, "F BRE B (ok)"),
        ("dmz([fra], [par])", True, "no unit of fra ordered into or kept in par"),
    ]
    assert (
        play(winter, [made("Agree([eng fra], pce([eng fra]))")], {"FRANCE": ["F BRE B"]}) == []
    )  # no attacks in winter
    reports = play(winter, [build], {"FRANCE": ["A PAR B"]})
    assert [(r.kept, r.detail) for r in reports] == [
        (False, "not ordered"),
        (False, "A PAR B (ok); A PAR there after the phase"),
    ]


def test_attacks_of_a_phase() -> None:
    board = Position.build(
        "S1901M",
        {
            "FRANCE": ["A PAR", "A PIC", "F MAO"],
            "GERMANY": ["A BUR", "A MUN", "A BEL"],
            "ENGLAND": ["F ECH", "A LON"],
        },
        centers={"FRANCE": ["PAR", "BRE"], "GERMANY": ["MUN", "BEL"], "ENGLAND": ["LON"]},
    )
    orders = orders_of(
        board,
        {
            "FRANCE": ["A PAR - BUR", "A PIC S A PAR - BUR", "F MAO - BRE"],
            "GERMANY": ["A BUR - PAR", "A MUN - RUH", "A BEL - HOL"],
            "ENGLAND": ["F ECH C A LON - PIC", "A LON - PIC VIA"],
        },
    )
    assert attacks(board, orders) == [
        Attack("ENGLAND", "FRANCE", "PIC"),  # the convoy and the convoyed move into a unit that stays
        Attack("ENGLAND", "FRANCE", "PIC"),
        Attack("GERMANY", "FRANCE", "PAR"),  # into a centre; the swap itself is no attack on the unit
    ]
    # a unit that stays is attacked, and the owner of a centre moved into too
    orders = orders_of(board, {"FRANCE": ["A PIC - BEL"], "GERMANY": ["A BEL H"], "ENGLAND": ["A LON - WAL"]})
    assert attacks(board, orders) == [Attack("FRANCE", "GERMANY", "BEL")]
    # orders for another power's units attack no one, nor do moves into one's own centres
    orders = orders_of(board, {"FRANCE": ["A BUR - MUN", "F MAO - BRE"], "GERMANY": ["A BUR - MUN"]})
    assert attacks(board, orders) == []
    # a retreat into another power's centre
    retreats = Position.build(
        "F1901R",
        {"GERMANY": ["A PIC"], "FRANCE": ["A PAR"]},
        centers={"ENGLAND": ["BEL"]},
        dislodged={"A PIC": ("FRANCE", ["BEL", "BRE"])},
    )
    assert attacks(retreats, orders_of(retreats, {"FRANCE": ["A PIC R BEL"]})) == [Attack("FRANCE", "ENGLAND", "BEL")]

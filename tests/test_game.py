"""The phase sequence: skipped phases, supply centres, civil disorder, victory."""

from __future__ import annotations

from engine import Game, Position, adjudicate, parse_orders, standard_map
from engine.position import Phase

M = standard_map()


def play(position: Position, orders: dict[str, list[str]]):
    parsed, unreadable = parse_orders(M, orders)
    assert not unreadable
    return adjudicate(position, parsed)


def test_a_quiet_year_skips_retreats_and_adjustments() -> None:
    game = Game()
    game.play({})
    assert str(game.position.phase) == "F1901M"
    game.play({})
    assert str(game.position.phase) == "S1902M"
    assert game.position.centers == Position.initial().centers


def test_centres_change_hands_after_the_fall_only() -> None:
    game = Game()
    game.play({"FRANCE": ["A MAR - SPA"], "ENGLAND": ["F LON - NTH"]})
    assert game.position.centers[M.location("SPA")] is None
    game.play({"FRANCE": ["A SPA - POR"], "ENGLAND": ["F NTH - NWY"]})
    assert str(game.position.phase) == "W1901A"
    assert game.position.centers[M.location("POR")] == "FRA"
    assert game.position.centers[M.location("NWY")] == "ENG"
    assert game.position.adjustments == {"ENG": 1, "FRA": 1}
    game.play({"FRANCE": ["A MAR B"], "ENGLAND": ["F LON B"]})
    assert str(game.position.phase) == "S1902M"
    assert {game.position.unit_name(u) for u in game.position.units_of("FRA")} == {
        "A POR",
        "A MAR",
        "A PAR",
        "F BRE",
    }


def test_a_fall_retreat_comes_before_the_centre_count() -> None:
    start = Position.build(
        "F1901M",
        {"GERMANY": ["A HOL", "A RUH"], "FRANCE": ["A BUR", "A BEL"]},
        {"GERMANY": ["MUN"], "FRANCE": ["BEL"]},
    )
    moved = play(start, {"GERMANY": ["A RUH - BEL", "A HOL S A RUH - BEL"]})
    assert str(moved.position.phase) == "F1901R"
    assert moved.results[start.unit_in("BEL")] == ("dislodged",)
    retreated = play(moved.position, {"FRANCE": ["A BEL R PIC"]})
    assert retreated.position.centers[M.location("BEL")] == "GER"
    assert str(retreated.position.phase) == "W1901A"  # Germany builds, France removes


def test_civil_disorder_removes_the_farthest_unit() -> None:
    start = Position.build("W1901A", {"FRANCE": ["A PAR", "F NAO", "A GAS"]}, {"FRANCE": ["PAR", "BRE"]})
    outcome = play(start, {})
    assert {outcome.position.unit_name(u) for u in outcome.position.units} == {"A PAR", "A GAS"}
    assert outcome.results[start.unit_in("NAO")] == ("disband",)


def test_eighteen_centres_win_the_game() -> None:
    seventeen = [
        "BUD",
        "TRI",
        "VIE",
        "SER",
        "GRE",
        "BUL",
        "RUM",
        "CON",
        "ANK",
        "SMY",
        "SEV",
        "MOS",
        "WAR",
        "VEN",
        "ROM",
        "NAP",
        "TUN",
    ]
    start = Position.build("F1910M", {"AUSTRIA": ["A GAL", "A MUN"]}, {"AUSTRIA": seventeen, "GERMANY": ["BER"]})
    outcome = play(start, {"AUSTRIA": ["A GAL - WAR", "A MUN - BER"]})
    assert outcome.position.completed
    assert outcome.position.winner == "AUS"
    assert outcome.position.to_json()["phase"] == "COMPLETED"
    assert adjudicate(outcome.position, {}).position is outcome.position


def test_unreadable_orders_are_void_not_errors() -> None:
    game = Game()
    outcome = game.play({"FRANCE": ["A PAR - BUR", "A PAR fly to the moon"]})
    assert outcome.unreadable == ("A PAR fly to the moon",)
    assert outcome.words("A PAR") == ("ok",)


def test_phases_compare_in_playing_order() -> None:
    phases = ["S1901M", "S1901R", "F1901M", "F1901R", "W1901A", "S1902M"]
    assert sorted(Phase.parse(p) for p in reversed(phases)) == [Phase.parse(p) for p in phases]

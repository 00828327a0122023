"""The maps shipped besides the standard one (issue 31, first part): each parses under its own
name, its adjacencies are what its rules say, and a few turns adjudicate as they should, on
both cores. A map too large for the compiled core says so in one line. Budget: about 3 s."""

from __future__ import annotations

import logging

import pytest

from engine import Game, Position, _native, legal_orders
from engine.maps import MapError, load_map, map_names, parse_map, standard_map, variant_map

CORES = [pytest.param(False, id="compiled"), pytest.param(True, id="pure")]


def test_every_shipped_map_parses_under_its_own_name_and_makes_legal_orders() -> None:
    assert {"standard", "fleet_rome", "france_austria", "pure"} <= set(map_names())
    for name in map_names():
        m = variant_map(name)
        assert m.name == name and m.victory_centers <= len(m.supply_centers)
        start = Position.initial(m)
        assert len(start.units) == len(m.starting_units)
        for power in m.powers:
            assert legal_orders(start, power), (name, power)  # every power has something to order
    assert standard_map() is variant_map("standard")


def test_an_unknown_map_is_refused_in_one_line() -> None:
    with pytest.raises(
        MapError, match=r"^unknown map 'ancmed': the maps are fleet_rome, france_austria, pure, standard"
    ):
        variant_map("ancmed")
    with pytest.raises(MapError, match="unknown map"):
        variant_map("../standard")


def test_fleet_rome_is_the_standard_map_with_an_italian_fleet_in_rome() -> None:
    m, s = variant_map("fleet_rome"), standard_map()
    assert m.army_moves == s.army_moves and m.fleet_moves == s.fleet_moves and m.homes == s.homes
    italy = {Position.initial(m).unit_name(u) for u in Position.initial(m).units if u.power == "ITA"}
    assert italy == {"F NAP", "F ROM", "A VEN"}


@pytest.mark.parametrize("pure", CORES)
def test_a_fleet_in_rome_sails_where_an_army_could_not(pure: bool) -> None:
    with _native.pure_python(pure):
        game = Game(Position.initial(variant_map("fleet_rome")))
        game.play({"ITA": ["F ROM - TYS", "F NAP - ION", "A VEN - PIE"]})
        game.play({"ITA": ["F TYS - TUN"]})
        assert game.position.center_counts["ITA"] == 4 and "F TUN" in {
            game.position.unit_name(u) for u in game.position.units
        }


def test_france_against_austria_has_two_powers_and_the_other_homes_neutral() -> None:
    m = variant_map("france_austria")
    start = Position.initial(m)
    assert m.powers == ("AUS", "FRA") and m.victory_centers == 18
    assert start.center_counts == {"AUS": 3, "FRA": 3}
    assert sum(owner is None for p, owner in enumerate(start.centers) if m.is_supply_center[p]) == 28
    assert {u.power for u in start.units} == {"AUS", "FRA"} and len(start.units) == 6


@pytest.mark.parametrize("pure", CORES)
def test_in_france_against_austria_the_empty_homes_are_there_to_take(pure: bool) -> None:
    with _native.pure_python(pure):
        game = Game(Position.initial(variant_map("france_austria")))
        game.play({"FRA": ["A PAR - PIC", "A MAR - SPA", "F BRE - MAO"], "AUS": ["A VIE - TYR", "A BUD - SER"]})
        game.play({"FRA": ["A PIC - BEL", "F MAO - POR"], "AUS": ["A TYR - MUN", "F TRI - VEN"]})
        counts = game.position.center_counts
        assert game.position.phase.season == "W" and counts == {"AUS": 6, "FRA": 6}
        assert game.position.adjustments == {"AUS": 3, "FRA": 3}


def test_pure_has_seven_capitals_each_next_to_every_other() -> None:
    m = variant_map("pure")
    assert len(m.locations) == 7 and len(m.supply_centers) == 7 and m.victory_centers == 4
    for loc in range(7):
        assert m.army_moves[loc] == frozenset(range(7)) - {loc} and not m.fleet_moves[loc]


@pytest.mark.parametrize("pure", CORES)
def test_in_pure_four_centres_win(pure: bool) -> None:
    """Austria takes London (Germany supporting), then Paris and Berlin, a fall each, with the
    army built in Vienna supporting: a solo at the fourth centre ends the game."""
    with _native.pure_python(pure):
        game = Game(Position.initial(variant_map("pure")))

        def year(fall: dict) -> None:
            game.play({})  # spring: everybody holds
            game.play(fall)
            while game.position.phase.kind == "R":  # a dislodged army with nowhere to go is gone
                game.play({})
            if game.position.phase.kind == "A":  # a build, where Vienna is free
                game.play({"AUS": ["A VIE B"]})

        year({"AUS": ["A VIE - LON"], "GER": ["A BER S A VIE - LON"]})
        assert game.position.center_counts["AUS"] == 2 and not any(u.power == "ENG" for u in game.position.units)
        year({"AUS": ["A LON - PAR", "A VIE S A LON - PAR"]})
        assert game.position.center_counts["AUS"] == 3
        year({"AUS": ["A PAR - BER", "A VIE S A PAR - BER"]})
        assert game.position.completed and game.position.winner == "AUS"


def test_a_variant_file_of_ones_own_can_be_based_on_a_shipped_map(tmp_path) -> None:
    path = tmp_path / "mine.map"
    path.write_text("[variant]\nbase=standard\nname=mine\nvictory=20\n", encoding="utf-8")
    m = load_map(path)
    assert m.name == "mine" and m.victory_centers == 20 and m.fleet_moves == standard_map().fleet_moves
    with pytest.raises(MapError, match="based on"):
        parse_map(path.read_text(encoding="utf-8"))


def test_a_map_too_large_for_the_compiled_core_says_so_in_one_line(caplog: pytest.LogCaptureFixture) -> None:
    if not _native.compiled_available():
        pytest.skip("the compiled core is not built")
    names = [f"P{a}{b}" for a in "ABCDEF" for b in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"][:130]
    lines = ["[variant]", "name=big", "[powers]", "AAA=Alpha,Alphan", "[provinces]", *(f"{n}={n}" for n in names),
             "[homes]", "AAA=PAA", "[positions]", "AAA=AMY PAA", "[borders]",
             *(f"{a}=AMY {b}" for a, b in zip(names, names[1:] + names[:1], strict=True))]  # fmt: skip
    big = parse_map("\n".join(lines))
    with caplog.at_level(logging.WARNING, logger="engine"), _native.pure_python(False):
        assert _native.core_for(big) is None
        game = Game(Position.initial(big))
        game.play({"AAA": ["A PAA - PAB"]})
    said = [r.getMessage() for r in caplog.records if "compiled core takes at most" in r.getMessage()]
    assert len(said) == 1 and "'big' has 130 locations" in said[0] and "\n" not in said[0]


def test_a_map_file_added_is_named_by_games(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import engine.maps as maps

    monkeypatch.setattr(maps, "_ADDED", {})
    monkeypatch.setattr(maps, "_added_from", {})
    path = tmp_path / "mine.map"
    path.write_text("[variant]\nbase=pure\nname=mine\nvictory=5\n")
    m = maps.add_map_file(path)
    assert (m.name, m.victory_centers, len(m.provinces)) == ("mine", 5, 7)
    assert maps.variant_map("mine") is m and "mine" in maps.map_names()
    assert maps.add_map_file(path) is m  # the same file twice is the same map
    other = tmp_path / "other" / "mine.map"
    other.parent.mkdir()
    other.write_text(path.read_text())
    with pytest.raises(MapError, match="as .*mine.map does"):
        maps.add_map_file(other)
    with pytest.raises(MapError, match="cannot read the map file"):
        maps.add_map_file(tmp_path / "none.map")

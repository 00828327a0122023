"""MILA's saved-game JSON against the real ``diplomacy`` package (a test-only dependency).

Both ways: a game played here, written as MILA JSON, loads in the package with the same
phases, units, centres, orders and messages; a game the package played and saved
converts to détente's document and back to an equal saved game.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from bots.inprocess import GameSetup, play_game
from formats import detect, mila, read, to_mila
from referee.settings import GameSettings

diplomacy = pytest.importorskip("diplomacy")
from diplomacy.utils.export import from_saved_game_format, to_saved_game_format

DATA = Path(__file__).parent.parent / "data" / "formats"
sys.path.insert(0, str(DATA))
from make_samples import mila_game


def sets(by_power: dict[str, Any] | None) -> dict[str, list[str]]:
    """Lists by power as sorted lists, empty ones left out (their order means nothing)."""
    return {power: sorted(values) for power, values in (by_power or {}).items() if values}


def messages(phase: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [(m["sender"], m["recipient"], m["phase"], m["time_sent"], m["message"]) for m in phase["messages"]]


def same_saved_games(a: dict[str, Any], b: dict[str, Any]) -> None:
    """Two MILA saved games hold the same phases, units, centres, retreats, orders and messages."""
    assert [p["name"] for p in a["phases"]] == [p["name"] for p in b["phases"]]
    for x, y in zip(a["phases"], b["phases"], strict=True):
        for key in ("units", "centers"):
            assert sets(x["state"][key]) == sets(y["state"][key]), (x["name"], key)
        assert {p: r for p, r in x["state"]["retreats"].items() if r} == {
            p: r for p, r in y["state"]["retreats"].items() if r
        }, x["name"]
        assert sets(x["orders"]) == sets(y["orders"]), x["name"]
        assert messages(x) == messages(y), x["name"]


@pytest.fixture(scope="module")
def played() -> Any:
    """A game played here by DumbBots and negotiating bots (L press), to 1903."""
    bots = ("randomnegotiator",) * 3 + ("dumbbot",) * 4
    return play_game(GameSetup(5, bots, GameSettings(year_limit=1903)))


def test_a_game_played_here_loads_in_the_diplomacy_package(played: Any) -> None:
    assert played.messages, "the game should have press"
    saved = json.loads(json.dumps(mila.dump(played)))
    game = from_saved_game_format(saved)
    again = to_saved_game_format(game)
    same_saved_games(saved, again)
    # the phases, units and centres are détente's, named as MILA names them
    document = played.to_json()
    assert [p["name"] for p in saved["phases"]][:-1] == [p["phase"] for p in document["phases"]]
    final = game.get_state()
    last = document["phases"][-1]["position"]
    assert sets(final["centers"]) == sets(last["centers"])
    assert sets(final["units"]) == sets({p: [mila.their_text(u) for u in v] for p, v in last["units"].items()})
    assert game.is_game_done and document["outcome"] == "draw"


def test_l_press_to_several_powers_is_one_message_per_recipient_merged_back(played: Any) -> None:
    document = played.to_json()
    document["messages"].insert(
        0,
        {
            "phase": "S1901M",
            "sender": "FRA",
            "text": "propose(fra, [eng ger], Agree([eng fra ger], pce([eng fra ger])))",
            "recipients": ["ENG", "GER"],
            "level": 1,
            "kind": "propose",
        },
    )
    document["messages"].insert(
        0,
        {
            "phase": "S1901M",
            "sender": "TUR",
            "recipients": ["RUS", "AUS"],
            "press": "SND (RUS AUS) (PRP (PCE (AUS RUS TUR)))",
        },
    )
    saved = mila.dump(document)
    copies = [m for m in saved["phases"][0]["messages"] if m["sender"] == "FRANCE" and "pce" in m["message"]]
    assert [m["recipient"] for m in copies] == ["ENGLAND", "GERMANY"]
    assert len({m["detente"]["id"] for m in copies}) == 1
    daide = [m for m in saved["phases"][0]["messages"] if m["sender"] == "TURKEY"]
    assert [m["message"] for m in daide] == ["SND (RUS AUS) (PRP (PCE (AUS RUS TUR)))"] * 2
    # the package keeps every copy (distinct times) and ignores the extra key
    game = from_saved_game_format(json.loads(json.dumps(saved)))
    kept = to_saved_game_format(game)["phases"][0]["messages"]
    assert [m["recipient"] for m in kept if m["sender"] == "FRANCE" and "pce" in m["message"]] == ["ENGLAND", "GERMANY"]
    back = mila.load(saved)
    assert back["messages"] == document["messages"]


def test_a_game_played_here_comes_back_as_it_was(played: Any) -> None:
    document = played.to_json()
    back = mila.load(json.loads(json.dumps(mila.dump(played))))
    assert [p["phase"] for p in back["phases"]] == [p["phase"] for p in document["phases"]]
    for ours, theirs in zip(document["phases"], back["phases"], strict=True):
        assert "note" not in theirs, theirs.get("differences")
        assert ours["orders"] == theirs["orders"]
        assert ours["results"] == theirs["results"]
        for key in ("units", "centers"):
            assert sets(ours["position"][key]) == sets(theirs["position"][key])
    assert back["messages"] == document["messages"]
    for key in ("seed", "settings", "bots", "outcome", "winner", "final_centres", "centres", "eliminated"):
        assert back[key] == document[key], key


@pytest.mark.parametrize("seed", [11, 23])
def test_a_game_of_the_diplomacy_package_converts_to_ours_and_back(seed: int) -> None:
    saved = mila_game(seed, last_year=1904)
    assert detect(saved) == "mila"
    document = read(saved)
    assert [p["phase"] for p in document["phases"]] == [p["name"] for p in saved["phases"]][:-1]
    assert document["messages"] and all(m["kind"] == "free" for m in document["messages"])
    same_saved_games(saved, to_mila(document))
    # and the package reads what we wrote back
    same_saved_games(saved, to_saved_game_format(from_saved_game_format(to_mila(document))))


def test_the_sample_file_of_the_package_reads() -> None:
    saved = json.loads((DATA / "mila_sample.json").read_text())
    document = mila.load(saved)
    assert "F1902R" in [p["phase"] for p in document["phases"]]
    retreat = next(p for p in document["phases"] if p["phase"] == "F1902M")["position"]
    assert retreat["dislodged"]
    assert sum(1 for m in document["messages"] if m.get("global")) == 4
    same_saved_games(saved, mila.dump(document))


def test_a_rule_difference_keeps_the_recorded_outcome_and_marks_the_phase() -> None:
    """MILA moves an army ordered 'VIA' to a neighbour over land when no fleet convoys it;
    DATC v3.0 (4.A.3, 6.G.8) keeps it where it is. The recorded move stands, marked."""
    from diplomacy import Game

    game = Game(game_id="via")
    game.set_orders("TURKEY", ["F ANK - BLA", "A CON - BUL"])
    game.process()
    game.set_orders("TURKEY", ["A BUL - RUM VIA", "F BLA H"])  # no convoy order
    game.process()
    saved = to_saved_game_format(game)
    assert "A RUM" in saved["phases"][2]["state"]["units"]["TURKEY"]
    document = mila.load(saved)
    first, second = document["phases"]
    assert "note" not in first
    assert "A RUM" in second["position"]["units"]["TURKEY"]  # the recorded history
    assert "DATC" in second["note"]
    recorded, ours = second["differences"]["units"]["TURKEY"]
    assert "A RUM" in recorded and "A BUL" in ours


@pytest.mark.parametrize("name", ["pure", "fleet_rome", "france_austria"])
def test_a_game_on_a_variant_comes_back_on_its_map(name: str) -> None:
    from engine.maps import variant_map
    from formats import cicero
    from formats.common import FormatError

    m = variant_map(name)
    played = play_game(GameSetup(3, ("dumbbot",) * len(m.powers), GameSettings(map=name, year_limit=m.first_year + 2)))
    saved = json.loads(json.dumps(mila.dump(played)))
    assert saved["map"] == {"france_austria": "standard_france_austria"}.get(name, name)
    assert {p["state"]["map"] for p in saved["phases"]} == {saved["map"]}
    back = mila.load(saved)
    document = played.to_json()
    assert back["settings"]["map"] == name
    assert [p["phase"] for p in back["phases"]] == [p["phase"] for p in document["phases"]]
    for ours, theirs in zip(document["phases"], back["phases"], strict=True):
        assert "note" not in theirs, theirs.get("differences")
        assert ours["orders"] == theirs["orders"]
    with pytest.raises(FormatError, match=f"map '{name}': dipcc plays the standard map only"):
        cicero.dump(played)


def test_a_saved_game_on_a_map_not_known_here_is_refused_in_one_line() -> None:
    from formats.common import FormatError

    saved = json.loads(json.dumps(mila.dump(play_game(GameSetup(1, ("holdbot",) * 7, GameSettings(year_limit=1901))))))
    saved["map"] = "ancmed"
    with pytest.raises(FormatError, match=r"^map 'ancmed': not a map known here \(the maps are .*standard"):
        mila.load(saved)

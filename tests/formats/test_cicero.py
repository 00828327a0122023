"""Meta's Cicero (dipcc) game JSON: read into détente's document, and on to MILA's format.

``tests/data/formats/cicero_sample.json`` is written from dipcc's documented schema (its
"Diplomacy Game JSON Specification, Version 1.0") and the shape of Meta's released files,
not copied from them: see ``tests/data/formats/make_samples.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from formats import cicero, detect, mila, read

DATA = Path(__file__).parent.parent / "data" / "formats"


def sample() -> dict:
    return json.loads((DATA / "cicero_sample.json").read_text())


def test_a_dipcc_game_is_detected_and_read() -> None:
    game = sample()
    assert detect(game) == "cicero"
    document = read(game)
    assert [p["phase"] for p in document["phases"]] == [p["name"] for p in game["phases"]][:-1]
    assert not any("note" in p for p in document["phases"])
    # dipcc writes no results: détente's adjudication gives them
    assert all(p["results"] for p in document["phases"] if p["orders"])
    assert document["source"]["format"] == "cicero" and document["source"]["scoring_system"] == "sum_of_squares"


def test_its_messages_both_shapes_and_all() -> None:
    game = sample()
    assert isinstance(game["phases"][1]["messages"], dict)  # the specification's {time_sent: message}
    document = cicero.load(game)
    expected = sum(len(p["messages"]) for p in game["phases"])
    assert len(document["messages"]) == expected
    public = [m for m in document["messages"] if m.get("global")]
    assert public and all(len(m["recipients"]) == 6 for m in public)
    times = [m["time_sent"] for m in document["messages"]]
    assert times == sorted(times)


def test_the_starred_dislodged_units_of_a_retreat_phase() -> None:
    document = cicero.load(sample())
    before_retreat = next(p for p in document["phases"] if p["phase"] == "F1902M")["position"]
    assert before_retreat["phase"] == "F1902R" and before_retreat["dislodged"]


def test_the_same_game_as_mila_and_as_dipcc_reads_the_same() -> None:
    from_mila = mila.load(json.loads((DATA / "mila_sample.json").read_text()))
    from_dipcc = cicero.load(sample())
    for a, b in zip(from_mila["phases"], from_dipcc["phases"], strict=True):
        assert a["position"] == b["position"] and a["orders"] == b["orders"]


def test_a_dipcc_game_goes_on_to_mila() -> None:
    diplomacy = pytest.importorskip("diplomacy")
    from diplomacy.utils.export import from_saved_game_format

    saved = mila.dump(cicero.load(sample()))
    game = from_saved_game_format(json.loads(json.dumps(saved)))
    assert game.get_current_phase() == sample()["phases"][-1]["name"]
    assert isinstance(game, diplomacy.Game)


def test_another_map_is_refused() -> None:
    game = sample()
    game["map"] = "fva"
    with pytest.raises(cicero.FormatError if hasattr(cicero, "FormatError") else ValueError, match="standard map"):
        cicero.load(game)


def test_a_dipcc_game_is_written_again_as_it_was_read() -> None:
    game = sample()
    document = cicero.load(game)
    written = cicero.dump(document)
    assert detect(written) == "cicero"
    assert {k: written[k] for k in cicero.CICERO_KEYS} == {k: game[k] for k in cicero.CICERO_KEYS}
    assert [p["name"] for p in written["phases"]] == [p["name"] for p in game["phases"]]
    assert [p["logs"] for p in written["phases"]] == [p.get("logs", []) for p in game["phases"]]
    again = cicero.load(written)
    assert [p["position"] for p in again["phases"]] == [p["position"] for p in document["phases"]]
    assert again["messages"] == document["messages"]


def test_a_game_of_ours_goes_to_dipcc_and_back(tmp_path: Path) -> None:
    from detente.cli import main

    run = tmp_path / "run"
    assert main(["run", "--bots", "randomnegotiator,dumbbot", "--games", "1", "--year-limit", "1903", "--out", str(run)]) == 0
    ours = json.loads((run / "games" / "1.json").read_text())
    assert main(["convert", str(run / "games" / "1.json"), "--to", "cicero", "-o", str(tmp_path / "g.json")]) == 0
    written = json.loads((tmp_path / "g.json").read_text())
    assert detect(written) == "cicero" and written["version"] == "1.0" and written["is_full_press"] is True
    assert all(m["recipient"] != "GLOBAL" for p in written["phases"] for m in p["messages"])
    back = cicero.load(written)
    # the positions played, and every message, as they were (the last phase is MILA's COMPLETED)
    assert [p["position"] for p in back["phases"][:-1]] == [p["position"] for p in ours["phases"][:-1]]
    assert back["messages"] == ours["messages"]

"""The numpy training example (examples/train_numpy.py) in process: a few seconds of training,
then the held-out evaluation of the trained policy and of random play, in the shape the
benchmark keeps; the weights move, the features say what they name. Budget: about 10 s."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from engine import Position
from engine.maps import ARMY
from engine.orders import Move, SupportMove
from examples.train_numpy import EVAL_BASE, FEATURES, F, features, main, run

FIGURES = ("score", "score_se", "win_rate", "win_rate_se", "centres", "centres_se")


def test_a_short_training_gives_the_figures_and_moves_the_weights() -> None:
    lines: list[str] = []
    result = run(0.05, seed=3, eval_games=4, log=lines.append)
    assert set(result) >= {"policy", "random", "training", "eval_seeds", "weights"}
    for name in ("policy", "random"):
        figures = result[name]
        assert figures["n"] == 4 and set(figures) == {"n", *FIGURES}
        assert all(isinstance(figures[k], float) and math.isfinite(figures[k]) for k in FIGURES)
        assert 0 <= figures["score"] <= 1 and 0 <= figures["win_rate"] <= 1 and 0 <= figures["centres"] <= 34
        assert all(figures[k] >= 0 for k in FIGURES if k.endswith("_se"))
    training = result["training"]
    assert training["games"] >= 16 and training["steps"] > training["games"] and training["updates"] >= 1
    first, last = training["seeds"]
    assert first == 3 * 10**6 and last - first + 1 == training["games"]
    assert result["eval_seeds"] == [EVAL_BASE, EVAL_BASE + 3] and last < EVAL_BASE  # held out from training
    weights = np.array([result["weights"][name] for name in FEATURES])
    assert np.isfinite(weights).all() and np.abs(weights).max() > 0.1  # they start at 0
    assert any(line.startswith("  policy") for line in lines) and any(line.startswith("  random") for line in lines)


def test_the_command_line_writes_the_figures_as_json(tmp_path: Path) -> None:
    out = tmp_path / "figures.json"
    main(["--minutes", "0.01", "--eval-games", "2", "--seed", "5", "--json", str(out)])
    written = json.loads(out.read_text())
    assert written["policy"]["n"] == written["random"]["n"] == 2 and written["training"]["seeds"][0] == 5 * 10**6


def test_the_features_name_what_an_order_does() -> None:
    start = Position.initial()
    m, threat = start.map, {p: 0 for p in range(len(start.map.locations))}
    mar, spa, bur, par = (m.location(name) for name in ("MAR", "SPA", "BUR", "PAR"))
    to_spain = features(start, "FRA", Move(ARMY, mar, spa), set(), threat)
    assert to_spain[F["Move"]] == 1 and to_spain[F["ends on a centre not ours"]] == 1
    assert to_spain[F["ends on a centre not ours in fall"]] == 0  # spring
    to_burgundy = features(start, "FRA", Move(ARMY, par, bur), {(m.province_of[mar], bur)}, threat)
    assert to_burgundy[F["ends on a centre not ours"]] == 0 and to_burgundy[F["ends where we already go"]] == 1
    support = SupportMove(ARMY, par, ARMY, mar, bur)
    assert features(start, "FRA", support, {(mar, bur)}, threat)[F["supports our planned move"]] == 1
    assert features(start, "FRA", support, set(), threat)[F["supports our planned move"]] == 0
    assert features(start, "FRA", support, set(), threat)[F["supports ours"]] == 1

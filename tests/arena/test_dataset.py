"""Game files as (observation, action) arrays (issue 30): the same game in détente's, MILA's and
Cicero's formats gives the same examples, and each action replays the game's orders. Budget: 5 s."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from arena.dataset import load
from arena.vocabulary import Vocabulary
from detente.cli import main
from engine import format_order, standard_map


def test_a_folder_of_games_in_every_format_gives_the_same_examples(tmp_path: Path) -> None:
    run = tmp_path / "run"
    assert (
        main(["run", "--bots", "randomnegotiator,dumbbot", "--games", "2", "--year-limit", "1903", "--out", str(run)])
        == 0
    )
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for n in (1, 2):
        game = run / "games" / f"{n}.json"
        (corpus / f"{n}.detente.json").write_bytes(game.read_bytes())
        for to in ("mila", "cicero"):
            assert main(["convert", str(game), "--to", to, "-o", str(corpus / f"{n}.{to}.json")]) == 0
    (corpus / "broken.json").write_text('{"phases": [')
    examples = load(corpus)
    assert examples.skipped == ("broken.json",) and examples.dropped == 0
    ours = examples.games == "1.detente.json"
    for other in ("1.mila.json", "1.cicero.json"):
        theirs = examples.games == other
        assert np.array_equal(examples.actions[ours], examples.actions[theirs])
        assert np.array_equal(examples.observations["board"][ours], examples.observations["board"][theirs])
    # each action gives back the orders the game file holds for that power and phase
    record = json.loads((run / "games" / "1.json").read_text())
    words, m = Vocabulary.of(standard_map()), standard_map()
    first = [i for i in np.flatnonzero(ours) if examples.phases[i] == record["phases"][0]["phase"]]
    for i in first:
        power = m.power_names[examples.powers[i]]
        texts = sorted(str(o) for o in record["phases"][0]["orders"].get(power, ()))
        given = sorted(format_order(m, words.order(loc, int(k))) for loc, k in enumerate(examples.actions[i]) if k)
        assert given == texts

"""Speed work never changes a decision: seven-DumbBot games replay exactly as recorded.

``tests/data/dumbbot_games.json`` holds, for a few seeds of :func:`bots.inprocess.play_game`
with seven DumbBots, a digest of every phase's orders (each power's, as a sorted list) and
results, and the final centres, as the commit named in the file played them. A change to
the DumbBot, the sessions, the table or the game master that alters one choice, one
random draw or one result changes a digest. Only a change meant to alter play may
regenerate the file (``python tests/bots/test_dumbbot_games_unchanged.py``), and it says
why in its note.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from bots.inprocess import GameSetup, play_game
from engine._native import pure_python
from referee.record import GameRecord
from referee.settings import GameSettings

DATA = Path(__file__).resolve().parents[1] / "data" / "dumbbot_games.json"
SEVEN = ("dumbbot",) * 7


def digest(record: GameRecord) -> str:
    """SHA-256 of every phase's name, orders (sorted by power, each power's sorted) and results,
    each power by its full name, as the game files write it."""
    full = record.power_names
    phases = [
        [phase.phase, {full[power]: sorted(given) for power, given in phase.orders.items()}, dict(phase.results)]
        for phase in record.phases
    ]
    return hashlib.sha256(json.dumps(phases, sort_keys=True).encode()).hexdigest()


def summary(seed: int, year_limit: int) -> dict[str, Any]:
    record = play_game(GameSetup(seed, SEVEN, GameSettings(year_limit=year_limit)))
    return {
        "seed": seed,
        "year_limit": year_limit,
        "phases": len(record.phases),
        "final_centres": {record.power_names[p]: n for p, n in record.final_centres.items()},
        "digest": digest(record),
    }


EXPECTED = json.loads(DATA.read_text()) if DATA.exists() else {"games": []}


@pytest.mark.parametrize("pure", [False, True], ids=["compiled", "pure"])
@pytest.mark.parametrize("game", EXPECTED["games"], ids=lambda g: f"seed{g['seed']}")
def test_seven_dumbbots_play_as_recorded(game: dict[str, Any], pure: bool) -> None:
    """On the compiled engine and spread (where built), and on the pure-Python ones."""
    with pure_python(pure):
        assert summary(game["seed"], game["year_limit"]) == game


def test_the_recorded_games_are_there() -> None:
    assert len(EXPECTED["games"]) >= 3


if __name__ == "__main__":  # regenerate: python tests/bots/test_dumbbot_games_unchanged.py COMMIT NOTE
    commit, note = sys.argv[1], sys.argv[2]
    games = [summary(seed, 1920) for seed in (1, 2, 3)]
    DATA.write_text(json.dumps({"commit": commit, "note": note, "games": games}, indent=1) + "\n")

"""Writes the sample games of this folder (run it from the repository's root):

    .venv/bin/python tests/data/formats/make_samples.py

``mila_sample.json``: a short game played by the ``diplomacy`` package (1.1.2) with seeded
random orders and a few messages (one of them to ``GLOBAL``), saved by its
``to_saved_game_format``. The package stamps each state with the time; the sample keeps them.

``cicero_sample.json``: the same game in Meta's dipcc game JSON. No dipcc file of Meta's is
copied here: this one is written from dipcc's documented schema ("Diplomacy Game JSON
Specification, Version 1.0" in facebookresearch/diplomacy_cicero) and the shape of the
files Meta released: top-level ``version``, ``id``, ``is_full_press``, ``map``,
``scoring_system``, ``metadata``; per phase ``name``, ``logs``, ``messages`` (``ALL`` for
everyone, times in centiseconds), ``orders``, ``results`` (empty, as in Meta's files),
``state`` (``builds``, ``centers``, ``homes``, ``name``, ``retreats`` by power, ``units``
with dislodged units starred); the last phase's orders empty. One phase's messages are
written as the specification's ``{time_sent: message}`` rather than a list.

``solo_game.json`` (with ``solo_game.mila.json``) and ``draw_game.json`` are not written
here: they are games 1 and 3 of ``detente run --bots dumbbot,holdbot,randombot --games 3
--seed 5 --year-limit 1905 --jobs 1 --format mila`` (Russia's solo in 1904; a draw at the
year limit), finished games for ``detente replay`` to show.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent


def mila_game(seed: int, last_year: int, messages: bool = True) -> dict[str, Any]:
    """A game of the ``diplomacy`` package with seeded random orders, saved in its format."""
    from diplomacy import Game, Message
    from diplomacy.utils.export import to_saved_game_format

    game = Game(game_id=f"sample-{seed}")
    rng = random.Random(seed)
    while not game.is_game_done and int(game.get_current_phase()[1:5]) <= last_year:
        possible = game.get_all_possible_orders()
        for power in sorted(game.powers):
            locations = sorted(game.get_orderable_locations(power))
            game.set_orders(power, [rng.choice(sorted(possible[loc])) for loc in locations if possible[loc]])
        phase = game.get_current_phase()
        if messages and phase.endswith("M"):
            sender, recipient = rng.sample(sorted(game.powers), 2)
            game.add_message(Message(sender=sender, recipient=recipient, message=f"{phase}: shall we?", phase=phase))
            game.add_message(Message(sender=recipient, recipient="GLOBAL", message="peace to all", phase=phase))
        game.process()
    return json.loads(json.dumps(to_saved_game_format(game)))


STATE_KEYS = ("builds", "centers", "homes", "name", "retreats", "units")


def cicero_of(saved: dict[str, Any]) -> dict[str, Any]:
    """A MILA saved game written as dipcc writes a game (see the module)."""
    phases = []
    last_time = 0
    for number, phase in enumerate(saved["phases"]):
        messages = []
        for m in phase["messages"]:
            last_time = max(last_time + 1, m["time_sent"] // 10_000)  # centiseconds, still distinct
            messages.append(
                {
                    "message": m["message"],
                    "phase": m["phase"],
                    "recipient": "ALL" if m["recipient"] == "GLOBAL" else m["recipient"],
                    "sender": m["sender"],
                    "time_sent": last_time,
                }
            )
        last = number == len(saved["phases"]) - 1
        phases.append(
            {
                "logs": [],
                "messages": {str(m["time_sent"]): m for m in messages} if number == 1 else messages,
                "name": phase["name"],
                "orders": {} if last else {p: o for p, o in phase["orders"].items()},
                "results": {},
                "state": {key: phase["state"][key] for key in STATE_KEYS},
            }
        )
    return {
        "id": "cicero-sample",
        "is_full_press": True,
        "map": "standard",
        "metadata": {"phase_minutes": "5", "note": "written from dipcc's documented schema, not Meta's data"},
        "phases": phases,
        "scoring_system": "sum_of_squares",
        "version": "1.0",
    }


def main() -> None:
    saved = mila_game(seed=11, last_year=1902)  # a game with a retreat phase
    (HERE / "mila_sample.json").write_text(json.dumps(saved) + "\n", encoding="utf-8")
    (HERE / "cicero_sample.json").write_text(json.dumps(cicero_of(saved)) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

"""Games as (observation, action) arrays, for imitation learning.

:func:`load` reads every game file of a folder (détente's ``games/<n>.json``, MILA saved
games, Cicero/dipcc games: :func:`formats.read` tells them apart) and turns each phase of
each game into one example per power that ordered: the observation of the position before
the phase (:func:`arena.observation.observe`, with the orders of the phase before) and the
action that gives that power's orders (:meth:`arena.vocabulary.Vocabulary.encode`). So
human-game corpora and the games of ``detente run`` feed the same pipeline.

An order the file holds that is no legal order of its unit in that position (older rules,
a typing error of a human game) is left out of the action, as the engine voids it; the
count is in :attr:`Examples.dropped`. A file that is not a game of a known format is
skipped and named in :attr:`Examples.skipped`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from arena.observation import observe
from arena.vocabulary import Vocabulary
from engine import Position, legal_orders, parse_orders, standard_map
from engine.orders import Order
from formats import FormatError, read
from formats.jsonio import BeyondBounds, loads

__all__ = ["Examples", "examples_of", "load"]


@dataclass(frozen=True)
class Examples:
    """Examples stacked: ``observations[key][i]`` and ``actions[i]`` of ``powers[i]``, from
    game ``games[i]`` (its file's name) at phase ``phases[i]``."""

    observations: Mapping[str, np.ndarray]
    actions: np.ndarray
    powers: np.ndarray
    phases: np.ndarray
    games: np.ndarray
    dropped: int = 0
    skipped: tuple[str, ...] = field(default=())

    def __len__(self) -> int:
        return len(self.actions)


def examples_of(document: Mapping[str, Any]) -> Iterator[tuple[dict[str, np.ndarray], str, np.ndarray, str, int]]:
    """Each example of one game document: (observation, power, action, phase, orders dropped)."""
    m = standard_map()
    words = Vocabulary.of(m)
    start = document.get("start")
    position = Position.from_json(start, m) if start else Position.initial(m)
    last: list[Order] = []
    for phase in document.get("phases", ()):
        seen = observe(position, last)
        full = {power: [str(o) for o in orders] for power, orders in (phase.get("orders") or {}).items()}
        parsed, _ = parse_orders(m, full)
        given: list[Order] = []
        for power in m.powers:
            orders = parsed.get(power, [])
            if not orders:
                continue
            legal = {o for os in legal_orders(position, power).values() for o in os}
            kept = [o for o in orders if o in legal and o in words.where]
            given += kept
            yield seen, power, words.encode(kept), str(position.phase), len(orders) - len(kept)
        last = given
        if phase["position"].get("phase") == "COMPLETED":  # the game is over: no phase to play after it
            return
        position = Position.from_json(phase["position"], m)


def load(folder: str | Path, pattern: str = "*.json") -> Examples:
    """The examples of every game file in ``folder`` matching ``pattern`` (see the module)."""
    columns: dict[str, list[np.ndarray]] = {}
    actions: list[np.ndarray] = []
    powers: list[str] = []
    phases: list[str] = []
    games: list[str] = []
    dropped = 0
    skipped: list[str] = []
    for path in sorted(Path(folder).glob(pattern)):
        try:
            document = read(loads(path.read_bytes()))
            found = list(examples_of(document))
        except (OSError, ValueError, FormatError, BeyondBounds, KeyError, TypeError):
            skipped.append(path.name)
            continue
        for seen, power, action, phase, lost in found:
            for key, value in seen.items():
                columns.setdefault(key, []).append(value)
            actions.append(action)
            powers.append(power)
            phases.append(phase)
            games.append(path.name)
            dropped += lost
    return Examples(
        observations={key: np.stack(values) for key, values in columns.items()},
        actions=np.stack(actions) if actions else np.zeros((0, len(standard_map().locations)), dtype=np.int64),
        powers=np.array(powers),
        phases=np.array(phases),
        games=np.array(games),
        dropped=dropped,
        skipped=tuple(skipped),
    )

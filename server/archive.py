"""A game as the store holds it, read without a game master: finished games are served
from here, since the server keeps only live games in memory.

Every phase's record (``adjudicate``) holds the orders given, each unit's result and the
position after, so the history is read, never recomputed: an engine with other rules
would not rewrite it. Records written before they held all that (stores of earlier
versions) are replayed instead, once, by the caller's fallback.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine import Position, standard_map
from server.api_models import GamePosition, HistoryEntry

__all__ = ["complete", "stored_history", "stored_position"]


def _adjudications(events: Sequence[Any]) -> list[dict[str, Any]]:
    return [e.payload for e in events if e.kind == "adjudicate"]


def complete(events: Sequence[Any]) -> bool:
    """Whether every phase record holds its outcome (else the game must be replayed)."""
    return all("after" in p for p in _adjudications(events))


def stored_history(events: Sequence[Any]) -> list[HistoryEntry]:
    """The phases played, oldest first, from complete records (see :func:`complete`)."""
    return [
        HistoryEntry(
            phase=p["phase"],
            orders={power: list(texts) for power, texts in p.get("given", {}).items()},
            results={unit: list(words) for unit, words in p["results"].items()},
            position=GamePosition.model_validate(p["after"]),
        )
        for p in _adjudications(events)
    ]


def stored_position(events: Sequence[Any]) -> Position:
    """The position after the last phase played (the initial one if none was)."""
    phases = _adjudications(events)
    if not phases:
        return Position.initial(standard_map())
    return Position.from_json(phases[-1]["after"], standard_map())

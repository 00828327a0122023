"""The field's game formats: MILA's saved games and Meta's Cicero (dipcc) games.

:func:`read` turns a game in any format read here into détente's game document (the shape
of ``detente run``'s ``games/<n>.json``); :func:`to_mila` writes a game as MILA's saved-game
JSON, which the ``diplomacy`` package loads with ``from_saved_game_format``, and
:func:`to_cicero` as Cicero's dipcc game JSON.

>>> from formats import detect, read, to_mila
>>> saved = to_mila({"phases": [], "messages": []})
>>> [phase["name"] for phase in saved["phases"]], detect(saved)
(['S1901M'], 'mila')
>>> read(saved)["outcome"]
'unfinished'

Formats lose what they cannot hold: see :mod:`formats.mila` (bots, settings and
the negotiation's events are not written to MILA) and :mod:`formats.cicero`.
Where the formats' engines follow older rules than détente's DATC v3.0, a game read here
keeps its recorded history and marks the phases concerned (``note``, ``differences``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from formats import cicero, mila
from formats.common import FormatError, our_text, their_text
from formats.detect import FORMATS, detect

__all__ = [
    "FORMATS",
    "FormatError",
    "cicero",
    "detect",
    "mila",
    "our_text",
    "read",
    "their_text",
    "to_cicero",
    "to_mila",
]


def read(data: Any, format: str | None = None) -> dict[str, Any]:
    """A game in ``format`` (detected when None) as détente's game document."""
    format = format or detect(data)
    if format == "mila":
        return mila.load(data)
    if format == "cicero":
        return cicero.load(data)
    if format == "detente":
        if not isinstance(data, Mapping):
            raise FormatError("not a détente game")
        return dict(data)
    raise FormatError(f"unknown format {format!r}; the formats are {', '.join(FORMATS)}")


def to_mila(data: Any, format: str | None = None) -> dict[str, Any]:
    """A game in any format read here (or a ``GameRecord``) as a MILA saved game."""
    if hasattr(data, "to_json"):
        return mila.dump(data)
    format = format or detect(data)
    return mila.dump(data if format == "detente" else read(data, format))


def to_cicero(data: Any, format: str | None = None) -> dict[str, Any]:
    """A game in any format read here (or a ``GameRecord``) as a Cicero/dipcc game."""
    if hasattr(data, "to_json"):
        return cicero.dump(data)
    format = format or detect(data)
    return cicero.dump(data if format == "detente" else read(data, format))

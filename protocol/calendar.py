"""The seasons of a turn, in one table: what DAIDE, L and English call each phase of a year.

The engine names a phase by its season of the year and its kind (``S1901M``: spring,
movement); the protocols name five seasons of a turn. Every list of seasons in the
protocols (and the bots' prompts) is read from :data:`TURN_SEASONS`.

>>> [s.token for s in TURN_SEASONS]
['SPR', 'SUM', 'FAL', 'AUT', 'WIN']
>>> season_of("F", "R")
Season(token='AUT', season='F', kind='R', word='autumn')
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.position import ADJUSTMENTS, MOVEMENT, RETREATS

__all__ = ["TURN_SEASONS", "Season", "season_of"]


@dataclass(frozen=True, slots=True)
class Season:
    """A season of a turn: its DAIDE token (L writes it in lower case), the engine's season of
    the year and kind of phase, and its name in English."""

    token: str
    season: str
    kind: str
    word: str


TURN_SEASONS: tuple[Season, ...] = (
    Season("SPR", "S", MOVEMENT, "spring"),
    Season("SUM", "S", RETREATS, "summer"),
    Season("FAL", "F", MOVEMENT, "fall"),
    Season("AUT", "F", RETREATS, "autumn"),
    Season("WIN", "W", ADJUSTMENTS, "winter"),
)

_BY_PHASE = {(s.season, s.kind): s for s in TURN_SEASONS}


def season_of(season: str, kind: str) -> Season:
    """The season of a turn for the engine's season of the year and kind of phase."""
    return _BY_PHASE[season, kind]

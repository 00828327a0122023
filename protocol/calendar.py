"""The seasons of a turn, in one table, and the one :class:`Turn`: what DAIDE, L and English
call each phase of a year.

The engine names a phase by its season of the year and its kind (``S1901M``: spring,
movement); the protocols name five seasons of a turn. Every list of seasons in the
protocols (and the bots' prompts) is read from :data:`TURN_SEASONS`.

>>> [s.token for s in TURN_SEASONS]
['SPR', 'SUM', 'FAL', 'AUT', 'WIN']
>>> season_of("F", "R")
Season(token='AUT', season='F', kind='R', word='autumn')

A turn is the same value in DAIDE (``SPR 1901``) and in L (``(spr, 1901)``): its season by
the token, whichever case it was written in.

>>> Turn("aut", 1901) == Turn("AUT", 1901) == Turn.of(Phase.parse("F1901R"))
True
>>> str(Turn("win", 1902).phase)
'W1902A'
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.position import ADJUSTMENTS, MOVEMENT, RETREATS, Phase

__all__ = ["TURN_SEASONS", "Season", "Turn", "season_of"]


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
_BY_TOKEN = {s.token: s for s in TURN_SEASONS}


def season_of(season: str, kind: str) -> Season:
    """The season of a turn for the engine's season of the year and kind of phase."""
    return _BY_PHASE[season, kind]


@dataclass(frozen=True, slots=True)
class Turn:
    """A season of a year: ``season`` is the season's token (``SPR``), ``year`` the year.

    DAIDE writes it ``SPR 1901`` and L ``(spr, 1901)``; their printers do, this value is the
    same for both. A season that is none of :data:`TURN_SEASONS` is a ``ValueError``; a year
    is any integer DAIDE can send (L's text writes none below 0).
    """

    season: str
    year: int

    def __post_init__(self) -> None:
        season = self.season.upper() if isinstance(self.season, str) else self.season
        if season not in _BY_TOKEN:
            raise ValueError(f"not a season: {self.season!r}")
        if not isinstance(self.year, int):
            raise ValueError(f"not a year: {self.year!r}")
        object.__setattr__(self, "season", season)

    @classmethod
    def of(cls, phase: Phase) -> Turn:
        """The turn of an engine phase: ``S1901M`` is ``SPR 1901``, ``F1901R`` is ``AUT 1901``."""
        return cls(_BY_PHASE[phase.season, phase.kind].token, phase.year)

    @property
    def phase(self) -> Phase:
        """The engine's phase of the turn."""
        season = _BY_TOKEN[self.season]
        return Phase(self.year, season.season, season.kind)

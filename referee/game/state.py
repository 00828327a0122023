"""The life of a game, as one table, and the values a game keeps of its turns.

A game forms (players join), plays (phases are adjudicated) and is over. :data:`LIFE` is
every move there is; :func:`moved` is the only way a game changes state.

>>> moved(GameState.FORMING, Event.START)
<GameState.PLAYING: 'playing'>
>>> moved(GameState.OVER, Event.START)
Traceback (most recent call last):
...
ValueError: a game over cannot start
>>> GameState.PLAYING == "playing"  # the state's value is what a server shows and stores
True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum, StrEnum

import engine.orders as eo
from engine import Adjudication
from protocol.daide.messages import Now, Ord, Order, Sco, Turn

__all__ = ["LIFE", "Event", "GameState", "Mismatch", "Submitted", "Turned", "moved"]


class GameState(StrEnum):
    FORMING = "forming"
    PLAYING = "playing"
    OVER = "over"


class Event(Enum):
    START = "start"  # every seat taken (and every map answered, or the wait over)
    END = "end"  # a solo, a draw, or the year limit


#: (state, event) -> the next state: every move a game makes.
LIFE: Mapping[tuple[GameState, Event], GameState] = {
    (GameState.FORMING, Event.START): GameState.PLAYING,
    (GameState.PLAYING, Event.END): GameState.OVER,
}


def moved(state: GameState, event: Event) -> GameState:
    """The state after ``event``; an event the table does not allow is a bug, and raises."""
    try:
        return LIFE[state, event]
    except KeyError:
        raise ValueError(f"a game {state.value} cannot {event.value}") from None


@dataclass(frozen=True, slots=True)
class Submitted:
    """An order accepted for this phase: as the player wrote it, and as the engine reads it."""

    daide: Order
    order: eo.Order


@dataclass(frozen=True, slots=True)
class Mismatch:
    """A replayed phase the engine now adjudicates otherwise than the stored record says: the
    stored results that differ, the recomputed ones, and whether the position after differs.
    The stored outcome is kept (a rules upgrade never rewrites a game's past)."""

    phase: str
    stored: Mapping[str, list[str]]
    recomputed: Mapping[str, list[str]]
    position_differs: bool


@dataclass(frozen=True, slots=True)
class Turned:
    """What one processed turn told everyone, kept for ``HST`` and ``ORD``."""

    turn: Turn
    phase_kind: str
    results: tuple[Ord, ...]
    sco: Sco
    now: Now
    orders: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """power -> the orders it gave (short notation); defaulted orders are not listed."""
    adjudication: Adjudication | None = None
    """The engine's outcome of the turn (the position before and after, each unit's result)."""

"""What a game shows of itself to its server: one frozen value, read between two inputs.

A server reads a live game only through :meth:`GameMaster.view
<referee.game.master.GameMaster.view>` (and the lobby); the value is safe to hand to
another task or thread, since nothing in it changes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from engine.position import PHASE_KINDS
from protocol.daide.messages import Drw, Slo
from referee.game import house
from referee.game.seats import StandIn
from referee.game.state import GameState
from referee.players import Role
from referee.settings import GameSettings

if TYPE_CHECKING:
    from referee.game.master import GameMaster

__all__ = ["GameView", "Outcome", "SeatView", "outcome_of", "view_of"]


@dataclass(frozen=True, slots=True)
class SeatView:
    power: str
    taken: bool
    connected: bool
    civil_disorder: bool  # taken, playing, nobody connected for it (no stand-in either), not out
    eliminated: bool
    bot: str | None = None  # the server's bot given this seat (a game against bots)
    stand_in: str | None = None  # the server's bot playing it while its player is away


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended: a solo (``powers``: the winner), a draw (the survivors), or cancelled."""

    kind: Literal["solo", "draw", "cancelled"]
    powers: tuple[str, ...]
    phase: str


@dataclass(frozen=True, slots=True)
class GameView:
    id: str
    settings: GameSettings
    state: str  # a GameState's value
    phase: str | None  # None while forming
    phase_kind: str | None  # "movement", "retreat", "adjustment"
    created: float
    next_deadline: float | None
    seats: tuple[SeatView, ...]
    observers: int
    outcome: Outcome | None  # once over
    stand_ins: tuple[StandIn, ...] = ()  # every bot that stood in for a player, oldest first


def outcome_of(g: GameMaster) -> Outcome:
    """How ``g`` ended (or ``cancelled``, if it did not)."""
    phase = str(g.position.phase)
    if isinstance(g.result, Slo):
        return Outcome("solo", (g.result.power,), phase)
    if isinstance(g.result, Drw):
        return Outcome("draw", g.surviving(), phase)
    return Outcome("cancelled", (), phase)


def view_of(g: GameMaster) -> GameView:
    """Where ``g`` stands, as one frozen value."""
    roster, eliminated, state = g.roster, g.eliminated, g.state
    playing = state is GameState.PLAYING
    bots, stood_in = house.bots_of(g), g.seats.stood_in
    seats = tuple(
        SeatView(
            power,
            taken=power in roster.players,
            connected=power in roster.connection_of and power not in stood_in,
            civil_disorder=playing
            and power in roster.players
            and power not in roster.connection_of
            and power not in eliminated,
            eliminated=power in eliminated,
            bot=bots.get(power),
            stand_in=stood_in.get(power),
        )
        for power in g.powers
    )
    phase = g.position.phase
    forming = state is GameState.FORMING
    return GameView(
        g.game_id,
        g.settings,
        state.value,
        None if forming else str(phase),
        None if forming else PHASE_KINDS[phase.kind],
        g.created,
        g.next_deadline,
        seats,
        sum(1 for c in roster.clients.values() if c.role is Role.OBSERVER),
        outcome_of(g) if state is GameState.OVER else None,
        tuple(g.seats.stand_ins.spans),
    )

"""One game, sans-I/O: its parts, the table of its messages and the table of its life.

:class:`GameMaster` (:mod:`referee.game.master`) is the game; the lobby
(:mod:`referee.lobby`) is the one door to it.
"""

from referee.game.master import GameMaster
from referee.game.seats import StandIn, StandIns
from referee.game.state import GameState, Mismatch, Submitted, Turned
from referee.game.view import GameView, Outcome, SeatView

__all__ = [
    "GameMaster",
    "GameState",
    "GameView",
    "Mismatch",
    "Outcome",
    "SeatView",
    "StandIn",
    "StandIns",
    "Submitted",
    "Turned",
]

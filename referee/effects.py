"""What the referee's machines ask their caller to do: one effect type for both.

The game master (:class:`referee.game.GameMaster`) and the negotiation
(:class:`referee.negotiation.Negotiation`) take an input and return a :class:`Step`:
the :class:`Record` values to store, then the effects to perform in order. A caller stores
the records first and performs the effects only once they are durable, so that nothing is
acknowledged that a crash could lose. A machine's state moves with the step; a caller
whose store refuses the records performs none of the effects and rebuilds the machine
from what is stored (:meth:`GameMaster.replay <referee.game.GameMaster.replay>`,
:meth:`Negotiation.apply <referee.negotiation.Negotiation.apply>`), which is the state
before the step: the step's new state counts only once its records are stored.

The effects:

- :class:`Send` a message to a recipient: for the game master a connection and a DAIDE
  message, for the negotiation a power (DAIDE token) and a ``/nego`` frame (JSON object);
- :class:`Reply` to whoever gave the input (the negotiation's ``ack`` or ``error``);
- :class:`Close` a connection;
- :class:`Notify` the followers of a game (the negotiation) with a typed notice;
- :class:`Relay` DAIDE press to a game's DAIDE players and :class:`Bind` confirmed order
  commitments: requests from the negotiation to the game master, each with an ``id`` that
  is the same whenever the same record is replayed, so that the game master can
  acknowledge a request and ignore it when it comes again. Between two servers a request
  can be lost: the negotiation server's negotiation keeps each one outstanding, stored,
  until its caller reports the game master's answer
  (:meth:`Negotiation.answered <referee.negotiation.Negotiation.answered>`), and the
  caller sends it until then; the game master stores the ids it applied
  (:attr:`GameMaster.requests <referee.game.GameMaster.requests>`).

>>> step = Step((Record("join", {"at": 1.0, "power": "FRANCE"}),), (Send("c1", "YES"), Close("c2")))
>>> step.sends, step.at
((Send(to='c1', message='YES'),), 1.0)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from referee.notices import Notice

__all__ = ["Bind", "Close", "Effect", "Notify", "Record", "Relay", "Reply", "Send", "Step"]


@dataclass(frozen=True, slots=True)
class Record:
    """A record to store before acting: ``kind`` and a JSON-serialisable ``payload``.

    The game master's payloads carry ``at``, the ``now`` of the input; the negotiation's
    carry their ``kind`` too (the form its replay reads).
    """

    kind: str
    payload: Mapping[str, Any]

    @property
    def at(self) -> float | None:
        at = self.payload.get("at")
        return None if at is None else float(at)


@dataclass(frozen=True, slots=True)
class Send:
    """Send ``message`` to ``to``: a DAIDE message to a connection, or a frame to a power."""

    to: str
    message: Any


@dataclass(frozen=True, slots=True)
class Reply:
    """Answer whoever gave the input (a frame)."""

    message: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Close:
    """Close the connection ``to`` (after sending what came before)."""

    to: str


@dataclass(frozen=True, slots=True)
class Notify:
    """Tell the followers of the game (the negotiation) what happened."""

    notice: Notice


@dataclass(frozen=True, slots=True)
class Relay:
    """Ask the game master to send DAIDE ``press`` (text) from ``sender`` to ``recipients``
    (DAIDE tokens) as ``FRM``."""

    id: str
    sender: str
    recipients: tuple[str, ...]
    press: str


@dataclass(frozen=True, slots=True)
class Bind:
    """Ask the game master to bind ``orders`` (power in full -> short notation) in ``phase``."""

    id: str
    phase: str
    orders: Mapping[str, tuple[str, ...]]


Effect = Send | Reply | Close | Notify | Relay | Bind


@dataclass(frozen=True, slots=True)
class Step:
    """What one input produced: records to store first, then effects to perform in order."""

    records: tuple[Record, ...] = ()
    effects: tuple[Effect, ...] = ()

    @property
    def sends(self) -> tuple[Send, ...]:
        return tuple(e for e in self.effects if isinstance(e, Send))

    @property
    def reply(self) -> Mapping[str, Any] | None:
        """The answer to whoever gave the input, if any."""
        return next((e.message for e in self.effects if isinstance(e, Reply)), None)

    @property
    def at(self) -> float | None:
        """The time of the input, as the first record tells it."""
        return self.records[0].at if self.records else None

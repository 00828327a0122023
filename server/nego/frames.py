"""The frames of ``/nego``: one JSON object per websocket text frame.

From a client:

- ``{"type": "hello", "game": ID, "power": "ENG", "session": TOKEN}``: the first frame; the
  power is the one of ``HLO``, the session token the one the game server gave at join (in
  its ``ADM ('detente') ('session TOKEN')``), checked with it. ``game`` may be left out: the
  token finds it. The 13-bit DAIDE passcode is not taken. A hello with the token takes the
  power's place from an older connection, which gets an ``error`` frame (``replaced``).
- ``{"type": "say", "id": ANY, "text": "<an L message>"}``: send a message; ``id`` comes
  back in the answer.
- ``{"type": "sync", "id": ANY}``: asks for ``synced``, which comes after the answer to every
  frame this connection sent before, and after every frame the server queued for it before
  (a client that has read ``synced`` has read all of those): a barrier for programs that
  negotiate in rounds, as ``detente run`` does at tables with external programs.

From the server:

- ``{"type": "welcome", "game", "power", "levels", "protocol", "binding", "phase",
  "deadline", "open", "mail", "notes"}``: the hello was accepted; ``deadline`` is ISO 8601
  UTC or null, ``open`` whether press is allowed now. Every message of the game to or from
  the power follows, as ``message`` frames, oldest first: ``mail`` of them. ``notes`` are
  the other frames the power was sent (``phase``, ``expired``, ``pending``, ``confirmed``,
  ``accepted``, ``unbound``, ``undelivered``, ``conflict``, ``compliance``, ``over``), made
  again from the stored records, oldest first, each with ``after``: the ``seq`` of the last
  message of the game before it (0: none), so that a chat puts them back among the mail.
- ``{"type": "ack", "id", "level"}``: the message was stored and delivered.
- ``{"type": "synced", "id"}``: the answer to ``sync``.
- ``{"type": "error", "id", "code", "message", "line", "column"}``: it was not; ``code``
  is one of :data:`ERROR_CODES`; ``line`` and ``column`` (from 1, within the text) for
  ``syntax``, ``level`` and ``ontology`` errors, else null. ``unavailable`` says to try
  again: the message could not be stored, or (for a hello, then closed) the game server
  could not check the session now.
- ``{"type": "message", "from", "to", "text", "phase", "seq"}``: a message to this power
  (or, in the mail sent after ``welcome``, from it): ``text`` is its normal form, ``seq``
  increases through the game.
- ``{"type": "phase", "phase", "kind", "deadline", "open"}``: a phase begins.
- ``{"type": "expired", "seq", "from", "to", "text", "phase"}``: a proposal still pending
  when its phase ended (to its sender and those who had not answered).
- ``{"type": "confirmed", "deal", "participants", "phase"}``: the notary confirmed a deal
  (every power it commits proposed or accepted it, none took it back; see
  ``docs/negotiation.md``). In a ``binding`` game, a deal that commits orders is
  ``confirmed`` only once the game server holds its binding: ``pending`` comes first.
- ``{"type": "accepted", "deal", "participants", "phase", "promise": true}``: a promise (a
  deal its proposer alone commits to) was accepted: it now holds its sender. A promise is
  never ``confirmed``; in a ``binding`` game its ``pending`` and ``unbound`` frames say
  ``"promise": true``.
- ``{"type": "pending", "deal", "participants", "phase"}``: (binding games) the notary
  confirmed the deal, and the game server has yet to hold its orders as binding (it may be
  away: the binding is stored and sent until it answers). ``confirmed`` follows when it
  does, or ``unbound``.
- ``{"type": "unbound", "deal", "participants", "phase", "reason"}``: a ``pending`` deal
  could not be made binding (its phase ended before the game server held it, or the game
  ended): it was never confirmed, and no order of it is enforced.
- ``{"type": "undelivered", "seq", "to", "phase", "reason"}``: to its sender, the message
  ``seq`` did not reach the DAIDE-only powers ``to`` (the game server was away until its
  phase ended, or the game ended); the negotiation clients among its receivers have it.
- ``{"type": "conflict", "deal", "reason", "with", "participants", "phase"}``: the deal the
  power proposed or accepted contradicts ``with`` (itself, or a deal confirmed or a promise
  accepted earlier in the phase), so it cannot be confirmed; ``reason`` says why in plain
  words; ``participants`` are the powers the deal names (``"promise": true`` for a promise
  offered).
- ``{"type": "compliance", "phase", "deal", "participants", "reports"}``: after a phase,
  how each party kept a confirmed deal or an accepted promise (``"promise": true``) it
  took part in (each report: ``power``, ``part``, ``kept``, ``detail``).
- ``{"type": "over", "phase"}``: the game ended.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

__all__ = ["ERROR_CODES", "FrameError", "Hello", "Say", "Sync", "error", "parse_frame"]

ERROR_CODES = (
    "syntax",
    "level",
    "ontology",
    "identity",
    "recipient",
    "protocol",
    "closed",
    "auth",
    "frame",
    "rate",
    "replaced",
    "unavailable",
)
MAX_TEXT = 16_384


class _Frame(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Hello(_Frame):
    type: Literal["hello"]
    game: str | None = Field(default=None, min_length=1, max_length=64)
    power: str = Field(min_length=3, max_length=16)
    session: str = Field(min_length=1, max_length=64)


class Say(_Frame):
    type: Literal["say"]
    id: Any = None
    text: str = Field(max_length=MAX_TEXT)


class Sync(_Frame):
    type: Literal["sync"]
    id: Any = None


_FRAME: TypeAdapter[Hello | Say | Sync] = TypeAdapter(Annotated[Hello | Say | Sync, Field(discriminator="type")])


class FrameError(ValueError):
    """Not a frame of this protocol; ``request_id`` is the frame's ``id`` when it had one."""

    def __init__(self, message: str, request_id: Any = None) -> None:
        super().__init__(message)
        self.request_id = request_id


def parse_frame(text: str) -> Hello | Say | Sync:
    """A client frame, or :class:`FrameError` saying what is wrong with it.

    >>> parse_frame('{"type": "say", "id": 7, "text": "withdraw(eng, fra)"}')
    Say(type='say', id=7, text='withdraw(eng, fra)')
    >>> parse_frame('{"type": "sync", "id": 8}')
    Sync(type='sync', id=8)
    >>> parse_frame('{"type": "shout"}')
    Traceback (most recent call last):
    ...
    server.nego.frames.FrameError: Input tag 'shout' found using 'type' does not match any of the expected tags: 'hello', 'say', 'sync'
    """
    try:
        return _FRAME.validate_json(text)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"] if p not in ("hello", "say", "sync"))
        request_id = None
        if first["type"] != "json_invalid":
            try:
                raw = json.loads(text)
                request_id = raw.get("id") if isinstance(raw, dict) else None
            except ValueError:
                pass
        raise FrameError(f"{where + ': ' if where else ''}{first['msg']}", request_id) from None


def error(code: str, message: str, request_id: Any = None, line: int | None = None, column: int | None = None) -> dict:
    """An ``error`` frame."""
    assert code in ERROR_CODES
    return {"type": "error", "id": request_id, "code": code, "message": message, "line": line, "column": column}

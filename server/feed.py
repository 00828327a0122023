"""The game server's feed for the negotiation server: every game's events, and its requests.

The negotiation server (issue 5) follows the game server over one websocket,
``/internal/feed``, opened with the shared secret (``Authorization: Bearer <secret>``).
Both sides send one JSON object per text frame.

From the game server:

- ``{"type": "game", "game", "settings", "state", "phase", "kind", "deadline"}``: every
  unfinished game when the feed opens, and each game when it is created or starts;
  ``settings`` is the body of ``POST /api/games``; ``deadline`` is a Unix time or null.
- ``{"type": "phase", "game", "phase", "kind", "deadline"}``: a phase begins.
- ``{"type": "results", "game", "phase", "orders", "results", "before", "after"}``: a phase
  was adjudicated: the orders adjudicated by power (short notation, after binding; units
  without one held or disbanded), each unit's result words, and the positions before and
  after in the adjudication-case format (``docs/adjudication-case.md``).
- ``{"type": "press", "game", "phase", "sender", "recipients", "press"}``: press a DAIDE
  client sent (powers as DAIDE tokens; ``press`` the DAIDE press message as text).
- ``{"type": "over", "game", "phase", "winner", "survivors"}``: the game ended.
- answers to requests, with the request's ``id``: ``auth`` (``ok``, ``game``, ``power``),
  ``delivered`` (``ok``, ``reached``, ``game``, ``request``, ``retry``), ``bound`` (``ok``,
  ``game``, ``request``, ``retry``), ``error`` (``message``). ``ok`` of ``bound`` says the
  game holds the binding (false: no such game, or not in that phase any more); ``ok`` of
  ``delivered`` that the press was stored and sent (false: no such game, unreadable press,
  or the game is past the request's ``phase``). ``retry`` true: the game server could not
  store the request now (``ok`` is false); send it again later.

From the negotiation server (:data:`Request`):

- ``{"type": "auth", "id", "game", "power", "session"}``: is this the session token of that
  power (a DAIDE token or full name) in that game (or, with ``game`` null, in any game)? The
  13-bit passcode is not taken here: it is for DAIDE's ``IAM`` alone.
- ``{"type": "deliver", "id", "game", "sender", "recipients", "press", "request", "phase"}``:
  send DAIDE press (text) as ``FRM`` to those powers' DAIDE connections, if the game is
  still in ``phase`` (optional).
- ``{"type": "bind", "id", "game", "phase", "orders", "request"}``: the order commitments
  confirmed for that phase, by power (full names), in the short notation (each binding
  replaces the phase's earlier one: it holds every commitment confirmed so far).

``request`` (optional) is the negotiation's id of the request (``bind:12``, ``relay:7``),
the same each time it is sent: the negotiation server stores its requests and sends them
until they are answered (again after a reconnection or a restart of either server), and
the game master stores the ids it applied, so that a request sent twice is applied once
and answered as done. ``id`` is only the link's, to match an answer to its request.

A follower whose queue overflows is dropped; it reconnects and gets the ``game`` frames
again. Events it missed while away are not replayed (the game's history is in the API).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from server.web import Outbox

__all__ = ["Feed", "Follower", "Request", "parse_request"]

DEFAULT_FOLLOWER_QUEUE = 16_384


class _Frame(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: int | str


class AuthRequest(_Frame):
    type: Literal["auth"]
    game: str | None = None  # None: the game where that power has that session token
    power: str = Field(max_length=16)
    session: str = Field(max_length=64)


class DeliverRequest(_Frame):
    type: Literal["deliver"]
    game: str
    sender: str = Field(pattern=r"^[A-Z]{3}$")
    recipients: list[Annotated[str, Field(pattern=r"^[A-Z]{3}$")]] = Field(min_length=1)
    press: str = Field(max_length=16_384)
    request: str | None = Field(default=None, max_length=64)  # the negotiation's id: applied once
    phase: str | None = Field(default=None, max_length=16)  # stale once the game is past it


class BindRequest(_Frame):
    type: Literal["bind"]
    game: str
    phase: str
    orders: dict[str, list[str]]
    request: str | None = Field(default=None, max_length=64)  # the negotiation's id: applied once


Request = Annotated[AuthRequest | DeliverRequest | BindRequest, Field(discriminator="type")]
_REQUEST: TypeAdapter[AuthRequest | DeliverRequest | BindRequest] = TypeAdapter(Request)


def parse_request(text: str) -> AuthRequest | DeliverRequest | BindRequest:
    """A request frame (raises pydantic's ``ValidationError`` for anything else)."""
    return _REQUEST.validate_json(text)


@dataclass(eq=False)
class Follower(Outbox[dict[str, Any]]):
    """One follower's frames to send (dropped when it falls behind; it reconnects and starts
    again from the ``game`` frames)."""


class Feed:
    """Every follower of the server's games."""

    def __init__(self) -> None:
        self.followers: set[Follower] = set()

    def follow(self, size: int = DEFAULT_FOLLOWER_QUEUE) -> Follower:
        follower = Follower(outbox=asyncio.Queue(size))
        self.followers.add(follower)
        return follower

    def unfollow(self, follower: Follower) -> None:
        self.followers.discard(follower)

    def publish(self, frame: dict[str, Any]) -> None:
        for follower in self.followers:
            follower.put(frame)

"""Who plays and who watches one game: players by power, connections by id.

A *player* outlives its connections (it rejoins with ``IAM`` and its passcode, or its
session token); a *client* is one connection as the transport names it, and is transient:
after a restart every player is disconnected until it comes back.

A player has two secrets. The passcode of ``HLO`` is a DAIDE integer (13 bits), all that old
bots know to send back; it is guarded by limits on guessing (:mod:`referee.guesses`). The
session token, given at join, is 128 random bits: it alone opens the negotiation server and
the web page's seat, and it alone may take a seat whose player is still connected. Only its
SHA-256 digest is kept and recorded, so a copy of the store gives no seat away.

>>> token = new_session_token(); len(token), session_digest(token) == session_digest(token)
(22, True)
"""

from __future__ import annotations

import hashlib
import random
import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import Enum

from referee.deadlines import DAIDE_MAX_INT

__all__ = ["SESSION_BYTES", "Client", "Player", "Role", "Roster", "draw_passcode", "new_session_token", "session_digest"]


class Role(Enum):
    """What a connection is in the game."""

    NEW = "new"  # connected, no successful NME, OBS or IAM yet
    OBSERVER = "observer"
    PLAYER = "player"


@dataclass(frozen=True, slots=True)
class Player:
    """A power's player as it joined: the identity ``SMR`` reports, the passcode of ``HLO`` and
    the digest of its session token (None for a player recorded before sessions existed)."""

    power: str  # the token, "ENG"
    name: str
    version: str
    passcode: int
    session: str | None = None

    def has_session(self, token: str) -> bool:
        """Whether ``token`` is this player's session token (compared in constant time)."""
        return self.session is not None and secrets.compare_digest(self.session, session_digest(token))


@dataclass(frozen=True, slots=True)
class Client:
    """One connection: its role, and the power it plays if it is a player."""

    conn: str
    role: Role = Role.NEW
    power: str | None = None


class Roster:
    """The players of a game and the connections watching or playing it."""

    def __init__(self) -> None:
        self.players: dict[str, Player] = {}
        self.clients: dict[str, Client] = {}
        self.connection_of: dict[str, str] = {}  # power -> the conn playing it now

    def client(self, conn: str) -> Client | None:
        return self.clients.get(conn)

    def power_of(self, conn: str) -> str | None:
        client = self.clients.get(conn)
        return client.power if client is not None and client.role is Role.PLAYER else None

    def seat(self, conn: str | None, player: Player) -> None:
        """Record ``player`` and, if ``conn`` is connected, let that connection play it."""
        self.players[player.power] = player
        if conn is not None and conn in self.clients:
            self.clients[conn] = Client(conn, Role.PLAYER, player.power)
            self.connection_of[player.power] = conn

    def unseat(self, power: str) -> None:
        """Forget a player that left before the game began."""
        self.players.pop(power, None)
        conn = self.connection_of.pop(power, None)
        if conn is not None and conn in self.clients:
            self.clients[conn] = Client(conn)

    def leave(self, conn: str) -> Client | None:
        """Drop a connection; its player, if any, stays (disconnected)."""
        client = self.clients.pop(conn, None)
        if client is not None and client.power is not None and self.connection_of.get(client.power) == conn:
            del self.connection_of[client.power]
        return client

    def watching(self) -> list[str]:
        """Connections that receive public broadcasts: players and observers, not newcomers."""
        return [c.conn for c in self.clients.values() if c.role is not Role.NEW]


def draw_passcode(rng: random.Random, taken: Iterable[int], in_use: Callable[[int], bool]) -> int:
    """A passcode in 1..8191 (a positive DAIDE integer) not in ``taken`` and not ``in_use`` elsewhere."""
    used = set(taken)
    for _ in range(10_000):
        code = rng.randint(1, DAIDE_MAX_INT)
        if code not in used and not in_use(code):
            return code
    raise RuntimeError("no free passcode left")


SESSION_BYTES = 16
"""Random bytes in a session token: 128 bits."""


def new_session_token() -> str:
    """A fresh session token: :data:`SESSION_BYTES` random bytes, URL-safe base64 (22 characters)."""
    return secrets.token_urlsafe(SESSION_BYTES)


def session_digest(token: str) -> str:
    """What is kept of a session token: its SHA-256, in hex."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()

"""Who plays and who watches one game: players by power, connections by id.

A *player* outlives its connections (it rejoins with ``IAM`` and its passcode); a
*client* is one connection as the transport names it, and is transient: after a restart
every player is disconnected until it comes back.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import Enum

from referee.deadlines import DAIDE_MAX_INT


class Role(Enum):
    """What a connection is in the game."""

    NEW = "new"  # connected, no successful NME, OBS or IAM yet
    OBSERVER = "observer"
    PLAYER = "player"


@dataclass(frozen=True, slots=True)
class Player:
    """A power's player as it joined: the identity ``SMR`` reports and the passcode of ``HLO``."""

    power: str  # the engine's full name, "ENGLAND"
    name: str
    version: str
    passcode: int


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

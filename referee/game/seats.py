"""The seats of one game: who plays which power, who watches, and who may come back.

:class:`Seats` holds the roster (:mod:`referee.players`), the connections' addresses, and
the limits a stranger meets: wrong passcodes, ``ADM`` buckets, connections closed. It
writes nothing itself and knows nothing of the game around it; the handlers of
:mod:`referee.game.joining` ask it and write to the game's collector.

Coming back with the passcode
-----------------------------

Old DAIDE bots know only the 13-bit passcode of ``HLO``: 8191 values, too few to be a
secret against a crowd. So a passcode is checked only where the rightful player could be:

- A seat remembers the network (:func:`~referee.networks.network_of`: the /24 or /64) of
  the address it was last played from, in its ``join`` record and, when it changes, a
  ``rejoin`` record: a restart keeps it. A passcode from any other network is refused
  *unchecked*: it says nothing of the passcode, and counts against nothing, so no crowd
  elsewhere can either guess or lock the seat.
- Inside that network, wrong passcodes count against the seat, whichever address sent them
  and whichever game they named: after :attr:`Seats.STRANGER_GUESSES` of them, passcodes are
  refused unchecked from every address but the seat's own last one, which has a budget of
  its own (:attr:`Seats.OWN_GUESSES`), so that its neighbours cannot lock the rightful
  player out. The budgets are the game's: each wrong passcode is recorded (a ``guess``
  record), so a restart forgets none, and nothing resets them, not even the right passcode.
- A seat whose network is not known (a game in memory, whose connections have no address,
  or a store written before networks were recorded) counts every address as inside.

So over a whole game, at most ``STRANGER_GUESSES`` passcodes are ever checked for a seat
from addresses other than its own, however many addresses there are and however often the
server restarts: the chance that 10,000 addresses take a disconnected seat over a 30-day
game is at most 20 / 8191 = 0.24 % (0.49 % if they include the seat's own address, a NAT
shared with its player), and 0 from outside the seat's network. The session token (128
bits) rejoins from anywhere, and is never counted.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any

from referee.bucket import Bucket
from referee.guesses import Guesses
from referee.networks import network_of
from referee.players import Client, Player, Role, Roster, draw_passcode, new_session_token, session_digest

__all__ = ["Seats", "StandIn", "StandIns", "Verdict"]


class Verdict(Enum):
    """What a passcode ``IAM`` meets."""

    TAKE = "take"  # checked, right: the seat is its
    WRONG = "wrong"  # checked, wrong: counted against the seat
    UNCHECKED = "unchecked"  # not checked: a seat taken, connected, locked, or another network


@dataclass(frozen=True, slots=True)
class StandIn:
    """A bot that stood in for a power's player: from the phase it came in, until the one the
    player came back in (None: not yet)."""

    power: str
    bot: str
    start: str
    until: str | None = None


@dataclass
class StandIns:
    """The bots standing in for players now (power -> bot), and every stand-in of a game, oldest
    first: kept live by :mod:`referee.game.house`, and read back from the ``stand_in`` and
    ``returned`` records (:meth:`of`)."""

    now: dict[str, str] = field(default_factory=dict)
    spans: list[StandIn] = field(default_factory=list)

    def began(self, power: str, bot: str, phase: str) -> None:
        """``bot`` stands in for ``power``'s player from ``phase``."""
        self.now[power] = bot
        self.spans.append(StandIn(power, bot, phase))

    def ended(self, power: str, phase: str) -> str | None:
        """``power``'s player is back in ``phase``; the bot that stood in, if one did."""
        bot = self.now.pop(power, None)
        for i in range(len(self.spans) - 1, -1, -1):
            if self.spans[i].power == power and self.spans[i].until is None:
                self.spans[i] = replace(self.spans[i], until=phase)
                break
        return bot

    def apply(self, kind: str, payload: Mapping[str, Any]) -> None:
        """A ``stand_in`` or ``returned`` record read back (any other kind changes nothing)."""
        if kind == "stand_in":
            self.began(payload["power"], payload["bot"], payload["phase"])
        elif kind == "returned":
            self.ended(payload["power"], payload["phase"])

    @classmethod
    def of(cls, records: Iterable[tuple[str, Mapping[str, Any]]]) -> StandIns:
        """The stand-ins that ``records`` (kind and payload, in order) tell of."""
        out = cls()
        for kind, payload in records:
            out.apply(kind, payload)
        return out


class Seats:
    """The roster of one game, its connections' addresses and the limits against guessing."""

    STRANGER_GUESSES = 20
    """Wrong passcodes for a seat, from addresses of its network but its own, before they go unchecked."""
    OWN_GUESSES = 20
    """The same, from the seat's own last address."""

    def __init__(self, rng: random.Random, passcode_in_use: Callable[[int], bool]) -> None:
        self.rng = rng
        self.passcode_in_use = passcode_in_use
        self.roster = Roster()
        self.address_of: dict[str, str | None] = {}  # conn -> the client's address
        self.last_address: dict[str, str] = {}  # power -> the address it last played from (memory)
        self.network: dict[str, str] = {}  # power -> its network, as recorded
        self.closed: set[str] = set()  # connections closed by the game: their input is ignored
        self.adm_buckets: dict[str, Bucket] = {}
        self.maps: set[str] = set()  # connections that answered MAP
        self.guesses = Guesses()  # by power (strangers) and power + "@own": never recorded
        # the house (referee.game.house): who stands in for whom (recorded), since when each
        # person's player has been away and which seats wait for a stand-in (memory)
        self.stand_ins = StandIns()  # who stands in now, and who ever did (recorded)
        self.stood_in = self.stand_ins.now  # power -> the bot standing in for its player
        self.absent_since: dict[str, float] = {}
        self.wanted: set[str] = set()
        self.filled: dict[str, str] = {}  # power -> the bot given the seat left empty (recorded)
        self.last_join: float | None = None  # when a player last joined (the records' times)

    # --- connections ------------------------------------------------------------------------

    def connect(self, conn: str, address: str | None) -> None:
        self.roster.clients[conn] = Client(conn)
        self.address_of[conn] = address
        self.closed.discard(conn)

    def leave(self, conn: str) -> Client | None:
        """Forget ``conn`` (its player, if any, stays, disconnected)."""
        self.closed.discard(conn)
        self.adm_buckets.pop(conn, None)
        self.address_of.pop(conn, None)
        self.maps.discard(conn)
        return self.roster.leave(conn)

    def close(self, conn: str) -> None:
        """``conn`` is being closed: nothing it says is heard until it is gone."""
        self.closed.add(conn)

    def take_adm(self, conn: str, now: float, rate: float, burst: float) -> bool:
        bucket = self.adm_buckets.get(conn)
        if bucket is None:
            bucket = self.adm_buckets[conn] = Bucket(float(burst), now)
        return bucket.take(now, rate, burst)

    # --- taking a seat --------------------------------------------------------------------

    def new_player(self, power: str, name: str, version: str) -> tuple[Player, str]:
        """A player for ``power`` with a fresh passcode, unique here and in ``passcode_in_use``,
        and its session token (only its digest is kept)."""
        taken = [p.passcode for p in self.roster.players.values()]
        token = new_session_token()
        passcode = draw_passcode(self.rng, taken, self.passcode_in_use)
        return Player(power, name, version, passcode, session_digest(token)), token

    def seat(self, conn: str | None, player: Player, network: str | None = None) -> None:
        """``player`` in its seat, played by ``conn`` if connected; ``network`` as recorded."""
        self.roster.seat(conn, player)
        if conn is not None:
            self.absent_since.pop(player.power, None)
            self.wanted.discard(player.power)
        if network is not None:
            self.network[player.power] = network
        address = self.address_of.get(conn) if conn is not None else None
        if address is not None:
            self.last_address[player.power] = address

    def network_of_conn(self, conn: str | None) -> str | None:
        return network_of(self.address_of.get(conn)) if conn is not None else None

    def unseat(self, power: str) -> None:
        self.roster.unseat(power)
        self.network.pop(power, None)
        self.last_address.pop(power, None)

    # --- coming back with the passcode -------------------------------------------------------

    def verdict(self, power: str, passcode: int, address: str | None, now: float) -> tuple[Verdict, str]:
        """Check a passcode ``IAM`` for ``power`` from ``address`` (see the module), and the budget
        a wrong one goes against (:meth:`charge` it). A seat must be taken and its player not
        connected. Nothing changes."""
        own = address is not None and self.last_address.get(power) == address
        key, limit = (f"{power}@own", self.OWN_GUESSES) if own else (power, self.STRANGER_GUESSES)
        player = self.roster.players.get(power)
        if player is None or (power in self.roster.connection_of and power not in self.stood_in):
            return Verdict.UNCHECKED, key
        known = self.network.get(power)
        if known is not None and network_of(address) != known:
            return Verdict.UNCHECKED, key
        if self.guesses.recent(key, now, math.inf) >= limit:
            return Verdict.UNCHECKED, key
        return (Verdict.TAKE if player.passcode == passcode else Verdict.WRONG), key

    def charge(self, key: str, now: float) -> None:
        """A wrong passcode against the budget ``key`` (a power, or a power's own address)."""
        self.guesses.failed(key, now)

    def session_player(self, power: str, token: str) -> Player | None:
        """The player of ``power`` if ``token`` is its session token."""
        player = self.roster.players.get(power)
        return player if player is not None and player.has_session(token) else None

    def watching(self) -> list[str]:
        return self.roster.watching()

    def role(self, conn: str) -> Role:
        client = self.roster.clients.get(conn)
        return Role.NEW if client is None else client.role


"""The one door into every game of a server: which game a message is for, and who may come in.

A :class:`Lobby` holds the games of one server process (:class:`~referee.game.GameMaster`)
and every connection's place among them. It is sans-I/O, like the games: the server hands
it connections, messages and times, holds the sockets, the locks and the store, and
performs the steps it gets back. Both servers' transports and the game kept in memory
(:mod:`referee.table`) come in through it.

What it decides:

- **Budgets before work.** Each connection has a token bucket of messages
  (:attr:`LobbyLimits.message_rate`, :attr:`LobbyLimits.message_burst`); a message beyond
  it is shed by :meth:`Lobby.admit` before it is parsed or its game is locked; the first
  shed message is answered with one server ``ADM`` saying so (and again at most every
  :data:`TELL_EVERY` seconds), and the server reads nothing of that connection until its
  next message is due.
- **Which game.** A connection that named a game (``?game=ID``) goes there; ``NME``
  without one goes to a game keeping a seat for its name, or to the game open for
  strangers; ``IAM`` without one goes to the game where that power's seat may be coming
  back from this connection's network (:mod:`referee.game.seats`), its passcode counted
  against each seat it is checked against, whatever the address.
- **Seats for strangers.** In the games opened for strangers one address takes at most
  :attr:`LobbyLimits.max_seats_per_address` seats and one network (a /24, a /64)
  :attr:`LobbyLimits.max_seats_per_network`; a stranger's seat in a forming game is freed
  when its connection leaves. A game for strangers none of whose players is connected is
  *deserted*: it no longer counts against :attr:`LobbyLimits.max_open_games`, so players who
  fill games and leave do not keep strangers out (their seats still count against their
  addresses until those games end).
- **Observers first out.** :meth:`Lobby.sheddable` names the connection to close when a
  server is full: the oldest that is not a player (an observer, or one that never joined).

>>> import random
>>> from protocol.daide.parser import parse
>>> from referee.settings import GameSettings
>>> lobby = Lobby(LobbyLimits(message_rate=None))
>>> lobby.opened(GameMaster("g1", GameSettings(), now=0.0, rng=random.Random(1)), now=0.0)
>>> lobby.connect("c1", "127.0.0.2")
>>> lobby.route("c1", parse("NME ('me') ('1')")).game
'g1'
>>> [str(s.message) for s in lobby.receive("c1", "g1", parse("NME ('me') ('1')"), 1.0).sends][:2]
["YES (NME ('me') ('1'))", "MAP ('standard')"]
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from protocol.daide.messages import SERVER_NAME, Adm, Iam, Nme, Obs, Rej, Value
from referee.bucket import Bucket
from referee.effects import Send, Step
from referee.game import GameMaster, GameState
from referee.game.seats import Verdict
from referee.guesses import ADDRESS_GUESSES, WINDOW, Guesses
from referee.networks import network_of
from referee.players import Role

__all__ = ["SHED_TEXT", "Admission", "Entry", "Lobby", "LobbyLimits", "Route"]

SHED_TEXT = "too many messages: those beyond the rate are dropped unread"
"""The server's ``ADM`` to a connection whose messages begin to be shed."""
SEATS_SEEN_EVERY = 1.0
"""Seconds for which the networks holding seats, once gathered, answer :meth:`Lobby.holds_seat`."""
TELL_EVERY = 10.0
"""Seconds between two such ``ADM`` to one connection."""


@dataclass(frozen=True, slots=True)
class LobbyLimits:
    """What one client may hold of a server's games (see the module)."""

    message_rate: float | None = 50.0
    """Messages taken from one connection a second, on average; None: no limit."""
    message_burst: int = 200
    """Messages taken from one connection at once."""
    max_open_games: int = 8
    """Games opened for strangers that may be unfinished at once (deserted ones not counted)."""
    max_seats_per_address: int = 7
    """Seats one address may take in the unfinished games for strangers: one game's."""
    max_seats_per_network: int = 28
    """Seats one network (/24, /64) may take in them: four games', for a lab behind one NAT."""
    open_games_per_hour: int = 60
    """Games opened for strangers in any hour (deserted ones counted)."""
    deserted_after: float = 1.0
    """Seconds a started game for strangers has had no player connected before it is deserted:
    a grace for players who drop together; one deserted too soon costs only another open game."""
    address_guesses: int = ADDRESS_GUESSES
    """Wrong passcodes from one address within :data:`~referee.guesses.WINDOW` before its ``IAM`` go unchecked."""


@dataclass(frozen=True, slots=True)
class Admission:
    """What :meth:`Lobby.admit` says of one message: ``read`` it, or shed it (telling the
    client ``tell`` if not None) and read nothing of its connection for ``pause`` seconds."""

    read: bool
    tell: Adm | None = None
    pause: float = 0.0


_READ = Admission(True)


@dataclass(frozen=True, slots=True)
class Route:
    """Where a message goes: ``game``, after leaving the game ``leave``; or nowhere, with
    ``answer`` (and the connection closed if ``close``)."""

    game: str | None = None
    leave: str | None = None
    answer: Value | str | None = None
    close: bool = False
    charge: tuple[str, ...] = ()
    """Other games where an ``IAM``'s wrong passcode was checked too: :meth:`Lobby.charge` each
    (with its lock held), so that the guess counts against every seat it was tried at."""


@dataclass(slots=True)
class Entry:
    """A game in the lobby: its master, whether it was opened for strangers, and the address
    each of its powers was taken from by a stranger."""

    gm: GameMaster
    for_strangers: bool = False
    seat_addresses: dict[str, str] = field(default_factory=dict)
    empty_since: float | None = None  # when its last player left (or it came back from the store)


@dataclass(slots=True)
class _Conn:
    address: str | None
    requested: str | None
    game: str | None = None
    bucket: Bucket | None = None
    told: float | None = None  # when it was last told that its messages are shed


class Lobby:
    """Every game of a server, and every connection's place among them."""

    def __init__(self, limits: LobbyLimits | None = None) -> None:
        self.limits = limits or LobbyLimits()
        self.games: dict[str, Entry] = {}
        self.open_game: str | None = None  # the game NME goes to without a game named
        self._conns: dict[str, _Conn] = {}
        self._opened: list[float] = []  # when the games for strangers of the last hour opened
        self._guesses = Guesses()  # wrong passcodes by address
        self._seat_networks: tuple[float, frozenset[str]] | None = None  # when gathered, and the networks

    # --- games ------------------------------------------------------------------------------

    def add(self, gm: GameMaster, for_strangers: bool = False, now: float = 0.0) -> None:
        """A game joins the lobby (new, or rebuilt from the store at ``now``)."""
        self.games[gm.game_id] = Entry(gm, for_strangers, empty_since=None if gm.people_present() else now)

    def remove(self, game_id: str) -> None:
        self.games.pop(game_id, None)
        if self.open_game == game_id:
            self.open_game = None

    def game(self, game_id: str) -> GameMaster | None:
        entry = self.games.get(game_id)
        return None if entry is None else entry.gm

    def rebuilt(self, gm: GameMaster) -> None:
        """``gm`` replaces the game of its id, rebuilt from the store: it takes over the connections."""
        entry = self.games[gm.game_id]
        old = entry.gm
        for conn, client in old.roster.clients.items():
            # a player whose seat the rebuilt game holds keeps it; any other connection is a
            # newcomer again (an observer stays one): a join the store refused never happened
            gm.seats.connect(conn, old.seats.address_of.get(conn))
            power = client.power
            if power is not None and power in gm.roster.players and old.roster.connection_of.get(power) == conn:
                gm.seats.seat(conn, gm.roster.players[power])
            elif client.role is Role.OBSERVER:
                gm.roster.clients[conn] = client
        gm.seats.last_address.update(old.seats.last_address)
        gm.seats.absent_since.update(old.seats.absent_since)  # memory only: the store has none of it
        gm.seats.wanted |= old.seats.wanted
        entry.gm = gm

    def passcode_in_use(self, code: int) -> bool:
        return any(p.passcode == code for e in self.games.values() for p in e.gm.roster.players.values())

    def session(self, game_id: str | None, power: str, token: str) -> tuple[str, str] | None:
        """The game in which ``token`` is the session token of ``power`` (in ``game_id``, or in
        any game when it is None), if one is not over, and the power."""
        ids = [game_id] if game_id is not None else list(self.games)
        for gid in ids:
            entry = self.games.get(gid)
            if entry is not None and entry.gm.state is not GameState.OVER and entry.gm.session(power, token):
                return gid, power
        return None

    def power_of(self, conn: str) -> str | None:
        """The power ``conn`` plays, if it plays one."""
        gm = self.game(self.game_of(conn) or "")
        return None if gm is None else gm.roster.power_of(conn)

    def holds_seat(self, network: str, now: float) -> bool:
        """Whether a seat of a game not over was last played from ``network``, as of at most
        :data:`SEATS_SEEN_EVERY` seconds before ``now``: a server asks for every connection a
        crowd makes, so the networks are gathered once a second, not once a connection."""
        if self._seat_networks is None or now - self._seat_networks[0] >= SEATS_SEEN_EVERY:
            networks = {n for e in self.games.values() if _unfinished(e) for n in e.gm.seats.network.values()}
            self._seat_networks = (now, frozenset(networks))
        return network in self._seat_networks[1]

    def empty(self, game_id: str) -> bool:
        """Whether none of the game's players is connected."""
        gm = self.game(game_id)
        return gm is not None and not gm.people_present()

    # --- games for strangers -----------------------------------------------------------------

    def open_games(self, now: float | None = None) -> int:
        """The unfinished games for strangers that count against the cap: not those deserted at
        ``now`` (None: every game counted)."""
        return sum(
            1
            for e in self.games.values()
            if e.for_strangers and _unfinished(e) and (now is None or not self._deserted(e, now))
        )

    def _deserted(self, entry: Entry, now: float) -> bool:
        """A started game none of whose players has been connected for ``deserted_after`` seconds."""
        since = entry.empty_since
        return (
            entry.gm.state is GameState.PLAYING
            and since is not None
            and not entry.gm.people_present()
            and now - since >= self.limits.deserted_after
        )

    def needs_open_game(self, now: float) -> float | None:
        """Whether to open a game for strangers now (0.0), in some seconds (the hour's count is
        full, or a game will be deserted then), or not (None: one is forming, or none can open)."""
        current = self.games.get(self.open_game or "")
        if current is not None and current.gm.open_seats:
            return None
        wait = self._wait(now)
        if wait != 0.0:
            self.open_game = None  # an NME without a game named gets REJ until one opens
        # else the full game stays named until the new one opens: an NME sent to it meanwhile
        # finds it full (Lobby.receive) and is routed again
        return wait

    def _wait(self, now: float) -> float | None:
        if self.limits.max_open_games <= 0:
            return None
        if self.open_games(now) >= self.limits.max_open_games:
            emptied = [
                e.empty_since + self.limits.deserted_after - now
                for e in self.games.values()
                if e.for_strangers and e.empty_since is not None and e.gm.state is GameState.PLAYING
                and not self._deserted(e, now)
            ]  # fmt: skip
            return min(emptied) if emptied else None
        self._opened = [t for t in self._opened if now - t < 3600.0]
        if len(self._opened) >= self.limits.open_games_per_hour:
            return self._opened[0] + 3600.0 - now
        return 0.0

    def opened(self, gm: GameMaster, now: float) -> None:
        """``gm`` was opened for strangers at ``now``: NME without a game named goes there."""
        self.add(gm, for_strangers=True)
        self._opened.append(now)
        self.open_game = gm.game_id

    def seats_of(self, address: str) -> tuple[int, int]:
        """The seats ``address`` and its network took in the unfinished games for strangers."""
        network = network_of(address)
        mine = ours = 0
        for entry in self.games.values():
            if not entry.for_strangers or not _unfinished(entry):
                continue
            for power, seated in entry.seat_addresses.items():
                if power in entry.gm.roster.players:
                    mine += seated == address
                    ours += network is not None and network_of(seated) == network
        return mine, ours

    # --- connections ------------------------------------------------------------------------

    def connect(self, conn: str, address: str | None, requested_game: str | None = None) -> None:
        self._conns[conn] = _Conn(address, requested_game)

    def game_of(self, conn: str) -> str | None:
        c = self._conns.get(conn)
        return None if c is None else c.game

    def admit(self, conn: str, now: float) -> Admission:
        """Whether a message of ``conn`` may be read: a message beyond the budget is shed unread,
        the first shed one gets the server's ``ADM`` (again only :data:`TELL_EVERY` seconds
        later, however many are shed meanwhile), and the server should read
        nothing more of that connection for ``pause`` seconds (its next token's time), so that
        a flood waits in its own socket rather than in the server."""
        c = self._conns.get(conn)
        rate = self.limits.message_rate
        if c is None or rate is None:
            return _READ
        bucket = c.bucket
        if bucket is None:
            bucket = c.bucket = Bucket(float(self.limits.message_burst), now)
        if bucket.take(now, rate, self.limits.message_burst):
            return _READ
        tell = c.told is None or now - c.told >= TELL_EVERY
        if tell:
            c.told = now
        return Admission(False, Adm(SERVER_NAME, SHED_TEXT) if tell else None, (1.0 - bucket.tokens) / rate)

    def route(self, conn: str, message: Value | str, now: float = 0.0) -> Route:
        """Where ``message`` of ``conn`` goes (see the module). Call :meth:`receive` with the
        game's lock held, and with a ``leave`` first: the connection leaves that game."""
        c = self._conns[conn]
        current = self.games.get(c.game) if c.game is not None else None
        newcomer = current is None or current.gm.seats.role(conn) is Role.NEW
        if current is not None and not (newcomer and isinstance(message, Nme | Obs | Iam)):
            return Route(current.gm.game_id)
        if isinstance(message, Iam):
            return self._route_iam(conn, c, message, now)
        if c.requested is not None:
            return Route(c.requested) if c.requested in self.games else _refused(message)
        if current is None and isinstance(message, Nme):
            # a DAIDE TCP client cannot name a game: a seat kept for its name says where it goes
            for gid, entry in self.games.items():
                if entry.gm.state is GameState.FORMING and entry.gm.keeps_seat_for(message.name):
                    return Route(gid)
        if current is not None and (current.gm.state is GameState.FORMING or not isinstance(message, Nme)):
            return Route(current.gm.game_id)
        if self.open_game is None or self.open_game not in self.games:
            return Route(current.gm.game_id) if current is not None else _refused(message)
        return Route(self.open_game, leave=c.game if c.game != self.open_game else None)

    def _route_iam(self, conn: str, c: _Conn, message: Iam, now: float) -> Route:
        """``IAM``: to the game whose seat it can take; to a game where it is wrong (which counts
        it, and refuses it), charging the other such games; refused (and closed) if none."""
        if message.session is None and self._guesses.recent(c.address, now, WINDOW) >= self.limits.address_guesses:
            return Route(answer=Rej(message), close=True)  # this address guessed too often: unchecked
        named = [c.requested] if c.requested is not None else list(self.games)
        wrong: list[str] = []
        for gid in named:
            entry = self.games.get(gid or "")
            if entry is None or entry.gm.state is GameState.OVER:
                continue
            gm = entry.gm
            power = message.power
            if power not in gm.map.powers:
                break
            if message.session is not None:
                if gm.seats.session_player(power, message.session) is not None:
                    return Route(gid, leave=c.game if c.game != gid else None)
                continue
            verdict, _ = gm.seats.verdict(power, message.passcode, c.address, now)
            if verdict is Verdict.TAKE:
                return Route(gid, leave=c.game if c.game != gid else None)
            if verdict is Verdict.WRONG:
                wrong.append(gid)
        if not wrong:
            return Route(answer=Rej(message), close=True)
        self._guesses.failed(c.address, now)
        return Route(wrong[0], leave=c.game if c.game != wrong[0] else None, charge=tuple(wrong[1:]))

    def charge(self, conn: str, game_id: str, message: Iam, now: float) -> Step:
        """``message``'s passcode, routed elsewhere, charged to the seat of ``game_id`` if wrong
        there (see :attr:`Route.charge`): the game's step (its ``guess`` record)."""
        gm = self.games[game_id].gm
        power = message.power
        c = self._conns.get(conn)
        if power not in gm.map.powers or c is None:
            return Step()
        return gm.guess(power, message.passcode, c.address, now)

    def receive(self, conn: str, game_id: str, message: Value | str, now: float) -> Step | None:
        """``message`` of ``conn`` handed to the game ``game_id`` (its lock held); None when the
        route no longer holds (the open game filled while the message waited): route again."""
        c = self._conns.get(conn)
        if c is None:  # a game in memory connects its players by speaking (referee.table)
            c = self._conns[conn] = _Conn(None, game_id)
        entry = self.games[game_id]
        gm = entry.gm
        if (
            isinstance(message, Nme)
            and c.requested is None
            and not gm.open_seats
            and c.game != game_id
            and self.open_game != game_id
        ):
            return None
        first = Step()
        if c.game != game_id:
            c.game = game_id
            first = gm.connect(conn, now, c.address)
        seating = isinstance(message, Nme) and entry.for_strangers and c.address is not None
        if seating and gm.roster.power_of(conn) is None:
            mine, ours = self.seats_of(c.address or "")
            if mine >= self.limits.max_seats_per_address or ours >= self.limits.max_seats_per_network:
                return _join(first, Step(effects=(Send(conn, Rej(message)),)))
        step = gm.receive(conn, message, now)
        power = gm.roster.power_of(conn)
        if seating and power is not None:
            entry.seat_addresses[power] = c.address or ""
        if power is not None:
            entry.empty_since = None
        return _join(first, step)

    def house(self, conn: str, game_id: str, power: str, bot: str, now: float) -> Step:
        """The server's own connection ``conn`` plays ``power`` of ``game_id`` with ``bot`` (its lock
        held; see :mod:`referee.game.house`): no budget, no limit of seats, no deserted game
        kept alive, since a bot is not a person."""
        self._conns[conn] = _Conn(None, game_id, game_id)
        gm = self.games[game_id].gm
        return _join(gm.connect(conn, now), gm.house(conn, power, bot, now))

    def leave(self, conn: str, now: float) -> Step:
        """``conn`` leaves its game (for another one); the step of the game it left."""
        c = self._conns.get(conn)
        if c is None or c.game is None or c.game not in self.games:
            return Step()
        entry = self.games[c.game]
        c.game = None
        step = entry.gm.disconnect(conn, now)
        if not entry.gm.people_present() and entry.empty_since is None:
            entry.empty_since = now
        return step

    def disconnect(self, conn: str, now: float) -> Step:
        """``conn`` is gone; the step of its game."""
        step = self.leave(conn, now)
        self._conns.pop(conn, None)
        return step

    def sheddable(self) -> Iterator[str]:
        """The connections to close when the server is full, in order: observers, oldest first,
        then those that never joined (oldest first: a player who just connected says IAM or NME
        at once). A player is never among them."""
        never: list[str] = []
        for conn, c in self._conns.items():
            gm = self.game(c.game) if c.game is not None else None
            role = Role.NEW if gm is None else gm.seats.role(conn)
            if role is Role.OBSERVER:
                yield conn
            elif role is Role.NEW:
                never.append(conn)
        yield from never


def _unfinished(entry: Entry) -> bool:
    return entry.gm.state is not GameState.OVER


def _refused(message: Value | str) -> Route:
    return Route(answer=Rej(message) if isinstance(message, Value) else "REJ")


def _join(first: Step, second: Step) -> Step:
    if not first.records and not first.effects:
        return second
    return Step(first.records + second.records, first.effects + second.effects)

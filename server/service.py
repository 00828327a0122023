"""The asyncio layer of the game server: the store, every game master, their timers and connections.

:class:`GameService` owns the :class:`~server.store.Store` and one
:class:`~referee.game.GameMaster` per game. Each game's inputs (messages,
connections, disconnections, deadlines) are serialised by a lock per game; every
:class:`~referee.game.Step` is handled the same way: its records are appended to
the store (durably, in a worker thread) *before* its actions are performed, and then the
game's deadline is re-armed on the event loop.

Connections are transport-neutral: a :class:`Connection` is an id and a bounded queue of
outbound DAIDE texts (``None`` means "close"), which the transport drains. A connection
whose queue fills up is dropped, so a slow client never stalls a game.

The service keeps one standard game open for strangers (``NME`` without ``?game=ID``);
when that game starts, a new one opens, as long as fewer than ``max_open_games`` games
opened for strangers are unfinished (the one forming counted); at the cap, such an ``NME``
gets ``REJ`` until one of them ends. A game opened for strangers is known by its id, which
starts with :data:`OPEN_GAME_PREFIX` (durable: a restart counts them again). One client
address holds at most ``max_seats_per_address`` seats in those games. On
:meth:`GameService.start`, every unfinished game is rebuilt from the store with
:meth:`GameMaster.replay` and its deadline re-armed.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import random
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import structlog

from protocol.daide.messages import Iam, Nme, PressMessage, Rej, Value
from protocol.daide.parser import DaideSyntaxError, parse, parse_press
from referee import notices
from referee.effects import Close, Notify, Send, Step
from referee.game import GameMaster, GameState
from referee.lobby import Entry, Lobby, LobbyLimits
from referee.notices import GameNotice
from server.api_models import GameCreate
from server.bot_seats import BotSeats, House
from server.feed import Feed
from server.health import StoreHealth
from server.metrics import Metrics
from server.reader import GameReader, GameUnavailable, result_of
from server.settings import (
    DESERTED_AFTER,
    MAX_OPEN_GAMES,
    MAX_SEATS_PER_ADDRESS,
    MAX_SEATS_PER_NETWORK,
    OPEN_GAMES_PER_HOUR,
)
from server.store import Store, StoreError
from server.web import DEFAULT_QUEUE_SIZE, Outbox
from server.writer import Writer

__all__ = ["Connection", "GameService", "GameUnavailable"]  # GameUnavailable: server.reader's, for the app

OPEN_GAME_META = "open_game"
#: The first letter of the id of a game the server opened for strangers (the admin's start with "g").
OPEN_GAME_PREFIX = "o"
#: Seconds between tries of a game whose store writes fail.
STORE_RETRY = 1.0
#: Seconds a full game waits for its players to answer MAP before it starts anyway.
MAP_WAIT = 5.0
#: Seconds a finished game stays in memory for the clients still connected to it.
FINISHED_GRACE = 30.0

log = structlog.get_logger("detente.server")


#: Inputs a second one DAIDE connection may send (at most 200 at once); those beyond are shed unread.
MESSAGE_RATE = 50.0


@dataclass(eq=False)
class Connection(Outbox[str]):
    """One client connection: the game it named (``?game=ID``), its address, and what the
    transport sends it (DAIDE texts). Which game it is in is the lobby's to say."""

    id: str
    requested_game: str | None = None
    address: str | None = None


@dataclass(eq=False)
class Game:
    """What the service keeps of a game beside the lobby's entry: its settings as created, its
    lock and its timers. The game itself (:attr:`gm`) is the lobby's."""

    id: str
    create: GameCreate
    entry: Entry
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    timer: asyncio.TimerHandle | None = None
    finished: bool = False
    #: a store write failed and the game could not be rebuilt from the store yet: it takes no
    #: input until it is (see GameService._recover)
    stale: bool = False
    evict: asyncio.TimerHandle | None = None

    @property
    def gm(self) -> GameMaster:
        return self.entry.gm

    @property
    def for_strangers(self) -> bool:
        """Opened by the server for strangers (its id starts with OPEN_GAME_PREFIX), not by the admin."""
        return self.entry.for_strangers


class GameService:
    """Every game of one server process, driven by the event loop."""

    def __init__(
        self,
        store: Store,
        open_settings: GameCreate,
        clock: Callable[[], float] = time.time,
        rng: random.Random | None = None,
        queue_size: int = DEFAULT_QUEUE_SIZE,
        message_rate: float | None = MESSAGE_RATE,
        max_open_games: int = MAX_OPEN_GAMES,
        max_seats_per_address: int = MAX_SEATS_PER_ADDRESS,
        open_games_per_hour: int = OPEN_GAMES_PER_HOUR,
        max_seats_per_network: int = MAX_SEATS_PER_NETWORK,
        deserted_after: float = DESERTED_AFTER,
        finished_grace: float = FINISHED_GRACE,
        house: House | None = None,
    ) -> None:
        self.store = store
        self.open_settings = open_settings
        self.clock = clock
        self.rng = rng if rng is not None else random.Random()
        self.queue_size = queue_size
        self.games: dict[str, Game] = {}
        self.connections: dict[str, Connection] = {}
        self.lobby = Lobby(
            LobbyLimits(
                message_rate=message_rate,
                max_open_games=max_open_games,
                max_seats_per_address=max_seats_per_address,
                max_seats_per_network=max_seats_per_network,
                open_games_per_hour=open_games_per_hour,
                deserted_after=deserted_after,
            )
        )
        self.finished_grace = finished_grace
        self._reopen: asyncio.TimerHandle | None = None
        self._opening = asyncio.Lock()
        self._conn_ids = itertools.count(1)
        self._background: set[asyncio.Task[None]] = set()
        self.feed = Feed()
        self.bot_seats = BotSeats(self, house)
        self.writer = Writer(store)
        self.health = StoreHealth(store)
        self.reader = GameReader(store, self.games, clock)
        self.metrics = Metrics("detente")
        self.metrics.gauge("games", "games in memory, by state", self._games_by_state)
        self.metrics.gauge("connections", "DAIDE connections open", lambda: {(): len(self.connections)})
        self.metrics.gauge("open_games", "unfinished games opened for strangers", lambda: {(): self.open_games()})
        self.metrics.gauge("feed_followers", "negotiation servers following", lambda: {(): len(self.feed.followers)})

    @property
    def open_game_id(self) -> str | None:
        """The game an NME without a game named goes to, if any."""
        return self.lobby.open_game

    def _games_by_state(self) -> dict[tuple[tuple[str, str], ...], float]:
        counts = dict.fromkeys((GameState.FORMING, GameState.PLAYING, GameState.OVER), 0)
        for game in self.games.values():
            counts[game.gm.state] += 1
        return {(("state", state),): count for state, count in counts.items()}

    # --- lifetime -------------------------------------------------------------------------

    async def start(self) -> None:
        """Rebuild every unfinished game from the store, re-arm deadlines, open a game (if there
        is room: the unfinished games opened for strangers are counted by their ids)."""
        kept = await asyncio.to_thread(self.store.get_meta, OPEN_GAME_META)
        for stored in await asyncio.to_thread(self.store.games, True):
            try:
                create = GameCreate.model_validate(stored.settings)
                events = await asyncio.to_thread(self.store.events, stored.id)
                gm = await self._replay(stored.id, create, stored.created, events)
            except Exception as error:  # noqa: BLE001  # one game that cannot come back never stops the others
                log.error("game not restored: left in the store", game=stored.id, error=str(error))
                self.metrics.count("games_not_restored_total", "unfinished games the server could not rebuild")
                continue
            # the kept open game of a store written before the prefix was used is one too
            strangers = stored.id.startswith(OPEN_GAME_PREFIX) or stored.id == kept
            self.lobby.add(gm, for_strangers=strangers, now=self.clock())
            game = self.games[stored.id] = Game(stored.id, create, self.lobby.games[stored.id])
            log.info("game restored", game=stored.id, state=gm.state, phase=str(gm.position.phase), events=len(events))
            if gm.state == GameState.OVER:  # it ended but the server died before marking it finished
                await self._finish(game)
            await self.commit(game, gm.vacate(self.clock()))
        if self.lobby.limits.max_open_games > 0 and kept in self.games and self.games[kept].gm.open_seats:
            self.lobby.open_game = kept
        else:
            await self._open_if_room()

    async def stop(self) -> None:
        """Cancel timers and close every connection (the store stays open: the caller owns it)."""
        self.bot_seats.stopped = True
        if self._reopen is not None:
            self._reopen.cancel()
            self._reopen = None
        for game in self.games.values():
            for handle in (game.timer, game.evict):
                if handle is not None:
                    handle.cancel()
            game.timer = game.evict = None
        for conn in list(self.connections.values()):
            conn.close()
        for task in list(self._background):
            task.cancel()
        await self.writer.close()

    # --- games ----------------------------------------------------------------------------

    async def create_game(self, create: GameCreate, name_prefix: str = "g", for_strangers: bool = False) -> Game:
        """A new game with these settings, recorded in the store."""
        game_id = f"{name_prefix}{secrets.token_hex(4)}"
        while game_id in self.games:
            game_id = f"{name_prefix}{secrets.token_hex(4)}"
        now = self.clock()
        await asyncio.to_thread(self.store.create_game, game_id, create.model_dump(mode="json"), now)
        gm = GameMaster(game_id, create.settings(), now, rng=self.rng, passcode_in_use=self.lobby.passcode_in_use)
        gm.MAP_WAIT = MAP_WAIT
        if for_strangers:
            self.lobby.opened(gm, now)
        else:
            self.lobby.add(gm)
        game = self.games[game_id] = Game(game_id, create, self.lobby.games[game_id])
        log.info("game created", game=game_id, name=create.name)
        self.feed.publish(self.game_frame(game))
        self.bot_seats.call(game)
        return game

    async def cancel(self, game: Game) -> None:
        """End an unfinished game without a result (``cancelled``): it leaves memory, its
        connections are closed, and the store keeps it finished so."""
        async with game.lock:
            if game.finished:
                return
            game.finished = True
            gm = game.gm
            phase = "forming" if gm.state is GameState.FORMING else str(gm.position.phase)
            result = {"outcome": "cancelled", "powers": [], "phase": phase}
            await asyncio.to_thread(self.store.finish, game.id, result, self.clock())
            log.info("game cancelled", game=game.id, phase=phase)
        self.bot_seats.cancelled(game.id)
        self._evict(game.id)

    def game_frame(self, game: Game) -> dict[str, Any]:
        """The feed's ``game`` frame: a game's settings and where it stands."""
        view = game.gm.view()
        return notices.to_json(
            GameNotice(game.id, view.settings, view.state, view.phase, view.phase_kind, view.next_deadline)
        )

    def snapshot(self) -> list[dict[str, Any]]:
        """The ``game`` frame of every game not yet over, for a new follower."""
        return [self.game_frame(g) for g in self.games.values() if g.gm.state != GameState.OVER]

    # --- the negotiation server's requests ---------------------------------------------------

    def check_session(self, game_id: str | None, power: str, token: str) -> tuple[str, str] | None:
        """The game and ``power`` when ``token`` is its session token in that game (in any game
        when ``game_id`` is None), else None."""
        return self.lobby.session(game_id, power, token)

    async def deliver(
        self,
        game_id: str,
        sender: str,
        recipients: list[str],
        press: str,
        request: str | None = None,
        phase: str | None = None,
    ) -> list[str] | None:
        """Relay press (DAIDE text) as ``FRM``; the recipients with a connection, or None when
        the game or the press is unknown, or the game is past ``phase`` (press of a phase gone
        by is stale). A ``request`` id delivered already is not delivered again, and answered
        as delivered. Raises :class:`StoreError` when the press could not be stored: not
        delivered, to be sent again."""
        game = self.games.get(game_id)
        if game is None:
            return None
        try:
            message = parse_press(press)
        except DaideSyntaxError:
            return None
        if not isinstance(message, PressMessage):
            return None
        async with game.lock:
            gm = game.gm
            reached = gm.connected(recipients)
            if request is not None and request in gm.requests:
                return reached
            if phase is not None and (gm.state != GameState.PLAYING or phase != str(gm.position.phase)):
                return None
            if game.stale and not await self._recover(game):
                raise StoreError("the game's store cannot be read now")
            if not await self.commit(game, game.gm.deliver(sender, recipients, message, self.clock(), request)):
                raise StoreError("the press could not be stored")
        return reached

    async def bind(self, game_id: str, phase: str, orders: dict[str, list[str]], request: str | None = None) -> bool:
        """Record the order commitments confirmed for ``phase``; whether the game holds them
        (False for an unknown game, or another phase than the current one). A ``request`` id
        applied already is held, and not applied again (a later binding may have replaced it).
        Raises :class:`StoreError` when the binding could not be stored: not held, to be
        sent again."""
        game = self.games.get(game_id)
        if game is None:
            return False
        async with game.lock:
            if game.stale and not await self._recover(game):
                raise StoreError("the game's store cannot be read now")
            if not await self.commit(game, game.gm.bind(phase, orders, self.clock(), request)):
                raise StoreError("the binding could not be stored")
            if request is not None:
                return request in game.gm.requests
            return game.gm.state == GameState.PLAYING and phase == str(game.gm.position.phase)

    def open_games(self) -> int:
        """The unfinished games opened for strangers that count against the cap now (see the lobby)."""
        return self.lobby.open_games(self.clock())

    async def _open_if_room(self) -> None:
        """Open a game for strangers when the lobby says one is needed and there is room."""
        async with self._opening:  # two games ending together open one game, not two
            wait = self.lobby.needs_open_game(self.clock())
            if wait is None:
                if self.lobby.open_game is None and self.lobby.limits.max_open_games > 0:
                    log.warning(
                        "open games at the cap", open_games=self.open_games(), cap=self.lobby.limits.max_open_games
                    )
                return
            if wait > 0:  # the hour's count is full, or a game will be deserted then
                self._retry_opening(wait)
                return
            game = await self.create_game(self.open_settings, OPEN_GAME_PREFIX, for_strangers=True)
            await asyncio.to_thread(self.store.set_meta, OPEN_GAME_META, game.id)

    def _retry_opening(self, delay: float) -> None:
        """Try to open a game again once the hour's count allows it (one timer at a time)."""
        if self._reopen is not None:
            return
        log.warning("no open game for strangers for now", retry_in=round(delay, 1))

        def fire() -> None:
            self._reopen = None
            task = asyncio.create_task(self._open_if_room())
            self._background.add(task)
            task.add_done_callback(self._background.discard)

        self._reopen = asyncio.get_running_loop().call_later(max(0.0, delay), fire)

    # --- connections ----------------------------------------------------------------------

    def connect(self, requested_game: str | None = None, address: str | None = None) -> Connection:
        """A new connection, not yet in any game; ``requested_game`` is its ``?game=ID``,
        ``address`` the client's (for the limits on seats and passcode guesses)."""
        conn = Connection(f"c{next(self._conn_ids)}", requested_game, address, outbox=asyncio.Queue(self.queue_size))
        self.connections[conn.id] = conn
        self.lobby.connect(conn.id, address, requested_game)
        return conn

    async def receive(self, conn: Connection, text: str) -> None:
        """One DAIDE message (text) from ``conn``: shed unread beyond its budget (before it is
        parsed or any game locked), else routed by the lobby and handed to its game."""
        if conn.closed:
            return
        admission = self.lobby.admit(conn.id, self.clock())
        if not admission.read:
            self.metrics.count("messages_shed_total", "DAIDE messages dropped unread beyond a connection's rate")
            if admission.tell is not None:
                conn.put(str(admission.tell))
            # the transport reads this connection's next message only after: a flood waits in
            # the client's socket, not in the server's loop
            await asyncio.sleep(min(admission.pause, 1.0))
            return
        message: Value | str
        started = time.perf_counter()
        try:
            message = parse(text)
        except DaideSyntaxError:
            message = text  # the game master answers HUH or PRN
        self.metrics.stage("parse", time.perf_counter() - started)
        for _attempt in range(5):
            route = self.lobby.route(conn.id, message, self.clock())
            if route.game is None:
                self._refuse(conn, route.answer, route.close)
                return
            if route.leave is not None:
                await self._leave(conn, route.leave)
            for other in route.charge:  # the same wrong passcode, tried at more than one seat
                if other in self.games and isinstance(message, Iam):
                    async with self.games[other].lock:
                        await self.commit(self.games[other], self.lobby.charge(conn.id, other, message, self.clock()))
            game = self.games[route.game]
            async with game.lock:
                received = await self._receive(conn, game, message)
            if received is False:
                continue
            if received is not True:
                # the step is being written: the game takes its next message meanwhile
                await received
            return

    def _refuse(self, conn: Connection, answer: Value | str | None, close: bool) -> None:
        if close:
            self.metrics.count("iam_refused_total", "IAM refused by the server, before any game")
        elif isinstance(answer, Rej) and isinstance(answer.content, Nme):
            self.metrics.count("nme_refused_total", "NME refused by the server: no open game, or seats per address")
        if answer is not None:
            conn.put(str(answer))
        if close:
            conn.close()

    async def _receive(self, conn: Connection, game: Game, message: Value | str) -> Awaitable[None] | bool:
        """Hand a message to its game (the game's lock is held): False when the lobby says to
        route it again (the open game filled while it waited for the lock), True when nothing
        remains to do, else what remains once the lock is let go (the step's records are
        queued for the store: the write awaited, then the step's actions)."""
        if conn.closed:
            return True
        if game.stale and not await self._recover(game):
            conn.put(str(Rej(message)) if isinstance(message, Value) else "REJ")  # not stored: not taken
            return True
        started = time.perf_counter()
        step = self.lobby.receive(conn.id, game.id, message, self.clock())
        if step is None:
            return False
        stored = self._store(game, step)
        self.metrics.stage("check", time.perf_counter() - started)
        if game.id == self.open_game_id and not game.gm.open_seats:
            await self._open_if_room()  # strangers waiting for this lock find the next game open
        return self._complete(conn, game, message, step, stored, started)

    async def _complete(
        self,
        conn: Connection,
        game: Game,
        message: Value | str,
        step: Step,
        stored: Awaitable[None] | None,
        started: float,
    ) -> None:
        kind = type(message).__name__.upper() if isinstance(message, Value) else "unparsed"
        log.debug("message", game=game.id, power=self.lobby.power_of(conn.id), kind=kind, conn=conn.id)
        waited = time.perf_counter()
        if not await self._stored(game, step, stored, locked=False):
            # the store refused it: nothing was acknowledged, and the game is back to what is stored
            conn.put(str(Rej(message)) if isinstance(message, Value) else "REJ")
            return
        performed = time.perf_counter()
        self.metrics.stage("store", performed - waited)
        await self._perform(game, step)
        self.metrics.stage("fan-out", time.perf_counter() - performed)
        self.metrics.count("messages_total", "DAIDE messages received, by kind", kind=kind)
        self.metrics.observe(
            "message_seconds",
            "from a message in to its answers queued, storing included",
            time.perf_counter() - started,
        )

    async def _leave(self, conn: Connection, game_id: str) -> None:
        """``conn`` leaves ``game_id`` for another game."""
        game = self.games.get(game_id)
        if game is None:
            return
        async with game.lock:
            await self.commit(game, self.lobby.leave(conn.id, self.clock()))

    async def disconnect(self, conn: Connection) -> None:
        """The transport lost ``conn``."""
        self.connections.pop(conn.id, None)
        conn.closed = True
        game = self.games.get(self.lobby.game_of(conn.id) or "")
        if game is None:
            self.lobby.disconnect(conn.id, self.clock())
            return
        async with game.lock:
            power = self.lobby.power_of(conn.id)
            if power is not None:
                log.info("player left", game=game.id, power=power, conn=conn.id, dropped=conn.dropped)
            await self.commit(game, self.lobby.disconnect(conn.id, self.clock()))
        if game.for_strangers and self.open_game_id is None and self.lobby.empty(game.id):
            await self._open_if_room()  # the game may be deserted now, which leaves room for another
        self._evict_if_alone(game)

    def holds_seat(self, network: str) -> bool:
        """Whether a player of a game not over last played from ``network`` (a /24, a /64)."""
        return self.lobby.holds_seat(network, self.clock())

    def shed(self) -> bool:
        """Close the oldest connection that plays no power (an observer, or one that never
        joined), to make room for another when the server is full; whether there was one."""
        for conn_id in self.lobby.sheddable():
            conn = self.connections.get(conn_id)
            if conn is not None and not conn.closed:
                self.metrics.count("connections_shed_total", "connections closed to make room: observers first")
                conn.close()
                return True
        return False

    # --- steps and deadlines ----------------------------------------------------------------

    async def commit(self, game: Game, step: Step) -> bool:
        """Store the step's records, then perform its actions, then re-arm the deadline; whether
        the records were stored.

        Called with the game's lock held. The game master changed its state before the
        records were written; if the store refuses them, nothing of the step is performed (no
        acknowledgement, no message, no notice) and the game master is rebuilt from what the
        store holds (:meth:`_recover`), so memory never runs ahead of the store.
        """
        if not await self._stored(game, step, self._store(game, step), locked=True):
            return False
        await self._perform(game, step)
        return True

    def _store(self, game: Game, step: Step) -> Awaitable[None] | None:
        """The step's records queued for the store (the game's lock is held)."""
        if not step.records:
            return None
        return self.health.submit(self.writer, game.id, [(e.kind, e.payload, e.at) for e in step.records])

    async def _stored(self, game: Game, step: Step, stored: Awaitable[None] | None, locked: bool) -> bool:
        """Whether the step's records are stored; when the store refused them, the game is
        rebuilt (taking its lock unless ``locked``) by the first of its steps to learn it."""
        if stored is None:
            return True
        try:
            await stored
        except Exception as error:  # noqa: BLE001  # any failure of the store: locked, read-only, full, corrupt
            log.error("store write failed: the step is dropped", game=game.id, error=str(error))
            async with contextlib.nullcontext() if locked else game.lock:
                if self.writer.broken(game.id):
                    await self._recover(game)
            return False
        for event in step.records:
            if event.kind == "adjudicate":
                self.metrics.count("phases_total", "phases adjudicated")
            if event.kind in ("join", "adjudicate", "draw_declared"):
                log.info(event.kind, game=game.id, power=event.payload.get("power"), kind=event.kind)
        return True

    async def _perform(self, game: Game, step: Step) -> None:
        """A stored step's actions, then the deadline re-armed. Every message is queued before
        the first await, so that a step's messages go before those of the game's next step."""
        texts: dict[int, str] = {}  # a broadcast is one message sent to many: written once
        for effect in step.effects:
            if isinstance(effect, Notify):
                self.feed.publish(notices.to_json(effect.notice))
                continue
            if not isinstance(effect, Send | Close):
                continue  # the game master asks nothing else of its server
            conn = self.connections.get(effect.to)
            if conn is None:
                continue
            if isinstance(effect, Send):
                key = id(effect.message)
                if key not in texts:
                    texts[key] = str(effect.message)
                conn.put(texts[key])
            else:
                conn.close()
        ended = game.gm.state == GameState.OVER and not game.finished
        if ended:
            await self.writer.settled(game.id)  # the end may be a later step's, still being written
            ended = game.gm.state == GameState.OVER and not game.finished and not self.writer.broken(game.id)
        if ended:
            await self._finish(game)
        self._arm(game)
        self.bot_seats.call(game)
        if (game.id == self.open_game_id and not game.gm.open_seats) or (ended and game.for_strangers):
            await self._open_if_room()

    async def _recover(self, game: Game) -> bool:
        """Rebuild ``game`` from the store after a failed write (lock held): the connections of
        the old game master are carried over (a player whose join was not stored is a
        newcomer again); whether it worked. If the store cannot be read either, the game is
        ``stale``: it takes no input, and its timer tries again every second."""
        await self.writer.settled(game.id)  # what is still being written is read back too
        self.writer.mend(game.id)
        try:
            stored = await asyncio.to_thread(self.store.events, game.id)
            gm = await self._replay(game.id, game.create, game.gm.created, stored)
        except Exception as error:  # noqa: BLE001
            self.health.failed(f"{type(error).__name__}: {error}")
            game.stale = True
            log.error("game not rebuilt from the store: it waits", game=game.id, error=str(error))
            self._arm(game)
            return False
        self.lobby.rebuilt(gm)
        game.stale = False
        log.warning("game rebuilt from the store", game=game.id, phase=str(gm.position.phase))
        self._arm(game)
        return True

    async def _replay(self, game_id: str, create: GameCreate, created: float, events: list[Any]) -> GameMaster:
        """A game master rebuilt from stored events: a record it cannot apply is quarantined
        (logged, and kept in the store's quarantine) rather than stopping the game, and a phase
        the engine now adjudicates otherwise keeps its stored outcome and is logged."""
        refused: list[tuple[Any, Exception]] = []
        gm = GameMaster.replay(
            game_id,
            create.settings(),
            created,
            events,
            rng=self.rng,
            passcode_in_use=self.lobby.passcode_in_use,
            on_error=lambda event, error: refused.append((event, error)),
        )
        gm.MAP_WAIT = MAP_WAIT
        for event, error in refused:
            log.error("record quarantined", game=game_id, seq=event.seq, kind=event.kind, error=str(error))
            self.metrics.count("records_quarantined_total", "stored records that could not be replayed")
            reason = f"{type(error).__name__}: {error}"
            with contextlib.suppress(Exception):
                await asyncio.to_thread(self.store.quarantine, game_id, event.seq, reason)
        for mismatch in gm.mismatches:
            log.warning(
                "replay differs from the stored phase: the stored one is kept",
                game=game_id,
                phase=mismatch.phase,
                stored=dict(mismatch.stored),
                recomputed=dict(mismatch.recomputed),
                position_differs=mismatch.position_differs,
            )
        return gm

    async def _finish(self, game: Game) -> None:
        """The game ended: its result goes to the store, and the game leaves memory once its
        last connection has gone, or :data:`FINISHED_GRACE` seconds after the end (its clients
        may still ask for the summary and the last position meanwhile)."""
        game.finished = True
        result = result_of(game.gm.outcome())
        await asyncio.to_thread(self.store.finish, game.id, result.model_dump(mode="json"), self.clock())
        log.info("game over", game=game.id, outcome=result.outcome, powers=result.powers)
        game.evict = asyncio.get_running_loop().call_later(self.finished_grace, self._evict, game.id)
        self._evict_if_alone(game)

    def _evict_if_alone(self, game: Game) -> None:
        if game.finished and not any(self.lobby.game_of(c) == game.id for c in self.connections):
            self._evict(game.id)

    def _evict(self, game_id: str) -> None:
        """Drop a finished game from memory (its connections are closed): the store serves it."""
        game = self.games.pop(game_id, None)
        self.lobby.remove(game_id)
        if game is None:
            return
        for handle in (game.timer, game.evict):
            if handle is not None:
                handle.cancel()
        for conn in self.connections.values():
            if self.lobby.game_of(conn.id) == game_id:
                conn.close()
        log.debug("game left memory", game=game_id)

    def _arm(self, game: Game) -> None:
        if game.timer is not None:
            game.timer.cancel()
            game.timer = None
        deadline = None if game.finished else game.gm.next_deadline
        if game.stale:
            deadline = self.clock()  # try to rebuild it again, below in a second
        if deadline is None:
            return
        loop = asyncio.get_running_loop()
        delay = max(0.0, deadline - self.clock())
        if self.health.problem is not None:
            delay = max(delay, STORE_RETRY)  # a store that fails is not hammered by a past deadline
        game.timer = loop.call_at(loop.time() + delay, self._fire, game)

    def _fire(self, game: Game) -> None:
        game.timer = None
        task = asyncio.create_task(self._tick(game))
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _tick(self, game: Game) -> None:
        async with game.lock:
            if game.stale and not await self._recover(game):
                return
            await self.commit(game, game.gm.tick(self.clock()))

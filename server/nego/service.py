"""The asyncio layer of the negotiation server: the store, each game's negotiation, the
clients, and the link to the game server.

:class:`NegoService` follows the game server's feed (:mod:`server.feed`) over one
websocket, reconnecting when it drops, and asks it to check session tokens, to relay L as DAIDE
press and to make confirmed commitments binding. Each game's inputs are serialised by a
lock; every :class:`~referee.effects.Step` is handled the same way: its records
go to the store (in a worker thread, durably) *before* the reply and the frames go out.
On :meth:`NegoService.start` every unfinished game is rebuilt from the store.

Relays and bindings are requests the game server must acknowledge: the negotiation keeps
each one outstanding (stored) until its answer comes (:meth:`Negotiation.answered
<referee.negotiation.Negotiation.answered>`). They are sent when made, all again each time
the feed (re)connects (a restart of either server included), and again when unanswered
after :data:`RETRY_AFTER` or answered ``retry``; the game server applies each request id
once, so sending again is safe. Answers are handled in the feed's order, before the notices
that follow them, so that a binding held just before its phase ended counts as held.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import structlog
import websockets

from referee import notices
from referee.effects import Bind, Relay, Reply, Send, Step
from referee.guesses import ADDRESS_GUESSES, WINDOW, Guesses
from referee.negotiation import Negotiation, notes
from referee.notices import GameNotice, OverNotice
from referee.settings import GameSettings
from server.health import StoreHealth
from server.metrics import Metrics
from server.nego.frames import error
from server.store import Store
from server.web import Outbox
from server.writer import Writer

__all__ = ["Client", "GameServerLink", "NegoService", "iso_time"]

REQUEST_TIMEOUT = 10.0
#: An outstanding relay or binding unanswered this long on an open feed is sent again.
RETRY_AFTER = 10.0
#: How often outstanding requests are looked at (those answered ``retry`` go again then).
RETRY_PAUSE = 1.0
#: Messages a second one /nego connection may say, over its last SAY_BURST; beyond, an
#: ``error`` frame with code ``rate``.
SAY_RATE = 20.0
SAY_BURST = 50
CLIENT_QUEUE_SIZE = 1024

log = structlog.get_logger("detente.nego")


def iso_time(at: float | None) -> str | None:
    """A Unix time as ISO 8601 UTC (``2026-11-22T10:00:00Z``)."""
    if at is None:
        return None
    return datetime.fromtimestamp(at, UTC).isoformat().replace("+00:00", "Z")


@dataclass(eq=False)
class Client(Outbox[dict[str, Any]]):
    """One ``/nego`` connection: who it is, once it said hello, and its frames to send."""

    id: int
    address: str | None = None
    game: str | None = None
    power: str | None = None
    said: list[float] = field(default_factory=list)  # when its last messages came (the rate limit)


@dataclass(eq=False)
class Game:
    id: str
    negotiation: Negotiation
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    clients: dict[str, set[Client]] = field(default_factory=dict)  # power token -> connections


class GameServerLink:
    """The websocket to the game server's feed: frames in to ``handle``, requests out."""

    def __init__(
        self,
        url: str,
        secret: str,
        handle: Callable[[dict[str, Any]], Any],
        on_connect: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self.url = url
        self.secret = secret
        self.handle = handle
        self.on_connect = on_connect  # awaited on each connection, before its first frame is read
        self.connected = asyncio.Event()
        self._ws: Any = None
        self._ids = itertools.count(1)
        self._waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}

    async def drop(self) -> None:
        """Close the feed's websocket: :meth:`run` connects again."""
        if self._ws is not None:
            with contextlib.suppress(Exception):
                await self._ws.close()

    async def run(self) -> None:
        """Follow the feed for ever, reconnecting with a growing pause (up to 5 s)."""
        pause = 0.1
        while True:
            try:
                async with websockets.connect(
                    self.url, additional_headers={"Authorization": f"Bearer {self.secret}"}, max_size=2**24
                ) as ws:
                    self._ws, pause = ws, 0.1
                    self.connected.set()
                    log.info("following the game server", url=self.url)
                    if self.on_connect is not None:
                        try:
                            await self.on_connect()
                        except (OSError, websockets.exceptions.WebSocketException):
                            raise
                        except Exception:  # what is not sent now goes at the next retry
                            log.exception("resending requests failed")
                    async for text in ws:
                        frame = json.loads(text)
                        waiter = self._waiting.pop(frame.get("id"), None) if "id" in frame else None
                        if waiter is not None and not waiter.done():
                            waiter.set_result(frame)
                            continue
                        try:
                            await self.handle(frame)
                        except Exception:  # one bad event must not stop the following of every game
                            log.exception("feed frame failed", frame_type=frame.get("type"), game=frame.get("game"))
            except (OSError, websockets.exceptions.WebSocketException) as exc:
                log.warning("game server unreachable", url=self.url, error=str(exc))
            finally:
                self._ws = None
                self.connected.clear()
                for waiter in self._waiting.values():
                    if not waiter.done():
                        waiter.set_exception(ConnectionError("the game server went away"))
                self._waiting.clear()
            await asyncio.sleep(pause)
            pause = min(5.0, pause * 2)

    async def send(self, frame: dict[str, Any]) -> bool:
        """Send a request without waiting for its answer (it comes to ``handle``, in the
        feed's order); whether it went out (False while the link is down)."""
        ws = self._ws
        if ws is None:
            return False
        try:
            await ws.send(json.dumps({**frame, "id": next(self._ids)}))
        except (OSError, websockets.exceptions.WebSocketException):
            return False
        return True

    async def request(self, frame: dict[str, Any]) -> dict[str, Any]:
        """Send a request and wait for its answer (``ConnectionError`` if the link is down)."""
        try:
            await asyncio.wait_for(self.connected.wait(), REQUEST_TIMEOUT)
        except TimeoutError:
            raise ConnectionError("the game server cannot be reached") from None
        request_id = next(self._ids)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[request_id] = future
        await self._ws.send(json.dumps({**frame, "id": request_id}))
        return await asyncio.wait_for(future, REQUEST_TIMEOUT)


class NegoService:
    """Every game's negotiation in one process."""

    def __init__(
        self,
        store: Store,
        game_server_url: str,
        secret: str,
        clock: Callable[[], float] = time.time,
        say_rate: float = SAY_RATE,
    ) -> None:
        self.store = store
        self.say_rate = say_rate
        self.games: dict[str, Game] = {}
        self.clients: dict[int, Client] = {}
        self._ids = itertools.count(1)
        self.link = GameServerLink(_feed_url(game_server_url), secret, self._on_feed, self._resend_all)
        self.writer = Writer(store)
        self.health = StoreHealth(store)
        self._task: asyncio.Task[None] | None = None
        self._retrier: asyncio.Task[None] | None = None
        # (game, request id) -> when it was last sent on this connection of the feed (monotonic)
        self._sent: dict[tuple[str, str], float] = {}
        self.clock = clock
        self.guesses = Guesses()  # wrong session tokens by client address
        self.metrics = Metrics("detente_nego")
        self.metrics.gauge("games", "games followed", lambda: {(): len(self.games)})
        self.metrics.gauge("clients", "negotiation clients connected", lambda: {(): len(self.clients)})
        self.metrics.gauge(
            "following", "1 while the game server's feed is open", lambda: {(): float(self.link.connected.is_set())}
        )
        self.metrics.gauge(
            "requests_outstanding",
            "relays and bindings the game server has not answered",
            lambda: {(): sum(len(g.negotiation.requests) for g in self.games.values())},
        )

    # --- lifetime -------------------------------------------------------------------------------

    async def start(self) -> None:
        for stored in await asyncio.to_thread(self.store.games, True):
            try:
                negotiation = await self._rebuild(stored.id, GameSettings.from_json(stored.settings))
            except Exception as error:  # noqa: BLE001  # one game that cannot come back never stops the others
                log.error("game not restored: left in the store", game=stored.id, error=str(error))
                continue
            self.games[stored.id] = Game(stored.id, negotiation)
            log.info(
                "game restored",
                game=stored.id,
                phase=negotiation.phase,
                messages=negotiation.seq,
                outstanding=len(negotiation.requests),  # sent again once the feed is open
            )
        self._task = asyncio.create_task(self.link.run())
        self._retrier = asyncio.create_task(self._retry())

    async def stop(self) -> None:
        for task in (self._task, self._retrier):
            if task is not None:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
        for client in list(self.clients.values()):
            client.close()
        await self.writer.close()

    # --- the game server's feed -----------------------------------------------------------------

    async def _on_feed(self, frame: dict[str, Any]) -> None:
        if frame.get("type") in ("bound", "delivered"):
            await self._on_answer(frame)
            return
        try:
            notice = notices.from_json(frame)
        except (ValueError, TypeError, AttributeError):
            return  # an answer to a request, or nothing a negotiation follows
        if isinstance(notice, GameNotice):
            game: Game | None = await self._game(notice.game, notice.settings)
        else:
            game = self.games.get(notice.game)  # None: a game that ended before we followed it
        if game is None:
            return
        async with game.lock:
            if not await self._commit(game, game.negotiation.feed(notice)):
                # the event is lost to this server: follow the feed again, whose first frames
                # (every game as it stands) bring each negotiation back to its phase
                await self.link.drop()
                return
            if isinstance(notice, OverNotice):
                await asyncio.to_thread(self.store.finish, game.id, {"phase": game.negotiation.phase})

    async def _game(self, game_id: str, settings: GameSettings) -> Game:
        game = self.games.get(game_id)
        if game is None:
            if await asyncio.to_thread(self.store.game, game_id) is None:
                await asyncio.to_thread(self.store.create_game, game_id, settings.to_json())
            game = Game(game_id, Negotiation(game_id, settings, await_answers=True))
            self.games[game_id] = game
        return game

    # --- clients --------------------------------------------------------------------------------

    def connect(self, address: str | None = None) -> Client:
        client = Client(next(self._ids), address, outbox=asyncio.Queue(CLIENT_QUEUE_SIZE))
        self.clients[client.id] = client
        return client

    async def disconnect(self, client: Client) -> None:
        self.clients.pop(client.id, None)
        game = self.games.get(client.game) if client.game is not None else None
        if game is None or client.power is None:
            return
        async with game.lock:
            conns = game.clients.get(client.power, set())
            conns.discard(client)
            if not conns:
                game.clients.pop(client.power, None)
                game.negotiation.readers.discard(client.power)

    async def hello(self, client: Client, game_id: str | None, power: str, session: str) -> dict[str, Any]:
        """Check the power's session token with the game server; the ``welcome`` or ``error``
        frame, already queued for ``client``.

        A refused hello closes the connection. Wrong tokens are counted per client address (as
        the game server counts wrong passcodes); past :data:`ADDRESS_GUESSES` in the window, a
        hello is refused unchecked. They are not counted per seat: nobody guesses 128 bits, and a
        seat's lock would keep its own player out. The right token takes the power's place: its
        older ``/nego`` connections get an ``error`` frame (code ``replaced``) and are closed."""
        if client.power is not None:
            answer = error("auth", "this connection has said hello already")
            client.put(answer)
            return answer
        now = self._now()
        if self.guesses.recent(client.address, now, WINDOW) >= ADDRESS_GUESSES:
            return self._refused(client, "too many wrong session tokens: try again later")
        try:
            answer = await self.link.request({"type": "auth", "game": game_id, "power": power, "session": session})
        except (ConnectionError, TimeoutError):
            answer = error("unavailable", "the game server cannot check the session now; try again")
            client.put(answer)
            client.close()  # a client comes back with a new connection, as after any other refusal
            return answer
        game = self.games.get(answer.get("game") or "")
        if not answer.get("ok") or game is None:
            self.guesses.failed(client.address, now)
            return self._refused(client, "wrong game, power or session token")
        game_id = game.id
        n = game.negotiation
        token = answer["power"]
        async with game.lock:
            # the frames of steps still being written go out before the mail is read
            await self.writer.settled(game_id)
            for older in game.clients.pop(token, set()):
                older.put(error("replaced", "another connection said hello with this seat's session token"))
                older.close()
                older.power = None  # its disconnect must not touch the new connection's place
            client.game, client.power = game_id, token
            game.clients[token] = {client}
            n.readers.add(token)
            mail, replayed = await asyncio.to_thread(self._mail, game_id, token, n.settings)
        log.info("client joined", game=game_id, power=token, client=client.id)
        welcome = {
            "type": "welcome",
            "game": game_id,
            "power": token,
            "levels": n.settings.l_levels,
            "protocol": n.settings.protocol,
            "binding": n.settings.binding,
            "phase": n.phase,
            "deadline": iso_time(n.deadline),
            "open": n.window_open,
            "mail": len(mail),
            "notes": replayed,
        }
        client.put(welcome)
        for frame in mail:
            client.put(frame)
        return welcome

    def _refused(self, client: Client, message: str) -> dict[str, Any]:
        """A refused hello: the ``error`` frame, and the connection closed after it."""
        self.metrics.count("hello_refused_total", "hello refused")
        client.put(error("auth", message))
        client.close()
        return error("auth", message)

    def allowed(self, client: Client) -> bool:
        """Whether ``client`` may say one more message now: :attr:`say_rate` a second over its
        last :data:`SAY_BURST` messages."""
        now = self._now()
        said = client.said
        if len(said) >= SAY_BURST and now - said[0] < SAY_BURST / self.say_rate:
            return False
        said.append(now)
        del said[:-SAY_BURST]
        return True

    def _mail(
        self, game_id: str, power: str, settings: GameSettings
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """The power's mail (the ``message`` frames to or from it) and its notes, made again
        from the stored records (:func:`referee.negotiation.notes`)."""
        frames = []
        events = self.store.events(game_id)
        for event in events:
            p = event.payload
            if p["kind"] == "message" and (p["sender"] == power or power in p["to"]):
                frames.append(
                    {
                        "type": "message",
                        "from": p["sender"],
                        "to": p["to"],
                        "text": p["text"],
                        "phase": p["phase"],
                        "seq": p["seq"],
                    }
                )
        return frames, notes(game_id, settings, (event.payload for event in events), power)

    async def say(self, client: Client, text: str, request_id: Any) -> None:
        game = self.games.get(client.game) if client.game is not None else None
        if game is None or client.power is None:
            client.put(error("auth", "say hello first", request_id))
            return
        if not self.allowed(client):
            client.put(error("rate", f"more than {self.say_rate:g} messages a second", request_id))
            return
        started = time.perf_counter()
        async with game.lock:
            checked = time.perf_counter()
            step = game.negotiation.say(client.power, text, request_id)
            stored = self._store(game, step)
            waited = time.perf_counter()
        self.metrics.stage("parse and check", waited - checked)
        # the lock is not held while the step is written: the game's next message is taken
        # meanwhile, and its effects follow these (the writer keeps a game's writes in order)
        if not await self._stored(game, step, stored, client, locked=False):
            return
        performed = time.perf_counter()
        self.metrics.stage("store", performed - waited)
        await self._perform(game, step, client)
        self.metrics.stage("fan-out", time.perf_counter() - performed)
        reply = step.reply or {}
        self.metrics.count("messages_total", "messages said, by answer", answer=str(reply.get("code", "ack")))
        self.metrics.observe(
            "say_seconds", "from a message in to its delivery queued, storing included", time.perf_counter() - started
        )
        log.debug(
            "say", game=game.id, power=client.power, ok=reply.get("type") == "ack"
        )

    # --- outcomes -------------------------------------------------------------------------------

    async def _rebuild(self, game_id: str, settings: GameSettings) -> Negotiation:
        """A game's negotiation from its stored records; a record it cannot apply (DAIDE press
        bridged to L deeper than the parser takes, say) is quarantined: logged and kept aside
        in the store, and the rest of the game comes back."""
        await self.writer.settled(game_id)  # what is still being written is read back too
        self.writer.mend(game_id)
        negotiation = Negotiation(game_id, settings, await_answers=True)
        for event in await asyncio.to_thread(self.store.events, game_id):
            try:
                negotiation.apply(event.payload)
            except Exception as error:  # noqa: BLE001
                reason = f"{type(error).__name__}: {error}"
                log.error("record quarantined", game=game_id, seq=event.seq, kind=event.kind, error=reason)
                self.metrics.count("records_quarantined_total", "stored records that could not be replayed")
                with contextlib.suppress(Exception):
                    await asyncio.to_thread(self.store.quarantine, game_id, event.seq, reason)
        return negotiation

    async def _commit(self, game: Game, step: Step, client: Client | None = None) -> bool:
        """Store, then answer, then deliver, then ask the game server (the game's lock is held);
        whether the records were stored."""
        if not await self._stored(game, step, self._store(game, step), client, locked=True):
            return False
        await self._perform(game, step, client)
        return True

    def _store(self, game: Game, step: Step) -> Awaitable[None] | None:
        """The step's records queued for the store (the game's lock is held)."""
        if not step.records:
            return None
        now = self._now()
        return self.health.submit(self.writer, game.id, [(r.kind, r.payload, now) for r in step.records])

    async def _stored(
        self, game: Game, step: Step, stored: Awaitable[None] | None, client: Client | None, locked: bool
    ) -> bool:
        """Whether the step's records are stored. If the store refuses them, nothing of the step
        goes out: the client gets an ``error`` (code ``unavailable``), and the negotiation is
        rebuilt from what the store holds, so that memory never runs ahead of it."""
        if stored is None:
            return True
        try:
            await stored
            return True
        except Exception as failure:  # noqa: BLE001  # locked, read-only, full, corrupt, deleted
            log.error("store write failed: the step is dropped", game=game.id, error=str(failure))
        if client is not None and step.reply is not None:
            request_id = step.reply.get("id")
            client.put(error("unavailable", "the message could not be stored: try again", request_id))
        async with contextlib.nullcontext() if locked else game.lock:
            if self.writer.broken(game.id):  # not yet rebuilt by a step that failed before
                with contextlib.suppress(Exception):
                    game.negotiation = await self._rebuild(game.id, game.negotiation.settings)
        return False

    async def _perform(self, game: Game, step: Step, client: Client | None) -> None:
        """The step's effects, in order; every frame is put before the first await, so that
        a step's frames are queued before those of the game's next step."""
        for effect in step.effects:
            if isinstance(effect, Reply):
                if client is not None:
                    client.put(effect.message)
            elif isinstance(effect, Send):
                for conn in game.clients.get(effect.to, ()):
                    conn.put(effect.message)
            elif isinstance(effect, Relay | Bind):
                await self._send_request(game, effect)
        # a binding or a relay that will never be done: the operator hears of it too
        dropped = {id(s.message): s.message for s in step.sends if s.message.get("type") in ("unbound", "undelivered")}
        for frame in dropped.values():
            log.warning(
                "request dropped", game=game.id, frame=frame["type"], phase=frame.get("phase"), reason=frame["reason"]
            )

    # --- requests to the game server ---------------------------------------------------------

    async def _send_request(self, game: Game, request: Relay | Bind) -> None:
        """Send ``request`` if the feed is open; else it waits, outstanding, for the next connection."""
        outstanding = game.negotiation.requests.get(request.id)
        if isinstance(request, Relay):
            frame: dict[str, Any] = {"type": "deliver", "game": game.id, "sender": request.sender}
            frame.update(recipients=list(request.recipients), press=request.press, request=request.id)
            frame["phase"] = outstanding.phase if outstanding is not None else game.negotiation.phase
        else:
            orders = {power: list(given) for power, given in request.orders.items()}
            frame = {"type": "bind", "game": game.id, "phase": request.phase, "orders": orders, "request": request.id}
        if await self.link.send(frame):
            self._sent[(game.id, request.id)] = time.monotonic()

    async def _resend(self) -> None:
        """Send every outstanding request not sent on this connection, or sent over
        :data:`RETRY_AFTER` ago (their answers were lost, or said ``retry``)."""
        now = time.monotonic()
        live = set()
        for game in list(self.games.values()):
            for request in game.negotiation.outstanding():
                key = (game.id, request.id)
                live.add(key)
                if now - self._sent.get(key, -RETRY_AFTER) >= RETRY_AFTER:
                    await self._send_request(game, request)
        for key in set(self._sent) - live:  # answered, or covered by a later binding, or lapsed
            self._sent.pop(key, None)

    async def _resend_all(self) -> None:
        """The feed (re)connected: what was sent on the old connection may not have arrived."""
        self._sent.clear()
        count = sum(len(g.negotiation.requests) for g in self.games.values())
        if count:
            log.info("sending outstanding requests again", count=count)
        await self._resend()

    async def _retry(self) -> None:
        while True:
            await asyncio.sleep(RETRY_PAUSE)
            if self.link.connected.is_set():
                try:
                    await self._resend()
                except Exception:  # one failed pass must not end the retries
                    log.exception("resending requests failed")

    async def _on_answer(self, frame: dict[str, Any]) -> None:
        """The game server's answer to a relay or a binding: done, refused, or to send again."""
        game = self.games.get(str(frame.get("game")))
        request_id = frame.get("request")
        if game is None or not isinstance(request_id, str):
            return
        if frame.get("retry"):
            # the game server could not store it now: the next pass of _retry sends it again
            self._sent.pop((game.id, request_id), None)
            log.warning("game server asks to retry", game=game.id, request=request_id)
            return
        self._sent.pop((game.id, request_id), None)
        ok = bool(frame.get("ok"))
        reason = None if ok else "the game server refused it (the game is over, or past that phase)"
        async with game.lock:
            await self._commit(game, game.negotiation.answered(request_id, ok, reason))

    def _now(self) -> float:
        return self.clock()


def _feed_url(game_server: str) -> str:
    """``http://host:8700`` -> ``ws://host:8700/internal/feed``."""
    base = game_server.rstrip("/")
    if base.startswith("http"):
        base = "ws" + base[4:]
    return base + "/internal/feed"

"""The game server's own bots: the seats a game gives them, and the stand-ins for absent players.

:class:`BotHouse` is the :class:`server.bot_seats.House` that ``detente serve`` and
``detente play`` hand the game service. When a game wants a seat played (a bot's seat of a
game against bots, or a person's seat whose player is away: :mod:`referee.game.house`), the
service calls :meth:`BotHouse.play`, and the house plays it in this process, on a connection
of the server's own (:meth:`server.bot_seats.BotSeats.seat`): a :class:`~bots.session.BotSession`
fed the DAIDE texts the server queues for that connection, exactly what a websocket client
would read, its answers handed back as a client's would be. A negotiating bot in a bot's
seat also joins the negotiation server (``nego_url``) with the session token its seat was
given, as any player does; a stand-in does not negotiate, since it would make promises in
the name of a player who is not there.

The bots think on a worker thread, so that the server's event loop never waits on them. A
bot that fails is logged and its seat left; the house seats a bot again at most
:data:`MAX_FAILURES` times a seat, so a bot that always fails cannot keep the server busy.
"""

from __future__ import annotations

import asyncio
import random
import urllib.parse
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import structlog

from bots.nego_client import NegoLink
from bots.registry import BOTS, BotSeat, UnknownBot, cannot_play, make_bot, parse_seat
from bots.session import BotSession
from bots.ws_client import time_limit
from engine.maps import Map
from protocol.daide.messages import Value
from protocol.daide.parser import DaideSyntaxError, parse

if TYPE_CHECKING:
    from server.service import Connection, GameService

__all__ = ["DEFAULT_BOT", "MAX_FAILURES", "BotHouse"]

DEFAULT_BOT = "randomnegotiator"
"""The bot of a game against bots whose player names none, when there is a negotiation server
(it answers proposals); :data:`DEFAULT_SILENT_BOT` without one."""
DEFAULT_SILENT_BOT = "dumbbot"
MAX_FAILURES = 3
"""Times a bot may fail in one seat before the house stops seating bots there."""
NEGO_RETRIES = 100_000
"""Connections to the negotiation server in a row that may fail before a bot stops trying (one
every 5 s at most: about six days)."""

T = TypeVar("T")
log = structlog.get_logger("detente.house")


class BotHouse:
    """The server's bots (see the module): ``service`` is the game service they play in."""

    def __init__(self, service: GameService, nego_url: str | None = None, seed: int | None = None) -> None:
        self.service = service
        self.nego_url = nego_socket_url(nego_url) if nego_url else None
        self.default_bot = DEFAULT_BOT if nego_url else DEFAULT_SILENT_BOT
        self.bots = tuple(sorted(BOTS))
        self.rng = random.Random(seed)
        self.tasks: set[asyncio.Task[None]] = set()
        self.failures: dict[tuple[str, str], int] = {}

    def check(self, spec: str, board: Map) -> str | None:
        """Why ``spec`` is no bot of this house or cannot play ``board``, in one line (a model
        seat plays as a client: ``detente bot llm:...``); None if it is one that can."""
        try:
            seat = parse_seat(spec)
            if not isinstance(seat, BotSeat):
                return f"{spec[:40]!r}: the server plays the kit's bots; a model seat joins as a client (detente bot)"
            if spec not in BOTS:  # a class of one's own names code on the server's disk: never a stranger's
                return f"{spec[:40]!r}: the server plays the kit's bots; a bot of your own joins as a client (detente bot)"
            make_bot(spec)
            return cannot_play(spec, board)
        except UnknownBot as error:
            return str(error)

    def play(self, game_id: str, power: str, bot: str) -> None:
        if self.failures.get((game_id, power), 0) >= MAX_FAILURES:
            return
        task = asyncio.create_task(self._play(game_id, power, bot, self.rng.getrandbits(64)))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def close(self) -> None:
        """Stop every bot (the server is stopping)."""
        for task in list(self.tasks):
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)

    async def _play(self, game_id: str, power: str, bot: str, seed: int) -> None:
        conn = await self.service.bot_seats.seat(game_id, power, bot)
        if conn is None:
            return
        game = self.service.games.get(game_id)
        own_seat = game is not None and power in game.create.bots
        session = BotSession(make_bot(bot, seed, game=game_id, seat=power))
        # as long as the server runs: a negotiation server that starts later, or again, is found again
        wanted = own_seat and session.bot.negotiates and self.nego_url
        link = NegoLink(session, self.nego_url, retries=NEGO_RETRIES) if wanted and self.nego_url else None
        player = _Player(self.service, conn, session, link)
        try:
            await player.run()
        except asyncio.CancelledError:
            raise
        except Exception as error:  # noqa: BLE001  # one bot that fails never stops the server
            key = (game_id, power)
            self.failures[key] = self.failures.get(key, 0) + 1
            log.error("bot failed: its seat is left", game=game_id, power=power, bot=bot, error=repr(error))
        finally:
            if link is not None:
                await link.close()
            await self.service.disconnect(conn)


def nego_socket_url(url: str) -> str:
    """The ``/nego`` websocket of the negotiation server at ``url`` (``--nego-url``: http(s) or
    ws(s), with or without ``/nego``), as the page reads it too.

    >>> nego_socket_url("http://127.0.0.1:8701"), nego_socket_url("wss://example.org/x/nego")
    ('ws://127.0.0.1:8701/nego', 'wss://example.org/x/nego')
    """
    parts = urllib.parse.urlsplit(url)
    scheme = {"http": "ws", "https": "wss"}.get(parts.scheme, parts.scheme)
    path = parts.path if parts.path.endswith("/nego") else parts.path.rstrip("/") + "/nego"
    return urllib.parse.urlunsplit(parts._replace(scheme=scheme, path=path))


class _Player:
    """One bot on one of the server's own connections: the in-process twin of
    :class:`bots.ws_client.WsClient` (the same session, hooks and ordering)."""

    def __init__(self, service: GameService, conn: Connection, session: BotSession, link: NegoLink | None) -> None:
        self.service = service
        self.conn = conn
        self.session = session
        self.link = link
        self._ordering = asyncio.Lock()  # a replacing SUB never overtakes the SUB it replaces

    async def run(self) -> None:
        session, conn = self.session, self.conn
        while not session.over:
            text = await conn.outbox.get()
            if text is None:  # the server closed it (the player is back, the game is over)
                return
            try:
                message = parse(text)
            except DaideSyntaxError:
                continue
            await self._send(await self._thinking(session.receive, message))
            if session.due:
                session.bot.on_time_limit(time_limit(session))
                if self.link is not None:
                    await self.link.before_orders(self)  # type: ignore[arg-type]  # resubmit() is all it uses
                async with self._ordering:
                    await self._send(await self._thinking(session.submit))

    async def resubmit(self) -> None:
        """The replacing ``SUB`` when the bot revised its orders after a deal (see WsClient)."""
        async with self._ordering:
            await self._send(await self._thinking(self.session.resubmit))

    async def _thinking(self, call: Callable[..., T], *args: Any) -> T:
        return await asyncio.to_thread(call, *args)

    async def _send(self, messages: list[Value]) -> None:
        for message in messages:
            await self.service.receive(self.conn, str(message))

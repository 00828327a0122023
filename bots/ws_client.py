"""The asyncio websocket client: a :class:`~bots.session.BotSession` against a real game server.

One DAIDE message in text form per websocket text frame, as ``/daide`` of
:mod:`server.app` speaks it. The client parses what comes in, hands it to the session,
and sends what the session answers; when the session owes orders it awaits
``before_orders`` (the seam where negotiation will run) and sends the ``SUB``; later in the
phase :meth:`WsClient.resubmit` sends a replacement when the bot revises its orders.

A connection lost before the game ends is opened again: with a seat the session says
``IAM`` with its power and session token (its passcode on a server that gave none) and
asks for the position again (a ``SUB`` already sent for the current phase is sent again,
which replaces it); without one it joins afresh. An ``IAM`` refused is tried again a few
times, since with a passcode the server keeps the seat until it has noticed the old
connection go. A server that refuses the connection outright (no such
game) ends the client.

The text is read on the game's map: the session's map once ``MAP`` and ``MDF`` have told it
(a map's own province and power tokens are no tokens of the standard map), and an ``MDF``
by its shape (:func:`protocol.daide.mdf.read_mdf`), as it is what tells those tokens. A bot
that cannot play the map refuses it and leaves (:attr:`BotSession.declined`); the client
logs that one line.

>>> import asyncio
>>> from bots.base import HoldBot
>>> client = WsClient(BotSession(HoldBot()), "ws://127.0.0.1:8700/daide", game="g2")
>>> client.url
'ws://127.0.0.1:8700/daide?game=g2'
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import urllib.parse
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import structlog
import websockets

from bots.base import Bot
from bots.session import BotSession
from engine.maps import Map, standard_map
from protocol.daide.mdf import MdfError, read_mdf
from protocol.daide.messages import Iam, Value
from protocol.daide.orders import province_categories
from protocol.daide.parser import DaideParser, DaideSyntaxError, parse

log = structlog.get_logger("detente.bots")

__all__ = ["ConnectionFailed", "WsClient", "observe", "play"]

#: Awaited when the session owes orders, before they are asked for and sent.
AsyncPhaseHook = Callable[["WsClient"], Awaitable[None]]

T = TypeVar("T")

OPEN_TIMEOUT = 15.0
#: Seconds a replacing ``SUB`` waits for the server's answer before the negotiation goes on.
ANSWER_TIMEOUT = 5.0


class ConnectionFailed(ConnectionError):
    """The server could not be reached (or reached again) within the retries allowed."""


class WsClient:
    """Drives one session over a websocket until its game is over.

    ``retries`` is how many connection attempts in a row may fail before giving up;
    ``backoff`` the first wait between two attempts, doubled after each failure (at most
    ``max_backoff``). ``ws`` is the open connection, if any; ``connections`` counts the
    connections made.
    """

    def __init__(
        self,
        session: BotSession,
        url: str,
        game: str | None = None,
        *,
        before_orders: AsyncPhaseHook | None = None,
        retries: int = 5,
        backoff: float = 0.2,
        max_backoff: float = 5.0,
    ) -> None:
        self.session = session
        self.url = _with_game(url, game)
        self.before_orders = before_orders
        self.retries = retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.ws: Any = None
        self.connections = 0
        self.heard = False  # the server has said something on this connection
        # a SUB is made and sent under this lock, so that a replacement (:meth:`resubmit`, from
        # the negotiation's task) never reaches the server ahead of the SUB it replaces
        self._ordering = asyncio.Lock()
        self._answered = asyncio.Event()  # set when the server has answered every order sent

    async def run(self) -> BotSession:
        """Play (or watch) until the game is over; the session, with the result."""
        session = self.session
        failures = 0  # connections in a row that failed or were lost
        refusals = 0  # IAM refused in a row
        while not session.over:
            try:
                self.ws = await websockets.connect(self.url, open_timeout=OPEN_TIMEOUT)
            except websockets.InvalidStatus:
                raise  # the server refused this URL (no such game): trying again would not help
            except (OSError, TimeoutError, websockets.InvalidHandshake) as error:
                failures += 1
                if failures > self.retries:
                    raise ConnectionFailed(f"cannot reach {self.url}: {error}") from error
                await self._pause(failures)
                continue
            first = self.connections == 0
            self.connections += 1
            self.heard = False
            try:
                await self._converse(session.start() if first else session.rejoin())
                failures = 0
            except websockets.ConnectionClosed:
                # a connection that worked for a while is a new start: only failures in a row count
                failures = 1 if self.heard else failures + 1
                if failures > self.retries:
                    raise ConnectionFailed(f"lost {self.url} {failures} times in a row") from None
            finally:
                await self.ws.close()
                self.ws = None
            if failures:
                await self._pause(failures)
            if isinstance(session.refused, Iam) and refusals < self.retries:
                # the server may not have seen the old connection go yet: it keeps the seat till then
                refusals += 1
                session.refused = None
                await self._pause(refusals)
        if session.declined is not None:
            log.warning(session.declined)
        return session

    async def _pause(self, attempt: int) -> None:
        await asyncio.sleep(min(self.max_backoff, self.backoff * 2 ** (attempt - 1)))

    async def _converse(self, opening: list[Value]) -> None:
        """One connection: send ``opening``, then answer the server until the game is over."""
        session, ws = self.session, self.ws
        await self._send(opening)
        while not session.over:
            text = await ws.recv()
            self.heard = True
            if not isinstance(text, str):
                continue  # the server sends text frames only
            try:
                message = read(text, session.map)
            except (DaideSyntaxError, MdfError):
                continue  # nothing a bot could do about it (an MDF it cannot read: it asked for none)
            await self._send(await self._off_loop(session.receive, message))
            if session.acknowledged:
                self._answered.set()
            if session.due:
                session.bot.on_time_limit(time_limit(session))
                if self.before_orders is not None:
                    await self.before_orders(self)
                async with self._ordering:
                    await self._send(await self._off_loop(session.submit))

    async def _off_loop(self, call: Callable[..., T], *args: Any) -> T:
        """``call(*args)``: on a worker thread for a bot that blocks (a model seat), so that
        the loop, which may also run servers and other bots, never waits on it."""
        if self.session.bot.blocking:
            return await asyncio.to_thread(call, *args)
        return call(*args)

    async def resubmit(self, timeout: float = ANSWER_TIMEOUT) -> None:
        """Send the ``SUB`` replacing the phase's if the bot revised its orders
        (:meth:`BotSession.resubmit`), and wait (at most ``timeout`` seconds) until the server
        has answered it: the game server reads each connection on its own, so a player who
        hears of the change (a deal accepted) can only then be sure to order after it.
        Without a connection the replacement is not lost: it is the ``SUB`` the session
        sends again when it is back in the phase."""
        async with self._ordering:
            messages = await self._off_loop(self.session.resubmit)
            if not messages or self.ws is None:
                return
            self._answered.clear()
            with contextlib.suppress(websockets.ConnectionClosed):
                await self._send(messages)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._answered.wait(), timeout)

    async def _send(self, messages: list[Value]) -> None:
        for message in messages:
            await self.ws.send(str(message))


def read(text: str, m: Map) -> Value:
    """The message of ``text`` on the map ``m``: an ``MDF`` by its shape, the rest by ``m``'s tokens."""
    if text.lstrip()[:3].upper() == "MDF":
        return read_mdf(text)
    if m is standard_map():
        return parse(text)  # the protocol's own parser of the standard map, and its caches
    return _parser(m).parse(text)  # type: ignore[return-value]


@functools.lru_cache(maxsize=8)
def _parser(m: Map) -> DaideParser:
    """The parser of ``m``'s powers and provinces: made once per map (a map lives as long as the process)."""
    return DaideParser(m.powers, province_categories(m))


def time_limit(session: BotSession) -> float | None:
    """The seconds the current phase's orders are due in, by the game's ``HLO`` (None: no limit)."""
    if session.position is None:
        return None
    option = {"M": "MTL", "R": "RTL", "A": "BTL"}[session.position.phase.kind]
    for variant in session.variant:
        if variant.name == option and variant.value:
            return float(variant.value)
    return None


def _with_game(url: str, game: str | None) -> str:
    """``url`` with ``?game=ID`` added (``ID`` quoted), or as it is without a game."""
    if game is None:
        return url
    parts = urllib.parse.urlsplit(url)
    query = urllib.parse.urlencode([*urllib.parse.parse_qsl(parts.query), ("game", game)])
    return urllib.parse.urlunsplit(parts._replace(query=query))


async def play(
    bot: Bot, url: str, game: str | None = None, *, before_orders: AsyncPhaseHook | None = None, retries: int = 5
) -> BotSession:
    """Play ``bot`` in a game of the server at ``url`` (its ``/daide`` websocket) to the end."""
    return await WsClient(BotSession(bot), url, game, before_orders=before_orders, retries=retries).run()


async def observe(url: str, game: str | None = None, *, retries: int = 5) -> BotSession:
    """Watch a game to its end: the observer session has its positions, results and summary."""
    return await WsClient(BotSession(Bot(), observer=True), url, game, retries=retries).run()

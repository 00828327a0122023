"""The negotiation client: a negotiating bot on ``/nego`` of a real negotiation server.

:func:`play_negotiating` plays a bot on the game server (:class:`~bots.ws_client.WsClient`)
and, once the game server has said who the bot is (``HLO``), opens ``/nego`` with that
power and the session token the game server gave at join (the token finds the game). From then on every frame of the
negotiation server goes to the bot (``message`` frames through :meth:`Bot.on_message`,
the others through :meth:`Bot.on_event`) and what it answers is said; at each phase, before
its orders are sent, the bot's :meth:`Bot.on_phase` is said too. Over the network there is
no round: the bot answers as the frames come, and since its orders went in as the phase
opened, after each frame it is asked whether it revises them (:meth:`Bot.revised_orders`);
if so the game client sends the replacing ``SUB`` before the bot's answer is said (so a
deal it accepts is in its orders before its partner hears of the acceptance). The
negotiation link reconnects after a dropped connection, and a lost link never stops the
game: the bot plays on without it.

A welcome is followed by the power's mail: every message of the game to or from it, and the
bot may be a new process after a restart. The link reads the whole mail first, then hands
the bot only the messages it may not have seen: those it was not given before, of the
phase being played, sent after the bot's own last message (which it could not have answered
yet). So an old proposal is never answered twice; a phase whose mail holds a message of the
bot's was opened by it already, so its :meth:`Bot.on_phase` is not said again (nor asked
again when the game client reconnects in a phase it opened); and a bot
started afresh rebuilds what it knew from the welcome's notes (:meth:`Bot.on_history`),
without speaking.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from collections.abc import Callable
from typing import Any

import structlog
import websockets

from bots.base import Bot, Outgoing
from bots.session import BotSession
from bots.ws_client import WsClient
from protocol.l import LError, parse, to_text

__all__ = ["SYNC_TIMEOUT", "NegoLink", "play_negotiating"]

log = structlog.get_logger("detente.bots")

#: Seconds :meth:`NegoLink.answered` and :meth:`NegoLink.sync` wait for the server at most.
SYNC_TIMEOUT = 30.0


class NegoLink:
    """One bot's connection to ``/nego``: ``welcome`` (the frame), then frames to the bot.

    :meth:`before_orders` is the game client's hook: it opens the link at the first phase and
    keeps the game client (``client``), which sends the orders the bot revises. :meth:`close`
    ends the link.
    """

    def __init__(self, session: BotSession, url: str, retries: int = 5) -> None:
        self.session = session
        self.url = url
        self.retries = retries
        self.client: WsClient | None = None
        self._task: asyncio.Task[None] | None = None
        self.welcome: dict[str, Any] | None = None
        self.errors: list[dict[str, Any]] = []
        self._ws: Any = None
        self._ids = itertools.count(1)
        self._ready = asyncio.Event()
        self._history = 0  # the messages of the mail still to come after the welcome
        self._mail: list[dict[str, Any]] = []
        self._seen = 0  # the seq of the last message the bot was given
        self._spoke: set[str] = set()  # the phases the mail shows the bot spoke in
        self._opened: set[str] = set()  # the phases this link opened (a game client reconnects)
        self._fresh = True  # never welcomed: a new bot, or a new process after a restart
        self.said = 0  # the messages this link has sent, over all its connections
        self._unanswered: set[int] = set()  # the ids of messages said whose ack or error is to come
        self._answered = asyncio.Event()
        self._answered.set()
        self._syncs: dict[int, asyncio.Future[None]] = {}
        self._over = asyncio.Event()  # the server said ``over``: the game ended
        self._phase: str | None = None  # the phase the server negotiates, as it last said
        self._phase_waiters: dict[str, asyncio.Event] = {}

    async def run(self) -> None:
        """Stay connected (with ``hello``) until cancelled, handing every frame to the bot."""
        session = self.session
        assert session.power is not None
        power = session.power
        if session.session is None:  # a game server that gave no session token: no way in
            log.warning("negotiation impossible: the game server gave no session token", power=power)
            self._ready.set()
            return
        failures = 0  # connections in a row that were never welcomed
        while failures <= self.retries:
            try:
                async with websockets.connect(self.url) as ws:
                    await ws.send(json.dumps({"type": "hello", "power": power, "session": session.session}))
                    async for text in ws:
                        frame = json.loads(text)
                        if frame["type"] in ("ack", "error", "synced"):
                            self._answer(frame)
                        if frame["type"] == "synced":
                            continue
                        if frame["type"] == "over":
                            self._over.set()
                        if frame["type"] in ("welcome", "phase"):
                            self._entered(frame.get("phase"))
                        if frame["type"] == "welcome":
                            self._ws, self.welcome, failures = ws, frame, 0
                            self._welcomed(frame)
                        elif frame["type"] == "error" and self._ws is None:
                            if frame.get("code") == "unavailable":  # the game server is away: again later
                                log.info("negotiation not checked yet", power=power, message=frame.get("message"))
                                break
                            log.warning("negotiation refused", power=power, message=frame.get("message"))
                            self._ready.set()
                            return
                        else:
                            await self._handle(frame)
            except (OSError, websockets.exceptions.WebSocketException) as exc:
                log.warning("negotiation link lost", power=power, error=str(exc), failures=failures)
            finally:
                self._ws, self.welcome = None, None
                self._lost()
            failures += 1
            await asyncio.sleep(min(5.0, 0.2 * 2**failures))
        self._ready.set()

    async def before_orders(self, client: WsClient) -> None:
        """A phase opens and the orders are due: open the link (once), then say the bot's
        opening messages of the phase."""
        if self._task is None:
            self.client = client
            self._task = asyncio.create_task(self.run())
            await self.ready()
        position = self.session.position
        if position is None or str(position.phase) in self._opened:  # the game client came back
            return
        self._opened.add(str(position.phase))
        # the game server's NOW can come before the negotiation server hears of the phase: what
        # the bot says to open it must not be taken as said in the phase before
        await self._in_phase(str(position.phase))
        opening = await self._off_loop(self.session.bot.on_phase, position)
        if str(position.phase) not in self._spoke:  # else said before a restart: it is in the mail
            await self.say(opening)

    async def close(self) -> None:
        """End the link (the game is over, or the player leaves)."""
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    async def ready(self, timeout: float = 10.0) -> bool:
        """Wait until the link is welcomed (or has given up); whether it is up."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._ready.wait(), timeout)
        return self._ws is not None

    async def _off_loop(self, call: Callable[..., Outgoing], *args: Any) -> Outgoing:
        """A bot's answer, from a worker thread for a bot that blocks (see :class:`bots.base.Bot`)."""
        if self.session.bot.blocking:
            return await asyncio.to_thread(call, *args)
        return call(*args)

    async def say(self, messages: Outgoing) -> None:
        if self._ws is None:
            return
        for message in messages:
            text = message if isinstance(message, str) else to_text(message)
            request = next(self._ids)
            self._unanswered.add(request)
            self._answered.clear()
            self.said += 1
            await self._ws.send(json.dumps({"type": "say", "id": request, "text": text}))

    async def round(self, number: int, rounds: int) -> None:
        """Round ``number`` of ``rounds`` of the phase begins (the clock of :mod:`bots.nego_rounds`):
        the bot hears it, as in process (``{"type": "round", ...}``), and what it answers is said."""
        position = self.session.position
        if position is None or self._ws is None:
            return
        event = {"type": "round", "round": number, "rounds": rounds}
        said = await self._off_loop(self.session.bot.on_event, event, position)
        if self.client is not None:
            await self.client.resubmit()
        await self.say(said)

    async def answered(self, timeout: float = SYNC_TIMEOUT) -> None:
        """Wait (at most ``timeout`` seconds) until the server has answered, with an ``ack`` or
        an ``error``, every message this link said; a lost connection answers none of them."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._answered.wait(), timeout)

    def _entered(self, phase: object) -> None:
        if not isinstance(phase, str):
            return
        self._phase = phase
        waiter = self._phase_waiters.pop(phase, None)
        if waiter is not None:
            waiter.set()

    async def _in_phase(self, phase: str, timeout: float = 10.0) -> bool:
        """Wait (at most ``timeout`` seconds) until the server negotiates in ``phase``;
        whether it does (without a connection there is nobody to say anything to anyway)."""
        if self._phase == phase or self._ws is None:
            return self._phase == phase
        waiter = self._phase_waiters.setdefault(phase, asyncio.Event())
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(waiter.wait(), timeout)
        return self._phase == phase

    async def over(self, timeout: float) -> bool:
        """Wait (at most ``timeout`` seconds) until the server says the game is ``over``;
        whether it did (its records of the game are then all stored)."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._over.wait(), timeout)
        return self._over.is_set()

    async def sync(self, timeout: float = SYNC_TIMEOUT) -> bool:
        """Ask the server for ``synced`` and wait for it (at most ``timeout`` seconds): once it
        is read, every frame the server queued for this link before has been handed to the bot,
        and what the bot answered has been said. Whether it came (not: no connection, or lost)."""
        ws = self._ws
        if ws is None:
            return False
        request = next(self._ids)
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._syncs[request] = waiter
        try:
            await ws.send(json.dumps({"type": "sync", "id": request}))
            await asyncio.wait_for(waiter, timeout)
            return True
        except (TimeoutError, ConnectionError, websockets.exceptions.WebSocketException):
            return False
        finally:
            self._syncs.pop(request, None)

    def _answer(self, frame: dict[str, Any]) -> None:
        """An ``ack``, an ``error`` or a ``synced``: what it answers is answered."""
        request = frame.get("id")
        if frame["type"] == "synced":
            waiter = self._syncs.get(request) if isinstance(request, int) else None
            if waiter is not None and not waiter.done():
                waiter.set_result(None)
            return
        if isinstance(request, int):
            self._unanswered.discard(request)
        if not self._unanswered:
            self._answered.set()

    def _lost(self) -> None:
        """The connection is gone: nothing said on it will be answered, no ``synced`` will come."""
        self._unanswered.clear()
        self._answered.set()
        for waiter in self._syncs.values():
            if not waiter.done():
                waiter.set_exception(ConnectionError("the negotiation link was lost"))

    def _welcomed(self, frame: dict[str, Any]) -> None:
        bot, position = self.session.bot, self.session.position
        bot.on_welcome(frame)
        if self._fresh and position is not None:
            bot.on_history([n for n in frame.get("notes") or () if isinstance(n, dict)], position)
        self._fresh = False
        self._history, self._mail = int(frame.get("mail") or 0), []
        if not self._history:
            self._ready.set()

    def _unseen(self) -> list[dict[str, Any]]:
        """The messages of the mail just read that the bot is given (see the module)."""
        mail, me = self._mail, self.session.power
        position = self.session.position
        phase = "" if position is None else str(position.phase)
        last_own = max((i for i, f in enumerate(mail) if f.get("from") == me), default=-1)
        unseen = []
        for i, f in enumerate(mail):
            if f.get("from") == me:
                self._spoke.add(str(f.get("phase")))
            elif int(f.get("seq") or 0) > self._seen and i > last_own and f.get("phase") == phase:
                unseen.append(f)
        self._seen = max([self._seen, *(int(f.get("seq") or 0) for f in mail)])
        return unseen

    async def _handle(self, frame: dict[str, Any]) -> None:
        if self._history > 0 and frame["type"] == "message":  # the mail, read whole first
            self._mail.append(frame)
            self._history -= 1
            if not self._history:
                unseen = self._unseen()
                self._ready.set()
                for message in unseen:
                    await self._given(message, live=False)
            return
        await self._given(frame)

    async def _given(self, frame: dict[str, Any], live: bool = True) -> None:
        bot, position = self.session.bot, self.session.position
        if position is None:
            return
        if frame["type"] == "error":
            self.errors.append(frame)
        if frame["type"] == "message":
            seq = int(frame.get("seq") or 0)
            if live and seq and seq <= self._seen:
                return  # handed already (live, or in the mail of a welcome): each message once, by its seq
            self._seen = max(self._seen, seq)
            try:
                message = parse(frame["text"])
            except LError:
                return
            said = await self._off_loop(bot.on_message, self.session.map.power(frame["from"]), message, position)
        elif frame["type"] != "ack":
            said = await self._off_loop(bot.on_event, frame, position)
        else:
            return
        if self.client is not None:
            await self.client.resubmit()
        await self.say(said)


async def play_negotiating(bot: Bot, url: str, nego_url: str, game: str | None = None, retries: int = 5) -> BotSession:
    """Play ``bot`` on the game server at ``url``, negotiating on ``nego_url`` (see the module)."""
    session = BotSession(bot)
    link = NegoLink(session, nego_url, retries)
    try:
        return await WsClient(session, url, game, before_orders=link.before_orders, retries=retries).run()
    finally:
        await link.close()

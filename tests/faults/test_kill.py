"""Both servers SIGKILLed at random moments of a bot game, as real processes on loopback (issue 15).

``detente serve`` and ``detente nego`` run as processes of their own (temporary data
directories, free ports). Seven bots of this process play one game over websockets: three
negotiate through :func:`bots.nego_client.play_negotiating`, four play through
:class:`bots.ws_client.WsClient`. Meanwhile a fault schedule, from a seeded generator,
waits a random pause, SIGKILLs the game server or the negotiation server (in turn), starts
it again at once on the same data directory and ports, and awaits its ``/healthz`` (200,
and for the negotiation server, following the game server again) within a deadline; 20
kills in all. The bots reconnect by themselves.

The kills begin once the three negotiators are welcomed on ``/nego``, so that each has
negotiated at least once. A hello that falls in an outage of the game server is answered
``unavailable`` and closed, and :class:`bots.nego_client.NegoLink` comes back; the bots
keep their default number of retries (5), since a connection that worked starts the count
again.

So that the kills fall across the game rather than after its end, one plain bot holds its
orders of each movement phase until its share of the kills is done: none in S1901M, 4 in
F1901M, 8 in S1902M, ... all 20 in F1903M (awaited events, not sleeps). The six others
play at once and sit connected, so that each kill of the game server drops them.

Checked: every kill's server answers ``/healthz`` again within the deadline; the game
ends with a result (``GET /api/games/{id}``); every order a bot saw acknowledged
(``THX`` with ``MBV``) is in the stored history (``GET /api/games/{id}/history``), in its
phase and for its power; every message the negotiation server acknowledged (``ack``) is
in its log (``GET /api/games/{id}/log``, admin token), from its sender.
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
import random
import signal
import socket
import sys
import time
import urllib.error
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

import engine.orders as eo
from bots import nego_client
from bots.nego_client import NegoLink, play_negotiating
from bots.registry import make_bot
from bots.session import BotSession
from bots.ws_client import WsClient
from engine.maps import standard_map
from engine.position import Phase
from protocol.daide.messages import Thx, Value
from protocol.daide.orders import DaideOrderError, order_to_engine
from protocol.l import LError, parse, to_text

M = standard_map()
TOKEN = "kill-admin-token"
SECRET = "kill-secret"
#: The seed of the fault schedule and of the bots (DETENTE_KILL_SEED=N to try another).
SEED = int(os.environ.get("DETENTE_KILL_SEED", "15"))
KILLS = 20
#: Seconds a restarted server has to answer /healthz (a cold Python start on a busy 2-core machine).
HEALTH_DEADLINE = 30.0
#: Seconds for the whole game, kills included.
GAME_DEADLINE = 150.0
#: Kills to be done before the gated bot orders in each movement phase (and the phases after it):
#: the 20 kills spread over the six movement phases of 1901-1903.
MOVEMENTS = ("S1901M", "F1901M", "S1902M", "F1902M", "S1903M", "F1903M")
GATES = tuple((Phase.parse(p), round(i * KILLS / (len(MOVEMENTS) - 1))) for i, p in enumerate(MOVEMENTS))
NEGOTIATORS = 3
MAX_BACKOFF = 0.5
#: Tries in a row, quick ones, enough to outlast the longest restart the test allows (a cold start on a
#: busy machine took more than the 2.5 s that 5 tries gave, and a bot gave up on a server coming back).
RETRIES = int(HEALTH_DEADLINE / MAX_BACKOFF) + 1


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def http(url: str, token: str | None = None, body: Any = None) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method="GET" if body is None else "POST")
    request.add_header("Content-Type", "application/json")
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, None


@dataclass
class Process:
    """A server process that can be killed and started again with the same command."""

    name: str
    command: list[str]
    health: str
    log: Path
    process: asyncio.subprocess.Process | None = None
    restarts: list[float] = field(default_factory=list)  # seconds from each start to a healthy /healthz

    async def start(self) -> None:
        with await asyncio.to_thread(self.log.open, "ab") as log:
            self.process = await asyncio.create_subprocess_exec(
                *self.command,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.DEVNULL,
                stderr=log,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
            )
        started = time.monotonic()
        await self.healthy()
        self.restarts.append(time.monotonic() - started)

    async def healthy(self) -> None:
        """Until ``/healthz`` answers 200 (and, for the negotiation server, it follows the game
        server); fails past :data:`HEALTH_DEADLINE` or if the process ends."""
        async with asyncio.timeout(HEALTH_DEADLINE):
            while True:
                assert self.process is not None and self.process.returncode is None, (
                    f"{self.name} ended (exit {self.process and self.process.returncode}): {self.tail()}"
                )
                try:
                    status, body = await asyncio.to_thread(http, self.health)
                except OSError:
                    status, body = 0, None
                if status == 200 and (not isinstance(body, dict) or body.get("following", True)):
                    return
                await asyncio.sleep(0.05)

    async def kill(self) -> None:
        assert self.process is not None
        assert self.process.returncode is None, f"{self.name} had ended by itself: {self.tail()}"
        self.process.send_signal(signal.SIGKILL)
        await self.process.wait()

    async def stop(self) -> None:
        if self.process is not None and self.process.returncode is None:
            self.process.send_signal(signal.SIGKILL)
            await self.process.wait()

    def tail(self) -> str:
        return self.log.read_text(errors="replace")[-3000:] if self.log.exists() else ""


@dataclass
class Record:
    """What the bots saw acknowledged, and the kills done."""

    orders: set[tuple[str, str, str]] = field(default_factory=set)  # (phase, power, order) seen with THX MBV
    said: dict[tuple[int, Any], tuple[str, str]] = field(default_factory=dict)  # (link, id) -> (sender, text)
    acked: list[tuple[str, str]] = field(default_factory=list)  # (sender, normal text) acknowledged
    links: list[NegoLink] = field(default_factory=list)  # the negotiators' links, as they are made
    links_made: asyncio.Event = field(default_factory=asyncio.Event)
    kills: int = 0
    kill_done: asyncio.Condition = field(default_factory=asyncio.Condition)


def recording_session(record: Record) -> type[BotSession]:
    class RecordingSession(BotSession):
        """A bot session that notes every order the server acknowledged, with its phase."""

        def receive(self, message: Value) -> list[Value]:
            if isinstance(message, Thx) and message.note == "MBV" and self.position is not None:
                try:
                    power, order = order_to_engine(message.order, self.map)
                except DaideOrderError:
                    power, order = "?", None
                text = eo.format_order(self.map, order) if order is not None else str(message.order)
                record.orders.add((str(self.position.phase), power, text))
            return super().receive(message)

    return RecordingSession


def recording_link(record: Record) -> type[NegoLink]:
    class RecordingLink(NegoLink):
        """A negotiation link that notes what it said and which of it was acknowledged."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            record.links.append(self)
            if len(record.links) == NEGOTIATORS:
                record.links_made.set()

        async def say(self, messages: Any) -> None:
            if self._ws is None:
                return
            assert self.session.power is not None
            sender = self.session.power
            for message in messages:
                text = message if isinstance(message, str) else to_text(message)
                request_id = next(self._ids)
                record.said[(id(self), request_id)] = (sender, text)
                await self._ws.send(json.dumps({"type": "say", "id": request_id, "text": text}))

        async def _handle(self, frame: dict[str, Any]) -> None:
            if frame.get("type") == "ack":
                said = record.said.get((id(self), frame.get("id")))
                assert said is not None, f"an ack of nothing said: {frame}"
                record.acked.append((said[0], normal(said[1])))
            await super()._handle(frame)

    return RecordingLink


def normal(text: str) -> str:
    try:
        return to_text(parse(text))
    except LError:
        return text


async def kill_schedule(game: Process, nego: Process, record: Record, over: asyncio.Event) -> None:
    """Kill the two servers in turn at random moments, each started again at once: from the
    moment every negotiator has said hello (a first hello the game server cannot check makes
    the client give up negotiating for the whole game: see the module)."""
    rng = random.Random(SEED)
    await record.links_made.wait()
    for link in record.links:
        assert await link.ready(), "a negotiator was not welcomed before any fault"
    for k in range(KILLS):
        pause = rng.uniform(0.1, 1.2)  # the fault schedule itself: when the next kill falls
        try:
            await asyncio.wait_for(over.wait(), pause)
        except TimeoutError:
            pass
        target = game if k % 2 == 0 else nego
        await target.kill()
        await target.start()
        async with record.kill_done:
            record.kills += 1
            record.kill_done.notify_all()


async def test_both_servers_sigkilled_20_times_in_a_bot_game_lose_nothing_acknowledged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_port, daide_port, nego_port = free_port(), free_port(), free_port()
    base, nego_base = f"http://127.0.0.1:{game_port}", f"http://127.0.0.1:{nego_port}"
    py = [sys.executable, "-m", "detente"]
    common = ["--host", "127.0.0.1", "--admin-token", TOKEN, "--secret", SECRET]
    game = Process(
        "the game server",
        [*py, "serve", "--port", str(game_port), "--daide-port", str(daide_port), "--data-dir", str(tmp_path / "game")]
        + [*common, "--deadlines", "none"],
        f"{base}/healthz",
        tmp_path / "game.log",
    )
    nego = Process(
        "the negotiation server",
        [*py, "nego", "--game-server", base, "--port", str(nego_port), "--data-dir", str(tmp_path / "nego"), *common],
        f"{nego_base}/healthz",
        tmp_path / "nego.log",
    )
    record = Record()
    # the real negotiating client, with a session and a link that note what was acknowledged,
    # and reconnections quick enough for a server started again at once
    monkeypatch.setattr(nego_client, "BotSession", recording_session(record))
    monkeypatch.setattr(nego_client, "NegoLink", recording_link(record))
    monkeypatch.setattr(nego_client, "WsClient", functools.partial(WsClient, max_backoff=MAX_BACKOFF))
    over = asyncio.Event()
    schedule: asyncio.Task[None] | None = None
    try:
        await game.start()
        await nego.start()
        status, created = await asyncio.to_thread(
            http, f"{base}/api/games", TOKEN, {"name": "kill", "deadlines": None, "year_limit": 1903}
        )
        assert status == 201, created
        game_id = str(created["id"])
        ws, nego_ws = f"ws://127.0.0.1:{game_port}/daide", f"ws://127.0.0.1:{nego_port}/nego"

        async def gate(client: WsClient) -> None:
            position = client.session.position
            assert position is not None
            needed = max((n for first, n in GATES if position.phase >= first), default=0)
            async with record.kill_done:
                await record.kill_done.wait_for(lambda: record.kills >= needed)

        plain = [
            WsClient(
                recording_session(record)(make_bot("randombot", seed=SEED + i)),
                ws,
                game_id,
                before_orders=gate if i == 0 else None,
                retries=RETRIES,
                max_backoff=MAX_BACKOFF,
            )
            for i in range(4)
        ]
        negotiators = [
            play_negotiating(make_bot("randomnegotiator", seed=SEED + 10 + i), ws, nego_ws, game_id, retries=RETRIES)
            for i in range(NEGOTIATORS)
        ]
        schedule = asyncio.create_task(kill_schedule(game, nego, record, over))
        async with asyncio.timeout(GAME_DEADLINE):
            sessions = await asyncio.gather(*(c.run() for c in plain), *negotiators)
        over.set()
        await schedule

        assert record.kills == KILLS
        for session in sessions:
            assert session.result is not None, f"{session.power} saw no end of the game"
            assert not session.rejected, session.rejected
        status, info = await asyncio.to_thread(http, f"{base}/api/games/{game_id}")
        assert status == 200 and info["result"], info
        status, history = await asyncio.to_thread(http, f"{base}/api/games/{game_id}/history")
        assert status == 200
        stored = {
            (h["phase"], M.power(power), order)  # the API names the powers by their full names
            for h in history["phases"]
            for power, given in h["orders"].items()
            for order in given
        }
        assert record.orders, "no order was acknowledged"
        lost = sorted(record.orders - stored)
        assert not lost, f"orders acknowledged with THX but not in the stored history: {lost}"
        status, log = await asyncio.to_thread(http, f"{nego_base}/api/games/{game_id}/log", TOKEN)
        assert status == 200, log
        logged = Counter((r["sender"], normal(r["text"])) for r in log["records"] if r.get("kind") == "message")
        assert record.acked, "no negotiation message was acknowledged"
        missing = Counter(record.acked) - logged
        assert not missing, f"messages acknowledged but not in the negotiation log: {sorted(missing)}"
        # nothing said twice across the restarts: no answer again, no phase opened again
        each = Counter(
            (r["phase"], r["sender"], tuple(r["to"]), normal(r["text"])) for r in log["records"] if r.get("kind") == "message"
        )
        assert not [m for m, n in each.items() if n > 1], [m for m, n in each.items() if n > 1]
        for server in (game, nego):
            assert len(server.restarts) == 1 + KILLS // 2
            assert max(server.restarts) < HEALTH_DEADLINE
        print(  # shown with -s: what the run covered
            f"{record.kills} kills; {len(history['phases'])} phases; {len(record.orders)} orders acknowledged; "
            f"{len(record.acked)} messages acknowledged of {len(record.said)} said; game connections "
            f"{[c.connections for c in plain]}; restarts to healthy, max s: game {max(game.restarts):.2f}, "
            f"nego {max(nego.restarts):.2f}"
        )
    finally:
        over.set()
        if schedule is not None and not schedule.done():
            schedule.cancel()
            await asyncio.gather(schedule, return_exceptions=True)
        await game.stop()
        await nego.stop()


async def test_a_variant_game_sigkilled_keeps_its_map_and_every_order(tmp_path: Path) -> None:
    """A game of France against Austria, the game server SIGKILLed and started again four times:
    each time the game comes back on its own map, with every acknowledged order. Budget: about 15 s."""
    kills, movements = 4, ("S1901M", "F1901M", "S1902M", "F1902M", "S1903M")
    gates = tuple((Phase.parse(p), i) for i, p in enumerate(movements))
    game_port, daide_port = free_port(), free_port()
    base = f"http://127.0.0.1:{game_port}"
    game = Process(
        "the game server",
        [sys.executable, "-m", "detente", "serve", "--port", str(game_port), "--daide-port", str(daide_port)]
        + ["--data-dir", str(tmp_path / "game"), "--host", "127.0.0.1", "--admin-token", TOKEN, "--deadlines", "none"],
        f"{base}/healthz",
        tmp_path / "game.log",
    )
    record = Record()
    try:
        await game.start()
        body = {"name": "variant kill", "deadlines": None, "year_limit": 1903, "map": "france_austria"}
        status, created = await asyncio.to_thread(http, f"{base}/api/games", TOKEN, body)
        assert status == 201, created
        game_id = str(created["id"])
        maps_seen: list[str] = []

        async def gate(client: WsClient) -> None:
            # Austria's bot orders each movement phase only once that phase's kills are done
            position = client.session.position
            assert position is not None
            needed = max((n for first, n in gates if position.phase >= first), default=0)
            while record.kills < needed:
                await game.kill()
                await game.start()
                status, info = await asyncio.to_thread(http, f"{base}/api/games/{game_id}")
                assert status == 200, info
                maps_seen.append(info["settings"]["map"])
                record.kills += 1

        clients = [
            WsClient(
                recording_session(record)(make_bot("randombot", seed=SEED + i)),
                f"ws://127.0.0.1:{game_port}/daide",
                game_id,
                before_orders=gate if i == 0 else None,
                retries=RETRIES,
                max_backoff=MAX_BACKOFF,
            )
            for i in range(2)
        ]
        async with asyncio.timeout(GAME_DEADLINE):
            sessions = await asyncio.gather(*(c.run() for c in clients))
        assert record.kills == kills and maps_seen == ["france_austria"] * kills
        assert {s.power for s in sessions} == {"AUS", "FRA"} and all(s.map.name == "france_austria" for s in sessions)
        assert all(s.result is not None for s in sessions)
        status, history = await asyncio.to_thread(http, f"{base}/api/games/{game_id}/history")
        assert status == 200
        board = sessions[0].map
        stored = {
            (h["phase"], board.power(power), order)
            for h in history["phases"]
            for power, given in h["orders"].items()
            for order in given
        }
        lost = sorted(record.orders - stored)
        assert record.orders and not lost, f"orders acknowledged with THX but not in the stored history: {lost}"
    finally:
        await game.stop()

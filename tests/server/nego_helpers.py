"""The negotiation server's tests: a real game server and negotiation server on loopback,
seven DAIDE players, and JSON clients of ``/nego``."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import websockets

from server.nego.main import serve_nego
from server.nego.settings import load_nego_settings
from tests.server.test_app import seven
from tests.server.ws_helpers import TIMEOUT, TOKEN, DaideClient, Running, http, running_server

SECRET = "s3cret"  # the one running_server gives the game server


@dataclass
class Pair:
    game: Running
    nego_port: int

    @property
    def nego(self) -> str:
        return f"ws://127.0.0.1:{self.nego_port}/nego"

    @property
    def nego_http(self) -> str:
        return f"http://127.0.0.1:{self.nego_port}"


@contextlib.asynccontextmanager
async def running_nego(game: Running, db: Path, **values: Any) -> AsyncIterator[int]:
    """A negotiation server following ``game``, until the block ends; ``values`` are settings
    besides the test's own."""
    settings, _ = load_nego_settings(
        {"game_server": game.http, "port": 0, "db": str(db), "secret": SECRET, "admin_token": TOKEN} | values, {}
    )
    started: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    stop = asyncio.Event()
    task = asyncio.create_task(serve_nego(settings, lambda host, port: started.set_result(port), stop))
    port = await asyncio.wait_for(started, TIMEOUT)
    try:
        await following(port)
        yield port
    finally:
        stop.set()
        await asyncio.wait_for(task, TIMEOUT)


async def following(port: int) -> None:
    """Wait until the negotiation server follows the game server (``/healthz`` says so)."""
    async with asyncio.timeout(TIMEOUT):
        while not (await http("GET", f"http://127.0.0.1:{port}/healthz"))[1]["following"]:
            await asyncio.sleep(0.02)


@contextlib.asynccontextmanager
async def running_pair(tmp_path: Path) -> AsyncIterator[Pair]:
    async with running_server(tmp_path) as game, running_nego(game, tmp_path / "nego.sqlite3") as port:
        yield Pair(game, port)


class JsonClient:
    """A websocket of JSON frames: frames read but not yet expected wait in ``buffer``."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.buffer: list[dict[str, Any]] = []

    async def send(self, frame: dict[str, Any]) -> None:
        await self.ws.send(json.dumps(frame))

    async def expect(self, match: Any, **fields: Any) -> dict[str, Any]:
        """The first frame of type ``match`` (with these fields), or for which ``match(frame)``."""

        def fits(frame: dict[str, Any]) -> bool:
            if callable(match):
                return bool(match(frame))
            return frame.get("type") == match and all(frame.get(k) == v for k, v in fields.items())

        for i, frame in enumerate(self.buffer):
            if fits(frame):
                return self.buffer.pop(i)
        async with asyncio.timeout(TIMEOUT):
            while True:
                frame = json.loads(await self.ws.recv())
                if fits(frame):
                    return frame
                self.buffer.append(frame)


class NegoClient(JsonClient):
    """A ``/nego`` client of one power."""

    def __init__(self, ws: Any, power: str) -> None:
        super().__init__(ws)
        self.power = power
        self._ids = 0

    @classmethod
    async def open(cls, pair: Pair, game: str | None, power: str, session: str) -> NegoClient:
        client = cls(await websockets.connect(pair.nego, open_timeout=TIMEOUT), power)
        hello = {"type": "hello", "power": power, "session": session}
        await client.send(hello if game is None else {**hello, "game": game})
        return client

    async def say(self, text: str) -> dict[str, Any]:
        """Say ``text`` and return the answer (``ack`` or ``error``)."""
        self._ids += 1
        await self.send({"type": "say", "id": self._ids, "text": text})
        return await self.answer(self._ids)

    async def answer(self, request_id: int) -> dict[str, Any]:
        return await self.expect(lambda f: f.get("type") in ("ack", "error") and f.get("id") == request_id)

    async def drain(self) -> list[dict[str, Any]]:
        """What has arrived so far (after a round trip, so that nothing is in flight from before)."""
        await self.sync()
        frames, self.buffer = self.buffer, []
        return frames

    async def sync(self) -> dict[str, Any]:
        """Ask for ``synced`` and wait for it: what the server queued for this client before is read."""
        self._ids += 1
        await self.send({"type": "sync", "id": self._ids})
        return await self.expect("synced", id=self._ids)

    async def close(self) -> None:
        await self.ws.close()


async def press_game(pair: Pair, **settings: Any) -> tuple[str, dict[str, DaideClient]]:
    """A new game with these settings, seven DAIDE players seated: its id and the players by power."""
    body = {"name": "nego", "deadlines": None, **settings}
    status, created = await http("POST", f"{pair.game.http}/api/games", body, token=TOKEN)
    assert status == 201, created
    players = await seven(f"{pair.game.ws}?game={created['id']}")
    return str(created["id"]), {str(p.power): p for p in players}


async def negotiators(pair: Pair, game: str, players: dict[str, DaideClient], *powers: str) -> dict[str, NegoClient]:
    """``/nego`` clients for these powers, welcomed."""
    clients = {}
    for power in powers:
        session = players[power].session
        assert session is not None
        client = await NegoClient.open(pair, game, power, session)
        welcome = await client.expect("welcome")
        assert welcome["power"] == power
        clients[power] = client
    return clients

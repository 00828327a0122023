"""The web page's tests: a real game server (which serves the page) and negotiation server on loopback."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from server.main import HouseFactory, serve
from server.nego.main import serve_nego
from server.nego.settings import load_nego_settings
from server.settings import load_settings
from tests.server.nego_helpers import following
from tests.server.ws_helpers import TIMEOUT, TOKEN, http

SECRET = "s3cret"


@dataclass
class Web:
    """Where the servers of :func:`running_web` listen."""

    port: int
    nego_port: int | None

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}/daide"

    @property
    def nego(self) -> str:
        return f"ws://127.0.0.1:{self.nego_port}/nego"


def free_port() -> int:
    """A loopback port free now: the negotiation server's, which the game server must know before either starts."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.asynccontextmanager
async def running_web(tmp_path: Path, nego: bool = True, house: HouseFactory | None = None) -> AsyncIterator[Web]:
    """A game server serving the page (and, with ``nego``, a negotiation server following it), stopped
    after; ``house`` plays the server's bots."""
    nego_port = free_port() if nego else None
    values: dict[str, Any] = {
        "port": 0,
        "daide_port": 0,
        "db": str(tmp_path / "game.sqlite3"),
        "admin_token": TOKEN,
        "secret": SECRET,
        "deadlines": "none",
    }
    if nego_port is not None:
        values["nego_url"] = f"http://127.0.0.1:{nego_port}"
    settings, _ = load_settings(values, {})
    loop = asyncio.get_running_loop()
    started: asyncio.Future[int] = loop.create_future()
    stop = asyncio.Event()
    task = asyncio.create_task(serve(settings, lambda host, port: started.set_result(port), stop, house=house))
    port = await asyncio.wait_for(started, TIMEOUT)
    try:
        if nego_port is None:
            yield Web(port, None)
            return
        nego_settings, _ = load_nego_settings(
            {
                "game_server": f"http://127.0.0.1:{port}",
                "port": nego_port,
                "db": str(tmp_path / "nego.sqlite3"),
                "secret": SECRET,
                "admin_token": TOKEN,
            },
            {},
        )
        nego_started: asyncio.Future[int] = loop.create_future()
        nego_stop = asyncio.Event()
        nego_task = asyncio.create_task(
            serve_nego(nego_settings, lambda host, p: nego_started.set_result(p), nego_stop)
        )
        try:
            await asyncio.wait_for(nego_started, TIMEOUT)
            await following(nego_port)
            yield Web(port, nego_port)
        finally:
            nego_stop.set()
            await asyncio.wait_for(nego_task, TIMEOUT)
    finally:
        stop.set()
        await asyncio.wait_for(task, TIMEOUT)


async def create_game(web: Web, **settings: Any) -> str:
    """A new game (no deadlines unless given): its id."""
    body = {"name": "web", "deadlines": None, **settings}
    status, created = await http("POST", f"{web.http}/api/games", body, token=TOKEN)
    assert status == 201, created
    return str(created["id"])

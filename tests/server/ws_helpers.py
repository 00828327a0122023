"""A small DAIDE websocket client for the server tests: send text, await the messages expected."""

from __future__ import annotations

import asyncio
import contextlib
import json
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import websockets

from protocol.daide.framing import IM_TIMEOUT
from protocol.daide.messages import Adm, DaideUnit, Hlo, Hold, Now, Sub
from protocol.daide.parser import parse
from server.main import HouseFactory, serve
from server.settings import load_settings

TIMEOUT = 15.0
TOKEN = "test-admin-token"


@dataclass
class Running:
    """A server started by :func:`running_server`: where to reach it."""

    port: int
    daide_port: int
    db: Path

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}/daide"

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@contextlib.asynccontextmanager
async def running_server(
    tmp_path: Path, im_timeout: float = IM_TIMEOUT, house: HouseFactory | None = None, **values: Any
) -> AsyncIterator[Running]:
    """A real server (uvicorn and the DAIDE listener) on free loopback ports, stopped after;
    ``values`` are settings besides the test's own (limits, allowed hosts, ...); ``house``
    plays its bots."""
    db = tmp_path / "d.sqlite3"
    settings, _ = load_settings(
        {
            "port": 0,
            "daide_port": 0,
            "db": str(db),
            "admin_token": TOKEN,
            "secret": "s3cret",
            "deadlines": "none",
        }
        | values,
        {},
    )
    loop = asyncio.get_running_loop()
    started: asyncio.Future[int] = loop.create_future()
    daide: asyncio.Future[int] = loop.create_future()
    stop = asyncio.Event()
    task = asyncio.create_task(
        serve(
            settings,
            lambda host, port: started.set_result(port),
            stop,
            daide_ready=lambda host, port: daide.set_result(port),
            daide_im_timeout=im_timeout,
            house=house,
        )
    )
    port = await asyncio.wait_for(started, TIMEOUT)
    try:
        yield Running(port, daide.result(), db)
    finally:
        stop.set()
        await asyncio.wait_for(task, TIMEOUT)


class BufferedClient:
    """A DAIDE client of either transport: messages read but not yet expected wait in
    ``buffer``; a transport supplies :meth:`receive_text`."""

    def __init__(self) -> None:
        self.buffer: list[str] = []
        self.power: str | None = None
        self.passcode: int | None = None
        self.session: str | None = None

    async def receive_text(self) -> str:
        raise NotImplementedError

    async def expect(self, prefix: str, timeout: float = TIMEOUT) -> str:
        """The first message starting with ``prefix`` (earlier ones stay buffered)."""
        for i, text in enumerate(self.buffer):
            if text.startswith(prefix):
                return self.buffer.pop(i)
        async with asyncio.timeout(timeout):
            while True:
                text = await self.receive_text()
                if text.startswith(prefix):
                    return text
                self.buffer.append(text)


class DaideClient(BufferedClient):
    """One websocket connection, one DAIDE message per text frame."""

    def __init__(self, ws: Any) -> None:
        super().__init__()
        self.ws = ws

    async def receive_text(self) -> str:
        text = await self.ws.recv()
        assert isinstance(text, str)
        return text

    @classmethod
    async def open(cls, url: str, local: str | None = None) -> DaideClient:
        """A client of ``url``, from the source address ``local`` if given (any of 127.0.0.0/8)."""
        extra = {} if local is None else {"local_addr": (local, 0)}
        return cls(await websockets.connect(url, open_timeout=TIMEOUT, **extra))

    async def send(self, text: str) -> None:
        await self.ws.send(text)

    async def until(self, prefix: str, timeout: float = TIMEOUT) -> list[str]:
        """Every message (buffered or new) up to and including the first starting with ``prefix``."""
        out: list[str] = []
        while self.buffer:
            text = self.buffer.pop(0)
            out.append(text)
            if text.startswith(prefix):
                return out
        async with asyncio.timeout(timeout):
            while True:
                text = await self.receive_text()
                out.append(text)
                if text.startswith(prefix):
                    return out

    async def join(self, name: str = "bot") -> None:
        """NME, then wait for YES, MAP (answered, as a client does) and the session token's ADM."""
        await self.send(f"NME ('{name}') ('1.0')")
        assert (await self.expect("YES")).startswith("YES (NME")
        await self.expect("MAP")
        await self.send("YES (MAP ('standard'))")
        adm = parse(await self.expect("ADM ('detente') ('session "))
        assert isinstance(adm, Adm) and adm.session is not None
        self.session = adm.session

    async def hello(self) -> None:
        """Wait for HLO and remember the power and passcode."""
        hlo = parse(await self.expect("HLO"))
        assert isinstance(hlo, Hlo)
        self.power, self.passcode = hlo.power, hlo.passcode

    def holds(self, now_text: str) -> tuple[str, int]:
        """``SUB`` holding every unit of this power listed in ``now_text``, and how many."""
        now = parse(now_text)
        assert isinstance(now, Now)
        units = [u for u in now.units if isinstance(u, DaideUnit) and u.power == self.power]
        return str(Sub(tuple(Hold(u) for u in units))), len(units)

    async def close(self) -> None:
        await self.ws.close()


async def http(method: str, url: str, body: Any = None, token: str | None = None) -> tuple[int, Any]:
    """A JSON request in a worker thread: the status and the decoded body."""

    def call() -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(url, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        if token is not None:
            request.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())

    return await asyncio.to_thread(call)

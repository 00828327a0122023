"""Attacks from the browser and from one address, on both servers on loopback: a page of another
site opening ``/daide`` or ``/nego`` (the ``Origin`` check), a DNS name rebound to the server's
address (the ``Host`` check), ``/metrics`` read without the admin token, and one address holding
every connection it can (the per-address cap; 127.0.0.2 attacks while 127.0.0.1 plays on). Each
attack is bounded and waits for what the server does (an answer, a close), never for a delay."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import websockets
from websockets.exceptions import InvalidStatus

from tests.server.nego_helpers import running_nego
from tests.server.ws_helpers import TIMEOUT, TOKEN, Running, running_server

SECRET = "s3cret"
FOREIGN = "http://evil.example"
ATTACKER = "127.0.0.2"


def game_server(tmp_path: Path, **values: Any) -> contextlib.AbstractAsyncContextManager[Running]:
    """A real game server on free loopback ports with these settings."""
    return running_server(tmp_path, **{"secret": SECRET, **values})


def nego_server(game: Running, tmp_path: Path, **values: Any) -> contextlib.AbstractAsyncContextManager[int]:
    """A negotiation server following ``game``, with these settings: its port."""
    return running_nego(game, tmp_path / "n.sqlite3", **values)


@pytest.fixture
async def pair(tmp_path: Path) -> AsyncIterator[tuple[Running, int]]:
    async with game_server(tmp_path) as game, nego_server(game, tmp_path) as nego:
        yield game, nego


async def ask(
    port: int, path: str, headers: dict[str, str] | None = None, *, upgrade: bool = False, method: str = "GET"
) -> tuple[int, dict[str, Any] | str]:
    """One raw request (a websocket handshake with ``upgrade``) from 127.0.0.1: the status and the
    body (JSON when it says so). ``Host`` is the server's own unless ``headers`` give another."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        lines = {"Host": f"127.0.0.1:{port}", **(headers or {})}
        if upgrade:
            lines |= {
                "Upgrade": "websocket",
                "Connection": "Upgrade",
                "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
                "Sec-WebSocket-Version": "13",
            }
        if method != "GET":
            lines |= {"Content-Length": "0"}
        head = f"{method} {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in lines.items()) + "\r\n"
        writer.write(head.encode())
        await writer.drain()
        async with asyncio.timeout(TIMEOUT):
            answer = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
            status = int(answer.split()[1])
            if status == 101:
                return status, ""
            fields = dict(line.split(": ", 1) for line in answer.split("\r\n")[1:] if ": " in line)
            fields = {k.lower(): v for k, v in fields.items()}
            body = (await reader.readexactly(int(fields.get("content-length", "0")))).decode()
        if fields.get("content-type", "").startswith("application/json"):
            return status, json.loads(body)
        return status, body
    finally:
        writer.close()


async def opens(url: str, origin: str | None = None, **kwargs: Any) -> bool:
    """Whether a websocket client (with this ``Origin``, or none) gets through the handshake."""
    try:
        ws = await websockets.connect(url, origin=origin, open_timeout=TIMEOUT, **kwargs)  # type: ignore[arg-type]
    except InvalidStatus:
        return False
    await ws.close()
    return True


# --- Origin ---------------------------------------------------------------------------------------


async def test_a_foreign_page_cannot_open_daide_but_the_servers_own_and_bots_can(pair: tuple[Running, int]) -> None:
    game, _ = pair
    status, body = await ask(game.port, "/daide", {"Origin": FOREIGN}, upgrade=True)
    assert status == 403 and isinstance(body, dict) and "origin" in body["error"]
    for origin in ("null", f"http://127.0.0.1:{game.port + 1}", f"https://127.0.0.1:{game.port}", "http://localhost"):
        assert not await opens(game.ws, origin)
    assert await opens(game.ws)  # no Origin: a bot, not a browser
    assert await opens(game.ws, f"http://127.0.0.1:{game.port}")  # the game page itself
    # the feed's own guard (the secret) still stands behind the origin check
    assert (await ask(game.port, "/internal/feed", {"Origin": FOREIGN}, upgrade=True))[0] == 403


async def test_a_foreign_page_cannot_open_nego_but_the_game_page_can(pair: tuple[Running, int]) -> None:
    game, nego = pair
    url = f"ws://127.0.0.1:{nego}/nego"
    status, body = await ask(nego, "/nego", {"Origin": FOREIGN}, upgrade=True)
    assert status == 403 and isinstance(body, dict) and "origin" in body["error"]
    assert not await opens(url, "http://127.0.0.1:1")
    assert await opens(url)
    assert await opens(url, f"http://127.0.0.1:{nego}")  # its own
    assert await opens(url, f"http://127.0.0.1:{game.port}")  # the game page, as detente play serves it
    assert await opens(url, f"http://localhost:{game.port}")  # the same page by its other loopback name


async def test_a_foreign_page_cannot_post_but_reads_stay_open(pair: tuple[Running, int]) -> None:
    game, _ = pair
    status, body = await ask(game.port, "/api/games", {"Origin": FOREIGN}, method="POST")
    assert status == 403 and isinstance(body, dict)
    assert (await ask(game.port, "/healthz", {"Origin": FOREIGN}))[0] == 200  # CORS keeps its body from the page


async def test_configured_origins_are_allowed(tmp_path: Path) -> None:
    async with game_server(tmp_path, allowed_origins="https://play.example, http://127.0.0.1:1") as game:
        assert await opens(game.ws, "https://play.example")
        assert await opens(game.ws, "http://127.0.0.1:1")
        assert not await opens(game.ws, FOREIGN)


# --- Host -----------------------------------------------------------------------------------------


async def test_a_rebound_dns_name_is_refused_on_both_servers(pair: tuple[Running, int]) -> None:
    game, nego = pair
    for port, path in ((game.port, "/api/games"), (game.port, "/"), (nego, "/healthz")):
        status, body = await ask(port, path, {"Host": f"evil.example:{port}"})
        assert status == 421 and isinstance(body, dict) and "evil.example" in body["error"]
    # same-origin for the page (Origin and Host agree), yet refused: the name is not the server's
    for port, path in ((game.port, "/daide"), (nego, "/nego")):
        evil = {"Host": f"evil.example:{port}", "Origin": f"http://evil.example:{port}"}
        assert (await ask(port, path, evil, upgrade=True))[0] == 421
    for host in (f"localhost:{game.port}", f"[::1]:{game.port}", "127.0.0.1"):
        assert (await ask(game.port, "/healthz", {"Host": host}))[0] == 200


async def test_any_host_when_told(tmp_path: Path) -> None:
    async with game_server(tmp_path, allowed_hosts="*") as game:
        assert (await ask(game.port, "/healthz", {"Host": "game.example"}))[0] == 200
    async with game_server(tmp_path, allowed_hosts="play.example") as game:
        assert (await ask(game.port, "/healthz", {"Host": "play.example:443"}))[0] == 200
        assert (await ask(game.port, "/healthz"))[0] == 421  # only the names given


# --- /metrics -------------------------------------------------------------------------------------


async def test_metrics_need_the_admin_token_on_both_servers(pair: tuple[Running, int]) -> None:
    game, nego = pair
    for port in (game.port, nego):
        status, body = await ask(port, "/metrics")
        assert status == 401 and isinstance(body, dict) and "token" in body["error"]
        assert (await ask(port, "/metrics", {"Authorization": "Bearer wrong"}))[0] == 401
        status, text = await ask(port, "/metrics", {"Authorization": f"Bearer {TOKEN}"})
        assert status == 200 and "# TYPE" in str(text)


async def test_public_metrics_when_told(tmp_path: Path) -> None:
    async with (
        game_server(tmp_path, public_metrics=True) as game,
        nego_server(game, tmp_path, public_metrics=True) as nego,
    ):
        for port in (game.port, nego):
            assert (await ask(port, "/metrics"))[0] == 200


# --- connections per address ----------------------------------------------------------------------


async def refused_connection(port: int, local: str) -> bytes:
    """Connect from ``local`` and read until the server closes: a refused connection's answer."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(local, 0))
    try:
        async with asyncio.timeout(TIMEOUT):
            return await reader.read()
    finally:
        writer.close()


async def test_one_address_cannot_hold_every_connection(tmp_path: Path) -> None:
    async with game_server(tmp_path, max_connections_per_address=3, request_timeout=30) as game:
        held = [await asyncio.open_connection("127.0.0.1", game.port, local_addr=(ATTACKER, 0)) for _ in range(3)]
        try:
            answer = await refused_connection(game.port, ATTACKER)
            assert answer.startswith(b"HTTP/1.1 503") and b"too many connections from this address" in answer
            # the honest client, from another address, plays on
            assert (await ask(game.port, "/healthz"))[0] == 200
            assert await opens(game.ws)
        finally:
            for _, writer in held:
                writer.close()


async def test_websockets_count_while_open_and_give_their_place_back(tmp_path: Path) -> None:
    async with game_server(tmp_path, max_connections_per_address=2) as game:
        sockets = [await websockets.connect(game.ws, local_addr=(ATTACKER, 0), open_timeout=TIMEOUT) for _ in range(2)]
        try:
            assert not await opens(game.ws, local_addr=(ATTACKER, 0))
            assert await opens(game.ws)  # 127.0.0.1
            await sockets.pop().close()
            # the server sees the close soon after; until then it may still refuse
            async with asyncio.timeout(TIMEOUT):
                while not await opens(game.ws, local_addr=(ATTACKER, 0)):
                    await asyncio.sleep(0.02)
        finally:
            for ws in sockets:
                await ws.close()


async def test_behind_a_trusted_proxy_the_forwarded_client_is_counted(tmp_path: Path) -> None:
    async with game_server(tmp_path, max_connections_per_address=2, trusted_proxy="127.0.0.1") as game:

        def through_proxy(client: str) -> dict[str, str]:
            return {"X-Forwarded-For": f"198.51.100.1, {client}"}  # the first is the client's own word

        sockets = [
            await websockets.connect(game.ws, additional_headers=through_proxy("203.0.113.9"), open_timeout=TIMEOUT)
            for _ in range(2)
        ]
        try:
            assert not await opens(game.ws, additional_headers=through_proxy("203.0.113.9"))
            assert await opens(game.ws, additional_headers=through_proxy("203.0.113.10"))
            assert await opens(game.ws)  # the proxy's own connections are not capped as one address
        finally:
            for ws in sockets:
                await ws.close()
    async with game_server(tmp_path, max_connections_per_address=2) as game:
        # no trusted proxy: X-Forwarded-For is anyone's word, and the peer is what counts
        sockets = [
            await websockets.connect(
                game.ws, local_addr=(ATTACKER, 0), additional_headers=through_proxy(f"203.0.113.{i}")
            )
            for i in range(2)
        ]
        try:
            assert not await opens(game.ws, local_addr=(ATTACKER, 0), additional_headers=through_proxy("203.0.113.7"))
        finally:
            for ws in sockets:
                await ws.close()

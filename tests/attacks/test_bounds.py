"""Attacks on the bounds of both servers, on loopback: oversize bodies and headers, a slowloris,
silent websockets, a flood of connections, and bad JSON. Each attack is bounded in count and
time, and waits for what the server does (an answer, a close), never for a guessed delay."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import websockets
from websockets.exceptions import ConnectionClosed, InvalidStatus

from server.nego.app import create_nego_app
from server.nego.service import NegoService
from server.store import Store
from server.web import Limits, run_app
from tests.server.ws_helpers import TIMEOUT, TOKEN, Running, http, running_server

SECRET = "s3cret"
QUICK = 0.5
"""The request and first-message timeouts of these servers: short, so the attacks end soon."""


def bounded_server(tmp_path: Path, **limits: Any) -> contextlib.AbstractAsyncContextManager[Running]:
    """A real game server on free loopback ports with short timeouts and these limits."""
    return running_server(
        tmp_path, **{"request_timeout": QUICK, "ws_first_message_timeout": QUICK, "secret": SECRET, **limits}
    )


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[Running]:
    async with bounded_server(tmp_path, max_body_bytes=8_192, max_header_bytes=4_096) as running:
        yield running


async def exchange(port: int, data: bytes, wait: float = TIMEOUT) -> tuple[bytes, float]:
    """Send ``data`` on a new connection and read until the server closes it: what came back and
    how long the close took. A server that keeps the connection past ``wait`` fails the test."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    begun = time.monotonic()
    try:
        writer.write(data)
        await writer.drain()
        async with asyncio.timeout(wait):
            answer = await reader.read()  # to the end: the server must close
        return answer, time.monotonic() - begun
    finally:
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()


def parsed(answer: bytes) -> tuple[int, dict[str, str], Any]:
    """The status, headers and JSON body of one HTTP/1.1 answer."""
    head, _, body = answer.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {name.strip().lower(): value.strip() for name, _, value in (line.partition(":") for line in lines)}
    return int(status_line.split()[1]), headers, json.loads(body)


def post(path: str, body: bytes, token: str | None = TOKEN, extra: str = "") -> bytes:
    auth = f"Authorization: Bearer {token}\r\n" if token else ""
    return (
        f"POST {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: application/json\r\n{auth}{extra}"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode() + body


def get(path: str) -> bytes:
    return f"GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".encode()


# --- bodies --------------------------------------------------------------------------------


async def test_an_oversize_body_is_refused_on_its_length_before_it_is_sent(server: Running) -> None:
    declared = 100 * 1024 * 1024
    head = (
        f"POST /api/games HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer {TOKEN}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {declared}\r\n\r\n"
    ).encode()
    answer, took = await exchange(server.port, head + b'{"name": ', wait=5)  # 9 bytes of 100 MiB
    status, headers, body = parsed(answer)
    assert status == 413 and "at most 8192 bytes" in body["error"] and headers["connection"] == "close"
    assert took < QUICK  # answered at once, not when the request timeout ended the wait for the rest


async def test_a_chunked_body_is_cut_off_at_the_limit(server: Running) -> None:
    head = (
        f"POST /api/games HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer {TOKEN}\r\n"
        "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
    ).encode()
    chunk = b"1000\r\n" + b" " * 4_096 + b"\r\n"
    answer, took = await exchange(server.port, head + chunk * 3, wait=5)  # 12 KiB, and the body never ends
    status, _, body = parsed(answer)
    assert status == 413 and "too large" in body["error"] and took < QUICK


@pytest.mark.parametrize(
    ("raw", "status", "words", "where"),
    [
        (b"[" * 4_000, 400, "nested too deeply", None),
        (b'{"name": "\xc0\xaf"}', 400, "not UTF-8", (1, 11)),
        (b'{"year_limit": ' + b"7" * 5_000 + b"}", 400, "too many digits", None),
        (b'{"deadlines": {"movement": NaN, "retreat": 1, "adjustment": 1}}', 400, "NaN", None),
        (b'{"deadlines": {"movement": Infinity, "retreat": 1, "adjustment": 1}}', 400, "Infinity", None),
        (b'{"deadlines": {"movement": 1e400, "retreat": 1, "adjustment": 1}}', 400, "out of range", None),
        (b'{"name":\n\n  "x",}', 400, "invalid JSON", (3, 7)),
        (b'{"deadlines": {"movement": 1e-300, "retreat": 1, "adjustment": 1}}', 422, "deadlines.movement", None),
        (b'{"year_limit": 100000000000000000000000}', 422, "year_limit", None),
        (b'{"reserved": {"FRANCE": "' + b"r" * 500 + b'"}}', 422, "reserved.FRANCE", None),
        (b'"a game"', 422, "body", None),
    ],
)
async def test_bad_json_gets_a_4xx_json_error(
    server: Running, raw: bytes, status: int, words: str, where: tuple[int, int] | None
) -> None:
    answer, _ = await exchange(server.port, post("/api/games", raw), wait=5)
    got, headers, body = parsed(answer)
    assert (got, headers["content-type"]) == (status, "application/json") and words in body["error"], body
    assert (body.get("line"), body.get("column")) == (where or (None, None))


async def test_the_web_pages_endpoints_answer_bad_input_with_a_4xx(server: Running) -> None:
    cases = [
        (post("/api/orders/check", b'{"game": "x", "power": "ENG", "text": "\xff"}', token=None), 400),
        (post("/api/english/render", b"[" * 3_000, token=None), 400),
        (post("/api/english/understand", b'{"sender": "ENG", "receiver": 1e999}', token=None), 400),
        (get("/api/games/%FF%00" + "x" * 3_000), 404),
        # a power is one of its game's map, so the game is looked up first (tests/web/test_web_api.py: 422)
        (get("/api/games/x/legal?power=%FF%00" + "Z" * 3_000), 404),
        (get("/api/games/" + "y" * 3_000 + "/history"), 404),
        (b"GET /api/games/\xff\xfe HTTP/1.1\r\nHost: localhost\r\n\r\n", 400),  # not ASCII: h11 refuses it
    ]
    for request, status in cases:
        answer, _ = await exchange(server.port, request, wait=5)
        got, _, body = parsed(answer)
        assert got == status and isinstance(body["error"], str) and len(body["error"]) <= 1_000, (request[:60], body)


# --- headers and slow clients ------------------------------------------------------------------


async def test_oversize_headers_get_a_400(server: Running) -> None:
    # more than max_header_bytes (4 KiB) with the headers still unfinished: h11 gives up
    answer, took = await exchange(
        server.port, b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Pad: " + b"p" * 8_192, wait=5
    )
    status, _, body = parsed(answer)
    assert status == 400 and "error" in body and took < QUICK


async def test_slowloris_clients_are_cut_off_while_healthz_answers(server: Running) -> None:
    async def slowloris() -> tuple[bytes, float]:
        # headers begun and never finished
        return await exchange(server.port, b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: ", wait=QUICK + 5)

    async def trickler() -> float:
        # a byte at a time, each before the last one is old: sending does not put the clock back
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        begun = time.monotonic()
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: ")
        async with asyncio.timeout(QUICK + 5):
            while not reader.at_eof():
                writer.write(b"a")
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(QUICK / 5):
                        await reader.read()
        writer.close()
        return time.monotonic() - begun

    attackers = [asyncio.create_task(slowloris()) for _ in range(20)]
    trickling = asyncio.create_task(trickler())
    for _ in range(3):  # the server answers others meanwhile
        status, body = await http("GET", f"{server.http}/healthz")
        assert status == 200 and body["status"] == "ok"
    for answer, took in await asyncio.gather(*attackers):
        status, _, body = parsed(answer)
        assert status == 408 and "too long" in body["error"] and QUICK * 0.9 <= took < QUICK + 3
    assert QUICK * 0.9 <= await trickling < QUICK + 3
    status, _ = await http("GET", f"{server.http}/healthz")
    assert status == 200


async def test_a_body_sent_too_slowly_ends_the_connection(server: Running) -> None:
    head = (
        f"POST /api/games HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer {TOKEN}\r\nContent-Length: 100\r\n\r\n"
    ).encode()
    answer, took = await exchange(server.port, head + b'{"name"', wait=QUICK + 5)
    assert answer == b"" and QUICK * 0.9 <= took < QUICK + 3  # closed; the application saw the client go


# --- websockets ----------------------------------------------------------------------------------


async def closed_code(ws: Any) -> int | None:
    """Read until the server closes ``ws``: its close code."""
    with pytest.raises(ConnectionClosed) as info:
        async with asyncio.timeout(QUICK + 5):
            while True:
                await ws.recv()
    return info.value.rcvd.code if info.value.rcvd is not None else None


async def test_a_silent_daide_websocket_is_closed_and_a_talking_one_is_not(server: Running) -> None:
    silent = await websockets.connect(server.ws, open_timeout=TIMEOUT)
    talker = await websockets.connect(server.ws, open_timeout=TIMEOUT)
    feed = await websockets.connect(
        f"ws://127.0.0.1:{server.port}/internal/feed",
        additional_headers={"Authorization": f"Bearer {SECRET}"},
        open_timeout=TIMEOUT,
    )
    try:
        await talker.send("NME ('chatty') ('1.0')")
        begun = time.monotonic()
        assert await closed_code(silent) == 1008
        assert QUICK * 0.9 <= time.monotonic() - begun < QUICK + 3
        # after the timer: the one that spoke is still served, and so is the feed, which is exempt
        await talker.send("NOT A MESSAGE")
        async with asyncio.timeout(TIMEOUT):
            while not (await talker.recv()).startswith(("HUH", "PRN")):
                pass
        await feed.send(json.dumps({"type": "auth", "id": 7, "power": "FRANCE", "session": "x"}))
        async with asyncio.timeout(TIMEOUT):
            while (answer := json.loads(await feed.recv())).get("id") != 7:
                pass
        assert answer["type"] == "auth" and answer["ok"] is False
    finally:
        for ws in (silent, talker, feed):
            await ws.close()


async def test_a_silent_nego_websocket_is_closed(server: Running, tmp_path: Path) -> None:
    store = Store.open(tmp_path / "nego.sqlite3")
    service = NegoService(store, server.http, SECRET)
    app = create_nego_app(service, TOKEN, limits=Limits(ws_first_message_timeout=QUICK, request_timeout=QUICK))
    started: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    stop = asyncio.Event()
    task = asyncio.create_task(run_app(app, "127.0.0.1", 0, lambda host, port: started.set_result(port), stop))
    try:
        port = await asyncio.wait_for(started, TIMEOUT)
        silent = await websockets.connect(f"ws://127.0.0.1:{port}/nego", open_timeout=TIMEOUT)
        begun = time.monotonic()
        assert await closed_code(silent) == 1008 and time.monotonic() - begun < QUICK + 3
        answer, _ = await exchange(port, b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: ", wait=QUICK + 5)
        assert parsed(answer)[0] == 408
    finally:
        stop.set()
        await asyncio.wait_for(task, TIMEOUT)
        store.close()


# --- connections ------------------------------------------------------------------------------------


async def test_connections_over_the_cap_are_refused_at_once(tmp_path: Path) -> None:
    async with bounded_server(tmp_path, max_connections=4, request_timeout=30, ws_first_message_timeout=30) as server:
        held = [await asyncio.open_connection("127.0.0.1", server.port) for _ in range(3)]
        ws = await websockets.connect(server.ws, open_timeout=TIMEOUT)  # the fourth: websockets count too
        await ws.send("NME ('player') ('1')")  # a player: never shed to make room
        async with asyncio.timeout(TIMEOUT):
            assert (await ws.recv()).startswith("YES (NME")
        try:
            answer, took = await exchange(server.port, get("/healthz"), wait=5)
            status, _, body = parsed(answer)
            assert status == 503 and "too many connections" in body["error"] and took < 1
            with pytest.raises(InvalidStatus) as refused:
                await websockets.connect(server.ws, open_timeout=TIMEOUT)
            assert refused.value.response.status_code == 503
        finally:
            for _, writer in held:
                writer.close()
            await ws.close()
        # once they are gone, others are served again (the server notices the closes as it runs)
        async with asyncio.timeout(TIMEOUT):
            while (await http("GET", f"{server.http}/healthz"))[0] != 200:
                pass


async def test_daide_tcp_connections_are_capped_per_address_and_in_total(tmp_path: Path) -> None:
    """The DAIDE port holds to the same caps as the websockets (counted apart): a connection
    beyond is closed before anything is read, and the others are served."""
    async with bounded_server(tmp_path, max_connections=4, max_connections_per_address=2) as server:
        attacker = [
            await asyncio.open_connection("127.0.0.1", server.daide_port, local_addr=("127.0.0.2", 0)) for _ in range(3)
        ]
        # the third from that address is closed at once: EOF without a byte
        async with asyncio.timeout(TIMEOUT):
            assert await attacker[2][0].read() == b""
        others = [
            await asyncio.open_connection("127.0.0.1", server.daide_port, local_addr=(f"127.0.0.{3 + i}", 0))
            for i in range(3)
        ]
        async with asyncio.timeout(TIMEOUT):
            assert await others[2][0].read() == b""  # the fifth in all: over max_connections
        # the ones within the caps are still open: they get the IM timer's EM, not a close, later
        for reader, _ in [*attacker[:2], *others[:2]]:
            assert not reader.at_eof()
        for _, writer in [*attacker, *others]:
            writer.close()


async def test_a_full_server_sheds_its_oldest_observer_for_a_player_and_never_a_player(tmp_path: Path) -> None:
    """Observers (and connections that never joined) make room when the server is full: the
    oldest goes, the newcomer is served, and a seated player is never among those shed."""
    async with bounded_server(tmp_path, max_connections=3, ws_first_message_timeout=30) as server:
        player = await websockets.connect(server.ws, open_timeout=TIMEOUT)
        await player.send("NME ('player') ('1')")
        async with asyncio.timeout(TIMEOUT):
            assert (await player.recv()).startswith("YES (NME")
        watchers = []
        for i in range(2):
            watcher = await websockets.connect(server.ws, open_timeout=TIMEOUT, local_addr=(f"127.0.3.{i + 1}", 0))
            await watcher.send("OBS")
            async with asyncio.timeout(TIMEOUT):
                assert await watcher.recv() == "YES (OBS)"
            watchers.append(watcher)
        # full: a newcomer is served, and the oldest observer is closed for it
        newcomer = await websockets.connect(server.ws, open_timeout=TIMEOUT, local_addr=("127.0.4.1", 0))
        await newcomer.send("NME ('late') ('1')")
        async with asyncio.timeout(TIMEOUT):
            assert (await newcomer.recv()).startswith("YES (NME")
            await watchers[0].wait_closed()
        assert watchers[1].state is websockets.State.OPEN and player.state is websockets.State.OPEN
        for ws in (player, watchers[1], newcomer):
            await ws.close()

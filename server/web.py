"""What both servers share on the web side: running an app with uvicorn, draining a queue
into a websocket, and checking a bearer token."""

from __future__ import annotations

import asyncio
import contextlib
import hmac
from collections.abc import Awaitable, Callable
from typing import Any

import uvicorn
from starlette.requests import Request
from starlette.websockets import WebSocket

__all__ = ["MAX_FRAME_BYTES", "authorised", "drain", "run_app"]

MAX_FRAME_BYTES = 65_536
"""The websocket frame limit given to uvicorn (``ws_max_size``)."""


async def run_app(
    app: Any,
    host: str,
    port: int,
    ready: Callable[[str, int], None] | None = None,
    stop: asyncio.Event | None = None,
    started: Callable[[], Awaitable[None]] | None = None,
) -> None:
    """Serve ``app`` until a signal or ``stop``; once it listens, await ``started()`` and then
    call ``ready(host, port)``. A port that cannot be bound raises ``OSError``."""
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        ws_max_size=MAX_FRAME_BYTES,
        ws_ping_interval=20.0,
        ws_ping_timeout=20.0,
        log_level="warning",
        access_log=False,
        lifespan="on",
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            await task  # it failed to start: raise its error
            return
        await asyncio.sleep(0.01)
    if started is not None:
        await started()
    bound_host, bound_port = server.servers[0].sockets[0].getsockname()[:2]
    if ready is not None:
        ready(bound_host, bound_port)
    if stop is not None:
        waiter = asyncio.create_task(stop.wait())
        await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
        server.should_exit = True
        waiter.cancel()
    await task


async def drain(
    websocket: WebSocket, outbox: asyncio.Queue[Any], encode: Callable[[Any], str], dropped: Callable[[], bool]
) -> None:
    """Send what ``outbox`` holds (each item through ``encode``) until ``None`` comes, then
    close: with 1008 (policy) when the connection was ``dropped()``, 1000 otherwise."""
    try:
        while (item := await outbox.get()) is not None:
            await websocket.send_text(encode(item))
    except Exception:  # the client went away; the reader notices it too
        pass
    finally:
        with contextlib.suppress(Exception):
            await websocket.close(code=1008 if dropped() else 1000)


def authorised(request: Request | WebSocket, token: str) -> bool:
    """Whether the request carries ``Authorization: Bearer <token>``."""
    header = request.headers.get("authorization", "")
    scheme, _, given = header.partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), token.encode())

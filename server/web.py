"""What both servers share on the web side: running an app with uvicorn and as a command,
its lifespan, draining a queue into a websocket, and checking a bearer token."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import hmac
import logging
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import structlog
import uvicorn
from starlette.requests import Request
from starlette.websockets import WebSocket

__all__ = [
    "MAX_FRAME_BYTES",
    "Outbox",
    "authorised",
    "configure_logging",
    "drain",
    "lifespan",
    "run_app",
    "run_command",
    "stop_writer",
]

Settings = TypeVar("Settings")
Item = TypeVar("Item")
DEFAULT_QUEUE_SIZE = 256


@dataclass(eq=False, kw_only=True)
class Outbox(Generic[Item]):
    """What a transport sends one client: a bounded queue, where ``None`` means "close".

    A client that does not read is dropped, not waited for: when the queue is full, what
    is queued is discarded and the connection closes, so one slow client never holds up a
    game or the others.
    """

    outbox: asyncio.Queue[Item | None] = field(default_factory=lambda: asyncio.Queue(DEFAULT_QUEUE_SIZE))
    closed: bool = False
    dropped: bool = False

    def put(self, item: Item) -> None:
        """Queue an item; a full queue drops the connection."""
        if self.closed:
            return
        try:
            self.outbox.put_nowait(item)
        except asyncio.QueueFull:
            self.drop()

    def close(self) -> None:
        """Close after what is queued has been sent (or at once if the queue is full)."""
        if self.closed:
            return
        self.closed = True
        try:
            self.outbox.put_nowait(None)
        except asyncio.QueueFull:
            self.drop()

    def drop(self) -> None:
        """Close now, discarding what is queued."""
        self.closed = True
        self.dropped = True
        while not self.outbox.empty():
            self.outbox.get_nowait()
        self.outbox.put_nowait(None)


_configured = False


def configure_logging(json_logs: bool | None = None, level: int = logging.INFO) -> None:
    """Configure structlog once: JSON lines when stderr is not a terminal, readable ones when it is."""
    global _configured
    if _configured:
        return
    _configured = True
    if json_logs is None:
        json_logs = not sys.stderr.isatty()
    renderer: Any = structlog.processors.JSONRenderer() if json_logs else structlog.dev.ConsoleRenderer()
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=True,
    )


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
        # frames are a few hundred bytes: deflate saves little and costs a good part of a send
        ws_per_message_deflate=False,
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
    # what startup made lives as long as the server: keep the collector from walking it again
    gc.freeze()
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


def lifespan(
    start: Callable[[], Awaitable[None]], stop: Callable[[], Awaitable[None]], manage: bool = True
) -> Callable[[Any], contextlib.AbstractAsyncContextManager[None]]:
    """A Starlette lifespan that starts a service and stops it (neither, unless ``manage``)."""

    @contextlib.asynccontextmanager
    async def span(app: Any) -> AsyncIterator[None]:
        if manage:
            await start()
        try:
            yield
        finally:
            if manage:
                await stop()

    return span


async def stop_writer(writer: asyncio.Task[None], outbox: asyncio.Queue[Any]) -> None:
    """Wake the task draining ``outbox`` with ``None`` (close), give it a moment to send what
    is queued, then cancel it."""
    with contextlib.suppress(asyncio.QueueFull):
        outbox.put_nowait(None)
    with contextlib.suppress(Exception):
        await asyncio.wait_for(writer, timeout=5)
    writer.cancel()


def run_command(
    name: str,
    load: Callable[[], tuple[Settings, list[str]]],
    serve: Callable[[Settings, Callable[[str, int], None]], Coroutine[Any, Any, None]],
) -> int:
    """A server as a command: load the settings (exit 2 when they are bad), print generated
    credentials once, configure the logs, serve until interrupted (exit 1 when the store or
    the port cannot be used). ``serve`` gets the settings and the ``ready`` callback that
    prints ``listening on http://HOST:PORT``."""
    from server.settings import SettingsError  # the settings import the API models: not for every user of this module
    from server.store import StoreError

    try:
        settings, messages = load()
    except SettingsError as exc:
        print(f"detente {name}: {exc}", file=sys.stderr)
        return 2
    for message in messages:
        print(f"detente: {message}", flush=True)
    configure_logging()

    def ready(host: str, port: int) -> None:
        print(f"detente: listening on http://{host}:{port}", flush=True)

    try:
        asyncio.run(serve(settings, ready))
    except StoreError as exc:
        print(f"detente {name}: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:  # a port in use, an address not on this machine
        print(f"detente {name}: cannot listen: {exc.strerror or exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        pass
    return 0

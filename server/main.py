"""``detente serve``: settings, store, service and application, run by uvicorn in this process.

:func:`serve` is what the command runs and what the tests run in their own event loop;
it calls ``ready(host, port)`` once the socket listens (the command prints
``listening on http://HOST:PORT`` then, which is the line to wait for). The DAIDE binary
TCP listener (:mod:`server.daide_tcp`) starts just before, on ``settings.daide_port``, and
``daide_ready(host, port)`` tells where (the command prints ``DAIDE on tcp://HOST:PORT``).
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import structlog

from protocol.daide.framing import IM_TIMEOUT
from server.app import create_app
from server.daide_tcp import DaideTcpListener
from server.service import GameService
from server.settings import ServerSettings, SettingsError, load_settings
from server.store import Store, StoreError
from server.web import run_app

__all__ = ["add_serve_arguments", "configure_logging", "run", "serve"]

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


async def serve(
    settings: ServerSettings,
    ready: Callable[[str, int], None] | None = None,
    stop: asyncio.Event | None = None,
    *,
    daide_ready: Callable[[str, int], None] | None = None,
    daide_im_timeout: float = IM_TIMEOUT,
) -> None:
    """Run the server until it is told to stop (a signal, or ``stop`` being set).

    A port that cannot be bound (HTTP or DAIDE) raises ``OSError``.
    """
    logger = structlog.get_logger("detente.server")
    store = await asyncio.to_thread(Store.open, settings.db)
    listener: DaideTcpListener | None = None
    try:
        service = GameService(store, settings.open_game("open game"))
        listener = tcp = DaideTcpListener(service, settings.host, settings.daide_port, im_timeout=daide_im_timeout)
        # A port that cannot be bound stops the server: bots of the old DAIDE kind would
        # otherwise find nothing there, with only a log line to say why.
        await listener.bind()
        settings = settings.model_copy(update={"daide_port": listener.address[1]})
        app = create_app(service, settings)

        async def started() -> None:
            await tcp.start_serving()
            daide_host, daide_port = tcp.address
            logger.info("daide listening", host=daide_host, port=daide_port)
            if daide_ready is not None:
                daide_ready(daide_host, daide_port)

        def listening(host: str, port: int) -> None:
            logger.info("listening", host=host, port=port)
            if ready is not None:
                ready(host, port)

        await run_app(app, settings.host, settings.port, listening, stop, started)
    finally:
        if listener is not None:
            await listener.close()
        store.close()


def add_serve_arguments(parser: Any) -> None:
    """The options of ``detente serve``."""
    parser.add_argument("--host", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, help="HTTP and websocket port (default 8700; 0 picks one)")
    parser.add_argument("--daide-port", dest="daide_port", type=int, help="DAIDE binary TCP port (16713; 0 picks one)")
    parser.add_argument("--db", help="the SQLite store (default detente-data/detente.sqlite3)")
    parser.add_argument("--data-dir", dest="data_dir", help="where the store and the kept tokens live")
    parser.add_argument("--admin-token", dest="admin_token", help="the API's admin token (or DETENTE_ADMIN_TOKEN)")
    parser.add_argument("--secret", help="the negotiation server's shared secret (or DETENTE_SECRET)")
    parser.add_argument("--nego-url", dest="nego_url", help="the negotiation server's URL, for the web page")
    parser.add_argument("--press-level", dest="press_level", type=int, help="press level of the open game (0)")
    parser.add_argument("--l-levels", dest="l_levels", help="L levels of the open game (1-8)")
    parser.add_argument("--protocol", choices=("free", "reply", "bilateral"), help="negotiation protocol (free)")
    parser.add_argument("--deadlines", help="movement,retreat,adjustment seconds, or none (60,30,30)")
    parser.add_argument("--year-limit", dest="year_limit", help="last year of the open game, or none (1935)")


_SERVE_KEYS = (
    "host",
    "port",
    "daide_port",
    "db",
    "data_dir",
    "admin_token",
    "secret",
    "nego_url",
    "press_level",
    "l_levels",
    "protocol",
    "deadlines",
    "year_limit",
)


def run(args: Any, env: Mapping[str, str] | None = None, argv: Sequence[str] | None = None) -> int:
    """``detente serve``: load the settings, print generated credentials once, serve."""
    values = {key: getattr(args, key, None) for key in _SERVE_KEYS}
    try:
        settings, messages = load_settings(values, dict(os.environ) if env is None else env)
    except SettingsError as exc:
        print(f"detente serve: {exc}", file=sys.stderr)
        return 2
    for message in messages:
        print(f"detente: {message}", flush=True)
    configure_logging()

    def ready(host: str, port: int) -> None:
        print(f"detente: listening on http://{host}:{port}", flush=True)

    def daide_ready(host: str, port: int) -> None:
        print(f"detente: DAIDE on tcp://{host}:{port}", flush=True)

    try:
        asyncio.run(serve(settings, ready, daide_ready=daide_ready))
    except StoreError as exc:
        print(f"detente serve: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:  # a port in use, an address not on this machine
        print(f"detente serve: cannot listen: {exc.strerror or exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        pass
    return 0

"""``detente nego``: the negotiation server, run by uvicorn in this process.

:func:`serve_nego` is what the command runs and what the tests run in their own event
loop; it calls ``ready(host, port)`` once the socket listens (the command prints
``listening on http://HOST:PORT``). It follows the game server from then on, and keeps
trying while the game server is away.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Mapping
from typing import Any

import structlog

from server.nego.app import create_nego_app
from server.nego.service import NegoService
from server.nego.settings import NegoSettings, load_nego_settings
from server.retention import RetentionTask, start_retention
from server.settings import LIMIT_OPTIONS, RETENTION_OPTIONS, add_limit_arguments, add_retention_arguments
from server.store import SCHEMA_VERSION, Store
from server.web import run_app, run_command

__all__ = ["add_nego_arguments", "run_nego", "serve_nego"]

_KEYS = (
    "game_server",
    "host",
    "port",
    "db",
    "data_dir",
    "secret",
    "admin_token",
    "say_rate",
    *LIMIT_OPTIONS,
    *RETENTION_OPTIONS,
)


async def serve_nego(
    settings: NegoSettings,
    ready: Callable[[str, int], None] | None = None,
    stop: asyncio.Event | None = None,
    *,
    on_service: Callable[[NegoService], None] | None = None,
) -> None:
    """Run the negotiation server until a signal or ``stop``; ``on_service`` is given the
    service once it exists (a caller in the same process that reads its metrics)."""
    logger = structlog.get_logger("detente.nego")
    store = await asyncio.to_thread(Store.open, settings.db)
    if store.migrated_from is not None:
        logger.info("store migrated", db=str(settings.db), from_version=store.migrated_from, to_version=SCHEMA_VERSION)
    retention: RetentionTask | None = None
    try:
        service = NegoService(store, settings.game_server, settings.secret, say_rate=settings.say_rate)
        if on_service is not None:
            on_service(service)
        retention = start_retention(
            store, settings.retention_policy(), settings.export_dir, settings.retention_interval
        )
        app = create_nego_app(service, settings.admin_token, limits=settings.limits())

        def listening(host: str, port: int) -> None:
            logger.info("listening", host=host, port=port, game_server=settings.game_server)
            if ready is not None:
                ready(host, port)

        await run_app(app, settings.host, settings.port, listening, stop)
    finally:
        if retention is not None:
            await retention.stop()
        store.close()


def add_nego_arguments(parser: Any) -> None:
    """The options of ``detente nego``."""
    parser.add_argument("--game-server", dest="game_server", required=True, help="the game server, http://HOST:8700")
    parser.add_argument("--host", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, help="the websocket port (default 8701; 0 picks one)")
    parser.add_argument("--db", help="the SQLite store (default detente-data/nego.sqlite3)")
    parser.add_argument("--data-dir", dest="data_dir", help="where the store and the kept tokens live")
    parser.add_argument("--secret", help="the secret shared with the game server (or DETENTE_SECRET)")
    parser.add_argument("--admin-token", dest="admin_token", help="reads the full logs (or DETENTE_ADMIN_TOKEN)")
    parser.add_argument("--say-rate", dest="say_rate", type=float, help="messages a second one client may say (20)")
    add_limit_arguments(parser)
    add_retention_arguments(parser)


def run_nego(args: Any, env: Mapping[str, str] | None = None) -> int:
    """``detente nego``: load the settings, print generated credentials once, serve."""
    values = {key: getattr(args, key, None) for key in _KEYS}
    return run_command("nego", lambda: load_nego_settings(values, dict(os.environ) if env is None else env), serve_nego)

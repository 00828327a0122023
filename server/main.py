"""``detente serve``: settings, store, service and application, run by uvicorn in this process.

:func:`serve` is what the command runs and what the tests run in their own event loop;
it calls ``ready(host, port)`` once the socket listens (the command prints
``listening on http://HOST:PORT`` then, which is the line to wait for). The DAIDE binary
TCP listener (:mod:`server.daide_tcp`) starts just before, on ``settings.daide_port``, and
``daide_ready(host, port)`` tells where (the command prints ``DAIDE on tcp://HOST:PORT``).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import structlog

from engine.maps import add_map_file
from protocol.daide.framing import IM_TIMEOUT
from referee.settings import PROTOCOLS, check_daide_names, year_limit_text
from server.api_models import GameCreate
from server.settings import (
    GAME_LIMIT_OPTIONS,
    LIMIT_OPTIONS,
    OPEN_GAME_FILL_AFTER,
    OPEN_GAME_FILL_WITH,
    OPEN_GAME_STAND_IN,
    RETENTION_OPTIONS,
    ServerSettings,
    SettingsError,
    add_game_limit_arguments,
    add_limit_arguments,
    add_retention_arguments,
    load_settings,
)
from server.web import configure_logging, run_app, run_command

if TYPE_CHECKING:
    from server.bot_seats import House
    from server.daide_tcp import DaideTcpListener
    from server.retention import RetentionTask
    from server.service import GameService

__all__ = ["HouseFactory", "add_serve_arguments", "configure_logging", "run", "serve"]

#: What makes the server's house, once its service and settings exist.
HouseFactory = Callable[["GameService", ServerSettings], "House"]


async def serve(
    settings: ServerSettings,
    ready: Callable[[str, int], None] | None = None,
    stop: asyncio.Event | None = None,
    *,
    daide_ready: Callable[[str, int], None] | None = None,
    daide_im_timeout: float = IM_TIMEOUT,
    house: HouseFactory | None = None,
    on_service: Callable[[GameService], None] | None = None,
) -> None:
    """Run the server until it is told to stop (a signal, or ``stop`` being set).

    ``house`` makes what plays the server's own bots (:mod:`server.bot_seats`; ``detente
    serve`` gives :class:`detente.house.BotHouse`); without one, games may name no bots.
    ``on_service`` is given the game service once it exists (a caller in the same process that
    reads a game's state when it ends, as ``detente run``'s DAIDE games do).
    A port that cannot be bound (HTTP or DAIDE) raises ``OSError``.
    """
    # imported here, not with the module: ``detente serve --help`` needs only the options (0.2 s less)
    from server.app import create_app
    from server.daide_tcp import DaideTcpListener
    from server.retention import start_retention
    from server.service import GameService
    from server.store import SCHEMA_VERSION, Store

    logger = structlog.get_logger("detente.server")
    store = await asyncio.to_thread(Store.open, settings.db)
    if store.migrated_from is not None:
        logger.info("store migrated", db=str(settings.db), from_version=store.migrated_from, to_version=SCHEMA_VERSION)
    listener: DaideTcpListener | None = None
    retention: RetentionTask | None = None
    service: GameService | None = None
    try:
        service = GameService(
            store,
            settings.open_game("open game"),
            max_open_games=settings.max_open_games,
            max_seats_per_address=settings.max_seats_per_address,
            max_seats_per_network=settings.max_seats_per_network,
            deserted_after=settings.deserted_after,
            open_games_per_hour=settings.open_games_per_hour,
        )
        if on_service is not None:
            on_service(service)
        service.bot_seats.MAX_GAMES = settings.max_bot_games
        service.bot_seats.PER_NETWORK = settings.bot_games_per_network
        if house is not None:
            service.bot_seats.house = house(service, settings)
            why = service.bot_seats.refuse(settings.open_game())
            if why is not None:
                raise SettingsError(f"--stand-in or --fill-with: {why}")
        retention = start_retention(
            store, settings.retention_policy(), settings.export_dir, settings.retention_interval
        )
        limits = settings.limits()
        listener = tcp = DaideTcpListener(
            service,
            settings.host,
            settings.daide_port,
            im_timeout=daide_im_timeout,
            max_connections=limits.max_connections,
            max_connections_per_address=limits.max_connections_per_address,
            max_connections_per_network=limits.max_connections_per_network,
            network_prefix_v4=limits.network_prefix_v4,
            network_prefix_v6=limits.network_prefix_v6,
            new_connections_per_network=limits.new_connections_per_network,
            new_connections=limits.new_connections,
        )
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

        await run_app(
            app,
            settings.host,
            settings.port,
            listening,
            stop,
            started,
            make_room=service.shed,
            holds_seat=service.holds_seat,
        )
    finally:
        if house is not None and service is not None and service.bot_seats.house is not None:
            await service.bot_seats.house.close()
        if retention is not None:
            await retention.stop()
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
    parser.add_argument(
        "--house-nego-url",
        dest="house_nego_url",
        help="the negotiation server's URL for the server's own bots, where it differs (default: --nego-url)",
    )
    # not given is None: load_settings leaves those to the open games' defaults, which the help reads
    game = GameCreate().settings()
    parser.add_argument(
        "--map",
        dest="map",
        metavar="NAME|FILE",
        help=f"the map of the open games: a variant or a map file ({game.map})",
    )
    parser.add_argument(
        "--map-file",
        dest="map_files",
        metavar="FILE",
        action="append",
        default=[],
        help="a map file games created on this server may name (its [variant] name); repeatable",
    )
    parser.add_argument(
        "--press-level", dest="press_level", type=int, help=f"press level of the open game ({game.press_level})"
    )
    parser.add_argument("--l-levels", dest="l_levels", help=f"L levels of the open game ({game.l_levels})")
    parser.add_argument("--protocol", choices=PROTOCOLS, help=f"negotiation protocol ({game.protocol})")
    parser.add_argument("--deadlines", help=f"movement,retreat,adjustment seconds, or none ({game.deadlines.text()})")
    year_limit = year_limit_text(game.year_limit)
    parser.add_argument("--year-limit", dest="year_limit", help=f"last year of the open game, or none ({year_limit})")
    parser.add_argument(
        "--stand-in",
        dest="stand_in",
        help=f"the bot that plays the seat of a player who left an open game, or none ({OPEN_GAME_STAND_IN})",
    )
    parser.add_argument(
        "--stand-in-after",
        dest="stand_in_after",
        help=f"seconds a player of an open game is away before the stand-in plays ({game.stand_in_after:.0f})",
    )
    parser.add_argument(
        "--fill-with",
        dest="fill_with",
        help=f"the bot given the seats an open game still has empty --fill-after seconds after its last join,"
        f" or none ({OPEN_GAME_FILL_WITH})",
    )
    parser.add_argument(
        "--fill-after", dest="fill_after", help=f"seconds, see --fill-with ({OPEN_GAME_FILL_AFTER:.0f})"
    )
    add_limit_arguments(parser)
    add_game_limit_arguments(parser)
    add_retention_arguments(parser)


_SERVE_KEYS = (
    "host",
    "port",
    "daide_port",
    "db",
    "data_dir",
    "admin_token",
    "secret",
    "nego_url",
    "house_nego_url",
    "map",
    "press_level",
    "l_levels",
    "protocol",
    "deadlines",
    "year_limit",
    "stand_in",
    "stand_in_after",
    "fill_with",
    "fill_after",
    *LIMIT_OPTIONS,
    *GAME_LIMIT_OPTIONS,
    *RETENTION_OPTIONS,
)


def run(args: Any, env: Mapping[str, str] | None = None, house: HouseFactory | None = None) -> int:
    """``detente serve``: load the settings, print generated credentials once, serve (with
    ``house`` playing the server's bots)."""
    values = {key: getattr(args, key, None) for key in _SERVE_KEYS}

    async def serving(settings: ServerSettings, ready: Callable[[str, int], None]) -> None:
        def daide_ready(host: str, port: int) -> None:
            print(f"detente: DAIDE on tcp://{host}:{port}", flush=True)

        await serve(settings, ready, daide_ready=daide_ready, house=house)

    def settings() -> tuple[ServerSettings, list[str]]:
        for path in getattr(args, "map_files", None) or ():
            try:
                check_daide_names(add_map_file(path))  # MapError is a ValueError
            except ValueError as error:
                raise SettingsError(f"--map-file: {error}") from None
        return load_settings(values, dict(os.environ) if env is None else env)

    return run_command("serve", settings, serving)

"""The game server's configuration: command line, environment and the data directory.

:func:`load_settings` turns the values of ``detente serve``'s options and the environment
into one validated :class:`ServerSettings`. The admin token and the shared secret come,
in this order, from the command line, from ``DETENTE_ADMIN_TOKEN`` / ``DETENTE_SECRET``,
from a file kept in the data directory, or are generated and written to that file (mode
0600) so that a restarted server keeps them; the caller prints the returned messages once.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as tmp:
...     settings, messages = load_settings({"data_dir": tmp, "admin_token": "t0ken", "secret": "s3cret"}, {})
>>> settings.port, settings.daide_port, settings.game.year_limit, settings.game.deadlines, messages
(8700, 16713, 1920, DeadlinesBody(movement=60.0, retreat=30.0, adjustment=30.0), [])
"""

from __future__ import annotations

import ipaddress
import os
import re
import secrets
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from engine.maps import map_named
from referee.settings import check_daide_names, parse_year_limit
from server.api_models import DeadlinesBody, GameCreate
from server.bot_seats import BotSeats

#: The bot that stands in for a stranger who left an open game, unless ``--stand-in`` says otherwise.
OPEN_GAME_STAND_IN = "dumbbot"
#: The bot given the seats of an open game still empty :data:`OPEN_GAME_FILL_AFTER` seconds after
#: its last stranger joined, unless ``--fill-with`` says otherwise: strangers are not kept waiting.
OPEN_GAME_FILL_WITH = "dumbbot"
OPEN_GAME_FILL_AFTER = 600.0
from server.retention import Policy
from server.web import Limits, default_allowed_hosts, origin_of

DEFAULT_DATA_DIR = Path("detente-data")
DB_NAME = "detente.sqlite3"
ADMIN_TOKEN_FILE = "admin-token"
SECRET_FILE = "secret"
ADMIN_TOKEN_ENV = "DETENTE_ADMIN_TOKEN"
SECRET_ENV = "DETENTE_SECRET"


#: Games opened for strangers that may be unfinished at once, the one forming counted.
MAX_OPEN_GAMES = 8
#: Seats one client address may take in the unfinished games opened for strangers: one game's.
MAX_SEATS_PER_ADDRESS = 7
#: Seats one network (a /24, a /64) may take in them: four games', for a lab behind one NAT.
MAX_SEATS_PER_NETWORK = 28
#: Seconds without a player connected after which a started game for strangers is deserted.
DESERTED_AFTER = 1.0
#: Games opened for strangers in any hour: games that end at once (seven NME, seven DRW) would
#: otherwise fill the store as fast as clients can play them.
OPEN_GAMES_PER_HOUR = 60


class SettingsError(ValueError):
    """A setting that cannot be used; the message names the option and says why."""


_LIMITS = Limits()


class LimitSettings(BaseModel):
    """What one client may hold of a server (see :class:`server.web.Limits`): the settings both
    servers share, with the same names and safe defaults."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_body_bytes: int = Field(
        default=_LIMITS.max_body_bytes, ge=1_024, le=16 * 1024 * 1024, description="the largest JSON body (413 beyond)"
    )
    max_header_bytes: int = Field(
        default=_LIMITS.max_header_bytes, ge=1_024, le=1024 * 1024, description="request line and headers together"
    )
    request_timeout: float = Field(
        default=_LIMITS.request_timeout, ge=0.1, le=3_600, description="seconds to send a request's headers and body"
    )
    keep_alive_timeout: float = Field(
        default=_LIMITS.keep_alive_timeout, ge=0.1, le=3_600, description="seconds an idle connection stays open"
    )
    max_connections: int = Field(
        default=_LIMITS.max_connections, ge=1, le=1_000_000, description="open HTTP and websocket connections"
    )
    ws_first_message_timeout: float = Field(
        default=_LIMITS.ws_first_message_timeout,
        ge=0.1,
        le=3_600,
        description="seconds a new websocket may stay silent before its first frame",
    )

    max_connections_per_address: int = Field(
        default=_LIMITS.max_connections_per_address,
        ge=1,
        le=1_000_000,
        description="open connections from one address (behind a --trusted-proxy: one forwarded client)",
    )
    # 256: four addresses at their full cap, or a lab of some forty machines each with a player's
    # bot, its browser page (game and chat) and an observer or two; a quarter of --max-connections,
    # so that whoever holds one network (one IPv6 subscriber's /64 is 2**64 addresses) cannot fill it
    max_connections_per_network: int = Field(
        default=_LIMITS.max_connections_per_network,
        ge=1,
        le=1_000_000,
        description="open connections from one network: an IPv4 address's /--network-prefix-v4 (IPv4-mapped "
        "IPv6 addresses are IPv4), an IPv6 address's /--network-prefix-v6; the same refusal as "
        "--max-connections-per-address, and the smaller of the two binds",
    )
    new_connections: float = Field(
        default=_LIMITS.new_connections,
        gt=0,
        le=1_000_000,
        description="connections the whole server takes a second, on average (a second's worth at once), from "
        "networks where no player has a seat; one more is answered 503",
    )
    new_connections_per_network: float = Field(
        default=_LIMITS.new_connections_per_network,
        gt=0,
        le=1_000_000,
        description="connections one network may open a second, on average (ten seconds' worth at once); "
        "one more is refused as --max-connections-per-network",
    )
    network_prefix_v4: int = Field(
        default=_LIMITS.network_prefix_v4,
        ge=8,
        le=32,
        description="prefix length of the IPv4 network counted by --max-connections-per-network (32: each address)",
    )
    network_prefix_v6: int = Field(
        default=_LIMITS.network_prefix_v6,
        ge=16,
        le=128,
        description="prefix length of the IPv6 network counted by --max-connections-per-network "
        "(64: one subscriber's LAN)",
    )
    allowed_hosts: tuple[str, ...] | None = Field(
        default=None,
        description="the names the Host header may give, comma-separated, or * for any "
        "(default 127.0.0.1,localhost,::1 and the --host bound to, unless 0.0.0.0 or ::)",
    )
    allowed_origins: tuple[str, ...] = Field(
        default=(),
        description="origins (scheme://host:port) whose pages may open websockets, comma-separated, "
        "besides the server's own (and, for the negotiation server, the game server's)",
    )
    public_metrics: bool = Field(default=False, description="serve /metrics without the admin token")
    trusted_proxy: tuple[str, ...] = Field(
        default=(),
        description="addresses or networks of reverse proxies whose X-Forwarded-For is believed, "
        "comma-separated (default none)",
    )

    @field_validator("allowed_hosts", "allowed_origins", "trusted_proxy", mode="before")
    @classmethod
    def _comma_list(cls, value: Any) -> Any:
        if isinstance(value, str):
            return tuple(part.strip() for part in value.split(",") if part.strip())
        return value

    @field_validator("allowed_hosts")
    @classmethod
    def _hosts(cls, value: tuple[str, ...] | None) -> tuple[str, ...] | None:
        if value is None:
            return None
        if not value:
            raise ValueError("names no host (* allows any)")
        hosts = tuple(host.lower().strip("[]").rstrip(".") for host in value)
        for host in hosts:
            if host != "*" and not re.fullmatch(r"[a-z0-9_.:-]+", host):
                raise ValueError(f"not a host name: {host!r}")
        return hosts

    @field_validator("allowed_origins")
    @classmethod
    def _origins(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        origins = []
        for given in value:
            origin = origin_of(given)
            if origin is None:
                raise ValueError(f"not an origin (scheme://host:port): {given!r}")
            origins.append(origin)
        return tuple(origins)

    @field_validator("trusted_proxy")
    @classmethod
    def _proxies(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for proxy in value:
            try:
                ipaddress.ip_network(proxy, strict=False)
            except ValueError:
                raise ValueError(f"not an address or network: {proxy!r}") from None
        return value

    def hosts_allowed(self) -> frozenset[str] | None:
        """The ``Host`` names answered (``None``: any): those given, or the defaults for the bind."""
        hosts = self.allowed_hosts
        if hosts is None:
            hosts = default_allowed_hosts(getattr(self, "host", None))
        return None if "*" in hosts else frozenset(hosts)

    def extra_origins(self) -> frozenset[str]:
        """Origins allowed besides those configured; the negotiation server adds the game page's."""
        return frozenset()

    def limits(self) -> Limits:
        """These settings as the web layer takes them."""
        return Limits(
            **{name: getattr(self, name) for name in _NUMBERS},
            allowed_hosts=self.hosts_allowed(),
            allowed_origins=frozenset(self.allowed_origins) | self.extra_origins(),
            public_metrics=self.public_metrics,
            trusted_proxies=self.trusted_proxy,
        )


_NUMBERS = (
    "max_body_bytes",
    "max_header_bytes",
    "request_timeout",
    "keep_alive_timeout",
    "max_connections",
    "ws_first_message_timeout",
    "max_connections_per_address",
    "max_connections_per_network",
    "new_connections_per_network",
    "new_connections",
    "network_prefix_v4",
    "network_prefix_v6",
)

LIMIT_OPTIONS = {
    "max_body_bytes": "--max-body-bytes",
    "max_header_bytes": "--max-header-bytes",
    "request_timeout": "--request-timeout",
    "keep_alive_timeout": "--keep-alive-timeout",
    "max_connections": "--max-connections",
    "ws_first_message_timeout": "--ws-first-message-timeout",
    "max_connections_per_address": "--max-connections-per-address",
    "max_connections_per_network": "--max-connections-per-network",
    "new_connections_per_network": "--new-connections-per-network",
    "new_connections": "--new-connections",
    "network_prefix_v4": "--network-prefix-v4",
    "network_prefix_v6": "--network-prefix-v6",
    "allowed_hosts": "--allowed-hosts",
    "allowed_origins": "--allowed-origins",
    "public_metrics": "--public-metrics",
    "trusted_proxy": "--trusted-proxy",
}
"""The limits and guards each server takes, and the option that gives each."""


def add_options(parser: Any, model: type[BaseModel], options: Mapping[str, str]) -> None:
    """An option for each setting of ``model`` named in ``options`` (setting -> option), typed
    by its annotation: a flag for a bool, an int or a float with its default, else text (a
    comma-separated list is split by the settings)."""
    for name, option in options.items():
        field = model.model_fields[name]
        kinds = [k for k in (get_args(field.annotation) or (field.annotation,)) if k is not type(None)]
        kind = kinds[0] if len(kinds) == 1 else str
        if kind is bool:  # a flag: absent is None, "not given"
            parser.add_argument(option, dest=name, action="store_const", const=True, help=field.description)
        elif kind in (int, float):
            default = "" if field.default is None else f" (default {field.default:g})"
            parser.add_argument(option, dest=name, type=kind, help=f"{field.description}{default}")
        else:
            parser.add_argument(option, dest=name, help=field.description)


def add_limit_arguments(parser: Any) -> None:
    """The options of the limits, for ``detente serve`` and ``detente nego`` alike."""
    add_options(parser, LimitSettings, LIMIT_OPTIONS)


class RetentionSettings(BaseModel):
    """Which finished games a server deletes from its store (see :mod:`server.retention`):
    settings both servers share, with the same names. The default keeps every game."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    keep_days: float | None = Field(
        default=None,
        gt=0,
        le=36_500,
        description="delete finished games older than this many days, unless --keep-games keeps them "
        "(default: keep every game)",
    )
    keep_games: int | None = Field(
        default=None,
        ge=0,
        le=1_000_000_000,
        description="keep only the N most recently finished games, besides those --keep-days keeps "
        "(default: keep every game)",
    )
    export_dir: Path | None = Field(
        default=None, description="export each game as JSON into this directory before deleting it (default: none)"
    )
    retention_interval: float = Field(
        default=3_600.0, ge=1, le=7 * 86_400, description="seconds between two retention passes"
    )

    def retention_policy(self) -> Policy:
        """The policy these settings give (inactive when neither rule is set)."""
        return Policy(keep_days=self.keep_days, keep_games=self.keep_games)


RETENTION_OPTIONS = {
    "keep_days": "--keep-days",
    "keep_games": "--keep-games",
    "export_dir": "--export-dir",
    "retention_interval": "--retention-interval",
}
"""The retention settings each server takes, and the option that gives each."""


def add_retention_arguments(parser: Any) -> None:
    """The options of :data:`RETENTION_OPTIONS`, for ``detente serve`` and ``detente nego`` alike."""
    add_options(parser, RetentionSettings, RETENTION_OPTIONS)


class ServerSettings(RetentionSettings, LimitSettings):
    """Everything ``detente serve`` needs to run; build it with :func:`load_settings`."""

    host: str = Field(default="127.0.0.1", min_length=1)
    port: int = Field(default=8700, ge=0, le=65535, description="HTTP and websocket port; 0 picks a free one")
    daide_port: int = Field(default=16713, ge=0, le=65535, description="DAIDE binary TCP port; 0 picks a free one")
    data_dir: Path = Field(default=DEFAULT_DATA_DIR, description="where the store and the kept tokens live")
    db: Path = Field(default=DEFAULT_DATA_DIR / DB_NAME, description="the SQLite store")
    # repr=False: settings get logged; the credentials must not be
    admin_token: str = Field(min_length=1, repr=False)
    secret: str = Field(min_length=1, repr=False)
    nego_url: str | None = Field(default=None, description="the negotiation server's URL, told to the web page")
    house_nego_url: str | None = Field(
        default=None,
        description="the negotiation server's URL as this server reaches it, for its own bots (default: nego_url;"
        " another where the page and the server see it at different addresses, as in a compose network)",
    )

    @property
    def bots_nego_url(self) -> str | None:
        """Where the server's own bots find the negotiation server."""
        return self.house_nego_url or self.nego_url

    # The games the server opens for strangers: the API's model and its defaults, not a list of
    # its own (--press-level, --l-levels, --protocol, --deadlines and --year-limit set them)
    game: GameCreate = Field(
        default_factory=lambda: GameCreate(
            stand_in=OPEN_GAME_STAND_IN, fill_with=OPEN_GAME_FILL_WITH, fill_after=OPEN_GAME_FILL_AFTER
        ),
        description="the settings of the games opened for strangers",
    )
    # What strangers may hold of it (the game server's own limits; the shared ones are above):
    max_open_games: int = Field(
        default=MAX_OPEN_GAMES,
        ge=0,
        le=10_000,
        description="games opened for strangers (NME without ?game=ID) unfinished at once, the one forming "
        "counted; at the cap such an NME gets REJ until one ends; 0: no open game",
    )
    max_seats_per_address: int = Field(
        default=MAX_SEATS_PER_ADDRESS,
        ge=1,
        le=1_000_000,
        description="seats one client address may take with NME in the unfinished games opened for strangers "
        "(REJ beyond)",
    )
    max_bot_games: int = Field(
        default=BotSeats.MAX_GAMES,
        ge=0,
        le=100_000,
        description="games against the server's bots (POST /api/games/against-bots) unfinished at once; at the cap"
        " the one left longest is cancelled if its player has been away an hour (a minute if never joined), else 429",
    )
    bot_games_per_network: int = Field(
        default=BotSeats.PER_NETWORK,
        ge=0,
        le=10_000,
        description="games against bots unfinished at once made from one network (a /24, a /64); 429 beyond",
    )
    deserted_after: float = Field(
        default=DESERTED_AFTER,
        ge=0,
        le=86_400,
        description="seconds a started game for strangers has had no player connected before it no longer "
        "counts against --max-open-games (players who fill games and leave do not keep strangers out)",
    )
    max_seats_per_network: int = Field(
        default=MAX_SEATS_PER_NETWORK,
        ge=1,
        le=1_000_000,
        description="seats one network (an IPv4 /24, an IPv6 /64) may take with NME in the unfinished games "
        "opened for strangers (REJ beyond)",
    )
    open_games_per_hour: int = Field(
        default=OPEN_GAMES_PER_HOUR,
        ge=1,
        le=1_000_000,
        description="games opened for strangers in any hour; beyond, none opens (NME without ?game=ID gets "
        "REJ) until the oldest of them is an hour old",
    )

    @field_validator("admin_token", "secret")
    @classmethod
    def _credential(cls, value: str) -> str:
        # it travels in an Authorization header: no spaces, no control characters
        if not value.isprintable() or any(c.isspace() for c in value):
            raise ValueError("must be printable and contain no spaces")
        return value

    def open_game(self, name: str = "") -> GameCreate:
        """The settings of the game the server keeps open for joining."""
        return self.game.model_copy(update={"name": name})


GAME_LIMIT_OPTIONS = {
    "max_open_games": "--max-open-games",
    "max_seats_per_address": "--max-seats-per-address",
    "max_seats_per_network": "--max-seats-per-network",
    "deserted_after": "--deserted-after",
    "max_bot_games": "--max-bot-games",
    "bot_games_per_network": "--bot-games-per-network",
    "open_games_per_hour": "--open-games-per-hour",
}
"""The limits only the game server takes (on the games opened for strangers), and their options."""


def add_game_limit_arguments(parser: Any) -> None:
    """The options of :data:`GAME_LIMIT_OPTIONS`, for ``detente serve``."""
    add_options(parser, ServerSettings, GAME_LIMIT_OPTIONS)


GAME_OPTIONS = {
    "map": "--map",
    "press_level": "--press-level",
    "l_levels": "--l-levels",
    "protocol": "--protocol",
    "deadlines": "--deadlines",
    "year_limit": "--year-limit",
    "stand_in": "--stand-in",
    "stand_in_after": "--stand-in-after",
    "fill_with": "--fill-with",
    "fill_after": "--fill-after",
}
"""The settings of the open games (:attr:`ServerSettings.game`) ``detente serve`` takes, and their options."""

_OPTIONS = {
    "host": "--host",
    "port": "--port",
    "daide_port": "--daide-port",
    "db": "--db",
    "data_dir": "--data-dir",
    "admin_token": "--admin-token",
    "secret": "--secret",
    "nego_url": "--nego-url",
    "house_nego_url": "--house-nego-url",
    **GAME_OPTIONS,
    **LIMIT_OPTIONS,
    **GAME_LIMIT_OPTIONS,
    **RETENTION_OPTIONS,
}
"""Each setting and the option of ``detente serve`` that gives it, for error messages."""

_WHERE = {**_OPTIONS, **{f"game.{name}": option for name, option in GAME_OPTIONS.items()}}
"""The option of each place of the settings a validation error may point to."""


def load_settings(cli_values: Mapping[str, Any], env: Mapping[str, str]) -> tuple[ServerSettings, list[str]]:
    """The server's settings from command-line values and the environment.

    ``cli_values`` maps setting names (``port``, ``daide_port``, ``db``, ``data_dir``,
    ``deadlines``, ...) to values; ``None`` means "not given", as argparse leaves it.
    ``deadlines`` may be the command-line text (``"60,30,30"`` or ``"none"``), and
    ``year_limit`` may be ``"none"``. ``--db`` alone puts the data directory beside the
    file; ``data_dir`` alone puts the store in it.

    Returns the settings and messages for the operator (a generated token, a file whose
    permissions were tightened) that the caller should print once. Raises
    :class:`SettingsError` naming the bad option.
    """
    unknown = sorted(set(cli_values) - set(_OPTIONS))
    if unknown:
        raise SettingsError(f"unknown settings: {', '.join(unknown)}")
    values: dict[str, Any] = {key: value for key, value in cli_values.items() if value is not None}

    if isinstance(values.get("deadlines"), str):
        try:
            values["deadlines"] = DeadlinesBody.parse(values["deadlines"])
        except (ValueError, ValidationError) as exc:
            raise SettingsError(f"--deadlines: {_first_line(exc)}") from None
    if isinstance(values.get("map"), str):
        # a map file is read and added, so that the open games (and games created on the API) may name it
        try:
            board = map_named(values["map"])
            check_daide_names(board)
            values["map"] = board.name
        except ValueError as exc:  # MapError is one
            raise SettingsError(f"--map: {exc}") from None
    if isinstance(values.get("year_limit"), str):
        try:
            values["year_limit"] = parse_year_limit(values["year_limit"])
        except ValueError as exc:
            raise SettingsError(f"--year-limit: {exc}") from None
    # a stranger's open game goes on without a player who left, and starts without those who never
    # came: bots stand in and fill the empty seats (--stand-in none, --fill-with none: nobody)
    for key, default in (("stand_in", OPEN_GAME_STAND_IN), ("fill_with", OPEN_GAME_FILL_WITH)):
        bot = values.get(key, default)
        values[key] = None if isinstance(bot, str) and bot.strip().lower() == "none" else bot
    values.setdefault("fill_after", OPEN_GAME_FILL_AFTER)
    for key in ("stand_in_after", "fill_after"):
        if isinstance(values.get(key), str):
            try:
                values[key] = float(values[key])
            except ValueError:
                raise SettingsError(f"{_OPTIONS[key]}: not a number of seconds: {values[key]!r}") from None
    for key in (
        "port",
        "daide_port",
        "press_level",
        "max_body_bytes",
        "max_header_bytes",
        "max_connections",
        "max_connections_per_address",
        "max_connections_per_network",
        "network_prefix_v4",
        "network_prefix_v6",
        *GAME_LIMIT_OPTIONS,
    ):
        # from the command line or a config file these may be text; ints are what the model checks
        if isinstance(values.get(key), str):
            try:
                values[key] = int(values[key])
            except ValueError:
                raise SettingsError(f"{_OPTIONS[key]}: not a whole number: {values[key]!r}") from None
    # the options are flat; what they set is one GameCreate, its defaults for those not given
    game = {key: values.pop(key) for key in GAME_OPTIONS if key in values}
    if game:
        values["game"] = game

    return settle(ServerSettings, values, env, DB_NAME, _WHERE)


Model = TypeVar("Model", bound=BaseModel)


def settle(
    model: type[Model], values: dict[str, Any], env: Mapping[str, str], db_name: str, options: Mapping[str, str]
) -> tuple[Model, list[str]]:
    """The settings ``model`` from ``values``: the data directory and the store's path (``--db``
    alone puts the data directory beside the file; ``data_dir`` alone puts the store, named
    ``db_name``, in it), the credentials (:func:`fill_credentials`), validated; a
    :class:`SettingsError` names the option (``options``: setting, or dotted place such as
    ``game.year_limit``, -> option) of each problem."""
    if "db" in values and "data_dir" not in values:
        values["data_dir"] = Path(values["db"]).parent
    data_dir = Path(values.get("data_dir", DEFAULT_DATA_DIR))
    values["data_dir"] = data_dir
    values.setdefault("db", data_dir / db_name)
    messages = fill_credentials(values, env, data_dir)
    try:
        return model(**values), messages
    except ValidationError as exc:
        problems = [
            f"{_where(error['loc'], options)}: {error['msg'].removeprefix('Value error, ')}" for error in exc.errors()
        ]
        raise SettingsError("; ".join(problems)) from None


def _where(loc: tuple[int | str, ...], options: Mapping[str, str]) -> str:
    """The option that gives the place ``loc`` of a validation error, and the rest of the place
    (``--deadlines.retreat``): the longest start of ``loc`` that ``options`` names."""
    parts = [str(part) for part in loc]
    for end in range(len(parts), 0, -1):
        option = options.get(".".join(parts[:end]))
        if option is not None:
            return option + "".join(f".{part}" for part in parts[end:])
    return ".".join(parts) or "settings"


def fill_credentials(values: dict[str, Any], env: Mapping[str, str], data_dir: Path) -> list[str]:
    """Set ``admin_token`` and ``secret`` in ``values`` where not given: from the environment,
    or the files kept in ``data_dir`` (made when missing). The messages for the operator."""
    messages: list[str] = []
    for key, env_name, file_name, label in (
        ("admin_token", ADMIN_TOKEN_ENV, ADMIN_TOKEN_FILE, "admin token"),
        ("secret", SECRET_ENV, SECRET_FILE, "secret"),
    ):
        if key not in values:
            values[key] = env.get(env_name) or kept_credential(data_dir / file_name, label, messages)
    return messages


def kept_credential(path: Path, label: str, messages: list[str]) -> str:
    """The value kept in ``path``, or a new one written there (mode 0600) and reported."""
    try:
        value = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        value = None
    if value is not None:
        if not value:
            raise SettingsError(f"the {label} file {path} is empty; delete it to have a new {label} made")
        mode = path.stat().st_mode & 0o777
        if mode & 0o077:
            # someone loosened it (or copied it in): the token must stay private
            path.chmod(0o600)
            messages.append(f"{label} file {path} was readable by others (mode {mode:o}); now 0600")
        return value
    value = secrets.token_urlsafe(32)
    kept = _write_new(path, value)
    if kept != value:  # another process made one first: use theirs
        return kept
    messages.append(f"generated {label} {value} (kept in {path})")
    return value


def _write_new(path: Path, value: str) -> str:
    """Write ``value`` to a new file at ``path`` (0600) unless one appears first; return what is there.

    Written to a temporary file and hard-linked into place, so a reader never sees a
    half-written token and two servers starting together end up with the same one.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")  # mkstemp makes it 0600
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(value + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.link(tmp, path)
        except FileExistsError:
            return path.read_text(encoding="utf-8").strip()
    finally:
        os.unlink(tmp)
    return value


def _first_line(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        return "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
    return str(exc).splitlines()[0]

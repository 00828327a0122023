"""The JSON bodies of the game server's HTTP API, as pydantic models with an OpenAPI schema.

Pydantic lives only at this edge (and in :mod:`server.settings`): the game master works
on the engine's frozen dataclasses, and these models translate at the boundary. A game's
settings are :class:`referee.settings.GameSettings`; :class:`GameCreate` is their API form,
its defaults read from that model (but for :data:`SERVER_DEADLINES`), and
:meth:`GameCreate.of` and :meth:`GameCreate.settings` are the one conversion each way.

>>> GameCreate().press_level, GameCreate().protocol, GameCreate().year_limit, GameCreate().deadlines
(0, 'free', 1920, DeadlinesBody(movement=60.0, retreat=30.0, adjustment=30.0))
>>> GameCreate.of(GameSettings(year_limit=None)).settings() == GameSettings(year_limit=None)
True
>>> from engine import Position
>>> game_position(Position.initial()).units["ENGLAND"]
['F EDI', 'F LON', 'A LVP']
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from engine import Adjudication, Position, Power
from engine.maps import map_names, power_names, power_spellings, variant_map
from engine.position import PHASE_KINDS
from protocol.l import format_levels, parse_levels
from referee.deadlines import Deadlines
from referee.game import StandIn
from referee.settings import FIRST_YEAR, LAST_YEAR, PRESS_LEVELS, PROTOCOLS, STAND_IN_AFTER_MAX, GameSettings


def _not_a_bool(value: object) -> object:
    # false == 0 in Python, so a Literal alone would take JSON false for level 0
    if isinstance(value, bool):
        raise ValueError("press_level is a number: 0, 10, ..., 130 or 8000")  # noqa: TRY004 - pydantic turns ValueError into a validation error
    return value


PressLevel = Annotated[Literal[PRESS_LEVELS], BeforeValidator(_not_a_bool)]  # type: ignore[valid-type]
Protocol = Literal[PROTOCOLS]  # type: ignore[valid-type]  # the referee names them
PhaseKind = Literal[tuple(PHASE_KINDS.values())]  # type: ignore[valid-type]  # the engine names them
GameStatus = Literal["forming", "playing", "finished"]

MIN_SECONDS = 0.1
"""The shortest deadline: shorter ones would have a game adjudicate as fast as the CPU allows
(and 1e-300 is no deadline anyone means). A tenth of a second keeps the tests of deadlines fast."""

MAX_SECONDS = 7 * 24 * 3600


def _not_a_bool_seconds(value: object) -> object:
    if isinstance(value, bool):  # true == 1 in Python: a typo must not become a deadline of a second
        raise ValueError("a number of seconds")  # noqa: TRY004 - pydantic turns ValueError into a validation error
    return value


Seconds = Annotated[
    float,
    BeforeValidator(_not_a_bool_seconds),
    Field(ge=MIN_SECONDS, le=MAX_SECONDS, allow_inf_nan=False, description="seconds, from 0.1 to a week"),
]


class Body(BaseModel):
    """Common configuration: unknown fields are errors (a typo must not pass silently)."""

    model_config = ConfigDict(extra="forbid", frozen=True)


def normalise_l_levels(value: str) -> str:
    """The canonical text of an L level list (``"1-4, 6"`` → ``"1-4,6"``); ValueError if invalid."""
    return format_levels(parse_levels(value))


LLevels = Annotated[str, Field(max_length=64), AfterValidator(normalise_l_levels)]
#: A seat spec of a bot the server plays (``dumbbot``, ``hana:revenger``): which ones exist is the
#: server's house's to say (:mod:`server.bot_seats`).
SeatSpec = Annotated[str, Field(min_length=1, max_length=200, pattern=r"^[A-Za-z0-9][!-~]*$")]
"""An L level list, kept in its canonical text."""


class DeadlinesBody(Body):
    """How long each kind of phase may last, in seconds (the edge form of
    :class:`referee.deadlines.Deadlines`, with the API's bounds)."""

    movement: Seconds
    retreat: Seconds
    adjustment: Seconds

    @classmethod
    def of(cls, deadlines: Deadlines) -> DeadlinesBody | None:
        """The API form of ``deadlines`` (None for none), checked against the API's bounds:
        the one conversion from the referee's :class:`~referee.deadlines.Deadlines` (back, the
        JSON of both is the same, which :meth:`Deadlines.from_json` reads)."""
        return None if deadlines.none else cls.model_validate(deadlines.to_json())

    @classmethod
    def parse(cls, text: str) -> DeadlinesBody | None:
        """The command-line form: ``"60,30,30"`` (movement, retreat, adjustment) or ``"none"``.

        >>> DeadlinesBody.parse("60,30,30")
        DeadlinesBody(movement=60.0, retreat=30.0, adjustment=30.0)
        >>> DeadlinesBody.parse("none") is None
        True
        """
        return cls.of(Deadlines.parse(text))


SERVER_DEADLINES = Deadlines(movement=60, retreat=30, adjustment=30)
"""The deadlines of a game on a server unless its creator says null (``--deadlines none``):
the one default that differs from :class:`~referee.settings.GameSettings`' (no deadlines).
In process and in ``detente play`` no one else waits; on a server, without deadlines one
absent player would hold every other's game for ever."""

_DEFAULT = GameSettings()
"""The one default of each setting, which :class:`GameCreate`'s fields take."""


def _spellings() -> dict[str, str]:
    """Every spelling of every power of every map a game may name (token and full name, in upper
    case; the standard seven's English names and adjectives too) -> its token. Looked up per map
    list: a map file may be added while the process runs (:func:`engine.maps.add_map_file`)."""
    return _spellings_of(map_names())


@functools.cache
def _spellings_of(names: tuple[str, ...]) -> dict[str, str]:
    english = {spelling.upper(): p.value for p in Power for spelling in (p.full_name, p.english, p.adjective)}
    return {**power_spellings(), **english}


def _token(name: Any) -> Any:
    """A power in any spelling (``"FRANCE"``, ``"fra"``) as its token; anything else as it is,
    for :func:`_a_power` to refuse."""
    return _spellings().get(name.strip().upper(), name) if isinstance(name, str) else name


def power_token(name: str) -> str:
    """The token of a power of some map a game may name, from any spelling; KeyError if none."""
    token = _token(name)
    if token not in power_names():
        raise KeyError(name)
    return str(token)


def _a_power(token: str) -> str:
    if token not in power_names():
        raise PydanticCustomError("power", "{name} is no power of any map", {"name": token})
    return token


def _full_name(token: str) -> str:
    """The API and the store name a power by its full name (``"ENGLAND"``); inside, by its token."""
    return power_names()[token]


#: A power of a map, read in any spelling, kept as its token, written by its full name; whether
#: it is a power of the game's own map is checked with the map (:meth:`GameCreate._powers_of_the_map`).
PowerName = Annotated[
    str,
    BeforeValidator(_token),
    AfterValidator(_a_power),
    PlainSerializer(_full_name, return_type=str),
]


def shown(name: str) -> str:
    """A name a client gave, quoted for an error message and cut to 40 characters."""
    return repr(name if len(name) <= 40 else f"{name[:40]}...")


def _a_map(name: str) -> str:
    if name not in map_names():
        maps = ", ".join(map_names())
        raise PydanticCustomError("map", "unknown map {name}: the maps are {maps}", {"name": shown(name), "maps": maps})
    return name


#: A map a game may be played on (:func:`engine.maps.map_names`).
MapName = Annotated[
    str, Field(max_length=64, description="the map: standard, or a variant (GET /api/maps)"), AfterValidator(_a_map)
]


def _not_the_map(board: str, powers: Iterable[str]) -> str | None:
    """Why these powers are not all the map's (one line), or None."""
    m = variant_map(board)
    others = sorted(set(powers) - set(m.powers))
    if not others:
        return None
    return f"{', '.join(others)}: not a power of the map {board} ({', '.join(m.powers)})"


class GameCreate(Body):
    """The body of ``POST /api/games``: the settings of a new game (every field has a default).

    The API form of :class:`referee.settings.GameSettings`, field for field (and ``map``),
    with its defaults but for the deadlines (:data:`SERVER_DEADLINES`), and the bounds of a
    server open to clients (a name's length, the shortest deadline).
    """

    name: str = Field(default=_DEFAULT.name, max_length=100, description="a name for people; need not be unique")
    map: MapName = _DEFAULT.map
    press_level: PressLevel = Field(
        default=_DEFAULT.press_level,
        description="DAIDE syntax level: 0 (no press) to 130, 8000 free text",
    )
    l_levels: LLevels = Field(
        default=_DEFAULT.l_levels, description="the L-language levels allowed in negotiation, e.g. 1-8 or 1-4,6"
    )
    protocol: Protocol = Field(default=_DEFAULT.protocol, description="the negotiation protocol")
    binding: bool = Field(default=_DEFAULT.binding, description="whether agreed commitments bind the orders")
    press_phases: tuple[PhaseKind, ...] = Field(
        default=_DEFAULT.press_phases, description="the kinds of phase in which press may be sent"
    )
    deadlines: DeadlinesBody | None = Field(
        default=DeadlinesBody.of(SERVER_DEADLINES),
        description="seconds per kind of phase; null for none (a phase waits for all orders)",
    )
    year_limit: int | None = Field(
        default=_DEFAULT.year_limit,
        ge=FIRST_YEAR,
        le=LAST_YEAR,
        description="the game ends in a draw after this year; null for no limit",
    )

    reserved: dict[PowerName, Annotated[str, Field(max_length=100)]] = Field(
        default_factory=lambda: dict(_DEFAULT.reserved),
        description="powers kept for the players who join with these names (NME); the others are dealt at random."
        " A name of a power's token and a colon (FRA:) keeps the power for any NME name beginning so, as AiClient"
        " bots started with -rFRA:PASSCODE join: not a secret, so only for servers whose players are known",
    )
    bots: dict[PowerName, SeatSpec] = Field(
        default_factory=lambda: dict(_DEFAULT.bots),
        description="powers the server's own bots play from the start (seat specs: dumbbot, randomnegotiator, ...);"
        " a game whose other seats all have bots starts as soon as its people join",
    )
    stand_in: SeatSpec | None = Field(
        default=_DEFAULT.stand_in,
        description="the bot that plays a person's seat while its player is away (null: nobody; the seat is in"
        " civil disorder), until the player comes back",
    )
    stand_in_after: float = Field(
        default=_DEFAULT.stand_in_after,
        ge=1,
        le=STAND_IN_AFTER_MAX,
        description="seconds a player is away before the stand-in plays the seat",
    )

    fill_with: SeatSpec | None = Field(
        default=_DEFAULT.fill_with,
        description="the bot given every seat still empty (and kept for nobody) fill_after seconds after the last"
        " person joined (null: the game waits for people)",
    )
    fill_after: float = Field(default=_DEFAULT.fill_after, ge=1, le=STAND_IN_AFTER_MAX)

    @model_validator(mode="after")
    def _powers_of_the_map(self) -> GameCreate:
        why = _not_the_map(self.map, [*self.reserved, *self.bots])
        if why is not None:
            raise ValueError(why)
        both = sorted(set(self.reserved) & set(self.bots))
        if both:
            raise ValueError(f"{', '.join(power_names()[p] for p in both)}: kept for a player and given to a bot")
        return self

    @classmethod
    def of(cls, settings: GameSettings) -> GameCreate:
        """The API form of ``settings``, checked against the API's bounds (a
        :class:`pydantic.ValidationError` beyond them): the one conversion from the referee's model."""
        return cls.model_validate(settings.to_json())

    def settings(self) -> GameSettings:
        """The game's settings as the referee reads them: the one conversion to the referee's
        model (both write the same JSON, the body of ``POST /api/games``)."""
        return GameSettings.from_json(self.model_dump(mode="json"))

    @field_validator("press_phases")
    @classmethod
    def _phases(cls, value: tuple[PhaseKind, ...]) -> tuple[PhaseKind, ...]:
        if len(set(value)) != len(value):
            raise ValueError("press_phases lists each kind of phase at most once")
        # canonical order, so that equal settings compare and store equal
        return tuple(kind for kind in PHASE_KINDS.values() if kind in value)  # type: ignore[misc]


class AgainstBots(Body):
    """The body of ``POST /api/games/against-bots``: a game of one person against the server's bots."""

    map: MapName = _DEFAULT.map
    power: PowerName | None = Field(default=None, description="the power the person plays (null: one drawn)")
    bot: SeatSpec | None = Field(default=None, description="the bot of the other seats (null: the server's choice)")
    name: str = Field(default="", max_length=100)
    year_limit: int | None = Field(default=_DEFAULT.year_limit, ge=FIRST_YEAR, le=LAST_YEAR)

    @model_validator(mode="after")
    def _a_power_of_the_map(self) -> AgainstBots:
        why = None if self.power is None else _not_the_map(self.map, [self.power])
        if why is not None:
            raise ValueError(why)
        return self


class AgainstBotsCreated(Body):
    """The answer: the game, the person's power and the name that takes its seat (``NME``)."""

    id: str
    power: PowerName
    name: str = Field(description="the secret name the person joins with: whoever sends it takes the seat")
    bot: str


class PlayerInfo(Body):
    """One power of a game as the public sees it."""

    power: str = Field(description="AUSTRIA, ENGLAND, ...")
    taken: bool = Field(description="a player holds this power (it has been given a passcode)")
    connected: bool = Field(description="that player is connected now")
    civil_disorder: bool = False
    eliminated: bool = False
    bot: str | None = Field(default=None, description="the server's bot given this seat")
    stand_in: str | None = Field(default=None, description="the server's bot playing it while its player is away")


class GameResult(Body):
    """How a finished game ended."""

    outcome: Literal["solo", "draw", "cancelled", "unfinished"] = Field(
        description="unfinished: an imported game whose file stops before its end"
    )
    powers: list[str] = Field(default_factory=list, description="the winner of a solo, or the powers in the draw")
    phase: str = Field(description="the last phase played, such as F1910M")


class GameInfo(Body):
    """A game in ``GET /api/games``: its settings and state, without the position."""

    id: str
    settings: GameCreate
    status: GameStatus
    phase: str | None = Field(default=None, description="the phase now being played, once the game has started")
    created: float = Field(description="seconds since the epoch")
    players: list[PlayerInfo] = Field(default_factory=list)
    observers: int = Field(default=0, ge=0)
    result: GameResult | None = None


class GameList(Body):
    """The body of ``GET /api/games``."""

    games: list[GameInfo]


class GameCreated(Body):
    """The ``201`` answer to ``POST /api/games``."""

    id: str
    settings: GameCreate


class DislodgedUnit(Body):
    """A dislodged unit in a retreat phase."""

    power: str
    retreats: list[str] = Field(description="the provinces it may retreat to")


class GamePosition(Body):
    """A position in the format of the adjudication cases (``docs/adjudication-case.md``)."""

    phase: str = Field(description="S1901M, F1901R, W1901A ...; COMPLETED for a finished game")
    units: dict[str, list[str]] = Field(description='power -> units such as "A PAR", "F STP/SC"')
    centers: dict[str, list[str]] = Field(description="power -> owned supply centres; unowned centres are left out")
    dislodged: dict[str, DislodgedUnit] = Field(default_factory=dict, description="unit -> its power and retreats")


class GameDetail(GameInfo):
    """The body of ``GET /api/games/{id}``: the settings and the public position."""

    position: GamePosition | None = None


class HistoryEntry(Body):
    """One phase played: the orders given, each unit's result and the position after."""

    phase: str
    orders: dict[str, list[str]] = Field(description="power -> the orders it gave, in the short notation")
    results: dict[str, list[str]] = Field(description='unit -> result words ("ok", "bounce", "dislodged", ...)')
    position: GamePosition = Field(description="the position after the phase")


class StandInInfo(Body):
    """A bot of the server that played a person's seat while its player was away."""

    power: PowerName
    bot: str
    since: str = Field(description="the phase it came in")
    until: str | None = Field(default=None, description="the phase its player came back in (null: not yet)")

    @classmethod
    def of(cls, span: StandIn) -> StandInInfo:
        return cls(power=span.power, bot=span.bot, since=span.start, until=span.until)


class GameHistory(Body):
    """The body of ``GET /api/games/{id}/history``: the phases played, oldest first, and who
    stood in for whom (public: everyone was told)."""

    id: str
    phases: list[HistoryEntry]
    stand_ins: list[StandInInfo] = Field(default_factory=list)


class ClientConfig(Body):
    """The body of ``GET /api/config``: what the web page needs to know."""

    nego_url: str | None = Field(default=None, description="the negotiation server's URL, if there is one")
    daide_path: str = Field(default="/daide", description="the websocket path of the DAIDE endpoint")
    daide_port: int | None = Field(default=None, description="the port of the DAIDE binary TCP listener")
    house_bots: list[str] = Field(default_factory=list, description="the bots this server plays (none: no house)")
    house_default: str | None = Field(default=None, description="the bot a game against bots gets by default")
    version: str = ""


class ErrorBody(Body):
    """Every error answer: a message, and where in the input the problem is when known."""

    error: str
    line: int | None = Field(default=None, ge=1)
    column: int | None = Field(default=None, ge=1)


def game_position(position: Position) -> GamePosition:
    """The API form of an engine position."""
    return GamePosition.model_validate(position.to_json())


def history_entry(orders: Mapping[str, Sequence[str]], adjudication: Adjudication) -> HistoryEntry:
    """The API form of a phase played: ``orders`` as given (power -> order texts) and its
    adjudication; the API names a power by its full name, as the position does."""
    before = adjudication.before
    full = before.map.power_names
    return HistoryEntry(
        phase=str(before.phase),
        orders={full[power]: list(texts) for power, texts in orders.items()},
        results={before.unit_name(unit): list(words) for unit, words in adjudication.results.items()},
        position=game_position(adjudication.position),
    )


API_MODELS: tuple[type[BaseModel], ...] = (
    GameCreate,
    GameCreated,
    AgainstBots,
    AgainstBotsCreated,
    GameInfo,
    GameList,
    GameDetail,
    GamePosition,
    GameHistory,
    HistoryEntry,
    StandInInfo,
    ClientConfig,
    ErrorBody,
)
"""Every body of the API, for building the OpenAPI document."""


def json_schemas() -> dict[str, dict[str, Any]]:
    """The JSON schema of each API body, by model name (for the OpenAPI ``components``)."""
    return {
        model.__name__: model.model_json_schema(ref_template="#/components/schemas/{model}") for model in API_MODELS
    }


def _answer(description: str, model: type[BaseModel]) -> dict[str, Any]:
    schema = {"$ref": f"#/components/schemas/{model.__name__}"}
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def openapi(version: str = "") -> dict[str, Any]:
    """The OpenAPI 3.1 document of the JSON API (``GET /api/openapi.json``)."""
    game_id = {"name": "game_id", "in": "path", "required": True, "schema": {"type": "string"}}
    missing = _answer("no such game", ErrorBody)
    components: dict[str, Any] = {}
    for model in API_MODELS:
        schema = model.model_json_schema(ref_template="#/components/schemas/{model}")
        components.update(schema.pop("$defs", {}))
        components[model.__name__] = schema
    return {
        "openapi": "3.1.0",
        "info": {"title": "détente game server", "version": version or "0"},
        "paths": {
            "/api/games": {
                "get": {"summary": "every game", "responses": {"200": _answer("the games", GameList)}},
                "post": {
                    "summary": "create a game",
                    "security": [{"admin": []}],
                    "requestBody": {
                        "required": False,
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/GameCreate"}}},
                    },
                    "responses": {
                        "201": _answer("the game created", GameCreated),
                        "400": _answer("not JSON: the line and column of the problem", ErrorBody),
                        "401": _answer("no admin token, or a wrong one", ErrorBody),
                        "413": _answer("the body is too large", ErrorBody),
                        "422": _answer("settings that cannot be used", ErrorBody),
                    },
                },
            },
            "/api/games/against-bots": {
                "post": {
                    "summary": "a game of one person against the server's bots (anyone; bounded)",
                    "requestBody": {
                        "required": False,
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/AgainstBots"}}},
                    },
                    "responses": {
                        "201": _answer("the game, the power and the name that takes its seat", AgainstBotsCreated),
                        "400": _answer("not JSON: the line and column of the problem", ErrorBody),
                        "422": _answer("a bot this server does not play, or a power of no map", ErrorBody),
                        "429": _answer("no room for another game against bots now", ErrorBody),
                    },
                }
            },
            "/api/games/{game_id}": {
                "get": {
                    "summary": "a game's settings, players and public position",
                    "parameters": [game_id],
                    "responses": {"200": _answer("the game", GameDetail), "404": missing},
                }
            },
            "/api/games/{game_id}/history": {
                "get": {
                    "summary": "every phase played: orders, results, position after",
                    "parameters": [game_id],
                    "responses": {"200": _answer("the phases", GameHistory), "404": missing},
                }
            },
            "/api/config": {
                "get": {"summary": "what the web page needs", "responses": {"200": _answer("the config", ClientConfig)}}
            },
        },
        "components": {
            "schemas": components,
            "securitySchemes": {"admin": {"type": "http", "scheme": "bearer"}},
        },
    }

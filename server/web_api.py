"""The web page's side of the game server: its static files and the JSON it needs beyond the game API.

The page (``server/static/``: HTML, CSS and plain JavaScript modules, no build step) plays
through ``/daide`` and negotiates through the negotiation server's ``/nego`` like any other
client; what a browser cannot do by itself is done here, on the server's own engine and
dialogue assistant, so that the page holds no second copy of the rules:

- ``GET /`` the page, ``/static/...`` its files (revalidated on every load: ``no-cache``).
- ``GET /api/map``: the standard map as the page draws it (:mod:`server.board`): every
  province with its kind, name, coasts, supply centre and home, its shape and where its name
  and units go, the adjacency of armies and fleets, the homes, the powers with their names
  and colours, and the initial position. ``GET /api/maps/{name}``: the same of any map a game
  may be played on; ``GET /api/maps``: those maps, each with its description and powers (the
  lobby's chooser). A map's body is made once, and sent with an ``ETag`` (``no-cache``, as the
  page's files: revalidated, answered 304 when unchanged) and gzipped when the browser takes it.
- ``GET /api/games/{id}/legal?power=ENG``: the legal orders of a power in the current phase,
  in the short notation and in DAIDE (what ``SUB`` carries), by unit.
- ``POST /api/orders/check`` ``{game, power, text}``: one order in the short notation,
  checked as the game master would check it in ``SUB``: its DAIDE text, or why not.
- ``POST /api/english/understand`` ``{game, sender, receiver, text, open_proposal}``: the
  dialogue assistant (:mod:`protocol.english`): the L it understood and its English echo, or
  why not and the closest L.
- ``POST /api/english/render`` ``{l, viewer}`` (or ``{deal, viewer}``): an L message (or a
  deal of a ``confirmed`` frame) in English, as ``viewer`` reads it.

Everything here is public information (the position is public; legal orders follow from it),
so nothing asks for a passcode.
"""

from __future__ import annotations

import asyncio
import functools
import gzip
import hashlib
import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

import engine.orders as eo
from engine import OrderSyntaxError, Position, format_order, legal_orders, parse_order, standard_map
from engine.maps import Map, map_names, variant_map
from engine.position import ADJUSTMENTS, PHASE_KINDS
from protocol.daide.orders import DaideOrderError, order_from_engine
from protocol.english import NotUnderstood, to_english, understand
from protocol.l import LError, parse, parse_levels, to_text
from referee.orders import NOTES, check_order
from server.api_models import Body, shown
from server.board import PowerEntry, map_data
from server.bodies import error_response, read_body
from server.service import GameService

__all__ = ["STATIC_DIR", "routes"]

STATIC_DIR = Path(__file__).parent / "static"
"""The page's files: shipped as package data of ``server``."""

MAX_TEXT = 2_000

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; media-src 'self' data: blob:; "
    "connect-src 'self' ws: wss: http: https:; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "frame-ancestors 'none'"
)
"""The page loads nothing from elsewhere: only the negotiation server is reached, by websocket."""


# --- the bodies ----------------------------------------------------------------------------------


class LegalOrder(Body):
    order: str = Field(description="the short notation: A PAR - BUR")
    daide: str = Field(description="the DAIDE order, as SUB carries it")


class LegalOrders(Body):
    """The body of ``GET /api/games/{id}/legal``."""

    game: str
    power: str
    phase: str
    kind: Literal["movement", "retreat", "adjustment"]
    units: dict[str, list[LegalOrder]] = Field(description="unit (A PAR) -> its legal orders")
    adjustments: list[LegalOrder] = Field(description="builds (and WAIVE) or removals, in an adjustment phase")
    owed: int = Field(description="builds owed (positive) or removals owed (negative)")


class OrderCheck(Body):
    """The body of ``POST /api/orders/check``."""

    game: str = Field(min_length=1, max_length=64)
    power: str = Field(min_length=3, max_length=16)
    text: str = Field(max_length=200)


class OrderChecked(Body):
    ok: bool
    order: str | None = Field(default=None, description="the order in the short notation, normalised")
    daide: str | None = Field(default=None, description="the DAIDE order to SUB")
    unit: str | None = Field(default=None, description="the unit it is for (A PAR), or null for WAIVE")
    note: str | None = Field(default=None, description="the THX note the game master would give")
    reason: str | None = None


class Understand(Body):
    """The body of ``POST /api/english/understand``."""

    game: str | None = Field(default=None, max_length=64)
    sender: str = Field(min_length=3, max_length=16)
    receiver: str = Field(min_length=3, max_length=16)
    text: str = Field(max_length=MAX_TEXT)
    open_proposal: str | None = Field(default=None, max_length=16_384, description="L: the proposal being answered")


class Understanding(Body):
    ok: bool
    l: str | None = Field(default=None, description="the L message understood")
    echo: str | None = Field(default=None, description="it in English, for the writer")
    reason: str | None = None
    closest: str | None = Field(default=None, description="the closest L message that could be built")
    closest_echo: str | None = None
    kind: str | None = Field(
        default=None,
        description="understood: promise, request, proposal or the message's type (accept, query...); not: "
        "not_understood, cannot_say (L cannot say that), no_l (a greeting, or a request for help: nothing to "
        "send) or ask (a word to check)",
    )
    note: str | None = Field(default=None, description="how the message is sent, and the words read otherwise")


class Render(Body):
    """The body of ``POST /api/english/render``: ``l`` (a message) or ``deal`` (of a ``confirmed`` frame)."""

    l: str | None = Field(default=None, max_length=16_384)
    deal: str | None = Field(default=None, max_length=16_384)
    viewer: str | None = Field(default=None, max_length=16)

    @model_validator(mode="after")
    def _one(self) -> Render:
        if (self.l is None) == (self.deal is None):
            raise ValueError("give either l (a message) or deal")
        return self


class Rendered(Body):
    english: str


class MapSummary(Body):
    """A map a game may be played on, as the lobby offers it."""

    name: str
    description: str = Field(description="one line for people choosing a map (the map file's [variant] description)")
    powers: list[PowerEntry]
    provinces: int
    supply_centres: int
    victory_centres: int = Field(description="the supply centres a solo needs")


class MapList(Body):
    """The body of ``GET /api/maps``: every map a game may be played on, the standard one first."""

    maps: list[MapSummary]


def map_list() -> MapList:
    """The maps of :func:`engine.maps.map_names`, the standard one first (the lobby's default)."""
    names = sorted(map_names(), key=lambda name: (name != "standard", name))
    return MapList(maps=[_summary(name) for name in names])


def _summary(name: str) -> MapSummary:
    m, data = variant_map(name), map_data(name)
    return MapSummary(
        name=name,
        description=m.description,
        powers=data.power_table,
        provinces=len(m.provinces),
        supply_centres=len(m.supply_centers),
        victory_centres=m.victory_centers,
    )


@functools.cache
def map_body(name: str) -> tuple[bytes, bytes, str]:
    """The JSON of a map as the page draws it, that JSON gzipped, and its ETag: made once per map
    (a map a game may name never changes while the process runs)."""
    body = json.dumps(map_data(name).model_dump(mode="json"), separators=(",", ":"), ensure_ascii=False).encode()
    return body, gzip.compress(body, compresslevel=9, mtime=0), f'"{hashlib.sha256(body).hexdigest()[:32]}"'


def map_response(request: Request, name: str) -> Response:
    """The map's body, or 304 when the browser has it already; gzipped when it accepts gzip."""
    body, zipped, etag = map_body(name)
    headers = {"ETag": etag, "Cache-Control": "no-cache", "Vary": "Accept-Encoding"}
    if etag in request.headers.get("if-none-match", ""):
        return Response(status_code=304, headers=headers)
    if "gzip" in request.headers.get("accept-encoding", ""):
        return Response(zipped, media_type="application/json", headers={**headers, "Content-Encoding": "gzip"})
    return Response(body, media_type="application/json", headers=headers)


# --- orders ----------------------------------------------------------------------------------


def legal_for(game_id: str, position: Position, power: str) -> LegalOrders:
    """The legal orders of ``power`` (full name) in ``position``, in both notations."""
    units: dict[str, list[LegalOrder]] = {}
    adjustments: list[LegalOrder] = []
    for unit, orders in legal_orders(position, power).items():
        written = [w for w in (_legal(position, power, order) for order in orders) if w is not None]
        if unit is None:
            adjustments = written
        else:
            units[position.unit_name(unit)] = written
    return LegalOrders(
        game=game_id,
        power=position.map.power_names[power],  # the API's spelling
        phase=str(position.phase),
        kind=PHASE_KINDS[position.phase.kind],  # type: ignore[arg-type]
        units=units,
        adjustments=adjustments,
        owed=position.adjustments.get(power, 0) if position.phase.kind == ADJUSTMENTS else 0,
    )


def _legal(position: Position, power: str, order: eo.Order) -> LegalOrder | None:
    try:
        daide = order_from_engine(power, order, position)
    except DaideOrderError:  # a convoyed move with no route over the fleets there are: not one to offer
        return None
    return LegalOrder(order=format_order(position.map, order), daide=str(daide))


def check(position: Position, power: str, text: str) -> OrderChecked:
    """``text`` checked as ``power``'s order, as ``SUB`` would check it (see :func:`referee.orders.check_order`).

    >>> start = Position.initial()
    >>> check(start, "ENG", "a lvp-yor").daide
    '(ENG AMY LVP) MTO YOR'
    >>> check(start, "ENG", "A PAR - BUR").reason
    'that is not your unit'
    """
    m = position.map
    if position.completed:
        return OrderChecked(ok=False, reason="the game is over")
    try:
        order = parse_order(m, text)
    except OrderSyntaxError as exc:
        return OrderChecked(ok=False, reason=str(exc))
    try:
        daide = order_from_engine(power, order, position)
    except DaideOrderError as exc:
        return OrderChecked(ok=False, reason=str(exc))
    note, _, normal = check_order(position, power, daide)
    if normal is None:
        return OrderChecked(ok=False, note=note, reason=NOTES.get(note, note))
    try:
        daide = order_from_engine(power, normal, position)
    except DaideOrderError as exc:  # pragma: no cover - the normal form of a valid order has a route
        return OrderChecked(ok=False, reason=str(exc))
    unit = None if isinstance(normal, eo.Waive) else f"{'AF'[normal.type or 0]} {m.name_of(normal.location)}"
    return OrderChecked(ok=True, order=format_order(m, normal), daide=str(daide), unit=unit, note=note)


# --- English ---------------------------------------------------------------------------------


def _power(name: str, board: Map | None = None) -> str:
    """The power a request names, in any spelling, on the game's map (the standard one when the
    request names no game); KeyError if none."""
    return (board or standard_map()).power(name)


def _power_of_game(name: str, position: Position) -> str | JSONResponse:
    """The power a request names on its game's map, or the 422 answer saying what to give."""
    try:
        return _power(name, position.map)
    except KeyError:
        m = position.map
        return error_response(422, f"power: give a power of the map {m.name}, such as {m.powers[0]}")


def understand_text(
    request: Understand, position: Position | None, levels: Iterable[int] | None = None
) -> Understanding:
    """What the dialogue assistant makes of ``request.text`` (see :mod:`protocol.english`),
    within the game's L ``levels`` (None: all)."""
    board = position.map if position is not None else None
    sender, receiver = _power(request.sender, board), _power(request.receiver, board)
    open_proposal = parse(request.open_proposal) if request.open_proposal else None
    said = understand(request.text, sender, receiver, position=position, open_proposal=open_proposal, levels=levels)
    if isinstance(said, NotUnderstood):
        closest = said.closest
        return Understanding(
            ok=False,
            reason=said.reason,
            closest=None if closest is None else to_text(closest),
            closest_echo=None if closest is None else to_english(closest, viewer=sender),
            kind=said.kind,
        )
    return Understanding(ok=True, l=to_text(said.message), echo=said.echo, kind=said.kind, note=said.note)


def render(request: Render) -> Rendered:
    """An L message (or deal) in English for ``request.viewer``; LError if it is not L.

    >>> render(Render(deal="Agree([eng fra], pce([eng fra]))", viewer="FRA")).english
    'Peace between England and you'
    """
    viewer = _power(request.viewer) if request.viewer else None
    if request.l is not None:
        return Rendered(english=to_english(parse(request.l), viewer=viewer))
    # A deal alone is no message, and the assistant renders messages: say the deal as the content
    # of a proposal and keep what follows the colon ("England proposes to you: <the deal>").
    proposal = parse(f"propose(eng, [fra], {request.deal})")
    text = to_english(proposal, viewer=viewer)
    _, colon, deal = text.partition(": ")
    return Rendered(english=(deal[:1].upper() + deal[1:]) if colon else text)


# --- the routes ------------------------------------------------------------------------------


class _StaticFiles(StaticFiles):
    """The page's files, revalidated on every load so that a new version is never mixed with an old
    one, and gzipped for a browser that takes it (a third of the bytes a phone waits for)."""

    def file_response(self, full_path: Any, stat_result: Any, scope: Scope, status_code: int = 200) -> Response:
        response = super().file_response(full_path, stat_result, scope, status_code)
        response.headers["Cache-Control"] = "no-cache"
        response.headers["Vary"] = "Accept-Encoding"
        takes_gzip = "gzip" in Headers(scope=scope).get("accept-encoding", "")
        if response.status_code != 200 or scope["method"] != "GET" or not takes_gzip:
            return response
        zipped = _gzipped(str(full_path), stat_result.st_mtime_ns, stat_result.st_size)
        headers = {k: v for k, v in response.headers.items() if k.lower() != "content-length"}
        return Response(zipped, status_code, {**headers, "Content-Encoding": "gzip"})


@functools.lru_cache(maxsize=64)
def _gzipped(path: str, mtime_ns: int, size: int) -> bytes:
    """A file of the page, gzipped once per version (its time and size name the version)."""
    return gzip.compress(Path(path).read_bytes(), compresslevel=9, mtime=0)


def routes(service: GameService) -> list[BaseRoute]:
    """The page and its endpoints, to append to the routes of :func:`server.app.create_app`."""

    async def position_of(game_id: str) -> Position | JSONResponse:
        if await service.reader.info(game_id) is None:
            return error_response(404, f"no game {game_id!r}")
        position = await service.reader.position(game_id)
        if position is None:
            return error_response(409, "the game has not started")
        return position  # type: ignore[no-any-return]

    async def index(request: Request) -> Response:
        return FileResponse(
            STATIC_DIR / "index.html", headers={"Cache-Control": "no-cache", "Content-Security-Policy": CSP}
        )

    async def get_map(request: Request) -> Response:
        return await asyncio.to_thread(map_response, request, "standard")

    async def get_map_of(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in map_names():
            return error_response(404, f"no map {shown(name)}: the maps are {', '.join(map_names())}")
        return await asyncio.to_thread(map_response, request, name)

    async def get_maps(request: Request) -> Response:
        body = await asyncio.to_thread(map_list)
        return JSONResponse(body.model_dump(mode="json"), headers={"Cache-Control": "no-cache"})

    async def get_legal(request: Request) -> Response:
        game_id = request.path_params["game_id"]
        position = await position_of(game_id)
        if isinstance(position, JSONResponse):
            return position
        power = _power_of_game(request.query_params.get("power", ""), position)
        if isinstance(power, JSONResponse):
            return power
        body = await asyncio.to_thread(legal_for, game_id, position, power)
        return JSONResponse(body.model_dump(mode="json"))

    async def check_orders(request: Request) -> Response:
        body = await read_body(request, OrderCheck)
        if isinstance(body, JSONResponse):
            return body
        position = await position_of(body.game)
        if isinstance(position, JSONResponse):
            return position
        power = _power_of_game(body.power, position)
        if isinstance(power, JSONResponse):
            return power
        return JSONResponse(check(position, power, body.text).model_dump(mode="json", exclude_none=True))

    async def english_understand(request: Request) -> Response:
        body = await read_body(request, Understand)
        if isinstance(body, JSONResponse):
            return body
        position: Position | None = None
        levels: frozenset[int] | None = None
        if body.game is not None:
            found = await position_of(body.game)
            position = found if isinstance(found, Position) else None
            info = await service.reader.info(body.game)
            levels = None if info is None else frozenset(parse_levels(info.settings.l_levels))
        unknown = _unknown_power(body.sender, body.receiver, board=None if position is None else position.map)
        if unknown is not None:
            return unknown
        return await _answer(lambda: understand_text(body, position, levels))

    async def english_render(request: Request) -> Response:
        body = await read_body(request, Render)
        if isinstance(body, JSONResponse):
            return body
        unknown = _unknown_power(*([body.viewer] if body.viewer else []))
        if unknown is not None:
            return unknown
        return await _answer(lambda: render(body))

    return [
        Route("/", index),
        Mount("/static", app=_StaticFiles(directory=STATIC_DIR), name="static"),
        Route("/api/map", get_map),
        Route("/api/maps", get_maps),
        Route("/api/maps/{name}", get_map_of),
        Route("/api/games/{game_id}/legal", get_legal),
        Route("/api/orders/check", check_orders, methods=["POST"]),
        Route("/api/english/understand", english_understand, methods=["POST"]),
        Route("/api/english/render", english_render, methods=["POST"]),
    ]


def _unknown_power(*names: str, board: Map | None = None) -> JSONResponse | None:
    """The 422 answer for the first name that is no power (of ``board``, standard by default), or None when all are."""
    for name in names:
        try:
            _power(name, board)
        except KeyError:
            return error_response(422, f"unknown power {name!r}: give a power, such as ENG or ENGLAND")
    return None


async def _answer(work: Callable[[], BaseModel]) -> Response:
    """Run the dialogue assistant in a worker thread (its parser is CPU work) and answer; 422 for
    an L text (the open proposal, or the message to render) that is not L."""
    try:
        body = await asyncio.to_thread(work)
    except LError as exc:
        details = exc.to_dict()
        return error_response(422, f"not L: {details.get('message', exc)}", details.get("line"), details.get("column"))
    return JSONResponse(body.model_dump(mode="json", exclude_none=True))

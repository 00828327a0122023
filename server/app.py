"""The Starlette application: the DAIDE websocket endpoint and the JSON API.

- ``/daide``: one DAIDE message per text frame, in text form. ``?game=ID`` picks the game
  for ``NME`` and ``OBS``; otherwise a client lands in the open game; ``IAM`` finds its game
  by the passcode. Binary frames and over-long messages close the connection.
- ``/healthz``; ``/metrics`` (Prometheus text format, with the admin token unless
  ``--public-metrics``); ``GET /api/config``; ``GET /api/games``; ``GET /api/games/{id}`` (settings
  and the public position); ``GET /api/games/{id}/history`` (each phase played: the orders
  given by power in the short notation, such as ``A PAR - BUR``, without the orders that
  defaulted; each unit's result words; the public position after); ``POST /api/games``
  with ``Authorization: Bearer <admin token>``; ``POST /api/games/against-bots`` (anyone's game
  against the server's bots, see :mod:`server.bot_seats`); ``GET /api/schema`` (the JSON schemas of the bodies), ``GET /api/openapi.json`` (the
  OpenAPI 3.1 document).
- ``/``: the web page and its endpoints (see :mod:`server.web_api`).
- ``/internal/feed``: the negotiation server's websocket, with ``Authorization: Bearer
  <secret>`` (see :mod:`server.feed`).

Served by :func:`server.web.run_app`, each request's ``Host`` and each websocket's ``Origin``
are checked first (:func:`server.web.guard_requests`): a page of another site cannot open
``/daide``, nor reach the server through a rebound DNS name.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.metadata
import json
from typing import Any

from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

import formats
from engine import standard_map
from engine.maps import Map, variant_map
from formats import FormatError, mila
from server import export, web_api
from server.api_models import (
    AgainstBots,
    AgainstBotsCreated,
    ClientConfig,
    GameCreate,
    GameCreated,
    GameDetail,
    GameHistory,
    GameList,
    game_position,
    json_schemas,
    openapi,
    power_token,
)
from server.bodies import BodyError, error_response, parse_json, read_body, read_raw
from server.bot_seats import TooManyBotGames
from server.feed import AuthRequest, DeliverRequest, parse_request
from server.metrics import CONTENT_TYPE
from server.service import GameService, GameUnavailable
from server.settings import ServerSettings
from server.web import admin_refused, authorised, drain, lifespan, metrics_refused, stop_writer

__all__ = ["MAX_MESSAGE_CHARS", "create_app"]

MAX_MESSAGE_CHARS = 16_384
"""The longest DAIDE message (in characters) a client may send in one frame."""
MAX_IMPORT_BYTES = 8 * 1024 * 1024
"""The largest game file ``POST /api/games/import`` reads (an admin's: a game of 180 phases with
its press is about 1 MB as MILA JSON)."""


def create_app(service: GameService, settings: ServerSettings, manage_service: bool = True) -> Starlette:
    """The application serving ``service``; with ``manage_service`` its lifespan starts and stops it."""

    async def healthz(request: Request) -> Response:
        """200 while the store takes writes; 503 with the reason while it does not."""
        problem = await service.health.report()
        body = {"status": "ok" if problem is None else "unavailable", "store": problem or "ok"}
        body |= {"games": len(service.games), "connections": len(service.connections)}
        return JSONResponse(body, status_code=200 if problem is None else 503)

    async def metrics(request: Request) -> Response:
        refused = metrics_refused(request, settings.admin_token)
        if refused is not None:
            return refused
        return PlainTextResponse(service.metrics.render(), media_type=CONTENT_TYPE)

    async def config(request: Request) -> Response:
        house = service.bot_seats.house
        body = ClientConfig(
            nego_url=settings.nego_url,
            daide_port=settings.daide_port,
            version=_version(),
            house_bots=list(house.bots) if house is not None else [],
            house_default=house.default_bot if house is not None else None,
        )
        return JSONResponse(body.model_dump(mode="json"))

    async def schema(request: Request) -> Response:
        return JSONResponse(json_schemas())

    async def openapi_document(request: Request) -> Response:
        return JSONResponse(openapi(_version()))

    async def list_games(request: Request) -> Response:
        games = await service.reader.all_info(_finished_shown(request))
        return JSONResponse(GameList(games=games).model_dump(mode="json"))

    async def get_game(request: Request) -> Response:
        game_id = request.path_params["game_id"]
        info = await service.reader.info(game_id)
        if info is None:
            return error_response(404, f"no game {game_id!r}")
        position = await service.reader.position(game_id)
        detail = GameDetail(**info.model_dump(), position=None if position is None else game_position(position))
        return JSONResponse(detail.model_dump(mode="json"))

    async def get_history(request: Request) -> Response:
        game_id = request.path_params["game_id"]
        phases = await service.reader.history(game_id)
        if phases is None:
            return error_response(404, f"no game {game_id!r}")
        stand_ins = await service.reader.stand_ins(game_id)
        return JSONResponse(GameHistory(id=game_id, phases=phases, stand_ins=stand_ins).model_dump(mode="json"))

    async def export_game(request: Request) -> Response:
        """The game as a file of the field's formats: ``?format=mila`` (the default) or ``detente``."""
        game_id = request.path_params["game_id"]
        wanted = request.query_params.get("format", "mila")
        if wanted not in export.FORMATS:
            return error_response(400, f"unknown format {wanted!r}: {' or '.join(export.FORMATS)}")
        document = await service.reader.export(game_id, private=authorised(request, settings.admin_token))
        if document is None:
            return error_response(404, f"no game {game_id!r}")
        body = mila.dump(document) if wanted == "mila" else document
        filename = f"{game_id}.{'mila.' if wanted == 'mila' else ''}json"
        return JSONResponse(body, headers={"Content-Disposition": f'attachment; filename="{filename}"'})

    async def import_game(request: Request) -> Response:
        """An admin's game file (MILA, Cicero/dipcc or détente JSON) as a finished game the lobby lists;
        ``?name=`` names it, ``?public=1`` lets anyone read its messages (else only the admin)."""
        refused = admin_refused(request, settings.admin_token)
        if refused is not None:
            return refused
        try:
            data = parse_json(await read_raw(request, MAX_IMPORT_BYTES))
            document = await asyncio.to_thread(formats.read, data)
        except BodyError as error:
            return error.response()
        except (FormatError, ValueError, KeyError, TypeError) as error:
            return error_response(422, f"not a game file this server reads: {error}".splitlines()[0])
        try:
            name = str(request.query_params.get("name", "imported game"))
            public = request.query_params.get("public") in ("1", "true")  # its press readable by all
            game_id = await service.reader.import_game(document, name, public)
        except (ValueError, ValidationError) as error:
            return error_response(422, f"cannot import this game: {error}".splitlines()[0])
        return JSONResponse({"id": game_id}, status_code=201)

    async def create_game(request: Request) -> Response:
        refused = admin_refused(request, settings.admin_token)
        if refused is not None:
            return refused
        create = await read_body(request, GameCreate)
        if isinstance(create, JSONResponse):
            return create
        why = service.bot_seats.refuse(create)
        if why is not None:
            return error_response(422, why)
        game = await service.create_game(create)
        return JSONResponse(GameCreated(id=game.id, settings=create).model_dump(mode="json"), status_code=201)

    async def against_bots(request: Request) -> Response:
        """Anyone's game against the server's bots (bounded: see :mod:`server.bot_seats`)."""
        wanted = await read_body(request, AgainstBots)
        if isinstance(wanted, JSONResponse):
            return wanted
        address = request.client.host if request.client else None
        try:
            game, power, name = await service.bot_seats.against_bots(wanted, address)
        except TooManyBotGames as error:
            return error_response(429, str(error))
        except ValueError as error:
            return error_response(422, str(error))
        bot = next(iter(game.create.bots.values()))
        created = AgainstBotsCreated(id=game.id, power=power, name=name, bot=bot)
        return JSONResponse(created.model_dump(mode="json"), status_code=201)

    async def daide(websocket: WebSocket) -> None:
        requested = websocket.query_params.get("game")
        if requested is not None and requested not in service.games:
            await websocket.close(code=4404, reason="no such game")
            return
        await websocket.accept()
        conn = service.connect(requested, websocket.client.host if websocket.client else None)
        writer = asyncio.create_task(drain(websocket, conn.outbox, str, lambda: conn.dropped))
        try:
            while not conn.closed:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    break
                text = message.get("text")
                if text is None:
                    conn.drop()  # binary frames are the TCP listener's business
                    break
                if len(text) > MAX_MESSAGE_CHARS:
                    conn.drop()
                    break
                await service.receive(conn, text)
        except (WebSocketDisconnect, RuntimeError):
            pass  # the client went away, or the writer closed the socket
        finally:
            await service.disconnect(conn)
            if not conn.closed:
                conn.close()
            await stop_writer(writer, conn.outbox)  # disconnect() marks it closed without waking the writer

    async def feed(websocket: WebSocket) -> None:
        if not authorised(websocket, settings.secret):
            await websocket.close(code=4401, reason="the shared secret is needed")
            return
        await websocket.accept()
        follower = service.feed.follow()
        for frame in service.snapshot():
            follower.put(frame)
        writer = asyncio.create_task(drain(websocket, follower.outbox, _json, lambda: follower.dropped))
        try:
            while not follower.closed:
                text = await websocket.receive_text()
                answer = await _feed_request(service, text)
                follower.put(answer)
        except (WebSocketDisconnect, RuntimeError, KeyError):
            pass  # gone, or a binary frame (no "text")
        finally:
            service.feed.unfollow(follower)
            writer.cancel()
            with contextlib.suppress(Exception):
                await websocket.close()

    routes = [
        Route("/healthz", healthz),
        Route("/metrics", metrics),
        Route("/api/config", config),
        Route("/api/schema", schema),
        Route("/api/openapi.json", openapi_document),
        Route("/api/games", list_games, methods=["GET"]),
        Route("/api/games", create_game, methods=["POST"]),
        Route("/api/games/import", import_game, methods=["POST"]),
        Route("/api/games/against-bots", against_bots, methods=["POST"]),
        Route("/api/games/{game_id}", get_game),
        Route("/api/games/{game_id}/history", get_history),
        Route("/api/games/{game_id}/export", export_game),
        WebSocketRoute("/daide", daide),
        WebSocketRoute("/internal/feed", feed),
        *web_api.routes(service),
    ]

    async def unavailable(request: Request, exc: Exception) -> Response:
        return error_response(503, f"{exc} cannot be read now: its store failed; try again")

    app = Starlette(
        routes=routes,
        lifespan=lifespan(service.start, service.stop, manage_service),
        exception_handlers={GameUnavailable: unavailable},
    )
    app.state.limits = settings.limits()  # read by read_body, and by run_app for uvicorn
    return app


async def _feed_request(service: GameService, text: str) -> dict[str, Any]:
    """The answer to one request of the negotiation server (see :mod:`server.feed`)."""
    try:
        request = parse_request(text)
    except ValidationError as exc:
        return {"type": "error", "message": f"not a request: {exc.errors()[0]['msg']}"}
    if isinstance(request, AuthRequest):
        try:  # the hello frame may name the power in any spelling: here it becomes its token
            power = (
                power_token(request.power) if request.game is None else _board(service, request.game).power(request.power)
            )
        except KeyError:
            return {"type": "auth", "id": request.id, "ok": False, "game": None, "power": None}
        found = service.check_session(request.game, power, request.session)
        game, power = found if found is not None else (None, None)
        return {"type": "auth", "id": request.id, "ok": found is not None, "game": game, "power": power}
    # an answer names the game and the negotiation's request id, so that the negotiation
    # server can mark that request done whichever connection of the feed sent it; ``retry``
    # says the request was not taken now (the store failed) and should come again
    names = {"id": request.id, "game": request.game, "request": request.request}
    from server.store import StoreError

    if isinstance(request, DeliverRequest):
        try:
            reached = await service.deliver(
                request.game, request.sender, request.recipients, request.press, request.request, request.phase
            )
        except StoreError:
            return {"type": "delivered", **names, "ok": False, "reached": [], "retry": True}
        return {"type": "delivered", **names, "ok": reached is not None, "reached": reached or [], "retry": False}
    try:
        orders = _by_power(_board(service, request.game), request.orders)
        ok = await service.bind(request.game, request.phase, orders, request.request)
    except StoreError:
        return {"type": "bound", **names, "ok": False, "retry": True}
    return {"type": "bound", **names, "ok": ok, "retry": False}


def _board(service: GameService, game_id: str) -> Map:
    """The map of a live game (the standard one for a game the server does not hold: no power of
    it is found then, as none is in play)."""
    game = service.games.get(game_id)
    return variant_map(game.create.map) if game is not None else standard_map()


def _by_power(m: Map, orders: dict[str, list[str]]) -> dict[str, list[str]]:
    """A bind request's orders by power, whichever spelling it names them in; a name that is no
    power of the map binds nothing."""
    out = {}
    for name, texts in orders.items():
        with contextlib.suppress(KeyError):
            out[m.power(name)] = texts
    return out


FINISHED_SHOWN = 50
"""Finished games ``GET /api/games`` lists by default (the most recent); ``?finished=N`` asks for
more, up to :data:`FINISHED_SHOWN_MAX`."""
FINISHED_SHOWN_MAX = 10_000


def _finished_shown(request: Request) -> int:
    try:
        asked = int(request.query_params.get("finished", FINISHED_SHOWN))
    except ValueError:
        asked = FINISHED_SHOWN
    return max(0, min(asked, FINISHED_SHOWN_MAX))


def _version() -> str:
    try:
        return importlib.metadata.version("detente")
    except importlib.metadata.PackageNotFoundError:
        return ""


def _json(frame: dict[str, Any]) -> str:
    return json.dumps(frame, separators=(",", ":"))

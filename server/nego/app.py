"""The negotiation server's Starlette application.

- ``/nego``: the negotiation websocket, one JSON object per text frame (see
  :mod:`server.nego.frames`). A frame that is not JSON, or not a frame of the protocol,
  gets an ``error`` frame with code ``frame``; a binary frame or one over
  :data:`MAX_FRAME_CHARS` closes the connection.
- ``GET /api/games/{id}/log`` with ``Authorization: Bearer <admin token>``: every record of
  a game, private messages included, oldest first.
- ``/healthz``; ``/metrics`` (Prometheus text format), with ``Authorization: Bearer <admin
  token>`` unless the limits say ``public_metrics``.

The ``Origin`` and ``Host`` of each request are checked before it reaches the application
(:func:`server.web.guard_requests`): ``/nego`` accepts, besides no ``Origin``, its own and the
game server's page (``--game-server``).
"""

from __future__ import annotations

import asyncio
import json
import time

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from server.metrics import CONTENT_TYPE
from server.nego.frames import FrameError, Hello, Sync, error, parse_frame
from server.nego.service import NegoService
from server.web import Limits, authorised, drain, lifespan, metrics_refused, stop_writer

__all__ = ["MAX_FRAME_CHARS", "create_nego_app"]

MAX_FRAME_CHARS = 32_768


def create_nego_app(
    service: NegoService, admin_token: str, manage_service: bool = True, limits: Limits | None = None
) -> Starlette:
    """The application serving ``service``; with ``manage_service`` its lifespan starts and stops
    it. ``limits`` (by default :class:`server.web.Limits`' defaults) bound each client when
    :func:`server.web.run_app` serves it."""

    async def healthz(request: Request) -> Response:
        """200 while the store takes writes; 503 with the reason while it does not."""
        problem = await service.health.report()
        following = service.link.connected.is_set()
        body = {"status": "ok" if problem is None else "unavailable", "store": problem or "ok", "following": following}
        body |= {"games": len(service.games), "clients": len(service.clients)}
        return JSONResponse(body, status_code=200 if problem is None else 503)

    async def metrics(request: Request) -> Response:
        refused = metrics_refused(request, admin_token)
        if refused is not None:
            return refused
        return PlainTextResponse(service.metrics.render(), media_type=CONTENT_TYPE)

    async def game_log(request: Request) -> Response:
        if not authorised(request, admin_token):
            return JSONResponse(
                {"error": "an admin token is needed"}, status_code=401, headers={"WWW-Authenticate": "Bearer"}
            )
        game_id = request.path_params["game_id"]
        if await asyncio.to_thread(service.store.game, game_id) is None:
            return JSONResponse({"error": f"no game {game_id!r}"}, status_code=404)
        events = await asyncio.to_thread(service.store.events, game_id)
        records = [{"seq": e.seq, "at": e.at, **e.payload} for e in events]
        return JSONResponse({"id": game_id, "records": records})

    async def nego(websocket: WebSocket) -> None:
        await websocket.accept()
        client = service.connect(websocket.client.host if websocket.client else None)
        writer = asyncio.create_task(drain(websocket, client.outbox, _json, lambda: client.dropped))
        try:
            while not client.closed:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    break
                text = message.get("text")
                if text is None or len(text) > MAX_FRAME_CHARS:
                    client.drop()
                    break
                started = time.perf_counter()
                try:
                    frame = parse_frame(text)
                except FrameError as e:
                    client.put(error("frame", str(e), e.request_id))
                    continue
                finally:
                    service.metrics.stage("frame", time.perf_counter() - started)
                if isinstance(frame, Hello):
                    await service.hello(client, frame.game, frame.power, frame.session)
                elif isinstance(frame, Sync):
                    # this connection's frames are taken one at a time, and its every earlier
                    # answer and delivery is queued already: this one comes after them all
                    client.put({"type": "synced", "id": frame.id})
                else:
                    await service.say(client, frame.text, frame.id)
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            await service.disconnect(client)
            await stop_writer(writer, client.outbox)

    routes = [
        Route("/healthz", healthz),
        Route("/metrics", metrics),
        Route("/api/games/{game_id}/log", game_log),
        WebSocketRoute("/nego", nego),
    ]
    app = Starlette(routes=routes, lifespan=lifespan(service.start, service.stop, manage_service))
    app.state.limits = limits or Limits()
    return app


def _json(frame: dict) -> str:
    return json.dumps(frame, separators=(",", ":"))

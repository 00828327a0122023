"""The game server end to end: a real uvicorn on loopback, real websocket clients."""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace
from typing import Any

import pytest
import websockets
from starlette.requests import Request
from starlette.responses import JSONResponse

from server.api_models import GameCreate
from server.app import create_app
from server.bodies import MAX_BODY_BYTES, read_body
from server.settings import ServerSettings
from tests.server.ws_helpers import TOKEN, DaideClient, Running, http


async def seven(url: str) -> list[DaideClient]:
    clients = [await DaideClient.open(url) for _ in range(7)]
    for i, client in enumerate(clients):
        await client.join(f"bot{i}")
    for client in clients:
        await client.hello()
    assert sorted(c.power or "" for c in clients) == ["AUS", "ENG", "FRA", "GER", "ITA", "RUS", "TUR"]
    return clients


async def play_holds(clients: list[DaideClient], now_texts: list[str]) -> list[list[str]]:
    """Every client holds every unit; each sees THX per order, 22 ORD and the next NOW."""
    for client, now_text in zip(clients, now_texts, strict=True):
        sub, count = client.holds(now_text)
        await client.send(sub)
        for _ in range(count):
            assert (await client.expect("THX")).endswith("(MBV)")
    seens = []
    for client in clients:
        seen = await client.until("NOW")
        assert sum(1 for text in seen if text.startswith("ORD")) == 22
        seens.append(seen)
    return seens


async def play_spring(clients: list[DaideClient], now_texts: list[str], given: dict[str, tuple[str, int]]) -> None:
    """Spring 1901: the powers in ``given`` send their ``SUB`` (and its number of orders), the
    others hold every unit; every order is acknowledged and every client reaches the fall."""
    for client, now_text in zip(clients, now_texts, strict=True):
        sub, count = given[client.power] if client.power in given else client.holds(now_text)
        await client.send(sub)
        for _ in range(count):
            assert (await client.expect("THX")).endswith("(MBV)")
    for client in clients:
        assert (await client.until("NOW"))[-1].startswith("NOW (FAL 1901)")


async def test_healthz_and_config(server: Running) -> None:
    status, body = await http("GET", f"{server.http}/healthz")
    assert status == 200 and body["status"] == "ok" and body["games"] >= 1
    status, body = await http("GET", f"{server.http}/api/config")
    assert status == 200 and body["daide_path"] == "/daide"
    status, body = await http("GET", f"{server.http}/api/openapi.json")
    assert status == 200 and "/api/games/{game_id}/history" in body["paths"]


async def test_api_games_and_admin_token(server: Running) -> None:
    status, body = await http("POST", f"{server.http}/api/games", {"name": "x"})
    assert status == 401 and "token" in body["error"]
    status, body = await http("POST", f"{server.http}/api/games", {"name": "x"}, token="wrong")
    assert status == 401
    status, body = await http("POST", f"{server.http}/api/games", {"press_level": 7}, token=TOKEN)
    assert status == 422 and "press_level" in body["error"]
    status, created = await http(
        "POST", f"{server.http}/api/games", {"name": "mine", "press_level": 10, "deadlines": None}, token=TOKEN
    )
    assert status == 201 and isinstance(created["id"], str)
    assert created["settings"]["press_level"] == 10 and created["settings"]["deadlines"] is None
    status, listing = await http("GET", f"{server.http}/api/games")
    assert status == 200
    by_id = {g["id"]: g for g in listing["games"]}
    assert by_id[created["id"]]["status"] == "forming" and len(by_id) == 2  # and the open game
    status, detail = await http("GET", f"{server.http}/api/games/{created['id']}")
    assert status == 200 and detail["settings"]["name"] == "mine" and detail["position"] is None
    status, body = await http("GET", f"{server.http}/api/games/nope")
    assert status == 404

    # NME with ?game=ID joins that game, not the open one
    client = await DaideClient.open(f"{server.ws}?game={created['id']}")
    await client.join()
    status, detail = await http("GET", f"{server.http}/api/games/{created['id']}")
    assert sum(p["taken"] for p in detail["players"]) == 1
    await client.close()
    with pytest.raises(websockets.InvalidStatus):
        await websockets.connect(f"{server.ws}?game=nope")


async def test_a_game_of_seven_to_a_draw_with_an_observer(server: Running) -> None:
    clients = await seven(server.ws)
    for client in clients:
        await client.expect("SCO")
    nows = [await client.expect("NOW") for client in clients]
    assert all(now.startswith("NOW (SPR 1901)") for now in nows)
    game_id = (await http("GET", f"{server.http}/api/games"))[1]["games"]
    playing = [g for g in game_id if g["status"] == "playing"]
    assert len(playing) == 1 and any(g["status"] == "forming" for g in game_id)  # a new game is open
    gid = playing[0]["id"]

    observer = await DaideClient.open(f"{server.ws}?game={gid}")
    await observer.send("OBS")
    assert await observer.expect("YES") == "YES (OBS)"
    await observer.expect("MAP")

    nows = [seen[-1] for seen in await play_holds(clients, nows)]
    assert all(now.startswith("NOW (FAL 1901)") for now in nows)
    seen = await observer.until("NOW")
    assert sum(1 for t in seen if t.startswith("ORD")) == 22 and seen[-1] == nows[0]
    seens = await play_holds(clients, nows)
    assert all(seen[-1].startswith("NOW (SPR 1902)") for seen in seens)
    assert all(any(t.startswith("SCO") for t in seen) for seen in seens)  # the autumn tells the centres

    status, detail = await http("GET", f"{server.http}/api/games/{gid}")
    assert detail["phase"] == "S1902M" and detail["position"]["units"]["ENGLAND"] == ["F EDI", "F LON", "A LVP"]
    assert all(p["connected"] for p in detail["players"]) and detail["observers"] == 1

    for client in clients:
        await client.send("DRW")
        assert await client.expect("YES") == "YES (DRW)"
    for client in [*clients, observer]:
        assert await client.expect("DRW") == "DRW"
        await client.expect("SMR")
    status, detail = await http("GET", f"{server.http}/api/games/{gid}")
    assert detail["status"] == "finished" and detail["result"]["outcome"] == "draw"
    for client in [*clients, observer]:
        await client.close()


async def test_rejoin_with_iam_and_wrong_passcode(server: Running) -> None:
    clients = await seven(server.ws)
    first = clients[0]
    await first.close()
    for other in clients[1:]:
        assert await other.expect("CCD") == f"CCD ({first.power})"
    assert first.passcode is not None
    impostor = await DaideClient.open(server.ws)
    await impostor.send(f"IAM ({first.power}) ({first.passcode % 8191 + 1})")
    assert (await impostor.expect("REJ")).startswith("REJ (IAM")
    back = await DaideClient.open(server.ws)
    await back.send(f"IAM ({first.power}) ({first.passcode})")
    assert (await back.expect("YES")).startswith("YES (IAM")
    for other in clients[1:]:
        assert await other.expect("NOT") == f"NOT (CCD ({first.power}))"
    await back.send("NOW")
    assert (await back.expect("NOW")).startswith("NOW (SPR 1901)")
    for client in [*clients[1:], back, impostor]:
        await client.close()


async def test_bad_frames_are_refused(server: Running) -> None:
    client = await DaideClient.open(server.ws)
    await client.send("NME (")
    assert (await client.expect("")).startswith(("HUH", "PRN"))
    await client.ws.send(b"\x00\x01")  # a binary frame: closed
    with pytest.raises(websockets.ConnectionClosed):
        async with asyncio.timeout(10):
            await client.ws.recv()
    big = await DaideClient.open(server.ws)
    await big.send("ADM ('x') ('" + "a" * 20_000 + "')")
    with pytest.raises(websockets.ConnectionClosed):
        async with asyncio.timeout(10):
            await big.ws.recv()


# --- bodies: read no further than the limit, and every bad body a 4xx ------------------------


def _request(chunks: list[bytes], headers: dict[str, str] | None = None) -> tuple[Request, list[int]]:
    """A POST whose body arrives in ``chunks``; the list counts the chunks the reader took."""
    taken: list[int] = []

    async def receive() -> dict[str, Any]:
        taken.append(len(taken))
        i = len(taken) - 1
        if i < len(chunks):
            return {"type": "http.request", "body": chunks[i], "more_body": i + 1 < len(chunks)}
        return {"type": "http.disconnect"}

    raw_headers = [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
    scope = {"type": "http", "method": "POST", "path": "/", "headers": raw_headers, "query_string": b""}
    return Request(scope, receive), taken


def _answer(response: Any) -> tuple[int, dict[str, Any]]:
    assert isinstance(response, JSONResponse)
    return response.status_code, json.loads(bytes(response.body))


async def test_a_body_over_the_limit_by_its_length_is_refused_unread() -> None:
    request, taken = _request([b"{}"], {"content-length": str(100 * 1024 * 1024)})
    status, body = _answer(await read_body(request, GameCreate))
    assert status == 413 and "too large" in body["error"] and taken == []
    request, taken = _request([b"{}"], {"content-length": "9" * 5_000})  # more digits than int() takes
    assert _answer(await read_body(request, GameCreate))[0] == 413 and taken == []


async def test_a_chunked_body_is_read_only_up_to_the_limit() -> None:
    chunks = [b" " * 16_384] * 1_000  # 16 MB without a length: chunked
    request, taken = _request(chunks)
    status, body = _answer(await read_body(request, GameCreate))
    assert status == 413 and "65536" in body["error"]
    assert len(taken) == MAX_BODY_BYTES // 16_384 + 1  # the chunk that passed the limit, and no more


async def test_a_body_at_the_limit_is_read() -> None:
    text = json.dumps({"name": "x"}).encode()
    request, _ = _request([text, b" " * (MAX_BODY_BYTES - len(text))])
    assert isinstance(await read_body(request, GameCreate), GameCreate)


@pytest.mark.parametrize(
    ("raw", "status", "words", "where"),
    [
        (b"[" * 60_000, 400, "nested too deeply", None),
        (b'{"name": "\xff"}', 400, "not UTF-8", (1, 11)),
        (b'{\n  "name": "caf\xc3\xa9 \xc3"}', 400, "not UTF-8", (2, 17)),
        (b'{"year_limit": ' + b"9" * 5_000 + b"}", 400, "too many digits", None),
        (b'{"deadlines": {"movement": NaN, "retreat": 1, "adjustment": 1}}', 400, "NaN is not JSON", None),
        (b'{"deadlines": {"movement": -Infinity, "retreat": 1, "adjustment": 1}}', 400, "Infinity", None),
        (b'{"deadlines": {"movement": 1e999, "retreat": 1, "adjustment": 1}}', 400, "out of range", None),
        (b'{"name": "x",\n "press_level": }', 400, "invalid JSON", (2, 17)),
        (b'{"deadlines": {"movement": 1e-300, "retreat": 1, "adjustment": 1}}', 422, "deadlines.movement", None),
        (b'{"deadlines": {"movement": true, "retreat": 1, "adjustment": 1}}', 422, "deadlines.movement", None),
        (b'{"year_limit": 99999}', 422, "year_limit", None),
        (b'{"name": "' + b"n" * 101 + b'"}', 422, "name", None),
        (b'{"l_levels": "' + b"1-8," * 1_000 + b'1"}', 422, "l_levels", None),
        (b'{"reserved": {"FRANCE": "' + b"r" * 101 + b'"}}', 422, "reserved.FRANCE", None),
        (b"[1, 2]", 422, "body", None),
    ],
)
async def test_bad_bodies_get_a_4xx_with_where_when_known(
    raw: bytes, status: int, words: str, where: tuple[int, int] | None
) -> None:
    request, _ = _request([raw])
    got, body = _answer(await read_body(request, GameCreate))
    assert got == status and words in body["error"], body
    assert (body.get("line"), body.get("column")) == (where or (None, None))
    assert len(body["error"]) <= 1_000


async def test_a_422_names_a_few_problems_and_counts_the_rest() -> None:
    reserved = {power: "x" * 200 for power in ("AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY")}
    request, _ = _request([json.dumps({"reserved": reserved}).encode()])
    status, body = _answer(await read_body(request, GameCreate))
    assert status == 422 and body["error"].endswith("and 2 more")


async def test_the_body_limit_is_the_applications() -> None:
    service = SimpleNamespace(start=None, stop=None)  # create_app only hands these to the lifespan
    app = create_app(service, ServerSettings(admin_token="t", secret="s", max_body_bytes=1_024))  # type: ignore[arg-type]
    assert app.state.limits.max_body_bytes == 1_024
    request, taken = _request([b" " * 2_000])
    request.scope["app"] = app
    assert _answer(await read_body(request, GameCreate))[0] == 413 and len(taken) == 1

"""The negotiation server's feed on a real game server: events, session checks, FRM relay, binding."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import websockets

from tests.server.nego_helpers import JsonClient
from tests.server.test_app import play_holds, seven
from tests.server.ws_helpers import TOKEN, Running, http

SECRET = "s3cret"


class Feed(JsonClient):
    """The negotiation server's side of ``/internal/feed``."""

    @classmethod
    async def open(cls, server: Running, secret: str = SECRET) -> Feed:
        url = f"ws://127.0.0.1:{server.port}/internal/feed"
        return cls(await websockets.connect(url, additional_headers={"Authorization": f"Bearer {secret}"}))


async def press_game(server: Running, **settings: Any) -> str:
    body = {"name": "press", "press_level": 10, "deadlines": None, **settings}
    status, created = await http("POST", f"{server.http}/api/games", body, token=TOKEN)
    assert status == 201
    return str(created["id"])


async def test_the_feed_needs_the_secret(server: Running) -> None:
    with pytest.raises(websockets.exceptions.InvalidStatus):
        feed = await Feed.open(server, secret="wrong")
        await feed.ws.recv()


async def test_games_phases_press_results_and_sessions(server: Running) -> None:
    feed = await Feed.open(server)
    open_game = await feed.expect("game", state="forming")
    assert open_game["settings"]["l_levels"] == "1-8"
    gid = await press_game(server)
    created = await feed.expect("game", game=gid)
    assert created["settings"]["press_level"] == 10 and created["phase"] is None
    clients = await seven(f"{server.ws}?game={gid}")
    phase = await feed.expect("phase", game=gid)
    assert phase == {"type": "phase", "game": gid, "phase": "S1901M", "kind": "movement", "deadline": None}

    eng = next(c for c in clients if c.power == "ENG")
    await feed.send({"type": "auth", "id": 1, "game": gid, "power": "ENG", "session": eng.session})
    assert await feed.expect("auth", id=1) == {"type": "auth", "id": 1, "ok": True, "game": gid, "power": "ENG"}
    await feed.send({"type": "auth", "id": 5, "power": "ENG", "session": eng.session})  # the token finds the game
    assert (await feed.expect("auth", id=5))["game"] == gid
    await feed.send({"type": "auth", "id": 2, "game": gid, "power": "FRA", "session": eng.session})
    assert (await feed.expect("auth", id=2))["ok"] is False
    await feed.send({"type": "auth", "id": 3, "game": "nope", "power": "ENG", "session": eng.session})
    assert (await feed.expect("auth", id=3))["ok"] is False

    # DAIDE press is followed; press from the negotiation server reaches DAIDE clients as FRM
    fra = next(c for c in clients if c.power == "FRA")
    await eng.send("SND (FRA) (PRP (PCE (ENG FRA)))")
    await eng.expect("YES (SND")
    press = await feed.expect("press", game=gid)
    assert (press["sender"], press["recipients"], press["press"]) == ("ENG", ["FRA"], "PRP (PCE (ENG FRA))")
    assert (await fra.expect("FRM")) == "FRM (ENG) (FRA) (PRP (PCE (ENG FRA)))"
    await feed.send(
        {
            "type": "deliver",
            "id": 4,
            "game": gid,
            "sender": "FRA",
            "recipients": ["ENG"],
            "press": "YES (PRP (PCE (ENG FRA)))",
        }
    )
    assert (await feed.expect("delivered", id=4))["reached"] == ["ENG"]
    assert (await eng.expect("FRM")) == "FRM (FRA) (ENG) (YES (PRP (PCE (ENG FRA))))"

    now_texts = [await c.expect("NOW") for c in clients]
    await play_holds(clients, now_texts)
    results = await feed.expect("results", game=gid)
    assert results["phase"] == "S1901M" and results["before"]["phase"] == "S1901M"
    assert results["after"]["phase"] == "F1901M"
    assert sorted(results["orders"]["ENGLAND"]) == ["A LVP H", "F EDI H", "F LON H"]
    assert results["results"]["F LON"] == ["ok"]
    assert (await feed.expect("phase", game=gid))["phase"] == "F1901M"
    await asyncio.gather(*(c.close() for c in clients))


@pytest.mark.parametrize("binding", [True, False])
async def test_confirmed_commitments_bind_only_in_a_binding_game(server: Running, binding: bool) -> None:
    feed = await Feed.open(server)
    gid = await press_game(server, binding=binding)
    clients = await seven(f"{server.ws}?game={gid}")
    await feed.expect("phase", game=gid)
    orders = {"ENGLAND": ["F LON - NTH", "not an order"], "ATLANTIS": ["A PAR H"]}
    await feed.send({"type": "bind", "id": 9, "game": gid, "phase": "S1901M", "orders": orders, "request": "bind:3"})
    bound = await feed.expect("bound", id=9)
    assert bound == {"type": "bound", "id": 9, "game": gid, "request": "bind:3", "ok": True, "retry": False}
    await feed.send({"type": "bind", "id": 10, "game": gid, "phase": "F1901M", "orders": {"ENGLAND": ["F LON H"]}})
    assert (await feed.expect("bound", id=10))["ok"] is False  # another phase than the current: not held
    # the same request again (its answer was lost, say) is held already and not applied again:
    # it would otherwise replace the later binding below
    await feed.send({"type": "bind", "id": 11, "game": gid, "phase": "S1901M", "orders": orders, "request": "bind:5"})
    await feed.expect("bound", id=11, ok=True)
    again = {"ENGLAND": ["F LON H"]}
    await feed.send({"type": "bind", "id": 12, "game": gid, "phase": "S1901M", "orders": again, "request": "bind:3"})
    await feed.expect("bound", id=12, ok=True, request="bind:3")
    now_texts = [await c.expect("NOW") for c in clients]
    await play_holds(clients, now_texts)
    results = await feed.expect("results", game=gid)
    expected = "F LON - NTH" if binding else "F LON H"
    assert expected in results["orders"]["ENGLAND"]
    assert ("F NTH" in results["after"]["units"]["ENGLAND"]) is binding
    await asyncio.gather(*(c.close() for c in clients))


async def test_bad_requests_get_an_error_frame(server: Running) -> None:
    feed = await Feed.open(server)
    await feed.ws.send("{not json")
    assert (await feed.expect("error"))["message"].startswith("not a request")
    await feed.send({"type": "deliver", "id": 1, "game": "nope", "sender": "ENG", "recipients": ["FRA"], "press": "x"})
    assert (await feed.expect("delivered", id=1))["ok"] is False

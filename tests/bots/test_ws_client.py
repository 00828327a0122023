"""The websocket client against a real server on loopback: a short game, a dropped connection, IAM."""

from __future__ import annotations

import argparse
import asyncio
import random
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import websockets

from bots.base import HoldBot, RandomBot
from bots.session import BotSession
from bots.ws_client import ConnectionFailed, WsClient, observe
from detente import bot_command
from engine import Position
from protocol.daide.messages import Drw, Hlo, Iam, MapMessage, Nme, Now, Rej, Smr, SmrEntry, Turn, Value, VariantOption, Yes
from protocol.daide.orders import unit_from_engine
from tests.server.ws_helpers import TOKEN, Running, http, running_server

TIMEOUT = 25.0


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[Running]:
    async with running_server(tmp_path) as running:
        yield running


async def new_game(server: Running, year_limit: int) -> str:
    status, created = await http(
        "POST", f"{server.http}/api/games", {"name": "ws", "deadlines": None, "year_limit": year_limit}, token=TOKEN
    )
    assert status == 201
    return str(created["id"])


async def test_seven_clients_play_a_game_and_one_comes_back_with_iam(server: Running) -> None:
    game = await new_game(server, 1902)
    dropped: list[str] = []

    async def drop_once(client: WsClient) -> None:
        """The test closes the socket when the first orders of the spring of 1902 are due."""
        position = client.session.position
        if not dropped and position is not None and str(position.phase) == "S1902M":
            dropped.append(str(position.phase))
            await client.ws.close()

    clients = [
        WsClient(BotSession(RandomBot(random.Random(i)) if i % 2 else HoldBot()), server.ws, game) for i in range(7)
    ]
    clients[3].before_orders = drop_once
    async with asyncio.timeout(TIMEOUT):
        watcher = asyncio.create_task(observe(server.ws, game))
        sessions = await asyncio.gather(*(client.run() for client in clients))
        watched = await watcher

    assert dropped == ["S1902M"] and clients[3].connections == 2
    assert all(c.connections == 1 for i, c in enumerate(clients) if i != 3)
    assert sorted(s.power or "" for s in sessions) == sorted(server_powers())
    status, detail = await http("GET", f"{server.http}/api/games/{game}")
    assert status == 200 and detail["status"] == "finished" and detail["result"]["outcome"] == "draw"
    status, history = await http("GET", f"{server.http}/api/games/{game}/history")
    played = [phase["phase"] for phase in history["phases"]]
    assert played[0] == "S1901M" and "S1902M" in played
    for session in [*sessions, watched]:
        assert isinstance(session.result, Drw) and session.summary is not None and session.over
        assert not session.rejected and not session.discarded
        assert session.position is not None and session.position.phase.year == 1903
    final = {p: sorted(units) for p, units in detail["position"]["units"].items()}
    assert {p: sorted(units) for p, units in watched.position.to_json()["units"].items()} == final  # type: ignore[union-attr]


def server_powers() -> list[str]:
    return ["AUS", "ENG", "FRA", "GER", "ITA", "RUS", "TUR"]


async def test_detente_bot_plays_beside_six_clients(server: Running, capsys: pytest.CaptureFixture[str]) -> None:
    game = await new_game(server, 1901)
    parser = argparse.ArgumentParser()
    bot_command.add_arguments(parser)
    args = parser.parse_args(["randombot", "--server", server.ws, "--game", game, "--seed", "3", "--nego", "ws://x"])
    async with asyncio.timeout(TIMEOUT):
        command = asyncio.create_task(asyncio.to_thread(bot_command.run, args))
        others = [WsClient(BotSession(HoldBot()), server.ws, game).run() for _ in range(6)]
        await asyncio.gather(*others)
        assert await command == 0
    out, err = capsys.readouterr()
    assert "randombot does not negotiate; --nego is ignored" in err
    assert re.search(r"^[A-Z]+ \(randombot\): game drawn before S1902M, \d+ centres$", out, re.MULTILINE)


async def test_an_unknown_game_is_refused_and_no_server_is_a_failure(server: Running) -> None:
    with pytest.raises(websockets.InvalidStatus):
        await WsClient(BotSession(HoldBot()), server.ws, "nope").run()
    nowhere = WsClient(BotSession(HoldBot()), "ws://127.0.0.1:9/daide", retries=1, backoff=0.01)
    with pytest.raises(ConnectionFailed):
        await nowhere.run()


async def test_a_refused_iam_is_tried_again_until_the_server_lets_the_player_back() -> None:
    """A scripted server: seats the bot and drops it, refuses its first IAM, takes the second, ends the game."""
    hlo = Hlo("ENG", 42, (VariantOption("LVL", 0),))
    heard: list[list[str]] = []

    async def handler(ws: Any) -> None:
        heard.append([])
        number = len(heard)

        async def expect(prefix: str) -> None:
            while not (text := await ws.recv()).startswith(prefix):
                heard[-1].append(text)
            heard[-1].append(text)

        async def send(*messages: Value) -> None:
            for message in messages:
                await ws.send(str(message))

        if number == 1:
            await expect("NME")
            await send(Yes(Nme("holdbot", "1.0")), MapMessage("standard"), hlo)
            await expect("YES (MAP")
        elif number == 2:
            await expect("IAM")
            await send(Rej(Iam("ENG", 42)))
            await ws.wait_closed()  # the client, refused, closes
        else:
            await expect("IAM")
            start = Position.initial()
            now = Now(Turn("SPR", 1901), tuple(unit_from_engine(u, start.map) for u in start.units))
            await send(Yes(Iam("ENG", 42)), Drw(), Smr(Turn("SPR", 1901), (SmrEntry("ENG", "h", "1", 3),)), now)
            await ws.wait_closed()

    async with websockets.serve(handler, "127.0.0.1", 0) as fake:
        port = fake.sockets[0].getsockname()[1]
        client = WsClient(BotSession(HoldBot()), f"ws://127.0.0.1:{port}/daide", backoff=0.01)
        async with asyncio.timeout(TIMEOUT):
            session = await client.run()
    assert client.connections == 3 and session.over and isinstance(session.result, Drw) and session.refused is None
    assert heard[1][0] == heard[2][0] == "IAM (ENG) (42)"
    assert session.position is not None and str(session.position.phase) == "S1901M"

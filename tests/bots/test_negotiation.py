"""Negotiating bots: in process on the simulated clock, and over the network on real servers."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

from bots.base import HoldBot
from referee.settings import GameSettings
from bots.inprocess import GameSetup, play_game
from bots.nego_client import play_negotiating
from bots.randomnegotiator import RandomNegotiator
from bots.session import BotSession
from bots.ws_client import WsClient
from protocol.l import parse
from tests.server.nego_helpers import running_nego
from tests.server.ws_helpers import TOKEN, http, running_server

SETUP = GameSetup(seed=11, bots=("randomnegotiator",) * 4 + ("dumbbot",) * 3, settings=GameSettings(year_limit=1903))


def test_random_negotiators_negotiate_in_process_and_a_seed_replays_it() -> None:
    record = play_game(SETUP)
    kinds = {m["kind"] for m in record.messages}
    assert {"propose", "accept", "reject"} <= kinds
    negotiators = {p for p, name in record.bots.items() if name == "randomnegotiator"}
    for message in record.messages:
        parsed = parse(message["text"])  # stored in normal form
        assert parsed.sender == message["sender"] and message["level"] == 1
        assert message["sender"] in negotiators  # DumbBots never speak
        if message["kind"] != "propose":  # they answer negotiators only
            assert set(message["recipients"]) <= negotiators
    assert any(e["type"] == "confirmed" for e in record.events)
    assert any(e["type"] == "compliance" for e in record.events)
    assert play_game(SETUP).to_json() == record.to_json()
    other = play_game(GameSetup(seed=12, bots=SETUP.bots, settings=GameSettings(year_limit=1903)))
    assert other.messages != record.messages


def test_the_reply_protocol_in_process_refuses_what_it_must() -> None:
    record = play_game(GameSetup(seed=5, bots=("randomnegotiator",) * 7, settings=GameSettings(year_limit=1902, protocol="reply")))
    assert len(record.messages) > 20
    pending: set[tuple[str, str]] = set()
    phase = ""
    for message in record.messages:
        if message["phase"] != phase:  # proposals expire with their phase
            phase, pending = message["phase"], set()
        pair = tuple(sorted((message["sender"], *message["recipients"])))
        assert len(pair) == 2
        if message["kind"] == "propose":
            assert pair not in pending  # one pending proposal between two powers at a time
            pending.add(pair)  # type: ignore[arg-type]
        else:
            pending.discard(pair)  # type: ignore[arg-type]


def test_without_a_negotiating_bot_there_is_no_negotiation() -> None:
    record = play_game(GameSetup(seed=1, bots=("dumbbot",) * 7, settings=GameSettings(year_limit=1901)))
    assert record.messages == () and record.events == ()


async def test_a_random_negotiator_over_the_network(tmp_path: Path) -> None:
    async with running_server(tmp_path) as game_server, running_nego(game_server, tmp_path / "n.sqlite3") as port:
        body = {"name": "nego", "deadlines": None, "year_limit": 1901}
        status, created = await http("POST", f"{game_server.http}/api/games", body, token=TOKEN)
        assert status == 201
        game = created["id"]
        nego_url = f"ws://127.0.0.1:{port}/nego"
        async with asyncio.timeout(60):
            talkers = [
                play_negotiating(RandomNegotiator(random.Random(i)), game_server.ws, nego_url, game) for i in range(3)
            ]
            others = [WsClient(BotSession(HoldBot()), game_server.ws, game).run() for _ in range(4)]
            sessions = await asyncio.gather(*talkers, *others)
        assert all(s.result is not None for s in sessions)
        status, log = await http("GET", f"http://127.0.0.1:{port}/api/games/{game}/log", token=TOKEN)
        said = [r for r in log["records"] if r["kind"] == "message"]
        assert said, "the negotiators said nothing"
        talking = {s.power for s in sessions[:3] if s.power}
        assert {r["sender"] for r in said} <= talking

"""Attacks on the negotiation server's hello and say, against real servers on loopback: a
stranger guessing session tokens or using the 13-bit passcode, a second connection with the
token taking the place of the first, or flooding. Bounded in count and time."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
import websockets

from referee.guesses import ADDRESS_GUESSES
from tests.server.nego_helpers import NegoClient, Pair, negotiators, press_game, running_pair

ATTACKER = "127.0.0.2"
PROPOSAL = "propose(eng, fra, Agree([eng fra], pce([eng fra])))"


async def _hello_from_attacker(pair: Pair, game: str | None, power: str, session: str) -> dict[str, Any]:
    """A hello on a new connection from the attacker's address: the answer, and the close awaited."""
    async with websockets.connect(pair.nego, open_timeout=10, local_addr=(ATTACKER, 0)) as ws:
        client = NegoClient(ws, power)
        hello = {"type": "hello", "power": power, "session": session}
        await client.send(hello if game is None else {**hello, "game": game})
        answer = await client.expect(lambda f: f.get("type") in ("welcome", "error"))
        if answer["type"] == "error":
            with pytest.raises(websockets.ConnectionClosed):
                await asyncio.wait_for(ws.recv(), 10)  # refused: the server closes
    return answer


async def test_hello_guesses_are_refused_closed_and_limited(tmp_path: Path) -> None:
    async with running_pair(tmp_path) as pair:
        game, players = await press_game(pair, press_level=0)
        session = players["ENG"].session
        assert session is not None
        # the DAIDE passcode is no key here: a hello with it is not even a hello
        async with websockets.connect(pair.nego, open_timeout=10, local_addr=(ATTACKER, 0)) as ws:
            client = NegoClient(ws, "ENG")
            await client.send({"type": "hello", "power": "ENG", "passcode": players["ENG"].passcode})
            assert (await client.expect("error"))["code"] == "frame"
        for i in range(ADDRESS_GUESSES):
            answer = await _hello_from_attacker(pair, None, "ENG", f"guess{i}")
            assert answer["type"] == "error" and answer["code"] == "auth"
        # locked for the attacker's address: even the right token is refused unchecked
        answer = await _hello_from_attacker(pair, None, "ENG", session)
        assert answer["type"] == "error" and "too many" in answer["message"]
        # the seat is not locked: its player, from its own address, comes in
        clients = await negotiators(pair, game, players, "ENG")
        assert (await clients["ENG"].say(PROPOSAL))["type"] == "ack"
        await clients["ENG"].close()
        for player in players.values():
            await player.close()


async def test_the_session_token_takes_the_place_of_an_older_connection(tmp_path: Path) -> None:
    """Another browser (or a reconnection the server has not noticed yet) says hello with the
    token: the older connection is told why and closed, the newer one speaks for the power."""
    async with running_pair(tmp_path) as pair:
        game, players = await press_game(pair, press_level=0)
        clients = await negotiators(pair, game, players, "ENG", "FRA")
        older = clients["ENG"]
        newer = await NegoClient.open(pair, game, "ENG", players["ENG"].session or "")
        assert (await newer.expect("welcome"))["power"] == "ENG"
        notice = await older.expect("error")
        assert notice["code"] == "replaced"
        with pytest.raises(websockets.ConnectionClosed):
            await asyncio.wait_for(older.ws.recv(), 10)
        assert (await newer.say(PROPOSAL))["type"] == "ack"
        assert (await clients["FRA"].expect("message"))["from"] == "ENG"
        for client in (newer, clients["FRA"]):
            await client.close()
        for player in players.values():
            await player.close()


async def test_a_flood_of_messages_is_refused_past_the_rate_and_the_others_are_heard(tmp_path: Path) -> None:
    async with running_pair(tmp_path) as pair:
        game, players = await press_game(pair, press_level=0)
        clients = await negotiators(pair, game, players, "ENG", "FRA", "GER")
        flood = clients["ENG"]
        for request in range(1, 121):  # all at once: more than the burst of 50
            await flood.send({"type": "say", "id": request, "text": "(("})
        answers = [await flood.answer(request) for request in range(1, 121)]
        codes = [a["code"] for a in answers]
        assert "rate" in codes and codes.count("syntax") >= 50
        assert (await clients["GER"].say("propose(ger, fra, Agree([fra ger], pce([fra ger])))"))["type"] == "ack"
        assert (await clients["FRA"].expect("message"))["from"] == "GER"
        for client in clients.values():
            await client.close()
        for player in players.values():
            await player.close()

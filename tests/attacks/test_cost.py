"""Attacks on the cost of parsing, on loopback: messages nested deep, or as long as a frame may
be, sent to the game server (websocket ``/daide`` and DAIDE TCP) and to the negotiation server
(``/nego``). Each gets the protocol's own error (HUH, or an ``error`` frame with line and
column) at once; the connection stays usable, and ``/healthz`` answers meanwhile. Each attack
is bounded in count and time, and waits for the server's answer, never for a guessed delay."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from protocol.daide.parser import MAX_DEPTH
from protocol.l.parser import MAX_CHARS
from server.app import MAX_MESSAGE_CHARS
from tests.server.nego_helpers import negotiators, press_game, running_pair
from tests.server.test_daide_tcp import TcpClient
from tests.server.ws_helpers import BufferedClient, DaideClient, http, running_server

ATTACK_SECONDS = 5.0
"""The time one attack may take, its answer and a health check included: generous, for slow
machines; the parse itself takes milliseconds."""


def nested(opening: str, closing: str, size: int, middle: str = "") -> str:
    count = (size - len(middle)) // (len(opening) + len(closing))
    return opening * count + middle + closing * count


def deep_press(levels: int) -> str:
    return "SND (FRA) (PRP (" + "NOT (" * levels + "PCE (ENG FRA)" + ")" * levels + "))"


# DAIDE messages that are answered HUH; the first two were a RecursionError (the connection closed,
# no answer) and a quadratic parse blocking the event loop for seconds
ANSWERED = {
    "deep press": deep_press(300),
    "PRN (PRN (...))": "SUB " + nested("PRN (", ")", MAX_MESSAGE_CHARS - 4),
    "nested brackets": nested("(", ")", MAX_MESSAGE_CHARS),
    "nested press": "SND (FRA) " + nested("(", ")", MAX_MESSAGE_CHARS - 10),
    "nested HUH": "SUB " + nested("HUH (", ")", MAX_MESSAGE_CHARS - 4, "OFF"),
    "unknown tokens": "XYZ " * (MAX_MESSAGE_CHARS // 4),
}
# Messages that may not be answered (a PRN or HUH is never answered): they must cost nothing either
UNANSWERED = {
    "PRN nested": nested("PRN (", ")", MAX_MESSAGE_CHARS, "GOF"),
    "HUH nested": nested("HUH (", ")", MAX_MESSAGE_CHARS, "OFF"),
}


async def healthy(url: str) -> None:
    status, body = await http("GET", f"{url}/healthz")
    assert status == 200, body


async def attack(client: BufferedClient, send: str, health_url: str) -> str:
    """Send ``send`` and return the HUH or PRN it gets; ``/healthz`` is asked at the same time."""
    async with asyncio.timeout(ATTACK_SECONDS):
        await client.send(send)  # type: ignore[attr-defined]
        reply, _ = await asyncio.gather(client.expect(""), healthy(health_url))
    return reply


async def still_usable(client: BufferedClient) -> None:
    """The connection still speaks DAIDE: a name gets YES and the map."""
    async with asyncio.timeout(ATTACK_SECONDS):
        await client.send("NME ('after') ('1.0')")  # type: ignore[attr-defined]
        assert (await client.expect("YES")).startswith("YES (NME")
        await client.expect("MAP")


@pytest.mark.parametrize("transport", ["websocket", "tcp"])
async def test_costly_daide_messages_get_huh_and_the_connection_stays(tmp_path: Path, transport: str) -> None:
    async with running_server(tmp_path) as running:
        client: BufferedClient
        if transport == "websocket":
            client = await DaideClient.open(running.ws)
        else:
            client = await TcpClient.open(running.daide_port)
        try:
            for name, text in ANSWERED.items():
                assert len(text) <= MAX_MESSAGE_CHARS, name
                if transport == "tcp" and name == "unknown tokens":
                    continue  # a DM has no token for a word DAIDE does not know
                reply = await attack(client, text, running.http)
                assert reply.startswith("HUH (") and "ERR" in reply, (name, reply[:80])
            # the reply to the deep press puts ERR before the bracket one too deep
            reply = await attack(client, deep_press(300), running.http)
            assert reply.split("ERR")[0].count("(") - reply.split("ERR")[0].count(")") == MAX_DEPTH + 1  # HUH's own
            for text in UNANSWERED.values():
                async with asyncio.timeout(ATTACK_SECONDS):
                    await client.send(text)  # type: ignore[attr-defined]
            await still_usable(client)  # after the messages that get no answer: they were read, and cost little
            await healthy(running.http)
        finally:
            await client.close()  # type: ignore[attr-defined]


async def test_costly_l_messages_get_an_error_frame_with_the_place(tmp_path: Path) -> None:
    async with running_pair(tmp_path) as pair:
        game, players = await press_game(pair, l_levels="1-3")
        eng = (await negotiators(pair, game, players, "ENG"))["ENG"]
        head = "inform(eng, fra, "
        attacks = {
            "parentheses": (head + nested("(", ")", 16_000, "pce(eng)") + ")", 1),
            "negations": (head + "~" * 16_000 + "pce(eng))", 1),
            "beliefs": (head + nested("Belief(eng, ", ")", 16_000, "pce(eng)") + ")", 1),
            "just under the cap": (head + nested("(", ")", MAX_CHARS - 40, "pce(eng)") + ")", 1),
            "a long flat message": (head + " & ".join(["pce([eng fra])"] * 950) + ")", 1),
            "on many lines": (head + "\n" + "pce([eng fra]) &\n" * 900 + "pce(eng))", None),
        }
        try:
            for name, (text, line) in attacks.items():
                assert len(text) <= 16_384, name
                async with asyncio.timeout(ATTACK_SECONDS):
                    answer, _ = await asyncio.gather(eng.say(text), healthy(pair.nego_http))
                assert (answer["type"], answer["code"]) == ("error", "syntax"), (name, answer)
                assert answer["column"] > 1 and (line is None or answer["line"] == line), (name, answer)
                assert "nested more than" in answer["message"] or "characters at most" in answer["message"]
            # the client can still speak
            async with asyncio.timeout(ATTACK_SECONDS):
                answer = await eng.say("propose(eng, fra, Agree([eng fra], pce([eng fra])))")
            assert answer["type"] == "ack", answer
            await healthy(pair.game.http)
        finally:
            await eng.close()
            await asyncio.gather(*(p.close() for p in players.values()))

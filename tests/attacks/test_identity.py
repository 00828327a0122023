"""Attacks on identity, against a real game server on loopback: what a stranger can learn of
a seat and take with it. Each attack is bounded in count and time."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
import websockets

from referee.guesses import ADDRESS_GUESSES
from tests.server.ws_helpers import TOKEN, DaideClient, http, running_server

SECRET = "k3pt-for-the-person-only"


async def test_the_lobby_says_which_powers_are_kept_but_never_for_whom(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server:
        status, created = await http(
            "POST", f"{server.http}/api/games", {"name": "kept", "reserved": {"FRANCE": SECRET}}, TOKEN
        )
        assert status == 201
        game = created["id"]
        status, listing = await http("GET", f"{server.http}/api/games")
        assert status == 200 and SECRET not in json.dumps(listing)
        status, info = await http("GET", f"{server.http}/api/games/{game}")
        assert status == 200 and info["settings"]["reserved"] == {"FRANCE": ""} and SECRET not in json.dumps(info)

        # a stranger who joins with any name the lobby shows (or none) is dealt another power
        strangers = []
        for name in ("", "you", "FRANCE"):
            client = await DaideClient.open(f"{server.ws}?game={game}")
            await client.join(name or "stranger")
            strangers.append(client)
        person = await DaideClient.open(f"{server.ws}?game={game}")
        await person.join(SECRET)
        others = [await DaideClient.open(f"{server.ws}?game={game}") for _ in range(3)]
        for client in others:
            await client.join()
        for client in [*strangers, *others, person]:
            await client.hello()
        assert person.power == "FRA" and all(c.power != "FRA" for c in [*strangers, *others])
        for client in [*strangers, *others, person]:
            await client.close()


ATTACKER = "127.0.0.2"


async def _refused(url: str, text: str) -> str:
    """Send ``text`` on a new connection from the attacker's address; the answer, then the close awaited."""
    async with websockets.connect(url, open_timeout=10, local_addr=(ATTACKER, 0)) as ws:
        await ws.send(text)
        answer = await asyncio.wait_for(ws.recv(), 10)
        with pytest.raises(websockets.ConnectionClosed):
            await asyncio.wait_for(ws.recv(), 10)  # the server closes after REJ
    assert isinstance(answer, str)
    return answer


async def test_passcode_guesses_are_refused_and_closed_and_limited_per_address(tmp_path: Path) -> None:
    """IAM finds a game by passcode alone, so a stranger may guess without naming a game: every
    wrong guess gets REJ and a close, and after ADDRESS_GUESSES of them the address is
    refused unchecked, even with the right passcode, while the player's own address rejoins."""
    async with running_server(tmp_path) as server:
        players = [await DaideClient.open(server.ws) for _ in range(7)]
        for client in players:
            await client.join()
        for client in players:
            await client.hello()
        victim = players[0]
        token, passcode = victim.power, victim.passcode
        await victim.close()
        wrong = [code for code in range(1, 8192) if code != passcode]
        limit = ADDRESS_GUESSES
        for code in wrong[:limit]:
            assert (await _refused(server.ws, f"IAM ({token}) ({code})")).startswith("REJ (IAM")
        # locked: the right passcode from the attacker's address is refused too, unchecked
        assert (await _refused(server.ws, f"IAM ({token}) ({passcode})")).startswith("REJ (IAM")
        back = await DaideClient.open(server.ws)  # the player, from its own address
        await back.send(f"IAM ({token}) ({passcode})")
        assert (await back.expect("YES")).startswith("YES (IAM")
        for client in [back, *players[1:]]:
            await client.close()


async def _get_from_attacker(base: str, path: str, token: str) -> int:
    """``GET path`` with a bearer ``token``, from the attacker's address: the status."""
    host, port = base.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port), local_addr=(ATTACKER, 0))
    request = f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nAuthorization: Bearer {token}\r\nConnection: close\r\n\r\n"
    writer.write(request.encode())
    await writer.drain()
    status = int((await asyncio.wait_for(reader.readline(), 10)).split()[1])
    writer.close()
    return status


async def test_admin_token_guesses_are_limited_by_address(tmp_path: Path) -> None:
    """Wrong bearer tokens count as guesses by client address: past the limit the address gets
    429 unchecked, the right token too, while another address keeps its access."""
    async with running_server(tmp_path) as server, asyncio.timeout(60):
        statuses = [await _get_from_attacker(server.http, "/metrics", f"guess-{i}") for i in range(ADDRESS_GUESSES)]
        assert set(statuses) == {401}
        assert await _get_from_attacker(server.http, "/metrics", "one more guess") == 429
        assert await _get_from_attacker(server.http, "/metrics", TOKEN) == 429  # refused unchecked
        status, _ = await http("GET", f"{server.http}/api/games", None, TOKEN)
        assert status == 200
        status, _ = await http("POST", f"{server.http}/api/games", {"name": "still mine"}, TOKEN)
        assert status == 201  # the admin's own address is not locked out

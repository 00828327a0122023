"""Attacks on the games the server opens for strangers, against a real game server on loopback:
filling the open game again and again (each full one used to open another, about 30 games a
second, each kept in memory and in the store). Each attack is bounded in count and time.

Strangers come from their own loopback addresses (127.0.0.10 and up), so the limit on seats
per address and the cap on open games are both those of a server run with the defaults.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import websockets

from server.settings import MAX_OPEN_GAMES, MAX_SEATS_PER_ADDRESS, MAX_SEATS_PER_NETWORK
from tests.server.ws_helpers import TOKEN, DaideClient, Running, http, running_server


async def stranger(server: Running, address: str) -> DaideClient:
    """A websocket from ``address`` that names no game."""
    return await DaideClient.open(server.ws, address)


async def nme(client: DaideClient, name: str) -> str:
    """Send NME; the answer (``YES (NME ...)`` or ``REJ (NME ...)``)."""
    await client.send(f"NME ('{name}') ('1')")
    async with asyncio.timeout(10):
        while True:
            text = await client.receive_text()
            if text.startswith("YES"):
                await client.send("YES (MAP ('standard'))")  # as a client does: it has its map
            if text.startswith(("YES", "REJ")):
                return text
            client.buffer.append(text)


async def games(server: Running) -> list[dict[str, Any]]:
    status, listing = await http("GET", f"{server.http}/api/games")
    assert status == 200
    return list(listing["games"])


def unfinished(listing: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [g for g in listing if g["status"] != "finished"]


async def test_filling_open_games_stops_at_the_cap_until_one_ends(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server:  # the defaults: 8 open games, 7 seats an address
        players: list[list[DaideClient]] = []
        refused: DaideClient | None = None
        for round_ in range(MAX_OPEN_GAMES + 2):  # bounded: two rounds past the cap
            address = f"127.0.{10 + round_}.1"  # a network each: the cap per network is not this test's
            seated = []
            for i in range(7):
                client = await stranger(server, address)
                answer = await nme(client, f"s{round_}p{i}")
                if answer.startswith("REJ"):
                    assert answer == f"REJ (NME ('s{round_}p{i}') ('1'))" and i == 0
                    refused = client
                    break
                assert answer.startswith("YES (NME")
                seated.append(client)
            if refused is not None:
                break
            players.append(seated)
        # every round until the cap filled a game; the next stranger found none open
        assert refused is not None and len(players) == MAX_OPEN_GAMES
        listing = await games(server)
        assert len(listing) == MAX_OPEN_GAMES and all(g["status"] == "playing" for g in listing)
        # asking again changes nothing: no game is made for it
        assert (await nme(refused, "again")).startswith("REJ (NME")
        assert len(await games(server)) == MAX_OPEN_GAMES

        # the admin still creates games, and a stranger may join one by its id
        status, created = await http("POST", f"{server.http}/api/games", {"name": "admin's"}, TOKEN)
        assert status == 201
        named = DaideClient(await websockets.connect(f"{server.ws}?game={created['id']}", local_addr=("127.0.0.60", 0)))
        assert (await nme(named, "named")).startswith("YES (NME")

        # the first game ends in a draw: a new open game appears, and the refused stranger joins it
        first = players[0]
        for client in first:
            await client.hello()
            await client.expect("NOW")
            await client.send("DRW")
            assert await client.expect("YES") == "YES (DRW)"
        for client in first:
            assert await client.expect("DRW") == "DRW"
        async with asyncio.timeout(10):
            while True:
                listing = await games(server)
                forming = [g for g in listing if g["status"] == "forming" and g["id"] != created["id"]]
                if forming:
                    break
                await asyncio.sleep(0.05)
        assert len(forming) == 1 and len(unfinished(listing)) == MAX_OPEN_GAMES + 1  # the admin's game besides
        assert sum(g["status"] == "finished" for g in listing) == 1
        assert (await nme(refused, "late")).startswith("YES (NME")
        for client in [*(c for seated in players for c in seated), refused, named]:
            await client.close()


async def test_one_address_takes_one_games_seats_even_after_leaving(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server:
        attacker = "127.0.0.2"
        seated = [await stranger(server, attacker) for _ in range(MAX_SEATS_PER_ADDRESS)]
        for i, client in enumerate(seated):
            assert (await nme(client, f"a{i}")).startswith("YES (NME")
        one_more = await stranger(server, attacker)
        assert (await nme(one_more, "a7")).startswith("REJ (NME")
        # leaving a game once it started keeps the seats (civil disorder): they still count
        for client in seated:
            await client.hello()
            await client.close()
        again = await stranger(server, attacker)
        assert (await nme(again, "a8")).startswith("REJ (NME")
        # another address joins the open game as before
        honest = await stranger(server, "127.0.0.3")
        assert (await nme(honest, "honest")).startswith("YES (NME")
        assert len(await games(server)) == 2
        for client in (one_more, again, honest):
            await client.close()


async def test_games_opened_for_strangers_are_limited_per_hour(tmp_path: Path) -> None:
    """Games that end at once (seven NME, seven DRW) would each open another: at most
    ``open_games_per_hour`` open in an hour, although fewer than the cap are unfinished."""
    async with running_server(tmp_path, open_games_per_hour=2) as server:
        for round_ in range(2):  # the first open game, and the one its start opened
            seated = [await stranger(server, f"127.0.0.{20 + round_}") for _ in range(7)]
            for i, client in enumerate(seated):
                assert (await nme(client, f"r{round_}p{i}")).startswith("YES (NME")
            for client in seated:
                await client.hello()
                await client.expect("NOW")
                await client.send("DRW")
            for client in seated:
                assert await client.expect("DRW") == "DRW"
                await client.close()
        listing = await games(server)
        assert len(listing) == 2 and all(g["status"] == "finished" for g in listing)
        late = await stranger(server, "127.0.0.30")
        assert (await nme(late, "late")).startswith("REJ (NME")
        assert len(await games(server)) == 2
        await late.close()


async def test_one_network_takes_at_most_its_seats_and_another_still_gets_in(tmp_path: Path) -> None:
    """Addresses of one /24 share a cap on seats (four games'); a stranger elsewhere still plays."""
    async with running_server(tmp_path, max_open_games=6) as server:
        per_network = MAX_SEATS_PER_NETWORK // MAX_SEATS_PER_ADDRESS
        clients = []
        for a in range(per_network):
            for i in range(MAX_SEATS_PER_ADDRESS):
                client = await stranger(server, f"127.0.7.{a + 1}")
                assert (await nme(client, f"n{a}p{i}")).startswith("YES (NME"), (a, i)
                clients.append(client)
        crowd = await stranger(server, "127.0.7.200")  # a new address of the same network
        assert (await nme(crowd, "one more")).startswith("REJ (NME")
        elsewhere = await stranger(server, "127.0.8.1")
        assert (await nme(elsewhere, "honest")).startswith("YES (NME")
        for client in [*clients, crowd, elsewhere]:
            await client.close()


async def test_players_who_fill_the_open_games_and_leave_do_not_keep_strangers_out(tmp_path: Path) -> None:
    """Nine addresses (networks apart) each fill a game and leave: the games are deserted, do not
    count against the cap, and a new stranger is seated; the hoarders' seats still count."""
    async with running_server(tmp_path, max_open_games=3, deserted_after=0.0) as server:
        for round_ in range(9):
            seated = [await stranger(server, f"127.1.{round_}.1") for _ in range(7)]
            for i, client in enumerate(seated):
                answer = await nme(client, f"h{round_}p{i}")
                assert answer.startswith("YES (NME"), (round_, i, answer)
            for client in seated:
                await client.hello()  # the game started: leaving keeps the seats (civil disorder)
            for client in seated:
                await client.close()
            async with asyncio.timeout(10):  # the last one gone: a game opens for the next round
                while not [g for g in await games(server) if g["status"] == "forming"]:
                    await asyncio.sleep(0.02)
        honest = await stranger(server, "127.2.0.1")
        assert (await nme(honest, "honest")).startswith("YES (NME")
        back = await stranger(server, "127.1.0.1")  # a hoarder's address: its seven seats still count
        assert (await nme(back, "again")).startswith("REJ (NME")
        for client in (honest, back):
            await client.close()

"""Hostile clients against a real server on loopback: none may spoil the game of the others.

Each attack is bounded in messages and time and waits for answers, never for a sleep:

- ``SND`` naming one recipient 500 times is refused; the victim is not flooded with ``FRM``
  (and so not dropped as a slow reader) and still gets its next ``NOW``;
- ``ADM`` from a connection that never joined is refused, reaches no player and is stored
  nowhere;
- guessing a passcode with ``IAM`` gets ``REJ`` and a closed connection; from outside the
  seat's network nothing is checked (not even the right passcode), and inside it after
  ``Seats.STRANGER_GUESSES`` wrong guesses from any addresses the seat refuses even the right
  passcode to all but its own last address;
- ``IAM`` with the right passcode for a seat whose player is connected is refused, and the
  rightful player keeps its seat;
- ``IAM`` with the session token takes the seat from an older connection, which is told
  (``ADM``, ``OFF``) and closed; wrong tokens are refused but never lock the seat; no client
  may send an ``ADM`` in the server's name (a forged session token for the others).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
import websockets

from referee.game.seats import Seats
from server.store import Store
from tests.server.ws_helpers import TIMEOUT, TOKEN, DaideClient, Running, http, running_server


async def new_game(server: Running) -> str:
    status, created = await http(
        "POST", f"{server.http}/api/games", {"name": "fair", "press_level": 10, "deadlines": None}, token=TOKEN
    )
    assert status == 201
    return str(created["id"])


async def seven(server: Running, gid: str) -> dict[str, DaideClient]:
    """Seven players in game ``gid``, by power, each past the first NOW."""
    clients = [await DaideClient.open(f"{server.ws}?game={gid}") for _ in range(7)]
    for i, client in enumerate(clients):
        await client.join(f"bot{i}")
    for client in clients:
        await client.hello()
        await client.expect("NOW")
    return {client.power or "": client for client in clients}


async def closed(client: DaideClient) -> None:
    """Wait until the server closes ``client`` (what comes before is read and dropped)."""
    with pytest.raises(websockets.ConnectionClosed):
        async with asyncio.timeout(TIMEOUT):
            while True:
                await client.ws.recv()


async def shut(clients: list[DaideClient]) -> None:
    """Close every client at once; a client with unread messages does not wait on its close handshake."""
    for client in clients:
        client.ws.close_timeout = 0.5
    await asyncio.gather(*(client.close() for client in clients))


async def detail(server: Running, gid: str) -> dict[str, Any]:
    status, body = await http("GET", f"{server.http}/api/games/{gid}")
    assert status == 200
    return dict(body)


async def test_snd_with_one_recipient_500_times_does_not_drop_the_victim(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server:
        gid = await new_game(server)
        players = await seven(server, gid)
        eng, fra = players["ENG"], players["FRA"]
        flood = "SND (" + " ".join(["FRA"] * 500) + ") (PRP (PCE (ENG FRA)))"
        for _ in range(3):
            await eng.send(flood)
            assert (await eng.expect("REJ")) == f"REJ ({flood})"
        # press sent the right way still arrives, once
        await eng.send("SND (FRA) (PRP (PCE (ENG FRA)))")
        assert (await eng.expect("YES")).startswith("YES (SND (FRA)")
        assert await fra.expect("FRM") == "FRM (ENG) (FRA) (PRP (PCE (ENG FRA)))"
        assert not any(t.startswith("FRM") for t in fra.buffer)
        # the victim plays on: every power holds, and it sees the next NOW
        for client in players.values():
            await client.send("NOW")
        for client in players.values():
            sub, _ = client.holds(await client.expect("NOW"))
            await client.send(sub)
        assert (await fra.expect("NOW")).startswith("NOW (FAL 1901)")
        await shut([*players.values()])


async def test_adm_flood_from_a_connection_that_never_joined_is_refused_and_stored_nowhere(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server:
        gid = await new_game(server)
        players = await seven(server, gid)
        stranger = await DaideClient.open(f"{server.ws}?game={gid}")
        for i in range(50):
            await stranger.send(f"ADM ('admin') ('server going down {i}')")
        for i in range(50):
            assert await stranger.expect("REJ") == f"REJ (ADM ('admin') ('server going down {i}'))"
        # a player's ADM goes through, and is the first ADM every other player hears
        await players["ENG"].send("ADM ('eng') ('lagging')")
        for power, client in players.items():
            assert await client.expect("ADM") == "ADM ('eng') ('lagging')", power
            assert not any(t.startswith("ADM") for t in client.buffer)
        store = await asyncio.to_thread(Store.open, server.db)
        try:
            events = await asyncio.to_thread(store.events, gid)
        finally:
            await asyncio.to_thread(store.close)
        admin = [e.payload for e in events if e.kind == "admin"]
        assert [a["text"] for a in admin] == ["lagging"]
        await shut([*players.values(), stranger])


async def test_iam_guessing_from_many_networks_is_never_checked_and_the_seats_network_has_a_budget(
    tmp_path: Path,
) -> None:
    async with running_server(tmp_path) as server:
        gid = await new_game(server)
        players = await seven(server, gid)  # from 127.0.0.1: the seats' network is 127.0.0.0/24
        victim = players.pop("ENG")
        passcode = victim.passcode
        assert passcode is not None
        await victim.close()
        for client in players.values():
            assert await client.expect("CCD") == "CCD (ENG)"
        # a crowd elsewhere, without ?game=, even knowing the passcode: refused unchecked, closed
        for i in range(40):
            thief = await DaideClient.open(server.ws, f"127.{10 + i // 200}.{i % 200}.9")
            await thief.send(f"IAM (ENG) ({passcode})")
            assert await thief.expect("REJ") == f"REJ (IAM (ENG) ({passcode}))"
            await closed(thief)
        # neighbours in the seat's network: wrong guesses count against the seat, whatever the address
        for i in range(Seats.STRANGER_GUESSES):
            guess = (passcode + i) % 8191 + 1  # never the passcode
            attacker = await DaideClient.open(server.ws, f"127.0.0.{100 + i}")
            await attacker.send(f"IAM (ENG) ({guess})")
            assert await attacker.expect("REJ") == f"REJ (IAM (ENG) ({guess}))"
            await closed(attacker)
        # the budget is spent: even the right passcode from a neighbour is refused unchecked
        lucky = await DaideClient.open(f"{server.ws}?game={gid}", "127.0.0.200")
        await lucky.send(f"IAM (ENG) ({passcode})")
        assert await lucky.expect("REJ") == f"REJ (IAM (ENG) ({passcode}))"
        await closed(lucky)
        body = await detail(server, gid)
        assert not next(p for p in body["players"] if p["power"] == "ENGLAND")["connected"]
        # the others play on undisturbed, and the rightful player, from its own address, comes back
        await players["FRA"].send("NOW")
        assert (await players["FRA"].expect("NOW")).startswith("NOW (SPR 1901)")
        assert not any(t.startswith("NOT (CCD") for c in players.values() for t in c.buffer)
        back = await DaideClient.open(server.ws, "127.0.0.1")
        await back.send(f"IAM (ENG) ({passcode})")
        assert await back.expect("YES") == f"YES (IAM (ENG) ({passcode}))"
        assert await players["FRA"].expect("NOT") == "NOT (CCD (ENG))"
        await shut([*players.values(), back])


async def test_iam_never_takes_the_seat_of_a_connected_player(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server:
        gid = await new_game(server)
        players = await seven(server, gid)
        eng = players["ENG"]
        for _ in range(3):
            thief = await DaideClient.open(server.ws)
            await thief.send(f"IAM (ENG) ({eng.passcode})")
            assert await thief.expect("REJ") == f"REJ (IAM (ENG) ({eng.passcode}))"
            await closed(thief)
        body = await detail(server, gid)
        assert next(p for p in body["players"] if p["power"] == "ENGLAND")["connected"]
        # the rightful player still plays: its orders count and it sees the next phase
        for client in players.values():
            await client.send("NOW")
        for client in players.values():
            sub, _ = client.holds(await client.expect("NOW"))
            await client.send(sub)
        assert (await eng.expect("NOW")).startswith("NOW (FAL 1901)")
        assert not any(t.startswith(("CCD", "NOT (CCD")) for c in players.values() for t in c.buffer)
        await shut([*players.values()])


async def test_the_session_token_takes_a_connected_seat_and_wrong_tokens_lock_nothing(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server:
        gid = await new_game(server)
        players = await seven(server, gid)
        eng = players["ENG"]
        assert eng.session is not None and len(eng.session) >= 22  # 128 bits, URL-safe base64
        # wrong tokens, more than the seat's limit on passcodes: refused and closed, nothing locked
        for i in range(Seats.STRANGER_GUESSES + 2):
            thief = await DaideClient.open(server.ws)
            await thief.send(f"IAM (ENG) ('forged{i}')")
            assert await thief.expect("REJ") == f"REJ (IAM (ENG) ('forged{i}'))"
            await closed(thief)
        # the player, from another browser: the seat moves, the older connection is told and closed
        newer = await DaideClient.open(server.ws)
        await newer.send(f"IAM (ENG) ('{eng.session}')")
        assert await newer.expect("YES") == f"YES (IAM (ENG) ('{eng.session}'))"
        assert (await eng.expect("ADM")).startswith("ADM ('detente') ('another connection took this seat")
        await eng.expect("OFF")
        await closed(eng)
        # nobody saw a disconnection: the seat never fell into civil disorder
        newer.power = "ENG"
        for client in [newer, *(c for p, c in players.items() if p != "ENG")]:
            await client.send("NOW")
            sub, _ = client.holds(await client.expect("NOW"))
            await client.send(sub)
        assert (await newer.expect("NOW")).startswith("NOW (FAL 1901)")
        assert not any(t.startswith(("CCD", "NOT (CCD")) for c in players.values() if c is not eng for t in c.buffer)
        body = await detail(server, gid)
        assert next(p for p in body["players"] if p["power"] == "ENGLAND")["connected"]
        await shut([newer, *(c for p, c in players.items() if p != "ENG")])


async def test_no_client_sends_an_adm_in_the_servers_name(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server:
        gid = await new_game(server)
        players = await seven(server, gid)
        forged = "ADM ('detente') ('session AAAAAAAAAAAAAAAAAAAAAA')"
        await players["FRA"].send(forged)
        assert await players["FRA"].expect("REJ") == f"REJ ({forged})"
        await players["FRA"].send("ADM ('France') ('hello')")  # its own name is fine
        for client in players.values():
            assert await client.expect("ADM") == "ADM ('France') ('hello')"
        await shut(list(players.values()))

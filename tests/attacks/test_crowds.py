"""Crowds against a real game server on loopback: a flood of tiny messages from one client, a
network opening connections as fast as it can, and many networks at once. Each client binds
its own source address (``127.N.M.K``, all this machine's). Bounded in count and time; each
test waits for what the server does, never for a delay."""

from __future__ import annotations

from pathlib import Path

import websockets
from websockets.exceptions import InvalidStatus

from referee.lobby import SHED_TEXT
from tests.server.ws_helpers import TIMEOUT, DaideClient, running_server


async def test_a_flood_of_tiny_messages_is_shed_unread_told_once_and_another_player_is_answered(
    tmp_path: Path,
) -> None:
    async with running_server(tmp_path) as server:
        flooder = await DaideClient.open(server.ws, "127.0.20.1")
        honest = await DaideClient.open(server.ws, "127.0.21.1")
        await honest.send("OBS")
        assert await honest.expect("YES") == "YES (OBS)"
        sent = 600  # far beyond the burst (200) at the rate (50 a second)
        for _ in range(sent):
            await flooder.send("NOW")
        # the honest client is answered while the flood waits in the flooder's own socket
        await honest.send("TME")
        assert (await honest.expect("REJ")) == "REJ (TME)"  # no deadline: a plain answer, at once
        # the flooder was told once that its messages beyond the rate are dropped unread
        told = await flooder.expect("ADM")
        assert told == f"ADM ('detente') ('{SHED_TEXT}')"
        answered = [t for t in flooder.buffer if t.startswith(("REJ", "NOW"))]
        assert len(answered) < sent
        # its next answers come paced, one read for each one shed, and no second ADM among them
        later = [await flooder.receive_text() for _ in range(20)]
        assert not any(t.startswith("ADM") for t in later) and all(t.startswith("NOW") for t in later)
        await honest.close()
        flooder.ws.transport.abort()  # its close would wait behind its own flood: the server ends it


async def test_a_network_that_opens_connections_too_fast_is_refused_and_another_gets_in(tmp_path: Path) -> None:
    async with running_server(tmp_path, new_connections_per_network=1.0) as server:  # ten at once
        held = []
        refused = None
        for i in range(30):  # bounded: the bucket holds ten
            try:
                held.append(await websockets.connect(server.ws, open_timeout=TIMEOUT, local_addr=(f"127.0.30.{i + 1}", 0)))
            except InvalidStatus as error:
                refused = error.response
                break
        assert refused is not None and refused.status_code == 503 and len(held) == 10
        assert b"too many new connections from this network" in (refused.body or b"")
        other = await websockets.connect(server.ws, open_timeout=TIMEOUT, local_addr=("127.0.31.1", 0))
        for ws in (*held, other):
            await ws.close()


async def test_a_crowd_of_networks_meets_the_servers_rate_and_a_seated_players_network_still_passes(
    tmp_path: Path,
) -> None:
    async with running_server(tmp_path, new_connections=2.0) as server:  # two at once, from the crowd
        player = await DaideClient.open(server.ws, "127.0.40.1")
        await player.send("NME ('player') ('1')")
        assert (await player.expect("YES")).startswith("YES (NME")
        refusals = 0
        for n in range(20):  # twenty networks, one connection each: far over two
            try:
                ws = await websockets.connect(server.ws, open_timeout=TIMEOUT, local_addr=(f"127.1.{n}.9", 0))
                await ws.close()
            except InvalidStatus as error:
                assert error.response.status_code == 503
                assert b"too many new connections to this server" in (error.response.body or b"")
                refusals += 1
        assert refusals >= 15
        # the bucket is empty, but the player's network holds a seat: its connections pass
        again = await DaideClient.open(server.ws, "127.0.40.2")
        await again.send("OBS")
        assert await again.expect("YES") == "YES (OBS)"
        for ws in (player, again):
            await ws.close()

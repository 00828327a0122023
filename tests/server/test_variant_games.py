"""Games on variants, on a real server: a TCP DAIDE client and a websocket one play the game's
own map (``MAP``, ``MDF``, ``HLO``, ``NOW``, ``SCO``, orders adjudicated), and the page's API
serves it. Budget: about 10 s."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from engine.maps import variant_map
from protocol.daide.mdf import map_from_mdf, read_mdf, same_map
from protocol.daide.messages import Now
from protocol.daide.parser import parse
from tests.server.test_daide_tcp import TcpClient
from tests.server.ws_helpers import TOKEN, DaideClient, Running, http, running_server


@pytest.fixture
async def france_austria(tmp_path: Path) -> AsyncIterator[Running]:
    async with running_server(tmp_path, map="france_austria", fill_with="none", stand_in="none") as running:
        yield running


async def join(client: DaideClient | TcpClient, name: str, board: str) -> str:
    """NME, the map named and defined: the MDF's text."""
    await client.send(f"NME ('{name}') ('1')")
    assert (await client.expect("YES")).startswith("YES (NME")
    assert await client.expect("MAP") == f"MAP ('{board}')"
    await client.send("MDF")
    mdf = await client.expect("MDF")
    await client.send(f"YES (MAP ('{board}'))")
    return mdf


async def test_two_players_tcp_and_websocket_play_france_against_austria(france_austria: Running) -> None:
    board = variant_map("france_austria")
    tcp = await TcpClient.open(france_austria.daide_port)
    ws = await DaideClient.open(france_austria.ws)
    for client, name in ((tcp, "tcp"), (ws, "ws")):
        mdf = await join(client, name, board.name)
        assert same_map(map_from_mdf(read_mdf(mdf), board.name), board)
    powers = []
    for client in (tcp, ws):
        hlo = await client.expect("HLO")
        client.power = hlo.split("(")[1].split(")")[0].strip()
        powers.append(client.power)
    assert sorted(powers) == ["AUS", "FRA"]  # the map's powers, two of them
    sco = await ws.expect("SCO")
    assert "(UNO " in sco and "ENG" not in sco and "(FRA BRE MAR PAR)" in sco
    nows = [await client.expect("NOW") for client in (tcp, ws)]
    assert nows[0] == nows[1] and nows[0].startswith("NOW (SPR 1901)")
    now = parse(nows[0])
    assert isinstance(now, Now) and {u.power for u in now.units} == {"AUS", "FRA"} and len(now.units) == 6
    helper = DaideClient(None)
    for client in (tcp, ws):
        helper.power = client.power
        sub, count = helper.holds(nows[0])
        await client.send(sub)
        for _ in range(count):
            assert (await client.expect("THX")).endswith("(MBV)")
    # adjudicated: the orders of both, then Fall
    assert (await ws.expect("ORD (SPR 1901)")).startswith("ORD (SPR 1901)")
    assert (await tcp.expect("NOW")).startswith("NOW (FAL 1901)")
    # the page's API tells and draws the game's map
    status, games = await http("GET", f"{france_austria.http}/api/games")
    assert status == 200 and {g["settings"]["map"] for g in games["games"]} == {"france_austria"}
    status, data = await http("GET", f"{france_austria.http}/api/maps/france_austria")
    assert status == 200 and [p["token"] for p in data["power_table"]] == ["AUS", "FRA"]
    assert data["credit"] == "Made with Natural Earth" and len(data["provinces"]) == 75
    await tcp.close()
    await ws.close()


async def test_a_pure_game_sends_pure_and_a_fleet_rome_game_its_fleet(tmp_path: Path) -> None:
    for name, seen in (("pure", "(ITA AMY ROM)"), ("fleet_rome", "(ITA FLT ROM)")):
        async with running_server(tmp_path / name, map=name, fill_with="none", stand_in="none") as running:
            clients = [await DaideClient.open(running.ws) for _ in variant_map(name).powers]
            for i, client in enumerate(clients):
                mdf = await join(client, f"p{i}", name)
            assert same_map(map_from_mdf(read_mdf(mdf), name), variant_map(name))
            now = await clients[0].expect("NOW")
            assert now.startswith("NOW (SPR 1901)") and seen in now
            for client in clients:
                await client.close()


async def test_a_map_name_no_map_has_is_refused_in_one_line(tmp_path: Path) -> None:
    async with running_server(tmp_path) as running:
        for board in ("../../etc/passwd", "x" * 10_000, "atlantis"):
            status, body = await http("POST", f"{running.http}/api/games", {"map": board}, token=TOKEN)
            assert status in (401, 422) and "\n" not in str(body), (board[:20], body)
        status, body = await http("GET", f"{running.http}/api/maps/atlantis")
        assert status == 404 and "\n" not in str(body)

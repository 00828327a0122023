"""Games on variants, on a real server: a TCP DAIDE client and a websocket one play the game's
own map (``MAP``, ``MDF``, ``HLO``, ``NOW``, ``SCO``, orders adjudicated), and the page's API
serves it. Budget: about 10 s."""

from __future__ import annotations

import subprocess
import sys
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
    # over TCP the map comes in its own representation: its two powers numbered 0 and 1 (AiClient's
    # bots index their tables by the numbers), its provinces under their standard names
    tcp = await TcpClient.open(france_austria.daide_port, standard=False)
    rep = tcp.framing.representation
    assert [(rep.token(p) & 0xFF, p) for p in ("AUS", "FRA")] == [(0, "AUS"), (1, "FRA")]
    assert {rep.name(t) for t in rep.provinces} == {board.locations[p] for p in board.provinces}
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
        # a name is never echoed at length, however long the client makes it
        for path, expected in ((f"/api/maps/{'a' * 5000}", 404), ("/api/maps/%00", 404)):
            status, body = await http("GET", f"{running.http}{path}")
            assert status == expected and len(body["error"]) < 200, (path[:30], body)
        status, body = await http("POST", f"{running.http}/api/games", {"map": "b" * 5000}, token=TOKEN)
        assert status == 422 and len(body["error"]) < 200, body
        for board in (["standard"], 5, None, {"a": 1}, "STANDARD", "standard\x00"):
            status, body = await http("POST", f"{running.http}/api/games", {"map": board}, token=TOKEN)
            assert status == 422 and body["error"].startswith("map: "), (board, body)


def test_serve_refuses_a_map_file_without_daide_names_at_start(tmp_path: Path) -> None:
    """A map whose provinces have no DAIDE token is refused before the server listens, in one line
    (it once got as far as a 500 for the game created on it)."""
    odd = tmp_path / "odd.map"
    odd.write_text(
        "[variant]\nname=odd\n[powers]\nAUS=Austria\n[provinces]\nQQQ=Q\nVIE=Vienna\n"
        "[homes]\nAUS=VIE\n[positions]\nAUS=AMY VIE\n[borders]\nQQQ=AMY VIE\nVIE=AMY QQQ\n",
        encoding="utf-8",
    )
    for option in ("--map-file", "--map"):
        done = subprocess.run(
            [sys.executable, "-m", "detente", "serve", "--port", "0", "--daide-port", "0", "--data-dir", str(tmp_path / "d"),
             option, str(odd)],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert done.returncode == 2 and done.stdout == "", (option, done)
        assert done.stderr.count("\n") == 1 and "names what DAIDE has no token for (provinces QQQ)" in done.stderr

"""``GET /api/games/{id}/history`` end to end: a real uvicorn, seven websocket clients, one phase."""

from __future__ import annotations

from tests.server.test_app import play_spring, seven
from tests.server.ws_helpers import Running, http


async def test_history_of_one_phase(server: Running) -> None:
    status, body = await http("GET", f"{server.http}/api/games/nope/history")
    assert status == 404 and "nope" in body["error"]

    clients = await seven(server.ws)
    nows = [await client.expect("NOW") for client in clients]
    listing = (await http("GET", f"{server.http}/api/games"))[1]["games"]
    gid = next(g["id"] for g in listing if g["status"] == "playing")
    forming = next(g["id"] for g in listing if g["status"] == "forming")
    assert await http("GET", f"{server.http}/api/games/{forming}/history") == (200, {"id": forming, "phases": [], "stand_ins": []})
    assert await http("GET", f"{server.http}/api/games/{gid}/history") == (200, {"id": gid, "phases": [], "stand_ins": []})

    # England moves a fleet (a phase ends when every order is in); France bounces two armies;
    # everyone else holds every unit
    await play_spring(
        clients,
        nows,
        {
            "ENG": ("SUB ((ENG FLT LON) MTO NTH) ((ENG FLT EDI) HLD) ((ENG AMY LVP) HLD)", 3),
            "FRA": ("SUB ((FRA AMY PAR) MTO BUR) ((FRA AMY MAR) MTO BUR) ((FRA FLT BRE) HLD)", 3),
        },
    )

    status, body = await http("GET", f"{server.http}/api/games/{gid}/history")
    assert status == 200 and body["id"] == gid and len(body["phases"]) == 1
    (entry,) = body["phases"]
    assert entry["phase"] == "S1901M"
    assert entry["orders"]["ENGLAND"] == ["F LON - NTH", "F EDI H", "A LVP H"]
    assert sorted(entry["orders"]["FRANCE"]) == ["A MAR - BUR", "A PAR - BUR", "F BRE H"]
    assert sorted(entry["orders"]["AUSTRIA"]) == ["A BUD H", "A VIE H", "F TRI H"]
    assert len(entry["orders"]) == 7
    assert entry["results"]["F LON"] == ["ok"]
    assert "bounce" in entry["results"]["A PAR"] and "bounce" in entry["results"]["A MAR"]
    assert len(entry["results"]) == 22
    position = entry["position"]
    assert position["phase"] == "F1901M"
    assert sorted(position["units"]["ENGLAND"]) == ["A LVP", "F EDI", "F NTH"]
    assert sorted(position["units"]["FRANCE"]) == ["A MAR", "A PAR", "F BRE"]
    assert position["centers"]["ENGLAND"] == ["EDI", "LON", "LVP"] and position["dislodged"] == {}

    # the same history once the game is over
    for client in clients:
        await client.send("DRW")
        assert await client.expect("YES") == "YES (DRW)"
    for client in clients:
        assert await client.expect("DRW") == "DRW"
    status, again = await http("GET", f"{server.http}/api/games/{gid}/history")
    assert status == 200 and again == body
    for client in clients:
        await client.close()

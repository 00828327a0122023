"""``GET /api/games/{id}/export``: a game of the server as MILA's saved game, private press for the admin only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.server.test_app import play_spring, seven
from tests.server.ws_helpers import TOKEN, Running, http, running_server

OTHERS_OF_FRANCE = "(AUS ENG GER ITA RUS TUR)"
DATA = Path(__file__).resolve().parents[1] / "data" / "formats"


async def test_a_game_in_play_exports_as_mila_with_its_private_press_only_for_the_admin(tmp_path: Path) -> None:
    async with running_server(tmp_path, press_level=10) as server:
        await _played_a_phase_with_press(server)
        listing = (await http("GET", f"{server.http}/api/games"))[1]["games"]
        gid = next(g["id"] for g in listing if g["status"] == "playing")

        status, public = await http("GET", f"{server.http}/api/games/{gid}/export")
        assert status == 200
        assert [p["name"] for p in public["phases"]] == ["S1901M", "F1901M"]
        assert public["phases"][0]["orders"]["ENGLAND"] == ["F LON - NTH", "F EDI H", "A LVP H"]
        said = [m for p in public["phases"] for m in p["messages"]]
        assert {m["sender"] for m in said} == {"FRANCE"}  # England's private proposal is left out
        assert {m["recipient"] for m in said} == {"AUSTRIA", "ENGLAND", "GERMANY", "ITALY", "RUSSIA", "TURKEY"}

        status, full = await http("GET", f"{server.http}/api/games/{gid}/export", token=TOKEN)
        said = [m for p in full["phases"] for m in p["messages"]]
        assert status == 200 and {m["sender"] for m in said} == {"FRANCE", "ENGLAND"}
        assert [m["message"] for m in said if m["sender"] == "ENGLAND"] == ["PRP (PCE (ENG FRA))"]
        assert all(m["phase"] == "S1901M" for m in said)

        diplomacy = pytest.importorskip("diplomacy")  # the AGPL package: a test dependency only
        from diplomacy.utils.export import from_saved_game_format

        game = from_saved_game_format(full)
        assert isinstance(game, diplomacy.Game)
        assert game.get_current_phase() == "F1901M"
        assert sorted(game.get_units("ENGLAND")) == ["A LVP", "F EDI", "F NTH"]

        status, ours = await http("GET", f"{server.http}/api/games/{gid}/export?format=detente", token=TOKEN)
        assert status == 200 and ours["phases"][0]["phase"] == "S1901M" and len(ours["messages"]) == 2
        assert (await http("GET", f"{server.http}/api/games/{gid}/export?format=xml"))[0] == 400
        assert (await http("GET", f"{server.http}/api/games/nope/export"))[0] == 404


async def _played_a_phase_with_press(server: Running) -> None:
    clients = await seven(server.ws)
    nows = [await client.expect("NOW") for client in clients]
    by_power = {c.power: c for c in clients}
    await by_power["ENG"].send("SND (FRA) (PRP (PCE (ENG FRA)))")
    assert (await by_power["ENG"].expect("YES")).startswith("YES (SND")
    await by_power["FRA"].send(f"SND {OTHERS_OF_FRANCE} (PRP (PCE (FRA GER)))")
    assert (await by_power["FRA"].expect("YES")).startswith("YES (SND")
    await play_spring(clients, nows, {"ENG": ("SUB ((ENG FLT LON) MTO NTH) ((ENG FLT EDI) HLD) ((ENG AMY LVP) HLD)", 3)})


async def test_an_admin_imports_a_mila_file_as_a_finished_game_the_lobby_lists(tmp_path: Path) -> None:
    sample = json.loads((DATA / "mila_sample.json").read_text())
    async with running_server(tmp_path) as server:
        assert (await http("POST", f"{server.http}/api/games/import", sample))[0] == 401
        status, body = await http("POST", f"{server.http}/api/games/import", {"phases": "x"}, token=TOKEN)
        assert status == 422 and "game" in body["error"]
        status, body = await http("POST", f"{server.http}/api/games/import", sample, token=TOKEN)
        assert status == 201
        gid = body["id"]
        listing = (await http("GET", f"{server.http}/api/games"))[1]["games"]
        (game,) = [g for g in listing if g["id"] == gid]
        assert game["status"] == "finished"
        status, history = await http("GET", f"{server.http}/api/games/{gid}/history")
        names = [p["name"] for p in sample["phases"]]
        assert status == 200 and [h["phase"] for h in history["phases"]] == names[:-1]  # the last: where it stopped
        assert game["result"]["outcome"] == "unfinished" and game["result"]["phase"] == names[-1]
        theirs = sample["phases"][0]["orders"]
        assert sorted(history["phases"][0]["orders"]["FRANCE"]) == sorted(theirs["FRANCE"])  # no sea renamed here
        # and back out: the same phases and orders as the file it came from
        status, again = await http("GET", f"{server.http}/api/games/{gid}/export", token=TOKEN)
        assert status == 200 and [p["name"] for p in again["phases"]] == names
        for power, orders in theirs.items():
            assert sorted(again["phases"][0]["orders"][power]) == sorted(orders)
        # never played here, so never replayed: the report of the store leaves it out
        from detente.report import ReportError, load

        with pytest.raises(ReportError, match="no finished game"):
            load(server.db)

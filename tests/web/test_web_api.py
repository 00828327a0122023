"""The page's endpoints (:mod:`server.web_api`) against a real game server: the page itself, the map,
legal orders, order checking (and the DAIDE it gives going through ``SUB``), English both ways."""

from __future__ import annotations

import asyncio
import gzip
import re
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.server.test_app import seven
from tests.server.ws_helpers import DaideClient, http
from tests.web.helpers import Web, create_game, running_web


@pytest.fixture
async def web(tmp_path: Path) -> AsyncIterator[Web]:
    async with running_web(tmp_path, nego=False) as running:
        yield running


async def started_game(web: Web) -> tuple[str, dict[str, DaideClient]]:
    game = await create_game(web)
    players = await seven(f"{web.ws}?game={game}")
    return game, {str(p.power): p for p in players}


async def fetch(url: str) -> tuple[int, dict[str, str], bytes]:
    """A GET in a worker thread (the server runs on this event loop): status, headers (lower case), body."""

    def get() -> tuple[int, dict[str, str], bytes]:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, {k.lower(): v for k, v in response.headers.items()}, response.read()

    return await asyncio.to_thread(get)


async def test_the_page_and_its_files_are_served_with_a_policy_that_loads_nothing_from_elsewhere(web: Web) -> None:
    status, headers, body = await fetch(f"{web.http}/")
    assert status == 200 and b'<script type="module" src="/static/app.js">' in body
    assert "default-src 'self'" in headers["content-security-policy"]
    assert headers["cache-control"] == "no-cache"
    status, headers, body = await fetch(f"{web.http}/static/app.js")
    assert status == 200 and "javascript" in headers["content-type"] and b"import" in body
    assert headers["cache-control"] == "no-cache"
    for name in ("board.js", "chat.js", "orders.js", "daide.js", "nego.js", "style.css"):
        assert (await fetch(f"{web.http}/static/{name}"))[0] == 200
    # nothing the page loads comes from the network: no URL with a host in the static files
    for path in (Path(__file__).parents[2] / "server" / "static").iterdir():
        text = path.read_text(encoding="utf-8")
        assert "http://" not in text.replace("http://www.w3.org/2000/svg", "") and "https://" not in text, path.name


async def test_the_page_files_come_gzipped_revalidated_and_all_at_once(web: Web) -> None:
    static = Path(__file__).parents[2] / "server" / "static"

    def get(name: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
        request = urllib.request.Request(f"{web.http}/static/{name}", headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, {k.lower(): v for k, v in response.headers.items()}, response.read()
        except urllib.error.HTTPError as error:  # a 304 is an "error" to urllib
            return error.code, {k.lower(): v for k, v in error.headers.items()}, b""

    status, headers, body = await asyncio.to_thread(get, "game.js", **{"Accept-Encoding": "gzip"})
    assert status == 200 and headers["content-encoding"] == "gzip" and headers["vary"] == "Accept-Encoding"
    assert gzip.decompress(body) == (static / "game.js").read_bytes() and len(body) < len(gzip.decompress(body)) / 2
    status, headers, body = await asyncio.to_thread(get, "game.js")  # without gzip: as it is
    assert status == 200 and "content-encoding" not in headers and body == (static / "game.js").read_bytes()
    status, _, body = await asyncio.to_thread(
        get, "game.js", **{"Accept-Encoding": "gzip", "If-None-Match": headers["etag"]}
    )
    assert status == 304 and body == b""
    # every module is asked for at once by the page, not one level of imports after another
    index = (static / "index.html").read_text(encoding="utf-8")
    modules = {p.name for p in static.glob("*.js")} - {"app.js"}
    assert modules == set(re.findall(r'<link rel="modulepreload" href="/static/([a-z]+\.js)">', index))


async def test_the_map_has_every_province_placed_with_its_shape_adjacency_and_centres(web: Web) -> None:
    status, data = await http("GET", f"{web.http}/api/map")
    assert status == 200
    provinces = {p["id"]: p for p in data["provinces"]}
    assert len(provinces) == 75 and len(data["supply_centres"]) == 34
    assert provinces["PAR"]["name"] == "Paris" and provinces["PAR"]["home"] == "FRANCE"
    assert provinces["STP"]["coasts"] == ["STP/NC", "STP/SC"] and provinces["NTH"]["kind"] == "sea"
    for p in provinces.values():
        assert 0 <= p["x"] <= data["width"] and 0 <= p["y"] <= data["height"]
        assert p["shape"].startswith("M") and p["shape"].endswith("Z")
    assert data["credit"] == "Made with Natural Earth"
    assert set(data["locations"]) >= {"STP/NC", "SPA/SC", "BUL/EC", "PAR"}
    assert data["locations"]["STP/NC"] != data["locations"]["STP/SC"]
    edges = {(e["a"], e["b"]): e for e in data["edges"]}
    assert edges[("BUR", "PAR")] == {"a": "BUR", "b": "PAR", "army": True, "fleet": False}
    assert edges[("ECH", "NTH")]["fleet"] and not edges[("ECH", "NTH")]["army"]
    assert "STP/NC" in data["fleet_moves"]["BAR"] and data["homes"]["ENGLAND"] == ["EDI", "LON", "LVP"]
    assert data["initial"]["units"]["RUSSIA"] == ["A MOS", "F SEV", "F STP/SC", "A WAR"]


async def test_legal_orders_by_unit_in_both_notations(web: Web) -> None:
    forming = await create_game(web)
    assert (await http("GET", f"{web.http}/api/games/{forming}/legal?power=ENG"))[0] == 409
    game, _ = await started_game(web)
    status, legal = await http("GET", f"{web.http}/api/games/{game}/legal?power=ENG")
    assert status == 200
    assert (legal["phase"], legal["kind"], legal["power"], legal["owed"]) == ("S1901M", "movement", "ENGLAND", 0)
    assert sorted(legal["units"]) == ["A LVP", "F EDI", "F LON"]
    moves = {o["order"]: o["daide"] for o in legal["units"]["A LVP"]}
    assert moves["A LVP - YOR"] == "(ENG AMY LVP) MTO YOR"
    assert moves["A LVP S F EDI"] == "(ENG AMY LVP) SUP (ENG FLT EDI)"
    assert (await http("GET", f"{web.http}/api/games/{game}/legal?power=England"))[1]["units"] == legal["units"]
    assert (await http("GET", f"{web.http}/api/games/{game}/legal?power=XYZ"))[0] == 422
    assert (await http("GET", f"{web.http}/api/games/nosuch/legal?power=ENG"))[0] == 404


async def test_an_order_checked_gives_the_daide_that_sub_accepts_and_a_bad_one_says_why(web: Web) -> None:
    game, players = await started_game(web)
    url = f"{web.http}/api/orders/check"
    status, good = await http("POST", url, {"game": game, "power": "ENG", "text": "lvp-yor"})
    assert status == 200
    assert good == {
        "ok": True,
        "order": "A LVP - YOR",
        "daide": "(ENG AMY LVP) MTO YOR",
        "unit": "A LVP",
        "note": "MBV",
    }
    coast = (await http("POST", url, {"game": game, "power": "RUS", "text": "F STP/SC - BOT"}))[1]
    assert (coast["ok"], coast["unit"], coast["daide"]) == (True, "F STP/SC", "(RUS FLT (STP SCS)) MTO GOB")
    england = players["ENG"]
    await england.send(f"SUB ({good['daide']})")
    assert await england.expect("THX") == "THX ((ENG AMY LVP) MTO YOR) (MBV)"

    bad = {
        "A LVP - MOS": "cannot reach",
        "A PAR - BUR": "not your unit",
        "A LON - NTH": "no such unit",
        "F XYZ - NTH": "unknown province",
        "A LVP jumps": "cannot read",
        "A LVP B": "not given in this phase",
    }
    for text, reason in bad.items():
        status, answer = await http("POST", url, {"game": game, "power": "ENG", "text": text})
        assert status == 200 and answer["ok"] is False and reason in answer["reason"], (text, answer)
    assert (await http("POST", url, {"game": game, "power": "XYZ", "text": "A LVP H"}))[0] == 422
    assert (await http("POST", url, {"game": "nosuch", "power": "ENG", "text": "A LVP H"}))[0] == 404
    assert (await http("POST", url, {"game": game, "power": "ENG"}))[0] == 422


async def test_english_to_l_and_back_through_the_dialogue_assistant(web: Web) -> None:
    game, _ = await started_game(web)
    url = f"{web.http}/api/english/understand"
    body = {"game": game, "sender": "ENGLAND", "receiver": "FRA", "text": "I propose peace"}
    status, said = await http("POST", url, body)
    assert status == 200 and said["ok"] is True
    assert said["l"] == "propose(eng, [fra], Agree([eng fra], pce([eng fra])))"
    assert "peace" in said["echo"]

    yes = (
        await http("POST", url, {**body, "sender": "FRA", "receiver": "ENG", "text": "ok", "open_proposal": said["l"]})
    )[1]
    assert yes["l"] == "accept(fra, [eng], Agree([eng fra], pce([eng fra])))"
    # the position resolves units: England's fleet in London
    fleet = (await http("POST", url, {**body, "text": "I will move my fleet in London to the North Sea"}))[1]
    assert fleet["ok"] and "LON" in fleet["l"].upper() and "NTH" in fleet["l"].upper(), fleet

    muddle = (await http("POST", url, {**body, "text": "I propose peace, and my cat is hungry"}))[1]
    assert muddle["ok"] is False and muddle["reason"]
    assert muddle["closest"] == said["l"] and "peace" in muddle["closest_echo"]
    nothing = (await http("POST", url, {**body, "text": "blah blah"}))[1]
    assert nothing["ok"] is False and "closest" not in nothing
    assert (await http("POST", url, {**body, "sender": "XYZ"}))[0] == 422

    render = f"{web.http}/api/english/render"
    status, english = await http("POST", render, {"l": said["l"], "viewer": "FRANCE"})
    assert status == 200 and english["english"] == "England proposes to you: peace between England and you"
    deal = (await http("POST", render, {"deal": "Agree([eng fra], pce([eng fra]))", "viewer": "ENG"}))[1]
    assert deal["english"].lower().startswith("peace between")
    status, error = await http("POST", render, {"l": "propose(eng, fra"})
    assert status == 422 and error["line"] == 1
    assert (await http("POST", render, {"viewer": "ENG"}))[0] == 422

"""The server's own bots, on a real server on loopback: games against bots, and stand-ins.

A person asks for a game against bots (``POST /api/games/against-bots``) and plays it over
the real websocket; a person leaves a game with two people and is stood in for, the
other person is told and plays on, and the seat is the player's again when the player
comes back, across a restart of the server too. Every wait is on a message or a state.
Budget: about 15 s.
"""

from __future__ import annotations

import asyncio
import http.client as httpc
import json
import sqlite3
from pathlib import Path
from typing import Any

from detente.house import BotHouse
from server.bot_seats import BotSeats
from tests.server.nego_helpers import NegoClient, Pair, running_nego
from tests.server.ws_helpers import TIMEOUT, TOKEN, DaideClient, http, running_server
from tests.web.helpers import free_port

SERVICES: list[Any] = []  # the services of the servers the tests started, as their house saw them


def _house(service: Any, settings: Any) -> BotHouse:
    SERVICES.append(service)
    return BotHouse(service, None, seed=1)


async def _post_from(address: str, port: int, path: str, body: Any) -> tuple[int, Any]:
    """A JSON POST from the source address ``address`` (any of 127.0.0.0/8)."""

    def call() -> tuple[int, Any]:
        connection = httpc.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT, source_address=(address, 0))
        try:
            connection.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
            response = connection.getresponse()
            return response.status, json.loads(response.read())
        finally:
            connection.close()

    return await asyncio.to_thread(call)


async def _info(base: str, game: str) -> dict[str, Any]:
    status, info = await http("GET", f"{base}/api/games/{game}")
    assert status == 200, info
    return info


def _seat(info: dict[str, Any], power: str) -> dict[str, Any]:
    return next(p for p in info["players"] if p["power"] == power)


async def _until_info(base: str, game: str, check: Any) -> dict[str, Any]:
    """The game's API view once ``check`` holds of it (polled: a state the page reads so too)."""
    async with asyncio.timeout(TIMEOUT):
        while True:
            info = await _info(base, game)
            if check(info):
                return info
            await asyncio.sleep(0.05)


def _records(db: Path, game: str, kinds: tuple[str, ...]) -> list[tuple[str, dict[str, Any]]]:
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT kind, payload FROM events WHERE game_id = ? ORDER BY seq", (game,)).fetchall()
    return [(kind, json.loads(payload)) for kind, payload in rows if kind in kinds]


async def test_a_person_plays_a_whole_game_against_bots_from_one_request(tmp_path: Path) -> None:
    async with running_server(tmp_path, house=_house) as server:
        status, made = await http(
            "POST", f"{server.http}/api/games/against-bots", {"power": "fra", "bot": "holdbot", "year_limit": 1901}
        )
        assert status == 201, made
        assert made["power"] == "FRANCE" and made["bot"] == "holdbot"
        info = await _info(server.http, made["id"])
        assert info["status"] == "forming"
        assert info["settings"]["reserved"] == {"FRANCE": ""}  # the name that takes the seat stays a secret
        person = await DaideClient.open(f"{server.ws}?game={made['id']}")
        await person.join(made["name"])
        await person.hello()
        assert person.power == "FRA"
        info = await _info(server.http, made["id"])
        others = [p for p in info["players"] if p["power"] != "FRANCE"]
        assert [(p["bot"], p["taken"], p["connected"]) for p in others] == [("holdbot", True, True)] * 6
        assert _seat(info, "FRANCE")["bot"] is None
        for phase in ("SPR", "FAL"):  # the bots order as soon as a phase opens: it waits for the person alone
            now = await person.expect("NOW")
            assert f"({phase} 1901)" in now
            sub, _ = person.holds(now)
            await person.send(sub)
        assert (await person.expect("DRW")) == "DRW"  # the year limit: every bot played the whole game
        await person.close()


async def test_games_against_bots_are_bounded_and_bad_bots_get_one_line(tmp_path: Path) -> None:
    async with running_server(tmp_path, house=_house) as server:
        path = "/api/games/against-bots"
        status, body = await _post_from("127.0.0.2", server.port, path, {"bot": "dumbot"})
        assert status == 422 and "did you mean dumbbot" in body["error"]
        status, body = await _post_from("127.0.0.2", server.port, path, {"bot": "llm:m@http://127.0.0.1:9/v1"})
        assert status == 422 and "model seat" in body["error"]
        for code in ("tests/server/test_house.py:Bot", "os.path:Bot", "bots.base:HoldBot"):  # never a stranger's import
            status, body = await _post_from("127.0.0.2", server.port, path, {"bot": code})
            assert status == 422 and "a bot of your own joins as a client" in body["error"], body
        status, body = await _post_from("127.0.0.2", server.port, path, {"power": "atlantis"})
        assert status == 422
        for _ in range(BotSeats.PER_NETWORK):
            status, body = await _post_from("127.0.0.2", server.port, path, {})
            assert status == 201, body
        status, body = await _post_from("127.0.0.3", server.port, path, {})
        assert status == 429 and "one network" in body["error"]  # 127.0.0.3 is of the same /24
        status, body = await http("POST", f"{server.http}/api/games", {"bots": {"ENGLAND": "dumbot"}}, token=TOKEN)
        assert status == 422 and "dumbot" in body["error"]


async def test_at_its_bound_the_server_cancels_the_game_against_bots_left_longest(tmp_path: Path) -> None:
    async with running_server(tmp_path, house=_house) as server:
        seats = SERVICES[-1].bot_seats
        seats.MAX_GAMES, seats.IDLE, seats.UNJOINED = 2, 3600.0, 3600.0
        path = "/api/games/against-bots"
        made = [(await _post_from(f"127.0.{i}.2", server.port, path, {"power": "ENG"}))[1] for i in (1, 2)]
        person = await DaideClient.open(f"{server.ws}?game={made[0]['id']}")
        await person.join(made[0]["name"])  # the first game is played; nobody joins the second
        status, body = await _post_from("127.0.3.2", server.port, path, {})
        assert status == 429 and "try again later" in body["error"]  # none was left long enough
        seats.UNJOINED = 0.0  # the game nobody joined may go; the one played may not (IDLE)
        status, body = await _post_from("127.0.3.2", server.port, path, {})
        assert status == 201, body
        info = await _info(server.http, made[1]["id"])  # nobody ever joined it: it made room
        assert info["status"] == "finished" and info["result"]["outcome"] == "cancelled"
        assert (await _info(server.http, made[0]["id"]))["status"] == "playing"
        await person.close()


async def test_a_server_without_a_house_refuses_games_that_name_bots(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server:
        status, body = await http("POST", f"{server.http}/api/games", {"stand_in": "dumbbot"}, token=TOKEN)
        assert status == 422 and "plays no bots" in body["error"]
        status, body = await http("POST", f"{server.http}/api/games/against-bots", {})
        assert status == 422 and "plays no bots" in body["error"]


async def _two_people(server: Any) -> tuple[str, DaideClient, DaideClient]:
    """A game of England and France (people) and five holdbots, France standing in after 1 s."""
    bots = {p: "holdbot" for p in ("AUSTRIA", "GERMANY", "ITALY", "RUSSIA", "TURKEY")}
    body = {
        "bots": bots,
        "reserved": {"ENGLAND": "england", "FRANCE": "france"},
        "stand_in": "holdbot",
        "stand_in_after": 1,
        "deadlines": None,
        "year_limit": 1903,
    }
    status, made = await http("POST", f"{server.http}/api/games", body, token=TOKEN)
    assert status == 201, made
    game = made["id"]
    england = await DaideClient.open(f"{server.ws}?game={game}")
    france = await DaideClient.open(f"{server.ws}?game={game}")
    await england.join("england")
    await france.join("france")
    await england.hello()
    await france.hello()
    assert (england.power, france.power) == ("ENG", "FRA")
    return game, england, france


async def test_a_stand_in_plays_an_absent_players_seat_until_the_player_returns(tmp_path: Path) -> None:
    async with running_server(tmp_path, house=_house) as server:
        game, england, france = await _two_people(server)
        await france.close()  # France goes away in spring 1901; England waits
        said = await england.expect("ADM ('detente') ('France is played by holdbot")
        assert "until its player returns" in said
        info = await _info(server.http, game)
        seat = _seat(info, "FRANCE")
        assert (seat["stand_in"], seat["connected"], seat["civil_disorder"]) == ("holdbot", False, False)
        now = await england.expect("NOW")
        sub, _ = england.holds(now)
        await england.send(sub)
        assert "(FAL 1901)" in await england.expect("NOW")  # the stand-in ordered France's units
        back = await DaideClient.open(f"{server.ws}?game={game}")
        await back.send(f"IAM (FRA) ('{france.session}')")
        assert await back.expect("YES (IAM") and "holdbot no longer" in await england.expect(
            "ADM ('detente') ('the player of France is back"
        )
        info = await _until_info(server.http, game, lambda i: _seat(i, "FRANCE")["connected"])
        assert _seat(info, "FRANCE")["stand_in"] is None
        kinds = _records(server.db, game, ("stand_in", "returned"))
        assert [(k, p["power"], p["phase"]) for k, p in kinds] == [
            ("stand_in", "FRANCE", "S1901M"),
            ("returned", "FRANCE", "F1901M"),
        ]
        status, document = await http("GET", f"{server.http}/api/games/{game}/export?format=detente")
        assert status == 200  # the file of the game says it too, to anyone
        spans = [{"power": "FRANCE", "bot": "holdbot", "since": "S1901M", "until": "F1901M"}]
        assert document["stand_ins"] == spans
        status, history = await http("GET", f"{server.http}/api/games/{game}/history")
        assert status == 200 and history["stand_ins"] == spans  # where the page reads it
        for client in (england, back):
            await client.close()


async def test_a_stand_in_comes_back_with_the_server_and_still_ends_with_the_player(tmp_path: Path) -> None:
    async with running_server(tmp_path, house=_house) as server:
        game, england, france = await _two_people(server)
        await france.close()
        await england.expect("ADM ('detente') ('France is played by holdbot")
        await england.close()
    async with running_server(tmp_path, house=_house) as server:  # the same store: the game comes back
        info = await _until_info(server.http, game, lambda i: _seat(i, "FRANCE")["stand_in"] == "holdbot")
        assert _seat(info, "ENGLAND")["civil_disorder"]
        again = await DaideClient.open(f"{server.ws}?game={game}")
        await again.send(f"IAM (ENG) ('{england.session}')")
        await again.expect("YES (IAM")
        await again.send("NOW")
        now = await again.expect("NOW")
        assert "(SPR 1901)" in now
        again.power = "ENG"
        sub, _ = again.holds(now)
        await again.send(sub)
        assert "(FAL 1901)" in await again.expect("NOW")  # the stand-in, back with the server, ordered France's
        back = await DaideClient.open(f"{server.ws}?game={game}")
        await back.send(f"IAM (FRA) ('{france.session}')")
        await back.expect("YES (IAM")
        await _until_info(server.http, game, lambda i: _seat(i, "FRANCE")["stand_in"] is None)
        kinds = [k for k, _ in _records(server.db, game, ("stand_in", "returned"))]
        assert kinds == ["stand_in", "returned"]  # the stand-in said once, not again after the restart
        for client in (again, back):
            await client.close()


async def test_a_stranger_in_the_open_game_is_not_kept_waiting_for_players_who_never_come(tmp_path: Path) -> None:
    async with running_server(tmp_path, house=_house, fill_with="holdbot", fill_after="1") as server:
        stranger = await DaideClient.open(server.ws)  # no game named: the open game
        await stranger.join("stranger")
        said = await stranger.expect("ADM ('detente') ('6 empty seats are played by holdbot")
        assert "the game starts" in said
        await stranger.hello()
        now = await stranger.expect("NOW")
        sub, _ = stranger.holds(now)
        await stranger.send(sub)
        assert "(FAL 1901)" in await stranger.expect("NOW")
        _, games = await http("GET", f"{server.http}/api/games")
        by_status = {g["status"]: g["id"] for g in games["games"]}
        assert set(by_status) == {"playing", "forming"}  # the stranger's game plays; a new one is open
        playing = await _info(server.http, by_status["playing"])
        assert sorted(p["bot"] or "" for p in playing["players"]) == [""] + ["holdbot"] * 6
        await stranger.close()


async def against_accepting_bots(server: Any, nego_port: int) -> tuple[dict[str, Any], DaideClient, NegoClient]:
    """A game of France against six always-accept bots, joined over DAIDE and welcomed on /nego."""
    status, made = await http("POST", f"{server.http}/api/games/against-bots", {"power": "FRA", "bot": "always-accept"})
    assert status == 201, made
    person = await DaideClient.open(f"{server.ws}?game={made['id']}")
    await person.join(made["name"])
    await person.hello()
    assert person.session is not None
    talk = await NegoClient.open(Pair(server, nego_port), made["id"], "FRA", person.session)
    await talk.expect("welcome")
    return made, person, talk


async def test_the_bots_of_a_game_against_bots_negotiate_with_the_person(tmp_path: Path) -> None:
    houses: list[BotHouse] = []

    def house(service: Any, settings: Any) -> BotHouse:
        houses.append(BotHouse(service, None, seed=2))
        return houses[-1]

    async with (
        running_server(tmp_path, house=house) as server,
        running_nego(server, tmp_path / "nego.sqlite3") as nego_port,
    ):
        houses[-1].nego_url = f"ws://127.0.0.1:{nego_port}/nego"  # known once it runs: before any bot plays
        _, person, talk = await against_accepting_bots(server, nego_port)
        proposal = "propose(fra, [eng], Agree([eng fra], pce([eng fra])))"
        assert (await talk.say(proposal))["type"] == "ack"
        answer = await talk.expect("message", **{"from": "ENG"})
        assert answer["text"] == "accept(eng, [fra], Agree([eng fra], pce([eng fra])))"
        assert (await talk.expect("confirmed"))["type"] == "confirmed"  # the notary confirms the deal
        await talk.close()
        await person.close()


async def test_the_bots_of_a_game_against_bots_negotiate_again_after_a_restart(tmp_path: Path) -> None:
    nego_port = free_port()  # known before either server starts: the bots come back with the game server

    def house(service: Any, settings: Any) -> BotHouse:
        return BotHouse(service, f"ws://127.0.0.1:{nego_port}/nego", seed=2)

    async with (
        running_server(tmp_path, house=house) as server,
        running_nego(server, tmp_path / "nego.sqlite3", port=nego_port),
    ):
        made, person, talk = await against_accepting_bots(server, nego_port)
        assert (await talk.say("propose(fra, [eng], Agree([eng fra], pce([eng fra])))"))["type"] == "ack"
        await talk.expect("message", **{"from": "ENG"})
        await talk.close()
        await person.close()
    async with (
        running_server(tmp_path, house=house) as server,  # the same stores: the game and its bots come back
        running_nego(server, tmp_path / "nego.sqlite3", port=nego_port),
    ):
        back = await DaideClient.open(f"{server.ws}?game={made['id']}")
        await back.send(f"IAM (FRA) ('{person.session}')")
        await back.expect("YES (IAM")
        talk = await NegoClient.open(Pair(server, nego_port), made["id"], "FRA", person.session)
        welcome = await talk.expect("welcome")
        mail = [await talk.expect("message") for _ in range(welcome["mail"])]
        assert [m["from"] for m in mail] == ["FRA", "ENG"]  # the first proposal and its answer, once each
        proposal = "propose(fra, [eng], Agree([eng fra], dmz([eng], [nth])))"
        assert (await talk.say(proposal))["type"] == "ack"
        answer = await talk.expect("message", **{"from": "ENG"})  # the bot of after the restart answers
        assert answer["text"] == "accept(eng, [fra], Agree([eng fra], dmz([eng], [nth])))"
        await talk.close()
        await back.close()

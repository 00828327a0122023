"""The negotiation server end to end: real game and negotiation servers on loopback,
DAIDE players on the game server and JSON clients on ``/nego``."""

from __future__ import annotations

import asyncio
import json
import urllib.request
from pathlib import Path

import pytest
import websockets

from tests.server.nego_helpers import NegoClient, Pair, negotiators, press_game, running_nego, running_pair
from tests.server.test_app import play_holds
from tests.server.ws_helpers import TOKEN, http, running_server

PEACE = "Agree([eng fra], pce([eng fra]))"


@pytest.fixture
async def pair(tmp_path: Path):  # type: ignore[no-untyped-def]
    async with running_pair(tmp_path) as running:
        yield running


async def test_welcome_delivery_privacy_and_the_errors_of_every_kind(pair: Pair) -> None:
    game, players = await press_game(pair, l_levels="1-3")
    nego = await negotiators(pair, game, players, "ENG", "FRA", "GER")
    eng, fra, ger = nego["ENG"], nego["FRA"], nego["GER"]

    answer = await eng.say(f"propose(eng, fra, {PEACE})")
    assert answer == {"type": "ack", "id": 1, "level": 1}
    message = await fra.expect("message")
    assert message == {
        "type": "message",
        "from": "ENG",
        "to": ["FRA"],
        "text": f"propose(eng, [fra], {PEACE})",
        "phase": "S1901M",
        "seq": 1,
    }
    assert not [f for f in await ger.drain() if f["type"] == "message"]  # only β receives

    errors = {
        "propose(eng, fra": "syntax",
        "inform(eng, fra, Feel(eng, Happy))": "level",
        "propose(eng, fra, Agree([eng fra], pce([eng xyz])))": "ontology",
        f"propose(fra, eng, {PEACE})": "identity",  # a spoofed sender
        "propose(eng, [eng fra], Agree([eng fra], pce([eng fra])))": "identity",
    }
    for text, code in errors.items():
        answer = await eng.say(text)
        assert (answer["type"], answer["code"]) == ("error", code), text
    syntax = await eng.say("propose(eng, fra")
    assert (syntax["line"], syntax["column"]) == (1, 17)

    await eng.ws.send("{not json")
    assert (await eng.expect("error"))["code"] == "frame"
    await eng.send({"type": "say", "id": 99})
    assert (await eng.expect("error", id=99))["code"] == "frame"

    # reading another's mail: the session token is checked with the game server, and the
    # 13-bit DAIDE passcode opens nothing here
    thief = await NegoClient.open(pair, game, "FRA", players["ENG"].session or "")
    assert (await thief.expect("error"))["code"] == "auth"
    by_passcode = await websockets.connect(pair.nego)
    await by_passcode.send(json.dumps({"type": "hello", "power": "FRA", "passcode": players["FRA"].passcode}))
    assert json.loads(await by_passcode.recv())["code"] == "frame"
    anonymous = await websockets.connect(pair.nego)
    await anonymous.send('{"type": "say", "id": 1, "text": "withdraw(eng, fra)"}')
    assert '"code":"auth"' in await anonymous.recv()

    # the mail comes back after a reconnection, which may leave the game out: the token finds it
    await fra.close()
    again = await NegoClient.open(pair, None, "FRA", players["FRA"].session or "")
    assert (await again.expect("welcome"))["game"] == game
    assert (await again.expect("message"))["seq"] == 1


async def test_the_reply_protocol_and_expiry_at_the_end_of_the_phase(pair: Pair) -> None:
    game, players = await press_game(pair, protocol="reply")
    nego = await negotiators(pair, game, players, "ENG", "FRA", "GER")
    eng, fra, ger = nego["ENG"], nego["FRA"], nego["GER"]
    assert (await eng.say(f"propose(eng, fra, {PEACE})"))["type"] == "ack"
    assert (await fra.say(f"propose(fra, eng, {PEACE})"))["code"] == "protocol"  # pending between them
    assert (await eng.say(f"propose(eng, fra, {PEACE})"))["code"] == "protocol"
    assert (await ger.say(f"accept(ger, eng, {PEACE})"))["code"] == "protocol"  # not proposed to GER
    assert (await fra.say("reject(fra, eng, Agree([eng fra], pce([eng fra ger])))"))["code"] == "protocol"
    assert (await ger.say("withdraw(ger, eng)"))["code"] == "protocol"
    assert (await fra.say(f"reject(fra, eng, {PEACE})"))["type"] == "ack"
    assert (await fra.say(f"propose(fra, eng, {PEACE})"))["type"] == "ack"  # answered: free again
    assert (await eng.say(f"propose(eng, ger, {PEACE.replace('fra', 'ger')})"))["type"] == "ack"

    now_texts = [await p.expect("NOW") for p in players.values()]
    await play_holds(list(players.values()), now_texts)
    expired = [await eng.expect("expired"), await eng.expect("expired")]
    assert sorted(e["from"] for e in expired) == ["ENG", "FRA"]
    assert (await ger.expect("expired"))["from"] == "ENG"
    assert (await eng.expect("phase"))["phase"] == "F1901M"
    assert (await fra.say(f"propose(fra, eng, {PEACE})"))["type"] == "ack"  # the old one expired


async def test_bilateral_protocol_and_closed_windows(pair: Pair) -> None:
    game, players = await press_game(pair, protocol="bilateral", press_phases=["retreat"])
    nego = await negotiators(pair, game, players, "ENG")
    answer = await nego["ENG"].say("propose(eng, [fra ger], Agree([eng fra ger], pce([eng fra ger])))")
    assert answer["code"] == "closed"  # movement phase, press only in retreats
    assert "movement" in answer["message"]


async def test_the_notary_confirms_and_refuses_conflicts(pair: Pair) -> None:
    game, players = await press_game(pair)
    nego = await negotiators(pair, game, players, "ENG", "FRA", "GER")
    eng, fra, ger = nego["ENG"], nego["FRA"], nego["GER"]
    deal = (
        "[Commit(eng, fra, Do(mto(Unit(eng, Region(lon, coast)), Region(ech, sea))))"
        " Commit(fra, eng, Do(mto(Unit(fra, Region(bre, coast)), Region(mao, sea))))]"
    )
    assert (await eng.say(f"propose(eng, fra, {deal})"))["type"] == "ack"
    assert (await fra.say(f"accept(fra, eng, {deal})"))["type"] == "ack"
    for client in (eng, fra):
        confirmed = await client.expect("confirmed")
        assert confirmed["participants"] == ["ENG", "FRA"]
    clash = "Commit(eng, ger, Do(hld(Unit(eng, Region(lon, coast)))))"
    assert (await eng.say(f"propose(eng, ger, {clash})"))["type"] == "ack"
    conflict = await eng.expect("conflict")
    assert "lon" in conflict["reason"].lower()
    assert not [f for f in await ger.drain() if f["type"] == "confirmed"]


async def test_binding_commitments_and_compliance_reports(pair: Pair) -> None:
    game, players = await press_game(pair, binding=True)
    nego = await negotiators(pair, game, players, "ENG", "FRA", "GER")
    eng, fra, ger = nego["ENG"], nego["FRA"], nego["GER"]
    bound = "Commit(eng, fra, Do(mto(Unit(eng, Region(lon, coast)), Region(nth, sea))))"
    assert (await eng.say(f"propose(eng, fra, {bound})"))["type"] == "ack"
    assert (await fra.say(f"accept(fra, eng, {bound})"))["type"] == "ack"
    # only ENG is committed: a promise, which FRA's acceptance makes hold, pending until the game server holds it
    pending = await eng.expect(lambda f: f["type"] in ("pending", "accepted"))
    assert pending["type"] == "pending" and pending["participants"] == ["ENG", "FRA"] and pending["promise"]
    await eng.expect("accepted")
    promise = "Commit(ger, fra, ~Do(hld(Unit(ger, Region(kie, coast)))))"  # not binding: only orders are
    assert (await ger.say(f"propose(ger, fra, {promise})"))["type"] == "ack"
    assert (await fra.say(f"accept(fra, ger, {promise})"))["type"] == "ack"
    await fra.expect("accepted", participants=["ENG", "FRA"])
    await fra.expect("accepted", participants=["FRA", "GER"])
    assert not [f for f in await fra.drain() if f["type"] in ("accepted", "confirmed")]  # told once, not again

    # everyone holds: the binding game moves London anyway; Germany broke its promise
    now_texts = [await p.expect("NOW") for p in players.values()]
    await play_holds(list(players.values()), now_texts)
    status, history = await http("GET", f"{pair.game.http}/api/games/{game}/history")
    assert "F NTH" in history["phases"][0]["position"]["units"]["ENGLAND"]
    report = await fra.expect(lambda f: f["type"] == "compliance" and "kie" in f["deal"])
    assert [(r["power"], r["kept"]) for r in report["reports"]] == [("ger", False)]
    assert report["phase"] == "S1901M"
    kept = await eng.expect("compliance", phase="S1901M")
    assert [(r["power"], r["kept"]) for r in kept["reports"]] == [("eng", True)]


async def test_a_restart_keeps_history_and_pending_proposals(tmp_path: Path) -> None:
    async with running_server(tmp_path) as game_server:
        pair_db = tmp_path / "nego.sqlite3"
        async with running_nego(game_server, pair_db) as port:
            pair = Pair(game_server, port)
            game, players = await press_game(pair, protocol="reply")
            nego = await negotiators(pair, game, players, "ENG", "FRA")
            assert (await nego["ENG"].say(f"propose(eng, fra, {PEACE})"))["type"] == "ack"
            await nego["FRA"].expect("message")
        async with running_nego(game_server, pair_db) as port:
            pair = Pair(game_server, port)
            nego = await negotiators(pair, game, players, "ENG", "FRA")
            assert (await nego["FRA"].expect("message"))["text"] == f"propose(eng, [fra], {PEACE})"
            assert (await nego["FRA"].say(f"propose(fra, eng, {PEACE})"))["code"] == "protocol"  # still pending
            assert (await nego["FRA"].say(f"accept(fra, eng, {PEACE})"))["type"] == "ack"
            status, log = await http("GET", f"{pair.nego_http}/api/games/{game}/log", token=TOKEN)
            assert status == 200
            assert [r["seq"] for r in log["records"] if r["kind"] == "message"] == [1, 2]
            status, _ = await http("GET", f"{pair.nego_http}/api/games/{game}/log", token="wrong")
            assert status == 401


async def test_the_bridge_both_ways(pair: Pair) -> None:
    game, players = await press_game(pair, press_level=30)
    nego = await negotiators(pair, game, players, "ENG")
    # L to a DAIDE-only player: FRM
    assert (await nego["ENG"].say(f"propose(eng, fra, {PEACE})"))["type"] == "ack"
    frm = await players["FRA"].expect("FRM")
    assert frm == "FRM (ENG) (FRA) (PRP (PCE (ENG FRA)))"
    # DAIDE from FRA to ENG: L
    await players["FRA"].send("SND (ENG) (YES (PRP (PCE (ENG FRA))))")
    await players["FRA"].expect("YES (SND")
    message = await nego["ENG"].expect("message", **{"from": "FRA"})
    assert message["text"] == f"accept(fra, [eng], {PEACE})"
    # what L cannot say: HUH back to the DAIDE sender, from the L reader
    await players["FRA"].send("SND (ENG) (PRP (ORR (PCE (ENG FRA)) (PCE (ENG GER))))")
    await players["FRA"].expect("YES (SND")
    huh = await players["FRA"].expect("FRM (ENG)")
    assert "HUH" in huh and "ERR" in huh
    # what DAIDE cannot say: an error for the L sender
    answer = await nego["ENG"].say("inform(eng, fra, Desire(eng, pce([eng fra])))")
    assert (answer["type"], answer["code"]) == ("error", "recipient")
    await asyncio.gather(*(p.close() for p in players.values()))


async def test_both_servers_expose_metrics(pair: Pair) -> None:
    game, players = await press_game(pair)
    nego = await negotiators(pair, game, players, "ENG")
    await nego["ENG"].say(f"propose(eng, fra, {PEACE})")
    await nego["ENG"].say("propose(eng, fra")
    now_texts = [await p.expect("NOW") for p in players.values()]
    await play_holds(list(players.values()), now_texts)
    game_metrics = await _text(f"{pair.game.http}/metrics")  # with the admin token (TOKEN, both servers)
    assert 'detente_games{state="playing"} 1' in game_metrics
    assert "detente_connections 7" in game_metrics
    assert "detente_phases_total 1" in game_metrics
    assert 'detente_messages_total{kind="SUB"} 7' in game_metrics
    assert "detente_message_seconds_count" in game_metrics and "detente_feed_followers 1" in game_metrics
    nego_metrics = await _text(f"{pair.nego_http}/metrics")
    assert 'detente_nego_messages_total{answer="ack"} 1' in nego_metrics
    assert 'detente_nego_messages_total{answer="syntax"} 1' in nego_metrics
    assert "detente_nego_clients 1" in nego_metrics and "detente_nego_following 1" in nego_metrics
    assert "detente_nego_say_seconds_count 2" in nego_metrics


async def _text(url: str) -> str:
    def get() -> str:
        request = urllib.request.Request(url, headers={"Authorization": f"Bearer {TOKEN}"})  # /metrics needs it
        with urllib.request.urlopen(request, timeout=10) as response:
            assert response.headers["Content-Type"].startswith("text/plain; version=0.0.4")
            return str(response.read().decode())

    return await asyncio.to_thread(get)


async def test_sync_comes_after_every_answer_and_delivery_queued_before(pair: Pair) -> None:
    game, players = await press_game(pair)
    nego = await negotiators(pair, game, players, "ENG", "FRA", "GER")
    eng, fra, ger = nego["ENG"], nego["FRA"], nego["GER"]
    # ENG says five messages without waiting, then asks for synced: every ack comes before it
    for n in range(1, 6):
        await eng.send({"type": "say", "id": n, "text": f"propose(eng, [fra ger], Agree([eng fra ger], pce([eng fra ger{' ' * n}])))"})
    await eng.send({"type": "sync", "id": "s"})
    frames = []
    while not frames or frames[-1].get("type") != "synced":
        frames.append(json.loads(await eng.ws.recv()))
    assert [f["id"] for f in frames if f["type"] in ("ack", "error")] == [1, 2, 3, 4, 5]
    assert frames[-1] == {"type": "synced", "id": "s"}
    # once ENG has its acks, a sync of FRA's comes after the five deliveries to FRA
    await fra.send({"type": "sync", "id": 99})
    got = []
    while not got or got[-1].get("type") != "synced":
        got.append(json.loads(await fra.ws.recv()))
    assert [f["type"] for f in got] == ["message"] * 5 + ["synced"]
    # a sync needs no hello, and a frame of no kind is still refused in one error
    stranger = await websockets.connect(pair.nego)
    await stranger.send(json.dumps({"type": "sync", "id": [1, 2]}))
    assert json.loads(await stranger.recv()) == {"type": "synced", "id": [1, 2]}
    await stranger.send(json.dumps({"type": "sync", "id": 1, "extra": True}))
    assert json.loads(await stranger.recv())["code"] == "frame"
    await stranger.close()
    del ger


async def test_a_client_that_asks_for_syncs_and_never_reads_is_dropped_alone(pair: Pair) -> None:
    game, players = await press_game(pair)
    nego = await negotiators(pair, game, players, "ENG", "FRA")
    flood = await websockets.connect(pair.nego, max_queue=1)
    frame = json.dumps({"type": "sync", "id": 0})
    with pytest.raises(websockets.ConnectionClosed):
        async with asyncio.timeout(30):
            while True:  # unread answers fill its queue at the server, which drops it
                await flood.send(frame)
    # the others negotiate on
    assert (await nego["ENG"].say(f"propose(eng, fra, {PEACE})"))["type"] == "ack"
    assert (await nego["FRA"].expect("message"))["from"] == "ENG"

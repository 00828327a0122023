"""The game server when its store fails, on a real SQLite file: nothing is acknowledged that
was not stored, memory never runs ahead of the store, ``/healthz`` says why, and the server
recovers when the store does. And a game's past is read from the store, not recomputed:
finished games leave memory, and a phase the engine would now adjudicate otherwise keeps
its stored outcome. Each test is bounded in messages and waits for answers, not sleeps."""

from __future__ import annotations

import contextlib
import json
import random
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from referee.game import GameMaster
from server.api_models import DeadlinesBody, GameCreate
from server.service import Connection, GameService, GameUnavailable
from server.store import Store
from tests.server.nego_helpers import negotiators, press_game, running_pair
from tests.server.test_service import next_text
from tests.server.ws_helpers import http


@contextlib.asynccontextmanager
async def seated_game(path: Path, name: str) -> AsyncIterator[tuple[Store, GameService, str, list[Connection]]]:
    """A store at ``path``, a service on it and a game of seven seated players, stopped after."""
    store = Store.open(path)
    service = GameService(store, GameCreate(deadlines=None))
    await service.start()
    try:
        game = await service.create_game(GameCreate(name=name, deadlines=None, press_level=0))
        yield store, service, game.id, await seated(service, game.id)
    finally:
        await service.stop()
        store.close()


async def seated(service: GameService, game_id: str) -> list[Connection]:
    conns = [service.connect(game_id) for _ in range(7)]
    for i, conn in enumerate(conns):
        await service.receive(conn, f"NME ('p{i}') ('1')")
        await service.receive(conn, "YES (MAP ('standard'))")
    for conn in conns:
        await next_text(conn, "NOW")
    return conns


async def test_a_read_only_store_acknowledges_nothing_and_the_game_goes_on_after(tmp_path: Path) -> None:
    async with seated_game(tmp_path / "d.sqlite3", "faults") as (store, service, game_id, conns):
        stored_before = len(store.events(game_id))
        # the disk turns read-only (SQLite's own refusal, on the server's own connection)
        store._db.execute("PRAGMA query_only=ON")  # the fault, from inside
        await service.receive(conns[0], "DRW")
        assert await next_text(conns[0], "REJ") == "REJ (DRW)"  # not stored: not acknowledged
        assert len(store.events(game_id)) == stored_before
        assert await service.health.report() is not None  # /healthz: 503 with the reason
        assert game_id in service.games and not service.games[game_id].gm.book.draw_votes  # memory did not move
        # the store comes back: the next probe clears it, and the same message is taken
        store._db.execute("PRAGMA query_only=OFF")
        assert await service.health.report() is None
        await service.receive(conns[0], "DRW")
        assert await next_text(conns[0], "YES") == "YES (DRW)"
        assert [e.kind for e in store.events(game_id)][-1] == "draw"


async def test_finished_games_leave_memory_and_are_served_from_the_store(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "d.sqlite3")
    service = GameService(store, GameCreate(deadlines=None), finished_grace=60.0)
    await service.start()
    quick = DeadlinesBody(movement=0.2, retreat=0.2, adjustment=0.2)
    game = await service.create_game(GameCreate(name="short", deadlines=quick, press_level=0, year_limit=1901))
    conns = await seated(service, game.id)
    for conn in conns:  # nobody orders: S1901M ends at its deadline, then F1901M, then the year limit
        await next_text(conn, "NOW (FAL 1901)")
    for conn in conns:
        await next_text(conn, "DRW")
    live_history = [h.model_dump() for h in await service.reader.history(game.id) or []]
    assert live_history and (await service.reader.info(game.id)).status == "finished"  # type: ignore[union-attr]
    live_position = await service.reader.position(game.id)
    assert game.id in service.games  # its players are still connected
    for conn in conns:
        await service.disconnect(conn)
    assert game.id not in service.games  # the last one gone: out of memory
    info = await service.reader.info(game.id)
    assert info is not None and info.status == "finished" and info.result is not None
    assert [h.model_dump() for h in await service.reader.history(game.id) or []] == live_history
    assert await service.reader.position(game.id) == live_position
    # and the phase records hold the outcome: nothing was recomputed to answer
    phases = [e.payload for e in store.events(game.id) if e.kind == "adjudicate"]
    assert all({"given", "orders", "results", "after"} <= set(p) for p in phases)
    await service.stop()
    store.close()


async def test_passcodes_are_unique_among_live_games_only(tmp_path: Path) -> None:
    """With finished games gone from memory, passcodes never run out (they used to after
    ~1,170 games); bounded here at 40 short games."""
    store = Store.open(tmp_path / "d.sqlite3")
    service = GameService(store, GameCreate(deadlines=None), finished_grace=60.0)
    await service.start()
    for g in range(40):
        game = await service.create_game(GameCreate(name=f"g{g}", deadlines=None))
        conns = await seated(service, game.id)
        for conn in conns:
            await service.receive(conn, "DRW")
        for conn in conns:
            await next_text(conn, "DRW")
            await service.disconnect(conn)
        assert game.id not in service.games
    assert len(service.games) == 1  # the open game only
    assert sum(1 for s in store.games() if s.finished) == 40
    await service.stop()
    store.close()


def test_a_rules_change_never_rewrites_a_stored_phase() -> None:
    """A phase record whose stored outcome differs from what the engine computes now (as a
    rules upgrade would make it): the replay keeps the stored outcome and says so."""
    deadlines = DeadlinesBody(movement=10, retreat=10, adjustment=10)
    gm = GameMaster("g", GameCreate(deadlines=deadlines).settings(), now=0.0, rng=random.Random(3))
    records = []
    for i in range(7):
        gm.connect(f"c{i}", 0.0)
        records += gm.receive(f"c{i}", f"NME ('p{i}') ('1')", 0.0).records
    records += gm.tick(100.0).records  # nobody ordered: every unit holds
    phase = next(r for r in records if r.kind == "adjudicate")
    assert phase.payload["phase"] == "S1901M"
    # the stored outcome says the army in Paris went to Burgundy (the engine says it held)
    tampered = json.loads(json.dumps(phase.payload))
    after = tampered["after"]
    units = after["units"]["FRANCE"]
    units[units.index("A PAR")] = "A BUR"
    tampered["results"]["A PAR"] = ["bounce"]
    replayed = GameMaster.replay(
        "g",
        gm.settings,
        0.0,
        [r if r is not phase else type(r)(r.kind, tampered) for r in records],
        rng=random.Random(3),
    )
    assert [m.phase for m in replayed.mismatches] == ["S1901M"] and replayed.mismatches[0].position_differs
    assert "A BUR" in replayed.position.to_json()["units"]["FRANCE"]
    assert replayed.history[-1].adjudication.results  # type: ignore[union-attr]


def test_quarantined_records_do_not_stop_a_replay() -> None:
    gm = GameMaster("g", GameCreate(deadlines=None).settings(), now=0.0, rng=random.Random(3))
    records = []
    for i in range(7):
        gm.connect(f"c{i}", 0.0)
        records += gm.receive(f"c{i}", f"NME ('p{i}') ('1')", 0.0).records
    bad = type(records[0])("adjudicate", {"phase": "F1905M", "at": 1.0})
    refused: list[object] = []
    replayed = GameMaster.replay(
        "g", gm.settings, 0.0, [*records, bad], on_error=lambda record, error: refused.append(record)
    )
    assert refused == [bad] and replayed.state == "playing" and str(replayed.position.phase) == "S1901M"


async def test_a_store_locked_past_its_timeout_acknowledges_nothing_and_recovers(tmp_path: Path) -> None:
    """An operator's ``sqlite3`` session holds the write lock longer than the store waits
    (10 s): the message is refused, memory does not move on, and all is well once it lets go."""
    path = tmp_path / "d.sqlite3"
    async with seated_game(path, "locked") as (_store, service, game_id, conns):
        operator = sqlite3.connect(path, isolation_level=None)
        operator.execute("BEGIN EXCLUSIVE")
        try:
            await service.receive(conns[0], "DRW")
            assert await next_text(conns[0], "REJ") == "REJ (DRW)"
            assert not service.games[game_id].gm.book.draw_votes
            assert "locked" in (await service.health.report() or "")
        finally:
            operator.execute("ROLLBACK")
            operator.close()
        assert await service.health.report() is None
        await service.receive(conns[0], "DRW")
        assert await next_text(conns[0], "YES") == "YES (DRW)"


async def test_a_deleted_store_is_noticed_refused_and_written_back(tmp_path: Path) -> None:
    """The store's file is deleted under the running server (an operator's mistake): nothing is
    acknowledged into the file nobody can open any more; ``/healthz`` writes it back from
    the connection that still holds it, and play goes on with everything kept."""
    path = tmp_path / "d.sqlite3"
    async with seated_game(path, "deleted") as (store, service, game_id, conns):
        stored = len(store.events(game_id))
        path.unlink()
        for suffix in ("-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        await service.receive(conns[0], "DRW")
        assert await next_text(conns[0], "REJ") == "REJ (DRW)"
        assert await service.health.report() is None and path.exists()  # written back
        await service.receive(conns[0], "DRW")
        assert await next_text(conns[0], "YES") == "YES (DRW)"
    with Store.open(path) as again:  # the file on disk holds all: the joins and the vote
        kinds = [e.kind for e in again.events(game_id)]
    assert len(kinds) == stored + 1 and kinds[-1] == "draw"


async def test_a_corrupted_store_acknowledges_nothing_and_says_so(tmp_path: Path) -> None:
    """Pages of the file overwritten with garbage under the running server: what cannot be
    stored is refused, the game (which cannot be read back) is neither played nor shown, and
    ``/healthz`` says why."""
    path = tmp_path / "d.sqlite3"
    async with seated_game(path, "corrupt") as (store, service, game_id, conns):
        store._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the records in the main file
        size = path.stat().st_size
        with path.open("r+b") as file:  # every page but the first (the header) is garbage now
            file.seek(4096)
            file.write(random.Random(5).randbytes(size - 4096))
        store._db.execute("PRAGMA cache_size=0")  # what it reads comes from the file
        await service.receive(conns[0], "DRW")
        assert await next_text(conns[0], "REJ") == "REJ (DRW)"
        reason = await service.health.report()
        assert reason is not None and "malformed" in reason
        # the game cannot be read back from the store: it takes nothing and shows nothing
        assert service.games[game_id].stale
        with pytest.raises(GameUnavailable):
            await service.reader.position(game_id)
        await service.receive(conns[1], "DRW")
        assert await next_text(conns[1], "REJ") == "REJ (DRW)"


async def test_the_negotiation_server_acknowledges_nothing_it_could_not_store(tmp_path: Path) -> None:
    """The negotiation server's store locked past its timeout by an operator: a message is
    answered ``unavailable``, reaches nobody, ``/healthz`` says why; once the lock goes, the
    same message is acknowledged and delivered."""
    async with running_pair(tmp_path) as pair:
        game, players = await press_game(pair, press_level=0)
        clients = await negotiators(pair, game, players, "ENG", "FRA")
        proposal = "propose(eng, fra, Agree([eng fra], pce([eng fra])))"
        operator = sqlite3.connect(tmp_path / "nego.sqlite3", isolation_level=None)
        operator.execute("BEGIN EXCLUSIVE")
        try:
            answer = await clients["ENG"].say(proposal)
            assert (answer["type"], answer["code"]) == ("error", "unavailable")
            status, health = await http("GET", f"{pair.nego_http}/healthz")
            assert status == 503 and "locked" in health["store"]
        finally:
            operator.execute("ROLLBACK")
            operator.close()
        assert not [f for f in await clients["FRA"].drain() if f["type"] == "message"]
        assert (await http("GET", f"{pair.nego_http}/healthz"))[0] == 200
        assert (await clients["ENG"].say(proposal))["type"] == "ack"
        assert (await clients["FRA"].expect("message"))["from"] == "ENG"
        for client in clients.values():
            await client.close()
        for player in players.values():
            await player.close()

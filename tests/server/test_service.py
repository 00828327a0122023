"""The asyncio game service: deadlines on the event loop, bounded send queues, restart from the store."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
from pathlib import Path

from protocol.daide.messages import Hlo
from protocol.daide.parser import parse
from server.api_models import DeadlinesBody, GameCreate
from server.service import Connection, GameService
from server.store import Store
from tests.server.ws_helpers import DaideClient

TIMEOUT = 15.0


async def next_text(conn: Connection, prefix: str) -> str:
    async with asyncio.timeout(TIMEOUT):
        while True:
            text = await conn.outbox.get()
            assert text is not None, "the connection was closed"
            if text.startswith(prefix):
                return text


async def fill(service: GameService, game_id: str | None = None) -> list[Connection]:
    conns = [service.connect(game_id) for _ in range(7)]
    for i, conn in enumerate(conns):
        await service.receive(conn, f"NME ('p{i}') ('1')")
        await service.receive(conn, "YES (MAP ('standard'))")  # as a client does: the game starts at once
    return conns


async def test_the_open_game_rolls_over_and_a_deadline_fires(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "d.sqlite3")
    quick = GameCreate(deadlines=DeadlinesBody(movement=0.2, retreat=0.2, adjustment=0.2))
    service = GameService(store, quick)
    await service.start()
    first = service.open_game_id
    conns = await fill(service)
    assert service.open_game_id != first and first is not None
    for conn in conns:
        assert (await next_text(conn, "NOW")).startswith("NOW (SPR 1901)")
    # nobody orders: the deadline (armed on the loop) ends the phase with holds
    for conn in conns:
        assert (await next_text(conn, "NOW")).startswith("NOW (FAL 1901)")
    kinds = [e.kind for e in store.events(first)]
    assert kinds.count("join") == 7 and kinds[-1] == "adjudicate"
    await service.stop()
    store.close()


async def test_a_slow_client_is_dropped_not_waited_for(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "d.sqlite3")
    service = GameService(store, GameCreate(deadlines=None), queue_size=4)
    await service.start()
    conns = await fill(service)
    # no one drains the queues: HLO, SCO, NOW and more overflow a queue of 4, so every one is dropped
    assert all(c.dropped and c.closed for c in conns)
    assert conns[0].outbox.get_nowait() is None
    await service.stop()
    store.close()


async def test_unfinished_games_are_rebuilt_on_start(tmp_path: Path) -> None:
    path = tmp_path / "d.sqlite3"
    store = Store.open(path)
    service = GameService(store, GameCreate(deadlines=None))
    await service.start()
    game_id = service.open_game_id
    assert game_id is not None
    conns = await fill(service)
    hlo = parse(await next_text(conns[0], "HLO"))
    assert isinstance(hlo, Hlo)
    now = await next_text(conns[0], "NOW")
    player = DaideClient(None)
    player.power = hlo.power
    await service.receive(conns[0], player.holds(now)[0])
    await next_text(conns[0], "THX")
    await service.stop()

    again = GameService(store, GameCreate(deadlines=None))
    await again.start()
    assert game_id in again.games and again.open_game_id != game_id
    rebuilt = again.games[game_id].gm
    assert str(rebuilt.position.phase) == "S1901M"
    assert rebuilt.book.pending[hlo.power or ""]
    await again.stop()
    store.close()


# --- a real server process, killed and started again -------------------------------------------


async def start_server(db: Path) -> tuple[asyncio.subprocess.Process, int]:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "detente",
        "serve",
        "--daide-port",
        "0",
        "--port",
        "0",
        "--db",
        str(db),
        "--admin-token",
        "t0ken",
        "--secret",
        "s3cret",
        "--deadlines",
        "none",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert process.stdout is not None
    async with asyncio.timeout(30):
        while True:
            line = (await process.stdout.readline()).decode()
            assert line, "the server ended before listening"
            match = re.search(r"listening on http://[\d.]+:(\d+)", line)
            if match:
                return process, int(match.group(1))


async def test_sigkill_mid_phase_loses_nothing(tmp_path: Path) -> None:
    db = tmp_path / "d.sqlite3"
    process, port = await start_server(db)
    url = f"ws://127.0.0.1:{port}/daide"
    try:
        clients = [await DaideClient.open(url) for _ in range(7)]
        for i, client in enumerate(clients):
            await client.join(f"bot{i}")
        for client in clients:
            await client.hello()
        nows = [await client.expect("NOW") for client in clients]
        full, partial = clients[0], clients[1]
        sub, count = full.holds(nows[0])
        await full.send(sub)
        for _ in range(count):
            await full.expect("THX")
        one = re.search(r"\(\w+ \w+ \w+\)", partial.holds(nows[1])[0])
        assert one is not None
        await partial.send(f"SUB ({one.group(0)} HLD)")
        await partial.expect("THX")
        before = await partial.expect("MIS")
    finally:
        process.send_signal(signal.SIGKILL)
        await process.wait()

    process, port = await start_server(db)
    url = f"ws://127.0.0.1:{port}/daide"
    try:
        back = []
        for old in (full, partial, clients[2]):
            client = await DaideClient.open(url)
            await client.send(f"IAM ({old.power}) ({old.passcode})")
            assert (await client.expect("YES")).startswith("YES (IAM")
            client.power = old.power
            back.append(client)
        for client, old_now in zip(back, nows[:3], strict=True):
            await client.send("NOW")
            assert await client.expect("NOW") == old_now
            await client.send("MIS")
        assert await back[0].expect("MIS") == "MIS"  # every order survived
        assert await back[1].expect("MIS") == before  # the one order survived
        assert (await back[2].expect("MIS")).count(back[2].power or "") == nows[2].count(back[2].power or "")
        # the game goes on: a wrong passcode is refused, and the phase still waits for orders
        impostor = await DaideClient.open(url)
        await impostor.send(f"IAM ({clients[3].power}) ({(clients[3].passcode or 0) % 8191 + 1})")
        assert (await impostor.expect("REJ")).startswith("REJ (IAM")
        for client in [*back, impostor]:
            await client.close()
    finally:
        process.send_signal(signal.SIGKILL)
        await process.wait()


async def test_eight_at_once_fill_one_game_and_open_the_next(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "d.sqlite3")
    service = GameService(store, GameCreate(deadlines=None))
    await service.start()
    first = service.open_game_id
    conns = [service.connect() for _ in range(8)]
    await asyncio.gather(*(service.receive(c, f"NME ('p{i}') ('1')") for i, c in enumerate(conns)))
    for conn in conns:
        assert (await next_text(conn, "YES")).startswith("YES (NME")
    games = [service.lobby.game_of(c.id) for c in conns]
    assert games.count(first) == 7
    late = next(c for c in conns if service.lobby.game_of(c.id) != first)
    assert service.lobby.game_of(late.id) == service.open_game_id and service.games[service.lobby.game_of(late.id)].gm.state == "forming"
    await service.stop()
    store.close()


# --- the games opened for strangers: a cap, none at all, seats per address -----------------------


async def test_open_games_stop_at_the_cap_and_open_again_when_one_ends(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "d.sqlite3")
    service = GameService(store, GameCreate(deadlines=None), max_open_games=2)
    await service.start()
    first = service.open_game_id
    assert first is not None and first.startswith("o")
    players = await fill(service)
    second = service.open_game_id
    assert second is not None and second != first
    await fill(service)
    assert service.open_game_id is None and service.open_games() == 2 and len(service.games) == 2
    late = service.connect()
    await service.receive(late, "NME ('late') ('1')")
    assert await next_text(late, "REJ") == "REJ (NME ('late') ('1'))"
    assert service.lobby.game_of(late.id) is None and len(service.games) == 2
    # an admin's game is not counted, and a client naming it still joins
    mine = await service.create_game(GameCreate(deadlines=None))
    named = service.connect(mine.id)
    await service.receive(named, "NME ('named') ('1')")
    assert (await next_text(named, "YES")).startswith("YES (NME")
    # the first game ends: a new open game, which the late client joins
    for conn in players:
        await next_text(conn, "NOW")
        await service.receive(conn, "DRW")
    assert service.games[first].finished
    third = service.open_game_id
    assert third is not None and third not in (first, second) and service.open_games() == 2
    await service.receive(late, "NME ('late') ('1')")
    assert (await next_text(late, "YES")).startswith("YES (NME") and service.lobby.game_of(late.id) == third
    await service.stop()

    # a restart counts the unfinished open games (by their ids) and keeps the forming one
    again = GameService(store, GameCreate(deadlines=None), max_open_games=2)
    await again.start()
    assert again.open_game_id == third and again.open_games() == 2
    await fill(again)  # the late player's seat was freed on restart: seven new ones fill it
    assert again.open_game_id is None and again.open_games() == 2 and len(again.games) == 3  # no new game
    await again.stop()
    once_more = GameService(store, GameCreate(deadlines=None), max_open_games=2)
    await once_more.start()
    assert once_more.open_game_id is None and once_more.open_games() == 2
    await once_more.stop()
    store.close()


async def test_max_open_games_zero_keeps_no_open_game(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "d.sqlite3")
    service = GameService(store, GameCreate(deadlines=None), max_open_games=0)
    await service.start()
    assert service.open_game_id is None and service.games == {}
    stranger = service.connect()
    await service.receive(stranger, "NME ('x') ('1')")
    assert (await next_text(stranger, "REJ")).startswith("REJ (NME")
    game = await service.create_game(GameCreate(deadlines=None))
    conns = await fill(service, game.id)
    assert all(service.lobby.game_of(c.id) == game.id for c in conns) and service.open_game_id is None and len(service.games) == 1
    await service.stop()
    store.close()


async def test_seats_per_address_in_open_games(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "d.sqlite3")
    service = GameService(store, GameCreate(deadlines=None), max_seats_per_address=2)
    await service.start()
    first = service.open_game_id
    mine = [service.connect(address="10.0.0.1") for _ in range(3)]
    for i, conn in enumerate(mine):
        await service.receive(conn, f"NME ('a{i}') ('1')")
    assert (await next_text(mine[0], "YES")).startswith("YES (NME")
    assert (await next_text(mine[1], "YES")).startswith("YES (NME")
    assert (await next_text(mine[2], "REJ")).startswith("REJ (NME")
    other = service.connect(address="10.0.0.2")
    await service.receive(other, "NME ('b') ('1')")
    assert (await next_text(other, "YES")).startswith("YES (NME")
    # a seat given up while the game forms is free again
    await service.disconnect(mine[0])
    await service.receive(mine[2], "NME ('a2') ('1')")
    assert (await next_text(mine[2], "YES")).startswith("YES (NME")
    assert service.lobby.seats_of("10.0.0.1")[0] == 2 and service.open_game_id == first
    # a game the admin made is not limited by address
    game = await service.create_game(GameCreate(deadlines=None))
    named = [service.connect(game.id, "10.0.0.1") for _ in range(3)]
    for i, conn in enumerate(named):
        await service.receive(conn, f"NME ('n{i}') ('1')")
        assert (await next_text(conn, "YES")).startswith("YES (NME")
    await service.stop()
    store.close()

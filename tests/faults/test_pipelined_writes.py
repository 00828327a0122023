"""A game takes its next message while the last one is being written, and still acknowledges
nothing before it is stored: on a real SQLite file, held by an operator's lock, and with a
write the store refuses. Each test waits for answers (or for a condition, bounded), not sleeps."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from server.store import Store, StoreError
from server.writer import Writer
from tests.faults.test_store_faults import seated_game
from tests.server.test_service import next_text

TIMEOUT = 10.0


async def until(condition: object, what: str) -> None:
    """Wait (bounded) for ``condition()`` to hold: the loop is given back in between."""
    async with asyncio.timeout(TIMEOUT):
        while not condition():  # type: ignore[operator]
            await asyncio.sleep(0.005)


async def test_a_game_takes_its_next_message_while_the_last_is_written(tmp_path: Path) -> None:
    path = tmp_path / "d.sqlite3"
    async with seated_game(path, "pipelined") as (store, service, game_id, conns):
        checked = service.metrics.stages()["check"][1]
        operator = sqlite3.connect(path, isolation_level=None)
        operator.execute("BEGIN EXCLUSIVE")  # the disk stalls: no write can finish
        try:
            first = asyncio.create_task(service.receive(conns[0], "DRW"))
            second = asyncio.create_task(service.receive(conns[1], "DRW"))
            # both messages were taken by the game while the first one's write waited
            await until(lambda: service.metrics.stages()["check"][1] == checked + 2, "both checked")
            assert service.games[game_id].gm.book.draw_votes  # memory moved on...
            assert conns[0].outbox.empty() and conns[1].outbox.empty()  # ...but nothing is acknowledged
        finally:
            operator.execute("ROLLBACK")
            operator.close()
        await asyncio.gather(first, second)
        assert await next_text(conns[0], "YES") == "YES (DRW)"
        assert await next_text(conns[1], "YES") == "YES (DRW)"
        assert [e.kind for e in store.events(game_id)][-2:] == ["draw", "draw"]


async def test_a_refused_write_takes_the_later_writes_of_its_game_with_it(tmp_path: Path) -> None:
    """A step is computed on the state the one before it left: when the store refuses one, the
    game's later writes (queued or new) are refused too until the game is rebuilt (``mend``);
    other games are not touched."""
    with Store.open(tmp_path / "d.sqlite3") as store:
        store.create_game("g", {})
        store.create_game("h", {})
        writer = Writer(store)
        bad = writer.submit("g", [("bad", {"x": float("nan")}, 1.0)])  # not JSON: refused
        behind = writer.submit("g", [("behind", {}, 2.0)])
        other = writer.submit("h", [("other", {}, 3.0)])
        outcomes = await asyncio.gather(bad, behind, other, return_exceptions=True)
        assert isinstance(outcomes[0], StoreError) and outcomes[1] is outcomes[0]
        assert outcomes[2] == [1]
        assert writer.broken("g") and not writer.broken("h")
        later = writer.submit("g", [("later", {}, 4.0)])
        assert later.done() and isinstance(later.exception(), StoreError)  # refused at once
        await writer.settled("g")
        writer.mend("g")
        assert await writer.append("g", [("mended", {}, 5.0)]) == [1]
        assert [e.kind for e in store.events("g")] == ["mended"]
        await writer.close()

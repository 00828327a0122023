"""Group commit: the appends of every game that arrive together go to SQLite in one
transaction and one fsync.

Each append still returns only once its events are stored (and the caller then sends
what they acknowledge), but when many games finish a phase at the same moment they no
longer wait in line for one fsync each: while one batch is being written, the next one
gathers, and goes in the next transaction.

A game need not wait for its own last write either: :meth:`Writer.submit` queues a step's
records and returns at once, so the game can take its next input while they are written;
the caller performs the step's effects when the future is done. Futures are done in the
order of their submits, so effects go out in the order of the steps. A step is computed on
the state the steps before it left, so when a write fails, every later write of that game
fails with it (those already queued and those submitted after) until the caller has
rebuilt the game from the store and says so with :meth:`Writer.mend`: the store never
holds a step whose predecessor it lost.

>>> import asyncio, tempfile, pathlib
>>> from server.store import Store
>>> async def demo(path):
...     with Store.open(path) as store:
...         store.create_game("g1", {})
...         writer = Writer(store)
...         seqs = await asyncio.gather(writer.append("g1", [("a", {}, 1.0)]), writer.append("g1", [("b", {}, 2.0)]))
...         await writer.close()
...         return seqs
>>> with tempfile.TemporaryDirectory() as tmp:
...     asyncio.run(demo(pathlib.Path(tmp) / "s.sqlite3"))
[[1], [2]]
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any

from server.store import Store

__all__ = ["Writer"]

Rows = Sequence[tuple[str, Mapping[str, Any], float]]


class Writer:
    """Appends to ``store`` from the event loop, batched (see the module)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._pending: list[tuple[str, Rows, asyncio.Future[list[int]]]] = []
        self._task: asyncio.Task[None] | None = None
        self._broken: dict[str, BaseException] = {}  # game -> the failure its later writes share
        self._last: dict[str, asyncio.Future[list[int]]] = {}  # game -> its last write queued

    def submit(self, game_id: str, rows: Rows) -> asyncio.Future[list[int]]:
        """Queue a game's events; the future of their sequence numbers, done once they are
        committed (or failed: at once while the game is broken, see :meth:`mend`)."""
        future: asyncio.Future[list[int]] = asyncio.get_running_loop().create_future()
        failure = self._broken.get(game_id)
        if failure is not None:
            future.set_exception(failure)
            return future
        self._pending.append((game_id, rows, future))
        self._last[game_id] = future
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run())
        return future

    def refuse(self, game_id: str, failure: BaseException) -> asyncio.Future[list[int]]:
        """A write of the game failed before it reached the writer: break the game as if
        the store had refused it (its future, failed)."""
        self._broken.setdefault(game_id, failure)
        return self.submit(game_id, ())

    async def settled(self, game_id: str) -> None:
        """Wait until every write of the game queued so far is done, stored or failed."""
        last = self._last.get(game_id)
        if last is not None:
            await asyncio.wait([last])
            if self._last.get(game_id) is last:
                del self._last[game_id]

    async def append(self, game_id: str, rows: Rows) -> list[int]:
        """Store a game's events; their sequence numbers once they are committed."""
        return await self.submit(game_id, rows)

    def broken(self, game_id: str) -> bool:
        """Whether a write of the game failed since it was last mended."""
        return game_id in self._broken

    def mend(self, game_id: str) -> None:
        """The game was rebuilt from the store: its writes are taken again."""
        self._broken.pop(game_id, None)

    async def _run(self) -> None:
        while self._pending:
            batch, self._pending = self._pending, []
            try:
                answers: list[Any] = await asyncio.to_thread(
                    self.store.append_batch, [(g, rows) for g, rows, _ in batch]
                )
            except Exception as error:  # the transaction failed: every append of the batch did
                answers = [error] * len(batch)
            for (game_id, _, future), answer in zip(batch, answers, strict=True):
                if game_id in self._broken:  # an earlier write of the game failed
                    answer = self._broken[game_id]
                elif isinstance(answer, Exception):
                    self._broken[game_id] = answer
                if future.done():
                    continue
                if isinstance(answer, BaseException):
                    future.set_exception(answer)
                else:
                    future.set_result(answer)
            for game_id, _, future in self._pending:  # queued behind a failure of their game
                if game_id in self._broken and not future.done():
                    future.set_exception(self._broken[game_id])
            self._pending = [item for item in self._pending if not item[2].done()]

    async def close(self) -> None:
        """Wait for what is being written."""
        if self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)

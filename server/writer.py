"""Group commit: the appends of every game that arrive together go to SQLite in one
transaction and one fsync.

Each append still returns only once its events are stored (and the caller then sends
what they acknowledge), but when many games finish a phase at the same moment they no
longer wait in line for one fsync each: while one batch is being written, the next one
gathers, and goes in the next transaction.

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

    async def append(self, game_id: str, rows: Rows) -> list[int]:
        """Store a game's events; their sequence numbers once they are committed."""
        future: asyncio.Future[list[int]] = asyncio.get_running_loop().create_future()
        self._pending.append((game_id, rows, future))
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run())
        return await future

    async def _run(self) -> None:
        while self._pending:
            batch, self._pending = self._pending, []
            try:
                answers = await asyncio.to_thread(self.store.append_batch, [(g, rows) for g, rows, _ in batch])
            except Exception as error:  # the transaction failed: every append of the batch did
                for *_, future in batch:
                    if not future.done():
                        future.set_exception(error)
                continue
            for (*_, future), answer in zip(batch, answers, strict=True):
                if future.done():
                    continue
                if isinstance(answer, Exception):
                    future.set_exception(answer)
                else:
                    future.set_result(answer)

    async def close(self) -> None:
        """Wait for what is being written."""
        if self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)

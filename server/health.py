"""Whether a server's store is usable: what ``/healthz`` reports, for both servers.

A server keeps serving while its store fails (a lock held by an operator, a full or
read-only disk, a file deleted under it), but it acknowledges nothing it could not store,
and says so here: :meth:`StoreHealth.report` is ``None`` when the store is fine, or the
reason it is not. A failed write marks it; the next write that succeeds clears it; while it
is marked, each report tries a small write of its own, so that the server is seen to
recover even when no client writes. The file is also checked for being the one the
server opened (deleted or replaced, SQLite would go on writing into a file nobody can
open again); a deleted one is written back from the connection that still holds it
(:meth:`server.store.Store.rescue`).
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable
from pathlib import Path

from server.store import Store, StoreError
from server.writer import Rows, Writer

__all__ = ["StoreHealth"]

PROBE_TIMEOUT = 2.0
"""Seconds a report waits for its probing write."""


class StoreHealth:
    """The state of one server's store (see the module)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.problem: str | None = None
        self.since: float | None = None
        self._identity = _identity(store)

    def failed(self, reason: str) -> None:
        """A write (or read) of the store failed for ``reason``."""
        if self.problem is None:
            self.since = time.time()
        self.problem = reason

    def ok(self) -> None:
        """A write succeeded."""
        self.problem = None
        self.since = None

    def file_problem(self) -> str | None:
        """Why the store's file is not the one the server opened, if it is not."""
        if self._identity is None:
            return None  # an in-memory store
        path = Path(self.store.path)
        try:
            stat = path.stat()
        except OSError:
            return f"the store file {path} is gone"
        if (stat.st_dev, stat.st_ino) != self._identity:
            return f"the store file {path} was replaced"
        return None

    def submit(self, writer: Writer, game_id: str, rows: Rows) -> Awaitable[None]:
        """Queue ``rows`` through ``writer`` now; an awaitable done once they are stored.
        Awaiting it keeps this state: refused (:class:`StoreError`) while the file is not the
        one opened, marked failed with the reason when the store refuses them (and the error
        raised again), cleared when it takes them."""
        moved = self.file_problem()
        if moved is not None:  # SQLite would write on into a file nobody can open again
            return self._settle(writer.refuse(game_id, StoreError(moved)))
        return self._settle(writer.submit(game_id, rows))

    async def _settle(self, stored: Awaitable[list[int]]) -> None:
        try:
            await stored
        except Exception as error:
            self.failed(f"{type(error).__name__}: {error}")
            raise
        self.ok()

    async def report(self) -> str | None:
        """None when the store is usable; else why not (probing with a write when marked)."""
        moved = self.file_problem()
        if moved is not None and not Path(self.store.path).exists():
            try:  # deleted: the open connection still holds every stored record; write them back
                await asyncio.to_thread(self.store.rescue)
                self._identity = _identity(self.store)
                moved = None
            except Exception as error:  # noqa: BLE001
                moved = f"{moved}, and it cannot be written back: {error}"
        if moved is not None:
            self.failed(moved)
            return moved
        if self.problem is None:
            return None
        probe = asyncio.to_thread(self.store.set_meta, "health_probe", str(time.time()))
        try:
            await asyncio.wait_for(probe, PROBE_TIMEOUT)
        except TimeoutError:  # still waiting for the store: the reason of the last failure stands
            self.failed(self.problem or f"the store did not take a write within {PROBE_TIMEOUT:g} s")
            return self.problem
        except Exception as error:  # noqa: BLE001  # whatever the store raises is the reason
            self.failed(f"{type(error).__name__}: {error}" if str(error) else type(error).__name__)
            return self.problem
        self.ok()
        return None


def _identity(store: Store) -> tuple[int, int] | None:
    path = str(store.path)
    if not path or path == ":memory:" or path.startswith("file::memory:"):
        return None
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return stat.st_dev, stat.st_ino

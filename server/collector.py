"""The cycle collector, kept from stopping the event loop for long.

A game server's heap is mostly long-lived: every game's position, its turns played and its
seats, which grow with each phase. CPython's full collection walks every tracked object,
so with 500 games (some 300,000 objects) each one held the loop for 150 to 300 ms on the
2-core reference machine, and every message of that moment waited: that was the tail of
``benchmarks/server_load.py``. Most collections find nothing (what dies, dies by its
reference count; the collector is only for cycles).

So the objects that survive a full collection are frozen (:func:`gc.freeze`): they are live
now, and later full collections walk only what was made since, about a quarter of the
heap. Frozen objects are still freed by their reference counts; only a cycle among them
would outlive its use. So all is unfrozen and collected once (a sweep) at least every
:data:`FULL_SWEEP` seconds, and when the frozen objects have grown :data:`GROWTH`-fold
since the last sweep: a sweep is one pause as long as the old full collections, every two
minutes rather than every few seconds (a sweep at each 1.5-fold growth put such pauses
back into the first minute of every server_load level). Games that pass through quickly leave such cycles: a soak
of 10,000 short games in 7 minutes (``benchmarks/soak.py``) grew by 0.11 MiB per 1,000
games without the policy, and by 1.1 with a sweep every ten minutes only.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
from collections.abc import AsyncIterator
from typing import Any

__all__ = ["FULL_SWEEP", "survivors_frozen"]

FULL_SWEEP = 120.0
"""Seconds at most between the collections that walk everything, frozen or not."""
LOOK_EVERY = 5.0
"""Seconds between looks at how much is frozen."""
GROWTH = 4.0
"""A sweep once the frozen objects are this many times what the last sweep left."""

_users = 0  # servers in this process holding the policy (the benchmarks run two in one)


def _freeze_survivors(phase: str, info: dict[str, Any]) -> None:
    if phase == "stop" and info["generation"] == 2:
        gc.freeze()


@contextlib.asynccontextmanager
async def survivors_frozen(full_sweep: float = FULL_SWEEP) -> AsyncIterator[None]:
    """While inside, what survives a full collection is frozen, and everything is swept
    every ``full_sweep`` seconds (see the module)."""
    global _users
    _users += 1
    if _users == 1:
        gc.callbacks.append(_freeze_survivors)
    gc.freeze()  # what start-up made lives as long as the server
    sweeper = asyncio.create_task(_sweep(full_sweep))
    try:
        yield
    finally:
        sweeper.cancel()
        _users -= 1
        if _users == 0:
            gc.callbacks.remove(_freeze_survivors)
            gc.unfreeze()


async def _sweep(every: float) -> None:
    loop = asyncio.get_running_loop()
    last, left = loop.time(), gc.get_freeze_count()
    while True:
        await asyncio.sleep(min(every, LOOK_EVERY))
        if loop.time() - last < every and gc.get_freeze_count() < GROWTH * max(left, 1):
            continue
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        last, left = loop.time(), gc.get_freeze_count()

"""The cycle collector's policy while a server runs (server.collector): what survives a full
collection is frozen, and the periodic sweep still frees a cycle among frozen objects."""

from __future__ import annotations

import asyncio
import gc
import weakref

from server.collector import survivors_frozen


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


async def test_survivors_are_frozen_and_the_sweep_frees_frozen_cycles() -> None:
    async with survivors_frozen(full_sweep=0.05):
        gc.unfreeze()
        a, b = Node(), Node()
        a.other, b.other = b, a  # a cycle: only the collector frees it
        gone = weakref.ref(a)
        gc.collect()  # a full collection: its survivors are frozen
        assert gc.get_freeze_count() > 0
        del a, b
        gc.collect()
        assert gone() is not None  # frozen: a full collection does not walk it
        async with asyncio.timeout(10):
            while gone() is not None:  # the sweep unfreezes and collects everything
                await asyncio.sleep(0.01)
    assert gc.get_freeze_count() == 0

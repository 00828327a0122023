"""Wrong guesses (passcodes, tokens), remembered: when each came, by key.

A game's seats count passcodes per seat (a budget for the game's life, recorded by the game:
:mod:`referee.game.seats`), the lobby per client address, and the negotiation server per
address and per seat; each asks how many came within its window and refuses unchecked at
its limit. Times come in as numbers (sans-I/O); nothing here is stored. Memory is bounded:
a few times per key, and a bounded number of keys (the oldest forgotten first).

>>> guesses = Guesses()
>>> for t in (0.0, 1.0, 2.0):
...     guesses.failed("ENGLAND", t)
>>> guesses.recent("ENGLAND", 2.5, window=300.0), guesses.recent("ENGLAND", 301.5, window=300.0)
(3, 1)
>>> guesses.forget("ENGLAND"); guesses.recent("ENGLAND", 3.0, window=300.0)
0
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

__all__ = ["ADDRESS_GUESSES", "WINDOW", "Guesses"]

WINDOW = 300.0
"""Seconds over which wrong passcodes are counted."""
ADDRESS_GUESSES = 20
"""The same for one client address (a server's limit, across every seat)."""


@dataclass
class Guesses:
    """When wrong passcodes came, by key (a seat, an address): the last ``keep`` of each, for at
    most ``max_keys`` keys."""

    keep: int = 64
    max_keys: int = 100_000
    seen: dict[str, deque[float]] = field(default_factory=dict)

    def failed(self, key: str | None, now: float) -> None:
        """A wrong passcode for ``key`` (None: nothing to count it against)."""
        if key is None:
            return
        times = self.seen.pop(key, None) or deque(maxlen=self.keep)
        times.append(now)
        self.seen[key] = times  # the most recent key last: the first is the one to forget
        if len(self.seen) > self.max_keys:
            del self.seen[next(iter(self.seen))]

    def recent(self, key: str | None, now: float, window: float) -> int:
        """How many wrong passcodes for ``key`` came within the last ``window`` seconds."""
        times = self.seen.get(key or "")
        if not times:
            return 0
        while times and now - times[0] >= window:
            times.popleft()
        if not times:
            del self.seen[key or ""]
        return len(times)

    def forget(self, key: str) -> None:
        """The right passcode came: what was counted for ``key`` no longer matters."""
        self.seen.pop(key, None)

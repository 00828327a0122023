"""A token bucket: how often one client may do a thing, with time handed in (sans-I/O).

>>> bucket = Bucket(tokens=2.0, last=0.0)
>>> [bucket.take(0.0, rate=1.0, burst=2) for _ in range(3)], bucket.take(1.0, rate=1.0, burst=2)
([True, True, False], True)
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Bucket"]


@dataclass(slots=True)
class Bucket:
    """A token bucket: ``rate`` tokens a second, at most ``burst`` kept; full when made."""

    tokens: float
    last: float

    def take(self, now: float, rate: float, burst: float) -> bool:
        """Take a token at ``now`` if there is one."""
        self.tokens = min(float(burst), self.tokens + max(0.0, now - self.last) * rate)
        self.last = max(self.last, now)
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False

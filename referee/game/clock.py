"""The clock of one game: the phase's deadline, the ``TME`` alarms, the start of a full game.

Time is a number handed in (sans-I/O). :class:`Clock` says when the game must be woken
(:meth:`Clock.next_wake`) and which alarms are due; the game decides what that means.
"""

from __future__ import annotations

from collections.abc import Iterator

from referee.deadlines import Deadlines

__all__ = ["Clock"]


class Clock:
    """The deadline of the phase, the alarms asked for, and when a full game starts at the latest."""

    def __init__(self, deadlines: Deadlines) -> None:
        self.deadlines = deadlines
        self.deadline: float | None = None
        self.start_by: float | None = None  # a full game starts then, maps answered or not
        # who asked for TME alarms -> the seconds before deadlines: a player's are kept by its power
        # (recorded: they outlive its connections and a restart), an observer's by its connection
        self.alarms: dict[str, set[int]] = {}
        self._rung: set[tuple[str, int]] = set()  # alarms already rung this phase

    def begin(self, phase_kind: str, at: float) -> None:
        """A new phase begins at ``at``: its deadline, and every alarm to ring again."""
        self._rung = set()
        self.deadline = self.deadlines.deadline(phase_kind, at)

    def stop(self) -> None:
        self.deadline = None

    def next_wake(self) -> float | None:
        """The deadline, or an earlier alarm not rung yet; None without a deadline."""
        if self.deadline is None:
            return None
        due = [self.deadline - s for c, seconds in self.alarms.items() for s in seconds if (c, s) not in self._rung]
        return min([self.deadline, *due])

    def ringing(self, now: float) -> Iterator[tuple[str, int]]:
        """The alarms due at ``now`` (holder, seconds), each once a phase, longest first."""
        if self.deadline is None:
            return
        for holder, seconds in self.alarms.items():
            for s in sorted(seconds, reverse=True):
                if (holder, s) not in self._rung and now >= self.deadline - s:
                    self._rung.add((holder, s))
                    yield holder, s

    def due(self, now: float) -> bool:
        return self.deadline is not None and now >= self.deadline

    def alarm_on(self, holder: str, seconds: int) -> None:
        self.alarms.setdefault(holder, set()).add(seconds)

    def alarm_off(self, holder: str, seconds: int | None) -> None:
        """Cancel one alarm of ``holder`` (None: every one)."""
        if seconds is None:
            self.alarms.pop(holder, None)
        else:
            self.alarms.get(holder, set()).discard(seconds)

    def has_alarm(self, holder: str, seconds: int | None) -> bool:
        mine = self.alarms.get(holder, set())
        return bool(mine) if seconds is None else seconds in mine

    def shift(self, seconds: float) -> None:
        if self.deadline is not None:
            self.deadline += seconds

"""The one effects collector of a game: what its parts ask the caller to store and to do.

Every part of a game (:mod:`referee.game.seats`, :mod:`referee.game.book`,
:mod:`referee.game.clock`, :mod:`referee.game.board`) and every handler writes here, and
nowhere else; an input's :class:`~referee.effects.Step` is what was collected since the
last one.

The records are written as the store keeps them (:mod:`referee.game.stored`): a power by
its full name.

>>> out = Out({"FRA": "FRANCE"})
>>> out.record("join", 1.0, power="FRA"); out.to("c1", "YES"); out.to(None, "lost")
>>> out.step()
Step(records=(Record(kind='join', payload={'at': 1.0, 'power': 'FRANCE'}),), effects=(Send(to='c1', message='YES'),))
>>> out.step()
Step(records=(), effects=())
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from referee.effects import Close, Effect, Notify, Record, Send, Step
from referee.game.stored import to_store
from referee.notices import Notice

__all__ = ["Out"]


class Out:
    """Records to store, then effects to perform, in the order they were asked for."""

    __slots__ = ("effects", "full_names", "records")

    def __init__(self, full_names: Mapping[str, str]) -> None:
        self.full_names = full_names  # the map's, for the records
        self.records: list[Record] = []
        self.effects: list[Effect] = []

    def step(self) -> Step:
        """What was collected since the last step (and nothing is kept)."""
        step = Step(tuple(self.records), tuple(self.effects))
        self.records.clear()
        self.effects.clear()
        return step

    def discard(self) -> None:
        """Forget what was collected (a replay: nobody is connected to hear it)."""
        self.records.clear()
        self.effects.clear()

    def record(self, kind: str, at: float, **payload: Any) -> None:
        self.records.append(Record(kind, to_store(kind, {"at": at, **payload}, self.full_names)))

    def to(self, conn: str | None, message: Any) -> None:
        """``message`` to ``conn``; to nobody when ``conn`` is None (a player not connected)."""
        if conn is not None:
            self.effects.append(Send(conn, message))

    def each(self, conns: Iterable[str], messages: Iterable[Any]) -> None:
        """Each of ``messages`` to every one of ``conns``, message by message."""
        conns = list(conns)
        self.effects += [Send(conn, message) for message in messages for conn in conns]

    def close(self, conn: str) -> None:
        self.effects.append(Close(conn))

    def notify(self, notice: Notice) -> None:
        self.effects.append(Notify(notice))

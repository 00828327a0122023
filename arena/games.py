"""Games as arrays: n games played one phase a call, their observations written in place.

:class:`Games` holds ``n`` games on a map and the arrays every environment reads: the
observation of each game (:mod:`arena.observation`), the legal choices of its phase (flat
indices into the vocabulary, :attr:`arena.vocabulary.Vocabulary.offsets`), which power orders
each location, and the counts that end a game. :meth:`Games.step` plays a range of games one
phase from one action per power and location, as :meth:`arena.vocabulary.Vocabulary.decode`
reads an action (an index not legal at its location gives no order).

With the compiled core the whole step runs in C with the GIL released (``engine/_vector.c``),
so threads given disjoint ranges play side by side; without it, the same arrays are written
by the object API (``engine.adjudicate``, ``engine.legal_orders``), which is also the reference
the tests hold the core to.

>>> from engine import standard_map
>>> games = Games(standard_map(), 2)
>>> games.reset(0); games.reset(1)
>>> games.position(1).phase, int(games.count[0])
(Phase(year=1901, season='S', kind='M'), 238)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from arena.observation import COLUMNS, _static, observe
from arena.vocabulary import Vocabulary
from engine import Position, _native, adjudicate, legal_orders
from engine.batch import decode_board, encode_position
from engine.maps import Map
from engine.orders import Order, Waive
from engine.position import SEASONS, Phase

__all__ = ["Games"]

#: room for the legal choices of one phase (the standard map's most in random games: about 1,200)
CAPACITY = 8192


@dataclass(eq=False)
class Games:
    """``n`` games on ``map`` and their arrays (first axis: the game)."""

    map: Map
    n: int

    def __post_init__(self) -> None:
        m, n = self.map, self.n
        locations, powers = len(m.locations), len(m.powers)
        self.words = Vocabulary.of(m)
        self.board = np.zeros((n, locations, len(COLUMNS)), dtype=np.int16)
        self.phase = np.zeros((n, 3), dtype=np.int16)
        self.builds = np.zeros((n, powers), dtype=np.int16)
        self.centres = np.zeros((n, powers), dtype=np.int16)
        self.units = np.zeros((n, powers), dtype=np.int16)
        self.last_orders = np.zeros((n, locations), dtype=np.int32)
        #: the power (its index) that orders each location this phase, -1 for none
        self.owner = np.full((n, locations), -1, dtype=np.int8)
        #: the legal choices of each game's phase: ``index[g, :count[g]]``, flat, grouped by location
        self.count = np.zeros(n, dtype=np.int32)
        self.index = np.zeros((n, CAPACITY), dtype=np.int32)
        self.completed = np.zeros(n, dtype=np.int8)
        core = _native.core_for(m)
        self._core = None
        if core is not None and hasattr(core, "games"):
            start = encode_position(Position.initial(m)).tobytes()
            self._core = core.games(
                self.words.records.tobytes(), [int(x) for x in self.words.offsets], start, m.first_year,
                _static(m).tobytes(), CAPACITY, self.board, self.phase, self.builds, self.centres, self.units,
                self.last_orders, self.owner, self.count, self.index, self.completed,
            )  # fmt: skip
            for array in self._arrays():  # the core writes them; a reader cannot (the legal bits follow `index`)
                array.flags.writeable = False
        self._positions: list[Position] = [Position.initial(m)] * n  # the reference's games

    def _arrays(self) -> tuple[np.ndarray, ...]:
        return (self.board, self.phase, self.builds, self.centres, self.units, self.last_orders, self.owner,
                self.count, self.index, self.completed)  # fmt: skip

    @property
    def compiled(self) -> bool:
        """Whether the compiled core plays (else the object API)."""
        return self._core is not None

    def reset(self, i: int) -> None:
        """Game ``i`` at the start again."""
        if self._core is not None:
            self._core.reset(i)
            return
        self._positions[i] = Position.initial(self.map)
        self._write(i, self._positions[i], [])

    def step(
        self, actions: np.ndarray, lo: int = 0, hi: int | None = None, slot: int = 0, which: np.ndarray | None = None
    ) -> None:
        """Games ``lo`` to ``hi - 1`` one phase; ``actions``: ``int32`` of shape (n, powers, locations);
        ``which`` (n booleans), if given: only the games it marks. Threads stepping at the same
        time give disjoint ranges and different ``slot`` numbers (below 64): each slot keeps its
        own scratch memory in the core."""
        hi = self.n if hi is None else hi
        marks = None if which is None else np.ascontiguousarray(which, dtype=np.uint8)
        if self._core is not None:
            self._core.step(actions, lo, hi, slot, marks)
            return
        for i in range(lo, hi):
            if marks is not None and not marks[i]:
                continue
            before = self._positions[i]
            if before.completed:
                self._write(i, before, [])
                continue
            given = {p: self._decode(i, w, actions[i, w]) for w, p in enumerate(self.map.powers)}
            given = {p: orders for p, orders in given.items() if orders}
            self._positions[i] = adjudicate(before, given).position
            self._write(i, self._positions[i], [o for orders in given.values() for o in orders])

    def position(self, i: int) -> Position:
        """Game ``i`` as the engine's :class:`~engine.Position`."""
        if self._core is None:
            return self._positions[i]
        board, year, season, completed = self._core.state(i)
        p = decode_board(self.map, board)
        return Position(
            self.map, Phase(year, SEASONS[season], p.phase.kind), p.units, p.centers, p.dislodged, completed
        )

    def orders(self, i: int, owner: np.ndarray) -> dict[str, list[Order]]:
        """The orders game ``i``'s last phase was given, by power, from ``last_orders`` and
        ``owner``, the row of :attr:`owner` before that phase."""
        given: dict[str, list[Order]] = {}
        for location in np.flatnonzero(self.last_orders[i]):
            order = self.words.orders[int(location)][int(self.last_orders[i, location])]
            given.setdefault(self.map.powers[int(owner[location])], []).append(order)  # type: ignore[arg-type]
        return given

    # --- the reference -----------------------------------------------------------------------

    def _decode(self, i: int, w: int, action: np.ndarray) -> list[Order]:
        legal = set(self.index[i, : self.count[i]].tolist())
        offsets = self.words.offsets
        return [
            self.words.orders[int(loc)][int(action[loc])]  # type: ignore[misc]
            for loc in np.flatnonzero((self.owner[i] == w) & (action > 0))
            if int(action[loc]) < len(self.words.orders[loc]) and offsets[loc] + int(action[loc]) in legal
        ]

    def _write(self, i: int, position: Position, given: list[Order]) -> None:
        seen = observe(position, given)
        m, words = self.map, self.words
        self.board[i], self.last_orders[i] = seen["board"], seen["last_orders"]
        self.phase[i], self.centres[i] = seen["phase"], seen["centres"]
        self.builds[i] = seen["builds"]
        self.units[i] = [sum(u.power == p for u in position.units) for p in m.powers]
        self.completed[i] = position.completed
        self.owner[i] = -1
        flat: list[int] = []
        if not position.completed:
            for w, power in enumerate(m.powers):
                for orders in legal_orders(position, power).values():
                    for order in orders:
                        if not isinstance(order, Waive):
                            location, k = words.where[order]
                            flat.append(int(words.offsets[location]) + k)
                            self.owner[i, location] = w
        self.count[i] = len(flat)
        self.index[i, : len(flat)] = flat

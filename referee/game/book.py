"""The order book of one phase: the orders given, the units still owed, who holds the phase.

:class:`OrderBook` keeps what the players said this phase (``SUB``, ``NOT (SUB)``,
``GOF``, ``DRW``, the negotiation's binding) and answers what they still owe (``MIS``). It
knows the position it is asked about, and nothing else of the game.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import engine.orders as eo
from engine import Position
from engine.maps import Map
from engine.position import ADJUSTMENTS, MOVEMENT, RETREATS
from protocol.daide.messages import Mis, MrtUnit, Order
from protocol.daide.orders import location_from_engine, unit_from_engine
from referee.game.state import Submitted
from referee.orders import check_order, order_key

__all__ = ["OrderBook"]


class OrderBook:
    """The orders of the current phase of a game on ``m``."""

    def __init__(self, m: Map) -> None:
        self.map = m
        self.pending: dict[str, dict[str, Submitted]] = {}  # power -> key -> order
        self.holding: set[str] = set()  # powers that sent NOT (GOF) this phase
        self.draw_votes: set[str] = set()
        self.binding: dict[str, tuple[eo.Order, ...]] = {}  # power -> committed orders this phase
        # worked out once per position: every SUB of a phase asks again
        self._owed: tuple[Position, dict[str, frozenset[str]]] | None = None

    def clear(self) -> None:
        """A new phase: nothing given, nobody holding, no votes, nothing bound."""
        self.pending = {}
        self.holding = set()
        self.draw_votes = set()
        self.binding = {}

    def owed(self, position: Position) -> dict[str, frozenset[str]]:
        """The powers that have orders to give in ``position``, in power order, each with the keys
        (:func:`~referee.orders.order_key`) of its units to order (none in an adjustment phase)."""
        cached = self._owed
        if cached is None or cached[0] is not position:
            cached = self._owed = (position, self._work_out_owed(position))
        return cached[1]

    def _work_out_owed(self, position: Position) -> dict[str, frozenset[str]]:
        kind = position.phase.kind
        keys: dict[str, set[str]] = {}
        m = self.map
        if kind == MOVEMENT:
            for u in position.units:
                keys.setdefault(u.power, set()).add(order_key(m, u.location))
        elif kind == RETREATS:
            for d in position.dislodged:
                keys.setdefault(d.unit.power, set()).add(order_key(m, d.unit.location))
        else:
            keys = {power: set() for power in position.adjustments}
        return {p: frozenset(keys[p]) for p in m.powers if p in keys}

    def missing(self, position: Position, power: str) -> Mis:
        """What ``power`` has still to order, as ``MIS`` (bare when nothing; :meth:`complete`
        says whether it is bare without making it)."""
        m = self.map
        given = self.pending.get(power, {})
        kind = position.phase.kind
        if kind == MOVEMENT:
            units = [u for u in position.units if u.power == power and order_key(m, u.location) not in given]
            return Mis(tuple(unit_from_engine(u, m) for u in units))
        if kind == RETREATS:
            mrt = []
            for d in position.dislodged:
                if d.unit.power == power and order_key(m, d.unit.location) not in given:
                    retreats = tuple(sorted((location_from_engine(r, m) for r in d.retreats), key=str))
                    mrt.append(MrtUnit(unit_from_engine(d.unit, m), retreats))
            return Mis(tuple(mrt))
        owed = position.adjustments.get(power, 0)
        left = abs(owed) - len(given)
        if left <= 0:
            return Mis()
        return Mis(count=-left if owed > 0 else left)  # negative: builds owed, positive: removals

    def complete(self, position: Position, power: str) -> bool:
        """Whether ``power`` has nothing left to order (its ``MIS`` would be bare)."""
        given = self.pending.get(power, {})
        if position.phase.kind == ADJUSTMENTS:
            return abs(position.adjustments.get(power, 0)) <= len(given)
        return self.owed(position).get(power, frozenset()) <= given.keys()

    def all_in(self, position: Position) -> bool:
        """Whether every power due has ordered in full and none holds the phase."""
        due = self.owed(position)
        return all(self.complete(position, p) for p in due) and not self.holding.intersection(due)

    def store(self, position: Position, power: str, order: Order) -> tuple[str, str | None]:
        """Check ``order`` of ``power`` and keep it if valid: the THX note, and the order's text
        to record if it was kept (as the player wrote it)."""
        note, key, engine_order = check_order(position, power, order)
        if engine_order is None or key is None:
            return note, None
        given = self.pending.setdefault(power, {})
        if position.phase.kind == ADJUSTMENTS:
            owed = position.adjustments.get(power, 0)
            others = [k for k in given if k != key]
            if len(others) >= abs(owed):
                return ("NMB" if owed > 0 else "NMR"), None
            if key == "WVE":  # several waives may stand side by side
                key = f"WVE{sum(1 for k in given if k.startswith('WVE'))}"
        given[key] = Submitted(order, engine_order)
        return note, str(order) if note == "MBV" else None

    def cancel(self, power: str, order: Order | None) -> bool:
        """Withdraw one order of ``power`` (None: all of them); whether there was such an order."""
        given = self.pending.setdefault(power, {})
        if order is None:
            given.clear()
            return True
        for key, submitted in given.items():
            if submitted.daide == order or str(submitted.daide) == str(order):
                del given[key]
                return True
        return False

    def given(self) -> dict[str, list[eo.Order]]:
        """power -> the orders it gave, as the engine reads them."""
        return {power: [s.order for s in given.values()] for power, given in self.pending.items()}

    def given_texts(self) -> dict[str, tuple[str, ...]]:
        """power -> the orders it gave, in the short notation; powers that gave none left out."""
        m = self.map
        return {
            power: tuple(eo.format_order(m, s.order) for s in submitted.values())
            for power, submitted in self.pending.items()
            if submitted
        }

    def bind(self, orders: Mapping[str, Iterable[str]]) -> None:
        """The order commitments confirmed this phase (power -> short notation), replacing those
        bound before; an order that does not parse is void."""
        self.binding = {
            power: tuple(_parsed(self.map, texts)) for power, texts in orders.items() if power in self.map.powers
        }


def _parsed(m: Map, texts: Iterable[str]) -> Iterable[eo.Order]:
    for text in texts:
        try:
            yield eo.parse_order(m, text)
        except eo.OrderSyntaxError:
            continue

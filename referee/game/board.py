"""The board of one game: the position, the turns played, who is out, and what they all say.

:class:`Board` adjudicates a phase (:meth:`Board.adjudicate`) and says the game's public
facts in DAIDE (``SCO``, ``NOW``, ``ORD``, ``SMR``). The orders come from the order book;
the position after a phase comes from the engine, or in a replay from the stored record.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import engine.orders as eo
from engine import Adjudication, Position, adjudicate
from engine.maps import ARMY, Map
from engine.position import MOVEMENT, RETREATS, Unit
from engine.results import Result
from protocol.daide.messages import DaideUnit, MrtUnit, Now, Ord, Order, Ownership, Sco, Smr, SmrEntry, Turn
from protocol.daide.orders import location_from_engine, unit_from_engine
from referee.binding import apply_binding
from referee.game.book import OrderBook
from referee.game.state import Mismatch, Turned
from referee.orders import daide_order, order_key
from referee.players import Player

__all__ = ["Adjudicated", "Board"]


@dataclass(frozen=True, slots=True)
class Adjudicated:
    """One phase adjudicated: the turn, each order's result, the outcome, and the orders
    given and adjudicated (after binding), in the short notation."""

    turn: Turn
    results: tuple[Ord, ...]
    outcome: Adjudication
    given: Mapping[str, tuple[str, ...]]
    adjudicated: Mapping[str, tuple[str, ...]]
    unit_results: tuple[tuple[str, tuple[str, ...]], ...]


class Board:
    """The position of a game on ``m`` and its past turns."""

    def __init__(self, m: Map) -> None:
        self.map = m
        self.position = Position.initial(m)
        self.history: list[Turned] = []
        self.mismatches: list[Mismatch] = []
        self.eliminated: dict[str, int] = {}  # power -> the year it was eliminated
        self._rank = {power: i for i, power in enumerate(m.powers)}
        self._by_power: tuple[Position, list[Unit]] | None = None  # the last position's, for NOW and ORD
        self._turn: tuple[Position, Turn] | None = None
        self._json: tuple[Position, dict[str, Any]] | None = None

    def json(self, position: Position) -> dict[str, Any]:
        """``position.to_json()``, kept for the last position asked: a phase's position after is
        the next one's before, and the record and the notice share one dict (neither changes it)."""
        cached = self._json
        if cached is None or cached[0] is not position:
            cached = self._json = (position, position.to_json())
        return cached[1]

    def turn(self) -> Turn:
        """The turn of the current position (every SUB names it: worked out once a position)."""
        cached = self._turn
        if cached is None or cached[0] is not self.position:
            cached = self._turn = (self.position, Turn.of(self.position.phase))
        return cached[1]

    def surviving(self) -> tuple[str, ...]:
        return tuple(p for p in self.map.powers if p not in self.eliminated)

    # --- what the board says -----------------------------------------------------------------

    def sco(self, position: Position | None = None) -> Sco:
        position = position or self.position
        m = self.map
        owned: dict[str | None, list[str]] = {}  # owner (None: nobody) -> its centres' names
        for p in m.supply_centers:
            owned.setdefault(position.centers[p], []).append(m.locations[p])
        groups = [Ownership(p, tuple(sorted(owned[p]))) for p in m.powers if p in owned]
        if None in owned:
            groups.append(Ownership("UNO", tuple(sorted(owned[None]))))
        return Sco(tuple(groups))

    def now(self, position: Position | None = None) -> Now:
        position = position or self.position
        m = self.map
        units: list[Any] = [_daide_unit(u, m) for u in self._units_by_power(position)]
        for d in position.dislodged:
            retreats = tuple(sorted((location_from_engine(r, m) for r in d.retreats), key=str))
            units.append(MrtUnit(_daide_unit(d.unit, m), retreats))
        return Now(Turn.of(position.phase), tuple(units))

    def smr(self, players: Mapping[str, Player]) -> Smr:
        entries = []
        for power in self.map.powers:
            player = players.get(power) or Player(power, "", "", 0)
            centres = len(self.position.centers_of(power))
            year = self.eliminated.get(power, self.position.phase.year) if centres == 0 else None
            entries.append(SmrEntry(power, player.name, player.version, centres, year))
        return Smr(Turn.of(self.position.phase), tuple(entries))

    def turned(self, turn: Turn) -> Turned | None:
        return next((t for t in self.history if t.turn == turn), None)

    def last_movement_results(self) -> list[Ord] | None:
        """The results of the last movement phase and of the phases since (``ORD``); None before any."""
        movement = [i for i, t in enumerate(self.history) if t.phase_kind == MOVEMENT]
        if not movement:
            return None
        return [result for turned in self.history[movement[-1] :] for result in turned.results]

    # --- adjudication ------------------------------------------------------------------------

    def adjudicate(self, book: OrderBook, bound: bool, stored: Mapping[str, Any] | None) -> Adjudicated:
        """Adjudicate the phase with the orders of ``book`` (bound by its binding if ``bound``) and
        move on. In a replay (``stored``: the adjudicate record), the recomputed outcome is checked
        against it; on a difference the stored outcome stands, noted in :attr:`mismatches`."""
        before = self.position
        turn = Turn.of(before.phase)
        orders = book.given()
        if bound:
            orders = apply_binding(before, orders, book.binding)
        outcome = self._check_stored(adjudicate(before, orders), stored)
        results = tuple(Ord(turn, order, result, ret) for order, result, ret in self._results(before, book, outcome.results))
        after = outcome.position
        self.position = after
        counts = after.center_counts
        for power in self.map.powers:
            if power not in self.eliminated and not counts[power] and not after.units_of(power):
                self.eliminated[power] = before.phase.year
        m = self.map
        given = book.given_texts()
        self.history.append(Turned(turn, before.phase.kind, results, self.sco(), self.now(), given, outcome))
        # without a binding the orders adjudicated are those given, in the same order
        adjudicated = {p: tuple(eo.format_order(m, o) for o in os) for p, os in orders.items() if os} if bound else given
        unit_results = tuple((before.unit_name(u), words) for u, words in outcome.results.items())
        return Adjudicated(turn, results, outcome, given, adjudicated, unit_results)

    def _units_by_power(self, position: Position) -> list[Unit]:
        cached = self._by_power
        if cached is None or cached[0] is not position:
            rank = self._rank
            cached = self._by_power = (position, sorted(position.units, key=lambda u: (rank[u.power], u.location)))
        return cached[1]

    def _check_stored(self, outcome: Adjudication, stored: Mapping[str, Any] | None) -> Adjudication:
        if stored is None:
            return outcome
        before = outcome.before
        results = {before.unit_name(u): list(words) for u, words in outcome.results.items()}
        stored_after = Position.from_json(stored["after"], self.map, played=before.phase)  # a solo's: COMPLETED
        if results == stored["results"] and outcome.position.same_board(stored_after):
            return outcome
        self.mismatches.append(
            Mismatch(
                str(before.phase),
                {k: v for k, v in stored["results"].items() if results.get(k) != v},
                {k: v for k, v in results.items() if stored["results"].get(k) != v},
                not outcome.position.same_board(stored_after),
            )
        )
        by_name = {before.unit_name(u): u for u in before.units}
        by_name.update({before.unit_name(d.unit): d.unit for d in before.dislodged})
        kept = {by_name[name]: tuple(words) for name, words in stored["results"].items() if name in by_name}
        return Adjudication(before, stored_after, kept, outcome.unreadable)

    def _results(
        self, before: Position, book: OrderBook, results: Mapping[Unit, tuple[str, ...]]
    ) -> list[tuple[Order, str | None, bool]]:
        """Each order of the phase (given or defaulted) with its DAIDE result and RET flag."""
        m = self.map
        pending = book.pending
        kind = before.phase.kind
        out: list[tuple[Order, str | None, bool]] = []
        if kind == MOVEMENT:
            for unit in self._units_by_power(before):
                given = pending.get(unit.power, {}).get(order_key(m, unit.location))
                order = given.order if given is not None else eo.Hold(unit.type, unit.location)
                result, ret = _movement_result(results.get(unit, ()))
                out.append((daide_order(unit.power, order, before), result, ret))
        elif kind == RETREATS:
            for d in before.dislodged:
                given = pending.get(d.unit.power, {}).get(order_key(m, d.unit.location))
                order = given.order if given is not None else eo.Disband(d.unit.type, d.unit.location)
                words = results.get(d.unit, ())
                result = "SUC" if words in ((Result.OK,), (Result.DISBAND,)) else "BNC" if Result.BOUNCE in words else "NSO"
                out.append((daide_order(d.unit.power, order, before), result, False))
        else:
            removed_by_order: set[Unit | None] = set()
            for power in m.powers:
                for submitted in pending.get(power, {}).values():
                    order = submitted.order
                    if isinstance(order, eo.Build):
                        built = Unit(power, order.type if order.type is not None else ARMY, order.location)
                        result = "SUC" if results.get(built) == (Result.OK,) else "NSO"
                    elif isinstance(order, eo.Disband):
                        removed = before.unit_at.get(m.province_of[order.location])
                        removed_by_order.add(removed)
                        result = "SUC" if removed is not None and results.get(removed) == (Result.OK,) else "NSO"
                    else:
                        result = "SUC"
                    out.append((daide_order(power, order, before), result, False))
            for unit, words in results.items():
                if words == (Result.DISBAND,) and unit not in removed_by_order:  # civil disorder removal
                    order = eo.Disband(unit.type, unit.location)
                    out.append((daide_order(unit.power, order, before), "SUC", False))
        return out


def _daide_unit(unit: Unit, m: Map) -> DaideUnit:
    """``unit`` in DAIDE. Cached by the unit's plain fields: a tuple of them hashes in C, a
    ``Unit`` (a dataclass) in Python, and each position holds units of its own, equal but not
    the same."""
    return _daide_unit_of(m, unit.power, unit.type, unit.location)


@functools.lru_cache(maxsize=8192)  # a game names the same few hundred units over and over
def _daide_unit_of(m: Map, power: str, unit_type: str, location: int) -> DaideUnit:
    return unit_from_engine(Unit(power, unit_type, location), m)


#: The DAIDE result of an order (``ORD``) for the engine's first result word.
DAIDE_RESULTS = {
    Result.OK: "SUC",
    Result.BOUNCE: "BNC",
    Result.CUT: "CUT",
    Result.DISRUPTED: "DSR",
    Result.NO_CONVOY: "NSO",
    Result.VOID: "NSO",
}


@functools.cache  # a handful of different results, thousands of times a game
def _movement_result(words: tuple[str, ...]) -> tuple[str | None, bool]:
    ret = Result.DISLODGED in words
    base = [w for w in words if w not in (Result.DISLODGED, Result.DISBAND)]
    if base:
        return DAIDE_RESULTS[Result(base[0])], ret
    return (None, True) if ret else ("SUC", False)



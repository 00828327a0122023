"""Playing phases: from a position and the orders given to the next position.

>>> from engine.game import Game
>>> game = Game()
>>> result = game.play({"FRANCE": ["A PAR - BUR", "A MAR - SPA"], "GERMANY": ["A MUN - BUR"]})
>>> str(game.position.phase), result.words("A PAR"), result.words("A MAR")
('F1901M', (<Result.BOUNCE: 'bounce'>,), (<Result.OK: 'ok'>,))
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from engine import _native
from engine.adjustments import adjudicate_adjustments
from engine.maps import Map
from engine.movement import adjudicate_movement
from engine.orders import Order, OrderSyntaxError, parse_order
from engine.position import ADJUSTMENTS, MOVEMENT, RETREATS, Phase, Position, Unit
from engine.retreats import adjudicate_retreats


@dataclass(frozen=True, slots=True)
class Adjudication:
    """The outcome of one phase: the next position and each order's result words."""

    before: Position
    position: Position
    results: dict[Unit, tuple[str, ...]]
    unreadable: tuple[str, ...] = ()
    """Order texts that were no orders at all (void, like illegal orders)."""

    def words(self, unit_name: str) -> tuple[str, ...] | None:
        """The result words of the unit named ``unit_name`` as it stood (``"A PAR"``, ``"F STP/SC"``)."""
        for unit, words in self.results.items():
            if self.before.unit_name(unit) == unit_name:
                return words
        return None


def adjudicate(position: Position, orders: Mapping[str, Iterable[Order]]) -> Adjudication:
    """Play the phase of ``position`` with ``orders`` (power -> orders).

    Units without orders hold, dislodged units without orders disband, and a power
    that removes too few units is put in civil disorder. The returned position is
    the next one that needs orders: empty retreat and adjustment phases are skipped.
    """
    if position.completed:
        return Adjudication(position, position, {})
    m = position.map
    phase = position.phase
    if phase.kind == MOVEMENT:
        outcome = adjudicate_movement(position, orders)
        after = _advance(m, phase, outcome.units, position.centers, outcome.dislodged)
        return Adjudication(position, after, outcome.results)
    if phase.kind == RETREATS:
        units, results = adjudicate_retreats(position, orders)
    else:
        units, results = adjudicate_adjustments(position, orders)
    return Adjudication(position, _advance(m, phase, units, position.centers, ()), results)


def _advance(m: Map, phase: Phase, units: tuple[Unit, ...], centers: tuple, dislodged: tuple) -> Position:
    year, season = phase.year, phase.season
    if phase.kind == MOVEMENT and dislodged:
        return Position(m, Phase(year, season, RETREATS), units, centers, dislodged)
    if season == "S":
        return Position(m, Phase(year, "F", MOVEMENT), units, centers)
    if season == "F":
        core = _native.core_for(m)
        fall = None if core is None else core.after_fall(units, centers)
        if fall is not None:  # the same as below, counted in C
            owners, winner, due = fall
            if winner is not None:
                return Position(m, Phase(year, "W", ADJUSTMENTS), units, owners, completed=True)
            if due:
                return Position(m, Phase(year, "W", ADJUSTMENTS), units, owners)
            return Position(m, Phase(year + 1, "S", MOVEMENT), units, owners)
        owners = list(centers)
        is_center = m.is_supply_center
        province_of = m.province_of
        for u in units:
            p = province_of[u.location]
            if is_center[p]:
                owners[p] = u.power
        winter = Position(m, Phase(year, "W", ADJUSTMENTS), units, tuple(owners))
        if winter.winner is not None:
            return Position(m, winter.phase, units, winter.centers, completed=True)
        if winter.adjustments:
            return winter
        centers = winter.centers
    return Position(m, Phase(year + 1, "S", MOVEMENT), units, centers)


def parse_orders(m: Map, orders: Mapping[str, Iterable[str]]) -> tuple[dict[str, list[Order]], list[str]]:
    """Parse order strings by power; returns the orders and the texts that were no orders."""
    parsed: dict[str, list[Order]] = {}
    unreadable: list[str] = []
    for power, texts in orders.items():
        name = m.power(power)
        bucket = parsed.setdefault(name, [])
        for text in texts:
            try:
                bucket.append(parse_order(m, text))
            except OrderSyntaxError:
                unreadable.append(text)
    return parsed, unreadable


@dataclass
class Game:
    """A game in progress: the current position and the phases played so far."""

    position: Position = field(default_factory=Position.initial)
    history: list[Adjudication] = field(default_factory=list)

    def play(self, orders: Mapping[str, Iterable[Order | str]]) -> Adjudication:
        """Play the current phase; orders may be :class:`Order` values or strings.

        Text that is no order is void like an illegal order, and listed in
        ``unreadable`` of the result.
        """
        m = self.position.map
        typed: dict[str, list[Order]] = {}
        unreadable: list[str] = []
        for power, power_orders in orders.items():
            texts = [o for o in power_orders if isinstance(o, str)]
            parsed, bad = parse_orders(m, {power: texts})
            unreadable += bad
            typed[m.power(power)] = [o for o in power_orders if not isinstance(o, str)] + parsed.get(m.power(power), [])
        outcome = replace(adjudicate(self.position, typed), unreadable=tuple(unreadable))
        self.history.append(outcome)
        self.position = outcome.position
        return outcome

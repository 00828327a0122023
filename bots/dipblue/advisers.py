"""DipBlue's five advisers (paper section 4.3) and the board they read.

An adviser looks at a *candidate* (a unit's possible order) and gives it a number. The
score of a candidate is the accumulation of Eq. 1, in the order the advisers are listed:
an adding adviser adds ``weight * value``, a multiplying one scales the running total by
``value ** weight`` (a factor of 1 changes nothing, a weight of 0 switches the adviser
off; a negative total is divided instead, so a factor above 1 always makes an order more
attractive). "The order of execution of advisers is important": DipBlue lists
MapTactician, FortuneTeller, TeamBuilder, WordKeeper, AgreementExecutor, so that the
agreement bonus is not itself scaled. All weights start equal, at 1 (section 4.3).

- :class:`MapTactician` (adds): DumbBot's value of where the unit ends up (its province
  destination value, :mod:`bots.dumbbot`), times ``hold`` for an order that stays.
- :class:`FortuneTeller` (multiplies): the chance that a move succeeds, ``mine / (mine +
  theirs)``, ``mine`` our units in or next to the destination (the mover and its possible
  supporters), ``theirs`` the most any other power has there; 1 when no one else is near.
  Like the paper's, it ignores chains of orders, so it is optimistic.
- :class:`TeamBuilder` (multiplies): ``boost`` for a move into a contested province that
  one of our units could support; after the choice it turns units into supporters
  (:meth:`TeamBuilder.supports`), and an idle unit supports its best neighbour.
- :class:`WordKeeper` (multiplies): the effective friction of the power an order moves
  against (the owner of the unit there, else of the centre): an attack on a peace partner
  counts half, one on a war enemy double (:mod:`bots.dipblue.trust`).
- :class:`AgreementExecutor` (adds): for an order agreed with a counterpart, ``trust`` of
  the counterpart times the value of the unit's place (subtracted for an order it agreed
  not to give), so that an agreement weighs what its counterpart is trusted; a ``blind``
  one (the Slave) adds infinity: agreements before everything.

Constants we chose (the paper gives none): ``MapTactician.hold = 1`` (DumbBot's own
choice weighs staying and moving alike), ``TeamBuilder.boost = 1.5`` and ``forfeit = 0.5``
(a unit gives up its move to support one worth at least twice as much), and every
adviser weight 1.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

import engine.orders as eo
from bots.dipblue.trust import Relations
from bots.dumbbot import Weights, _Appraisal
from engine.position import Position, Unit

__all__ = [
    "Adviser",
    "Agreement",
    "AgreementExecutor",
    "Board",
    "Candidate",
    "Choice",
    "FortuneTeller",
    "MapTactician",
    "TeamBuilder",
    "WordKeeper",
    "score",
]


@dataclass(frozen=True, slots=True)
class Agreement:
    """An order of ours agreed with ``counterpart`` this phase: to give it, or, ``negated``, not to."""

    unit: Unit
    order: eo.Order
    counterpart: str
    negated: bool = False


@dataclass(frozen=True, slots=True)
class Candidate:
    """A possible order of a unit: ``node`` (DumbBot's node) and ``province`` are where the
    unit is after it; ``target`` the power it moves against, if any."""

    unit: Unit
    order: eo.Order
    node: int
    province: int
    target: str | None = None

    @property
    def moves(self) -> bool:
        return isinstance(self.order, eo.Move)


@dataclass(frozen=True, slots=True)
class Choice:
    """A scored candidate."""

    candidate: Candidate
    score: float


class Board:
    """What the advisers read in one movement phase: DumbBot's values for ``power``, who is
    near each province, the relations and this phase's agreements."""

    def __init__(
        self,
        position: Position,
        power: str,
        weights: Weights,
        size: tuple[float, float, float],
        relations: Relations,
        agreements: Mapping[Unit, Sequence[Agreement]],
        legal: Mapping[Unit | None, Sequence[eo.Order]],
    ) -> None:
        self.position = position
        self.map = m = position.map
        self.power = power
        self.value = _Appraisal(position, power, weights, size)
        self.geometry = self.value.geometry
        self.relations = relations
        self.agreements = agreements
        self.legal = {u: options for u, options in legal.items() if u is not None}
        self.allowed = {u: frozenset(options) for u, options in self.legal.items()}
        province_of = m.province_of
        self.ours = {province_of[u.location]: u for u in position.units if u.power == power}
        # province -> power -> its units in the province or one move from it
        near: dict[int, dict[str, int]] = {}
        for u in position.units:
            for p in (province_of[u.location], *m.reach[u.type][u.location]):
                counts = near.setdefault(p, {})
                counts[u.power] = counts.get(u.power, 0) + 1
        self.near = near

    def here(self, unit: Unit) -> int:
        """The node ``unit`` stands on."""
        return self.geometry.node[unit.type][unit.location]

    def mine(self, province: int) -> int:
        """Our units in or next to ``province``."""
        return self.near.get(province, {}).get(self.power, 0)

    def opposition(self, province: int, ignoring: frozenset[str] = frozenset()) -> int:
        """The most units any other power (not in ``ignoring``) has in or next to ``province``."""
        counts = self.near.get(province, {})
        return max((k for p, k in counts.items() if p != self.power and p not in ignoring), default=0)

    def target(self, province: int) -> str | None:
        """The power a move into ``province`` is against: the owner of the unit there, else of the centre."""
        unit = self.position.unit_at.get(province)
        if unit is not None and unit.power != self.power:
            return unit.power
        owner = self.position.centers[province]
        return owner if owner != self.power else None

    def candidates(self, unit: Unit) -> list[Candidate]:
        """Holding, each move (not by convoy) and each order agreed for ``unit``."""
        m = self.map
        here = self.here(unit)
        province = m.province_of[unit.location]
        found = [Candidate(unit, eo.Hold(unit.type, unit.location), here, province)]
        steps = (m.army_moves, m.fleet_moves)[unit.type][unit.location]
        node = self.geometry.node[unit.type]
        for order in self.legal[unit]:
            if isinstance(order, eo.Move) and not order.via_convoy and order.destination in steps:
                there = m.province_of[order.destination]
                found.append(Candidate(unit, order, node[order.destination], there, self.target(there)))
        known = {c.order for c in found}
        for agreement in self.agreements.get(unit, ()):
            if not agreement.negated and agreement.order not in known and agreement.order in self.allowed[unit]:
                found.append(Candidate(unit, agreement.order, here, province))
        return found


class Adviser:
    """An adviser: ``evaluate`` gives a value (adding) or a factor (multiplying)."""

    multiplies: ClassVar[bool] = False
    weight: float

    def evaluate(self, board: Board, candidate: Candidate) -> float:
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class MapTactician(Adviser):
    """DumbBot's province destination value of where the unit ends up."""

    weight: float = 1.0
    hold: float = 1.0

    def evaluate(self, board: Board, candidate: Candidate) -> float:
        value = board.value(candidate.node)
        return value if candidate.moves else self.hold * value


@dataclass(frozen=True, slots=True)
class FortuneTeller(Adviser):
    """The chance that a move succeeds, from who is near its destination."""

    multiplies: ClassVar[bool] = True
    weight: float = 1.0

    def evaluate(self, board: Board, candidate: Candidate) -> float:
        if not candidate.moves:
            return 1.0
        theirs = board.opposition(candidate.province)
        if not theirs:
            return 1.0
        mine = board.mine(candidate.province)
        return mine / (mine + theirs)


@dataclass(frozen=True, slots=True)
class TeamBuilder(Adviser):
    """Favours contested moves that can be supported, then gives them their supports."""

    multiplies: ClassVar[bool] = True
    weight: float = 1.0
    boost: float = 1.5
    forfeit: float = 0.5

    def evaluate(self, board: Board, candidate: Candidate) -> float:
        p = candidate.province
        if candidate.moves and board.opposition(p) and board.mine(p) > 1:
            return self.boost
        return 1.0

    def supports(self, board: Board, chosen: Mapping[Unit, Choice], keep: frozenset[Unit]) -> dict[Unit, eo.Order]:
        """The orders after turning units into supporters; ``keep`` are units whose order is agreed.

        Each contested move, best first, gets up to as many supports as the strongest other
        power has units near its destination: from units that hold, or that move to a place
        worth less than ``forfeit`` times the move (and that no unit of ours is moving in
        behind). Then every unit still holding supports the best of our contested moves and
        threatened holds it can reach.
        """
        orders = {u: c.candidate.order for u, c in chosen.items()}
        reach = board.map.reach
        province_of = board.map.province_of
        entering = {c.candidate.province for c in chosen.values() if c.candidate.moves}
        supported: set[Unit] = set()
        busy = set(keep)
        movers = sorted((c for c in chosen.values() if c.candidate.moves), key=_best_first)
        for mover in movers:
            u, p = mover.candidate.unit, mover.candidate.province
            need = board.opposition(p)
            if not need or u in busy:
                continue
            helpers = []
            for s, choice in chosen.items():
                if s == u or s in busy or s in supported or p not in reach[s.type][s.location]:
                    continue
                support = eo.SupportMove(s.type, s.location, u.type, u.location, p)
                if support not in board.allowed[s]:
                    continue
                if isinstance(orders[s], eo.Hold):
                    helpers.append((-math.inf, _key(s), s, support))
                elif (
                    choice.candidate.moves
                    and choice.score < self.forfeit * mover.score
                    and province_of[s.location] not in entering
                ):
                    helpers.append((choice.score, _key(s), s, support))
            for _, _, s, support in sorted(helpers)[:need]:
                if chosen[s].candidate.moves:
                    entering.discard(chosen[s].candidate.province)
                orders[s] = support
                busy.add(s)
                supported.add(u)
        for s in sorted(chosen, key=_key):
            if s in busy or not isinstance(orders[s], eo.Hold):
                continue
            best: tuple[float, eo.Order] | None = None
            for v, choice in chosen.items():
                if v == s:
                    continue
                order = orders[v]
                helping: eo.Order
                if isinstance(order, eo.Move):
                    q = province_of[order.destination]
                    helping = eo.SupportMove(s.type, s.location, v.type, v.location, q)
                else:
                    q = province_of[v.location]
                    helping = eo.SupportHold(s.type, s.location, v.type, v.location)
                if q not in reach[s.type][s.location] or not board.opposition(q) or helping not in board.allowed[s]:
                    continue
                if best is None or choice.score > best[0]:
                    best = (choice.score, helping)
            if best is not None:
                orders[s] = best[1]
        return orders


@dataclass(frozen=True, slots=True)
class WordKeeper(Adviser):
    """The effective friction of the power an order moves against."""

    multiplies: ClassVar[bool] = True
    weight: float = 1.0

    def evaluate(self, board: Board, candidate: Candidate) -> float:
        if candidate.target is None:
            return 1.0
        return board.relations.effective(candidate.target)


@dataclass(frozen=True, slots=True)
class AgreementExecutor(Adviser):
    """The weight of this phase's agreements: the counterpart's trust, or (``blind``) everything."""

    weight: float = 1.0
    blind: bool = False

    def evaluate(self, board: Board, candidate: Candidate) -> float:
        total = 0.0
        for agreement in board.agreements.get(candidate.unit, ()):
            if agreement.order != candidate.order:
                continue
            if self.blind:
                bonus = math.inf
            else:
                bonus = board.relations.trust(agreement.counterpart) * abs(board.value(board.here(candidate.unit)))
            total += -bonus if agreement.negated else bonus
        return total


def score(advisers: Sequence[Adviser], board: Board, candidate: Candidate) -> float:
    """Eq. 1: the advisers' values accumulated in order (see the module)."""
    total = 0.0
    for adviser in advisers:
        value = adviser.evaluate(board, candidate)
        if adviser.multiplies:
            factor = value**adviser.weight
            total = total * factor if total >= 0 else total / factor
        else:
            total += adviser.weight * value
    return total


def _key(unit: Unit) -> tuple[int, int]:
    return unit.location, unit.type


def _best_first(choice: Choice) -> tuple[float, tuple[int, int]]:
    return -choice.score, _key(choice.candidate.unit)

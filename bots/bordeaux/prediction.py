"""What the Bordeaux diplomat expects the other powers to order: a model learnt by watching them.

RES (:mod:`bots.bordeaux.strategy`) plans our orders against a prediction of the orders of
the other concerned powers. Two predictors give it one, each a :class:`Predictor`:

:class:`ObservedModel` (the default, ``bordeaux``)
    knows nothing of the other bots' code. It starts from a generic prior and learns, each
    movement phase, from the orders every other power gave (the orders the game reports after
    adjudication: what Loeb's observation module is given, *The Observation Module*).
:class:`DumbBotModel` (``bordeaux:dumbbot-model``)
    a private copy of DumbBot for each other power: the exact policy of the DumbBots and of
    the DumbBot-based baselines. Against those it is a prediction no real diplomat could
    make, so its figures measure the exploitation of a known policy; it is kept, labelled,
    to measure how much the prediction is worth.

**The observed model.** Every order a unit can be given in a movement phase falls in one of
a few *kinds* (:func:`kind_of`), from what can be seen on the board and nothing else:

* ``hold:threatened-centre`` a hold on a centre of the unit's own power that a unit of
  another power can reach; ``hold:other`` any other hold;
* a move by what it moves into: ``move:neutral-centre`` (an unowned centre),
  ``move:foreign-centre`` (a centre of another power; ``move:hostile-centre`` when Bordeaux's
  friendliness matrix says the mover is hostile, below 0, to the owner: Loeb's observation
  module used as a feature), ``move:own-centre``, ``move:closer`` (no centre, one move nearer
  the nearest centre not the mover's), ``move:away`` (the rest), ``move:onto-own`` (where a
  unit of the same power stands); each but the last with ``:defended`` when a unit of
  another power stands there;
* ``support:own`` a support of a unit of the same power; ``support:foreign`` of another's;
* ``convoy`` (observed, never predicted: RES searches no convoy either).

The model is a table of *take rates*: for each kind, the share of the times a unit had an
order of that kind among its options that it gave one. A rate is estimated with a prior
that the data overcomes, in two levels: every opponent's units together, by season
(spring, fall), pulled toward :data:`PRIOR` with the weight of :data:`PRIOR_WEIGHT`
observations; and each opponent by season, pulled toward the pooled rate with the weight
of :data:`POOL_WEIGHT` observations.

The **prior** is a generic opening heuristic, not DumbBot's code or values (none of its
numbers, place values or weights): units move to the centres they can take (neutral ones
first), hold on their own centres when threatened, otherwise move closer to the nearest
centre not their own, and support one another now and then; they rarely step back or
support another power.

**A prediction** (:meth:`ObservedModel.predict`): each unit's options (its hold and its
moves, no convoy) are scored by the rate of their kind, ties broken by a small preference
for places nearer centres not the power's own (and then by location, so a prediction does
not draw random numbers). The units choose in order of their best score; a unit whose
best move goes where another of its power's units already goes takes its next option, or
supports that move when the support rate is higher; then each unit whose choice scores
below the support rate supports an adjacent move of its power into a centre or a
defended place, if it has one.

>>> from engine import Position
>>> from engine.orders import format_order
>>> start = Position.initial()
>>> model = ObservedModel(start.map.powers)
>>> [format_order(start.map, o) for o in model.predict(start, "ITA")]  # the prior alone
['F NAP - ION', 'A ROM H', 'A VEN H']
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

import engine.orders as eo
from bots.base import LegalOrders
from bots.dumbbot import DumbBot
from engine import legal_orders
from engine.maps import Map
from engine.position import MOVEMENT, Position, Unit

__all__ = [
    "FEATURES",
    "KINDS",
    "PRIOR",
    "DumbBotModel",
    "ObservedModel",
    "Predictor",
    "features",
    "normal",
]

#: How friendly one power is to another (Bordeaux's friendliness matrix): below 0, hostile.
Friendly = Callable[[str, str], float]

#: The generic prior: the weight of each feature of an option (see the module).
PRIOR: Mapping[str, float] = {
    "hold": 0.0,
    "hold:threatened-centre": 1.5,
    "move:neutral-centre": 2.0,
    "move:foreign-centre": 1.2,
    "move:own-centre": -0.5,
    "move:closer": 1.0,
    "move:away": -1.0,
    "move:onto-own": -1.5,
    "support:hold": -0.5,
    "support:move": 0.0,
    "hostile": 0.3,
    "defended": -0.8,
    "strength": 0.8,
    "opposition": -0.5,
    "owner-size": 0.0,
    "near": 0.5,
    "prospects": 0.3,
    "support:into-centre": 1.0,
    "support:into-defended": 0.5,
    "support:threat": 0.8,
}
#: The features of an option: the kinds (indicators), then the numbers.
KINDS: tuple[str, ...] = tuple(k for k in PRIOR if k.startswith(("hold", "move:", "support:hold", "support:move")))
FEATURES: tuple[str, ...] = (*PRIOR, *(f"fall:{k}" for k in KINDS))
#: The step of the online fit (per unit observed), for the weights shared by all opponents and an opponent's own.
STEP = 0.1
OWN_STEP = 0.1
#: How fast an opponent's own weights fall back to the shared ones (a share per unit observed).
SHRINK = 0.01
#: The most units counted in ``strength`` and ``opposition`` (so a big army counts as 3).
CAP = 3

class Predictor(Protocol):
    """What Bordeaux asks of a model of the other powers."""

    def predict(
        self, position: Position, power: str, legal: LegalOrders | None = None, friendly: Friendly | None = None
    ) -> list[eo.Order]:
        """The orders ``power`` is expected to give in ``position`` (a movement phase), ``legal`` its legal orders."""
        ...

    def observe(
        self, before: Position, orders: Mapping[str, Sequence[eo.Order]], friendly: Friendly | None = None
    ) -> None:
        """The orders every power gave in the phase played from ``before``."""
        ...


class DumbBotModel:
    """A private DumbBot for each other power (see the module): exact against DumbBots."""

    def __init__(self, m: Map, me: str, rng: random.Random) -> None:
        self._copies = {p: DumbBot(rng) for p in m.powers if p != me}
        for p, copy in self._copies.items():
            copy.start(p, m)

    def predict(
        self, position: Position, power: str, legal: LegalOrders | None = None, friendly: Friendly | None = None
    ) -> list[eo.Order]:
        return self._copies[power].orders(position, legal_orders(position, power) if legal is None else legal)

    def observe(
        self, before: Position, orders: Mapping[str, Sequence[eo.Order]], friendly: Friendly | None = None
    ) -> None:
        return None


def normal(m: Map, order: eo.Order) -> eo.Order:
    """``order`` as the engine lists legal orders: a supported move's destination is its province."""
    if isinstance(order, eo.SupportMove):
        return eo.SupportMove(
            order.type, order.location, order.supported_type, order.supported_location, m.province_of[order.destination]
        )
    return order


class _Board:
    """What the kinds of one position need, computed once: owners, the units' places, distances."""

    def __init__(self, position: Position, friendly: Friendly | None) -> None:
        self.position = position
        self.m = m = position.map
        self.friendly = friendly
        self.unit_at = {m.province_of[u.location]: u for u in position.units}
        self._around: dict[int, dict[str, int]] = {}
        self._targets: dict[str, list[int]] = {}
        self._near: dict[tuple[int, int, str], int] = {}

    def targets(self, power: str) -> list[int]:
        """The centres not owned by ``power``."""
        found = self._targets.get(power)
        if found is None:
            m = self.m
            found = [p for p, owner in enumerate(self.position.centers) if m.is_supply_center[p] and owner != power]
            self._targets[power] = found
        return found

    def nearest(self, unit_type: int, place: int, power: str) -> int:
        """The fewest moves of a unit of ``unit_type`` from location ``place`` to a centre not ``power``'s."""
        key = (unit_type, place, power)
        found = self._near.get(key)
        if found is None:
            row = self.m.unit_distances(unit_type, coasts=True)[place]
            found = min((row[c] for c in self.targets(power) if row[c] >= 0), default=99)
            self._near[key] = found
        return found

    def prospects(self, unit_type: int, place: int, power: str) -> int:
        """The centres not ``power``'s that a unit of ``unit_type`` at location ``place`` could move into next."""
        m = self.m
        centres = self.position.centers
        return sum(1 for p in m.reach[unit_type][place] if m.is_supply_center[p] and centres[p] != power)

    def strength(self, province: int, power: str) -> int:
        """The units of ``power`` that stand in or can move into ``province``."""
        return self._counts(province).get(power, 0)

    def opposition(self, province: int, power: str) -> int:
        """The most units of any one other power that stand in or can move into ``province``."""
        return max((n for p, n in self._counts(province).items() if p != power), default=0)

    def _counts(self, province: int) -> dict[str, int]:
        found = self._around.get(province)
        if found is None:
            m = self.m
            found = {}
            for u in self.position.units:
                if m.province_of[u.location] == province or province in m.reach[u.type][u.location]:
                    found[u.power] = found.get(u.power, 0) + 1
            self._around[province] = found
        return found


def features(board: _Board, unit: Unit, order: eo.Order) -> dict[str, float] | None:
    """The features of ``order`` for ``unit`` (see the module); None for an order the model does
    not predict (a convoy, a convoyed move, a support of another power's unit)."""
    m, position = board.m, board.position
    province_of = m.province_of
    power = unit.power
    fall = position.phase.season == "F"
    found: dict[str, float] = {}

    def kind(name: str) -> None:
        found[name] = 1.0
        if fall:
            found[f"fall:{name}"] = 1.0

    if isinstance(order, eo.SupportHold | eo.SupportMove):
        helped = board.unit_at.get(province_of[order.supported_location])
        if helped is None or helped.power != power:
            return None
        if isinstance(order, eo.SupportHold):
            kind("support:hold")
            found["support:threat"] = board.opposition(province_of[order.supported_location], power) / CAP
            return found
        kind("support:move")
        into = province_of[order.destination]
        there = board.unit_at.get(into)
        if m.is_supply_center[into] and position.centers[into] != power:
            found["support:into-centre"] = 1.0
        if there is not None and there.power != power:
            found["support:into-defended"] = 1.0
        return found
    if isinstance(order, eo.Convoy) or (isinstance(order, eo.Move) and order.via_convoy):
        return None
    if isinstance(order, eo.Move):
        into = province_of[order.destination]
        there = board.unit_at.get(into)
        found["near"] = -board.nearest(unit.type, order.destination, power) / 5
        found["prospects"] = board.prospects(unit.type, order.destination, power) / CAP
        if there is not None and there.power == power:
            kind("move:onto-own")
            return found
        if there is not None:
            found["defended"] = 1.0
        found["strength"] = min(CAP, board.strength(into, power) - 1) / CAP
        found["opposition"] = board.opposition(into, power) / CAP
        if m.is_supply_center[into]:
            owner = position.centers[into]
            if owner is None:
                kind("move:neutral-centre")
            elif owner == power:
                kind("move:own-centre")
            else:
                kind("move:foreign-centre")
                found["owner-size"] = position.center_counts.get(owner, 0) / 10
                if board.friendly is not None and board.friendly(power, owner) < 0:
                    found["hostile"] = 1.0
            return found
        here = board.nearest(unit.type, unit.location, power)
        kind("move:closer" if board.nearest(unit.type, order.destination, power) < here else "move:away")
        return found
    here = province_of[unit.location]
    found["near"] = -board.nearest(unit.type, unit.location, power) / 5
    found["prospects"] = board.prospects(unit.type, unit.location, power) / CAP
    found["opposition"] = board.opposition(here, power) / CAP
    if m.is_supply_center[here] and position.centers[here] == power and board.opposition(here, power):
        kind("hold:threatened-centre")
    else:
        kind("hold")
    return found


def _options(position: Position, unit: Unit, legal: Sequence[eo.Order]) -> list[eo.Order]:
    """The orders the model scores: holds, moves to a neighbouring province, supports."""
    reach = position.map.reach[unit.type][unit.location]
    province_of = position.map.province_of
    return [
        o
        for o in legal
        if not isinstance(o, eo.Move | eo.Convoy) or (isinstance(o, eo.Move) and not o.via_convoy and province_of[o.destination] in reach)
    ]


class ObservedModel:
    """A choice model of the other powers' orders, fitted to what they ordered (see the module)."""

    def __init__(self, powers: Sequence[str], prior: Mapping[str, float] = PRIOR) -> None:
        self.shared: dict[str, float] = {f: prior.get(f, 0.0) for f in FEATURES}
        self.own: dict[str, dict[str, float]] = {p: {} for p in powers}
        self.observed = 0

    def weight(self, power: str, feature: str) -> float:
        return self.shared.get(feature, 0.0) + self.own.get(power, {}).get(feature, 0.0)

    def score(self, power: str, x: Mapping[str, float]) -> float:
        own = self.own.get(power, {})
        shared = self.shared
        return sum(v * (shared.get(f, 0.0) + own.get(f, 0.0)) for f, v in x.items())

    # --- learning -------------------------------------------------------------------------------

    def observe(
        self, before: Position, orders: Mapping[str, Sequence[eo.Order]], friendly: Friendly | None = None
    ) -> None:
        """One step of the fit for every unit of every power in ``orders`` (a movement phase)
        whose order the model could have predicted (a unit with no order held)."""
        if before.phase.kind != MOVEMENT:
            return
        board = _Board(before, friendly)
        m = before.map
        province_of = m.province_of
        for power, given in orders.items():
            if power not in self.own:
                continue
            units = before.units_of(power)
            if not units:
                continue
            by_unit: dict[Unit, eo.Order] = {}
            for order in given:
                if isinstance(order, eo.Waive):
                    continue
                unit = board.unit_at.get(province_of[order.location])
                if unit is not None and unit.power == power:
                    by_unit.setdefault(unit, normal(m, order))
            legal = legal_orders(before, power)
            for unit in units:
                chosen = by_unit.get(unit, eo.Hold(unit.type, unit.location))
                xs: list[dict[str, float]] = []
                picked = -1
                for option in _options(before, unit, legal.get(unit, ())):
                    x = features(board, unit, option)
                    if x is None:
                        continue
                    if option == chosen:
                        picked = len(xs)
                    xs.append(x)
                if picked < 0 or len(xs) < 2:
                    continue
                self._step(power, xs, picked)

    def _step(self, power: str, xs: Sequence[Mapping[str, float]], picked: int) -> None:
        """A gradient step of the log-likelihood of the choice ``picked`` among ``xs``."""
        scores = [self.score(power, x) for x in xs]
        top = max(scores)
        weights = [math.exp(s - top) for s in scores]
        total = sum(weights)
        gradient: dict[str, float] = dict(xs[picked])
        for x, w in zip(xs, weights, strict=True):
            for f, v in x.items():
                gradient[f] = gradient.get(f, 0.0) - v * w / total
        own = self.own[power]
        for f in own:
            own[f] *= 1 - SHRINK
        for f, g in gradient.items():
            self.shared[f] = self.shared.get(f, 0.0) + STEP * g
            own[f] = own.get(f, 0.0) + OWN_STEP * g
        self.observed += 1

    # --- predicting -----------------------------------------------------------------------------

    def predict(
        self, position: Position, power: str, legal: LegalOrders | None = None, friendly: Friendly | None = None
    ) -> list[eo.Order]:
        """The orders ``power`` is expected to give (see the module); holds outside movement phases."""
        units = position.units_of(power)
        if position.phase.kind != MOVEMENT or not units:
            return [eo.Hold(u.type, u.location) for u in units]
        board = _Board(position, friendly)
        m = position.map
        province_of = m.province_of
        legal = legal_orders(position, power) if legal is None else legal
        ranked: dict[Unit, list[tuple[float, eo.Order]]] = {}
        for unit in units:
            scored = []
            for order in _options(position, unit, legal.get(unit, ())):
                x = features(board, unit, normal(m, order))
                if x is not None:
                    scored.append((self.score(power, x), order))
            scored.sort(key=lambda s: (-s[0], _key(s[1])))
            ranked[unit] = scored or [(0.0, eo.Hold(unit.type, unit.location))]
        # the moves first, best first, one unit to a province; then the supports, of what the others do
        chosen: dict[Unit, eo.Order] = {}
        going: dict[int, Unit] = {}
        supporters: list[Unit] = []
        for unit in sorted(units, key=lambda u: (-ranked[u][0][0], u.location)):
            for _, order in ranked[unit]:
                if isinstance(order, eo.SupportHold | eo.SupportMove):
                    supporters.append(unit)
                    break
                if isinstance(order, eo.Move):
                    into = province_of[order.destination]
                    leader = going.get(into)
                    if leader is not None:  # RES5's rule: of two units moving to one place, one supports
                        backing = eo.SupportMove(unit.type, unit.location, leader.type, leader.location, into)
                        if backing in legal.get(unit, ()):
                            chosen[unit] = backing
                            break
                        continue
                    going[into] = unit
                chosen[unit] = order
                break
            else:
                chosen[unit] = eo.Hold(unit.type, unit.location)
        at = {province_of[u.location]: u for u in units}
        for unit in supporters:
            for _, order in ranked[unit]:
                if isinstance(order, eo.SupportMove):
                    helped = at.get(province_of[order.supported_location])
                    planned = chosen.get(helped) if helped is not None else None
                    if isinstance(planned, eo.Move) and province_of[planned.destination] == order.destination:
                        chosen[unit] = order
                        break
                elif isinstance(order, eo.SupportHold):
                    helped = at.get(province_of[order.supported_location])
                    if helped is not None and not isinstance(chosen.get(helped), eo.Move):
                        chosen[unit] = order
                        break
                elif isinstance(order, eo.Move) and province_of[order.destination] in going:
                    continue
                else:
                    if isinstance(order, eo.Move):
                        going[province_of[order.destination]] = unit
                    chosen[unit] = order
                    break
            else:
                chosen[unit] = eo.Hold(unit.type, unit.location)
        return [chosen[u] for u in units]


def _key(order: eo.Order) -> tuple[int, int]:
    """A fixed order among options of the same score."""
    if isinstance(order, eo.Move):
        return (1, order.destination)
    return (0, order.location)

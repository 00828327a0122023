"""HANA's graded beliefs about what the other powers will do (thesis section 5.2).

A belief is a degree in [0, 1] that an event will happen (definition 16); HANA's events
here are the actions of the other powers' units, and the degrees of the actions on one
resource (a unit) sum to 1 (equation 5.1). A plan's degree is the product of its actions'
(equation 5.3). New observations (a confirmed deal, a peace, the trust in a partner) come
as new beliefs and are merged by the belief review function of definition 18: a new
degree replaces the old one, old degrees without a new one are kept, and the result is
normalised as footnote 3 says: the distribution of minimum relative entropy with respect
to the old one that satisfies the new beliefs as constraints and sums to 1.

For constraints that fix the mass of disjoint sets of events (one event each in
definition 18; a set, such as "every attack on us", when a peace is agreed), the
minimum relative entropy distribution has a closed form (the I-projection): every set is
scaled to its new mass in proportion to its old degrees, and the events no constraint
names share what is left in proportion to theirs.

>>> {k: round(v, 3) for k, v in review({"hold": 0.5, "move": 0.3, "support": 0.2}, {"move": 0.8}).items()}
{'hold': 0.143, 'move': 0.8, 'support': 0.057}
>>> round(uncertainty([{"a": 0.5, "b": 0.5}, {"a": 1.0}]), 3)
0.5
"""

from __future__ import annotations

import math
import random
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

import engine.orders as eo
from engine.legal import legal_orders_for
from engine.position import Position, Unit

__all__ = ["Beliefs", "candidates", "degree", "normalise", "prior", "relative_entropy", "review", "uncertainty"]

K = TypeVar("K", bound=Hashable)
#: The degrees of the actions on one resource.
Distribution = Mapping[K, float]


def normalise(old: Mapping[K, float], blocks: Mapping[frozenset[K], float]) -> dict[K, float]:
    """The distribution of minimum relative entropy to ``old`` that gives each (disjoint) set of
    ``blocks`` its mass and sums to 1 (equations 5.1 and 5.2).

    Within a set, and among the events of no set, the degrees keep their old proportions;
    a set (or the rest) with no old mass shares its mass equally. Masses that add up to
    more than 1 cannot all hold: they are scaled down to sum 1 and the rest gets nothing.

    >>> normalise({"a": 0.2, "b": 0.2, "c": 0.6}, {frozenset({"a", "b"}): 0.1})
    {'a': 0.05, 'b': 0.05, 'c': 0.9}
    >>> normalise({"a": 1.0, "b": 0.0}, {frozenset({"a"}): 0.4})
    {'a': 0.4, 'b': 0.6}
    """
    fixed = math.fsum(blocks.values())
    scale = 1.0 / fixed if fixed > 1.0 else 1.0
    out: dict[K, float] = {}
    named: set[K] = set()
    for block, mass in blocks.items():
        named |= block
        members = [k for k in old if k in block] or sorted(block, key=repr)
        base = math.fsum(old.get(k, 0.0) for k in members)
        for k in members:
            out[k] = mass * scale * (old.get(k, 0.0) / base if base > 0 else 1.0 / len(members))
    rest = [k for k in old if k not in named]
    left = max(0.0, 1.0 - fixed * scale)
    base = math.fsum(old[k] for k in rest)
    for k in rest:
        out[k] = left * (old[k] / base if base > 0 else 1.0 / len(rest))
    if rest or not out:
        return {k: out[k] for k in (*old, *(k for k in out if k not in old))}
    total = math.fsum(out.values())  # every event constrained: the masses must make 1 by themselves
    return {k: v / total for k, v in out.items()} if total > 0 else out


def review(old: Mapping[K, float], new: Mapping[K, float]) -> dict[K, float]:
    """Definition 18, σ(B', B''), for the beliefs about one resource: new degrees replace old
    ones, old degrees are kept where nothing new is said, and the set is normalised by
    :func:`normalise` (each new degree a constraint on its own event)."""
    return normalise(old, {frozenset({k}): v for k, v in new.items()})


def relative_entropy(q: Mapping[K, float], p: Mapping[K, float]) -> float:
    """KL(q || p), the quantity :func:`normalise` minimises (infinite where q puts mass p does not)."""
    total = 0.0
    for k, v in q.items():
        if v <= 0:
            continue
        if p.get(k, 0.0) <= 0:
            return math.inf
        total += v * math.log(v / p[k])
    return total


def uncertainty(distributions: Iterable[Mapping[K, float]]) -> float:
    """Definition 21: the mean over resources of the entropy of their distribution, each
    divided by its largest possible value ln|φ| (a resource with one action adds 0)."""
    found = list(distributions)
    if not found:
        return 0.0
    total = 0.0
    for d in found:
        if len(d) > 1:
            total -= math.fsum(v * math.log(v) for v in d.values() if v > 0) / math.log(len(d))
    return total / len(found)


def degree(distributions: Mapping[Unit, Mapping[eo.Order, float]], plan: Iterable[tuple[Unit, eo.Order]]) -> float:
    """Equation 5.3: the degree of a plan is the product of the degrees of its actions."""
    out = 1.0
    for unit, order in plan:
        out *= distributions.get(unit, {}).get(order, 0.0)
    return out


def candidates(position: Position, unit: Unit) -> list[eo.Order]:
    """The actions HANA has beliefs about for a unit of another power: hold, or move to a
    neighbouring place (supports count as holds: the unit stays; convoys are not foreseen)."""
    moves: list[eo.Order] = []
    for order in legal_orders_for(position, unit):
        if isinstance(order, eo.Move) and not order.via_convoy and order not in moves:
            moves.append(order)
    return [eo.Hold(unit.type, unit.location), *moves]


def prior(ranked: Sequence[eo.Order], pass_on: float) -> dict[eo.Order, float]:
    """The degrees of actions ranked best first by their unit's own power: DumbBot's habit of
    passing on to the next candidate with probability ``pass_on`` gives the i-th
    candidate the degree (1 - q) q^i (the last takes what is left).

    >>> prior(["a", "b", "c"], 0.5)
    {'a': 0.5, 'b': 0.25, 'c': 0.25}
    """
    out: dict[eo.Order, float] = {}
    left = 1.0
    for i, order in enumerate(ranked):
        share = left if i == len(ranked) - 1 else left * (1.0 - pass_on)
        out[order] = share
        left -= share
    return out


@dataclass(frozen=True, slots=True)
class Beliefs:
    """The degrees of every action of the units of other powers that HANA considers, one
    distribution a unit (equation 5.1). A value: :meth:`revised` returns new beliefs."""

    of: Mapping[Unit, Mapping[eo.Order, float]]

    def revised(self, new: Mapping[Unit, Mapping[frozenset[eo.Order], float]]) -> Beliefs:
        """σ(B, new): the new masses of sets of actions, unit by unit (see :func:`normalise`)."""
        if not new:
            return self
        out = dict(self.of)
        for unit, blocks in new.items():
            if unit in out:
                out[unit] = normalise(out[unit], blocks)
        return Beliefs(out)

    def committed(self, actions: Mapping[Unit, eo.Order], degree: float = 1.0) -> Beliefs:
        """σ(B, {<β, a, degree>}): each action believed to happen with ``degree``. An action HANA
        had no belief about (a support: beliefs are about holds and moves) takes its
        place in the distribution of its unit."""
        out = dict(self.of)
        for unit, order in actions.items():
            old = dict(out.get(unit, {}))
            old.setdefault(order, 0.0)
            out[unit] = review(old, {order: degree})
        return Beliefs(out)

    def uncertainty(self) -> float:
        return uncertainty(self.of.values())

    def sample(self, rng: random.Random, units: Sequence[Unit]) -> dict[Unit, eo.Order]:
        """One joint action of ``units`` drawn from the beliefs (units taken in the given order)."""
        out: dict[Unit, eo.Order] = {}
        for unit in units:
            d = self.of.get(unit)
            if not d:
                continue
            orders = list(d)
            out[unit] = rng.choices(orders, weights=[d[o] for o in orders])[0]
        return out

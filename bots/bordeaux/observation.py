"""The observation module of the Bordeaux diplomat: friendliness, StabLimit and blocs.

Loeb's *The Observation Module* (Diplomatic Pouch, 1995): the module takes the adjudicated
orders of one season and the friendliness matrix, and returns the revised matrix, a 7 by 7
matrix of reals, positive for friendliness and negative for animosity. Trustworthiness is
kept apart, in StabLimit: "the observed minimum gain required for a country to violate its
agreements". From the matrix, alliance thresholds divide the powers into "about 4 blocs",
which the strategy finder takes as its alliances.

The evidence of one phase (:func:`evidence`), ``Δ[x][y]`` for what ``x`` did to ``y``
(the factors of the article, in its order; the constants are ours, in "friendliness
units", where one broken agreement costs 3):

* **Specific agreements** (``DMZ``, ``XDO``, ``NOT XDO``; here every part the compliance
  check reports on, ``pce`` and ``aly`` too, which the article lists among the factors "not
  yet implemented"): :data:`KEPT` for each part kept, minus :data:`BROKEN` for each part
  broken, toward each other participant of the deal. The reports are those of
  :func:`referee.compliance.check`.
* **Coordinated moves**: :data:`COORDINATION` for each support or convoy of another power's
  unit; a support or convoy that matched no order (``void``, the article's ``NSO``: "this
  may indicate a possible stab") costs :data:`REFUSED` instead.
* **Attacks** (:func:`referee.compliance.attacks`), by result: :data:`ATTACK` gives the
  penalty of an attack that dislodged the victim's unit (the article's ``RET``, "an
  especially big penalty"), that took the province (a successful advance), that cut a
  support of the victim (``CUT``), that bounced (``BNC``) or that failed (``FLD``); a
  support of an attacking move counts as the move does.
* **Movement**: each unit moved, retreated, built or removed, against every other power
  that owns centres: the change in ``f(d)`` where ``d`` is the distance (by the unit's
  own kind of moves) to that power's nearest centre, ``f(d) = 1 / (1 + d)²`` (our filter,
  with "first derivative negative, second positive": going from 1 to 0 counts 0.75, from 5
  to 4 counts 0.01), a built unit coming from and a removed unit going to infinity
  (``f = 0``); halved when the move failed; times :data:`APPROACH`, as a penalty for an
  approach and a bonus for a withdrawal.
* **Size** is not used (the article lists it as not implemented).

The season's update (:meth:`Friendliness.updated`):

* **History**: ``F ← HISTORY · F + Δ`` (the article's 70%);
* **Symmetry**: ``F ← (F + Fᵀ) / 2`` (the article writes ``F + Fᵀ``; halved, the matrix
  keeps its scale instead of doubling every season, which would make it grow without
  bound against a 70% history);
* **Transitivity**: ``F ← F + TRANSITIVITY · F²``, with a zero diagonal so that only third
  powers count: the friends of friends and the enemies of enemies become friends;
* **Bounded**: ``F ← LIMIT · tanh(F / LIMIT)``, so no entry ever leaves ``[-LIMIT, LIMIT]``.

A *season* here is a movement phase with the retreat and adjustment phases after it: the
evidence of those is kept and the update is made once, after the next movement phase.

**StabLimit** (:class:`StabLimits`): each power starts at :data:`DEFAULT_STAB_LIMIT`. A
breach for gain ``g`` (the breaker's value, in centres, with its orders against those it
would have given keeping the deal) sets it to ``min(StabLimit, g)``; a stab worth ``g``
that it refused raises it by ``RECOVERY · (g - StabLimit)`` when ``g`` is higher. The
article's example reads that the limit should stay low after a stab ("even if England
finally did make peace with France, the program would continue to anticipate that a stab
would be made under similar circumstances"), hence a slow recovery.

**Blocs** (:meth:`Friendliness.blocs`): pairs are joined in order of friendliness,
highest first, while their friendliness is at least :data:`ALLY_THRESHOLD` and more than
:data:`BLOCS` blocs remain (the alliance threshold is thus the friendliness of the last
pair joined, never below :data:`ALLY_THRESHOLD`). The mortal enemies of a bloc are the
powers whose mean friendliness with it is at most :data:`ENEMY_THRESHOLD`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import engine.orders as eo
from engine.maps import ARMY, FLEET
from engine.position import ADJUSTMENTS, MOVEMENT, RETREATS, Position, Unit
from engine.results import Result
from referee.compliance import Commitment, Report, attacks

__all__ = [
    "ALLY_THRESHOLD",
    "APPROACH",
    "ATTACK",
    "BLOCS",
    "BROKEN",
    "COORDINATION",
    "DEFAULT_STAB_LIMIT",
    "ENEMY_THRESHOLD",
    "Friendliness",
    "HISTORY",
    "KEPT",
    "LIMIT",
    "RECOVERY",
    "REFUSED",
    "StabLimits",
    "TRANSITIVITY",
    "evidence",
    "filtered",
]

#: Bonus for each part of a deal kept, and penalty for each broken (toward each other participant).
KEPT = 1.0
BROKEN = 3.0
#: Bonus for a support or convoy of another power's unit, and penalty when it matched no order (NSO).
COORDINATION = 1.0
REFUSED = 0.3
#: Penalty per attack by its result: dislodged (RET), advance, cut (CUT), bounce (BNC), failed (FLD).
ATTACK: Mapping[str, float] = {"dislodged": 2.0, "advance": 1.5, "cut": 1.0, "bounce": 0.8, "failed": 0.5}
#: Weight of the filtered change of distance to another power's centres (approach and withdrawal).
APPROACH = 1.0
#: Share of the last matrix carried into the next (the article's 70%).
HISTORY = 0.7
#: Weight of ``F²`` (friends of friends, enemies of enemies).
TRANSITIVITY = 0.05
#: No entry of the matrix leaves ``[-LIMIT, LIMIT]``.
LIMIT = 10.0
#: The lowest friendliness that joins two powers in a bloc, and the blocs to stop at ("about 4").
ALLY_THRESHOLD = 1.0
BLOCS = 4
#: The mean friendliness with a bloc at or below which a power is its mortal enemy.
ENEMY_THRESHOLD = -1.5
#: StabLimit of a power never seen breaking or refusing a stab (centres), and the pace of recovery.
DEFAULT_STAB_LIMIT = 2.0
RECOVERY = 0.1

Evidence = dict[tuple[str, str], float]
#: Adds evidence of the attitude of the first power to the second.
Add = Callable[[str, str, float], None]
Results = Mapping[Unit, Sequence[str]]


def filtered(distance: float) -> float:
    """The weight of a unit at ``distance`` moves from a power's nearest centre."""
    return 0.0 if math.isinf(distance) else 1.0 / (1.0 + distance) ** 2


@dataclass(frozen=True, slots=True)
class Friendliness:
    """The friendliness matrix: ``values[i][j]`` between ``powers[i]`` and ``powers[j]``,
    zero on the diagonal."""

    powers: tuple[str, ...]
    values: tuple[tuple[float, ...], ...]

    @classmethod
    def neutral(cls, powers: Sequence[str]) -> Friendliness:
        return cls(tuple(powers), tuple((0.0,) * len(powers) for _ in powers))

    def __call__(self, one: str, other: str) -> float:
        return self.values[self.powers.index(one)][self.powers.index(other)]

    def updated(self, delta: Mapping[tuple[str, str], float]) -> Friendliness:
        """The matrix after one season's evidence ``delta`` (see the module: history,
        symmetry, transitivity, bound)."""
        n = len(self.powers)
        index = {p: i for i, p in enumerate(self.powers)}
        raw = [[HISTORY * v for v in row] for row in self.values]
        for (x, y), d in delta.items():
            if x != y:
                raw[index[x]][index[y]] += d
        sym = [[(raw[i][j] + raw[j][i]) / 2 if i != j else 0.0 for j in range(n)] for i in range(n)]
        out = []
        for i in range(n):
            row = []
            for j in range(n):
                if i == j:
                    row.append(0.0)
                    continue
                third = sum(sym[i][k] * sym[k][j] for k in range(n) if k != i and k != j)
                row.append(LIMIT * math.tanh((sym[i][j] + TRANSITIVITY * third) / LIMIT))
            out.append(tuple(row))
        return Friendliness(self.powers, tuple(out))

    def blocs(self, alive: Iterable[str]) -> list[frozenset[str]]:
        """The blocs of the powers ``alive`` (see the module), each power in exactly one,
        in the order of the powers."""
        powers = [p for p in self.powers if p in set(alive)]
        parent = {p: p for p in powers}

        def root(p: str) -> str:
            while parent[p] != p:
                p = parent[p]
            return p

        pairs = sorted(
            ((self(a, b), a, b) for i, a in enumerate(powers) for b in powers[i + 1 :]),
            key=lambda t: (-t[0], self.powers.index(t[1]), self.powers.index(t[2])),
        )
        count = len(powers)
        for f, a, b in pairs:
            if f < ALLY_THRESHOLD or count <= BLOCS:
                break
            ra, rb = root(a), root(b)
            if ra != rb:
                parent[rb] = ra
                count -= 1
        groups: dict[str, set[str]] = {}
        for p in powers:
            groups.setdefault(root(p), set()).add(p)
        return sorted((frozenset(g) for g in groups.values()), key=lambda g: min(self.powers.index(p) for p in g))

    def enemies(self, bloc: frozenset[str], alive: Iterable[str]) -> frozenset[str]:
        """The mortal enemies of ``bloc`` among the powers ``alive``."""
        return frozenset(
            p for p in alive if p not in bloc and sum(self(m, p) for m in bloc) / len(bloc) <= ENEMY_THRESHOLD
        )


@dataclass(frozen=True, slots=True)
class StabLimits:
    """StabLimit of each power, in supply centres; unknown powers are at the default."""

    limits: Mapping[str, float] = field(default_factory=dict)

    def __call__(self, power: str) -> float:
        return self.limits.get(power, DEFAULT_STAB_LIMIT)

    def after_breach(self, power: str, gain: float) -> StabLimits:
        return StabLimits({**self.limits, power: min(self(power), gain)})

    def after_refusal(self, power: str, gain: float) -> StabLimits:
        now = self(power)
        return StabLimits({**self.limits, power: now + RECOVERY * (gain - now)}) if gain > now else self


# --- the evidence of one phase -----------------------------------------------------------------------


def evidence(
    before: Position,
    orders: Mapping[str, Sequence[eo.Order]],
    results: Results,
    reports: Sequence[Report] = (),
    commitments: Sequence[Commitment] = (),
) -> Evidence:
    """``Δ[(x, y)]``: what the phase played from ``before`` with ``orders`` (by power;
    ``results`` the adjudicator's words) says of ``x``'s attitude to ``y``;
    ``reports`` are the compliance reports on ``commitments`` (see the module)."""
    delta: Evidence = {}

    def add(x: str, y: str, d: float) -> None:
        if x != y:
            delta[(x, y)] = delta.get((x, y), 0.0) + d

    for report in reports:
        for q in commitments[report.commitment].participants:
            add(report.power, q, KEPT if report.kept else -BROKEN)
    kind = before.phase.kind
    if kind == MOVEMENT:
        _coordination(before, orders, results, add)
        _attacks(before, orders, results, add)
    _movement(before, orders, results, add)
    return delta


def _coordination(before: Position, orders: Mapping[str, Sequence[eo.Order]], results: Results, add: Add) -> None:
    province_of = before.map.province_of
    for power, given in orders.items():
        for order in given:
            if not isinstance(order, eo.SupportHold | eo.SupportMove | eo.Convoy):
                continue
            unit = before.unit_at.get(province_of[order.location])
            source = order.army_location if isinstance(order, eo.Convoy) else order.supported_location
            helped = before.unit_at.get(province_of[source])
            if unit is None or unit.power != power or helped is None or helped.power == power:
                continue
            add(power, helped.power, -REFUSED if Result.VOID in results.get(unit, ()) else COORDINATION)


def _attacks(before: Position, orders: Mapping[str, Sequence[eo.Order]], results: Results, add: Add) -> None:
    m = before.map
    province_of = m.province_of
    for attack in attacks(before, orders):
        target = province_of[m.location(attack.province)]
        for order in orders.get(attack.attacker, ()):
            mover = _mover(before, attack.attacker, order, target)
            if mover is not None:
                add(attack.attacker, attack.victim, -ATTACK[_outcome(before, results, mover, target, attack.victim)])


def _mover(before: Position, power: str, order: eo.Order, target: int) -> Unit | None:
    """The unit whose move into ``target`` ``order`` of ``power`` makes or helps, if any."""
    province_of = before.map.province_of
    unit = before.unit_at.get(province_of[order.location]) if not isinstance(order, eo.Waive) else None
    if unit is None or unit.power != power:
        return None
    if isinstance(order, eo.Move) and province_of[order.destination] == target:
        return unit
    if isinstance(order, eo.SupportMove | eo.Convoy) and province_of[order.destination] == target:
        source = order.supported_location if isinstance(order, eo.SupportMove) else order.army_location
        return before.unit_at.get(province_of[source])
    return None


def _outcome(before: Position, results: Results, mover: Unit, target: int, victim: str) -> str:
    """How the attack of ``mover`` into ``target`` on ``victim`` ended (a key of :data:`ATTACK`)."""
    words = results.get(mover, ())
    defender = before.unit_at.get(target)
    held = results.get(defender, ()) if defender is not None and defender.power == victim else ()
    if Result.OK in words:
        return "dislodged" if Result.DISLODGED in held else "advance"
    if Result.CUT in held:
        return "cut"
    return "bounce" if Result.BOUNCE in words else "failed"


def _nearest(table: tuple[tuple[int, ...], ...], start: int, centres: Sequence[int]) -> float:
    """The fewest moves from location ``start`` (-1: from nowhere) to any of ``centres``, by a row of
    :meth:`engine.maps.Map.unit_distances`; infinite when none can be reached."""
    if start < 0:
        return math.inf
    row = table[start]
    return min(row[c] if row[c] >= 0 else math.inf for c in centres)


def _movement(before: Position, orders: Mapping[str, Sequence[eo.Order]], results: Results, add: Add) -> None:
    m = before.map
    # by location: a fleet on one coast of a province is not on the other
    tables = (m.unit_distances(ARMY, coasts=True), m.unit_distances(FLEET, coasts=True))
    owned: dict[str, list[int]] = {}
    for p, owner in enumerate(before.centers):
        if owner is not None:
            owned.setdefault(owner, []).append(p)
    kind = before.phase.kind
    for power, given in orders.items():
        for order in given:
            step = _step(before, power, order, results, kind)
            if step is None:
                continue
            unit_type, start, end, weight = step
            for other, centres in owned.items():
                if other == power:
                    continue
                near_before = _nearest(tables[unit_type], start, centres)
                near_after = _nearest(tables[unit_type], end, centres)
                change = filtered(near_after) - filtered(near_before)
                if change:
                    add(power, other, -APPROACH * weight * change)


def _step(
    before: Position, power: str, order: eo.Order, results: Results, kind: str
) -> tuple[int, int, int, float] | None:
    """A unit's change of place: (unit type, from, to, weight); -1 for nowhere (built or removed)."""
    if isinstance(order, eo.Waive):
        return None
    unit_type = ARMY if order.type is None else order.type
    if kind == MOVEMENT and isinstance(order, eo.Move):
        unit = before.unit_at.get(before.map.province_of[order.location])
        if unit is None or unit.power != power:
            return None
        return unit.type, unit.location, order.destination, 1.0 if Result.OK in results.get(unit, ()) else 0.5
    if kind == RETREATS and isinstance(order, eo.Retreat | eo.Disband):
        unit = Unit(power, unit_type, order.location)
        if not any(d.unit == unit for d in before.dislodged):
            return None
        return unit_type, order.location, order.destination if isinstance(order, eo.Retreat) else -1, 1.0
    if kind == ADJUSTMENTS and isinstance(order, eo.Build):
        return unit_type, -1, order.location, 1.0
    if kind == ADJUSTMENTS and isinstance(order, eo.Disband):
        return unit_type, order.location, -1, 1.0
    return None

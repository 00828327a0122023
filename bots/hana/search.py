"""HANA's plan search (thesis section 5.3): an anytime genetic search over complete and joint plans.

**Plans.** A plan gives every unit of ours an order (a complete plan); a *joint* plan also
asks other powers' units for orders (definition 22): here, a support of one of our
orders, the kind of action a bilateral deal can trade. Our genes are the unit's hold, its
moves to neighbouring places (no convoys) and its supports of our own units; the genes a
commitment forbids are struck off (a promised order is the unit's only gene; a peace
strikes off every attack on the partner, a demilitarised zone every move into it), so
every plan in the ranking honours the commitments obtained so far.

**Value.** The utility of a position (U_α) is what DumbBot's destination values
(:mod:`bots.dumbbot`) say the places our units end in are worth, a dislodged unit
counting as the worst place it could have reached, scaled into [0, 1] by the worst and
best the units could do; an intention to attack a power (an emotion's, section 5.2)
adds ``revenge_weight`` per unit of intention for each of its units dislodged and each
of its centres we enter. The expected utility of a plan (equation 5.4, definition 20)
is the mean utility over ``samples`` joint actions of the other powers drawn from the
beliefs revised with the plan's own actions at degree 1 (σ(B, {<a, 1> | a ∈ p})), each
adjudicated by the engine. The samples are drawn once per round from a seed of the
round (common random numbers: every plan of a round is judged on the same futures).
Only the units of other powers within two provinces of ours are drawn; the rest hold.

**Search.** A steady-state genetic algorithm (the thesis's choice): fitness-proportionate
selection, uniform crossover of the genes, mutation of each gene with probability
1/units, a separate mutation that adds (or drops, the "void" gene) another power's
support, repair of infeasible supports (a support of an order the plan does not give
becomes a hold), and elitism: the population is the best ``population`` plans found.
The population survives from round to round and is re-evaluated when the beliefs
change, so the search resumes where it stopped. Its budget is counted in *nodes*, one
node being the evaluation of one new plan (``samples`` adjudications), so that a seeded
game replays exactly whatever the machine's speed.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import engine.orders as eo
from bots.dumbbot import DumbBot, _Appraisal
from bots.hana.beliefs import Beliefs
from engine.movement import adjudicate_movement
from engine.position import Position, Unit

__all__ = ["Evaluator", "Plan", "PlanSearch", "Ranked"]

Genes = Mapping[Unit, Sequence[eo.Order]]
#: Other powers' supports that could help each of our orders: (our unit, our order) -> [(their unit, support)].
Helpers = Mapping[tuple[Unit, eo.Order], Sequence[tuple[Unit, eo.Order]]]


@dataclass(frozen=True, slots=True)
class Plan:
    """Our orders by unit (complete), and the other powers' orders the plan needs (``help``)."""

    orders: tuple[tuple[Unit, eo.Order], ...]
    help: tuple[tuple[Unit, eo.Order], ...] = ()

    @property
    def joint(self) -> bool:
        return bool(self.help)

    def own(self) -> Plan:
        """The complete plan of ours inside a joint plan."""
        return Plan(self.orders)

    def order_of(self, unit: Unit) -> eo.Order | None:
        return next((o for u, o in self.orders if u == unit), None)


@dataclass(frozen=True, slots=True)
class Ranked:
    """A plan of the ranking: its expected utility and confidence (definition 23)."""

    plan: Plan
    utility: float
    confidence: float


def values_of(position: Position, power: str) -> _Appraisal:
    """DumbBot's destination values of ``position`` for ``power`` (its season's weights)."""
    return _Appraisal(position, power, DumbBot.season_weights(position), DumbBot.SIZE)


@dataclass
class Evaluator:
    """U_α and E[U_α] of plans, for one phase (see the module)."""

    position: Position
    power: str
    value: _Appraisal
    revenge: Mapping[str, float] = field(default_factory=dict)  # power -> intention to attack it
    revenge_weight: float = 0.0
    nodes: int = 0  # plans evaluated so far

    def __post_init__(self) -> None:
        g = self.value.geometry
        m = self.position.map
        self.ours = self.position.units_of(self.power)
        self.low: dict[Unit, float] = {}
        high = 0.0
        for u in self.ours:
            here = g.node[u.type][u.location]
            worth = [self.value(n) for n in (here, *g.neighbours[here])]
            self.low[u] = min(worth)
            high += max(worth)
        self.floor = math.fsum(self.low.values())
        self.span = max(high - self.floor, 1e-9)
        within = m.within(2)
        near = set().union(*(within[m.province_of[u.location]] for u in self.ours))
        #: the units of other powers that can touch ours this phase, in a fixed order
        others = (u for u in self.position.units if u.power != self.power and m.province_of[u.location] in near)
        self.nearby = sorted(others, key=lambda u: (u.location, u.power))
        centres = enumerate(self.position.centers)
        self.centre_owner = {p: o for p, o in centres if o is not None and m.is_supply_center[p]}

    def utility(self, units: Iterable[Unit], dislodged: Iterable[Unit]) -> float:
        """U_α of a position after the phase: our units' places (see the module), in [0, 1]."""
        g = self.value.geometry
        province_of = self.position.map.province_of
        raw = 0.0
        bonus = 0.0
        revenge = self.revenge
        for u in units:
            if u.power == self.power:
                raw += self.value(g.node[u.type][u.location])
                owner = self.centre_owner.get(province_of[u.location])
                if owner is not None and owner in revenge:
                    bonus += revenge[owner]
        for d in dislodged:
            if d.power == self.power:
                raw += self.low.get(d, 0.0)
            elif d.power in revenge:
                bonus += revenge[d.power]
        base = (raw - self.floor) / self.span
        if not revenge or not self.revenge_weight:
            return base
        scale = self.revenge_weight / max(len(self.ours), 1)
        top = scale * 2 * max(revenge.values()) * max(len(self.ours), 1)
        return (base + scale * bonus) / (1.0 + top)

    def samples(self, beliefs: Beliefs, seed: int, count: int) -> list[dict[Unit, eo.Order]]:
        """``count`` joint actions of the nearby units of other powers, drawn from ``beliefs``."""
        rng = random.Random(seed)
        return [beliefs.sample(rng, self.nearby) for _ in range(count)]

    def expected(self, plan: Plan, futures: Sequence[Mapping[Unit, eo.Order]]) -> float:
        """E[U_α(ω, σ(B, p))]: the mean utility of ``plan`` over ``futures`` with the plan's
        help taken as done (degree 1)."""
        self.nodes += 1
        ours = [o for _, o in plan.orders]
        helped = dict(plan.help)
        total = 0.0
        for future in futures:
            by_power: dict[str, list[eo.Order]] = {self.power: ours}
            for unit, order in future.items():
                by_power.setdefault(unit.power, []).append(helped.get(unit, order))
            for unit, order in plan.help:
                if unit not in future:
                    by_power.setdefault(unit.power, []).append(order)
            outcome = adjudicate_movement(self.position, by_power)
            total += self.utility(outcome.units, (d.unit for d in outcome.dislodged))
        return total / max(len(futures), 1)


class PlanSearch:
    """The anytime search of one movement phase (see the module). Not thread-safe: the bot
    calls :meth:`step` with a node budget each round."""

    def __init__(
        self,
        position: Position,
        genes: Genes,
        helpers: Helpers,
        rng: random.Random,
        seeds: Iterable[Plan] = (),
        population: int = 10,
        help_rate: float = 0.3,
    ) -> None:
        self.position = position
        self.genes = {u: list(v) for u, v in genes.items()}
        self.helpers = helpers
        self.rng = rng
        self.size = population
        self.help_rate = help_rate
        self.units = sorted(self.genes, key=lambda u: u.location)
        self.scores: dict[Plan, float] = {}  # the plans evaluated since the beliefs last changed
        self.population: list[Plan] = []
        for plan in seeds:
            plan = self.repair(plan)
            if plan not in self.population:
                self.population.append(plan)

    # --- feasibility -------------------------------------------------------------------------

    def constrain(self, genes: Genes) -> None:
        """New commitments: fewer genes. Every plan is repaired to them and rescored later."""
        self.genes = {u: list(v) for u, v in genes.items()}
        repaired: list[Plan] = []
        for plan in self.population:
            plan = self.repair(plan)
            if plan not in repaired:
                repaired.append(plan)
        self.population = repaired
        self.scores = {}

    def forget(self) -> None:
        """The beliefs changed: every plan must be evaluated again."""
        self.scores = {}

    def repair(self, plan: Plan, genes: Genes | None = None) -> Plan:
        """The nearest feasible plan (under ``genes``, by default the search's): genes no
        longer allowed become the unit's first gene, a support of an order of ours not given
        becomes a hold, help for orders not given is dropped."""
        m = self.position.map
        province_of = m.province_of
        genes = self.genes if genes is None else genes
        chosen = dict(plan.orders)
        for u in self.units:
            allowed = genes[u]
            if chosen.get(u) not in allowed:
                chosen[u] = allowed[0]
        by_location = {u.location: u for u in self.units}
        for _ in range(2):  # a support turned into a hold may make another support feasible
            for u in self.units:
                order = chosen[u]
                if isinstance(order, eo.SupportMove | eo.SupportHold):
                    target = by_location.get(order.supported_location)
                    if target is None:
                        continue  # a support promised to another power's unit
                    given = chosen.get(target)
                    if isinstance(order, eo.SupportMove):
                        to = province_of[order.destination]
                        ok = isinstance(given, eo.Move) and province_of[given.destination] == to
                    else:
                        ok = given is not None and not isinstance(given, eo.Move)
                    if not ok:
                        hold = eo.Hold(u.type, u.location)
                        chosen[u] = hold if hold in genes[u] else genes[u][0]
        orders = tuple((u, chosen[u]) for u in self.units)
        help_ = []
        used: set[Unit] = set()
        for unit, support in plan.help:
            target = by_location.get(support.supported_location)  # type: ignore[attr-defined]
            if target is None or unit in used:
                continue
            if (unit, support) in self.helpers.get((target, chosen[target]), ()):
                help_.append((unit, support))
                used.add(unit)
        return Plan(orders, tuple(sorted(help_, key=lambda h: h[0].location)))

    # --- the genetic operators ------------------------------------------------------------------

    def _select(self, fitness: Sequence[float]) -> Plan:
        low = min(fitness)
        weights = [f - low + 1e-3 for f in fitness]
        return self.rng.choices(self.population, weights=weights)[0]

    def _child(self, fitness: Sequence[float]) -> Plan:
        """A complete plan: two parents, uniform crossover, mutation, repair."""
        rng = self.rng
        a, b = self._select(fitness), self._select(fitness)
        da, db = dict(a.orders), dict(b.orders)
        chosen = {u: (da[u] if rng.random() < 0.5 else db[u]) for u in self.units}
        rate = 1.0 / max(len(self.units), 1)
        for u in self.units:
            if rng.random() < rate:
                chosen[u] = rng.choice(self.genes[u])
        return self.repair(Plan(tuple(chosen.items())))

    def _extension(self, fitness: Sequence[float], joint: Sequence[Plan]) -> Plan | None:
        """A joint plan: a complete plan of the population (or a joint plan found before)
        with one more (or one other) support of another power, or one fewer (the void gene)."""
        rng = self.rng
        base = self._select(fitness)
        if joint and rng.random() < 0.5:
            base = rng.choice(joint)
        chosen = dict(base.orders)
        help_ = dict(base.help)
        if help_ and rng.random() < 0.25:
            del help_[rng.choice(sorted(help_, key=lambda x: x.location))]
        else:
            open_ = [u for u in self.units if self.helpers.get((u, chosen[u]))]
            if not open_:
                return None
            u = rng.choice(open_)
            unit, support = rng.choice(list(self.helpers[(u, chosen[u])]))
            help_ = {k: v for k, v in help_.items() if getattr(v, "supported_location", None) != u.location}
            help_[unit] = support
        return self.repair(Plan(base.orders, tuple(help_.items())))

    # --- the anytime loop -------------------------------------------------------------------------

    def step(self, score: Callable[[Plan], float], budget: int) -> int:
        """Search on for ``budget`` nodes (new plans evaluated) at most; the nodes used.

        The population holds complete plans; with probability ``help_rate`` a step extends
        one of them (or a joint plan found earlier) into a joint plan instead, which goes to
        the ranking, not the population: the joint plans are extensions of the best
        complete plans, as section 5.3 has it."""
        used = 0
        for plan in self.population:
            if plan not in self.scores and used < budget:
                self.scores[plan] = score(plan)
                used += 1
        self.population = [p for p in self.population if p in self.scores]
        attempts = 0
        while used < budget and attempts < 4 * budget and self.population:
            attempts += 1
            fitness = [self.scores[p] for p in self.population]
            if self.helpers and self.rng.random() < self.help_rate:
                joint = [p for p in self.scores if p.joint]
                child = self._extension(fitness, joint)
                if child is None or child in self.scores:
                    continue
                self.scores[child] = score(child)
                used += 1
                continue
            child = self._child(fitness)
            if child in self.scores:
                continue  # nothing new: costs no node
            self.scores[child] = score(child)
            used += 1
            self.population.append(child)
            self.population.sort(key=lambda p: -self.scores[p])
            del self.population[self.size :]
        return used

    def ranking(self, confidence: Callable[[Plan], float], least: float = 0.0) -> list[Ranked]:
        """The plan ranking P^t_α: every plan evaluated with the current beliefs, best first,
        joint plans below the confidence ``least`` filtered out (section 5.3)."""
        out = []
        for plan, utility in self.scores.items():
            c = confidence(plan) if plan.joint else 1.0
            if c >= least:
                out.append(Ranked(plan, utility, c))
        out.sort(key=lambda r: (-r.utility, len(r.plan.help)))
        return out

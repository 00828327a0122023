"""The agents of the DipGame thesis's experiment (Fabregues 2012, section 6.6), on DumbBot's values.

Two agents share one game strategy (section 6.6.2), so that a difference between them is
the negotiation's: ``thesis66:nonego`` (:class:`Thesis66NoNego`) only plays it;
``thesis66`` (:class:`Thesis66`) also proposes supports and accepts a proposal only when it
leaves its plan as good (section 6.6.3).

**The game strategy** (6.6.2). Every place gets a *destination value*: DumbBot's
(:mod:`bots.dumbbot`, reused through its public and protected methods, not copied), with
the thesis's changes: the values spread over 5 steps instead of 10 (the first five
proximity weights of each season), and no coin flipping (``PLAY_ALTERNATIVE = 0``: DumbBot's
retreats, builds and removals then always take the best). A movement *plan* gives every
unit an order:

1. the orders of the optional input plan come first (:meth:`ThesisStrategy.plan`, ``fixed``);
2. then, the unit with the most valuable reachable place first, each unit holds if no
   neighbouring place is worth more than its own, and otherwise moves to the most valuable
   neighbouring place (ties drawn at random, one draw sequence per phase so that a plan is
   the same each time it is asked for). A unit neither moves into a province another of
   our units already goes to or stays in, nor swaps places with one of ours (without
   convoys two units cannot swap); a move into a province where one of ours then stays
   becomes a hold. These rules of collision are ours: the thesis does not say how its
   units avoid each other;
3. holds are reviewed: a holding unit supports the most valuable of our orders (a move,
   or a unit staying) whose *strength* (1 + its supports, ours and those other powers
   promised) is at most the *competence* of its destination (the most units one other
   power has in or next to the province), again until no hold changes.

The *utility* of a plan is the sum of the destination values of the places its units are
in if every order succeeds; its *risk* is the number of its orders whose strength is at
most the competence of their destination, plus, for the orders of other powers we
promised to support, one for each that goes to (or holds) a province where one of our
units ends the phase or a supply centre we own (the thesis counts conflicts among orders
and does not say more; without this term an agent would help anyone into its own centres).

**The negotiation** (6.6.3), in movement phases, level 1 of L. The options are the supports
other powers' units could give to our orders at risk: a unit of power X that can reach the
destination of the order, X having no unit there and not owning it as a centre. They are
ranked by whether the support would end the risk (strength + 1 > competence), then by the
value of the destination. The agent proposes the best option not yet proposed this phase,
one proposal at a time, to powers not known to be silent::

    propose(fra, [ger], [Commit(fra, [ger], Do(mto(Unit(fra, Region(bur, amy)), Region(mun, amy))))
                         Commit(ger, [fra], Do(sup(Unit(ger, Region(ruh, amy)), mto(Unit(fra, Region(bur, amy)), Region(mun, amy)))))])

and the next when it is rejected or confirmed, or when a whole round passed without an
answer: then the power is taken for one that does not negotiate (*silent*) until it says
something. A received proposal of orders (``Commit(me, ..., Do(order))`` and the proposer's
own ``Do``s) is accepted when every order of ours is legal and fits our commitments so far,
and the plan the strategy completes from those orders (plus the commitments so far) is at
least as good as the plan without them: utility no lower and risk no higher. Anything else
is rejected. Confirmed deals are kept: their orders of ours are the input plan of the
orders given, the supports promised to us count in the strengths.

>>> import random
>>> from engine import Position, format_order, legal_orders
>>> start = Position.initial()
>>> bot = Thesis66NoNego(random.Random(1))
>>> bot.start("FRA", start.map)
>>> sorted(format_order(start.map, o) for o in bot.orders(start, legal_orders(start, "FRA")))
['A MAR - SPA', 'A PAR - BUR', 'F BRE - MAO']
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

import engine.orders as eo
from bots.base import LegalOrders, Outgoing
from bots.dumbbot import DumbBot, Weights
from engine.legal import legal_orders_for
from engine.position import MOVEMENT, Position, Unit
from protocol.l import LError, parse, to_text
from protocol.l import ast as a
from protocol.l.actions import ActionError, action_from_order, order_from_action

__all__ = ["Option", "Plan", "Thesis66", "Thesis66NoNego", "ThesisStrategy"]

#: The steps over which destination values spread (DumbBot: 10).
SPREAD_STEPS = 5
EPSILON = 1e-9


def _five_steps(weights: Weights) -> Weights:
    return replace(weights, proximity=weights.proximity[:SPREAD_STEPS])


@dataclass(frozen=True, slots=True)
class Plan:
    """A complete plan of one power for a movement phase, and how good it is.

    ``orders`` has an order for every unit; ``ends`` the province each unit is in if its
    order succeeds; ``strength`` of each unit's order, supports promised included.
    """

    orders: Mapping[Unit, eo.Order]
    ends: Mapping[Unit, int]
    strength: Mapping[Unit, int]
    utility: float
    risk: int

    def at_least_as_good_as(self, other: Plan) -> bool:
        """The thesis's test: utility no lower, risk of conflicts no higher."""
        return self.utility >= other.utility - EPSILON and self.risk <= other.risk


@dataclass(frozen=True, slots=True)
class Option:
    """A negotiating option: our ``order`` of ``unit``, to be supported by ``supporter`` (another power's)."""

    unit: Unit
    order: eo.Order
    supporter: Unit
    support: eo.Order
    resolves: bool
    worth: float


@dataclass
class _Commitments:
    """What the confirmed (or, for our acceptances, accepted) deals of the phase bind."""

    ours: dict[Unit, eo.Order] = field(default_factory=dict)  # our units' orders
    promised: dict[tuple[int, int], int] = field(default_factory=dict)  # (our location, end province) -> supports
    foreign: set[int] = field(default_factory=set)  # provinces other powers' orders we support go to
    deals: set[str] = field(default_factory=set)  # their texts


class ThesisStrategy(DumbBot):
    """The game strategy of section 6.6.2 (see the module); plays without negotiating."""

    name = "thesis66:nonego"
    negotiates = False

    PLAY_ALTERNATIVE: ClassVar[int] = 0
    SPRING: ClassVar[Weights] = _five_steps(DumbBot.SPRING)
    FALL: ClassVar[Weights] = _five_steps(DumbBot.FALL)
    WINTER: ClassVar[Weights] = _five_steps(DumbBot.WINTER)

    def __init__(self, rng: random.Random | None = None) -> None:
        super().__init__(rng)
        self._phase_key: str | None = None
        self._captured: Any = None
        self._value: Any = None  # DumbBot's values of the phase (its appraisal)
        self._near: dict[int, dict[str, int]] = {}
        self._tie_seed = 0
        self._commitments = _Commitments()
        self._plans: dict[Any, Plan] = {}  # the plans of the phase, by what they start from

    # --- the phase's values ------------------------------------------------------------------

    def _movement(self, position: Position, units: list[Unit], value: Any) -> list[eo.Order]:
        """DumbBot calls this in a movement phase with its values: we keep them (see :meth:`_values`)."""
        self._captured = value
        return []

    def _values(self, position: Position) -> Any:
        """DumbBot's values of ``position`` for our power, computed once per phase, and the
        phase's competence counts and draw of ties."""
        key = f"{position.phase} {self.power}"
        if key != self._phase_key:
            self._captured = None
            DumbBot.orders(self, position, dict.fromkeys(position.units_of(self.power), ()))
            if self._captured is None:
                raise RuntimeError(
                    "DumbBot.orders no longer hands its values to _movement: bots/thesis66 needs updating"
                )
            self._value = self._captured
            reach = position.map.reach
            province_of = position.map.province_of
            near: dict[int, dict[str, int]] = {}
            for u in position.units:
                for p in (province_of[u.location], *reach[u.type][u.location]):
                    counts = near.setdefault(p, {})
                    counts[u.power] = counts.get(u.power, 0) + 1
            self._near = near
            self._tie_seed = self.rng.getrandbits(64)
            self._phase_key = key
            self._commitments = _Commitments()
            self._plans = {}
        return self._value

    def competence(self, province: int) -> int:
        """The most units one other power has in or next to ``province`` (this phase)."""
        counts = self._near.get(province, {})
        return max((k for power, k in counts.items() if power != self.power), default=0)

    # --- the plan ------------------------------------------------------------------------------

    def plan(
        self,
        position: Position,
        fixed: Mapping[Unit, eo.Order] | None = None,
        promised: Mapping[tuple[int, int], int] | None = None,
        foreign: Iterable[int] = (),
    ) -> Plan:
        """The complete plan of a movement phase, starting from the orders ``fixed``.

        ``promised`` counts the supports other powers promised, by our unit's location and
        the province it ends in; ``foreign`` are the provinces the orders of other powers
        that we support go to (they count in the risk).
        """
        value = self._values(position)
        fixed = dict(fixed or {})
        promised = promised or {}
        foreign = frozenset(foreign)
        key = (frozenset(fixed.items()), frozenset(promised.items()), foreign)
        found = self._plans.get(key)
        if found is None:
            found = self._plans[key] = self._plan(position, value, fixed, promised, foreign)
        return found

    def _plan(
        self,
        position: Position,
        value: Any,
        fixed: dict[Unit, eo.Order],
        promised: Mapping[tuple[int, int], int],
        foreign: frozenset[int],
    ) -> Plan:
        g = value.geometry
        m = position.map
        reach, province_of = m.reach, m.province_of
        units = position.units_of(self.power)
        here = {u: g.node[u.type][u.location] for u in units}
        orders: dict[Unit, eo.Order] = {}
        ends: dict[Unit, int] = {}  # unit -> the node it ends in
        claimed: dict[int, Unit] = {}  # province -> our unit that ends there
        for u in units:
            order = fixed.get(u)
            if order is None:
                continue
            orders[u] = order
            if isinstance(order, eo.Move):
                ends[u] = g.node[u.type][order.destination]
            else:
                ends[u] = here[u]
            claimed[g.province[ends[u]]] = u

        free = [u for u in units if u not in fixed]
        best = {u: max(value(n) for n in (here[u], *g.neighbours[here[u]])) for u in free}
        free.sort(key=lambda u: (-best[u], u.location))
        ties = random.Random(self._tie_seed)
        for u in free:
            h = here[u]
            own = province_of[u.location]
            options = []
            for n in g.neighbours[h]:
                p = g.province[n]
                other = claimed.get(p)
                if other is not None:
                    continue
                occupant = next((w for w in orders if province_of[w.location] == p), None)
                if occupant is not None and g.province[ends[occupant]] == own:
                    continue  # a swap with one of ours bounces
                options.append(n)
            top = max((value(n) for n in options), default=-math.inf)
            if own not in claimed and value(h) >= top:
                orders[u], ends[u] = eo.Hold(u.type, u.location), h
            elif options:
                chosen = ties.choice([n for n in options if value(n) == top])
                orders[u], ends[u] = eo.Move(u.type, u.location, g.location[chosen]), chosen
            else:
                orders[u], ends[u] = eo.Hold(u.type, u.location), h
            claimed.setdefault(g.province[ends[u]], u)

        # a move into a province where one of ours stays becomes a hold (and so on)
        bumped = True
        while bumped:
            bumped = False
            staying = {province_of[w.location] for w in units if not isinstance(orders[w], eo.Move)}
            for u in units:
                if u in fixed or not isinstance(orders[u], eo.Move):
                    continue
                if g.province[ends[u]] in staying:
                    orders[u], ends[u] = eo.Hold(u.type, u.location), here[u]
                    bumped = True

        strength = {u: 1 + promised.get((u.location, g.province[ends[u]]), 0) for u in units}
        by_location = {u.location: u for u in units}
        for order in orders.values():  # the supports of the input plan to our own units
            if isinstance(order, eo.SupportHold | eo.SupportMove):
                target = by_location.get(order.supported_location)
                if target is not None:
                    end = order.destination if isinstance(order, eo.SupportMove) else province_of[target.location]
                    if g.province[ends[target]] == end:
                        strength[target] += 1

        holders = [u for u in free if isinstance(orders[u], eo.Hold)]
        changed = True
        while changed:
            changed = False
            for s in holders:
                if not isinstance(orders[s], eo.Hold):
                    continue
                reachable = reach[s.type][s.location]
                pick: tuple[float, int, Unit] | None = None
                for t in units:
                    if t == s:
                        continue
                    p = g.province[ends[t]]
                    if p not in reachable or strength[t] > self.competence(p):
                        continue
                    key = (value(ends[t]), -t.location, t)
                    if pick is None or key[:2] > pick[:2]:
                        pick = key
                if pick is None:
                    continue
                t = pick[2]
                if isinstance(orders[t], eo.Move):
                    dest = g.province[ends[t]]
                    orders[s] = eo.SupportMove(s.type, s.location, t.type, t.location, dest)
                else:
                    orders[s] = eo.SupportHold(s.type, s.location, t.type, t.location)
                strength[t] += 1
                changed = True

        end_province = {u: g.province[n] for u, n in ends.items()}
        risk = sum(1 for u in units if strength[u] <= self.competence(end_province[u]))
        ours = set(end_province.values()) | {p for p, owner in enumerate(position.centers) if owner == self.power}
        risk += sum(1 for p in foreign if p in ours)
        utility = math.fsum(value(ends[u]) for u in units)
        return Plan({u: orders[u] for u in units}, end_province, strength, utility, risk)

    # --- orders ----------------------------------------------------------------------------------

    def orders(self, position: Position, legal: LegalOrders) -> list[eo.Order]:
        if position.phase.kind != MOVEMENT:
            return super().orders(position, legal)
        self._values(position)
        c = self._commitments
        return list(self.plan(position, c.ours, c.promised, c.foreign).orders.values())


class Thesis66NoNego(ThesisStrategy):
    """The thesis's non-negotiating agent: the game strategy alone."""

    name = "thesis66:nonego"


class Thesis66(ThesisStrategy):
    """The thesis's negotiating agent: the game strategy, support proposals, the acceptance rule."""

    name = "thesis66"
    negotiates = True

    def __init__(self, rng: random.Random | None = None) -> None:
        super().__init__(rng)
        self.silent: set[str] = set()  # powers that did not answer a proposal
        self._proposed: set[tuple[Unit, eo.Order, Unit]] = set()  # options proposed this phase
        self._pending: tuple[str, str, int] | None = None  # (deal text, power, round sent)
        self._reserved: dict[Unit, eo.Order] = {}  # our orders in our pending proposal
        self._round = 0
        self._fresh = False  # whether the frames read now are of this phase (its "phase" frame came)
        self._legal: dict[Unit, frozenset[eo.Order]] = {}  # our units' legal orders this phase

    # --- proposing -----------------------------------------------------------------------------

    def options(self, position: Position, plan: Plan) -> list[Option]:
        """The negotiating options of ``plan``, best first (see the module)."""
        m = position.map
        reach, province_of = m.reach, m.province_of
        found: list[Option] = []
        value = self._values(position)
        g = value.geometry
        for unit, order in plan.orders.items():
            p = plan.ends[unit]
            competence = self.competence(p)
            if plan.strength[unit] > competence:
                continue
            owner = position.centers[p] if m.is_supply_center[p] else None
            worth = value(g.node[unit.type][order.destination if isinstance(order, eo.Move) else unit.location])
            for v in position.units:
                if v.power == self.power or v.power == owner or p not in reach[v.type][v.location]:
                    continue
                if any(w.power == v.power and province_of[w.location] == p for w in position.units):
                    continue
                if isinstance(order, eo.Move):
                    support: eo.Order = eo.SupportMove(v.type, v.location, unit.type, unit.location, p)
                else:
                    support = eo.SupportHold(v.type, v.location, unit.type, unit.location)
                found.append(Option(unit, order, v, support, plan.strength[unit] + 1 > competence, worth))
        found.sort(key=lambda o: (not o.resolves, -o.worth, o.unit.location, o.supporter.location))
        return found

    def deal(self, position: Position, option: Option) -> a.Deal:
        """The deal of an option: our order, and the other power's support of it."""
        me, other = self.power, option.supporter.power
        ours = a.Commit(me, frozenset({other}), a.Do(action_from_order(position, self.power, option.order)))
        theirs = a.Commit(
            other, frozenset({me}), a.Do(action_from_order(position, option.supporter.power, option.support))
        )
        return a.Deal(frozenset({ours, theirs}))

    def _propose(self, position: Position) -> Outgoing:
        """The best option not yet proposed this phase, to a power not known to be silent."""
        if self._pending is not None:
            return ()
        c = self._commitments
        plan = self.plan(position, c.ours, c.promised, c.foreign)
        for option in self.options(position, plan):
            if option.supporter.power in self.silent:
                continue
            if c.ours.get(option.unit, option.order) != option.order:
                continue
            tried = (option.unit, option.order, option.supporter)
            if tried in self._proposed:
                continue
            self._proposed.add(tried)
            deal = self.deal(position, option)
            text = to_text(deal)
            self._pending = (text, option.supporter.power, self._round)
            self._reserved = {option.unit: option.order}
            return (a.Propose(self.power, frozenset({option.supporter.power}), deal),)
        return ()

    def on_phase(self, position: Position) -> Outgoing:
        if position.phase.kind != MOVEMENT:
            return ()
        self._values(position)
        self._proposed = set()
        self._pending = None
        self._reserved = {}
        self._round = 0
        self._fresh = False
        self._legal = {}
        return self._propose(position)

    def on_event(self, event: Mapping[str, object], position: Position) -> Outgoing:
        if position.phase.kind != MOVEMENT:
            return ()
        self._values(position)
        kind = event.get("type")
        if kind == "phase":
            self._fresh = event.get("phase") == str(position.phase)
            return ()
        if kind == "round":
            self._round = int(event.get("round", 0))  # type: ignore[call-overload]
            pending = self._pending
            if pending is not None and self._round - pending[2] >= 2:  # a whole round without an answer
                self.silent.add(pending[1])
                self._pending, self._reserved = None, {}
            return self._propose(position)
        if not self._fresh or event.get("phase") != str(position.phase):
            return ()  # a frame of a phase gone by
        if kind in ("confirmed", "accepted") and isinstance(event.get("deal"), str):
            text = str(event["deal"])
            self._bind(position, text)
            if self._pending is not None and self._pending[0] == text:
                self._pending, self._reserved = None, {}
                return self._propose(position)
        if kind == "conflict" and isinstance(event.get("deal"), str):
            self._unbind(position, str(event["deal"]))
        return ()

    # --- answering -----------------------------------------------------------------------------

    def _read(
        self, position: Position, deal: a.Deal | a.Agree, sender: str
    ) -> tuple[dict[Unit, eo.Order], list[tuple[str, eo.Order]]] | None:
        """Our orders and the other powers' orders in ``deal``; None when it holds anything else."""
        if not isinstance(deal, a.Deal):
            return None
        me = self.power
        m = position.map
        ours: dict[Unit, eo.Order] = {}
        theirs: list[tuple[str, eo.Order]] = []
        for commit in deal.commits:
            if not isinstance(commit.formula, a.Do) or commit.formula.time is not None or commit.time is not None:
                return None
            try:
                power, order = order_from_action(m, commit.formula.action)
            except ActionError:
                return None
            if power != commit.agent:
                return None
            if commit.agent == me:
                unit = position.unit_at.get(m.province_of[order.location])
                if unit is None or unit.power != self.power or unit.location != order.location or unit in ours:
                    return None
                ours[unit] = order
            elif power == sender:
                theirs.append((power, order))
            else:
                return None
        return ours, theirs

    def _foreign_of(self, position: Position, orders: Iterable[eo.Order]) -> set[int]:
        """The provinces the other powers' orders we support go to (or hold)."""
        province_of = position.map.province_of
        found: set[int] = set()
        for order in orders:
            if isinstance(order, eo.SupportMove):
                target = position.unit_at.get(province_of[order.supported_location])
                if target is not None and target.power != self.power:
                    found.add(province_of[order.destination])
            elif isinstance(order, eo.SupportHold):
                target = position.unit_at.get(province_of[order.supported_location])
                if target is not None and target.power != self.power:
                    found.add(province_of[order.supported_location])
        return found

    def acceptable(self, position: Position, deal: a.Deal | a.Agree, sender: str) -> bool:
        """The thesis's rule: the plan completed from the deal's orders is at least as good as without them."""
        read = self._read(position, deal, sender)
        if read is None:
            return False
        ours, _theirs = read
        if not ours:
            return False
        c = self._commitments
        for unit, order in ours.items():
            if c.ours.get(unit, order) != order or self._reserved.get(unit, order) != order:
                return False
            legal = self._legal.get(unit)
            if legal is None:
                legal = self._legal[unit] = frozenset(legal_orders_for(position, unit))
            if order not in legal:
                return False
        base = self.plan(position, c.ours, c.promised, c.foreign)
        completed = self.plan(
            position, {**c.ours, **ours}, c.promised, c.foreign | self._foreign_of(position, ours.values())
        )
        return completed.at_least_as_good_as(base)

    def on_message(self, sender: str, message: a.Message, position: Position) -> Outgoing:
        self.silent.discard(sender)
        if position.phase.kind != MOVEMENT or not self._fresh:
            return ()  # (a message of a phase gone by, read before this phase's "phase" frame)
        self._values(position)
        if isinstance(message, a.Reject) and self._pending is not None and to_text(message.deal) == self._pending[0]:
            self._pending, self._reserved = None, {}
            return self._propose(position)
        if not isinstance(message, a.Propose):
            return ()
        me = self.power
        answer_to = frozenset({message.sender})
        if self.acceptable(position, message.deal, sender):
            self._bind(position, to_text(message.deal))
            return (a.Accept(me, answer_to, message.deal),)
        return (a.Reject(me, answer_to, message.deal),)

    # --- commitments -----------------------------------------------------------------------------

    def _parse_deal(self, position: Position, text: str) -> a.Deal | a.Agree | None:
        me = self.power
        other = next(p for p in position.map.powers if p != me)
        try:
            message = parse(f"propose({me}, {other}, {text})")
        except LError:
            return None
        return message.deal if isinstance(message, a.Propose) else None

    def _bind(self, position: Position, text: str) -> None:
        """A deal of ours is confirmed (or accepted by us): its orders bind us, its supports help us."""
        c = self._commitments
        if text in c.deals:
            return
        deal = self._parse_deal(position, text)
        if not isinstance(deal, a.Deal):
            return
        m = position.map
        province_of = m.province_of
        ours: dict[Unit, eo.Order] = {}
        given: list[eo.Order] = []
        for commit in deal.commits:
            if not isinstance(commit.formula, a.Do):
                return
            try:
                power, order = order_from_action(m, commit.formula.action)
            except ActionError:
                return
            if power == self.power:
                unit = position.unit_at.get(province_of[order.location])
                if unit is None or unit.power != self.power:
                    return
                ours[unit] = order
            else:
                given.append(order)
        c.deals.add(text)
        c.ours.update(ours)
        c.foreign |= self._foreign_of(position, ours.values())
        by_location = {u.location: u for u in position.units_of(self.power)}
        for order in given:
            if isinstance(order, eo.SupportMove) and order.supported_location in by_location:
                key = (order.supported_location, province_of[order.destination])
            elif isinstance(order, eo.SupportHold) and order.supported_location in by_location:
                key = (order.supported_location, province_of[order.supported_location])
            else:
                continue
            c.promised[key] = c.promised.get(key, 0) + 1

    def _unbind(self, position: Position, text: str) -> None:
        """A deal we accepted cannot be confirmed after all: forget it (rebuilding the rest)."""
        c = self._commitments
        if text not in c.deals:
            return
        kept = sorted(c.deals - {text})
        self._commitments = _Commitments()
        for other in kept:
            self._bind(position, other)

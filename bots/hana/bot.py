"""The HANA agent: the interface module wiring the world model, the plan search and the
negotiation together (thesis section 5.1, figure 5.1). :mod:`bots.hana` documents the
whole agent and its configuration."""

from __future__ import annotations

import math
import random
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

import engine.orders as eo
from bots.base import LegalOrders, Outgoing, Results
from bots.dumbbot import DumbBot, _Appraisal
from bots.hana.bdi import Intentions, basic_intentions, desires, intentions
from bots.hana.beliefs import Beliefs, candidates, prior
from bots.hana.emotions import ATTACK, BROKEN_DEAL, REJECTION, Moods
from bots.hana.measures import Measures, information
from bots.hana.negotiation import STRATEGIES, Option, Terms, concedes, forbidden, lasting, peace, read, support_deal
from bots.hana.personality import PERSONALITIES, Personality
from bots.hana.search import Evaluator, Plan, PlanSearch, Ranked, values_of
from bots.hana.trust import Relationship, Trust
from engine.legal import legal_orders_for
from engine.position import MOVEMENT, Position, Unit
from protocol.l import LError, parse, to_text
from protocol.l import ast as a
from referee.compliance import attacks

__all__ = ["Hana", "HanaDynamic", "HanaInformative", "HanaNoNego", "HanaPacifist", "HanaRevenger", "HanaWait"]

#: The mean rank of a power's actions among its DumbBot-ranked candidates before any is seen:
#: DumbBot's own habit (pass on with probability about 0.4).
FIRST_RANK = 0.6
#: How much each new phase's observations weigh in the learned mean rank (recency).
LEARNING = 0.2


def _same(one: Position, other: Position) -> bool:
    return one.phase == other.phase and one.units == other.units


def _worth(value: _Appraisal, unit: Unit, order: eo.Order) -> float:
    """DumbBot's value of a hold or a move of ``unit``: where it ends, a hold one more."""
    if isinstance(order, eo.Move):
        return value(value.geometry.node[unit.type][order.destination])
    return value(value.geometry.node[unit.type][unit.location]) + 1


@dataclass
class _Phase:
    """The negotiation state of one movement phase (definition 24), kept between rounds."""

    position: Position
    prior: Beliefs
    ranks: dict[Unit, list[eo.Order]]  # each nearby unit's candidates, best first for its power
    evaluator: Evaluator
    search: PlanSearch
    seed: int
    legal: dict[Unit, frozenset[eo.Order]] = field(default_factory=dict)
    confirmed: dict[str, Terms] = field(default_factory=dict)  # deal text -> terms (ours, in force)
    pending: dict[str, tuple[Option, int, float]] = field(default_factory=dict)  # our proposals: option, round, value
    proposed: set[str] = field(default_factory=set)
    round: int = 0
    rounds: int = 3
    beliefs: Beliefs | None = None
    ranking: list[Ranked] = field(default_factory=list)
    top: float = 0.0  # the best f(next(s, δ)) of the options valued this round: the opportunity
    deferred: bool = False  # proposals held back until the negotiation says the phase began
    # whether the orders were given while the negotiation goes on (over the network the client
    # asks for them as the phase opens): the client then asks for them again after each
    # message or event (:meth:`Hana.revised_orders`), and sends them if they changed
    given: bool = False
    lasting: set[str] = field(default_factory=set)  # the lasting deals first bound in this phase


def _bounds(terms: Collection[Terms]) -> tuple[set[str], set[int]]:
    """The powers at peace with us and the provinces demilitarised, over all of ``terms``."""
    return {p for t in terms for p in t.peace}, {p for t in terms for p in t.dmz}


def _clash(position: Position, x: Terms, y: Terms) -> bool:
    """Whether ``x`` and ``y`` cannot both be kept: a unit promised two orders, or a promised
    order against the other's peace or dmz."""
    if any(x.ours.get(u, o) != o for u, o in y.ours.items()):
        return True
    return any(forbidden(position, o, x.peace, x.dmz) for o in y.ours.values()) or any(
        forbidden(position, o, y.peace, y.dmz) for o in x.ours.values()
    )


class Hana(DumbBot):
    """HANA, the balanced personality, negotiating from the first round (see :mod:`bots.hana`)."""

    name = "hana"
    negotiates = True
    PERSONALITY: ClassVar[str] = "balanced"
    #: propose only once the search is done (the last round): the ablation of section 5.1
    WAIT: ClassVar[bool] = False
    NEGOTIATE: ClassVar[bool] = True
    NODES: ClassVar[int] = 16  # search nodes per negotiation round (and once more before the orders)
    SAMPLES: ClassVar[int] = 8  # joint actions of the others a plan is judged on
    POPULATION: ClassVar[int] = 8
    OPTIONS: ClassVar[int] = 3  # options evaluated per round (2 to 3 nodes each)
    RANKED: ClassVar[int] = 2  # ranked plans tried against a deal when valuing it

    def __init__(self, rng: random.Random | None = None) -> None:
        super().__init__(rng)
        self.personality: Personality = PERSONALITIES[self.PERSONALITY]
        self.strategy = STRATEGIES[self.personality.strategy]
        self.moods = Moods(self.personality)
        self.trust = Trust(self.personality.initial_trust)
        self.relations = Relationship()
        self.mean_rank: dict[str, float] = {}
        self.clock = 0  # negotiation rounds so far in the game
        self.accepted_at: dict[str, int] = {}  # power -> the clock when it last accepted a proposal of ours
        self.state: _Phase | None = None
        self.nodes = 0  # every plan evaluated in the game (for tests and measurement)
        self.lasting: dict[str, Terms] = {}  # deal text -> its peace and dmz, in force for the rest of the game
        self.opened: str | None = None  # the last phase the negotiation said it opened
        self.first: str | None = None  # the first phase of the game this agent played
        self.clocked = False  # whether the negotiation has a clock of rounds (in-process); else each message ticks

    # --- the world model ---------------------------------------------------------------------------

    def _intentions(self, position: Position) -> Intentions:
        powers = [p for p in position.map.powers if p != self.power]
        m = position.map
        within = m.within(1)
        near = set().union(*(within[m.province_of[u.location]] for u in position.units_of(self.power)))
        reachable = {u.power for u in position.units if m.province_of[u.location] in near}
        reachable |= {position.centers[p] for p in near if position.centers[p] is not None}
        return intentions(desires(self.moods, powers), self.trust, self.personality.distrust, reachable, powers)

    def _phase(self, position: Position) -> _Phase:
        """The state of this movement phase, begun on first use (the interface's snapshot)."""
        s = self.state
        if s is not None and (s.position is position or _same(s.position, position)):
            return s
        me = self.power
        intent = self._intentions(position)
        value = values_of(position, me)
        evaluator = Evaluator(position, me, value, dict(intent.attack), self.personality.revenge_weight)
        ranks: dict[Unit, list[eo.Order]] = {}
        dists: dict[Unit, dict[eo.Order, float]] = {}
        appraisals = {}
        for unit in evaluator.nearby:
            v = appraisals.get(unit.power)
            if v is None:
                v = appraisals[unit.power] = values_of(position, unit.power)
            ranked = sorted(
                candidates(position, unit), key=lambda o: (-_worth(v, unit, o), eo.format_order(position.map, o))
            )
            ranks[unit] = ranked
            r = self.mean_rank.get(unit.power, FIRST_RANK)
            dists[unit] = prior(ranked, r / (1.0 + r))
        legal = {u: frozenset(legal_orders_for(position, u)) for u in position.units_of(me)}
        seed = self.rng.getrandbits(32)
        empty = PlanSearch(position, {}, {}, random.Random(seed))
        s = _Phase(position, Beliefs(dists), ranks, evaluator, empty, seed, legal)
        self.state = s
        if self.first is None:
            self.first = str(position.phase)
        genes = self._genes(s)
        helpers = self._helpers(s, genes)
        seeds = self._seeds(s, genes)
        s.search = PlanSearch(position, genes, helpers, random.Random(seed), seeds, self.POPULATION, 0.4)
        s.beliefs = s.prior
        return s

    def _constraints(self, s: _Phase) -> list[Terms]:
        """What binds the plans: confirmed deals and our own pending proposals (which the other
        side may accept as the round ends: HANA keeps them as if confirmed). The orders already
        given are no commitment: a deal may change them, and the client sends the new ones."""
        pending = [option.terms for option, _, _ in s.pending.values()]
        return [*s.confirmed.values(), *self.lasting.values(), *pending]

    def _genes(self, s: _Phase, extra: Sequence[Terms] = ()) -> dict[Unit, list[eo.Order]]:
        terms = [*self._constraints(s), *extra]
        partners, dmz = _bounds(terms)
        promised: dict[Unit, eo.Order] = {}
        for t in terms:
            promised.update(t.ours)
        ours = {u.location for u in s.position.units_of(self.power)}
        genes: dict[Unit, list[eo.Order]] = {}
        for unit, legal in s.legal.items():
            if unit in promised and promised[unit] in legal:
                genes[unit] = [promised[unit]]
                continue
            hold = eo.Hold(unit.type, unit.location)
            found: list[eo.Order] = [hold]
            for order in sorted(legal, key=lambda o: eo.format_order(s.position.map, o)):
                if isinstance(order, eo.Move) and order.via_convoy:
                    continue
                if isinstance(order, eo.SupportMove | eo.SupportHold) and order.supported_location not in ours:
                    continue
                if isinstance(order, eo.Convoy | eo.Hold) or forbidden(s.position, order, partners, dmz):
                    continue
                found.append(order)
            genes[unit] = found
        return genes

    def _helpers(
        self, s: _Phase, genes: Mapping[Unit, Sequence[eo.Order]]
    ) -> dict[tuple[Unit, eo.Order], list[tuple[Unit, eo.Order]]]:
        """Other powers' supports the search may ask for (joint plans): by negotiable powers'
        units next to where our order ends, not against their own unit or centre."""
        position = s.position
        m = position.map
        shun = set(self._intentions(position).shun) | self.relations.silent
        helpers: dict[tuple[Unit, eo.Order], list[tuple[Unit, eo.Order]]] = {}
        if not self.NEGOTIATE:
            return helpers
        able = [v for v in s.evaluator.nearby if v.power not in shun]
        legal_of: dict[Unit, frozenset[eo.Order]] = {}
        for unit, orders in genes.items():
            for order in orders:
                if isinstance(order, eo.Move):
                    p = m.province_of[order.destination]
                elif isinstance(order, eo.Hold | eo.SupportHold | eo.SupportMove):
                    p = m.province_of[unit.location]
                else:
                    continue
                owner = position.centers[p]
                for v in able:
                    if v.power == owner or p not in m.reach[v.type][v.location]:
                        continue
                    occupant = position.unit_at.get(p)
                    if occupant is not None and occupant.power == v.power:
                        continue
                    if isinstance(order, eo.Move):
                        destination = order.destination
                        support: eo.Order = eo.SupportMove(v.type, v.location, unit.type, unit.location, destination)
                    else:
                        support = eo.SupportHold(v.type, v.location, unit.type, unit.location)
                    legal = legal_of.get(v)
                    if legal is None:
                        legal = legal_of[v] = frozenset(legal_orders_for(position, v))
                    if support in legal:
                        helpers.setdefault((unit, order), []).append((v, support))
        return helpers

    def _seeds(self, s: _Phase, genes: Mapping[Unit, Sequence[eo.Order]]) -> list[Plan]:
        """The first population: the plan DumbBot would play, the greedy plan of its values,
        and holding everywhere."""
        position = s.position
        units = sorted(genes, key=lambda u: u.location)
        dumb = DumbBot._movement(self, position, list(units), s.evaluator.value)
        by_location = {o.location: o for o in dumb}
        plans = [Plan(tuple((u, by_location.get(u.location, genes[u][0])) for u in units))]
        value = s.evaluator.value
        province_of = position.map.province_of
        taken: set[int] = set()
        greedy = []
        for u in units:
            options = [o for o in genes[u] if isinstance(o, eo.Move | eo.Hold)]
            options.sort(key=lambda o: -_worth(value, u, o))
            free = [o for o in options if province_of[getattr(o, "destination", u.location)] not in taken]
            pick = free[0] if free else genes[u][0]
            taken.add(province_of[getattr(pick, "destination", u.location)])
            greedy.append((u, pick))
        plans.append(Plan(tuple(greedy)))
        plans.append(Plan(tuple((u, genes[u][0]) for u in units)))
        return plans

    def _beliefs(self, s: _Phase, extra: Sequence[tuple[Terms, float]] = ()) -> Beliefs:
        """The prior revised with the confirmed deals (and ``extra`` terms, each with the
        trust in its partner): σ(B, {<β, a, trust>}) for promised actions, and for a
        peace the mass of the partner's attacks on us cut to (1 - trust) of what it was."""
        beliefs = s.prior
        terms = [(t, self._trust_in(t)) for t in (*s.confirmed.values(), *self.lasting.values())] + list(extra)
        for t, trust in terms:
            if t.theirs:
                beliefs = beliefs.committed(t.theirs, trust)
            if t.peace:
                beliefs = beliefs.revised(self._attacks_cut(s, beliefs, t.peace, trust))
        return beliefs

    def _trust_in(self, terms: Terms) -> float:
        return min((self.trust.of(p) for p in terms.parties), default=1.0)

    def _attacks_cut(
        self, s: _Phase, beliefs: Beliefs, partners: frozenset[str], trust: float
    ) -> dict[Unit, dict[frozenset[eo.Order], float]]:
        position = s.position
        m = position.map
        ours = {m.province_of[u.location] for u in position.units_of(self.power)}
        ours |= {p for p, o in enumerate(position.centers) if o == self.power}
        out: dict[Unit, dict[frozenset[eo.Order], float]] = {}
        for unit, dist in beliefs.of.items():
            if unit.power not in partners:
                continue
            hits = frozenset(o for o in dist if isinstance(o, eo.Move) and m.province_of[o.destination] in ours)
            if hits:
                out[unit] = {hits: (1.0 - trust) * math.fsum(dist[o] for o in hits)}
        return out

    # --- the plan search --------------------------------------------------------------------------

    def _futures(self, s: _Phase, beliefs: Beliefs) -> list[dict[Unit, eo.Order]]:
        return s.evaluator.samples(beliefs, s.seed + s.round, self.SAMPLES)

    def _search(self, s: _Phase) -> None:
        """One round of the anytime search (NODES nodes), then the new plan ranking."""
        beliefs = s.beliefs or s.prior
        futures = self._futures(s, beliefs)
        s.search.forget()
        before = s.evaluator.nodes
        s.search.step(lambda plan: s.evaluator.expected(plan, futures), self.NODES)
        self.nodes += s.evaluator.nodes - before
        least = 0.02 * s.round / max(s.rounds, 1)  # the confidence asked of joint plans rises with time
        s.ranking = s.search.ranking(lambda plan: self._confidence(s, beliefs, plan), least)

    def _confidence(self, s: _Phase, beliefs: Beliefs, plan: Plan) -> float:
        """Definition 23: the degree of the other powers' part of a joint plan; a support is
        believed as much as its unit staying put."""
        c = 1.0
        for unit, order in plan.help:
            d = beliefs.of.get(unit, {})
            c *= d.get(order, 0.0) or d.get(eo.Hold(unit.type, unit.location), 0.0)
        return c

    def _replan(self, s: _Phase) -> None:
        """Commitments changed: the genes, the helpers and the beliefs follow."""
        genes = self._genes(s)
        s.search.helpers = self._helpers(s, genes)
        s.search.constrain(genes)
        s.beliefs = self._beliefs(s)

    def _independence(self, s: _Phase) -> float:
        """f_UC of the current state (equation 5.8): the best complete plan's expected utility.
        (The opportunity f_UJ, equation 5.9, is measured on the options: ``_Phase.top``.)"""
        return max((r.utility for r in s.ranking if not r.plan.joint), default=0.0)

    def _measures(self, s: _Phase, terms: Terms | None = None, trust: float = 1.0, value: float = 0.0) -> Measures:
        """The measures (:mod:`.measures`) of the current state, or with ``terms`` of next(s, δ)
        worth ``value`` (f_UC of the best plan fitting δ) and informed by δ at ``trust``."""
        if terms is None:
            return Measures(self._independence(s), information(s.beliefs or s.prior))
        return Measures(value, information(self._beliefs(s, [(terms, trust)])))

    def _value_with(self, s: _Phase, terms: Terms, trust: float, plans: Sequence[Plan] = ()) -> float:
        """f(next(s, δ)): the best expected utility of our ranked plans made to fit ``terms``,
        with the beliefs revised by them."""
        beliefs = self._beliefs(s, [(terms, trust)])
        futures = self._futures(s, beliefs)
        genes = self._genes(s, [terms])
        tried: list[Plan] = []
        ranked = [r.plan.own() for r in s.ranking if not r.plan.joint][: self.RANKED]
        helped = [self._helped(s, p, terms) for p in ranked[:1]]  # the best plan using the supports offered
        for plan in [*plans, *ranked, *helped]:
            fitted = s.search.repair(plan, genes)
            if fitted not in tried:
                tried.append(fitted)
        before = s.evaluator.nodes
        best = max((s.evaluator.expected(p, futures) for p in tried), default=0.0)
        self.nodes += s.evaluator.nodes - before
        return best

    def _helped(self, s: _Phase, plan: Plan, terms: Terms) -> Plan:
        """``plan`` with each of our units that ``terms`` offer a support making the supported
        move (or staying), so that an offered support is valued for what it can do."""
        province_of = s.position.map.province_of
        ours = {u.location: u for u, _ in plan.orders}
        chosen = dict(plan.orders)
        for support in terms.theirs.values():
            unit = ours.get(getattr(support, "supported_location", -1))
            if unit is None:
                continue
            if isinstance(support, eo.SupportMove):
                move = next((o for o in s.legal.get(unit, ()) if isinstance(o, eo.Move) and not o.via_convoy
                             and province_of[o.destination] == province_of[support.destination]), None)  # fmt: skip
                if move is not None:
                    chosen[unit] = move
            elif isinstance(support, eo.SupportHold):
                chosen[unit] = eo.Hold(unit.type, unit.location)
        return Plan(tuple(chosen.items()))

    # --- the negotiation -----------------------------------------------------------------------------

    def _options(self, s: _Phase) -> list[tuple[Option, Plan | None]]:
        """Options from the ranking's joint plans, then peace with the powers that can touch us."""
        position = s.position
        intent = self._intentions(position)
        shun = set(intent.shun) | self.relations.silent
        busy = {option.to for option, _, _ in s.pending.values()}
        out: list[tuple[Option, Plan | None]] = []
        seen: set[str] = set()
        for r in s.ranking:
            if not r.plan.joint:
                continue
            for helper, support in r.plan.help:
                supported = support.supported_location  # type: ignore[attr-defined]
                target = next(u for u, _ in r.plan.orders if u.location == supported)
                order = r.plan.order_of(target)
                assert order is not None
                option = support_deal(position, self.power, target, order, helper, support)
                text = to_text(option.deal)
                if text in seen or text in s.proposed or option.to in shun or option.to in busy:
                    continue
                seen.add(text)
                out.append((option, r.plan.own()))
        at_peace = {p for t in (*s.confirmed.values(), *self.lasting.values()) for p in t.peace}
        for power in sorted({u.power for u in s.evaluator.nearby}):
            if power in shun or power in busy or power in at_peace or power in intent.attack:
                continue
            option = peace(position, self.power, power)
            if to_text(option.deal) not in s.proposed:
                out.append((option, None))
        return out

    def _propose(self, s: _Phase) -> list[a.Message]:
        """The basic intention propose: the best options whose gain reaches the aspiration."""
        t = s.round / max(s.rounds, 1)
        here = self._measures(s)
        valued: list[tuple[float, int, Option, Measures]] = []
        options = [(o, p) for o, p in self._options(s) if self._compatible(s, o.terms)]
        for i, (option, plan) in enumerate(options[: self.OPTIONS]):
            trust = self.trust.of(option.to)
            v = self._value_with(s, option.terms, trust, [plan] if plan is not None else [])
            there = self._measures(s, option.terms, trust, v)
            valued.append((self.strategy.value(there, t), i, option, there))
        top = s.top = max([self.strategy.value(here, t), *(g for g, _, _, _ in valued)])
        tau, margin = self.personality.tau, self.personality.margin
        out: list[a.Message] = []
        asked: set[str] = set()
        # best first (O(δ), the strategy's value); between options worth the same, the partner
        # likelier to accept (eq. 5.2)
        for _, _, option, there in sorted(valued, key=lambda x: (-x[0], -self.relations.acceptance(x[2].to), x[1])):
            if option.to in asked or not concedes(self.strategy, here, there, top, t, tau, margin):
                continue
            v = there.utility
            text = to_text(option.deal)
            s.proposed.add(text)
            s.pending[text] = (option, s.round, v)
            asked.add(option.to)
            out.append(a.Propose(self.power, frozenset({option.to}), option.deal))
        if out:
            self._replan(s)
        return out

    def _withdraw(self, s: _Phase) -> list[a.Message]:
        """Withdraw proposals left unanswered a whole round of the simulated clock (the power is
        taken for silent), to a power we no longer trust, or worth no more than what we now
        have alone."""
        fuc = self._independence(s)
        shun = self._intentions(s.position).shun
        out: list[a.Message] = []
        for text, (option, sent, value) in list(s.pending.items()):
            stale = self.clocked and s.round - sent >= 2  # over the network a person may take their time
            if stale or option.to in shun or value <= fuc:
                if stale:
                    self.relations.silent.add(option.to)
                del s.pending[text]
                out.append(a.Withdraw(self.power, frozenset({option.to})))
        if out:
            self._replan(s)
        return out

    def _round(self, position: Position) -> Outgoing:
        """One negotiation round: search, then the basic intentions in order of degree."""
        s = self._phase(position)
        self.clock += 1
        self._search(s)
        if not self.NEGOTIATE:
            return []
        if not self._fresh(s):
            # over the network the game server may tell the phase before the negotiation
            # server opens it: a proposal now would land in the phase gone by
            s.deferred = True
            return []
        return self._intend(s)

    def _intend(self, s: _Phase) -> list[a.Message]:
        """The basic intention propose, when it is the highest (time is left) and the agent is
        not waiting for its search to be done (``hana:wait``, before the last round)."""
        out = self._withdraw(s)
        time_left = s.round < s.rounds
        searching = self.WAIT and s.round < s.rounds - 1
        intent = basic_intentions(received=False, time_left=time_left)
        if max(intent, key=intent.__getitem__) == "propose" and not searching:
            out += self._propose(s)
        return out

    def _reply(self, s: _Phase, sender: str, message: a.Propose) -> list[a.Message]:
        """The basic intention reply δ: accept when the gain of next(s, δ) reaches the aspiration."""
        me = self.power
        answer_to = frozenset({message.sender})
        terms = read(s.position, self.power, message.deal)
        if terms is None or not self.NEGOTIATE or not self._acceptable(s, sender, terms):
            return [a.Reject(me, answer_to, message.deal)]
        # bound as soon as we accept: the proposer endorsed it by proposing
        withdrawn = self._bind(s, to_text(message.deal), terms)
        return [a.Accept(me, answer_to, message.deal), *withdrawn]

    def _acceptable(self, s: _Phase, sender: str, terms: Terms) -> bool:
        """Whether a deal read as ``terms`` from ``sender`` is one to accept (see :meth:`_reply`)."""
        intent = self._intentions(s.position)
        if sender in intent.shun:
            return False
        if any(o not in s.legal.get(u, frozenset()) for u, o in terms.ours.items()) or not self._compatible(s, terms):
            return False
        if any(p in intent.attack for p in terms.peace):
            return False  # a revengeful agent makes no peace with its target
        if not (terms.ours or terms.peace or terms.dmz):
            return True  # a promise to us that binds us to nothing: accepted, it only adds information (f_H)
        trust = self._trust_in(terms)
        there = self._measures(s, terms, trust, self._value_with(s, terms, trust))
        t = s.round / max(s.rounds, 1)
        return concedes(self.strategy, self._measures(s), there, s.top, t, self.personality.tau, self.personality.margin)

    def _bind(self, s: _Phase, text: str, terms: Terms) -> list[a.Message]:
        """A deal of ours is confirmed (or accepted by us): its orders bind this phase, its
        peace and dmz (untimed: :func:`referee.binding.in_force`) the rest of the game. Our
        pending proposals that no longer fit are withdrawn (the messages returned)."""
        if text in s.confirmed:
            return []
        out: list[a.Message] = []
        s.pending.pop(text, None)
        for other, (option, _, _) in list(s.pending.items()):
            if _clash(s.position, terms, option.terms):
                del s.pending[other]
                out.append(a.Withdraw(self.power, frozenset({option.to})))
        s.confirmed[text] = Terms(terms.ours, terms.theirs, parties=terms.parties)
        if (terms.peace or terms.dmz) and text not in self.lasting:
            self.lasting[text] = Terms(peace=terms.peace, dmz=terms.dmz, parties=terms.parties)
            s.lasting.add(text)
        self._replan(s)
        return out

    def _overruled(self, s: _Phase, text: str, terms: Terms) -> None:
        """The notary confirmed ``text``: a deal we bound ourselves to by accepting it that
        clashes with it was not confirmed, and will not be (the notary confirms nothing that
        contradicts a deal confirmed before it in the phase; in process its ``conflict`` may
        only come after the phase): it no longer binds."""
        for other, held in list(s.confirmed.items()):
            if other != text and _clash(s.position, terms, held):
                del s.confirmed[other]
                if other in s.lasting:
                    s.lasting.discard(other)
                    self.lasting.pop(other, None)

    def _compatible(self, s: _Phase, terms: Terms) -> bool:
        """Whether ``terms`` fit the commitments so far (no unit promised two orders, no
        promised order against a peace or dmz of the other)."""
        held = self._constraints(s)
        partners, dmz = _bounds(held)
        for unit, order in terms.ours.items():
            if self._promised(s, unit, order) or forbidden(s.position, order, partners, dmz):
                return False
        return not any(forbidden(s.position, o, terms.peace, terms.dmz) for t in held for o in t.ours.values())

    def _promised(self, s: _Phase, unit: Unit, order: eo.Order) -> bool:
        """Whether ``unit`` is promised another order already."""
        return any(t.ours.get(unit, order) != order for t in self._constraints(s))

    # --- the interface: the bot's hooks -------------------------------------------------------------------

    def on_phase(self, position: Position) -> Outgoing:
        if position.phase.kind != MOVEMENT:
            return ()
        s = self._phase(position)
        s.round = 0
        return self._round(position)

    def on_event(self, event: Mapping[str, object], position: Position) -> Outgoing:
        kind = event.get("type")
        if kind == "compliance":
            self._compliance(event, position)
            return ()
        if kind in ("confirmed", "accepted") and event.get("phase") != str(position.phase):
            self._confirmed_late(event, position)
            return ()
        if position.phase.kind != MOVEMENT:
            return ()
        s = self._phase(position)
        if kind == "phase":
            self.opened = str(event.get("phase"))
            if self._fresh(s) and s.deferred:
                s.deferred = False
                if s.given:  # the orders went in meanwhile: a ranking of plans to revise them by
                    self._search(s)
                return self._intend(s)
            return ()
        if kind == "round":
            self.clocked = True
            s.round = int(event.get("round", 0))  # type: ignore[call-overload]
            s.rounds = int(event.get("rounds", s.rounds))  # type: ignore[call-overload]
            return self._round(position)
        if not self._fresh(s) or event.get("phase") != str(position.phase):
            return ()
        text = event.get("deal")
        if kind in ("confirmed", "accepted") and isinstance(text, str):
            pending = s.pending.pop(text, None)
            deal = self._parse_deal(position, text)
            terms = read(position, self.power, deal) if deal is not None else None
            if terms is not None:
                self._overruled(s, text, terms)
                return self._bind(s, text, terms)
            if pending is not None:
                self._replan(s)
        elif kind == "conflict" and isinstance(text, str) and text in s.confirmed:
            del s.confirmed[text]
            if text in s.lasting:  # bound this phase (the same deal made before still binds)
                self.lasting.pop(text, None)
            self._replan(s)
        return ()

    def on_message(self, sender: str, message: a.Message, position: Position) -> Outgoing:
        self.relations.silent.discard(sender)
        if position.phase.kind != MOVEMENT:
            return ()
        s = self._phase(position)
        if not self._fresh(s):
            return ()  # a message of a phase gone by
        if isinstance(message, a.Propose):
            self._tick(s)
            intent = basic_intentions(received=True, time_left=True)
            assert max(intent, key=intent.__getitem__) == "reply"
            out: list[a.Message] = self._reply(s, sender, message)
            if not self.clocked:  # then the next basic intention: propose, time being left
                out += self._intend(s)
            return out
        if isinstance(message, a.Accept | a.Reject):
            text = to_text(message.deal)
            accepted = isinstance(message, a.Accept)
            self.relations.answered(sender, accepted)
            said: list[a.Message] = []
            if accepted:
                self.accepted_at[sender] = self.clock
                pending = s.pending.get(text)
                if not self.clocked and pending is not None and pending[0].to == sender:
                    # the partner's acceptance makes our bilateral deal: over the network the next
                    # round may come before the notary's confirmation, so it binds us now
                    said += self._bind(s, text, pending[0].terms)
            elif text in s.pending:
                self.moods.feel(sender, REJECTION)
                del s.pending[text]
                self._replan(s)
            if self._tick(s):  # an answer, too, moves the network's clock: the next round's proposals
                said += self._intend(s)
            return said
        return ()

    def _tick(self, s: _Phase) -> bool:
        """Over the network there are no rounds: each L message received is a step of the
        negotiation's time, with a search step, up to the phase's last round (so at most
        ``rounds`` rounds of proposals a phase); whether the clock moved."""
        if self.clocked or s.round >= s.rounds - 1:
            return False
        s.round += 1
        self.clock += 1
        self._search(s)
        return True

    def _fresh(self, s: _Phase) -> bool:
        """Whether the negotiation is in this phase: its ``phase`` frame came (messages left
        from the phase before come ahead of it; over the network the game server may tell
        the phase before or after the negotiation server opens it), or this is the game's
        first phase and no phase was told (in process, the first is not)."""
        phase = str(s.position.phase)
        return self.opened == phase or (self.opened is None and self.first == phase)

    def _parse_deal(self, position: Position, text: str) -> a.Deal | a.Agree | None:
        me = self.power
        other = next(p for p in position.map.powers if p != me)
        try:
            message = parse(f"propose({me}, {other}, {text})")
        except LError:
            return None
        return message.deal if isinstance(message, a.Propose) else None

    def _confirmed_late(self, event: Mapping[str, object], position: Position) -> None:
        """A deal of a phase gone by (in process, what is confirmed in a phase's last round is
        told in the next phase; over the network a frame may come after the phase): its
        orders are past, its peace and dmz bind from its phase on, as the referee checks them."""
        text = event.get("deal")
        deal = self._parse_deal(position, text) if isinstance(text, str) else None
        terms = lasting(position, self.power, deal) if deal is not None else None
        if terms is not None and isinstance(text, str):
            self.lasting.setdefault(text, terms)
            if self.state is not None and position.phase.kind == MOVEMENT and _same(self.state.position, position):
                self._replan(self.state)

    def _compliance(self, event: Mapping[str, object], position: Position) -> None:
        """A compliance report: trust, and the frustration of a broken deal (section 5.2)."""
        reports = event.get("reports")
        for report in reports if isinstance(reports, list) else ():
            name = str(report.get("power", ""))
            if not name:
                continue
            power = position.map.power(name)  # the frame writes it as L does: eng
            if power == self.power:
                continue
            kept = report.get("kept") is not False
            self.trust.report(power, kept)
            if not kept:
                self.moods.feel(power, BROKEN_DEAL)
                # a broken deal releases its other side: our lasting peace with the breaker ends
                self.lasting = {t: terms for t, terms in self.lasting.items() if power not in terms.parties}

    def on_results(self, before: Position, orders: Results, after: Position) -> None:
        """The phase's orders: attacks on us frustrate, and each power's choices teach how
        predictable it is (the recency-based update of the beliefs, section 5.2)."""
        if before.phase.kind != MOVEMENT or not self.power:
            return
        self.moods.fade()
        for hit in attacks(before, orders):
            if hit.victim == self.power and hit.attacker != self.power:
                silent_lately = self.clock - self.accepted_at.get(hit.attacker, -10) > 3
                self.moods.feel(hit.attacker, ATTACK * (2.0 if silent_lately else 1.0))
        s = self.state
        if s is None or not _same(s.position, before):
            return
        ranks: dict[str, list[int]] = {}
        given = {o.location: o for power_orders in orders.values() for o in power_orders}
        for unit, ranked in s.ranks.items():
            order = given.get(unit.location)
            moved = isinstance(order, eo.Move) and not order.via_convoy
            seen: eo.Order = order if moved and order is not None else eo.Hold(unit.type, unit.location)
            ranks.setdefault(unit.power, []).append(ranked.index(seen) if seen in ranked else len(ranked) - 1)
        for power, found in ranks.items():
            old = self.mean_rank.get(power, FIRST_RANK)
            self.mean_rank[power] = (1 - LEARNING) * old + LEARNING * (sum(found) / len(found))

    # --- executeActions -------------------------------------------------------------------------------------

    def orders(self, position: Position, legal: LegalOrders) -> list[eo.Order]:
        if position.phase.kind != MOVEMENT:
            return super().orders(position, self._allowed(position, legal))
        s = self._phase(position)
        now, s.round = s.round, s.rounds  # the deadline: executeActions
        self._search(s)
        if not self.clocked:
            # over the network the client asks for the orders as the phase opens and the
            # negotiation goes on after them, on the network's clock (:meth:`_tick`), asking
            # for them again after each message or event (:meth:`revised_orders`)
            s.round = now
            s.given = True
        return self._best(s, legal)

    def _allowed(self, position: Position, legal: LegalOrders) -> LegalOrders:
        """The retreats and builds the lasting peace and dmz leave (a retreat into a partner's
        centre attacks it, as the referee judges; a disband or a waive is always left)."""
        partners, dmz = _bounds(self.lasting.values())
        if not (partners or dmz):
            return legal
        return {u: [o for o in orders if not forbidden(position, o, partners, dmz)] for u, orders in legal.items()}

    def revised_orders(self, position: Position, legal: LegalOrders) -> list[eo.Order] | None:
        """Over the network, after a message or event: the best plan now, with every
        commitment kept (no search step: the anytime search moves on the messages)."""
        s = self.state
        if s is None or not s.given or not _same(s.position, position):
            return None
        return self._best(s, legal)

    def _best(self, s: _Phase, legal: LegalOrders) -> list[eo.Order]:
        """The orders of the best complete plan of the ranking, with every commitment kept."""
        best = next((r.plan for r in s.ranking if not r.plan.joint), None)
        if best is None:
            best = s.ranking[0].plan.own() if s.ranking else s.search.population[0]
        chosen = dict(best.orders)
        self._keep(s, chosen)
        return [chosen[u] for u in sorted(chosen, key=lambda u: u.location) if u in legal]

    def _keep(self, s: _Phase, chosen: dict[Unit, eo.Order]) -> None:
        """Every commitment kept: promised orders given, no attack on a partner (held instead)."""
        terms = self._constraints(s)
        for t in reversed(terms):  # pending proposals first, so that confirmed deals win
            for unit, order in t.ours.items():
                if unit in chosen and order in s.legal.get(unit, frozenset()):
                    chosen[unit] = order
        partners, dmz = _bounds(terms)
        for unit, order in list(chosen.items()):
            if forbidden(s.position, order, partners, dmz) and not any(unit in t.ours for t in terms):
                chosen[unit] = eo.Hold(unit.type, unit.location)


class HanaRevenger(Hana):
    """Example 3's Revenger: sensitive and aggressive."""

    name = "hana:revenger"
    PERSONALITY = "revenger"


class HanaPacifist(Hana):
    """Slow to anger, quick to forgive, concedes fast."""

    name = "hana:pacifist"
    PERSONALITY = "pacifist"


class HanaInformative(Hana):
    """The balanced agent with section 5.4's informative strategy: g_min = f_H."""

    name = "hana:informative"
    PERSONALITY = "informative"


class HanaDynamic(Hana):
    """The balanced agent with section 5.4's dynamic strategy: from f_H to f_UC over the round."""

    name = "hana:dynamic"
    PERSONALITY = "dynamic"


class HanaWait(Hana):
    """The ablation: the same agent, proposing only once the search is done (its last round)."""

    name = "hana:wait"
    WAIT = True


class HanaNoNego(Hana):
    """HANA's search and world model without negotiation (it rejects every proposal)."""

    name = "hana:nonego"
    NEGOTIATE = False

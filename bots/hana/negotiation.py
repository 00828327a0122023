"""HANA's negotiation module (thesis section 5.4): options, their terms in L, the aspiration level.

**Options** (definition 11 in the thesis: sets of actions of at least two agents) are
generated from the plan ranking: from each joint plan near the top, one bilateral option
per other power whose unit the plan needs (our order and its support, as a
``Deal`` of two ``Commit``s of ``Do``s); and a peace with each power whose units can touch
ours (``Agree([me x], pce([me x]))``): a plan "needs" a neighbour not to attack it, and a
peace is how L says so. An option is evaluated by the negotiation state it would lead to,
``f(next(s, δ))``, with ``f`` the strategy's combination of measures (below): the
*independence* f_UC (equation 5.8) of next(s, δ) is the expected utility of the best
complete plan compatible with δ once the beliefs are revised with δ's actions, the
partner's believed with the degree of trust in it (footnote 6), ours with 1 (HANA keeps
its word); its quality of information f_H (equation 5.7) is that of those revised beliefs.

**The aspiration level** (definition 25) is A(s, t) = g_min + ((t_max - t)/t_max)^τ (1 - g_min)
on the scale of the *gain* of a state: 0 for what the agent can reach by its own means now
(the conservative g_min = f_UC), 1 for the best option of the round (the opportunity
f_UJ of equation 5.9, measured, like every option, in the state the option leads to).
Where the thesis's scale is the utility itself, nothing could be proposed at t = 0 (A = 1);
on the gain scale the best option of the ranking is worth proposing from the first round,
and lesser ones as time runs out, as the thesis intends. An option is proposed when its
gain reaches A(s, t), and a proposal is accepted when its gain does; both also need a
utility above g_min by the personality's margin.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import engine.orders as eo
from engine.position import RETREATS, Position, Unit
from protocol.l import ast as a
from bots.hana.measures import Measures
from protocol.l.actions import ActionError, action_from_order, order_from_action
from referee.binding import literals
from referee.compliance import attacks

__all__ = [
    "STRATEGIES",
    "Option",
    "Strategy",
    "Terms",
    "aspiration",
    "aspiration_level",
    "concedes",
    "forbidden",
    "gain",
    "lasting",
    "peace",
    "read",
    "support_deal",
]


@dataclass(frozen=True, slots=True)
class Terms:
    """What a deal binds: our orders, other powers' orders, the powers we promise not to
    attack (peace, alliance), the provinces no party may enter (dmz); ``parties`` are the
    other powers in it."""

    ours: Mapping[Unit, eo.Order] = field(default_factory=dict)
    theirs: Mapping[Unit, eo.Order] = field(default_factory=dict)
    peace: frozenset[str] = frozenset()
    dmz: frozenset[int] = frozenset()
    parties: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class Option:
    """A negotiation option: the deal, the power it is proposed to, and its terms."""

    deal: a.Deal | a.Agree
    to: str
    terms: Terms


def _formula_terms(position: Position, me: str, formula: object) -> tuple[set[str], set[int]] | None:
    """Peace partners and demilitarised provinces of a peace, alliance, dmz (or a conjunction)."""
    m = position.map
    if isinstance(formula, a.And):
        peace: set[str] = set()
        dmz: set[int] = set()
        for operand in formula.operands:
            found = _formula_terms(position, me, operand)
            if found is None:
                return None
            peace |= found[0]
            dmz |= found[1]
        return peace, dmz
    if isinstance(formula, a.Pce) and me in formula.powers:
        return set(formula.powers - {me}), set()
    if isinstance(formula, a.Aly) and me in formula.allies:
        return set(formula.allies - {me}), set()
    if isinstance(formula, a.Dmz) and me in formula.powers:
        return set(), {m.province_of[i] for i, name in enumerate(m.locations) if name.lower() in formula.provinces}
    return None


def read(position: Position, me: str, deal: a.Deal | a.Agree) -> Terms | None:
    """The terms of ``deal`` for ``me``, or None when it holds something HANA cannot weigh
    (a time, an order of a unit that is not its power's, a draw, ...)."""
    m = position.map
    if isinstance(deal, a.Agree):
        found = _formula_terms(position, me, deal.formula)
        if found is None:
            return None
        return Terms(peace=frozenset(found[0]), dmz=frozenset(found[1]), parties=deal.agents - {me})
    ours: dict[Unit, eo.Order] = {}
    theirs: dict[Unit, eo.Order] = {}
    peace_: set[str] = set()
    dmz: set[int] = set()
    parties: set[str] = set()
    for commit in deal.commits:
        if commit.time is not None:
            return None
        parties |= {p for p in (commit.agent, *commit.agents) if p != me}
        formula = commit.formula
        if isinstance(formula, a.Do):
            if formula.time is not None:
                return None
            try:
                power, order = order_from_action(m, formula.action)
            except (ActionError, LookupError, ValueError):
                return None
            unit = position.unit_at.get(m.province_of[order.location])
            if unit is None or unit.power != power or unit.location != order.location or power != commit.agent:
                return None
            if isinstance(order, eo.Waive | eo.Build | eo.Retreat | eo.Disband):
                return None
            (ours if power == me else theirs)[unit] = order
        elif commit.agent == me:
            found = _formula_terms(position, me, formula)
            if found is None:
                return None
            peace_ |= found[0]
            dmz |= found[1]
        elif _formula_terms(position, commit.agent, formula) is None:
            return None  # their side of a peace or dmz: believed, not binding us
    return Terms(ours, theirs, frozenset(peace_), frozenset(dmz), frozenset(parties))


def lasting(position: Position, me: str, deal: a.Deal | a.Agree) -> Terms | None:
    """The peace and dmz ``deal`` binds ``me`` to for the rest of the game, or None if none:
    its untimed ``pce``, ``aly`` and ``dmz`` atoms of ``me`` (:func:`referee.binding.literals`,
    the atoms the referee checks from the deal's phase on), read in any later ``position``
    (its orders bound its own phase alone, and their units may be gone).

    >>> from protocol.l import parse
    >>> board = Position.initial()
    >>> deal = parse("propose(ger, ita, Agree([ger ita], pce([ger ita]) & Do(hld(Unit(ita, Region(ven, amy))))))").deal
    >>> sorted(lasting(board, "ITA", deal).peace), lasting(board, "FRA", deal)
    (['GER'], None)
    """
    peace_: set[str] = set()
    dmz: set[int] = set()
    for x in literals(deal):
        if x.power == me and x.positive and x.time is None and not isinstance(x.atom, a.Do):
            found = _formula_terms(position, me, x.atom)
            if found is not None:
                peace_ |= found[0]
                dmz |= found[1]
    if not (peace_ or dmz):
        return None
    if isinstance(deal, a.Agree):
        agents = set(deal.agents)
    else:
        agents = {p for c in deal.commits for p in (c.agent, *c.agents)}
    return Terms(peace=frozenset(peace_), dmz=frozenset(dmz), parties=frozenset(agents - {me}))


def forbidden(position: Position, order: eo.Order, peace: Iterable[str], dmz: Iterable[int]) -> bool:
    """Whether ``order`` breaks a peace with ``peace`` or enters ``dmz``, by itself.

    An attack is the referee's: :func:`referee.compliance.attacks` judges the order (so a
    retreat into a partner's centre is one, as a move or support into its unit or centre
    is). Only this order is known, so a partner's unit counts as staying where it is: an
    order the referee would excuse (following a leaving unit in) is refused, never the
    reverse. A move, support of a move, retreat or build into ``dmz`` enters it.

    >>> board = Position.build("S1901R", {"GERMANY": ["A MUN"]}, {"GERMANY": ["MUN"]},
    ...                        dislodged={"A BOH": ("ITALY", ["MUN", "TYR"])})
    >>> [forbidden(board, eo.Retreat(None, board.map.location(p), board.map.location(d)), {"GER"}, ())
    ...  for p, d in (("BOH", "MUN"), ("BOH", "TYR"))]
    [True, False]
    """
    m = position.map
    if isinstance(order, eo.Move | eo.SupportMove | eo.Convoy | eo.Retreat):
        entered: int | None = m.province_of[order.destination]
    else:
        entered = m.province_of[order.location] if isinstance(order, eo.Build) else None
    if entered is not None and entered in set(dmz):
        return True
    partners = set(peace)
    if not partners or isinstance(order, eo.Waive):
        return False
    here = m.province_of[order.location]
    unit = position.unit_at.get(here)
    if position.phase.kind == RETREATS:
        unit = next((d.unit for d in position.dislodged if m.province_of[d.unit.location] == here), None)
    if unit is None:
        return False
    return any(hit.victim in partners for hit in attacks(position, {unit.power: [order]}))


def peace(position: Position, me: str, other: str) -> Option:
    pair = frozenset({me, other})
    return Option(a.Agree(pair, a.Pce(pair)), other, Terms(peace=frozenset({other}), parties=frozenset({other})))


def support_deal(position: Position, me: str, unit: Unit, order: eo.Order, helper: Unit, support: eo.Order) -> Option:
    """Our ``order`` for ``unit`` and ``helper``'s ``support`` of it, as a deal."""
    theirs = helper.power
    deal = a.Deal(
        frozenset(
            {
                a.Commit(me, frozenset({theirs}), a.Do(action_from_order(position, me, order))),
                a.Commit(theirs, frozenset({me}), a.Do(action_from_order(position, theirs, support))),
            }
        )
    )
    terms = Terms({unit: order}, {helper: support}, parties=frozenset({helper.power}))
    return Option(deal, helper.power, terms)


def aspiration(t: float, tau: float) -> float:
    """Definition 25 on the gain scale (g_min = 0, see the module): ((t_max - t)/t_max)^τ, t in [0, 1].

    >>> aspiration(0.0, 0.5), aspiration(1.0, 0.5)
    (1.0, 0.0)
    >>> aspiration(0.5, 1.0) < aspiration(0.5, 0.5)
    True
    """
    return max(0.0, 1.0 - t) ** tau


def gain(value: float, floor: float, top: float) -> float:
    """The gain of a state worth ``value``: 0 at ``floor`` (f_UC), 1 at ``top`` (f_UJ) or above.

    >>> round(gain(0.55, 0.5, 0.6), 6), gain(0.7, 0.5, 0.6), gain(0.4, 0.5, 0.6)
    (0.5, 1.0, -1.0)
    """
    span = max(top, value) - floor
    if span <= 1e-12:
        return 0.0
    return max(-1.0, min(1.0, (value - floor) / span))


def aspiration_level(g_min: float, t: float, tau: float, top: float = 1.0) -> float:
    """Definition 25: A(s, t) = g_min + ((t_max - t)/t_max)^τ (top - g_min), t in [0, 1]
    (t_max = 1); ``top`` = 1 is the thesis's, the best option of the round the gain scale's.
    :func:`aspiration` is this on the gain scale (g_min = 0, top = 1).

    >>> aspiration_level(0.4, 0.0, 0.5), aspiration_level(0.4, 1.0, 0.5)
    (1.0, 0.4)
    """
    return g_min + max(0.0, 1.0 - t) ** tau * (top - g_min)


@dataclass(frozen=True, slots=True)
class Strategy:
    """A negotiation strategy of section 5.4: g_min(s, t) = Σ w_i(t) g_i(s). Each measure
    (``f_UC`` or ``f_H``, :class:`bots.hana.measures.Measures`) has a weight at t = 0 and
    one at t = t_max, linear in between; the weights sum to 1 at every t.

    >>> dynamic = STRATEGIES["dynamic"]
    >>> dynamic.weights_at(0.0), dynamic.weights_at(0.25)
    ({'f_H': 1.0, 'f_UC': 0.0}, {'f_H': 0.75, 'f_UC': 0.25})
    """

    name: str
    weights: tuple[tuple[str, float, float], ...]  # (measure, weight at t = 0, weight at t = t_max)

    def __post_init__(self) -> None:
        for start_or_end in (1, 2):
            if abs(sum(w[start_or_end] for w in self.weights) - 1.0) > 1e-9:
                raise ValueError(f"the weights of strategy {self.name} do not sum to 1")

    def weights_at(self, t: float) -> dict[str, float]:
        """w_i(t); for the dynamic strategy w1(t) = (t_max - t)/t_max."""
        return {name: start + (end - start) * t for name, start, end in self.weights}

    def value(self, measures: Measures, t: float) -> float:
        """Σ w_i(t) g_i: g_min(s, t) of the current state, or O(δ) of the state δ leads to.
        With a single measure it is that measure exactly (the conservative agent replays)."""
        return sum(w * measures.of(name) for name, w in self.weights_at(t).items() if w != 0.0)


STRATEGIES: dict[str, Strategy] = {
    # concedes maximally towards what it can reach alone: "convenient at the end of a round"
    "conservative": Strategy("conservative", (("f_UC", 1.0, 1.0),)),
    # raises its quality of information: "convenient at the beginning of a negotiation round"
    "informative": Strategy("informative", (("f_H", 1.0, 1.0),)),
    # informative at the start of the round, conservative at its end
    "dynamic": Strategy("dynamic", (("f_H", 1.0, 0.0), ("f_UC", 0.0, 1.0))),
}


def concedes(
    strategy: Strategy, here: Measures, there: Measures, top: float, t: float, tau: float, margin: float
) -> bool:
    """Whether an option leading from a state measured ``here`` to one measured ``there`` is
    worth proposing (or accepting) at time ``t``: its value g(there, t) reaches the aspiration
    A(s, t) between g_min = g(here, t) and ``top`` (the best option's value), by more than
    ``margin`` above g_min, and it loses no utility against acting alone (see the module).

    >>> here, informed = Measures(0.5, 0.2), Measures(0.5, 0.6)
    >>> concedes(STRATEGIES["informative"], here, informed, 0.6, 0.0, 0.5, 0.002)
    True
    >>> concedes(STRATEGIES["conservative"], here, informed, 0.5, 0.0, 0.5, 0.002)
    False
    """
    floor, value = strategy.value(here, t), strategy.value(there, t)
    if there.utility < here.utility or value <= floor + margin:
        return False
    return gain(value, floor, max(top, floor)) >= aspiration(t, tau)

"""What an L deal commits each power to, and the orders that confirmed deals make binding.

A deal *commits* powers: ``Commit(α, β, ϕ)`` commits α to ϕ (β are those it is promised
to), and ``Agree(β, ϕ)`` commits every power of β to ϕ. :func:`literals` breaks what each
committed power promised into the atoms the server can hold it to, each with its time;
the notary (``referee.notary``), the compliance check (``referee.compliance``) and
the binding of orders below all read deals through it, so that they agree on what a deal
means:

- a power is held only to its own actions: ``Do(x)`` binds the power that gives ``x``
  (the owner of its unit, or the power of ``wve``), and only if that power is committed;
- ``&`` is taken apart; ``~Do(x)`` is a refusal; ``~~ϕ`` is ϕ; any other negation (of a
  predicate, of ``&``, of ``;``) is left out, as are ``drw``, ``slo`` and time comparisons;
- ``ϕ ; ψ`` keeps only the steps with a time of their own, since the phase of an untimed
  step after the first is not fixed;
- the time of a ``Do`` is its own, else that of its Commit or Agree; a time variable is
  left out. An untimed ``Do`` is for the phase the deal was made in; an untimed predicate
  (``pce``, ``aly``, ``dmz``) holds from that phase on. A time ``(season, year)`` is one
  phase: ``spr`` S-M, ``sum`` S-R, ``fal`` F-M, ``aut`` F-R, ``win`` W-A.

In a game created ``binding`` the game server replaces an order that breaks a confirmed
commitment by the committed order (:func:`binding_orders`, :func:`apply_binding`). Only
positive ``Do`` are enforced: a refusal ``~Do(x)`` has no order to put in the place of
``x``, so it is left to the compliance reports.

>>> from engine import Position, format_order, parse_order
>>> from protocol.l import parse
>>> start = Position.initial()
>>> deal = parse("propose(eng, fra, Commit(fra, eng, Do(mto(Unit(fra, Region(bre, coast)), Region(mao, sea)))))").deal
>>> binding = binding_orders([deal], start)
>>> sorted(committed(deal)), {power: [format_order(start.map, o) for o in orders] for power, orders in binding.items()}
(['FRA'], {'FRA': ['F BRE - MAO']})
>>> given = {"FRA": [parse_order(start.map, "F BRE - ECH"), parse_order(start.map, "A PAR - BUR")]}
>>> [format_order(start.map, o) for o in apply_binding(start, given, binding)["FRA"]]
['F BRE - MAO', 'A PAR - BUR']
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import engine.orders as eo
from engine.maps import Map
from engine.position import ADJUSTMENTS, MOVEMENT, RETREATS, Phase, Position, Unit
from protocol.l import ast as a
from protocol.l.actions import ActionError, order_from_action

__all__ = [
    "Literal",
    "action_key",
    "actor",
    "apply_binding",
    "binding_orders",
    "committed",
    "in_force",
    "kind_of",
    "literals",
    "terms",
]

_MOVEMENT_ACTIONS = (a.Hld, a.Mto, a.Sup, a.Cvy, a.Cto)
_RETREAT_ACTIONS = (a.Rto, a.Dsb)


def kind_of(action: a.Action) -> str:
    """The kind of phase (``M``, ``R``, ``A``) in which ``action`` can be ordered."""
    if isinstance(action, _MOVEMENT_ACTIONS):
        return MOVEMENT
    if isinstance(action, _RETREAT_ACTIONS):
        return RETREATS
    return ADJUSTMENTS


def actor(action: a.Action) -> str:
    """The L name of the power that gives ``action``: its unit's owner (or the waiving power)."""
    return action.power if isinstance(action, a.Wve) else action.unit.power


def action_key(action: a.Action) -> Hashable:
    """What makes two actions the same order: a convoyed move without its route (an engine
    order has none), a supported move by the province it goes to (a support names no coast)."""
    if isinstance(action, a.Cto):
        return ("cto", action.unit, action.region)
    if isinstance(action, a.Sup) and isinstance(action.order, a.Mto):
        return ("sup", action.unit, action.order.unit, action.order.region.province)
    return action


def committed(deal: a.Deal | a.Agree) -> frozenset[str]:
    """The powers a deal commits: the α of each Commit, or every power of an Agree."""
    if isinstance(deal, a.Agree):
        return deal.agents
    return frozenset(c.agent for c in deal.commits)


def terms(deal: a.Deal | a.Agree) -> list[tuple[str, a.Formula, a.Time | None]]:
    """Each committed power with the formula it is committed to and the time of the Commit or
    Agree, in a fixed order (sets are iterated in a different order by each process)."""
    if isinstance(deal, a.Agree):
        return [(power, deal.formula, deal.time) for power in sorted(deal.agents)]
    return [(c.agent, c.formula, c.time) for c in sorted(deal.commits, key=str)]


@dataclass(frozen=True, slots=True)
class Literal:
    """One atom a power is committed to: ``Do(x)`` (``positive``) or ``~Do(x)``, or a predicate.

    ``time`` is the atom's time (the Do's own, else the Commit's or Agree's); ``None`` when
    untimed, which means the phase the deal was made in (for a Do) or from then on.
    """

    power: str
    atom: a.Do | a.Pce | a.Aly | a.Dmz
    positive: bool
    time: a.Turn | None


def literals(deal: a.Deal | a.Agree) -> list[Literal]:
    """The atoms of ``deal`` that bind a power on their own (see the module docstring).

    >>> from protocol.l import parse
    >>> deal = parse("propose(eng, fra, Agree([eng fra], pce([eng fra]) & ~Do(hld(Unit(fra, Region(par, amy))))))").deal
    >>> [(x.power, str(x.atom), x.positive) for x in literals(deal)]  # doctest: +NORMALIZE_WHITESPACE
    [('ENG', 'pce([eng fra])', True), ('FRA', 'pce([eng fra])', True),
     ('FRA', 'Do(hld(Unit(fra, Region(par, amy))))', False)]
    """
    found: list[Literal] = []
    for power, formula, time in terms(deal):
        _walk(power, formula, time, True, False, found)
    return found


def _walk(
    power: str, formula: a.Info, time: a.Time | None, positive: bool, sequenced: bool, found: list[Literal]
) -> None:
    if isinstance(formula, a.Not):
        _walk(power, formula.operand, time, not positive, sequenced, found)
    elif isinstance(formula, a.And | a.Seq):
        if positive:  # a negated conjunction is a disjunction: no atom binds on its own
            for item in formula.operands if isinstance(formula, a.And) else formula.steps:
                _walk(power, item, time, True, sequenced or isinstance(formula, a.Seq), found)
    elif isinstance(formula, a.Do):
        when = formula.time or time
        if isinstance(when, a.Turn) or (when is None and not sequenced):
            if actor(formula.action) == power:
                found.append(Literal(power, formula, positive, when))
    elif isinstance(formula, a.Pce | a.Aly | a.Dmz):
        # a negated predicate (~pce: "not at peace") asks nothing checkable of anyone
        if positive and (isinstance(time, a.Turn) or (time is None and not sequenced)):
            found.append(Literal(power, formula, True, time))


def in_force(atom: a.Do | a.Pce | a.Aly | a.Dmz, time: a.Turn | None, phase: Phase, made: Phase) -> bool:
    """Whether ``atom`` at ``time`` (None: untimed), of a deal made in phase ``made``, is to be
    kept in ``phase``: a Do also needs the phase to be of its action's kind."""
    if isinstance(atom, a.Do) and kind_of(atom.action) != phase.kind:
        return False
    if time is not None:
        return time.phase == phase
    return phase == made if isinstance(atom, a.Do) else made <= phase


# --- binding orders -------------------------------------------------------------------------


def binding_orders(deals: Iterable[a.Deal | a.Agree], position: Position) -> dict[str, list[eo.Order]]:
    """Power (full name) -> the orders that the confirmed ``deals`` commit it to this phase.

    Each positive ``Do`` of a committed power for its own action, in force this phase (its
    time, or untimed: the deals are this phase's), that is an order of this phase's kind
    for a unit that exists (the dislodged unit in a retreat phase; a build or waive only
    while the power has builds owed, a removal while it owes removals). Refusals (``~Do``)
    are not enforced. Where deals give one unit two orders (the notary confirms no such
    pair) the first deal's order counts; a power is bound to one waive at most. The legality
    of a committed order is not checked: an illegal one is void like any other.
    """
    m = position.map
    phase = position.phase
    bound: dict[str, list[eo.Order]] = {}
    taken: set[Hashable] = set()
    for deal in deals:
        for literal in literals(deal):
            atom = literal.atom
            if not (literal.positive and isinstance(atom, a.Do) and in_force(atom, literal.time, phase, phase)):
                continue
            try:
                power, order = order_from_action(m, atom.action)
            except ActionError:
                continue
            slot = _slot(m, power, order)
            if slot not in taken and _can_order(position, power, order):
                taken.add(slot)
                bound.setdefault(power, []).append(order)
    return bound


def apply_binding(
    position: Position, orders: Mapping[str, Sequence[eo.Order]], binding: Mapping[str, Sequence[eo.Order]]
) -> dict[str, list[eo.Order]]:
    """The orders to adjudicate: ``orders`` (power -> given orders) with the ``binding`` ones in.

    In movement and retreat phases every order given for a committed unit is replaced, in
    its place, by the committed order, which is added at the end when the unit had none. In
    an adjustment phase the committed builds and removals go first and the orders given
    for the same provinces are dropped: the engine counts the first legal adjustments up to
    the number owed (DATC 4.D.4-4.D.6), so a committed one replaces the last one given.
    """
    m = position.map
    result = {power: list(given) for power, given in orders.items()}
    for power, committed_orders in binding.items():
        given = result.get(power, [])
        by_slot = {_slot(m, power, order): order for order in committed_orders}
        if position.phase.kind == ADJUSTMENTS:
            unit_slots = {slot for slot, order in by_slot.items() if not isinstance(order, eo.Waive)}
            result[power] = list(committed_orders) + [o for o in given if _slot(m, power, o) not in unit_slots]
            continue
        merged: list[eo.Order] = []
        placed: set[Hashable] = set()
        for order in given:
            slot = _slot(m, power, order)
            if slot not in by_slot:
                merged.append(order)
            elif slot not in placed:
                merged.append(by_slot[slot])
                placed.add(slot)
        merged += [order for slot, order in by_slot.items() if slot not in placed]
        result[power] = merged
    return result


def _slot(m: Map, power: str, order: eo.Order) -> Hashable:
    """What one order occupies: its unit's province, or the power's waive."""
    if isinstance(order, eo.Waive):
        return ("waive", power)
    return m.province_of[order.location]


def _can_order(position: Position, power: str, order: eo.Order) -> bool:
    """``order`` is one ``power`` can give in this phase, for a unit it has (or may build)."""
    kind = position.phase.kind
    owed = position.adjustments.get(power, 0)
    if isinstance(order, eo.Waive):
        return kind == ADJUSTMENTS and owed > 0
    unit = Unit(power, order.type if order.type is not None else -1, order.location)
    if kind == MOVEMENT:
        return isinstance(order, eo.MOVEMENT_ORDERS) and unit in position.units
    if kind == RETREATS:
        return isinstance(order, eo.Retreat | eo.Disband) and any(d.unit == unit for d in position.dislodged)
    if isinstance(order, eo.Build):
        return owed > 0
    return isinstance(order, eo.Disband) and owed < 0 and unit in position.units

"""What DipBlue says and understands in L, level 1 (paper section 4.2).

Three kinds of deal, each proposed to one power and answered (accepted or rejected) with
the very same deal:

- peace: ``propose(me, other, Agree([me other], pce([me other])))``;
- an alliance against the strongest non-ally: ``Agree([me ally], aly([me ally], [enemy]))``;
- an order request, the other power's unit to support our move, or not to give an order
  that would get in its way: ``Commit(ally, me, Do(sup(...)))``, ``Commit(ally, me, ~Do(mto(...)))``.

>>> from engine import Position, format_order, parse_order
>>> start = Position.initial()
>>> str(peace("FRA", "ENG"))
'propose(fra, [eng], Agree([eng fra], pce([eng fra])))'
>>> ask = request(start, "FRA", "GER", parse_order(start.map, "A MUN - BUR"), negated=True)
>>> str(ask)
'propose(fra, [ger], Commit(ger, [fra], ~Do(mto(Unit(ger, Region(mun, amy)), Region(bur, amy)))))'
>>> [(format_order(start.map, order), negated) for order, negated in read(ask.deal, start.map, "GER").orders]
[('A MUN - BUR', True)]
"""

from __future__ import annotations

from dataclasses import dataclass

import engine.orders as eo
from engine.maps import Map
from engine.position import Position
from protocol.l import ast as a
from protocol.l.actions import ActionError, action_from_order, order_from_action

__all__ = ["AllianceOffer", "OrderRequest", "PeaceOffer", "alliance", "answer", "peace", "read", "request"]


@dataclass(frozen=True, slots=True)
class PeaceOffer:
    """Peace with ``others`` (us left out)."""

    others: frozenset[str]


@dataclass(frozen=True, slots=True)
class AllianceOffer:
    """An alliance with ``allies`` (us left out) against ``enemies``."""

    allies: frozenset[str]
    enemies: frozenset[str]


@dataclass(frozen=True, slots=True)
class OrderRequest:
    """Orders asked of us: each order, and whether we are asked *not* to give it."""

    orders: tuple[tuple[eo.Order, bool], ...]


def peace(me: str, other: str) -> a.Propose:
    pair = frozenset({me, other})
    return a.Propose(me, frozenset({other}), a.Agree(pair, a.Pce(pair)))


def alliance(me: str, ally: str, enemy: str) -> a.Propose:
    pair = frozenset({me, ally})
    return a.Propose(me, frozenset({ally}), a.Agree(pair, a.Aly(pair, frozenset({enemy}))))


def request(position: Position, me: str, other: str, order: eo.Order, negated: bool) -> a.Propose:
    """Ask ``other`` to give ``order`` (for one of its units), or, ``negated``, not to."""
    formula: a.Formula = a.Do(action_from_order(position, other, order))
    if negated:
        formula = a.Not(formula)
    deal = a.Deal(frozenset({a.Commit(other, frozenset({me}), formula)}))
    return a.Propose(me, frozenset({other}), deal)


def answer(me: str, proposal: a.Propose, accept: bool) -> a.Accept | a.Reject:
    """Accept or reject ``proposal`` with its own deal."""
    reply = a.Accept if accept else a.Reject
    return reply(me, frozenset({proposal.sender}), proposal.deal)


def read(deal: a.Deal | a.Agree, m: Map, me: str) -> PeaceOffer | AllianceOffer | OrderRequest | None:
    """What a proposed deal asks of ``me``, if it is one DipBlue understands (else None).

    Commitments of other powers in a deal of orders are their own business and are left
    out; a timed commitment, or one of ours that is not an order or its refusal, makes the
    deal one we do not understand.
    """
    try:
        if isinstance(deal, a.Agree):
            formula = deal.formula
            if deal.time is not None or me not in deal.agents:
                return None
            if isinstance(formula, a.Pce) and me in formula.powers and formula.powers <= deal.agents:
                return PeaceOffer(formula.powers - {me})
            if isinstance(formula, a.Aly) and me in formula.allies - formula.enemies:
                return AllianceOffer(formula.allies - {me}, formula.enemies)
            return None
        orders: list[tuple[eo.Order, bool]] = []
        for commit in sorted(deal.commits, key=str):
            if commit.agent != me:
                continue
            negated = isinstance(commit.formula, a.Not)
            done = commit.formula.operand if isinstance(commit.formula, a.Not) else commit.formula
            if commit.time is not None or not isinstance(done, a.Do) or done.time is not None:
                return None
            power, order = order_from_action(m, done.action)
            if power != me:
                return None
            orders.append((order, negated))
        return OrderRequest(tuple(orders)) if orders else None
    except (ActionError, KeyError):
        return None

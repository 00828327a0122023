"""Compliance: after each phase, was every commitment kept? The raw material of trust.

DipBlue lowers its trust in a power that attacks it or breaks an agreement and raises it
for kept ones; the Bordeaux diplomat's observation module scores violations of specific
agreements (DMZ, XDO, NOT XDO) and attacks in its friendliness matrix. :func:`check`
gives them the first as :class:`Report` values, :func:`attacks` the second.

A commitment is a deal the notary confirmed, or a promise accepted (``referee.notary``,
``docs/negotiation.md``), with its participants and the phase it was made in: a promise
holds its sender as a deal holds each power it commits. Each power the deal commits (``referee.binding.committed``) that is a participant is
checked against the orders it gave (units without an order held; dislodged units
without one disbanded), part by part: the operands of ``&`` and the steps of ``;``, taken
apart as far as they go (a step without a time of its own has no fixed phase: it is not
checked). A part that says nothing about this power in this phase gives no report. What
each piece means (times as in ``referee.binding``):

- ``Do(x)``: kept iff the power ordered exactly ``x`` (a unit's default hold counts as
  ``hld``; a convoyed move's route and a supported move's coast do not count). Only the
  power that gives ``x`` is held to it, in the phase of its time, or untimed in the
  phase the deal was made in, and only when ``x`` is an order of that phase's kind.
- ``~Do(x)``: kept iff it did not order ``x``.
- ``pce(P)``: for a power of P, broken by each attack (see :func:`attacks`) on another
  power of P. ``aly(A, B)``: for a power of A, broken by an attack on another power of A;
  attacking B is what the alliance is for, but not doing so breaks nothing. Neither is
  checked in adjustment phases, where no order attacks anyone.
- ``dmz(P, provinces)``: for a power of P, broken by moving, retreating or building a
  unit into one of the provinces, or keeping one there (holding, supporting or convoying
  from it, or leaving it without an order). A move out that bounces keeps it.
- ``~ϕ``: the negation of ϕ; a conjunction or sequence inside it holds when all its parts
  do (Kleene's logic: an unknown part leaves it unknown unless another part is broken).
- A negated predicate (``~pce``, ``~dmz``, ...) promises nothing checkable; ``drw``,
  ``slo``, time comparisons and time variables are not checkable in a phase: no report.
  Predicates hold from the phase the deal was made in on (a timed one in its phase only);
  their own power must be among the predicate's powers, else they are not about its orders.

>>> from engine import Position, adjudicate, parse_order
>>> from protocol.l import parse
>>> start = Position.initial()
>>> deal = parse("propose(fra, ger, Agree([fra ger], dmz([fra ger], [bur])))").deal
>>> orders = {"FRA": [parse_order(start.map, "A PAR - BUR")], "GER": [parse_order(start.map, "A MUN - RUH")]}
>>> outcome = adjudicate(start, orders)
>>> for r in check([Commitment(deal, frozenset({"FRA", "GER"}), "S1901M")], start, orders, outcome.results, outcome.position):
...     print(r.power, r.part, r.kept, r.detail)
FRA dmz([fra ger], [bur]) False A PAR - BUR (ok); A BUR there after the phase
GER dmz([fra ger], [bur]) True no unit of ger ordered into or kept in bur
>>> attacks(start, {"GER": [parse_order(start.map, "A MUN - BUR"), parse_order(start.map, "A KIE - HOL")]})
[]
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import engine.orders as eo
from engine.maps import ARMY, Map
from engine.orders import format_order
from engine.position import ADJUSTMENTS, MOVEMENT, RETREATS, Phase, Position, Unit
from protocol.l import ast as a
from protocol.l.actions import ActionError, action_from_order, unit_from_engine, unit_to_engine
from protocol.l.printer import to_text
from referee.binding import action_key, actor, in_force, literals, terms

__all__ = ["Attack", "Commitment", "Report", "attacks", "check"]


class Attack(NamedTuple):
    """``attacker`` moved, supported or convoyed a move against ``victim`` into ``province``
    (powers, the province's map name)."""

    attacker: str
    victim: str
    province: str


@dataclass(frozen=True, slots=True)
class Commitment:
    """A confirmed deal or an accepted promise (``promise``), who took part in it (L names) and
    the phase it was made in."""

    deal: a.Deal | a.Agree
    participants: frozenset[str]
    phase: str
    promise: bool = False

    def lasts_after(self, phase: str) -> bool:
        """Whether some part may still be checked after ``phase``: an untimed predicate, or
        anything timed for a later phase (a server may drop the commitment otherwise).

        >>> from protocol.l import parse
        >>> peace = parse("propose(eng, fra, Agree([eng fra], pce([eng fra])))").deal
        >>> Commitment(peace, frozenset({"ENG", "FRA"}), "S1901M").lasts_after("S1901M")
        True
        """
        later = Phase.parse(phase)
        return any(
            x.time.phase > later if x.time is not None else not isinstance(x.atom, a.Do)
            for x in literals(self.deal)
        )


@dataclass(frozen=True, slots=True)
class Report:
    """Whether ``power`` kept ``part`` (L text) of ``deal`` in the phase checked, and
    why; ``commitment`` is the index of the commitment among those :func:`check` was given."""

    power: str
    deal: a.Deal | a.Agree
    part: str
    kept: bool
    detail: str
    commitment: int

    def to_json(self) -> dict[str, str | bool]:
        """The report as a compliance frame lists it (the frame names the deal), the power as L
        writes it, as the part does."""
        return {"power": self.power.lower(), "part": self.part, "kept": self.kept, "detail": self.detail}


@dataclass(frozen=True, slots=True)
class _Hostile:
    attacker: str
    victim: str
    province: int
    order: eo.Order


def attacks(before: Position, orders: Mapping[str, Sequence[eo.Order]]) -> list[Attack]:
    """The attacks of a phase: one for each order and each power it is against.

    In a movement phase an order moves (by land or convoy), supports a move or convoys
    an army into a province; it attacks the power whose unit is there, unless that unit
    was ordered to move away (following a unit in is no attack, nor is a swap), and the
    power owning the province as a supply centre. Neither the power ordering nor the one
    whose unit moves is its victim (supporting an ally into its own centre is no attack).
    In a retreat phase a retreat into a supply centre owned by another power attacks that
    power. Orders for units the power does not have are void and attack no one. Powers are
    taken in alphabetical order, each one's orders in the order given.

    >>> from engine import Position, parse_order
    >>> board = Position.build("S1901M", {"FRA": ["A BUR", "A PAR"], "GER": ["A MUN", "A RUH"]},
    ...                        centers={"GER": ["MUN"]})
    >>> attacks(board, {"FRA": [parse_order(board.map, "A BUR - MUN"), parse_order(board.map, "A PAR S A BUR - MUN")]})
    [Attack(attacker='FRA', victim='GER', province='MUN'), Attack(attacker='FRA', victim='GER', province='MUN')]
    """
    names = before.map.locations
    return [Attack(h.attacker, h.victim, names[h.province]) for h in _hostile(before, orders)]


def _hostile(before: Position, orders: Mapping[str, Sequence[eo.Order]]) -> list[_Hostile]:
    m = before.map
    province_of = m.province_of
    kind = before.phase.kind
    found = []
    for power in sorted(orders):
        for order in orders[power]:
            if isinstance(order, eo.Waive):
                continue
            target = None
            unit = before.unit_at.get(province_of[order.location])
            if kind == MOVEMENT and unit is not None and unit.power == power:
                target = _movement_target(before, power, order)
            elif kind == RETREATS and isinstance(order, eo.Retreat) and _dislodged(before, power, order) is not None:
                target = province_of[order.destination], power
            if target is None:
                continue
            province, mover = target
            victims = []
            occupant = before.unit_at.get(province) if kind == MOVEMENT else None
            if occupant is not None and occupant.power not in (power, mover):
                leaving = any(
                    isinstance(o, eo.Move) and province_of[o.location] == province
                    for o in orders.get(occupant.power, ())
                )
                if not leaving:
                    victims.append(occupant.power)
            owner = before.centers[province]
            if owner is not None and owner not in (power, mover, *victims):
                victims.append(owner)
            found += [_Hostile(power, victim, province, order) for victim in victims]
    return found


def _movement_target(before: Position, power: str, order: eo.Order) -> tuple[int, str] | None:
    """The province ``order`` moves, supports or convoys into, and the power of the unit moving."""
    province_of = before.map.province_of
    if isinstance(order, eo.Move):
        return province_of[order.destination], power
    if isinstance(order, eo.SupportMove | eo.Convoy):
        source = order.supported_location if isinstance(order, eo.SupportMove) else order.army_location
        moving = before.unit_at.get(province_of[source])
        if moving is not None:
            return province_of[order.destination], moving.power
    return None


def _dislodged(before: Position, power: str, order: eo.Order) -> Unit | None:
    """The dislodged unit of ``power`` that ``order`` is for, in a retreat phase."""
    province_of = before.map.province_of
    here = _province(before.map, order)
    return next(
        (d.unit for d in before.dislodged if d.unit.power == power and province_of[d.unit.location] == here), None
    )


def check(
    commitments: Iterable[Commitment],
    before: Position,
    orders: Mapping[str, Sequence[eo.Order]],
    results: Mapping[Unit, Sequence[str]],
    after: Position,
) -> list[Report]:
    """The reports of the phase played from ``before`` with each power's given ``orders``
    (by power) to ``after``; ``results`` are the adjudicator's words for each unit, quoted
    in the details. Commitments made after ``before``'s phase are skipped. Reports come in
    the order of the commitments, then of the committed powers, then of the parts."""
    board = _Board(before, orders, results, after)
    reports = []
    for index, commitment in enumerate(commitments):
        made = Phase.parse(commitment.phase)
        if before.phase < made:
            continue
        for power, formula, time in terms(commitment.deal):
            if power not in commitment.participants:
                continue
            for part, sequenced in _parts(formula, False):
                kept, detail = board.value(power, part, time, made, sequenced, negated=False)
                if kept is not None:
                    reports.append(Report(power, commitment.deal, to_text(part), kept, detail, index))
    return reports


def _parts(formula: a.Info, sequenced: bool) -> list[tuple[a.Info, bool]]:
    """The parts reported on their own: the operands of ``&`` and the steps of ``;``, taken
    apart as far as they go, each with whether it is a step of a sequence."""
    if isinstance(formula, a.And):
        return [part for item in formula.operands for part in _parts(item, sequenced)]
    if isinstance(formula, a.Seq):
        return [part for step in formula.steps for part in _parts(step, True)]
    return [(formula, sequenced)]


@dataclass
class _Board:
    """The phase played, and what each power did in it."""

    before: Position
    orders: Mapping[str, Sequence[eo.Order]]
    results: Mapping[Unit, Sequence[str]]
    after: Position
    _done: dict[str, dict[Hashable, eo.Order | None]] = field(default_factory=dict)
    _hostile: list[_Hostile] | None = None

    def value(
        self, power: str, f: a.Info, time: a.Time | None, made: Phase, sequenced: bool, negated: bool
    ) -> tuple[bool | None, str]:
        """Whether ``power`` kept ``f`` (None: not checkable), and the evidence."""
        if isinstance(f, a.Not):
            kept, detail = self.value(power, f.operand, time, made, sequenced, not negated)
            return (None if kept is None else not kept), detail
        if isinstance(f, a.And | a.Seq):
            inner = sequenced or isinstance(f, a.Seq)
            items = f.operands if isinstance(f, a.And) else f.steps
            values = [self.value(power, item, time, made, inner, negated) for item in items]
            if any(kept is False for kept, _ in values):
                return False, "; ".join(detail for kept, detail in values if kept is False)
            if all(kept for kept, _ in values):
                return True, "; ".join(detail for _, detail in values)
            return None, ""
        if not isinstance(f, a.Do | a.Pce | a.Aly | a.Dmz) or (negated and not isinstance(f, a.Do)):
            return None, ""
        when = (f.time or time) if isinstance(f, a.Do) else time
        if isinstance(when, a.TimeVar) or (when is None and sequenced):
            return None, ""
        if isinstance(f, a.Do) and actor(f.action) != power:
            return None, ""
        if not in_force(f, when, self.before.phase, made):
            return None, ""
        if isinstance(f, a.Do):
            return self._do(power, f.action)
        if isinstance(f, a.Dmz):
            return self._dmz(power, f)
        if self.before.phase.kind == ADJUSTMENTS:
            return None, ""  # no order of an adjustment phase attacks anyone
        return self._peace(power, f.powers if isinstance(f, a.Pce) else f.allies)

    # --- the pieces -------------------------------------------------------------------------

    def _do(self, power: str, action: a.Action) -> tuple[bool, str]:
        m = self.before.map
        done = self.done(power)
        key = action_key(action)
        if key in done:
            order = done[key]
            return True, self._describe(power, order) if order is not None else self._default(action)
        if isinstance(action, a.Wve | a.Bld):
            return False, "not ordered"
        here = m.province_of[m.location(action.unit.region.province)]
        instead = [o for o in self.orders.get(power, ()) if _province(m, o) == here]
        if instead:
            return False, "ordered " + "; ".join(self._describe(power, o) for o in instead)
        for default, order in done.items():
            if order is None and isinstance(default, a.Hld | a.Dsb) and default.unit.region == action.unit.region:
                return False, self._default(default)
        return False, "not ordered"

    def _peace(self, power: str, parties: frozenset[str]) -> tuple[bool | None, str]:
        if power not in parties:
            return None, ""
        m = self.before.map
        others = parties - {power}
        hits = [h for h in self.hostile() if h.attacker == power and h.victim in others]
        if not hits:
            return True, "no attack on " + ", ".join(sorted(p.lower() for p in others))
        return False, "; ".join(
            f"{self._describe(power, h.order)} attacks {h.victim.lower()} in {m.locations[h.province].lower()}"
            for h in hits
        )

    def _dmz(self, power: str, dmz: a.Dmz) -> tuple[bool | None, str]:
        if power not in dmz.powers:
            return None, ""
        before = self.before
        m = before.map
        province_of = m.province_of
        zone = {province_of[m.location(p)] for p in dmz.provinces}
        kind = before.phase.kind
        breaches = []
        ordered = set()
        for order in self.orders.get(power, ()):
            here = _province(m, order)
            if here is None:
                continue
            unit = before.unit_at.get(here)
            if kind == MOVEMENT and unit is not None and unit.power == power:
                ordered.add(here)
                into = province_of[order.destination] if isinstance(order, eo.Move) else here
            elif kind == RETREATS and isinstance(order, eo.Retreat) and _dislodged(before, power, order) is not None:
                into = province_of[order.destination]
            elif isinstance(order, eo.Build):
                into = here
            else:
                continue
            if into in zone:
                breaches.append(self._describe(power, order))
        if kind == MOVEMENT:
            idle = [u for u in before.units_of(power) if province_of[u.location] in zone - ordered]
            breaches += [f"{before.unit_name(u)} held (no order)" for u in idle]
        if not breaches:
            return True, f"no unit of {power.lower()} ordered into or kept in {', '.join(sorted(dmz.provinces))}"
        there = [self.after.unit_name(u) for u in self.after.units_of(power) if province_of[u.location] in zone]
        return False, "; ".join(breaches + ([", ".join(there) + " there after the phase"] if there else []))

    # --- what was done ------------------------------------------------------------------------

    def done(self, power: str) -> dict[Hashable, eo.Order | None]:
        """The keys of the actions ``power`` took, each with its order (None: a unit's default)."""
        if power in self._done:
            return self._done[power]
        before = self.before
        m = before.map
        done: dict[Hashable, eo.Order | None] = {}
        ordered = set()
        for order in self.orders.get(power, ()):
            try:
                action = action_from_order(before, power, order)
            except ActionError:
                continue
            done.setdefault(action_key(action), order)
            ordered.add(_province(m, order))
        kind = before.phase.kind
        if kind == MOVEMENT:
            for u in before.units_of(power):
                if m.province_of[u.location] not in ordered:
                    done.setdefault(action_key(a.Hld(unit_from_engine(m, u))), None)
        elif kind == RETREATS:
            for d in before.dislodged:
                if d.unit.power == power and m.province_of[d.unit.location] not in ordered:
                    done.setdefault(action_key(a.Dsb(unit_from_engine(m, d.unit))), None)
        self._done[power] = done
        return done

    def hostile(self) -> list[_Hostile]:
        if self._hostile is None:
            self._hostile = _hostile(self.before, self.orders)
        return self._hostile

    def _default(self, action: a.Action) -> str:
        """What the unit of ``action`` did without an order: it held, or (dislodged) disbanded."""
        assert isinstance(action, a.Hld | a.Dsb)  # the only defaults
        name = self.before.unit_name(unit_to_engine(self.before.map, action.unit))
        return f"{name} held (no order)" if isinstance(action, a.Hld) else f"{name} disbanded (no order)"

    def _describe(self, power: str, order: eo.Order) -> str:
        """An order in short notation with its result words."""
        text = format_order(self.before.map, order)
        unit = self._unit_of(power, order)
        words = None if unit is None else self.results.get(unit)
        return f"{text} ({', '.join(words)})" if words else text

    def _unit_of(self, power: str, order: eo.Order) -> Unit | None:
        """The unit ``order`` is for, as the results name it (a build: the unit built)."""
        if isinstance(order, eo.Build):
            return Unit(power, ARMY if order.type is None else order.type, order.location)
        if self.before.phase.kind == RETREATS:
            return _dislodged(self.before, power, order)
        here = _province(self.before.map, order)
        return None if here is None else self.before.unit_at.get(here)


def _province(m: Map, order: eo.Order) -> int | None:
    """The province of the unit ``order`` is for (None for a waive)."""
    return None if isinstance(order, eo.Waive) else m.province_of[order.location]

"""The notary: BANDANA's Unstructured Negotiation Protocol, for one game.

In D-Brane's protocol (de Jonge and Sierra, section 4) proposing and accepting are the
same act: a power *endorses* a deal. A deal is confirmed as soon as every power it
commits (``referee.binding.committed``: the α of each Commit, every power of an Agree) has
endorsed it, provided it is consistent with the deals already confirmed: confirmed deals
are never undone within a phase, so a deal that contradicts one can never be confirmed in
that phase, and the notary says so at once, at any endorsement. A new phase starts afresh.
An endorsement lasts until the power takes it back (:meth:`Notary.forget`: its proposal
was rejected or withdrawn, or it rejected the proposal): a rejected proposal is confirmed
only by new agreement.

A *promise* is not a deal to confirm (``docs/negotiation.md``): a power that proposes a
deal committing itself alone only offers it (:class:`Offered`); once another power
accepts it, it is :class:`Accepted`, and holds its sender like a confirmed deal (the
notary checks later deals against it, and a binding game enforces its orders). Asked by
another power (a *request*), the same deal is confirmed when its committed power accepts.

Two sets of deals are inconsistent when no orders of the phase could keep them all, as
``referee.compliance`` judges keeping. The notary finds these cases (sound, not
complete), between a deal and itself or a deal confirmed before, comparing commitments
for the same phase (untimed ``Do``: this phase; untimed predicates: every phase):

- one unit (the unit in a province) committed to two different orders;
- ``Do(x)`` and ``~Do(x)``;
- ``dmz(P, provinces)`` binding a power, with an order of that power moving, retreating
  or building a unit into the provinces, or holding, supporting or convoying from them;
- ``pce(P)`` or ``aly(P, ...)`` binding a power, with an order of that power, this phase,
  that moves, supports or convoys a move into a supply centre another power of P owns.
  A move into a province another party's unit stands in is no certain breach (the unit
  may leave, and following a unit in is no attack), so it is not a conflict;
- ``pce(P)`` and ``aly(A, E)`` binding one power, with another power of P among the
  enemies E (peace with X and an alliance against X); two alliances binding one power,
  one with a power the other is against (an alliance with X against X included);
- a predicate (``pce``, ``aly``, ``dmz``) and its negation, binding one power;
- two different ends of the game (``drw`` and ``slo``) agreed by one power.

State is only what the calls say, in their order: no clock, no randomness, and sets
iterated sorted, so replaying the stored calls rebuilds the same notary and outcomes.

>>> from engine import Position
>>> from protocol.l import parse
>>> start = Position.initial()
>>> notary = Notary(start.map)
>>> notary.new_phase("S1901M")
>>> peace = parse("propose(eng, fra, Agree([eng fra], pce([eng fra])))").deal
>>> notary.endorse("ENG", peace, start, proposing=True).missing
frozenset({'FRA'})
>>> notary.endorse("FRA", peace, start) == Confirmed(peace, frozenset({"ENG", "FRA"}))
True
>>> stab = parse("propose(eng, fra, Commit(eng, fra, Do(mto(Unit(eng, Region(lon, coast)), Region(ech, sea)))))").deal
>>> type(notary.endorse("ENG", stab, start, proposing=True)).__name__  # only eng is committed: a promise
'Offered'
>>> sorted(notary.endorse("FRA", stab, start).participants)  # accepted: it holds eng
['ENG', 'FRA']
>>> notary.endorse("ENG", parse("propose(eng, fra, Commit(eng, fra, Do(hld(Unit(eng, Region(lon, coast))))))").deal, start).reason
'the unit in lon is committed to hld(Unit(eng, Region(lon, coast))) and to mto(Unit(eng, Region(lon, coast)), Region(ech, sea))'
>>> war = parse("propose(eng, ger, Agree([eng ger], aly([eng ger], [fra])))").deal
>>> notary.endorse("ENG", war, start, proposing=True).reason
'England cannot keep the peace with France and be allied against France'
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import TypeAlias

from engine.maps import Map
from engine.position import Phase, Position
from protocol.l import ast as a
from referee.binding import Literal, action_key, actor, committed, kind_of, literals, terms

__all__ = ["Accepted", "Confirmed", "Conflict", "Notary", "Offered", "Outcome", "Pending", "is_promise", "participants"]


@dataclass(frozen=True, slots=True)
class Pending:
    """Not confirmed yet: ``missing`` are the committed powers yet to propose or accept it."""

    deal: a.Deal | a.Agree
    missing: frozenset[str]


@dataclass(frozen=True, slots=True)
class Confirmed:
    """Confirmed this phase; ``participants`` are the powers to tell (see :func:`participants`)."""

    deal: a.Deal | a.Agree
    participants: frozenset[str]


@dataclass(frozen=True, slots=True)
class Offered:
    """A promise (a deal committing ``by`` alone, which ``by`` proposed): offered, nothing to
    confirm; it holds ``by`` once another power accepts it."""

    deal: a.Deal | a.Agree
    by: str


@dataclass(frozen=True, slots=True)
class Accepted:
    """A promise accepted this phase: it holds its sender as a confirmed deal would;
    ``participants`` are the powers to tell (see :func:`participants`)."""

    deal: a.Deal | a.Agree
    participants: frozenset[str]


@dataclass(frozen=True, slots=True)
class Conflict:
    """Cannot be confirmed this phase: it contradicts ``with_deal`` (itself, or one confirmed)."""

    deal: a.Deal | a.Agree
    reason: str
    with_deal: a.Deal | a.Agree


Outcome: TypeAlias = Pending | Offered | Confirmed | Accepted | Conflict


def participants(deal: a.Deal | a.Agree) -> frozenset[str]:
    """The powers a deal names: those it commits and those the commitments are made to."""
    if isinstance(deal, a.Agree):
        return deal.agents
    return frozenset().union(*({c.agent, *c.agents} for c in deal.commits))


def is_promise(proposer: str, deal: a.Deal | a.Agree) -> bool:
    """Whether ``deal``, proposed by ``proposer``, is a promise: it commits the proposer alone
    (one side offers; the other accepts or rejects)."""
    return committed(deal) == {proposer}


class Notary:
    """The deals endorsed and confirmed (and promises accepted) in one game's current phase."""

    def __init__(self, m: Map) -> None:
        self.map = m
        self._phase: Phase | None = None
        self._endorsed: dict[a.Deal | a.Agree, set[str]] = {}
        self._proposed: dict[a.Deal | a.Agree, set[str]] = {}  # the endorsers that proposed it
        self._confirmed: dict[a.Deal | a.Agree, tuple[Confirmed | Accepted, _Claims]] = {}
        # what a deal claims depends only on the deal and the phase's board: worked out once
        # (a deal is endorsed again and again: proposed, accepted). Not why two deals clash:
        # kept for every pair, that grew to a million tuples a phase, and the collector's
        # walks over them stopped the server for half a second
        self._claims: dict[a.Deal | a.Agree, _Claims] = {}

    @property
    def phase(self) -> str | None:
        """The current phase (``S1901M``), None before the first."""
        return None if self._phase is None else str(self._phase)

    def new_phase(self, phase: str) -> None:
        """Start ``phase``: no deal is endorsed or confirmed in it yet."""
        self._phase = Phase.parse(phase)
        self._endorsed.clear()
        self._proposed.clear()
        self._confirmed.clear()
        self._claims.clear()

    def endorse(self, power: str, deal: a.Deal | a.Agree, position: Position, proposing: bool = False) -> Outcome:
        """``power`` (L name) proposed (``proposing``) or accepted ``deal``; ``position`` is
        the board of the phase.

        A deal already confirmed (or a promise accepted) this phase gives its outcome again
        (the same participants): the server tells nobody twice by comparing. The
        participants of a new confirmation are those the deal names and every power that
        endorsed it. A deal whose one committed power proposed it, and nobody else endorsed,
        is :class:`Offered`: a promise; the first other endorsement makes it
        :class:`Accepted`.
        """
        if deal in self._confirmed:
            return self._confirmed[deal][0]
        endorsers = self._endorsed.setdefault(deal, set())
        endorsers.add(power)
        if proposing:
            self._proposed.setdefault(deal, set()).add(power)
        claims = self._claims.get(deal)
        if claims is None or claims.position is not position:
            claims = self._claims[deal] = _Claims.of(deal, self._phase or position.phase, position)
        clash = _clash(claims, claims)
        if clash is not None:
            return Conflict(deal, clash, deal)
        for other, other_claims in self._confirmed.values():
            if claims.reach.isdisjoint(other_claims.reach):
                continue  # nothing in common: no contradiction possible
            clash = _clash(claims, other_claims) or _clash(other_claims, claims)
            if clash is not None:
                return Conflict(deal, clash, other.deal)
        bound = committed(deal)
        missing = bound - endorsers
        if missing:
            return Pending(deal, frozenset(missing))
        promise = len(bound) == 1 and bound <= self._proposed.get(deal, set())
        if promise and endorsers == bound:
            (by,) = bound
            return Offered(deal, by)
        record: Confirmed | Accepted
        if promise:
            record = Accepted(deal, participants(deal) | endorsers)
        else:
            record = Confirmed(deal, participants(deal) | endorsers)
        del self._endorsed[deal]
        self._proposed.pop(deal, None)
        self._confirmed[deal] = (record, claims)
        return record

    def forget(self, power: str, deal: a.Deal | a.Agree) -> bool:
        """``power`` no longer endorses ``deal`` (its proposal was rejected or withdrawn, or
        it rejected the deal): whether it did. A confirmed deal stays confirmed."""
        endorsers = self._endorsed.get(deal, set())
        if power not in endorsers:
            return False
        endorsers.discard(power)
        self._proposed.get(deal, set()).discard(power)
        if not endorsers:
            del self._endorsed[deal]
            self._proposed.pop(deal, None)
        return True

    def endorsers(self, deal: a.Deal | a.Agree) -> frozenset[str]:
        """The powers endorsing ``deal`` now (not confirmed yet)."""
        return frozenset(self._endorsed.get(deal, ()))

    def confirmed(self) -> list[a.Deal | a.Agree]:
        """The deals confirmed this phase, in the order they were confirmed (not the promises)."""
        return [deal for deal, (record, _) in self._confirmed.items() if isinstance(record, Confirmed)]

    def is_agreed(self, deal: a.Deal | a.Agree) -> bool:
        """Whether ``deal`` is confirmed, or an accepted promise, this phase (one look, where
        ``deal in agreed()`` would build the list)."""
        return deal in self._confirmed

    def agreed(self) -> list[a.Deal | a.Agree]:
        """The deals confirmed and the promises accepted this phase, in that order: what holds
        the powers (and what a binding game enforces)."""
        return list(self._confirmed)


# --- consistency ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Order:
    """A committed order: ``power`` does ``action`` in ``phase`` (or refuses it, in ``refusals``)."""

    power: str
    phase: Phase
    province: str | None  # of the unit ordered; None for a waive
    key: Hashable
    action: a.Action


@dataclass(frozen=True, slots=True)
class _Rule:
    """A committed predicate binding ``power``, for ``phase`` (None: every phase)."""

    power: str
    phase: Phase | None
    atom: a.Pce | a.Aly | a.Dmz


@dataclass(frozen=True, slots=True)
class _Claims:
    """What one deal commits powers to, for comparing with another deal."""

    orders: tuple[_Order, ...]
    refusals: tuple[_Order, ...]
    rules: tuple[_Rule, ...]
    now: Phase
    position: Position
    denials: tuple[_Rule, ...] = ()  # ~pce, ~aly, ~dmz binding a power
    ends: tuple[tuple[str, a.Drw | a.Slo], ...] = ()  # an end of the game each power agreed to
    reach: frozenset[Hashable] = frozenset()  # the powers and units (phase, province) it makes claims on

    @classmethod
    def of(cls, deal: a.Deal | a.Agree, now: Phase, position: Position) -> _Claims:
        orders: list[_Order] = []
        refusals: list[_Order] = []
        rules: list[_Rule] = []
        for literal in literals(deal):
            atom = literal.atom
            if isinstance(atom, a.Do):
                phase = _phase(literal, now)
                if kind_of(atom.action) == phase.kind:
                    province = None if isinstance(atom.action, a.Wve) else atom.action.unit.region.province
                    order = _Order(literal.power, phase, province, action_key(atom.action), atom.action)
                    (orders if literal.positive else refusals).append(order)
            elif _binds(literal.power, atom):
                rules.append(_Rule(literal.power, None if literal.time is None else literal.time.phase, atom))
        denials: list[_Rule] = []
        ends: list[tuple[str, a.Drw | a.Slo]] = []
        for power, formula, time in terms(deal):
            if isinstance(time, a.TimeVar):
                continue
            for atom, positive in _atoms(formula):
                if isinstance(atom, a.Drw | a.Slo):
                    if positive:
                        ends.append((power, atom))
                elif not positive and _binds(power, atom):
                    denials.append(_Rule(power, None if time is None else time.phase, atom))
        # every clash of _clash is between two claims on one power, or on one unit: a deal that
        # shares neither with another cannot contradict it
        reach: list[Hashable] = [o.power for o in (*orders, *refusals)]
        reach += [r.power for r in (*rules, *denials)] + [power for power, _ in ends]
        reach += [(o.phase, o.province) for o in (*orders, *refusals) if o.province is not None]
        return cls(
            tuple(orders), tuple(refusals), tuple(rules), now, position, tuple(denials), tuple(ends), frozenset(reach)
        )


def _atoms(formula: a.Info, positive: bool = True) -> list[tuple[a.Pce | a.Aly | a.Dmz | a.Drw | a.Slo, bool]]:
    """The predicates a formula asserts (``positive``) or denies on their own: through ``&``
    and negation, not through ``;`` (whose later steps have no fixed phase) nor a negated ``&``."""
    if isinstance(formula, a.Not):
        return _atoms(formula.operand, not positive)
    if isinstance(formula, a.And):
        return [x for item in formula.operands for x in _atoms(item, positive)] if positive else []
    if isinstance(formula, a.Pce | a.Aly | a.Dmz | a.Drw | a.Slo):
        return [(formula, positive)]
    return []


def _phase(literal: Literal, now: Phase) -> Phase:
    return now if literal.time is None else literal.time.phase


def _binds(power: str, atom: a.Do | a.Pce | a.Aly | a.Dmz) -> bool:
    """A predicate binds a power that is among its powers (among the allies for ``aly``)."""
    if isinstance(atom, a.Aly):
        return power in atom.allies
    return isinstance(atom, a.Pce | a.Dmz) and power in atom.powers


def _clash(mine: _Claims, theirs: _Claims) -> str | None:
    """Why ``mine`` contradicts ``theirs``, in the first case found; None if it does not."""
    for order in mine.orders:
        for other in theirs.orders:
            same_unit = order.province is not None and (order.phase, order.province) == (other.phase, other.province)
            if same_unit and order.key != other.key:
                first, second = sorted((str(order.action), str(other.action)))
                return f"the unit in {order.province} is committed to {first} and to {second}"
        for refusal in theirs.refusals:
            if (order.phase, order.key) == (refusal.phase, refusal.key):
                return f"{order.action} is both committed and refused"
        for rule in theirs.rules:
            if rule.power == order.power and rule.phase in (None, order.phase):
                breach = _breach(rule, order, mine.position if mine.now == order.phase else None)
                if breach is not None:
                    return breach
    m = mine.position.map
    for rule in mine.rules:
        for other in theirs.rules:
            if rule.power == other.power and _overlap(rule.phase, other.phase):
                found = _opposed(rule.power, rule.atom, other.atom, m)
                if found is not None:
                    return found
        for denial in theirs.denials:
            if rule.power == denial.power and rule.atom == denial.atom and _overlap(rule.phase, denial.phase):
                return f"{_name(m, rule.power)} cannot both agree to {rule.atom} and to its negation"
    for power, end in mine.ends:
        for other_power, other_end in theirs.ends:
            if power == other_power and end != other_end:
                first, second = sorted((_end(m, end), _end(m, other_end)))
                return f"{_name(m, power)} cannot agree that the game ends in {first} and in {second}"
    return None


def _overlap(one: Phase | None, other: Phase | None) -> bool:
    """Whether two predicates are in force in a common phase (None: from this phase on)."""
    return one is None or other is None or one == other


def _name(m: Map, power: str) -> str:
    """A power's name in plain words: ``FRA`` is France."""
    return m.power_names[power].title()


def _names(m: Map, powers: set[str] | frozenset[str]) -> str:
    return " and ".join(_name(m, p) for p in sorted(powers))


def _end(m: Map, end: a.Drw | a.Slo) -> str:
    if isinstance(end, a.Slo):
        return f"a solo win for {_name(m, end.power)}"
    return f"a draw between {_names(m, end.powers)}"


def _opposed(power: str, atom: a.Pce | a.Aly | a.Dmz, other: a.Pce | a.Aly | a.Dmz, m: Map) -> str | None:
    """Why ``power`` cannot keep two predicates that bind it: peace with a power and an
    alliance against it, or alliances with a power and against it."""
    who = _name(m, power)
    friends_of = {
        id(x): (x.powers if isinstance(x, a.Pce) else x.allies) - {power}
        for x in (atom, other)
        if isinstance(x, a.Pce | a.Aly)
    }
    for first, second in ((atom, other), (other, atom)):
        if not isinstance(second, a.Aly) or id(first) not in friends_of:
            continue
        against = friends_of[id(first)] & second.enemies
        if not against:
            continue
        names = _names(m, against)
        if isinstance(first, a.Pce):
            return f"{who} cannot keep the peace with {names} and be allied against {names}"
        return f"{who} cannot be allied with {names} and allied against {names}"
    return None


def _breach(rule: _Rule, order: _Order, board: Position | None) -> str | None:
    """Why ``order`` breaks ``rule`` of the same power; ``board`` is known for this phase only."""
    action = order.action
    atom = rule.atom
    if isinstance(atom, a.Dmz):
        if isinstance(action, a.Mto | a.Cto | a.Rto):
            into = action.region.province
        elif isinstance(action, a.Hld | a.Sup | a.Cvy | a.Bld):
            into = action.unit.region.province
        else:
            return None
        return f"{action} enters or stays in {into}, against {atom}" if into in atom.provinces else None
    if board is None:
        return None
    if isinstance(action, a.Mto | a.Cto):
        into, mover = action.region.province, actor(action)
    elif isinstance(action, a.Sup) and isinstance(action.order, a.Mto):
        into, mover = action.order.region.province, actor(action.order)
    elif isinstance(action, a.Cvy):
        into, mover = action.move.region.province, actor(action.move)
    else:
        return None
    m = board.map
    owner = board.centers[m.province_of[m.location(into)]]
    parties = atom.allies if isinstance(atom, a.Aly) else atom.powers
    if owner is not None and owner in parties and owner not in (order.power, mover):
        return f"{action} goes into {into}, a centre of {owner.lower()}, against {atom}"
    return None

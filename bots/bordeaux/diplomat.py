"""The Bordeaux diplomat: a negotiator over a strategic core, watching the board.

Loeb's treatise (section "The Bordeaux Diplomat", "Division of Control") splits the
diplomat into a *strategic core* (:mod:`bots.bordeaux.strategy`, RES), which knows the map
and nothing of diplomacy, and a *negotiator*, which knows who is a friend and what was
agreed and asks the core concrete questions. The negotiator learns the diplomatic
constraints in two ways, "by negotiating with the other players, and by observing the moves
made on the board" (*The Observation Module*): the second is
:mod:`bots.bordeaux.observation`, and the ambassador (:mod:`bots.bordeaux.ambassador`)
asks for an explanation when an agreement with us is broken. The treatise leaves the
negotiator itself to "a later article", never written; this one is ours, kept simple:

**Each movement phase** (:meth:`Bordeaux.orders`): the friendliness matrix gives the blocs
and their mortal enemies; the *concerned* powers are ours and those with a unit that can
reach a province our units can reach or stand in, or one of our centres; our alliance is
our bloc among them, without the powers we do not trust (StabLimit below :attr:`TRUST`);
the other concerned powers form their blocs' alliances. Every concerned unit starts from
a predicted order, its seed: ours from DumbBot's orders (our own first guess, drawn with
our ``rng``), the others' from the opponent model (:mod:`bots.bordeaux.prediction`,
:attr:`Bordeaux.PREDICTOR`): by default one learnt from the orders the other powers gave
in the phases before, starting from a generic prior; ``bordeaux:dumbbot-model`` predicts
them with private copies of DumbBot instead, exact against DumbBots. The units of our
allies keep them (a diplomat gives orders
to its own units only: RES plans ours around its allies' expected moves, and values the
position for the whole alliance), and so do the other alliances, by default
(:attr:`bots.bordeaux.strategy.Search.focus`, which says why). The constraints are those
of the deals we keep that are in force this phase (``referee.binding.literals``): ours
always, a trusted partner's as a prediction of its moves. RES then gives our orders.

**Retreats and adjustments** are DumbBot's (the treatise: "during the building and retreat
phases, the number of possible moves is never quite so astronomical": a full one-ply
search is possible; DumbBot's greedy choice by the same place values stands in for it).

**Negotiation** (L, in the movement phases, on the simulated clock of rounds):

* at the start of a phase, the ambassador's questions about the agreements broken in the
  last phases, then a proposal of peace for this phase, ``Agree([me X], pce([me X]), t)``,
  to each power that is neither untrusted nor a mortal enemy of our bloc, to everyone in
  the first phase and then to the powers that have spoken to us; and to each power that
  has kept a deal with us, a demilitarised zone for this phase of the provinces both can
  reach that are no centre and where no unit stands. Without level 6 (a time) the deals
  are untimed, and then last until a partner breaks them;
* a proposal is accepted when its sender is trusted and no mortal enemy, every power it
  commits is the sender or us, and every part is one we can keep: peace; an alliance
  against powers outside our bloc; a demilitarised zone without a centre of ours; a
  refusal (``~Do``) of anything; an action (``Do``) of the sender's units, or of ours only
  when the sender is our ally; anything else is rejected;
* we keep what we confirmed or accepted (the deals the server checks, with the same
  participants) until a partner breaks the deal: we then hold ourselves released from it.

**After each phase** (:meth:`Bordeaux.on_results`) the opponent model is shown the orders
every power gave (and the predictions of the movement phase are scored against them:
:attr:`Bordeaux.predicted`, :attr:`Bordeaux.hits`), the adjudication is replayed to get the
results, the deals we keep are checked (:func:`referee.compliance.check`), the
friendliness matrix is updated, and each part broken by another party signals the
ambassador and sets the breaker's StabLimit to what the breach gained it
(:meth:`Bordeaux._breach_gain`: its value with its orders against those orders with the
attacks on the other parties and the moves into the deal's zones turned into holds). A
partner that kept a deal is probed for the stab it refused: the best of at most
:attr:`PROBES` single moves of its units into our units' provinces or our centres.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

import engine.orders as eo
from bots.base import LegalOrders, Outgoing
from bots.bordeaux.ambassador import Complaint, lowered, request
from bots.bordeaux.observation import Friendliness, StabLimits, evidence
from bots.bordeaux.prediction import DumbBotModel, ObservedModel, Predictor, normal
from bots.bordeaux.strategy import Alliance, Constraints, Evaluator, Search, Values, find_strategy, moves_of
from bots.dumbbot import DumbBot
from engine import adjudicate, legal_orders
from engine.legal import legal_orders_for
from engine.maps import Map
from engine.position import MOVEMENT, Phase, Position, Unit
from protocol.l import ast as a
from protocol.l import level, parse, to_text
from protocol.l.actions import ActionError, order_from_action
from referee.binding import committed, in_force, literals
from referee.compliance import Commitment, Report, attacks, check

__all__ = ["Bordeaux", "BordeauxDumbBotModel"]

#: The lowest level that allows a time in a deal (the deals of one phase).
TIMED_LEVEL = 6


class Bordeaux(DumbBot):
    """Loeb's Bordeaux diplomat: RES over the alliances the observation module finds."""

    name = "bordeaux"
    negotiates = True
    SEARCH: ClassVar[Search] = Search()
    VALUES: ClassVar[Values] = Values()
    #: StabLimit (centres) below which a power is not trusted to keep a deal.
    TRUST: ClassVar[float] = 1.0
    #: Stabs tried, per partner and phase, to measure the gain of a stab it refused.
    PROBES: ClassVar[int] = 6
    #: The opponent model: ``observed`` (:class:`~bots.bordeaux.prediction.ObservedModel`) or
    #: ``dumbbot`` (:class:`~bots.bordeaux.prediction.DumbBotModel`).
    PREDICTOR: ClassVar[str] = "observed"

    def start(self, power: str, m: Map) -> None:
        super().start(power, m)
        self.friendliness = Friendliness.neutral(m.powers)
        self.stab_limits = StabLimits()
        self.commitments: list[Commitment] = []
        self.released: set[tuple[a.Deal | a.Agree, str]] = set()  # deals a partner broke
        self.speakers: set[str] = set()  # powers that have said something to us
        self.partners: set[str] = set()  # powers that kept their last deal with us
        self.complaints: list[Complaint] = []
        self.ceiling = 8  # the highest L level we believe allowed
        self.model: Predictor = (
            DumbBotModel(m, power, self.rng)
            if self.PREDICTOR == "dumbbot"
            else ObservedModel([p for p in m.powers if p != power])
        )
        self._predicted: dict[Unit, eo.Order] = {}  # the other powers' predicted orders this movement phase
        #: Orders of other powers' units predicted for RES, and how many of them were the orders given.
        self.predicted = 0
        self.hits = 0
        # the evidence of the retreat and adjustment phases, for the update after the next movement phase
        self._pending: dict[tuple[str, str], float] = {}
        self._deals: dict[str, a.Deal | a.Agree] = {}  # deals by normal form
        self._said: list[a.Message] = []  # this round's messages
        self._said_before: list[a.Message] = []  # the last round's
        self._errors = 0  # level errors this round
        self._asked: dict[a.Message, Complaint] = {}  # the ambassador's questions of the last rounds

    def trusted(self, power: str) -> bool:
        return self.stab_limits(power) >= self.TRUST

    def _bloc(self, alive: Sequence[str]) -> frozenset[str]:
        """Our bloc among the powers ``alive`` (just us once we are out)."""
        return next((b for b in self.friendliness.blocs(alive) if self.power in b), frozenset({self.power}))

    # --- orders ------------------------------------------------------------------------------

    def orders(self, position: Position, legal: LegalOrders) -> list[eo.Order]:
        self._predicted = {}
        if position.phase.kind != MOVEMENT:
            return super().orders(position, legal)
        me = self.power
        alive = _alive(position)
        concerned = self._concerned(position, alive)
        blocs = self.friendliness.blocs(alive)
        mine = self._bloc(alive)
        allies = frozenset(p for p in mine if p != me and p in concerned and self.trusted(p))
        alliances = [Alliance(allies | {me}, self.friendliness.enemies(mine, alive) & concerned)]
        placed = set(alliances[0].members)
        for bloc in blocs:
            members = frozenset(p for p in bloc if p in concerned and p not in placed)
            if members:
                alliances.append(Alliance(members, self.friendliness.enemies(bloc, alive) & concerned))
                placed |= members
        province_of = position.map.province_of
        seeds: dict[Unit, eo.Order] = {}
        options: dict[Unit, list[eo.Order]] = {}
        for power in sorted(concerned):
            given = legal if power == me else legal_orders(position, power)
            if power == me:
                seed = super().orders(position, legal)
            else:
                seed = self.model.predict(position, power, given, self.friendliness)
            for order in seed:
                unit = None if isinstance(order, eo.Waive) else position.unit_at.get(province_of[order.location])
                if unit is not None and unit.power == power:
                    seeds[unit] = order
                    if power != me:
                        self._predicted[unit] = normal(position.map, order)
            for unit, choices in given.items():
                if unit is not None:
                    options[unit] = moves_of(position, unit, choices)
        constraints = self._constraints(position, concerned)
        kept_for_allies = {u: seeds.get(u, eo.Hold(u.type, u.location)) for u in position.units if u.power in allies}
        constraints = Constraints(
            constraints.no_entry,
            constraints.no_attack,
            {**kept_for_allies, **constraints.required},
            constraints.forbidden,
        )
        evaluate = Evaluator(position, sorted(concerned), self.VALUES)
        strategy = find_strategy(position, alliances, seeds, options, constraints, evaluate, self.rng, self.SEARCH)
        chosen: list[eo.Order] = []
        for unit, choices in legal.items():
            assert unit is not None
            planned = strategy.orders.get(unit)
            chosen.append(planned if planned is not None and planned in choices else eo.Hold(unit.type, unit.location))
        return chosen

    def _concerned(self, position: Position, alive: Sequence[str]) -> set[str]:
        """Us, and the powers with a unit that can reach a province we can reach or stand in, or a centre of ours."""
        m = position.map
        reach, province_of = m.reach, m.province_of
        zone = {p for p, owner in enumerate(position.centers) if owner == self.power}
        for u in position.units_of(self.power):
            zone.add(province_of[u.location])
            zone |= reach[u.type][u.location]
        concerned = {self.power}
        for u in position.units:
            if u.power in alive and (province_of[u.location] in zone or reach[u.type][u.location] & zone):
                concerned.add(u.power)
        return concerned

    def _constraints(self, position: Position, concerned: set[str]) -> Constraints:
        """What the deals we keep bind the concerned powers to this phase: us always, the others if trusted."""
        m = position.map
        province_of = m.province_of
        no_entry: dict[str, set[int]] = {}
        no_attack: dict[str, set[int]] = {}
        required: dict[Unit, eo.Order] = {}
        forbidden: set[eo.Order] = set()
        for c in self.commitments:
            if (c.deal, c.phase) in self.released:
                continue
            made = Phase.parse(c.phase)
            for lit in literals(c.deal):
                power = lit.power
                if power not in c.participants or power not in concerned:
                    continue
                if power != self.power and not self.trusted(power):
                    continue
                if not in_force(lit.atom, lit.time, position.phase, made):
                    continue
                atom = lit.atom
                if isinstance(atom, a.Pce | a.Aly):
                    side = atom.powers if isinstance(atom, a.Pce) else atom.allies
                    if power in side:
                        no_attack.setdefault(power, set()).update(self._holdings(position, side - {power}))
                elif isinstance(atom, a.Dmz):
                    if power in atom.powers:
                        zone = {province_of[m.location(p)] for p in atom.provinces}
                        no_entry.setdefault(power, set()).update(zone)
                else:
                    try:
                        owner, order = order_from_action(m, atom.action)
                    except ActionError:
                        continue
                    order = _normal(m, order)
                    if not lit.positive:
                        forbidden.add(order)
                        continue
                    unit = (
                        position.unit_at.get(province_of[order.location]) if not isinstance(order, eo.Waive) else None
                    )
                    if unit is not None and unit.power == owner:
                        required.setdefault(unit, order)
        return Constraints(
            {p: frozenset(s) for p, s in no_entry.items()},
            {p: frozenset(s) for p, s in no_attack.items()},
            required,
            frozenset(forbidden),
        )

    def _holdings(self, position: Position, owners: frozenset[str]) -> set[int]:
        """The provinces the units of the powers ``owners`` stand in, and their centres."""
        province_of = position.map.province_of
        held = {province_of[u.location] for u in position.units if u.power in owners}
        held |= {p for p, owner in enumerate(position.centers) if owner in owners}
        return held

    # --- observation ------------------------------------------------------------------------------

    def on_results(self, before: Position, orders: Mapping[str, Sequence[eo.Order]], after: Position) -> None:
        if before.phase.kind == MOVEMENT:
            self._score_predictions(before, orders)
            self.model.observe(before, orders, self.friendliness)
        outcome = adjudicate(before, orders)
        # a deal a partner broke binds us no more, and is not held against anyone again
        live = [c for c in self.commitments if (c.deal, c.phase) not in self.released]
        reports = check(live, before, orders, outcome.results, after)
        self._judge(before, orders, reports, live)
        for pair, d in evidence(before, orders, outcome.results, reports, live).items():
            self._pending[pair] = self._pending.get(pair, 0.0) + d
        if before.phase.kind == MOVEMENT:
            self.friendliness = self.friendliness.updated(self._pending)
            self._pending = {}
        phase = str(before.phase)
        self.commitments = [c for c in self.commitments if c.lasts_after(phase)]
        self.released = {(deal, made) for deal, made in self.released if any(c.deal == deal for c in self.commitments)}

    def _score_predictions(self, before: Position, orders: Mapping[str, Sequence[eo.Order]]) -> None:
        """Count the predicted orders of the movement phase that were the orders given (a unit
        given no order held)."""
        if not self._predicted:
            return
        m = before.map
        given: dict[Unit, eo.Order] = {}
        for power, found in orders.items():
            for order in found:
                if isinstance(order, eo.Waive):
                    continue
                unit = before.unit_at.get(m.province_of[order.location])
                if unit is not None and unit.power == power:
                    given.setdefault(unit, normal(m, order))
        for unit, predicted in self._predicted.items():
            self.predicted += 1
            self.hits += predicted == given.get(unit, eo.Hold(unit.type, unit.location))
        self._predicted = {}

    def _judge(
        self,
        before: Position,
        orders: Mapping[str, Sequence[eo.Order]],
        reports: Sequence[Report],
        commitments: Sequence[Commitment],
    ) -> None:
        """Complaints, StabLimit and releases from the compliance reports on ``commitments``."""
        me = self.power
        kept_by: set[str] = set()
        for report in reports:
            offender = report.power
            if offender == me:
                continue
            commitment = commitments[report.commitment]
            if report.kept:
                kept_by.add(offender)
                self.partners.add(offender)
                continue
            self.partners.discard(offender)
            part = parse(f"inform({me}, {offender}, {report.part})")
            assert isinstance(part, a.Inform)
            self.complaints.append(Complaint(offender, part.info, str(before.phase)))
            gain = self._breach_gain(before, orders, offender, commitment)
            self.stab_limits = self.stab_limits.after_breach(offender, gain)
            self.released.add((commitment.deal, commitment.phase))
        if before.phase.kind == MOVEMENT:
            for partner in sorted(kept_by):
                self.stab_limits = self.stab_limits.after_refusal(partner, self._refused_gain(before, orders, partner))

    def _breach_gain(
        self, before: Position, orders: Mapping[str, Sequence[eo.Order]], offender: str, commitment: Commitment
    ) -> float:
        """What breaking ``commitment`` gained ``offender`` (centres, at least 0): its value
        with its orders against those orders with its attacks on the other participants and
        its moves into the deal's zones turned into holds. Only movement phases gain."""
        if before.phase.kind != MOVEMENT:
            return 0.0
        m = before.map
        province_of = m.province_of
        victims = commitment.participants - {offender}
        targets = {
            province_of[m.location(x.province)]
            for x in attacks(before, orders)
            if x.attacker == offender and x.victim in victims
        }
        for lit in literals(commitment.deal):
            if isinstance(lit.atom, a.Dmz) and lit.power == offender:
                targets |= {province_of[m.location(p)] for p in lit.atom.provinces}
        honest = [_hold_if_into(m, order, targets) for order in orders.get(offender, ())]
        evaluate = Evaluator(before, [offender], self.VALUES)
        actual = evaluate(adjudicate(before, orders).position.units)[offender]
        kept = evaluate(adjudicate(before, {**orders, offender: honest}).position.units)[offender]
        return max(0.0, actual - kept)

    def _refused_gain(self, before: Position, orders: Mapping[str, Sequence[eo.Order]], partner: str) -> float:
        """The best gain ``partner`` could have had from one stab: a move of one of its units
        into a province of our units or a centre of ours (at most :attr:`PROBES` tried)."""
        m = before.map
        ours = self._holdings(before, frozenset({self.power}))
        given = list(orders.get(partner, ()))
        probes: list[list[eo.Order]] = []
        for i, order in enumerate(given):
            if isinstance(order, eo.Waive) or (isinstance(order, eo.Move) and m.province_of[order.destination] in ours):
                continue
            unit = before.unit_at.get(m.province_of[order.location])
            if unit is None or unit.power != partner:
                continue
            for into in sorted(m.reach[unit.type][unit.location] & ours):
                stab = next(
                    (
                        o
                        for o in moves_of(before, unit, legal_orders_for(before, unit))
                        if isinstance(o, eo.Move) and m.province_of[o.destination] == into
                    ),
                    None,
                )
                if stab is not None:
                    probes.append([*given[:i], stab, *given[i + 1 :]])
        if not probes:
            return 0.0
        evaluate = Evaluator(before, [partner], self.VALUES)
        actual = evaluate(adjudicate(before, orders).position.units)[partner]
        return max(
            evaluate(adjudicate(before, {**orders, partner: probe}).position.units)[partner] - actual
            for probe in probes[: self.PROBES]
        )

    # --- negotiation ---------------------------------------------------------------------------

    def on_phase(self, position: Position) -> Outgoing:
        self._next_round()
        if position.phase.kind != MOVEMENT:
            return ()
        me = self.power
        out: list[a.Message] = []
        for complaint in self.complaints:
            message = request(me, complaint, self.ceiling)
            if message is not None:
                out.append(message)
                self._asked[message] = complaint
        self.complaints = []
        alive = _alive(position)
        if self.power not in alive:
            return self._say(out)
        mine = self._bloc(alive)
        enemies = self.friendliness.enemies(mine, alive)
        first = not self.speakers and position.phase == Phase(position.map.first_year, "S", MOVEMENT)
        time = a.Turn.of(position.phase) if self.ceiling >= TIMED_LEVEL else None
        for power in alive:
            if power == self.power or power in enemies or not self.trusted(power):
                continue
            if not (first or power in self.speakers):
                continue
            pair = frozenset({me, power})
            out.append(self._propose(power, a.Agree(pair, a.Pce(pair), time)))
            zone = self._border(position, power)
            if power in self.partners and zone:
                out.append(self._propose(power, a.Agree(pair, a.Dmz(pair, zone), time)))
        return self._say(out)

    def _propose(self, power: str, deal: a.Agree) -> a.Message:
        self._deals[to_text(deal)] = deal
        return a.Propose(self.power, frozenset({power}), deal)

    def _border(self, position: Position, power: str) -> frozenset[str]:
        """The provinces both we and ``power`` can reach that are no centre and where no unit stands."""
        m = position.map
        reach = m.reach

        def reachable(owner: str) -> set[int]:
            found: set[int] = set()
            for u in position.units_of(owner):
                found |= reach[u.type][u.location]
            return found

        both = reachable(self.power) & reachable(power)
        free = {p for p in both if not m.is_supply_center[p] and p not in position.unit_at}
        return frozenset(m.locations[p].lower() for p in free)

    def on_message(self, sender: str, message: a.Message, position: Position) -> Outgoing:
        self.speakers.add(sender)
        me = self.power
        phase = str(position.phase)
        if isinstance(message, a.Propose):
            self._deals[to_text(message.deal)] = message.deal
            if self._acceptable(sender, message.deal, position):
                self._keep(message.deal, {me, message.sender}, phase)
                return self._say([a.Accept(me, frozenset({message.sender}), message.deal)])
            return self._say([a.Reject(me, frozenset({message.sender}), message.deal)])
        if isinstance(message, a.Accept) and to_text(message.deal) in self._deals:
            self._keep(message.deal, {me, message.sender}, phase)
        return ()

    def on_event(self, event: Mapping[str, object], position: Position) -> Outgoing:
        kind = event.get("type")
        if kind == "round":
            self._next_round()
        elif kind == "confirmed":
            deal = self._deals.get(str(event.get("deal")))
            participants = event.get("participants")
            if deal is not None and isinstance(participants, list):
                self._keep(deal, {position.map.power(str(p)) for p in participants}, str(position.phase))
        elif kind == "error" and event.get("code") == "level":
            recent = [*self._said_before, *self._said]
            self._errors += 1
            self.ceiling = lowered(self.ceiling, recent, self._errors)
            again: list[a.Message] = []
            for query, complaint in list(self._asked.items()):
                if level(query) > self.ceiling:
                    del self._asked[query]
                    fallback = request(self.power, complaint, self.ceiling)
                    if fallback is not None:
                        again.append(fallback)
            return self._say(again)
        return ()

    def _next_round(self) -> None:
        """A round begins: the errors that come now are about the messages of the last one."""
        self._said_before, self._said, self._errors = self._said, [], 0
        self._asked = {q: c for q, c in self._asked.items() if q in self._said_before}

    def _say(self, messages: Sequence[a.Message]) -> list[a.Message]:
        self._said.extend(messages)
        return list(messages)

    def _keep(self, deal: a.Deal | a.Agree, participants: set[str], phase: str) -> None:
        """Keep ``deal`` from ``phase`` on, with these participants, as the server checks it."""
        for i, c in enumerate(self.commitments):
            if c.deal == deal and c.phase == phase:
                self.commitments[i] = Commitment(deal, c.participants | frozenset(participants), phase)
                return
        self.commitments.append(Commitment(deal, frozenset(participants), phase))

    def _acceptable(self, sender: str, deal: a.Deal | a.Agree, position: Position) -> bool:
        """Whether to accept ``deal`` from ``sender`` (see the module)."""
        me = self.power
        alive = _alive(position)
        mine = self._bloc(alive)
        if not self.trusted(sender) or sender in self.friendliness.enemies(mine, alive):
            return False
        if not committed(deal) <= {me, sender}:
            return False
        found = literals(deal)
        if not found:
            return False
        m = position.map
        ours = {m.locations[p].lower() for p, owner in enumerate(position.centers) if owner == self.power}
        for lit in found:
            atom = lit.atom
            if isinstance(atom, a.Aly):
                if any(e in mine for e in atom.enemies):
                    return False
            elif isinstance(atom, a.Dmz):
                if atom.provinces & ours:
                    return False
            elif isinstance(atom, a.Do) and lit.positive and lit.power == me and sender not in mine:
                return False
        return True


class BordeauxDumbBotModel(Bordeaux):
    """Bordeaux predicting the other powers with private copies of DumbBot (``bordeaux:dumbbot-model``):
    exact against DumbBots and the DumbBot-based baselines, so its figures against them
    measure the exploitation of a known policy (see :mod:`bots.bordeaux.prediction`)."""

    name = "bordeaux:dumbbot-model"
    PREDICTOR: ClassVar[str] = "dumbbot"


def _alive(position: Position) -> list[str]:
    """The powers with a unit or a centre."""
    return [p for p in position.map.powers if position.units_of(p) or position.centers_of(p)]


_normal = normal


def _hold_if_into(m: Map, order: eo.Order, targets: set[int]) -> eo.Order:
    """``order``, or a hold of its unit when it moves, supports or convoys into ``targets``."""
    if isinstance(order, eo.Move | eo.SupportMove | eo.Convoy) and m.province_of[order.destination] in targets:
        return eo.Hold(order.type, order.location)
    return order

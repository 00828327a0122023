"""D-Brane, the bot: the strategic component's orders, and (``dbrane``) NB³ through the notary.

``dbrane:nonego`` (:class:`DBraneNoNego`) is the paper's D-Brane with negotiation and
implicit agreements off (section 5.3.4): it plays alone, every other power an adversary.
``dbrane`` (:class:`DBrane`) negotiates, with implicit agreements on (the class attribute
``IMPLICIT``; a subclass may turn them off): the mode of the paper's best results.

**The coalition.** The paper gives D-Brane its coalition from the start (section 6: "the
D-Branes were instructed to form a coalition against the DumbBots"). Here the coalition
forms through the notary: in its first movement phase D-Brane proposes to every other
power ``Agree([me X], pce([me X]))`` (peace is what implicit agreements are), or without
implicit agreements ``Agree([me X], drw([me X]))`` (a shared draw, which binds no order);
it accepts the same deal from anyone, and the powers with such a deal confirmed are its
partners. Bots that do not negotiate never answer, so the D-Branes find one another.
D-Brane keeps its word and takes its partners to keep theirs (trust is beyond the paper).

**Negotiating a phase.** When a movement phase starts (and again when the coalition grows)
NB³ (:mod:`bots.dbrane.nb3`) fills a repository of deals rational for every power they
commit, spending the search budget (:mod:`bots.dbrane.budget`; a constructor argument,
``BUDGET`` by default) one round at a time: today's budget searches once, in the round
it starts in; ``dbrane:x4`` and ``dbrane:deep`` search on while their deals can be
proposed. A deal goes out as ``propose(me, [others], [Commit(p, [others], Do(action))
...])``, one ``Commit`` per order; a battle-plan proposal from a partner is accepted when
its gain to us reaches the aspiration level. Both follow the time-based strategy of section 5.3.3: the
aspiration falls linearly from the best gain in the repository at the start to
``MIN_GAIN`` at the deadline, and among the deals above it we propose those maximising
``(1 - t) * our gain + t * the least gain of the others`` (more generous near the deadline),
``PROPOSALS_PER_ROUND`` at a time. We never endorse two deals that could not be kept
together (the notary would not see two of our units sent into one province).

**The clock.** In process the negotiation has rounds, and ``round`` events say ``r`` of
``n``: the time is ``t = r / (n - 1)``. A frame said in round ``r`` reaches the others in
round ``r + 1``, so we propose only while two rounds are left and accept while one is (a
deal confirmed after the last round would reach its proposer too late to be kept). Over
the network there are no rounds and a bot reads no clock: each message or event received
in the phase is a moment, ``t`` growing by ``1 / NETWORK_MOMENTS`` at each, up to 1.

**The orders.** The strategic component solves the phase under the deals confirmed in it
(and the implicit agreements); a unit committed by a deal gives exactly the committed
order. Retreats and builds are DumbBot's (the paper's D-Brane is about movement), except
that with implicit agreements no unit retreats into a partner's centre.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from typing import ClassVar

import engine.orders as eo
from bots.base import LegalOrders, Outgoing
from bots.dbrane.budget import DEEP, TODAY, X4, Budget
from bots.dbrane.nb3 import Candidate, Evaluator, Ledger, Search, supports_of
from bots.dbrane.tactics import Key, Tactics, apply_orders, key_of_order, order_of_key
from bots.dumbbot import DumbBot
from engine.position import MOVEMENT, RETREATS, Phase, Position
from protocol.l import LError, parse
from protocol.l import ast as a
from protocol.l.actions import ActionError, action_from_order, order_from_action

__all__ = ["DBrane", "DBraneDeep", "DBraneNoNego", "DBraneX4"]


class DBraneNoNego(DumbBot):
    """D-Brane's strategic component alone: no negotiation, no coalition."""

    name = "dbrane:nonego"
    negotiates = False
    IMPLICIT: ClassVar[bool] = False
    BUDGET: ClassVar[Budget] = TODAY  # the search budget when the constructor is given none

    def __init__(self, rng: random.Random | None = None, budget: Budget | None = None) -> None:
        super().__init__(rng)
        self.budget = self.BUDGET if budget is None else budget
        self.partners: frozenset[str] = frozenset()  # the coalition partners
        self.commitments: dict[int, Key] = {}  # confirmed orders of ``self.committed_in``, by unit province
        self.committed: dict[int, eo.Order] = {}  # the exact orders our own units are committed to
        self.committed_in: Phase | None = None
        self._tactics: tuple[Position, Tactics] | None = None

    def tactics(self, position: Position) -> Tactics:
        """The strategic component on ``position``, made once per phase (its caches last the phase)."""
        if self._tactics is None or self._tactics[0] is not position:
            self._tactics = (position, Tactics(position, self.rng, self.budget.solve_nodes))
        return self._tactics[1]

    def alive_partners(self, position: Position) -> frozenset[str]:
        return frozenset(p for p in self.partners if position.units_of(p))

    def orders(self, position: Position, legal: LegalOrders) -> list[eo.Order]:
        kind = position.phase.kind
        if kind == MOVEMENT:
            current = self.committed_in == position.phase
            commitments = self.commitments if current else {}
            committed = self.committed if current else {}
            partners = self.alive_partners(position)
            solution = self.tactics(position).solve(self.power, partners, self.IMPLICIT, commitments)
            province = position.map.province_of
            return [o if isinstance(o, eo.Waive) else committed.get(province[o.location], o) for o in solution.orders]
        if kind == RETREATS and self.IMPLICIT and self.partners:
            legal = {
                unit: [o for o in options if not self._into_partner(position, o)] for unit, options in legal.items()
            }
        return super().orders(position, legal)

    def _into_partner(self, position: Position, order: eo.Order) -> bool:
        if not isinstance(order, eo.Retreat):
            return False
        return position.centers[position.map.province_of[order.destination]] in self.partners


class DBrane(DBraneNoNego):
    """D-Brane negotiating with NB³ through the notary, implicit agreements on."""

    name = "dbrane"
    negotiates = True
    IMPLICIT: ClassVar[bool] = True
    PROPOSALS_PER_ROUND: ClassVar[int] = 2
    MIN_GAIN: ClassVar[float] = 0.05  # the aspiration at the deadline: a deal must gain something
    NETWORK_MOMENTS: ClassVar[int] = 4  # without rounds: messages until the deadline is taken as reached
    #: How NB³ values deals (a subclass of :class:`Evaluator`: benchmarks/dbrane_deals.py tries another)
    EVALUATOR: ClassVar[type[Evaluator]] = Evaluator

    def __init__(self, rng: random.Random | None = None, budget: Budget | None = None) -> None:
        super().__init__(rng, budget)
        self.ledger = Ledger()
        self._greeted = False
        self._greetings: set[a.Agree] = set()  # the coalition deals we proposed
        self._time = 0.0
        self._round = 0
        self._last_round: int | None = None  # known from round events (in process)
        self._search_due = False
        self._search: Search | None = None
        self._search_rounds = 0  # the rounds the search has run for
        self._repository: list[Candidate] = []
        self._proposed: set[tuple[tuple[int, Key], ...]] = set()
        self._evaluator: Evaluator | None = None
        self._best = 0.0
        self._endorsed: dict[int, Key] = {}  # the orders of the deals we confirmed or endorsed this phase

    # --- the phase ---------------------------------------------------------------------------------

    def on_phase(self, position: Position) -> Outgoing:
        self.commitments, self.committed, self.committed_in = {}, {}, position.phase
        self._time, self._round, self._last_round, self._search_due = 0.0, 0, None, False
        self._search, self._search_rounds = None, 0
        self._repository, self._proposed, self._evaluator, self._best = [], set(), None, 0.0
        self._endorsed = {}
        if position.phase.kind != MOVEMENT:
            return ()
        out: list[a.Message] = []
        if not self._greeted:
            self._greeted = True
            me = self.power
            for other in position.map.powers:
                if other != me and other not in self.partners and position.units_of(other):
                    handshake = self._handshake(frozenset({me, other}))
                    self._greetings.add(handshake)
                    out.append(a.Propose(me, frozenset({other}), handshake))
        self._start_search(position)
        out += self._proposals(position)
        return out

    def on_event(self, event: Mapping[str, object], position: Position) -> Outgoing:
        kind = event.get("type")
        if kind == "round":
            self._round = int(str(event["round"]))
            self._last_round = last = int(str(event["rounds"])) - 1
            self._time = min(1.0, self._round / max(1, last))
            if self._search_due:
                self._start_search(position)
            elif self._search is not None and self._may(2) and self._rounds_left():
                self._run_search(position)
            return self._proposals(position)
        self._tick()
        if kind == "confirmed" and isinstance(event.get("deal"), str):
            self._confirmed(str(event["deal"]), position)
        return ()

    def on_message(self, sender: str, message: a.Message, position: Position) -> Outgoing:
        self._tick()
        if not isinstance(message, a.Propose) or position.phase.kind != MOVEMENT or not self._may(1):
            return ()
        me = self.power
        accept = a.Accept(me, frozenset({message.sender}), message.deal)
        if isinstance(message.deal, a.Agree):
            handshake = self._handshake(frozenset({me, message.sender}))
            if message.deal == handshake and handshake not in self._greetings:  # ours endorses it already
                return (accept,)
            return ()
        if sender not in self.alive_partners(position):
            return ()
        orders = self._read(message.deal, position)
        if orders is None or not any(position.unit_at[u].power == self.power for u in orders):
            return ()
        if tuple(sorted(orders.items())) in self._proposed or not self._consistent(orders.items()):
            return ()  # our own proposal of it endorses it already, or it cannot be kept with ours
        gain = self._evaluation(position).gains(orders).get(self.power, 0.0)
        if gain < self._aspiration():
            return ()
        self._endorsed.update(orders)
        return (accept,)

    # --- time and aspiration -----------------------------------------------------------------------

    def _tick(self) -> None:
        """Over the network each message or event is a moment of the phase (see the module)."""
        if self._last_round is None:
            self._time = min(1.0, self._time + 1.0 / self.NETWORK_MOMENTS)

    def _may(self, rounds_after: int) -> bool:
        """Whether what we say now can still be answered: a proposal needs two rounds after it, an
        acceptance one (see the module)."""
        return self._last_round is None or self._round + rounds_after <= self._last_round

    def _aspiration(self) -> float:
        """The least gain we take at time ``t``: linear from the best deal found down to ``MIN_GAIN``."""
        top = max(self._best, self.MIN_GAIN)
        return top - (top - self.MIN_GAIN) * self._time

    # --- deals -------------------------------------------------------------------------------------

    def _start_search(self, position: Position) -> None:
        """NB³ for the phase (again when the coalition grows during it), run for this round."""
        self._search_due = False
        if self.alive_partners(position):
            evaluator = self._evaluation(position)
            self._search = Search(self.tactics(position), self.power, evaluator, self.budget.depth, self.budget.width)
            self._search_rounds, self._repository = 0, []
            self._run_search(position)

    def _rounds_left(self) -> bool:
        rounds = self.budget.rounds
        return rounds is None or self._search_rounds < rounds

    def _run_search(self, position: Position) -> None:
        """One round's budget of the search: its deals join the repository."""
        assert self._search is not None
        self._search_rounds += 1
        self._repository += self._search.run(self._evaluation(position), self.budget.nodes)
        self._best = max((c.gain(self.power) for c in self._repository), default=0.0)

    def _evaluation(self, position: Position) -> Evaluator:
        """Gains on top of the deals confirmed so far (a new evaluator when they change)."""
        if self._evaluator is None or self._evaluator.confirmed != self.commitments:
            coalition = self.alive_partners(position) | {self.power}
            self._evaluator = self.EVALUATOR(
                self.tactics(position), coalition, self.IMPLICIT, self.commitments, self.ledger
            )
        return self._evaluator

    def _proposals(self, position: Position) -> list[a.Message]:
        """The deals to propose now: above the aspiration, rational for all, keepable with ours."""
        if not self._repository or not self._may(2):
            return []
        evaluator = self._evaluation(position)
        t = self._time
        ranked = sorted(
            (
                (-((1 - t) * c.gain(self.power) + t * _least_other(c, self.power)), c.orders, c)
                for c in self._repository
                if c.orders not in self._proposed
            ),
            key=lambda entry: entry[:2],
        )
        out: list[a.Message] = []
        for _, orders, _candidate in ranked:
            if len(out) >= self.PROPOSALS_PER_ROUND:
                break
            if not self._consistent(orders):
                continue
            gains = evaluator.gains(dict(orders))  # again: deals confirmed since may have changed it
            if gains.get(self.power, 0.0) < self._aspiration() or not all(g > 0 for g in gains.values()):
                continue
            self._proposed.add(orders)
            self._endorsed.update(orders)
            out.append(self._proposal(position, dict(orders)))
        return out

    def _consistent(self, orders: Iterable[tuple[int, Key]]) -> bool:
        """Whether a deal can be kept together with every deal we confirmed or endorsed this phase."""
        assigned = dict(self._endorsed)
        moved = {int(k[1]): u for u, k in assigned.items() if k[0] == "-"}
        orders = tuple(orders)
        return apply_orders(orders, ((int(k[1]), u) for u, k in orders if k[0] == "-"), assigned, moved) is not None

    def _proposal(self, position: Position, orders: Mapping[int, Key]) -> a.Propose:
        """``propose(me, [others], [Commit(p, [others], Do(action)) ...])`` for a deal's orders."""
        board = self.tactics(position).board
        powers = frozenset(board.power_at[u] for u in orders)
        commits = []
        for unit in sorted(orders):
            power = board.power_at[unit]
            action = action_from_order(position, power, order_of_key(board, unit, orders[unit]))
            commits.append(a.Commit(power, powers - {power}, a.Do(action)))
        return a.Propose(self.power, powers - {self.power}, a.Deal(frozenset(commits)))

    def _read(self, deal: a.Deal, position: Position) -> dict[int, Key] | None:
        """A battle-plan deal's orders for this phase (unit province -> key); None for any other deal."""
        m = position.map
        orders: dict[int, Key] = {}
        for power, order in _orders_of(deal, position):
            if order is None or isinstance(order, eo.Waive):
                return None
            key = key_of_order(m, order)
            unit = position.unit_at.get(m.province_of[order.location])
            if key is None or unit is None or unit.power != power:
                return None
            orders[m.province_of[order.location]] = key
        return orders

    def _confirmed(self, text: str, position: Position) -> None:
        """A deal was confirmed: a handshake makes a partner; a battle plan binds orders and moves credit."""
        me = self.power
        other = next(p for p in position.map.powers if p != me)
        try:
            message = parse(f"propose({me}, {other}, {text})")
        except LError:
            return
        if not isinstance(message, a.Propose):
            return
        deal = message.deal
        if isinstance(deal, a.Agree):
            if len(deal.agents) == 2 and me in deal.agents and deal == self._handshake(deal.agents):
                (partner,) = deal.agents - {me}
                self.partners = self.partners | {partner}
                self._search_due = position.phase.kind == MOVEMENT
            return
        orders = self._read(deal, position)
        if orders is None:
            return
        for (giver, receiver), count in supports_of(self.tactics(position), orders).items():
            self.ledger.give(giver, receiver, count)
        self.commitments = {**self.commitments, **orders}
        self._endorsed.update(orders)
        province = position.map.province_of
        for power, order in _orders_of(deal, position):
            if power == self.power and order is not None and not isinstance(order, eo.Waive):
                self.committed[province[order.location]] = order

    def _handshake(self, pair: frozenset[str]) -> a.Agree:
        """The coalition deal between two powers: peace with implicit agreements, else a shared draw."""
        return a.Agree(pair, a.Pce(pair) if self.IMPLICIT else a.Drw(pair))


class DBraneX4(DBrane):
    """D-Brane with four times today's search budget (:data:`bots.dbrane.budget.X4`)."""

    name = "dbrane:x4"
    BUDGET: ClassVar[Budget] = X4


class DBraneDeep(DBrane):
    """D-Brane with sixteen times today's search budget (:data:`bots.dbrane.budget.DEEP`)."""

    name = "dbrane:deep"
    BUDGET: ClassVar[Budget] = DEEP


def _orders_of(deal: a.Deal, position: Position) -> list[tuple[str, eo.Order | None]]:
    """Each ``Do`` of the deal as (its committed power, the engine order); None for anything that is
    not an order of this phase by the power that commits to it."""
    m = position.map
    found: list[tuple[str, eo.Order | None]] = []
    for commit in deal.commits:
        agent = commit.agent
        if commit.time is not None and not _now(commit.time, position):
            found.append((agent, None))
            continue
        for part in commit.formula.operands if isinstance(commit.formula, a.And) else (commit.formula,):
            if not isinstance(part, a.Do) or (part.time is not None and not _now(part.time, position)):
                found.append((agent, None))
                continue
            try:
                power, order = order_from_action(m, part.action)
            except ActionError:
                found.append((agent, None))
                continue
            found.append((agent, order if power == agent else None))
    return found


def _least_other(candidate: Candidate, me: str) -> float:
    return min((gain for power, gain in candidate.gains if power != me), default=0.0)


def _now(time: a.Time, position: Position) -> bool:
    """Whether an L time is the phase of ``position``."""
    return isinstance(time, a.Turn) and time.phase == position.phase

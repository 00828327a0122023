"""D-Brane's negotiating component (section 5.3): NB³ over coalition battle plans, with credits.

**Utility (equations 2 and 3).** The value of a deal ``x`` to a power ``i`` is

    u_i(x) = E(f_i[x]) - E(f_i) + sum_j Cr(d_ij),     Cr(d) = 0.4 d if d >= 0, else 0.6 d,

where ``E(f_i[x])`` is the number of centres the strategic component expects ``i`` to take
or keep this phase under ``x`` (with the deals confirmed before it), ``E(f_i)`` the same
without ``x``, and ``d_ij`` the *credit balance*: the supports ``i`` gave ``j`` minus those
``j`` gave ``i``, the supports of ``x`` included. The reservation value of ``i`` is the
utility of no deal, ``sum_j Cr(d_ij)`` with today's balances, so the *gain* of ``x`` to
``i`` is ``E(f_i[x]) - E(f_i)`` plus the change of the credit terms. A deal is rational when
every power it commits gains (section 5.3.3). The credit constants make D-Brane selfish but
fair (propositions 2 to 5): it gives a support only if that costs it no centre, asks for
one only for a centre, and prefers returning favours when it owes.

**The search (section 5.3.1).** Nodes are deals: sets of compatible coalition battle plans,
each plan a target, an attacker of one coalition power and supports or cuts by units of
others (the strategic component's plans with the units of the whole coalition). The
candidate plans are the ``width`` best *joint* plans (units of two powers at least), by a
cheap estimate: the attacker's chance with the plan less what it expects there without it.
A child adds one plan of a later candidate in that order (the plans skipped are the paper's
empty plan), so each deal is met once, and holds ``depth`` plans at most. The search is
best first: the node expanded next is the one worth most to us, and each child is
evaluated for every power it commits, one strategic solve each (the expensive part: the
budget counts these evaluations, :mod:`bots.dbrane.budget`). A node is not expanded when,
for some power it commits, its gain plus what the plans still to come could add
(``BEST_PLAN`` each) stays at or below nothing: no deal below it would be rational (the
paper's upper bounds). Rational deals that commit us go to the repository the negotiation
strategy proposes from. Where the paper searches until the deadline, :class:`Search` runs a
number of nodes at a time, one negotiation round's budget, and goes on in the next round.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from bots.dbrane.tactics import Key, Plan, Solution, Tactics, apply_orders, near_provinces

__all__ = ["Candidate", "Evaluator", "Ledger", "Search", "credit", "supports_of"]

GIVE, OWE = 0.4, 0.6  # equation 3: the slopes of Cr for a positive and a negative balance
#: A joint plan is worth a search only if it adds more than a support costs its attacker in credit.
MIN_ESTIMATE = GIVE
#: What one more battle plan may add to a power's gain, for pruning: a centre, and the credit
#: of two supports given (a bound for the plans we meet, which rarely ask one power for more).
BEST_PLAN = 1.0 + 2 * OWE


def credit(balance: float) -> float:
    """Cr(d) of equation 3: a support given is worth 0.4 while we are owed, 0.6 while we owe.

    >>> credit(2), credit(-2), credit(0)
    (0.8, -1.2, 0.0)
    """
    return GIVE * balance if balance >= 0 else OWE * balance


class Ledger:
    """The credit balances ``d_ij`` between powers: supports ``i`` gave ``j`` minus those ``j`` gave ``i``.

    >>> ledger = Ledger()
    >>> ledger.give("ENG", "FRA")
    >>> ledger.balance("ENG", "FRA"), ledger.balance("FRA", "ENG")
    (1, -1)
    """

    def __init__(self) -> None:
        self._given: dict[tuple[str, str], int] = {}

    def give(self, giver: str, receiver: str, supports: int = 1) -> None:
        self._given[giver, receiver] = self._given.get((giver, receiver), 0) + supports

    def balance(self, power: str, other: str) -> int:
        return self._given.get((power, other), 0) - self._given.get((other, power), 0)

    def gain(self, power: str, others: Iterable[str], supports: Mapping[tuple[str, str], int]) -> float:
        """How the credit terms of ``power`` change with the ``supports`` of a deal ((giver, receiver) -> count)."""
        total = 0.0
        for other in others:
            delta = supports.get((power, other), 0) - supports.get((other, power), 0)
            if delta:
                before = self.balance(power, other)
                total += credit(before + delta) - credit(before)
        return total


@dataclass(frozen=True, slots=True)
class Candidate:
    """A deal the search found: the orders it commits (unit province -> key) and each committed power's gain."""

    orders: tuple[tuple[int, Key], ...]
    gains: tuple[tuple[str, float], ...]

    def gain(self, power: str) -> float:
        return dict(self.gains).get(power, 0.0)


def supports_of(tactics: Tactics, orders: Mapping[int, Key]) -> dict[tuple[str, str], int]:
    """(giver, receiver) -> the supports a set of orders has units of one power give units of another."""
    power_at = tactics.board.power_at
    found: dict[tuple[str, str], int] = {}
    for unit, key in orders.items():
        if key[0] == "S" and unit in power_at and int(key[1]) in power_at:
            giver, receiver = power_at[unit], power_at[int(key[1])]
            if giver != receiver:
                found[giver, receiver] = found.get((giver, receiver), 0) + 1
    return found


class Evaluator:
    """Gains of deals for the coalition's powers, on top of the deals confirmed this phase (memoised)."""

    def __init__(
        self,
        tactics: Tactics,
        coalition: frozenset[str],
        implicit: bool,
        confirmed: Mapping[int, Key],
        ledger: Ledger,
    ) -> None:
        self.tactics = tactics
        self.coalition = coalition
        self.implicit = implicit
        self.confirmed = dict(confirmed)
        self.ledger = ledger
        self._solutions: dict[tuple[str, frozenset[tuple[int, Key]]], Solution] = {}

    def solution(self, power: str, orders: Mapping[int, Key]) -> Solution:
        """The strategic component's solution for ``power`` (no orders) under the confirmed deals and ``orders``."""
        key = (power, frozenset(orders.items()))
        found = self._solutions.get(key)
        if found is None:
            commitments = {**self.confirmed, **orders}
            partners = self.coalition - {power}
            found = self.tactics.solve(power, partners, self.implicit, commitments, full=False)
            self._solutions[key] = found
        return found

    def expected(self, power: str, orders: Mapping[int, Key]) -> float:
        """E(f_power) under the confirmed deals and ``orders``."""
        return self.solution(power, orders).expected

    def gains(self, orders: Mapping[int, Key]) -> dict[str, float]:
        """The gain of the deal ``orders`` to each power it commits (equation 2 less the reservation value)."""
        power_at = self.tactics.board.power_at
        powers = sorted({power_at[unit] for unit in orders if unit in power_at})
        supports = supports_of(self.tactics, orders)
        found = {}
        for power in powers:
            change = self.expected(power, orders) - self.expected(power, {})
            found[power] = change + self.ledger.gain(power, self.coalition - {power}, supports)
        return found


def joint_plans(tactics: Tactics, evaluator: Evaluator) -> list[tuple[float, Plan]]:
    """The coalition battle plans worth negotiating, best first by a cheap estimate.

    A joint plan has units of two powers of the coalition at least. Its estimate: the
    attacker's chance with it, less what the attacker expects there without it (its own
    solution's value of that centre, 0 if none); plans that add no more than ``MIN_ESTIMATE``
    could not pay for the support they ask.
    """
    board = tactics.board
    coalition = evaluator.coalition
    found: list[tuple[float, Plan]] = []
    for power in sorted(coalition):
        partners = coalition - {power}
        fixed = frozenset(p for p in evaluator.confirmed if board.power_at.get(p) != power)
        view = tactics.view(power, partners, evaluator.implicit, fixed)
        own = evaluator.solution(power, {})
        has = {t: item.value / len(item.targets) for item in own.items for t in item.targets}
        for target in board.centres:
            near = near_provinces(board.map, target)
            if not any(board.power_at.get(p) in partners for p in near) or not any(p in view.mine for p in near):
                continue  # no partner unit can take part in a battle for it
            strong, weak = tactics.plans(view, target, coalition)
            for plan in strong + weak:
                powers = {board.power_at[unit] for unit, _ in plan.orders}
                if len(powers) > 1 and all(evaluator.confirmed.get(u, k) == k for u, k in plan.orders):
                    estimate = plan.chance - has.get(target, 0.0)
                    if estimate > MIN_ESTIMATE:
                        found.append((estimate, plan))
    found.sort(key=lambda pair: (-pair[0], pair[1].size, pair[1].target, pair[1].power, pair[1].orders))
    return found


#: A node of the tree: (-its value to us, a tie-break, the index of the next plan a child may
#: add, the plans chosen, their orders).
Node = tuple[float, int, int, tuple[Plan, ...], dict[int, Key]]


class Search:
    """NB³'s best-first search from the empty deal, run a number of nodes at a time.

    ``run`` evaluates at most the nodes it is given and returns the rational deals found
    that commit ``me``; the next ``run`` goes on where it stopped, in the middle of a node's
    children if it stopped there. Deals hold at most ``depth`` plans, drawn from the
    ``width`` best joint plans. ``nodes`` counts the deals evaluated so far; ``exhausted``:
    the tree has no node left.
    """

    def __init__(self, tactics: Tactics, me: str, evaluator: Evaluator, depth: int, width: int) -> None:
        self.me = me
        self.depth = depth
        self.plans = [plan for _, plan in joint_plans(tactics, evaluator)[:width]]
        self.nodes = 0
        self._counter = itertools.count()
        self._frontier: list[Node] = [(0.0, next(self._counter), 0, (), {})]
        self._open: tuple[Node, int] | None = None  # the node being expanded, and its next child's plan

    @property
    def exhausted(self) -> bool:
        return self._open is None and not self._frontier

    def run(self, evaluator: Evaluator, nodes: int) -> list[Candidate]:
        """Evaluate at most ``nodes`` more deals (gains on top of ``evaluator``'s confirmed deals)."""
        found: list[Candidate] = []
        spent = 0
        while spent < nodes:
            if self._open is None:
                if not self._frontier:
                    break
                node = heapq.heappop(self._frontier)
                if len(node[3]) >= self.depth:
                    continue
                self._open = (node, node[2])
            (_, _, _, chosen, orders), index = self._open
            targets = {plan.target for plan in chosen}
            while index < len(self.plans) and spent < nodes:
                plan = self.plans[index]
                index += 1
                if plan.target in targets:
                    continue
                child = dict(orders)
                assigned = {**evaluator.confirmed, **child}
                moved = {int(k[1]): u for u, k in assigned.items() if k[0] == "-"}
                if apply_orders(plan.orders, plan.moves, assigned, moved) is None:
                    continue
                child.update((unit, key) for unit, key in plan.orders)
                spent += 1
                gains = evaluator.gains(child)
                if self.me in gains and all(gain > 0 for gain in gains.values()):
                    found.append(Candidate(tuple(sorted(child.items())), tuple(sorted(gains.items()))))
                upper = (self.depth - len(chosen) - 1) * BEST_PLAN  # what the plans still to come could add
                if all(gain + upper > 0 for gain in gains.values()):  # else nothing below it is rational
                    child_node = (-gains.get(self.me, 0.0), next(self._counter), index, (*chosen, plan), child)
                    heapq.heappush(self._frontier, child_node)
            self._open = (self._open[0], index) if index < len(self.plans) else None
        self.nodes += spent
        return found

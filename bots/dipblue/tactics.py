"""Choosing the orders of a movement phase from the advisers' scores (paper section 4.3).

"A ranking of possible orders for each unit is created [...] Finally, the best order for
each unit is selected, ensuring they do not collide with each other": :func:`choose`
takes the candidates of all units, best score first, and gives each unit the best of its
own that does not bounce one of ours:

- a move into a province another of our units moves into (or stays in) is passed over;
- a move into a province one of our units stands in waits until that unit has chosen:
  if it moves away (not into the mover's province, a swap that would bounce) the move
  stands, otherwise the mover takes its next best; waiting in a cycle is not allowed.

Ties go to the order listed first (holding, then the moves in the order of the legal
orders), so the choice has no randomness: as in the paper, two DipBlues in the same
position play the same orders. Then TeamBuilder turns units into supporters
(:meth:`bots.dipblue.advisers.TeamBuilder.supports`).
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import engine.orders as eo
from bots.dipblue.advisers import Adviser, Board, Choice, TeamBuilder, score
from engine.position import Unit

__all__ = ["Plan", "choose", "plan", "rank"]


@dataclass(frozen=True, slots=True)
class Plan:
    """The orders of a movement phase, with each unit's chosen candidate and score before supports."""

    orders: Mapping[Unit, eo.Order]
    chosen: Mapping[Unit, Choice]

    def moves(self) -> list[Choice]:
        """The moves kept after supports were given, best first."""
        kept = [c for u, c in self.chosen.items() if c.candidate.moves and self.orders[u] == c.candidate.order]
        return sorted(kept, key=lambda c: (-c.score, c.candidate.unit.location))

    def supports_of(self, unit: Unit) -> int:
        """How many of our units support the move or hold of ``unit``."""
        return sum(
            1
            for order in self.orders.values()
            if isinstance(order, eo.SupportMove | eo.SupportHold) and order.supported_location == unit.location
        )


def rank(advisers: Sequence[Adviser], board: Board) -> dict[Unit, list[Choice]]:
    """Every unit's candidates with their scores, best first (ties: the order of :meth:`Board.candidates`)."""
    ranked = {}
    for unit in board.legal:
        scored = [Choice(c, score(advisers, board, c)) for c in board.candidates(unit)]
        ranked[unit] = sorted(scored, key=lambda choice: -choice.score)  # stable: ties keep their order
    return ranked


def choose(board: Board, ranked: Mapping[Unit, Sequence[Choice]]) -> dict[Unit, Choice]:
    """One candidate per unit, best scores first, without bouncing our own units (see the module)."""
    province_of = board.map.province_of
    units = list(ranked)
    at = dict.fromkeys(units, 0)
    heap = [(-ranked[u][0].score, i) for i, u in enumerate(units)]
    heapq.heapify(heap)
    chosen: dict[Unit, Choice] = {}
    claimed: set[int] = set()  # provinces where one of ours will be
    waiting: dict[Unit, Unit] = {}  # a unit -> the unit of ours whose province it waits to enter

    def push(i: int) -> None:
        heapq.heappush(heap, (-ranked[units[i]][at[units[i]]].score, i))

    def advance(i: int) -> None:
        at[units[i]] += 1
        push(i)

    def waits_on(v: Unit, u: Unit) -> bool:
        """Whether ``v`` waits, directly or down a chain, for ``u``."""
        while v in waiting:
            v = waiting[v]
            if v == u:
                return True
        return False

    while heap:
        _, i = heapq.heappop(heap)
        u = units[i]
        choice = ranked[u][at[u]]
        candidate = choice.candidate
        if candidate.moves:
            p = candidate.province
            if p in claimed:
                advance(i)
                continue
            v = board.ours.get(p)
            if v is not None and v != u:
                if v in chosen:
                    there = chosen[v].candidate
                    if not there.moves or there.province == province_of[u.location]:
                        advance(i)
                        continue
                elif waits_on(v, u):
                    advance(i)
                    continue
                else:
                    waiting[u] = v
                    continue
        chosen[u] = choice
        claimed.add(candidate.province)
        for w in [w for w, v in waiting.items() if v == u]:
            del waiting[w]
            push(units.index(w))
    return chosen


def plan(advisers: Sequence[Adviser], board: Board) -> Plan:
    """The orders of the phase: rank, choose, then TeamBuilder's supports (agreed orders kept as they are)."""
    chosen = choose(board, rank(advisers, board))
    team = next((a for a in advisers if isinstance(a, TeamBuilder)), None)
    if team is None:
        return Plan({u: c.candidate.order for u, c in chosen.items()}, chosen)
    keep = frozenset(
        u
        for u, c in chosen.items()
        if any(not a.negated and a.order == c.candidate.order for a in board.agreements.get(u, ()))
    )
    return Plan(team.supports(board, chosen, keep), chosen)

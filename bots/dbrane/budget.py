"""How much D-Brane searches: one budget, counted in search nodes, never in seconds.

The paper's NB³ searched for 5 seconds of wall clock a round; a clock would make a seeded
game depend on the machine and its load, so here the budget is a number of nodes and a
seed replays a game exactly at any budget.

Two searches spend it. NB³ (:class:`bots.dbrane.nb3.Search`) spends ``nodes`` per
negotiation round: a node is a deal evaluated, one strategic solve for each power it
commits (memoised). A search starts with the phase (and again when the coalition grows)
and runs on for ``rounds`` rounds, counted from the one it starts in (None: every round in
which its deals can still be proposed). Its tree holds deals of at most ``depth`` battle
plans drawn from the ``width`` most promising joint plans: with more nodes, a wider and
deeper tree is worth searching. The strategic module's branch and bound
(:meth:`bots.dbrane.tactics.Tactics.best_set`) spends at most ``solve_nodes`` per solve and
group of independent centres: counted per solve, not per phase, so that the value of a
deal does not depend on how many deals were evaluated before it.

>>> TODAY.nodes, TODAY.depth, TODAY.width, TODAY.solve_nodes
(16, 2, 12, 4000)
>>> TODAY.times(4) == X4, X4.nodes, X4.depth, X4.width, X4.rounds
(True, 64, 3, 48, None)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["DEEP", "TODAY", "X4", "Budget"]


@dataclass(frozen=True, slots=True)
class Budget:
    """D-Brane's search budget (see the module)."""

    nodes: int = 16  # NB³ nodes (deals evaluated) per negotiation round
    rounds: int | None = 1  # rounds a search runs for (None: while its deals can be proposed)
    depth: int = 2  # battle plans per deal
    width: int = 12  # joint battle plans the tree draws from
    solve_nodes: int = 4000  # branch-and-bound nodes per strategic solve (and group of centres)

    def __post_init__(self) -> None:
        counts = (self.nodes, self.depth, self.width, self.solve_nodes, 1 if self.rounds is None else self.rounds)
        if min(counts) < 1:
            raise ValueError(f"a budget counts at least one of everything: {self}")

    def times(self, factor: int) -> Budget:
        """``factor`` times the nodes (NB³'s and the strategic module's) and the width, one plan
        more per deal for each factor of four, and a search that runs while its deals can be proposed.

        >>> Budget().times(16).depth, Budget().times(16).nodes
        (4, 256)
        """
        return Budget(
            nodes=self.nodes * factor,
            rounds=None,
            depth=self.depth + math.floor(math.log(factor, 4) + 1e-9),
            width=self.width * factor,
            solve_nodes=self.solve_nodes * factor,
        )


#: The budget D-Brane played with before the budget was explicit (``dbrane``): a seed plays
#: the same game with it as it did then.
TODAY = Budget()
#: Four times today's (``dbrane:x4``).
X4 = TODAY.times(4)
#: Sixteen times today's (``dbrane:deep``): toward the paper's search, which met every deal a
#: phase offered in its first 5 seconds (its table 4).
DEEP = TODAY.times(16)

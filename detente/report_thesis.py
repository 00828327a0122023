"""The DipGame thesis's figure 6.17 (Fabregues 2012, section 6.6.5), drawn again for a report.

The thesis's experiment plays sessions of seven agents of two kinds that share one game
strategy: ``k`` negotiating agents and ``7 - k`` non-negotiating ones, ``k`` = 0 to 7
(``benchmarks/thesis_experiment.py`` plays it with ``thesis66`` and ``thesis66:nonego``).
Figure 6.17 draws, per number of negotiating agents, the percentage of games won by each
kind (dashed: the negotiating agents, dotted: the others) against what is expected if all
agents were equal (solid: ``k / 7`` rising, ``(7 - k) / 7`` falling).

:func:`thesis_section` finds such a series among a report's sessions: two sessions or more,
every game played by two variants of one bot only (names alike before a colon, such as
``thesis66`` and ``thesis66:nonego``, or ``dbrane`` and ``dbrane:nonego``), one that
negotiates and one that does not (as the bot registry says), each session with one number
of negotiating agents and no two sessions with the same. It returns the report's section for it (a table and the chart), or None.
A win is ``detente run``'s: the solo, or the most centres at the year limit, a tie split
equally; a game's share of the negotiating agents is the sum of their wins (0 to 1), and
its standard error is over games.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from detente.report import Session

__all__ = ["SeriesPoint", "series", "thesis_section"]

POWERS = 7


@dataclass(frozen=True, slots=True)
class SeriesPoint:
    """One session of the series: ``k`` negotiating agents, the negotiating agents' share of
    the wins (mean over games and its standard error), the deals confirmed per game."""

    session: str
    k: int
    games: int
    share: float
    se: float | None
    deals: float | None

    @property
    def expected(self) -> float:
        return self.k / POWERS


def _negotiates(name: str) -> bool | None:
    """Whether the bot called ``name`` negotiates; None when the registry does not know it."""
    from bots.registry import UnknownBot, bot_class

    try:
        return bool(bot_class(name).negotiates)
    except UnknownBot:
        return None


def series(sessions: Sequence[Session]) -> tuple[str, str, list[SeriesPoint]] | None:
    """The negotiating bot, the other bot and the points, by ``k``; None unless the sessions are such a series."""
    if len(sessions) < 2 or any(s.role != "bot" or not s.games for s in sessions):
        return None
    names = {bot for s in sessions for g in s.games for bot in g.players.values()}
    if len(names) != 2:
        return None
    kinds = {name: _negotiates(name) for name in names}
    negotiating = [n for n, k in kinds.items() if k is True]
    other = [n for n, k in kinds.items() if k is False]
    if len(negotiating) != 1 or len(other) != 1:
        return None
    nego = negotiating[0]
    if nego.partition(":")[0] != other[0].partition(":")[0]:
        return None  # not two variants of one bot (``thesis66``, ``thesis66:nonego``): no shared strategy
    points: list[SeriesPoint] = []
    for session in sessions:
        counts = {sum(1 for bot in g.players.values() if bot == nego) for g in session.games}
        if len(counts) != 1 or any(len(g.players) != POWERS for g in session.games):
            return None
        shares = [math.fsum(s["win"] for s in g.scores.values() if s["bot"] == nego) for g in session.games]
        se = statistics.stdev(shares) / math.sqrt(len(shares)) if len(shares) > 1 else None
        confirmed = [g.confirmed for g in session.games]
        deals = None if any(c is None for c in confirmed) else statistics.fmean(c or 0 for c in confirmed)
        points.append(SeriesPoint(session.name, counts.pop(), len(shares), statistics.fmean(shares), se, deals))
    if len({p.k for p in points}) != len(points):
        return None
    return nego, other[0], sorted(points, key=lambda p: p.k)


def _draw(figure: Figure, points: Sequence[SeriesPoint], nego: str, other: str) -> None:
    """Figure 6.17: each kind's percentage of wins per number of negotiating agents, and the expected lines."""
    ax = figure.subplots()
    ks = [p.k for p in points]
    errors = [100 * (p.se or 0.0) for p in points]
    ax.plot(range(POWERS + 1), [100 * k / POWERS for k in range(POWERS + 1)], "-", color="#1f5f9f", lw=1,
            label=f"expected, {nego}")  # fmt: skip
    ax.plot(range(POWERS + 1), [100 * (POWERS - k) / POWERS for k in range(POWERS + 1)], "-", color="#b5502a",
            lw=1, label=f"expected, {other}")  # fmt: skip
    ax.errorbar(ks, [100 * p.share for p in points], yerr=errors, fmt="o--", color="#1f5f9f", capsize=3, ms=4,
                label=f"{nego} (negotiating)")  # fmt: skip
    ax.errorbar(ks, [100 * (1 - p.share) for p in points], yerr=errors, fmt="s:", color="#b5502a", capsize=3, ms=4,
                label=f"{other} (not negotiating)")  # fmt: skip
    ax.set_xticks(range(POWERS + 1))
    ax.set_xlim(-0.3, POWERS + 0.3)
    ax.set_ylim(-3, 103)
    ax.set_xlabel("negotiating agents in the game (session)")
    ax.set_ylabel("% of games won (± SE over games)")
    ax.legend(fontsize=7, frameon=False, loc="center left", bbox_to_anchor=(1.0, 0.5))


def thesis_section(sessions: Sequence[Session]) -> str | None:
    """The report's section of figure 6.17 for ``sessions``, or None when they are not a thesis-style series."""
    found = series(sessions)
    if found is None:
        return None
    from detente.report import _e, _figure, _table  # the report's page parts (it imports this module)

    nego, other, points = found
    rows: list[tuple[Any, ...]] = [
        (
            p.k,
            p.session,
            p.games,
            f"{100 * p.share:.1f} ± {100 * (p.se or 0.0):.1f}",
            f"{100 * p.expected:.1f}",
            f"{100 * (1 - p.share):.1f}",
            f"{100 * (1 - p.expected):.1f}",
            "-" if p.deals is None else f"{p.deals:.2f}",
        )
        for p in points
    ]
    header = (
        "negotiating agents",
        "session",
        "games",
        f"% won by {nego} (± SE)",
        "expected %",
        f"% won by {other}",
        "expected %",
        "deals confirmed per game",
    )
    return "\n".join(
        [
            '<section id="thesis-6-17"><h2>Negotiating against non-negotiating agents (thesis figure 6.17)</h2>',
            (
                f'<p class="note">As Fabregues (2012, section 6.6.5, figure 6.17): per session, the percentage of'
                f" games won by the negotiating agents ({_e(nego)}, dashed) and by the others ({_e(other)}, dotted),"
                " against the percentages expected if every agent were equal (solid lines: k/7 and (7 − k)/7). A win"
                " is the solo, or the most centres at the year limit, a tie split equally; standard errors are over"
                " games.</p>"
            ),
            _table(header, rows, numeric=(0, 2, 3, 4, 5, 6, 7)),
            _figure(8.0, 3.4, "thesis-6-17", lambda f: _draw(f, points, nego, other)),
            "</section>",
        ]
    )

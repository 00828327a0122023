"""Scoring systems: what one power's result in one game is worth, five ways.

Every system scores each power of a finished game from its supply centres at the end, the
solo (if any) and the two scores every line of ``games.jsonl`` already holds (``win`` and
``rank``, :func:`detente.experiments.score_game`). The *survivors* of a game are the powers
with at least one supply centre at its end (an eliminated power has none).

``draw-size``
    the classic draw-size scoring: a solo scores 1 for the soloist and 0 for everyone else;
    a draw (at the year limit, or voted) is shared equally by the survivors, each scoring
    1/n for n survivors, the eliminated 0. The scores of a game add up to 1.
``sum-of-squares``
    a power's centres squared over the sum of every power's centres squared; a solo scores
    1 for the soloist and 0 for everyone else. The scores of a game add up to 1.
``centres``
    the supply centres at the end (0 to 34).
``rank``
    the rank, 1 (best) to 7, ties sharing the mean of the ranks they span (lower is better).
``win``
    the share of the win: 1 to the power with the most centres at the end, split equally by
    a tie (each of n tied leaders gets 1/n). The scores of a game add up to 1.

>>> seats = {
...     "AUSTRIA": {"bot": "a", "centres": 8, "win": 0.5, "rank": 1.5},
...     "ENGLAND": {"bot": "b", "centres": 8, "win": 0.5, "rank": 1.5},
...     "FRANCE": {"bot": "b", "centres": 4, "win": 0.0, "rank": 3.0},
...     "GERMANY": {"bot": "b", "centres": 0, "win": 0.0, "rank": 4.0},
... }
>>> scored = score_seats(seats, winner=None)
>>> [scored[p]["draw-size"] for p in seats]
[0.3333333333333333, 0.3333333333333333, 0.3333333333333333, 0.0]
>>> [round(scored[p]["sum-of-squares"], 4) for p in seats]
[0.4444, 0.4444, 0.1111, 0.0]
>>> scored["AUSTRIA"]["bot"], scored["AUSTRIA"]["centres"], scored["AUSTRIA"]["rank"], scored["AUSTRIA"]["win"]
('a', 8, 1.5, 0.5)

A solo takes everything under the two systems that share 1:

>>> solo = score_seats({"AUSTRIA": {"bot": "a", "centres": 18, "win": 1.0, "rank": 1.0},
...                     "ENGLAND": {"bot": "b", "centres": 16, "win": 0.0, "rank": 2.0}}, winner="AUSTRIA")
>>> [(p, s["draw-size"], s["sum-of-squares"]) for p, s in solo.items()]
[('AUSTRIA', 1.0, 1.0), ('ENGLAND', 0.0, 0.0)]
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from detente.stats import Estimate, estimate, per_game
from engine.maps import map_names, variant_map

__all__ = [
    "DIGITS",
    "HIGHER_IS_BETTER",
    "SYSTEMS",
    "draw_size",
    "format_system_table",
    "interval_text",
    "score_seats",
    "scored_line",
    "sum_of_squares",
    "system_table",
]

#: The scoring systems, in the order the tables show them.
SYSTEMS: tuple[str, ...] = ("draw-size", "sum-of-squares", "centres", "rank", "win")
#: Whether a higher score is better (rank: lower is better).
HIGHER_IS_BETTER: Mapping[str, bool] = {s: s != "rank" for s in SYSTEMS}


def draw_size(centres: Mapping[str, int], winner: str | None) -> dict[str, float]:
    """Draw-size scores: 1 to a soloist (0 to the others), else 1/n to each of the n survivors.

    >>> draw_size({"A": 10, "B": 5, "C": 0}, None)
    {'A': 0.5, 'B': 0.5, 'C': 0.0}
    >>> draw_size({"A": 18, "B": 5, "C": 0}, "A")
    {'A': 1.0, 'B': 0.0, 'C': 0.0}
    """
    if winner is not None:
        return {p: 1.0 if p == winner else 0.0 for p in centres}
    survivors = [p for p, n in centres.items() if n > 0]
    return {p: 1 / len(survivors) if p in survivors else 0.0 for p in centres}


def sum_of_squares(centres: Mapping[str, int], winner: str | None) -> dict[str, float]:
    """Sum-of-squares scores: centres² / Σ centres², 1 to a soloist (0 to the others).

    >>> sum_of_squares({"A": 3, "B": 4, "C": 0}, None)
    {'A': 0.36, 'B': 0.64, 'C': 0.0}
    """
    if winner is not None:
        return {p: 1.0 if p == winner else 0.0 for p in centres}
    total = math.fsum(n * n for n in centres.values())
    return {p: n * n / total if total else 0.0 for p, n in centres.items()}


def score_seats(seats: Mapping[str, Mapping[str, Any]], winner: str | None) -> dict[str, dict[str, Any]]:
    """Every power's ``bot`` and its score under each of :data:`SYSTEMS`, from the ``scores`` of a
    line of ``games.jsonl`` (``bot``, ``centres``, ``win``, ``rank`` per power) and the soloist."""
    centres = {p: int(s["centres"]) for p, s in seats.items()}
    draw, squares = draw_size(centres, winner), sum_of_squares(centres, winner)
    return {
        p: {
            "bot": s["bot"],
            "draw-size": draw[p],
            "sum-of-squares": squares[p],
            "centres": centres[p],
            "rank": float(s["rank"]),
            "win": float(s["win"]),
        }
        for p, s in seats.items()
    }


def scored_line(line: Mapping[str, Any]) -> dict[str, Any]:
    """A line of ``games.jsonl`` whose ``scores`` hold every system (see :func:`score_seats`)."""
    winner = None if line.get("outcome") == "draw" else line.get("winner")
    return {**line, "scores": score_seats(line["scores"], winner)}


def system_table(
    games: Iterable[Mapping[str, Any]], bots: Sequence[str] | None = None
) -> dict[str, dict[str, Estimate]]:
    """Per bot, per system: the mean score per game (a bot's seats in a game averaged) and its interval.

    ``games`` are lines of ``games.jsonl`` (scored or not); ``bots`` the order of the table
    (default: the order the bots first appear in).

    >>> line = {"outcome": "draw", "winner": None, "scores": {
    ...     "AUSTRIA": {"bot": "x", "centres": 6, "win": 1.0, "rank": 1.0},
    ...     "ENGLAND": {"bot": "y", "centres": 3, "win": 0.0, "rank": 2.0},
    ...     "FRANCE": {"bot": "y", "centres": 3, "win": 0.0, "rank": 3.0}}}
    >>> table = system_table([line, line])
    >>> table["x"]["sum-of-squares"], table["y"]["rank"]
    (Estimate(mean=0.6667, se=0.0, n=2), Estimate(mean=2.5, se=0.0, n=2))
    """
    lines = [scored_line(g) if "draw-size" not in next(iter(g["scores"].values()), {}) else g for g in games]
    order = (
        list(bots) if bots is not None else list(dict.fromkeys(s["bot"] for g in lines for s in g["scores"].values()))
    )
    table: dict[str, dict[str, Estimate]] = {}
    for bot in order:
        values = {system: per_game(lines, bot, lambda s, system=system: s[system]) for system in SYSTEMS}
        if values[SYSTEMS[0]]:
            table[bot] = {system: bounded(system, v) for system, v in values.items()}
    return table


def bounds(system: str) -> tuple[tuple[float, float], bool]:
    """What a score of ``system`` can be on any map a game may name: its least and most (the
    most centres and the most powers of a map bound the centres and the rank), and whether
    it is a proportion (mostly 0 or 1: Wilson's interval); see :class:`detente.stats.Estimate`.

    >>> bounds("centres"), bounds("win")
    (((0.0, 34.0), False), ((0.0, 1.0), True))
    """
    if system == "centres":
        return (0.0, float(max(len(variant_map(n).supply_centers) for n in map_names()))), False
    if system == "rank":
        return (1.0, float(max(len(variant_map(n).powers) for n in map_names()))), False
    return _FIXED_BOUNDS[system]


_FIXED_BOUNDS: Mapping[str, tuple[tuple[float, float], bool]] = {
    "draw-size": ((0.0, 1.0), False),
    "sum-of-squares": ((0.0, 1.0), False),
    "win": ((0.0, 1.0), True),
}


def bounded(system: str, values: Iterable[float]) -> Estimate:
    """The estimate of ``values`` of ``system``, its interval kept within what the system can be.

    >>> e = bounded("draw-size", [0.0, 0.0, 0.0, 1.0])
    >>> e.low, round(e.high, 3)
    (0.0, 1.0)
    """
    limits, proportion = bounds(system)
    return estimate(values, limits, proportion)


def interval_text(value: Estimate, digits: int = 2) -> str:
    """``mean [low, high]``: the 95 % interval (``mean`` alone from one game)."""
    if value.se is None:
        return f"{value.mean:.{digits}f}"
    return f"{value.mean:.{digits}f} [{value.low:.{digits}f}, {value.high:.{digits}f}]"


#: How many digits each system is shown with.
DIGITS: Mapping[str, int] = {"draw-size": 3, "sum-of-squares": 3, "centres": 2, "rank": 2, "win": 3}


def format_system_table(table: Mapping[str, Mapping[str, Estimate]], who: str = "bot") -> str:
    """The table of :func:`system_table` as text: one row per bot, ``mean [95 % interval]`` per system."""
    rows = [[who, "games", *SYSTEMS]]
    for bot, systems in table.items():
        n = next(iter(systems.values())).n
        rows.append([bot, str(n), *(interval_text(systems[s], DIGITS[s]) for s in SYSTEMS)])
    return grid(rows)


def grid(rows: Sequence[Sequence[str]]) -> str:
    """Rows of cells as aligned text (the first column to the left, the others to the right),
    a rule under the header.

    >>> print(grid([["bot", "n"], ["dumbbot", "14"]]))
    bot       n
    -----------
    dumbbot  14
    """
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = [
        "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True)))
        for row in rows
    ]
    lines.insert(1, "-" * len(lines[0]))
    return "\n".join(lines)

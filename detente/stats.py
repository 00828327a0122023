"""The statistics every figure of an experiment uses: per-game estimates, intervals and tests.

The unit of a Diplomacy experiment is the game, not the seat: the seven powers of one game
are not independent (one power's centres are another's losses), and a bot in three seats of
a game plays one game, not three. So a bot's figure is first averaged over its seats in each
game, and the standard error, the interval and the tests run over those per-game values.

>>> e = estimate([1.0, 2.0, 3.0, 4.0])
>>> e
Estimate(mean=2.5, se=0.6455, n=4)
>>> round(e.low, 3), round(e.high, 3)
(0.446, 4.554)
>>> t = paired([3.0, 4.0, 5.0, 6.0, 7.0], [1.0, 3.0, 2.0, 4.0, 4.0])
>>> round(t.difference.mean, 2), round(t.p, 4)
(2.2, 0.0042)
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Comparison", "Estimate", "estimate", "paired", "per_game", "student_t_sf", "welch"]

#: The two-sided level of every interval: 95 %.
LEVEL = 0.95


@dataclass(frozen=True, slots=True)
class Estimate:
    """A mean over ``n`` independent values, its standard error and its 95 % interval.

    The interval is Student's t, kept within ``bounds`` (the least and most a value can be,
    such as ranks 1 to 7) when there are bounds; for a ``proportion`` (a share of wins, values
    from 0 to 1, mostly 0 or 1) it is Wilson's score interval on the mean, which stays inside
    by construction and does not collapse at 0 or 1 as a normal interval does.

    >>> never = estimate([0.0] * 10, bounds=(0.0, 1.0), proportion=True)
    >>> round(never.low, 3), round(never.high, 3)
    (0.0, 0.278)
    >>> rank = estimate([1.0, 1.0, 1.0, 2.0], bounds=(1.0, 7.0))
    >>> rank.low, round(rank.high, 3)
    (1.0, 2.046)
    """

    mean: float
    se: float | None
    n: int
    # how the interval is drawn, not what is estimated: two estimates of the same values are equal
    bounds: tuple[float, float] | None = field(default=None, compare=False)
    proportion: bool = field(default=False, compare=False)

    @property
    def half_width(self) -> float | None:
        if self.se is None:
            return None
        return t_quantile(LEVEL, self.n - 1) * self.se

    @property
    def low(self) -> float:
        return self._interval()[0]

    @property
    def high(self) -> float:
        return self._interval()[1]

    def _interval(self) -> tuple[float, float]:
        if self.proportion and self.bounds is not None:
            return _wilson(self.mean, self.n, self.bounds)
        half = self.half_width or 0.0
        low, high = self.mean - half, self.mean + half
        if self.bounds is not None:
            low, high = max(low, self.bounds[0]), min(high, self.bounds[1])
        return low, high

    def __repr__(self) -> str:
        se = None if self.se is None else round(self.se, 4)
        return f"Estimate(mean={round(self.mean, 4)}, se={se}, n={self.n})"

    def text(self, digits: int = 2) -> str:
        """``mean ± se`` (``mean`` alone where there is no standard error)."""
        if self.se is None:
            return f"{self.mean:.{digits}f}"
        return f"{self.mean:.{digits}f} ± {self.se:.{digits}f}"

    def to_json(self) -> dict[str, Any]:
        return {"mean": self.mean, "se": self.se, "n": self.n, "low": self.low, "high": self.high}


def estimate(values: Iterable[float], bounds: tuple[float, float] | None = None, proportion: bool = False) -> Estimate:
    """The mean of ``values`` with its standard error (None for fewer than two values); see
    :class:`Estimate` for ``bounds`` and ``proportion``."""
    data = list(values)
    if not data:
        raise ValueError("no values to estimate from")
    se = statistics.stdev(data) / math.sqrt(len(data)) if len(data) > 1 else None
    return Estimate(statistics.fmean(data), se, len(data), bounds, proportion)


def _wilson(mean: float, n: int, bounds: tuple[float, float]) -> tuple[float, float]:
    """Wilson's 95 % score interval of a proportion ``mean`` of ``n``, on the scale of ``bounds``."""
    low, high = bounds
    p = min(1.0, max(0.0, (mean - low) / (high - low)))
    z = _NORMAL_95
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return low + (high - low) * max(0.0, centre - half), low + (high - low) * min(1.0, centre + half)


#: The two-sided 95 % quantile of the normal distribution.
_NORMAL_95 = 1.959963984540054


def per_game(
    games: Iterable[Mapping[str, Any]], bot: str, value: Callable[[Mapping[str, Any]], float]
) -> list[float]:
    """``bot``'s value in each game it played, averaged over its seats there.

    ``games`` are lines of ``games.jsonl``; ``value`` reads one seat's score (such as
    ``lambda s: s["centres"]``). Games without the bot are left out.
    """
    out = []
    for game in games:
        seats = [s for s in game["scores"].values() if s["bot"] == bot]
        if seats:
            out.append(math.fsum(value(s) for s in seats) / len(seats))
    return out


@dataclass(frozen=True, slots=True)
class Comparison:
    """A comparison of two sets of values: the estimated difference, Student's t, its two-sided p."""

    difference: Estimate
    t: float
    df: float
    p: float

    def to_json(self) -> dict[str, Any]:
        return {"difference": self.difference.to_json(), "t": self.t, "df": self.df, "p": self.p}


def paired(a: Sequence[float], b: Sequence[float]) -> Comparison:
    """The paired t-test of ``a`` against ``b`` (the same games, or the same seeds, in order)."""
    if len(a) != len(b):
        raise ValueError(f"paired values must pair: {len(a)} against {len(b)}")
    difference = estimate(x - y for x, y in zip(a, b, strict=True))
    return _test(difference, difference.n - 1)


def welch(a: Sequence[float], b: Sequence[float]) -> Comparison:
    """Welch's t-test of ``a`` against ``b``: independent samples, unequal variances."""
    ea, eb = estimate(a), estimate(b)
    if ea.se is None or eb.se is None:
        raise ValueError("Welch's test needs two values on each side")
    va, vb = ea.se**2, eb.se**2
    se = math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va**2 / (ea.n - 1) + vb**2 / (eb.n - 1)) if se else float(ea.n + eb.n - 2)
    return _test(Estimate(ea.mean - eb.mean, se, ea.n + eb.n), df)


def _test(difference: Estimate, df: float) -> Comparison:
    if difference.se is None or df < 1:
        raise ValueError("a test needs at least two values")
    if difference.se == 0:
        return Comparison(difference, math.copysign(math.inf, difference.mean) if difference.mean else 0.0, df,
                    0.0 if difference.mean else 1.0)  # fmt: skip
    t = difference.mean / difference.se
    return Comparison(difference, t, df, min(1.0, 2 * student_t_sf(abs(t), df)))


# --- Student's t without scipy ---------------------------------------------------------------------


def student_t_sf(t: float, df: float) -> float:
    """P(T > t) for Student's t with ``df`` degrees of freedom (``t`` ≥ 0).

    >>> round(student_t_sf(2.0, 10), 5)
    0.03669
    """
    x = df / (df + t * t)
    return 0.5 * _betainc(df / 2, 0.5, x)


def t_quantile(level: float, df: float) -> float:
    """The two-sided ``level`` quantile of Student's t (1.96 for large ``df`` at 95 %).

    >>> round(t_quantile(0.95, 9), 3)
    2.262
    """
    if df < 1:
        return math.inf
    tail = (1 - level) / 2
    low, high = 0.0, 1.0
    while student_t_sf(high, df) > tail:
        high *= 2
    for _ in range(100):  # bisection: the quantile to far better than the figures print
        mid = (low + high) / 2
        low, high = (mid, high) if student_t_sf(mid, df) > tail else (low, mid)
    return (low + high) / 2


def _betainc(a: float, b: float, x: float) -> float:
    """The regularised incomplete beta function I_x(a, b) (a continued fraction, Lentz's method)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x > (a + 1) / (a + b + 2):  # the fraction converges fast only on this side: use the symmetry
        return 1.0 - _betainc(b, a, 1.0 - x)
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return front * h / a

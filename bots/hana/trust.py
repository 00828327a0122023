"""HANA's trust and relationship models (thesis section 5.2, footnote 6, and section 5.4).

**Trust** in a power is the belief that it keeps its deals: a Beta estimate over the
compliance reports of deals with it (``kept`` against ``broken``), starting from the
personality's ``initial_trust`` worth two reports, with older reports weighing less
(recency, as the belief review of section 5.2; each new report first multiplies the
counts by ``RECENCY``). Trust weighs what a deal is worth (the partner's promised actions
are believed with the degree of trust, footnote 6), and below the personality's
``distrust`` it becomes the intention not to negotiate with the power (section 5.4).

**Relationship**: the beliefs about utterances (equation 5.2) HANA needs: how often a
power accepts what it is offered, and whether it answers at all (a power that let a
proposal of ours go unanswered for a whole round is *silent* until it says something).

>>> t = Trust(0.7)
>>> t.report("FRA", kept=False)
>>> t.of("FRA") < 0.7 < t.of("GER") + 0.01
True
"""

from __future__ import annotations

__all__ = ["Relationship", "Trust"]

RECENCY = 0.8
PRIOR_WEIGHT = 2.0


class Trust:
    def __init__(self, initial: float) -> None:
        self.initial = initial
        self.kept: dict[str, float] = {}
        self.broken: dict[str, float] = {}

    def report(self, power: str, kept: bool) -> None:
        self.kept[power] = self.kept.get(power, 0.0) * RECENCY + (1.0 if kept else 0.0)
        self.broken[power] = self.broken.get(power, 0.0) * RECENCY + (0.0 if kept else 1.0)

    def of(self, power: str) -> float:
        k, b = self.kept.get(power, 0.0), self.broken.get(power, 0.0)
        return (k + PRIOR_WEIGHT * self.initial) / (k + b + PRIOR_WEIGHT)


class Relationship:
    def __init__(self) -> None:
        self.offered: dict[str, int] = {}
        self.accepted: dict[str, int] = {}
        self.silent: set[str] = set()

    def acceptance(self, power: str) -> float:
        """B(power accepts a proposal), Laplace's rule over the proposals it answered."""
        return (self.accepted.get(power, 0) + 1) / (self.offered.get(power, 0) + 2)

    def answered(self, power: str, accepted: bool) -> None:
        self.offered[power] = self.offered.get(power, 0) + 1
        if accepted:
            self.accepted[power] = self.accepted.get(power, 0) + 1
        self.silent.discard(power)

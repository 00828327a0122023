"""HANA's measures of a negotiation state (thesis section 5.4, equations 5.7-5.10).

A negotiation strategy (:mod:`.negotiation`) weighs these to get g_min (definition 25) and
to value an option δ by the state it leads to, next(s, δ). Each is in [0, 1].

* **Independence** f_UC (eq. 5.8): the best expected utility of a complete plan; the plan
  search's ranking holds it (:meth:`bots.hana.bot.Hana._independence`).
* **Opportunity** f_UJ (eq. 5.9): the same over joint plans; HANA measures it on the
  options of the round (the best f(next(s, δ))), the top of the aspiration's scale.
* **Quality of information** f_H (eq. 5.7): 1 minus the uncertainty of definition 21 of
  the beliefs, :func:`information`. The thesis takes the maximum over the plans of the
  ranking, each plan's actions believed at degree 1. HANA's beliefs are about the other
  powers' units only, so a complete plan (ours alone) revises nothing and every complete
  plan gives 1 - H(B); a joint plan would also pin its partner's actions. Our choice: the
  measure of the *current* state ranges over the complete plans (1 - H of the beliefs
  revised by the deals in force), like f_UC, because g_min is "the minimum value that can
  be guaranteed" and a joint plan's information is not had until a deal makes it so; with
  the joint plans in, the state would already count as known what an option is meant to
  bring, and no option could raise it. The information an option brings is measured in
  next(s, δ): the beliefs revised by δ (the partner's actions at the degree of trust in it,
  a peace cutting its attacks on us), as :meth:`bots.hana.bot.Hana._beliefs` does.
* **Confidence** f_C (eq. 5.10): the largest confidence (definition 23) of a plan of the
  ranking. A complete plan asks nothing of others and has confidence 1, which would make
  the measure constant; :func:`confidence` therefore ranges over the joint plans (0 when
  there are none). No strategy of the thesis weighs it; it is measured, not used.

>>> from engine.orders import Hold, Move
>>> from engine.position import ARMY
>>> unit_beliefs = Beliefs({"u": {Hold(ARMY, 0): 0.5, Move(ARMY, 0, 1): 0.5}})  # type: ignore[dict-item]
>>> information(unit_beliefs)
0.0
>>> information(unit_beliefs.committed({"u": Hold(ARMY, 0)}))  # type: ignore[dict-item]
1.0
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from bots.hana.beliefs import Beliefs
from bots.hana.search import Ranked

__all__ = ["Measures", "confidence", "information"]


@dataclass(frozen=True, slots=True)
class Measures:
    """The measures of one negotiation state that strategies weigh: f_UC and f_H."""

    utility: float  # f_UC (eq. 5.8); for next(s, δ), the best plan that fits δ
    information: float  # f_H (eq. 5.7)

    def of(self, name: str) -> float:
        """The measure called ``name`` in the thesis (``f_UC`` or ``f_H``)."""
        return {"f_UC": self.utility, "f_H": self.information}[name]


def information(beliefs: Beliefs) -> float:
    """f_H: the quality of information, 1 minus definition 21's uncertainty of ``beliefs``
    (1 when no unit of another power is believed about: nothing is uncertain)."""
    return 1.0 - beliefs.uncertainty()


def confidence(ranking: Iterable[Ranked]) -> float:
    """f_C (eq. 5.10) over the joint plans of ``ranking``: the largest confidence (definition
    23) that the other powers play their part; 0 without joint plans."""
    return max((r.confidence for r in ranking if r.plan.joint), default=0.0)

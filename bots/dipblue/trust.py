"""Trust and relations (paper section 4.2): a friction ratio and a state for every opponent.

Every opponent starts neutral with a trust ratio of 1; the bot works with its inverse, the
*friction* ``1 / trust``. The state of the relation (neutral, peace or war) scales it: the
*effective* friction is the friction times ``peace_factor`` in peace and ``war_factor`` at
war, which is what the advisers and the negotiator read (WordKeeper multiplies the value
of an action against a power by it; the AgreementExecutor and the acceptance of requests
divide by it).

What moves it (only for a bot that reasons about trust, :attr:`Relations.learning`):

- an attack on us (``referee.compliance.attacks``) adds ``attack * trust``, a broken
  commitment ``betrayal * trust``, a rejected peace proposal ``rejected``: "the magnitude of
  the impact depends on the current trust", so that a trusted ally's attack weighs more than
  an enemy's (trust here is the effective one, ``1 / effective friction``);
- a kept commitment multiplies the friction by ``kept``, a neighbour (a power with a unit
  next to one of our units or centres) that did not attack us in a movement phase by
  ``quiet``: multiplicative, so the change is again in proportion to the current level;
- friction stays within ``[min_friction, max_friction]``.

The states change with the negotiation: a confirmed peace makes peace, an alliance makes
its allies peace and its enemies war (and ends the war on the former target: one enemy at
a time, paper section 4.2), and peace is broken (back to neutral) once the effective
friction passes ``break_peace``.

The paper gives no number; these are ours (the authors' code, for the two state factors,
used the same 0.5 and 2):

* ``peace_factor = 0.5``, ``war_factor = 2.0``;
* ``attack = 0.1``, ``betrayal = 0.25``, ``rejected = 0.1``: one attack by a peace partner
  (trust 2) and the broken peace it reports take a fresh friction of 1 to 1.62, a second one
  to 2.03, past ``break_peace``: a peace survives one incident (units of partners brush
  against each other) but not two in a row (with 200 games of two DipBlues and five
  NoPress or DumbBots, breaking at the first incident did no better);
* ``kept = 0.97`` (a peace is reported kept every phase, so this is slow), ``quiet = 0.98``;
* ``break_peace = 1.0`` (on the effective friction: a base friction of 2 in peace), and
  peace is accepted only below ``accept_peace = 2.0``;
* ``min_friction = 0.2``, ``max_friction = 10``.

>>> r = Relations("FRA", ["ENG", "GER"], TrustRules(), learning=True)
>>> r.make_peace("ENG"); r.effective("ENG")
0.5
>>> r.attacked("ENG"); r.betrayed("ENG"); round(r.friction["ENG"], 2), r.state["ENG"]
(1.62, 'peace')
>>> r.attacked("ENG"); r.betrayed("ENG"); round(r.friction["ENG"], 2), r.state["ENG"]
(2.03, 'neutral')
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["NEUTRAL", "PEACE", "WAR", "Relations", "TrustRules"]

NEUTRAL, PEACE, WAR = "neutral", "peace", "war"


@dataclass(frozen=True, slots=True)
class TrustRules:
    """The constants of trust reasoning (see the module for what each does and why)."""

    peace_factor: float = 0.5
    war_factor: float = 2.0
    attack: float = 0.1
    betrayal: float = 0.25
    rejected: float = 0.1
    kept: float = 0.97
    quiet: float = 0.98
    break_peace: float = 1.0
    accept_peace: float = 2.0
    min_friction: float = 0.2
    max_friction: float = 10.0


class Relations:
    """What one power thinks of every other: friction and state.

    With ``learning`` false (the Naive and Slave archetypes) the events that move the
    friction are ignored: it stays 1, and only the states change.
    """

    def __init__(self, me: str, others: Iterable[str], rules: TrustRules, learning: bool) -> None:
        self.me = me
        self.rules = rules
        self.learning = learning
        self.friction = {p: 1.0 for p in others if p != me}
        self.state = dict.fromkeys(self.friction, NEUTRAL)

    # --- reading -----------------------------------------------------------------------------

    def effective(self, power: str) -> float:
        """The friction scaled by the state: what the advisers use (1 for unknown powers)."""
        friction = self.friction.get(power)
        if friction is None:
            return 1.0
        state = self.state[power]
        if state == PEACE:
            return friction * self.rules.peace_factor
        if state == WAR:
            return friction * self.rules.war_factor
        return friction

    def trust(self, power: str) -> float:
        return 1.0 / self.effective(power)

    def at_peace(self, power: str) -> bool:
        return self.state.get(power) == PEACE

    def at_war(self, power: str) -> bool:
        return self.state.get(power) == WAR

    def partners(self) -> list[str]:
        """The powers in peace with us, sorted."""
        return sorted(p for p, s in self.state.items() if s == PEACE)

    # --- states --------------------------------------------------------------------------------

    def make_peace(self, power: str) -> None:
        if power in self.state:
            self.state[power] = PEACE

    def ally_against(self, allies: Iterable[str], enemies: Iterable[str]) -> None:
        """An alliance: its allies in peace, its enemies at war, any other war ended."""
        for power, state in self.state.items():
            if state == WAR:
                self.state[power] = NEUTRAL
        for power in allies:
            self.make_peace(power)
        for power in enemies:
            if power in self.state:
                self.state[power] = WAR

    def break_peace(self, power: str) -> None:
        """The truce with ``power`` is broken (section 4.2: the least beneficial partner)."""
        if self.state.get(power) == PEACE:
            self.state[power] = NEUTRAL

    def review_peace(self) -> list[str]:
        """Break the peace with every partner whose effective friction passed ``break_peace``."""
        broken = [p for p in self.partners() if self.effective(p) > self.rules.break_peace]
        for power in broken:
            self.state[power] = NEUTRAL
        return broken

    # --- events (ignored unless learning) -------------------------------------------------------

    def attacked(self, power: str) -> None:
        self._add(power, self.rules.attack)

    def betrayed(self, power: str) -> None:
        self._add(power, self.rules.betrayal)
        self.review_peace()

    def rejected_peace(self, power: str) -> None:
        if self.learning and power in self.friction:
            self._set(power, self.friction[power] + self.rules.rejected)

    def kept(self, power: str) -> None:
        self._scale(power, self.rules.kept)

    def quiet(self, power: str) -> None:
        self._scale(power, self.rules.quiet)

    def _add(self, power: str, amount: float) -> None:
        """Raise the friction by ``amount`` times the current trust: a trusted power's act weighs more."""
        if self.learning and power in self.friction:
            self._set(power, self.friction[power] + amount * self.trust(power))

    def _scale(self, power: str, factor: float) -> None:
        if self.learning and power in self.friction:
            self._set(power, self.friction[power] * factor)

    def _set(self, power: str, friction: float) -> None:
        self.friction[power] = min(self.rules.max_friction, max(self.rules.min_friction, friction))

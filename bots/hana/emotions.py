"""HANA's emotions: moods that a personality drives (thesis section 5.2, footnote 4, example 3).

A mood here is a frustration with each other power, in [0, 1]. Frustrating observations
raise it by the personality's ``sensitivity`` times how frustrating they are, saturating
(f <- f + s * x * (1 - f)); every movement phase it fades by ``forgiveness``. The
personality's revenge rule turns frustration into a desire to retaliate,
``aggression * f`` (example 3: "Its personality rules for revenge trigger a desire ... to
damage Jaume"), which the desires pass on as an intention to attack (:mod:`bots.hana.bdi`).

How frustrating each observation is (our choice; the thesis names the observations, not
the amounts): a deal the power broke with us 1.0; an attack of its on a unit or centre of
ours 0.3; a proposal of ours it rejected 0.1; and, as example 3 has it, an attack by a
power that accepted none of our proposals in the last three rounds counts double.

>>> from bots.hana.personality import PERSONALITIES
>>> calm, revenger = Moods(PERSONALITIES["balanced"]), Moods(PERSONALITIES["revenger"])
>>> for m in (calm, revenger):
...     m.feel("FRA", BROKEN_DEAL)
>>> calm.retaliation("FRA") < revenger.retaliation("FRA")
True
"""

from __future__ import annotations

from bots.hana.personality import Personality

__all__ = ["ATTACK", "BROKEN_DEAL", "REJECTION", "Moods"]

BROKEN_DEAL = 1.0
ATTACK = 0.3
REJECTION = 0.1
#: Below this a desire to retaliate is no desire at all (our choice).
THRESHOLD = 0.1


class Moods:
    """The frustration with each power, and the desires to retaliate it drives."""

    def __init__(self, personality: Personality) -> None:
        self.personality = personality
        self.frustration: dict[str, float] = {}

    def feel(self, power: str, how_much: float) -> None:
        """A frustrating observation about ``power`` (see the module for the amounts)."""
        f = self.frustration.get(power, 0.0)
        self.frustration[power] = f + min(1.0, self.personality.sensitivity * how_much) * (1.0 - f)

    def fade(self) -> None:
        """A movement phase went by."""
        keep = 1.0 - self.personality.forgiveness
        self.frustration = {p: f * keep for p, f in self.frustration.items() if f * keep > 1e-3}

    def retaliation(self, power: str) -> float:
        """The degree of the desire to damage ``power``."""
        d = self.personality.aggression * self.frustration.get(power, 0.0)
        return d if d >= THRESHOLD else 0.0

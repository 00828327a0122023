"""HANA's personalities, as data (thesis section 5.2, example 3 and footnote 4; section 5.4).

A personality is the part of the emotional model that says how observations move the
agent's moods (footnote 4, after Revelle and Scherer) and how moods become desires; it
also carries the parameters of the negotiation strategy of section 5.4 that the thesis
leaves to each agent (the aspiration decay rate tau of definition 25, the strategy that
sets g_min: :data:`bots.hana.negotiation.STRATEGIES`). Every field names where it comes from.

The strategy of the first three is the conservative one, as HANA played before the others
were built (an earlier draft of this table named "dynamic" for the balanced agent and the
Revenger while the agent played conservatively; the data now says what the agent does,
and its games replay unchanged). ``informative`` and ``dynamic`` are the balanced
personality with the strategy of that name (section 5.4).

>>> PERSONALITIES["revenger"].aggression > PERSONALITIES["balanced"].aggression
True
>>> sorted(PERSONALITIES)
['balanced', 'dynamic', 'informative', 'pacifist', 'revenger']
>>> PERSONALITIES["dynamic"].sensitivity == PERSONALITIES["balanced"].sensitivity
True
"""

from __future__ import annotations

from dataclasses import dataclass, replace

__all__ = ["PERSONALITIES", "Personality"]


@dataclass(frozen=True, slots=True)
class Personality:
    """How one HANA agent feels, wants and bargains. See the module for each field's source."""

    name: str
    #: 5.2 fn. 4: how much one frustrating observation (a broken deal, an attack, a rejection)
    #: raises the frustration with its author, in [0, 1] ("sensitive" in example 3).
    sensitivity: float
    #: 5.2 fn. 4 / example 3: how strongly frustration becomes a desire to retaliate, in [0, 1]
    #: ("aggressive" in example 3).
    aggression: float
    #: 5.2 ("desires ... updated via a similar simple update method that we omit"): the share
    #: of every mood that fades each movement phase. Our choice: exponential decay.
    forgiveness: float
    #: 5.2 fn. 6: the trust degree an agent starts with (the belief that it keeps its deals).
    initial_trust: float
    #: 5.4, "Other intentions": below this trust the intention not to negotiate with a power wins.
    distrust: float
    #: 5.4 definition 25: the aspiration decay rate tau in [0, 1].
    tau: float
    #: 5.4: the strategy fixing g_min, a key of :data:`bots.hana.negotiation.STRATEGIES`:
    #: "conservative" (f_UC), "informative" (f_H), "dynamic" (f_H, then f_UC).
    strategy: str
    #: 5.4: the least improvement of the negotiation state an option must bring (of the
    #: normalised utility) to be proposed or accepted; our choice, so that noise in the
    #: sampled expected utility does not make deals.
    margin: float
    #: 5.3: the utility weight, per unit of intention to attack a power, of each of its units
    #: dislodged and each of its centres entered (the "non-rational" plans of example 3).
    revenge_weight: float


PERSONALITIES: dict[str, Personality] = {
    # The default HANA agent: neither sensitive nor aggressive; forgets in about three years.
    "balanced": Personality(
        name="balanced",
        sensitivity=0.5,
        aggression=0.3,
        forgiveness=0.15,
        initial_trust=0.7,
        distrust=0.3,
        tau=0.5,
        strategy="conservative",
        margin=0.002,
        revenge_weight=0.5,
    ),
    # Example 3: "a sensitive and aggressive personality"; it hardly forgets.
    "revenger": Personality(
        name="revenger",
        sensitivity=1.0,
        aggression=1.0,
        forgiveness=0.03,
        initial_trust=0.7,
        distrust=0.4,
        tau=0.5,
        strategy="conservative",
        margin=0.002,
        revenge_weight=2.0,
    ),
    # The opposite pole: slow to anger, quick to forgive, trusting; concedes fast: with
    # tau = 1 the aspiration falls linearly to g_min (a small tau keeps it high until late).
    "pacifist": Personality(
        name="pacifist",
        sensitivity=0.2,
        aggression=0.0,
        forgiveness=0.4,
        initial_trust=0.85,
        distrust=0.15,
        tau=1.0,
        strategy="conservative",
        margin=0.0,
        revenge_weight=0.0,
    ),
}

# The balanced agent with the other two strategies of section 5.4.
PERSONALITIES["informative"] = replace(PERSONALITIES["balanced"], name="informative", strategy="informative")
PERSONALITIES["dynamic"] = replace(PERSONALITIES["balanced"], name="dynamic", strategy="dynamic")

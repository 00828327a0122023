"""HANA's desires and intentions, graded (thesis section 5.2, g-BDI; section 5.4).

Desires come from beliefs and emotions: the desire to fulfil the negotiation protocol
(degree 1: its rules are internal norms, section 5.2), the desire to gain (degree 1),
and a desire to retaliate against each power that frustrated a revengeful personality
(:mod:`bots.hana.emotions`). Intentions come from desires and beliefs:

* the three *basic intentions* of the protocol, mutually exclusive so that their degrees
  sum to 1 (section 5.4): ``reply`` (a proposal was received), ``propose`` (time is left
  in the negotiation round), ``executeActions`` (the deadline is reached); the agent
  executes the one of highest degree. Their transition function (ours; the thesis gives
  the ordering only): raw degrees 2 for reply when a proposal waits (the norm of
  answering weighs most), 1 for propose while time is left, 1 for executeActions at
  the deadline, then normalised;
* an intention to attack a power: the desire to retaliate against it, times the belief
  that it can be reached (it has a unit or a centre next to one of ours);
* an intention not to negotiate with a power whose trust fell below the personality's
  ``distrust`` (section 5.4, "Other intentions"); its degree is how far below.

>>> basic_intentions(received=True, time_left=True)
{'reply': 0.6666666666666666, 'propose': 0.3333333333333333, 'executeActions': 0.0}
>>> max(basic_intentions(received=False, time_left=False).items(), key=lambda kv: kv[1])[0]
'executeActions'
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from bots.hana.emotions import Moods
from bots.hana.trust import Trust

__all__ = ["Desires", "Intentions", "basic_intentions", "desires", "intentions"]


def basic_intentions(received: bool, time_left: bool) -> dict[str, float]:
    """The degrees of reply, propose and executeActions (see the module)."""
    raw = {"reply": 2.0 if received else 0.0, "propose": 1.0 if time_left else 0.0,
           "executeActions": 0.0 if time_left else 1.0}  # fmt: skip
    total = sum(raw.values())
    return {k: v / total for k, v in raw.items()}


@dataclass(frozen=True, slots=True)
class Desires:
    protocol: float
    gain: float
    retaliate: Mapping[str, float]


@dataclass(frozen=True, slots=True)
class Intentions:
    attack: Mapping[str, float]  # power -> degree
    shun: Mapping[str, float]  # power -> degree of the intention not to negotiate with it


def desires(moods: Moods, powers: Iterable[str]) -> Desires:
    retaliate = {p: d for p in powers if (d := moods.retaliation(p)) > 0}
    return Desires(protocol=1.0, gain=1.0, retaliate=retaliate)


def intentions(
    d: Desires, trust: Trust, distrust: float, reachable: Iterable[str], powers: Iterable[str]
) -> Intentions:
    near = set(reachable)
    attack = {p: degree for p, degree in d.retaliate.items() if p in near}
    shun = {}
    for p in powers:
        t = trust.of(p)
        if t < distrust:
            shun[p] = (distrust - t) / distrust
    return Intentions(attack, shun)

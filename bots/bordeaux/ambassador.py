"""The ambassador of the Bordeaux diplomat: it asks for an explanation of a broken agreement.

Loeb's *The Observation Module*, "Violation of Specific Agreements": "in case of
violation, a penalty is given, and the 'ambassador' process for the nation in question
is signalled so that it can ask for an explanation". In L the question is
``query(me, offender, Explain(~ϕ, t))``: explain why the part ϕ of our deal did not hold
at the time ``t`` of the phase it was broken in. ``Explain`` is a level-7 construct.

A game may allow fewer levels, and a bot is not told which (in process; over the network
the ``welcome`` frame says, but the bot is not given it): the negotiation server refuses a
message above them with an ``error`` frame of code ``level``, which names no message.
:func:`lowered` keeps a ceiling: at each such error, it falls just below the highest
level among the messages recently said that the ceiling still allowed (each error is one
refused message, and the refused are the highest). Under a ceiling below 7 the ambassador
informs the offender of what it observed instead, ``inform(me, offender, Obs(me,
offender, ~ϕ))`` (level 2), and under 2 it stays silent. A question refused is sent again
in the form the new ceiling allows (:func:`request`).

>>> from protocol.l import parse, to_text
>>> broken = Complaint("FRA", parse("inform(eng, fra, pce([eng fra]))").info, "S1902M")
>>> to_text(request("ENG", broken, 8))
'query(eng, [fra], Explain(~pce([eng fra]), (spr, 1902)))'
>>> to_text(request("ENG", broken, 6))
'inform(eng, [fra], Obs(eng, [fra], ~pce([eng fra])))'
>>> request("ENG", broken, 1) is None
True
>>> timed = parse("propose(eng, fra, Agree([eng fra], pce([eng fra]), (spr, 1902)))")
>>> sent = [request("ENG", broken, 8), timed, timed]
>>> [lowered(8, sent, errors) for errors in (1, 2, 3, 4)]
[6, 5, 5, 8]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.position import Phase
from protocol.l import ast as a
from protocol.l import level

__all__ = ["EXPLAIN_LEVEL", "OBSERVE_LEVEL", "Complaint", "lowered", "request"]

EXPLAIN_LEVEL = 7
OBSERVE_LEVEL = 2


@dataclass(frozen=True, slots=True)
class Complaint:
    """``offender`` broke the part ``part`` of a deal with us in ``phase``."""

    offender: str
    part: a.Info
    phase: str


def request(me: str, complaint: Complaint, ceiling: int) -> a.Message | None:
    """What the ambassador says about ``complaint`` when the levels up to ``ceiling`` are allowed."""
    broken = a.Not(complaint.part)
    who = frozenset({complaint.offender})
    if ceiling >= EXPLAIN_LEVEL:
        return a.Query(me, who, a.Explain(broken, a.Turn.of(Phase.parse(complaint.phase))))
    if ceiling >= OBSERVE_LEVEL:
        return a.Inform(me, who, a.Obs(me, who, broken))
    return None


def lowered(ceiling: int, recent: Sequence[a.Message], errors: int) -> int:
    """The ceiling after ``errors`` ``level`` errors about the messages said lately, ``recent``.

    Each error is one message refused, and the refused are the highest: so the ``errors``
    highest levels of ``recent`` were refused, and the lowest of them is not allowed.
    """
    levels = sorted(map(level, recent), reverse=True)
    if not 0 < errors <= len(levels):
        return ceiling
    return min(ceiling, levels[errors - 1] - 1)

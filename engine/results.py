"""The words of an order's result, as the adjudicator gives them.

The adjudicator reports each unit's fate as a tuple of words: what became of its order
(``ok``, ``bounce``, ...) and, after it, what became of the unit (``dislodged``,
``disband``). The words are a ``str`` enum, so a result is equal to its word, is written
as it in JSON and reads as it in a test (``"bounce" in words`` holds as before); code that
branches on a result names the member instead of spelling the word.

>>> from engine.game import Game
>>> game = Game()
>>> result = game.play({"FRANCE": ["A PAR - BUR", "A MAR - SPA"], "GERMANY": ["A MUN - BUR"]})
>>> result.words("A PAR")
(<Result.BOUNCE: 'bounce'>,)
>>> result.words("A PAR") == ("bounce",), Result.BOUNCE in result.words("A PAR")
(True, True)
>>> import json; json.dumps(list(result.words("A MAR")))
'["ok"]'
"""

from __future__ import annotations

import enum

__all__ = ["Result"]


class Result(enum.StrEnum):
    """One word of an order's result."""

    OK = "ok"
    """The order succeeded: the move went, the support or convoy was given, the unit held,
    the build or removal or retreat was made."""
    BOUNCE = "bounce"
    """A move or a retreat that failed against another unit."""
    CUT = "cut"
    """A support that was cut."""
    DISRUPTED = "disrupted"
    """A convoyed move whose convoy was broken, or a convoy that failed."""
    NO_CONVOY = "no convoy"
    """A move over sea with no convoy ordered for it."""
    VOID = "void"
    """An order that does nothing: illegal, for no unit of the power, or matched by no move."""
    DISLODGED = "dislodged"
    """Not the order's fate but the unit's: it was dislodged (after the order's word)."""
    DISBAND = "disband"
    """The unit's fate: it is disbanded (it had nowhere to retreat, failed to retreat, or was
    removed in civil disorder)."""

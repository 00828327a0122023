"""The seven powers of the standard map: their names, their adjectives and their colours.

Inside the code a power is its token, the three letters the map file keys it by and DAIDE
writes (``"ENG"``); L writes the same letters in lower case, the game files write the full
name (``"ENGLAND"``), people read English. :class:`Power` is the standard map's table of
those names: a ``str`` enum whose value is the token, so a member stands wherever a power
of the standard map is taken, and ``Power.of`` reads any of the spellings.

>>> Power.of("eng")
<Power.ENGLAND: 'ENG'>
>>> england = Power.of("England")
>>> england == "ENG", england.full_name, england.english, england.adjective
(True, 'ENGLAND', 'England', 'English')
>>> list(Power)[:3]
[<Power.AUSTRIA: 'AUS'>, <Power.ENGLAND: 'ENG'>, <Power.FRANCE: 'FRA'>]

The map file names the same powers, in the same order, by the same names:

>>> from engine.maps import standard_map
>>> m = standard_map()
>>> m.powers == tuple(Power) and all(m.power_names[p] == p.full_name for p in Power)
True

A map of another variant has other powers: :class:`engine.maps.Map` names its powers by
their tokens, which are plain strings, and ``Power`` is only the standard seven's table.
"""

from __future__ import annotations

import enum
import functools

__all__ = ["Power"]


class Power(enum.StrEnum):
    """A power of the standard map; its value is its token (``"ENG"``).

    ``colour`` is the power's colour on the board, the page's and the report's alike. Each
    is dark enough to read as a line or a word on white paper, and light enough to tell a
    unit's colour apart from its black outline on the page; Russia is purple, not the
    usual white, and Germany grey, not the usual black, for that reason.
    """

    full_name: str
    english: str
    adjective: str
    colour: str

    def __new__(cls, token: str, full_name: str, english: str, adjective: str, colour: str) -> Power:
        power = str.__new__(cls, token)
        power._value_ = token
        power.full_name = full_name
        power.english = english
        power.adjective = adjective
        power.colour = colour
        return power

    AUSTRIA = ("AUS", "AUSTRIA", "Austria", "Austrian", "#c8322a")
    ENGLAND = ("ENG", "ENGLAND", "England", "English", "#2f4fb0")
    FRANCE = ("FRA", "FRANCE", "France", "French", "#2aa3d6")
    GERMANY = ("GER", "GERMANY", "Germany", "German", "#5a5a5a")
    ITALY = ("ITA", "ITALY", "Italy", "Italian", "#2c9447")
    RUSSIA = ("RUS", "RUSSIA", "Russia", "Russian", "#8a4bb3")
    TURKEY = ("TUR", "TURKEY", "Turkey", "Turkish", "#d9a90b")

    @classmethod
    def of(cls, name: str) -> Power:
        """The power called ``name`` in any of its spellings, in any case: ``"ENGLAND"``,
        ``"ENG"``, ``"eng"``, ``"England"``, ``"English"``. Raises ``KeyError`` for another name.

        >>> Power.of(" tur "), Power.of("French")
        (<Power.TURKEY: 'TUR'>, <Power.FRANCE: 'FRA'>)
        >>> Power.of("Xanadu")
        Traceback (most recent call last):
        ...
        KeyError: 'Xanadu'
        """
        found = _spellings().get(name.strip().upper())
        if found is None:
            raise KeyError(name)
        return found


@functools.cache
def _spellings() -> dict[str, Power]:
    # built on first use: an enum's members are not there yet while its body runs
    return {spelling.upper(): p for p in Power for spelling in (p.value, p.full_name, p.english, p.adjective)}

"""The seven powers of the standard map, with every name the project writes them by.

The engine names a power by its full upper-case name (``"ENGLAND"``), DAIDE by a token
(``ENG``), L by a lower-case name (``eng``), and people in English (``England``). A
:class:`Power` is a ``str`` enum whose value is the engine's name, so it is equal to that
string, hashes like it and is written as it in JSON: it can stand wherever the engine
takes a power, and ``Power.of`` reads any of the spellings.

>>> Power.of("eng")
<Power.ENGLAND: 'ENGLAND'>
>>> england = Power.of("England")
>>> england == "ENGLAND", england.token, england.l_name, england.english, england.adjective
(True, 'ENG', 'eng', 'England', 'English')
>>> [p.token for p in Power]
['AUS', 'ENG', 'FRA', 'GER', 'ITA', 'RUS', 'TUR']

The map file names the same powers, in the same order, by the same tokens:

>>> from engine.maps import standard_map
>>> m = standard_map()
>>> m.powers == tuple(Power) and all(m.abbreviation_of[p] == p.token for p in Power)
True

A map of another variant may have other powers: :class:`engine.maps.Map` keeps naming
powers by strings, and ``Power`` is only for the standard seven.
"""

from __future__ import annotations

import enum
import functools

__all__ = ["Power"]


class Power(enum.StrEnum):
    """A power of the standard map; its value is the engine's name (``"ENGLAND"``).

    ``colour`` is the power's colour on the board, the page's and the report's alike. Each
    is dark enough to read as a line or a word on white paper, and light enough to tell a
    unit's colour apart from its black outline on the page; Russia is purple, not the
    usual white, and Germany grey, not the usual black, for that reason.
    """

    token: str
    english: str
    adjective: str
    colour: str

    def __new__(cls, name: str, token: str, english: str, adjective: str, colour: str) -> Power:
        power = str.__new__(cls, name)
        power._value_ = name
        power.token = token
        power.english = english
        power.adjective = adjective
        power.colour = colour
        return power

    AUSTRIA = ("AUSTRIA", "AUS", "Austria", "Austrian", "#c8322a")
    ENGLAND = ("ENGLAND", "ENG", "England", "English", "#2f4fb0")
    FRANCE = ("FRANCE", "FRA", "France", "French", "#2aa3d6")
    GERMANY = ("GERMANY", "GER", "Germany", "German", "#5a5a5a")
    ITALY = ("ITALY", "ITA", "Italy", "Italian", "#2c9447")
    RUSSIA = ("RUSSIA", "RUS", "Russia", "Russian", "#8a4bb3")
    TURKEY = ("TURKEY", "TUR", "Turkey", "Turkish", "#d9a90b")

    @property
    def l_name(self) -> str:
        """The name L gives the power: ``eng``."""
        return self.token.lower()

    @classmethod
    def of(cls, name: str) -> Power:
        """The power called ``name`` in any of its spellings, in any case: ``"ENGLAND"``,
        ``"ENG"``, ``"eng"``, ``"England"``, ``"English"``. Raises ``KeyError`` for another name.

        >>> Power.of(" tur "), Power.of("French")
        (<Power.TURKEY: 'TURKEY'>, <Power.FRANCE: 'FRANCE'>)
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
    return {spelling.upper(): p for p in Power for spelling in (p.value, p.token, p.adjective)}

"""Power and province names in English: found in what a person types, and written for a person.

A person may write a name in full (``North Sea``), as its DAIDE abbreviation (``nth``), as
an alias of the map (``lyo``), as an adjective (``the Russian army``), or misspelt: a
name of four letters or more is found one edit away (two from seven letters), a swap of
two neighbouring letters counting as one edit.

>>> from engine.maps import standard_map
>>> names = Names.of(standard_map())
>>> names.powers_at(("russian", "army"), 0), names.powers_at(("germnay",), 0)
([('RUS', 1)], [('GER', 1)])
>>> names.provinces_at(("north", "sea", "to"), 0), names.provinces_at(("burgandy",), 0)
([('nth', 2)], [('bur', 1)])
>>> names.provinces_at(("st", "petersburg"), 0), names.provinces_at(("to",), 0)
([('stp', 2)], [])
>>> names.power("ENG"), names.province("nth"), names.province("stp"), names.province("xyz")
('England', 'the North Sea', 'St. Petersburg', 'XYZ')
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass

from engine.maps import SEA, Map

__all__ = ["Names", "distance", "words_of"]

# Other words for the powers of the standard map: the map file's adjectives, and the
# names people use. Keyed by full power name, so a map without that power ignores them.
_POWER_WORDS = {
    "AUSTRIA": ("austrian", "austrians", "austria hungary", "austro hungarian"),
    "ENGLAND": ("english", "britain", "great britain", "british", "brits", "uk"),
    "FRANCE": ("french",),
    "GERMANY": ("german", "germans"),
    "ITALY": ("italian", "italians"),
    "RUSSIA": ("russian", "russians"),
    "TURKEY": ("turkish", "turks", "ottoman", "ottomans"),
}

# Other names of provinces of the standard map, keyed by DAIDE abbreviation.
_PROVINCE_WORDS = {
    "STP": ("saint petersburg", "petersburg"),
    "MAO": ("mid atlantic",),
    "NAO": ("north atlantic",),
    "GOL": ("gulf of lyons", "lyons", "lyon"),
    "HEL": ("heligoland bight", "heligoland", "helgoland"),
    "ECH": ("channel",),
    "GOB": ("bothnia",),
    "EAS": ("eastern med",),
    "WES": ("western med",),
    "MAR": ("marseille",),
    "TYR": ("tyrol",),
    "CON": ("istanbul",),
}

_LONGEST = 4  # words in the longest name ("eastern mediterranean sea": 3, "gulf of lyons": 3)


def words_of(name: str) -> tuple[str, ...]:
    """A name as the words the tokeniser makes of it: ``"St. Petersburg"`` -> ``("st", "petersburg")``."""
    return tuple(re.findall(r"[a-z0-9]+", name.lower()))


def distance(a: str, b: str, limit: int | None = None) -> int:
    """The edits (insert, delete, replace, swap two neighbours) from ``a`` to ``b``; with
    ``limit``, any distance over it may come back as ``limit + 1`` (the work stops there).

    >>> distance("kiel", "keil"), distance("munich", "munch"), distance("rome", "home")
    (1, 1, 1)
    >>> distance("bulgaria", "burgundy", limit=2)
    3
    """
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            cost = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cost = min(cost, previous2[j - 2] + 1)
            current.append(cost)
        # a row's least cost never falls in later rows but by a swap, which reaches back two rows
        if limit is not None and min(current) > limit and min(previous) > limit:
            return limit + 1
        previous2, previous = previous, current
    return previous[-1]


def _tolerance(length: int) -> int:
    """The edits allowed in a name of ``length`` letters: short names are too close to words."""
    return 0 if length < 4 else 1 if length < 7 else 2


@dataclass(frozen=True, eq=False)
class _Table:
    """Names, as word tuples, to what they name; fuzzy matching only against full names."""

    exact: dict[tuple[str, ...], str]
    fuzzy: dict[tuple[str, ...], str]

    def at(self, words: tuple[str, ...], start: int) -> list[tuple[str, int]]:
        """What the words from ``start`` name, with where the name ends: longest first."""
        found: dict[str, int] = {}
        for length in range(min(_LONGEST, len(words) - start), 0, -1):
            span = words[start : start + length]
            hit = self.exact.get(span)
            if hit is not None:
                found.setdefault(hit, start + length)
        if found:
            return list(found.items())
        for length in range(min(_LONGEST, len(words) - start), 0, -1):
            hit = self._closest(words[start : start + length])
            if hit is not None:
                found.setdefault(hit, start + length)
        return list(found.items())

    def _closest(self, span: tuple[str, ...]) -> str | None:
        text = " ".join(span)
        allowed = _tolerance(len(text))
        if not allowed:
            return None
        # the nearest name of as many words, the first in sorted order on a tie: deterministic. A
        # name longer or shorter by more than the edits allowed is never near enough (each edit
        # changes the length by one at most), and skipping it saves most of the work
        scored = []
        for name in self.fuzzy:
            if len(name) == len(span):
                joined = " ".join(name)
                if abs(len(joined) - len(text)) <= allowed:
                    scored.append((distance(text, joined, allowed), name))
        scored.sort()
        return self.fuzzy[scored[0][1]] if scored and scored[0][0] <= allowed else None


def _table(entries: Iterable[tuple[str, str, bool]]) -> _Table:
    """``(name, what it names, whether a misspelling of it counts)`` -> a table."""
    exact: dict[tuple[str, ...], str] = {}
    fuzzy: dict[tuple[str, ...], str] = {}
    for name, target, misspellable in entries:
        key = words_of(name)
        exact.setdefault(key, target)
        if misspellable:
            fuzzy.setdefault(key, target)
    return _Table(exact, fuzzy)


@dataclass(frozen=True, eq=False)
class Names:
    """The names of one map's powers and provinces, both ways: a power is named by its token
    (``ENG``), a province by the lower-case name L uses (``nth``)."""

    map: Map
    _powers: _Table
    _provinces: _Table

    @staticmethod
    @functools.cache
    def of(m: Map) -> Names:
        """The names of the map ``m`` (built once per map)."""
        powers = []
        for token, full in m.power_names.items():
            powers += [(token, token, False), (full, token, True)]
            powers += [(word, token, True) for word in _POWER_WORDS.get(full, ())]
        provinces = []
        for p in m.provinces:
            short = m.locations[p]
            english = m.english_names[p]
            provinces += [(short, short.lower(), False), (english, short.lower(), True)]
            provinces += [(word, short.lower(), True) for word in _PROVINCE_WORDS.get(short, ())]
            # "the Adriatic" for "the Adriatic Sea"; not "the North" (too short to be sure)
            shorter = re.sub(r"\s+(sea|ocean)$", "", english.lower())
            if shorter != english.lower() and len(shorter) >= 6:
                provinces.append((shorter, short.lower(), True))
        provinces += [(alias, m.locations[m.province_of[loc]].lower(), False) for alias, loc in m.aliases.items()]
        return Names(m, _table(powers), _table(provinces))

    def powers_at(self, words: tuple[str, ...], start: int) -> list[tuple[str, int]]:
        """The powers the words from ``start`` may name, each with the index after its name."""
        return self._powers.at(words, start)

    def provinces_at(self, words: tuple[str, ...], start: int) -> list[tuple[str, int]]:
        """The provinces the words from ``start`` may name, each with the index after its name."""
        return self._provinces.at(words, start)

    def is_province(self, word: str) -> bool:
        """Whether ``word`` is exactly a province's abbreviation or alias (``par``, ``lyo``)."""
        return len(word) == 3 and (word.lower(),) in self._provinces.exact

    def power(self, power: str) -> str:
        """``"ENG"`` -> ``"England"``; a name the map lacks is written as it is, in capitals."""
        full = self.map.power_names.get(power.upper())
        return power.upper() if full is None else full.title()

    def province(self, abbreviation: str) -> str:
        """``"par"`` -> ``"Paris"``, ``"nth"`` -> ``"the North Sea"``; unknown names in capitals."""
        try:
            p = self.map.location(abbreviation)
        except KeyError:
            return abbreviation.upper()
        p = self.map.province_of[p]
        name = self.map.english_names[p]
        return f"the {name}" if self.map.kind[p] == SEA else name

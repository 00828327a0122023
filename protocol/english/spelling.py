"""Misspelt words, read as the word the person meant, or asked about when that is not sure.

A word that the assistant does not know is read as the known word nearest to it, by
Damerau-Levenshtein distance (insert, delete, replace, swap two neighbours): within one
edit for a word of four letters, within two for longer words. Words of three letters or
fewer are never corrected, and no word is ever corrected into a province abbreviation:
ROM and RUM, TUN and TUS, BUL and BUR, GAS and GAL are one letter apart, so an unknown
word of three letters one edit from an abbreviation is asked about instead. When two
words are nearest at the same distance (and mean different things), the person is asked.

>>> from engine.maps import standard_map
>>> speller = Speller.of(standard_map())
>>> speller.correct("propse"), speller.correct("aliance"), speller.correct("turky"), speller.correct("germny")
('propose', 'alliance', 'turkey', 'germany')
>>> speller.correct("tum"), speller.correct("rome"), speller.correct("xyzzy")
(('rum', 'tun', 'tus'), 'rome', 'xyzzy')
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from engine.maps import Map
from protocol.english.grammar import Rule, _Group, _Word
from protocol.english.names import _POWER_WORDS, _PROVINCE_WORDS, distance
from protocol.english.tokens import _FILLERS, _SYNONYMS, normalise

__all__ = ["Speller", "describe_unsure"]

# Words a person may well write that the grammar does not read: known, so never "corrected"
# into a word of the grammar ("cat" is not "can"); the sentence is then refused as it is.
_COMMON = """
a about above after again against ago all almost alone along already also although always am among an and
another answer any anyone anything anyway apologies appreciate appreciated are area around as ask at away
bad be because been before begin behind being believe best better between big bit both bother but by bye
call came can cannot care careful cat center centers centre centres certainly chance change cheers chat
clear come coming consider could counter dare day days deal dear decide decided definitely did do does
doing done down during each early easy either else end enemy enough even evening ever every everyone
everything exactly expect eye fair far fast feel few find first follow for forget free friend friendly
friends from front full game games get gets give given glad go gone good got great greetings guess guys
had happen happy hard has have he hear hello help her here hey hi him his honest hope how however hungry
i idea if important in indeed instead interesting is it its just keep kind know last later least leave
less lie lied lies life like likely liar listen little long look lot lots lying made make many maybe me
mean meant meet message might mind mine minute moment more morning most much must my myself name need
never new next nice night no nobody none nor not nothing now of off often oh okay old on once one only
open or other others our ours out over own part people perhaps place plan planned planning play player
players please plus point possible power powers pretty probably problem promise quick quite rather ready
real really reason right round said same saw say see seem seems seen send sent set several she should
show side since so some someone something soon sorry start still stop such sure take talk tell than thank
thanks that the their them then there these they thing things think this those though thought through
time to today together told tomorrow too took trust try turn turns under understand until up upon us use
very wait want war was watch way we week well went were what whatever when where whether which while who
whole whom whose why will win wish with without wonder word words work worry would wow year years yes yet
you your yours yourself
"""


def _template_words(rules: dict[str, list[Rule]]) -> set[str]:
    found: set[str] = set()

    def walk(items: tuple) -> None:
        for item in items:
            if isinstance(item, _Word):
                found.add(item.word)
            elif isinstance(item, _Group):
                for alternative in item.alternatives:
                    walk(alternative)

    for definition in rules.values():
        for r in definition:
            walk(r.items)
    return found


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


@dataclass(frozen=True, eq=False)
class Speller:
    """The words of one map's assistant, and how to read a word that is not one of them."""

    known: frozenset[str]
    targets: tuple[str, ...]  # what a misspelt word may be read as
    abbreviations: frozenset[str]  # of powers and provinces: never a correction
    provinces: frozenset[str]  # the provinces' abbreviations: asked about
    meanings: dict[str, str]  # a name of one word: what it names ("turks" and "turkey" are one correction)

    @staticmethod
    @functools.cache
    def of(m: Map, extra: frozenset[str] = frozenset()) -> Speller:
        """The speller of a map's names, knowing the ``extra`` words too."""
        from protocol.english import politeness
        from protocol.english.rules import _RULES, _SEASONS, pronouns_and_owners

        names: set[str] = set()
        named: dict[str, set[str]] = {}  # a word of names: what the names it is in name

        def name(text: str, what: str) -> None:
            for word in _words(text):
                names.add(word)
                named.setdefault(word, set()).add(what)

        for token, full in m.power_names.items():
            for text in (full, *_POWER_WORDS.get(full, ())):
                name(text, token)
        for p in m.provinces:
            for text in (m.english_names[p], *_PROVINCE_WORDS.get(m.locations[p], ())):
                name(text, m.locations[p])
        abbreviations = frozenset(m.locations[p].lower() for p in m.provinces) | frozenset(
            p.lower() for p in m.powers
        )
        aliases = frozenset(alias.lower() for alias in m.aliases)
        grammar = _template_words(_RULES) | set(_SEASONS) | pronouns_and_owners()
        synonyms = set().union(*map(_words, _SYNONYMS)) | set().union(*map(_words, _SYNONYMS.values()))
        targets = names | grammar | synonyms | {"coast", "north", "south", "east", "west", "yes", "no", "ok"}
        targets = {w for w in targets if len(w) > 3 or w not in abbreviations}
        known = targets | set(_FILLERS) | _words(_COMMON) | politeness.WORDS | abbreviations | aliases | extra
        meanings = {word: next(iter(what)) for word, what in named.items() if len(what) == 1}
        provinces = frozenset(m.locations[p].lower() for p in m.provinces)
        targets_ = tuple(sorted(t for t in targets if len(t) >= 3))
        return Speller(frozenset(known), targets_, abbreviations, provinces, meanings)

    def correct(self, word: str) -> str | tuple[str, ...]:
        """``word`` itself when known (or not worth correcting), its correction, or the
        candidates to ask about."""
        if word in self.known or not word.isalpha():
            return word
        if len(word) <= 2:
            return word
        near = tuple(sorted(a for a in self.provinces if distance(word, a) == 1)) if len(word) == 3 else ()
        allowed = 1 if len(word) <= 4 else 2
        best: dict[str, int] = {}
        for target in self.targets:
            if abs(len(target) - len(word)) <= allowed:
                d = distance(word, target)
                if d <= allowed:
                    best[target] = d
        if near:  # never a guess that could be an abbreviation: ask
            return near + tuple(sorted(t for t, d in best.items() if d == 1))
        if not best:
            return word
        nearest = min(best.values())
        candidates = sorted(t for t, d in best.items() if d == nearest)
        meanings = {self.meanings.get(c) or normalise(c) for c in candidates}
        if len(meanings) > 1:
            return tuple(candidates)
        return candidates[0]


def describe_unsure(word: str, candidates: tuple[str, ...], speller: Speller, m: Map) -> str:
    """The question to ask about a misspelt word."""
    named = [f"{c.upper()} ({_province(m, c)})" if c in speller.provinces else f'"{c}"' for c in candidates]
    if any(c in speller.provinces for c in candidates):
        return (
            f'"{word}" is not a word or province I know, and I never guess a province abbreviation:'
            f" did you mean {' or '.join(named)}?"
        )
    return f'what do you mean by "{word}": {" or ".join(named)}?'


def _province(m: Map, abbreviation: str) -> str:
    try:
        return m.english_names[m.province_of[m.location(abbreviation)]]
    except KeyError:
        return m.power_names.get(abbreviation.upper(), abbreviation.upper()).title()

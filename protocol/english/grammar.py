"""A small grammar of word templates, parsed by memoised backtracking over normalised words.

A rule is a template and a builder. The items of a template, separated by spaces:

- ``word``: that word;
- ``{name}``: the nonterminal ``name``, its value bound to ``name``; ``{key:name}`` binds it to ``key``;
- ``(a b|c {d})``: one of the alternatives, each a sequence of items;
- ``?`` after an item makes it optional. A slot left unread is bound to None.

The builder turns the bindings into the rule's value; it only builds syntax, so that
every way of reading the words is kept, but it may refuse a reading that cannot be meant
by returning :data:`NO`. A nonterminal is a list of rules,
tried in order, or a terminal: a function that reads words itself. The parser memoises
each nonterminal at each position, so that no words are read twice as the same
nonterminal, and lists every reading, preferred first.

>>> who = lambda words, i: [(words[i], i + 1)] if i < len(words) else []
>>> greeting = [rule("(hello|good morning) {who}? (please)?", lambda b: ("hi", b["who"]))]
>>> parser = Parser({"greeting": greeting, "who": who}, ("good", "morning", "france"))
>>> parser.parse("greeting", 0), parser.complete("greeting")
([(('hi', 'france'), 3), (('hi', None), 2)], [('hi', 'france')])
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

__all__ = ["NO", "Bindings", "Grammar", "Parser", "Rule", "Terminal", "rule"]

#: What a builder returns to refuse a reading.
NO: Any = object()

Bindings: TypeAlias = Mapping[str, Any]
Terminal: TypeAlias = Callable[[tuple[str, ...], int], Sequence[tuple[Any, int]]]


@dataclass(frozen=True, slots=True)
class _Word:
    word: str
    optional: bool


@dataclass(frozen=True, slots=True)
class _Slot:
    key: str
    nonterminal: str
    optional: bool


@dataclass(frozen=True, slots=True)
class _Group:
    alternatives: tuple[tuple[_Item, ...], ...]
    optional: bool


_Item: TypeAlias = _Word | _Slot | _Group


@dataclass(frozen=True, slots=True)
class Rule:
    items: tuple[_Item, ...]
    build: Callable[[Bindings], Any]
    keys: frozenset[str]  # every slot's key: those left unread are bound to None


Grammar: TypeAlias = Mapping[str, Sequence[Rule] | Terminal]

_TOKEN = re.compile(r"\s*(?:([()|])|\{(\w+)(?::(\w+))?\}|([a-z0-9]+))(\?)?")


def rule(template: str, build: Callable[[Bindings], Any]) -> Rule:
    """A rule from its template (see the module's docstring)."""
    tokens = []
    position = 0
    while template[position:].strip():
        match = _TOKEN.match(template, position)
        if match is None:
            raise ValueError(f"cannot read {template[position:]!r} in {template!r}")
        tokens.append(match.groups())
        position = match.end()
    keys: set[str] = set()

    def sequence(i: int) -> tuple[tuple[_Item, ...], int]:
        """The items from token ``i`` to the end of their group; and where that is."""
        items: list[_Item] = []
        while i < len(tokens) and tokens[i][0] not in ("|", ")"):
            mark, key, nonterminal, word, optional = tokens[i]
            if mark == "(":
                alternatives = []
                while True:
                    alternative, i = sequence(i + 1)
                    alternatives.append(alternative)
                    if i >= len(tokens) or tokens[i][0] != "|":
                        break
                if i >= len(tokens):
                    raise ValueError(f"unclosed group in {template!r}")
                items.append(_Group(tuple(alternatives), bool(tokens[i][4])))
            elif key is not None:
                keys.add(key)
                items.append(_Slot(key, nonterminal or key, bool(optional)))
            else:
                items.append(_Word(word, bool(optional)))
            i += 1
        return tuple(items), i

    items, end = sequence(0)
    if end != len(tokens):
        raise ValueError(f"unbalanced group in {template!r}")
    return Rule(items, build, frozenset(keys))


class Parser:
    """The readings of one sentence's words by a grammar."""

    def __init__(self, grammar: Grammar, words: tuple[str, ...]) -> None:
        self.grammar = grammar
        self.words = words
        self._memo: dict[tuple[str, int], list[tuple[Any, int]]] = {}

    def parse(self, nonterminal: str, start: int) -> list[tuple[Any, int]]:
        """Every value of ``nonterminal`` read from ``start``, with the index after it, preferred first."""
        key = (nonterminal, start)
        found = self._memo.get(key)
        if found is not None:
            return found
        self._memo[key] = []  # a rule that would come back here without reading a word finds nothing
        definition = self.grammar[nonterminal]
        if callable(definition):
            result = list(definition(self.words, start))
        else:
            readings: dict[tuple[Any, int], None] = {}  # ordered, without repeats
            for r in definition:
                for bindings, end in self._match(r.items, 0, start, dict.fromkeys(r.keys)):
                    value = r.build(bindings)
                    if value is not NO:
                        readings.setdefault((value, end))
            result = list(readings)
        self._memo[key] = result
        return result

    def complete(self, nonterminal: str) -> list[Any]:
        """The values of ``nonterminal`` that read every word, preferred first."""
        return [value for value, end in self.parse(nonterminal, 0) if end == len(self.words)]

    def _match(
        self, items: tuple[_Item, ...], k: int, at: int, bindings: dict[str, Any]
    ) -> Iterator[tuple[dict[str, Any], int]]:
        """Every way of reading ``items[k:]`` from ``at``: the bindings and where the reading ends."""
        if k == len(items):
            yield bindings, at
            return
        item = items[k]
        if isinstance(item, _Word):
            if at < len(self.words) and self.words[at] == item.word:
                yield from self._match(items, k + 1, at + 1, bindings)
        elif isinstance(item, _Slot):
            for value, end in self.parse(item.nonterminal, at):
                yield from self._match(items, k + 1, end, {**bindings, item.key: value})
        else:
            for alternative in item.alternatives:
                for inner, end in self._match(alternative, 0, at, bindings):
                    yield from self._match(items, k + 1, end, inner)
        if item.optional:
            yield from self._match(items, k + 1, at, bindings)

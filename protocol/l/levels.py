"""The level of an L message, and the check against the levels a game allows (spec section 4).

A message's level is the lowest level that admits every construct in it:

>>> from protocol.l import parse
>>> level(parse("propose(eng, fra, Agree([eng fra], pce([eng fra])))"))
1
>>> level(parse("query(ita, rus, answer(ita, eng, Agree([ita rus], pce([ita rus]))) -> Feel(rus, Sad))"))
5

A game allows a set of levels, written ``1-8``, ``3`` (1 to 3) or ``1-4,6``; a message is
refused when one of its constructs belongs to a level outside the set, and the error
names that construct:

>>> text = "inform(eng, fra, Feel(eng, Happy))"
>>> try:
...     check_levels(parse(text), parse_levels("1-4,6"), text)
... except LLevelError as e:
...     print(e)
level error at line 1, column 18: Feel is a level-5 construct, and the levels allowed are 1-4,6
  inform(eng, fra, Feel(eng, Happy))
                   ^
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

from lark import Token, Tree

from protocol.l import ast as a
from protocol.l.errors import LLevelError, located
from protocol.l.parser import parse_tree

__all__ = ["ALL_LEVELS", "CONSTRUCT_LEVELS", "check_levels", "constructs", "format_levels", "level", "parse_levels"]

ALL_LEVELS = frozenset(range(1, 9))

NESTED = "an illocution inside another"
TIME = "a time argument"
COMPARISON = "a time comparison"

#: Every construct of the language and the first level that allows it (spec section 4).
CONSTRUCT_LEVELS: dict[str, int] = {
    **dict.fromkeys(["propose", "accept", "reject", "withdraw", "Commit", "Agree", "Do", "&", "~"], 1),
    **dict.fromkeys(["pce", "aly", "dmz", "drw", "slo"], 1),
    **dict.fromkeys(["hld", "mto", "sup", "rto", "dsb", "bld", "rem", "wve", "cvy", "cto"], 1),
    **dict.fromkeys(["inform", "Obs", "Belief", "Desire"], 2),
    **dict.fromkeys(["query", "answer", "Unknown"], 3),
    NESTED: 4,
    **dict.fromkeys(["Feel", "->"], 5),
    **dict.fromkeys([TIME, ";", COMPARISON], 6),
    "Explain": 7,
    **dict.fromkeys(["Attack", "Support"], 8),
}

# For each node type: its construct, and the fields holding nodes that can contain other
# constructs. A time argument is one of those, and is the construct TIME; the times that a
# time comparison compares are not walked. Units and regions add nothing.
_SPEC: dict[type[a.Node], tuple[str, tuple[str, ...]]] = {
    a.Propose: ("propose", ("deal", "time")),
    a.Accept: ("accept", ("deal", "time")),
    a.Reject: ("reject", ("deal", "time")),
    a.Withdraw: ("withdraw", ("time",)),
    a.Inform: ("inform", ("info", "time")),
    a.Query: ("query", ("info", "time")),
    a.Answer: ("answer", ("info", "time")),
    a.Deal: ("Commit", ("commits",)),
    a.Commit: ("Commit", ("formula", "time")),
    a.Agree: ("Agree", ("formula", "time")),
    a.Do: ("Do", ("action", "time")),
    a.TimeCmp: (COMPARISON, ()),
    a.Not: ("~", ("operand",)),
    a.And: ("&", ("operands",)),
    a.Seq: (";", ("steps",)),
    a.Implies: ("->", ("premise", "conclusion")),
    a.Obs: ("Obs", ("formula", "time")),
    a.Belief: ("Belief", ("formula", "time")),
    a.Desire: ("Desire", ("formula", "time")),
    a.Unknown: ("Unknown", ("info", "time")),
    a.Feel: ("Feel", ("time",)),
    a.Explain: ("Explain", ("info", "time")),
    a.Attack: ("Attack", ("first", "second")),
    a.Support: ("Support", ("first", "second")),
    **{t: (t.__name__.lower(), ()) for t in (a.Pce, a.Aly, a.Dmz, a.Drw, a.Slo)},
    **{t: (t.__name__.lower(), ()) for t in (a.Hld, a.Mto, a.Rto, a.Dsb, a.Bld, a.Rem, a.Wve, a.Cto)},
    a.Sup: ("sup", ("order",)),
    a.Cvy: ("cvy", ("move",)),
    a.Turn: (TIME, ()),
    a.TimeVar: (TIME, ()),
}
_MESSAGES = frozenset(a.MESSAGE_TYPES)


def constructs(message: a.Message) -> set[str]:
    """The constructs that ``message`` uses, as named in :data:`CONSTRUCT_LEVELS`.

    >>> from protocol.l import parse
    >>> sorted(constructs(parse("inform(eng, fra, pce(eng) ; Do(hld(Unit(eng, Region(lon, coast))), t1))")))
    [';', 'Do', 'a time argument', 'hld', 'inform', 'pce']
    """
    used: set[str] = set()
    _walk(message, used, False)
    return used


def _walk(node: a.Node, used: set[str], inner: bool) -> None:
    construct, children = _SPEC[type(node)]
    used.add(construct)
    if inner and type(node) in _MESSAGES:
        used.add(NESTED)
    for field in children:
        child = getattr(node, field)
        if type(child) is tuple or type(child) is frozenset:
            for item in child:
                _walk(item, used, True)
        elif child is not None:  # None: an optional time argument left out
            _walk(child, used, True)


def level(message: a.Message) -> int:
    """The lowest level that admits every construct of ``message``."""
    return max(CONSTRUCT_LEVELS[c] for c in constructs(message))


def check_levels(message: a.Message, levels: Iterable[int] | None = None, text: str | None = None) -> int:
    """The level of ``message``, once every construct in it is found in ``levels``.

    Raises :class:`LLevelError` naming a construct that is not; given the ``text`` the
    message was parsed from, the error names the first such construct in the text and
    its line and column. ``None`` allows every level.
    """
    used = constructs(message)
    if levels is not None:
        allowed = frozenset(levels)
        refused = {c for c in used if CONSTRUCT_LEVELS[c] not in allowed}
        if refused:
            raise _refusal(refused, allowed, text)
    return max(CONSTRUCT_LEVELS[c] for c in used)


def _refusal(refused: set[str], allowed: frozenset[int], text: str | None) -> LLevelError:
    where: dict[str, Any] = {}
    # Without the text, the highest construct is named: the one furthest from allowed.
    construct = max(refused, key=lambda c: (CONSTRUCT_LEVELS[c], c))
    if text is not None:
        found = next(((c, t) for c, t in _constructs_in_text(parse_tree(text)) if c in refused), None)
        if found is not None:
            construct, token = found
            where = located(text, token.start_pos or 0)
    described = format_levels(allowed) if allowed else "none"
    message = f"{construct} is a level-{CONSTRUCT_LEVELS[construct]} construct, and the levels allowed are {described}"
    return LLevelError(message, construct=construct, construct_level=CONSTRUCT_LEVELS[construct], **where)


# Tree rules (with every token kept) and the construct each one is; operators are named
# at their operator token, everything else at its first token.
_RULE_CONSTRUCTS = {c.lower(): c for c in CONSTRUCT_LEVELS if c.isalpha()} | {"convoyed": "cto"}
_OPERATORS = {"and_": ("_AND", "&"), "not_": ("_NOT", "~"), "seq": ("_SEMI", ";"), "implies": ("_ARROW", "->")}
_ILLOCUTIONS = frozenset({"propose", "accept", "reject", "withdraw", "inform", "query", "answer"})


def _constructs_in_text(tree: Tree) -> Iterator[tuple[str, Token]]:
    """Each construct of a parse tree and the token where it is, in the order of the text."""
    stack: list[tuple[Tree | Token, str]] = [(tree, "")]
    while stack:
        node, parent = stack.pop()
        if isinstance(node, Token):
            continue
        rule = str(node.data)
        if rule in _OPERATORS:
            op_type, construct = _OPERATORS[rule]
            yield construct, next(t for t in node.children if isinstance(t, Token) and t.type == op_type)
        elif rule == "tcmp":
            yield COMPARISON, next(t for t in node.children if isinstance(t, Token) and t.type == "CMP")
        elif rule in ("turn", "timevar") and parent != "tcmp":
            yield TIME, _first_token(node)
        elif rule in _RULE_CONSTRUCTS:
            yield _RULE_CONSTRUCTS[rule], _first_token(node)
            if rule in _ILLOCUTIONS and node is not tree:
                yield NESTED, _first_token(node)
        stack.extend((child, rule) for child in reversed(node.children))


def _first_token(tree: Tree) -> Token:
    return next(tree.scan_values(lambda v: isinstance(v, Token)))


# --- the levels a game allows -------------------------------------------------------------

_LEVELS_ITEM = re.compile(r"\s*([1-8])\s*(?:-\s*([1-8])\s*)?")


def parse_levels(spec: str) -> frozenset[int]:
    """The levels written as ``1-8``, ``3`` (alone: 1 to 3) or a list such as ``1-4,6``.

    >>> sorted(parse_levels("3")), sorted(parse_levels("1,3-5")), sorted(parse_levels("1-4, 6"))
    ([1, 2, 3], [1, 3, 4, 5], [1, 2, 3, 4, 6])
    >>> parse_levels("2-9")
    Traceback (most recent call last):
    ...
    ValueError: levels are written like 1-8, 3 or 1-4,6 (each from 1 to 8), not '2-9'
    """
    items = spec.split(",")
    levels: set[int] = set()
    for item in items:
        match = _LEVELS_ITEM.fullmatch(item)
        if match is None or (match.group(2) and int(match.group(2)) < int(match.group(1))):
            raise ValueError(f"levels are written like 1-8, 3 or 1-4,6 (each from 1 to 8), not {spec!r}")
        low, high = int(match.group(1)), int(match.group(2) or match.group(1))
        if len(items) == 1 and not match.group(2):
            low = 1  # a single level alone means every level up to it
        levels.update(range(low, high + 1))
    return frozenset(levels)


def format_levels(levels: Iterable[int]) -> str:
    """The shortest list-of-ranges text for a set of levels.

    >>> format_levels({1, 2, 3, 4, 6}), format_levels({2}), format_levels(range(1, 9))
    ('1-4,6', '2-2', '1-8')
    """
    ranks = sorted(set(levels))
    parts: list[str] = []
    start = 0
    for i in range(1, len(ranks) + 1):
        if i == len(ranks) or ranks[i] != ranks[i - 1] + 1:
            low, high = ranks[start], ranks[i - 1]
            parts.append(str(low) if low == high else f"{low}-{high}")
            start = i
    if len(parts) == 1 and "-" not in parts[0] and parts[0] != "1":
        return f"{parts[0]}-{parts[0]}"  # "3" alone would mean 1 to 3
    return ",".join(parts)

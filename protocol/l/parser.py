"""Parse L text into the AST of :mod:`protocol.l.ast`, with errors a person can act on.

The grammar is ``grammar/l.lark``, parsed LALR(1) with the contextual lexer; the AST is
built during the parse by the transformer handed to the ``Lark`` constructor, so no parse
tree is made on the way (the fast path). A second parser on the same grammar, :func:`parse_tree`, keeps every
token in a tree; the checks use it to point at the place of an error they found on the AST.

>>> parse("propose(eng, fra, Agree([eng fra], pce([eng fra])))")  # doctest: +ELLIPSIS
Propose(sender='ENG', receivers=frozenset({'FRA'}), deal=Agree(...), time=None)
>>> try:
...     parse("propose(eng, fra, pce([eng fra]))")
... except LSyntaxError as e:
...     print(e)
syntax error at line 1, column 19: expected a deal: Commit(...), [Commit(...) ...] or Agree(...) but found 'pce'
  propose(eng, fra, pce([eng fra]))
                    ^
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable
from importlib.resources import files
from typing import Any, cast

from lark import Lark, Token, Transformer, Tree
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedInput, UnexpectedToken

import grammar
from protocol.l import ast as a
from protocol.l.errors import LSyntaxError, located

__all__ = ["GRAMMAR", "MAX_CHARS", "MAX_DEPTH", "parse", "parse_tree"]

GRAMMAR = files("grammar").joinpath("l.lark").read_text(encoding="utf-8")

_MAX_YEAR_DIGITS = 9
# Nodes nested deeper than this are refused: the printer, the checks and hash() recurse,
# and a real message is nowhere near (the spec's deepest example is 10 deep).
MAX_DEPTH = 100
#: Longer messages are refused before they are parsed: parsing takes time in proportion to
#: the length (about 2 ms a kilobyte). A real message has a few hundred characters; a deal of
#: a commitment for every unit on the board, under 3,000.
MAX_CHARS = 8_192
#: Texts up to this long are memoised (8,192 of them at most): the memo holds the messages
#: negotiators repeat, and at most a few tens of megabytes.
MEMO_CHARS = 1_024
# What the scan before parsing counts: brackets, negations, and what ends a run of negations.
_NESTING = re.compile(r"[(\[]|[)\]]|[~¬]|(?<![a-z0-9_])not(?![a-z0-9_])|->|[,&;<>=∧→]", re.IGNORECASE)


class _BadToken(Exception):
    """Raised by a callback, where the text is not at hand, to become an LSyntaxError."""

    def __init__(self, token: Token, message: str) -> None:
        super().__init__(message)
        self.token = token
        self.message = message


def _turn(children: list[Token]) -> a.Turn:
    season, year = children
    if len(year) > _MAX_YEAR_DIGITS:
        raise _BadToken(year, f"a year has {_MAX_YEAR_DIGITS} digits at most")
    return a.Turn(season, int(year))


def _unpacked(node_type: Callable[..., a.Node]) -> Callable[[list[Any]], a.Node]:
    return lambda children: node_type(*children)


# The callbacks Lark calls as the LALR parser reduces, one per rule, with the rule's
# children. The children of most rules are the fields of a node in order, and the node
# constructors normalise (lower-case names, sets, flattened operators), so most callbacks
# only unpack. Functions of the children list rather than methods under ``v_args(inline=True)``:
# one call less per reduction.
_CALLBACKS: dict[str, Callable[[list[Any]], object]] = {
    node_type.__name__.lower(): _unpacked(node_type)
    for node_type in (
        *a.MESSAGE_TYPES,
        *(a.Commit, a.Agree, a.Implies, a.Obs, a.Belief, a.Desire, a.Unknown, a.Feel, a.Explain),
        *(a.Attack, a.Support, a.TimeVar, a.Pce, a.Aly, a.Dmz, a.Drw, a.Slo, a.Do, a.Unit, a.Region),
        *(a.Hld, a.Mto, a.Sup, a.Rto, a.Dsb, a.Bld, a.Rem, a.Wve, a.Cvy, a.Cto),
    )
} | {
    "not_": _unpacked(a.Not),
    "convoyed": _unpacked(a.Cto),
    "agents": lambda children: children,
    "provinces": lambda children: children,
    "commits": lambda children: a.Deal(frozenset(children)),
    "seq": lambda children: a.Seq(tuple(children)),
    "and_": lambda children: a.And(tuple(children)),
    "turn": _turn,
    "tcmp": lambda children: a.TimeCmp(children[0], str(children[1]), children[2]),
}
_ToAst = type("_ToAst", (Transformer,), {rule: staticmethod(callback) for rule, callback in _CALLBACKS.items()})


@functools.cache
def _parser() -> Lark:
    return grammar.parser(GRAMMAR, parser="lalr", lexer="contextual", transformer=_ToAst(), maybe_placeholders=True)


@functools.cache
def _tree_parser() -> Lark:
    return grammar.parser(GRAMMAR, parser="lalr", lexer="contextual", keep_all_tokens=True, maybe_placeholders=False)


def parse(text: str) -> a.Message:
    """The message that ``text`` is; raises :class:`LSyntaxError` if it is none.

    Memoised for texts up to :data:`MEMO_CHARS` long: messages are immutable, and negotiators
    say the same things again and again (a server parses every message it receives, and its
    normal form when it replays). Texts longer than :data:`MAX_CHARS`, or nested more than
    :data:`MAX_DEPTH` deep, are refused before the parser runs, in time linear in their length.
    """
    if len(text) <= MEMO_CHARS:
        return _parse_cached(text)
    return _parse(text)


@functools.lru_cache(maxsize=8192)
def _parse_cached(text: str) -> a.Message:
    return _parse(text)


def _parse(text: str) -> a.Message:
    _check_size(text)
    try:
        # Lark's annotations speak of the parse tree; the transformer makes it a message.
        message = cast(a.Message, _parser().parse(text))
    except _BadToken as e:
        raise _error(text, e.token.start_pos or 0, e.message) from None
    except UnexpectedInput as e:
        raise _syntax_error(text, e) from None
    except LarkError as e:  # pragma: no cover - the LALR parser raises UnexpectedInput for every bad text
        raise _error(text, 0, str(e)) from None
    except RecursionError:  # pragma: no cover - _check_size refuses what nests so deep
        raise _error(text, 0, f"the message is nested more than {MAX_DEPTH} deep") from None
    # Every level of nesting takes one character at least, so only long texts can be too deep.
    if len(text) > MAX_DEPTH and _depth(message) > MAX_DEPTH:
        raise _error(text, 0, f"the message is nested more than {MAX_DEPTH} deep")
    return message


def _check_size(text: str) -> None:
    """Refuses, in one pass, a text longer than :data:`MAX_CHARS` or nested more than
    :data:`MAX_DEPTH` deep, at the character where it goes too far.

    The nesting counted is that of the brackets, ``(`` and ``[``, and of the negations (``~``,
    ``¬``, ``not``) in front of each: a node of a message takes one of them at least, so a
    message this refuses would have nodes nested too deep, or brackets that mean nothing
    (``((((pce(eng))))``). A run of negations ends where what they negate does: at a closing
    bracket, a comma, an operator or a comparison.
    """
    if len(text) > MAX_CHARS:
        raise _error(text, MAX_CHARS, f"a message has {MAX_CHARS} characters at most")
    negations: list[int] = []  # for each bracket open, the negations in front of it
    pending = run = 0  # the negations in front of the open brackets, and in front of what follows
    for match in _NESTING.finditer(text):
        found = match.group()
        if found in "([":
            negations.append(run)
            pending += run
            run = 0
            depth = len(negations) + pending
        elif found in ")]":
            if negations:
                pending -= negations.pop()
            run = 0
            continue
        elif found in "~¬" or found.lower() == "not":
            run += 1
            depth = len(negations) + pending + run
        else:
            run = 0
            continue
        if depth > MAX_DEPTH:
            raise _error(text, match.start(), f"the message is nested more than {MAX_DEPTH} deep")


_FIELD_NAMES: dict[type[a.Node], tuple[str, ...]] = {}


def _field_names(node: a.Node) -> tuple[str, ...]:
    """The names of the fields of ``node``'s type, its base's first (cached: ``fields`` is slow)."""
    names = _FIELD_NAMES.get(type(node))
    if names is None:
        names = _FIELD_NAMES[type(node)] = tuple(field.name for field in dataclasses.fields(node))
    return names


def _depth(node: a.Node) -> int:
    """How deeply nodes nest in ``node``, found without recursion."""
    deepest = 0
    stack: list[tuple[object, int]] = [(node, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, a.Node):
            deepest = max(deepest, depth)
            stack.extend((getattr(item, field), depth + 1) for field in _field_names(item))
        elif isinstance(item, tuple | frozenset):
            stack.extend((child, depth) for child in item)
    return deepest


def parse_tree(text: str) -> Tree:
    """The parse tree of ``text`` with every token kept (for finding where things are)."""
    try:
        return _tree_parser().parse(text)
    except UnexpectedInput as e:
        raise _syntax_error(text, e) from None


# --- errors -------------------------------------------------------------------------------

# How each terminal is named to a person; the keywords as the printer writes them.
_KEYWORDS = (
    "propose accept reject withdraw inform query answer Commit Agree Do Obs Belief Desire Unknown Feel "
    "Explain Attack Support Unit Region pce aly dmz drw slo hld mto sup rto dsb bld rem wve cvy cto"
).split()
_TERMINALS = {k.upper(): k for k in _KEYWORDS} | {
    "LPAR": "'('",
    "RPAR": "')'",
    "LSQB": "'['",
    "RSQB": "']'",
    "COMMA": "','",
    "NAME": "a name (three letters: eng, par)",
    "TIMEVAR": "a time variable (t0)",
    "INT": "a year",
    "SEASON": "a season (spr sum fal aut win)",
    "RTYPE": "a region type (amy sea coast ncs scs ecs wcs)",
    "FEELING": "a feeling (VeryHappy Happy Sad Angry)",
    "CMP": "a comparison (> < >= <= =)",
    "_ARROW": "'->'",
    "_SEMI": "';'",
    "_AND": "'&'",
    "_NOT": "'~'",
    "$END": "the end of the message",
}
_DEAL = {"COMMIT", "LSQB", "AGREE"}
_FORMULA = {"PCE", "ALY", "DMZ", "DRW", "SLO", "DO", "LPAR", "TIMEVAR", "_NOT"}
_INFO = _FORMULA | _DEAL | {"OBS", "BELIEF", "DESIRE", "UNKNOWN", "FEEL", "EXPLAIN", "ATTACK", "SUPPORT"}
_INFO |= {"PROPOSE", "ACCEPT", "REJECT", "WITHDRAW", "INFORM", "QUERY", "ANSWER"}
# Groups of terminals that are named as one when all of them are expected, largest first.
_GROUPS = (
    (
        _INFO,
        "information: a formula, a deal, Obs, Belief, Desire, Unknown, Feel, Explain, Attack, Support or an illocution",
    ),
    (_FORMULA | _DEAL, "a formula or a deal"),
    (_FORMULA, "a formula: pce aly dmz drw slo, Do(...), '~', '(' or a time comparison"),
    (_DEAL, "a deal: Commit(...), [Commit(...) ...] or Agree(...)"),
    ({"LPAR", "TIMEVAR"}, "a time: (season, year) or a variable t0"),
    ({"HLD", "MTO", "SUP", "RTO", "DSB", "BLD", "REM", "WVE", "CVY", "CTO"}, "an action (hld mto sup ...)"),
)
_WORD = re.compile(r"\w+|\S")


def describe_expected(names: set[str] | frozenset[str]) -> tuple[str, ...]:
    """What a person should write instead, from the names of the terminals Lark expected.

    >>> describe_expected({"COMMA", "RPAR"})
    ("')'", "','")
    """
    names = set(names)
    described: list[str] = []
    for group, text in _GROUPS:
        if group <= names:
            described.append(text)
            names -= group
    described.extend(sorted(_TERMINALS.get(n, n) for n in names))
    return tuple(described)


def _join(items: tuple[str, ...]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


def _syntax_error(text: str, e: UnexpectedInput) -> LSyntaxError:
    if isinstance(e, UnexpectedToken) and e.token.type != "$END":
        offset, found = e.token.start_pos or 0, repr(str(e.token))
        lark_expected = e.expected
    elif isinstance(e, UnexpectedCharacters):
        offset = e.pos_in_stream or 0
        match = _WORD.match(text, offset)
        found = repr(match.group() if match else text[offset : offset + 1])
        lark_expected = e.allowed or set()
    else:  # the end of the text
        offset, found = len(text.rstrip()), "the end of the message"
        lark_expected = getattr(e, "expected", set())
    expected = describe_expected(_accepts_before(text, offset) or lark_expected)
    message = f"expected {_join(expected)} but found {found}" if expected else f"unexpected {found}"
    return _error(text, offset, message, expected)


def _accepts_before(text: str, offset: int) -> set[str]:
    """The terminals the parser accepts after ``text[:offset]``.

    Lark reports what the LALR state at the error could take, which after a finished
    sub-message is every terminal that may follow one anywhere; the parser, fed the text
    before the error, knows exactly.
    """
    try:
        interactive = _tree_parser().parse_interactive(text[:offset])
        interactive.exhaust_lexer()
        return set(interactive.accepts())
    except LarkError:  # pragma: no cover - the prefix lexed and parsed once already
        return set()


def _error(text: str, offset: int, message: str, expected: tuple[str, ...] = ()) -> LSyntaxError:
    return LSyntaxError(message, expected=expected, **located(text, offset))

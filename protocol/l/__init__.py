"""The L negotiation language of DipGame (Fabregues's thesis, section 6.3), levels 1 to 8.

Parse text into an immutable AST, print its normal form, find its level, and check it
against the levels a game allows and the map it is played on:

>>> message = parse("PROPOSE(eng, fra, Agree([fra eng], pce([fra, eng])))")
>>> to_text(message), level(message)
('propose(eng, [fra], Agree([eng fra], pce([eng fra])))', 1)
>>> check("propose(eng, fra, Agree([eng fra], pce([eng xyz])))")["kind"]
'ontology'

:func:`check` is what ``detente check l`` prints, one message at a time.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine.maps import Map, standard_map
from protocol.l import ast
from protocol.l.ast import *  # noqa: F403 - the node types are the package's vocabulary
from protocol.l.errors import LError, LLevelError, LOntologyError, LSyntaxError
from protocol.l.levels import CONSTRUCT_LEVELS, check_levels, constructs, format_levels, level, parse_levels
from protocol.l.ontology import check_ontology
from protocol.l.parser import parse
from protocol.l.printer import to_text


def check(text: str, levels: Iterable[int] | None = None, m: Map | None = None) -> dict[str, Any]:
    """Parse ``text`` and check it against the allowed ``levels`` (all when None) and the map
    ``m`` (the standard map when None), as ``detente check l --json`` reports it.

    >>> check("withdraw(eng, [fra ger])")
    {'ok': True, 'level': 1, 'text': 'withdraw(eng, [fra ger])'}
    >>> check("inform(eng, fra, Feel(eng, Happy))", levels=parse_levels("1-4"))
    {'ok': False, 'kind': 'level', 'line': 1, 'column': 18, 'message': 'Feel is a level-5 construct, and the levels allowed are 1-4'}
    """
    try:
        message = parse(text)
        found = check_levels(message, levels, text)
        check_ontology(message, standard_map() if m is None else m, text)
        return {"ok": True, "level": found, "text": to_text(message)}
    except LError as e:
        return e.to_dict()
    except RecursionError:
        return LSyntaxError("the message is nested too deeply", line=1, column=1).to_dict()


__all__ = [
    *ast.__all__,
    "CONSTRUCT_LEVELS",
    "LError",
    "LLevelError",
    "LOntologyError",
    "LSyntaxError",
    "check",
    "check_levels",
    "check_ontology",
    "constructs",
    "format_levels",
    "level",
    "parse",
    "parse_levels",
    "to_text",
]

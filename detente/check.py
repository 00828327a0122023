"""``detente check l|daide``: check messages as a bot writer types them.

One message, or with ``-`` one message per line of standard input, one answer per line:
the level and normal form, or the error with where it is. With ``--json`` each answer is
the checker's dict as one line of JSON. The exit status is 0 when every message is valid.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable
from typing import Any, TextIO

Checker = Callable[[str], dict[str, Any]]


def l_checker(levels: str | None) -> Checker:
    """The L checker, allowing the levels of ``--levels`` (``"1-8"``, ``"1,3-5"``)."""
    from protocol.l import check, parse_levels

    allowed = parse_levels(levels) if levels else None
    return lambda text: check(text, allowed)


def daide_checker() -> Checker:
    from protocol.daide.parser import check

    return check


def describe(answer: dict[str, Any]) -> str:
    if answer["ok"]:
        return f"level {answer['level']}: {answer['text']}"
    return f"{answer['kind']} error at line {answer['line']}, column {answer['column']}: {answer['message']}"


def run(checker: Checker, messages: Iterable[str], as_json: bool, out: TextIO) -> int:
    all_ok = True
    for message in messages:
        answer = checker(message)
        all_ok = all_ok and answer["ok"]
        out.write((json.dumps(answer) if as_json else describe(answer)) + "\n")
    return 0 if all_ok else 1


def messages_from(source: str) -> list[str]:
    if source != "-":
        return [source]
    return [line.rstrip("\r\n") for line in sys.stdin if line.strip()]

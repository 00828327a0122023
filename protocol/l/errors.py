"""The errors of the L language: what went wrong, where in the message, and what would fit.

Every error that parsing or checking an L message can raise is an :class:`LError`, in one
of three kinds: ``syntax``, ``level`` and ``ontology``. Line and column count from 1
within the message; ``context`` is the line around the place with a caret under it.

>>> from protocol.l import parse
>>> try:
...     parse("propose(eng, fra)")
... except LError as e:
...     print(e)
syntax error at line 1, column 17: expected ',' but found ')'
  propose(eng, fra)
                  ^
"""

from __future__ import annotations

from typing import Any, ClassVar

_WINDOW = 36  # characters of context shown on each side of the error


class LError(ValueError):
    """An L message that cannot be accepted: the common base of the three kinds."""

    kind: ClassVar[str] = "syntax"

    def __init__(
        self,
        message: str,
        *,
        line: int | None = None,
        column: int | None = None,
        context: str = "",
        expected: tuple[str, ...] = (),
    ) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column
        self.context = context
        self.expected = expected

    def __str__(self) -> str:
        where = f" at line {self.line}, column {self.column}" if self.line is not None else ""
        head = f"{self.kind} error{where}: {self.message}"
        return f"{head}\n{self.context}" if self.context else head

    def to_dict(self) -> dict[str, Any]:
        """The error as ``detente check l --json`` prints it."""
        return {"ok": False, "kind": self.kind, "line": self.line, "column": self.column, "message": self.message}


class LSyntaxError(LError):
    """Text that is not an L message: a missing bracket, a predicate where a deal must stand, ..."""

    kind = "syntax"


class LLevelError(LError):
    """A message that uses a construct of a level the game does not allow."""

    kind = "level"

    def __init__(self, message: str, *, construct: str, construct_level: int, **where: Any) -> None:
        super().__init__(message, **where)
        self.construct = construct
        self.construct_level = construct_level


class LOntologyError(LError):
    """A power, province or region type that the map does not have, or a region that does not fit."""

    kind = "ontology"

    def __init__(self, message: str, *, name: str, **where: Any) -> None:
        super().__init__(message, **where)
        self.name = name


def position(text: str, offset: int) -> tuple[int, int]:
    """Line and column (from 1) of a character offset in ``text``.

    >>> position("ab\\ncd", 4)
    (2, 2)
    """
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def located(text: str, offset: int) -> dict[str, Any]:
    """The ``line``, ``column`` and ``context`` of an error at a character offset of ``text``,
    as keyword arguments of an :class:`LError`.

    >>> located("ab\\ncd", 4)
    {'line': 2, 'column': 2, 'context': '  cd\\n   ^'}
    """
    line, column = position(text, offset)
    return {"line": line, "column": column, "context": context(text, line, column)}


def context(text: str, line: int, column: int) -> str:
    """The line ``line`` of ``text`` around ``column``, and a caret under that column.

    >>> print(context("inform(eng, fra,\\n  pce([eng fra]) &)", 2, 19))
        pce([eng fra]) &)
                        ^
    """
    lines = text.split("\n")
    row = lines[line - 1] if 0 < line <= len(lines) else ""
    start = max(0, column - 1 - _WINDOW)
    shown = row[start : column - 1 + _WINDOW].replace("\t", " ")
    prefix = "..." if start > 0 else ""
    suffix = "..." if column - 1 + _WINDOW < len(row) else ""
    caret = " " * (len(prefix) + column - 1 - start) + "^"
    return f"  {prefix}{shown}{suffix}\n  {caret}"

"""Plain-text tables for the terminal: the first column left-aligned, the others right-aligned."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["columns"]


def columns(header: Sequence[str], body: Sequence[Sequence[str]]) -> list[str]:
    """The lines of a table: the header, a rule, a line a row.

    >>> print("\\n".join(columns(("bot", "n"), [("a", "10"), ("bb", "2")])))
    bot   n
    -------
    a    10
    bb    2
    """
    widths = [max(len(h), *(len(row[i]) for row in body)) if body else len(h) for i, h in enumerate(header)]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(c.ljust(widths[0]) if i == 0 else c.rjust(widths[i]) for i, c in enumerate(cells))

    first = line(header)
    return [first, "-" * len(first), *(line(row) for row in body)]

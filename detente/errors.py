"""How a command says what went wrong: one plain line for a person, one JSON object with ``--json``.

>>> import io, sys
>>> sys.stderr = io.StringIO()
>>> fail("convert", "invalid JSON in standard input: Expecting value", line=1, column=15)
2
>>> fail("convert", "cannot read é.json: No such file or directory", as_json=True)
2
>>> print(sys.stderr.getvalue(), end="")
detente convert: invalid JSON in standard input: Expecting value (line 1, column 15)
{"error": "cannot read é.json: No such file or directory"}
>>> sys.stderr = sys.__stderr__
"""

from __future__ import annotations

import json
import sys
from typing import Any


def line(command: str, message: str, *, as_json: bool = False, **where: Any) -> str:
    """The error as one line (no newline): ``detente COMMAND: message (line L, column C)``, or the
    JSON object ``{"error": message, **where}`` (UTF-8, not ``\\u`` escapes) for programs."""
    if as_json:
        return json.dumps({"error": message, **where}, ensure_ascii=False)
    place = f" (line {where['line']}, column {where['column']})" if "line" in where and "column" in where else ""
    return f"detente {command}: {message}{place}"


def fail(command: str, message: str, *, as_json: bool = False, **where: Any) -> int:
    """Write :func:`line` to standard error; the exit status of a refused input, 2."""
    print(line(command, message, as_json=as_json, **where), file=sys.stderr)
    return 2


def add_json_option(parser: Any) -> None:
    """``--json``: errors as JSON objects, one per line, for programs that read them."""
    parser.add_argument("--json", dest="json_errors", action="store_true", help="errors as one JSON object per line")

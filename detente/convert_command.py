"""``detente convert IN [-o OUT] --to mila|cicero|detente``: a game from one format to another.

IN is a détente game (``games/<n>.json`` of ``detente run``), a MILA saved game (the
``diplomacy`` package's ``to_saved_game_format``) or a Cicero/dipcc game; its format is
detected (``--from`` names it instead). ``-`` reads standard input; without ``-o`` (or
with ``-o -``) the game goes to standard output, as compact JSON unless ``--indent N``.

Reading a MILA or dipcc game adjudicates every phase again with détente's engine; a phase
whose recorded outcome the engine does not reproduce keeps it and is marked (``note``,
``differences``; see :mod:`formats`). The number of such phases is said on
standard error.

Errors go to standard error as one line, with exit status 2 (with ``--json``, one JSON
object: ``{"error": message}``, and ``"line"`` and ``"column"`` where the JSON is broken):
a file that cannot be read (``detente convert: cannot read IN: ...``), text that is not JSON
(``detente convert: invalid JSON in IN: ... (line L, column C)``), JSON past the bounds of
the import endpoint, or JSON that is no game of a known format.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from detente.errors import add_json_option, fail
from formats import FORMATS, FormatError, cicero, detect, mila, onepass, read
from formats.jsonio import BeyondBounds, dump_line, dumps, loads, write_stdout

TARGETS = ("mila", "cicero", "detente")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("input", metavar="IN", help="the game to convert (a file, or - for standard input)")
    parser.add_argument("-o", "--out", metavar="OUT", default="-", help="where to write it (- for standard output)")
    parser.add_argument("--to", choices=TARGETS, required=True, help="the format to write")
    parser.add_argument(
        "--from", dest="source", choices=FORMATS, help="the format of IN (default: detected from its content)"
    )
    parser.add_argument("--indent", type=int, metavar="N", help="indent the JSON by N spaces (default: compact)")
    add_json_option(parser)


def convert(data: Any, to: str, source: str | None = None) -> tuple[dict[str, Any], str, int]:
    """``data`` (of format ``source``, detected when None) in format ``to``; the format read; and
    how many phases of a MILA or dipcc game détente adjudicates differently (marked)."""
    source = source or detect(data)
    document = read(data, source)
    marked = 0 if source == "detente" else sum(1 for phase in document["phases"] if "note" in phase)
    written = mila.dump(document) if to == "mila" else cicero.dump(document) if to == "cicero" else document
    return written, source, marked


class InputError(Exception):
    """A game file that cannot be read as JSON: the message, and where (line, column) if known."""

    def __init__(self, message: str, **where: int) -> None:
        super().__init__(message)
        self.where = where

    def report(self, command: str, as_json: bool = False) -> int:
        """Say it on standard error (see :mod:`detente.errors`); exit status 2."""
        return fail(command, str(self), as_json=as_json, **self.where)


def read_input(path: str) -> Any:
    """The JSON of the file at ``path`` (``-``: standard input); :class:`InputError` if it cannot be read."""
    return parse_input(path, read_bytes(path))


def shown(path: str) -> str:
    """How messages name the file at ``path`` (``-``: standard input)."""
    return "standard input" if path == "-" else path


def read_bytes(path: str) -> bytes:
    """The bytes of the file at ``path`` (``-``: standard input); :class:`InputError` if it cannot be read."""
    try:
        if path == "-":
            return sys.stdin.buffer.read()
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as error:
        raise InputError(f"cannot read {shown(path)}: {error.strerror}") from None


def parse_input(path: str, text: bytes) -> Any:
    """The JSON of ``text``, read from ``path``; :class:`InputError` if it is not JSON."""
    name = shown(path)
    try:
        return loads(text)
    except json.JSONDecodeError as error:
        raise InputError(f"invalid JSON in {name}: {error.msg}", line=error.lineno, column=error.colno) from None
    except BeyondBounds as error:
        raise InputError(f"invalid JSON in {name}: {error}") from None
    except UnicodeDecodeError as error:
        raise InputError(f"cannot read {name}: not UTF-8 text ({error.reason})") from None


def run(args: argparse.Namespace) -> int:
    name = shown(args.input)

    def _error(message: str) -> int:
        return fail("convert", message, as_json=args.json_errors)

    try:
        text = read_bytes(args.input)
    except InputError as error:
        return error.report("convert", args.json_errors)
    # a MILA game to détente's compact document: in one pass of the compiled core, if it takes it
    output = onepass.game_line(text) if args.to == "detente" and args.indent is None and args.source in (None, "mila") else None
    if output is None:
        try:
            data = parse_input(args.input, text)
        except InputError as error:
            return error.report("convert", args.json_errors)
        if isinstance(data, dict) and data.get("phases") == []:  # a game that never began: nothing to convert
            return _error(f"{name}: no phase in this game: there is nothing to convert")
        try:
            converted, _, marked = convert(data, args.to, args.source)
        except FormatError as error:
            return _error(f"{name}: {error}")
        except (KeyError, TypeError, AttributeError, ValueError) as error:  # a known shape with wrong insides
            return _error(f"{name}: not a game of the format it looks like: {type(error).__name__}: {error}")
        if marked:
            sys.stderr.write(
                f"detente convert: {marked} phase(s) of {name} adjudicate differently under DATC v3.0;"
                " their recorded outcome is kept and marked (note, differences)\n"
            )
        # compact JSON goes out as orjson makes it, UTF-8 bytes, never made a str to be encoded again
        output = dump_line(converted) if args.indent is None else (dumps(converted, args.indent) + "\n").encode("utf-8")
    try:
        if args.out == "-":
            write_stdout(output)
        else:
            with open(args.out, "wb") as handle:
                handle.write(output)
    except BrokenPipeError:  # the reader went away (``| head``): not our error
        sys.stdout = None  # type: ignore[assignment]
    except OSError as error:
        return _error(f"cannot write {args.out}: {error.strerror}")
    return 0

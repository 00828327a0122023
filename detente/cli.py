"""The ``detente`` command.

``detente adjudicate FILE|-`` plays adjudication cases (``shared/spec/adjudication-case.md``)
and prints the positions after each turn as JSON. A file that is not JSON, or not
cases, gets a JSON error on standard error (with line and column where the JSON
itself is broken) and exit status 2; a bad order is never an error, only void.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from importlib import resources

from detente.cases import CaseError, run_cases


def _error(message: str, **where: int) -> int:
    json.dump({"error": message, **where}, sys.stderr)
    sys.stderr.write("\n")
    return 2


def adjudicate_command(source: str) -> int:
    try:
        if source == "-":
            text = sys.stdin.read()
        elif source == "example":
            text = resources.files("engine").joinpath("data/example-case.json").read_text(encoding="utf-8")
        else:
            with open(source, encoding="utf-8") as handle:
                text = handle.read()
    except OSError as error:
        return _error(f"cannot read {source}: {error.strerror}")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        return _error(f"invalid JSON: {error.msg}", line=error.lineno, column=error.colno)
    try:
        answer = run_cases(data)
    except CaseError as error:
        return _error(str(error))
    try:
        json.dump(answer, sys.stdout, indent=1)
        sys.stdout.write("\n")
        sys.stdout.flush()
    except BrokenPipeError:  # the reader went away (``| head``): not our error
        sys.stdout = None  # type: ignore[assignment]  # keep the interpreter from flushing again
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="detente", description="The Diplomacy negotiation testbed.")
    commands = parser.add_subparsers(dest="command", required=True)
    adjudicate = commands.add_parser(
        "adjudicate",
        help="play adjudication cases (JSON) and print the positions after each turn",
        description="Read one case or a list of cases from FILE ('-' for standard input, "
        "'example' for the example shipped with detente) and print the positions after each turn.",
    )
    adjudicate.add_argument("file", metavar="FILE|-")
    args = parser.parse_args(argv)
    if args.command == "adjudicate":
        return adjudicate_command(args.file)
    return 2  # pragma: no cover - argparse rejects unknown commands


if __name__ == "__main__":
    sys.exit(main())

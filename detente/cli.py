"""The ``detente`` command.

``detente check l|daide TEXT|-`` checks negotiation and DAIDE messages (see
:mod:`detente.check`).

``detente adjudicate FILE|-`` plays adjudication cases (``docs/adjudication-case.md``)
and prints the positions after each turn as JSON. A file that is not JSON, or not
cases, gets a JSON error on standard error (with line and column where the JSON
itself is broken) and exit status 2; a bad order is never an error, only void. A case
whose start position gives a dislodged unit a retreat option it could not take gets
``null`` for its answer and one JSON error line per bad option on standard error; the
other cases are answered, and the exit status is 2.

``detente serve [--host H] [--port P] [--db FILE] ...`` runs the game server (see
:mod:`server.main`); ``detente nego --game-server URL ...`` the negotiation server (see
:mod:`server.nego.main`); ``detente store check|backup|restore|prune`` operates their
stores (see :mod:`detente.store_command`).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from importlib import resources

from detente import bot_command, report_command, run_command, store_command
from detente import play as play_command
from detente.cases import CaseError, answer_cases


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
        answer, errors = answer_cases(data)
    except CaseError as error:
        return _error(str(error))
    for error in errors:  # start positions that do not hold: those cases are null, the others answered
        json.dump(error, sys.stderr)
        sys.stderr.write("\n")
    try:
        json.dump(answer, sys.stdout, indent=1)
        sys.stdout.write("\n")
        sys.stdout.flush()
    except BrokenPipeError:  # the reader went away (``| head``): not our error
        sys.stdout = None  # type: ignore[assignment]  # keep the interpreter from flushing again
    return 2 if errors else 0


def build_parser() -> argparse.ArgumentParser:
    """The ``detente`` command line: every subcommand and its options."""
    parser = argparse.ArgumentParser(prog="detente", description="The Diplomacy negotiation testbed.")
    commands = parser.add_subparsers(dest="command", required=True)
    adjudicate = commands.add_parser(
        "adjudicate",
        help="play adjudication cases (JSON) and print the positions after each turn",
        description="Read one case or a list of cases from FILE ('-' for standard input, "
        "'example' for the example shipped with detente) and print the positions after each turn.",
    )
    adjudicate.add_argument("file", metavar="FILE|-")

    check = commands.add_parser(
        "check",
        help="check L or DAIDE messages: print their level and normal form, or the error",
        description="Check one message, or with '-' one message per line of standard input "
        "(one answer per line). Exit status 0 when every message is valid.",
    )
    languages = check.add_subparsers(dest="language", required=True)
    check_l = languages.add_parser("l", help="the L negotiation language")
    check_l.add_argument("--levels", help="the levels allowed, e.g. 1-8 or 1,3-5 (default: all)")
    check_daide = languages.add_parser("daide", help="DAIDE messages (press alone, too)")
    for sub in (check_l, check_daide):
        sub.add_argument("--json", action="store_true", help="one JSON object per answer")
        sub.add_argument("text", metavar="TEXT|-")

    serve = commands.add_parser(
        "serve",
        help="run the game server (DAIDE over websockets, JSON API)",
        description="Run the game server until interrupted. It prints 'listening on http://HOST:PORT' "
        "once it accepts connections, and any credentials it generated.",
    )
    from server.main import add_serve_arguments

    add_serve_arguments(serve)

    nego = commands.add_parser(
        "nego",
        help="run the negotiation server (L over websockets), following a game server",
        description="Run the negotiation server until interrupted. It prints 'listening on http://HOST:PORT' "
        "once it accepts connections, and any credentials it generated.",
    )
    from server.nego.main import add_nego_arguments

    add_nego_arguments(nego)

    bot_command.add_arguments(
        commands.add_parser("bot", help="play one bot in a game of a server (DAIDE over websockets)")
    )
    run_command.add_arguments(
        commands.add_parser("run", help="play many in-process games between bots; a summary per bot")
    )
    play_command.add_arguments(
        commands.add_parser(
            "play",
            help="play in the browser against six bots: both servers, the bots and your page in one process",
        )
    )
    report_command.add_arguments(
        commands.add_parser("report", help="one HTML page of charts: detente run directories or a game server database")
    )
    store_command.add_arguments(
        commands.add_parser(
            "store",
            help="the servers' stores: check, backup, restore, prune (retention)",
            description="Check, back up, restore or prune a server's SQLite store.",
        )
    )

    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "bot":
        return bot_command.run(args)
    if args.command == "run":
        return run_command.run(args)
    if args.command == "play":
        return play_command.run(args)
    if args.command == "report":
        return report_command.run(args)
    if args.command == "store":
        return store_command.run(args)
    if args.command == "serve":
        from server.main import run

        return run(args)
    if args.command == "nego":
        from server.nego.main import run_nego

        return run_nego(args)
    if args.command == "adjudicate":
        return adjudicate_command(args.file)
    if args.command == "check":
        from detente import check as checking

        if args.language == "l":
            try:
                checker = checking.l_checker(args.levels)
            except ValueError as error:
                parser.error(f"--levels: {error}")
        else:
            checker = checking.daide_checker()
        return checking.run(checker, checking.messages_from(args.text), args.json, sys.stdout)
    return 2  # pragma: no cover - argparse rejects unknown commands


if __name__ == "__main__":
    sys.exit(main())

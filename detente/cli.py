"""The ``detente`` command.

``detente check l|daide TEXT|-`` checks negotiation and DAIDE messages (see
:mod:`detente.check`).

``detente adjudicate FILE|-`` plays adjudication cases (``docs/adjudication-case.md``)
and prints the positions after each turn as JSON. A file that is not JSON, or not
cases, gets one line on standard error (with line and column where the JSON itself is
broken; a JSON object instead with ``--json``) and exit status 2; a bad order is never an
error, only void. A case whose start position gives a dislodged unit a retreat option it
could not take gets ``null`` for its answer and one error line per bad option on standard
error; the other cases are answered, and the exit status is 2.

``detente serve [--host H] [--port P] [--db FILE] ...`` runs the game server (see
:mod:`server.main`); ``detente nego --game-server URL ...`` the negotiation server (see
:mod:`server.nego.main`); ``detente store check|backup|restore|prune`` operates their
stores (see :mod:`detente.store_command`).
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import importlib
import json
import signal
import sys
from collections.abc import Iterator, Sequence
from importlib import resources
from typing import Any


def _interrupted_while_loading(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)  # Ctrl-C while the commands load: no traceback of an import


@contextlib.contextmanager
def _quiet_interrupts() -> Iterator[None]:
    """Ctrl-C exits quietly (status 130) meanwhile, where it would be a KeyboardInterrupt."""
    installed = False
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        with contextlib.suppress(ValueError):  # not the main thread: signals are not ours
            signal.signal(signal.SIGINT, _interrupted_while_loading)
            installed = True
    try:
        yield
    finally:
        if installed and signal.getsignal(signal.SIGINT) is _interrupted_while_loading:
            signal.signal(signal.SIGINT, signal.default_int_handler)




def adjudicate_command(source: str, indent: int | None = None, as_json: bool = False) -> int:
    from detente.cases import CaseError, adjudicate_json
    from detente.errors import fail, line
    from formats.jsonio import BeyondBounds, loads, write_stdout

    def _error(message: str, **where: int) -> int:
        return fail("adjudicate", message, as_json=as_json, **where)

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
        data = loads(text)
    except json.JSONDecodeError as error:
        return _error(f"invalid JSON: {error.msg}", line=error.lineno, column=error.colno)
    except BeyondBounds as error:
        return _error(f"invalid JSON: {error}")
    try:
        answer, errors = adjudicate_json(data, indent)
    except CaseError as error:
        return _error(str(error))
    for error in errors:  # start positions that do not hold: those cases are null, the others answered
        message, where = error["error"], {k: v for k, v in error.items() if k != "error"}
        print(line("adjudicate", message, as_json=as_json, **where), file=sys.stderr)
    try:
        write_stdout(answer)
    except BrokenPipeError:  # the reader went away (``| head``): not our error
        sys.stdout = None  # type: ignore[assignment]  # keep the interpreter from flushing again
    return 2 if errors else 0


class HelpFormatter(argparse.HelpFormatter):
    """Help that shows each option's default where it has one (not for ``None`` or a flag's
    ``False``: "default: None" tells a newcomer nothing); choices show as argparse shows them."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        help = action.help or ""
        default = action.default
        if (
            "%(default)" in help
            or "default" in help
            or default is None
            or default is argparse.SUPPRESS
            or isinstance(default, bool)
            or not (action.option_strings or action.nargs in (argparse.OPTIONAL, argparse.ZERO_OR_MORE))
        ):
            return help
        return f"{help} (default: %(default)s)" if help else "(default: %(default)s)"


def version_line() -> str:
    """``detente 0.1.0 (engine core: compiled C)``: the version, and which engine core runs."""
    from importlib.metadata import PackageNotFoundError, version

    from engine._native import active_core

    try:
        number = version("detente")
    except PackageNotFoundError:
        number = "unknown"
    return f"detente {number} (engine core: {active_core()})"


class _Version(argparse.Action):
    """``--version``: :func:`version_line`, worked out only when asked for (not at every start-up)."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *args: Any) -> None:
        print(version_line())  # to standard output, as argparse's own version action prints
        parser.exit()


#: Each command: its one-line help, its description, and where its options are added (a
#: module's function, imported only when the command is built: ``detente --help`` loads none).
COMMANDS: dict[str, tuple[str, str, str]] = {
    "adjudicate": (
        "play adjudication cases (JSON) and print the positions after each turn",
        "Read one case or a list of cases from FILE ('-' for standard input, "
        "'example' for the example shipped with detente) and print the positions after each turn.",
        "detente.cli:adjudicate_arguments",
    ),
    "check": (
        "check L or DAIDE messages: print their level and normal form, or the error",
        "Check one message, or with '-' one message per line of standard input "
        "(one answer per line). Exit status 0 when every message is valid.",
        "detente.cli:check_arguments",
    ),
    "serve": (
        "run the game server (DAIDE over websockets, JSON API)",
        "Run the game server until interrupted. It prints 'listening on http://HOST:PORT' "
        "once it accepts connections, and any credentials it generated.",
        "server.main:add_serve_arguments",
    ),
    "nego": (
        "run the negotiation server (L over websockets), following a game server",
        "Run the negotiation server until interrupted. It prints 'listening on http://HOST:PORT' "
        "once it accepts connections, and any credentials it generated.",
        "server.nego.main:add_nego_arguments",
    ),
    "bot": (
        "play one bot in a game of a server (DAIDE over websockets)",
        "Play one bot in a game of a game server (DAIDE over websockets) to its end, and print how it ended.",
        "detente.bot_command:add_arguments",
    ),
    "run": (
        "play many in-process games between bots; a summary per bot",
        "Play many games between bots in this machine's processes (or on Ray) and write them, "
        "with a summary per bot, to a directory.",
        "detente.run_command:add_arguments",
    ),
    "tournament": (
        "every bot alone against six of every other: ratings, cross-play, paired comparisons",
        "Play, for each ordered pair of bots, one against six (and with --setups 1v6,6v1 six against one),"
        " each set-up a detente run directory under --out; print OpenSkill ratings, the cross-play matrix"
        " and paired comparisons with 95 % intervals per game.",
        "detente.tournament_command:add_arguments",
    ),
    "convert": (
        "convert a game between detente's JSON, MILA's saved-game JSON and Cicero's dipcc JSON",
        "Convert a game: IN's format (detente, MILA saved game, Cicero/dipcc) is detected; --to names the"
        " format written. Phases whose recorded outcome DATC v3.0 adjudicates differently are kept and marked.",
        "detente.convert_command:add_arguments",
    ),
    "replay": (
        "show any game file (detente, MILA, Cicero/dipcc) in the web page, read-only",
        "Serve a game file read-only in the web page: its history, orders, results and messages."
        " A server starts on loopback with a temporary store; Ctrl-C stops it.",
        "detente.replay_command:add_arguments",
    ),
    "play": (
        "play in the browser against six bots: both servers, the bots and your page in one process",
        "Play in the browser against six bots: both servers, the bots and your page in one process. "
        "Ctrl-C stops it; run it again in the same directory to resume the game.",
        "detente.play:add_arguments",
    ),
    "report": (
        "one HTML page of charts: detente run directories or a game server database",
        "Write one self-contained HTML page of charts from detente run directories or a game server database.",
        "detente.report_command:add_arguments",
    ),
    "store": (
        "the servers' stores: check, backup, restore, prune (retention)",
        "Check, back up, restore or prune a server's SQLite store.",
        "detente.store_command:add_arguments",
    ),
}

#: Where each command runs (a module's function of ``args``), imported when it is chosen.
RUNS: dict[str, str] = {
    "bot": "detente.bot_command:run",
    "run": "detente.run_command:run",
    "tournament": "detente.tournament_command:run",
    "convert": "detente.convert_command:run",
    "replay": "detente.replay_command:run",
    "play": "detente.play:run",
    "report": "detente.report_command:run",
    "store": "detente.store_command:run",
    "nego": "server.nego.main:run_nego",
}


def _load(where: str) -> Any:
    module, _, name = where.partition(":")
    return getattr(importlib.import_module(module), name)


def adjudicate_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE|-", help="a file of cases, - for standard input, or example")
    parser.add_argument("--indent", type=int, metavar="N", help="indent the JSON by N spaces (default: compact)")
    from detente.errors import add_json_option

    add_json_option(parser)


def check_arguments(parser: argparse.ArgumentParser) -> None:
    languages = parser.add_subparsers(dest="language", required=True)
    check_l = languages.add_parser(
        "l", help="the L negotiation language", description="Check L messages.", formatter_class=HelpFormatter
    )
    check_l.add_argument("--levels", help="the levels allowed, e.g. 1-8 or 1,3-5 (default: all)")
    check_daide = languages.add_parser(
        "daide",
        help="DAIDE messages (press alone, too)",
        description="Check DAIDE messages (press alone, too).",
        formatter_class=HelpFormatter,
    )
    for sub in (check_l, check_daide):
        sub.add_argument("--json", action="store_true", help="one JSON object per answer")
        sub.add_argument("text", metavar="TEXT|-")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The ``detente`` command line: every subcommand and its options (each with a one-line
    description, and its defaults and choices in ``--help``). With ``only``, the options of
    that command alone are added (the others are listed with their help): what ``main`` builds,
    so that a command loads only its own modules."""
    parser = argparse.ArgumentParser(
        prog="detente", description="The Diplomacy negotiation testbed.", formatter_class=HelpFormatter
    )
    parser.add_argument("--version", action=_Version, help="the version and the engine core")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (help, description, arguments) in COMMANDS.items():
        sub = commands.add_parser(name, help=help, description=description, formatter_class=HelpFormatter)
        if only is None or only == name:
            _load(arguments)(sub)
    return parser


def unknown_option(parser: argparse.ArgumentParser, argv: Sequence[str]) -> str | None:
    """The line for the first option of ``argv`` that its command does not take, with the
    closest it does ("did you mean"); None when every option is known (argparse says the rest)."""
    chosen: argparse.ArgumentParser = parser
    for token in argv:
        if token == "--":
            break
        if not token.startswith("-"):
            commands = next((a for a in chosen._actions if isinstance(a, argparse._SubParsersAction)), None)
            if commands is not None and token in commands.choices:
                chosen = commands.choices[token]
            continue
        if not token.startswith("--") or token == "--":
            continue
        name = token.split("=", 1)[0]
        known = [o for a in chosen._actions for o in a.option_strings if o.startswith("--")]
        if name in known or sum(o.startswith(name) for o in known) == 1:  # argparse takes a unique prefix
            continue
        near = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
        hint = f" (did you mean {near[0]}?)" if near else ""
        return f"{chosen.prog}: unknown option {name}{hint}; {chosen.prog} --help lists them"
    return None


def _command_in(argv: Sequence[str]) -> str:
    """The command ``argv`` names ("" for none: ``detente --help``, ``detente --version``)."""
    return next((token for token in argv if not token.startswith("-")), "") if argv else ""


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    with _quiet_interrupts():  # building a command's parser loads its modules (the servers', for some)
        chosen = _command_in(words)
        parser = build_parser(only=chosen if chosen in COMMANDS else "")
        unknown = unknown_option(parser, words)
        if unknown is not None:
            print(unknown, file=sys.stderr)
            return 2
        args = parser.parse_args(words)
        run = None if args.command in ("adjudicate", "check", "serve") else _load(RUNS[args.command])
    if run is not None:
        return int(run(args))
    if args.command == "serve":
        from detente.house import BotHouse
        from server.main import run as serve

        return serve(args, house=lambda service, settings: BotHouse(service, settings.bots_nego_url))
    if args.command == "adjudicate":
        return adjudicate_command(args.file, args.indent, args.json_errors)
    from detente import check as checking

    if args.language == "l":
        try:
            checker = checking.l_checker(args.levels)
        except ValueError as error:
            parser.error(f"--levels: {error}")
    else:
        checker = checking.daide_checker()
    return checking.run(checker, checking.messages_from(args.text), args.json, sys.stdout)


if __name__ == "__main__":
    sys.exit(main())

"""``detente report``: an experiment's games as one self-contained HTML page (see :mod:`detente.report`).

``detente report DIR_OR_DB -o report.html [--games-shown N] [--title TEXT]`` reads a ``detente
run`` directory, a directory of them (one session each) or a game server database, and writes
the page. Input that cannot be read gets one line on standard error and exit status 2.

:mod:`detente.report` (and so matplotlib) is imported only when the command runs, so that the
other commands do not pay for it. matplotlib comes with the ``report`` extra (``pip install
'detente[report]'``); without it the command says so in one line and exits with status 2.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

__all__ = ["add_arguments", "run"]

#: What ``detente report`` says when matplotlib is not installed.
MISSING_MATPLOTLIB = "needs matplotlib, which is not installed: pip install 'detente[report]'"


def _count(text: str) -> int:
    number = int(text)
    if number < 0:
        raise argparse.ArgumentTypeError("the number of games shown is 0 or more")
    return number


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``detente report``."""
    parser.add_argument(
        "source",
        metavar="DIR_OR_DB",
        type=Path,
        help="a detente run directory, a directory of them, or a game server database (.sqlite3)",
    )
    parser.add_argument("-o", "--output", required=True, type=Path, help="the HTML file to write")
    parser.add_argument(
        "--games-shown",
        dest="games_shown",
        metavar="N",
        type=_count,
        default=4,
        help="games of each session whose supply centres are drawn",
    )
    parser.add_argument("--title", help="the page's title (default: from the source)")


def run(args: argparse.Namespace) -> int:
    """Read the source, write the page; exit status 2 when the source or the output is unusable,
    or matplotlib is not installed."""

    def fail(message: str) -> int:
        print(f"detente report: {message}", file=sys.stderr)
        return 2

    try:
        from detente.report import ReportError, load, render
    except ImportError as error:
        if (error.name or "").partition(".")[0] != "matplotlib":
            raise
        return fail(MISSING_MATPLOTLIB)

    try:
        experiment = load(args.source)
    except ReportError as error:
        return fail(str(error))
    page = render(experiment, args.games_shown, args.title)
    try:
        args.output.write_text(page, encoding="utf-8")
    except OSError as error:
        return fail(f"cannot write {args.output}: {error.strerror}")
    games = sum(len(session.games) for session in experiment.sessions)
    print(
        f"detente report: {len(experiment.sessions)} session(s), {games} games, {page.count('<svg')} charts,"
        f" {len(page.encode()) // 1024} KiB written to {args.output}",
        file=sys.stderr,
    )
    return 0

"""How long the command takes to start and to stop, beside ``python -c pass``.

Issue 29 measured ``detente --help`` at 2.2-3.1 s (every command's modules, the servers'
included, were imported to build the parser; goal under 0.3 s) and ``detente play`` at 6.5 s
to its seat link (goal under 2 s); Ctrl-C in ``detente run`` and ``detente tournament`` must
stop them within a second. Each command line runs ``--runs`` times in a fresh process, one
after the other; the median and the slowest are printed beside the figure before and the
goal, and written to ``benchmarks/results/startup.json`` (``docs/results/startup.md``)::

    .venv/bin/python benchmarks/startup.py [--runs 10]

The seat link is timed from the start of ``detente play --no-browser --port 0`` (a fresh data
directory each time) to the line holding its link on standard output: with the parsers' tables
in their cache (every run but the first after an install or a change of a grammar), and with an
empty cache (``DETENTE_CACHE_DIR`` a fresh directory: the first run, the tables built). A stop
is timed from SIGINT, sent once the run has kept a game (its ``games.jsonl`` has a line), to
the exit of the process, started as a terminal starts it (SIGINT heard, not inherited ignored).
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.machine import describe
from benchmarks.results import Column, Table, record, write

DETENTE = [sys.executable, "-m", "detente"]
#: ``detente`` with Ctrl-C heard as from a terminal (a benchmark in a shell's background
#: inherits SIGINT ignored, which Python would keep)
AS_FROM_A_TERMINAL = [
    sys.executable,
    "-c",
    (
        "import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler);"
        " sys.argv[0] = 'detente'; runpy.run_module('detente', run_name='__main__')"
    ),
]
RUN = ["run", "--bots", "randombot", "--games", "200", "--jobs", "2", "--year-limit", "1910", "--seed", "3"]
TOURNAMENT = ["tournament", "--bots", "randombot,holdbot", "--games", "70", "--jobs", "2", "--seed", "5"]


def finished(command: list[str]) -> float:
    """Seconds from the start of ``command`` to its exit."""
    started = time.perf_counter()
    subprocess.run(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - started


def seat_link(cached: bool = True) -> float:
    """Seconds from the start of ``detente play`` to its seat link; not ``cached``: with an empty
    cache of the parsers' tables (a first run)."""
    with tempfile.TemporaryDirectory() as data, tempfile.TemporaryDirectory() as empty:
        command = [*DETENTE, "play", "--no-browser", "--port", "0", "--data-dir", data, "--seed", "1"]
        env = None if cached else {**os.environ, "DETENTE_CACHE_DIR": empty}
        started = time.perf_counter()
        process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                   env=env)  # fmt: skip
        assert process.stdout is not None
        try:
            for line in process.stdout:
                if "session=" in line:
                    return time.perf_counter() - started
            raise SystemExit("detente play ended without its seat link")
        finally:
            process.terminate()
            process.wait()


def stopped(arguments: list[str], kept: Callable[[Path], Path]) -> float:
    """Seconds from SIGINT, once the command has kept a game, to its exit with status 130."""
    with tempfile.TemporaryDirectory() as work:
        out = Path(work) / "out"
        process = subprocess.Popen([*AS_FROM_A_TERMINAL, *arguments, "--out", str(out)], cwd=ROOT,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
        games = kept(out)
        while not games.exists() or not games.read_text():  # polled: a file's first line is no event
            if process.poll() is not None:
                raise SystemExit(f"{arguments[0]} ended before a game was kept")
            time.sleep(0.01)
        started = time.perf_counter()
        process.send_signal(signal.SIGINT)
        status = process.wait(timeout=60)
        seconds = time.perf_counter() - started
        if status != 130:
            raise SystemExit(f"{arguments[0]} stopped with status {status}, not 130")
        return seconds


#: What is timed: its name, how, the figure before (issue 29's, where it gives one), the goal in seconds.
LINES: list[tuple[str, Callable[[], float], str | None, float | None]] = [
    ("python -c pass", lambda: finished([sys.executable, "-c", "pass"]), "0.04 s", None),
    ("detente --help", lambda: finished([*DETENTE, "--help"]), "2.2-3.1 s", 0.3),
    ("detente --version", lambda: finished([*DETENTE, "--version"]), None, 0.3),
    ("detente run --help", lambda: finished([*DETENTE, "run", "--help"]), None, None),
    ("detente serve --help", lambda: finished([*DETENTE, "serve", "--help"]), None, None),
    ("detente play, to its seat link", seat_link, "6.5 s", 2.0),
    ("detente play, to its seat link, parser cache empty", lambda: seat_link(cached=False), "6.5 s", 2.0),
    ("Ctrl-C in detente run, to its exit", lambda: stopped(RUN, lambda out: out / "games.jsonl"), "a traceback", 1.0),
    (
        "Ctrl-C in detente tournament, to its exit",
        lambda: stopped(TOURNAMENT, lambda out: out / "1v6-randombot-holdbot" / "games.jsonl"),
        None,
        1.0,
    ),
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10, help="runs of each command line")
    args = parser.parse_args()
    print(f"start-up and stop; {describe()}; n = {args.runs} each")
    print(f"{'what':<52} {'median':>8} {'slowest':>8} {'before':>20} {'goal':>8}")
    rows = []
    for name, measure, before, goal in LINES:
        seconds = [measure() for _ in range(args.runs)]
        median, slowest = statistics.median(seconds), max(seconds)
        shown = None if goal is None else f"< {goal:g} s"
        rows.append({"what": name, "median": round(median, 3), "slowest": round(slowest, 3), "n": len(seconds),
                     "before": before, "goal": shown, "met": None if goal is None else median < goal})  # fmt: skip
        print(f"{name:<52} {median:7.3f}s {slowest:7.3f}s {before or '':>20} {shown or '':>8}")
    columns = [
        Column("what", "what"),
        Column("median", "median s", True),
        Column("slowest", "slowest s", True),
        Column("n", "n", True),
        Column("before", "before (issue 29)"),
        Column("goal", "goal"),
        Column("met", "met (median)"),
    ]
    note = ("Each line timed in a fresh process, one after the other; the Ctrl-C lines from SIGINT (sent once a"
            " game is kept) to the exit with status 130.")  # fmt: skip
    compiled = ("PYTHONDONTWRITEBYTECODE was set: every run compiled detente's own modules from source (an"
                " installed package keeps them compiled: importing detente.play took 0.15 s less here)."
                if sys.dont_write_bytecode else "")  # fmt: skip
    path = write(record("startup", "Start-up and stop", "benchmarks/startup.py", args.runs,
                        [Table("Seconds", columns, rows, note)], notes=[compiled] if compiled else []))  # fmt: skip
    print(f"written to {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

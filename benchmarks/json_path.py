#!/usr/bin/env python
"""Is the JSON path as fast as the engine? ``detente adjudicate`` and ``detente convert`` end
to end against the engine alone, each as a ratio to the ``diplomacy`` package (1.1.2).

The games are those of ``engine_speed.py``: seeded games of uniformly random legal orders,
played by both engines in lockstep and kept only as far as they agree. On them, in one run:

* engine alone: ``adjudicate(position, orders)`` with the orders parsed, against the
  package's bare ``Game.process()`` (orders set beforehand, untimed) — the engine ratio;
* ``detente adjudicate``: every game written as one adjudication case (the start and
  every turn's orders), all in one file; timed from reading the file to the last byte
  of the answer written (to ``/dev/null``), in this process, against the same ``process()``;
* ``detente convert``: every game saved by the package (``to_saved_game_format``, as a
  MILA file); timed from reading each file to writing détente's game document (``--to
  detente``: every phase adjudicated again and compared with the recorded state) to
  ``/dev/null``, as ``detente adjudicate`` writes its answer, against the same
  ``process()``, and against the package reading and writing the same files
  (``json.loads`` + ``from_saved_game_format`` + ``to_saved_game_format`` +
  ``json.dumps``); and, for information, the same with each document written to a file of
  its own (the file system's work, about 40 µs a file of 40 kB on this machine, is then
  counted too);
* with the pure-Python core, both commands again as a process runs where the compiled
  module is not loaded at all (``engine._native.without_module``: the readers and writers
  in Python too);
* for information, ``convert --to mila`` of détente's documents back, and one
  ``detente adjudicate`` process with its interpreter start-up, wall-clock.

Every measurement of détente runs once for each engine core, in the same run: the
compiled C core (when it is built) and the pure-Python one (``DETENTE_PURE_PYTHON=1``
forces it alone in a process; here ``engine._native.pure_python`` switches between them).
A command reaches issue 18's goal, for a core, when its ratio to ``process()`` is at least
0.8 of that core's engine ratio; issue 19 asks ``detente adjudicate`` for 20 times
``process()`` end to end. Before timing, the two cores' answers to the cases are checked
to be the same bytes (the compiled core plays and writes whole cases in C). Every figure is the fastest of several passes, in CPU time of
this process (a busy machine's other work counts in wall-clock time, not here), with one
pass of each measurement in turn, round after round. Nothing here asserts a speed.

    .venv/bin/python benchmarks/json_path.py             # about a minute
    .venv/bin/python benchmarks/json_path.py --quick     # a smoke run
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import io
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine_speed import PlayedPhase, fresh, generate, passes, set_their_orders, their_version
from machine import machine

from benchmarks import results
from benchmarks.results import Column, Table, record, write
from engine import _native, adjudicate

try:
    import diplomacy
    from diplomacy.utils.export import from_saved_game_format, to_saved_game_format
except ImportError:  # pragma: no cover - depends on the environment
    diplomacy = None

SHARE = 0.8  # of the engine ratio that a command reaches end to end (issue 18)
ISSUE_19 = 20.0  # times process(): detente adjudicate end to end (issue 19)
COMPILED, PURE = _native.COMPILED, _native.PURE


def cases_of(games: Sequence[Sequence[PlayedPhase]]) -> list[dict[str, Any]]:
    """Each game as one adjudication case: its start and every turn's orders in text.

    A retreat phase where no dislodged unit can retreat (``engine_speed`` steps over it,
    untimed) gets an empty turn, so that the case follows the recorded game.
    """
    cases = []
    for number, phases in enumerate(games):
        if not phases:
            continue
        turns: list[dict[str, Any]] = []
        full = phases[0].position.map.power_names  # a case names the powers in full, as its start does
        for i, phase in enumerate(phases):
            turns.append({"orders": {full[p]: texts for p, texts in phase.texts.items()}})
            after = adjudicate(phase.position, phase.orders).position
            if i + 1 < len(phases) and after.phase != phases[i + 1].position.phase:
                turns.append({"orders": {}})
        cases.append({"name": f"game {number}", "start": phases[0].position.to_json(), "turns": turns})
    return cases


def saved_games(games: Sequence[Sequence[PlayedPhase]]) -> list[str]:
    """Each game played by the package again and saved by it, as MILA's JSON text."""
    texts = []
    for number, phases in enumerate(games):
        game = diplomacy.Game(game_id=f"json-path-{number}")
        for phase in phases:
            for power, orders in phase.their_texts.items():
                game.set_orders(power, orders)
            game.process()
        texts.append(json.dumps(to_saved_game_format(game)))
    return texts


@contextlib.contextmanager
def stdout_to(sink: io.TextIOBase) -> Iterator[None]:
    saved = sys.stdout
    sys.stdout = sink
    try:
        yield
    finally:
        sys.stdout = saved


#: CPU time of this process: on a busy machine, wall-clock time counts the time others ran.
CLOCK = time.process_time


def timed(repeats: int, run: Callable[[], Any]) -> float:
    """The fastest of ``repeats`` runs of ``run``, in CPU seconds (the collector off while timing)."""

    def one() -> float:
        start = CLOCK()
        run()
        return CLOCK() - start

    return min(passes(repeats, one))


def engine_seconds(phases: Sequence[PlayedPhase]) -> float:
    """``adjudicate()`` of every phase, orders parsed, on fresh positions (copied untimed)."""
    positions = [fresh(p.position) for p in phases]
    orders = [p.orders for p in phases]
    start = CLOCK()
    for position, power_orders in zip(positions, orders, strict=True):
        adjudicate(position, power_orders)
    return CLOCK() - start


def process_seconds(games: Sequence[Sequence[PlayedPhase]]) -> float:
    """The package's bare ``Game.process()`` of every phase, the orders set untimed."""
    total = 0.0
    for phases in games:
        game = diplomacy.Game()
        for phase in phases:
            set_their_orders(game, phase.their_texts)
            start = CLOCK()
            game.process()
            total += CLOCK() - start
    return total


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40, help="random games (default 40)")
    parser.add_argument("--years", type=int, default=10, help="years per game at most (default 10)")
    parser.add_argument("--seed", type=int, default=1, help="seed (default 1)")
    parser.add_argument("--repeats", type=int, default=5, help="timed passes, the fastest kept (default 5)")
    parser.add_argument("--quick", action="store_true", help="10 games of 5 years, 2 passes")
    args = parser.parse_args(argv)
    if args.quick:
        args.games, args.years, args.repeats = 10, 5, 2
    if diplomacy is None:
        print("the diplomacy package is not installed: pip install -e '.[bench]'", file=sys.stderr)
        return 2

    from detente import cli, convert_command
    from detente.cases import adjudicate_json

    began = time.perf_counter()
    info = machine()
    print("detente's JSON path against its engine, each against the diplomacy package")
    print(f"date      {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M:%S} UTC")
    print(f"machine   {info['cores']} cores, {info['cpu']}")
    print(f"python    {info['python']} on {info['platform']}")
    print(f"diplomacy {their_version()}")
    recorded = generate(args.games, args.years, args.seed, True, True)
    games = [g for g in recorded.games if g]
    phases = [p for g in games for p in g]
    n = len(phases)
    print(f"games     {len(games)} games, {n} phases (seed {args.seed}, up to {args.years} years, random legal orders)")
    print(f"timing    fastest of {args.repeats} passes (diplomacy: of {min(args.repeats, 3)}), CPU time")
    print()

    their_repeats = min(args.repeats, 3)

    cores = [PURE] if not _native.compiled_available() else [COMPILED, PURE]
    if not _native.compiled_available():
        print(f"the compiled core is not loaded ({_native.why_not}): the pure-Python core alone")
        print()

    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        cases_path = root / "cases.json"
        cases_path.write_text(json.dumps(cases_of(games)), encoding="utf-8")
        saved = saved_games(games)
        mila_paths = []
        for i, text in enumerate(saved):
            path = root / f"{i}.mila.json"
            path.write_text(text, encoding="utf-8")
            mila_paths.append(path)
        ours_paths = [root / f"{i}.json" for i in range(len(saved))]

        parser_ = cli.build_parser()
        convert_args = [
            parser_.parse_args(["convert", str(p), "--to", "detente", "-o", os.devnull]) for p in mila_paths
        ]
        files_args = [
            parser_.parse_args(["convert", str(p), "--to", "detente", "-o", str(o)])
            for p, o in zip(mila_paths, ours_paths, strict=True)
        ]
        back_args = [parser_.parse_args(["convert", str(o), "--to", "mila", "-o", os.devnull]) for o in ours_paths]

        def package_round_trip() -> None:
            for path in mila_paths:
                game = from_saved_game_format(json.loads(path.read_text(encoding="utf-8")))
                json.dumps(to_saved_game_format(game))

        with open(os.devnull, "w", encoding="utf-8") as sink, stdout_to(sink):
            for core in cores:
                with core_in_use(core):
                    assert cli.adjudicate_command(str(cases_path)) == 0, "the cases did not all play"
                    with contextlib.redirect_stderr(io.StringIO()):
                        for a in files_args:
                            assert convert_command.run(a) == 0
            # the cores answer the cases alike, byte for byte (the compiled one plays and writes
            # whole cases in C: engine.batch.play_case)
            cases_data = json.loads(cases_path.read_bytes())
            answers = set()
            for core in cores:
                with core_in_use(core):
                    answers.add(adjudicate_json(cases_data)[0])
            with _native.without_module():
                answers.add(adjudicate_json(cases_data)[0])
            assert len(answers) == 1, "the cores (or the writers) answer the cases differently"
            # and convert writes the same documents, read in one pass or by formats.saved
            documents = set()
            for setting in [core_in_use(core) for core in cores] + [_native.without_module()]:
                with setting:
                    for a in convert_args:
                        a.out = str(root / "check.json")
                        assert convert_command.run(a) == 0
                        documents.add((a.input, (root / "check.json").read_bytes()))
                        a.out = os.devnull
            assert len(documents) == len(convert_args), "the readers convert a game differently"
            # One pass of each measurement in turn, round after round, the fastest of each
            # kept: on a busy machine a slow spell then spoils one pass of each, not every
            # pass of one. Each core's measurements run with that core in use.
            times: dict[tuple[str, str], list[float]] = {}
            # each measurement is one pass returning the seconds it spent in the timed code

            def timing(run: Callable[[], Any]) -> Callable[[], float]:
                return lambda: timed(1, run)

            measured: list[tuple[str, Callable[[], float], int]] = [
                ("engine", lambda: passes(1, engine_seconds, phases)[0], args.repeats),  # fresh positions, untimed
                ("adjudicate", timing(lambda: cli.adjudicate_command(str(cases_path))), args.repeats),
                ("indented", timing(lambda: cli.adjudicate_command(str(cases_path), 1)), max(1, args.repeats // 2)),
                ("convert", timing(lambda: [convert_command.run(a) for a in convert_args]), args.repeats),
                ("files", timing(lambda: [convert_command.run(a) for a in files_args]), args.repeats),
                ("back", timing(lambda: [convert_command.run(a) for a in back_args]), args.repeats),
            ]
            # with the pure-Python core alone, as a process without the compiled module runs (the
            # compiled core is that module): the commands, their readers and writers in Python
            unloaded: list[tuple[str, Callable[[], float], int]] = [
                ("adjudicate, no module", timing(lambda: cli.adjudicate_command(str(cases_path))), args.repeats),
                ("convert, no module", timing(lambda: [convert_command.run(a) for a in convert_args]), args.repeats),
            ]
            theirs: list[tuple[str, Callable[[], float], int]] = [
                ("process", lambda: passes(1, process_seconds, games)[0], their_repeats),  # orders set, untimed
                ("package", timing(package_round_trip), their_repeats),
            ]
            with contextlib.redirect_stderr(io.StringIO()):
                for round_number in range(args.repeats):
                    for core in cores:
                        with core_in_use(core):
                            for name, one_pass, rounds in measured:
                                if round_number < rounds:
                                    times.setdefault((core, name), []).append(one_pass())
                        if core == PURE:
                            with _native.without_module():
                                for name, one_pass, rounds in unloaded:
                                    if round_number < rounds:
                                        times.setdefault((core, name), []).append(one_pass())
                    for name, one_pass, rounds in theirs:
                        if round_number < rounds:
                            times.setdefault(("", name), []).append(one_pass())
        best = {key: min(values) for key, values in times.items()}
        marked = sum(1 for path in ours_paths for phase in json.loads(path.read_text())["phases"] if "note" in phase)
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "detente", "adjudicate", str(cases_path)],
            stdout=subprocess.DEVNULL,
            check=True,
        )
        process_wall = time.perf_counter() - start
        size = cases_path.stat().st_size

    process, package_seconds = best[("", "process")], best[("", "package")]

    def rate(seconds: float) -> str:
        return f"{n / seconds:>10,.0f}"

    print(f"{'measurement':<44} {'phases/s':>10} {'vs process()':>13}")
    print("-" * 69)
    print(f"{'diplomacy Game.process() (bare)':<44} {rate(process)} {'1.0x':>13}")
    for core in cores:
        print(f"-- {core} core")
        for label, name in (
            ("engine alone: adjudicate()", "engine"),
            ("detente adjudicate, end to end", "adjudicate"),
            ("  the same with --indent 1", "indented"),
            ("detente convert MILA -> detente", "convert"),
            ("  the same, each to a file of its own", "files"),
            ("detente convert detente -> MILA", "back"),
        ):
            seconds = best[(core, name)]
            print(f"{label:<44} {rate(seconds)} {process / seconds:>12.1f}x")
        if (core, "convert, no module") in best:
            print("-- pure Python core, the compiled module not loaded (no compiler, DETENTE_PURE_PYTHON=1)")
            for label, name in (
                ("detente adjudicate, end to end", "adjudicate, no module"),
                ("detente convert MILA -> detente", "convert, no module"),
            ):
                seconds = best[(core, name)]
                print(f"{label:<44} {rate(seconds)} {process / seconds:>12.1f}x")
    print(f"{'diplomacy load + save (same files)':<44} {rate(package_seconds)} {process / package_seconds:>12.1f}x")
    print()
    print(f"goal of issue 18: end to end, at least {SHARE} of the engine-alone ratio, whichever core")
    for core in cores:
        engine_ratio = process / best[(core, "engine")]
        print(f"  {core} core: engine alone {engine_ratio:.1f}x, goal {SHARE * engine_ratio:.1f}x")
        for label, name in (("detente adjudicate", "adjudicate"), ("detente convert (MILA -> detente)", "convert")):
            ratio = process / best[(core, name)]
            share = ratio / engine_ratio
            verdict = "met" if share >= SHARE else "NOT met"
            print(f"    {label:<34} {ratio:>5.1f}x = {share:.3f} of the engine ratio: {verdict}")
        ratio = process / best[(core, "files")]
        print(
            f"    {'  (each to a file of its own)':<34} {ratio:>5.1f}x = {ratio / engine_ratio:.3f} of the engine ratio"
        )
        if (core, "convert, no module") in best:
            print("    without the compiled module (a pure-Python install):")
            for label, name in (
                ("detente adjudicate", "adjudicate, no module"),
                ("detente convert", "convert, no module"),
            ):
                ratio = process / best[(core, name)]
                share = ratio / engine_ratio
                print(
                    f"    {label:<34} {ratio:>5.1f}x = {share:.3f} of the engine ratio: {'met' if share >= SHARE else 'NOT met'}"
                )
    print(f"goal of issue 19: detente adjudicate end to end at least {ISSUE_19}x process()")
    for core in cores:
        ratio = process / best[(core, "adjudicate")]
        print(f"  {core} core: {ratio:.1f}x: {'met' if ratio >= ISSUE_19 else 'NOT met'}")
    convert_seconds = best[(cores[0], "convert")]
    print(f"convert ({cores[0]} core) against the package's own load + save: {package_seconds / convert_seconds:.1f}x")
    print()
    core, per_second = _native.active_core(), n / process_wall
    print(f"the cases file is {size / 1e6:.1f} MB; one detente adjudicate process on it ({core} core),")
    print(
        f"with the interpreter's start-up and imports, takes {process_wall:.2f} s wall-clock"
        f" ({per_second:,.0f} phases/s)"
    )
    print(f"{marked} of {n} phases read from MILA are marked as adjudicated differently (DATC v3.0)")
    print(f"\nwhole run {time.perf_counter() - began:.1f} s")
    keep(args, n, cores, best, process, package_seconds)
    return 0


LABELS = {
    "engine": "engine alone: adjudicate()",
    "adjudicate": "detente adjudicate, end to end",
    "indented": "  the same with --indent 1",
    "convert": "detente convert MILA -> detente",
    "files": "  the same, each to a file of its own",
    "back": "detente convert detente -> MILA",
    "adjudicate, no module": "detente adjudicate, compiled module not loaded",
    "convert, no module": "detente convert, compiled module not loaded",
}


def keep(args: argparse.Namespace, n: int, cores: Sequence[str], best: dict[tuple[str, str], float],
         process: float, package: float) -> None:  # fmt: skip
    """The run's figures as a record (benchmarks/results/json_path.json): each beside the
    diplomacy package's Game.process(), issue 18's and 19's goals, and the record it replaces."""
    rates = {key: n / seconds for key, seconds in best.items()}
    rates[("", "process")], rates[("", "package")] = n / process, n / package
    before, before_date = kept_ratios()
    note = (f"{n} phases of {args.games} seeded random games; the fastest of {args.repeats} passes, CPU time of the"
            f" process; diplomacy {their_version()}. Share: the ratio over that core's engine-alone ratio (issue 18's"
            f" goal: {SHARE})."
            + (f" Before: the ratios of the record this run replaced ({before_date})." if before_date else ""))  # fmt: skip
    command = "benchmarks/json_path.py" + (" --quick" if args.quick else "")
    write(record("json_path", "The JSON path against the engine, against the diplomacy package", command, n,
                 [Table("Phases per second", COLUMNS, record_rows(rates, cores, before), note)],
                 seeds=[args.seed]))  # fmt: skip


COLUMNS = (Column("core", "core"), Column("measurement", "measurement"), Column("rate", "phases/s", True),
           Column("ratio", "vs process()", True), Column("share", "share of the engine ratio", True),
           Column("before", "vs process() before", True), Column("goal", "goal (issue 18)"), Column("met", "met"),
           Column("met_19", f"issue 19: >= {ISSUE_19:g}x"))  # fmt: skip


def record_rows(rates: dict[tuple[str, str], float], cores: Sequence[str],
                before: dict[tuple[str, str], float]) -> list[dict[str, Any]]:  # fmt: skip
    """The record's rows from phases a second by (core, measurement); ``("", "process")`` and
    ``("", "package")`` are the diplomacy package's."""
    process = rates[("", "process")]
    rows = [{"core": "", "measurement": "diplomacy Game.process() (bare), the reference", "rate": round(process),
             "ratio": 1.0}]  # fmt: skip
    for core in cores:
        engine_ratio = rates[(core, "engine")] / process
        for name, label in LABELS.items():
            if (core, name) not in rates:
                continue
            ratio = rates[(core, name)] / process
            row: dict[str, Any] = {"core": core, "measurement": label, "rate": round(rates[(core, name)]),
                                   "ratio": round(ratio, 1), "before": before.get((core, label))}  # fmt: skip
            if name in ("adjudicate", "convert", "files", "adjudicate, no module", "convert, no module"):
                row["share"] = round(ratio / engine_ratio, 2)
            if name in ("adjudicate", "convert", "adjudicate, no module", "convert, no module"):
                row["goal"] = f">= {SHARE * engine_ratio:.1f}x ({SHARE} of the engine's)"
                row["met"] = ratio >= SHARE * engine_ratio
            if name == "adjudicate":
                row["met_19"] = ratio >= ISSUE_19
            rows.append(row)
    package = rates[("", "package")]
    rows.append({"core": "", "measurement": "diplomacy load + save of the same files", "rate": round(package),
                 "ratio": round(package / process, 1), "before": before.get(("", "diplomacy load + save of the same files"))})  # fmt: skip
    return rows


def kept_ratios() -> tuple[dict[tuple[str, str], float], str | None]:
    """The ratios to process() of the record kept before this run, by (core, measurement), and its date."""
    kept = results.kept("json_path")
    if not kept:
        return {}, None
    ratios = {(row["core"], row["measurement"]): row["ratio"] for table in kept["tables"] for row in table["rows"]
              if row.get("ratio") is not None}  # fmt: skip
    return ratios, kept.get("date", "")[:10] or None


@contextlib.contextmanager
def core_in_use(core: str) -> Iterator[None]:
    """Run the block on ``core`` (``COMPILED`` or ``PURE``)."""
    with _native.pure_python(core == PURE):
        yield


if __name__ == "__main__":
    sys.exit(main())

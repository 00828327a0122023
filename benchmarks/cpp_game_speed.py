"""How much slower is a game of seven C++ DumbBots on our server than the same game in process?

Issue 32 measured a game of seven of Norman's C++ DumbBots (``detente run --bots
daide:PATH``: a game server of its own on loopback, the bots over DAIDE TCP) at 3.6 s where
the same game of seven of our DumbBots in process took 0.26 s (14×), and set the goal: within
2×. For each seed, the game is played both ways with the same settings (``--year-limit``,
1910 by default), one after the other; the median seconds of each, and their ratio, are printed
beside the issue's figures. Then one more game of C++ bots is played under ``cProfile`` and
the server's time in it is summed by stage (the DAIDE framing and encoding, parsing, the
referee and the engine, the store, the websocket observer, the event loop), in milliseconds a
phase::

    DETENTE_DAIDE_CLIENT=PATH .venv/bin/python benchmarks/cpp_game_speed.py [--games 5]

(``benchmarks/build_daide_client.sh`` builds the bot.) Written to
``benchmarks/results/cpp_game_speed.json`` (``docs/results/cpp_game_speed.md``).
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import resource
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.machine import describe
from benchmarks.results import Column, Table, record, write
from bots.inprocess import GameSetup, play_game
from detente.daide_game import play_daide_game
from referee.settings import GameSettings

BEFORE = {"cpp": 3.6, "inprocess": 0.26, "ratio": 14.0}
GOAL = 2.0
#: Where a function's own time goes, by the first prefix of its file that matches (else "other").
STAGES: tuple[tuple[str, str], ...] = (
    ("server/daide_tcp", "DAIDE TCP: framing, encoding, writing"),
    ("protocol/daide/framing", "DAIDE TCP: framing, encoding, writing"),
    ("protocol/daide/tokens", "DAIDE TCP: framing, encoding, writing"),
    ("lark/", "parsing (Lark)"),
    ("protocol/daide", "parsing and formatting DAIDE"),
    ("engine/", "the engine"),
    ("referee/", "the referee"),
    ("server/store", "the store (SQLite)"),
    ("server/writer", "the store (SQLite)"),
    ("sqlite3", "the store (SQLite)"),
    ("websockets/", "websockets (the observer)"),
    ("detente/daide_game", "the observer"),
    ("asyncio/", "the event loop (its waits included)"),
    ("selectors", "the event loop (its waits included)"),
    ("server/", "the rest of the server"),
)


def binary() -> str:
    path = os.environ.get("DETENTE_DAIDE_CLIENT")
    if not path:
        raise SystemExit("set DETENTE_DAIDE_CLIENT to the C++ DumbBot (benchmarks/build_daide_client.sh builds it)")
    found = Path(path)
    for candidate in (found, found / "dumbbot", found / "bin" / "dumbbot"):
        if candidate.is_file():
            return str(candidate.resolve())
    raise SystemExit(f"DETENTE_DAIDE_CLIENT={path} is not the DumbBot binary")


def timed(play: object, setup: GameSetup) -> tuple[float, int]:
    started = time.perf_counter()
    played = play(setup)  # type: ignore[operator]
    return time.perf_counter() - started, len(played.phases)


def children_cpu() -> float:
    """CPU seconds of this process's children that have ended: the C++ bots of a game played."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _stage(filename: str) -> str | None:
    """The stage of a file, None for C code (builtins: charged to their callers)."""
    if filename == "~" or filename.startswith("<"):
        return None
    path = filename.replace(os.sep, "/")
    return next((name for prefix, name in STAGES if prefix in path), "other")


def stages(profile: cProfile.Profile) -> dict[str, float]:
    """Seconds of own time by stage: a function's by its file (the first prefix that matches), a
    builtin's by the files of its callers, in the shares they called it for."""
    totals: dict[str, float] = {}
    for (filename, _, _), (_, _, own, _, callers) in pstats.Stats(profile).stats.items():  # type: ignore[attr-defined]
        stage = _stage(filename)
        if stage is not None or not callers:
            totals[stage or "other"] = totals.get(stage or "other", 0.0) + own
            continue
        for (caller_file, _, _), (_, _, from_caller, _) in callers.items():
            name = _stage(caller_file) or "other"
            totals[name] = totals.get(name, 0.0) + from_caller
    return totals


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=5, help="games each way")
    parser.add_argument("--year-limit", type=int, default=1910)
    parser.add_argument("--seed", type=int, default=32)
    args = parser.parse_args()
    cpp = f"daide:{binary()}"
    settings = GameSettings(year_limit=args.year_limit)
    print(f"seven C++ DumbBots on our server against seven of ours in process, to {args.year_limit}; {describe()}")
    seeds = [args.seed + n for n in range(args.games)]
    cpp_s, ours_s, phases, bots_cpu = [], [], [], []
    for seed in seeds:
        before = children_cpu()
        seconds, count = timed(play_daide_game, GameSetup(seed, (cpp,) * 7, settings))
        bots_cpu.append(children_cpu() - before)
        cpp_s.append(seconds)
        phases.append(count)
        ours_s.append(timed(play_game, GameSetup(seed, ("dumbbot",) * 7, settings))[0])
        print(f"  seed {seed}: C++ {cpp_s[-1]:.2f} s ({count} phases), in process {ours_s[-1]:.3f} s")
    cpp_median, ours_median = statistics.median(cpp_s), statistics.median(ours_s)
    ratio = cpp_median / ours_median
    # the seven bots' own CPU, shared by the machine's cores, is a floor no server can go under
    cores = os.cpu_count() or 1
    bots_median = statistics.median(bots_cpu)
    floor = bots_median / cores

    profile = cProfile.Profile()
    profile.enable()
    profiled = play_daide_game(GameSetup(seeds[0], (cpp,) * 7, settings))
    profile.disable()
    sent = sum(1 for _ in profiled.phases) or 1
    by_stage = stages(profile)
    total = sum(by_stage.values())

    rows = [
        {"what": "seven C++ DumbBots, our server (median s)", "value": round(cpp_median, 3), "before": BEFORE["cpp"],
         "goal": None},
        {"what": "seven of our DumbBots in process (median s)", "value": round(ours_median, 3),
         "before": BEFORE["inprocess"], "goal": None},
        {"what": "ratio", "value": round(ratio, 2), "before": BEFORE["ratio"], "goal": f"<= {GOAL:g}",
         "met": ratio <= GOAL},
        {"what": "the seven C++ bots' own CPU (median s)", "value": round(bots_median, 3), "before": None,
         "goal": None},
        {"what": f"... over {cores} cores: the floor (s)", "value": round(floor, 3), "before": None, "goal": None},
        {"what": "the floor's ratio to in process", "value": round(floor / ours_median, 2), "before": None,
         "goal": None},
    ]  # fmt: skip
    print(f"{'what':<46} {'now':>8} {'before':>8} {'goal':>6}")
    for row in rows:
        print(f"{row['what']:<46} {row['value']:>8} {row['before'] or '':>8} {row.get('goal') or '':>6}")
    stage_rows = [
        {"stage": name, "seconds": round(seconds, 3), "share": round(100 * seconds / total, 1),
         "per_phase_ms": round(1000 * seconds / sent, 2)}
        for name, seconds in sorted(by_stage.items(), key=lambda kv: -kv[1])
    ]  # fmt: skip
    print(f"where the time of one game of C++ bots goes (cProfile, own time, {sent} phases):")
    for row in stage_rows:
        print(
            f"  {row['stage']:<42} {row['seconds']:>7.3f} s {row['share']:>5.1f} % {row['per_phase_ms']:>7.2f} ms/phase"
        )
    columns = [Column("what", "what"), Column("value", "now", True), Column("before", "before (issue 32)", True),
               Column("goal", "goal"), Column("met", "met")]  # fmt: skip
    stage_columns = [Column("stage", "stage"), Column("seconds", "seconds", True), Column("share", "%", True),
                     Column("per_phase_ms", "ms a phase", True)]  # fmt: skip
    note = (f"{args.games} games each way, seeds {seeds[0]}-{seeds[-1]}, to {args.year_limit}, one after the other;"
            f" {statistics.median(phases):.0f} phases a game (median). The bots' own CPU is that of the seven"
            " C++ processes (RUSAGE_CHILDREN); shared perfectly by the machine's cores, with a server that costs"
            " nothing, a game could not take less than the floor. The C++ bots seed themselves from the clock:"
            " their games differ from ours, seed for seed.")  # fmt: skip
    stage_note = "One more game of C++ bots under cProfile (which slows Python, not the C++ bots): own time by file."
    path = write(record("cpp_game_speed", "Seven C++ DumbBots on our server, against the same game in process",
                        "benchmarks/cpp_game_speed.py", args.games,
                        [Table("Seconds a game", columns, rows, note),
                         Table("Where the time goes", stage_columns, stage_rows, stage_note)], seeds=seeds))  # fmt: skip
    print(f"written to {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

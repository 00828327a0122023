"""How fast and how strong are the bots, in process? Games per minute and a strength table.

Speed: seven DumbBots play seeded games to 1920 in process (:func:`bots.inprocess.play_game`:
the server's game master and seven bot sessions, no sockets), first one game after the
other in this process, then on two worker processes; the same for seven HoldBots and
seven RandomBots, one job. The goal of issue 6 is a whole DumbBot game in under 2 seconds
on one core of the 2-core reference machine; the D-Brane paper needed 4.5 hours for 500
games, 32.4 seconds a game.

The 60 ms goal (issue 19): the CPU time of one 7-DumbBot game to 1920 on one core, the best
of three rounds of the same seeded games (the other jobs of a shared machine only ever add
to it), and where it goes: a statistical profile (the process's CPU clock interrupts it
every millisecond, or every tick of the kernel if that is longer; each sample counts for
the innermost frame of ``engine/``, ``bots/dumbbot.py``, the game master's ``referee/``
modules, ``bots/session.py`` or the message path, ``referee/table.py`` and
``bots/inprocess.py``; the DAIDE conversions of ``protocol/`` count for their caller). The
shares are of three more runs of the same games, applied to the time measured.

Strength: one DumbBot against six RandomBots, and against six HoldBots, 200 seeded games
each (two jobs). A win is the most centres at the end, shared by a tie (the scoring of
``detente run``); the goal is at least 90% of the games.

    .venv/bin/python benchmarks/bot_games.py                     # a few minutes
    .venv/bin/python benchmarks/bot_games.py --games 20 --speed-games 5   # a quick look
    .venv/bin/python benchmarks/bot_games.py --goal-only          # the 60 ms goal and its breakdown

The figures go to ``benchmarks/results/bot_games.json`` (the record of ``benchmarks/results.py``:
each figure beside its goal and the kept figure it replaces) and ``docs/results/bot_games.md``;
``--goal-only`` writes a record of the 60 ms goal alone.
"""

from __future__ import annotations

import argparse
import gc
import signal
import statistics
import sys
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import results
from benchmarks.machine import print_header
from benchmarks.results import Column, Table, record, write
from bots.inprocess import GameSetup, play_game, seeds_for
from detente.experiments import score_game
from engine import _native
from referee.settings import GameSettings

GOAL_SECONDS = 2.0
GOAL_CPU_SECONDS = 0.060  # issue 19: one 7-DumbBot game to 1920 on one core
DBRANE_SECONDS = 4.5 * 3600 / 500
GOAL_WINS = 0.90

#: Where a sample counts, by the file of the innermost frame that says (``protocol/`` never does).
PARTS = {
    "bots/dumbbot.py": "DumbBot",
    "bots/session.py": "sessions",
    "referee/table.py": "message path",
    "bots/inprocess.py": "message path",
}
ORDER = ("engine", "DumbBot", "game master", "sessions", "message path", "elsewhere")


def _play(setup: GameSetup) -> tuple[float, float, str]:
    """One game: (the DumbBot's share of the win, whether it won alone, its power) of slot 0's bot."""
    record = play_game(setup)
    scores = {s.power: s for s in score_game(record.final_centres, record.eliminated, record.bots)}
    power = next(p for p, name in record.bots.items() if name == setup.bots[0])
    return scores[power].win, float(record.winner == power), power


def _phases(setup: GameSetup) -> int:
    """Play one game; only its length comes back (a record would cost its pickling)."""
    return len(play_game(setup).phases)


def _games(bots: Sequence[str], count: int, seed: int, year_limit: int = 1920) -> list[GameSetup]:
    return [GameSetup(s, tuple(bots), GameSettings(year_limit=year_limit)) for s in seeds_for(seed, count)]


def _time_sequential(setups: Sequence[GameSetup]) -> tuple[float, float]:
    """Wall and CPU seconds to play ``setups`` one after the other in this process."""
    gc.collect()
    wall, cpu = time.perf_counter(), time.process_time()
    for setup in setups:
        play_game(setup)
    return time.perf_counter() - wall, time.process_time() - cpu


def _time_parallel(setups: Sequence[GameSetup], jobs: int) -> float:
    """Wall seconds to play ``setups`` on ``jobs`` worker processes (their start included)."""
    wall = time.perf_counter()
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for _ in pool.map(_phases, setups):
            pass
    return time.perf_counter() - wall


def speed(count: int, seed: int) -> list[dict[str, Any]]:
    """Print the speed lines; their rows."""
    rows: list[dict[str, Any]] = []
    print(f"speed: seeded games to 1920 in process ({count} games each)")
    print(
        f"{'bots':<12} {'jobs':>4} {'games/min':>10} {'s/game':>7} {'cpu s/game':>10}  goal {GOAL_SECONDS:.0f} s/game"
    )
    play_game(_games(["dumbbot"] * 7, 1, seed + 1)[0])  # warm the caches (maps, tables) outside the timing
    one_core = 0.0
    for name in ("holdbot", "randombot", "dumbbot"):
        setups = _games([name] * 7, count, seed)
        wall, cpu = _time_sequential(setups)
        per_game = wall / count
        verdict = ""
        if name == "dumbbot":
            one_core = per_game
            verdict = "met" if per_game < GOAL_SECONDS else "not met"
        print(f"{name:<12} {1:>4} {60 / per_game:>10.1f} {per_game:>7.3f} {cpu / count:>10.3f}  {verdict}")
        rows.append(
            {
                "bots": name,
                "jobs": 1,
                "games_per_min": round(60 / per_game, 1),
                "s_per_game": round(per_game, 3),
                "cpu_s_per_game": round(cpu / count, 3),
            }
        )
        if name == "dumbbot":
            rows[-1].update(
                goal=f"< {GOAL_SECONDS:g} s",
                met=per_game < GOAL_SECONDS,
                reference=f"the D-Brane paper: {DBRANE_SECONDS:.1f} s a game ({DBRANE_SECONDS / per_game:.0f}x)",
            )
    wall = _time_parallel(_games(["dumbbot"] * 7, count, seed), 2)
    print(f"{'dumbbot':<12} {2:>4} {60 * count / wall:>10.1f} {wall / count:>7.3f} {'-':>10}")
    rows.append(
        {
            "bots": "dumbbot",
            "jobs": 2,
            "games_per_min": round(60 * count / wall, 1),
            "s_per_game": round(wall / count, 3),
        }
    )
    print(
        f"a DumbBot game on one core: {one_core:.3f} s; the D-Brane paper: {DBRANE_SECONDS:.1f} s a game"
        f" ({DBRANE_SECONDS / one_core:.0f} times as long)"
    )
    print()
    return rows


def _part(frame: FrameType | None) -> str:
    """The part of a game a sample of the stack from ``frame`` outwards counts for."""
    root = f"{ROOT}/"
    while frame is not None:
        name = frame.f_code.co_filename
        if name.startswith(root):
            path = name[len(root) :]
            if path.startswith("engine/"):
                return "engine"
            if path in PARTS:
                return PARTS[path]
            if path.startswith("referee/"):
                return "game master"  # order checking (referee/orders.py) included
        frame = frame.f_back
    return "elsewhere"


def _profile(setups: Sequence[GameSetup], interval: float = 0.001) -> Counter[str]:
    """Samples of the CPU time of ``setups`` played one after the other, by part (see the module)."""
    samples: Counter[str] = Counter()

    def sample(signum: int, frame: FrameType | None) -> None:
        samples[_part(frame)] += 1

    previous = signal.signal(signal.SIGPROF, sample)
    signal.setitimer(signal.ITIMER_PROF, interval, interval)
    try:
        for setup in setups:
            play_game(setup)
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0, 0)
        signal.signal(signal.SIGPROF, previous)
    return samples


def goal_60ms(count: int, seed: int) -> dict[str, Any]:
    """The CPU time of a 7-DumbBot game on one core against the 60 ms goal, and its breakdown
    (printed; returned as ``cpu_ms``, ``parts`` of (part, ms, share), ``samples``, ``core``, ``spread``)."""
    setups = _games(["dumbbot"] * 7, count, seed)
    print(f"the 60 ms goal: seven DumbBots to 1920 on one core ({count} games, best of 3 rounds each)")
    spread = "compiled C" if _native.compiled_module("_graph") is not None else "pure Python"
    print(f"engine core: {_native.active_core()}; DumbBot's sweeps (engine.graph.spread): {spread}")
    play_game(_games(["dumbbot"] * 7, 1, seed + 1)[0])  # warm the caches outside the timing
    best = [float("inf")] * count
    for _ in range(3):
        for i, setup in enumerate(setups):
            gc.collect()
            cpu = time.process_time()
            play_game(setup)
            best[i] = min(best[i], time.process_time() - cpu)
    per_game = statistics.fmean(best)
    verdict = "met" if per_game <= GOAL_CPU_SECONDS else "not met"
    print(f"cpu per game: {1000 * per_game:.1f} ms  goal {1000 * GOAL_CPU_SECONDS:.0f} ms  {verdict}")
    found: dict[str, Any] = {
        "cpu_ms": 1000 * per_game,
        "parts": [],
        "samples": 0,
        "core": str(_native.active_core()),
        "spread": spread,
    }
    if not hasattr(signal, "setitimer"):
        print("(no breakdown: this platform has no CPU-time interval timer)")
        print()
        return found
    samples = _profile([*setups] * 3)
    total = sum(samples.values()) or 1
    print(f"{'part':<14} {'ms/game':>8} {'share':>6}   ({total} samples of the CPU clock)")
    for part in ORDER:
        share = samples[part] / total
        print(f"{part:<14} {1000 * per_game * share:>8.1f} {100 * share:>5.1f}%")
        found["parts"].append((part, 1000 * per_game * share, share))
    found["samples"] = sum(samples.values())
    print()
    return found


def strength(count: int, seed: int, jobs: int) -> list[dict[str, Any]]:
    """Print the strength lines; their rows."""
    rows: list[dict[str, Any]] = []
    print(f"strength: one DumbBot against six others, {count} games each, to 1920")
    print(f"{'opponents':<12} {'games':>5} {'wins':>7} {'win %':>6} {'solo %':>7} {'powers':>6}  goal {GOAL_WINS:.0%}")
    for opponent in ("randombot", "holdbot"):
        setups = _games(["dumbbot", *[opponent] * 6], count, seed)
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            results = list(pool.map(_play, setups, chunksize=4))
        wins = sum(win for win, _, _ in results)
        solos = statistics.fmean(solo for _, solo, _ in results)
        powers = len({power for _, _, power in results})
        verdict = "met" if wins / count >= GOAL_WINS else "not met"
        print(
            f"6 {opponent + 's':<10} {count:>5} {wins:>7.1f} {100 * wins / count:>6.1f} {100 * solos:>7.1f}"
            f" {powers:>6}  {verdict}"
        )
        rows.append(
            {
                "opponents": f"6 {opponent}s",
                "games": count,
                "wins": round(wins, 1),
                "win_pct": round(100 * wins / count, 1),
                "solo_pct": round(100 * solos, 1),
                "powers": powers,
                "goal": f">= {GOAL_WINS:.0%}",
                "met": wins / count >= GOAL_WINS,
            }
        )
    print("wins: most centres at the end, a tie shared; powers: how many of the seven the DumbBot played")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="games per strength match (200)")
    parser.add_argument("--speed-games", dest="speed_games", type=int, default=20, help="games per speed line (20)")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes for the strength table (2)")
    parser.add_argument("--goal-games", dest="goal_games", type=int, default=5, help="games of the 60 ms goal (5)")
    parser.add_argument("--seed", type=int, default=2026, help="the seed of every game")
    parser.add_argument("--goal-only", dest="goal_only", action="store_true", help="only the 60 ms goal and breakdown")
    args = parser.parse_args()
    print_header("bot games in process")
    goal = goal_60ms(args.goal_games, args.seed)
    speed_rows = [] if args.goal_only else speed(args.speed_games, args.seed)
    strength_rows = [] if args.goal_only else strength(args.games, args.seed, args.jobs)
    before = Kept()
    tables = [goal_table(goal["cpu_ms"], args.goal_games, before), parts_table(goal["parts"], before)]
    if not args.goal_only:
        tables += [speed_table(speed_rows, args.speed_games, before), strength_table(strength_rows, before)]
    n = args.goal_games + (0 if args.goal_only else 4 * args.speed_games + 2 * args.games)
    path = write(
        record(
            "bot_games",
            TITLE,
            " ".join([".venv/bin/python", "benchmarks/bot_games.py", *sys.argv[1:]]),
            n,
            tables,
            seeds=[args.seed],
            notes=run_notes(args.goal_only),
            data={
                "goal_games": args.goal_games,
                "speed_games": args.speed_games,
                "games": args.games,
                "jobs": args.jobs,
                "goal_only": args.goal_only,
                "engine_core": goal["core"],
                "sweeps": goal["spread"],
                "samples": goal["samples"],
            },
        )
    )
    print(f"written to {path}")


TITLE = "Bot games in process: the 60 ms game, games per minute, DumbBot's strength"
GOAL_TITLE, PARTS_TITLE, SPEED_TITLE, STRENGTH_TITLE = (
    "The 60 ms goal",
    "Where the time goes",
    "Speed",
    "Strength",
)
GOAL_COLUMNS = (
    Column("figure", "figure"),
    Column("value", "ms", True),
    Column("before", "before ms", True),
    Column("goal", "goal"),
    Column("met", "goal met"),
)
PARTS_COLUMNS = (
    Column("part", "part"),
    Column("ms", "ms/game", True),
    Column("share", "share %", True),
    Column("before", "before ms", True),
)
SPEED_COLUMNS = (
    Column("bots", "bots (seven)"),
    Column("jobs", "jobs", True),
    Column("games_per_min", "games/min", True),
    Column("s_per_game", "s/game", True),
    Column("cpu_s_per_game", "cpu s/game", True),
    Column("before", "s/game before", True),
    Column("goal", "goal"),
    Column("met", "goal met"),
    Column("reference", "reference"),
)
STRENGTH_COLUMNS = (
    Column("opponents", "DumbBot against"),
    Column("games", "games", True),
    Column("wins", "wins", True),
    Column("win_pct", "win %", True),
    Column("solo_pct", "solo %", True),
    Column("powers", "powers", True),
    Column("before", "win % before", True),
    Column("solo_before", "solo % before", True),
    Column("goal", "goal"),
    Column("met", "goal met"),
)


class Kept:
    """The kept record's rows, by table title: where the figures before come from."""

    def __init__(self) -> None:
        kept = results.kept("bot_games")
        self.tables = {t["title"]: t["rows"] for t in kept.get("tables", [])}

    def value(self, title: str, key: str, match: dict[str, Any]) -> Any:
        """``key`` of the first kept row of ``title`` whose fields equal ``match``."""
        for row in self.tables.get(title, []):
            if all(row.get(k) == v for k, v in match.items()):
                return row.get(key)
        return None


def goal_table(cpu_ms: float, games: int, before: Kept) -> Table:
    figure = f"CPU per game, seven DumbBots to 1920 on one core (best of 3 rounds of {games} games)"
    row = {
        "figure": figure,
        "value": round(cpu_ms, 1),
        "before": before.value(GOAL_TITLE, "value", {}),
        "goal": f"<= {1000 * GOAL_CPU_SECONDS:g} ms",
        "met": cpu_ms <= 1000 * GOAL_CPU_SECONDS,
    }
    return Table(GOAL_TITLE, GOAL_COLUMNS, [row], "Before: the kept figure this run replaced.")


def parts_table(parts: Sequence[tuple[str, float, float]], before: Kept) -> Table:
    rows = [
        {
            "part": part,
            "ms": round(ms, 1),
            "share": round(100 * share, 1),
            "before": before.value(PARTS_TITLE, "ms", {"part": part}),
        }
        for part, ms, share in parts
    ]
    return Table(
        PARTS_TITLE,
        PARTS_COLUMNS,
        rows,
        "A statistical profile of the CPU clock over three more rounds of the same games: each sample counts for"
        " the innermost frame of `engine/`, `bots/dumbbot.py`, the game master's `referee/` modules,"
        " `bots/session.py`, or the message path (`referee/table.py`, `bots/inprocess.py`); the shares applied to"
        " the time measured.",
    )


def speed_table(rows: list[dict[str, Any]], games: int, before: Kept) -> Table:
    for row in rows:
        row["before"] = before.value(SPEED_TITLE, "s_per_game", {"bots": row["bots"], "jobs": row["jobs"]})
    return Table(
        SPEED_TITLE,
        SPEED_COLUMNS,
        rows,
        f"Seeded games to 1920 in process, {games} a line, one after the other (1 job) or on two worker"
        " processes (their start included).",
    )


def strength_table(rows: list[dict[str, Any]], before: Kept) -> Table:
    for row in rows:
        row["before"] = before.value(STRENGTH_TITLE, "win_pct", {"opponents": row["opponents"]})
        row["solo_before"] = before.value(STRENGTH_TITLE, "solo_pct", {"opponents": row["opponents"]})
    return Table(
        STRENGTH_TITLE,
        STRENGTH_COLUMNS,
        rows,
        "A win: the most centres at the end, a tie shared (the scoring of `detente run`); powers: how many of the"
        " seven the DumbBot played.",
    )


def run_notes(goal_only: bool) -> list[str]:
    return [
        (
            "In process (`bots.inprocess.play_game`: the server's game master and seven bot sessions at a"
            " `referee.table.Table`, no sockets). Goals: a 7-DumbBot game to 1920 in 60 ms of CPU on one core"
            " (issue 19) and in under 2 s of wall time (issue 6); one DumbBot wins at least 90% of its games"
            " against six RandomBots and against six HoldBots. n: the games measured (the goal's, the speed lines',"
            " the strength matches')." + (" `--goal-only`: the 60 ms goal alone." if goal_only else "")
        )
    ]


if __name__ == "__main__":
    main()

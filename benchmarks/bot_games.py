#!/usr/bin/env python
"""How fast and how strong are the bots, in process? Games per minute and a strength table.

Speed: seven DumbBots play seeded games to 1920 in process (:func:`bots.inprocess.play_game`:
the server's game master and seven bot sessions, no sockets), first one game after the
other in this process, then on two worker processes; the same for seven HoldBots and
seven RandomBots, one job. The goal of issue 6 is a whole DumbBot game in under 2 seconds
on one core of the 2-core reference machine; the D-Brane paper needed 4.5 hours for 500
games, 32.4 seconds a game.

Strength: one DumbBot against six RandomBots, and against six HoldBots, 200 seeded games
each (two jobs). A win is the most centres at the end, shared by a tie (the scoring of
``detente run``); the goal is at least 90% of the games.

    .venv/bin/python benchmarks/bot_games.py                     # a few minutes
    .venv/bin/python benchmarks/bot_games.py --games 20 --speed-games 5   # a quick look
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor

from machine import print_header

from bots.inprocess import GameSetup, play_game, seeds_for
from detente.experiments import score_game
from referee.settings import GameSettings

GOAL_SECONDS = 2.0
DBRANE_SECONDS = 4.5 * 3600 / 500
GOAL_WINS = 0.90


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


def speed(count: int, seed: int) -> None:
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
    wall = _time_parallel(_games(["dumbbot"] * 7, count, seed), 2)
    print(f"{'dumbbot':<12} {2:>4} {60 * count / wall:>10.1f} {wall / count:>7.3f} {'-':>10}")
    print(
        f"a DumbBot game on one core: {one_core:.3f} s; the D-Brane paper: {DBRANE_SECONDS:.1f} s a game"
        f" ({DBRANE_SECONDS / one_core:.0f} times as long)"
    )
    print()


def strength(count: int, seed: int, jobs: int) -> None:
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
    print("wins: most centres at the end, a tie shared; powers: how many of the seven the DumbBot played")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="games per strength match (200)")
    parser.add_argument("--speed-games", dest="speed_games", type=int, default=20, help="games per speed line (20)")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes for the strength table (2)")
    parser.add_argument("--seed", type=int, default=2026, help="the seed of every game")
    args = parser.parse_args()
    print_header("bot games in process")
    speed(args.speed_games, args.seed)
    strength(args.games, args.seed, args.jobs)


if __name__ == "__main__":
    main()

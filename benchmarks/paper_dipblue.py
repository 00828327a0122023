#!/usr/bin/env python
"""DipBlue's table 1 (Ferreira, Lopes Cardoso and Reis, ICAART 2015): the nine scenarios against our DumbBot.

Each scenario is a ``detente run`` experiment (:func:`detente.experiments.run_experiment`:
in-process games on worker processes, scored as ``detente run`` scores them): seven slots,
the last bot filling the rest, powers handed out by the seed, games to the end of 1920
(the paper states no year limit) or a solo. The paper played 70 games a scenario; here a
setting without negotiation gets 100 games and one with a negotiating bot 50 (``--games``
sets the first, the second is half of it). The DumbBot is ours, unchanged.

For every scenario and bot: the paper's figure where its text gives one (section 6.1: NoPress
4.3 in scenario 1, DipBlue 4.63 in scenario 2; DipBlue 3.57 in scenario 5, from its figure 4
as issue 7 quotes it), our mean rank (1 best, 7 worst) with its standard error, wins (the
most centres at the end, shared by a tie), final centres with standard error, and how many
times the bot played (a bot in two slots plays twice a game). The goal is a lower mean
rank than each figure of the paper. Then every ordering the paper's text states for the
other scenarios, with ours; then the time the games took, and DipBlue's own time per
phase, measured on a few games played in this process.

    .venv/bin/python benchmarks/paper_dipblue.py                 # several minutes on 2 cores
    .venv/bin/python benchmarks/paper_dipblue.py --games 20      # a quick look

Until the registry lists the DipBlue names, this script adds them (``bots.registry.BOTS``)
before the worker processes are forked.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import resource
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from machine import print_header

import bots.registry
from bots.base import Bot
from bots.dipblue import DipBlue, DipBlueNaive
from bots.dumbbot import DumbBot
from bots.inprocess import InProcessGame, seeds_for
from detente.experiments import Experiment, run_experiment, slots_from
from referee.settings import GameSettings

NAMES = {
    "dipblue": "bots.dipblue:DipBlue",
    "dipblue:nopress": "bots.dipblue:DipBlueNoPress",
    "dipblue:slave": "bots.dipblue:DipBlueSlave",
    "dipblue:naive": "bots.dipblue:DipBlueNaive",
}
LABEL = {"dipblue": "DipBlue", "dipblue:nopress": "NoPress", "dipblue:slave": "Slave", "dipblue:naive": "Naive"}
YEAR_LIMIT = 1920


@dataclass(frozen=True, slots=True)
class Scenario:
    """A row of table 1: its number, the slots as ``--bots`` gives them, and the paper's figures by bot."""

    number: int
    bots: tuple[str, ...]
    paper: dict[str, float]

    @property
    def negotiates(self) -> bool:
        return any(bots.registry.bot_class(name).negotiates for name in self.bots)

    def title(self) -> str:
        slots = slots_from(self.bots)
        counts = {name: slots.count(name) for name in dict.fromkeys(slots)}
        return " + ".join(f"{n}x {LABEL.get(name, 'DumbBot')}" for name, n in counts.items())


SCENARIOS = (
    Scenario(1, ("dipblue:nopress", "dumbbot"), {"dipblue:nopress": 4.30}),
    Scenario(2, ("dipblue", "dumbbot"), {"dipblue": 4.63}),
    Scenario(3, ("dipblue:slave", "dipblue:naive", "dumbbot"), {}),
    Scenario(4, ("dipblue:slave", "dipblue", "dumbbot"), {}),
    Scenario(5, ("dipblue:naive", "dipblue", "dumbbot"), {"dipblue": 3.57}),
    Scenario(6, ("dipblue", "dipblue", "dumbbot"), {}),
    Scenario(7, ("dipblue:nopress",), {}),
    Scenario(8, ("dipblue",), {}),
    Scenario(9, ("dipblue", "dipblue", "dipblue:nopress"), {}),
)

#: What section 6.1 says of the scenarios without a figure: (scenario, bot) ranks better than
#: (scenario, bot); "better" is a lower mean rank.
ORDERINGS: tuple[tuple[tuple[int, str], tuple[int, str], str], ...] = (
    ((1, "dumbbot"), (1, "dipblue:nopress"), "NoPress does worse than DumbBot"),
    ((1, "dipblue:nopress"), (2, "dipblue"), "DipBlue alone does worse than NoPress"),
    ((3, "dipblue:naive"), (1, "dipblue:nopress"), "Naive with a Slave gains on NoPress"),
    ((1, "dipblue:nopress"), (3, "dipblue:slave"), "the Slave with a Naive loses on NoPress"),
    ((4, "dipblue:slave"), (1, "dipblue:nopress"), "the Slave with DipBlue gains on NoPress"),
    ((4, "dipblue"), (1, "dipblue:nopress"), "DipBlue with a Slave beats NoPress"),
    ((4, "dipblue"), (3, "dipblue:naive"), "DipBlue with a Slave beats Naive with a Slave"),
    ((1, "dipblue:nopress"), (5, "dipblue:naive"), "Naive with DipBlue does worse than NoPress"),
    ((3, "dipblue:naive"), (5, "dipblue:naive"), "Naive with DipBlue does worse than with a Slave"),
    ((4, "dipblue:slave"), (5, "dipblue:naive"), "Naive with DipBlue does worse than the Slave with DipBlue"),
    ((5, "dipblue"), (4, "dipblue"), "DipBlue with a Naive: the best of all (than with a Slave)"),
    ((5, "dipblue"), (6, "dipblue"), "DipBlue with a Naive beats two DipBlues"),
    ((6, "dipblue"), (3, "dipblue:naive"), "two DipBlues beat Naive with a Slave"),
    ((6, "dipblue"), (1, "dipblue:nopress"), "two DipBlues beat NoPress"),
    ((9, "dipblue"), (9, "dipblue:nopress"), "two DipBlues beat five NoPress"),
    ((9, "dipblue"), (6, "dipblue"), "two DipBlues do better among NoPress than among DumbBots"),
)


@dataclass(frozen=True, slots=True)
class Row:
    """One bot over one scenario's games."""

    plays: int
    rank: float
    rank_se: float
    wins: float
    centres: float
    centres_se: float


def _se(values: Sequence[float]) -> float:
    return statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else math.nan


def play(scenario: Scenario, games: int, seed: int, jobs: int, out: Path) -> tuple[dict[str, Row], float, float]:
    """Play a scenario as ``detente run`` would; each bot's row, and the wall and CPU seconds it took
    (the CPU of this process and of the worker processes, which have ended when it returns)."""
    experiment = Experiment(slots_from(scenario.bots), games, seed, out, jobs, GameSettings(year_limit=YEAR_LIMIT))
    started, cpu = time.perf_counter(), _cpu()
    run_experiment(experiment)
    wall, cpu = time.perf_counter() - started, _cpu() - cpu
    scores: dict[str, list[dict[str, Any]]] = {}
    with open(out / "games.jsonl", encoding="utf-8") as lines:
        for line in lines:
            for score in json.loads(line)["scores"].values():
                scores.setdefault(score["bot"], []).append(score)
    rows = {}
    for bot, found in scores.items():
        ranks = [s["rank"] for s in found]
        centres = [s["centres"] for s in found]
        rows[bot] = Row(
            len(found),
            statistics.fmean(ranks),
            _se(ranks),
            math.fsum(s["win"] for s in found),
            statistics.fmean(centres),
            _se(centres),
        )
    return rows, wall, cpu


def _cpu() -> float:
    """CPU seconds of this process and its finished children."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def print_scenario(scenario: Scenario, games: int, rows: dict[str, Row]) -> None:
    print(f"scenario {scenario.number}: {scenario.title()} ({games} games)")
    for bot in dict.fromkeys(slots_from(scenario.bots)):
        row = rows[bot]
        paper = scenario.paper.get(bot)
        verdict = ""
        if paper is not None:
            verdict = "better" if row.rank < paper else "not better"
        shown = f"{paper:.2f}" if paper is not None else "-"
        print(
            f"  {LABEL.get(bot, 'DumbBot'):<8} {shown:>6}  {row.rank:5.2f} ± {row.rank_se:4.2f}"
            f" {row.wins:7.1f} {100 * row.wins / row.plays:6.1f} {row.centres:7.2f} ± {row.centres_se:4.2f}"
            f" {row.plays:6}  {verdict}"
        )


def timed_games(count: int, seed: int) -> tuple[float, float, int]:
    """DipBlue's own seconds per phase (mean, worst) over ``count`` games of scenario 5 played here."""
    spent: list[float] = []
    for game_seed in seeds_for(seed, count):
        rng = random.Random(game_seed)
        bots: list[Bot] = [DipBlue(random.Random(rng.random())), DipBlueNaive(random.Random(rng.random()))]
        bots += [DumbBot(random.Random(rng.random())) for _ in range(5)]
        clock = _Clock()
        for bot in bots[:2]:
            for hook in ("orders", "on_phase", "on_message", "on_event", "on_results"):
                setattr(bot, hook, clock.wrap(getattr(bot, hook), hook == "orders"))
        InProcessGame(bots, game_seed, GameSettings(year_limit=YEAR_LIMIT), negotiates=True).play()
        spent += clock.phases
    return statistics.fmean(spent), max(spent), len(spent)


class _Clock:
    """Adds up the time of a bot's calls; a call of ``orders`` closes a phase."""

    def __init__(self) -> None:
        self.phases: list[float] = []
        self.running = 0.0

    def wrap(self, method: Callable[..., Any], closes: bool) -> Callable[..., Any]:
        def timed(*args: Any) -> Any:
            started = time.process_time()
            result = method(*args)
            self.running += time.process_time() - started
            if closes:
                self.phases.append(self.running)
                self.running = 0.0
            return result

        return timed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100, help="games a setting without negotiation; half with (100)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (cores)")
    parser.add_argument("--seed", type=int, default=2015, help="the seed of every run")
    parser.add_argument("--timing-games", dest="timing_games", type=int, default=4, help="games timed here (4)")
    parser.add_argument("--scenarios", default="1-9", help="which scenarios, e.g. 1,2,5 or 3-6 (1-9)")
    args = parser.parse_args()
    for name, target in NAMES.items():
        bots.registry.BOTS.setdefault(name, target)
    wanted = _numbers(args.scenarios)

    print_header("DipBlue, table 1 of the paper, against our DumbBot")
    print(
        f"games to {YEAR_LIMIT} or a solo; {args.games} games a scenario without negotiation, {args.games // 2} with;"
    )
    print(f"{args.jobs} jobs, seed {args.seed}; rank: 1 best, 7 worst; wins shared by ties")
    print()
    print(f"  {'bot':<8} {'paper':>6}  {'rank ± se':>12} {'wins':>7} {'win %':>6} {'centres ± se':>14} {'plays':>6}")
    results: dict[int, dict[str, Row]] = {}
    timings = []
    with tempfile.TemporaryDirectory() as tmp:
        for scenario in SCENARIOS:
            if scenario.number not in wanted:
                continue
            games = args.games // 2 if scenario.negotiates else args.games
            out = Path(tmp) / str(scenario.number)
            rows, wall, cpu = play(scenario, games, args.seed + scenario.number, args.jobs, out)
            results[scenario.number] = rows
            timings.append((scenario, games, wall, cpu))
            print_scenario(scenario, games, rows)
    print()
    goals = [(s, bot, paper) for s in SCENARIOS if s.number in results for bot, paper in s.paper.items()]
    met = sum(results[s.number][bot].rank < paper for s, bot, paper in goals)
    print(f"goal, a better mean rank than each figure of the paper: {met} of {len(goals)} met")
    print()
    print("the orderings of section 6.1 (lower rank is better)")
    for better, worse, claim in ORDERINGS:
        if better[0] not in results or worse[0] not in results:
            continue
        b, w = results[better[0]][better[1]].rank, results[worse[0]][worse[1]].rank
        print(f"  {claim:<62} {b:5.2f} < {w:5.2f}  {'yes' if b < w else 'no'}")
    print()
    print("time")
    for scenario, games, wall, cpu in timings:
        print(
            f"  scenario {scenario.number}: {games} games in {wall:6.1f} s on {args.jobs} jobs;"
            f" {cpu / games:5.2f} s of CPU a game"
        )
    if args.timing_games:
        mean, worst, phases = timed_games(args.timing_games, args.seed)
        print(
            f"  DipBlue and Naive, scenario 5, {args.timing_games} games here: {1000 * mean:.2f} ms of CPU a phase"
            f" on average, {1000 * worst:.1f} ms at most ({phases} bot-phases); goal under 20 ms"
        )


def _numbers(text: str) -> set[int]:
    found: set[int] = set()
    for part in text.split(","):
        low, _, high = part.partition("-")
        found.update(range(int(low), int(high or low) + 1))
    return found


if __name__ == "__main__":
    main()

#!/usr/bin/env python
"""D-Brane against DumbBot: the experiments of de Jonge and Sierra (section 6), with our bots.

The paper plays ``n`` D-Branes against ``7 - n`` DumbBots to the year 1920 (a draw at winter
1920), the powers dealt at random. It reports, without negotiation and without implicit
agreements, the wins of the D-Branes for ``n = 2..5`` (table 3), their centres (table 1)
and, for two of them, their mean rank (table 2); with negotiation and implicit agreements,
the centres of two D-Branes (table 1: 17.9) and their rank (table 2: 2.35). We play the
same setups against our unchanged DumbBot, 100 games a setting without negotiation and 50
with it (the paper: 500 and 200), negotiation on the simulated clock of ``--rounds`` rounds
a phase (the paper: 5 seconds of wall clock), and print our figures beside the paper's.

How we count, as the paper does (section 6.3): a game is a *win* for the D-Branes when one
of them ends with the most centres; a tie for the most is shared, each tied power getting
an equal part (two D-Branes tied at the top: a whole win; a D-Brane tied with a DumbBot:
half). *Centres* are the D-Branes' centres together at the end. *Rank* is the mean rank of
the D-Branes, 1 for the most centres (ties share the ranks they span; an eliminated power
ranks below the survivors with as many centres, a later elimination above an earlier one:
``detente run``'s scoring). Standard errors are over games (the D-Branes of one game are
not independent); ``detente run`` writes every game under ``--out``.

    .venv/bin/python benchmarks/paper_dbrane.py                      # about half an hour on 2 cores
    .venv/bin/python benchmarks/paper_dbrane.py --games 20 --nego-games 10   # a quick look
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from machine import print_header

import bots.registry as registry
from detente.experiments import Experiment, run_experiment
from referee.settings import GameSettings

#: The registry lines of D-Brane (bots/registry.py); set here too, for a tree that lacks them.
REGISTRY = {"dbrane": "bots.dbrane:DBrane", "dbrane:nonego": "bots.dbrane:DBraneNoNego"}


@dataclass(frozen=True, slots=True)
class Figure:
    """One figure of the paper: the value and its standard error (None where it gives none)."""

    value: float
    se: float | None = None

    def __str__(self) -> str:
        return f"{self.value:g}" + ("" if self.se is None else f" ± {self.se:g}")


@dataclass(frozen=True, slots=True)
class Setting:
    """One experiment: ``n`` of ``bot`` against DumbBots, and the paper's figures for it."""

    label: str
    bot: str
    n: int
    nego: bool
    paper: dict[str, Figure]


SETTINGS = (
    Setting("2 D-Brane, no negotiation", "dbrane:nonego", 2, False,
            {"wins %": Figure(61), "rank": Figure(2.59, 0.05), "centres": Figure(15.5, 0.3)}),
    Setting("3 D-Brane, no negotiation", "dbrane:nonego", 3, False,
            {"wins %": Figure(84), "centres": Figure(24.9, 0.3)}),
    Setting("4 D-Brane, no negotiation", "dbrane:nonego", 4, False,
            {"wins %": Figure(95), "centres": Figure(29.8, 0.2)}),
    Setting("5 D-Brane, no negotiation", "dbrane:nonego", 5, False,
            {"wins %": Figure(98), "centres": Figure(32.0, 0.1)}),
    Setting("2 D-Brane, negotiation + implicit", "dbrane", 2, True,
            {"centres": Figure(17.9, 0.5), "rank": Figure(2.35, 0.08)}),
)  # fmt: skip


def measures(lines: Sequence[dict], bot: str) -> dict[str, tuple[float, float]]:
    """Per game: the D-Branes' share of the win, their mean rank, their centres; mean and se of each."""
    wins, ranks, centres = [], [], []
    for line in lines:
        ours = [score for score in line["scores"].values() if score["bot"] == bot]
        wins.append(100 * sum(score["win"] for score in ours))
        ranks.append(statistics.fmean(score["rank"] for score in ours))
        centres.append(sum(score["centres"] for score in ours))
    found = {}
    for name, values in (("wins %", wins), ("rank", ranks), ("centres", centres)):
        se = statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else float("nan")
        found[name] = (statistics.fmean(values), se)
    return found


def verdict(name: str, ours: float, paper: float) -> str:
    """Better or worse than the paper (a lower rank is better)."""
    better = ours < paper if name == "rank" else ours > paper
    return "better" if better else ("equal" if ours == paper else "worse")


def run(setting: Setting, games: int, seed: int, jobs: int, rounds: int, out: Path) -> tuple[list[dict], float]:
    slots = (setting.bot,) * setting.n + ("dumbbot",) * (7 - setting.n)
    folder = out / f"{setting.bot.replace(':', '-')}-{setting.n}"
    experiment = Experiment(slots, games, seed, folder, jobs=jobs, settings=GameSettings(year_limit=1920), rounds=rounds)
    started = time.perf_counter()
    run_experiment(experiment)
    elapsed = time.perf_counter() - started
    with open(folder / "games.jsonl", encoding="utf-8") as lines:
        return [json.loads(line) for line in lines], elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100, help="games per setting without negotiation (100)")
    parser.add_argument("--nego-games", dest="nego_games", type=int, default=50, help="games with negotiation (50)")
    parser.add_argument("--rounds", type=int, default=3, help="negotiation rounds a phase (3)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (all cores)")
    parser.add_argument("--seed", type=int, default=2026, help="the seed of every game")
    parser.add_argument("--only", default="", help="settings to play, by number from 1 (e.g. 1,5); all by default")
    parser.add_argument("--out", type=Path, default=None, help="where the games go (a temporary folder)")
    args = parser.parse_args()
    for name, target in REGISTRY.items():
        registry.BOTS.setdefault(name, target)
    chosen = [SETTINGS[int(i) - 1] for i in args.only.split(",") if i] or list(SETTINGS)
    print_header("D-Brane against DumbBot (de Jonge and Sierra, tables 1-3)")
    print(f"year limit 1920, seed {args.seed}, {args.jobs} jobs, negotiation: {args.rounds} rounds a phase")
    header = f"{'setting':<36} {'games':>5}  {'measure':<8} {'paper':>12} {'ours':>15}  {'s/game':>6}  verdict"
    print(header)
    print("-" * len(header))
    with tempfile.TemporaryDirectory() as scratch:
        out = args.out or Path(scratch)
        for setting in chosen:
            games = args.nego_games if setting.nego else args.games
            lines, elapsed = run(setting, games, args.seed, args.jobs, args.rounds, out)
            found = measures(lines, setting.bot)
            first = True
            for name, (mean, se) in found.items():
                paper = setting.paper.get(name)
                label = f"{setting.label:<36} {len(lines):>5}" if first else " " * 42
                pace = f"{elapsed / len(lines):6.2f}" if first else " " * 6
                shown = "-" if paper is None else str(paper)
                judged = "" if paper is None else verdict(name, mean, paper.value)
                print(f"{label}  {name:<8} {shown:>12} {mean:>8.2f} ± {se:4.2f}  {pace}  {judged}")
                first = False
    print("s/game: wall seconds per game with the jobs given; wins: a D-Brane has the most centres (ties shared)")


if __name__ == "__main__":
    main()

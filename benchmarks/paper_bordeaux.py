#!/usr/bin/env python
"""The Bordeaux diplomat and RandomNegotiator against DumbBots, beside the papers' figures.

The setups of the DipBlue and D-Brane papers (``shared/papers``): ``n`` bots under test
against ``7 - n`` DumbBots, games to 1920, the powers drawn by the seed of each game.
Each bot is measured over the games: the share of the wins its powers took (a win is the
most centres at the end, shared by a tie, as ``detente run`` scores it; for ``n = 2``
the two together, as D-Brane's table 3 counts "a victory of D-Brane"), the mean rank of its
powers (1 best, 7 worst; D-Brane's table 2, DipBlue's figure 4) and the centres its powers
hold at the end (the two together for ``n = 2``, as D-Brane's table 1). Standard errors
are over games. The papers' figures are printed beside ours, with their game counts:

* DipBlue (Ferreira et al. 2015), 70 games a scenario: NoPress vs six DumbBots, mean rank
  4.3 (scenario 1); DipBlue vs six DumbBots, 4.63 (scenario 2); DipBlue with a Naive
  ally vs five DumbBots, 3.57 (scenario 5, the best of the paper; D-Brane cites it for 75 games);
* D-Brane (de Jonge and Sierra), two D-Branes vs five DumbBots, without implicit
  agreements: without negotiation 500 games, 61% wins (table 3), mean rank 2.59 ± 0.05
  (table 2), 15.5 ± 0.3 centres (table 1); with negotiation 200 games, mean rank 2.75 ±
  0.08, 15.1 ± 0.5 centres.

Games "without a partner to negotiate with" (one bot under test, or negotiation off:
no rounds) are 100 a setup, those with negotiation 50 (``--games`` scales both). The
runs go through :func:`detente.experiments.run_experiment`, on ``--jobs`` processes.

    .venv/bin/python benchmarks/paper_bordeaux.py                 # 10 CPU minutes: 5 to 10 minutes on 2 cores
    .venv/bin/python benchmarks/paper_bordeaux.py --games 10      # a quick look
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import statistics
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from machine import print_header

from bots.registry import BOTS
from detente.experiments import Experiment, run_experiment, slots_from
from referee.settings import GameSettings

# Until the registry lists it (the line the issue asks for), the benchmark adds it itself;
# the worker processes are forked and inherit it.
BOTS.setdefault("bordeaux", "bots.bordeaux:Bordeaux")


@dataclass(frozen=True, slots=True)
class Reference:
    """A figure of a paper: where it comes from, how many games, and the values it gives."""

    source: str
    games: int
    wins: float | None = None  # percent
    rank: float | None = None
    rank_se: float | None = None
    centres: float | None = None
    centres_se: float | None = None


@dataclass(frozen=True, slots=True)
class Setup:
    """One table row group: the bots (the first names repeated as written, DumbBots after),
    whether they negotiate (rounds), and the papers' figures it compares with."""

    title: str
    bots: tuple[str, ...]
    rounds: int
    full_games: int
    references: tuple[Reference, ...] = ()


DIPBLUE_ALONE = (
    Reference("DipBlue sc. 2: DipBlue vs 6 DumbBots", 70, rank=4.63),
    Reference("DipBlue sc. 1: NoPress vs 6 DumbBots", 70, rank=4.3),
)
DBRANE_OFF = (
    Reference("D-Brane t. 1-3: 2 D-Brane vs 5 DumbBots, nego off", 500, 61.0, 2.59, 0.05, 15.5, 0.3),
    Reference("DipBlue sc. 5: DipBlue + Naive vs 5 DumbBots", 70, rank=3.57),
)
DBRANE_ON = (
    Reference("D-Brane t. 1-2: 2 D-Brane vs 5 DumbBots, nego on", 200, None, 2.75, 0.08, 15.1, 0.5),
    Reference("DipBlue sc. 5: DipBlue + Naive vs 5 DumbBots", 70, rank=3.57),
)

SETUPS = (
    Setup("1 Bordeaux, 6 DumbBots", ("bordeaux",), 3, 100, DIPBLUE_ALONE),
    Setup("1 RandomNegotiator, 6 DumbBots", ("randomnegotiator",), 3, 100, DIPBLUE_ALONE),
    Setup("2 Bordeaux, 5 DumbBots, no negotiation", ("bordeaux", "bordeaux"), 0, 100, DBRANE_OFF),
    Setup("2 RandomNegotiators, 5 DumbBots, no negotiation", ("randomnegotiator",) * 2, 0, 100, DBRANE_OFF),
    Setup("2 Bordeaux, 5 DumbBots, negotiation", ("bordeaux", "bordeaux"), 3, 50, DBRANE_ON),
    Setup("2 RandomNegotiators, 5 DumbBots, negotiation", ("randomnegotiator",) * 2, 3, 50, DBRANE_ON),
    Setup("Bordeaux + RandomNegotiator, 5 DumbBots, negotiation", ("bordeaux", "randomnegotiator"), 3, 50),
)


@dataclass(frozen=True, slots=True)
class Measured:
    """One bot over the games of a setup: its powers' win share, mean rank and centres, each
    with its standard error over games."""

    bot: str
    powers: int
    games: int
    wins: float
    wins_se: float
    rank: float
    rank_se: float
    centres: float
    centres_se: float


def _mean_se(values: Sequence[float]) -> tuple[float, float]:
    mean = statistics.fmean(values)
    return mean, statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else math.nan


def measure(lines: Sequence[dict], bot: str) -> Measured:
    """``bot``'s figures over the lines of ``games.jsonl``."""
    wins, ranks, centres = [], [], []
    for line in lines:
        scores = [s for s in line["scores"].values() if s["bot"] == bot]
        wins.append(100 * sum(s["win"] for s in scores))
        ranks.append(statistics.fmean(s["rank"] for s in scores))
        centres.append(sum(s["centres"] for s in scores))
    powers = sum(1 for s in lines[0]["scores"].values() if s["bot"] == bot)
    return Measured(bot, powers, len(lines), *_mean_se(wins), *_mean_se(ranks), *_mean_se(centres))


def _cell(value: float | None, se: float | None = None, digits: int = 2) -> str:
    if value is None:
        return "-"
    return f"{value:.{digits}f}" + (f" ± {se:.{digits}f}" if se is not None and not math.isnan(se) else "")


def _cpu() -> float:
    """CPU seconds of this process and of its finished children (the workers of a run):
    on a shared machine, wall time says more of the neighbours than of the bots."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def run(setup: Setup, games: int, seed: int, jobs: int, year_limit: int, out: Path) -> tuple[list[Measured], float]:
    experiment = Experiment(
        slots_from([*setup.bots, "dumbbot"]), games, seed, out, jobs=jobs, settings=GameSettings(year_limit=year_limit), rounds=setup.rounds
    )
    started = _cpu()
    run_experiment(experiment)
    elapsed = _cpu() - started
    with open(out / "games.jsonl", encoding="utf-8") as jsonl:
        lines = [json.loads(line) for line in jsonl]
    bots = list(dict.fromkeys(setup.bots))
    return [measure(lines, bot) for bot in bots], elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100, help="games of a setup without negotiation (half with)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--seed", type=int, default=1920)
    parser.add_argument("--year-limit", type=int, default=1920)
    parser.add_argument("--only", default="", help="run the setups whose title contains this text")
    parser.add_argument("--out", type=Path, default=None, help="keep the games here (default: a temporary folder)")
    args = parser.parse_args()
    print_header("The Bordeaux diplomat against DumbBots, beside DipBlue and D-Brane")
    print(f"games to {args.year_limit}, {args.jobs} jobs, seed {args.seed}")
    print("wins: % of the games won by the bot's powers (shared ties); rank: mean rank of its powers;")
    print("centres: its powers' centres at the end, added up over its powers; ± one standard error over games")
    print()
    header = f"{'setup':<52} {'bot':<20} {'games':>5} {'wins %':>13} {'rank':>12} {'centres':>13} {'s/game':>6}"
    print(header)
    print("-" * len(header))
    with tempfile.TemporaryDirectory() as scratch:
        base = args.out or Path(scratch)
        for index, setup in enumerate(SETUPS):
            if args.only and args.only.lower() not in setup.title.lower():
                continue
            games = max(2, args.games * setup.full_games // 100)
            rows, elapsed = run(setup, games, args.seed, args.jobs, args.year_limit, base / f"setup{index + 1}")
            for row in rows:
                print(
                    f"{setup.title:<52} {f'{row.bot} ×{row.powers}':<20} {row.games:>5} {_cell(row.wins, row.wins_se, 1):>13}"
                    f" {_cell(row.rank, row.rank_se):>12} {_cell(row.centres, row.centres_se):>13}"
                    f" {elapsed / games:>6.1f}"
                )
            for ref in setup.references:
                print(
                    f"{'  paper: ' + ref.source:<73} {ref.games:>5} {_cell(ref.wins, None, 1):>13}"
                    f" {_cell(ref.rank, ref.rank_se):>12} {_cell(ref.centres, ref.centres_se):>13}"
                )
            print(flush=True)
    print("s/game: CPU seconds of a game, the seven bots and the game master together.")


if __name__ == "__main__":
    main()

#!/usr/bin/env python
"""What more search buys D-Brane: the same games at today's search budget and at larger ones.

Two D-Branes negotiate (implicit agreements on) against five DumbBots to 1920, the set-up
of the paper's negotiation figures (de Jonge and Sierra, tables 1-2; ``--dbranes 3``: three
against four, the set-up of its table 4, where 5 to 20 seconds a round made no difference
to the D-Branes' centres, printed beside ours), once per budget
(:mod:`bots.dbrane.budget`): ``dbrane`` (today's: 16 NB³ nodes a round, 2 plans a deal, 12
joint plans, 4,000 branch-and-bound nodes a solve), ``dbrane:x4`` and ``dbrane:deep`` (16
times). Every budget plays the same ``--games`` games: the same game seeds, seats rotated
(every slot plays every power equally, the same powers for the same slots in each budget's
game of a seed) and the same seeds for every bot, so a game differs between budgets only
where the larger search chose otherwise. Budgets are counted in nodes, not seconds, so the
games replay exactly on any machine.

Per budget: the D-Branes' mean rank (1 best), their centres together at the end, the deals
of battle plans confirmed in a game (any power's: only the D-Branes negotiate), and the CPU
seconds a game (the bots and the game master), mean ± standard error over games
(:mod:`detente.stats`); then each larger budget against today's, paired on the seeds: the
mean difference ± its standard error, t and p (two-sided).

    .venv/bin/python benchmarks/dbrane_search.py            # 3 x 140 games: about 10 minutes on 2 cores
    .venv/bin/python benchmarks/dbrane_search.py --quick    # 3 x 14 games
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from machine import print_header
from paper_common import Run, cell, compare, out_dir, play

from bots.registry import bot_class
from detente.experiments import Experiment
from detente.stats import estimate
from referee.settings import GameSettings

#: The budgets compared, today's first (the others are compared with it).
BUDGETS = ("dbrane", "dbrane:x4", "dbrane:deep")
OPPONENT = "dumbbot"
MEASURES = ("rank", "centres")
#: The paper's table 4: three D-Branes' centres against four DumbBots, by negotiation deadline.
TABLE_4 = "5 s 29.6 ± 0.4 (200 games), 10 s 29.9 ± 0.8, 15 s 29.9 ± 0.7, 20 s 29.5 ± 0.8 (50 games each)"


@dataclass(frozen=True, slots=True)
class Games:
    """What the records of a run's games say, by game seed."""

    deals: dict[int, float]  # the deals of battle plans the notary confirmed (not the handshakes)
    orders: dict[int, str]  # every phase's orders, as text: equal text, the same game


def read_games(run: Run) -> Games:
    deals: dict[int, float] = {}
    orders: dict[int, str] = {}
    for line, record in zip(run.lines, run.records(), strict=True):
        confirmed = [e for e in record["events"] if e["type"] == "confirmed" and "Commit" in e["deal"]]
        deals[line["seed"]] = float(len(confirmed))
        orders[line["seed"]] = json.dumps([[p["phase"], p["orders"]] for p in record["phases"]], sort_keys=True)
    return Games(deals, orders)


def difference_line(label: str, larger: Mapping[int, float], today: Mapping[int, float]) -> str:
    comparison, test = compare(larger, today)
    d = comparison.difference
    se = "-" if d.se is None else f"{d.se:.2f}"
    return f"  {label:<12} {d.mean:+7.2f} ± {se:<5} t {comparison.t:+6.2f}  p {comparison.p:.3f}  ({test})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=140, help="games a budget (140)")
    parser.add_argument("--quick", action="store_true", help="14 games a budget")
    parser.add_argument("--dbranes", type=int, default=2, choices=range(1, 7), help="D-Brane seats (2)")
    parser.add_argument("--rounds", type=int, default=3, help="negotiation rounds a phase (3)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (all cores)")
    parser.add_argument("--seed", type=int, default=2026, help="the seed of every budget (2026)")
    parser.add_argument("--out", type=Path, default=None, help="where the games go (a temporary folder)")
    args = parser.parse_args()
    if args.quick:
        args.games = 14
    dumbbots = 7 - args.dbranes
    print_header(f"D-Brane: what more search buys ({args.dbranes} D-Branes with negotiation vs {dumbbots} DumbBots)")
    print(f"year limit 1920, seats rotated, seed {args.seed} for every budget, {args.jobs} jobs, "
          f"negotiation: {args.rounds} rounds a phase; mean ± standard error over games")  # fmt: skip
    for name in BUDGETS:
        print(f"  {name:<12} {bot_class(name).BUDGET}")  # type: ignore[attr-defined]
    runs: dict[str, Run] = {}
    with tempfile.TemporaryDirectory() as scratch:
        out = args.out or Path(scratch)
        header = f"{'budget':<12} {'n':>4}  {'rank':>12} {'centres':>13} {'deals/game':>12} {'CPU s/game':>11}"
        print()
        print(header)
        print("-" * len(header))
        games: dict[str, Games] = {}
        for name in BUDGETS:
            slots = (name,) * args.dbranes + (OPPONENT,) * dumbbots
            experiment = Experiment(
                slots, args.games, args.seed, out_dir(out, name), jobs=min(args.jobs, args.games),
                settings=GameSettings(year_limit=1920), rounds=args.rounds, rotate=True,
            )  # fmt: skip
            run = runs[name] = play(experiment)
            games[name] = read_games(run)
            rank, centres = cell(run.estimate(name, "rank")), cell(run.estimate(name, "centres"))
            deals = cell(estimate(games[name].deals.values()))
            print(f"{name:<12} {run.games:>4}  {rank:>12} {centres:>13} {deals:>12} {run.cpu / run.games:11.2f}")
    today = BUDGETS[0]
    for measure in (*MEASURES, "deals"):
        print()
        better = " (a lower rank is better)" if measure == "rank" else ""
        print(f"{measure}: larger budget - today's, paired on the seeds{better}")
        for name in BUDGETS[1:]:
            if measure == "deals":
                print(difference_line(name, games[name].deals, games[today].deals))
            else:
                print(difference_line(name, runs[name].per_game(name, measure), runs[today].per_game(today, measure)))
    print()
    for name in BUDGETS[1:]:
        same = sum(1 for seed, text in games[name].orders.items() if games[today].orders.get(seed) == text)
        print(f"games {name} plays order for order as {today} does: {same} of {len(games[name].orders)}")
    if args.dbranes == 3:
        print(f"the paper's table 4 (3 D-Branes vs 4 DumbBots, centres): {TABLE_4}")
    print(f"opponents: {dumbbots} x {OPPONENT}; CPU s/game: the bots and the game master ({args.jobs} workers)")


if __name__ == "__main__":
    main()

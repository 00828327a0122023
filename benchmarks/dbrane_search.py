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

The figures are kept as ``benchmarks/results/dbrane_search.json`` (``--dbranes 3``:
``dbrane_search_3.json``; ``--record NAME`` chooses) and rendered as ``docs/results/NAME.md``
(:mod:`benchmarks.results`; ``BENCHMARK_RESULTS=DIR`` sends a trial run elsewhere).

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
from typing import Any

from machine import print_header
from paper_common import Run, cell, command, compare, estimate_columns, figures, number, out_dir, p_value, play

from benchmarks.results import Column, Table, record, write
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
#: The same, as (deadline, centres, se, games).
TABLE_4_ROWS = ((5, 29.6, 0.4, 200), (10, 29.9, 0.8, 50), (15, 29.9, 0.7, 50), (20, 29.5, 0.8, 50))
BUDGET_COLUMNS = (
    Column("budget", "budget"),
    Column("n", "games", True),
    *estimate_columns("rank", "D-Brane rank"),
    *estimate_columns("centres", "D-Branes' centres"),
    *estimate_columns("deals", "deals confirmed / game"),
    Column("cpu", "CPU s/game", True),
    Column("limits", "budget (nodes)"),
)
DIFFERENCE_COLUMNS = (
    Column("measure", "measure"),
    Column("budget", "larger budget"),
    Column("reference", "minus"),
    *estimate_columns("difference", "difference"),
    Column("t", "t", True),
    Column("p", "p", True),
    Column("test", "test"),
    Column("same_games", "games the same order for order", True),
    Column("games", "of games", True),
)


@dataclass(frozen=True, slots=True)
class Games:
    """What the records of a run's games say, by game seed."""

    deals: dict[int, float]  # the deals of battle plans the notary confirmed (not the handshakes)
    orders: dict[int, str]  # every phase's orders, as text: equal text, the same game


def read_games(run: Run) -> Games:
    deals: dict[int, float] = {}
    orders: dict[int, str] = {}
    for line, game in zip(run.lines, run.records(), strict=True):
        confirmed = [e for e in game["events"] if e["type"] == "confirmed" and "Commit" in e["deal"]]
        deals[line["seed"]] = float(len(confirmed))
        orders[line["seed"]] = json.dumps([[p["phase"], p["orders"]] for p in game["phases"]], sort_keys=True)
    return Games(deals, orders)


def difference_row(measure: str, label: str, larger: Mapping[int, float], today: Mapping[int, float]) -> dict[str, Any]:
    """A larger budget minus today's, paired on the seeds, as a row of the record."""
    comparison, test = compare(larger, today)
    return {"measure": measure, "budget": label, "reference": BUDGETS[0], **figures("difference", comparison.difference),
            "t": number(comparison.t), "p": p_value(comparison.p), "test": test}  # fmt: skip


def difference_text(label: str, row: Mapping[str, Any]) -> str:
    se = "-" if row["difference_se"] is None else f"{row['difference_se']:.2f}"
    t = "-" if row["t"] is None else f"{row['t']:+6.2f}"
    return f"  {label:<12} {row['difference']:+7.2f} ± {se:<5} t {t:>6}  p {row['p']:.3f}  ({row['test']})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=140, help="games a budget (140)")
    parser.add_argument("--quick", action="store_true", help="14 games a budget")
    parser.add_argument("--dbranes", type=int, default=2, choices=range(1, 7), help="D-Brane seats (2)")
    parser.add_argument("--rounds", type=int, default=3, help="negotiation rounds a phase (3)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (all cores)")
    parser.add_argument("--seed", type=int, default=2026, help="the seed of every budget (2026)")
    parser.add_argument("--out", type=Path, default=None, help="where the games go (a temporary folder)")
    parser.add_argument("--record", default=None, help="the record's name (dbrane_search; dbrane_search_N for N D-Branes)")
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
    budgets: list[dict[str, Any]] = []
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
            budgets.append({"budget": name, "n": run.games, **figures("rank", run.estimate(name, "rank")),
                            **figures("centres", run.estimate(name, "centres")),
                            **figures("deals", estimate(games[name].deals.values())),
                            "cpu": number(run.cpu / run.games, 2),
                            "limits": str(bot_class(name).BUDGET)})  # type: ignore[attr-defined]  # fmt: skip
            print(f"{name:<12} {run.games:>4}  {rank:>12} {centres:>13} {deals:>12} {run.cpu / run.games:11.2f}")
    today = BUDGETS[0]
    differences: list[dict[str, Any]] = []
    for measure in (*MEASURES, "deals"):
        print()
        better = " (a lower rank is better)" if measure == "rank" else ""
        print(f"{measure}: larger budget - today's, paired on the seeds{better}")
        for name in BUDGETS[1:]:
            if measure == "deals":
                row = difference_row(measure, name, games[name].deals, games[today].deals)
            else:
                larger, ours = runs[name].per_game(name, measure), runs[today].per_game(today, measure)
                row = difference_row(measure, name, larger, ours)
            differences.append(row)
            print(difference_text(name, row))
    print()
    for name in BUDGETS[1:]:
        same = sum(1 for seed, text in games[name].orders.items() if games[today].orders.get(seed) == text)
        print(f"games {name} plays order for order as {today} does: {same} of {len(games[name].orders)}")
        differences.append({"measure": "games", "budget": name, "reference": today,
                            "same_games": same, "games": len(games[name].orders)})  # fmt: skip
    if args.dbranes == 3:
        print(f"the paper's table 4 (3 D-Branes vs 4 DumbBots, centres): {TABLE_4}")
    print(f"opponents: {dumbbots} x {OPPONENT}; CPU s/game: the bots and the game master ({args.jobs} workers)")
    tables = [
        Table("Budgets", BUDGET_COLUMNS, budgets, BUDGETS_NOTE),
        Table("Each larger budget minus today's, paired on the seeds", DIFFERENCE_COLUMNS, differences),
    ]
    if args.dbranes == 3:
        tables.append(table_4())
    name = args.record or ("dbrane_search" if args.dbranes == 2 else f"dbrane_search_{args.dbranes}")
    notes = [
        (
            f"{args.dbranes} D-Branes with negotiation (implicit agreements on) vs {dumbbots} DumbBots, year limit"
            f" 1920, seats rotated, seed {args.seed} for every budget (the same games: a game differs between budgets"
            f" only where the larger search chose otherwise), {args.jobs} jobs, {args.rounds} negotiation rounds a"
            " phase; mean ± standard error over games."
        )
    ]
    title = f"D-Brane: what more search buys ({args.dbranes} D-Branes with negotiation vs {dumbbots} DumbBots)"
    path = write(record(name, title, command(), sum(r.games for r in runs.values()), tables, seeds=[args.seed],
                        notes=notes, data={"games": args.games, "dbranes": args.dbranes, "rounds": args.rounds}))  # fmt: skip
    print(f"written to {path}")


BUDGETS_NOTE = (
    "rank: the D-Branes' mean rank (1 best); centres: theirs together at the end; deals: the deals of battle plans"
    " the notary confirmed in a game (any power's: only the D-Branes negotiate); CPU s/game: the bots and the game"
    " master."
)


def table_4() -> Table:
    """The paper's table 4: three D-Branes' centres against four DumbBots, by negotiation deadline."""
    columns = (
        Column("deadline", "deadline s a round", True),
        *estimate_columns("centres", "D-Branes' centres"),
        Column("n", "games", True),
    )
    rows = [{"deadline": d, "centres": c, "centres_se": se, "n": n} for d, c, se, n in TABLE_4_ROWS]
    return Table("The paper's table 4 (the reference: 3 D-Branes vs 4 DumbBots)", columns, rows)


if __name__ == "__main__":
    main()

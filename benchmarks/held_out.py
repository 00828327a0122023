#!/usr/bin/env python
"""The negotiating bots against opponents none of their constants was tuned on.

D-Brane's, Bordeaux's and DipBlue's constants were chosen in games against our DumbBot
(``docs/tuning.md``), and the paper benchmarks report games against our DumbBot. Here each
bot under test plays one seat against six of a *held-out* opponent:

* Norman's C++ DumbBot (``daide:PATH`` seats, when ``DETENTE_DAIDE_CLIENT`` names it; a
  real server and TCP per game, so fewer games);
* the adversarial and degenerate negotiators of ``bots/baselines.py``: ``deal-breaker``
  (agrees, then breaks every commitment), ``sanctioning`` (punishes broken deals),
  ``always-accept``, ``always-reject`` (all four play DumbBot's orders: a bot that predicts
  with a copy of DumbBot predicts them exactly), and ``dipgame-random`` (random orders and
  coin-flip negotiation).

The bots under test: ``bordeaux`` (its opponent model learnt in the game),
``bordeaux:dumbbot-model`` (the labelled variant that predicts with DumbBot's code),
``dipblue``, ``dbrane`` and, as the reference, ``dumbbot``. Every row of one opponent is
played from the same seed with seats rotated, so the bot under test has the same power in
the same game of every row: each bot is compared with DumbBot in its seat, paired on the
seeds (a t-test over games; *holds* only at p < 0.05). Mean rank (1 best, 7 worst) and
final centres, mean ± standard error over games (:mod:`detente.stats`).

The figures are kept as ``benchmarks/results/held_out.json`` and rendered as
``docs/results/held_out.md`` (:mod:`benchmarks.results`; ``--record NAME`` keeps a run of other
bots under another name, ``BENCHMARK_RESULTS=DIR`` sends a trial run elsewhere).

    .venv/bin/python benchmarks/held_out.py            # about 8 minutes on 2 cores
    .venv/bin/python benchmarks/held_out.py --quick    # about 3 minutes
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path
from typing import Any

from machine import print_header
from paper_common import (
    Run,
    cell,
    claim_result,
    claim_text,
    claims_table,
    command,
    daide_dumbbot,
    estimate_columns,
    figures,
    number,
    out_dir,
    try_play,
)

from benchmarks.results import Column, Table, record, write
from detente.experiments import Experiment, slots_from
from referee.settings import GameSettings

UNDER_TEST = ("bordeaux", "bordeaux:dumbbot-model", "dipblue", "dbrane", "dumbbot")
OPPONENTS = ("deal-breaker", "sanctioning", "always-accept", "always-reject", "dipgame-random")
REFERENCE = "dumbbot"
COLUMNS = (
    Column("opponent", "against 6"),
    Column("bot", "bot under test"),
    Column("n", "games", True),
    *estimate_columns("rank", "rank"),
    *estimate_columns("centres", "centres"),
    *estimate_columns("opponent_rank", "opponents' rank"),
    Column("cpu", "CPU s/game", True),
    Column("wall", "wall s/game", True),
    Column("note", "note"),
)
NOTE = (
    "Mean rank (1 best, 7 worst) and final centres of the bot under test, and the mean rank of its opponents,"
    " ± standard error over games. The reference is DumbBot in the same seat of the same games (the row"
    " `dumbbot`); the claims below compare each bot with it, paired on the seeds."
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=14, help="games a row against an in-process opponent (14)")
    parser.add_argument("--daide-games", dest="daide_games", type=int, default=7, help="games a row against C++ DumbBots (7)")
    parser.add_argument("--quick", action="store_true", help="7 games a row, 2 against C++ DumbBots")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--seed", type=int, default=4242)
    parser.add_argument("--opponents", default="", help="only these opponents, comma-separated")
    parser.add_argument(
        "--bots", default=",".join(UNDER_TEST), help=f"the bots under test, comma-separated ({','.join(UNDER_TEST)})"
    )
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--record", default="held_out", help="the name of the record written (held_out)")
    args = parser.parse_args()
    if args.quick:
        args.games, args.daide_games = 7, 2
    # DumbBot in the same seats is what every bot is compared with: it is always played
    under_test = [*dict.fromkeys([*(b for b in args.bots.split(",") if b), REFERENCE])]
    daide = daide_dumbbot()
    opponents = [*OPPONENTS, *([daide] if daide else [])]
    if args.opponents:
        opponents = [o for o in opponents if any(w in o for w in args.opponents.split(","))]
    print_header("Held-out opponents: the bots under test against opponents no constant was tuned on")
    print("1 bot under test vs 6 of an opponent; games to 1920, 3 negotiation rounds a phase, seats rotated,")
    print(f"seed {args.seed} for every row; {args.games} games a row ({args.daide_games} against C++ DumbBots); {args.jobs} jobs")
    print(f"C++ DumbBot: {daide or 'not used (DETENTE_DAIDE_CLIENT unset)'}; mean ± standard error over games")
    print()
    print(f"  {'bot under test':<24} {'n':>3} {'rank':>12} {'centres':>13} {'opp. rank':>12} {'CPU s/game':>10} {'wall s/game':>11}")
    runs: dict[tuple[str, str], Run] = {}
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as scratch:
        base = args.out or Path(scratch)
        for opponent in opponents:
            games = args.daide_games if opponent.startswith("daide:") else args.games
            label = "C++ DumbBot (daide)" if opponent.startswith("daide:") else opponent
            print(f"vs 6 {label}  [n = {games} games, seed {args.seed}, seats rotated]")
            for bot in under_test:
                experiment = Experiment(
                    slots_from([bot, opponent]),
                    games,
                    args.seed,
                    out_dir(base, f"{bot}-vs-{label}"),
                    jobs=min(args.jobs, games),
                    settings=GameSettings(year_limit=1920),
                    rounds=3,
                    rotate=True,
                )
                run = try_play(experiment)
                if isinstance(run, str):
                    print(f"  {bot:<24} not played: {run}")
                    rows.append({"opponent": label, "bot": bot, "note": f"not played: {run}"})
                    continue
                runs[(bot, opponent)] = run
                rows.append({"opponent": label, "bot": bot, "n": run.games, **figures("rank", run.estimate(bot, "rank")),
                             **figures("centres", run.estimate(bot, "centres")),
                             **figures("opponent_rank", run.estimate(opponent, "rank")),
                             "cpu": number(run.cpu / run.games, 2), "wall": number(run.wall / run.games, 2)})  # fmt: skip
                print(
                    f"  {bot:<24} {run.games:>3} {cell(run.estimate(bot, 'rank')):>12} {cell(run.estimate(bot, 'centres')):>13}"
                    f" {cell(run.estimate(opponent, 'rank')):>12} {run.cpu / run.games:10.2f} {run.wall / run.games:11.2f}",
                    flush=True,
                )
    print()
    print("each bot against DumbBot in its seat (the same games' seeds and powers): paired t-test over games, lower rank better")
    claims: list[dict[str, Any]] = []
    for opponent in opponents:
        label = "C++ DumbBot" if opponent.startswith("daide:") else opponent
        reference = runs.get((REFERENCE, opponent))
        for bot in under_test:
            run = runs.get((bot, opponent))
            if bot == REFERENCE or run is None or reference is None:
                continue
            claims.append(claim_result(f"{bot} ranks better than DumbBot [vs {label}]", run.per_game(bot, "rank"),
                                       reference.per_game(REFERENCE, "rank"), lower_is_better=True))  # fmt: skip
            print(claim_text(claims[-1]))
        learnt, copy = runs.get(("bordeaux", opponent)), runs.get(("bordeaux:dumbbot-model", opponent))
        if learnt is not None and copy is not None:
            claims.append(claim_result(f"DumbBot-copy model ranks better than learnt [vs {label}]",
                                       copy.per_game("bordeaux:dumbbot-model", "rank"),
                                       learnt.per_game("bordeaux", "rank"), lower_is_better=True))  # fmt: skip
            print(claim_text(claims[-1]))
    notes = [
        (
            f"1 bot under test vs 6 of an opponent; games to 1920, 3 negotiation rounds a phase, seats rotated, seed"
            f" {args.seed} for every row; {args.games} games a row ({args.daide_games} against C++ DumbBots:"
            f" {daide or 'not played, DETENTE_DAIDE_CLIENT unset'}); {args.jobs} jobs."
        )
    ]
    tables = [
        Table("Rows", COLUMNS, rows, NOTE),
        claims_table(claims, "Each bot against DumbBot in its seat (a lower rank is better)"),
    ]
    games = sum(r.games for r in runs.values())
    title = "Held-out opponents: the bots under test against opponents no constant was tuned on"
    path = write(record(args.record, title, command(), games, tables, seeds=[args.seed], notes=notes,
                        data={"bots": under_test, "opponents": opponents, "games": args.games,
                              "daide_games": args.daide_games}))  # fmt: skip
    print(f"written to {path}")


if __name__ == "__main__":
    main()

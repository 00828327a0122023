#!/usr/bin/env python
"""The Bordeaux diplomat and RandomNegotiator against DumbBots, beside the papers' figures.

The setups of the DipBlue and D-Brane papers (``shared/papers``): ``n`` bots under test
against ``7 - n`` DumbBots, games to 1920, seats rotated (every slot plays every power
equally: ``Experiment(rotate=True)``). Each bot is measured per game (the unit of a
Diplomacy experiment, :mod:`detente.stats`): the share of the win its powers took (a win is
the most centres at the end, shared by a tie, as ``detente run`` scores it; for ``n = 2`` the
two together, as D-Brane's table 3 counts "a victory of D-Brane"), the mean rank of its
powers (1 best, 7 worst; D-Brane's table 2, DipBlue's figure 4) and its powers' centres at
the end (added up for ``n = 2``, as D-Brane's table 1); mean ± standard error over games.
The papers' figures are printed beside ours, with their game counts:

* DipBlue (Ferreira et al. 2015), 70 games a scenario: NoPress vs six DumbBots, mean rank
  4.3 (scenario 1); DipBlue vs six DumbBots, 4.63 (scenario 2); DipBlue with a Naive
  ally vs five DumbBots, 3.57 (scenario 5);
* D-Brane (de Jonge and Sierra), two D-Branes vs five DumbBots, without implicit
  agreements: without negotiation 500 games, 61% wins (table 3), mean rank 2.59 ± 0.05
  (table 2), 15.5 ± 0.3 centres (table 1); with negotiation 200 games, mean rank 2.75 ±
  0.08, 15.1 ± 0.5 centres.

**Two opponent models.** ``bordeaux`` predicts the other powers with a model learnt from
their orders during the game (:mod:`bots.bordeaux.prediction`); ``bordeaux:dumbbot-model``
with private copies of DumbBot, exact against DumbBots: an extra, labelled row, on the
same seeds (so the two pair game by game). The share of the other powers' orders each
model predicted is measured on the first ``--accuracy-games`` games of the one-Bordeaux
set-up, replayed in this process (the same games: the same seeds).

**Claims tested** (:mod:`paper_common`): each "better than" printed at the end is a t-test
over games, paired where both sides come from games of the same seeds, one-sample against
a paper's figure (taken as a constant: its own error is ignored); it *holds* only at p <
0.05.

**Opponents.** Our DumbBot; and, when ``DETENTE_DAIDE_CLIENT`` names Norman's C++ DumbBot,
the same set-ups against it (``daide:PATH`` seats, fewer games: a real server and TCP per
game).

The figures are kept as ``benchmarks/results/paper_bordeaux.json`` and rendered as
``docs/results/paper_bordeaux.md`` (:mod:`benchmarks.results`; ``BENCHMARK_RESULTS=DIR``
sends a trial run's elsewhere): every set-up's figures beside the papers' and every claim.

    .venv/bin/python benchmarks/paper_bordeaux.py            # about 12 minutes on 2 cores
    .venv/bin/python benchmarks/paper_bordeaux.py --quick    # about 2 minutes
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
from dataclasses import dataclass
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
from bots.inprocess import InProcessGame, seeds_for
from bots.registry import make_bot
from detente.experiments import Experiment, slots_from
from detente.stats import estimate
from referee.settings import GameSettings

LEARNT, COPY = "bordeaux", "bordeaux:dumbbot-model"


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
    """One row group: a key, the bots under test (the rest of the seven are the opponent),
    whether they negotiate (rounds), whether it is played with fewer games (negotiation)."""

    key: str
    title: str
    bots: tuple[str, ...]
    rounds: int
    short: bool
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
    Setup("1b", "1 Bordeaux", (LEARNT,), 3, False, DIPBLUE_ALONE),
    Setup("1b-copy", "1 Bordeaux, DumbBot-copy model (labelled extra)", (COPY,), 3, False),
    Setup("1r", "1 RandomNegotiator", ("randomnegotiator",), 3, False),
    Setup("2b-off", "2 Bordeaux, no negotiation", (LEARNT, LEARNT), 0, False, DBRANE_OFF),
    Setup("2r-off", "2 RandomNegotiators, no negotiation", ("randomnegotiator",) * 2, 0, False),
    Setup("2b-on", "2 Bordeaux, negotiation", (LEARNT, LEARNT), 3, True, DBRANE_ON),
    Setup("2b-on-copy", "2 Bordeaux, negotiation, DumbBot-copy model (extra)", (COPY, COPY), 3, True),
    Setup("2r-on", "2 RandomNegotiators, negotiation", ("randomnegotiator",) * 2, 3, True),
)
#: The set-ups played against the C++ DumbBot too (fewer games).
DAIDE_SETUPS = ("1b", "1b-copy", "2b-on")

#: The orderings the benchmark states, as (label, better side, worse side, measure): a side is
#: (set-up key, bot) or a paper's figure (a float); lower is better for the rank.
CLAIMS: tuple[tuple[str, tuple[str, str] | float, tuple[str, str] | float, str], ...] = (
    ("1 Bordeaux ranks better than DipBlue's 4.63 (sc. 2)", ("1b", LEARNT), 4.63, "rank"),
    ("1 Bordeaux ranks better than NoPress's 4.3 (sc. 1)", ("1b", LEARNT), 4.3, "rank"),
    ("1 Bordeaux ranks better than 1 RandomNegotiator", ("1b", LEARNT), ("1r", "randomnegotiator"), "rank"),
    ("DumbBot-copy model ranks better than learnt (1 Bordeaux)", ("1b-copy", COPY), ("1b", LEARNT), "rank"),
    ("2 Bordeaux (no nego) rank better than D-Brane's 2.59", ("2b-off", LEARNT), 2.59, "rank"),
    ("2 Bordeaux (no nego) win more than D-Brane's 61 %", ("2b-off", LEARNT), 61.0, "wins"),
    ("2 Bordeaux (no nego) rank better than 2 RandomNegotiators", ("2b-off", LEARNT), ("2r-off", "randomnegotiator"), "rank"),
    ("2 Bordeaux (nego) rank better than D-Brane's 2.75", ("2b-on", LEARNT), 2.75, "rank"),
    ("2 Bordeaux (nego) rank better than DipBlue+Naive's 3.57", ("2b-on", LEARNT), 3.57, "rank"),
    ("2 Bordeaux (nego) hold more centres than D-Brane's 15.1", ("2b-on", LEARNT), 15.1, "centres"),
    ("2 Bordeaux rank better with negotiation than without", ("2b-on", LEARNT), ("2b-off", LEARNT), "rank"),
    ("DumbBot-copy model ranks better than learnt (2 Bordeaux, nego)", ("2b-on-copy", COPY), ("2b-on", LEARNT), "rank"),
)  # fmt: skip


def experiment(setup: Setup, opponent: str, games: int, seed: int, jobs: int, base: Path) -> Experiment:
    return Experiment(
        slots_from([*setup.bots, opponent]),
        games,
        seed,
        out_dir(base, f"{setup.key}-{opponent}"),
        jobs=min(jobs, games),
        settings=GameSettings(year_limit=1920),
        rounds=setup.rounds,
        rotate=True,
    )


def accuracy(name: str, opponent: str, games: int, seed: int, rounds: int = 3) -> list[float]:
    """The share of the other powers' orders ``name``'s model predicted, in each of the first
    ``games`` games of one ``name`` against six ``opponent`` (seed ``seed``, seats rotated):
    the same games the experiment plays, replayed here to read the bot's counts."""
    setups = Experiment(slots_from([name, opponent]), games, seed, Path("."), rounds=rounds, rotate=True).setups()
    shares = []
    for setup in setups:
        game_seed, *bot_seeds = seeds_for(setup.seed, 1 + len(setup.bots))
        bots = [make_bot(n, s) for n, s in zip(setup.bots, bot_seeds, strict=True)]
        InProcessGame(bots, game_seed, setup.settings, None, True, setup.rounds, setup.powers).play()
        bot = bots[0]
        shares.append(100 * bot.hits / max(1, bot.predicted))  # type: ignore[attr-defined]
    return shares


def print_setup(setup: Setup, run: Run | str, opponent: str) -> None:
    label = f"{setup.title} vs {7 - len(setup.bots)} {opponent_label(opponent)}"
    if isinstance(run, str):
        print(f"{label:<72} not played: {run}")
        return
    print(f"{label}  [{run.describe()}; {run.cpu / max(1, run.games):.1f} CPU s a game]")
    for bot in dict.fromkeys(setup.bots):
        print(
            f"  {bot:<24} {run.games:>5} {cell(run.estimate(bot, 'wins'), 1):>13}"
            f" {cell(run.estimate(bot, 'rank')):>12} {cell(run.estimate(bot, 'centres')):>13}"
        )
    if opponent == "dumbbot":
        for ref in setup.references:
            rank = "-" if ref.rank is None else f"{ref.rank:.2f}" + (f" ± {ref.rank_se:.2f}" if ref.rank_se else "")
            centres = "-" if ref.centres is None else f"{ref.centres:.1f}" + (f" ± {ref.centres_se:.1f}" if ref.centres_se else "")
            wins = "-" if ref.wins is None else f"{ref.wins:.1f}"
            print(f"  {'paper: ' + ref.source:<60} n = {ref.games:<4} wins {wins:>5}  rank {rank:>12}  centres {centres}")


def setup_rows(setup: Setup, run: Run | str, opponent: str) -> list[dict[str, Any]]:
    """The rows of a set-up in the record: each bot under test's figures, the papers' beside them."""
    where = "C++ DumbBots" if opponent.startswith("daide:") else "our DumbBots"
    head = {"setup": setup.title, "opponent": f"{7 - len(setup.bots)} {where}"}
    if isinstance(run, str):
        return [{**head, "note": f"not played: {run}"}]
    papers = "; ".join(reference_text(ref) for ref in setup.references) if opponent == "dumbbot" else None
    return [
        {
            **head,
            "bot": bot,
            "n": run.games,
            **figures("wins", run.estimate(bot, "wins"), 2),
            **figures("rank", run.estimate(bot, "rank")),
            **figures("centres", run.estimate(bot, "centres")),
            "cpu": number(run.cpu / max(1, run.games), 2),
            "papers": papers or None,
        }
        for bot in dict.fromkeys(setup.bots)
    ]


def reference_text(ref: Reference) -> str:
    parts = []
    if ref.wins is not None:
        parts.append(f"wins {ref.wins:g} %")
    if ref.rank is not None:
        parts.append(f"rank {ref.rank:g}" + (f" ± {ref.rank_se:g}" if ref.rank_se else ""))
    if ref.centres is not None:
        parts.append(f"centres {ref.centres:g}" + (f" ± {ref.centres_se:g}" if ref.centres_se else ""))
    return f"{ref.source} ({ref.games} games): {', '.join(parts)}"


SETUP_COLUMNS = (
    Column("setup", "set-up"),
    Column("opponent", "against"),
    Column("bot", "bot"),
    Column("n", "games", True),
    *estimate_columns("wins", "wins %"),
    *estimate_columns("rank", "rank"),
    *estimate_columns("centres", "centres"),
    Column("cpu", "CPU s/game", True),
    Column("papers", "the papers' figures"),
    Column("note", "note"),
)
ACCURACY_COLUMNS = (
    Column("model", "model"),
    Column("opponent", "against 6"),
    Column("n", "games", True),
    *estimate_columns("accuracy", "orders predicted %"),
    Column("low", "lowest %", True),
    Column("high", "highest %", True),
    Column("median", "median %", True),
)


def opponent_label(opponent: str) -> str:
    return "C++ DumbBots (daide)" if opponent.startswith("daide:") else "DumbBots (ours)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=70, help="games a set-up without negotiation (70); half with")
    parser.add_argument("--daide-games", dest="daide_games", type=int, default=14, help="games a set-up against C++ DumbBots (14)")
    parser.add_argument("--accuracy-games", dest="accuracy_games", type=int, default=6, help="games replayed for the prediction accuracy (6)")
    parser.add_argument("--quick", action="store_true", help="14 games a set-up (7 with negotiation), 4 against C++ DumbBots, 2 replayed")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--seed", type=int, default=1920)
    parser.add_argument("--only", default="", help="the set-ups whose key contains this text (1b, 2b-on, ...)")
    parser.add_argument("--out", type=Path, default=None, help="keep the games here (default: a temporary folder)")
    args = parser.parse_args()
    if args.quick:
        args.games, args.daide_games, args.accuracy_games = 14, 4, 2
    daide = daide_dumbbot()
    print_header("The Bordeaux diplomat against DumbBots, beside DipBlue and D-Brane")
    print(f"games to 1920, seats rotated, seed {args.seed} for every set-up (so set-ups pair on seeds), {args.jobs} jobs")
    print(f"C++ DumbBot: {daide or 'not used (DETENTE_DAIDE_CLIENT unset)'}")
    print("wins: % of the games won by the bot's powers (shared ties, added up for 2); rank: mean rank of its powers;")
    print("centres: its powers' centres at the end, added up; mean ± standard error over games (n games)")
    print()
    print(f"  {'bot':<24} {'n':>5} {'wins %':>13} {'rank':>12} {'centres':>13}")
    runs: dict[str, Run] = {}
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as scratch:
        base = args.out or Path(scratch)
        for setup in SETUPS:
            if args.only and args.only not in setup.key:
                continue
            games = max(2, args.games // 2 if setup.short else args.games)
            run = try_play(experiment(setup, "dumbbot", games, args.seed, args.jobs, base))
            print_setup(setup, run, "dumbbot")
            rows += setup_rows(setup, run, "dumbbot")
            if isinstance(run, Run):
                runs[setup.key] = run
        if daide:
            print()
            for setup in SETUPS:
                if setup.key not in DAIDE_SETUPS or (args.only and args.only not in setup.key):
                    continue
                run = try_play(experiment(setup, daide, args.daide_games, args.seed, args.jobs, base))
                print_setup(setup, run, daide)
                rows += setup_rows(setup, run, daide)
                if isinstance(run, Run):
                    runs[f"{setup.key}@daide"] = run
    print()
    accuracies: list[dict[str, Any]] = []
    if args.accuracy_games:
        print(f"prediction accuracy: % of the other powers' orders predicted (those RES used), per game;"
              f" the first {args.accuracy_games} games of '1 Bordeaux' (seed {args.seed}), replayed here")  # fmt: skip
        for name in (LEARNT, COPY):
            for opponent in ("dumbbot", "dbrane:nonego"):
                shares = accuracy(name, opponent, args.accuracy_games, args.seed)
                e = estimate(shares)
                accuracies.append({"model": name, "opponent": opponent, "n": e.n, **figures("accuracy", e, 2),
                                   "low": round(min(shares), 1), "high": round(max(shares), 1),
                                   "median": round(statistics.median(shares), 1)})  # fmt: skip
                print(f"  {name:<24} vs 6 {opponent:<14} {cell(e, 1):>12} %  (n = {e.n} games;"
                      f" {min(shares):.0f}-{max(shares):.0f} % per game, median {statistics.median(shares):.0f})")  # fmt: skip
        print()
    print("claims (t-test over games; 'holds' only at p < 0.05; vs a paper: one-sample, its error ignored)")
    claims: list[dict[str, Any]] = []
    for label, better, worse, measure in CLAIMS:
        for suffix, where in (("", "ours"), ("@daide", "C++")):
            b, w = (_side(runs, side, measure, suffix) for side in (better, worse))
            if b is None or w is None or (isinstance(b, float) and isinstance(w, float)):
                continue
            if isinstance(b, float):  # a paper's figure: a constant on the other side's games (a one-sample test)
                b = dict.fromkeys(w, b)  # type: ignore[arg-type]
            if isinstance(w, float):
                w = dict.fromkeys(b, w)
            claims.append(claim_result(f"{label} [{where} DumbBots]", b, w, lower_is_better=measure == "rank",
                                       external=where == "C++"))  # fmt: skip
            print(claim_text(claims[-1]))
    tables = [
        Table("Set-ups", SETUP_COLUMNS, rows, SETUPS_NOTE),
        Table("Prediction accuracy", ACCURACY_COLUMNS, accuracies, ACCURACY_NOTE.format(args.accuracy_games)),
        claims_table(claims),
    ]
    notes = [
        (
            f"Games to 1920, seats rotated, seed {args.seed} for every set-up (so set-ups pair on seeds),"
            f" {args.jobs} jobs; {args.games} games a set-up without negotiation, {max(2, args.games // 2)} with,"
            f" {args.daide_games} against C++ DumbBots ({daide or 'not played: DETENTE_DAIDE_CLIENT unset'})."
        )
    ]
    games = sum(r.games for r in runs.values())
    path = write(record("paper_bordeaux", "The Bordeaux diplomat against DumbBots, beside DipBlue and D-Brane",
                        command(), games, tables, seeds=[args.seed], notes=notes,
                        data={"games": args.games, "daide_games": args.daide_games,
                              "accuracy_games": args.accuracy_games, "only": args.only}))  # fmt: skip
    print(f"written to {path}")


SETUPS_NOTE = (
    "wins: % of the games won by the bot's powers (a tie shared; for two, added up, as D-Brane's table 3 counts"
    " a victory of D-Brane); rank: the mean rank of its powers (1 best, 7 worst); centres: its powers' centres at"
    " the end, added up; mean ± standard error over games. The papers' figures are beside the set-ups against our"
    " DumbBot, with their game counts."
)
ACCURACY_NOTE = (
    "The share of the other powers' orders each opponent model predicted (those RES used), per game, on the"
    " first {} games of the one-Bordeaux set-up, replayed in the benchmark's process (the same seeds)."
)


def _side(runs: dict[str, Run], side: tuple[str, str] | float, measure: str, suffix: str) -> dict[int, float] | float | None:
    """A side of a claim: a run's values by game seed, a paper's figure, or None where the run is missing."""
    if isinstance(side, float):
        return side
    key, bot = side
    run = runs.get(key + suffix)
    return None if run is None else run.per_game(bot, measure)

if __name__ == "__main__":
    main()

#!/usr/bin/env python
"""D-Brane against DumbBot: the experiments of de Jonge and Sierra (section 6), with our bots.

The paper plays ``n`` D-Branes against ``7 - n`` DumbBots to the year 1920 (a draw at winter
1920), the powers dealt at random. It reports, without negotiation and without implicit
agreements, the wins of the D-Branes for ``n = 2..5`` (table 3), their centres (table 1)
and, for two of them, their mean rank (table 2); with negotiation and implicit agreements,
the centres of two D-Branes (table 1: 17.9) and their rank (table 2: 2.35). We play the
same setups against our DumbBot, ``--games`` games a setting without negotiation (70) and
``--nego-games`` with it (35; the paper: 500 and 200), seats rotated (every slot plays
every power equally: ``Experiment(rotate=True)``), every setting from the same seed (so
settings pair on seeds), negotiation on the simulated clock of ``--rounds`` rounds a phase
(the paper: 5 seconds of wall clock), and print our figures beside the paper's.

How we count, as the paper does (section 6.3): a game is a *win* for the D-Branes when one
of them ends with the most centres; a tie for the most is shared, each tied power getting
an equal part (two D-Branes tied at the top: a whole win; a D-Brane tied with a DumbBot:
half). *Centres* are the D-Branes' centres together at the end. *Rank* is the mean rank of
the D-Branes, 1 for the most centres (ties share the ranks they span; an eliminated power
ranks below the survivors with as many centres, a later elimination above an earlier one:
``detente run``'s scoring). Mean ± standard error over games (:mod:`detente.stats`; the
D-Branes of one game are not independent).

Each of our figures is tested against the paper's (a one-sample t-test over games, the
paper's figure taken as a constant): *ours better* or *ours worse* at p < 0.05, else *no
difference shown*; and the paper's ordering "negotiation with implicit agreements ranks
better than no negotiation" is tested paired on the seeds (:mod:`paper_common`). When
``DETENTE_DAIDE_CLIENT`` names Norman's C++ DumbBot, settings 1 and 5 are played against
it too (``daide:PATH`` seats, ``--daide-games`` games from ``--daide-seed``, a seed no tuning
used: a real game server and negotiation server per game, the D-Branes negotiating there).

The figures are kept as ``benchmarks/results/paper_dbrane.json`` and rendered as
``docs/results/paper_dbrane.md`` (:mod:`benchmarks.results`; ``BENCHMARK_RESULTS=DIR`` sends a
trial run's elsewhere): every measure beside the paper's, with the test, and the ordering.

    .venv/bin/python benchmarks/paper_dbrane.py             # about 12 minutes on 2 cores
    .venv/bin/python benchmarks/paper_dbrane.py --quick     # about 2 minutes
"""

from __future__ import annotations

import argparse
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from machine import print_header
from paper_common import (
    ALPHA,
    Run,
    cell,
    claim_result,
    claim_text,
    claims_table,
    command,
    compare,
    daide_dumbbot,
    estimate_columns,
    figures,
    number,
    out_dir,
    p_value,
    talk_text,
    try_play,
)

from benchmarks.results import Column, Table, record, write
from detente.experiments import Experiment
from referee.settings import GameSettings


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


#: The settings played against the C++ DumbBot too.
DAIDE_SETTINGS = (1, 5)
MEASURES = {"wins %": "wins", "rank": "rank", "centres": "centres"}


def verdict(name: str, ours: dict[int, float], paper: float) -> str:
    """Ours against the paper's figure: a one-sample t-test over games (a lower rank is better)."""
    test = judge(name, ours, paper)
    if test is None:
        return "not tested (fewer than two games)"
    t = "-" if test["t"] is None else f"{test['t']:+5.2f}"
    return f"t {t:>5} p {test['p']:.3f}  {test['verdict']}"


def judge(name: str, ours: dict[int, float], paper: float) -> dict[str, Any] | None:
    """The one-sample t-test of ours against the paper's figure: t, p and the verdict (None: too few games)."""
    try:
        comparison, _ = compare(ours, dict.fromkeys(ours, paper))
    except ValueError:
        return None
    better = comparison.difference.mean < 0 if name == "rank" else comparison.difference.mean > 0
    shown = "no difference shown" if comparison.p >= ALPHA else f"ours {'better' if better else 'worse'}"
    return {"t": number(comparison.t), "p": p_value(comparison.p), "verdict": shown}


COLUMNS = (
    Column("setting", "setting"),
    Column("opponent", "against"),
    Column("n", "games", True),
    Column("measure", "measure"),
    *estimate_columns("paper", "paper"),
    *estimate_columns("ours", "ours"),
    Column("cpu", "CPU s/game", True),
    Column("messages", "messages a game", True),
    Column("deals", "deals a game", True),
    Column("t", "t", True),
    Column("p", "p", True),
    Column("verdict", "ours vs paper"),
)
NOTE = (
    "wins %: a game in which a D-Brane has the most centres (ties shared); rank: the D-Branes' mean rank (1 best);"
    " centres: the D-Branes' together at the end; mean ± standard error over games. Ours vs paper: a one-sample"
    " t-test over games, the paper's figure taken as a constant (against our DumbBot only): ours better or worse"
    " at p < 0.05, else no difference shown. CPU s/game: the bots and game master (and servers) together."
    " Messages and deals a game: the game's press messages and the deals the notary confirmed."
)


def run(setting: Setting, games: int, seed: int, jobs: int, rounds: int, out: Path, opponent: str = "dumbbot") -> Run | str:
    slots = (setting.bot,) * setting.n + (opponent,) * (7 - setting.n)
    folder = out_dir(out, f"{setting.bot}-{setting.n}-{'daide' if opponent != 'dumbbot' else 'ours'}")
    experiment = Experiment(
        slots, games, seed, folder, jobs=min(jobs, games), settings=GameSettings(year_limit=1920), rounds=rounds, rotate=True
    )
    return try_play(experiment)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=70, help="games per setting without negotiation (70)")
    parser.add_argument("--nego-games", dest="nego_games", type=int, default=35, help="games with negotiation (35)")
    parser.add_argument("--daide-games", dest="daide_games", type=int, default=70, help="games a setting against C++ DumbBots (70)")
    parser.add_argument("--daide-seed", dest="daide_seed", type=int, default=9001,
                        help="the seed of the games against C++ DumbBots (9001: never used to tune, docs/tuning.md)")
    parser.add_argument("--quick", action="store_true", help="14 games a setting, 7 with negotiation, 4 against C++ DumbBots")
    parser.add_argument("--rounds", type=int, default=3, help="negotiation rounds a phase (3)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (all cores)")
    parser.add_argument("--seed", type=int, default=2026, help="the seed of every setting (2026)")
    parser.add_argument("--only", default="", help="settings to play, by number from 1 (e.g. 1,5); all by default")
    parser.add_argument("--out", type=Path, default=None, help="where the games go (a temporary folder)")
    args = parser.parse_args()
    if args.quick:
        args.games, args.nego_games, args.daide_games = 14, 7, 4
    numbers = [int(i) for i in args.only.split(",") if i] or list(range(1, len(SETTINGS) + 1))
    daide = daide_dumbbot()
    print_header("D-Brane against DumbBot (de Jonge and Sierra, tables 1-3)")
    print(f"year limit 1920, seats rotated, seed {args.seed} for every setting, {args.jobs} jobs, negotiation: {args.rounds} rounds a phase")
    print(f"C++ DumbBot: {daide or 'not used (DETENTE_DAIDE_CLIENT unset)'}; mean ± standard error over games (n games)")
    header = f"{'setting':<52} {'n':>4}  {'measure':<8} {'paper':>12} {'ours':>15}  {'CPU s/game':>10}  ours vs paper (one-sample t-test)"
    print(header)
    print("-" * len(header))
    runs: dict[tuple[int, str], Run] = {}
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as scratch:
        out = args.out or Path(scratch)
        for opponent in ("dumbbot", daide):
            if opponent is None:
                continue
            where = "ours" if opponent == "dumbbot" else "C++"
            for index in numbers:
                if opponent != "dumbbot" and index not in DAIDE_SETTINGS:
                    continue
                setting = SETTINGS[index - 1]
                games = args.daide_games if opponent != "dumbbot" else (args.nego_games if setting.nego else args.games)
                seed = args.seed if opponent == "dumbbot" else args.daide_seed
                found = run(setting, games, seed, args.jobs, args.rounds, out, opponent)
                label = f"{setting.label} vs {where} DumbBots"
                if isinstance(found, str):
                    print(f"{label:<52} not played: {found}")
                    rows.append(
                        {"setting": setting.label, "opponent": f"{where} DumbBots", "verdict": f"not played: {found}"}
                    )
                    continue
                runs[(index, where)] = found
                first = True
                talk = found.talk()
                for name, measure in MEASURES.items():
                    ours = found.per_game(setting.bot, measure)
                    paper = setting.paper.get(name)
                    head = f"{label:<52} {found.games:>4}" if first else " " * 57
                    pace = f"{found.cpu / found.games:10.2f}" if first else " " * 10
                    shown = "-" if paper is None else str(paper)
                    judged = "" if paper is None or opponent != "dumbbot" else verdict(name, ours, paper.value)
                    test = None if paper is None or opponent != "dumbbot" else judge(name, ours, paper.value)
                    rows.append({
                        "setting": setting.label, "opponent": f"{where} DumbBots", "n": found.games, "measure": name,
                        "paper": None if paper is None else paper.value, "paper_se": None if paper is None else paper.se,
                        **figures("ours", found.estimate(setting.bot, measure)),
                        "cpu": number(found.cpu / found.games, 2) if first else None, **(test or {}),
                        **(talk if first else {}),
                    })  # fmt: skip
                    print(f"{head}  {name:<8} {shown:>12} {cell(found.estimate(setting.bot, measure)):>15}  {pace}  {judged}")
                    first = False
                print(f"{'':57}  {talk_text(found)}")
    print()
    print("the paper's ordering, tested over games (paired on seeds; 'holds' only at p < 0.05)")
    claims = []
    for where in ("ours", "C++"):
        on, off = runs.get((5, where)), runs.get((1, where))
        if on is None or off is None:
            continue
        external = where == "C++"
        claims.append(claim_result(f"2 D-Brane rank better with negotiation than without [{where}]",
                      on.per_game("dbrane", "rank"), off.per_game("dbrane:nonego", "rank"), lower_is_better=True,
                      talking=on, external=external))  # fmt: skip
        claims.append(claim_result(f"2 D-Brane hold more centres with negotiation than without [{where}]",
                      on.per_game("dbrane", "centres"), off.per_game("dbrane:nonego", "centres"), lower_is_better=False,
                      talking=on, external=external))  # fmt: skip
        print(claim_text(claims[-2]))
        print(claim_text(claims[-1]))
    print("wins: a D-Brane has the most centres (ties shared); CPU s/game: the bots and game master (and servers) together")
    notes = [
        (
            f"Year limit 1920, seats rotated, seed {args.seed} for every setting (so settings pair on seeds),"
            f" {args.jobs} jobs, negotiation on {args.rounds} rounds a phase; {args.games} games a setting without"
            f" negotiation, {args.nego_games} with (the paper: 500 and 200), {args.daide_games} against C++ DumbBots"
            f" from seed {args.daide_seed}, which no tuning used (docs/tuning.md); against them, pairing on seeds fixes"
            " the seats, not the C++ bots' choices (they seed themselves from the clock)"
            f" ({daide or 'not played: DETENTE_DAIDE_CLIENT unset'})."
        )
    ]
    tables = [
        Table("Settings, beside the paper's tables 1-3", COLUMNS, rows, NOTE),
        claims_table(claims, "The paper's ordering"),
    ]
    games = sum(r.games for r in runs.values())
    path = write(record("paper_dbrane", "D-Brane against DumbBot (de Jonge and Sierra, tables 1-3)", command(), games,
                        tables, seeds=[args.seed, args.daide_seed] if daide else [args.seed], notes=notes,
                        data={"games": args.games, "nego_games": args.nego_games, "daide_games": args.daide_games,
                              "daide_seed": args.daide_seed, "rounds": args.rounds, "only": args.only}))  # fmt: skip
    print(f"written to {path}")


if __name__ == "__main__":
    main()

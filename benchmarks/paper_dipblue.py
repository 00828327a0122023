#!/usr/bin/env python
"""DipBlue's table 1 (Ferreira, Lopes Cardoso and Reis, ICAART 2015): the nine scenarios against our DumbBot.

Each scenario is a ``detente run`` experiment (:func:`detente.experiments.run_experiment`:
in-process games on worker processes, scored as ``detente run`` scores them): seven slots,
the last bot filling the rest, seats rotated (every slot plays every power equally:
``Experiment(rotate=True)``), games to the end of 1920 (the paper states no year limit) or
a solo. The paper played 70 games a scenario; here a scenario without negotiation gets
``--games`` games (70) and one with a negotiating bot half of it. Every scenario is played
from the same seed, so the games of two scenarios pair on their seeds (the same game seeds,
the same powers for the same slots).

For every scenario and bot: the paper's figure where its text gives one (section 6.1:
NoPress 4.3 in scenario 1, DipBlue 4.63 in scenario 2; DipBlue 3.57 in scenario 5, from
its figure 4 as issue 7 quotes it), our mean rank (1 best, 7 worst), wins (% of the games
its powers won, shared by a tie) and final centres, each a mean ± standard error over
games (:mod:`detente.stats`: a bot in two slots is averaged over them in each game).
Then every ordering the paper's text states, and the paper's three figures, each as a
t-test over games (paired on the seeds; one-sample against a figure of the paper, taken as
a constant): an ordering *holds* only at p < 0.05 (:mod:`paper_common`). Then the time
the games took, and DipBlue's own time per phase, measured on a few games played in this
process.

When ``DETENTE_DAIDE_CLIENT`` names Norman's C++ DumbBot, scenarios 1, 2, 5, 6 and 10 are
played again with it in the DumbBots' seats (``daide:PATH``; ``--daide-games`` games from
``--daide-seed``, a seed no tuning used; a real game server and negotiation server per game,
the DipBlues negotiating there). Scenario 10 (two NoPress) is not the paper's: beside 6 (two
DipBlues) it measures negotiation on the seats it is played from.

The figures are kept as ``benchmarks/results/paper_dipblue.json`` and rendered as
``docs/results/paper_dipblue.md`` (:mod:`benchmarks.results`; ``BENCHMARK_RESULTS=DIR`` sends a
trial run's elsewhere): every scenario's figures beside the paper's, every claim, the times.

    .venv/bin/python benchmarks/paper_dipblue.py                 # about 10 minutes on 2 cores
    .venv/bin/python benchmarks/paper_dipblue.py --quick         # about 2 minutes
    .venv/bin/python benchmarks/paper_dipblue.py --scenarios 6,10 --games 280 --daide-games 200 \
        --record paper_dipblue_negotiation                       # negotiation's worth, at the n its SE needs
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import tempfile
import time
from collections.abc import Callable
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
    talk_of,
    try_play,
)

import bots.registry
from benchmarks.results import Column, Table, record, write
from bots.base import Bot
from bots.dipblue import DipBlue, DipBlueNaive
from bots.dumbbot import DumbBot
from bots.inprocess import InProcessGame, seeds_for
from detente.experiments import Experiment, slots_from
from referee.settings import GameSettings

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

    def title(self, opponent: str = "dumbbot") -> str:
        slots = slots_from([opponent if b == "dumbbot" else b for b in self.bots])
        counts = {name: slots.count(name) for name in dict.fromkeys(slots)}
        return " + ".join(f"{n}x {_label(name)}" for name, n in counts.items())


def _label(name: str) -> str:
    if name.startswith("daide:"):
        return "C++ DumbBot"
    return LABEL.get(name, "DumbBot")


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
    # not the paper's: the same table as 6 without negotiation, so that negotiation's worth is
    # measured on the seats it is played from (6 against 10, paired on the seeds)
    Scenario(10, ("dipblue:nopress", "dipblue:nopress", "dumbbot"), {}),
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
    ((6, "dipblue"), (10, "dipblue:nopress"), "two DipBlues do better negotiating than two NoPress"),
)


#: The scenarios played again against the C++ DumbBot when it is there.
DAIDE_SCENARIOS = (1, 2, 5, 6, 10)


def play(scenario: Scenario, games: int, seed: int, jobs: int, out: Path, opponent: str = "dumbbot") -> Run | str:
    """Play a scenario as ``detente run`` would, ``opponent`` in the DumbBots' slots (or why it could not be)."""
    bots = tuple(opponent if b == "dumbbot" else b for b in scenario.bots)
    experiment = Experiment(
        slots_from(bots), games, seed, out, min(jobs, games), GameSettings(year_limit=YEAR_LIMIT), rotate=True
    )
    return try_play(experiment)


def print_scenario(scenario: Scenario, run: Run | str, opponent: str = "dumbbot") -> None:
    if isinstance(run, str):
        print(f"scenario {scenario.number}: {scenario.title(opponent)}: not played: {run}")
        return
    print(f"scenario {scenario.number}: {scenario.title(opponent)}  [{run.describe()}]")
    for bot in dict.fromkeys(run.experiment.slots):
        paper = scenario.paper.get(bot) if opponent == "dumbbot" else None
        shown = f"{paper:.2f}" if paper is not None else "-"
        print(
            f"  {_label(bot):<11} {shown:>6}  {cell(run.estimate(bot, 'rank')):>12} {cell(run.estimate(bot, 'wins-each'), 1):>12}"
            f" {cell(run.estimate(bot, 'centres-each')):>13} {run.games * run.seats(bot):6}"
        )


def scenario_rows(scenario: Scenario, run: Run | str, opponent: str = "dumbbot") -> list[dict[str, Any]]:
    """The rows of a scenario in the record: each bot's figures, the paper's beside them."""
    head = {"scenario": scenario.number, "slots": scenario.title(opponent)}
    if isinstance(run, str):
        return [{**head, "note": f"not played: {run}"}]
    return [
        {
            **head,
            "bot": _label(bot),
            "paper": scenario.paper.get(bot) if opponent == "dumbbot" else None,
            **figures("rank", run.estimate(bot, "rank")),
            **figures("wins", run.estimate(bot, "wins-each"), 2),
            **figures("centres", run.estimate(bot, "centres-each")),
            "plays": run.games * run.seats(bot),
            "n": run.games,
        }
        for bot in dict.fromkeys(run.experiment.slots)
    ]


SCENARIO_COLUMNS = (
    Column("scenario", "scenario", True),
    Column("slots", "slots"),
    Column("bot", "bot"),
    Column("paper", "paper's rank", True),
    *estimate_columns("rank", "rank"),
    *estimate_columns("wins", "wins %"),
    *estimate_columns("centres", "centres"),
    Column("plays", "plays (seats)", True),
    Column("n", "games", True),
    Column("note", "note"),
)
SCENARIO_NOTE = (
    "rank: 1 best, 7 worst; wins: % of the games won (ties shared); centres at the end; mean ± standard error over"
    " games (a bot in two slots averaged over them in each game). The paper's figures (section 6.1; scenario 5 from"
    " its figure 4 as issue 7 quotes it) are beside the rows against our DumbBot."
)
TIME_COLUMNS = (
    Column("figure", "figure"),
    Column("games", "games", True),
    Column("wall_s", "wall s", True),
    Column("jobs", "jobs", True),
    Column("value", "CPU", True),
    Column("unit", "unit"),
    Column("goal", "goal"),
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
    parser.add_argument("--games", type=int, default=70, help="games a scenario without negotiation; half with (70)")
    parser.add_argument("--daide-games", dest="daide_games", type=int, default=70, help="games a scenario against C++ DumbBots (70)")
    parser.add_argument("--daide-seed", dest="daide_seed", type=int, default=9001,
                        help="the seed of the games against C++ DumbBots (9001: never used to tune, docs/tuning.md)")
    parser.add_argument("--quick", action="store_true", help="14 games a scenario (7 with negotiation), 4 against C++ DumbBots, 1 timed")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (cores)")
    parser.add_argument("--seed", type=int, default=2015, help="the seed of every scenario (2015)")
    parser.add_argument("--timing-games", dest="timing_games", type=int, default=4, help="games timed here (4)")
    parser.add_argument("--record", default="paper_dipblue", help="the name of the record written (paper_dipblue)")
    parser.add_argument("--scenarios", default="1-10", help="which scenarios, e.g. 1,2,5 or 3-6 (1-10)")
    args = parser.parse_args()
    if args.quick:
        args.games, args.daide_games, args.timing_games = 14, 4, 1
    wanted = _numbers(args.scenarios)
    daide = daide_dumbbot()

    print_header("DipBlue, table 1 of the paper, against our DumbBot (and Norman's C++ DumbBot)")
    print(f"games to {YEAR_LIMIT} or a solo; {args.games} games a scenario without negotiation, {args.games // 2} with;")
    print(f"seats rotated; seed {args.seed} for every scenario; {args.jobs} jobs; C++ DumbBot: {daide or 'not used (DETENTE_DAIDE_CLIENT unset)'}")
    print("rank: 1 best, 7 worst; wins: % of games won (ties shared); mean ± standard error over games (n games, plays = seats)")
    print()
    print(f"  {'bot':<11} {'paper':>6}  {'rank ± se':>12} {'win % ± se':>12} {'centres ± se':>13} {'plays':>6}")
    runs: dict[tuple[int, str], Run] = {}
    rows: list[dict[str, Any]] = []
    timings = []
    with tempfile.TemporaryDirectory() as tmp:
        for opponent in ("dumbbot", daide):
            if opponent is None:
                continue
            if opponent != "dumbbot":
                print()
            for scenario in SCENARIOS:
                if scenario.number not in wanted:
                    continue
                if opponent != "dumbbot" and (scenario.number not in DAIDE_SCENARIOS):
                    continue
                games = args.games // 2 if scenario.negotiates else args.games
                if opponent != "dumbbot":
                    games = args.daide_games
                where = "ours" if opponent == "dumbbot" else "daide"
                seed = args.seed if opponent == "dumbbot" else args.daide_seed
                run = play(scenario, games, seed, args.jobs, Path(tmp) / f"{scenario.number}-{where}", opponent)
                print_scenario(scenario, run, opponent)
                rows += scenario_rows(scenario, run, opponent)
                if isinstance(run, Run):
                    runs[(scenario.number, where)] = run
                    timings.append((scenario, where, run))
    print()
    print("the paper's figures and the orderings of section 6.1 (lower rank is better; t-test over games,")
    print("paired on seeds; vs a figure: one-sample, the figure a constant; 'holds' only at p < 0.05)")
    claims: list[dict[str, Any]] = []
    for where in ("ours", "daide"):
        for s in SCENARIOS:
            run = runs.get((s.number, where))
            if run is None:
                continue
            for bot, paper in s.paper.items():
                ours = run.per_game(bot, "rank")
                claim = f"sc. {s.number} {LABEL[bot]} ranks better than the paper's {paper:.2f}"
                claims.append(claim_result(f"{claim} [{where}]", ours, dict.fromkeys(ours, paper), lower_is_better=True,
                                           talking=talk_of(run, bot)))  # fmt: skip
                print(claim_text(claims[-1]))
        for better, worse, claim in ORDERINGS:
            b, w = runs.get((better[0], where)), runs.get((worse[0], where))
            if b is None or w is None:
                continue
            b_bot = better[1] if better[1] != "dumbbot" or where == "ours" else b.experiment.slots[-1]
            w_bot = worse[1] if worse[1] != "dumbbot" or where == "ours" else w.experiment.slots[-1]
            talking = talk_of(b, b_bot) or talk_of(w, w_bot)
            claims.append(claim_result(f"{claim} [{where}]", b.per_game(b_bot, "rank"), w.per_game(w_bot, "rank"), True,
                                       talking=talking, external=where == "daide"))  # fmt: skip
            print(claim_text(claims[-1]))
    print()
    print("time")
    times: list[dict[str, Any]] = []
    for scenario, where, run in timings:
        times.append({"figure": f"scenario {scenario.number} ({where})", "games": run.games, "wall_s": round(run.wall, 1),
                      "jobs": run.experiment.jobs, "value": number(run.cpu / run.games, 2), "unit": "s a game"})  # fmt: skip
        print(
            f"  scenario {scenario.number} ({where}): {run.games} games in {run.wall:6.1f} s on {run.experiment.jobs} jobs;"
            f" {run.cpu / run.games:5.2f} s of CPU a game"
        )
    if args.timing_games:
        mean, worst, phases = timed_games(args.timing_games, args.seed)
        print(
            f"  DipBlue and Naive, scenario 5, {args.timing_games} games here: {1000 * mean:.2f} ms of CPU a phase"
            f" on average, {1000 * worst:.1f} ms at most ({phases} bot-phases); goal under 20 ms"
        )
        here = f"DipBlue and Naive, scenario 5, in process ({phases} bot-phases)"
        times.append({"figure": f"{here}: mean", "games": args.timing_games, "value": number(1000 * mean, 2),
                      "unit": "ms a phase", "goal": "< 20 ms"})  # fmt: skip
        times.append({"figure": f"{here}: most", "games": args.timing_games, "value": number(1000 * worst, 1),
                      "unit": "ms a phase"})  # fmt: skip
    notes = [
        (
            f"Games to {YEAR_LIMIT} or a solo; {args.games} games a scenario without negotiation, {args.games // 2}"
            f" with (the paper: 70); seats rotated; seed {args.seed} for every scenario (so scenarios pair on seeds);"
            f" {args.jobs} jobs; {args.daide_games} games a scenario against C++ DumbBots from seed {args.daide_seed},"
            " which no tuning used (docs/tuning.md); against them, pairing on seeds fixes the seats, not the C++ bots'"
            f" choices (they seed themselves from the clock) ({daide or 'not played: DETENTE_DAIDE_CLIENT unset'})."
        )
    ]
    tables = [
        Table("Scenarios (table 1)", SCENARIO_COLUMNS, rows, SCENARIO_NOTE),
        claims_table(claims, "The paper's figures and the orderings of section 6.1 (a lower rank is better)"),
        Table("Time", TIME_COLUMNS, times),
    ]
    games = sum(r.games for r in runs.values())
    path = write(record(args.record, "DipBlue, table 1 of the paper, against our DumbBot (and the C++ one)",
                        command(), games, tables, seeds=[args.seed, args.daide_seed] if daide else [args.seed], notes=notes,
                        data={"games": args.games, "daide_games": args.daide_games,
                              "timing_games": args.timing_games, "scenarios": sorted(wanted)}))  # fmt: skip
    print(f"written to {path}")


def _numbers(text: str) -> set[int]:
    found: set[int] = set()
    for part in text.split(","):
        low, _, high = part.partition("-")
        found.update(range(int(low), int(high or low) + 1))
    return found


if __name__ == "__main__":
    main()

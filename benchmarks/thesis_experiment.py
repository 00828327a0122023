#!/usr/bin/env python
"""The DipGame thesis's experiment (Fabregues 2012, section 6.6, figure 6.17), with our agents.

Eight sessions: session ``k`` plays ``k`` negotiating agents (``thesis66``) and ``7 - k``
non-negotiating ones (``thesis66:nonego``), which share the game strategy of section 6.6.2
(see :mod:`bots.thesis66`); 100 games a session, each to a solo or to the end of 1920.
A game's win goes to the solo, or at 1920 to the power with the most centres, a tie split
equally (``detente run``'s scoring). For each session we print the share of the wins that
went to the negotiating agents, with its standard error over games (per game the share is
the sum of the negotiating agents' wins, 0 to 1), against the share expected if all agents
were equal, ``k / 7``. The thesis's figure 6.17 draws the same lines (and their mirror, the
non-negotiating agents' share against ``(7 - k) / 7``); its text gives no values, only that
the negotiating agents won more than expected.

Every session plays the same game seeds (``--seed``). The powers the negotiating agents hold
cycle through every set of ``k`` powers (``itertools.combinations`` order: game ``n`` of session
``k`` has the ``n``-th set, modulo their number), so each set, and each power, is a
negotiator's equally often, as the thesis's "distribution of powers among agents per session
was uniform" asks. This matters more than it seems: the strategy draws at random only between
equal values, so a game is nearly fixed by which powers negotiate, and a rotation of seven
shifts would give at most seven different games a session. Negotiation runs on the simulated
clock of ``--rounds`` rounds per movement phase (the thesis: 5 minutes of wall clock).

The thesis needed 17 days for its 800 games on one PC (and ran them on a supercomputer);
our goal is the 800 games in under 5 minutes of wall time on a 2-core machine. The last
lines compare the wall time with the goal and give the CPU time of the games, which a busy
machine does not inflate. ``detente report OUT -o report.html`` draws figure 6.17 again
from the session directories ``OUT/session-0`` ... ``OUT/session-7``. The figures are kept as
``benchmarks/results/thesis_experiment.json`` and rendered as ``docs/results/thesis_experiment.md``
(:mod:`benchmarks.results`; ``BENCHMARK_RESULTS=DIR`` sends a trial run's elsewhere).

    .venv/bin/python benchmarks/thesis_experiment.py --out /tmp/thesis66      # the 800 games
    .venv/bin/python benchmarks/thesis_experiment.py --games 4 --year 1905     # a quick look
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import resource
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from machine import print_header

from benchmarks.results import Column, Table, record, write
from bots.inprocess import GameSetup, play_game
from detente.experiments import STANDARD_POWERS as POWERS
from detente.experiments import Experiment, run_experiment
from detente.stats import estimate
from referee.settings import GameSettings

NEGOTIATOR = "thesis66"
NON_NEGOTIATOR = "thesis66:nonego"
GOAL_SECONDS = 300.0
THESIS_DAYS = 17
#: Figure 6.17's values as the thesis's text gives them: none (it is a chart); the text says
#: only that the negotiating agents' percentage of victories is larger than expected.
THESIS_FIGURE: Mapping[int, float] = {}


def slots(k: int) -> tuple[str, ...]:
    """The seven slots of session ``k``: ``k`` negotiating agents, then the others."""
    return (NEGOTIATOR,) * k + (NON_NEGOTIATOR,) * (7 - k)


def negotiating_powers(k: int, games: int) -> tuple[tuple[str, ...], ...]:
    """The power of each slot in each game of session ``k``: the negotiators' powers cycle through
    every set of ``k`` powers, the others take the rest in order.

    >>> design = negotiating_powers(2, 21)
    >>> len({frozenset(game[:2]) for game in design}), design[0][:2]
    (21, ('AUS', 'ENG'))
    """
    sets = list(itertools.combinations(POWERS, k))
    return tuple(
        (*chosen, *(p for p in POWERS if p not in chosen)) for chosen in (sets[n % len(sets)] for n in range(games))
    )


def shares(lines: Sequence[Mapping]) -> list[float]:
    """Per game, the negotiating agents' share of the win (0 to 1; a tie at the top split)."""
    return [math.fsum(s["win"] for s in line["scores"].values() if s["bot"] == NEGOTIATOR) for line in lines]


def deals(folder: Path, lines: Sequence[Mapping]) -> tuple[int, int]:
    """The deals confirmed and the proposals made in the session's games."""
    confirmed = proposals = 0
    for line in lines:
        record = json.loads((folder / "games" / f"{line['game']}.json").read_text(encoding="utf-8"))
        confirmed += sum(1 for event in record.get("events", ()) if event.get("type") == "confirmed")
        proposals += sum(1 for message in record.get("messages", ()) if message.get("kind") == "propose")
    return confirmed, proposals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100, help="games per session (100)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (all cores)")
    parser.add_argument("--seed", type=int, default=2012, help="the seed of every session's games (2012)")
    parser.add_argument("--rounds", type=int, default=3, help="negotiation rounds per movement phase (3)")
    parser.add_argument("--year", type=int, default=1920, help="the last year played (1920)")
    parser.add_argument("--sessions", default="0-7", help="the sessions to play, e.g. 0-7 or 0,3,7 (0-7)")
    parser.add_argument("--out", type=Path, default=None, help="where the sessions go (a temporary folder)")
    args = parser.parse_args()
    chosen = sorted({k for part in args.sessions.split(",") for k in _span(part)})

    print_header("The DipGame thesis's experiment (Fabregues 2012, section 6.6, figure 6.17)")
    print(
        f"{args.games} games a session to a solo or {args.year}, seed {args.seed} for every session,"
        f" {args.jobs} jobs, {args.rounds} negotiation rounds per movement phase"
    )
    print(f"agents: {NEGOTIATOR} (negotiates) and {NON_NEGOTIATOR} (does not), one game strategy")
    print("powers: the negotiators' cycle through every set of k powers (each set equally often)")
    # warm the caches of the map and the spreads once, so that forked workers inherit them
    play_game(GameSetup(seed=0, bots=slots(1), settings=GameSettings(year_limit=1901)))
    header = (
        f"{'k':>2} {'games':>5} {'solos':>5}  {'neg. wins':>15}  {'expected':>8}  {'thesis':>6}"
        f"  {'(obs-exp)/se':>12}  {'deals/game':>10} {'proposals/game':>14}  {'endings':>7}  {'wall s':>7}"
    )
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as scratch:
        out = args.out or Path(scratch)
        out.mkdir(parents=True, exist_ok=True)
        print(f"run directories: {out}/session-<k>")
        print()
        print(header)
        print("-" * len(header))
        cpu_before = _cpu()
        started = time.perf_counter()
        for k in chosen:
            folder = out / f"session-{k}"
            settings = GameSettings(year_limit=args.year)
            experiment = Experiment(
                slots(k),
                args.games,
                args.seed,
                folder,
                jobs=args.jobs,
                settings=settings,
                rounds=args.rounds,
                powers=negotiating_powers(k, args.games),
            )
            begun = time.perf_counter()
            run_experiment(experiment)
            wall = time.perf_counter() - begun
            lines = [json.loads(t) for t in (folder / "games.jsonl").read_text(encoding="utf-8").splitlines() if t]
            share = estimate(shares(lines))
            mean, se = share.mean, share.se if share.se is not None else float("nan")
            expected = k / 7
            z = (mean - expected) / se if se and se > 0 and not math.isnan(se) else float("nan")
            confirmed, proposals = deals(folder, lines)
            solos = sum(1 for line in lines if line["outcome"] == "solo")
            endings = len({tuple(sorted(line["final_centres"].items())) for line in lines})
            thesis = f"{100 * THESIS_FIGURE[k]:5.1f}%" if k in THESIS_FIGURE else "-"
            rows.append(
                {
                    "k": k,
                    "games": len(lines),
                    "solos": solos,
                    "share": round(100 * mean, 2),
                    "share_se": None if math.isnan(se) else round(100 * se, 2),
                    "expected": round(100 * expected, 2),
                    "thesis": round(100 * THESIS_FIGURE[k], 2) if k in THESIS_FIGURE else None,
                    "z": None if math.isnan(z) else round(z, 2),
                    "deals": round(confirmed / len(lines), 2),
                    "proposals": round(proposals / len(lines), 1),
                    "endings": endings,
                    "wall_s": round(wall, 1),
                }
            )
            print(
                f"{k:>2} {len(lines):>5} {solos:>5}  {100 * mean:6.1f}% ± {100 * se:4.1f}  {100 * expected:7.1f}%"
                f"  {thesis:>6}  {_z(z):>12}  {confirmed / len(lines):>10.2f} {proposals / len(lines):>14.1f}"
                f"  {endings:>7}  {wall:>7.1f}",
                flush=True,
            )
        total = time.perf_counter() - started
        cpu = _cpu() - cpu_before
    games = args.games * len(chosen)
    print()
    print(
        "neg. wins: the negotiating agents' share of the wins, ± its standard error over games;"
        " expected: k/7; thesis: figure 6.17 (its text gives no values, only that the negotiating"
        " agents won more than expected); endings: the distinct final centre counts among the session's games"
        " (the strategy draws only between equal values, so games with the same negotiating powers tend to be"
        " the same game: the standard errors over games are then nominal)"
    )
    print(
        f"wall time: {total:.1f} s for {games} games ({total / max(games, 1):.3f} s/game with {args.jobs} jobs);"
        f" goal: 800 games in {GOAL_SECONDS:.0f} s, so {GOAL_SECONDS * games / 800:.0f} s for these {games}"
    )
    scaled_goal = GOAL_SECONDS * games / 800
    verdict = "met" if total < scaled_goal else f"missed by {total - scaled_goal:.0f} s ({total / scaled_goal:.2f}x)"
    print(f"goal {verdict}; CPU time of the games {cpu:.1f} s ({cpu / max(games, 1):.3f} s/game)")
    print(f"DipGame: 800 games in {THESIS_DAYS} days on one PC (the thesis, section 6.6.4)")
    path = write(
        record(
            "thesis_experiment",
            "The DipGame thesis's experiment (Fabregues 2012, section 6.6, figure 6.17)",
            " ".join([".venv/bin/python", "benchmarks/thesis_experiment.py", *sys.argv[1:]]),
            games,
            [sessions_table(rows), speed_table(total, cpu, games, args.jobs)],
            seeds=[args.seed],
            notes=[
                (
                    f"{args.games} games a session to a solo or {args.year}, the same game seeds ({args.seed}) in"
                    f" every session, {args.jobs} jobs, {args.rounds} negotiation rounds a movement phase; agents"
                    f" {NEGOTIATOR} (negotiates) and {NON_NEGOTIATOR} (does not), one game strategy; the"
                    " negotiators' powers cycle through every set of k powers."
                )
            ],
            data={
                "games_per_session": args.games,
                "year": args.year,
                "rounds": args.rounds,
                "jobs": args.jobs,
                "sessions": chosen,
            },
        )
    )
    print(f"written to {path}")


SESSION_COLUMNS = (
    Column("k", "k (negotiators)", True),
    Column("games", "games", True),
    Column("solos", "solos", True),
    Column("share", "negotiators' share of wins %", True),
    Column("share_se", "± se", True),
    Column("expected", "expected k/7 %", True),
    Column("thesis", "thesis (fig. 6.17) %", True),
    Column("z", "(obs − exp)/se", True),
    Column("deals", "deals confirmed / game", True),
    Column("proposals", "proposals / game", True),
    Column("endings", "distinct endings", True),
    Column("wall_s", "wall s", True),
)


def sessions_table(rows: Sequence[Mapping[str, Any]]) -> Table:
    return Table(
        "Sessions",
        SESSION_COLUMNS,
        list(rows),
        "Share: the negotiating agents' share of the wins, ± its standard error over games; expected: k/7;"
        " thesis: figure 6.17 is a chart, and its text gives no values, only that the negotiating agents won"
        " more than expected. Distinct endings: the different final centre counts among the session's games"
        " (the strategy draws only between equal values, so the standard errors over games are nominal).",
    )


def speed_table(total: float, cpu: float, games: int, jobs: int) -> Table:
    scaled_goal = GOAL_SECONDS * games / 800
    dipgame = THESIS_DAYS * 86400 / 800
    goal = f"goal < {scaled_goal:.0f} s ({GOAL_SECONDS:.0f} s for 800 games)"
    dipgame_text = f"DipGame: 800 games in {THESIS_DAYS} days on one PC ({dipgame:.0f} s a game)"
    rows = [
        {"figure": f"wall s for {games} games ({jobs} jobs)", "value": round(total, 1), "reference": goal},
        {"figure": "wall s a game", "value": round(total / max(games, 1), 3), "reference": dipgame_text},
        {"figure": "CPU s of the games", "value": round(cpu, 1)},
        {"figure": "CPU s a game", "value": round(cpu / max(games, 1), 3)},
    ]
    rows[0]["met"] = total < scaled_goal
    return Table("Speed", SPEED_COLUMNS, rows)


SPEED_COLUMNS = (
    Column("figure", "figure"),
    Column("value", "ours", True),
    Column("reference", "reference"),
    Column("met", "goal met"),
)


def _span(part: str) -> range:
    first, _, last = part.partition("-")
    return range(int(first), int(last or first) + 1)


def _z(z: float) -> str:
    return "-" if math.isnan(z) else f"{z:+.2f}"


def _cpu() -> float:
    """CPU seconds of this process and of its finished children (the workers)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


if __name__ == "__main__":
    main()

"""``detente tournament``: every bot alone against a field of every other; ratings, cross-play, paired comparisons.

``detente tournament --bots dumbbot,randombot,holdbot --games 21 --seed 1 --out DIR [--jobs J]
[--year-limit Y] [--setups 1v6,6v1] [--opponents x,y] [--score SYSTEM]`` plays the set-ups of
:mod:`detente.tournament` one after the other (each one's games in ``--jobs`` processes), each
into its own ``detente run`` directory under ``DIR``, says on standard error how each went,
and prints the ratings, the scores of the lone seat, the cross-play matrix and the paired
comparisons. Ctrl-C stops it at once with one line (exit status 130), every finished game
kept; run again with the same options and ``--out``, it plays only the games not yet
finished (the set-ups complete are kept whole, a set-up stopped half-way keeps its finished
games in order). Bad options get one line on standard error and exit status 2.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from bots.registry import LLM_PREFIX, UnknownBot, bot_class
from detente import game_options, llm_options
from detente.diplomacy import format_diplomacy
from detente.experiments import Progress, format_usage, new_seed
from detente.scoring import SYSTEMS
from detente.tournament import (
    POWERS,
    SetUp,
    Tournament,
    TournamentError,
    complete_setup,
    format_analysis,
    model_seats,
    run_tournament,
)

__all__ = ["add_arguments", "run"]


def _names(text: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(n.strip() for n in text.split(",") if n.strip()))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``detente tournament``."""
    parser.add_argument(
        "--bots",
        required=True,
        help="the bots, comma-separated (at least two, unless --opponents names others): bot names, bots of"
        " your own (FILE.py:Class) or model seats (llm:MODEL@URL)",
    )
    parser.add_argument("--games", type=int, required=True, help="games per set-up (a multiple of 7 balances seats)")
    parser.add_argument("--seed", type=int, help="the seed of every set-up (default: a new one, recorded)")
    parser.add_argument("--out", required=True, type=Path, help="the directory to write (one sub-directory a set-up)")
    parser.add_argument(
        "--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (default: the number of cores)"
    )
    game_options.add_arguments(parser, ("map", "year_limit"))
    parser.add_argument(
        "--setups",
        default="1v6",
        help="the set-ups of each ordered pair (A, B), comma-separated: 1v6 (one A, six B), 6v1 (six A, one B)",
    )
    parser.add_argument(
        "--opponents",
        help="the fields, comma-separated: pairs are then a bot of --bots and one of these (default: --bots)",
    )
    parser.add_argument(
        "--score",
        choices=SYSTEMS,
        default="sum-of-squares",
        help="the scoring system of the printed cross-play matrix and paired comparisons",
    )
    game_options.add_arguments(parser, ("rounds",))
    llm_options.add_arguments(parser)


def run(args: argparse.Namespace) -> int:
    """Check the options, play the set-ups, print the tables; exit status 2 for bad options."""

    def fail(message: str) -> int:
        print(f"detente tournament: {message}", file=sys.stderr)
        return 2

    bots = _names(args.bots)
    opponents = _names(args.opponents) if args.opponents is not None else None
    kinds = _names(args.setups)
    try:
        for name in dict.fromkeys([*bots, *(opponents or ())]):
            bot_class(name)
        llm = llm_options.options_from(args)
        llm_options.check_seats([*bots, *(opponents or ())], llm)
    except (UnknownBot, ValueError) as error:  # ConfigError is a ValueError
        return fail(str(error))
    if not bots or (opponents is not None and not opponents):
        return fail("--bots and --opponents each name one bot at least")
    if args.games < 1:
        return fail("--games must be at least 1")
    if args.jobs < 1:
        return fail("--jobs must be at least 1")
    try:
        settings = game_options.settings_from(args, "tournament")
        rounds = game_options.rounds_from(args)
    except ValueError as error:
        return fail(str(error))
    if len(settings.board.powers) != POWERS:  # its setups are one against six and six against one
        return fail(f"--map: a tournament's setups are 1v6 and 6v1: the map {settings.map} has {len(settings.board.powers)} powers, not {POWERS}")
    tournament = Tournament(
        bots=bots,
        games=args.games,
        seed=args.seed if args.seed is not None else new_seed(),
        out=args.out,
        kinds=kinds,
        opponents=opponents,
        jobs=min(args.jobs, args.games),
        settings=settings,
        rounds=rounds,
        score=args.score,
        llm=llm,
    )
    try:
        setups = tournament.set_ups()
    except TournamentError as error:
        return fail(str(error))
    bars: dict[int, Progress] = {}
    clock = time.monotonic()

    def started(i: int, setup: SetUp, kept: int) -> Callable[[int], None]:
        if kept:
            print(
                f"detente tournament: set-up {i + 1}/{len(setups)} {setup.name}: resuming, {kept} of"
                f" {tournament.games} games kept",
                file=sys.stderr,
            )
        bars[i] = Progress(tournament.games, sys.stderr, enabled=sys.stderr.isatty())
        return bars[i].update

    def finished(i: int, setup: SetUp, summary: Mapping[str, Any] | None) -> None:
        where = f"set-up {i + 1}/{len(setups)} {setup.name}"
        if summary is None:
            print(f"detente tournament: {where}: complete already, kept", file=sys.stderr)
            return
        seconds = bars.pop(i).close()
        print(
            f"detente tournament: {where}: {summary['games']} games in {seconds:.1f} s;"
            f" {summary['solos']} solos, {summary['draws']} draws",
            file=sys.stderr,
        )

    try:
        analysis = run_tournament(tournament, started, finished)
    except TournamentError as error:
        return fail(str(error))
    except KeyboardInterrupt:
        for bar in bars.values():
            bar.close()
        complete = sum(1 for setup in setups if complete_setup(setup, tournament))
        print(
            f"detente tournament: stopped; {complete} of {len(setups)} set-ups complete and every finished game"
            f" kept in {tournament.out}: the same command resumes",
            file=sys.stderr,
        )
        return 130
    print(
        f"detente tournament: {len(setups)} set-ups of {tournament.games} games in {time.monotonic() - clock:.1f} s"
        f" ({tournament.jobs} jobs), seed {tournament.seed}; written to {tournament.out}",
        file=sys.stderr,
    )
    print(format_analysis(analysis, args.score))
    if any(name.startswith(LLM_PREFIX) for name in [*bots, *(opponents or ())]):
        usage, diplomacy = model_seats(tournament.out)
        print("\nModel seats, over every set-up:")
        print(format_usage(usage))
        print("\nVerifiable diplomacy, over every set-up (the same seeds in each):")
        print(format_diplomacy(diplomacy))
    return 0

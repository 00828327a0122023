"""``detente run``: play many in-process games between bots and summarise them per bot.

``detente run --bots dumbbot,randombot --games 200 --seed 1 --jobs 2 --year-limit 1920 --out DIR``
plays the games in ``--jobs`` worker processes with a progress bar on a terminal, writes
``DIR`` (formats in :mod:`detente.experiments`) and prints the table per bot. ``--ray
[ADDRESS]`` plays them as tasks on a Ray cluster instead (a new local one of ``--jobs``
CPUs without an address; :mod:`detente.ray_runner`), with the same files for the same seed. ``--l-levels``,
``--protocol``, ``--binding``, ``--rounds`` and ``--press-level`` govern the negotiation of
every game, in process or, with ``daide:PATH`` seats, on a negotiation server of the game's
own (:mod:`detente.daide_game`; the programs get no press, so ``--press-level`` stays below
10 there). The table gives, per bot, the L messages its seats said and the confirmed deals
they took part in, a game; a run whose negotiating bots said nothing says so under it.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
from pathlib import Path

from bots.registry import UnknownBot, bot_class
from detente import game_options, llm_options, ray_runner
from detente.daide_game import check_press, is_daide, program_of
from detente.diplomacy import format_diplomacy, read_records, summarise_diplomacy
from detente.experiments import (
    RUN_FILE,
    Experiment,
    GameRunner,
    Progress,
    format_table,
    format_usage,
    kept_lines,
    new_seed,
    run_experiment,
    slots_from,
)
from formats import jsonio

__all__ = ["add_arguments", "run"]

LOCAL = "local"
"""``--ray`` without an address: a new local cluster."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``detente run``."""
    parser.add_argument(
        "--bots",
        required=True,
        help="one to seven seats, comma-separated, the last filling the remaining slots: bot names"
        " (e.g. dumbbot,randombot), bots of your own (FILE.py:Class), model seats (llm:MODEL@URL) or DAIDE"
        " programs (daide:PATH)",
    )
    parser.add_argument("--games", type=int, required=True, help="how many games to play")
    parser.add_argument("--seed", type=int, help="the seed of the whole run (default: a new one, recorded)")
    parser.add_argument(
        "--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (default: the number of cores)"
    )
    parser.add_argument(
        "--ray",
        nargs="?",
        const=LOCAL,
        metavar="ADDRESS",
        help="play the games as tasks on the Ray cluster at ADDRESS (HOST:6379, auto, ray://HOST:10001),"
        " or on a new local one of --jobs CPUs without an address; needs pip install 'detente[ray]'",
    )
    parser.add_argument(
        "--rotate",
        action="store_true",
        help="balanced seats: every slot plays every power once in each block of seven games"
        " (default: powers dealt at random from the seed)",
    )
    # in process there is no clock: no --deadlines
    game_options.add_arguments(parser, ("map", "year_limit", "l_levels", "protocol", "binding", "rounds", "press_level"))
    parser.add_argument(
        "--out",
        required=True,
        type=Path,
        help="the directory to write (an unfinished run there, stopped with Ctrl-C, is resumed by the same options)",
    )
    parser.add_argument(
        "--format",
        dest="formats",
        action="append",
        choices=("mila",),
        default=[],
        help="also write each game in this format beside games/<n>.json: mila writes games/<n>.mila.json,"
        " MILA's saved-game JSON (repeatable)",
    )
    llm_options.add_arguments(parser)


def _seed(asked: int | None, resumed: dict[str, object] | None) -> int:
    """The run's seed: the one asked for, else the unfinished run's (a resume), else a new one."""
    if asked is not None:
        return asked
    stored = resumed.get("seed") if resumed else None
    return stored if isinstance(stored, int) else new_seed()


def resumable(out: Path) -> dict[str, object] | str | None:
    """What ``out`` holds: nothing of a run (None), an unfinished run to resume (what it is), or
    why it cannot be used (one line)."""
    if not (out / "games.jsonl").exists():
        return None
    if (out / "summary.json").exists() or not (out / RUN_FILE).exists():
        return f"{out} already holds a finished run (games.jsonl): choose another --out or remove it"
    try:
        identity = jsonio.loads((out / RUN_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return f"{out}/{RUN_FILE} cannot be read: choose another --out or remove it"
    return identity if isinstance(identity, dict) else f"{out}/{RUN_FILE} is not a run: choose another --out"


def _no_negotiation(table: list[dict[str, object]]) -> list[str]:
    """The lines under the table for its negotiating bots that made no deal (none: no line).

    >>> _no_negotiation([{"bot": "dbrane", "said": 0.0, "deals": 0.0}, {"bot": "dumbbot", "said": 0.0, "deals": 0.0}])
    ['No negotiation: dbrane negotiates, yet said no message; no figure here compares negotiating with not.']
    >>> _no_negotiation([{"bot": "dbrane", "said": 6.5, "deals": 0.0}])
    ['No deal: dbrane said 6.5 messages a seat a game, yet made no deal; no figure here compares negotiating with not.']
    """
    lines = []
    for row in table:
        name, said, deals = str(row["bot"]), row.get("said"), row.get("deals")
        if is_daide(name) or not bot_class(name).negotiates or deals != 0 or not isinstance(said, float):
            continue
        if said == 0:
            lines.append(f"No negotiation: {name} negotiates, yet said no message; " + _NO_COMPARISON)
        else:
            lines.append(f"No deal: {name} said {said:.1f} messages a seat a game, yet made no deal; " + _NO_COMPARISON)
    return lines


_NO_COMPARISON = "no figure here compares negotiating with not."


def run(args: argparse.Namespace) -> int:
    """Check the options, play the games, print the table; exit status 2 for bad options."""

    def fail(message: str) -> int:
        print(f"detente run: {message}", file=sys.stderr)
        return 2

    try:
        settings = game_options.settings_from(args, "experiment")
        slots = slots_from(args.bots.split(","), len(settings.board.powers))
        for name in dict.fromkeys(slots):
            if is_daide(name):
                program_of(name)
            else:
                bot_class(name)
        if any(map(is_daide, slots)):
            check_press(settings)
        llm = llm_options.options_from(args)
        llm_options.check_seats(slots, llm)
    except (ValueError, UnknownBot) as error:  # ConfigError is a ValueError
        return fail(str(error))
    try:
        rounds = game_options.rounds_from(args)
    except ValueError as error:
        return fail(str(error))
    if args.games < 1:
        return fail("--games must be at least 1")
    if args.jobs < 1:
        return fail("--jobs must be at least 1")
    resumed = resumable(args.out)
    if isinstance(resumed, str):
        return fail(resumed)
    if args.ray is not None:
        try:
            ray_runner.import_ray()
        except ray_runner.RayMissing as error:
            return fail(str(error))
    experiment = Experiment(
        slots=slots,
        games=args.games,
        seed=_seed(args.seed, resumed),
        out=args.out,
        jobs=min(args.jobs, args.games),
        settings=settings,
        rounds=rounds,
        rotate=args.rotate,
        formats=tuple(dict.fromkeys(args.formats)),
        llm=llm,
    )
    runner: GameRunner | None = None
    where = f"{experiment.jobs} jobs"
    if args.ray is not None:
        address = None if args.ray == LOCAL else args.ray
        runner = functools.partial(ray_runner.games_on_ray, address=address, num_cpus=experiment.jobs)
        where = f"Ray at {address}" if address is not None else f"a local Ray cluster of {experiment.jobs} CPUs"
    kept: list[dict[str, object]] = []
    if resumed:
        if resumed != experiment.identity():
            differs = ", ".join(k for k in experiment.identity() if experiment.identity()[k] != resumed.get(k))
            return fail(
                f"{args.out} holds an unfinished run with other options ({differs} differ): give the same options"
                " to resume it, or another --out"
            )
        kept = kept_lines(args.out)
        print(f"detente run: resuming {args.out}: {len(kept)} of {experiment.games} games kept", file=sys.stderr)
    bar = Progress(experiment.games, sys.stderr, enabled=sys.stderr.isatty())
    try:
        summary = run_experiment(experiment, bar.update, runner, kept)
    except KeyboardInterrupt:
        bar.close()
        done = len(kept_lines(args.out))
        print(
            f"detente run: stopped; {done} of {experiment.games} games kept in {args.out}: the same command resumes",
            file=sys.stderr,
        )
        return 130
    except ConnectionError as error:
        if runner is None:
            raise
        bar.close()
        print(f"detente run: cannot reach the Ray cluster: {error}", file=sys.stderr)
        return 1
    seconds = bar.close()
    print(
        f"detente run: {summary['games']} games in {seconds:.1f} s ({seconds / summary['games']:.2f} s a game,"
        f" {where}), seed {experiment.seed}; {summary['solos']} solos, {summary['draws']} draws;"
        f" written to {experiment.out}",
        file=sys.stderr,
    )
    print(format_table(summary["table"]))
    for line in _no_negotiation(summary["table"]):
        print(f"\n{line}")
    if summary.get("llm"):
        print("\nModel seats:")
        print(format_usage(summary["llm"]))
        print("\nVerifiable diplomacy:")
        print(format_diplomacy(summarise_diplomacy(read_records(experiment.out))))
    return 0

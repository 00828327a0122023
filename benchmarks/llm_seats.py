"""Model seats: the seat's own cost per call, without the model, and a cached replay byte for byte.

``python benchmarks/llm_seats.py [--games N] [--year Y]`` records a run of two model seats
(one writing L, one English) against DumbBots through the scripted stand-in provider
(``tests/llm/standin.py``, a real HTTP server on loopback), then replays it from the cache
with ``--llm-offline`` and the stand-in stopped. It prints, beside the goals:

- the seat's own time per call during the replay: everything a model seat does around a
  call (the prompt in words, the cache key, the cache and the log, reading and checking the
  answer, the fallback's orders where needed, the meter), with no model and no HTTP: the
  time inside the seat's hooks divided by the calls they made; goal under 5 ms;
- whether the replay's files (``games.jsonl``, ``summary.json``, ``usage.json``, every game)
  are the recorded ones byte for byte; goal: all of them.

The figures go to ``benchmarks/results/llm_seats.json``, the record of ``benchmarks/results.py``
(date, machine, commit, n, the goal and the kept figure before beside each figure), and ``docs/results/llm_seats.md``,
rendered from that file.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.machine import describe
from benchmarks.results import Column, Table, kept_column, record, write
from bots.llm.bot import LLMBot
from bots.llm.config import LLMConfig, LLMOptions
from detente.experiments import Experiment, run_experiment, slots_from
from referee.settings import GameSettings
from tests.llm.standin import StandIn

GOAL_MS = 5.0
SEED = 11
HOOKS = ("orders", "on_phase", "on_message", "on_event", "on_results", "revised_orders")


def run(out: Path, config: str, games: int, year: int, cache: Path, offline: bool) -> None:
    options = LLMOptions(LLMConfig.from_toml(config), cache, offline)
    experiment = Experiment(
        slots=slots_from(["llm:l", "llm:english", "dumbbot"]),
        games=games,
        seed=SEED,
        out=out,
        jobs=1,  # in this process, so that the seat's hooks are timed
        settings=GameSettings(name="experiment", year_limit=year),
        rounds=2,
        llm=options,
    )
    run_experiment(experiment)


def timed_hooks() -> tuple[list[float], Callable[[], None]]:
    """Wrap the seat's hooks to time them; the durations, and how to unwrap."""
    durations: list[float] = []
    originals = {name: getattr(LLMBot, name) for name in HOOKS}

    def wrap(function: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                durations.append(time.perf_counter() - started)

        return timed

    for name, function in originals.items():
        setattr(LLMBot, name, wrap(function))

    def restore() -> None:
        for name, function in originals.items():
            setattr(LLMBot, name, function)

    return durations, restore


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--year", type=int, default=1903)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        cache = work / "calls.sqlite"
        with StandIn() as provider:
            config = (
                f'[profiles.l]\nmodel = "good+invalid-once"\nbase_url = "{provider.base_url}"\npress = "l"\n'
                f'[profiles.english]\nmodel = "good"\nbase_url = "{provider.base_url}"\npress = "english"\n'
            )
            started = time.perf_counter()
            run(work / "recorded", config, args.games, args.year, cache, offline=False)
            recorded_seconds = time.perf_counter() - started
            sent = provider.stats()["requests"]
        durations, restore = timed_hooks()
        try:
            started = time.perf_counter()
            run(work / "replayed", config, args.games, args.year, cache, offline=True)
            replay_seconds = time.perf_counter() - started
        finally:
            restore()
        usage = json.loads((work / "replayed" / "usage.json").read_text(encoding="utf-8"))
        calls = sum(s["calls"] for s in usage["games"])
        names = ["games.jsonl", "summary.json", "usage.json"] + [
            f"games/{p.name}" for p in sorted((work / "recorded" / "games").iterdir())
        ]
        different = [n for n in names if (work / "recorded" / n).read_bytes() != (work / "replayed" / n).read_bytes()]
        replayed = [
            bool(json.loads(line)["cached"])
            for line in (work / "replayed" / "llm" / "calls.jsonl").read_text(encoding="utf-8").splitlines()
        ]
        cached = all(replayed)
    per_call_ms = 1000 * sum(durations) / max(calls, 1)
    hook_ms = sorted(1000 * d for d in durations)
    figures = {
        "seat_ms_per_call": round(per_call_ms, 3),
        "hook_ms_median": round(statistics.median(hook_ms), 3),
        "hook_ms_p99": round(hook_ms[max(0, int(0.99 * len(hook_ms)) - 1)], 3),
        "identical_files": len(names) - len(different),
        "files": len(names),
        "from_cache": sum(replayed),
        "replayed_calls": len(replayed),
        "recorded_run_seconds": round(recorded_seconds, 2),
        "replayed_run_seconds": round(replay_seconds, 2),
    }
    rec = record(
        "llm_seats",
        TITLE,
        " ".join([".venv/bin/python", "benchmarks/llm_seats.py", *sys.argv[1:]]),
        calls,
        [figures_table(figures, *kept_column("llm_seats", "figure", "value"))],
        seeds=[SEED],
        notes=run_notes(args.games, args.year, calls),
        data={
            "games": args.games,
            "year_limit": args.year,
            "calls": calls,
            "requests_recorded": sent,
            "hook_calls": len(durations),
            "different": different,
        },
    )
    print(f"model seats -- {rec.date}, commit {rec.commit}")
    print(f"machine: {describe()}")
    print(f"{args.games} games to {args.year}, two model seats (L and English) and five DumbBots, {calls} calls\n")
    print(
        f"seat's own time per call (replay, no model, no HTTP): {per_call_ms:.2f} ms   goal < {GOAL_MS} ms"
        f"   {'met' if per_call_ms < GOAL_MS else 'NOT met'}"
    )
    print(
        f"  per hook call: median {figures['hook_ms_median']} ms, p99 {figures['hook_ms_p99']} ms"
        f" over {len(durations)} calls"
    )
    print(
        f"replay byte for byte: {len(names) - len(different)} of {len(names)} files the same"
        f"   goal: all   {'met' if not different else 'NOT met: ' + ', '.join(different)}"
    )
    print(
        f"replay from the cache alone: {cached}; recorded run {recorded_seconds:.1f} s, replay {replay_seconds:.1f} s"
    )
    print(f"written to {write(rec)}")
    return 0 if not different and cached else 1


TITLE = "Model seats: the seat's own cost per call, and a cached replay byte for byte"
COLUMNS = (
    Column("figure", "figure"),
    Column("value", "value", True),
    Column("unit", "unit"),
    Column("goal", "goal"),
    Column("met", "goal met"),
    Column("before", "before", True),
)


def figures_table(f: dict[str, Any], before: dict[str, Any] | None = None, before_date: str | None = None) -> Table:
    """The figures of one run beside their goals and the kept figures before (``before``, by figure,
    of the run of ``before_date``); ``f`` holds the plain values (see :func:`main`)."""
    per_call = f["seat_ms_per_call"]
    rows = [
        {
            "figure": "the seat's own time per call, without the model (replay from the cache)",
            "value": per_call,
            "unit": "ms",
            "goal": f"< {GOAL_MS:g} ms",
            "met": per_call < GOAL_MS,
        },
        {"figure": "one hook call, median", "value": f["hook_ms_median"], "unit": "ms"},
        {"figure": "one hook call, p99", "value": f["hook_ms_p99"], "unit": "ms"},
        {
            "figure": "files of the offline replay the same byte for byte",
            "value": f["identical_files"],
            "unit": f"of {f['files']}",
            "goal": "all",
            "met": f["identical_files"] == f["files"],
        },
        {
            "figure": "calls of the replay answered from the cache",
            "value": f["from_cache"],
            "unit": f"of {f['replayed_calls']}",
            "goal": "all",
            "met": f["from_cache"] == f["replayed_calls"],
        },
        {"figure": "the recorded run (through the stand-in)", "value": f["recorded_run_seconds"], "unit": "s"},
        {"figure": "the replayed run (offline)", "value": f["replayed_run_seconds"], "unit": "s"},
    ]
    for row in rows:
        was = (before or {}).get(row["figure"])
        row["before"] = was if isinstance(was, int | float) and not isinstance(was, bool) else None
    note = f"Before: the kept run of {before_date}." if before_date else ""
    return Table("Figures", COLUMNS, rows, note)


def run_notes(games: int, year: int, calls: int) -> list[str]:
    return [
        (
            f"{games} games to {year}: two model seats (L and English press) against five DumbBots, through the"
            f" scripted stand-in provider (`tests/llm/standin.py`), {calls} calls; then the same run replayed with"
            " `--llm-offline` from the cache, the stand-in stopped. The seat's own time is the time inside its"
            " hooks during the replay divided by the calls: everything but the model and HTTP. n: the calls."
        )
    ]


if __name__ == "__main__":
    raise SystemExit(main())

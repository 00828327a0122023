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

The figures go to ``benchmarks/results/llm_seats.json`` (date, machine, commit, n, the goal
beside each figure) and ``docs/results/llm_seats.md``, rendered from that file.
"""

from __future__ import annotations

import argparse
import datetime
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

from benchmarks.machine import commit, describe, machine
from bots.llm.bot import LLMBot
from bots.llm.config import LLMConfig, LLMOptions
from detente.experiments import Experiment, run_experiment, slots_from
from referee.settings import GameSettings
from tests.llm.standin import StandIn

GOAL_MS = 5.0
HOOKS = ("orders", "on_phase", "on_message", "on_event", "on_results", "revised_orders")


def run(out: Path, config: str, games: int, year: int, cache: Path, offline: bool) -> None:
    options = LLMOptions(LLMConfig.from_toml(config), cache, offline)
    experiment = Experiment(
        slots=slots_from(["llm:l", "llm:english", "dumbbot"]),
        games=games,
        seed=11,
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
        cached = all(
            json.loads(line)["cached"]
            for line in (work / "replayed" / "llm" / "calls.jsonl").read_text(encoding="utf-8").splitlines()
        )
    per_call_ms = 1000 * sum(durations) / max(calls, 1)
    hook_ms = sorted(1000 * d for d in durations)
    figures = {
        "benchmark": "llm_seats",
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "machine": machine(),
        "commit": commit(),
        "n": {
            "games": args.games,
            "year_limit": args.year,
            "calls": calls,
            "requests_recorded": sent,
            "hook_calls": len(durations),
        },
        "figures": {
            "seat_ms_per_call": {"value": round(per_call_ms, 3), "goal": f"< {GOAL_MS}", "met": per_call_ms < GOAL_MS},
            "hook_ms_median": {"value": round(statistics.median(hook_ms), 3), "goal": None},
            "hook_ms_p99": {"value": round(hook_ms[max(0, int(0.99 * len(hook_ms)) - 1)], 3), "goal": None},
            "replay_identical_files": {
                "value": len(names) - len(different),
                "of": len(names),
                "goal": "all",
                "met": not different,
                "different": different,
            },
            "replay_all_from_cache": {"value": cached, "goal": True, "met": cached},
            "recorded_run_seconds": {"value": round(recorded_seconds, 2), "goal": None},
            "replayed_run_seconds": {"value": round(replay_seconds, 2), "goal": None},
        },
    }
    print(f"model seats -- {figures['date']}, commit {figures['commit']}")
    print(f"machine: {describe()}")
    print(f"{args.games} games to {args.year}, two model seats (L and English) and five DumbBots, {calls} calls\n")
    print(
        f"seat's own time per call (replay, no model, no HTTP): {per_call_ms:.2f} ms   goal < {GOAL_MS} ms"
        f"   {'met' if per_call_ms < GOAL_MS else 'NOT met'}"
    )
    print(
        f"  per hook call: median {figures['figures']['hook_ms_median']['value']} ms,"
        f" p99 {figures['figures']['hook_ms_p99']['value']} ms over {len(durations)} calls"
    )
    print(
        f"replay byte for byte: {len(names) - len(different)} of {len(names)} files the same"
        f"   goal: all   {'met' if not different else 'NOT met: ' + ', '.join(different)}"
    )
    print(
        f"replay from the cache alone: {cached}; recorded run {recorded_seconds:.1f} s, replay {replay_seconds:.1f} s"
    )
    results = ROOT / "benchmarks" / "results"
    results.mkdir(exist_ok=True)
    (results / "llm_seats.json").write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
    render(figures, ROOT / "docs" / "results" / "llm_seats.md")
    return 0 if not different and cached else 1


def render(figures: dict[str, Any], path: Path) -> None:
    """The figures as a Markdown page, from the JSON and nothing else."""
    f, n = figures["figures"], figures["n"]
    m = figures["machine"]
    lines = [
        "# Model seats: figures",
        "",
        f"Written by `benchmarks/llm_seats.py` on {figures['date']} at commit {figures['commit']}, on {m['cores']}"
        f" cores ({m['cpu']}, {m['python']}); from `benchmarks/results/llm_seats.json`.",
        f"{n['games']} games to {n['year_limit']}: two model seats (L and English press) against five DumbBots,"
        f" through the scripted stand-in provider, {n['calls']} calls.",
        "",
        "| figure | value | goal |",
        "|---|---:|---|",
        f"| the seat's own time per call, without the model (replay from the cache) | {f['seat_ms_per_call']['value']} ms"
        f" | {f['seat_ms_per_call']['goal']} ms |",
        f"| one hook call, median / p99 | {f['hook_ms_median']['value']} / {f['hook_ms_p99']['value']} ms | |",
        f"| files of the offline replay the same byte for byte | {f['replay_identical_files']['value']} of"
        f" {f['replay_identical_files']['of']} | all |",
        f"| every call of the replay from the cache | {f['replay_all_from_cache']['value']} | True |",
        "",
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines), encoding="utf-8")


if __name__ == "__main__":
    raise SystemExit(main())

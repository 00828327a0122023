#!/usr/bin/env python
"""Environment steps per second with random legal actions: the single and vector environments
of ``arena`` against the same loop over the ``diplomacy`` package, in one run.

Every loop plays seeded games of uniformly random legal orders for all seven powers, from
spring 1901 to the year limit, and counts phases played (one environment step = one phase
of one game). The ``diplomacy`` loop asks the package for every possible order, picks one at
each orderable location (in adjustments at as many as are owed) and processes the phase, as
``benchmarks/arena_dipcc.py`` plays it; the single environment is stepped with one
random legal index at each orderable location, read from its ``action_mask`` (gymnasium's own
``MultiDiscrete.sample(mask=...)`` is timed on its own line: it loops in Python over all 81
locations); the vector environment draws with :meth:`arena.VectorEnv.sample`. "Step only"
lines time the environment's ``step`` alone. One untimed game first on each side (the package
loads its map, the arena builds its vocabulary), then the fastest of several passes of each loop, the loops taking turns. Goals (issue 30): single 50x, vector 150x.

The second table is the thread-scaling investigation: each workload once on one thread and
split over two, beside controls that show what this machine gives two of anything at the
time: SHA-256 and zlib of 1 MiB blocks on two threads (both release the GIL) and zlib in two
processes (no GIL at all). SHA-256 runs on the processor's SHA extensions; zlib, like the
engine, on its integer units.

    .venv/bin/python benchmarks/arena_speed.py           # about 30 s on 2 cores
    .venv/bin/python benchmarks/arena_speed.py --quick   # about 10 s (BENCHMARK_RESULTS=DIR for a trial)
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
import time
import zlib
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from arena_dipcc import play_diplomacy
from machine import print_header
from paper_common import command

import arena
from arena.games import Games
from benchmarks.results import VERDICT_COLUMNS, Column, Table, record, write
from engine import Position, adjudicate, legal_orders, standard_map
from engine.batch import adjudicate_many, encode_orders, encode_position, legal_orders_many

COLUMNS = (
    Column("loop", "loop"),
    Column("steps", "steps", True),
    Column("rate", "steps/s", True),
    Column("diplomacy", "diplomacy steps/s", True),
    Column("ratio", "ratio", True),
    Column("goal", "goal ratio", True),
)
THREAD_COLUMNS = (
    Column("workload", "workload"),
    Column("one", "1 thread /s", True),
    Column("two", "2 threads /s", True),
    Column("speedup", "speedup", True),
)


def diplomacy_loop(seeds: list[int], year_limit: int) -> tuple[int, float]:
    """The package's loop, as the dipcc benchmark plays it (:func:`arena_dipcc.play_diplomacy`)."""
    games = [play_diplomacy(seed, year_limit) for seed in seeds]
    return sum(g[0] for g in games), sum(g[1] for g in games)


def random_from_masks(infos: dict, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """One random legal index at each orderable location, from the single env's masks."""
    actions = {}
    for agent, info in infos.items():
        action = np.zeros(len(info["action_mask"]), dtype=np.int64)
        for location in info["orderable"]:
            choices = np.flatnonzero(info["action_mask"][location][1:]) + 1
            action[location] = choices[rng.integers(len(choices))]
        actions[agent] = action
    return actions


def single_loop(seeds: list[int], year_limit: int, gymnasium_sample: bool = False) -> tuple[int, float, float]:
    env = arena.parallel_env(year_limit=year_limit)
    steps, elapsed, stepping = 0, 0.0, 0.0
    for seed in seeds:
        rng = np.random.default_rng(seed)
        start = time.perf_counter()
        _, infos = env.reset(seed=seed)
        while env.agents:
            if gymnasium_sample:
                actions = {a: env.action_space(a).sample(mask=infos[a]["action_mask"]) for a in env.agents}
            else:
                actions = random_from_masks({a: infos[a] for a in env.agents}, rng)
            before = time.perf_counter()
            *_, infos = env.step(actions)
            stepping += time.perf_counter() - before
            steps += 1
        elapsed += time.perf_counter() - start
    return steps, elapsed, stepping


def vector_loop(n: int, steps: int, year_limit: int, threads: int, seed: int) -> tuple[int, float, float]:
    env = arena.VectorEnv(n, year_limit=year_limit, threads=threads)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    stepping = 0.0
    start = time.perf_counter()
    for _ in range(steps):
        actions = env.sample(rng)
        before = time.perf_counter()
        env.step(actions)
        stepping += time.perf_counter() - before
    elapsed = time.perf_counter() - start
    env.close()
    return n * steps, elapsed, stepping


def two_ways(work: Callable[[int, int], None], size: int, repeat: int) -> tuple[float, float]:
    """``work(lo, hi)`` over [0, size) on one thread and split over two: the best of ``repeat``."""
    pool = ThreadPoolExecutor(2)
    one = two = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        work(0, size)
        one = min(one, time.perf_counter() - start)
        start = time.perf_counter()
        list(pool.map(lambda r: work(*r), [(0, size // 2), (size // 2, size)]))
        two = min(two, time.perf_counter() - start)
    pool.shutdown()
    return size / one, size / two


def played_boards(games: int, seed: int) -> tuple[list[bytes], list[bytes]]:
    """Movement boards and orders of random games, for the batch API's lines."""
    m, rng = standard_map(), random.Random(seed)
    boards, orders = [], []
    for _ in range(games):
        p = Position.initial(m)
        while not p.completed and p.phase.year <= 1910:
            given = {w: [rng.choice(os) for os in legal_orders(p, w).values()] for w in m.powers}
            if p.phase.kind == "M":
                boards.append(encode_position(p).tobytes())
                orders.append(encode_orders(m, given).tobytes())
            p = adjudicate(p, given).position
    return boards, orders


def _compress(count: int) -> float:
    """``count`` zlib compressions of 1 MiB, in a process of its own; its seconds."""
    data = random.Random(0).randbytes(1 << 16) * 16
    start = time.perf_counter()
    for _ in range(count):
        zlib.compress(data, 6)
    return time.perf_counter() - start


def processes_row(count: int) -> dict:
    """The zlib control as two processes against one: what the machine gives two of anything."""
    with ProcessPoolExecutor(2) as pool:
        list(pool.map(_compress, [1, 1]))  # the workers started
        start = time.perf_counter()
        list(pool.map(_compress, [count]))
        one = time.perf_counter() - start
        start = time.perf_counter()
        list(pool.map(_compress, [count // 2, count // 2]))
        two = time.perf_counter() - start
    return {"workload": "control: zlib of 1 MiB, two processes (blocks)", "one": round(count / one),
            "two": round(count / two), "speedup": round(one / two, 2)}  # fmt: skip


def thread_rows(quick: bool, seed: int) -> list[dict]:
    m, rows = standard_map(), []
    block = b"x" * (1 << 20)
    compressible = random.Random(0).randbytes(1 << 16) * 16
    blocks = 64 if quick else 256

    def control(lo: int, hi: int) -> None:
        for _ in range(lo, hi):
            hashlib.sha256(block).digest()

    def squeeze(lo: int, hi: int) -> None:
        for _ in range(lo, hi):
            zlib.compress(compressible, 6)

    boards, orders = played_boards(10 if quick else 40, seed)
    n = 256 if quick else 1024
    games = Games(m, n)
    for i in range(n):
        games.reset(i)
    zero = np.zeros((n, len(m.powers), len(m.locations)), dtype=np.int32)
    slots = {}

    def step(lo: int, hi: int) -> None:  # every unit holds: the same work each call, games advancing
        games.step(zero, lo, hi, slots.setdefault(lo, len(slots)))

    workloads = [
        ("control: SHA-256 of 1 MiB", control, blocks, "blocks"),
        ("control: zlib of 1 MiB", squeeze, blocks // 8, "blocks"),
        ("engine.batch.adjudicate_many", lambda lo, hi: adjudicate_many(m, boards[lo:hi], orders[lo:hi]), len(boards), "phases"),
        ("engine.batch.legal_orders_many", lambda lo, hi: legal_orders_many(m, boards[lo:hi]), len(boards), "boards"),
        ("arena.games.Games.step (the vector core)", step, n, "game-steps"),
    ]  # fmt: skip
    for name, work, size, unit in workloads:
        one, two = two_ways(work, size, 3 if quick else 5)
        rows.append(
            {"workload": f"{name} ({unit})", "one": round(one), "two": round(two), "speedup": round(two / one, 2)}
        )
        print(f"  {rows[-1]['workload']:<55} {one:>12,.0f} {two:>12,.0f}  x{two / one:.2f}")
    rows.append(processes_row(blocks // 4))
    print(f"  {rows[-1]['workload']:<55} {rows[-1]['one']:>12,} {rows[-1]['two']:>12,}  x{rows[-1]['speedup']:.2f}")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer games and steps")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--year-limit", type=int, default=1910)
    parser.add_argument("--vector-games", type=int, default=256, help="games in the vector environment")
    args = parser.parse_args()
    print_header("Environment steps per second (arena)", "diplomacy", "pettingzoo", "gymnasium", "numpy")
    quick, limit = args.quick, args.year_limit
    seeds = list(range(args.seed, args.seed + (4 if quick else 12)))
    diplomacy_loop([args.seed - 1], limit)  # untimed: the package loads its map once, the arena its vocabulary
    single_loop([args.seed - 1], limit)
    passes = 2 if quick else 5  # the fastest pass of each loop: the machine's other work counts least
    vector_steps = 20 if quick else 60
    runs: dict[str, list[tuple]] = {"d": [], "s": [], "v": [], "t": []}
    for _ in range(passes):  # the loops take turns, so that a slow spell of the machine falls on all of them
        runs["d"].append(diplomacy_loop(seeds, limit))
        runs["s"].append(single_loop(seeds, limit))
        runs["v"].append(vector_loop(args.vector_games, vector_steps, limit, 1, args.seed))
        runs["t"].append(vector_loop(args.vector_games, vector_steps, limit, 2, args.seed))
    d_steps, d_time = min(runs["d"], key=lambda r: r[1])
    reference = d_steps / d_time
    print(f"  diplomacy package: {d_steps} steps, {reference:,.0f} steps/s")
    s_steps, s_time, s_stepping = min(runs["s"], key=lambda r: r[1])
    g_steps, g_time, _ = single_loop(seeds[:2], limit, gymnasium_sample=True)
    v_steps, v_time, v_stepping = min(runs["v"], key=lambda r: r[1])
    t_steps, t_time, t_stepping = min(runs["t"], key=lambda r: r[1])
    lines = [
        ("diplomacy package: its possible orders, set_orders, process", d_steps, d_time, None),
        ("arena.parallel_env: random legal index from the masks", s_steps, s_time, 50.0),
        ("  the same, step only", s_steps, s_stepping, None),
        ("  the same, gymnasium's MultiDiscrete.sample(mask=...)", g_steps, g_time, None),
        (f"arena.VectorEnv({args.vector_games}): VectorEnv.sample", v_steps, v_time, 150.0),
        ("  the same, step only", v_steps, v_stepping, None),
        (f"arena.VectorEnv({args.vector_games}, threads=2): VectorEnv.sample", t_steps, t_time, None),
        ("  the same, step only", t_steps, t_stepping, None),
    ]
    rows = []
    for name, steps, elapsed, goal in lines:
        rate = steps / elapsed
        rows.append({"loop": name, "steps": steps, "rate": round(rate), "diplomacy": round(reference),
                     "ratio": round(rate / reference, 1), "goal": goal})  # fmt: skip
        print(f"  {name:<62} {rate:>10,.0f}/s  x{rate / reference:,.1f}" + (f"  (goal x{goal:.0f})" if goal else ""))
    print("  threads (one, two, speedup):")
    threads = thread_rows(quick, args.seed)
    verdict = [
        {"figure": "single environment / diplomacy", "value": rows[1]["ratio"], "before": None, "goal": "50x",
         "met": "met" if rows[1]["ratio"] >= 50 else "not met"},
        {"figure": "vector environment / diplomacy", "value": rows[4]["ratio"], "before": None, "goal": "150x",
         "met": "met" if rows[4]["ratio"] >= 150 else "not met"},
        {"figure": "vector environment, 2 threads / 1 thread", "value": round(rows[6]["rate"] / rows[4]["rate"], 2),
         "before": None, "goal": "the controls' speedup",
         "met": f"SHA-256 x{threads[0]['speedup']}, zlib x{threads[1]['speedup']}, zlib processes x{threads[-1]['speedup']}"},
    ]  # fmt: skip
    notes = [
        (
            f"{len(seeds)} seeded games (seeds {seeds[0]}-{seeds[-1]}) to {limit} for the diplomacy package and the single"
            f" environment (2 of them with gymnasium's sampler); the vector environment plays {args.vector_games} games"
            f" for {vector_steps} steps from seed {args.seed}, reset as they end. An environment step is one phase of one game."
        ),
        (
            "Thread lines: the best of several passes, one thread over the whole list against two threads over its halves;"
            " the batch API's lists are the movement phases of random games, the vector core's games all hold."
            " The processes line: one process compressing against two compressing half as much each."
        ),
    ]
    tables = [
        Table("Steps per second, random legal actions", COLUMNS, rows),
        Table("Two threads against one", THREAD_COLUMNS, threads),
        Table("Verdict", VERDICT_COLUMNS, verdict),
    ]
    title = "Environment steps per second: arena against the diplomacy package"
    total = d_steps + s_steps + g_steps + v_steps + t_steps
    path = write(record("arena_speed", title, command(), total, tables, seeds=seeds, notes=notes))
    print(f"written to {path}")


if __name__ == "__main__":
    main()

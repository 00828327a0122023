#!/usr/bin/env python
"""Random games against Cicero's C++ engine dipcc: steps (phases) per second, beside detente's
environment and the ``diplomacy`` package. OPT-IN: not run by CI, and it needs a build of dipcc.

dipcc is the C++ engine of Meta's Cicero (github.com/facebookresearch/diplomacy_cicero, folder
``dipcc/``, MIT licence). Its own CMake wants libtorch for the board encoders and thread pool;
only the game and its adjudicator are needed here, so ``--build`` compiles the torch-free part
(every ``dipcc/cc/*.cc`` but the encoders, ``data_fields`` and the thread pool, and every
``dipcc/pybind/*.cc`` but ``pybind.cc``, replaced by a copy of it with the torch, encoder and
thread-pool bindings cut out) into a ``pydipcc`` module, with glog and pybind11 from apt
(``apt-get install libgoogle-glog-dev pybind11-dev``). Nothing of dipcc comes into this
repository: the source and the build stay outside it.

Every game plays all seven powers with uniformly random legal orders on the standard map,
from spring 1901 to the end of 1910 (or a solo), game ``i`` with seed ``SEED + i``:

* dipcc: ``get_all_possible_orders()`` and ``get_orderable_locations()``, a random order per
  orderable location (in adjustments, as many random locations as the power has builds or
  removals, so that the engine is not handed orders it would drop), ``set_orders``, ``process``;
* detente: ``arena.parallel_env(year_limit=1910)``, ``reset(seed=...)``, and each step
  ``env.action_space(a).sample(mask=infos[a]["action_mask"])`` for every agent: the whole
  environment, with its observations and masks, not the engine alone;
* the ``diplomacy`` package: the same loop as dipcc's, through ``diplomacy.Game``;
* ``arena.VectorEnv`` when it exists (``VectorEnv(n, year_limit=...)``, ``reset(seed=)``,
  ``step(sample())``, one thread, games reset as they end), for as many environment steps as
  the single environment took.

A step is one phase processed (movement, retreats or adjustments; each engine skips the phases
where nobody has anything to do). The loop time includes choosing the orders; the time of the
engine call alone (``process()`` for dipcc and the package, ``env.step()`` for the single
environment) is given beside it.

    DIPCC_BUILD=/tmp/cicero/notorch/build .venv/bin/python benchmarks/arena_dipcc.py
    .venv/bin/python benchmarks/arena_dipcc.py --build     # build dipcc from DIPCC_SRC first
    .venv/bin/python benchmarks/arena_dipcc.py --quick     # 3 games, a smoke run

``DIPCC_BUILD`` is the directory holding ``pydipcc*.so`` (default: the first that imports of
``/tmp/cicero/notorch/build``, the torch-free build, and ``/tmp/cicero/dipcc/build/dipcc/python``,
where dipcc's own CMake puts its module, linked to libtorch (Debian's ``libtorch-dev``)); ``DIPCC_SRC`` the ``dipcc/`` folder of a Cicero checkout (default
``/tmp/cicero/dipcc``). Without a module that imports it prints what is missing, in one line,
and exits with status 2.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import importlib.metadata
import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

# the torch-free build of --build; then where dipcc's own CMake (compile.sh) puts its module, which needs torch
DEFAULT_BUILDS = ("/tmp/cicero/notorch/build", "/tmp/cicero/dipcc/build/dipcc/python")
DEFAULT_SRC = "/tmp/cicero/dipcc"
TORCH_SOURCES = ("data_fields", "encoding_impl", "encoding_v1", "encoding_v2", "orders_encoder", "thread_pool")

# The torch-free build (written next to the build directory, never into this repository).
CMAKE = """\
cmake_minimum_required(VERSION 3.10)
project(dipcc_notorch LANGUAGES CXX)
set(CMAKE_CXX_STANDARD 17)
set(CMAKE_POSITION_INDEPENDENT_CODE ON)
set(CMAKE_CXX_FLAGS_RELEASE "${{CMAKE_CXX_FLAGS_RELEASE}} -O3")
set(D {src}/dipcc)
find_package(pybind11 REQUIRED)
file(GLOB SOURCES "${{D}}/cc/*.cc")
list(FILTER SOURCES EXCLUDE REGEX ".*/({torch})\\\\.cc$")
file(GLOB PY_SOURCES "${{D}}/pybind/*.cc")
list(FILTER PY_SOURCES EXCLUDE REGEX ".*/pybind\\\\.cc$")
pybind11_add_module(pydipcc pybind_notorch.cc ${{PY_SOURCES}} ${{SOURCES}})
target_compile_options(pydipcc PRIVATE -Wno-sign-compare)
target_link_libraries(pydipcc PRIVATE glog pthread)
"""


def candidates() -> list[Path]:
    env = os.environ.get("DIPCC_BUILD")
    return [Path(env)] if env else [Path(p) for p in DEFAULT_BUILDS]


def find_modules() -> list[Path]:
    return [where for where in candidates() if any(where.glob("pydipcc*.so"))]


def build(src: Path, out: Path) -> None:
    """Compile the torch-free pydipcc from a Cicero ``dipcc/`` folder into ``out``."""
    pybind = src / "dipcc" / "pybind" / "pybind.cc"
    if not pybind.exists():
        raise SystemExit(
            f"dipcc source not found: no {pybind} (set DIPCC_SRC to the dipcc/ folder of a Cicero checkout)"
        )
    text = pybind.read_text(encoding="utf-8")
    for include in (
        "#include <torch/extension.h>\n",
        '#include "../cc/thread_pool.h"\n',
        '#include "encoding.h"\n',
        '#include "thread_pool.h"\n',
    ):
        text = text.replace(include, "")
    text = text.replace('#include "../cc/', f'#include "{src}/dipcc/cc/')
    text = text.replace('#include "py_game_get_units.h"', f'#include "{src}/dipcc/pybind/py_game_get_units.h"')
    cut, resume = text.index("  // class ThreadPool"), text.index("  // class CFRStat")
    project = out.parent
    project.mkdir(parents=True, exist_ok=True)
    (project / "pybind_notorch.cc").write_text(text[:cut] + text[resume:], encoding="utf-8")
    (project / "CMakeLists.txt").write_text(CMAKE.format(src=src, torch="|".join(TORCH_SOURCES)), encoding="utf-8")
    out.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        ["cmake", "-DCMAKE_BUILD_TYPE=Release", f"-DPYTHON_EXECUTABLE={sys.executable}", str(project)],
        cwd=out,
        check=True,
    )
    subprocess.run(["make", f"-j{os.cpu_count() or 1}"], cwd=out, check=True)


def load_dipcc() -> tuple[Any, Path] | str:
    """The first pydipcc that imports, and where; or what is missing, in one line."""
    found = find_modules()
    if not found:
        return (
            f"dipcc is not built: no pydipcc*.so in {', '.join(map(str, candidates()))} "
            "(set DIPCC_BUILD=/path, or run with --build and DIPCC_SRC=<cicero>/dipcc)"
        )
    os.environ.setdefault("GLOG_minloglevel", "2")  # glog reads it when the module loads: no warning per extra order
    failures = []
    for where in found:
        sys.path.insert(0, str(where))
        try:
            return importlib.import_module("pydipcc"), where
        except ImportError as error:  # e.g. dipcc's full build, linked to a libtorch this Python cannot load
            failures.append(f"{where}: {error}")
            sys.path.remove(str(where))
    return "dipcc does not import: " + "; ".join(failures)


# --- the loops ---------------------------------------------------------------------------


def choose(rng: random.Random, possible: dict[str, list[str]], locations: list[str], owed: int | None) -> list[str]:
    """A random legal order per orderable location; in adjustments, at ``|owed|`` random locations."""
    # sorted: the engines hand some of these out in set order, which differs from run to run
    locations = sorted(loc for loc in locations if possible.get(loc))
    if owed is not None:
        locations = rng.sample(locations, min(abs(owed), len(locations)))
    return [rng.choice(sorted(possible[loc])) for loc in locations]


def play_dipcc(pydipcc: Any, seed: int, last_year: int) -> tuple[int, float, float]:
    """One random game in dipcc: (steps, seconds, seconds in process())."""
    rng = random.Random(seed)
    start = time.perf_counter()
    game = pydipcc.Game()
    steps, in_process = 0, 0.0
    while not game.is_game_done and game.current_year <= last_year:
        possible = game.get_all_possible_orders()
        builds = game.get_state()["builds"] if game.phase_type == "A" else None
        for power, locations in game.get_orderable_locations().items():
            owed = builds[power]["count"] if builds is not None else None
            orders = choose(rng, possible, locations, owed)
            if orders:
                game.set_orders(power, orders)
        t = time.perf_counter()
        game.process()
        in_process += time.perf_counter() - t
        steps += 1
    return steps, time.perf_counter() - start, in_process


def play_diplomacy(seed: int, last_year: int) -> tuple[int, float, float]:
    """One random game in the ``diplomacy`` package: (steps, seconds, seconds in process())."""
    from diplomacy import Game

    rng = random.Random(seed)
    start = time.perf_counter()
    game = Game()
    steps, in_process = 0, 0.0
    while not game.is_game_done and int(game.get_current_phase()[1:5]) <= last_year:
        possible = game.get_all_possible_orders()
        adjusting = game.get_current_phase().endswith("A")
        for power, locations in game.get_orderable_locations().items():
            owed = None
            if adjusting:
                p = game.get_power(power)
                owed = len(p.centers) - len(p.units)
            orders = choose(rng, possible, locations, owed)
            if orders:
                game.set_orders(power, orders)
        t = time.perf_counter()
        game.process()
        in_process += time.perf_counter() - t
        steps += 1
    return steps, time.perf_counter() - start, in_process


def play_arena(seed: int, last_year: int) -> tuple[int, float, float]:
    """One random game in detente's single environment: (steps, seconds, seconds in env.step())."""
    import arena

    start = time.perf_counter()
    env = arena.parallel_env(year_limit=last_year)
    _, infos = env.reset(seed=seed)
    steps, in_step = 0, 0.0
    while env.agents:
        actions = {a: env.action_space(a).sample(mask=infos[a]["action_mask"]) for a in env.agents}
        t = time.perf_counter()
        _, _, _, _, infos = env.step(actions)
        in_step += time.perf_counter() - t
        steps += 1
    return steps, time.perf_counter() - start, in_step


def play_vector(n: int, seed: int, last_year: int, total_steps: int) -> tuple[int, float]:
    """``arena.VectorEnv`` of ``n`` games, stepped until it has taken ``total_steps`` environment steps."""
    import arena

    start = time.perf_counter()
    vec = arena.VectorEnv(n, year_limit=last_year)
    vec.reset(seed=seed)
    steps = 0
    sample = getattr(vec, "sample_actions", None) or vec.sample  # the brief named it sample_actions; it is sample
    while steps < total_steps:
        vec.step(sample())
        steps += n
    return steps, time.perf_counter() - start


def timed(what: str, games: int, seed: int, repeats: int, play: Any) -> dict[str, Any]:
    """Play the games ``repeats`` times (after one untimed warm-up game); the fastest pass counts."""
    play(seed - 1)  # imports, maps and caches are not the engine's speed
    best: tuple[float, float, int] | None = None
    for _ in range(repeats):
        gc.collect()
        steps, seconds, in_process = 0, 0.0, 0.0
        for i in range(games):
            out = play(seed + i)
            steps += out[0]
            seconds += out[1]
            in_process += out[2] if len(out) > 2 else 0.0
        if best is None or seconds < best[0]:
            best = (seconds, in_process, steps)
    assert best is not None
    seconds, in_process, steps = best
    row = {
        "engine": what,
        "games": games,
        "steps": steps,
        "seconds": round(seconds, 3),
        "steps_per_s": round(steps / seconds, 1) if seconds else None,
        "process_steps_per_s": round(steps / in_process, 1) if in_process else None,
        "steps_per_game": round(steps / games, 1) if games else None,
    }
    shown = f", the engine call alone {row['process_steps_per_s']} steps/s" if in_process else ""
    print(f"{what:<40} {steps:>6} steps in {seconds:8.3f} s = {row['steps_per_s']:>9} steps/s{shown}")
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20, help="games per engine (default 20)")
    parser.add_argument("--seed", type=int, default=1, help="first seed (default 1); game i has seed SEED + i")
    parser.add_argument("--year-limit", type=int, default=1910, help="last year played (default 1910)")
    parser.add_argument(
        "--repeats", type=int, default=3, help="timed passes per engine, the fastest is kept (default 3)"
    )
    parser.add_argument("--vector", type=int, default=8, help="games in arena.VectorEnv, if there is one (default 8)")
    parser.add_argument("--build", action="store_true", help="build the torch-free dipcc from DIPCC_SRC first")
    parser.add_argument("--quick", action="store_true", help="a smoke run: 3 games")
    args = parser.parse_args(argv)
    if args.quick:
        args.games, args.repeats = 3, 1
    if args.build:
        build(Path(os.environ.get("DIPCC_SRC", DEFAULT_SRC)).resolve(), candidates()[0])
    loaded = load_dipcc()
    if isinstance(loaded, str):
        print(loaded)
        return 2
    pydipcc, where = loaded

    from benchmarks import results
    from benchmarks.machine import describe
    from benchmarks.results import Column, Table
    from engine import _native

    seeds = list(range(args.seed, args.seed + args.games))
    print(
        f"random games, all 7 powers, 1901-{args.year_limit}: {args.games} games per engine, seeds {seeds[0]}..{seeds[-1]}"
    )
    print(f"machine: {describe()}")
    print(f"dipcc:   {where}")
    rows = [
        timed(
            "dipcc (Cicero C++, pybind11)",
            args.games,
            args.seed,
            args.repeats,
            lambda s: play_dipcc(pydipcc, s, args.year_limit),
        )
    ]
    rows.append(
        timed(
            "detente arena.parallel_env", args.games, args.seed, args.repeats, lambda s: play_arena(s, args.year_limit)
        )
    )
    notes = []
    try:
        import diplomacy  # noqa: F401

        version = importlib.metadata.version("diplomacy")
        rows.append(
            timed(
                f"diplomacy {version} (PyPI)",
                args.games,
                args.seed,
                args.repeats,
                lambda s: play_diplomacy(s, args.year_limit),
            )
        )
    except ImportError:
        print("diplomacy is not installed: its row is left out")
        notes.append("The diplomacy package was not installed: its row is left out.")
    import arena

    if hasattr(arena, "VectorEnv"):
        try:
            total = rows[1]["steps"]
            play_vector(args.vector, args.seed - 1, args.year_limit, args.vector)  # warm-up, untimed
            passes = []
            for _ in range(args.repeats):
                gc.collect()
                passes.append(play_vector(args.vector, args.seed, args.year_limit, total))
            steps, seconds = min(passes, key=lambda p: p[1])
            row = {
                "engine": f"detente arena.VectorEnv({args.vector})",
                "games": None,
                "steps": steps,
                "seconds": round(seconds, 3),
                "steps_per_s": round(steps / seconds, 1) if seconds else None,
                "process_steps_per_s": None,
                "steps_per_game": None,
            }
            print(f"{row['engine']:<40} {steps:>6} steps in {seconds:8.3f} s = {row['steps_per_s']:>9} steps/s")
            rows.append(row)
        except Exception as error:  # noqa: BLE001 - another engineer's API in progress: skip it, say so
            print(f"arena.VectorEnv skipped: {type(error).__name__}: {error}")
            notes.append(f"arena.VectorEnv was skipped: {type(error).__name__}: {error}")
    else:
        notes.append("arena.VectorEnv did not exist at this commit: no row for it.")

    reference = rows[0]["steps_per_s"]
    for row in rows:
        row["vs_dipcc"] = round(row["steps_per_s"] / reference, 3) if row["steps_per_s"] and reference else None
    columns = (
        Column("engine", "engine"),
        Column("games", "games", True),
        Column("steps", "steps", True),
        Column("seconds", "seconds", True),
        Column("steps_per_s", "steps/s", True),
        Column("vs_dipcc", "vs dipcc", True),
        Column("process_steps_per_s", "engine call alone (process / env.step), steps/s", True),
        Column("steps_per_game", "steps/game", True),
    )
    full = hasattr(pydipcc, "ThreadPool")  # only the full build has the encoders and the thread pool
    about = "dipcc is Cicero's C++ engine (facebookresearch/diplomacy_cicero, dipcc/), " + (
        "its own CMake build, with Debian's libtorch, glog and pybind11"
        if full
        else "built without libtorch: its game and adjudicator sources and a pybind11 module cut down from its own "
        "(no encoders, no thread pool), glog and pybind11 from Debian"
    )
    about += "; nothing of it is in this repository. Only its game and adjudicator are timed here."
    method = (
        "A step is one phase processed. Orders are uniformly random and legal: a random order per orderable location "
        "(in adjustments at as many random locations as builds or removals are owed) for dipcc and the diplomacy "
        "package; for detente, env.action_space(a).sample(mask=...) for every agent, through the whole environment "
        "(observations, masks and decoding included), and for arena.VectorEnv its own sample() and step() (n games a "
        "call of the compiled core, one thread). The loop time includes choosing the orders (for the single "
        "environment mostly gymnasium's masked sampling); the engine call alone is process() for dipcc and the "
        "package, env.step() for the single environment. One untimed warm-up game (seed SEED - 1) per engine first, then the fastest of the "
        "timed passes over all the games; single thread; the games differ between engines (each has its own random "
        "draws)."
    )
    notes = [
        about,
        method,
        *notes,
    ]
    command = " ".join(["benchmarks/arena_dipcc.py", *(argv if argv is not None else sys.argv[1:])])
    path = results.write(
        results.record(
            "arena_dipcc",
            "Random games: dipcc (Cicero's C++ engine) against detente's environments and the diplomacy package",
            command,
            args.games,
            [Table(f"Steps per second, random games 1901-{args.year_limit}", columns, rows)],
            seeds=seeds,
            notes=notes,
            data={
                "dipcc_build": str(where),
                "dipcc_full_build": full,
                "year_limit": args.year_limit,
                "vector": args.vector,
                "repeats": args.repeats,
                "detente_core": _native.active_core() if hasattr(_native, "active_core") else None,
                "detente_compiled_available": _native.compiled_available(),
            },
        )
    )
    print(f"written to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python
"""How fast is the engine? The same seeded random games, played through detente and
through the ``diplomacy`` package (PyPI 1.1.2), timed in one run.

Three things are measured, over exactly the same recorded phases:

* adjudication alone: ``adjudicate(position, orders)`` with the orders already parsed,
  against ``Game.process()`` with the orders set beforehand (untimed);
* adjudication with parsing: parsing every order string with ``parse_order`` and then
  adjudicating, against ``Game.set_orders()`` (which parses and validates) and
  ``Game.process()``. Our parser is memoised, so this is reported twice: with the memo
  warm (the normal case in a long-running server) and cleared before every phase;
* legal-order generation alone: ``legal_orders`` for all seven powers, against
  ``Game.get_all_possible_orders()``, on the same positions.

The games are generated first, with both engines stepped in lockstep: every power
gives each of its units a uniformly random order taken from detente's legal orders
(random builds or removals in winter), and the same orders, renamed, go to a
``diplomacy.Game``. After every phase the two positions are compared; a game whose
positions diverge stops there, the divergence is reported, and only the phases on
which the engines agreed are timed.

Every figure is the best (fastest) of ``--repeats`` timed passes: noise on a machine
only ever adds time. Nothing here asserts a speed; the figures are printed side by
side with the goal (20 times the ``diplomacy`` package) for a human to read.

    .venv/bin/python benchmarks/engine_speed.py             # about two minutes
    .venv/bin/python benchmarks/engine_speed.py --quick     # a smoke run, ~10 s
    .venv/bin/python benchmarks/engine_speed.py --json figures.json --divergences div.json
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import gc
import importlib.metadata
import json
import os
import platform
import random
import re
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import engine.orders
from engine import Build, Map, Move, Order, Position, Waive, adjudicate, format_order, legal_orders, parse_order
from engine import standard_map

try:  # the comparison engine is the optional extra ``bench``: pip install -e '.[bench]'
    import diplomacy
except ImportError:  # pragma: no cover - depends on the environment
    diplomacy = None

REFERENCE_VERSION = "1.1.2"
GOAL = 20.0

# The three sea provinces whose names differ: detente uses the DAIDE names.
_THEIR_NAMES = {"ECH": "ENG", "GOL": "LYO", "GOB": "BOT"}
_OUR_NAME = re.compile(r"\b(" + "|".join(_THEIR_NAMES) + r")\b")


def their_notation(text: str) -> str:
    """An order or unit in detente's notation, written with the diplomacy package's names."""
    return _OUR_NAME.sub(lambda match: _THEIR_NAMES[match.group(1)], text)


# --- recording the games -----------------------------------------------------------------


@dataclass(frozen=True)
class Phase:
    """One phase both engines adjudicated alike: everything needed to replay it."""

    position: Position  # detente's position before the phase
    orders: dict[str, list[Order]]  # power -> parsed orders
    texts: dict[str, list[str]]  # the same orders in detente's notation
    their_texts: dict[str, list[str]]  # and with the diplomacy package's names


@dataclass
class Divergence:
    """A phase after which the two engines disagree."""

    game: int
    phase: str
    details: dict[str, Any]


@dataclass
class Games:
    games: list[list[Phase]]
    divergences: list[Divergence]
    rejected: Counter[str]  # orders of ours that diplomacy refused, by phase kind

    @property
    def phases(self) -> list[Phase]:
        return [phase for game in self.games for phase in game]


def adjacent_via(m: Map, order: Order) -> bool:
    """Is this an army's move to a neighbouring province explicitly via convoy?

    Without a convoy for it, DATC 6.G.8 (which detente follows) keeps the army where it
    is, while the diplomacy package drops the VIA and moves the army over land.
    """
    return isinstance(order, Move) and order.via_convoy and order.destination in m.army_moves[order.location]


def random_orders(rng: random.Random, position: Position, avoid_adjacent_via: bool) -> dict[str, list[Order]]:
    """A uniformly random legal order for every unit (or random builds and removals)."""
    m = position.map
    orders: dict[str, list[Order]] = {}
    for power in m.powers:
        legal = legal_orders(position, power)
        if not legal:
            continue
        if position.phase.kind != "A":
            if avoid_adjacent_via:
                legal = {unit: [o for o in options if not adjacent_via(m, o)] for unit, options in legal.items()}
            orders[power] = [rng.choice(options) for options in legal.values()]
            continue
        options = legal[None]
        owed = position.adjustments.get(power, 0)
        if owed < 0:
            orders[power] = rng.sample(options, -owed)
            continue
        # Up to ``owed`` builds at distinct provinces; a Waive stands for each build not made.
        province_of = position.map.province_of
        builds = [o for o in options if isinstance(o, Build)]
        chosen: list[Order] = []
        for _ in range(owed):
            pick = rng.choice(builds + [Waive()])
            chosen.append(pick)
            if isinstance(pick, Build):
                here = province_of[pick.location]
                builds = [b for b in builds if province_of[b.location] != here]
        orders[power] = chosen
    return orders


def our_snapshot(position: Position) -> dict[str, Any]:
    """The parts of a position both engines show, in the diplomacy package's names."""
    m = position.map
    units: dict[str, list[str]] = {}
    for u in position.units:
        units.setdefault(u.power, []).append(their_notation(position.unit_name(u)))
    centers: dict[str, list[str]] = {}
    for p, owner in enumerate(position.centers):
        if owner is not None:
            centers.setdefault(owner, []).append(their_notation(m.name_of(p)))
    retreats: dict[str, dict[str, list[str]]] = {}
    for d in position.dislodged:
        names = sorted(their_notation(m.name_of(r)) for r in d.retreats)
        retreats.setdefault(d.unit.power, {})[their_notation(position.unit_name(d.unit))] = names
    return {
        "phase": "COMPLETED" if position.completed else str(position.phase),
        "units": {p: sorted(v) for p, v in sorted(units.items())},
        "centers": {p: sorted(v) for p, v in sorted(centers.items())},
        "retreats": dict(sorted(retreats.items())),
    }


def their_snapshot(game: Any) -> dict[str, Any]:
    """The same view of a ``diplomacy.Game``."""
    units, centers, retreats = {}, {}, {}
    for name, power in sorted(game.powers.items()):
        if power.units:
            units[name] = sorted(power.units)
        if power.centers:
            centers[name] = sorted(power.centers)
        if power.retreats:
            retreats[name] = {unit: sorted(places) for unit, places in sorted(power.retreats.items())}
    return {"phase": game.get_current_phase(), "units": units, "centers": centers, "retreats": retreats}


def set_their_orders(game: Any, texts: dict[str, list[str]]) -> int:
    """Give the orders to a ``diplomacy.Game``; returns how many it kept (it drops the invalid ones)."""
    kept = 0
    for power, orders in texts.items():
        game.set_orders(power, orders)
        # get_orders() leaves out the WAIVEs, which only the power's adjustment list keeps
        kept += len(game.get_power(power).adjust) if game.phase_type == "A" else len(game.get_orders(power))
    return kept


def generate(count: int, years: int, seed: int, compare: bool, avoid_adjacent_via: bool) -> Games:
    """Play ``count`` random games of up to ``years`` years, in lockstep with diplomacy if ``compare``."""
    m = standard_map()
    games: list[list[Phase]] = []
    divergences: list[Divergence] = []
    rejected: Counter[str] = Counter()
    for number in range(count):
        rng = random.Random(f"{seed}/{number}")
        position = Position.initial(m)
        game = diplomacy.Game() if compare else None
        played: list[Phase] = []
        last_year = position.phase.year + years - 1
        while not position.completed and position.phase.year <= last_year:
            orders = random_orders(rng, position, avoid_adjacent_via)
            texts = {power: [format_order(m, o) for o in power_orders] for power, power_orders in orders.items()}
            theirs = {power: [their_notation(t) for t in power_texts] for power, power_texts in texts.items()}
            outcome = adjudicate(position, orders)
            if game is not None:
                given = sum(len(t) for t in theirs.values())
                kept = set_their_orders(game, theirs)
                if kept != given:
                    rejected[position.phase.kind] += given - kept
                their_outcome = game.process()
                mine, other = our_snapshot(outcome.position), their_snapshot(game)
                if mine != other:
                    divergences.append(
                        Divergence(
                            number,
                            str(position.phase),
                            {
                                "before": position.to_json(),
                                "orders": texts,
                                "their_orders_kept": their_outcome.orders,
                                "our_results": {
                                    their_notation(position.unit_name(u)): list(w) for u, w in outcome.results.items()
                                },
                                "their_results": {
                                    unit: [str(r) for r in results]
                                    for unit, results in their_outcome.results.items()
                                    if results
                                },
                                "difference": _difference(mine, other),
                            },
                        )
                    )
                    break
            played.append(Phase(position, orders, texts, theirs))
            position = outcome.position
        games.append(played)
    return Games(games, divergences, rejected)


def _difference(ours: dict[str, Any], theirs: dict[str, Any]) -> dict[str, Any]:
    """The entries of two snapshots that differ, side by side."""
    diff: dict[str, Any] = {}
    if ours["phase"] != theirs["phase"]:
        diff["phase"] = {"detente": ours["phase"], "diplomacy": theirs["phase"]}
    for key in ("units", "centers", "retreats"):
        for power in sorted(set(ours[key]) | set(theirs[key])):
            a, b = ours[key].get(power), theirs[key].get(power)
            if a != b:
                diff.setdefault(key, {})[power] = {"detente": a, "diplomacy": b}
    return diff


# --- timing --------------------------------------------------------------------------


def fresh(position: Position) -> Position:
    """A copy with none of the derived data the original cached (unit index, legal-order board...)."""
    return dataclasses.replace(position)


def best_of(repeats: int, one_pass: Callable[[], float]) -> float:
    """The fastest of ``repeats`` passes; a pass returns the seconds it spent in the timed code."""
    times = []
    for _ in range(repeats):
        gc.collect()  # so that garbage left by earlier passes is not collected on our clock
        times.append(one_pass())
    return min(times)


def ours_adjudication(phases: Sequence[Phase]) -> float:
    positions = [fresh(p.position) for p in phases]
    orders = [p.orders for p in phases]
    start = time.perf_counter()
    for position, power_orders in zip(positions, orders):
        adjudicate(position, power_orders)
    return time.perf_counter() - start


def ours_parse_and_adjudication(phases: Sequence[Phase], m: Map, cold: bool) -> float:
    positions = [fresh(p.position) for p in phases]
    texts = [p.texts for p in phases]
    clear = engine.orders._parse_cached.cache_clear
    clock = time.perf_counter
    total = 0.0
    for position, power_texts in zip(positions, texts):
        if cold:
            clear()
        start = clock()
        adjudicate(position, {power: [parse_order(m, t) for t in ts] for power, ts in power_texts.items()})
        total += clock() - start
    return total


def ours_legal_orders(phases: Sequence[Phase]) -> float:
    positions = [fresh(p.position) for p in phases]
    powers = phases[0].position.map.powers if phases else ()
    start = time.perf_counter()
    for position in positions:
        for power in powers:
            legal_orders(position, power)
    return time.perf_counter() - start


def theirs_replay(games: Sequence[Sequence[Phase]], what: str) -> float:
    """Replay the games in fresh ``diplomacy.Game``s, timing only ``what`` in each phase.

    ``what`` is ``"process"`` (orders set untimed), ``"set+process"``, or ``"legal"``
    (``get_all_possible_orders`` on the position before the phase, then the phase is
    played untimed).
    """
    clock = time.perf_counter
    total = 0.0
    for phases in games:
        game = diplomacy.Game()
        for phase in phases:
            if what == "legal":
                # process() clears the convoy caches when it changes phase; clear them here
                # too so that every call computes from scratch, as ours do on fresh positions.
                game.clear_cache()
                start = clock()
                game.get_all_possible_orders()
                total += clock() - start
                set_their_orders(game, phase.their_texts)
                game.process()
            elif what == "process":
                set_their_orders(game, phase.their_texts)
                start = clock()
                game.process()
                total += clock() - start
            else:
                start = clock()
                for power, orders in phase.their_texts.items():
                    game.set_orders(power, orders)
                game.process()
                total += clock() - start
    return total


# --- reporting ---------------------------------------------------------------------------


def machine() -> dict[str, Any]:
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {
        "cores": os.cpu_count(),
        "cpu": model,
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "platform": platform.platform(),
    }


def their_version() -> str | None:
    if diplomacy is None:
        return None
    try:
        return importlib.metadata.version("diplomacy")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


@dataclass
class Row:
    name: str
    unit: str  # what is counted: phases or positions
    count: int
    ours: float  # seconds
    theirs: float | None

    @property
    def our_rate(self) -> float:
        return self.count / self.ours if self.ours > 0 else float("inf")

    @property
    def their_rate(self) -> float | None:
        return None if self.theirs is None else self.count / self.theirs

    @property
    def ratio(self) -> float | None:
        their = self.their_rate
        return None if their is None else self.our_rate / their


def print_table(rows: Sequence[Row], version: str | None) -> None:
    dip = f"diplomacy {version}" if version else "diplomacy"
    header = f"{'measurement':<40} {'unit':>9} {'detente /s':>12} {dip + ' /s':>20} {'ratio':>8} {'goal':>6}"
    print(header)
    print("-" * len(header))
    for row in rows:
        their = f"{row.their_rate:,.0f}" if row.their_rate is not None else "n/a"
        ratio = f"{row.ratio:.1f}x" if row.ratio is not None else "n/a"
        goal = "" if row.name.endswith("(cold memo)") else f"{GOAL:.0f}x"
        print(f"{row.name:<40} {row.unit:>9} {row.our_rate:>12,.0f} {their:>20} {ratio:>8} {goal:>6}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--games", type=int, default=40, help="random games to play (default 40)")
    parser.add_argument("--years", type=int, default=10, help="years per game, unless it ends sooner (default 10)")
    parser.add_argument("--seed", type=int, default=1, help="seed; game i uses random.Random(f'{seed}/{i}')")
    parser.add_argument("--repeats", type=int, default=5, help="timed passes per measurement; the best is kept")
    parser.add_argument("--quick", action="store_true", help="a smoke run: 4 games of 4 years, 2 passes")
    parser.add_argument(
        "--no-adjacent-via",
        action="store_true",
        help="never draw 'A X - Y VIA' to a neighbouring province Y, the order on which the\n"
        "engines' rules differ most often (DATC 6.G.8), so fewer games diverge",
    )
    parser.add_argument("--json", metavar="FILE", help="write the figures to FILE as JSON")
    parser.add_argument("--divergences", metavar="FILE", help="write every divergence to FILE as JSON")
    args = parser.parse_args(argv)
    if args.quick:
        args.games, args.years, args.repeats = 4, 4, 2

    began = time.perf_counter()
    version = their_version()
    compare = diplomacy is not None
    info = machine()
    print("detente engine speed against the diplomacy package")
    print(f"date      {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M:%S} UTC")
    print(f"machine   {info['cores']} cores, {info['cpu']}")
    print(f"python    {info['python']} on {info['platform']}")
    if not compare:
        print(
            "diplomacy NOT INSTALLED: only detente's figures are shown "
            "(install the reference with: pip install 'diplomacy==1.1.2', or the extra '.[bench]')"
        )
    else:
        note = "" if version == REFERENCE_VERSION else f"  (WARNING: the reference is {REFERENCE_VERSION})"
        print(f"diplomacy {version}{note}")
    print(f"games     {args.games} random games of up to {args.years} years, seed {args.seed}")

    recorded = generate(args.games, args.years, args.seed, compare, args.no_adjacent_via)
    phases = recorded.phases
    kinds = Counter(p.position.phase.kind for p in phases)
    print(
        f"phases    {len(phases)} agreed phases timed "
        f"({kinds['M']} movement, {kinds['R']} retreat, {kinds['A']} adjustment), "
        f"{sum(len(t) for p in phases for t in p.texts.values())} orders"
    )
    if compare:
        _print_divergences(recorded, args.divergences)
    print(f"timing    best of {args.repeats} passes per figure; our positions are fresh copies with nothing cached")
    print()

    m = standard_map()
    rows = [
        Row("adjudication (orders parsed)", "phases", len(phases), best_of(args.repeats, lambda: ours_adjudication(phases)), None),
        Row(
            "adjudication + parsing (warm memo)",
            "phases",
            len(phases),
            best_of(args.repeats, lambda: ours_parse_and_adjudication(phases, m, cold=False)),
            None,
        ),
        Row(
            "adjudication + parsing (cold memo)",
            "phases",
            len(phases),
            best_of(args.repeats, lambda: ours_parse_and_adjudication(phases, m, cold=True)),
            None,
        ),
        Row("legal orders, all 7 powers", "positions", len(phases), best_of(args.repeats, lambda: ours_legal_orders(phases)), None),
    ]
    if compare:
        # The package is about 20 times slower, so fewer passes keep the run short.
        their_repeats = max(1, min(args.repeats, 3))
        games = recorded.games
        process = best_of(their_repeats, lambda: theirs_replay(games, "process"))
        with_parsing = best_of(their_repeats, lambda: theirs_replay(games, "set+process"))
        legal = best_of(their_repeats, lambda: theirs_replay(games, "legal"))
        for row, theirs in zip(rows, (process, with_parsing, with_parsing, legal)):
            row.theirs = theirs
    print_table(rows, version)
    print()
    print(
        "detente: adjudicate() on parsed orders; parse_order() on every string, then adjudicate(); legal_orders() x 7.\n"
        "diplomacy: Game.process() with orders set beforehand; Game.set_orders() + process(); "
        "get_all_possible_orders().\n"
        "Both adjudicate and parse the same orders; both lines with parsing are compared with the same diplomacy time."
    )
    elapsed = time.perf_counter() - began
    print(f"\nwhole run {elapsed:.1f} s")

    if args.json:
        figures = {
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "machine": info,
            "diplomacy_version": version,
            "seed": args.seed,
            "games": args.games,
            "years": args.years,
            "repeats": args.repeats,
            "phases": len(phases),
            "phase_kinds": dict(kinds),
            "divergences": [{"game": d.game, "phase": d.phase} for d in recorded.divergences],
            "goal_ratio": GOAL,
            "measurements": [
                {
                    "name": r.name,
                    "unit": r.unit,
                    "count": r.count,
                    "detente_seconds": r.ours,
                    "diplomacy_seconds": r.theirs,
                    "detente_per_second": r.our_rate,
                    "diplomacy_per_second": r.their_rate,
                    "ratio": r.ratio,
                }
                for r in rows
            ],
        }
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump(figures, out, indent=2)
    return 0


def _print_divergences(recorded: Games, path: str | None) -> None:
    divergences = recorded.divergences
    rejected = sum(recorded.rejected.values())
    where = ", ".join(f"game {d.game} after {d.phase}" for d in divergences) or "none"
    print(f"diverged  {len(divergences)} of {len(recorded.games)} games ({where})")
    if rejected:
        by_kind = ", ".join(f"{n} in {k} phases" for k, n in sorted(recorded.rejected.items()))
        print(f"rejected  {rejected} of our legal orders were refused by diplomacy's set_orders ({by_kind})")
    if divergences:
        first = divergences[0]
        print(f"          first divergence (game {first.game}, {first.phase}) written to stderr", end="")
        print(f"; all to {path}" if path else "")
        example = {"game": first.game, "phase": first.phase, **first.details}
        print(json.dumps(example, indent=1), file=sys.stderr)
    if path:
        with open(path, "w", encoding="utf-8") as out:
            json.dump([{"game": d.game, "phase": d.phase, **d.details} for d in divergences], out, indent=1)


if __name__ == "__main__":
    sys.exit(main())

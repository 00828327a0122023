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
positions diverge stops there, the divergence is reported (the first one in full on
stderr), and only the phases on which the engines agreed are timed. The two engines
follow different rules for an army ordered to a neighbouring province via convoy when
there is no convoy route (DATC 6.G.8, 4.A.3), and random orders meet that case within
a few years in most games, so by default the explicit form of that order is left out
and the games run their full length; ``--adjacent-via`` puts it back.

Every figure is the best (fastest) of several timed passes: noise on a machine only
ever adds time. The figures are given for all phases and for the movement phases
alone, where nearly all the work is. Nothing here asserts a speed: the figures are
printed side by side with the goals of issue 19 for a human, for both engine cores (the
compiled C core and the pure-Python reference, in one run):

* through the batch API (``engine.batch``, compact boards encoded beforehand, untimed, as
  a search holds them): adjudication 100 times ``diplomacy``, legal orders 50 times;
* through the object API (``adjudicate``, ``legal_orders``): 20 times each;
* the full turn (legal orders, parsing, adjudication): 30 times.

    .venv/bin/python benchmarks/engine_speed.py                     # a minute or two
    .venv/bin/python benchmarks/engine_speed.py --adjacent-via      # games stop at the first divergence
    .venv/bin/python benchmarks/engine_speed.py --quick             # a smoke run, a few seconds
    .venv/bin/python benchmarks/engine_speed.py --json figures.json --divergences divergences.json
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import gc
import importlib.metadata
import json
import random
import re
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from machine import machine

import engine.orders
from benchmarks import results
from benchmarks.results import Column, Table, record, write
from engine import (
    Build,
    Map,
    Move,
    Order,
    Position,
    Waive,
    _native,
    adjudicate,
    format_order,
    legal_orders,
    parse_order,
    standard_map,
)
from engine.batch import adjudicate_many, encode_orders, encode_position, legal_orders_many

try:  # the comparison engine is the optional extra ``bench``: pip install -e '.[bench]'
    import diplomacy
except ImportError:  # pragma: no cover - depends on the environment
    diplomacy = None

REFERENCE_VERSION = "1.1.2"

# The three sea provinces whose names differ: detente uses the DAIDE names.
_THEIR_NAMES = {"ECH": "ENG", "GOL": "LYO", "GOB": "BOT"}
_OUR_NAME = re.compile(r"\b(" + "|".join(_THEIR_NAMES) + r")\b")


def their_notation(text: str) -> str:
    """An order or unit in detente's notation, written with the diplomacy package's names."""
    return _OUR_NAME.sub(lambda match: _THEIR_NAMES[match.group(1)], text)


# --- recording the games -----------------------------------------------------------------


@dataclass(frozen=True)
class PlayedPhase:
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
    kind: str  # a short guess at the cause, see classify()
    details: dict[str, Any]


@dataclass
class Games:
    """The recorded games, and what went differently in diplomacy."""

    games: list[list[PlayedPhase]]
    divergences: list[Divergence] = dataclasses.field(default_factory=list)
    # orders of ours that diplomacy's set_orders refused, by phase kind
    rejected: Counter[str] = dataclasses.field(default_factory=Counter)
    stepped_over: int = 0  # retreat phases where no dislodged unit could retreat (see generate)

    @property
    def phases(self) -> list[PlayedPhase]:
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
        province_of = m.province_of
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
    """The parts of a position both engines show, in the diplomacy package's names.

    A dislodged unit with nowhere to go is left out: diplomacy disbands it at once.
    """
    m = position.map
    full = m.power_names  # diplomacy names a power in full
    units: dict[str, list[str]] = {}
    for u in position.units:
        units.setdefault(full[u.power], []).append(their_notation(position.unit_name(u)))
    centers: dict[str, list[str]] = {}
    for p, owner in enumerate(position.centers):
        if owner is not None:
            centers.setdefault(full[owner], []).append(their_notation(m.name_of(p)))
    retreats: dict[str, dict[str, list[str]]] = {}
    for d in position.dislodged:
        if d.retreats:
            names = sorted(their_notation(m.name_of(r)) for r in d.retreats)
            retreats.setdefault(full[d.unit.power], {})[their_notation(position.unit_name(d.unit))] = names
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


def unretreatable(position: Position) -> bool:
    """A retreat phase in which no dislodged unit has anywhere to go (so all must disband)."""
    return position.phase.kind == "R" and not position.completed and not any(d.retreats for d in position.dislodged)


def classify(before: Position, orders: dict[str, list[Order]], results: dict[Any, tuple[str, ...]]) -> str:
    """A guess at why the engines disagree, for the summary; the details are in the record."""
    m = before.map
    for power_orders in orders.values():
        for order in power_orders:
            if not isinstance(order, Move) or order.destination not in m.army_moves[order.location]:
                continue
            unit = before.unit_at.get(m.province_of[order.location])
            if unit is not None and "no convoy" in results.get(unit, ()):
                how = "'VIA'" if order.via_convoy else "own convoy order"
                return f"army to a neighbour by {how} with no convoy route (DATC 4.A.3, 6.G.8)"
    return "other"


def generate(count: int, years: int, seed: int, compare: bool, avoid_adjacent_via: bool) -> Games:
    """Play ``count`` random games of up to ``years`` years, in lockstep with diplomacy if ``compare``."""
    m = standard_map()
    recorded = Games([])
    for number in range(count):
        rng = random.Random(f"{seed}/{number}")
        position = Position.initial(m)
        game = diplomacy.Game() if compare else None
        played: list[PlayedPhase] = []
        last_year = position.phase.year + years - 1
        while not position.completed and position.phase.year <= last_year:
            orders = random_orders(rng, position, avoid_adjacent_via)
            texts = {power: [format_order(m, o) for o in power_orders] for power, power_orders in orders.items()}
            theirs = {m.power_names[p]: [their_notation(t) for t in power_texts] for p, power_texts in texts.items()}
            outcome = adjudicate(position, orders)
            after = outcome.position
            if unretreatable(after):
                # detente asks for orders here (only Disband is legal); diplomacy disbands such
                # units on its own and skips the phase. Step over it, untimed, to stay in step.
                after = adjudicate(after, {}).position
                recorded.stepped_over += 1
            if game is not None:
                given = sum(len(t) for t in theirs.values())
                kept = set_their_orders(game, theirs)
                recorded.rejected[position.phase.kind] += given - kept
                their_outcome = game.process()
                ours, other = our_snapshot(after), their_snapshot(game)
                if ours != other:
                    details = {
                        "before": position.to_json(),
                        "orders": texts,
                        "their_orders_kept": their_outcome.orders,
                        "our_results": {
                            their_notation(position.unit_name(u)): list(w) for u, w in outcome.results.items()
                        },
                        "their_results": {
                            unit: [str(r) for r in words] for unit, words in their_outcome.results.items() if words
                        },
                        "difference": _difference(ours, other),
                    }
                    kind = classify(position, orders, outcome.results)
                    recorded.divergences.append(Divergence(number, str(position.phase), kind, details))
                    break
            played.append(PlayedPhase(position, orders, texts, theirs))
            position = after
        recorded.games.append(played)
    return recorded


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


T = TypeVar("T")


def passes(repeats: int, one_pass: Callable[..., T], *args: Any) -> list[T]:
    """Run ``repeats`` timed passes; a pass returns the seconds it spent in the timed code."""
    times = []
    for _ in range(repeats):
        # As timeit does: collect first, then keep the cyclic collector off while timing,
        # so that neither engine pays for traversing the other's objects (this process
        # holds every recorded game of both engines).
        gc.collect()
        gc.disable()
        try:
            times.append(one_pass(*args))
        finally:
            gc.enable()
    return times


def ours_adjudication(phases: Sequence[PlayedPhase]) -> float:
    positions = [fresh(p.position) for p in phases]
    orders = [p.orders for p in phases]
    start = time.perf_counter()
    for position, power_orders in zip(positions, orders, strict=True):
        adjudicate(position, power_orders)
    return time.perf_counter() - start


def ours_parse_and_adjudication(phases: Sequence[PlayedPhase], m: Map, cold: bool) -> float:
    positions = [fresh(p.position) for p in phases]
    texts = [p.texts for p in phases]
    clear = engine.orders._parse_cached.cache_clear
    if not cold:  # warm the memo, untimed, as a server that has been running a while has it
        for power_texts in texts:
            for ts in power_texts.values():
                for t in ts:
                    parse_order(m, t)
    clock = time.perf_counter
    total = 0.0
    for position, power_texts in zip(positions, texts, strict=True):
        if cold:
            clear()
        start = clock()
        adjudicate(position, {power: [parse_order(m, t) for t in ts] for power, ts in power_texts.items()})
        total += clock() - start
    return total


def ours_legal_orders(phases: Sequence[PlayedPhase]) -> float:
    positions = [fresh(p.position) for p in phases]
    powers = phases[0].position.map.powers if phases else ()
    start = time.perf_counter()
    for position in positions:
        for power in powers:
            legal_orders(position, power)
    return time.perf_counter() - start


def ours_full_turn(phases: Sequence[PlayedPhase], m: Map) -> float:
    """What a game loop of bots does each phase: legal orders, orders given as text, adjudication."""
    positions = [fresh(p.position) for p in phases]
    texts = [p.texts for p in phases]
    powers = m.powers
    start = time.perf_counter()
    for position, power_texts in zip(positions, texts, strict=True):
        for power in powers:
            legal_orders(position, power)
        adjudicate(position, {power: [parse_order(m, t) for t in ts] for power, ts in power_texts.items()})
    return time.perf_counter() - start


def ours_batch_adjudication(phases: Sequence[PlayedPhase], m: Map, threads: int = 1) -> float:
    """Every phase through ``engine.batch.adjudicate_many`` in one call (encoded beforehand)."""
    boards = [encode_position(p.position) for p in phases]
    orders = [encode_orders(m, p.orders) for p in phases]
    start = time.perf_counter()
    adjudicate_many(m, boards, orders, threads=threads)
    return time.perf_counter() - start


def ours_batch_encoding(phases: Sequence[PlayedPhase], m: Map) -> float:
    """The same from the engine's objects: each position and its orders encoded in the timing."""
    positions = [p.position for p in phases]
    orders = [p.orders for p in phases]
    start = time.perf_counter()
    adjudicate_many(m, [encode_position(p) for p in positions], [encode_orders(m, o) for o in orders])
    return time.perf_counter() - start


def ours_batch_legal(phases: Sequence[PlayedPhase], m: Map) -> float:
    """Every position's legal orders (all powers) through ``engine.batch.legal_orders_many``."""
    boards = [encode_position(p.position) for p in phases]
    start = time.perf_counter()
    legal_orders_many(m, boards)
    return time.perf_counter() - start


def theirs_replay(games: Sequence[Sequence[PlayedPhase]], what: str) -> dict[str, float]:
    """Replay the games in fresh ``diplomacy.Game``s, timing only ``what`` in each phase.

    ``what`` is ``"process"`` (orders set untimed), ``"set+process"``, ``"legal"``
    (``get_all_possible_orders`` on the position before the phase, then the phase is
    played untimed) or ``"full"`` (all three, timed). Returns the seconds by phase kind
    (M, R, A).
    """
    clock = time.perf_counter
    seconds = dict.fromkeys("MRA", 0.0)
    for phases in games:
        game = diplomacy.Game()
        for phase in phases:
            kind = phase.position.phase.kind
            if game.get_current_phase() != str(phase.position.phase):  # the replay must follow the recording
                raise RuntimeError(f"diplomacy replay at {game.get_current_phase()}, recorded {phase.position.phase}")
            if what == "legal":
                # process() clears the convoy caches when it changes phase; clear them here
                # too so that every call computes from scratch, as ours do on fresh positions.
                game.clear_cache()
                start = clock()
                game.get_all_possible_orders()
                seconds[kind] += clock() - start
                set_their_orders(game, phase.their_texts)
                game.process()
            elif what == "full":
                game.clear_cache()
                start = clock()
                game.get_all_possible_orders()
                for power, orders in phase.their_texts.items():
                    game.set_orders(power, orders)
                game.process()
                seconds[kind] += clock() - start
            elif what == "process":
                set_their_orders(game, phase.their_texts)
                start = clock()
                game.process()
                seconds[kind] += clock() - start
            else:
                start = clock()
                for power, orders in phase.their_texts.items():
                    game.set_orders(power, orders)
                game.process()
                seconds[kind] += clock() - start
    return seconds


# --- reporting ---------------------------------------------------------------------------


def their_version() -> str | None:
    if diplomacy is None:
        return None
    try:
        return importlib.metadata.version("diplomacy")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


@dataclass
class Row:
    """One measurement: the seconds of every pass of both engines over ``count`` items."""

    name: str
    unit: str  # what is counted: phases or positions
    count: int
    ours: list[float]
    theirs: list[float] | None = None
    goal: float | None = None  # the ratio to diplomacy the issue asks for, if any

    @property
    def our_rate(self) -> float:
        best = min(self.ours)
        return self.count / best if best > 0 else float("inf")

    @property
    def their_rate(self) -> float | None:
        return None if not self.theirs else self.count / min(self.theirs)

    @property
    def ratio(self) -> float | None:
        their = self.their_rate
        return None if their is None else self.our_rate / their

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "unit": self.unit,
            "count": self.count,
            "detente_seconds_per_pass": self.ours,
            "diplomacy_seconds_per_pass": self.theirs,
            "detente_per_second": self.our_rate,
            "diplomacy_per_second": self.their_rate,
            "ratio": self.ratio,
            "goal_ratio": self.goal,
        }


def print_table(rows: Sequence[Row], version: str | None) -> None:
    dip = f"diplomacy {version}" if version else "diplomacy"
    header = f"{'measurement':<44} {'unit':>9} {'detente /s':>11} {dip + ' /s':>19} {'ratio':>7} {'goal':>5}  verdict"
    print(header)
    print("-" * len(header))
    for row in rows:
        their = f"{row.their_rate:,.0f}" if row.their_rate is not None else "n/a"
        ratio = f"{row.ratio:.1f}x" if row.ratio is not None else "n/a"
        goal = f"{row.goal:.0f}x" if row.goal else "-"
        verdict = "" if not row.goal or row.ratio is None else "met" if row.ratio >= row.goal else "NOT met"
        print(f"{row.name:<44} {row.unit:>9} {row.our_rate:>11,.0f} {their:>19} {ratio:>7} {goal:>5}  {verdict}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--games", type=int, default=40, help="random games to play (default 40)")
    parser.add_argument("--years", type=int, default=10, help="years per game, unless it ends sooner (default 10)")
    parser.add_argument("--seed", type=int, default=1, help="seed (default 1); game i uses Random(f'{seed}/{i}')")
    parser.add_argument("--repeats", type=int, default=5, help="timed passes per figure, the best is kept (default 5)")
    parser.add_argument("--quick", action="store_true", help="a smoke run: 10 games of 5 years, 2 passes")
    parser.add_argument(
        "--adjacent-via",
        action="store_true",
        help="also draw 'A X - Y VIA' to a neighbouring province Y: on that order the two engines'\n"
        "rules differ (DATC 6.G.8), and it stops most random games within a few years",
    )
    parser.add_argument("--json", metavar="FILE", help="write the figures to FILE as JSON")
    parser.add_argument("--divergences", metavar="FILE", help="write every divergence to FILE as JSON")
    args = parser.parse_args(argv)
    if args.quick:
        args.games, args.years, args.repeats = 10, 5, 2

    began = time.perf_counter()
    version = their_version()
    compare = diplomacy is not None
    info = machine()
    print("detente engine speed against the diplomacy package")
    print(f"date      {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M:%S} UTC")
    print(f"machine   {info['cores']} cores, {info['cpu']}")
    print(f"python    {info['python']} on {info['platform']}")
    if compare:
        note = "" if version == REFERENCE_VERSION else f"  (WARNING: the reference is {REFERENCE_VERSION})"
        print(f"diplomacy {version}{note}")
    else:
        print(
            "diplomacy NOT INSTALLED: only detente's figures are shown "
            f"(pip install 'diplomacy=={REFERENCE_VERSION}', or the project's extra '.[bench]')"
        )
    orders_note = "" if args.adjacent_via else ", never 'VIA' to a neighbour"
    print(
        f"games     {args.games} games of up to {args.years} years of uniformly random legal orders{orders_note}, "
        f"seed {args.seed}"
    )

    recorded = generate(args.games, args.years, args.seed, compare, not args.adjacent_via)
    phases = recorded.phases
    kinds = Counter(p.position.phase.kind for p in phases)
    last_year = standard_map().first_year + args.years - 1
    full = sum(1 for game in recorded.games if game and game[-1].position.phase.year == last_year)
    print(
        f"phases    {len(phases)} phases timed ({kinds['M']} movement, {kinds['R']} retreat, {kinds['A']} adjustment), "
        f"{sum(len(t) for p in phases for t in p.texts.values())} orders; {full} games reached their last year"
    )
    if compare:
        _print_divergences(recorded, args.divergences)
    their_repeats = max(1, min(args.repeats, 3))  # the package is slower: fewer passes keep the run short
    against = f", of {their_repeats} for diplomacy" if compare else ""
    print(
        f"timing    fastest of {args.repeats} passes for detente{against}; "
        "detente gets fresh position copies with nothing cached"
    )
    print()

    # Every measurement is taken over all phases, and again over the movement phases
    # alone, where nearly all the work is (adjustment phases are a third of the phases
    # of random games, and cheap for both engines).
    m = standard_map()
    movement = [p for p in phases if p.position.phase.kind == "M"]
    ours: list[tuple[str, str, float | None, Callable[[Sequence[PlayedPhase]], float]]] = [
        ("adjudication (orders parsed)", "phases", 20.0, ours_adjudication),
        ("adjudication + parsing", "phases", None, lambda ps: ours_parse_and_adjudication(ps, m, False)),
        ("  the same, parse memo cleared/phase", "phases", None, lambda ps: ours_parse_and_adjudication(ps, m, True)),
        ("legal orders (all 7 powers)", "positions", 20.0, ours_legal_orders),
        ("full turn: legal + parse + adjudicate", "phases", 30.0, lambda ps: ours_full_turn(ps, m)),
    ]
    batch: list[tuple[str, str, float | None, Callable[[Sequence[PlayedPhase]], float]]] = [
        ("batch API: adjudicate_many", "phases", 100.0, lambda ps: ours_batch_adjudication(ps, m)),
        ("  the same, with 2 threads", "phases", None, lambda ps: ours_batch_adjudication(ps, m, threads=2)),
        ("  the same, encoding included (1 thread)", "phases", None, lambda ps: ours_batch_encoding(ps, m)),
        ("batch API: legal_orders_many (all powers)", "positions", 50.0, lambda ps: ours_batch_legal(ps, m)),
    ]
    # which diplomacy measurement each line is compared with
    against_what = {
        "adjudication (orders parsed)": "process",
        "adjudication + parsing": "set+process",
        "  the same, parse memo cleared/phase": "set+process",
        "legal orders (all 7 powers)": "legal",
        "full turn: legal + parse + adjudicate": "full",
        "batch API: adjudicate_many": "process",
        "  the same, with 2 threads": "process",
        "  the same, encoding included (1 thread)": "process",
        "batch API: legal_orders_many (all powers)": "legal",
    }
    cores = [(_native.COMPILED, False)] if _native.compiled_available() else []
    cores.append((_native.PURE, True))
    tables: list[tuple[str, list[Row], list[Row]]] = []
    for core, pure in cores:
        with _native.pure_python(pure):
            lines = (batch if not pure else []) + ours
            rows = [Row(name, unit, len(phases), passes(args.repeats, f, phases), goal=g) for name, unit, g, f in lines]
            movement_rows = [
                Row(name, unit, len(movement), passes(args.repeats, f, movement), goal=g) for name, unit, g, f in lines
            ]
        tables.append((core, rows, movement_rows))
    if compare:
        games = recorded.games
        measured = ("process", "set+process", "legal", "full")
        theirs = {what: passes(their_repeats, theirs_replay, games, what) for what in measured}
        for _, rows, movement_rows in tables:
            for row, movement_row in zip(rows, movement_rows, strict=True):
                what = against_what[row.name]
                row.theirs = [sum(by_kind.values()) for by_kind in theirs[what]]
                movement_row.theirs = [by_kind["M"] for by_kind in theirs[what]]
    for core, rows, movement_rows in tables:
        print(f"engine core: {core}, all phases")
        print_table(rows, version)
        print(f"\nengine core: {core}, movement phases only")
        print_table(movement_rows, version)
        print()
    rows = tables[0][1]
    movement_rows = tables[0][2]
    print(
        "timed, detente:   adjudicate() | parse_order() of every string + adjudicate() | legal_orders() x 7 powers"
        " | all three;\n"
        "                  batch: adjudicate_many() / legal_orders_many() over every phase in one call, boards and\n"
        "                  orders encoded beforehand (untimed), outcomes left encoded\n"
        "timed, diplomacy: Game.process() | Game.set_orders() + process() | Game.get_all_possible_orders()"
        " | all three\n"
        "(the full turn is what the issue's reference of about 450 phases a second for diplomacy measures)\n"
        "(the warm parse memo is the normal case; clearing it leaves the map's name lookup cache warm)"
    )
    print(f"\nwhole run {time.perf_counter() - began:.1f} s")

    if args.json:
        figures = {
            "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            "machine": info,
            "diplomacy_version": version,
            "seed": args.seed,
            "games": args.games,
            "years": args.years,
            "adjacent_via": args.adjacent_via,
            "phases": len(phases),
            "phase_kinds": dict(kinds),
            "divergences": [{"game": d.game, "phase": d.phase, "kind": d.kind} for d in recorded.divergences],
            "stepped_over_retreat_phases": recorded.stepped_over,
            "rejected_orders": sum(recorded.rejected.values()),
            "statistic": "fastest pass",
            "cores": {
                core: {
                    "measurements": [row.as_json() for row in core_rows],
                    "movement_phases_only": [row.as_json() for row in core_movement],
                }
                for core, core_rows, core_movement in tables
            },
        }
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump(figures, out, indent=2)
    notes = [
        f"{args.games} seeded games of up to {args.years} years of uniformly random legal orders"
        f"{orders_note}: {len(phases):,} phases ({kinds['M']} movement, {kinds['R']} retreat,"
        f" {kinds['A']} adjustment), {len(recorded.divergences)} game(s) stopped early where the two engines'"
        f" rules differ; fastest of {args.repeats} passes for détente"
        + (f", of {their_repeats} for diplomacy {version}" if compare else "; diplomacy not installed")
        + ". The batch lines time `adjudicate_many` / `legal_orders_many` over all phases in one call, boards and"
        " orders encoded beforehand. The ratio is détente's figure over the package's; the goals are issue 19's."
    ]
    before = _kept_ratios()
    tables_out = [
        _record_table(what, [(core, rows_of[i]) for core, *rows_of in tables], before.get(what, {}), version)
        for i, what in enumerate(("all phases", "movement phases only"))
    ]
    command = " ".join(["benchmarks/engine_speed.py", *(argv if argv is not None else sys.argv[1:])])
    data = {
        "games": args.games,
        "years": args.years,
        "repeats": args.repeats,
        "adjacent_via": args.adjacent_via,
        "phase_kinds": dict(kinds),
        "divergences": [{"game": d.game, "phase": d.phase, "kind": d.kind} for d in recorded.divergences],
        "diplomacy_version": version,
        "whole_run_s": round(time.perf_counter() - began, 1),
    }
    path = write(
        record(
            "engine_speed",
            "Engine speed against the diplomacy package",
            command,
            len(phases),
            tables_out,
            seeds=[args.seed],
            notes=notes,
            data=data,
        )
    )
    print(f"written to {path}")
    return 0


ENGINE_COLUMNS = (
    Column("measurement", "measurement"),
    Column("unit", "unit"),
    Column("compiled", "compiled C /s", True),
    Column("pure", "pure Python /s", True),
    Column("diplomacy", "diplomacy /s", True),
    Column("compiled_ratio", "compiled ratio", True),
    Column("pure_ratio", "pure ratio", True),
    Column("before", "compiled ratio before", True),
    Column("goal", "goal ratio", True),
    Column("met", "goal met (compiled / pure)"),
)


def _record_table(
    what: str, by_core: Sequence[tuple[str, Sequence[Row]]], before: dict[str, float], version: str | None
) -> Table:
    """One table of the record: each measurement with both cores, the package and the goal side by side."""
    found = {core: {row.name: row for row in rows} for core, rows in by_core}
    compiled, pure = found.get(_native.COMPILED, {}), found.get(_native.PURE, {})
    names = list(compiled) + [name for name in pure if name not in compiled]
    rows = []
    for name in names:
        c, p = compiled.get(name), pure.get(name)
        any_row = c or p
        assert any_row is not None
        goal = any_row.goal
        verdicts = [
            "-" if r is None or r.ratio is None or not goal else "met" if r.ratio >= goal else "not met" for r in (c, p)
        ]
        rows.append(
            {
                "measurement": name.strip(),
                "unit": any_row.unit,
                "compiled": round(c.our_rate) if c else None,
                "pure": round(p.our_rate) if p else None,
                "diplomacy": round(any_row.their_rate) if any_row.their_rate is not None else None,
                "compiled_ratio": round(c.ratio, 1) if c and c.ratio is not None else None,
                "pure_ratio": round(p.ratio, 1) if p and p.ratio is not None else None,
                "before": before.get(name.strip()),
                "goal": goal,
                "met": " / ".join(verdicts) if goal else None,
            }
        )
    kept = _kept_date()
    note = (
        f"Phases or positions a second, the fastest pass; diplomacy {version or 'not installed'} on the same phases."
        " The pure-Python core has no batch API of its own (it runs the reference phase by phase)."
        + (f" Before: the compiled core's ratio in the record this run replaced ({kept})." if kept else "")
    )
    if what == "all phases":
        note += f" {BEFORE_ISSUE_19}"
    return Table(f"Engine speed, {what}", ENGINE_COLUMNS, rows, note)


#: The figures before the compiled core, from the write-up of those runs (all phases).
BEFORE_ISSUE_19 = (
    "Before issue 19 the engine was the pure-Python core alone: adjudication 9.6x, legal orders 6.3x, the full turn"
    " 11.4x (2026-11-22); 9.8x, 5.6x and 11.6x after issue 13 (2026-11-25)."
)


def _kept() -> dict[str, Any]:
    return results.kept("engine_speed")


def _kept_date() -> str | None:
    kept = _kept()
    return kept.get("date", "")[:10] or None


def _kept_ratios() -> dict[str, dict[str, float]]:
    """The compiled core's ratios in the record kept before this run, by table and measurement."""
    ratios: dict[str, dict[str, float]] = {}
    for table in _kept().get("tables", []):
        what = table.get("title", "").removeprefix("Engine speed, ")
        ratios[what] = {
            row["measurement"]: row["compiled_ratio"] for row in table.get("rows", []) if row.get("compiled_ratio")
        }
    return ratios


def _print_divergences(recorded: Games, path: str | None) -> None:
    divergences = recorded.divergences
    print(f"diverged  {len(divergences)} of {len(recorded.games)} games; each stops at its first divergence")
    for kind, n in Counter(d.kind for d in divergences).most_common():
        where = [f"{d.game}:{d.phase}" for d in divergences if d.kind == kind]
        more = f" and {len(where) - 8} more" if len(where) > 8 else ""
        print(f"          {n} x {kind}\n            after game:phase {', '.join(where[:8])}{more}")
    if recorded.stepped_over:
        print(
            f"stepped   over {recorded.stepped_over} retreat phase(s) where no dislodged unit could retreat:"
            " detente asks for orders there, diplomacy skips them (untimed)"
        )
    rejected = sum(recorded.rejected.values())
    if rejected:
        by_kind = ", ".join(f"{n} in {k} phases" for k, n in sorted(recorded.rejected.items()) if n)
        print(f"rejected  {rejected} of our legal orders were refused by diplomacy's set_orders ({by_kind})")
    if divergences:
        first = divergences[0]
        print("          the first divergence is written to stderr" + (f", all of them to {path}" if path else ""))
        example = {"game": first.game, "phase": first.phase, "kind": first.kind, **first.details}
        print("first divergence:", file=sys.stderr)
        for key, value in example.items():  # one line per entry: short enough to read, and still JSON
            print(f"  {key}: {json.dumps(value)}", file=sys.stderr)
    if path:
        with open(path, "w", encoding="utf-8") as out:
            records = [{"game": d.game, "phase": d.phase, "kind": d.kind, **d.details} for d in divergences]
            json.dump(records, out, indent=1)


if __name__ == "__main__":
    sys.exit(main())

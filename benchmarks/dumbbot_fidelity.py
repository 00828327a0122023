#!/usr/bin/env python
"""How faithful is our DumbBot to David Norman's C++ DumbBot? Same positions, then whole games.

**Same positions.** Positions are taken from seeded games of seven of our DumbBots
(movement, retreat and adjustment phases, each with one power that has orders to give).
The C++ bot (``DETENTE_DAIDE_CLIENT`` or ``--binary``; built by
``benchmarks/build_daide_client.sh``) is given each position by a minimal DAIDE server on
loopback, written here on our sans-I/O DAIDE code (``protocol.daide``): after the opening
(IM, NME, MAP, MDF, YES (MAP)) each sample is ``HLO``, ``SCO`` and ``NOW`` for the position,
answered by one ``SUB``; the bot draws afresh each time from the same C ``rand()`` stream,
so one process gives every sample. Ours is sampled as often, seeded. For each position
and each unit the two order distributions are compared by their total variation distance
(for an adjustment phase the unit is the whole set of builds or removals, waives left
out); a position's distance is the mean over its units, the overall distance the mean over
positions. Beside it the noise floor: the same distance between two independent samples
of the C++ bot, and of ours, each of the same size.

**Games.** One of ours among six C++ DumbBots, and one C++ DumbBot among six of ours, to
1910, powers rotated so that each power is played equally often (``detente run`` with
``daide:`` seats). For each game, the odd one out's centres in 1910, and those minus the
mean centres of the six others; for each, the mean over games and its 95% confidence
interval (normal approximation, from the per-game standard deviation). Were the two bots
the same, the difference would be about 0 both ways (and the centres about 34/7). The C++
bots seed C's ``rand`` from the clock in seconds, so those started in the same second
share their random numbers: their games do not replay, and are not quite independent.

The figures are kept as ``benchmarks/results/dumbbot_fidelity.json`` and rendered as
``docs/results/dumbbot_fidelity.md`` (:mod:`benchmarks.results`; ``BENCHMARK_RESULTS=DIR``
sends a trial run's elsewhere), each beside its reference.

    .venv/bin/python benchmarks/dumbbot_fidelity.py              # about half an hour on 2 cores
    .venv/bin/python benchmarks/dumbbot_fidelity.py --quick      # a few minutes

Reference (the issue, before the alignment): +0.05 +- 0.21 centres; distance 0.07 against
a noise floor of 0.04.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import random
import shutil
import socket
import statistics
import subprocess
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import engine.orders as eo
from bots.dumbbot import DumbBot
from bots.inprocess import seeds_for
from engine import Position, adjudicate, format_order, legal_orders, standard_map
from engine.maps import Map
from protocol.daide.framing import (
    NEED_DATA,
    Connection,
    DiplomacyMessage,
    InitialMessage,
    RepresentationMessage,
    Role,
    Sentinel,
)
from protocol.daide.messages import Hlo, MapMessage, MrtUnit, Now, Ownership, Sco, Sub, Turn
from protocol.daide.orders import (
    location_from_engine,
    map_definition,
    order_to_engine,
    unit_from_engine,
)
from protocol.daide.parser import parse

REFERENCE_DIFFERENCE = (0.05, 0.21)  # centres, the figure before the alignment
REFERENCE_DISTANCE = (0.07, 0.04)  # distance, noise floor
#: Our DumbBot before the alignment, on the same 36 positions and draws (distance, C++ noise, our noise):
#: the benchmark's functions with the previous ``bots/dumbbot.py`` swapped in, run once by hand on 2026-11-25.
PREVIOUS_VERSION = (0.099, 0.011, 0.007)
ENV = "DETENTE_DAIDE_CLIENT"
DEFAULT_BINARY = "/work/daide-build/bin/dumbbot"
READ_TIMEOUT = 20.0  # seconds to wait for the C++ bot's answer before giving up


def find_binary(value: str | None) -> Path:
    """The C++ DumbBot: ``value``, else ``$DETENTE_DAIDE_CLIENT``, else the usual build place."""
    raw = value or os.environ.get(ENV) or DEFAULT_BINARY
    path = Path(raw).expanduser()
    for candidate in (path, path / "dumbbot", path / "bin" / "dumbbot"):
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate.resolve()
    raise SystemExit(f"no C++ DumbBot at {raw} (build it with benchmarks/build_daide_client.sh)")


# --- the positions ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """One position and the power whose orders are sampled there."""

    position: Position
    power: str

    @property
    def label(self) -> str:
        return f"{self.position.phase} {self.power}"


def collect_cases(
    m: Map, seed: int, movement: int, retreats: int, adjustments: int, last_year: int = 1908
) -> list[Case]:
    """Positions from seeded games of seven of our DumbBots, spread over years and powers.

    Each game contributes at most one case per phase; games are played until there are
    enough of each kind (builds and removals both among the adjustments when found).
    """
    wanted = {"M": movement, "R": retreats, "A": adjustments}
    found: dict[str, list[Case]] = {"M": [], "R": [], "A": []}
    game = 0
    while any(len(found[k]) < wanted[k] for k in wanted) and game < 200:
        rng = random.Random(seed * 1000 + game)
        bots = {p: DumbBot(random.Random(rng.getrandbits(32))) for p in m.powers}
        position = Position.initial(m)
        for power, bot in bots.items():
            bot.start(power, m)
        while not position.completed and position.phase.year <= last_year:
            kind = position.phase.kind
            legal = {p: legal_orders(position, p) for p in m.powers}
            candidates = [p for p in m.powers if legal[p] and _has_choice(position, p, legal[p])]
            # one case every few phases of a kind, so that the cases spread over the years
            if candidates and len(found[kind]) < wanted[kind] and rng.random() < (0.25 if kind == "M" else 0.6):
                if kind == "A" and found["A"]:
                    # alternate builds and removals when both come up
                    removals = sum(1 for c in found["A"] if c.position.adjustments[c.power] < 0)
                    want_removal = removals * 2 < len(found["A"])
                    preferred = [p for p in candidates if (position.adjustments[p] < 0) == want_removal]
                    candidates = preferred or candidates
                found[kind].append(Case(position, rng.choice(candidates)))
            orders = {p: bots[p].orders(position, legal[p]) for p in m.powers if legal[p]}
            position = adjudicate(position, orders).position
        game += 1
    return found["M"] + found["R"] + found["A"]


def _has_choice(position: Position, power: str, legal: dict) -> bool:
    """Whether ``power`` has more than one way to play here (a case with one teaches nothing)."""
    kind = position.phase.kind
    if kind == "M":
        return True
    if kind == "R":
        return any(sum(isinstance(o, eo.Retreat) for o in options) >= 2 for options in legal.values())
    owed = position.adjustments.get(power, 0)
    options = legal.get(None, ())
    if owed > 0:
        return sum(isinstance(o, eo.Build) for o in options) >= 2
    return owed < 0 and sum(isinstance(o, eo.Disband) for o in options) > -owed


# --- sampling -----------------------------------------------------------------------------------------

Sample = list[tuple[str, ...]]  # one entry per draw: the canonical orders of each slot, in slot order


def slots(case: Case) -> list[str]:
    """What a draw is split into: each unit's order, or for adjustments the whole set."""
    legal = legal_orders(case.position, case.power)
    if case.position.phase.kind == "A":
        return ["adjustments"]
    m = case.position.map
    return sorted(m.locations[u.location] for u in legal if u is not None)


def canonical(case: Case, orders: Sequence[eo.Order]) -> tuple[str, ...]:
    m = case.position.map
    if case.position.phase.kind == "A":
        return (" ".join(sorted(format_order(m, o) for o in orders if not isinstance(o, eo.Waive))),)
    by_place = {m.locations[o.location]: format_order(m, o) for o in orders if not isinstance(o, eo.Waive)}
    return tuple(by_place.get(place, "(none)") for place in slots(case))


def sample_ours(case: Case, draws: int, seed: int) -> Sample:
    bot = DumbBot(random.Random(seed))
    bot.start(case.power, case.position.map)
    legal = legal_orders(case.position, case.power)
    return [canonical(case, bot.orders(case.position, legal)) for _ in range(draws)]


def sco_message(position: Position) -> Sco:
    m = position.map
    groups = [Ownership(p, position.centers_of(p)) for p in m.powers if position.centers_of(p)]
    neutral = tuple(sorted(m.locations[p] for p in m.supply_centers if position.centers[p] is None))
    if neutral:
        groups.append(Ownership("UNO", neutral))
    return Sco(tuple(groups))


def now_message(position: Position) -> Now:
    m = position.map
    units: list[object] = [unit_from_engine(u, m) for u in position.units]
    for d in position.dislodged:
        retreats = tuple(sorted((location_from_engine(r, m) for r in d.retreats), key=str))
        units.append(MrtUnit(unit_from_engine(d.unit, m), retreats))
    return Now(Turn.of(position.phase), tuple(units))  # type: ignore[arg-type]


class CppDumbBot:
    """The C++ binary, connected to a one-client DAIDE server of ours on loopback.

    ``orders(position, power)`` sends ``HLO`` (when the power changes), ``SCO`` and ``NOW`` and
    returns the orders of the ``SUB`` that comes back.
    """

    def __init__(self, binary: Path, m: Map) -> None:
        self.map = m
        self.power: str | None = None
        self._dir = tempfile.mkdtemp(prefix="dumbbot-")
        listener = socket.create_server(("127.0.0.1", 0))
        port = listener.getsockname()[1]
        self._process = subprocess.Popen(
            [str(binary), "-i127.0.0.1", f"-p{port}"],
            cwd=self._dir,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        listener.settimeout(READ_TIMEOUT)
        try:
            self._sock, _ = listener.accept()
        finally:
            listener.close()
        self._sock.settimeout(READ_TIMEOUT)
        # Small messages both ways: without this, Nagle and delayed ACKs cost 40 ms a draw.
        self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._conn = Connection(Role.SERVER)
        self._opening()

    def _send(self, *messages: object) -> None:
        data = b"".join(
            self._conn.send(x if isinstance(x, RepresentationMessage) else DiplomacyMessage.from_text(str(x)))
            for x in messages
        )
        self._sock.sendall(data)

    def _next(self) -> object:
        while True:
            event = self._conn.next_event()
            if event is NEED_DATA:
                data = self._sock.recv(65536)
                self._conn.receive_data(data)
                if not data:
                    raise ConnectionError("the C++ DumbBot closed the connection")
                continue
            if isinstance(event, Sentinel):
                raise ConnectionError(f"the C++ DumbBot's connection ended: {event}")
            return event

    def _next_text(self) -> str:
        while True:
            event = self._next()
            if isinstance(event, DiplomacyMessage):
                return event.to_text()
            if not isinstance(event, InitialMessage):
                raise ConnectionError(f"unexpected message from the C++ DumbBot: {event}")
            self._send(RepresentationMessage())

    def _opening(self) -> None:
        text = self._next_text()  # NME ('DumbBot') ('...')
        if not text.startswith("NME"):
            raise RuntimeError(f"the C++ DumbBot began with {text}")
        self._sock.sendall(self._conn.send(DiplomacyMessage.from_text(f"YES ({text})")))
        self._send(MapMessage("standard"))
        while (text := self._next_text()) != "MDF":
            pass
        self._send(map_definition(self.map))
        while not self._next_text().startswith("YES (MAP"):
            pass

    def orders(self, position: Position, power: str) -> list[eo.Order]:
        messages: list[object] = []
        if power != self.power:
            messages.append(Hlo(power, 1234, ()))
            self.power = power
        self._send(*messages, sco_message(position), now_message(position))
        while True:
            message = parse(self._next_text())
            if isinstance(message, Sub):
                return [order_to_engine(o, self.map)[1] for o in message.orders]

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._sock.close()
        self._process.terminate()
        try:
            self._process.wait(5)
        except subprocess.TimeoutExpired:
            self._process.kill()
        shutil.rmtree(self._dir, ignore_errors=True)


def sample_cpp(bot: CppDumbBot, case: Case, draws: int) -> Sample:
    return [canonical(case, bot.orders(case.position, case.power)) for _ in range(draws)]


# --- distances ----------------------------------------------------------------------------------------


def distance(a: Sample, b: Sample) -> float:
    """Mean over slots of the total variation distance between the two samples' order distributions."""
    width = len(a[0])
    total = 0.0
    for i in range(width):
        ca, cb = Counter(x[i] for x in a), Counter(x[i] for x in b)
        total += 0.5 * sum(abs(ca[k] / len(a) - cb[k] / len(b)) for k in ca.keys() | cb.keys())
    return total / width


@dataclass(frozen=True)
class Fidelity:
    label: str
    distance: float
    cpp_noise: float
    our_noise: float
    biggest: str  # the slot and orders where the two differ most, to look at


def biggest_gap(a: Sample, b: Sample, slots_: Sequence[str]) -> str:
    best = (0.0, "")
    for i, slot in enumerate(slots_):
        ca, cb = Counter(x[i] for x in a), Counter(x[i] for x in b)
        for k in ca.keys() | cb.keys():
            gap = ca[k] / len(a) - cb[k] / len(b)
            if abs(gap) > best[0]:
                best = (abs(gap), f"{k}: C++ {ca[k] / len(a):.2f}, ours {cb[k] / len(b):.2f}")
    return best[1]


def same_positions(binary: Path, cases: Sequence[Case], draws: int, seed: int) -> list[Fidelity]:
    m = cases[0].position.map
    bot = CppDumbBot(binary, m)
    results = []
    try:
        for case, (s1, s2) in zip(cases, [seeds_for(seed + i, 2) for i in range(len(cases))], strict=True):
            cpp_a, cpp_b = sample_cpp(bot, case, draws), sample_cpp(bot, case, draws)
            ours_a, ours_b = sample_ours(case, draws, s1), sample_ours(case, draws, s2)
            results.append(
                Fidelity(
                    case.label,
                    distance(cpp_a, ours_a),
                    distance(cpp_a, cpp_b),
                    distance(ours_a, ours_b),
                    biggest_gap(cpp_a, ours_a, slots(case)),
                )
            )
    finally:
        bot.close()
    return results


# --- games --------------------------------------------------------------------------------------------


def mean_ci(values: Sequence[float]) -> tuple[float, float]:
    """The mean and the half-width of its 95% confidence interval (normal approximation)."""
    mean = statistics.fmean(values)
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else float("nan")
    return mean, half


def run_games(binary: Path, odd: str, games: int, seed: int, jobs: int, out: Path) -> list[tuple[int, float]]:
    """``games`` games to 1910 with ``odd`` (``ours`` or ``cpp``) alone among six of the other.

    Played as ``detente run --rotate`` plays them (its ``daide:`` seats start the C++ bots, one
    game server per game); the centres come from its ``games.jsonl``. Returns, for each game,
    the odd one's centres in 1910 minus the mean of the six others'.
    """
    from detente.experiments import Experiment, run_experiment
    from referee.settings import GameSettings

    cpp = f"daide:{binary}"
    slots = ("dumbbot", *[cpp] * 6) if odd == "ours" else (cpp, *["dumbbot"] * 6)
    if (out / "games.jsonl").exists():
        shutil.rmtree(out)
    experiment = Experiment(
        slots=slots,
        games=games,
        seed=seed,
        out=out,
        jobs=min(jobs, games),
        settings=GameSettings(name="experiment", year_limit=1910),
        rotate=True,
    )
    run_experiment(experiment)
    return odd_one_out(out, slots[0])


def odd_one_out(out: Path, odd_name: str) -> list[tuple[int, float]]:
    """Per game: the centres of the seat played by ``odd_name``, and those minus the mean of the others'."""
    diffs = []
    for line in (out / "games.jsonl").read_text(encoding="utf-8").splitlines():
        game = json.loads(line)
        centres: dict[str, int] = game["final_centres"]
        bots: dict[str, str] = game["bots"]
        mine = [p for p, name in bots.items() if name.split("#")[0] == odd_name]
        if len(mine) != 1:
            raise RuntimeError(f"expected one seat of {odd_name} in {bots}")
        me = mine[0]
        others = [centres.get(p, 0) for p in bots if p != me]
        diffs.append((centres.get(me, 0), centres.get(me, 0) - statistics.fmean(others)))
    return diffs


# --- main ---------------------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", help=f"the C++ dumbbot (default ${ENV}, else {DEFAULT_BINARY})")
    parser.add_argument("--quick", action="store_true", help="a small run: fewer positions, draws and games")
    parser.add_argument("--draws", type=int, help="draws of each bot per position and sample (default 1000)")
    parser.add_argument("--games", type=int, help="games each way (default 210: 30 per power)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="games played at once")
    parser.add_argument("--no-games", action="store_true", help="only the same-position distances")
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "dumbbot_fidelity")
    args = parser.parse_args(argv)
    binary = find_binary(args.binary)
    draws = args.draws or (200 if args.quick else 1000)
    games = args.games or (14 if args.quick else 210)
    counts = (6, 3, 3) if args.quick else (20, 8, 8)

    from machine import print_header

    print_header("DumbBot fidelity: ours against David Norman's C++ DumbBot")
    print(f"C++ bot: {binary}")
    started = time.perf_counter()
    m = standard_map()
    cases = collect_cases(m, args.seed, *counts)
    print(f"\nSame positions: {len(cases)} positions from seeded games of seven of our DumbBots (seed {args.seed}),")
    print(f"{draws} draws of each bot per sample; distance = mean over units of the total variation distance.")
    results = same_positions(binary, cases, draws, args.seed)
    print(f"\n{'position':<16}{'distance':>9}{'C++ noise':>10}{'our noise':>10}  largest gap")
    for r in results:
        print(f"{r.label:<16}{r.distance:>9.3f}{r.cpp_noise:>10.3f}{r.our_noise:>10.3f}  {r.biggest}")
    by_kind: dict[str, list[Fidelity]] = {}
    for case, r in zip(cases, results, strict=True):
        by_kind.setdefault(case.position.phase.kind, []).append(r)
    for kind, name in (("M", "movement"), ("R", "retreats"), ("A", "adjustments")):
        rs = by_kind.get(kind, [])
        if rs:
            print(
                f"{name:<16}{statistics.fmean(r.distance for r in rs):>9.3f}"
                f"{statistics.fmean(r.cpp_noise for r in rs):>10.3f}{statistics.fmean(r.our_noise for r in rs):>10.3f}"
            )
    overall = statistics.fmean(r.distance for r in results)
    cpp_noise = statistics.fmean(r.cpp_noise for r in results)
    our_noise = statistics.fmean(r.our_noise for r in results)
    print(f"{'overall':<16}{overall:>9.3f}{cpp_noise:>10.3f}{our_noise:>10.3f}")
    print(f"(same positions took {time.perf_counter() - started:.0f} s)")

    positions_seconds = time.perf_counter() - started
    game_lines: list[str] = []
    game_rows: list[dict[str, object]] = []
    if not args.no_games:
        for odd, label in (("ours", "one of ours among six C++"), ("cpp", "one C++ among six of ours")):
            t0 = time.perf_counter()
            played = run_games(binary, odd, games, args.seed, args.jobs, args.out / odd)
            centres, centres_half = mean_ci([float(k) for k, _ in played])
            mean, half = mean_ci([d for _, d in played])
            seconds = time.perf_counter() - t0
            game_lines.append(
                f"{label}: {centres:.2f} +- {centres_half:.2f} centres in 1910, {mean:+.2f} +- {half:.2f} against"
                f" the others' mean (n = {len(played)} games, {seconds:.0f} s): {equivalence(mean, half)}"
            )
            game_rows.append(
                {
                    "odd": label,
                    "n": len(played),
                    "centres": _rounded(centres),
                    "centres_ci": _rounded(centres_half),
                    "difference": _rounded(mean),
                    "difference_ci": _rounded(half),
                    "equivalence": equivalence(mean, half),
                    "seconds": round(seconds),
                }
            )

    print("\nSummary (reference: the issue's figures before the alignment)")
    print(f"  same positions: distance {overall:.3f}, noise floor C++ {cpp_noise:.3f}, ours {our_noise:.3f}"
          f"    reference: distance {REFERENCE_DISTANCE[0]:.2f}, noise {REFERENCE_DISTANCE[1]:.2f}")  # fmt: skip
    for line in game_lines:
        print(f"  {line}    reference: {REFERENCE_DIFFERENCE[0]:+.2f} +- {REFERENCE_DIFFERENCE[1]:.2f}")
    kinds = [(name, by_kind[kind]) for kind, name in (("M", "movement"), ("R", "retreats"), ("A", "adjustments"))
             if by_kind.get(kind)]  # fmt: skip
    data: dict[str, object] = {
        "draws": draws,
        "games": 0 if args.no_games else games,
        "positions": len(cases),
        "seed": args.seed,
        "binary": str(binary),
        "positions_seconds": round(positions_seconds),
    }
    path = write_record(results, kinds, game_rows, data)
    print(f"written to {path}")
    return 0


#: Centres by which the odd one out may differ from the others' mean and the two bots still
#: count as equivalent: the whole 95 % interval of the difference must lie within ±MARGIN.
MARGIN = 0.5


def equivalence(mean: float, half: float) -> str:
    """Whether the 95 % interval ``mean ± half`` lies within ``±MARGIN`` centres.

    >>> equivalence(0.1, 0.3), equivalence(-0.2, 0.4)
    ('equivalent within ±0.5 (interval -0.20 to +0.40)', 'not shown within ±0.5 (interval -0.60 to +0.20)')
    """
    if math.isnan(mean) or math.isnan(half):
        return "not tested"
    low, high = mean - half, mean + half
    shown = "equivalent" if -MARGIN <= low and high <= MARGIN else "not shown"
    return f"{shown} within ±{MARGIN:g} (interval {low:+.2f} to {high:+.2f})"


def _rounded(value: float) -> float | None:
    return None if math.isnan(value) else round(value, 3)


def write_record(
    results: Sequence[Fidelity],
    kinds: Sequence[tuple[str, Sequence[Fidelity]]],
    games: Sequence[dict[str, object]],
    data: dict[str, object],
) -> Path:
    """Keep the run as ``benchmarks/results/dumbbot_fidelity.json`` (:mod:`benchmarks.results`), each figure
    beside its reference; returns the path."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from benchmarks.results import Column, Table, record, write

    def row(label: str, rs: Sequence[Fidelity]) -> dict[str, object]:
        return {
            "what": f"{label} ({len(rs)})",
            "distance": round(statistics.fmean(r.distance for r in rs), 3),
            "cpp_noise": round(statistics.fmean(r.cpp_noise for r in rs), 3),
            "our_noise": round(statistics.fmean(r.our_noise for r in rs), 3),
        }

    distances = [row(name, rs) for name, rs in kinds] + [row("overall", results)]
    distances += [
        {"what": "reference: the issue, before the alignment", "distance": REFERENCE_DISTANCE[0],
         "cpp_noise": REFERENCE_DISTANCE[1]},
        {"what": "reference: our previous version, the same 36 positions and draws (by hand, 2026-11-25)",
         "distance": PREVIOUS_VERSION[0], "cpp_noise": PREVIOUS_VERSION[1], "our_noise": PREVIOUS_VERSION[2]},
    ]  # fmt: skip
    distance_columns = (
        Column("what", "positions"),
        Column("distance", "distance", True),
        Column("cpp_noise", "noise floor C++", True),
        Column("our_noise", "noise floor ours", True),
    )
    position_columns = (
        Column("position", "position"),
        Column("distance", "distance", True),
        Column("cpp_noise", "C++ noise", True),
        Column("our_noise", "our noise", True),
        Column("biggest", "largest gap"),
    )
    positions = [
        {"position": r.label, "distance": round(r.distance, 3), "cpp_noise": round(r.cpp_noise, 3),
         "our_noise": round(r.our_noise, 3), "biggest": r.biggest}
        for r in results
    ]  # fmt: skip
    reference = f"{REFERENCE_DIFFERENCE[0]:+.2f} ± {REFERENCE_DIFFERENCE[1]:.2f}"
    game_columns = (
        Column("odd", "odd one out"),
        Column("n", "games", True),
        Column("centres", "its centres in 1910", True),
        Column("centres_ci", "± 95 %", True),
        Column("difference", "minus the others' mean", True),
        Column("difference_ci", "± 95 %", True),
        Column("equivalence", "equivalence (margin ±0.5 centres)"),
        Column("reference", "reference (the issue, before the alignment)"),
        Column("seconds", "seconds", True),
    )
    tables = [
        Table("Same positions", distance_columns, distances, DISTANCE_NOTE.format(**data)),
        Table("Games", game_columns, [{**g, "reference": reference} for g in games], GAMES_NOTE),
        Table("Each position", position_columns, positions),
    ]
    n = 2 * int(data["games"]) if games else None  # type: ignore[call-overload]
    return write(
        record(
            "dumbbot_fidelity",
            "DumbBot fidelity: ours against David Norman's C++ DumbBot",
            " ".join([".venv/bin/python benchmarks/dumbbot_fidelity.py", *sys.argv[1:]]),
            n,
            tables,
            seeds=[int(data["seed"])],  # type: ignore[call-overload]
            data=data,
        )
    )


DISTANCE_NOTE = (
    "{positions} positions from seeded games of seven of our DumbBots, {draws} draws of each bot per sample."
    " Distance: the mean over units of the total variation distance between the two bots' order distributions"
    " (for an adjustment phase the whole set of builds or removals), averaged over the positions; noise floor: the"
    " same between two independent samples of one bot."
)
GAMES_NOTE = (
    "To 1910, powers rotated (each power played by the odd one out equally often). Per game: the odd one out's"
    " centres in 1910, and those minus the mean of the six others'; mean and the half-width of its 95 % interval"
    " (normal approximation, from the per-game standard deviation). Equivalence: the whole 95 % interval of the"
    " difference within ±0.5 centres (not \"within one standard error\", which a small n passes by being noisy)."
    " The C++ bots seed rand from the clock in seconds: their games do not replay, and pairing on our seeds fixes"
    " the seats, not their choices."
)


if __name__ == "__main__":
    raise SystemExit(main())

"""What the paper benchmarks share: per-game figures, the tests of their claims, the C++ DumbBot seats.

Every figure is over games (:mod:`detente.stats`): a bot's value in a game is first taken
over its seats there (the mean rank of its powers; its powers' centres and wins added up,
as the papers count two D-Branes together), and the mean and standard error run over
those per-game values. A claimed ordering ("A ranks better than B") is a t-test of the
difference: paired when both sides come from games with the same seeds (the same game
seeds and, with ``rotate``, the same powers for the same slots: the rows of one seed
pair), Welch's otherwise. It *holds* when the difference has the claimed sign and p <
0.05, is *reversed* when it has the other sign and p < 0.05, and is *not shown* otherwise.

``DETENTE_DAIDE_CLIENT`` names Norman's C++ DumbBot (``benchmarks/build_daide_client.sh``
builds it); when it is set, the benchmarks add rows with ``daide:PATH`` in the opponents'
slots, each such game a real server and a TCP client per C++ seat, so with fewer games.
Where this tree's :mod:`detente.experiments` cannot play such seats yet, the rows say so.

Each benchmark ends by writing its figures as one record (:mod:`benchmarks.results`:
``benchmarks/results/NAME.json``, rendered as ``docs/results/NAME.md``); the helpers here
make the rows of its claims (:func:`claim_result`, :func:`claims_table`) and of its estimates
(:func:`figures`: a mean and its standard error over games).
"""

from __future__ import annotations

import json
import math
import os
import resource
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.results import Column, Table
from detente.experiments import Experiment, run_experiment
from detente.stats import Comparison, Estimate, estimate, paired, per_game, welch

#: The environment variable naming the C++ DumbBot.
DAIDE_ENV = "DETENTE_DAIDE_CLIENT"
#: A claim holds (or is reversed) below this p.
ALPHA = 0.05

Line = Mapping[str, Any]


def daide_dumbbot() -> str | None:
    """The ``daide:PATH`` slot name of the C++ DumbBot, or None when ``DETENTE_DAIDE_CLIENT`` is unset."""
    path = os.environ.get(DAIDE_ENV)
    if not path:
        return None
    return f"daide:{path}"


def cpu() -> float:
    """CPU seconds of this process and its finished children (the workers of a run)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@dataclass(frozen=True)
class Run:
    """The games of one experiment: their lines, the seed, the slots, the seconds they took."""

    experiment: Experiment
    lines: list[dict[str, Any]]
    wall: float
    cpu: float

    @property
    def games(self) -> int:
        return len(self.lines)

    def seats(self, bot: str) -> int:
        """The seats ``bot`` has in a game."""
        return self.experiment.slots.count(bot)

    def per_game(self, bot: str, measure: str) -> dict[int, float]:
        """``bot``'s value of ``measure`` in each game, by game seed: ``rank`` the mean rank of
        its seats; ``centres`` and ``wins`` (percent) its seats' added up."""
        return dict(zip((line["seed"] for line in self.lines if _plays(line, bot)), self.values(bot, measure), strict=True))

    def values(self, bot: str, measure: str) -> list[float]:
        k = self.seats(bot)
        if measure == "rank":
            return per_game(self.lines, bot, lambda s: s["rank"])
        if measure == "centres":
            return [k * v for v in per_game(self.lines, bot, lambda s: s["centres"])]
        if measure == "wins":
            return [100 * k * v for v in per_game(self.lines, bot, lambda s: s["win"])]
        if measure == "centres-each":
            return per_game(self.lines, bot, lambda s: s["centres"])
        if measure == "wins-each":
            return [100 * v for v in per_game(self.lines, bot, lambda s: s["win"])]
        raise ValueError(measure)

    def negotiation(self, measure: str) -> Estimate | None:
        """The game's ``messages`` (press said) or ``deals`` (confirmed by the notary) a game
        (None: games written before they were counted)."""
        values = [line["negotiation"][measure] for line in self.lines if "negotiation" in line]
        return estimate(values) if values and len(values) == len(self.lines) else None

    def talk(self) -> dict[str, float | None]:
        """``messages`` and ``deals`` a game, rounded for a record (None: not counted)."""
        messages, deals = self.negotiation("messages"), self.negotiation("deals")
        return {
            "messages": number(messages.mean, 1) if messages else None,
            "deals": number(deals.mean, 2) if deals else None,
        }

    def records(self) -> list[dict[str, Any]]:
        """The record of each game (``games/<game>.json``), in the order of :attr:`lines`."""
        folder = self.experiment.out / "games"
        return [json.loads((folder / f"{line['game']}.json").read_text(encoding="utf-8")) for line in self.lines]

    def estimate(self, bot: str, measure: str) -> Estimate:
        return estimate(self.values(bot, measure))

    def describe(self) -> str:
        """n, the seed and the slots, for the line above a table of the run."""
        e = self.experiment
        counts = {name: e.slots.count(name) for name in dict.fromkeys(e.slots)}
        slots = " + ".join(f"{n}x {name}" for name, n in counts.items())
        return f"n = {self.games} games, seed {e.seed}, {'rotated seats' if e.rotate else 'powers by seed'}: {slots}"


def talk_of(run: Run, bot: str) -> Run | None:
    """``run`` if ``bot`` negotiates (its messages and deals go beside a claim about it), else None."""
    from bots.registry import bot_class

    return run if not bot.startswith("daide:") and bot_class(bot).negotiates else None


def talk_text(run: Run) -> str:
    """The messages and confirmed deals a game of ``run``, for a printed line."""
    talk = run.talk()
    if talk["messages"] is None or talk["deals"] is None:
        return "messages not counted"
    return f"{talk['messages']:.1f} messages, {talk['deals']:.2f} deals a game"


def _plays(line: Line, bot: str) -> bool:
    return any(s["bot"] == bot for s in line["scores"].values())


def play(experiment: Experiment) -> Run:
    """Play ``experiment`` with :func:`detente.experiments.run_experiment` and read its games back."""
    started, spent = time.perf_counter(), cpu()
    run_experiment(experiment)
    wall, spent = time.perf_counter() - started, cpu() - spent
    with open(experiment.out / "games.jsonl", encoding="utf-8") as jsonl:
        lines = [json.loads(line) for line in jsonl]
    return Run(experiment, lines, wall, spent)


def try_play(experiment: Experiment) -> Run | str:
    """:func:`play`, or why it could not be played (for the ``daide:`` seats, which a tree may lack)."""
    try:
        return play(experiment)
    except Exception as error:  # noqa: BLE001 - the reason is printed in the table in place of the row
        return f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"


def compare(a: Mapping[int, float], b: Mapping[int, float]) -> tuple[Comparison, str]:
    """The test of ``a - b`` (values by game seed): paired on the seeds both have when they
    share at least two, Welch's otherwise; and which test it was."""
    common = [seed for seed in a if seed in b]
    if len(common) >= 2 and (len(common) == len(a) or len(common) == len(b)):
        return paired([a[s] for s in common], [b[s] for s in common]), f"paired, {len(common)} games"
    return welch(list(a.values()), list(b.values())), f"Welch, {len(a)} and {len(b)} games"


def verdict(comparison: Comparison, claimed_sign: int) -> str:
    """``holds``, ``reversed`` or ``not shown`` for a claim that the difference has ``claimed_sign``."""
    mean = comparison.difference.mean
    if comparison.p < ALPHA and mean * claimed_sign > 0:
        return "holds"
    if comparison.p < ALPHA and mean * claimed_sign < 0:
        return "reversed"
    return "not shown"


#: Beside every paired figure of games with C++ DumbBots: what the pairing holds fixed.
UNPAIRED_CHOICES = "seats paired; the C++ DumbBot seeds itself from the clock, so its choices are not"


def claim_result(
    claim: str,
    better: Mapping[int, float],
    worse: Mapping[int, float],
    lower_is_better: bool,
    talking: Run | None = None,
    external: bool = False,
) -> dict[str, Any]:
    """The test of a claim as a row of the record: the claim, the two means, the difference
    ± se, t, p, the test and the verdict (``not tested: ...`` where a side has too few games).

    ``talking`` is the run whose bots negotiate, for a claim about negotiation: its messages
    and deals a game are in the row, and a run without a message is not compared (there was
    no negotiation to judge). ``external``: programs played, and the pairing says what it fixes.
    """
    talk = talking.talk() if talking is not None else {}
    if talk.get("messages") == 0:
        return {"claim": claim, **talk, "verdict": "not compared: the games with negotiation had no message"}
    try:
        comparison, test = compare(better, worse)
    except ValueError as error:  # fewer than two games a side
        return {"claim": claim, **talk, "verdict": f"not tested: {error} ({len(better)} and {len(worse)} games)"}
    if external and test.startswith("paired"):
        test = f"{test} ({UNPAIRED_CHOICES})"
    d = comparison.difference
    return {
        "claim": claim,
        **talk,
        "better": number(estimate(better.values()).mean),
        "worse": number(estimate(worse.values()).mean),
        "difference": number(d.mean),
        "se": number(d.se),
        "t": number(comparison.t),
        "p": p_value(comparison.p),
        "test": test,
        "verdict": verdict(comparison, -1 if lower_is_better else 1),
    }


def claim_text(row: Mapping[str, Any]) -> str:
    """One printed line of :func:`claim_result`'s row."""
    talk = "" if row.get("messages") is None else f"  [{row['messages']:g} messages, {row['deals']:g} deals a game]"
    if row.get("better") is None:
        return f"  {row['claim']:<58} {row['verdict']}{talk}"
    se = "-" if row["se"] is None else f"{row['se']:.2f}"
    t = "-" if row["t"] is None else f"{row['t']:+6.2f}"
    return (
        f"  {row['claim']:<58} {row['better']:6.2f} vs {row['worse']:6.2f}  diff {row['difference']:+.2f} ± {se}"
        f"  t {t:>6}  p {row['p']:.3f}  ({row['test']})  {row['verdict']}{talk}"
    )


def claim_line(claim: str, better: Mapping[int, float], worse: Mapping[int, float], lower_is_better: bool) -> str:
    """One line: the claim, the two means, the difference ± se, t, p, the test and the verdict."""
    return claim_text(claim_result(claim, better, worse, lower_is_better))


#: The columns of a table of claims (rows of :func:`claim_result`).
CLAIM_COLUMNS = (
    Column("claim", "claim"),
    Column("messages", "messages a game", True),
    Column("deals", "deals a game", True),
    Column("better", "claimed better", True),
    Column("worse", "claimed worse (or the reference)", True),
    Column("difference", "difference", True),
    Column("se", "se", True),
    Column("t", "t", True),
    Column("p", "p", True),
    Column("test", "test"),
    Column("verdict", "verdict"),
)
CLAIMS_NOTE = (
    "A claim is a t-test over games of the difference (paired on the seeds where the games pair,"
    " Welch's otherwise; against a paper's figure one-sample, the figure taken as a constant): it"
    " holds when the difference has the claimed sign and p < 0.05, is reversed when it has the other"
    " sign and p < 0.05, and is not shown otherwise."
)


def claims_table(rows: Sequence[Mapping[str, Any]], title: str = "Claims", note: str = CLAIMS_NOTE) -> Table:
    return Table(title, CLAIM_COLUMNS, list(rows), note)


def number(value: float | None, digits: int = 3) -> float | None:
    """``value`` rounded for a record (None for none, an infinite or an undefined value)."""
    if value is None or not math.isfinite(value):
        return None
    return round(float(value), digits)


def p_value(p: float) -> float:
    """A p-value to three significant digits (so that a small one does not round to 0)."""
    return float(f"{p:.3g}")


def figures(prefix: str, e: Estimate | None, digits: int = 3) -> dict[str, float | None]:
    """``{prefix: mean, prefix_se: se}`` of an estimate, for a row of a record."""
    if e is None:
        return {prefix: None, f"{prefix}_se": None}
    return {prefix: number(e.mean, digits), f"{prefix}_se": number(e.se, digits)}


def estimate_columns(prefix: str, label: str) -> tuple[Column, Column]:
    """The two columns of :func:`figures`: the mean and its standard error over games."""
    return Column(prefix, label, True), Column(f"{prefix}_se", "± se", True)


def command() -> str:
    """The command line that ran this benchmark, for its record."""
    script = Path(sys.argv[0])
    shown = script.relative_to(ROOT) if script.is_absolute() and script.is_relative_to(ROOT) else script
    return " ".join([".venv/bin/python", str(shown), *sys.argv[1:]])


def cell(e: Estimate | None, digits: int = 2) -> str:
    return "-" if e is None else e.text(digits)


def seeds_text(runs: Iterable[Run]) -> str:
    return ", ".join(sorted({str(r.experiment.seed) for r in runs}))


def pooled(runs: Sequence[Run], bot: str, measure: str) -> dict[int, float]:
    """``bot``'s per-game values over several runs (their seeds must differ)."""
    out: dict[int, float] = {}
    for r in runs:
        out.update(r.per_game(bot, measure))
    return out


def out_dir(base: Path, name: str) -> Path:
    return base / name.replace(":", "-").replace("/", "_")

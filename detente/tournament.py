"""Tournaments: every bot alone against a field of every other, rated and compared game by game.

``detente tournament --bots a,b,c --games N --seed S --out DIR`` plays, for each ordered
pair of distinct bots (A, B), the *set-ups* asked for (``--setups``, default ``1v6``):

``1v6``
    one A (slot 1) against six B (slots 2 to 7): A is the *lone* bot, B the *field*;
``6v1``
    six A (slots 1 to 6) against one B (slot 7): B is the lone bot, A the field. It has the
    line-up of ``1v6`` of (B, A), with the lone bot in the last slot instead of the first,
    so it plays other powers in the same games: it doubles the games of each line-up.

With ``--opponents x,y`` the pairs are A from ``--bots`` and B from ``--opponents``.

Each set-up is an ordinary ``detente run --rotate`` directory, ``DIR/<kind>-<A>-<B>/``
(:func:`detente.experiments.run_experiment`), so that ``detente report`` and everything else
read it. Every set-up is played with the same seed, so game ``n`` of every set-up has the same
game seed, every slot the same power (the rotation of ``--rotate``: each slot plays each power
once in every seven games) and the same bot seed: two set-ups of one kind that differ only in
their lone bot differ in nothing else, and their games pair.

``DIR/tournament.json`` describes the tournament (bots, opponents, games, seed, kinds,
settings, the primary score, and every set-up: ``name``, ``kind``, ``lone``, ``field``,
``slots``, ``lone_slot``); it is written before the games, and a tournament run again into
the same directory with the same description plays only the set-ups not yet complete.
``DIR/results.json`` holds what :func:`analyse` finds once every set-up is played:

*scores of the lone seat*
    per bot, per scoring system (:mod:`detente.scoring`): its lone seat's mean score per game
    over all its set-ups, with the 95 % interval (Student's t over games: :mod:`detente.stats`);
*ratings*
    OpenSkill's Plackett-Luce model (``openskill`` 6, its defaults: mu 25, sigma 25/3, beta
    25/6, tau 25/300). Each game is one match between the bots in it, ranked by the mean rank
    of their seats in it (:func:`detente.experiments.score_game`; equal means are ties): a
    ``1v6`` game is a match of two, the lone bot beating the field when its rank is better
    than 4, the field's mean. The games are rated in a fixed order (game 1 of every set-up,
    then game 2, ...). Per bot: ``mu``, ``sigma`` and the conservative ``ordinal``, mu − 3 sigma;
*cross-play*
    per lone bot (row) and field (column): the lone seat's mean score per game, with the
    95 % interval; game ``n`` of ``1v6`` and of ``6v1`` averaged into one value;
*paired comparisons*
    per field F and pair of bots (A, B) that both faced F alone, in set-ups of the same kinds:
    the difference, game by game, of A's lone score and B's (the same seeds, the same
    powers, the same field), its mean with the 95 % interval, Student's t and the two-sided
    p-value (:func:`detente.stats.paired`).

Each of the last three is there for every scoring system; the command prints them for one
(``--score``, default ``sum-of-squares``).
"""

from __future__ import annotations

import importlib.metadata
import itertools
import json
import re
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bots.inprocess import ROUNDS
from bots.llm.config import LLMOptions
from bots.llm.usage import summarise_usage
from detente.diplomacy import read_records, summarise_diplomacy
from detente.experiments import RUN_FILE, USAGE_FILE, Experiment, kept_lines, run_experiment
from detente.scoring import DIGITS, SYSTEMS, bounded, format_system_table, grid, interval_text, scored_line
from detente.stats import Comparison, Estimate, paired
from formats import jsonio
from referee.settings import GameSettings

__all__ = [
    "KINDS",
    "Analysis",
    "Rating",
    "SetUp",
    "Tournament",
    "TournamentError",
    "analyse",
    "format_analysis",
    "rate",
    "run_tournament",
]

#: The kinds of set-up, in the order they are played.
KINDS = ("1v6", "6v1")
POWERS = 7
#: OpenSkill's conservative rating: mu minus this many sigmas.
Z = 3.0


class TournamentError(Exception):
    """A tournament that cannot be played or read; the message says why, in one line."""


def _safe(name: str) -> str:
    """A bot name as part of a directory name (``dipblue:nopress`` -> ``dipblue_nopress``)."""
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)


@dataclass(frozen=True, slots=True)
class SetUp:
    """One set-up of the ordered pair (``first``, ``second``): ``1v6`` is one ``first`` and six
    ``second``, ``6v1`` six ``first`` and one ``second``.

    >>> s = SetUp("6v1", "dumbbot", "holdbot")
    >>> s.name, s.lone, s.field, s.lone_slot, s.slots.count("dumbbot")
    ('6v1-dumbbot-holdbot', 'holdbot', 'dumbbot', 6, 6)
    """

    kind: str
    first: str
    second: str

    @property
    def lone(self) -> str:
        return self.first if self.kind == "1v6" else self.second

    @property
    def field(self) -> str:
        return self.second if self.kind == "1v6" else self.first

    @property
    def lone_slot(self) -> int:
        return 0 if self.kind == "1v6" else POWERS - 1

    @property
    def slots(self) -> tuple[str, ...]:
        if self.kind == "1v6":
            return (self.first, *[self.second] * (POWERS - 1))
        return (*[self.first] * (POWERS - 1), self.second)

    @property
    def name(self) -> str:
        return f"{self.kind}-{_safe(self.first)}-{_safe(self.second)}"

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "first": self.first,
            "second": self.second,
            "lone": self.lone,
            "field": self.field,
            "slots": list(self.slots),
            "lone_slot": self.lone_slot,
        }


@dataclass(frozen=True, slots=True)
class Tournament:
    """What ``detente tournament`` plays (see the module); ``opponents`` None: the bots themselves."""

    bots: tuple[str, ...]
    games: int
    seed: int
    out: Path
    kinds: tuple[str, ...] = ("1v6",)
    opponents: tuple[str, ...] | None = None
    jobs: int = 1
    settings: GameSettings = field(default_factory=lambda: GameSettings(name="tournament"))
    rounds: int = ROUNDS
    score: str = "sum-of-squares"
    llm: LLMOptions | None = None  # how model seats play (``--llm-*``)

    def set_ups(self) -> list[SetUp]:
        """Every set-up, kind by kind, the pairs in the order of the bots.

        >>> t = Tournament(("a", "b", "c"), 7, 1, Path("x"), ("1v6", "6v1"))
        >>> [s.name for s in t.set_ups()][:3], len(t.set_ups())
        (['1v6-a-b', '1v6-a-c', '1v6-b-a'], 12)
        >>> [s.name for s in Tournament(("a", "b"), 7, 1, Path("x"), opponents=("c",)).set_ups()]
        ['1v6-a-c', '1v6-b-c']
        """
        unknown = set(self.kinds) - set(KINDS)
        if unknown or not self.kinds:
            raise TournamentError(f"the set-ups are {' and '.join(KINDS)}, not {', '.join(sorted(unknown)) or 'none'}")
        opponents = self.opponents if self.opponents is not None else self.bots
        pairs = [(a, b) for a in self.bots for b in opponents if a != b]
        if not pairs:
            raise TournamentError("a tournament needs two different bots")
        return [SetUp(kind, a, b) for kind in KINDS if kind in self.kinds for a, b in pairs]

    def description(self) -> dict[str, Any]:
        """What ``tournament.json`` holds."""
        setups = self.set_ups()
        names = [s.name for s in setups]
        if len(set(names)) != len(names):
            raise TournamentError("two bots' names make the same directory name")
        experiment = self.experiment(setups[0])
        return {
            "bots": list(self.bots),
            "opponents": list(self.opponents if self.opponents is not None else self.bots),
            "games": self.games,
            "seed": self.seed,
            "kinds": [k for k in KINDS if k in self.kinds],
            "settings": experiment.setups()[0].to_json() if self.games else {},
            "score": self.score,
            "setups": [s.to_json() for s in setups],
        }

    def experiment(self, setup: SetUp) -> Experiment:
        """The ``detente run --rotate`` of one set-up."""
        return Experiment(
            slots=setup.slots,
            games=self.games,
            seed=self.seed,
            out=self.out / setup.name,
            jobs=self.jobs,
            settings=self.settings,
            rounds=self.rounds,
            rotate=True,
            llm=self.llm,
        )


def model_seats(out: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The model seats' usage over every set-up under ``out`` (:func:`bots.llm.usage.summarise_usage`),
    and the verifiable diplomacy of every bot over every game (:mod:`detente.diplomacy`)."""
    seats: list[dict[str, Any]] = []
    records: list[dict[str, Any]] = []
    for run in sorted(p for p in out.iterdir() if p.is_dir()):
        usage = run / USAGE_FILE
        if usage.is_file():
            seats.extend(jsonio.loads(usage.read_text(encoding="utf-8")).get("games", ()))
        records.extend(read_records(run))
    return summarise_usage(seats), summarise_diplomacy(records)


def complete_setup(setup: SetUp, tournament: Tournament) -> bool:
    """Whether the directory of ``setup`` holds every game of it already (a tournament resumed)."""
    path = tournament.out / setup.name / "summary.json"
    if not path.is_file():
        return False
    try:
        summary = jsonio.loads(path.read_text(encoding="utf-8"))
    except ValueError:  # not JSON, or beyond the bounds of what is read
        return False
    return (
        summary.get("games") == tournament.games
        and summary.get("seed") == tournament.seed
        and summary.get("bots") == list(setup.slots)
    )


def _kept(experiment: Experiment) -> list[dict[str, Any]]:
    """The games a stopped tournament finished in this set-up, in order: kept, not played again
    (none when its directory holds no stopped run of this same set-up)."""
    try:
        before = jsonio.loads((experiment.out / RUN_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return kept_lines(experiment.out) if before == experiment.identity() else []


def run_tournament(
    tournament: Tournament,
    started: Callable[[int, SetUp, int], Callable[[int], None] | None] | None = None,
    finished: Callable[[int, SetUp, Mapping[str, Any] | None], None] | None = None,
) -> Analysis:
    """Play every set-up not yet complete, write ``tournament.json`` and ``results.json``, return the analysis.

    ``started(i, setup, kept)`` is told each set-up (0, 1, ...) before it plays, with the number
    of its games a stopped tournament finished (kept, not played again), and may return the
    progress callback of its games; ``finished(i, setup, summary)`` after it (``summary`` None
    when the set-up was complete already).
    """
    description = tournament.description()
    out = tournament.out
    out.mkdir(parents=True, exist_ok=True)
    path = out / "tournament.json"
    if path.exists():
        try:
            before = jsonio.loads(path.read_text(encoding="utf-8"))
        except ValueError:  # not JSON, or beyond the bounds of what is read
            before = None
        if before != description:
            raise TournamentError(f"{out} holds another tournament: choose another --out or remove it")
    else:
        path.write_text(json.dumps(description, indent=1) + "\n", encoding="utf-8")
    for i, setup in enumerate(tournament.set_ups()):
        if complete_setup(setup, tournament):
            if finished is not None:
                finished(i, setup, None)
            continue
        experiment = tournament.experiment(setup)
        kept = _kept(experiment)
        progress = started(i, setup, len(kept)) if started is not None else None
        summary = run_experiment(experiment, progress, kept=kept)
        if finished is not None:
            finished(i, setup, summary)
    analysis = analyse(out)
    (out / "results.json").write_text(json.dumps(analysis.to_json(), indent=1) + "\n", encoding="utf-8")
    return analysis


# --- analysis --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Rating:
    """A bot's OpenSkill rating: ``mu``, ``sigma``, and ``ordinal`` = mu − 3 sigma; ``games`` rated."""

    bot: str
    mu: float
    sigma: float
    games: int

    @property
    def ordinal(self) -> float:
        return self.mu - Z * self.sigma

    def to_json(self) -> dict[str, Any]:
        return {"bot": self.bot, "mu": self.mu, "sigma": self.sigma, "ordinal": self.ordinal, "games": self.games}


@dataclass(frozen=True, slots=True)
class Pair:
    """A paired comparison: lone ``a`` against lone ``b``, both facing ``field``, in set-ups of ``kinds``;
    per scoring system, A's score minus B's, game by game (None where fewer than two games pair)."""

    field: str
    a: str
    b: str
    kinds: tuple[str, ...]
    comparisons: Mapping[str, Comparison | None]

    def to_json(self) -> dict[str, Any]:
        return {
            "field": self.field,
            "a": self.a,
            "b": self.b,
            "kinds": list(self.kinds),
            "comparisons": {s: None if c is None else c.to_json() for s, c in self.comparisons.items()},
        }


@dataclass(frozen=True, slots=True)
class Analysis:
    """What :func:`analyse` finds (see the module): ``description`` is ``tournament.json``."""

    description: Mapping[str, Any]
    lone: Mapping[str, Mapping[str, Estimate]]
    ratings: tuple[Rating, ...]
    cross: Mapping[tuple[str, str], Mapping[str, Estimate]]
    pairs: tuple[Pair, ...]

    @property
    def rows(self) -> list[str]:
        """The lone bots, in the order of the bots and then the opponents."""
        return list(dict.fromkeys(lone for lone, _ in self.cross))

    @property
    def columns(self) -> list[str]:
        """The fields, in the same order."""
        return [b for b in self._order() if any(f == b for _, f in self.cross)]

    def _order(self) -> list[str]:
        return list(dict.fromkeys([*self.description["bots"], *self.description["opponents"]]))

    def to_json(self) -> dict[str, Any]:
        return {
            "tournament": dict(self.description),
            "openskill": _openskill_version(),
            "lone": {bot: {s: e.to_json() for s, e in systems.items()} for bot, systems in self.lone.items()},
            "ratings": [r.to_json() for r in self.ratings],
            "cross": [
                {"lone": lone, "field": f, "scores": {s: e.to_json() for s, e in systems.items()}}
                for (lone, f), systems in self.cross.items()
            ],
            "pairs": [p.to_json() for p in self.pairs],
        }


def _openskill_version() -> str | None:
    try:
        return importlib.metadata.version("openskill")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - a run-time dependency
        return None


def _lines(path: Path) -> list[dict[str, Any]]:
    """The games of one set-up, scored with every system."""
    text = path.read_text(encoding="utf-8")
    return [scored_line(jsonio.loads(line)) for line in text.splitlines() if line.strip()]


def _lone_scores(lines: Sequence[Mapping[str, Any]], lone: str) -> dict[int, Mapping[str, Any]]:
    """The lone seat's scores in each game, by game number."""
    out = {}
    for line in lines:
        seats = [s for s in line["scores"].values() if s["bot"] == lone]
        if len(seats) != 1:
            raise ValueError(f"game {line['game']} has {len(seats)} seats of {lone!r}, not one")
        out[int(line["game"])] = seats[0]
    return out


def analyse(directory: Path) -> Analysis:
    """The tournament in ``directory``: ``tournament.json`` and its set-ups' ``games.jsonl``.

    Set-ups without games yet are left out (a tournament under way).
    """
    path = directory / "tournament.json"
    try:
        description = jsonio.loads(path.read_text(encoding="utf-8"))
        setups = [SetUp(s["kind"], s["first"], s["second"]) for s in description["setups"]]
    except OSError as error:
        raise TournamentError(f"cannot read {path}: {error.strerror}") from None
    except (ValueError, KeyError, TypeError) as error:  # not JSON, beyond the bounds, or not this shape
        raise TournamentError(f"{path} is not a tournament as detente tournament writes it: {error}") from None
    played: dict[SetUp, list[dict[str, Any]]] = {}
    lone: dict[SetUp, dict[int, Mapping[str, Any]]] = {}
    for setup in setups:
        games = directory / setup.name / "games.jsonl"
        if not games.is_file():
            continue
        try:
            played[setup] = _lines(games)
            lone[setup] = _lone_scores(played[setup], setup.lone)
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as error:
            raise TournamentError(f"{games} is not one game a line as detente run writes them: {error}") from None
    order = list(dict.fromkeys([*description["bots"], *description["opponents"]]))

    # per (lone, field): each game number's lone score, averaged over the kinds of set-up
    by_pair: dict[tuple[str, str], dict[str, dict[int, Mapping[str, Any]]]] = {}
    for setup, scores in lone.items():
        by_pair.setdefault((setup.lone, setup.field), {})[setup.kind] = scores

    def per_seed(
        kinds: Mapping[str, Mapping[int, Mapping[str, Any]]], system: str, among: Sequence[str]
    ) -> dict[int, float]:
        games = set.intersection(*(set(kinds[k]) for k in among))
        return {g: statistics.fmean(kinds[k][g][system] for k in among) for g in sorted(games)}

    cross: dict[tuple[str, str], dict[str, Estimate]] = {}
    for lone_bot, field_bot in sorted(by_pair, key=lambda p: (order.index(p[0]), order.index(p[1]))):
        kinds = by_pair[lone_bot, field_bot]
        values = {s: per_seed(kinds, s, sorted(kinds)) for s in SYSTEMS}
        if values[SYSTEMS[0]]:
            cross[lone_bot, field_bot] = {s: bounded(s, v.values()) for s, v in values.items()}

    lone_table: dict[str, dict[str, Estimate]] = {}
    for bot in order:
        mine = [kinds for (b, _), kinds in by_pair.items() if b == bot]
        if not mine:
            continue
        lone_table[bot] = {
            s: bounded(s, (v for kinds in mine for v in per_seed(kinds, s, sorted(kinds)).values())) for s in SYSTEMS
        }

    pairs = []
    for field_bot in order:
        facing = [b for b in order if (b, field_bot) in by_pair]
        for a, b in itertools.combinations(facing, 2):
            ka, kb = by_pair[a, field_bot], by_pair[b, field_bot]
            common = tuple(k for k in KINDS if k in ka and k in kb)
            if not common:
                continue
            comparisons: dict[str, Comparison | None] = {}
            for s in SYSTEMS:
                va, vb = per_seed(ka, s, common), per_seed(kb, s, common)
                games = sorted(set(va) & set(vb))
                comparisons[s] = paired([va[g] for g in games], [vb[g] for g in games]) if len(games) > 1 else None
            pairs.append(Pair(field_bot, a, b, common, comparisons))

    return Analysis(description, lone_table, rate(played, setups, order), cross, tuple(pairs))


def rate(
    played: Mapping[SetUp, Sequence[Mapping[str, Any]]], setups: Sequence[SetUp], order: Sequence[str]
) -> tuple[Rating, ...]:
    """The OpenSkill (Plackett-Luce) ratings of the bots from every game, best ordinal first (see the module).

    >>> line = lambda game, ranks: {"game": game, "scores": {
    ...     f"P{i}": {"bot": bot, "rank": r} for i, (bot, r) in enumerate(ranks)}}
    >>> s = SetUp("1v6", "good", "bad")
    >>> games = [line(g, [("good", 1.0)] + [("bad", r) for r in (2, 3, 4, 5, 6, 7)]) for g in (1, 2, 3)]
    >>> [(r.bot, r.games, r.mu > 25) for r in rate({s: games}, [s], ["good", "bad"])]
    [('good', 3, True), ('bad', 3, False)]
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {bot: model.rating(name=bot) for bot in order}
    counted = dict.fromkeys(order, 0)
    numbers = sorted({int(line["game"]) for lines in played.values() for line in lines})
    by_number = {setup: {int(line["game"]): line for line in played.get(setup, ())} for setup in setups}
    for number in numbers:
        for setup in setups:
            line = by_number[setup].get(number)
            if line is None:
                continue
            seats: dict[str, list[float]] = {}
            for seat in line["scores"].values():
                seats.setdefault(seat["bot"], []).append(float(seat["rank"]))
            if len(seats) < 2:
                continue
            bots = list(seats)
            teams = model.rate([[ratings[b]] for b in bots], ranks=[statistics.fmean(seats[b]) for b in bots])
            for bot, (new,) in zip(bots, teams, strict=True):
                ratings[bot] = new
                counted[bot] += 1
    out = [Rating(bot, r.mu, r.sigma, counted[bot]) for bot, r in ratings.items() if counted[bot]]
    return tuple(sorted(out, key=lambda r: -r.ordinal))


# --- text ------------------------------------------------------------------------------------------


def format_ratings(ratings: Sequence[Rating]) -> str:
    rows = [["bot", "mu", "sigma", "ordinal", "games"]]
    rows += [[r.bot, f"{r.mu:.2f}", f"{r.sigma:.2f}", f"{r.ordinal:.2f}", str(r.games)] for r in ratings]
    return grid(rows)


def format_cross(analysis: Analysis, system: str) -> str:
    """The cross-play matrix of ``system``: the lone bot (row) against the field (column)."""
    columns = analysis.columns
    rows = [["lone \\ field", *columns]]
    for row in analysis.rows:
        cells = [row]
        for column in columns:
            value = analysis.cross.get((row, column))
            cells.append("" if value is None else interval_text(value[system], DIGITS[system]))
        rows.append(cells)
    return grid(rows)


def format_pairs(pairs: Sequence[Pair], system: str) -> str:
    rows = [["field", "a", "b", "set-ups", "games", "a − b", "95 % interval", "p"]]
    digits = DIGITS[system]
    for pair in pairs:
        c = pair.comparisons[system]
        if c is None:
            rows.append([pair.field, pair.a, pair.b, ",".join(pair.kinds), "<2", "", "", ""])
            continue
        d = c.difference
        rows.append(
            [
                pair.field,
                pair.a,
                pair.b,
                ",".join(pair.kinds),
                str(d.n),
                f"{d.mean:+.{digits}f}",
                f"[{d.low:+.{digits}f}, {d.high:+.{digits}f}]",
                f"{c.p:.3g}",
            ]
        )
    return grid(rows)


def format_analysis(analysis: Analysis, system: str | None = None) -> str:
    """Every table of a tournament as text: the ratings, the scores of the lone seat, and the
    cross-play matrix and paired comparisons of ``system`` (default: the tournament's score)."""
    system = system or analysis.description.get("score", "sum-of-squares")
    parts = [
        "Ratings (OpenSkill Plackett-Luce; ordinal = mu - 3 sigma):",
        format_ratings(analysis.ratings),
        "",
        "Scores of the lone seat, per game, mean [95 % interval]:",
        format_system_table(analysis.lone, who="lone bot"),
        "",
        f"Cross-play, {system} of the lone bot (row) against the field (column), per game, mean [95 % interval]:",
        format_cross(analysis, system),
    ]
    if analysis.pairs:
        parts += [
            "",
            f"Paired comparisons, {system}: lone a minus lone b facing the same field on the same seeds:",
            format_pairs(analysis.pairs, system),
        ]
    else:
        parts += ["", "Paired comparisons: none (no two bots faced the same field; it takes three bots)."]
    return "\n".join(parts)

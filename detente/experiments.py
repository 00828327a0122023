"""Experiments: many in-process games between bots, their scores and a summary per bot.

What ``detente run --out DIR`` writes:

``DIR/games.jsonl``
    one JSON object per game, in the order of the games (whatever order they finish in)::

        {"game": 1, "seed": 123, "bots": {"AUSTRIA": "dumbbot", ...},
         "outcome": "solo" | "draw", "winner": "FRANCE" | null, "last_year": 1920,
         "centres": {"1901": {"AUSTRIA": 4, ...}, ...},      # after every year played
         "final_centres": {"AUSTRIA": 0, ...},
         "eliminated": {"AUSTRIA": "F1907M", ...},          # the phase it lost its last unit and centre
         "scores": {"AUSTRIA": {"bot": "dumbbot", "centres": 0, "win": 0.0, "rank": 7.0}, ...}}

``DIR/games/<n>.json``
    the full record of game ``n`` (1, 2, ...): the same fields without ``scores``, plus
    ``settings`` (``year_limit``, ``press_level``, ``l_levels``, ``protocol``, ``binding``, ``rounds``), ``phases`` (each phase
    played: ``phase``, ``orders`` by power in the short notation, ``results`` by unit as the
    engine words them, ``position`` after it as the adjudication-case JSON writes one) and
    ``messages`` (every press message: ``phase``, ``sender``, ``recipients``, ``press``).

``DIR/summary.json``
    ``{"seed", "games", "bots" (the seven slots), "settings", "solos", "draws", "table"}``,
    ``table`` holding per bot ``{"bot", "plays", "mean_centres", "se_centres", "wins",
    "win_rate", "mean_rank"}``; the same table is printed.

``DIR/manifest.json``
    what the run was made with (:mod:`detente.manifest`): the git commit (and whether the
    tree had changes), the package versions, each bot's class and constants, the seeds of the
    run and of every game, the settings.

Scoring: a game ends with a solo (18 centres) or, at the year limit, after that year's
winter. The win goes to the power with the most centres at the end, shared equally by an
n-way tie (each gets 1/n). Ranks run from 1 (best) to 7: more centres is better; among
powers with the same centres, a survivor beats an eliminated power and a later
elimination beats an earlier one; powers still tied share the mean of the ranks they
span. A bot's ``plays`` counts the powers it played over all games (a bot in three slots
plays three times a game); the standard error treats them as independent.

The seven slots come from ``--bots``: up to seven names, the last repeated to fill seven
(``dumbbot,randombot`` is one DumbBot and six RandomBots). Game ``n`` is played with the
``n``-th seed drawn from ``--seed``, which fixes the powers each slot gets and every
choice of every bot: the same seed gives the same files, whatever ``--jobs``.
"""

from __future__ import annotations

import json
import math
import random
import statistics
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from bots.inprocess import GameRecord, GameSetup, play_game, seeds_for
from detente.manifest import manifest
from engine.position import Phase
from referee.settings import GameSettings

__all__ = [
    "BotSummary",
    "Experiment",
    "GameRunner",
    "Progress",
    "Score",
    "format_table",
    "run_experiment",
    "score_game",
    "slots_from",
    "summarise",
]

POWERS = 7
#: Plays games elsewhere than in this machine's processes (``detente run --ray``: see
#: :mod:`detente.ray_runner`): given the setups, yields ``(index in setups, record)`` for
#: each game as it finishes, in any order.
GameRunner = Callable[[Sequence[GameSetup]], Iterable[tuple[int, GameRecord]]]
NEVER = Phase(10**6, "W", "A")  # survivors' "elimination": later than any phase


# --- scoring ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Score:
    """How one power did in one game: its centres at the end, its share of the win, its rank."""

    power: str
    bot: str
    centres: int
    win: float
    rank: float

    def to_json(self) -> dict[str, Any]:
        return {"bot": self.bot, "centres": self.centres, "win": self.win, "rank": self.rank}


def score_game(centres: Mapping[str, int], eliminated: Mapping[str, str], bots: Mapping[str, str]) -> list[Score]:
    """The scores of every power of a game (see the module for the rules), in the order of ``centres``.

    >>> centres = {"A": 9, "B": 9, "C": 0, "D": 0, "E": 16}
    >>> [(s.power, s.win, s.rank) for s in score_game(centres, {"C": "F1903M", "D": "F1905M"}, dict.fromkeys(centres, "x"))]
    [('A', 0.0, 2.5), ('B', 0.0, 2.5), ('C', 0.0, 5.0), ('D', 0.0, 4.0), ('E', 1.0, 1.0)]
    """
    top = max(centres.values())
    leaders = [p for p, n in centres.items() if n == top]

    def key(power: str) -> tuple[int, Phase]:
        return centres[power], Phase.parse(eliminated[power]) if power in eliminated else NEVER

    ordered = sorted(centres, key=key, reverse=True)
    rank: dict[str, float] = {}
    start = 0
    while start < len(ordered):
        end = start
        while end + 1 < len(ordered) and key(ordered[end + 1]) == key(ordered[start]):
            end += 1
        for power in ordered[start : end + 1]:
            rank[power] = (start + end) / 2 + 1
        start = end + 1
    return [Score(p, bots[p], n, 1 / len(leaders) if p in leaders else 0.0, rank[p]) for p, n in centres.items()]


@dataclass(frozen=True, slots=True)
class BotSummary:
    """One bot over an experiment: ``se_centres`` is None with fewer than two plays."""

    bot: str
    plays: int
    mean_centres: float
    se_centres: float | None
    wins: float
    mean_rank: float

    @property
    def win_rate(self) -> float:
        return self.wins / self.plays

    def to_json(self) -> dict[str, Any]:
        return {
            "bot": self.bot,
            "plays": self.plays,
            "mean_centres": self.mean_centres,
            "se_centres": self.se_centres,
            "wins": self.wins,
            "win_rate": self.win_rate,
            "mean_rank": self.mean_rank,
        }


def summarise(games: Iterable[Mapping[str, Any]]) -> list[BotSummary]:
    """The table per bot (in order of first appearance) of the lines of ``games.jsonl``."""
    plays: dict[str, list[Mapping[str, Any]]] = {}
    for game in games:
        for score in game["scores"].values():
            plays.setdefault(score["bot"], []).append(score)
    table = []
    for bot, scores in plays.items():
        centres = [s["centres"] for s in scores]
        se = statistics.stdev(centres) / math.sqrt(len(centres)) if len(centres) > 1 else None
        table.append(
            BotSummary(
                bot,
                len(scores),
                statistics.fmean(centres),
                se,
                math.fsum(s["win"] for s in scores),
                statistics.fmean(s["rank"] for s in scores),
            )
        )
    return table


def format_table(table: Sequence[Mapping[str, Any]]) -> str:
    """The summary table as text, from its rows as ``summary.json`` holds them."""
    lines = [f"{'bot':<16} {'plays':>6} {'centres':>8} {'± se':>6} {'wins':>8} {'win %':>6} {'rank':>5}"]
    lines.append("-" * len(lines[0]))
    for row in table:
        se = "-" if row["se_centres"] is None else f"{row['se_centres']:.2f}"
        lines.append(
            f"{row['bot']:<16} {row['plays']:>6} {row['mean_centres']:>8.2f} {se:>6} {row['wins']:>8.2f}"
            f" {100 * row['win_rate']:>6.1f} {row['mean_rank']:>5.2f}"
        )
    return "\n".join(lines)


# --- running games ---------------------------------------------------------------------------------


def slots_from(names: Sequence[str]) -> tuple[str, ...]:
    """Seven bot names from one to seven: the last repeated to fill the seven slots."""
    names = [n.strip() for n in names if n.strip()]
    if not 1 <= len(names) <= POWERS:
        raise ValueError(f"--bots takes one to seven bot names, not {len(names)}")
    return (*names, *[names[-1]] * (POWERS - len(names)))


@dataclass(frozen=True, slots=True)
class Experiment:
    """What ``detente run`` plays: ``games`` games of the seven ``slots`` from ``seed``."""

    slots: tuple[str, ...]
    games: int
    seed: int
    out: Path
    jobs: int = 1
    settings: GameSettings = field(default_factory=lambda: GameSettings(year_limit=1920))
    rounds: int = 3

    def setups(self) -> list[GameSetup]:
        return [GameSetup(seed, self.slots, self.settings, self.rounds) for seed in seeds_for(self.seed, self.games)]


def game_line(n: int, record: GameRecord) -> dict[str, Any]:
    """The line of ``games.jsonl`` of game ``n``."""
    scores = score_game(record.final_centres, record.eliminated, record.bots)
    return {
        "game": n,
        "seed": record.seed,
        "bots": dict(record.bots),
        "outcome": record.outcome,
        "winner": record.winner,
        "last_year": record.last_year,
        "centres": {str(year): dict(counts) for year, counts in record.centres.items()},
        "final_centres": dict(record.final_centres),
        "eliminated": dict(record.eliminated),
        "scores": {s.power: s.to_json() for s in scores},
    }


def play_and_write(n: int, setup: GameSetup, games_dir: Path) -> dict[str, Any]:
    """Play game ``n``, write its full record, return its line (run in a worker process)."""
    try:
        record = play_game(setup)
    except Exception as error:
        error.add_note(f"in game {n} (seed {setup.seed}, bots {', '.join(setup.bots)})")
        raise
    return write_game(n, record, games_dir)


def write_game(n: int, record: GameRecord, games_dir: Path) -> dict[str, Any]:
    """Write the full record of game ``n``, return its line."""
    path = games_dir / f"{n}.json"
    path.write_text(json.dumps({"game": n, **record.to_json()}, separators=(",", ":")) + "\n", encoding="utf-8")
    return game_line(n, record)


def _in_order(finished: Iterable[tuple[int, dict[str, Any]]]) -> Iterator[tuple[int, dict[str, Any] | None]]:
    """Each finished game as it finishes (with the count done), then its line in game order.

    ``finished`` gives ``(index, line)`` in the order the games finish. Yields ``(done,
    line)``: ``line`` is None for a game that finished before the games ahead of it, and
    comes again, in order, once they have.
    """
    ready: dict[int, dict[str, Any]] = {}
    following = 0
    for done, (index, line) in enumerate(finished, 1):
        ready[index] = line
        yield done, None
        while following in ready:
            yield done, ready.pop(following)
            following += 1


class Progress:
    """A one-line progress bar, redrawn in place: for a terminal (a log would get every redraw)."""

    def __init__(self, total: int, stream: IO[str], enabled: bool = True) -> None:
        self.total = total
        self.stream = stream
        self.enabled = enabled
        self.started = time.monotonic()

    def update(self, done: int) -> None:
        if not self.enabled:
            return
        elapsed = time.monotonic() - self.started
        width = 30
        filled = width * done // self.total
        eta = elapsed / done * (self.total - done) if done else 0.0
        self.stream.write(
            f"\r{done:>{len(str(self.total))}}/{self.total} [{'#' * filled}{'.' * (width - filled)}]"
            f" {elapsed:6.1f} s, {elapsed / max(done, 1):5.2f} s/game, about {eta:5.0f} s left"
        )
        self.stream.flush()

    def close(self) -> float:
        """End the line; the seconds elapsed."""
        if self.enabled:
            self.stream.write("\n")
        return time.monotonic() - self.started


def run_experiment(
    experiment: Experiment, progress: Callable[[int], None] | None = None, runner: GameRunner | None = None
) -> dict[str, Any]:
    """Play every game of ``experiment``, write ``DIR`` (see the module), return the summary.

    ``progress`` is told the number of games finished each time one finishes. ``runner``
    plays the games instead of ``experiment.jobs`` local processes; the files are written
    here, the same as a local run's for the same seed.
    """
    out = experiment.out
    games_dir = out / "games"
    games_dir.mkdir(parents=True, exist_ok=True)
    setups = experiment.setups()
    lines: list[dict[str, Any]] = []
    with open(out / "games.jsonl", "w", encoding="utf-8") as jsonl:
        for done, line in _played(experiment, setups, games_dir, runner):
            if progress is not None:
                progress(done)
            if line is not None:
                lines.append(line)
                jsonl.write(json.dumps(line, separators=(",", ":")) + "\n")
                jsonl.flush()
    summary = {
        "seed": experiment.seed,
        "games": len(lines),
        "bots": list(experiment.slots),
        "settings": setups[0].to_json() if setups else {},
        "solos": sum(1 for line in lines if line["outcome"] == "solo"),
        "draws": sum(1 for line in lines if line["outcome"] == "draw"),
        "table": [row.to_json() for row in sorted(summarise(lines), key=lambda row: experiment.slots.index(row.bot))],
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    record = manifest(experiment.slots, experiment.seed, [s.seed for s in setups], summary["settings"])
    (out / "manifest.json").write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    return summary


def _played(
    experiment: Experiment, setups: Sequence[GameSetup], games_dir: Path, runner: GameRunner | None
) -> Iterator[tuple[int, dict[str, Any] | None]]:
    if runner is not None:
        yield from _in_order((index, write_game(index + 1, record, games_dir)) for index, record in runner(setups))
        return
    if experiment.jobs <= 1:
        for n, setup in enumerate(setups, 1):
            yield n, play_and_write(n, setup, games_dir)
        return
    pool = ProcessPoolExecutor(max_workers=experiment.jobs)
    try:
        futures = [pool.submit(play_and_write, n, setup, games_dir) for n, setup in enumerate(setups, 1)]
        index = {future: i for i, future in enumerate(futures)}
        yield from _in_order((index[future], future.result()) for future in as_completed(futures))
    finally:
        pool.shutdown(cancel_futures=True)  # a game that failed (or ^C) stops the games not yet begun


def new_seed() -> int:
    """A seed for a run that was given none (it is written to ``summary.json``)."""
    return random.SystemRandom().randrange(2**31)

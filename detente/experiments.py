"""Experiments: many in-process games between bots, their scores and a summary per bot.

What ``detente run --out DIR`` writes:

``DIR/games.jsonl``
    one JSON object per game, in the order of the games (whatever order they finish in)::

        {"game": 1, "seed": 123, "bots": {"AUSTRIA": "dumbbot", ...},
         "outcome": "solo" | "draw", "winner": "FRANCE" | null, "last_year": 1920,
         "centres": {"1901": {"AUSTRIA": 4, ...}, ...},      # after every year played
         "final_centres": {"AUSTRIA": 0, ...},
         "eliminated": {"AUSTRIA": "F1907M", ...},          # the phase it lost its last unit and centre
         "scores": {"AUSTRIA": {"bot": "dumbbot", "centres": 0, "win": 0.0, "rank": 7.0,
                                "said": 0, "deals": 0}, ...},  # press messages said, deals confirmed
         "negotiation": {"messages": 12, "deals": 1}}           # the game's

``DIR/games/<n>.json``
    the full record of game ``n`` (1, 2, ...): the same fields without ``scores``, plus
    ``settings`` (``year_limit``, ``press_level``, ``l_levels``, ``protocol``, ``binding``, ``rounds``), ``phases`` (each phase
    played: ``phase``, ``orders`` by power in the short notation, ``results`` by unit as the
    engine words them, ``position`` after it as the adjudication-case JSON writes one) and
    ``messages`` (every press message: ``phase``, ``sender``, ``recipients``, ``press``).

``DIR/summary.json``
    ``{"seed", "games", "bots" (the seven slots), "settings", "solos", "draws", "table"}``,
    ``table`` holding per bot ``{"bot", "plays", "mean_centres", "se_centres", "wins",
    "win_rate", "mean_rank", "games", "se_win_rate", "se_rank", "per_game"}``: ``games``
    counts the games it played, the ``se_`` keys are standard errors over those games, and
    ``per_game`` holds ``centres``, ``win_rate`` and ``rank`` as :mod:`detente.stats`
    estimates (``mean``, ``se``, ``n``, and ``low``, ``high``: the 95 % interval). The
    same table is printed. (Before ``games`` came in, ``se_centres`` was over plays.)

``DIR/run.json``
    what the run is (:meth:`Experiment.identity`: the slots, the games, the seed, the
    settings...), written before the first game and removed once the run is done: an
    unfinished run (stopped with Ctrl-C) is resumed by the same command (:func:`kept_lines`),
    which keeps its finished games.

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
plays three times a game). The unit of the standard errors and intervals is the game, not
the seat (:mod:`detente.stats`): a bot's centres, win share and rank are first averaged over
its seats in each game, and the standard error runs over those per-game values. Other
scoring systems (draw-size, sum of squares) are in :mod:`detente.scoring`.

The seven slots come from ``--bots``: up to seven names, the last repeated to fill seven
(``dumbbot,randombot`` is one DumbBot and six RandomBots). Game ``n`` is played with the
``n``-th seed drawn from ``--seed``, which fixes the powers each slot gets and every
choice of every bot: the same seed gives the same files, whatever ``--jobs``.
"""

from __future__ import annotations

import collections
import json
import math
import os
import random
import signal
import statistics
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Any

from bots.inprocess import ROUNDS, GameSetup, play_game, seeds_for
from bots.llm.config import LLMOptions
from bots.llm.usage import collect, summarise_usage
from bots.registry import LLM_PREFIX
from detente.daide_game import is_daide, play_daide_game
from detente.manifest import manifest
from detente.scoring import bounds
from detente.stats import Estimate, estimate, per_game
from detente.tables import columns
from engine import standard_map
from engine.position import Phase
from formats import jsonio
from referee.record import GameRecord
from referee.settings import GameSettings

__all__ = [
    "RUN_FILE",
    "BotSummary",
    "Experiment",
    "GameRunner",
    "Progress",
    "Score",
    "format_table",
    "kept_lines",
    "rotation",
    "run_experiment",
    "score_game",
    "slots_from",
    "summarise",
]

POWERS = 7
STANDARD_POWERS: tuple[str, ...] = standard_map().powers
#: Plays games elsewhere than in this machine's processes (``detente run --ray``: see
#: :mod:`detente.ray_runner`): given the setups, yields ``(index in setups, record)`` for
#: each game as it finishes, in any order.
GameRunner = Callable[[Sequence[GameSetup]], Iterable[tuple[int, GameRecord]]]
NEVER = Phase(10**6, "W", "A")
LLM_DIR = "llm"  # DIR/llm: the model seats' call log, usage files and run ledger
USAGE_FILE = "usage.json"  # survivors' "elimination": later than any phase


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
    """One bot over an experiment. ``games`` counts the games it played; the standard errors
    (``se_centres``, ``se_win_rate``, ``se_rank``) are over those games, a game's value being the
    mean over the bot's seats in it (None from one game); ``per_game`` holds the estimates
    (``centres``, ``win_rate``, ``rank``) with their 95 % intervals."""

    bot: str
    plays: int
    mean_centres: float
    se_centres: float | None
    wins: float
    mean_rank: float
    games: int = 0
    per_game: Mapping[str, Estimate] = field(default_factory=dict)
    #: press messages said, and confirmed deals taken part in, a seat a game (None: lines of
    #: a run made before they were counted)
    said: float | None = None
    deals: float | None = None

    @property
    def win_rate(self) -> float:
        return self.wins / self.plays

    @property
    def se_win_rate(self) -> float | None:
        return self.per_game["win_rate"].se if "win_rate" in self.per_game else None

    @property
    def se_rank(self) -> float | None:
        return self.per_game["rank"].se if "rank" in self.per_game else None

    def to_json(self) -> dict[str, Any]:
        return {
            "bot": self.bot,
            "plays": self.plays,
            "mean_centres": self.mean_centres,
            "se_centres": self.se_centres,
            "wins": self.wins,
            "win_rate": self.win_rate,
            "mean_rank": self.mean_rank,
            "games": self.games,
            "se_win_rate": self.se_win_rate,
            "se_rank": self.se_rank,
            "per_game": {name: value.to_json() for name, value in self.per_game.items()},
            "said": self.said,
            "deals": self.deals,
        }


#: What :class:`BotSummary` estimates per game, and how each reads one seat's score.
PER_GAME: Mapping[str, Callable[[Mapping[str, Any]], float]] = {
    "centres": lambda s: s["centres"],
    "win_rate": lambda s: s["win"],
    "rank": lambda s: s["rank"],
}
#: The scoring system whose bounds bound each per-game figure (:func:`detente.scoring.bounds`).
PER_GAME_SYSTEM: Mapping[str, str] = {"centres": "centres", "win_rate": "win", "rank": "rank"}


def summarise(games: Iterable[Mapping[str, Any]]) -> list[BotSummary]:
    """The table per bot (in order of first appearance) of the lines of ``games.jsonl``.

    >>> line = {"scores": {"A": {"bot": "x", "centres": 6, "win": 1.0, "rank": 1.0},
    ...                    "B": {"bot": "y", "centres": 4, "win": 0.0, "rank": 2.0},
    ...                    "C": {"bot": "y", "centres": 0, "win": 0.0, "rank": 3.0}}}
    >>> x, y = summarise([line, line])
    >>> y.plays, y.games, y.mean_centres, y.se_centres, y.per_game["rank"]
    (4, 2, 2.0, 0.0, Estimate(mean=2.5, se=0.0, n=2))
    """
    lines = list(games)
    plays: dict[str, list[Mapping[str, Any]]] = {}
    for game in lines:
        for score in game["scores"].values():
            plays.setdefault(score["bot"], []).append(score)
    table = []
    for bot, scores in plays.items():
        estimates = {
            name: estimate(per_game(lines, bot, value), *bounds(PER_GAME_SYSTEM[name])) for name, value in PER_GAME.items()
        }
        table.append(
            BotSummary(
                bot,
                len(scores),
                statistics.fmean(s["centres"] for s in scores),
                estimates["centres"].se,
                math.fsum(s["win"] for s in scores),
                statistics.fmean(s["rank"] for s in scores),
                estimates["centres"].n,
                estimates,
                _mean_of(scores, "said"),
                _mean_of(scores, "deals"),
            )
        )
    return table


def _mean_of(scores: Sequence[Mapping[str, Any]], key: str) -> float | None:
    """The mean of ``key`` over ``scores``; None if a score lacks it (a line of an older run)."""
    if any(key not in s for s in scores):
        return None
    return statistics.fmean(s[key] for s in scores)


def format_table(table: Sequence[Mapping[str, Any]]) -> str:
    """The summary table as text, from its rows as ``summary.json`` holds them (old ones too:
    what they lack shows as ``-``). The ``± se`` are standard errors over games; ``said`` and
    ``deals`` are a seat's press messages and confirmed deals a game."""

    def se(row: Mapping[str, Any], key: str, scale: float = 1.0, digits: int = 2) -> str:
        value = row.get(key)
        return "-" if value is None else f"{scale * value:.{digits}f}"

    width = max([16, *(len(str(row["bot"])) for row in table)])  # a bot of one's own: FILE.py:Class
    header = (
        f"{'bot':<{width}} {'games':>6} {'plays':>6} {'centres':>8} {'± se':>6} {'wins':>8} {'win %':>6}"
        f" {'± se':>6} {'rank':>5} {'± se':>5} {'said':>6} {'deals':>6}"
    )
    lines = [header]
    lines.append("-" * len(lines[0]))
    for row in table:
        lines.append(
            f"{row['bot']:<{width}} {row.get('games', '-'):>6} {row['plays']:>6} {row['mean_centres']:>8.2f}"
            f" {se(row, 'se_centres'):>6} {row['wins']:>8.2f} {100 * row['win_rate']:>6.1f}"
            f" {se(row, 'se_win_rate', 100, 1):>6} {row['mean_rank']:>5.2f} {se(row, 'se_rank'):>5}"
            f" {se(row, 'said', digits=1):>6} {se(row, 'deals', digits=1):>6}"
        )
    return "\n".join(lines)


# --- running games ---------------------------------------------------------------------------------


def format_usage(rows: Sequence[Mapping[str, Any]]) -> str:
    """The model seats' table: calls, tokens, cost, latency, repairs and fallbacks per seat spec.

    >>> print(format_usage([{"seat": "llm:m@http://h/v1", "seats": 2, "calls": 10, "input_tokens": 900,
    ...     "output_tokens": 80, "dollars": 0.0, "latency_p50": 0.012, "latency_p99": 0.5, "repairs": 1,
    ...     "orders_by_fallback": 3, "phases_by_fallback": 0, "exhausted": 0}]))
    model seat         seats  calls  tokens in  tokens out  dollars  p50 ms  p99 ms  repairs  fallback orders  exhausted
    --------------------------------------------------------------------------------------------------------------------
    llm:m@http://h/v1      2     10        900          80   0.0000      12     500        1                3          0
    """
    header = ("model seat", "seats", "calls", "tokens in", "tokens out", "dollars", "p50 ms", "p99 ms", "repairs",
              "fallback orders", "exhausted")

    def ms(value: object) -> str:
        return f"{float(value) * 1000:.0f}" if isinstance(value, int | float) else "-"

    body = [
        (str(r["seat"]), str(r["seats"]), str(r["calls"]), str(r["input_tokens"]), str(r["output_tokens"]),
         f"{r['dollars']:.4f}", ms(r["latency_p50"]), ms(r["latency_p99"]), str(r["repairs"]),
         str(r["orders_by_fallback"]), str(r["exhausted"]))
        for r in rows
    ]
    lines = columns(header, body)
    return "\n".join(lines)


def slots_from(names: Sequence[str], powers: int = POWERS) -> tuple[str, ...]:
    """A name for each of the map's ``powers`` slots (seven on the standard map), from one to
    that many names: the last repeated to fill the slots.

    >>> slots_from(["dumbbot", "randombot"], 2)
    ('dumbbot', 'randombot')
    >>> slots_from(["a", "b", "c"], 2)
    Traceback (most recent call last):
    ...
    ValueError: --bots takes one to two bot names on this map, not 3
    """
    names = [n.strip() for n in names if n.strip()]
    if not 1 <= len(names) <= powers:
        most = _WORDS.get(powers, str(powers))
        raise ValueError(f"--bots takes one to {most} bot names{'' if powers == POWERS else ' on this map'}, not {len(names)}")
    return (*names, *[names[-1]] * (powers - len(names)))


_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven"}


@dataclass(frozen=True, slots=True)
class Experiment:
    """What ``detente run`` plays: ``games`` games of the seven ``slots`` from ``seed``."""

    slots: tuple[str, ...]
    games: int
    seed: int
    out: Path
    jobs: int = 1
    settings: GameSettings = field(default_factory=GameSettings)
    rounds: int = ROUNDS
    rotate: bool = False
    #: the power of each slot in each game, given (overrides ``rotate``): a design of the caller's
    powers: tuple[tuple[str, ...], ...] | None = None
    #: other formats each game is also written in, beside ``games/<n>.json``: ``mila``
    formats: tuple[str, ...] = ()
    #: how model seats play (``--llm-*``); their calls and usage go to ``DIR/llm``
    llm: LLMOptions | None = None

    @property
    def llm_options(self) -> LLMOptions | None:
        """The model seats' options with this run's log directory, if a slot is a model seat."""
        if not any(name.startswith(LLM_PREFIX) for name in self.slots):
            return None
        return replace(self.llm or LLMOptions(), log_dir=self.out / LLM_DIR)

    def identity(self) -> dict[str, Any]:
        """What makes the run's files what they are (not where they go, nor how many jobs play
        them): a run is resumed only with the same."""
        setups = self.setups()
        return {
            "slots": list(self.slots),
            "games": self.games,
            "seed": self.seed,
            "settings": setups[0].to_json() if setups else {},
            "rotate": self.rotate,
            "powers": None if self.powers is None else [list(p) for p in self.powers],
            "formats": list(self.formats),
        }

    def setups(self) -> list[GameSetup]:
        seeds = seeds_for(self.seed, self.games)
        powers: Sequence[tuple[str, ...] | None] = [None] * self.games
        if self.powers is not None:
            if len(self.powers) != self.games:
                raise ValueError(f"{len(self.powers)} power assignments for {self.games} games")
            powers = self.powers
        elif self.rotate:
            powers = rotation(self.seed, self.games, self.settings.board.powers)
        llm = self.llm_options
        return [
            GameSetup(seed, self.slots, self.settings, self.rounds, p, llm) for seed, p in zip(seeds, powers, strict=True)
        ]


def rotation(seed: int, games: int, powers: Sequence[str] = STANDARD_POWERS) -> list[tuple[str, ...]]:
    """The power of each slot in each game, balanced: every slot plays every power once in each
    block of as many games as the map has ``powers`` (a Latin square, its order of powers
    shuffled per block from ``seed``).

    >>> blocks = rotation(1, 14)
    >>> all(sorted(game[slot] for game in blocks[:7]) == sorted(STANDARD_POWERS) for slot in range(7))
    True
    >>> blocks[:7] != blocks[7:]
    True
    """
    rng = random.Random(seed)
    out: list[tuple[str, ...]] = []
    while len(out) < games:
        order = rng.sample(list(powers), len(powers))
        n = len(powers)
        out.extend(tuple(order[(slot + shift) % n] for slot in range(n)) for shift in range(n))
    return out[:games]


def game_line(n: int, written: Mapping[str, Any], names: Mapping[str, str]) -> dict[str, Any]:
    """The line of ``games.jsonl`` of game ``n``, from its record as the files write it
    (:meth:`GameRecord.to_json`: the powers by their full names, ``names`` of their tokens).
    Each score has, beside its centres, win and rank, ``said``: the press messages the power
    sent, and ``deals``: the deals it took part in that the notary confirmed; ``negotiation``
    counts the game's ``messages`` and its confirmed ``deals``."""
    kept = ("seed", "bots", "outcome", "winner", "last_year", "centres", "final_centres", "eliminated")
    line = {"game": n, **{key: written[key] for key in kept}}
    scores = score_game(line["final_centres"], line["eliminated"], line["bots"])
    said = collections.Counter(names.get(m["sender"], m["sender"]) for m in written["messages"])
    confirmed = [e for e in written["events"] if e["type"] == "confirmed"]
    deals = collections.Counter(names.get(p, p) for e in confirmed for p in e["participants"])
    return {
        **line,
        "scores": {s.power: {**s.to_json(), "said": said[s.power], "deals": deals[s.power]} for s in scores},
        "negotiation": {"messages": len(written["messages"]), "deals": len(confirmed)},
    }


def play_and_write(n: int, setup: GameSetup, games_dir: Path, formats: Sequence[str] = ()) -> dict[str, Any]:
    """Play game ``n``, write its full record, return its line (run in a worker process)."""
    try:
        record = play(setup)
    except Exception as error:
        error.add_note(f"in game {n} (seed {setup.seed}, bots {', '.join(setup.bots)})")
        raise
    return write_game(n, record, games_dir, formats)


def play(setup: GameSetup) -> GameRecord:
    """Play one game: in process, or on a server of its own when a slot is a DAIDE program."""
    return play_daide_game(setup) if any(map(is_daide, setup.bots)) else play_game(setup)


def write_game(n: int, record: GameRecord, games_dir: Path, formats: Sequence[str] = ()) -> dict[str, Any]:
    """Write the full record of game ``n`` (and, for ``formats`` holding ``mila``, MILA's saved
    game ``<n>.mila.json`` beside it: :mod:`formats.mila`), return its line."""
    path = games_dir / f"{n}.json"
    written = record.to_json()
    path.write_text(json.dumps({"game": n, **written}, separators=(",", ":")) + "\n", encoding="utf-8")
    if "mila" in formats:
        from formats import jsonio, mila

        (games_dir / f"{n}.mila.json").write_text(jsonio.dumps(mila.dump(written)) + "\n", encoding="utf-8")
    return game_line(n, written, record.power_names)


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


RUN_FILE = "run.json"
"""What a run is, written before its first game (see the module)."""


def kept_lines(out: Path) -> list[dict[str, Any]]:
    """The lines of an unfinished run's ``games.jsonl`` that a resume keeps: games 1, 2, ... in
    order, up to the first missing or torn one (a line cut short by a stop)."""
    kept: list[dict[str, Any]] = []
    try:
        text = (out / "games.jsonl").read_text(encoding="utf-8")
    except FileNotFoundError:
        return kept
    for raw in text.splitlines():
        try:
            line = jsonio.loads(raw)
        except (json.JSONDecodeError, jsonio.BeyondBounds):
            break
        if not isinstance(line, dict) or line.get("game") != len(kept) + 1:
            break
        kept.append(line)
    return kept


def run_experiment(
    experiment: Experiment,
    progress: Callable[[int], None] | None = None,
    runner: GameRunner | None = None,
    kept: Sequence[Mapping[str, Any]] = (),
) -> dict[str, Any]:
    """Play every game of ``experiment``, write ``DIR`` (see the module), return the summary.

    ``progress`` is told the number of games finished each time one finishes. ``runner``
    plays the games instead of ``experiment.jobs`` local processes; the files are written
    here, the same as a local run's for the same seed. ``kept``: the lines of the games a
    stopped run finished (:func:`kept_lines`), which are not played again.
    """
    out = experiment.out
    games_dir = out / "games"
    games_dir.mkdir(parents=True, exist_ok=True)
    setups = experiment.setups()
    (out / RUN_FILE).write_text(json.dumps(experiment.identity(), indent=1) + "\n", encoding="utf-8")
    lines: list[dict[str, Any]] = [dict(line) for line in kept]
    # the kept lines, written again in full before the file is taken over (a torn line after
    # them goes): a stop while this is written loses none of them
    partial = out / "games.jsonl.partial"
    partial.write_text("".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines), encoding="utf-8")
    os.replace(partial, out / "games.jsonl")
    with open(out / "games.jsonl", "a", encoding="utf-8") as jsonl:
        for done, line in _played(experiment, setups, games_dir, runner, start=len(lines)):
            if progress is not None:
                progress(done + len(kept))
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
    llm = experiment.llm_options
    if llm is not None and llm.log_dir is not None:
        seats = collect(llm.log_dir)
        usage = {"seats": summarise_usage(seats), "games": seats}
        (out / USAGE_FILE).write_text(json.dumps(usage, indent=1) + "\n", encoding="utf-8")
        summary["llm"] = usage["seats"]
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    (out / RUN_FILE).unlink(missing_ok=True)  # finished: nothing to resume
    record = manifest(experiment.slots, experiment.seed, [s.seed for s in setups], summary["settings"], llm)
    (out / "manifest.json").write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    return summary


def _played(
    experiment: Experiment, setups: Sequence[GameSetup], games_dir: Path, runner: GameRunner | None, start: int = 0
) -> Iterator[tuple[int, dict[str, Any] | None]]:
    """The games from game ``start + 1`` on, as :func:`_in_order` gives them."""
    todo = setups[start:]
    if runner is not None:
        yield from _in_order(
            (index, write_game(start + index + 1, record, games_dir, experiment.formats))
            for index, record in runner(todo)
        )
        return
    if experiment.jobs <= 1:
        for n, setup in enumerate(todo, 1):
            yield n, play_and_write(start + n, setup, games_dir, experiment.formats)
        return
    # the workers leave Ctrl-C to this process, which stops them: no traceback from each
    pool = ProcessPoolExecutor(max_workers=experiment.jobs, initializer=_ignore_interrupts)
    stopped = False
    try:
        futures = [
            pool.submit(play_and_write, start + n, setup, games_dir, experiment.formats)
            for n, setup in enumerate(todo, 1)
        ]
        index = {future: i for i, future in enumerate(futures)}
        yield from _in_order((index[future], future.result()) for future in as_completed(futures))
    except KeyboardInterrupt:
        stopped = True
        raise
    finally:
        # a game that failed (or ^C) stops the games not yet begun; ^C those being played too
        workers = list(getattr(pool, "_processes", {}).values()) if stopped else []
        pool.shutdown(wait=not stopped, cancel_futures=True)
        for worker in workers:
            worker.terminate()


def _ignore_interrupts() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def new_seed() -> int:
    """A seed for a run that was given none (it is written to ``summary.json``)."""
    return random.SystemRandom().randrange(2**31)

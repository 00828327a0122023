"""Reports (issue 9, after the thesis's DipTools): an experiment's games as one self-contained HTML page.

What :func:`load` reads:

- a ``detente run`` directory (``summary.json``, ``games.jsonl``, ``games/<n>.json``, formats in
  :mod:`detente.experiments`): one *session*, with the settings of its ``summary.json``;
- a directory whose sub-directories are run directories: one session each, in the order of
  their names; together they are the *experiment*;
- a ``detente tournament`` directory (``tournament.json``): its set-ups are the sessions, in
  the order of ``tournament.json``, and the tournament's analysis (:func:`detente.tournament.analyse`)
  comes with them;
- a game server database (``detente serve --db``): every finished game is rebuilt from the
  store with :meth:`referee.game.GameMaster.replay`; games with the same settings (their
  name aside) make a session. The store knows no bots, so the powers play their part.

What :func:`render` writes: one HTML page without external resources (the charts are SVG
that matplotlib draws, inline; the style sheet is inline too). An overview of the experiment
(its sessions, their settings, and a chart of each bot's mean centres per session when there
are several); then per session its settings, the table per bot (plays, mean supply centres
with their standard error, wins, win %, mean rank: :func:`detente.experiments.summarise`, the
very table of ``summary.json``; the standard errors are over games) with a bar chart, the
table of the scoring systems (:mod:`detente.scoring`: each bot's mean score per game under
each, with its 95 % interval), the heatmaps of the pairs of powers, the press counted by level
and by kind, a table of every game, and the supply centres of each power over the phases of
the first games. A tournament gets a section of its own before the sessions: the ratings, the
scores of the lone seat under every scoring system, the cross-play matrix of its score as a
table and a heatmap, and the paired comparisons (see :mod:`detente.tournament`).

What is counted between two powers (row, column), over the games of a session:

- *attacks*: :func:`referee.compliance.attacks` of each phase's orders as given (in a
  binding game the orders committed may have replaced some), attacker to victim;
- *proposed*: ``propose`` messages (L) and ``PRP`` press (DAIDE), sender to each recipient;
- *accepted*: ``accept`` messages and ``YES`` press, counted as proposer (the recipient) to
  accepter (the sender), so that the cells compare with those of *proposed*;
- *kept*: the negotiation's compliance frames (one deal, one phase each), for each pair of
  the deal's parties: ``kept/reported``, kept when every report of the frame is kept. A game
  server database holds no compliance (the negotiation server keeps it), so there it is empty.

Press is counted by level (``L 1`` to ``L 8``; ``DAIDE 10`` to ``DAIDE 8000``) and by kind:
L's (propose, accept, reject, withdraw, inform, query, answer) and DAIDE press named as
:mod:`protocol.bridge` maps it to L (``PRP`` propose, ``YES`` accept, ``FCT (QRY ...)`` answer
...), other press by its token.

>>> press_of({"sender": "ENG", "recipients": ["FRA"], "press": "SND (FRA) (PRP (PCE (ENG FRA)))"})
Press(level='DAIDE 10', kind='propose', sender='ENG', recipients=('FRA',))
"""

from __future__ import annotations

import html
import io
import json
import sqlite3
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import matplotlib
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator
from pydantic import ValidationError

from bots.llm.usage import summarise_usage
from detente.diplomacy import MEASURES, estimate_text, summarise_diplomacy
from detente.experiments import USAGE_FILE, BotSummary, score_game, summarise
from detente.report_thesis import thesis_section
from detente.scoring import DIGITS, HIGHER_IS_BETTER, SYSTEMS, interval_text, system_table
from detente.tournament import Analysis, TournamentError, analyse
from engine import Position, standard_map
from engine.orders import Order, OrderSyntaxError, parse_order
from engine.powers import Power
from formats import jsonio
from protocol.daide import messages as dm
from protocol.daide.parser import DaideSyntaxError, parse_press, press_level
from protocol.daide.parser import parse as parse_daide
from protocol.l import LError, Propose
from protocol.l import parse as parse_l
from referee.compliance import attacks
from referee.game import GameMaster
from referee.notary import participants
from referee.settings import GameSettings
from server.store import Store, StoreError

__all__ = ["Experiment", "Game", "Press", "ReportError", "Session", "load", "press_of", "render"]

MAP = standard_map()
#: The powers, by their tokens, and their full names: what a run's files and the page write.
POWERS: tuple[str, ...] = MAP.powers
FULL: Mapping[str, str] = MAP.power_names
#: The powers' colours, the same as on the page's board (see :class:`engine.powers.Power`).
COLOURS: Mapping[str, str] = {p.value: p.colour for p in Power}
#: A game server database's players: the store knows no bots, so each power plays its own part,
#: under its full name; in its own colour in the charts of bots.
PLAYERS: Mapping[str, str] = {p: FULL[p] for p in POWERS}
PLAYER_COLOURS: Mapping[str, str] = {FULL[p]: COLOURS[p] for p in POWERS}
L_KINDS = ("propose", "accept", "reject", "withdraw", "inform", "query", "answer")
SQLITE_HEADER = b"SQLite format 3\x00"
#: What every line of ``games.jsonl`` holds.
LINE_KEYS = ("game", "seed", "bots", "outcome", "winner", "last_year", "scores")


class ReportError(Exception):
    """Input that cannot be reported on; the message says which file and why, in one line."""


# --- the data --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Press:
    """One press message as counted: its level and kind, sender and recipients (power tokens)."""

    level: str
    kind: str
    sender: str
    recipients: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Game:
    """What the report needs of one game, whatever it was read from.

    Powers are tokens. ``players`` maps each power to its bot (or, from a database, to its
    full name: the power plays its own part); ``scores`` are those of ``games.jsonl``, by
    power; ``centres`` pairs the start and each phase played with every power's supply
    centres after it; ``compliance`` holds, per compliance frame, the deal's
    parties and whether every report was kept; ``confirmed`` counts the deals the notary
    confirmed (None where the negotiation is not known: a game server database).
    """

    label: str
    ident: str
    players: Mapping[str, str]
    outcome: str
    winner: str | None
    last_year: int
    scores: Mapping[str, Mapping[str, Any]]
    centres: tuple[tuple[str, Mapping[str, int]], ...]
    attacks: Mapping[tuple[str, str], int]
    press: tuple[Press, ...]
    compliance: tuple[tuple[frozenset[str], bool], ...]
    confirmed: int | None


@dataclass(frozen=True, slots=True)
class Session:
    """Games played with one setting: ``lineup`` says who played in words, ``role`` whether bots
    or powers did; ``table`` is the table per bot (or power) as ``summary.json`` has it."""

    name: str
    settings: Mapping[str, Any]
    lineup: str
    role: str
    games: tuple[Game, ...]
    table: tuple[BotSummary, ...]
    #: per model seat: calls, tokens, cost, latency, repairs, fallbacks (a run's ``usage.json``)
    model_seats: tuple[Mapping[str, Any], ...] = ()
    #: per bot: proposed, accepted, confirmed, kept, broken (:mod:`detente.diplomacy`)
    diplomacy: tuple[Mapping[str, Any], ...] = ()


def _summary(games: Sequence[Game], players: Sequence[str]) -> tuple[BotSummary, ...]:
    """The table per bot of ``games``, in the order of ``players`` (the slots of a run)."""
    order = {name: i for i, name in enumerate(players)}
    return tuple(sorted(summarise({"scores": g.scores} for g in games), key=lambda row: order.get(row.bot, len(order))))


@dataclass(frozen=True, slots=True)
class Experiment:
    """Every session read from ``source``."""

    source: str
    sessions: tuple[Session, ...]
    tournament: Analysis | None = None


# --- reading ---------------------------------------------------------------------------------------


def load(path: Path) -> Experiment:
    """The experiment at ``path``: a run directory, a directory of them, or a game server database."""
    try:
        return _load(path)
    except OSError as error:  # a directory that cannot be listed, a file that cannot be opened
        raise ReportError(f"cannot read {error.filename or path}: {error.strerror}") from None


def _load(path: Path) -> Experiment:
    """:func:`load`, whose caller turns the errors of the file system into a :class:`ReportError`."""
    if path.is_dir():
        if (path / "tournament.json").exists():
            return _tournament(path)
        if (path / "summary.json").exists() or (path / "games.jsonl").exists():
            return Experiment(str(path), (_run_session(path),))
        runs = sorted(child for child in path.iterdir() if (child / "summary.json").exists())
        if not runs:
            raise ReportError(f"{path} is not a run directory (no summary.json) and holds none")
        return Experiment(str(path), tuple(_run_session(run) for run in runs))
    if not path.exists():
        raise ReportError(f"{path} does not exist")
    if _sqlite_header(path):
        return Experiment(str(path), _database_sessions(path))
    raise ReportError(f"{path} is neither a run directory nor a game server database")


def _sqlite_header(path: Path) -> bool:
    """Whether ``path`` is an SQLite file: its first bytes say so, whatever its name ends with."""
    with open(path, "rb") as handle:
        return handle.read(len(SQLITE_HEADER)) == SQLITE_HEADER


def _tournament(path: Path) -> Experiment:
    """A ``detente tournament`` directory: its set-ups played so far, and its analysis."""
    try:
        analysis = analyse(path)
    except TournamentError as error:
        raise ReportError(str(error)) from None
    names = [str(setup["name"]) for setup in analysis.description["setups"]]
    runs = [path / name for name in names if (path / name / "summary.json").exists()]
    if not runs:
        raise ReportError(f"{path} is a tournament of which no set-up is played yet")
    return Experiment(str(path), tuple(_run_session(run) for run in runs), analysis)


@contextmanager
def _reading(path: Path, what: str) -> Iterator[None]:
    """Turn what is wrong with the content of ``path`` into a one-line :class:`ReportError` (errors of
    the file system are :func:`load`'s)."""
    try:
        yield
    except json.JSONDecodeError as error:
        raise ReportError(f"{path}: invalid JSON at line {error.lineno}, column {error.colno}: {error.msg}") from None
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as error:
        raise ReportError(f"{path} is not {what}: {type(error).__name__} {error}") from None


def _run_session(run: Path) -> Session:
    """One ``detente run`` directory as a session."""
    summary_path, lines_path = run / "summary.json", run / "games.jsonl"
    for needed in (summary_path, lines_path):
        if not needed.is_file():
            raise ReportError(f"{run} is not a complete run directory: {needed.name} is missing")
    with _reading(summary_path, "a summary as detente run writes it"):
        summary = jsonio.loads(summary_path.read_text(encoding="utf-8"))
        settings = dict(summary["settings"])
        slots = Counter(str(bot) for bot in summary["bots"])
    _standard_only(settings, str(run))
    with _reading(lines_path, "one game a line as detente run writes them"):
        lines = [jsonio.loads(text) for text in lines_path.read_text(encoding="utf-8").splitlines() if text.strip()]
        for line in lines:
            missing = [key for key in LINE_KEYS if key not in line]
            if missing:
                raise KeyError(missing[0])
    games = []
    records = []
    for line in lines:
        record_path = run / "games" / f"{line['game']}.json"
        with _reading(record_path, "a game record as detente run writes it"):
            records.append(jsonio.loads(record_path.read_text(encoding="utf-8")))
            games.append(_run_game(line, records[-1]))
    if not games:
        raise ReportError(f"{run} holds no game")
    with _reading(lines_path, "one game a line as detente run writes them"):
        table = _summary(games, tuple(slots))
    usage_path = run / USAGE_FILE
    seats: tuple[Mapping[str, Any], ...] = ()
    if usage_path.is_file():
        with _reading(usage_path, "the model seats' usage as detente run writes it"):
            seats = tuple(summarise_usage(jsonio.loads(usage_path.read_text(encoding="utf-8"))["games"]))
    with _reading(run / "games", "game records as detente run writes them"):
        diplomacy = tuple(summarise_diplomacy(records))
    lineup = ", ".join(f"{bot} ×{count}" for bot, count in slots.items())
    return Session(run.name, settings, lineup, "bot", tuple(games), table, seats, diplomacy)


def _run_game(line: Mapping[str, Any], record: Mapping[str, Any]) -> Game:
    """A game of a run from its line of ``games.jsonl`` and its record ``games/<n>.json``."""
    before = Position.initial(MAP)
    centres: list[tuple[str, Mapping[str, int]]] = [("start", before.center_counts)]
    found: Counter[tuple[str, str]] = Counter()
    for phase in record["phases"]:
        after = phase["position"]
        centres.append((phase["phase"], {p: len(after["centers"].get(FULL[p], ())) for p in POWERS}))
        found.update(_attacks(before, phase["orders"]))
        if after["phase"] != "COMPLETED":
            before = Position.from_json(after, MAP)
    events = record.get("events", ())
    return Game(
        label=f"game {line['game']}",
        ident=str(line["seed"]),
        players=_by_token(line["bots"]),
        outcome=str(line["outcome"]),
        winner=None if line["winner"] is None else MAP.power(line["winner"]),
        last_year=int(line["last_year"]),
        scores=_by_token(line["scores"]),
        centres=tuple(centres),
        attacks=found,
        press=tuple(press_of(message) for message in record.get("messages", ())),
        compliance=tuple(_kept(event) for event in events if event["type"] == "compliance"),
        confirmed=sum(1 for event in events if event["type"] == "confirmed"),
    )


def _by_token(values: Mapping[str, Any]) -> dict[str, Any]:
    """A mapping of a run's files, keyed by the powers' full names, keyed by their tokens."""
    return {MAP.power(power): value for power, value in values.items()}


def _attacks(before: Position, orders: Mapping[str, Sequence[str]]) -> Counter[tuple[str, str]]:
    """The attacks of one phase (its orders by power, in any spelling), attacker and victim as
    power tokens; unreadable orders are void."""
    parsed: dict[str, list[Order]] = {}
    for power, texts in orders.items():
        for text in texts:
            try:
                parsed.setdefault(MAP.power(power), []).append(parse_order(MAP, text))
            except OrderSyntaxError:
                continue
    return Counter((a.attacker, a.victim) for a in attacks(before, parsed))


def _kept(event: Mapping[str, Any]) -> tuple[frozenset[str], bool]:
    """A compliance frame: the parties of its deal (power tokens), and whether all reports were kept.

    L parses messages, not deals: the deal goes inside a proposal whose powers do not matter.
    """
    try:
        message = parse_l(f"propose(eng, [fra], {event['deal']})")
    except LError:
        message = None
    if isinstance(message, Propose):
        parties = participants(message.deal)
    else:  # the reports name the powers as L writes them, in lower case
        parties = frozenset(str(r["power"]).upper() for r in event["reports"])
    return parties, all(bool(r["kept"]) for r in event["reports"])


def press_of(message: Mapping[str, Any]) -> Press:
    """A message of a game record (L with ``level`` and ``kind``, or DAIDE ``press``) as counted.

    The record names the powers by their tokens (upper-cased: a server's store has them as L
    writes them, in lower case)."""
    sender = str(message["sender"]).upper()
    recipients = tuple(str(r).upper() for r in message["recipients"])
    if "press" not in message:
        return Press(f"L {message.get('level', '?')}", str(message.get("kind", "?")), sender, recipients)
    text = str(message["press"])
    try:
        value = parse_daide(text) if text.lstrip().startswith("SND") else parse_press(text)
    except DaideSyntaxError:
        return Press("DAIDE ?", text.split(maxsplit=1)[0].lower() if text.strip() else "?", sender, recipients)
    press = value.press if isinstance(value, dm.Snd) else value
    return Press(f"DAIDE {press_level(press, press=True)}", _daide_kind(press), sender, recipients)


def _daide_kind(press: Any) -> str:
    """The kind of DAIDE press in L's words where :mod:`protocol.bridge` has them, else its token."""
    if isinstance(press, str):
        return "text"
    if isinstance(press, dm.Fct | dm.Thk):
        content = press.content.content if isinstance(press.content, dm.Nar) else press.content
        return "answer" if isinstance(content, dm.Qry) else "inform"
    named = {
        dm.Prp: "propose",
        dm.Yes: "accept",
        dm.Rej: "reject",
        dm.Ccl: "withdraw",
        dm.Qry: "query",
        dm.Idk: "answer",
    }
    return named.get(type(press), type(press).__name__.lower())


def _database_sessions(path: Path) -> tuple[Session, ...]:
    """The finished games of a game server database, replayed, one session per setting."""
    try:
        with closing(_read_only_store(path)) as store:
            groups: dict[str, list[Game]] = {}
            settings: dict[str, dict[str, Any]] = {}
            for stored in store.games():
                if not stored.finished or (stored.result or {}).get("outcome") in ("cancelled", "unfinished"):
                    continue
                _standard_only(stored.settings, f"{path}: game {stored.id}")
                game = _database_game(store, stored.id, stored.settings, stored.created)
                if game is None:
                    continue
                key = json.dumps({k: v for k, v in stored.settings.items() if k != "name"}, sort_keys=True)
                settings.setdefault(key, {k: v for k, v in stored.settings.items() if k != "name"})
                groups.setdefault(key, []).append(game)
    except sqlite3.DatabaseError as error:
        raise ReportError(f"cannot read {path} as a game server database: {error}") from None
    if not groups:
        raise ReportError(f"{path} holds no finished game")
    players = tuple(PLAYERS.values())
    return tuple(
        Session(f"settings {i}", settings[key], "the seven powers", "power", tuple(games), _summary(games, players))
        for i, (key, games) in enumerate(groups.items(), 1)
    )


def _standard_only(settings: Mapping[str, Any], where: str) -> None:
    """Refuse in one line the games of a variant: the report's tables, charts and scores are the
    standard board's seven powers (the thesis's experiment)."""
    board = settings.get("map", "standard")
    if board != "standard":
        raise ReportError(f"{where} is played on the map {board}: detente report reads games of the standard map only")


def _read_only_store(path: Path) -> Store:
    """The store at ``path``, opened read-only: :meth:`Store.open` would create or migrate it."""
    try:
        return Store.open_read_only(path)
    except StoreError as error:
        raise ReportError(str(error)) from None


def _database_game(store: Store, game_id: str, settings: Mapping[str, Any], created: float) -> Game | None:
    """One finished game of the store, replayed; None for a game imported from a file (no seats,
    no start: it was never played here)."""
    events = store.events(game_id)
    if not any(e.kind == "join" for e in events):
        return None
    try:
        gm = GameMaster.replay(game_id, GameSettings.from_json(settings), created, events)
    except (ValidationError, ValueError, KeyError, TypeError) as error:
        raise ReportError(f"game {game_id} of the database cannot be replayed: {error}".splitlines()[0]) from None
    centres: list[tuple[str, Mapping[str, int]]] = [("start", Position.initial(MAP).center_counts)]
    found: Counter[tuple[str, str]] = Counter()
    eliminated: dict[str, str] = {}
    last_year = 1901
    for turned in gm.history:
        outcome = turned.adjudication
        if outcome is None:
            continue
        before, after = outcome.before, outcome.position
        last_year = before.phase.year
        centres.append((str(before.phase), after.center_counts))
        found.update(_attacks(before, turned.orders))
        for power in POWERS:
            if power not in eliminated and not after.units_of(power) and not after.center_counts[power]:
                eliminated[power] = str(before.phase)
    final = dict(gm.position.center_counts)
    scores = {s.power: s.to_json() for s in score_game(final, eliminated, PLAYERS)}
    winner = gm.position.winner
    name = str(settings.get("name") or "")
    return Game(
        label=game_id,
        ident=name,
        players=PLAYERS,
        outcome="solo" if winner is not None else "draw",
        winner=winner,
        last_year=last_year,
        scores=scores,
        centres=tuple(centres),
        attacks=found,
        press=tuple(press_of(e.payload) for e in events if e.kind == "press"),
        compliance=(),
        confirmed=None,
    )


# --- counting --------------------------------------------------------------------------------------


def _matrices(games: Sequence[Game]) -> dict[str, np.ndarray]:
    """The pairs of powers of a session: attacks, proposed, accepted, kept and reported (7 by 7)."""
    index = {power: i for i, power in enumerate(POWERS)}
    names = ("attacks", "proposed", "accepted", "kept", "reported")
    out = {name: np.zeros((len(POWERS), len(POWERS)), dtype=int) for name in names}
    for game in games:
        for (attacker, victim), count in game.attacks.items():
            out["attacks"][index[attacker], index[victim]] += count
        for press in game.press:
            cells = [(press.sender, r) for r in press.recipients]
            if press.kind == "propose":
                target = out["proposed"]
            elif press.kind == "accept":
                target, cells = out["accepted"], [(r, s) for s, r in cells]
            else:
                continue
            for row, column in cells:
                if row in index and column in index:
                    target[index[row], index[column]] += 1
        for parties, kept in game.compliance:
            for p in parties & index.keys():
                for q in parties & index.keys() - {p}:
                    out["reported"][index[p], index[q]] += 1
                    out["kept"][index[p], index[q]] += kept
    return out


def _press_counts(games: Sequence[Game]) -> tuple[Counter[str], Counter[str]]:
    """The press of a session counted by level and by kind."""
    levels: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    for game in games:
        for press in game.press:
            levels[press.level] += 1
            kinds[press.kind] += 1
    return levels, kinds


def _level_key(label: str) -> tuple[int, int]:
    """L levels before DAIDE levels, each in numeric order; unknown levels last."""
    language, _, number = label.partition(" ")
    return (0 if language == "L" else 1, int(number) if number.isdigit() else 10**6)


def _kind_key(kind: str) -> tuple[int, str]:
    """L's kinds in the order of the language's definition, then any others by name."""
    return (L_KINDS.index(kind) if kind in L_KINDS else len(L_KINDS), kind)


# --- charts ----------------------------------------------------------------------------------------


def _chart(width: float, height: float, salt: str, draw: Callable[[Figure], None]) -> str:
    """A figure drawn by ``draw`` as an ``<svg>`` element to inline: no XML prolog, no DOCTYPE, no metadata.

    The figure is made without pyplot (no global state, no display, whatever the backend). Text
    stays text (``svg.fonttype`` none: small files, the browser's fonts); ``salt`` makes the ids
    that matplotlib derives for markers and clip paths unique on the page, and the same from one
    report to the next.
    """
    with matplotlib.rc_context(
        {
            "svg.fonttype": "none",
            "svg.hashsalt": salt,
            "font.size": 9,
            "font.sans-serif": ["DejaVu Sans"],  # the long default list would be written into every text
            "axes.spines.top": False,
            "axes.spines.right": False,
        }
    ):
        figure = Figure(figsize=(width, height), layout="constrained")
        draw(figure)
        buffer = io.StringIO()
        figure.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None, "Format": None, "Type": None})
    text = buffer.getvalue()
    return text[text.index("<svg") :].strip()


def _figure(width: float, height: float, salt: str, draw: Callable[[Figure], None]) -> str:
    """A chart as a ``<figure>`` of the page."""
    return f"<figure>{_chart(width, height, salt, draw)}</figure>"


def _categories(ax: Axes, names: Sequence[str]) -> None:
    """Tilt the names under bars when there are many, so that they do not run into each other."""
    ax.tick_params(axis="x", labelrotation=25 if len(names) > 4 else 0)


def _draw_bots(figure: Figure, table: Sequence[BotSummary], role: str) -> None:
    """Each bot's mean centres with its standard error, and its win %."""
    centres_ax, wins_ax = figure.subplots(1, 2, width_ratios=(3, 2))
    names = [row.bot for row in table]
    means = [row.mean_centres for row in table]
    colours = [PLAYER_COLOURS.get(name, "#5b7fa6") for name in names]
    errors = [row.se_centres or 0.0 for row in table]
    bars = centres_ax.bar(names, means, yerr=errors, capsize=4, color=colours, edgecolor="#333333", linewidth=0.5)
    centres_ax.bar_label(bars, labels=[f"{m:.2f}" for m in means], padding=2, fontsize=8)
    centres_ax.set_ylabel("mean supply centres (± SE)")
    centres_ax.set_xlabel(role)
    wins_ax.bar(names, [100 * row.win_rate for row in table], color=colours, edgecolor="#333333", linewidth=0.5)
    wins_ax.set_ylabel("win % (a shared win split)")
    wins_ax.set_xlabel(role)
    for ax in (centres_ax, wins_ax):
        _categories(ax, names)


def _draw_sessions(figure: Figure, sessions: Sequence[Session]) -> None:
    """Each bot's mean centres (± SE) in each session, grouped by session."""
    tables = [{row.bot: row for row in session.table} for session in sessions]
    bots = list(dict.fromkeys(name for table in tables for name in table))
    ax = figure.subplots()
    width = 0.8 / len(bots)
    for i, bot in enumerate(bots):
        xs = [s + (i - (len(bots) - 1) / 2) * width for s, table in enumerate(tables) if bot in table]
        rows = [table[bot] for table in tables if bot in table]
        errors = [r.se_centres or 0.0 for r in rows]
        colour = PLAYER_COLOURS.get(bot)
        ax.bar(xs, [r.mean_centres for r in rows], width, yerr=errors, capsize=3, label=bot, color=colour)
    names = [s.name for s in sessions]
    ax.set_xticks(range(len(sessions)), names)
    _categories(ax, names)
    ax.set_ylabel("mean supply centres (± SE)")
    ax.legend(fontsize=8, ncols=min(len(bots), 4), frameon=False)


PANELS = (
    ("attacks", "attacks (row attacks column)", "Reds"),
    ("proposed", "deals proposed (row to column)", "Blues"),
    ("accepted", "deals accepted (column accepts row's)", "Greens"),
    ("kept", "deals kept / reported (between the two)", "Purples"),
)


def _draw_pairs(figure: Figure, matrices: Mapping[str, np.ndarray]) -> None:
    """The four heatmaps of the pairs of powers."""
    for ax, (name, title, colours) in zip(figure.subplots(2, 2).flat, PANELS, strict=True):
        matrix = matrices[name]
        if name == "kept":
            reported = matrices["reported"]
            labels = [
                [f"{k}/{n}" if n else "" for k, n in zip(*rows, strict=True)]
                for rows in zip(matrix, reported, strict=True)
            ]
        else:
            labels = [[str(n) if n else "" for n in row] for row in matrix]
        _heatmap(ax, matrix, labels, colours)
        ax.set_title(title, fontsize=9)


def _heatmap(ax: Axes, matrix: np.ndarray, labels: Sequence[Sequence[str]], colours: str) -> None:
    """One 7-by-7 heatmap with each cell's label written in it."""
    top = max(int(matrix.max()), 1)
    # unsampled: a 7-by-7 image that the browser scales up, pixelated (a few hundred bytes)
    ax.imshow(matrix, cmap=colours, vmin=0, vmax=top, interpolation="none")
    ax.set_xticks(range(len(POWERS)), POWERS, fontsize=8)
    ax.set_yticks(range(len(POWERS)), POWERS, fontsize=8)
    ax.tick_params(length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)
    for row, texts in enumerate(labels):
        for column, text in enumerate(texts):
            if text:
                colour = "white" if matrix[row, column] > top * 0.6 else "black"
                ax.text(column, row, text, ha="center", va="center", fontsize=7, color=colour)


def _draw_press(figure: Figure, levels: Counter[str], kinds: Counter[str]) -> None:
    """Press counted by level and by kind."""
    panels = (
        ("level", levels, sorted(levels, key=_level_key)),
        ("kind", kinds, sorted(kinds, key=_kind_key)),
    )
    for ax, (title, counts, names) in zip(figure.subplots(1, 2), panels, strict=True):
        bars = ax.bar(names, [counts[n] for n in names], color="#6c8ebf", edgecolor="#333333", linewidth=0.5)
        ax.bar_label(bars, padding=2, fontsize=8)
        ax.set_title(f"messages by {title}", fontsize=9)
        _categories(ax, names)


def _draw_centres(figure: Figure, game: Game) -> None:
    """Each power's supply centres after each phase of one game, in the powers' colours.

    The lines are moved apart by a tenth of a centre at most, so that powers with as many
    centres as each other all show.
    """
    ax = figure.subplots()
    phases = [phase for phase, _ in game.centres]
    for i, power in enumerate(POWERS):
        shift = (i - (len(POWERS) - 1) / 2) * 0.2 / len(POWERS)
        counts = [centres.get(power, 0) + shift for _, centres in game.centres]
        full = FULL[power]
        player = game.players.get(power, full)
        name = full if player == full else f"{full} ({player})"
        ax.step(range(len(phases)), counts, where="post", color=COLOURS[power], label=name, lw=1.5)
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ticks = list(range(0, len(phases), max(1, len(phases) // 14)))
    ax.set_xticks(ticks, [phases[i] for i in ticks], fontsize=7, rotation=45, ha="right")
    ax.set_ylabel("supply centres")
    ax.set_xlabel("after the phase")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)


# --- the page --------------------------------------------------------------------------------------

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 64em; padding: 0 1em; color: #222; }
h1 { font-size: 1.6em; } h2 { margin-top: 2em; border-bottom: 1px solid #ccc; } h3 { margin-top: 1.5em; }
table { border-collapse: collapse; margin: 0.5em 0; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.6em; } td.n { text-align: right; font-variant-numeric: tabular-nums; }
th { background: #f0f3f6; } figure { margin: 0.5em 0; } svg { max-width: 100%; height: auto; }
.note { color: #555; font-size: 0.9em; }
"""


PAIRS_NOTE = (
    "Over every game of the session. Attacks: moves, supports and convoys into a unit or supply centre of the"
    " column's power. Proposed: proposals from the row's power to the column's. Accepted: acceptances by the"
    " column's power of the row's proposals. Kept: deals between the two kept by every party in a phase, of those"
    " reported on."
)
DATABASE_NOTE = (
    " A game server's database holds the DAIDE press (and the L relayed as DAIDE) but no compliance reports: the"
    " negotiation server keeps those."
)


def _e(value: object) -> str:
    """Text for the page: names of directories, bots and games come from outside."""
    return html.escape(str(value))


def _table(header: Sequence[str], rows: Iterable[Sequence[object]], numeric: Iterable[int] = ()) -> str:
    """An HTML table; the columns ``numeric`` are aligned right, so that digits line up."""
    right = set(numeric)
    head = "".join(f"<th>{_e(h)}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f"<td{' class=n' if i in right else ''}>{_e(c)}</td>" for i, c in enumerate(row)) + "</tr>"
        for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _count(number: int, noun: str) -> str:
    """``1 game``, ``2 games``."""
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def _settings_text(settings: Mapping[str, Any]) -> str:
    """Settings on one line, values as JSON (so that strings and nulls read as such)."""
    return ", ".join(f"{k} {json.dumps(v)}" for k, v in settings.items())


def render(experiment: Experiment, games_shown: int = 4, title: str | None = None) -> str:
    """The HTML page of ``experiment``, with the centres of the first ``games_shown`` games of each session drawn."""
    heading = title or f"détente report: {experiment.source}"
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{_e(heading)}</title><style>{STYLE}</style></head><body>",
        f"<h1>{_e(heading)}</h1>",
        _overview(experiment),
    ]
    if experiment.tournament is not None:
        parts.append(_tournament_section(experiment.tournament))
    if (thesis := thesis_section(experiment.sessions)) is not None:
        parts.append(thesis)
    for number, session in enumerate(experiment.sessions, 1):
        parts.append(_session_section(session, number, games_shown))
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _overview(experiment: Experiment) -> str:
    """The experiment: its sessions with their settings and results, and a chart comparing them."""
    sessions = experiment.sessions
    games = sum(len(s.games) for s in sessions)
    phases = sum(len(g.centres) - 1 for s in sessions for g in s.games)
    press = sum(len(g.press) for s in sessions for g in s.games)
    rows = []
    for session in sessions:
        solos = sum(1 for g in session.games if g.outcome == "solo")
        rows.append(
            (
                session.name,
                len(session.games),
                solos,
                len(session.games) - solos,
                session.lineup,
                _settings_text(session.settings),
            )
        )
    links = " · ".join(f'<a href="#session-{n}">{_e(s.name)}</a>' for n, s in enumerate(sessions, 1))
    out = [
        '<section id="experiment"><h2>Experiment</h2>',
        f"<p>{_count(len(sessions), 'session')}, {_count(games, 'game')}, {_count(phases, 'phase')} played,"
        f" {_count(press, 'press message')}. "
        f"Sessions: {links}</p>",
        _table(("session", "games", "solos", "draws", "players", "settings"), rows, numeric=(1, 2, 3)),
    ]
    if len(sessions) > 1:
        out.append(_figure(8.0, 3.2, "experiment", lambda f: _draw_sessions(f, sessions)))
    out.append("</section>")
    return "\n".join(out)


def _session_section(session: Session, number: int, games_shown: int) -> str:
    """One session: settings, the table per bot, pairs of powers, press, games."""
    salt = f"session-{number}"
    table = session.table
    matrices = _matrices(session.games)
    rows = [
        (
            row.bot,
            row.plays,
            f"{row.mean_centres:.2f}",
            "-" if row.se_centres is None else f"{row.se_centres:.2f}",
            f"{row.wins:.2f}",
            f"{100 * row.win_rate:.1f}",
            f"{row.mean_rank:.2f}",
        )
        for row in table
    ]
    out = [
        f'<section id="{salt}"><h2>Session {number}: {_e(session.name)}</h2>',
        f'<p class="note">Settings: {_e(_settings_text(session.settings))}</p>',
        f"<h3>Per {session.role}</h3>",
        _table(
            (session.role, "plays", "mean centres", "± SE", "wins", "win %", "mean rank"),
            rows,
            numeric=range(1, 7),
        ),
        _figure(7.5, 3.0, f"{salt}-bots", lambda f: _draw_bots(f, table, session.role)),
        _systems_part(session),
        _model_seats_part(session),
        "<h3>Pairs of powers</h3>",
        f'<p class="note">{PAIRS_NOTE}{DATABASE_NOTE if session.role == "power" else ""}</p>',
        _figure(8.0, 7.4, f"{salt}-pairs", lambda f: _draw_pairs(f, matrices)),
        "<h3>Press</h3>",
    ]
    levels, kinds = _press_counts(session.games)
    if levels:
        out.append(_figure(8.0, 2.8, f"{salt}-press", lambda f: _draw_press(f, levels, kinds)))
    else:
        out.append('<p class="note">No press in these games.</p>')
    out.append(_games_part(session, salt, games_shown))
    out.append("</section>")
    return "\n".join(out)


# --- scoring systems and tournaments (detente.scoring, detente.tournament) -------------------------

SYSTEMS_NOTE = (
    "Each {role}'s mean score per game under each scoring system, with its 95 % interval (Student's t over"
    " games; a {role} in several seats of a game counts once, its seats averaged). Draw-size: a solo scores 1,"
    " else each survivor 1/n. Sum of squares: centres² / Σ centres², a solo 1. Rank: 1 (best) to 7. Win: the"
    " most centres, a tie split. The ± SE of the table above are over games too."
)
TOURNAMENT_NOTE = (
    "Every set-up is a session below, played with the same seed and balanced seats, so that game n of two"
    " set-ups that differ in their lone bot alone pairs: the same seed, the same powers, the same field."
)
RATINGS_NOTE = (
    "OpenSkill, Plackett-Luce: each game a match between the bots in it, ranked by the mean rank of their seats"
    " (equal means tie); ordinal = mu − 3 sigma, the order of the table."
)
LONE_NOTE = (
    "Each bot alone against six of another, over all its fields: the mean score of its seat per game, with the"
    " 95 % interval."
)
CROSS_NOTE = (
    "The lone bot (row) against a field of six of the column's bot: the mean {system} of the lone seat per game,"
    " with the 95 % interval (1v6 and 6v1 averaged per game)."
)
PAIRED_NOTE = (
    "Two bots alone against the same field on the same seeds: a's score minus b's, game by game (the set-ups of"
    " both kinds averaged per game), its mean, 95 % interval and two-sided p (paired t-test)."
)


MODEL_SEATS_NOTE = (
    "Each model seat (llm:...) over its games: the calls it made, the tokens the endpoint counted (or estimated at"
    " four bytes a token where it counted none), the dollars of the price table, the latency of its calls, the"
    " answers sent back for repair, and the orders its fallback bot played (invalid, missing or late)."
)
DIPLOMACY_NOTE = (
    "Read from the records, not from what any bot says: L proposals and acceptances sent, deals the notary"
    " confirmed with the bot as a party, and the bot's parts of them kept or broken as the compliance reports"
    " found after each phase (a confirmed commitment broken is a lie in the mechanical sense). Per game, mean ±"
    " SE over games, a bot's seats in one game averaged; the broken share over the games with a part to keep."
)


def _model_seats_part(session: Session) -> str:
    """The model seats' usage and every bot's verifiable diplomacy, where there is any."""
    out = []
    if session.model_seats:
        rows = [
            (
                r["seat"],
                r["calls"],
                r["input_tokens"],
                r["output_tokens"],
                f"{r['dollars']:.4f}",
                "-" if r["latency_p50"] is None else f"{1000 * r['latency_p50']:.0f}",
                "-" if r["latency_p99"] is None else f"{1000 * r['latency_p99']:.0f}",
                r["repairs"],
                r["orders_by_fallback"],
                r["exhausted"],
            )
            for r in session.model_seats
        ]
        out += [
            "<h3>Model seats</h3>",
            f'<p class="note">{_e(MODEL_SEATS_NOTE)}</p>',
            _table(
                (
                    "seat",
                    "calls",
                    "tokens in",
                    "tokens out",
                    "dollars",
                    "p50 ms",
                    "p99 ms",
                    "repairs",
                    "fallback orders",
                    "seats out of budget",
                ),
                rows,
                numeric=range(1, 10),
            ),
        ]
    if any(sum(row["totals"].values()) for row in session.diplomacy):
        rows = [
            (
                r["bot"],
                r["games"],
                *(estimate_text(r["per_game"][m]) for m in MEASURES),
                estimate_text(r["broken_share"]),
            )
            for r in session.diplomacy
        ]
        out += [
            "<h3>Verifiable diplomacy</h3>",
            f'<p class="note">{_e(DIPLOMACY_NOTE)}</p>',
            _table(("bot", "games", *MEASURES, "broken share"), rows, numeric=range(1, 8)),
        ]
    return "\n".join(out)


def _systems_part(session: Session) -> str:
    """The table of the scoring systems of a session: one row a system, one column a bot (or power)."""
    games = [{"outcome": g.outcome, "winner": g.winner, "scores": g.scores} for g in session.games]
    table = system_table(games, [row.bot for row in session.table])
    names = list(table)
    rows = [(system, *(interval_text(table[name][system], DIGITS[system]) for name in names)) for system in SYSTEMS]
    return "\n".join(
        [
            "<h3>Scoring systems</h3>",
            f'<p class="note">{_e(SYSTEMS_NOTE.format(role=session.role))}</p>',
            _table(("scoring system", *names), rows, numeric=range(1, len(names) + 1)),
        ]
    )


def _tournament_section(analysis: Analysis) -> str:
    """A tournament: its set-ups, ratings, scores of the lone seat, cross-play matrix and paired comparisons."""
    d = analysis.description
    system = str(d.get("score", "sum-of-squares"))
    digits = DIGITS[system]
    intro = (
        f"Bots: {', '.join(d['bots'])}; fields: {', '.join(d['opponents'])}; set-ups {', '.join(d['kinds'])};"
        f" {_count(int(d['games']), 'game')} a set-up, seed {d['seed']}."
    )
    out = [
        '<section id="tournament"><h2>Tournament</h2>',
        f"<p>{_e(intro)} {_e(TOURNAMENT_NOTE)}</p>",
        "<h3>Ratings</h3>",
        f'<p class="note">{_e(RATINGS_NOTE)}</p>',
        _table(
            ("rated bot", "mu", "sigma", "ordinal", "games"),
            [(r.bot, f"{r.mu:.2f}", f"{r.sigma:.2f}", f"{r.ordinal:.2f}", r.games) for r in analysis.ratings],
            numeric=range(1, 5),
        ),
        "<h3>Scores of the lone seat</h3>",
        f'<p class="note">{_e(LONE_NOTE)}</p>',
        _table(
            ("lone bot", "games", *SYSTEMS),
            [
                (bot, next(iter(systems.values())).n, *(interval_text(systems[s], DIGITS[s]) for s in SYSTEMS))
                for bot, systems in analysis.lone.items()
            ],
            numeric=range(1, len(SYSTEMS) + 2),
        ),
        f"<h3>Cross-play: {_e(system)}</h3>",
        f'<p class="note">{_e(CROSS_NOTE.format(system=system))}</p>',
        _table(
            ("lone \\ field", *analysis.columns),
            [
                (
                    row,
                    *(
                        interval_text(analysis.cross[row, column][system], digits)
                        if (row, column) in analysis.cross
                        else ""
                        for column in analysis.columns
                    ),
                )
                for row in analysis.rows
            ],
            numeric=range(1, len(analysis.columns) + 1),
        ),
        _figure(
            2.2 + 1.3 * len(analysis.columns),
            1.4 + 0.6 * len(analysis.rows),
            "tournament-cross",
            lambda f: _draw_cross(f, analysis, system),
        ),
        f"<h3>Paired comparisons: {_e(system)}</h3>",
    ]
    if analysis.pairs:
        rows = []
        for pair in analysis.pairs:
            c = pair.comparisons[system]
            if c is None:
                rows.append((pair.field, pair.a, pair.b, ", ".join(pair.kinds), "< 2", "", "", ""))
                continue
            diff = c.difference
            rows.append(
                (
                    pair.field,
                    pair.a,
                    pair.b,
                    ", ".join(pair.kinds),
                    diff.n,
                    f"{diff.mean:+.{digits}f}",
                    f"[{diff.low:+.{digits}f}, {diff.high:+.{digits}f}]",
                    f"{c.p:.3g}",
                )
            )
        out.append(f'<p class="note">{_e(PAIRED_NOTE)}</p>')
        out.append(_table(("field", "a", "b", "set-ups", "games", "a − b", "95 % interval", "p"), rows, (4, 5, 6, 7)))
    else:
        out.append('<p class="note">None: no two bots faced the same field (it takes three bots).</p>')
    out.append("</section>")
    return "\n".join(out)


def _draw_cross(figure: Figure, analysis: Analysis, system: str) -> None:
    """The cross-play matrix as a heatmap, each cell labelled with its mean (blank: no set-up)."""
    rows, columns = analysis.rows, analysis.columns
    matrix = np.full((len(rows), len(columns)), np.nan)
    for i, row in enumerate(rows):
        for j, column in enumerate(columns):
            if (row, column) in analysis.cross:
                matrix[i, j] = analysis.cross[row, column][system].mean
    ax = figure.subplots()
    image = ax.imshow(matrix, cmap="viridis" if HIGHER_IS_BETTER[system] else "viridis_r", interpolation="none")
    figure.colorbar(image, ax=ax, label=system, shrink=0.9)
    ax.set_xticks(range(len(columns)), columns, fontsize=8)
    ax.set_yticks(range(len(rows)), rows, fontsize=8)
    ax.set_xlabel("field (six of)")
    ax.set_ylabel("lone bot")
    _categories(ax, columns)
    ax.tick_params(length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)
    finite = matrix[np.isfinite(matrix)]
    middle = (finite.min() + finite.max()) / 2 if finite.size else 0.0
    for i in range(len(rows)):
        for j in range(len(columns)):
            if np.isfinite(matrix[i, j]):
                dark = (matrix[i, j] < middle) == HIGHER_IS_BETTER[system]
                label = f"{matrix[i, j]:.{DIGITS[system]}f}"
                ax.text(j, i, label, ha="center", va="center", fontsize=8, color="white" if dark else "black")


def _games_part(session: Session, salt: str, games_shown: int) -> str:
    """The table of every game of a session, and the centres of the first ``games_shown``."""
    rows = [
        (
            game.label,
            game.ident,
            game.outcome,
            "-" if game.winner is None else FULL[game.winner],
            game.last_year,
            len(game.centres) - 1,
            len(game.press),
            "-" if game.confirmed is None else game.confirmed,
        )
        for game in session.games
    ]
    header = ("game", "seed" if session.role == "bot" else "name", "outcome", "winner", "last year", "phases")
    out = ["<h3>Games</h3>", _table((*header, "messages", "deals confirmed"), rows, numeric=(4, 5, 6, 7))]
    shown = session.games[:games_shown]
    if not shown:
        out.append('<p class="note">No game\'s supply centres are drawn (--games-shown 0).</p>')
    elif len(shown) < len(session.games):
        out.append(f'<p class="note">The supply centres of the first {len(shown)} of {len(session.games)} games.</p>')
    for i, game in enumerate(shown, 1):
        ident = f"{header[1]} {game.ident}" if game.ident else ""
        result = game.outcome if game.winner is None else f"{game.outcome} of {FULL[game.winner]}"
        out.append(f'<h4 id="{salt}-game-{i}">{_e(game.label)} ({_e(ident)}): {_e(result)}</h4>')
        out.append(_figure(8.0, 3.0, f"{salt}-game-{i}", partial(_draw_centres, game=game)))
    return "\n".join(out)

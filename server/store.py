"""The game server's append-only store: games and their events in one SQLite file.

Every accepted message and every phase result is appended here *before* the server
acknowledges it, so that a server killed at any moment (SIGKILL included) starts again
with everything it ever acknowledged. Two choices make that hold:

- WAL journal mode: a commit appends to the write-ahead log instead of rewriting pages,
  and readers (a second connection, a backup) never block the writer nor see a half
  written transaction.
- ``synchronous=FULL``: each commit is fsynced before :meth:`Store.append` returns, so an
  acknowledged append survives not only the process being killed but the machine losing
  power.

The store is synchronous and small on purpose. A short write in WAL mode is one append to
the log and one fsync, well under a millisecond to a few milliseconds on the SSDs we run on,
so at our scale (a hundred games, a few events per second each) the asyncio server may call
it directly from the event-loop thread. It may equally call it from worker threads
(``asyncio.to_thread``): one connection is shared behind a lock.

A server runs for months, so the file outlives the code that wrote it: the schema has a
version (:data:`SCHEMA_VERSION`, in ``user_version``), and :meth:`Store.open` runs the
:data:`MIGRATIONS` after the file's version, one transaction each, so a new server opens
every older store and an old server refuses a newer one. Appends are the only writes but
two: :meth:`Store.delete_game` (retention, :mod:`server.retention`) and the quarantine of
records that cannot be replayed. The file as a whole is checked, backed up and restored by
:func:`inspect_file`, :func:`backup_file` and :func:`restore_file` (``detente store``).

>>> store = Store.open(":memory:")
>>> store.create_game("g1", {"press_level": 0})
>>> store.append("g1", "SUB", {"power": "ENGLAND", "orders": ["F LON H"]}, at=1.0)
1
>>> store.append_many("g1", [NewEvent("THX", {"order": "F LON H"}, 1.0), NewEvent("NOW", {}, 2.0)])
[2, 3]
>>> [(e.seq, e.kind) for e in store.events("g1", after_seq=1)]
[(2, 'THX'), (3, 'NOW')]
>>> store.finish("g1", {"outcome": "draw"}, at=3.0)
>>> store.games(unfinished_only=True)
[]
>>> store.finished_games()
[FinishedGame(id='g1', finished_at=3.0)]
>>> store.quarantine("g1", 2, "ValueError: no such order", at=4.0)
>>> store.quarantined()
[Quarantined(game_id='g1', seq=2, reason='ValueError: no such order', at=4.0)]
>>> store.delete_game("g1")
3
>>> store.counts()
Counts(games=0, finished=0, events=0, quarantined=0)
>>> store.close()
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import sqlite3
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, NamedTuple, Self

SCHEMA_VERSION = 2
"""Kept in SQLite's ``user_version``. An older file is migrated forward on open (see
:data:`MIGRATIONS`); a newer one is refused, not guessed at."""


@dataclass(frozen=True, slots=True)
class Migration:
    """One step of the schema, from ``version - 1`` to ``version``, applied in one transaction.

    Steps are only ever appended: a file of any earlier version reaches the current one by
    running the steps after its own in order, and a step that fails leaves the file at the
    version it had (its transaction rolls back, ``user_version`` included).
    """

    version: int
    why: str
    statements: tuple[str, ...]


MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1,
        "the first schema: games, their append-only events, server-wide values. IF NOT EXISTS "
        "also adopts a file of version 0 that already has the tables",
        (
            """CREATE TABLE IF NOT EXISTS games (
                id        TEXT PRIMARY KEY,
                settings  TEXT NOT NULL,             -- JSON object
                created   REAL NOT NULL,             -- seconds since the epoch
                finished  INTEGER NOT NULL DEFAULT 0,
                result    TEXT,                      -- JSON object once finished
                finished_at REAL
            )""",
            """CREATE TABLE IF NOT EXISTS events (
                game_id   TEXT NOT NULL REFERENCES games(id),
                seq       INTEGER NOT NULL,
                kind      TEXT NOT NULL,
                payload   TEXT NOT NULL,             -- JSON object
                at        REAL NOT NULL,
                PRIMARY KEY (game_id, seq)
            ) WITHOUT ROWID""",
            """CREATE TABLE IF NOT EXISTS meta (
                key       TEXT PRIMARY KEY,
                value     TEXT NOT NULL
            )""",
        ),
    ),
    Migration(
        2,
        "retention finds the finished games by age without reading every row; records that "
        "cannot be replayed are kept aside with the reason instead of stopping a restart",
        (
            "CREATE INDEX IF NOT EXISTS games_by_finish ON games (finished, finished_at)",
            """CREATE TABLE IF NOT EXISTS quarantine (
                game_id   TEXT NOT NULL,             -- no foreign key: a reason outlives nothing it names
                seq       INTEGER NOT NULL,
                reason    TEXT NOT NULL,
                at        REAL NOT NULL,             -- when first quarantined
                PRIMARY KEY (game_id, seq)
            ) WITHOUT ROWID""",
        ),
    ),
)
assert [m.version for m in MIGRATIONS] == list(range(1, SCHEMA_VERSION + 1)), "one step per version, in order"

TABLES = ("games", "events", "meta")
"""The tables every version has: a file without them is not a store."""


class StoreError(Exception):
    """Anything the store refuses: a bad payload, an unknown game, an unusable file."""


class SchemaVersionError(StoreError):
    """The file was written by another version of the store."""


class UnknownGameError(StoreError):
    """No game has this id."""


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """One event of a game as it was appended.

    ``payload`` went through JSON: tuples come back as lists.
    """

    game_id: str
    seq: int
    kind: str
    payload: dict[str, Any]
    at: float


@dataclass(frozen=True, slots=True)
class StoredGame:
    """One game's row: its settings, and its result once finished."""

    id: str
    settings: dict[str, Any]
    created: float
    finished: bool
    result: dict[str, Any] | None
    finished_at: float | None


@dataclass(frozen=True, slots=True)
class FinishedGame:
    """What retention needs to know of a finished game: which one, and when it ended."""

    id: str
    finished_at: float | None


@dataclass(frozen=True, slots=True)
class Quarantined:
    """A stored record that could not be replayed, kept aside with the reason."""

    game_id: str
    seq: int
    reason: str
    at: float


@dataclass(frozen=True, slots=True)
class Counts:
    """How much a store holds, for ``detente store check`` and the logs."""

    games: int
    finished: int
    events: int
    quarantined: int


class NewEvent(NamedTuple):
    """An event to append with :meth:`Store.append_many`."""

    kind: str
    payload: Mapping[str, Any]
    at: float


def _to_json(value: Mapping[str, Any], what: str) -> str:
    """``value`` as compact JSON, or a :class:`StoreError` that says what was wrong.

    NaN and infinities are refused: they are not JSON, and other readers of the file
    (the negotiation server, tools) would choke on them.
    """
    if not isinstance(value, Mapping):
        raise StoreError(f"{what} must be a JSON object (a dict), not {type(value).__name__}")
    try:
        return json.dumps(value, separators=(",", ":"), allow_nan=False, ensure_ascii=False)
    except (TypeError, ValueError) as exc:
        raise StoreError(f"{what} is not JSON-serialisable: {exc}") from exc


class Store:
    """An append-only SQLite store of games, their events and server-wide values.

    Open it with :meth:`Store.open`; it is a context manager that closes itself.
    All methods are thread-safe (one connection behind a lock) and every write is
    committed and fsynced before the method returns.
    """

    def __init__(self, connection: sqlite3.Connection, path: str) -> None:
        """Wrap an open connection; use :meth:`Store.open` instead."""
        self._db = connection
        self._lock = threading.RLock()
        self.path = path
        #: The schema version the file had when opened, if :meth:`open` migrated it (for the log).
        self.migrated_from: int | None = None

    # --- opening and closing ------------------------------------------------------------

    @classmethod
    def open(cls, path: str | Path) -> Store:
        """Open (or create) the store at ``path``; creating the schema is idempotent.

        The parent directory is made if missing, since the default path lies in a data
        directory that a first run has not made yet. ``":memory:"`` gives a private
        in-memory store (no WAL, no durability) for tests and doctests.

        Raises :class:`SchemaVersionError` for a file of another schema version and
        :class:`StoreError` for a file that is not an SQLite database.
        """
        name = str(path)
        if name != ":memory:":
            Path(name).parent.mkdir(parents=True, exist_ok=True)
        # isolation_level=None: no implicit transactions; we say BEGIN IMMEDIATE ourselves
        # so that the write lock is taken up front and a commit is exactly one fsync.
        # check_same_thread=False: the asyncio server may call us from worker threads; the
        # lock in Store serialises the calls.
        connection = sqlite3.connect(name, isolation_level=None, check_same_thread=False, timeout=10.0)
        try:
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=FULL")
            connection.execute("PRAGMA foreign_keys=ON")
            store = cls(connection, name)
            store._migrate()
        except sqlite3.DatabaseError as exc:
            connection.close()
            raise StoreError(f"cannot use {name} as the game store: {exc}") from exc
        except StoreError:
            connection.close()
            raise
        return store

    @classmethod
    def open_read_only(cls, path: str | Path) -> Store:
        """Open an existing store to read it only (reports, tools): nothing is created,
        written or migrated.

        Every version up to :data:`SCHEMA_VERSION` is read, since the games and events have
        the same columns in all of them (a version-1 file has no quarantine: ask
        :meth:`counts`, not :meth:`quarantined`). A newer file raises
        :class:`SchemaVersionError`.
        """
        name = str(path)
        if not Path(name).is_file():
            raise StoreError(f"no store at {name}")
        connection = sqlite3.connect(
            f"{Path(name).resolve().as_uri()}?mode=ro", uri=True, isolation_level=None, check_same_thread=False
        )
        try:
            version = _user_version(connection)
            if version > SCHEMA_VERSION:
                raise SchemaVersionError(
                    f"{name} has store schema version {version}, newer than this détente's {SCHEMA_VERSION}"
                )
            if not set(TABLES) <= _tables(connection):
                raise StoreError(f"{name} is not a détente store")
        except sqlite3.DatabaseError as exc:
            connection.close()
            raise StoreError(f"cannot read {name} as a store: {exc}") from exc
        except StoreError:
            connection.close()
            raise
        return cls(connection, name)

    def _migrate(self) -> None:
        """Bring the file to :data:`SCHEMA_VERSION`, one step (one transaction) at a time.

        Each step re-reads the version inside its transaction, so two processes opening
        the same old file at once migrate it once. A newer file is refused before anything
        is written: an older server must not write into a schema it does not know.
        """
        while True:
            with self._transaction() as db:
                version = _user_version(db)
                if version > SCHEMA_VERSION:
                    raise SchemaVersionError(
                        f"{self.path} has store schema version {version}, newer than this détente's "
                        f"{SCHEMA_VERSION}: upgrade détente, or restore a backup made by this version"
                    )
                if version == SCHEMA_VERSION:
                    return
                if version == 0:
                    foreign = sorted(_tables(db) - set(TABLES))
                    if foreign:
                        raise StoreError(f"{self.path} is not a détente store: it has the tables {', '.join(foreign)}")
                step = MIGRATIONS[version]
                for statement in step.statements:
                    db.execute(statement)
                db.execute(f"PRAGMA user_version={step.version}")
                if self.migrated_from is None:
                    self.migrated_from = version

    def close(self) -> None:
        """Close the connection; closing twice is harmless."""
        with self._lock:
            self._db.close()

    def rescue(self) -> None:
        """Put the store's file back after it was deleted under the running server.

        SQLite keeps the deleted file open and would go on writing into it, where nobody
        could read it again: the server stops writing (see ``server.health``), and this writes
        the database the open connection still holds to a temporary file beside the path
        (fsynced, checked), renames it into place and reopens on it. A path that holds
        another file is not touched (:class:`StoreError`)."""
        path = Path(self.path)
        if path.exists():
            raise StoreError(f"{path} holds a file: it is not replaced by the one this server has open")
        with self._lock:
            tmp = _temporary(path)
            try:
                _copy(self._db, tmp)
                _fsync(tmp)
                os.replace(tmp, path)
                _fsync_directory(path.parent)
            except (OSError, sqlite3.DatabaseError) as exc:
                tmp.unlink(missing_ok=True)
                raise StoreError(f"cannot write {path} back: {exc}") from exc
            connection = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False, timeout=10.0)
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=FULL")
            connection.execute("PRAGMA foreign_keys=ON")
            old, self._db = self._db, connection
            old.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction under the lock, committed (and fsynced) on leaving."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    # --- games --------------------------------------------------------------------------

    def create_game(self, game_id: str, settings: Mapping[str, Any], created: float | None = None) -> None:
        """Record a new game with its settings; an id already used raises :class:`StoreError`."""
        text = _to_json(settings, f"the settings of game {game_id!r}")
        with self._transaction() as db:
            try:
                db.execute(
                    "INSERT INTO games (id, settings, created) VALUES (?, ?, ?)",
                    (game_id, text, time.time() if created is None else created),
                )
            except sqlite3.IntegrityError as exc:
                raise StoreError(f"a game with id {game_id!r} already exists") from exc

    def finish(self, game_id: str, result: Mapping[str, Any], at: float | None = None) -> None:
        """Mark a game finished with its result; it no longer counts as unfinished.

        A game is finished once: finishing it again raises :class:`StoreError`.
        """
        text = _to_json(result, f"the result of game {game_id!r}")
        with self._transaction() as db:
            row = db.execute("SELECT finished FROM games WHERE id = ?", (game_id,)).fetchone()
            if row is None:
                raise UnknownGameError(f"no game {game_id!r}")
            if row[0]:
                raise StoreError(f"game {game_id!r} is already finished")
            db.execute(
                "UPDATE games SET finished = 1, result = ?, finished_at = ? WHERE id = ?",
                (text, time.time() if at is None else at, game_id),
            )

    def add_finished_game(
        self,
        game_id: str,
        settings: Mapping[str, Any],
        events: Iterable[NewEvent | tuple[str, Mapping[str, Any], float]],
        result: Mapping[str, Any],
        at: float,
    ) -> None:
        """Record a whole finished game (an imported file) in one transaction: its row, its
        events and its result are stored together or not at all, so a process killed midway
        leaves no half game for a restart to replay."""
        text = _to_json(settings, f"the settings of game {game_id!r}")
        outcome = _to_json(result, f"the result of game {game_id!r}")
        rows = _rows(events)
        with self._transaction() as db:
            try:
                db.execute(
                    "INSERT INTO games (id, settings, created, finished, result, finished_at) VALUES (?, ?, ?, 1, ?, ?)",
                    (game_id, text, at, outcome, at),
                )
            except sqlite3.IntegrityError as exc:
                raise StoreError(f"a game with id {game_id!r} already exists") from exc
            _insert(db, game_id, rows)

    def game(self, game_id: str) -> StoredGame | None:
        """The game with this id, or None."""
        with self._lock:
            row = self._db.execute(
                "SELECT id, settings, created, finished, result, finished_at FROM games WHERE id = ?", (game_id,)
            ).fetchone()
        return None if row is None else _game(row)

    def games(self, unfinished_only: bool = False, finished: int | None = None) -> list[StoredGame]:
        """Every game (or only the unfinished ones, to resume after a restart; or the unfinished
        ones and the ``finished`` most recently finished, for a listing), oldest first."""
        query = "SELECT id, settings, created, finished, result, finished_at FROM games"
        parameters: tuple[int, ...] = ()
        if unfinished_only:
            query += " WHERE finished = 0"
        elif finished is not None:
            query += (
                " WHERE finished = 0 OR id IN"
                " (SELECT id FROM games WHERE finished = 1 ORDER BY finished_at DESC, id LIMIT ?)"
            )
            parameters = (max(0, finished),)
        with self._lock:
            rows = self._db.execute(query + " ORDER BY created, id", parameters).fetchall()
        return [_game(row) for row in rows]

    def finished_games(self) -> list[FinishedGame]:
        """The finished games, the most recently finished first (read through the index of
        schema version 2, so a store of a million events answers at once)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, finished_at FROM games WHERE finished = 1 ORDER BY finished_at DESC, id"
            ).fetchall()
        return [FinishedGame(game_id, finished_at) for game_id, finished_at in rows]

    def delete_game(self, game_id: str, last_seq: int | None = None) -> int:
        """Delete a finished game, its events and its quarantined records in one transaction;
        the number of events deleted.

        The only delete of this append-only store, for retention. An unfinished game is
        refused (:class:`StoreError`): it is being played, or will be resumed. ``last_seq``,
        when given, is the last event the caller exported: a game that got events since is
        refused rather than deleted with records nobody kept.
        """
        with self._transaction() as db:
            row = db.execute("SELECT finished FROM games WHERE id = ?", (game_id,)).fetchone()
            if row is None:
                raise UnknownGameError(f"no game {game_id!r}")
            if not row[0]:
                raise StoreError(f"game {game_id!r} is not finished: only finished games are deleted")
            if last_seq is not None:
                now = db.execute("SELECT coalesce(max(seq), 0) FROM events WHERE game_id = ?", (game_id,)).fetchone()[0]
                if now != last_seq:
                    raise StoreError(f"game {game_id!r} has events up to {now}, not {last_seq}: export it again")
            deleted = db.execute("DELETE FROM events WHERE game_id = ?", (game_id,)).rowcount
            db.execute("DELETE FROM quarantine WHERE game_id = ?", (game_id,))
            db.execute("DELETE FROM games WHERE id = ?", (game_id,))
        return int(deleted)

    # --- events -------------------------------------------------------------------------

    def append(self, game_id: str, kind: str, payload: Mapping[str, Any], at: float) -> int:
        """Append one event to a game and return its sequence number (1, 2, ...).

        The event is committed and fsynced when this returns: acknowledge the message
        it records only after that.
        """
        return self.append_many(game_id, [NewEvent(kind, payload, at)])[0]

    def append_many(self, game_id: str, events: Iterable[NewEvent | tuple[str, Mapping[str, Any], float]]) -> list[int]:
        """Append several events to a game in one transaction: all are stored or none.

        Returns their sequence numbers in order. Used for a phase result (the orders, the
        results, the new position) that must never be half stored.
        """
        rows = _rows(events)
        with self._transaction() as db:
            return _insert(db, game_id, rows)

    def append_batch(
        self, batch: Sequence[tuple[str, Iterable[NewEvent | tuple[str, Mapping[str, Any], float]]]]
    ) -> list[list[int] | StoreError]:
        """Append the events of several games in one transaction and one fsync (group commit).

        Each game's events are stored whole or not at all; the answer, in order, is each
        game's sequence numbers, or the :class:`StoreError` that kept them out (an unknown
        game, a payload that is not JSON), which leaves the others stored; the later appends
        of a game in the batch share its error (each is a step on top of the one before).
        """
        answers: list[list[int] | StoreError] = []
        failed: dict[str, StoreError] = {}
        with self._transaction() as db:
            for game_id, events in batch:
                if game_id in failed:
                    answers.append(failed[game_id])
                    continue
                try:  # both raise before a row is written
                    answers.append(_insert(db, game_id, _rows(events)))
                except StoreError as error:
                    failed[game_id] = error
                    answers.append(error)
        return answers

    def events(self, game_id: str, after_seq: int = 0) -> list[StoredEvent]:
        """The events of a game with a sequence number above ``after_seq``, in order.

        An unknown game has no events.
        """
        with self._lock:
            rows = self._db.execute(
                "SELECT seq, kind, payload, at FROM events WHERE game_id = ? AND seq > ? ORDER BY seq",
                (game_id, after_seq),
            ).fetchall()
        return [StoredEvent(game_id, seq, kind, json.loads(payload), at) for seq, kind, payload, at in rows]

    def last_seq(self, game_id: str) -> int:
        """The sequence number of a game's last event (0 when it has none)."""
        with self._lock:
            return int(
                self._db.execute("SELECT coalesce(max(seq), 0) FROM events WHERE game_id = ?", (game_id,)).fetchone()[0]
            )

    # --- quarantine ---------------------------------------------------------------------

    def quarantine(self, game_id: str, seq: int, reason: str, at: float | None = None) -> None:
        """Record that event ``seq`` of a game could not be replayed, and why.

        The event itself stays where it is (the store is append-only); this says that a
        replay skipped it. Quarantining it again (each restart replays) keeps the first
        time and the latest reason.
        """
        with self._transaction() as db:
            db.execute(
                "INSERT INTO quarantine (game_id, seq, reason, at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT(game_id, seq) DO UPDATE SET reason = excluded.reason",
                (game_id, seq, str(reason), time.time() if at is None else at),
            )

    def quarantined(self, game_id: str | None = None) -> list[Quarantined]:
        """The quarantined records (of one game, or all), by game and sequence number."""
        query = "SELECT game_id, seq, reason, at FROM quarantine"
        parameters: tuple[str, ...] = ()
        if game_id is not None:
            query, parameters = query + " WHERE game_id = ?", (game_id,)
        with self._lock:
            rows = self._db.execute(query + " ORDER BY game_id, seq", parameters).fetchall()
        return [Quarantined(*row) for row in rows]

    # --- server-wide values -------------------------------------------------------------

    def get_meta(self, key: str, default: str | None = None) -> str | None:
        """A server-wide value, or ``default`` when it was never set."""
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return default if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        """Set (or replace) a server-wide value."""
        if not isinstance(value, str):
            raise StoreError(f"meta values are strings, not {type(value).__name__}")
        with self._transaction() as db:
            db.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

    # --- checks -------------------------------------------------------------------------

    def integrity_check(self) -> str:
        """SQLite's own check of the file: ``"ok"`` or a description of the damage."""
        with self._lock:
            rows = self._db.execute("PRAGMA integrity_check").fetchall()
        return "\n".join(str(row[0]) for row in rows)

    def counts(self) -> Counts:
        """How many games (finished), events and quarantined records the store holds."""
        with self._lock:
            return _counts(self._db)

    @property
    def journal_mode(self) -> str:
        """``"wal"`` for a file store (``"memory"`` for ``":memory:"``)."""
        with self._lock:
            return str(self._db.execute("PRAGMA journal_mode").fetchone()[0])


def _game(row: tuple[str, str, float, int, str | None, float | None]) -> StoredGame:
    game_id, settings, created, finished, result, finished_at = row
    return StoredGame(
        game_id,
        json.loads(settings),
        created,
        bool(finished),
        None if result is None else json.loads(result),
        finished_at,
    )


def _rows(events: Iterable[NewEvent | tuple[str, Mapping[str, Any], float]]) -> list[tuple[str, str, float]]:
    """Events checked and written as rows (kind, JSON payload, time)."""
    rows: list[tuple[str, str, float]] = []
    for kind, payload, at in events:
        if not isinstance(kind, str) or not kind:
            raise StoreError(f"an event kind must be a non-empty string, not {kind!r}")
        if not isinstance(at, int | float) or not math.isfinite(at):
            raise StoreError(f"the time of a {kind} event must be a finite number, not {at!r}")
        rows.append((kind, _to_json(payload, f"the payload of a {kind} event"), float(at)))
    return rows


def _insert(db: sqlite3.Connection, game_id: str, rows: list[tuple[str, str, float]]) -> list[int]:
    """Insert a game's rows after its last event; their sequence numbers."""
    if db.execute("SELECT 1 FROM games WHERE id = ?", (game_id,)).fetchone() is None:
        raise UnknownGameError(f"no game {game_id!r}")
    last = db.execute("SELECT coalesce(max(seq), 0) FROM events WHERE game_id = ?", (game_id,)).fetchone()[0]
    seqs = list(range(last + 1, last + 1 + len(rows)))
    db.executemany(
        "INSERT INTO events (game_id, seq, kind, payload, at) VALUES (?, ?, ?, ?, ?)",
        [(game_id, seq, kind, text, at) for seq, (kind, text, at) in zip(seqs, rows, strict=True)],
    )
    return seqs


def _user_version(db: sqlite3.Connection) -> int:
    return int(db.execute("PRAGMA user_version").fetchone()[0])


def _tables(db: sqlite3.Connection) -> set[str]:
    return {str(row[0]) for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def _counts(db: sqlite3.Connection) -> Counts:
    games, finished = db.execute("SELECT count(*), coalesce(sum(finished), 0) FROM games").fetchone()
    events = db.execute("SELECT count(*) FROM events").fetchone()[0]
    quarantined = db.execute("SELECT count(*) FROM quarantine").fetchone()[0] if "quarantine" in _tables(db) else 0
    return Counts(int(games), int(finished), int(events), int(quarantined))


# --- the file as a whole: inspection, backup, restore ---------------------------------------
#
# These work on a path, not on an open Store: the operator runs them beside a server (another
# process) that holds the file open. They never create a store where none is ("mode=rw").


@dataclass(frozen=True, slots=True)
class FileReport:
    """What ``detente store check`` says of a file: its integrity, schema version and contents."""

    path: str
    version: int
    integrity: str
    counts: Counts | None

    @property
    def problems(self) -> list[str]:
        """Why this détente cannot use the file; empty when it can (an older version migrates).

        >>> FileReport("s", SCHEMA_VERSION + 1, "ok", None).problems[0].startswith("schema version")
        True
        >>> FileReport("s", 1, "ok", Counts(0, 0, 0, 0)).problems
        []
        """
        problems = []
        if self.integrity != "ok":
            problems.append(f"integrity check failed: {self.integrity.splitlines()[0]}")
        if self.version > SCHEMA_VERSION:
            problems.append(f"schema version {self.version} is newer than this détente's {SCHEMA_VERSION}")
        elif self.counts is None:
            problems.append("not a détente store (it has no games and events tables)")
        return problems

    def summary(self) -> str:
        """One line for the operator."""
        counts = self.counts
        held = (
            f"{counts.games} games ({counts.finished} finished), {counts.events} events, "
            f"{counts.quarantined} quarantined records"
            if counts is not None
            else "no store tables"
        )
        version = f"schema version {self.version}"
        if 0 < self.version < SCHEMA_VERSION:
            version += f" (migrates to {SCHEMA_VERSION} when a server opens it)"
        return f"{self.path}: integrity {self.integrity.splitlines()[0]}, {version}, {held}"


def _connect_existing(path: Path, what: str) -> sqlite3.Connection:
    """A connection to the SQLite file at ``path``, which must exist (nothing is created)."""
    if not path.is_file():
        raise StoreError(f"no {what} at {path}")
    try:
        return sqlite3.connect(f"{path.resolve().as_uri()}?mode=rw", uri=True, isolation_level=None, timeout=10.0)
    except sqlite3.Error as exc:
        raise StoreError(f"cannot open {what} {path}: {exc}") from exc


def inspect_file(path: str | Path, *, integrity: bool = True) -> FileReport:
    """Check the store file at ``path`` without changing it: SQLite's integrity check, the
    schema version, and what it holds. Raises :class:`StoreError` when there is no such
    file or it is not a database at all; damage inside one is reported, not raised."""
    path = Path(path)
    db = _connect_existing(path, "store")
    try:
        try:
            version = _user_version(db)
            tables = _tables(db)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{path} is not a usable SQLite database: {exc}") from exc
        verdict = "ok"
        if integrity:
            try:
                verdict = "\n".join(str(row[0]) for row in db.execute("PRAGMA integrity_check").fetchall())
            except sqlite3.DatabaseError as exc:
                verdict = str(exc)
        counts = None
        if version >= 1 and set(TABLES) <= tables:
            try:
                counts = _counts(db)
            except sqlite3.DatabaseError as exc:
                verdict = verdict if verdict != "ok" else str(exc)
        return FileReport(str(path), version, verdict or "ok", counts)
    finally:
        db.close()


def in_use(path: str | Path) -> bool:
    """Whether another connection (a running server, in this process or another) has the
    store open.

    A connection in WAL mode holds a shared lock for as long as it is open; asking for an
    exclusive lock without waiting fails while any other holds one. A missing file is not
    in use.
    """
    path = Path(path)
    if not path.exists():
        return False
    probe = sqlite3.connect(f"{path.resolve().as_uri()}?mode=rw", uri=True, isolation_level=None, timeout=0)
    try:
        probe.execute("PRAGMA locking_mode=EXCLUSIVE")
        probe.execute("BEGIN EXCLUSIVE")
        probe.execute("SELECT count(*) FROM sqlite_master").fetchone()
        probe.execute("COMMIT")
    except sqlite3.OperationalError as exc:
        if "locked" in str(exc) or "busy" in str(exc):
            return True
        raise StoreError(f"cannot open the store {path}: {exc}") from exc
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"{path} is not a usable SQLite database: {exc}") from exc
    finally:
        probe.close()
    return False


def backup_file(db: str | Path, out: str | Path, *, overwrite: bool = False) -> FileReport:
    """Copy the store at ``db`` to ``out`` while servers may be writing it; the copy's report.

    SQLite's online backup copies one consistent snapshot (a read transaction: in WAL mode
    the writers go on meanwhile). The copy is written to a temporary file beside ``out``,
    fsynced, checked (integrity, schema), and only then renamed into place, so ``out`` is
    either absent or a whole, checked backup. ``out`` may be a directory: the copy is then
    named after the store and the time (``detente-20250101T120000Z.sqlite3``). An existing
    ``out`` is refused unless ``overwrite``.
    """
    source_path, target = Path(db), Path(out)
    if target.is_dir():
        target = target / f"{source_path.stem}-{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}{source_path.suffix}"
    if target.exists() and not overwrite:
        raise StoreError(f"{target} exists; give --force to replace it")
    source = _connect_existing(source_path, "store")
    tmp = _temporary(target)
    try:
        try:
            _copy(source, tmp)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"cannot copy {source_path}: {exc}") from exc
        finally:
            source.close()
        _fsync(tmp)
        report = inspect_file(tmp)
        if report.problems:
            raise StoreError(f"the copy of {source_path} is not usable: {'; '.join(report.problems)}")
        os.replace(tmp, target)
        _fsync_directory(target.parent)
    finally:
        _remove(tmp)
    return FileReport(str(target), report.version, report.integrity, report.counts)


def restore_file(backup: str | Path, db: str | Path, *, force: bool = False) -> FileReport:
    """Replace the store at ``db`` with ``backup``; the restored store's report.

    Refused (:class:`StoreError`, nothing changed) when a server has ``db`` open (unless
    ``force``), or when the backup fails its integrity check, is no store, or has a schema
    newer than this détente's. The backup is copied to a temporary file beside ``db``,
    checked, migrated to the current schema, fsynced and renamed over ``db``: a crash at
    any point leaves the old store or the new one, never a mix. The old store's write-ahead
    log goes with it, since SQLite would otherwise apply it to the new file. The file keeps
    the old store's permissions and owner (a restore run as root must not lock a server's
    user out).
    """
    backup_path, target = Path(backup), Path(db)
    if not force and in_use(target):
        raise StoreError(f"the store {target} is in use (is a server running on it?); stop it first, or give --force")
    source = _connect_existing(backup_path, "backup")
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = _temporary(target)
    try:
        try:
            _copy(source, tmp)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"the backup {backup_path} is damaged: {exc}") from exc
        finally:
            source.close()
        report = inspect_file(tmp)
        if report.problems:
            raise StoreError(f"the backup {backup_path} cannot be restored: {'; '.join(report.problems)}")
        Store.open(tmp).close()  # migrate now: a step that fails must fail before the old store is gone
        report = inspect_file(tmp, integrity=False)
        _keep_owner(target, tmp)
        _fsync(tmp)
        if not force and in_use(target):
            raise StoreError(f"the store {target} came into use during the restore; nothing was replaced")
        for suffix in ("-wal", "-shm", "-journal"):
            _remove(Path(f"{target}{suffix}"))
        os.replace(tmp, target)
        _fsync_directory(target.parent)
    finally:
        _remove(tmp)
        for suffix in ("-wal", "-shm", "-journal"):
            _remove(Path(f"{tmp}{suffix}"))
    return FileReport(str(target), report.version, "ok", report.counts)


def _copy(source: sqlite3.Connection, tmp: Path) -> None:
    """One consistent snapshot of ``source`` into the file ``tmp`` (SQLite's online backup)."""
    copy = sqlite3.connect(tmp)
    try:
        source.backup(copy)
    finally:
        copy.close()


def _temporary(beside: Path) -> Path:
    """A new empty file (mode 0600) in ``beside``'s directory, so a rename onto it is atomic."""
    fd, name = tempfile.mkstemp(dir=beside.parent, prefix=f".{beside.name}.", suffix=".tmp")
    os.close(fd)
    return Path(name)


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_directory(path: Path) -> None:
    """Make a rename in ``path`` durable (the directory entry is what changed)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _keep_owner(old: Path, new: Path) -> None:
    try:
        stat = old.stat()
    except FileNotFoundError:
        return
    os.chmod(new, stat.st_mode & 0o777)
    with contextlib.suppress(PermissionError):
        os.chown(new, stat.st_uid, stat.st_gid)


def _remove(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        path.unlink()

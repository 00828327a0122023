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

>>> store = Store.open(":memory:")
>>> store.create_game("g1", {"press_level": 0})
>>> store.append("g1", "SUB", {"power": "ENGLAND", "orders": ["F LON H"]}, at=1.0)
1
>>> store.append_many("g1", [NewEvent("THX", {"order": "F LON H"}, 1.0), NewEvent("NOW", {}, 2.0)])
[2, 3]
>>> [(e.seq, e.kind) for e in store.events("g1", after_seq=1)]
[(2, 'THX'), (3, 'NOW')]
>>> store.finish("g1", {"outcome": "draw"})
>>> store.games(unfinished_only=True)
[]
>>> store.close()
"""

from __future__ import annotations

import json
import math
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, NamedTuple, Self

SCHEMA_VERSION = 1
"""Kept in SQLite's ``user_version``; a file written by another version is refused, not guessed at."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id        TEXT PRIMARY KEY,
    settings  TEXT NOT NULL,             -- JSON object
    created   REAL NOT NULL,             -- seconds since the epoch
    finished  INTEGER NOT NULL DEFAULT 0,
    result    TEXT,                      -- JSON object once finished
    finished_at REAL
);
CREATE TABLE IF NOT EXISTS events (
    game_id   TEXT NOT NULL REFERENCES games(id),
    seq       INTEGER NOT NULL,
    kind      TEXT NOT NULL,
    payload   TEXT NOT NULL,             -- JSON object
    at        REAL NOT NULL,
    PRIMARY KEY (game_id, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS meta (
    key       TEXT PRIMARY KEY,
    value     TEXT NOT NULL
);
"""


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

    def _migrate(self) -> None:
        with self._transaction():
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version not in (0, SCHEMA_VERSION):
                raise SchemaVersionError(
                    f"{self.path} has store schema version {version}; this server reads version {SCHEMA_VERSION}"
                )
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    self._db.execute(statement)
            self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    def close(self) -> None:
        """Close the connection; closing twice is harmless."""
        with self._lock:
            self._db.close()

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

    def game(self, game_id: str) -> StoredGame | None:
        """The game with this id, or None."""
        with self._lock:
            row = self._db.execute(
                "SELECT id, settings, created, finished, result, finished_at FROM games WHERE id = ?", (game_id,)
            ).fetchone()
        return None if row is None else _game(row)

    def games(self, unfinished_only: bool = False) -> list[StoredGame]:
        """Every game (or only the unfinished ones, to resume after a restart), oldest first."""
        query = "SELECT id, settings, created, finished, result, finished_at FROM games"
        if unfinished_only:
            query += " WHERE finished = 0"
        with self._lock:
            rows = self._db.execute(query + " ORDER BY created, id").fetchall()
        return [_game(row) for row in rows]

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
        game, a payload that is not JSON), which leaves the others stored.
        """
        answers: list[list[int] | StoreError] = []
        with self._transaction() as db:
            for game_id, events in batch:
                try:  # both raise before a row is written
                    answers.append(_insert(db, game_id, _rows(events)))
                except StoreError as error:
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

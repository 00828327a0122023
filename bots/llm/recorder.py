"""Where a model seat's calls are kept: the cache that replays them and the log that shows them.

The cache (``--llm-cache PATH``) is a SQLite file, one row a call keyed by its request and
place (see :mod:`bots.llm.client`): a row is committed before the seat acts on its reply,
so what a run played can be played again with ``--llm-offline`` and no provider reachable.
The log (``LOG_DIR/calls.jsonl``) has a line for every call, cached or not: the game,
phase, seat, model, latency, usage, the request and the answer. Worker processes of one
run append to the same files (SQLite's WAL and an exclusive lock on the log's lines).
Neither holds the API key: it is in no request body.
"""

from __future__ import annotations

import datetime
import fcntl
import json
import sqlite3
import threading
import time
from collections.abc import Mapping
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bots.llm.config import Profile

if TYPE_CHECKING:
    from bots.llm.client import CallPlace, Reply

__all__ = ["CALL_LOG", "Recorder", "open_shared"]

CALL_LOG = "calls.jsonl"


def open_shared(path: Path, schema: str, synchronous: str = "NORMAL") -> sqlite3.Connection:
    """A SQLite file that the processes of a run share: WAL, a busy timeout, ``schema`` made.

    Two processes opening a new file at once can find it locked while the other switches it
    to WAL, which no busy timeout covers: the opening is tried again for up to 30 seconds.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    deadline = time.monotonic() + 30
    while True:
        db = sqlite3.connect(path, timeout=30, check_same_thread=False, isolation_level=None)
        try:
            db.execute("PRAGMA busy_timeout = 30000")
            db.execute("PRAGMA journal_mode = WAL")
            db.execute(f"PRAGMA synchronous = {synchronous}")
            db.execute(schema)
            return db
        except sqlite3.OperationalError:
            db.close()
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


class Recorder:
    """The cache at ``cache`` (None: none) and the log in ``log_dir`` (None: none)."""

    def __init__(self, cache: Path | None, log_dir: Path | None) -> None:
        self.cache_path = cache
        self.log_path = log_dir / CALL_LOG if log_dir is not None else None
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        if cache is not None:
            # synchronous=FULL: a reply acted on is a reply kept
            self._db = open_shared(
                cache, "CREATE TABLE IF NOT EXISTS calls (key TEXT PRIMARY KEY, reply TEXT NOT NULL)", "FULL"
            )
        if self.log_path is not None:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)

    def lookup(self, key: str) -> dict[str, Any] | None:
        if self._db is None:
            return None
        with self._lock:
            row = self._db.execute("SELECT reply FROM calls WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row is not None else None

    def store(self, key: str, reply: Mapping[str, Any]) -> None:
        if self._db is None:
            return
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO calls VALUES (?, ?)", (key, json.dumps(reply, ensure_ascii=False)))

    def log(self, place: CallPlace, profile: Profile, request: Mapping[str, Any], reply: Reply) -> None:
        if self.log_path is None:
            return
        line = {
            "time": datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds"),
            **asdict(place),
            "model": profile.model,
            "base_url": profile.base_url,
            "outcome": reply.outcome,
            "status": reply.status,
            "latency": round(reply.latency, 4),
            "usage": {
                "input_tokens": reply.input_tokens,
                "output_tokens": reply.output_tokens,
                "estimated": reply.estimated,
            },
            "retries": reply.retries,
            "cached": reply.cached,
            "error": reply.error,
            "request": request,
            "response": reply.content,
        }
        data = (json.dumps(line, ensure_ascii=False) + "\n").encode("utf-8", "replace")
        with self._lock, open(self.log_path, "ab") as file:
            fcntl.flock(file, fcntl.LOCK_EX)  # one line at a time from every process of the run
            file.write(data)
            file.flush()

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

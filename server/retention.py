"""Retention: which finished games a long-running server deletes from its store, and when.

A server in a container plays games back to back for months; at a few hundred events a
game its store grows by hundreds of megabytes a day, and nothing in it is ever deleted by
play (:mod:`server.store` is append-only). The operator chooses a :class:`Policy`:

- ``keep_days``: keep every game that finished within the last N days;
- ``keep_games``: keep the N most recently finished games.

A finished game is deleted only when no rule given keeps it, and never within
:data:`MIN_AGE` of its end (its server may still hold it in memory and record its last
disconnects). Unfinished games are never deleted, whatever their age: they are being
played or will be resumed. With neither rule, the policy keeps everything, which is the
servers' default.

Before a game is deleted it can be exported (``export_dir``): its settings, result,
events and quarantined records as one JSON file, written atomically, so that a deleted
game can still be read, replayed or reported on. The delete is refused if the game got
events after the export (:meth:`server.store.Store.delete_game` with ``last_seq``).

:func:`to_delete` is the pure choice; :func:`prune` applies it to a store (the command
``detente store prune``); :class:`RetentionTask` runs it in a server now and then.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import structlog

from server.store import FinishedGame, Store, StoreError

__all__ = [
    "MIN_AGE",
    "Policy",
    "PruneReport",
    "Pruned",
    "RetentionTask",
    "export_game",
    "prune",
    "start_retention",
    "to_delete",
]

DAY = 86_400.0
MIN_AGE = 3_600.0
"""Seconds after its end during which a finished game is kept whatever the policy: the game
server keeps a finished game in memory for a while and may still append its last records."""

EXPORT_FORMAT = "detente-game-export/1"

log = structlog.get_logger("detente.retention")


@dataclass(frozen=True, slots=True)
class Policy:
    """Which finished games to keep; a game no rule keeps is deleted.

    >>> Policy().active, Policy(keep_games=0).active
    (False, True)
    >>> Policy(keep_days=-1)
    Traceback (most recent call last):
    ValueError: keep_days must be a positive number of days, not -1
    """

    keep_days: float | None = None
    keep_games: int | None = None
    min_age: float = MIN_AGE

    def __post_init__(self) -> None:
        if self.keep_days is not None and not self.keep_days > 0:
            raise ValueError(f"keep_days must be a positive number of days, not {self.keep_days}")
        if self.keep_games is not None and self.keep_games < 0:
            raise ValueError(f"keep_games must be 0 or more, not {self.keep_games}")
        if self.min_age < 0:
            raise ValueError(f"min_age must be 0 or more, not {self.min_age}")

    @property
    def active(self) -> bool:
        """Whether the policy deletes anything at all (else the store keeps everything)."""
        return self.keep_days is not None or self.keep_games is not None

    def describe(self) -> str:
        """The policy in words, for the logs and the command's output.

        >>> Policy(keep_days=30, keep_games=1000).describe()
        'keep finished games for 30 days and the 1000 most recent'
        >>> Policy().describe()
        'keep every game'
        >>> Policy(keep_games=0).describe()
        'keep no finished game older than 3600 s'
        """
        rules = []
        if self.keep_days is not None:
            rules.append(f"for {self.keep_days:g} days")
        if self.keep_games:
            rules.append(f"the {self.keep_games} most recent")
        if not rules:
            return "keep every game" if not self.active else f"keep no finished game older than {self.min_age:g} s"
        return f"keep finished games {' and '.join(rules)}"


def to_delete(finished: Sequence[FinishedGame], now: float, policy: Policy) -> list[str]:
    """The ids of the finished games ``policy`` deletes at ``now``, the oldest first.

    A game is kept when any rule keeps it: it finished less than ``keep_days`` ago, or is
    among the ``keep_games`` most recently finished, or less than ``min_age`` seconds ago,
    or at an unknown time. Only finished games are given; the order given does not matter.

    >>> games = [FinishedGame("a", 0.0), FinishedGame("b", 10 * DAY), FinishedGame("c", 19 * DAY)]
    >>> now = 20 * DAY
    >>> to_delete(games, now, Policy(keep_days=5))
    ['a', 'b']
    >>> to_delete(games, now, Policy(keep_games=1))
    ['a', 'b']
    >>> to_delete(games, now, Policy(keep_days=15, keep_games=1))   # b is kept by the days
    ['a']
    >>> to_delete(games, now, Policy(keep_days=1, keep_games=2))    # b is kept by the count
    ['a']
    >>> to_delete(games, now, Policy())
    []
    >>> to_delete([FinishedGame("just", now - 60)], now, Policy(keep_games=0))
    []
    """
    if not policy.active:
        return []
    dated = sorted((g for g in finished if g.finished_at is not None), key=lambda g: (-(g.finished_at or 0.0), g.id))
    chosen = []
    for rank, game in enumerate(dated):
        age = now - (game.finished_at or 0.0)
        if age < policy.min_age:
            continue
        if policy.keep_days is not None and age < policy.keep_days * DAY:
            continue
        if policy.keep_games is not None and rank < policy.keep_games:
            continue
        chosen.append(game)
    return [game.id for game in reversed(chosen)]


# --- export -----------------------------------------------------------------------------------


def export_name(prefix: str, game_id: str) -> str:
    """The export file's name: the store's name first, since both servers' stores hold the
    same game ids and may export to one directory.

    >>> export_name("nego", "g1a2b")
    'nego-g1a2b.json'
    >>> export_name("detente", "../etc/passwd")
    'detente-.._etc_passwd.json'
    """
    return f"{prefix}-{re.sub(r'[^A-Za-z0-9_.-]', '_', game_id)}.json"


def export_game(store: Store, game_id: str, export_dir: Path, prefix: str) -> tuple[Path, int]:
    """Write one game as JSON into ``export_dir``; the file and the last event it holds.

    The file is written to a temporary name, fsynced and renamed, and the directory
    fsynced: once this returns, the export survives a crash, and a reader never sees half
    of one. An earlier export of the same game is replaced.
    """
    game = store.game(game_id)
    if game is None:
        raise StoreError(f"no game {game_id!r}")
    events = store.events(game_id)
    document: dict[str, Any] = {
        "format": EXPORT_FORMAT,
        "store": prefix,
        "id": game.id,
        "settings": game.settings,
        "created": game.created,
        "finished": game.finished,
        "finished_at": game.finished_at,
        "result": game.result,
        "events": [{"seq": e.seq, "kind": e.kind, "payload": e.payload, "at": e.at} for e in events],
        "quarantined": [{"seq": q.seq, "reason": q.reason, "at": q.at} for q in store.quarantined(game_id)],
    }
    path = export_dir / export_name(prefix, game_id)
    _write_atomically(path, json.dumps(document, ensure_ascii=False, separators=(",", ":")) + "\n")
    return path, events[-1].seq if events else 0


def _write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    directory = os.open(path.parent, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


# --- pruning a store --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Pruned:
    """A game deleted (or, in a dry run, that would be)."""

    game_id: str
    finished_at: float | None
    events: int
    exported: Path | None


@dataclass(frozen=True, slots=True)
class PruneReport:
    """What one pass of retention did to a store."""

    policy: Policy
    finished: int
    pruned: tuple[Pruned, ...]
    skipped: tuple[tuple[str, str], ...]
    dry_run: bool

    @property
    def events(self) -> int:
        """Events deleted (or that would be)."""
        return sum(p.events for p in self.pruned)

    def summary(self) -> str:
        """One line for the operator."""
        verb = "would delete" if self.dry_run else "deleted"
        line = (
            f"{verb} {len(self.pruned)} of {self.finished} finished games ({self.events} events); "
            f"{self.policy.describe()}; unfinished games are never deleted"
        )
        if self.skipped:
            line += f"; skipped {len(self.skipped)} (changed meanwhile)"
        return line


def prune(
    store: Store,
    policy: Policy,
    now: float,
    *,
    export_dir: Path | None = None,
    prefix: str | None = None,
    dry_run: bool = False,
    stopping: Callable[[], bool] = lambda: False,
) -> PruneReport:
    """Delete the finished games ``policy`` does not keep, each exported first when
    ``export_dir`` is given; ``dry_run`` only says which.

    One game at a time, each delete its own short transaction, so a server writing the
    same store waits for one game's delete at most; ``stopping`` is asked between games.
    A game that cannot be exported stops the pass (``OSError``) before it is deleted; a
    game that changed between its export and its delete is skipped, for the next pass.
    """
    finished = store.finished_games()
    chosen = to_delete(finished, now, policy)
    ended = {game.id: game.finished_at for game in finished}
    prefix = prefix or Path(store.path).stem
    pruned: list[Pruned] = []
    skipped: list[tuple[str, str]] = []
    for game_id in chosen:
        if stopping():
            break
        if dry_run:
            pruned.append(Pruned(game_id, ended[game_id], store.last_seq(game_id), None))
            continue
        exported, last_seq = None, None
        if export_dir is not None:
            try:
                exported, last_seq = export_game(store, game_id, export_dir, prefix)
            except StoreError as error:  # gone meanwhile (another pruner)
                skipped.append((game_id, str(error)))
                continue
        try:
            deleted = store.delete_game(game_id, last_seq)
        except StoreError as error:
            skipped.append((game_id, str(error)))
            continue
        pruned.append(Pruned(game_id, ended[game_id], deleted, exported))
    return PruneReport(policy, len(finished), tuple(pruned), tuple(skipped), dry_run)


# --- in a server ------------------------------------------------------------------------------


class RetentionTask:
    """Prunes a server's store at start and every ``interval`` seconds, until stopped.

    The pass runs in a worker thread (the store is thread-safe; a pass may export many
    games), and :meth:`stop` waits for it to end between two games rather than cancelling
    it, so the store is never closed under a pass. A failed pass (an export directory
    that is full or gone) is logged and tried again at the next interval: retention never
    stops a server.
    """

    def __init__(
        self,
        store: Store,
        policy: Policy,
        *,
        export_dir: Path | None = None,
        interval: float = 3_600.0,
        clock: Callable[[], float] = time.time,
        on_pass: Callable[[PruneReport | BaseException], None] | None = None,
    ) -> None:
        """Prepare the task; :meth:`start` starts it. ``on_pass`` hears of every pass (tests)."""
        self.store = store
        self.policy = policy
        self.export_dir = export_dir
        self.interval = interval
        self.clock = clock
        self.on_pass = on_pass
        self._stopping = threading.Event()
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start the periodic passes in the running event loop."""
        log.info("retention", policy=self.policy.describe(), export_dir=str(self.export_dir), interval=self.interval)
        self._task = asyncio.get_running_loop().create_task(self._run(), name="retention")

    async def stop(self) -> None:
        """Stop: let a pass under way finish its current game, then return."""
        self._stopping.set()
        self._wake.set()
        if self._task is not None:
            await self._task

    async def _run(self) -> None:
        while not self._stopping.is_set():
            outcome = await self.run_once()
            if self.on_pass is not None:
                self.on_pass(outcome)
            try:
                await asyncio.wait_for(self._wake.wait(), self.interval)
            except TimeoutError:
                pass

    async def run_once(self) -> PruneReport | BaseException:
        """One pass; its report, or the error that stopped it (logged)."""
        try:
            report = await asyncio.to_thread(
                prune, self.store, self.policy, self.clock(), export_dir=self.export_dir, stopping=self._stopping.is_set
            )
        except Exception as error:  # noqa: BLE001  # an export dir full or gone, a store error: next time
            log.error("retention pass failed", error=f"{type(error).__name__}: {error}")
            return error
        if report.pruned or report.skipped:
            log.info(
                "retention pass",
                deleted=len(report.pruned),
                events=report.events,
                finished=report.finished,
                skipped=len(report.skipped),
                exported_to=str(self.export_dir) if self.export_dir else None,
            )
        return report


def start_retention(
    store: Store, policy: Policy, export_dir: Path | None = None, interval: float = 3_600.0
) -> RetentionTask | None:
    """Start retention in a server, or nothing when the policy keeps everything (the default)."""
    if not policy.active:
        return None
    task = RetentionTask(store, policy, export_dir=export_dir, interval=interval)
    task.start()
    return task

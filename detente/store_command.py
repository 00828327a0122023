"""``detente store check|backup|restore|prune``: operating the servers' stores.

Both servers keep everything in one SQLite file each (:mod:`server.store`): the game
server's ``detente.sqlite3`` and the negotiation server's ``nego.sqlite3``, in the data
directory (``detente-data`` unless ``--data-dir``), or wherever ``--db`` says. These
commands find the file the same way (``--server nego`` picks the negotiation server's):

- ``check``: SQLite's integrity check, the schema version, what the store holds;
- ``backup OUT``: a consistent copy, safe while the server runs and writes;
- ``restore BACKUP``: replace the store with a checked backup (the server stopped);
- ``prune``: apply a retention policy once (:mod:`server.retention`), ``--dry-run`` to see.

Exit status 0 when done, 2 with one line on standard error when the input or a check is
bad (no such store, a damaged or newer backup, a store in use, a bad option).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from server.retention import Policy, prune
from server.store import SCHEMA_VERSION, FileReport, Store, StoreError, backup_file, inspect_file, restore_file

__all__ = ["add_arguments", "run", "store_path"]

# The servers' defaults (server.settings and server.nego.settings; a test keeps them equal),
# repeated so that this tool loads the store alone, not the servers' web stack.
DEFAULT_DATA_DIR = Path("detente-data")
DB_NAME = "detente.sqlite3"
NEGO_DB_NAME = "nego.sqlite3"


def store_path(db: str | None, data_dir: str | None, server: str = "game") -> Path:
    """The store a command works on: ``--db``, else the server's file in ``--data-dir``
    (by default ``detente-data``), as ``detente serve`` and ``detente nego`` find it.

    >>> store_path(None, None), store_path(None, "/data", "nego"), store_path("x.sqlite3", "/data")
    (PosixPath('detente-data/detente.sqlite3'), PosixPath('/data/nego.sqlite3'), PosixPath('x.sqlite3'))
    """
    if db is not None:
        return Path(db)
    return Path(data_dir if data_dir is not None else DEFAULT_DATA_DIR) / (
        NEGO_DB_NAME if server == "nego" else DB_NAME
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The subcommands of ``detente store`` and their options."""
    commands = parser.add_subparsers(dest="store_command", required=True)

    def command(name: str, help: str, description: str) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help, description=description)
        sub.add_argument("--db", help="the store's SQLite file (default: the server's file in --data-dir)")
        sub.add_argument(
            "--data-dir", dest="data_dir", help=f"the servers' data directory (default {DEFAULT_DATA_DIR})"
        )
        sub.add_argument(
            "--server",
            choices=("game", "nego"),
            default="game",
            help=f"whose store in --data-dir: the game server's {DB_NAME} (default) or the negotiation server's "
            f"{NEGO_DB_NAME}",
        )
        return sub

    check = command(
        "check",
        "check a store: integrity, schema version, what it holds",
        "Run SQLite's integrity check and read the schema version and the counts, changing nothing. "
        "Exit status 2 when the store is damaged or newer than this détente.",
    )
    check.add_argument("--json", action="store_true", help="one JSON object instead of a line")

    backup = command(
        "backup",
        "copy a store consistently, even while its server runs",
        "Copy the store through SQLite's online backup (one consistent snapshot; the server keeps "
        "writing), fsync the copy, check its integrity, then rename it to OUT.",
    )
    backup.add_argument("out", metavar="OUT", help="the backup file, or a directory to put a dated one in")
    backup.add_argument("--force", action="store_true", help="replace OUT if it exists")

    restore = command(
        "restore",
        "replace a store with a backup (stop its server first)",
        "Check the backup (integrity, schema version), migrate it to this détente's schema, and "
        "atomically replace the store with it. Refused while a server has the store open.",
    )
    restore.add_argument("backup", metavar="BACKUP", help="a file made by 'detente store backup'")
    restore.add_argument("--force", action="store_true", help="replace the store even if it seems in use")

    prune_parser = command(
        "prune",
        "delete old finished games once, by a retention policy",
        "Delete the finished games no rule keeps (unfinished games never), each exported first with "
        "--export-dir. Safe while the server runs.",
    )
    prune_parser.add_argument(
        "--keep-days", dest="keep_days", type=float, help="keep games finished in the last N days"
    )
    prune_parser.add_argument("--keep-games", dest="keep_games", type=int, help="keep the N most recently finished")
    prune_parser.add_argument("--export-dir", dest="export_dir", help="export each game as JSON here before deleting")
    prune_parser.add_argument(
        "--dry-run", dest="dry_run", action="store_true", help="say what would go; delete nothing"
    )


def run(args: Any) -> int:
    """Run ``detente store SUBCOMMAND``; the exit status."""
    name = f"detente store {args.store_command}"
    path = store_path(args.db, args.data_dir, args.server)
    try:
        if args.store_command == "check":
            return _check(path, args.json)
        if args.store_command == "backup":
            report = backup_file(path, Path(args.out), overwrite=args.force)
            print(f"backed up {path} to {report.summary()}")
            return 0
        if args.store_command == "restore":
            report = restore_file(Path(args.backup), path, force=args.force)
            print(f"restored {args.backup} to {report.summary()}")
            return 0
        if args.store_command == "prune":
            return _prune(path, args)
    except (StoreError, OSError, ValueError) as error:
        text = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        where = f" ({error.filename})" if isinstance(error, OSError) and error.filename else ""
        print(f"{name}: {text.splitlines()[0] if text else type(error).__name__}{where}", file=sys.stderr)
        return 2
    return 2  # pragma: no cover - argparse rejects unknown subcommands


def _check(path: Path, as_json: bool) -> int:
    report: FileReport = inspect_file(path)
    if as_json:
        counts = report.counts
        json.dump(
            {
                "path": report.path,
                "schema_version": report.version,
                "reads_up_to": SCHEMA_VERSION,
                "integrity": report.integrity,
                "games": counts.games if counts else None,
                "finished": counts.finished if counts else None,
                "events": counts.events if counts else None,
                "quarantined": counts.quarantined if counts else None,
                "problems": report.problems,
            },
            sys.stdout,
        )
        sys.stdout.write("\n")
    else:
        print(report.summary())
    if report.problems:
        print(f"detente store check: {path}: {'; '.join(report.problems)}", file=sys.stderr)
        return 2
    return 0


def _prune(path: Path, args: Any) -> int:
    policy = Policy(keep_days=args.keep_days, keep_games=args.keep_games)
    if not policy.active:
        raise StoreError("nothing to prune by: give --keep-days and/or --keep-games")
    if not path.is_file():
        raise StoreError(f"no store at {path}")
    export_dir = Path(args.export_dir) if args.export_dir else None
    with Store.open(path) as store:
        report = prune(store, policy, time.time(), export_dir=export_dir, dry_run=args.dry_run)
    verb = "would delete" if report.dry_run else "deleted"
    for game in report.pruned:
        ended = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(game.finished_at or 0))
        exported = f", exported to {game.exported}" if game.exported else ""
        print(f"{verb} {game.game_id} (finished {ended}, {game.events} events{exported})")
    for game_id, why in report.skipped:
        print(f"skipped {game_id}: {why}")
    print(report.summary())
    return 0

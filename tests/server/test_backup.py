"""Backup, restore and check of a store file, on real SQLite files, and their commands."""

from __future__ import annotations

import shutil
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from detente.cli import main
from server.store import (
    SCHEMA_VERSION,
    NewEvent,
    Store,
    StoreError,
    backup_file,
    in_use,
    inspect_file,
    restore_file,
)
from tests.server.test_store import make_v1_file

BATCH = 5


def filled(path: Path, games: int = 3, events: int = 200) -> Path:
    """A store of a few games with enough events to span many pages."""
    with Store.open(path) as store:
        for g in range(games):
            store.create_game(f"g{g}", {"n": g}, created=float(g))
            store.append_many(f"g{g}", [NewEvent("X", {"i": i, "pad": "p" * 100}, float(i)) for i in range(events)])
        store.finish("g0", {"outcome": "draw"}, at=10.0)
    return path


def snapshot(path: Path) -> dict[str, list[tuple[int, str]]]:
    with Store.open(path) as store:
        return {g.id: [(e.seq, e.kind) for e in store.events(g.id)] for g in store.games()}


@pytest.fixture
def appending(tmp_path: Path) -> Iterator[tuple[Path, list[int]]]:
    """A store and a thread appending batches of :data:`BATCH` events to it through its own
    connection (as a server would) until the test ends; the list counts the batches."""
    path = tmp_path / "live" / "detente.sqlite3"
    with Store.open(path) as store:
        store.create_game("g", {})
    stop, started, batches = threading.Event(), threading.Event(), [0]

    def write() -> None:
        with Store.open(path) as writer:
            while not stop.is_set():
                writer.append_many("g", [NewEvent("X", {"b": batches[0], "pad": "p" * 300}, 1.0)] * BATCH)
                batches[0] += 1
                started.set()

    thread = threading.Thread(target=write)
    thread.start()
    assert started.wait(10)
    try:
        yield path, batches
    finally:
        stop.set()
        thread.join()


def test_a_backup_while_another_thread_appends_is_consistent(tmp_path: Path, appending: tuple[Path, list[int]]) -> None:
    path, batches = appending
    overlapped = False
    for attempt in range(50):  # until a backup ran while the writer went on (almost always the first)
        before = batches[0]
        report = backup_file(path, tmp_path / f"copy{attempt}.sqlite3")
        overlapped = batches[0] > before
        assert report.problems == [] and report.integrity == "ok" and report.version == SCHEMA_VERSION
        copy = Path(report.path)
        raw = sqlite3.connect(copy)
        assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        seqs = [row[0] for row in raw.execute("SELECT seq FROM events WHERE game_id = 'g' ORDER BY seq")]
        raw.close()
        # one snapshot: every committed batch whole, none half, numbered without a gap
        assert seqs == list(range(1, len(seqs) + 1)) and len(seqs) % BATCH == 0 and seqs
        assert report.counts is not None and report.counts.events == len(seqs)
        if overlapped:
            break
    assert overlapped, "the writer never ran during a backup"
    assert not list(tmp_path.glob(".*.tmp")), "no temporary file is left behind"


def test_backup_refuses_a_missing_store_and_an_existing_target(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no store at"):
        backup_file(tmp_path / "missing.sqlite3", tmp_path / "out.sqlite3")
    assert not (tmp_path / "missing.sqlite3").exists()  # nothing created where there was none
    store = filled(tmp_path / "s.sqlite3", games=1, events=3)
    (tmp_path / "out.sqlite3").write_text("yesterday's backup")
    with pytest.raises(StoreError, match="exists"):
        backup_file(store, tmp_path / "out.sqlite3")
    assert (tmp_path / "out.sqlite3").read_text() == "yesterday's backup"
    assert backup_file(store, tmp_path / "out.sqlite3", overwrite=True).counts.events == 3  # type: ignore[union-attr]


def test_backup_into_a_directory_names_the_copy_after_the_store(tmp_path: Path) -> None:
    store = filled(tmp_path / "nego.sqlite3", games=1, events=1)
    (tmp_path / "backups").mkdir()
    report = backup_file(store, tmp_path / "backups")
    assert Path(report.path).parent == tmp_path / "backups" and Path(report.path).name.startswith("nego-")


def test_restore_replaces_the_store_with_the_backup(tmp_path: Path) -> None:
    original = filled(tmp_path / "data" / "detente.sqlite3")
    backup = Path(backup_file(original, tmp_path / "backup.sqlite3").path)
    expected = snapshot(original)
    with Store.open(original) as store:  # play goes on after the backup
        store.create_game("later", {})
    original.chmod(0o640)
    report = restore_file(backup, original)
    assert report.path == str(original) and report.version == SCHEMA_VERSION
    assert snapshot(original) == expected
    assert original.stat().st_mode & 0o777 == 0o640  # the server's file keeps its permissions
    assert not list(original.parent.glob(".*.tmp"))
    assert restore_file(backup, tmp_path / "fresh" / "detente.sqlite3").counts == report.counts  # onto nothing


def _corrupt(path: Path) -> None:
    """Garbage over pages in the middle of the file, as a bad disk or a torn copy leaves it."""
    size = path.stat().st_size
    page = 4096
    assert size > 8 * page
    with path.open("r+b") as handle:
        handle.seek(size // 2 // page * page)
        handle.write(b"\xa5\x17" * (2 * page))


def test_restore_refuses_a_corrupt_backup_and_changes_nothing(tmp_path: Path) -> None:
    store = filled(tmp_path / "detente.sqlite3")
    backup = Path(backup_file(store, tmp_path / "backup.sqlite3").path)
    corrupt = tmp_path / "corrupt.sqlite3"
    shutil.copyfile(backup, corrupt)
    _corrupt(corrupt)
    assert inspect_file(corrupt).problems  # SQLite sees the damage
    before = store.read_bytes()
    with pytest.raises(StoreError, match="backup .*corrupt.sqlite3"):
        restore_file(corrupt, store)
    assert store.read_bytes() == before
    assert not list(tmp_path.glob(".*.tmp"))


def test_restore_refuses_a_file_that_is_no_database(tmp_path: Path) -> None:
    store = filled(tmp_path / "detente.sqlite3", games=1, events=1)
    garbage = tmp_path / "garbage.sqlite3"
    garbage.write_bytes(b"\x00\x01not sqlite" * 1000)
    with pytest.raises(StoreError):
        restore_file(garbage, store)
    assert snapshot(store) == {"g0": [(1, "X")]}


def test_restore_refuses_a_newer_schema(tmp_path: Path) -> None:
    store = filled(tmp_path / "detente.sqlite3", games=1, events=1)
    backup = Path(backup_file(store, tmp_path / "backup.sqlite3").path)
    raw = sqlite3.connect(backup)
    raw.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    raw.close()
    with pytest.raises(StoreError, match=f"schema version {SCHEMA_VERSION + 1} is newer"):
        restore_file(backup, store)
    raw = sqlite3.connect(store)
    assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    raw.close()


def test_restore_migrates_an_older_backup(tmp_path: Path) -> None:
    old = tmp_path / "v1-backup.sqlite3"
    make_v1_file(old)
    report = restore_file(old, tmp_path / "detente.sqlite3")
    assert report.version == SCHEMA_VERSION and report.counts is not None and report.counts.events == 3


def test_restore_refuses_a_store_in_use_unless_forced(tmp_path: Path) -> None:
    path = filled(tmp_path / "detente.sqlite3", games=1, events=1)
    backup = Path(backup_file(path, tmp_path / "backup.sqlite3").path)
    assert not in_use(path)
    server = Store.open(path)
    try:
        server.create_game("after", {})
        assert in_use(path)
        with pytest.raises(StoreError, match="in use"):
            restore_file(backup, path)
        assert [g.id for g in server.games()] == ["g0", "after"]
        restore_file(backup, path, force=True)
    finally:
        server.close()
    assert snapshot(path) == {"g0": [(1, "X")]}


# --- the commands -------------------------------------------------------------------------------


def test_the_commands_back_up_check_and_restore_by_data_dir(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    filled(data / "nego.sqlite3", games=2, events=4)
    out = tmp_path / "nego-backup.sqlite3"
    assert main(["store", "backup", "--data-dir", str(data), "--server", "nego", str(out)]) == 0
    assert main(["store", "check", "--db", str(out)]) == 0
    assert "integrity ok" in capsys.readouterr().out
    assert main(["store", "restore", str(out), "--data-dir", str(data), "--server", "nego"]) == 0
    assert main(["store", "check", "--db", str(data / "nego.sqlite3"), "--json"]) == 0
    assert '"events": 8' in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["store", "check", "--db", "{tmp}/missing.sqlite3"], "no store at"),
        (["store", "backup", "--db", "{tmp}/missing.sqlite3", "{tmp}/out"], "no store at"),
        (["store", "restore", "{tmp}/missing.sqlite3", "--db", "{tmp}/s.sqlite3"], "no backup at"),
        (["store", "check", "--db", "{tmp}/corrupt.sqlite3"], "integrity check failed"),
        (["store", "restore", "{tmp}/corrupt.sqlite3", "--db", "{tmp}/s.sqlite3"], "cannot be restored"),
        (["store", "prune", "--db", "{tmp}/s.sqlite3"], "give --keep-days and/or --keep-games"),
        (["store", "prune", "--db", "{tmp}/missing.sqlite3", "--keep-days", "3"], "no store at"),
    ],
)
def test_bad_input_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    store = filled(tmp_path / "s.sqlite3")
    shutil.copyfile(store, tmp_path / "corrupt.sqlite3")
    _corrupt(tmp_path / "corrupt.sqlite3")
    assert main([arg.format(tmp=tmp_path) for arg in argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err
    assert not (tmp_path / "missing.sqlite3").exists()

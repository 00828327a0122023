"""The append-only store on a real SQLite file: round trips, WAL readers, and SIGKILL."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from server import store as store_module
from server.store import (
    SCHEMA_VERSION,
    NewEvent,
    SchemaVersionError,
    Store,
    StoredEvent,
    StoreError,
    UnknownGameError,
)

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "data" / "detente.sqlite3") as s:
        yield s


def test_open_makes_the_directory_and_uses_wal(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "store.sqlite3"
    with Store.open(path) as s:
        assert s.journal_mode == "wal"
    assert path.exists()
    raw = sqlite3.connect(path)
    assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    raw.close()


def test_open_is_idempotent_and_keeps_data(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"
    with Store.open(path) as s:
        s.create_game("g", {"press_level": 10})
        s.append("g", "NME", {"name": "bot"}, 1.0)
    for _ in range(2):
        with Store.open(path) as s:
            assert [g.id for g in s.games()] == ["g"]
            assert [e.kind for e in s.events("g")] == ["NME"]


def test_another_schema_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"
    Store.open(path).close()
    raw = sqlite3.connect(path)
    raw.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    raw.close()
    with pytest.raises(SchemaVersionError, match="schema version"):
        Store.open(path)


def test_a_file_that_is_no_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("not a database at all, but long enough to have a header " * 20)
    with pytest.raises(StoreError, match="cannot use"):
        Store.open(path)


def test_game_round_trip(store: Store) -> None:
    settings = {"name": "first", "press_level": 10, "deadlines": {"movement": 60.0}, "press_phases": ["movement"]}
    store.create_game("g1", settings, created=100.0)
    game = store.game("g1")
    assert game is not None
    assert (game.id, game.settings, game.created, game.finished, game.result) == ("g1", settings, 100.0, False, None)
    assert store.game("nope") is None


def test_duplicate_game_id_is_refused(store: Store) -> None:
    store.create_game("g1", {})
    with pytest.raises(StoreError, match="already exists"):
        store.create_game("g1", {})


def test_events_round_trip_in_order(store: Store) -> None:
    store.create_game("g", {})
    payloads = [{"i": i, "text": "é ü", "nested": {"list": [1, 2, None]}} for i in range(5)]
    seqs = [store.append("g", f"K{i}", p, at=10.0 + i) for i, p in enumerate(payloads)]
    assert seqs == [1, 2, 3, 4, 5]
    events = store.events("g")
    assert events == [StoredEvent("g", i + 1, f"K{i}", p, 10.0 + i) for i, p in enumerate(payloads)]
    assert [e.seq for e in store.events("g", after_seq=3)] == [4, 5]
    assert store.events("g", after_seq=5) == []
    assert store.last_seq("g") == 5


def test_sequences_are_per_game(store: Store) -> None:
    store.create_game("a", {})
    store.create_game("b", {})
    assert store.append("a", "X", {}, 1.0) == 1
    assert store.append("b", "X", {}, 1.0) == 1
    assert store.append("a", "X", {}, 1.0) == 2
    assert [e.seq for e in store.events("a")] == [1, 2]
    assert store.events("unknown") == []
    assert store.last_seq("unknown") == 0


def test_append_many_is_one_transaction(store: Store) -> None:
    store.create_game("g", {})
    store.append("g", "first", {}, 1.0)
    assert store.append_many("g", [NewEvent("a", {"x": 1}, 2.0), ("b", {"x": 2}, 3.0)]) == [2, 3]
    # one bad payload in the middle: nothing of the batch is stored
    with pytest.raises(StoreError, match="not JSON-serialisable"):
        store.append_many("g", [NewEvent("c", {}, 4.0), NewEvent("d", {"x": object()}, 5.0)])
    assert [e.kind for e in store.events("g")] == ["first", "a", "b"]
    assert store.append_many("g", []) == []


def test_append_to_an_unknown_game_is_refused(store: Store) -> None:
    with pytest.raises(UnknownGameError):
        store.append("nope", "X", {}, 1.0)


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ({"when": object()}, "not JSON-serialisable"),
        ({"x": float("nan")}, "not JSON-serialisable"),
        ({"s": {1, 2}}, "not JSON-serialisable"),
        (["not", "a", "dict"], "must be a JSON object"),
    ],
)
def test_payloads_must_be_json_objects(store: Store, payload: object, message: str) -> None:
    store.create_game("g", {})
    with pytest.raises(StoreError, match=message):
        store.append("g", "X", payload, 1.0)  # type: ignore[arg-type]
    with pytest.raises(StoreError, match=message):
        store.create_game("h", payload)  # type: ignore[arg-type]
    assert store.events("g") == []


def test_bad_kinds_and_times_are_refused(store: Store) -> None:
    store.create_game("g", {})
    with pytest.raises(StoreError, match="kind"):
        store.append("g", "", {}, 1.0)
    with pytest.raises(StoreError, match="finite"):
        store.append("g", "X", {}, float("inf"))


def test_unfinished_games_listing(store: Store) -> None:
    store.create_game("old", {}, created=1.0)
    store.create_game("mid", {}, created=2.0)
    store.create_game("new", {}, created=3.0)
    store.finish("mid", {"outcome": "solo", "powers": ["FRANCE"]}, at=9.0)
    assert [g.id for g in store.games()] == ["old", "mid", "new"]
    assert [g.id for g in store.games(unfinished_only=True)] == ["old", "new"]
    mid = store.game("mid")
    assert mid is not None
    assert mid.finished and mid.result == {"outcome": "solo", "powers": ["FRANCE"]} and mid.finished_at == 9.0


def test_finish_twice_or_unknown_is_refused(store: Store) -> None:
    store.create_game("g", {})
    store.finish("g", {"outcome": "draw"})
    with pytest.raises(StoreError, match="already finished"):
        store.finish("g", {"outcome": "solo"})
    with pytest.raises(UnknownGameError):
        store.finish("nope", {})


def test_meta_values(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"
    with Store.open(path) as s:
        assert s.get_meta("admin_token") is None
        assert s.get_meta("admin_token", "dflt") == "dflt"
        s.set_meta("admin_token", "abc")
        s.set_meta("admin_token", "def")
    with Store.open(path) as s:
        assert s.get_meta("admin_token") == "def"
        with pytest.raises(StoreError):
            s.set_meta("n", 3)  # type: ignore[arg-type]


def test_reader_is_not_blocked_by_an_open_write(tmp_path: Path) -> None:
    """WAL: a reader sees the committed events while another connection holds the write lock."""
    path = tmp_path / "s.sqlite3"
    with Store.open(path) as writer, Store.open(path) as reader:
        writer.create_game("g", {})
        writer.append("g", "committed", {}, 1.0)
        raw = sqlite3.connect(path, isolation_level=None)
        raw.execute("BEGIN IMMEDIATE")
        raw.execute("INSERT INTO events VALUES ('g', 2, 'pending', '{}', 2.0)")
        assert [e.kind for e in reader.events("g")] == ["committed"]  # neither blocked nor dirty
        raw.execute("COMMIT")
        raw.close()
        assert [e.kind for e in reader.events("g")] == ["committed", "pending"]


def test_concurrent_reader_sees_consistent_prefixes(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"
    total = 300
    with Store.open(path) as writer, Store.open(path) as reader:
        writer.create_game("g", {})

        def write() -> None:
            for i in range(0, total, 3):
                writer.append_many("g", [NewEvent("X", {"i": j}, float(j)) for j in range(i, i + 3)])

        thread = threading.Thread(target=write)
        thread.start()
        seen = 0
        while True:
            finished = not thread.is_alive()  # checked before reading, so the last read sees everything
            events = reader.events("g")
            # always a whole number of batches, numbered 1..n with no gap
            assert [e.seq for e in events] == list(range(1, len(events) + 1))
            assert len(events) % 3 == 0 and len(events) >= seen
            seen = len(events)
            if finished:
                break
        thread.join()
    assert seen == total


def test_the_store_is_usable_from_several_threads(store: Store) -> None:
    store.create_game("g", {})
    threads = [threading.Thread(target=lambda: [store.append("g", "X", {}, 1.0) for _ in range(50)]) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [e.seq for e in store.events("g")] == list(range(1, 201))


_CHILD = """
import sys
from server.store import Store
store = Store.open(sys.argv[1])
for i in range(int(sys.argv[2])):
    seq = store.append("g", "SUB", {"i": i, "pad": "x" * 200}, float(i))
    print(seq, flush=True)  # the acknowledgement: only after append has returned
"""


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_every_acknowledged_append_survives_sigkill(tmp_path: Path) -> None:
    path = tmp_path / "killed.sqlite3"
    with Store.open(path) as s:
        s.create_game("g", {"name": "to be killed"})
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    child = subprocess.Popen(
        [sys.executable, "-c", _CHILD, str(path), "1000000"], stdout=subprocess.PIPE, text=True, env=env, cwd=tmp_path
    )
    assert child.stdout is not None
    acknowledged: list[int] = []
    try:
        for line in child.stdout:
            acknowledged.append(int(line))
            if len(acknowledged) == 200:
                child.send_signal(signal.SIGKILL)  # mid-stream: the child is appending
                break
        # lines already in the pipe were acknowledged too
        acknowledged += [int(line) for line in child.stdout]
    finally:
        child.kill()
        child.wait()
        child.stdout.close()
    assert child.returncode == -signal.SIGKILL
    assert acknowledged == list(range(1, len(acknowledged) + 1))
    assert len(acknowledged) < 1000000

    with Store.open(path) as s:
        assert s.integrity_check() == "ok"
        stored = [e.seq for e in s.events("g")]
        # every acknowledged append is there; at most the one in flight was stored unacknowledged
        assert set(acknowledged) <= set(stored)
        assert stored == list(range(1, len(stored) + 1))
        assert len(stored) - len(acknowledged) <= 1
        assert [e.payload["i"] for e in s.events("g")] == [seq - 1 for seq in stored]
        assert s.append("g", "after restart", {}, 0.0) == len(stored) + 1


def test_a_batch_stores_each_game_whole_and_reports_the_games_it_could_not(store: Store) -> None:
    store.create_game("g1", {})
    store.create_game("g2", {})
    answers = store.append_batch(
        [
            ("g1", [("a", {}, 1.0), ("b", {}, 2.0)]),
            ("nope", [("c", {}, 3.0)]),
            ("g2", [("d", {"x": float("nan")}, 4.0)]),  # not JSON: the whole game's part is refused
            ("g2", [("e", {}, 5.0)]),  # a step on top of the refused one: refused with it
            ("g1", [("f", {}, 6.0)]),
        ]
    )
    assert answers[0] == [1, 2] and answers[4] == [3]
    assert isinstance(answers[1], UnknownGameError) and isinstance(answers[2], StoreError)
    assert answers[3] is answers[2] and store.events("g2") == []
    assert [e.kind for e in store.events("g1")] == ["a", "b", "f"]


# --- schema versions and migrations -------------------------------------------------------------

# The DDL of schema version 1 exactly as détente wrote it until version 2: the files in the
# field were made by this, and must open (and keep their data) under every later version.
_V1_DDL = """
CREATE TABLE IF NOT EXISTS games (
    id        TEXT PRIMARY KEY,
    settings  TEXT NOT NULL,
    created   REAL NOT NULL,
    finished  INTEGER NOT NULL DEFAULT 0,
    result    TEXT,
    finished_at REAL
);
CREATE TABLE IF NOT EXISTS events (
    game_id   TEXT NOT NULL REFERENCES games(id),
    seq       INTEGER NOT NULL,
    kind      TEXT NOT NULL,
    payload   TEXT NOT NULL,
    at        REAL NOT NULL,
    PRIMARY KEY (game_id, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS meta (
    key       TEXT PRIMARY KEY,
    value     TEXT NOT NULL
);
"""


def make_v1_file(path: Path, *, user_version: int = 1) -> None:
    """A store as version 1 of détente left it: two games, events, a meta value."""
    raw = sqlite3.connect(path)
    raw.execute("PRAGMA journal_mode=WAL")
    raw.executescript(_V1_DDL)
    raw.execute("INSERT INTO games VALUES ('old', '{\"press_level\": 0}', 1.0, 1, '{\"outcome\": \"draw\"}', 5.0)")
    raw.execute("INSERT INTO games (id, settings, created) VALUES ('live', '{}', 2.0)")
    raw.executemany(
        "INSERT INTO events VALUES (?, ?, ?, ?, ?)",
        [("old", 1, "NME", '{"name": "a"}', 1.5), ("old", 2, "DRW", "{}", 4.0), ("live", 1, "NME", "{}", 2.5)],
    )
    raw.execute("INSERT INTO meta VALUES ('open_game', 'live')")
    raw.execute(f"PRAGMA user_version={user_version}")
    raw.commit()
    raw.close()


def _index_names(path: Path) -> set[str]:
    raw = sqlite3.connect(path)
    try:
        return {row[0] for row in raw.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    finally:
        raw.close()


@pytest.mark.parametrize("user_version", [1, 0], ids=["version 1", "version 0 with the tables"])
def test_a_version_1_file_migrates_forward_and_keeps_its_data(tmp_path: Path, user_version: int) -> None:
    path = tmp_path / "v1.sqlite3"
    make_v1_file(path, user_version=user_version)
    with Store.open(path) as s:
        assert s.migrated_from == user_version
        assert [(g.id, g.finished, g.result, g.finished_at) for g in s.games()] == [
            ("old", True, {"outcome": "draw"}, 5.0),
            ("live", False, None, None),
        ]
        assert [(e.seq, e.kind, e.payload) for e in s.events("old")] == [(1, "NME", {"name": "a"}), (2, "DRW", {})]
        assert s.get_meta("open_game") == "live"
        assert s.append("live", "SUB", {}, 3.0) == 2  # still appends after the last event
        s.quarantine("old", 2, "ValueError: bad")  # the table of version 2 is there
        assert [(q.game_id, q.seq) for q in s.quarantined()] == [("old", 2)]
        assert s.integrity_check() == "ok"
    assert "games_by_finish" in _index_names(path)
    raw = sqlite3.connect(path)
    assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    raw.close()
    with Store.open(path) as again:  # nothing left to migrate
        assert again.migrated_from is None


def test_a_failed_migration_step_leaves_the_file_as_it_was(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "v1.sqlite3"
    make_v1_file(path)
    broken = store_module.Migration(2, "fails half way", (*store_module.MIGRATIONS[1].statements, "NOT SQL AT ALL"))
    monkeypatch.setattr(store_module, "MIGRATIONS", (store_module.MIGRATIONS[0], broken))
    with pytest.raises(StoreError, match="cannot use"):
        Store.open(path)
    raw = sqlite3.connect(path)
    assert raw.execute("PRAGMA user_version").fetchone()[0] == 1
    assert "quarantine" not in {row[0] for row in raw.execute("SELECT name FROM sqlite_master")}
    raw.close()
    monkeypatch.undo()
    with Store.open(path) as s:  # the real step still applies afterwards
        assert s.migrated_from == 1 and len(s.events("old")) == 2


def test_a_newer_file_is_refused_with_a_clear_message_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"
    Store.open(path).close()
    raw = sqlite3.connect(path)
    raw.execute("PRAGMA user_version=99")
    raw.close()
    with pytest.raises(SchemaVersionError, match="version 99, newer than this détente's") as caught:
        Store.open(path)
    assert "upgrade" in str(caught.value)
    raw = sqlite3.connect(path)
    assert raw.execute("PRAGMA user_version").fetchone()[0] == 99
    raw.close()


def test_a_database_of_something_else_is_not_adopted(tmp_path: Path) -> None:
    path = tmp_path / "other.sqlite3"
    raw = sqlite3.connect(path)
    raw.execute("CREATE TABLE invoices (n INTEGER)")
    raw.close()
    with pytest.raises(StoreError, match="not a détente store: it has the tables invoices"):
        Store.open(path)


def test_read_only_opening_reads_older_versions_and_refuses_newer(tmp_path: Path) -> None:
    path = tmp_path / "v1.sqlite3"
    make_v1_file(path)
    with Store.open_read_only(path) as s:
        assert [g.id for g in s.games()] == ["old", "live"]
        assert s.counts() == store_module.Counts(games=2, finished=1, events=3, quarantined=0)
        with pytest.raises(sqlite3.OperationalError):
            s.set_meta("x", "y")
    raw = sqlite3.connect(path)
    assert raw.execute("PRAGMA user_version").fetchone()[0] == 1  # not migrated
    raw.execute("PRAGMA user_version=99")
    raw.close()
    with pytest.raises(SchemaVersionError):
        Store.open_read_only(path)
    with pytest.raises(StoreError, match="no store"):
        Store.open_read_only(tmp_path / "missing.sqlite3")
    assert not (tmp_path / "missing.sqlite3").exists()


# --- quarantine and delete ----------------------------------------------------------------------


def test_quarantine_keeps_the_first_time_and_the_latest_reason(store: Store) -> None:
    store.create_game("g", {})
    store.quarantine("g", 3, "first", at=1.0)
    store.quarantine("g", 3, "second", at=2.0)
    store.quarantine("h", 1, "other game", at=3.0)
    assert store.quarantined("g") == [store_module.Quarantined("g", 3, "second", 1.0)]
    assert [q.game_id for q in store.quarantined()] == ["g", "h"]


def test_delete_game_removes_one_finished_game_whole(store: Store) -> None:
    for game_id in ("a", "b"):
        store.create_game(game_id, {})
        store.append_many(game_id, [NewEvent("X", {}, 1.0), NewEvent("Y", {}, 2.0)])
        store.finish(game_id, {}, at=3.0)
    store.quarantine("a", 1, "bad")
    assert store.delete_game("a") == 2
    assert store.game("a") is None and store.events("a") == [] and store.quarantined() == []
    assert [g.id for g in store.games()] == ["b"] and len(store.events("b")) == 2
    assert store.finished_games() == [store_module.FinishedGame("b", 3.0)]
    with pytest.raises(UnknownGameError):
        store.delete_game("a")


def test_delete_game_refuses_unfinished_games_and_games_that_changed(store: Store) -> None:
    store.create_game("live", {})
    store.append("live", "X", {}, 1.0)
    with pytest.raises(StoreError, match="not finished"):
        store.delete_game("live")
    store.finish("live", {}, at=2.0)
    store.append("live", "late", {}, 3.0)  # after an export that saw only event 1
    with pytest.raises(StoreError, match="has events up to 2, not 1"):
        store.delete_game("live", last_seq=1)
    assert len(store.events("live")) == 2
    assert store.delete_game("live", last_seq=2) == 2


def test_a_listing_takes_the_unfinished_games_and_the_most_recently_finished(tmp_path: Path) -> None:
    with Store.open(tmp_path / "s.sqlite3") as store:
        for i, game_id in enumerate(["a", "b", "c", "d"]):
            store.create_game(game_id, {}, created=float(i))
        store.finish("a", {"outcome": "draw"}, at=30.0)
        store.finish("b", {"outcome": "draw"}, at=10.0)
        store.finish("c", {"outcome": "draw"}, at=20.0)
        assert [g.id for g in store.games(finished=2)] == ["a", "c", "d"]  # oldest first; b finished first
        assert [g.id for g in store.games(finished=0)] == ["d"]
        assert [g.id for g in store.games()] == ["a", "b", "c", "d"]


def test_a_finished_game_is_added_whole_or_not_at_all(store: Store) -> None:
    events = [("adjudicate", {"phase": "S1901M"}, 1.0), ("press", {"sender": "FRANCE"}, 1.0)]
    store.add_finished_game("i1", {"name": "imported"}, events, {"outcome": "draw", "powers": [], "phase": "F1901M"}, 2.0)
    (game,) = [g for g in store.games() if g.id == "i1"]
    assert game.finished and game.result == {"outcome": "draw", "powers": [], "phase": "F1901M"}
    assert [e.kind for e in store.events("i1")] == ["adjudicate", "press"]
    assert "i1" not in [g.id for g in store.games(unfinished_only=True)]  # nothing for a restart to replay
    with pytest.raises(StoreError):  # an event that is no JSON: neither the row nor any event is kept
        store.add_finished_game("i2", {}, [("press", {"x": 1}, 1.0), ("press", {"bad": object()}, 1.0)], {}, 2.0)
    assert store.game("i2") is None and store.events("i2") == []
    with pytest.raises(StoreError):  # an id in use
        store.add_finished_game("i1", {}, [], {}, 2.0)
    assert len(store.events("i1")) == 2

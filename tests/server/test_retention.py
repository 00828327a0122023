"""Retention on real SQLite stores: the choice, the export before the delete, the dry run,
the periodic task of the servers, their settings, and ``detente store prune``."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from detente.cli import build_parser, main
from server import main as game_main
from server.nego import main as nego_main
from server.nego.settings import load_nego_settings
from server.retention import (
    DAY,
    MIN_AGE,
    Policy,
    PruneReport,
    RetentionTask,
    prune,
    start_retention,
    to_delete,
)
from server.settings import SettingsError, load_settings
from server.store import FinishedGame, NewEvent, Store

NOW = 1_000 * DAY


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    """Games finished 30, 10 and 2 days ago and an hour ago minus a minute, one unfinished
    since a year ago, and one finished 40 days ago with a quarantined record."""
    with Store.open(tmp_path / "data" / "detente.sqlite3") as s:
        for game_id, days in (("d30", 30), ("d10", 10), ("d2", 2), ("fresh", (MIN_AGE - 60) / DAY), ("q40", 40)):
            s.create_game(game_id, {"name": game_id}, created=NOW - days * DAY - 100)
            s.append_many(game_id, [NewEvent("NME", {"p": i}, NOW - days * DAY - 50) for i in range(3)])
            s.finish(game_id, {"outcome": "draw", "game": game_id}, at=NOW - days * DAY)
        s.quarantine("q40", 2, "ValueError: bad record", at=NOW)
        s.create_game("unfinished", {"name": "old but live"}, created=NOW - 365 * DAY)
        s.append("unfinished", "NME", {}, NOW - 365 * DAY)
        yield s


def ids(store: Store) -> list[str]:
    return sorted(g.id for g in store.games())


def test_the_choice_keeps_a_game_any_rule_keeps() -> None:
    games = [FinishedGame(f"g{i}", NOW - i * DAY) for i in range(1, 11)]  # g1 newest ... g10 oldest
    assert to_delete(games, NOW, Policy(keep_days=7)) == ["g10", "g9", "g8", "g7"]
    assert to_delete(games, NOW, Policy(keep_games=8)) == ["g10", "g9"]
    assert to_delete(games, NOW, Policy(keep_days=7, keep_games=8)) == ["g10", "g9"]
    assert to_delete(games, NOW, Policy(keep_days=9.5, keep_games=3)) == ["g10"]
    assert to_delete(list(reversed(games)), NOW, Policy(keep_games=8)) == ["g10", "g9"]  # order given: any
    assert to_delete(games, NOW, Policy()) == []
    assert to_delete([*games, FinishedGame("undated", None)], NOW, Policy(keep_games=0))[-1] == "g1"  # undated: kept
    assert to_delete([FinishedGame("g", NOW - MIN_AGE + 1)], NOW, Policy(keep_games=0)) == []
    assert to_delete([FinishedGame("g", NOW - MIN_AGE)], NOW, Policy(keep_games=0)) == ["g"]


def test_prune_keeps_unfinished_games_and_exports_before_each_delete(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    export_dir = tmp_path / "exports"
    events_before = {g: store.events(g) for g in ("d30", "q40")}
    deleted_seen: list[str] = []
    real_delete = store.delete_game

    def delete_after_export(game_id: str, last_seq: int | None = None) -> int:
        # the export is whole and durable before its game goes
        assert json.loads((export_dir / f"detente-{game_id}.json").read_text())["id"] == game_id
        assert last_seq == 3
        deleted_seen.append(game_id)
        return real_delete(game_id, last_seq)

    monkeypatch.setattr(store, "delete_game", delete_after_export)
    report = prune(store, Policy(keep_days=7, keep_games=1), NOW, export_dir=export_dir)

    assert deleted_seen == ["q40", "d30", "d10"]  # the oldest first
    assert [p.game_id for p in report.pruned] == deleted_seen and report.events == 9
    assert ids(store) == ["d2", "fresh", "unfinished"]
    assert store.events("unfinished") and store.quarantined() == []
    exported = json.loads((export_dir / "detente-q40.json").read_text())
    assert exported["format"] == "detente-game-export/1" and exported["store"] == "detente"
    assert exported["settings"] == {"name": "q40"} and exported["result"] == {"outcome": "draw", "game": "q40"}
    assert exported["finished_at"] == NOW - 40 * DAY
    assert exported["events"] == [
        {"seq": e.seq, "kind": e.kind, "payload": e.payload, "at": e.at} for e in events_before["q40"]
    ]
    assert exported["quarantined"] == [{"seq": 2, "reason": "ValueError: bad record", "at": NOW}]
    assert sorted(p.name for p in export_dir.iterdir()) == ["detente-d10.json", "detente-d30.json", "detente-q40.json"]


def test_even_the_strictest_policy_never_touches_unfinished_or_fresh_games(store: Store) -> None:
    prune(store, Policy(keep_games=0), NOW)
    assert ids(store) == ["fresh", "unfinished"]


def test_a_dry_run_deletes_and_exports_nothing(store: Store, tmp_path: Path) -> None:
    before = {g.id: store.events(g.id) for g in store.games()}
    report = prune(store, Policy(keep_days=1), NOW, export_dir=tmp_path / "exports", dry_run=True)
    assert [(p.game_id, p.events, p.exported) for p in report.pruned] == [
        ("q40", 3, None),
        ("d30", 3, None),
        ("d10", 3, None),
        ("d2", 3, None),
    ]
    assert report.summary().startswith("would delete 4 of 5 finished games (12 events)")
    assert {g.id: store.events(g.id) for g in store.games()} == before
    assert not (tmp_path / "exports").exists()


def test_a_game_that_cannot_be_exported_is_not_deleted(store: Store, tmp_path: Path) -> None:
    not_a_directory = tmp_path / "exports"
    not_a_directory.write_text("a file where the directory should be")
    with pytest.raises(OSError):
        prune(store, Policy(keep_days=7), NOW, export_dir=not_a_directory)
    assert ids(store) == ["d10", "d2", "d30", "fresh", "q40", "unfinished"]


def test_a_game_changed_after_its_export_is_skipped_for_the_next_pass(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from server import retention

    real_export = retention.export_game

    def export_then_append(s: Store, game_id: str, export_dir: Path, prefix: str) -> tuple[Path, int]:
        exported = real_export(s, game_id, export_dir, prefix)
        if game_id == "d30":
            s.append("d30", "late", {}, NOW)  # a server recorded one more event meanwhile
        return exported

    monkeypatch.setattr(retention, "export_game", export_then_append)
    report = prune(store, Policy(keep_days=20), NOW, export_dir=tmp_path / "exports")
    assert [p.game_id for p in report.pruned] == ["q40"]
    assert [game_id for game_id, _ in report.skipped] == ["d30"]
    assert len(store.events("d30")) == 4
    monkeypatch.undo()
    assert [p.game_id for p in prune(store, Policy(keep_days=20), NOW, export_dir=tmp_path / "exports").pruned] == [
        "d30"
    ]
    assert len(json.loads((tmp_path / "exports" / "detente-d30.json").read_text())["events"]) == 4


async def test_the_server_task_prunes_at_start_and_stops_cleanly(store: Store, tmp_path: Path) -> None:
    passes: asyncio.Queue[PruneReport | BaseException] = asyncio.Queue()
    task = RetentionTask(
        store,
        Policy(keep_days=7),
        export_dir=tmp_path / "exports",
        interval=3_600,
        clock=lambda: NOW,
        on_pass=passes.put_nowait,
    )
    task.start()
    first = await asyncio.wait_for(passes.get(), 10)
    assert isinstance(first, PruneReport) and [p.game_id for p in first.pruned] == ["q40", "d30", "d10"]
    await asyncio.wait_for(task.stop(), 10)  # does not wait out the hour
    assert ids(store) == ["d2", "fresh", "unfinished"]
    assert passes.empty()


async def test_a_failed_pass_is_reported_and_does_not_end_the_task(store: Store, tmp_path: Path) -> None:
    (tmp_path / "exports").write_text("not a directory")
    passes: asyncio.Queue[PruneReport | BaseException] = asyncio.Queue()
    task = RetentionTask(
        store,
        Policy(keep_days=7),
        export_dir=tmp_path / "exports",
        interval=0.01,
        clock=lambda: NOW,
        on_pass=passes.put_nowait,
    )
    task.start()
    assert isinstance(await asyncio.wait_for(passes.get(), 10), OSError)
    assert isinstance(await asyncio.wait_for(passes.get(), 10), OSError)  # and it goes on
    await task.stop()
    assert "d30" in ids(store)


async def test_the_default_policy_starts_no_task(store: Store) -> None:
    assert start_retention(store, Policy()) is None


# --- settings and commands -----------------------------------------------------------------------


def test_both_servers_take_the_retention_settings(tmp_path: Path) -> None:
    base = {"data_dir": str(tmp_path), "admin_token": "t", "secret": "s"}
    game, _ = load_settings(base, {})
    assert (game.keep_days, game.keep_games, game.export_dir, game.retention_interval) == (None, None, None, 3600.0)
    assert not game.retention_policy().active
    game, _ = load_settings({**base, "keep_days": 30, "keep_games": "500", "export_dir": str(tmp_path / "x")}, {})
    assert game.retention_policy() == Policy(keep_days=30, keep_games=500) and game.export_dir == tmp_path / "x"
    nego, _ = load_nego_settings({**base, "game_server": "http://127.0.0.1:8700", "keep_games": 5}, {})
    assert nego.retention_policy() == Policy(keep_games=5)
    with pytest.raises(SettingsError, match="--keep-days"):
        load_settings({**base, "keep_days": -1}, {})
    with pytest.raises(SettingsError, match="--retention-interval"):
        load_nego_settings({**base, "game_server": "http://x:1", "retention_interval": 0}, {})


def test_both_commands_take_the_retention_options() -> None:
    options = ["--keep-days", "30", "--keep-games", "100", "--export-dir", "/x", "--retention-interval", "60"]
    for argv, keys in (
        (["serve", *options], game_main._SERVE_KEYS),
        (["nego", "--game-server", "http://127.0.0.1:8700", *options], nego_main._KEYS),
    ):
        args = build_parser().parse_args(argv)
        values = {key: getattr(args, key) for key in ("keep_days", "keep_games", "export_dir", "retention_interval")}
        assert values == {"keep_days": 30.0, "keep_games": 100, "export_dir": "/x", "retention_interval": 60.0}
        assert set(values) <= set(keys)


def test_the_prune_command(store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = store.path
    argv = ["store", "prune", "--db", db, "--keep-days", "1", "--export-dir", str(tmp_path / "out")]
    assert main([*argv, "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "would delete q40 (finished" in out and "unfinished games are never deleted" in out
    assert len(ids(store)) == 6 and not (tmp_path / "out").exists()
    assert main(argv) == 0  # the real clock: everything finished more than a day before it
    assert ids(store) == ["unfinished"]
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        f"detente-{g}.json" for g in ("d10", "d2", "d30", "fresh", "q40")
    ]


def test_the_store_command_finds_the_files_the_servers_use() -> None:
    from detente import store_command
    from server import settings
    from server.nego import settings as nego_settings

    assert store_command.DEFAULT_DATA_DIR == settings.DEFAULT_DATA_DIR
    assert (store_command.DB_NAME, store_command.NEGO_DB_NAME) == (settings.DB_NAME, nego_settings.DB_NAME)

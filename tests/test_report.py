"""``detente report``: real runs and a real game server's store in, one self-contained HTML page out."""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import sqlite3
from html.parser import HTMLParser
from pathlib import Path
from types import ModuleType

import pytest

from bots.registry import make_bot
from bots.session import BotSession
from detente import report_command, run_command
from protocol.daide.parser import parse
from server.api_models import GameCreate
from server.service import Connection, GameService
from server.store import Store

pytestmark = pytest.mark.filterwarnings("error::UserWarning")  # a chart matplotlib could not lay out


def command(module: ModuleType, argv: list[str]) -> int:
    """Run a ``detente`` command as the command line would (``detente.cli`` dispatches to the same)."""
    parser = argparse.ArgumentParser()
    module.add_arguments(parser)
    return int(module.run(parser.parse_args(argv)))


def detente_run(out: Path, bots: str, seed: int, games: int = 3) -> dict:
    """A real ``detente run`` of a few short games (negotiating bots: messages and compliance exist)."""
    argv = ["--bots", bots, "--games", str(games), "--seed", str(seed), "--jobs", "1", "--year-limit", "1902"]
    assert command(run_command, [*argv, "--out", str(out)]) == 0
    return json.loads((out / "summary.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An experiment of two sessions: ``runs/a`` and ``runs/b``."""
    root = tmp_path_factory.mktemp("runs")
    detente_run(root / "a", "randomnegotiator", seed=1)
    detente_run(root / "b", "randomnegotiator,dumbbot", seed=2, games=2)
    return root


class Page(HTMLParser):
    """The parts of the page the tests look at: the tables' rows, the svg elements, the sections."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self.svgs = 0
        self.sections: list[str] = []
        self._cell: list[str] | None = None
        self.feed(text)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "svg":
            self.svgs += 1
        elif tag == "section":
            self.sections.append(dict(attrs).get("id") or "")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append("".join(self._cell).strip())
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def report(source: Path, out: Path, *options: str) -> tuple[str, Page]:
    assert command(report_command, [str(source), "-o", str(out), *options]) == 0
    text = out.read_text(encoding="utf-8")
    return text, Page(text)


def assert_self_contained(text: str) -> None:
    """No reference to anything outside the page (the SVG namespaces are names, not resources)."""
    without_namespaces = re.sub(r'xmlns(:\w+)?="[^"]*"', "", text)
    assert "http://" not in without_namespaces and "https://" not in without_namespaces
    assert not re.search(r"<(script|link|img|iframe)\b", text)
    assert "<!DOCTYPE svg" not in text and "<?xml" not in text


def bot_rows(page: Page, role: str = "bot") -> list[list[str]]:
    """The rows of the tables per bot (or power), in the order of the page."""
    rows, inside = [], False
    for row in page.rows:
        if row and row[0] in ("bot", "power", "session", "game", "scoring system", "seat"):
            inside = row[0] == role and row[1:2] == ["plays"]  # not the diplomacy table, also per bot
        elif inside:
            rows.append(row)
    return rows


def expected_row(entry: dict) -> list[str]:
    se = "-" if entry["se_centres"] is None else f"{entry['se_centres']:.2f}"
    return [
        entry["bot"],
        str(entry["plays"]),
        f"{entry['mean_centres']:.2f}",
        se,
        f"{entry['wins']:.2f}",
        f"{100 * entry['win_rate']:.1f}",
        f"{entry['mean_rank']:.2f}",
    ]


def system_rows(page: Page) -> list[list[str]]:
    """The rows of the tables of the scoring systems, in the order of the page."""
    rows, inside = [], False
    for row in page.rows:
        if row and row[0] in ("bot", "power", "session", "game", "scoring system"):
            inside = row[0] == "scoring system"
        elif inside:
            rows.append(row)
    return rows


def test_one_run(runs: Path, tmp_path: Path) -> None:
    text, page = report(runs / "a", tmp_path / "a.html", "--games-shown", "2")
    assert_self_contained(text)
    summary = json.loads((runs / "a" / "summary.json").read_text(encoding="utf-8"))
    assert bot_rows(page) == [expected_row(entry) for entry in summary["table"]]
    # the scoring systems, per game with 95 % intervals: centres and rank agree with summary.json's per-game estimates
    systems = system_rows(page)
    assert [row[0] for row in systems] == ["draw-size", "sum-of-squares", "centres", "rank", "win"]
    (entry,) = summary["table"]
    centres = entry["per_game"]["centres"]
    assert systems[2][1] == f"{centres['mean']:.2f} [{centres['low']:.2f}, {centres['high']:.2f}]"
    assert systems[3][1].startswith(f"{entry['mean_rank']:.2f} [")
    # one session: the chart per bot, the pairs of powers, the press, two games (no chart of sessions)
    assert page.svgs == text.count("</svg>") == 1 + 1 + 1 + 2
    assert page.sections == ["experiment", "session-1"]
    for words in ("attacks", "deals proposed", "deals accepted", "deals kept", "messages by level", "propose"):
        assert words in text
    assert "The supply centres of the first 2 of 3 games" in text
    games = [row for row in page.rows if row and row[0].startswith("game ")]
    assert [row[0] for row in games] == ["game 1", "game 2", "game 3"]


def test_kept_and_accepted_come_from_the_records(runs: Path, tmp_path: Path) -> None:
    """The heatmap labels count what the records hold: every compliance frame is reported once per pair."""
    text, _ = report(runs / "a", tmp_path / "a.html", "--games-shown", "0")
    records = [json.loads(p.read_text(encoding="utf-8")) for p in sorted((runs / "a" / "games").glob("*.json"))]
    frames = [e for r in records for e in r["events"] if e["type"] == "compliance"]
    accepts = [m for r in records for m in r["messages"] if m.get("kind") == "accept"]
    assert frames and accepts  # seven random negotiators do agree on something
    labels = re.findall(r">(\d+)/(\d+)</text>", text)
    reported = sum(int(n) for _, n in labels)
    kept = sum(int(k) for k, _ in labels)
    # a deal between two parties fills two cells
    assert reported == 2 * len(frames)
    assert kept == 2 * sum(all(r["kept"] for r in f["reports"]) for f in frames)


def test_two_sessions_are_grouped(runs: Path, tmp_path: Path) -> None:
    text, page = report(runs, tmp_path / "both.html", "--games-shown", "1")
    assert_self_contained(text)
    assert page.sections == ["experiment", "session-1", "session-2"]
    # the chart of the sessions, then per session: bots, pairs, press, one game
    assert page.svgs == 1 + 2 * 4
    tables = [json.loads((runs / name / "summary.json").read_text(encoding="utf-8"))["table"] for name in "ab"]
    assert bot_rows(page) == [expected_row(entry) for table in tables for entry in table]
    overview = [row for row in page.rows if row and row[0] in ("a", "b")]
    assert [(row[0], row[1]) for row in overview] == [("a", "3"), ("b", "2")]
    assert "randomnegotiator ×1, dumbbot ×6" in text


# --- a game server's database ----------------------------------------------------------------------


async def play_on_the_server(path: Path) -> str:
    """One game (1901 only) of seven DumbBots on a real :class:`GameService` and its store, with one
    DAIDE proposal; the id of the game."""
    store = Store.open(path)
    create = GameCreate(name="report test", deadlines=None, year_limit=1901, press_level=10)
    service = GameService(store, create, rng=random.Random(5))  # the same powers, so the same game, each run
    await service.start()
    game_id = service.open_game_id
    assert game_id is not None
    sessions = {service.connect(): BotSession(make_bot("dumbbot", seed)) for seed in range(7)}
    for conn, session in sessions.items():
        await say(service, conn, session.start())
    proposed = False
    while not store.game(game_id).finished:  # type: ignore[union-attr]
        for conn, session in sessions.items():
            while not conn.outbox.empty():
                text = conn.outbox.get_nowait()
                assert text is not None, "the server closed a connection"
                await say(service, conn, session.receive(parse(text)))
            if session.due:
                if not proposed and session.power is not None:
                    other = "FRA" if session.power != "FRA" else "GER"
                    await service.receive(conn, f"SND ({other}) (PRP (PCE ({session.power} {other})))")
                    proposed = True
                await say(service, conn, session.submit())
    await service.stop()
    store.close()
    return game_id


async def say(service: GameService, conn: Connection, messages: list) -> None:
    for message in messages:
        await service.receive(conn, str(message))


async def test_a_game_server_database(tmp_path: Path) -> None:
    db = tmp_path / "server.sqlite3"
    game_id = await play_on_the_server(db)
    before = db.read_bytes()
    text, page = report(db, tmp_path / "db.html")
    assert db.read_bytes() == before  # read, never written
    assert_self_contained(text)
    assert page.sections == ["experiment", "session-1"]
    assert page.svgs == 1 + 1 + 1 + 1  # powers, pairs, press, the one game
    rows = bot_rows(page, role="power")
    assert [row[0] for row in rows] == ["AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY"]
    assert all(row[1] == "1" for row in rows)
    # the win, shared: the table shows each share to 2 decimals (three ways: 0.33 each)
    assert sum(float(row[4]) for row in rows) == pytest.approx(1.0, abs=0.005 * len(rows))
    assert game_id in text and "DAIDE 10" in text and "propose" in text
    (game_row,) = [row for row in page.rows if row and row[0] == game_id]
    assert game_row[2:] == ["draw", "-", "1901", "3", "1", "-"]  # S1901M, F1901M, W1901A; one message; no notary


# --- bad input -------------------------------------------------------------------------------------


def fails(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert command(report_command, argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("detente report: ") and err.count("\n") == 1 and "Traceback" not in err
    return err


def test_bad_input(runs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = str(tmp_path / "out.html")
    assert "does not exist" in fails([str(tmp_path / "missing"), "-o", out], capsys)
    (tmp_path / "empty").mkdir()
    assert "is not a run directory" in fails([str(tmp_path / "empty"), "-o", out], capsys)
    (tmp_path / "notes.txt").write_text("hello\n", encoding="utf-8")
    assert "neither a run directory nor" in fails([str(tmp_path / "notes.txt"), "-o", out], capsys)

    broken = tmp_path / "broken"
    shutil.copytree(runs / "a", broken)
    (broken / "games" / "2.json").write_text('{"game": 2, "phases": [', encoding="utf-8")
    assert "2.json: invalid JSON at line 1" in fails([str(broken), "-o", out], capsys)
    (broken / "games" / "2.json").write_text('{"game": 2}', encoding="utf-8")
    assert "2.json is not a game record as detente run writes it: KeyError 'phases'" in fails(
        [str(broken), "-o", out], capsys
    )
    (broken / "games" / "2.json").unlink()
    assert "2.json: No such file" in fails([str(broken), "-o", out], capsys)
    lines = (broken / "games.jsonl").read_text(encoding="utf-8").splitlines()
    (broken / "games.jsonl").write_text('{"game": 1}\n', encoding="utf-8")
    assert "games.jsonl is not one game a line as detente run writes them: KeyError 'seed'" in fails(
        [str(broken), "-o", out], capsys
    )
    first = json.loads(lines[0])
    first["scores"]["AUSTRIA"] = {"bot": "x"}
    (broken / "games.jsonl").write_text(json.dumps(first) + "\n", encoding="utf-8")
    assert "games.jsonl is not one game a line" in fails([str(broken), "-o", out], capsys)
    (broken / "summary.json").unlink()
    assert "summary.json is missing" in fails([str(broken), "-o", out], capsys)

    db = tmp_path / "other.sqlite3"
    with sqlite3.connect(db) as connection:
        connection.execute("PRAGMA user_version = 99")
    assert "schema version 99" in fails([str(db), "-o", out], capsys)
    Store.open(tmp_path / "none.sqlite3").close()
    assert "holds no finished game" in fails([str(tmp_path / "none.sqlite3"), "-o", out], capsys)

    assert "cannot write" in fails([str(runs / "a"), "-o", str(tmp_path / "no" / "such" / "dir.html")], capsys)
    with pytest.raises(SystemExit):
        command(report_command, [str(runs / "a"), "-o", out, "--games-shown", "-1"])
    assert not Path(out).exists()


def test_a_variant_is_refused_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the report's tables and charts are the standard board's seven powers
    out = tmp_path / "variant"
    argv = [
        "--bots",
        "holdbot,randombot",
        "--games",
        "1",
        "--seed",
        "2",
        "--year-limit",
        "1902",
        "--map",
        "france_austria",
        "--jobs",
        "1",
    ]
    assert command(run_command, [*argv, "--out", str(out)]) == 0
    capsys.readouterr()
    message = fails([str(out), "-o", str(tmp_path / "out.html")], capsys)
    assert "is played on the map france_austria: detente report reads games of the standard map only" in message
    assert not (tmp_path / "out.html").exists()

"""``detente play`` as a session a person leaves and resumes: real processes, real signals, real ports.

Ctrl-C (SIGINT) and SIGTERM stop it within 2 s with one line and exit status 0; the next
``detente play`` in the same directory resumes the game, its bots back in their own seats
and its deadline moved by the time it was stopped; ``--new`` cancels it and starts another;
a port or a data directory in use is said in one line, with exit status 2.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import websockets

from referee.deadlines import Deadlines
from referee.effects import Record
from referee.game import GameMaster
from referee.settings import GameSettings
from server.store import Store
from tests.server.ws_helpers import DaideClient

START_TIMEOUT = 20.0
STOP_LIMIT = 2.0
SEAT = re.compile(
    r"^detente: your seat \(open it in any browser\): (http://[^/]+)/#/game/(\w+)\?power=(\w+)&session=(\S+)$"
)
POWERS = ("AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY")


class Play:
    """One ``detente play`` process, started and read until it prints the seat's link."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.lines: list[str] = []
        self.base = self.game = self.power = self.token = ""

    @classmethod
    async def start(cls, data: Path, *options: str) -> Play:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "detente",
            "play",
            "--no-browser",
            "--data-dir",
            str(data),
            *options,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        play = cls(process)
        assert process.stdout is not None
        try:
            async with asyncio.timeout(START_TIMEOUT):
                while True:
                    line = (await process.stdout.readline()).decode()
                    assert line, f"detente play ended early: {play.lines}"
                    play.lines.append(line.rstrip("\n"))
                    if match := SEAT.match(play.lines[-1]):
                        play.base, play.game, play.power, play.token = match.groups()
                        break
                # the last line says how to stop and resume, and where the logs are
                play.lines.append((await process.stdout.readline()).decode().rstrip("\n"))
        except BaseException:
            await play.kill()
            raise
        return play

    async def info(self) -> dict[str, Any]:
        url = f"{self.base}/api/games/{self.game}"
        return json.loads(await asyncio.to_thread(lambda: urllib.request.urlopen(url, timeout=5).read()))

    async def until(self, check: Any, timeout: float = 15.0) -> dict[str, Any]:
        """The game's info once ``check(info)`` holds (polled; fails after ``timeout`` seconds)."""
        async with asyncio.timeout(timeout):
            while not check(info := await self.info()):
                await asyncio.sleep(0.05)
        return info

    async def person(self) -> DaideClient:
        """The person's page, opened with the seat link: ``IAM`` with the session token."""
        client = DaideClient(await websockets.connect(f"ws{self.base[4:]}/daide?game={self.game}"))
        await client.send(f"IAM ({self.power}) ('{self.token}')")
        assert (await client.expect("YES")).startswith("YES (IAM")
        client.power = self.power
        return client

    async def stop(self, signum: int = signal.SIGINT) -> tuple[float, int, list[str], str]:
        """Send ``signum``; the seconds until the process ended, its status, its last lines, its stderr."""
        assert self.process.stdout is not None and self.process.stderr is not None
        started = time.monotonic()
        self.process.send_signal(signum)
        async with asyncio.timeout(10):
            code = await self.process.wait()
        seconds = time.monotonic() - started
        rest = (await self.process.stdout.read()).decode().splitlines()
        return seconds, code, rest, (await self.process.stderr.read()).decode()

    async def kill(self) -> None:
        if self.process.returncode is None:
            self.process.kill()
            await self.process.wait()


def connected(info: dict[str, Any]) -> set[str]:
    return {p["power"] for p in info["players"] if p["connected"]}


def events(data: Path, game: str) -> list[Any]:
    store = Store.open_read_only(data / "detente.sqlite3")
    try:
        return store.events(game)
    finally:
        store.close()


async def test_ctrl_c_stops_at_once_and_the_next_play_resumes_the_game_with_its_bots(tmp_path: Path) -> None:
    data = tmp_path / "data"
    first = await Play.start(data, "--bots", "holdbot", "--power", "fra", "--port", "0", "--deadlines", "900,900,900")
    try:
        assert [line.split(":")[0] for line in first.lines] == ["detente"] * 3
        assert first.lines[0].startswith(f"detente: game {first.game}: you play France against Austria holdbot, ")
        assert first.power == "FRA"
        # detente play holds the person's seat until the page takes it: all seven are connected
        info = await first.until(lambda i: connected(i) == set(POWERS))
        assert info["status"] == "playing" and info["phase"] == "S1901M"
        person = await first.person()  # the page opened with the link takes the seat over
        await person.send("NOW")
        sub, _ = person.holds(await person.expect("NOW"))
        await person.send(sub)
        await person.expect("NOW")  # the next phase's (what came before it is read too: the close is not held up)
        await first.until(lambda i: i["phase"] == "F1901M")
        await person.close()
        seconds, code, rest, errors = await first.stop(signal.SIGINT)
    finally:
        await first.kill()
    assert code == 0 and seconds < STOP_LIMIT, (code, seconds)
    assert rest == [f"detente: stopped; run detente play again to resume game {first.game}"]
    assert errors == ""  # no log line on the terminal: they are in data/detente.log
    assert (data / "detente.log").stat().st_size > 0
    kept = json.loads((data / "play.json").read_text())
    assert (data / "play.json").stat().st_mode & 0o077 == 0

    second = await Play.start(data, "--port", "0")
    try:
        assert second.lines[0].startswith(f"detente: resuming game {first.game} (F1901M); its deadline moved ")
        assert (second.game, second.power, second.token) == (first.game, first.power, first.token)
        # the six bots are back, each in its own seat; the person's seat waits for the page
        bots = set(POWERS) - {"FRANCE"}
        info = await second.until(lambda i: connected(i) == bots)
        assert info["status"] == "playing" and info["phase"] == "F1901M"
        assert not any(p["civil_disorder"] for p in info["players"] if p["power"] != "FRANCE")
        assert json.loads((data / "play.json").read_text())["seats"] == kept["seats"]
        assert sum(1 for e in events(data, first.game) if e.kind == "join") == 7  # nobody joined afresh
        # the same link takes the seat again, and the game goes on with the bots
        person = await second.person()
        await person.send("NOW")
        sub, _ = person.holds(await person.expect("NOW"))
        await person.send(sub)
        await person.expect("NOW")
        await second.until(lambda i: i["phase"] == "S1902M")
        await person.close()
        seconds, code, rest, errors = await second.stop(signal.SIGTERM)
    finally:
        await second.kill()
    assert code == 0 and seconds < STOP_LIMIT, (code, seconds)
    assert rest == [f"detente: stopped; run detente play again to resume game {first.game}"] and errors == ""
    [shift] = [e for e in events(data, first.game) if e.kind == "shift"]
    assert 0 < shift.payload["seconds"] < 60


async def test_new_cancels_the_unfinished_game_and_starts_another(tmp_path: Path) -> None:
    data = tmp_path / "data"
    first = await Play.start(data, "--bots", "holdbot", "--port", "0")
    try:
        await first.until(lambda i: connected(i) == set(POWERS))
        _, code, _, _ = await first.stop()
    finally:
        await first.kill()
    assert code == 0
    second = await Play.start(data, "--bots", "holdbot", "--port", "0", "--new", "--power", "Turkey")
    try:
        assert second.game != first.game and second.power == "TUR"
        url = f"{second.base}/api/games"
        games = json.loads(await asyncio.to_thread(lambda: urllib.request.urlopen(url, timeout=5).read()))["games"]
        # no orphan: the old game is finished as cancelled, the new one is the only one unfinished
        assert {g["id"]: g["status"] for g in games} == {first.game: "finished", second.game: "playing"}
        [old] = [g for g in games if g["id"] == first.game]
        assert old["result"]["outcome"] == "cancelled"
        await second.until(lambda i: connected(i) == set(POWERS))
        _, code, _, _ = await second.stop()
    finally:
        await second.kill()
    assert code == 0


def free_ports() -> int:
    """A port ``p`` with ``p`` and ``p + 1`` free on the loopback."""
    for _ in range(50):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        if port < 65535:
            with socket.socket() as other, contextlib.suppress(OSError):
                other.bind(("127.0.0.1", port + 1))
                return port
    raise AssertionError("no two free ports")


def detente_play(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "detente", "play", "--no-browser", *args],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


def test_a_port_in_use_is_said_with_a_hint(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        run = detente_play("--port", str(port), "--data-dir", str(tmp_path / "data"))
    assert run.returncode == 2
    assert run.stdout == ""
    assert run.stderr.startswith(f"detente play: port {port} is in use") and "--port" in run.stderr
    assert len(run.stderr.splitlines()) == 1 and "Traceback" not in run.stderr
    assert not (tmp_path / "data").exists()  # nothing was touched


async def test_a_second_play_on_the_same_port_or_directory_is_refused(tmp_path: Path) -> None:
    data = tmp_path / "data"
    port = free_ports()
    first = await Play.start(data, "--bots", "holdbot", "--port", str(port))
    try:
        await first.until(lambda i: connected(i) == set(POWERS))
        same_port = await asyncio.to_thread(detente_play, "--port", str(port), "--data-dir", str(tmp_path / "other"))
        assert same_port.returncode == 2 and same_port.stdout == ""
        assert same_port.stderr.startswith(f"detente play: port {port} is in use") and "--port" in same_port.stderr
        assert "Traceback" not in same_port.stderr
        same_dir = await asyncio.to_thread(detente_play, "--port", "0", "--data-dir", str(data))
        assert same_dir.returncode == 2 and "Traceback" not in same_dir.stderr
        assert same_dir.stderr.startswith("detente play: another detente play is running on the data directory")
        # the first one is untouched: its game plays on, every seat connected
        info = await first.until(lambda i: connected(i) == set(POWERS))
        assert info["status"] == "playing"
        _, code, _, _ = await first.stop()
    finally:
        await first.kill()
    assert code == 0


# --- the deadline's shift, in the game master ------------------------------------------------------


def started_game(deadlines: str = "60,30,30") -> tuple[GameMaster, list[Record]]:
    """A game of seven players started at 1.0, and its records."""
    gm = GameMaster("g1", GameSettings(name="t", deadlines=Deadlines.parse(deadlines)), now=0.0, rng=random.Random(1))
    records: list[Record] = []
    for i in range(7):
        records.extend(gm.receive(f"c{i}", f"NME ('p{i}') ('1.0')", now=1.0).records)
    return gm, records


def test_a_shift_moves_the_deadline_and_a_replay_keeps_it() -> None:
    gm, records = started_game()
    assert gm.deadline == 61.0
    step = gm.shift_deadline(120.0, now=70.0)
    assert gm.deadline == 181.0 and gm.next_deadline == 181.0
    [record] = step.records
    assert (record.kind, dict(record.payload)) == ("shift", {"at": 70.0, "seconds": 120.0})
    assert gm.tick(100.0).records == ()  # before the moved deadline: nothing happens
    again = GameMaster.replay("g1", gm.settings, 0.0, [*records, record])
    assert again.deadline == 181.0 and again.next_deadline == 181.0


def test_no_shift_without_a_deadline_or_before_the_game_starts() -> None:
    assert started_game("none")[0].shift_deadline(30.0, now=5.0).records == ()
    assert GameMaster("g2", GameSettings(name="t"), now=0.0).shift_deadline(30.0, now=5.0).records == ()
    assert started_game()[0].shift_deadline(0.0, now=5.0).records == ()


def test_before_the_servers_start_the_kept_game_is_shifted_and_the_others_cancelled(tmp_path: Path) -> None:
    from detente.play import _prepare_store
    from server.api_models import GameCreate

    db = tmp_path / "detente.sqlite3"
    create = GameCreate.model_validate({"name": "t", "deadlines": {"movement": 60, "retreat": 30, "adjustment": 30}})
    store = Store.open(db)
    try:
        for game in ("kept", "forming", "left"):
            store.create_game(game, create.model_dump(mode="json"), 0.0)
        records = started_game()[1]
        for game in ("kept", "left"):  # two started games: the one play.json names, and another
            store.append_many(game, [(r.kind, r.payload, r.at) for r in records])
    finally:
        store.close()
    kept = _prepare_store(db, "kept", now=1_000.0, alive=900.0)
    assert kept == {"state": "playing", "phase": "S1901M", "shifted": 100.0}
    store = Store.open(db)
    try:
        assert [g.id for g in store.games(True)] == ["kept"]
        assert {g.id: g.result for g in store.games() if g.finished} == {
            "forming": {"outcome": "cancelled", "powers": [], "phase": "S1901M"},
            "left": {"outcome": "cancelled", "powers": [], "phase": "S1901M"},
        }
        shift = store.events("kept")[-1]
        assert (shift.kind, shift.payload["seconds"]) == ("shift", 100.0)
        # the game server's replay at start finds the deadline moved
        assert GameMaster.replay("kept", create.settings(), 0.0, store.events("kept")).deadline == 161.0
    finally:
        store.close()
    assert _prepare_store(db, "gone", now=1_000.0, alive=900.0) is None  # no such game: a new one

"""Real DAIDE bots on our server: David Norman's C++ DumbBot (AiClient framework) over DAIDE TCP.

The bots cannot live in this repository (their conditions of use reserve all rights) and CI
cannot fetch them: ``benchmarks/build_daide_client.sh`` builds them from a checkout of
github.com/diplomacy/daide-client at a named commit, and ``DETENTE_DAIDE_CLIENT`` points here
at the binary (or at the directory holding it, or its ``bin/``). Without it every test skips.

Two games are played on a real server (the in-process ``serve`` of the server tests, with its
DAIDE TCP listener), each to the end of 1903: seven C++ DumbBots, then three C++ DumbBots and
four of ours over the websocket. A phase ends when every order is in (the bots answer within
milliseconds); its deadline, a few seconds, only matters when a bot has fallen silent, and then
the history shows whose orders are missing instead of a game that never ends.
TCP clients cannot name a game, so they join the game the server keeps open for strangers;
that game takes the server's settings (``year_limit``, ``deadlines``), as with
``detente serve --year-limit 1903 --deadlines 5,5,5``.

Checked: the game ends with a result; every power ordered in Spring 1901 (an AiClient bot
that gets ``NOW`` before its map drops it and falls into civil disorder); in every movement
phase every power with units gave one order per unit; and, with the ``diplomacy`` package
(the ``bench`` extra), the positions after every phase are those of that engine given the
same orders.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import re
import time
from pathlib import Path
from typing import Any

import pytest

from bots.registry import make_bot
from bots.session import BotSession
from bots.ws_client import WsClient
from tests.server.ws_helpers import TOKEN, http, running_server

ENV = "DETENTE_DAIDE_CLIENT"
YEAR_LIMIT = 1903
DEADLINES = "5,5,5"  # movement, retreat, adjustment: reached only by a bot that does not order
GAME_TIMEOUT = 25.0  # seconds for one game, joining included; two games fit in about a minute
POWERS = ("AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY")
DAIDE_POWER = {"AUS": "AUSTRIA", "ENG": "ENGLAND", "FRA": "FRANCE", "GER": "GERMANY", "ITA": "ITALY",
               "RUS": "RUSSIA", "TUR": "TURKEY"}  # fmt: skip


def daide_client() -> Path | None:
    """The C++ DumbBot named by ``DETENTE_DAIDE_CLIENT`` (None when it is unset)."""
    value = os.environ.get(ENV)
    if not value:
        return None
    path = Path(value).expanduser()
    for candidate in (path, path / "dumbbot", path / "bin" / "dumbbot"):
        if candidate.is_file() and os.access(candidate, os.X_OK):
            if any(c.isspace() for c in str(candidate.resolve())):
                pytest.fail(f"{candidate}: AiClient misreads its command line when its path has spaces")
            return candidate.resolve()
    pytest.fail(f"{ENV}={value} is not the DumbBot binary nor a directory holding it (bin/dumbbot)")


@pytest.fixture(scope="module")
def dumbbot() -> Path:
    binary = daide_client()
    if binary is None:
        pytest.skip(
            f"{ENV} is unset: build Norman's C++ DumbBot with benchmarks/build_daide_client.sh "
            "(needs a checkout of github.com/diplomacy/daide-client) and export the path it prints"
        )
    return binary


# --- playing a game ----------------------------------------------------------------------


@dataclasses.dataclass
class CppBot:
    """One C++ DumbBot process, run in its own directory (it writes badlog.txt, biglog.txt there)."""

    process: asyncio.subprocess.Process
    home: Path

    def log(self, name: str) -> str:
        path = self.home / name
        return path.read_text(errors="replace") if path.exists() else ""

    @property
    def power(self) -> str | None:
        """The power its ``HLO`` gave (from biglog.txt, written with ``-l1``)."""
        found = re.search(r"HLO \( (\w{3}) \)", self.log("biglog.txt"))
        return DAIDE_POWER.get(found.group(1)) if found else None


@dataclasses.dataclass
class Played:
    """What a game left: the API's view of it, its history, who played what, and the bots' logs."""

    game_id: str
    detail: dict[str, Any]
    history: list[dict[str, Any]]
    cpp: list[CppBot]
    ours: list[BotSession]
    seconds: float
    error: str | None = None  # why the game did not end within GAME_TIMEOUT

    @property
    def cpp_powers(self) -> set[str]:
        return {bot.power for bot in self.cpp if bot.power}

    def diagnosis(self) -> str:
        """For assertion messages: what the C++ bots logged (their errors and their last messages)."""
        lines = [
            f"game {self.game_id} after {self.seconds:.1f}s: {self.error or 'over'}; phase {self.detail.get('phase')}"
        ]
        for n, bot in enumerate(self.cpp):
            bad = bot.log("badlog.txt").strip().splitlines()
            big = bot.log("biglog.txt").strip().splitlines()
            lines.append(f"C++ bot {n} ({bot.power}) exit {bot.process.returncode}")
            lines += [f"  bad: {line}" for line in bad[:10]]
            lines += [f"  big: {line}" for line in big[-6:]]
        return "\n".join(lines)


class BotsGone(Exception):
    """Every C++ bot has exited before the game ended."""


async def _wait_over(http_url: str, game_id: str, bots: list[CppBot]) -> dict[str, Any]:
    while True:
        status, detail = await http("GET", f"{http_url}/api/games/{game_id}")
        assert status == 200, detail
        if detail.get("result") is not None:
            return detail
        if bots and all(bot.process.returncode is not None for bot in bots):
            raise BotsGone
        await asyncio.sleep(0.2)


async def _play(tmp: Path, binary: Path, cpp: int, ours: int, board: str = "standard") -> Played:
    """A game of ``cpp`` C++ DumbBots over DAIDE TCP and ``ours`` of our DumbBots over the websocket,
    on the map ``board`` (the server's open game is on it: ``detente serve --map``)."""
    async with running_server(tmp, year_limit=YEAR_LIMIT, deadlines=DEADLINES, map=board) as running:
        status, listing = await http("GET", f"{running.http}/api/games", token=TOKEN)
        assert status == 200, listing
        forming = [g for g in listing["games"] if g["status"] == "forming"]
        assert len(forming) == 1, listing  # the game kept open for strangers, where TCP clients go
        game_id = forming[0]["id"]

        started = time.monotonic()
        bots: list[CppBot] = []
        sessions = [BotSession(make_bot("dumbbot", seed=n)) for n in range(ours)]
        clients = [asyncio.create_task(WsClient(s, running.ws).run()) for s in sessions]
        try:
            for n in range(cpp):
                home = tmp / f"cpp{n}"
                home.mkdir()
                process = await asyncio.create_subprocess_exec(
                    str(binary),
                    "-i127.0.0.1",
                    f"-p{running.daide_port}",
                    "-l1",
                    cwd=home,
                    stdin=asyncio.subprocess.DEVNULL,
                    stdout=asyncio.subprocess.DEVNULL,
                    stderr=asyncio.subprocess.DEVNULL,
                )
                bots.append(CppBot(process, home))
            error = None
            try:
                detail = await asyncio.wait_for(_wait_over(running.http, game_id, bots), GAME_TIMEOUT)
            except (TimeoutError, BotsGone) as gone:
                error = (
                    "every C++ bot exited" if isinstance(gone, BotsGone) else f"no result within {GAME_TIMEOUT:.0f}s"
                )
                _, detail = await http("GET", f"{running.http}/api/games/{game_id}")
            seconds = time.monotonic() - started
            status, history = await http("GET", f"{running.http}/api/games/{game_id}/history")
            assert status == 200, history
            if error is None:  # our clients end on their own once the game is over
                await asyncio.wait_for(asyncio.gather(*clients, return_exceptions=True), 10)
        finally:
            for task in clients:
                task.cancel()
            await asyncio.gather(*clients, return_exceptions=True)
            for bot in bots:
                with contextlib.suppress(ProcessLookupError):
                    bot.process.terminate()
            for bot in bots:
                try:
                    await asyncio.wait_for(bot.process.wait(), 5)
                except TimeoutError:
                    bot.process.kill()
                    await bot.process.wait()
    return Played(game_id, detail, history["phases"], bots, sessions, seconds, error)


@pytest.fixture(scope="module")
def seven_cpp(dumbbot: Path, tmp_path_factory: pytest.TempPathFactory) -> Played:
    """Seven C++ DumbBots, one game to 1903."""
    return asyncio.run(_play(tmp_path_factory.mktemp("seven"), dumbbot, cpp=7, ours=0))


@pytest.fixture(scope="module")
def mixed(dumbbot: Path, tmp_path_factory: pytest.TempPathFactory) -> Played:
    """Three C++ DumbBots and four of ours, one game to 1903."""
    return asyncio.run(_play(tmp_path_factory.mktemp("mixed"), dumbbot, cpp=3, ours=4))


# --- what is checked ---------------------------------------------------------------------


def units_before(history: list[dict[str, Any]], board: str = "standard") -> list[dict[str, list[str]]]:
    """Each phase's units before it was played (the position after the phase before)."""
    from engine import Position
    from engine.maps import variant_map

    initial = Position.initial(variant_map(board)).to_json()["units"]
    return [initial] + [entry["position"]["units"] for entry in history[:-1]]


def check_played_out(played: Played, board: str = "standard") -> None:
    why = played.diagnosis()
    assert played.error is None, why
    result = played.detail["result"]
    assert result is not None, why
    assert result["outcome"] in ("solo", "draw"), why
    phases = [entry["phase"] for entry in played.history]
    assert phases and phases[0] == "S1901M", (phases, why)
    assert (
        phases[-1].endswith(str(YEAR_LIMIT) + "A")
        or phases[-1].endswith(str(YEAR_LIMIT) + "M")
        or (result["outcome"] == "solo")
    ), (phases, why)

    # Spring 1901: nobody in civil disorder (an AiClient bot that drops its first NOW never orders)
    from engine.maps import variant_map

    powers = [variant_map(board).power_names[p] for p in variant_map(board).powers]
    missing = [power for power in powers if not played.history[0]["orders"].get(power)]
    assert not missing, f"no orders in S1901M (civil disorder) from {missing}\n{why}"

    # every movement phase: every power with units gave one order per unit
    for entry, units in zip(played.history, units_before(played.history, board), strict=True):
        if not entry["phase"].endswith("M"):
            continue
        for power, power_units in units.items():
            if not power_units:
                continue
            given = entry["orders"].get(power, [])
            assert len(given) == len(power_units), f"{entry['phase']} {power}: {given} for {power_units}\n{why}"


def test_seven_cpp_dumbbots_play_to_the_end(seven_cpp: Played) -> None:
    check_played_out(seven_cpp)
    assert len(seven_cpp.cpp_powers) == 7, seven_cpp.diagnosis()


def test_three_cpp_and_four_of_ours_play_to_the_end(mixed: Played) -> None:
    check_played_out(mixed)
    ours = {DAIDE_POWER[session.power] for session in mixed.ours if session.power}  # tokens: full names
    assert len(ours) == 4 and None not in ours
    assert mixed.cpp_powers == set(POWERS) - ours, mixed.diagnosis()
    for session in mixed.ours:
        assert session.result is not None and not session.rejected and not session.discarded


@pytest.mark.parametrize(("board", "cpp"), [("france_austria", 2), ("pure", 7)])
def test_cpp_dumbbots_play_a_variant_from_its_mdf(
    dumbbot: Path, tmp_path: Path, board: str, cpp: int
) -> None:
    """The variant's map reaches the C++ bots as its MDF, and they play it to the end: every power
    of the map, one order per unit in every movement phase."""
    from engine.maps import variant_map

    played = asyncio.run(_play(tmp_path, dumbbot, cpp=cpp, ours=0, board=board))
    check_played_out(played, board)  # every power of the map ordered in Spring 1901: each read the map
    m = variant_map(board)
    # (their logs misprint the names of an RM's tokens, so the seats are read from the server)
    seats = {p["power"] for p in played.detail["players"] if p["taken"]}
    assert seats == {m.power_names[p] for p in m.powers}, played.diagnosis()
    assert played.detail["settings"]["map"] == board
    assert not any("Failed to set map" in bot.log("badlog.txt") for bot in played.cpp), played.diagnosis()


# --- the same game in the diplomacy package ----------------------------------------------

# The three sea provinces whose names differ: detente uses the DAIDE names.
_THEIR_NAMES = {"ECH": "ENG", "GOL": "LYO", "GOB": "BOT"}
_OUR_NAME = re.compile(r"\b(" + "|".join(_THEIR_NAMES) + r")\b")


def their_notation(text: str) -> str:
    return _OUR_NAME.sub(lambda match: _THEIR_NAMES[match.group(1)], text)


def replay_in_diplomacy(history: list[dict[str, Any]]) -> list[str]:
    """Give each phase's orders to a ``diplomacy.Game``; the differences in phase, units and
    centres after each phase (empty when the two engines agree throughout)."""
    diplomacy = pytest.importorskip(
        "diplomacy", reason="the diplomacy package (pip install -e '.[bench]') compares the positions"
    )
    game = diplomacy.Game()
    differences: list[str] = []
    for n, entry in enumerate(history):
        phase = entry["phase"]
        if game.get_current_phase() != phase:
            if phase.endswith("R"):
                continue  # no unit could retreat: detente asks for the disbands, diplomacy skips the phase
            differences.append(f"{phase}: diplomacy is at {game.get_current_phase()}")
            break
        for power, orders in entry["orders"].items():
            game.set_orders(power, [their_notation(order) for order in orders])
        game.process()
        after = entry["position"]
        if n + 1 < len(history) and game.get_current_phase() != history[n + 1]["phase"]:
            nxt = history[n + 1]["phase"]
            if not (nxt.endswith("R") and game.get_current_phase() != nxt):
                differences.append(f"after {phase}: diplomacy at {game.get_current_phase()}, detente at {nxt}")
        for power in POWERS:
            ours = sorted(their_notation(u) for u in after["units"].get(power, []))
            theirs = sorted(u for u in game.get_units(power) if not u.startswith("*"))
            if ours != theirs:
                differences.append(f"after {phase}, {power} units: detente {ours}, diplomacy {theirs}")
            ours_c = sorted(their_notation(c) for c in after["centers"].get(power, []))
            theirs_c = sorted(game.get_centers(power))
            if ours_c != theirs_c:
                differences.append(f"after {phase}, {power} centres: detente {ours_c}, diplomacy {theirs_c}")
        if differences:
            break
    return differences


@pytest.mark.parametrize("which", ["seven_cpp", "mixed"])
def test_positions_match_the_diplomacy_package(which: str, request: pytest.FixtureRequest) -> None:
    played: Played = request.getfixturevalue(which)
    assert played.history, played.diagnosis()
    assert replay_in_diplomacy(played.history) == []


def test_detente_run_seats_cpp_dumbbots_beside_ours(dumbbot: Path) -> None:
    """``daide:PATH`` seats: two C++ DumbBots at the powers the runner chose, five of ours, to 1902."""
    from bots.inprocess import GameSetup
    from detente.daide_game import play_daide_game
    from referee.settings import GameSettings

    slots = (f"daide:{dumbbot}", f"daide:{dumbbot}", *["dumbbot"] * 5)
    powers = ("RUS", "FRA", "AUS", "ENG", "GER", "ITA", "TUR")  # tokens, as detente run deals them
    record = play_daide_game(GameSetup(7, slots, GameSettings(year_limit=1902), powers=powers))
    assert record.bots["RUS"] == record.bots["FRA"] == f"daide:{dumbbot}"
    assert record.last_year == 1902
    from engine import Position, standard_map

    before = Position.initial(standard_map())
    for phase in record.phases:
        if phase.phase.endswith("M"):  # every unit of both C++ powers ordered
            for power in ("RUS", "FRA"):
                assert len(phase.orders.get(power, ())) == len(before.units_of(power)), (phase.phase, power)
        before = phase.position

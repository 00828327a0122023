"""``detente play`` end to end: both servers and six bots in one process; a person's client plays the seventh power."""

from __future__ import annotations

import asyncio
import json
import re
import sys
import urllib.request
from pathlib import Path

import websockets

from tests.server.ws_helpers import DaideClient

TIMEOUT = 60.0
SEAT = re.compile(r"your seat \(open it in any browser\): (http://[^/]+)/#/game/(\w+)\?power=(\w+)&session=([\w%-]+)$")


async def test_play_seats_six_bots_and_keeps_the_chosen_power_for_the_person(tmp_path: Path) -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "detente",
        "play",
        "--bots",
        "holdbot,randombot",
        "--power",
        "france",
        "--port",
        "0",
        "--year-limit",
        "1901",
        "--no-browser",
        "--seed",
        "3",
        "--data-dir",
        str(tmp_path / "data"),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    try:
        async with asyncio.timeout(TIMEOUT):
            lines = []
            while not (match := SEAT.search(line := (await process.stdout.readline()).decode().strip())):
                assert line, "detente play ended before printing the seat"
                lines.append(line)
            # which bot plays which power is said, the person's power first
            assert re.match(r"detente: game \w+: you play France against Austria \w+, England \w+, ", lines[-1])
            base, game, power, token = match.groups()
            assert power == "FRA"
            # the lobby says FRANCE is kept, never for whom, and never the seat's token
            body = await asyncio.to_thread(lambda: urllib.request.urlopen(f"{base}/api/games", timeout=5).read())
            games = json.loads(body)["games"]
            [listed] = [g for g in games if g["id"] == game]
            assert listed["settings"]["reserved"] == {"FRANCE": ""} and token not in json.dumps(games)
            # with --port 0 too, the page is told where the negotiation server is, and it answers there
            config = json.loads(await asyncio.to_thread(lambda: urllib.request.urlopen(f"{base}/api/config").read()))
            assert config["nego_url"] and config["nego_url"].startswith("ws://127.0.0.1:")
            await (await websockets.connect(config["nego_url"])).close()
            # the link takes the seat: the holder detente play kept is closed
            person = DaideClient(await websockets.connect(f"ws{base[4:]}/daide?game={game}"))
            await person.send(f"IAM (FRA) ('{token}')")
            assert (await person.expect("YES")).startswith("YES (IAM")
            person.power = "FRA"
            await person.send("NOW")
            for _ in range(2):  # spring and fall 1901, then the year limit ends the game
                sub, _count = person.holds(await person.expect("NOW"))
                await person.send(sub)
            await person.expect("DRW")
            assert await process.wait() == 0
            rest = (await process.stdout.read()).decode()
            assert "the game is over" in rest
            assert (await process.stderr.read()) == b""  # the servers' logs are in the data directory
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    data = tmp_path / "data"
    assert (data / "detente.sqlite3").exists() and (data / "nego.sqlite3").exists()
    assert (data / "detente.log").stat().st_size > 0
    assert not (data / "play.json").exists()  # nothing to resume: the game is over

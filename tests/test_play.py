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


async def test_play_seats_six_bots_and_keeps_the_chosen_power_for_the_person(tmp_path: Path) -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "detente",
        "play",
        "--bots",
        "holdbot,randombot",
        "--power",
        "FRA",
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
        stderr=asyncio.subprocess.DEVNULL,
    )
    assert process.stdout is not None
    try:
        async with asyncio.timeout(TIMEOUT):
            while not (match := re.search(rb"you play (\w+); your page: (\S+)", await process.stdout.readline())):
                pass
            assert match.group(1) == b"FRANCE"
            page = match.group(2).decode()
            link = re.match(r"(http://[^/]+)/#/game/(\w+)\?as=player&name=([\w-]{20,})$", page)
            assert link is not None, page
            base, game, secret = link.groups()
            # the lobby says FRANCE is kept, never for whom: the name in the link is the key
            games = json.loads(urllib.request.urlopen(f"{base}/api/games", timeout=5).read())["games"]
            listed = next(g for g in games if g["id"] == game)
            assert listed["settings"]["reserved"] == {"FRANCE": ""} and secret not in json.dumps(games)
            person = DaideClient(await websockets.connect(f"ws{base[4:]}/daide?game={game}"))
            await person.send(f"NME ('{secret}') ('1.0')")
            await person.hello()
            assert person.power == "FRA"
            for _ in range(2):  # spring and fall 1901, then the year limit ends the game
                sub, _count = person.holds(await person.expect("NOW"))
                await person.send(sub)
            await person.expect("DRW")
            assert await process.wait() == 0
            rest = (await process.stdout.read()).decode()
            assert "the game is over" in rest
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert (tmp_path / "data" / "detente.sqlite3").exists() and (tmp_path / "data" / "nego.sqlite3").exists()

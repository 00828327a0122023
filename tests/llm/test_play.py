"""``detente play`` against model seats: a real process runs both servers and the six seats
in one event loop, and a person's client plays the seventh power to the end.

Time budget: about 15 s.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from pathlib import Path

import websockets

from tests.llm.standin import StandIn
from tests.server.ws_helpers import DaideClient

SEAT = re.compile(r"your seat \(open it in any browser\): (http://[^/]+)/#/game/(\w+)\?power=(\w+)&session=([\w%-]+)$")


async def test_a_person_plays_against_model_seats(tmp_path: Path) -> None:
    with StandIn() as provider:
        spec = f"llm:good@{provider.base_url}"
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "detente", "play", "--bots", f"{spec},holdbot", "--power", "france",
            "--port", "0", "--year-limit", "1901", "--no-browser", "--seed", "3",
            "--data-dir", str(tmp_path / "data"),
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        assert process.stdout is not None and process.stderr is not None
        try:
            async with asyncio.timeout(60):
                lines = []
                while not (match := SEAT.search(line := (await process.stdout.readline()).decode().strip())):
                    assert line, f"detente play ended before printing the seat: {lines}"
                    lines.append(line)
                assert spec in lines[-1]  # which seat plays which power is said
                base, game, power, token = match.groups()
                person = DaideClient(await websockets.connect(f"ws{base[4:]}/daide?game={game}"))
                await person.send(f"IAM ({power}) ('{token}')")
                assert (await person.expect("YES")).startswith("YES (IAM")
                person.power = power
                await person.send("NOW")
                for _ in range(2):
                    sub, _count = person.holds(await person.expect("NOW"))
                    await person.send(sub)
                await person.expect("DRW")
                assert await process.wait() == 0
                assert (await process.stderr.read()) == b""
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
        assert provider.stats()["completions"] > 0
    llm = tmp_path / "data" / "llm"
    calls = [json.loads(line) for line in (llm / "calls.jsonl").read_text(encoding="utf-8").splitlines()]
    assert calls and {c["game"] for c in calls} == {game} and all(c["outcome"] == "ok" for c in calls)
    [usage] = [json.loads(p.read_text(encoding="utf-8")) for p in (llm / "usage").glob("*.json")]
    assert usage["seat"] == spec and usage["orders_by_fallback"] == 0

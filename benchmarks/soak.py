"""The game server over a long run: many short games back to back, and full bot games (issue 15).

One game server, ``detente serve`` as a process of its own (a temporary ``--data-dir``, free
loopback ports, no deadlines, its limits given explicitly on the command line), and this
process as every client of it, over websockets:

- ``--games`` short games (10,000 by default), one after another: seven clients open a
  websocket each on ``/daide`` and join the server's open game (``NME`` without
  ``?game=ID``) one after the other, each waiting for its ``YES``; the seventh also waits for
  its ``HLO`` (the game starts); then all seven send ``DRW``, wait for the game's ``DRW``,
  and close. Since every client comes from 127.0.0.1, the limits on games opened for
  strangers (``--max-open-games``, ``--max-seats-per-address``, ``--open-games-per-hour``)
  and on connections are raised explicitly, as every benchmark does.
- ``--bot-games`` full bot games (500 by default), spread evenly among the short ones: a
  game made with ``POST /api/games`` (admin token; no deadlines, ``--year-limit``), and
  seven real bot clients in this process (:class:`bots.ws_client.WsClient` with
  :class:`bots.session.BotSession` and ``--bot`` from :mod:`bots.registry`) play it to its end.

Measured:

- the server process's resident memory (``VmRSS`` of ``/proc/PID/status``) every
  ``--sample-every`` finished games (1,000), with the games it holds in memory (from its
  ``/metrics``) and the size of its store; the growth in MiB per 1,000 finished games is
  the slope of a least-squares line through the samples from the first ``--sample-every``
  games on (the start-up sample, before any game, is left out: it is the warm-up). Goal:
  under 2 MiB per 1,000 games;
- join latency, on this process's clock: ``NME`` sent to ``YES`` received, for every
  client, and ``NME`` sent to ``HLO`` received for the seventh (whose ``NME`` starts the
  game), p50 and p99 over the first and over the last ``--window`` short games (1,000);
- refusals: any ``REJ``, connection closed or lost, timeout or error seen by a client of
  either kind of game, any order a bot saw refused (a ``THX`` other than ``MBV``), and any
  bot game without a result. Goal: none.

Run::

    .venv/bin/python benchmarks/soak.py --quick       # seconds: 300 games, 5 bot games, samples every 50
    .venv/bin/python benchmarks/soak.py               # the full run: 10,000 games and 500 bot games
    .venv/bin/python benchmarks/soak.py --games 3000 --bot-games 50
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import random
import re
import shutil
import statistics
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import websockets

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.machine import print_header
from benchmarks.results import Column, Table, record, write
from bots.registry import make_bot
from bots.session import BotSession
from bots.ws_client import WsClient

TOKEN = "soak-admin-token"
SECRET = "soak-secret"
GOAL_MIB_PER_1000 = 2.0
GOAL_REFUSALS = 0
TIMEOUT = 30.0
#: The limits of the server, given explicitly: every client of the soak comes from 127.0.0.1,
#: and the games opened for strangers follow one another far faster than a public server's.
LIMITS = {
    "--max-connections": "100000",
    "--max-connections-per-address": "100000",
    "--max-connections-per-network": "100000",
    "--new-connections-per-network": "100000",
    "--new-connections": "100000",
    "--max-open-games": "8",
    "--max-seats-per-address": "100000",
    "--open-games-per-hour": "1000000",
}


# --- the server process ---------------------------------------------------------------------------


@dataclass
class Server:
    process: asyncio.subprocess.Process
    port: int
    data_dir: Path
    stderr_path: Path

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}/daide"

    def rss_kib(self) -> int:
        """The server's resident memory now, in KiB (``VmRSS``)."""
        with open(f"/proc/{self.process.pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        raise RuntimeError("no VmRSS for the server process")

    def store_bytes(self) -> int:
        return sum(p.stat().st_size for p in self.data_dir.glob("*.sqlite3*"))


async def start_server(data_dir: Path) -> Server:
    """``detente serve`` on free loopback ports; returns once it prints where it listens."""
    stderr_path = data_dir / "server.log"
    command = [
        sys.executable,
        "-m",
        "detente",
        "serve",
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--daide-port",
        "0",
        "--data-dir",
        str(data_dir),
        "--admin-token",
        TOKEN,
        "--secret",
        SECRET,
        "--deadlines",
        "none",
        *(x for option, value in LIMITS.items() for x in (option, value)),
    ]
    with await asyncio.to_thread(stderr_path.open, "wb") as stderr:
        process = await asyncio.create_subprocess_exec(
            *command,
            stdout=asyncio.subprocess.PIPE,
            stderr=stderr,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
    assert process.stdout is not None
    async with asyncio.timeout(60):
        while True:
            line = (await process.stdout.readline()).decode()
            if not line:
                raise RuntimeError(f"the server ended before listening: {stderr_path.read_text()[-2000:]}")
            match = re.search(r"listening on http://[\d.]+:(\d+)", line)
            if match:
                break
    server = Server(process, int(match.group(1)), data_dir, stderr_path)
    # stdout is read no more: keep it drained, so that a line the server prints never blocks it
    drain = asyncio.create_task(_drain(process.stdout))
    _background.add(drain)
    drain.add_done_callback(_background.discard)
    return server


_background: set[asyncio.Task[None]] = set()


async def _drain(stream: asyncio.StreamReader) -> None:
    while await stream.read(65536):
        pass


async def stop_server(server: Server) -> int | None:
    """SIGTERM, then SIGKILL after 20 s; the exit code."""
    if server.process.returncode is None:
        server.process.terminate()
        try:
            await asyncio.wait_for(server.process.wait(), 20)
        except TimeoutError:
            server.process.kill()
            await server.process.wait()
    return server.process.returncode


def request(method: str, url: str, body: object = None) -> tuple[int, object]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method)
    req.add_header("Content-Type", "application/json")
    req.add_header("Authorization", f"Bearer {TOKEN}")
    try:
        with urllib.request.urlopen(req, timeout=TIMEOUT) as response:
            raw = response.read()
            return response.status, json.loads(raw) if raw[:1] in (b"{", b"[") else raw.decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode(errors="replace")


def games_in_memory(server: Server) -> int | None:
    """The games the server holds in memory, from its ``/metrics`` (the admin token opens it)."""
    req = urllib.request.Request(f"{server.http}/metrics")
    req.add_header("Authorization", f"Bearer {TOKEN}")
    try:
        with urllib.request.urlopen(req, timeout=TIMEOUT) as response:
            text = response.read().decode()
    except (OSError, urllib.error.URLError):
        return None
    total = 0.0
    found = False
    for line in text.splitlines():
        if line.startswith(("detente_games{", "detente_games ")):
            total += float(line.rsplit(" ", 1)[1])
            found = True
    return int(total) if found else None


# --- what the clients saw -------------------------------------------------------------------------


@dataclass
class Tally:
    short_games: int = 0
    bot_games: int = 0
    refusals: int = 0
    refusal_notes: list[str] = field(default_factory=list)
    #: per short game: the six NME->YES latencies of the first six, NME->YES and NME->HLO of the seventh
    yes: list[list[float]] = field(default_factory=list)
    hlo: list[float] = field(default_factory=list)
    bot_phases: int = 0
    bot_seconds: float = 0.0

    @property
    def finished(self) -> int:
        return self.short_games + self.bot_games

    def refused(self, note: str) -> None:
        self.refusals += 1
        if len(self.refusal_notes) < 20:
            self.refusal_notes.append(note)


class Refused(Exception):
    """A client was refused (REJ), lost its connection, or waited in vain."""


class Player:
    """One websocket client of a short game."""

    def __init__(self, ws: websockets.ClientConnection) -> None:
        self.ws = ws
        self.buffer: list[str] = []

    async def expect(self, prefix: str) -> str:
        """The first message starting with ``prefix``; a ``REJ`` before it is a refusal."""
        for i, text in enumerate(self.buffer):
            if text.startswith(prefix):
                return self.buffer.pop(i)
        async with asyncio.timeout(TIMEOUT):
            while True:
                try:
                    text = await self.ws.recv()
                except websockets.ConnectionClosed as closed:
                    raise Refused(f"connection closed waiting for {prefix}: {closed}") from None
                assert isinstance(text, str)
                if text.startswith(prefix):
                    return text
                if text.startswith(("REJ", "OFF")):
                    raise Refused(f"{text} waiting for {prefix}")
                self.buffer.append(text)


async def short_game(server: Server, index: int, tally: Tally) -> None:
    """Seven clients join the open game one after the other, all vote a draw, and leave."""
    players: list[Player] = []
    try:
        async with asyncio.timeout(4 * TIMEOUT):
            sockets = await asyncio.gather(
                *(websockets.connect(server.ws, open_timeout=TIMEOUT, ping_interval=None) for _ in range(7))
            )
            players = [Player(ws) for ws in sockets]
            yes: list[float] = []
            hlo = 0.0
            for i, player in enumerate(players):
                sent = time.perf_counter()
                await player.ws.send(f"NME ('soak{index}p{i}') ('1.0')")
                await player.ws.send("YES (MAP ('standard'))")  # the game need not wait for its map
                answer = await player.expect("YES (NME")
                yes.append(time.perf_counter() - sent)
                assert answer.startswith("YES (NME")
                if i == 6:
                    await player.expect("HLO")
                    hlo = time.perf_counter() - sent
            for player in players:
                await player.ws.send("DRW")
            for player in players:
                await player.expect("YES (DRW")
            for player in players:
                await player.expect("DRW")  # the game's end
        tally.yes.append(yes)
        tally.hlo.append(hlo)
        tally.short_games += 1
    except (Refused, TimeoutError, OSError, websockets.WebSocketException) as error:
        tally.refused(f"short game {index}: {type(error).__name__}: {error}")
    finally:
        await asyncio.gather(*(p.ws.close() for p in players), return_exceptions=True)


async def bot_game(server: Server, index: int, tally: Tally, bot: str, year_limit: int, seed: int) -> None:
    """A game made with the API, played to its end by seven bots of this process."""
    body = {"name": f"soak-bots-{index}", "deadlines": None, "year_limit": year_limit, "press_level": 0}
    status, created = await asyncio.to_thread(request, "POST", f"{server.http}/api/games", body)
    if status != 201 or not isinstance(created, dict):
        tally.refused(f"bot game {index}: POST /api/games answered {status}: {created}")
        return
    game = str(created["id"])
    started = time.perf_counter()
    sessions = [BotSession(make_bot(bot, seed=seed * 1000 + index * 7 + i)) for i in range(7)]
    clients = [WsClient(session, server.ws, game) for session in sessions]
    results = await asyncio.gather(
        *(asyncio.wait_for(client.run(), 20 * TIMEOUT) for client in clients), return_exceptions=True
    )
    tally.bot_seconds += time.perf_counter() - started
    problems = [f"{type(r).__name__}: {r}" for r in results if isinstance(r, BaseException)]
    for session in sessions:
        if session.refused is not None:
            problems.append(f"refused {session.refused}")
        if session.off:
            problems.append("OFF")
        problems.extend(f"order refused: {thx}" for thx in session.rejected)
        if session.result is None:
            problems.append(f"no result for {session.power}")
    for problem in problems:
        tally.refused(f"bot game {index} ({game}): {problem}")
    status, info = await asyncio.to_thread(request, "GET", f"{server.http}/api/games/{game}")
    if status != 200 or not isinstance(info, dict) or not info.get("result"):
        tally.refused(f"bot game {index} ({game}): no result in the API ({status})")
    status, history = await asyncio.to_thread(request, "GET", f"{server.http}/api/games/{game}/history")
    if status == 200 and isinstance(history, dict):
        tally.bot_phases += len(history.get("phases", []))
    tally.bot_games += 1


# --- figures --------------------------------------------------------------------------------------


def slope(points: list[tuple[float, float]]) -> float:
    """The least-squares slope of ``points`` (NaN with fewer than two)."""
    if len(points) < 2:
        return float("nan")
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    den = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in points) / den if den else float("nan")


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


@dataclass
class Sample:
    finished: int
    short: int
    bots: int
    seconds: float
    rss_kib: int
    in_memory: int | None
    store_bytes: int


def print_sample(sample: Sample, previous: Sample | None) -> None:
    rate = (
        (sample.finished - previous.finished) / (sample.seconds - previous.seconds)
        if previous is not None and sample.seconds > previous.seconds
        else float("nan")
    )
    print(
        f"{sample.finished:>9} {sample.short:>7} {sample.bots:>5} {sample.seconds:>9.1f} {rate:>8.1f} "
        f"{sample.rss_kib / 1024:>9.2f} {'?' if sample.in_memory is None else sample.in_memory:>7} "
        f"{sample.store_bytes / 2**20:>9.1f}",
        flush=True,
    )


async def run(args: argparse.Namespace) -> int:
    print_header(
        "soak: one game server, short games back to back and full bot games, over websockets",
        "websockets",
        "uvicorn",
    )
    print(
        f"parameters: {args.games} short games (7 clients join the open game, all DRW, leave), "
        f"{args.bot_games} bot games ({args.bot} x7, year limit {args.year_limit}, no deadlines), "
        f"RSS sampled every {args.sample_every} finished games, latency windows of {args.window} games, seed {args.seed}"
    )
    print(
        f"server: detente serve (its own process), --deadlines none {' '.join(f'{k} {v}' for k, v in LIMITS.items())}"
    )
    print()
    tmp = Path(tempfile.mkdtemp(prefix="detente-soak-"))
    server = await start_server(tmp)
    tally = Tally()
    samples: list[Sample] = []
    t0 = time.perf_counter()
    # the bot games spread evenly among the short ones: after how many short games each one comes
    bot_after = sorted(round((k + 1) * args.games / (args.bot_games + 1)) for k in range(args.bot_games))
    exit_code = 0
    try:

        def sample() -> None:
            samples.append(
                Sample(
                    tally.finished,
                    tally.short_games,
                    tally.bot_games,
                    time.perf_counter() - t0,
                    server.rss_kib(),
                    games_in_memory(server),
                    server.store_bytes(),
                )
            )
            print_sample(samples[-1], samples[-2] if len(samples) > 1 else None)

        print(
            f"{'finished':>9} {'short':>7} {'bots':>5} {'seconds':>9} {'games/s':>8} {'RSS MiB':>9} {'in mem':>7} "
            f"{'store MiB':>9}"
        )
        sample()
        next_sample = args.sample_every
        bots_done = 0
        rng = random.Random(args.seed)
        for index in range(args.games + 1):  # the last round plays no short game: the bot games left
            if index < args.games:
                await short_game(server, index, tally)
            while bots_done < len(bot_after) and (index == args.games or bot_after[bots_done] <= index + 1):
                await bot_game(server, bots_done, tally, args.bot, args.year_limit, rng.randrange(10**6))
                bots_done += 1
            while tally.finished + tally.refusals >= next_sample:
                sample()
                next_sample += args.sample_every
            if server.process.returncode is not None:
                tally.refused(f"the server process ended (exit {server.process.returncode})")
                break
            if tally.refusals > args.max_refusals:
                print(f"stopped: more than {args.max_refusals} refusals")
                break
        if not samples or samples[-1].finished != tally.finished:
            sample()
    finally:
        code = await stop_server(server)
        if code not in (0, -15, None):  # uvicorn exits by the SIGTERM it handled, once shut down
            print(f"the server exited with {code}; the tail of its log:")
            print(server.stderr_path.read_text(errors="replace")[-3000:])
            exit_code = 1
        wall = time.perf_counter() - t0
        if args.keep:
            print(f"data kept in {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)

    fitted = [(s.finished, s.rss_kib / 1024) for s in samples if s.finished >= args.sample_every]
    per_1000 = slope(fitted) * 1000
    window = args.window
    first_yes = [x for game in tally.yes[:window] for x in game]
    last_yes = [x for game in tally.yes[-window:] for x in game]
    first_hlo, last_hlo = tally.hlo[:window], tally.hlo[-window:]
    print()
    print(
        f"wall time {wall / 60:.1f} min: {tally.short_games} short games, {tally.bot_games} bot games "
        f"({tally.bot_phases} phases, {tally.bot_seconds:.0f} s of bot play)"
    )
    print(f"{'figure':<58} {'measured':>13} {'goal':>6}  verdict")

    def line(name: str, value: str, goal: str = "", verdict: str = "") -> None:
        print(f"{name:<58} {value:>13} {goal:>6}  {verdict}")

    if len(fitted) >= 2:
        line(
            f"RSS growth, MiB per 1,000 finished games ({len(fitted)} samples)",
            f"{per_1000:.3f}",
            f"< {GOAL_MIB_PER_1000:g}",
            "met" if per_1000 < GOAL_MIB_PER_1000 else "NOT MET",
        )
    else:
        line("RSS growth, MiB per 1,000 finished games", "n/a", f"< {GOAL_MIB_PER_1000:g}", "too few samples")
    rss = [s.rss_kib / 1024 for s in samples]
    line("RSS at start / end / max, MiB", f"{rss[0]:.0f} / {rss[-1]:.0f} / {max(rss):.0f}")
    first, last = len(tally.yes[:window]), len(tally.yes[-window:])
    line(f"join NME->YES p50 / p99 ms, first {first} games", f"{pct(first_yes, 0.5):.1f} / {pct(first_yes, 0.99):.1f}")
    line(f"join NME->YES p50 / p99 ms, last {last} games", f"{pct(last_yes, 0.5):.1f} / {pct(last_yes, 0.99):.1f}")
    line(
        f"join 7th NME->HLO p50 / p99 ms, first {first} games",
        f"{pct(first_hlo, 0.5):.1f} / {pct(first_hlo, 0.99):.1f}",
    )
    line(f"join 7th NME->HLO p50 / p99 ms, last {last} games", f"{pct(last_hlo, 0.5):.1f} / {pct(last_hlo, 0.99):.1f}")
    line(
        "refusals (REJ, closed, error, timeout, no result)",
        str(tally.refusals),
        str(GOAL_REFUSALS),
        "met" if tally.refusals == GOAL_REFUSALS else "NOT MET",
    )
    for note in tally.refusal_notes:
        print(f"  {note}")
    if tally.refusals:
        exit_code = 1
    stored = [(s.finished, s.store_bytes / 1e6) for s in samples if s.finished >= args.sample_every]
    held = [s.in_memory for s in samples if s.in_memory is not None]
    latency = {
        "yes": ((first, pct(first_yes, 0.5), pct(first_yes, 0.99)), (last, pct(last_yes, 0.5), pct(last_yes, 0.99))),
        "hlo": ((first, pct(first_hlo, 0.5), pct(first_hlo, 0.99)), (last, pct(last_hlo, 0.5), pct(last_hlo, 0.99))),
    }
    tables = soak_tables(
        per_1000 if len(fitted) >= 2 else None,
        len(fitted),
        (rss[0], rss[-1], max(rss)),
        slope(stored) * 1000 if len(stored) >= 2 else None,
        max(held) if held else None,
        tally.refusals,
        latency,
    )
    notes = [
        (
            f"One `detente serve` process (`--deadlines none`, its limits raised on its command line) through"
            f" {tally.short_games:,} short games back to back (seven websocket clients join the open game, all `DRW`,"
            f" leave) and {tally.bot_games} bot games (seven `{args.bot}`s, year limit {args.year_limit},"
            f" {tally.bot_phases:,} phases), the server's RSS sampled every {args.sample_every:,} finished games;"
            f" {wall / 60:.1f} minutes."
        )
    ]
    notes += [f"Refusal: {note}" for note in tally.refusal_notes[:20]]
    samples_kept = [
        {
            "finished": s.finished,
            "seconds": round(s.seconds, 1),
            "rss_mib": round(s.rss_kib / 1024, 2),
            "in_memory": s.in_memory,
            "store_mb": round(s.store_bytes / 1e6, 2),
        }
        for s in samples
    ]
    data = {
        "short_games": tally.short_games,
        "bot_games": tally.bot_games,
        "bot_phases": tally.bot_phases,
        "wall_s": round(wall, 1),
        "samples": samples_kept,
    }
    command = " ".join(["benchmarks/soak.py", *(args.argv or [])])
    rec = record(
        "soak",
        "The game server over a long run",
        command,
        tally.finished,
        tables,
        seeds=[args.seed],
        notes=notes,
        data=data,
    )
    print(f"written to {write(rec)}")
    return exit_code


def _figure(value: float | None, digits: int) -> float | None:
    return None if value is None or math.isnan(value) else round(value, digits)  # NaN is no figure


FIGURE_COLUMNS = (
    Column("figure", "figure"),
    Column("value", "measured", True),
    Column("goal", "goal"),
    Column("met", "goal met"),
    Column("before", "before (issue 15)"),
)
LATENCY_COLUMNS = (
    Column("what", "join latency"),
    Column("window", "games", True),
    Column("p50", "p50 ms", True),
    Column("p99", "p99 ms", True),
)


def soak_tables(
    per_1000: float | None,
    points: int,
    rss: tuple[float, float, float],
    store_per_1000: float | None,
    most_in_memory: int | None,
    refusals: int,
    latency: dict[str, tuple[tuple[int, float, float], tuple[int, float, float]]],
) -> list[Table]:
    """The record's tables: memory and refusals beside their goals, the join latency of the
    first games beside that of the last (its reference: a server that does not slow down)."""
    figures = [
        {
            "figure": f"RSS growth, MiB per 1,000 finished games ({points} samples)",
            "value": _figure(per_1000, 3),
            "goal": f"< {GOAL_MIB_PER_1000:g}",
            "met": None if per_1000 is None else per_1000 < GOAL_MIB_PER_1000,
        },
        {"figure": "RSS at start, MiB", "value": round(rss[0], 1)},
        {"figure": "RSS at the end, MiB", "value": round(rss[1], 1)},
        {"figure": "RSS at most, MiB", "value": round(rss[2], 1)},
        {"figure": "store growth, MB per 1,000 finished games", "value": _figure(store_per_1000, 2)},
        {"figure": "games in memory at most (of the samples)", "value": most_in_memory},
        {
            "figure": "refusals (REJ, closed, error, timeout, no result)",
            "value": refusals,
            "goal": str(GOAL_REFUSALS),
            "met": refusals == GOAL_REFUSALS,
            "before": "every NME refused after about 1,170 games",
        },
    ]
    names = {"yes": "NME -> YES, every client", "hlo": "NME -> HLO, the seventh client"}
    rows = [
        {"what": f"{names[kind]}, {where} games", "window": n, "p50": _figure(p50, 1), "p99": _figure(p99, 1)}
        for kind, windows in latency.items()
        for where, (n, p50, p99) in zip(("first", "last"), windows, strict=True)
    ]
    return [
        Table("Memory and refusals", FIGURE_COLUMNS, figures),
        Table(
            "Join latency",
            LATENCY_COLUMNS,
            rows,
            "On the clients' clock; the first games are the reference for the last (a server that keeps its speed).",
        ),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=10_000, help="short games (default 10,000)")
    parser.add_argument("--bot-games", dest="bot_games", type=int, default=500, help="full bot games (default 500)")
    parser.add_argument("--bot", default="randombot", help="the bot of the bot games (default randombot)")
    parser.add_argument("--year-limit", dest="year_limit", type=int, default=1904, help="of the bot games (1904)")
    parser.add_argument("--sample-every", dest="sample_every", type=int, default=1000, help="finished games (1,000)")
    parser.add_argument("--window", type=int, default=1000, help="games of the first and last latency windows")
    parser.add_argument("--max-refusals", dest="max_refusals", type=int, default=100, help="stop past this many")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", action="store_true", help="keep the server's data directory and log")
    parser.add_argument("--quick", action="store_true", help="300 games, 5 bot games, samples every 50, windows of 100")
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    if args.quick:
        args.games, args.bot_games, args.sample_every, args.window = 300, 5, 50, 100
    return asyncio.run(run(args))


if __name__ == "__main__":
    raise SystemExit(main())

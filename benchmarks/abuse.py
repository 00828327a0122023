"""An honest game under attack: the p99 NOW round trip of a game on a server that strangers abuse (issue 14).

For each attack, a fresh game server (``server.main.serve``, SQLite in a temporary
directory) runs in this process on a free loopback port. ``--games`` honest games of seven
websocket clients each play ``--phases`` phases in a second process (the client process of
``benchmarks/server_load.py``: random legal orders ``--think`` seconds after each ``NOW``);
its latency is, for each phase, from the last ``SUB`` sent to the moment every client has
the next ``NOW``, measured on the client process's clock. The attacker is a third
process (this script with ``--attack``), sending from ``127.0.0.2`` at the stated rate
until it is stopped. The first row is the same game with no attacker: the figure each
attack is measured against. The goal: p99 under 100 ms under every attack.

The attacks:

- ``iam-guess``: ``IAM`` with random passcodes for random powers, a new connection each;
- ``session-guess``: ``IAM`` with random 22-character session tokens, a new connection each
  (each is hashed and looked for in every game);
- ``nested``: 16 kB of ``PRN`` nested in ``PRN`` as one DAIDE message (the parser's worst case);
- ``adm``: ``ADM`` from connections that never joined;
- ``deep-json``: ``POST /api/games`` with 100,000 nested arrays and no token;
- ``big-body``: ``POST /api/games`` announcing 100 MiB and sending 64 kB of it;
- ``slowloris``: connections that send a request's headers one byte a second, up to
  ``--rate`` of them open at once.

Run::

    .venv/bin/python benchmarks/abuse.py                  # about 2 minutes
    .venv/bin/python benchmarks/abuse.py --quick          # a smoke run: one game, 2 phases
    .venv/bin/python benchmarks/abuse.py --attacks nested,adm --rate 100
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import random
import signal
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.machine import print_header, start_clients  # noqa: E402
from benchmarks.server_load import server_settings  # noqa: E402
from server.main import configure_logging, serve  # noqa: E402

LIMIT_MS = 100.0
ATTACKER_HOST = "127.0.0.2"
CLIENTS = str(Path(__file__).resolve().parent / "server_load.py")
POWERS = ("AUS", "ENG", "FRA", "GER", "ITA", "RUS", "TUR")
ATTACKS = ("iam-guess", "session-guess", "nested", "adm", "deep-json", "big-body", "slowloris")
#: Attacks whose rate is a number of connections held open rather than a number a second.
HELD = {"slowloris"}


# --- the attacker (its own process) -------------------------------------------------------------


async def _ws_send(port: int, text: str, wait: float = 1.0) -> None:
    """One connection from the attacker's address: send ``text``, read what comes for ``wait`` s."""
    import websockets

    try:
        async with websockets.connect(
            f"ws://127.0.0.1:{port}/daide", open_timeout=5, local_addr=(ATTACKER_HOST, 0), max_size=None
        ) as ws:
            await ws.send(text)
            with contextlib.suppress(TimeoutError, Exception):
                async with asyncio.timeout(wait):
                    async for _ in ws:
                        pass
    except Exception:  # a refusal is the server doing its job
        pass


async def _http_raw(port: int, head: bytes, body: bytes = b"", drip: float = 0.0) -> None:
    try:
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection("127.0.0.1", port, local_addr=(ATTACKER_HOST, 0)), 5
        )
    except Exception:
        return
    try:
        if drip:
            for byte in head:
                writer.write(bytes([byte]))
                await writer.drain()
                await asyncio.sleep(drip)
        else:
            writer.write(head + body)
            await writer.drain()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(reader.read(65536), 2)
    except Exception:
        pass
    finally:
        writer.close()


def _one(attack: str, port: int, rng: random.Random) -> asyncio.Future[None] | asyncio.Task[None]:
    if attack == "iam-guess":
        return asyncio.ensure_future(_ws_send(port, f"IAM ({rng.choice(POWERS)}) ({rng.randrange(8192)})"))
    if attack == "session-guess":
        token = "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") for _ in range(22))
        return asyncio.ensure_future(_ws_send(port, f"IAM ({rng.choice(POWERS)}) ('{token}')"))
    if attack == "nested":  # PRN within PRN: each echo was parsed again, 9 s for 16 kB before issue 14
        depth = 16 * 1024 // 8
        return asyncio.ensure_future(_ws_send(port, "PRN ( " * depth + ") " * depth))
    if attack == "adm":
        return asyncio.ensure_future(_ws_send(port, "ADM ('x') ('" + "y" * 200 + "')", wait=0.2))
    if attack == "deep-json":
        body = b"[" * 100_000 + b"]" * 100_000
        head = (
            f"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        ).encode()
        return asyncio.ensure_future(_http_raw(port, head, body))
    if attack == "big-body":
        head = (
            "POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {100 * 2**20}\r\n\r\n"
        ).encode()
        return asyncio.ensure_future(_http_raw(port, head, b"x" * 65536))
    if attack == "slowloris":
        head = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 600 + b"\r\n\r\n"
        return asyncio.ensure_future(_http_raw(port, head, drip=1.0))
    raise ValueError(f"no attack {attack!r}")


async def attacker(attack: str, port: int, rate: float, seconds: float, seed: int) -> int:
    """Attack at ``rate`` a second (or hold ``rate`` connections) until ``seconds`` pass."""
    rng = random.Random(seed)
    pending: set[asyncio.Future[None]] = set()
    sent = 0
    stopped = asyncio.Event()  # the measuring process ends the attack with SIGTERM
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stopped.set)
    started = time.perf_counter()
    print(json.dumps({"ready": True}), flush=True)
    while time.perf_counter() - started < seconds and not stopped.is_set():
        if attack in HELD:
            while len(pending) < rate:
                task = _one(attack, port, rng)
                pending.add(task)
                task.add_done_callback(pending.discard)
                sent += 1
            await asyncio.sleep(0.1)
            continue
        task = _one(attack, port, rng)
        pending.add(task)
        task.add_done_callback(pending.discard)
        sent += 1
        if len(pending) > 4 * rate:  # the attacker's own bound: never more in flight than this
            await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
        await asyncio.sleep(max(0.0, started + sent / rate - time.perf_counter()))
    for task in pending:
        task.cancel()
    print(json.dumps({"sent": sent}), flush=True)
    return 0


# --- the measurement ------------------------------------------------------------------------------


def p99(latencies: list[float]) -> float:
    if not latencies:
        return float("nan")
    ordered = sorted(latencies)
    return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))] * 1000


async def measure(
    attack: str | None, rate: float, games: int, phases: int, think: float, seed: int
) -> tuple[float, int, int]:
    """A fresh server, the honest games and (if any) the attacker: (p99 ms, phases timed, attacks sent)."""
    with tempfile.TemporaryDirectory() as tmp:
        settings = server_settings(Path(tmp) / "abuse.sqlite3")  # the default limits: they are what is measured
        started: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        stop = asyncio.Event()
        server = asyncio.create_task(serve(settings, lambda host, port: started.set_result(port), stop))
        port = await asyncio.wait_for(started, 30)
        attack_proc: asyncio.subprocess.Process | None = None
        honest: asyncio.subprocess.Process | None = None
        sent = 0
        try:
            if attack is not None:
                attack_proc = await asyncio.create_subprocess_exec(
                    sys.executable,
                    __file__,
                    "--attack",
                    attack,
                    "--port",
                    str(port),
                    "--rate",
                    str(rate),
                    "--seconds",
                    str(60 + phases * (think + 5)),
                    stdout=asyncio.subprocess.PIPE,
                    env={**os.environ, "PYTHONUNBUFFERED": "1"},
                )
                assert attack_proc.stdout is not None
                await asyncio.wait_for(attack_proc.stdout.readline(), 30)  # {"ready": true}
            config = {"port": port, "games": games, "phases": phases, "think": think, "seed": seed}
            honest = await start_clients(CLIENTS, config)
            assert honest.stdout is not None
            result: dict[str, object] | None = None
            with contextlib.suppress(TimeoutError):  # a frozen server: the games never finish
                async with asyncio.timeout(60 + phases * (think + 10)):
                    async for line in honest.stdout:
                        message = json.loads(line)
                        if "ready" not in message:
                            result = message
                    await honest.wait()
        finally:
            for proc in (honest, attack_proc):
                if proc is not None and proc.returncode is None:
                    proc.terminate()
            if attack_proc is not None:
                with contextlib.suppress(Exception):
                    out, _ = await asyncio.wait_for(attack_proc.communicate(), 10)
                    for line in out.decode().splitlines():
                        sent = max(sent, int(json.loads(line).get("sent", 0)))
            stop.set()
            await asyncio.wait_for(server, 30)
    if result is None:
        return float("inf"), 0, sent  # not finished: printed as such
    latencies = [float(x) for x in result["latencies"]]
    assert isinstance(latencies, list)
    return p99(latencies), len(latencies), sent


async def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--attacks", default=",".join(ATTACKS), help="the attacks to try, in order")
    parser.add_argument("--rate", type=float, default=50.0, help="attacks a second (slowloris: connections held)")
    parser.add_argument("--games", type=int, default=4, help="honest games at once (default 4)")
    parser.add_argument("--phases", type=int, default=10, help="phases of each honest game (default 10)")
    parser.add_argument("--think", type=float, default=0.5, help="seconds from each NOW to the SUB (default 0.5)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="2 phases, think 0.2 s")
    parser.add_argument("--attack", help=argparse.SUPPRESS)  # the attacker process
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--seconds", type=float, default=60.0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.attack:
        return await attacker(args.attack, args.port, args.rate, args.seconds, args.seed)
    if args.quick:
        args.games, args.phases, args.think = 1, 2, 0.2
    configure_logging(json_logs=True, level=logging.WARNING)
    logging.getLogger("uvicorn").setLevel(logging.WARNING)
    attacks = [a for a in args.attacks.split(",") if a]
    unknown = sorted(set(attacks) - set(ATTACKS))
    if unknown:
        parser.error(f"no attack {', '.join(unknown)}: choose from {', '.join(ATTACKS)}")
    print_header("honest games under attack (issue 14)", "uvicorn", "websockets")
    print(f"{args.games} honest games of 7 clients, {args.phases} phases each, think {args.think} s; attacker at {ATTACKER_HOST}")
    print(f"{'attack':<13} {'rate':>10} {'sent':>7} {'phases':>6} {'p99 NOW ms':>10} {'no attack':>10}  goal < 100 ms")
    base, timed, _ = await measure(None, 0, args.games, args.phases, args.think, args.seed)
    print(f"{'(none)':<13} {'-':>10} {'-':>7} {timed:>6} {base:>10.1f} {base:>10.1f}  {'met' if base < LIMIT_MS else 'NOT met'}")
    for attack in attacks:
        figure, timed, sent = await measure(attack, args.rate, args.games, args.phases, args.think, args.seed)
        rate = f"{args.rate:g} open" if attack in HELD else f"{args.rate:g}/s"
        verdict = "met" if figure < LIMIT_MS else "NOT met"
        shown = "unfinished" if figure == float("inf") else f"{figure:.1f}"
        print(f"{attack:<13} {rate:>10} {sent:>7} {timed:>6} {shown:>10} {base:>10.1f}  {verdict}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

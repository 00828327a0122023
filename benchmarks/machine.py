"""What every benchmark prints about where it ran: the figures mean little without it."""

from __future__ import annotations

import asyncio
import json
import os
import platform
import sys
from typing import Any, Self


def machine() -> dict[str, Any]:
    """Cores, CPU model, Python and platform of this machine."""
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            model = next((line.split(":", 1)[1].strip() for line in cpuinfo if line.startswith("model name")), model)
    except OSError:
        pass
    return {
        "cores": os.cpu_count(),
        "cpu": model,
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "platform": platform.platform(),
    }


def commit() -> str | None:
    """The commit measured, ``-dirty`` when tracked files differ from it (None outside a checkout)."""
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True, check=True)
        status = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"], cwd=root, capture_output=True, text=True, check=True
        )
    except (OSError, subprocess.CalledProcessError):
        return None
    return head.stdout.strip() + ("-dirty" if status.stdout.strip() else "")


def describe() -> str:
    """One line: ``2 cores, AMD EPYC; Linux-...``."""
    info = machine()
    return f"{info['cores']} cores, {info['cpu']}; {info['platform']}"


def print_header(title: str, *packages: str) -> None:
    """The lines every protocol benchmark starts with: what, when, where, with what."""
    import datetime
    import importlib.metadata

    info = machine()
    versions = "".join(f", {name} {importlib.metadata.version(name)}" for name in packages)
    print(f"{title} -- {datetime.datetime.now().isoformat(timespec='seconds')}")
    print(f"machine: {describe()}")
    print(f"python {info['python']}{versions}")
    print()


async def start_clients(script: str, config: dict[str, object], limit: int = 2**26) -> asyncio.subprocess.Process:
    """``script --clients-only`` in a process of its own, its configuration written to its
    standard input as one JSON line; it answers on its standard output."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        script,
        "--clients-only",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        limit=limit,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(json.dumps(config).encode() + b"\n")
    await proc.stdin.drain()
    proc.stdin.close()
    return proc


class LoopLag:
    """How late an event loop runs what is due: a task asks to wake every ``every`` seconds
    and keeps how late each wake-up came. A loop busy with one long callback, or starved of
    the GIL by a thread, shows here; a loop that only waits for I/O does not.

    >>> async def demo():
    ...     with LoopLag() as lag:
    ...         await asyncio.sleep(0.05)
    ...     return lag.samples > 0
    >>> asyncio.run(demo())
    True
    """

    def __init__(self, every: float = 0.005) -> None:
        self.every = every
        self.lags: list[float] = []
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._probe())

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    async def _probe(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            due = loop.time() + self.every
            await asyncio.sleep(self.every)
            self.lags.append(max(0.0, loop.time() - due))

    @property
    def samples(self) -> int:
        return len(self.lags)

    def quantile(self, q: float) -> float:
        """The ``q`` quantile of the lags, in milliseconds (0 without samples)."""
        if not self.lags:
            return 0.0
        ordered = sorted(self.lags)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000

    def summary(self) -> dict[str, float]:
        return {"p99_ms": round(self.quantile(0.99), 1), "max_ms": round(max(self.lags, default=0.0) * 1000, 1)}

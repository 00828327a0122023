"""Where a server's time goes, per message and by stage, over a benchmark's window: read off
the ``stage_seconds_total`` and ``stage_messages_total`` counters the servers keep
(:meth:`server.metrics.Metrics.stages`). ``store`` is a wait, not CPU; "the rest" is the
process's CPU per message less every other stage.

>>> row = per_message({"parse": (0.002, 10), "store": (0.05, 10)}, "parse", 0.01, {"parse": "parse_us", "store": "store_us"})
>>> row["messages"], row["parse_us"], row["store_us"], row["cpu_us"], row["rest_us"]
(10, 200.0, 5000.0, 1000.0, 800.0)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from benchmarks.results import Column

Stages = dict[str, tuple[float, int]]
WAITS = frozenset({"store"})  # stages that wait rather than compute: not part of the CPU


def since(now: Stages, before: Stages) -> Stages:
    """Each stage's seconds and messages between two readings of a server's metrics."""
    return {k: (v[0] - before.get(k, (0.0, 0))[0], v[1] - before.get(k, (0.0, 0))[1]) for k, v in now.items()}


def per_message(stages: Stages, counted: str, cpu_seconds: float, keys: Mapping[str, str]) -> dict[str, Any]:
    """Microseconds per message through ``counted`` in each stage of ``keys`` (stage -> column
    key), the process's CPU per message (``cpu_us``) and what no CPU stage accounts for (``rest_us``)."""
    messages = max(1, stages.get(counted, (0.0, 0))[1])

    def us(stage: str) -> float:
        return round(stages.get(stage, (0.0, 0))[0] * 1e6 / messages, 1)

    cpu = round(cpu_seconds * 1e6 / messages, 1)
    timed = sum(us(stage) for stage in keys if stage not in WAITS)
    return {"messages": messages, **{key: us(stage) for stage, key in keys.items()}, "cpu_us": cpu,
            "rest_us": round(cpu - timed, 1)}  # fmt: skip


def print_stages(
    heading: Sequence[str], columns: Sequence[Column], rows: Sequence[Mapping[str, Any]], width: int
) -> None:
    """The rows under their heading lines, one column of ``width`` characters per column."""
    print()
    for line in heading:
        print(line)
    print(" ".join(f"{c.label:>{width}}" for c in columns))
    for row in rows:
        print(" ".join(f"{row[c.key]:>{width}}" for c in columns))

"""What a model seat spent, and the limits it plays within.

A :class:`Meter` counts one seat's calls (in one game): tokens, dollars, seconds of
waiting, latencies, repairs, fallbacks and how each call ended. :class:`RunLedger` adds
every seat's spending of a run in a SQLite file that the run's worker processes share,
so that a run's budget holds across them. Both are read by the seat before each call:
once a limit is reached the seat plays its fallback bot for the rest of the game.

``usage/<game>-<seat>.json`` in the log directory holds each seat's meter, written after
every phase; :func:`collect` gathers a run's files into its ``usage.json``.

>>> meter = Meter("llm:m@http://h/v1", "1", "0:ENGLAND")
>>> meter.record("ok", 0.5, 100, 20, 0.01)
>>> meter.record("late", 2.0, 0, 0, 0.0)
>>> meter.to_json()["calls"], meter.to_json()["outcomes"], meter.to_json()["latency"]["p50"]
(2, {'late': 1, 'ok': 1}, 0.5)
"""

from __future__ import annotations

import json
import math
import os
import threading
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from bots.llm.config import Budget
from bots.llm.recorder import open_shared

__all__ = ["Meter", "RunLedger", "collect", "percentile", "summarise_usage"]

USAGE_DIR = "usage"


def percentile(values: Sequence[float], q: float) -> float | None:
    """The ``q``-quantile (nearest rank) of ``values``, or None without values.

    >>> percentile([1, 2, 3, 4], 0.5), percentile([1, 2, 3, 4], 0.99)
    (2, 4)
    """
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


class Meter:
    """One seat's spending and the ways its answers fell short (thread-safe)."""

    def __init__(self, spec: str, game: str, seat: str) -> None:
        self.spec, self.game, self.seat = spec, game, seat
        self._lock = threading.Lock()
        self.calls = 0
        self.input_tokens = 0
        self.output_tokens = 0
        self.estimated = 0
        self.dollars = 0.0
        self.seconds = 0.0
        self.latencies: list[float] = []
        self.outcomes: Counter[str] = Counter()
        self.retries = 0
        self.repairs = 0
        self.orders_by_model = 0
        self.orders_by_fallback = 0  # invalid, missing or late orders replaced
        self.phases_by_fallback = 0  # whole phases: budget spent or every call failed
        self.press_sent = 0
        self.press_refused = 0  # press that stayed invalid after the repair
        self.exhausted: str | None = None

    def record(
        self,
        outcome: str,
        latency: float,
        input_tokens: int,
        output_tokens: int,
        dollars: float,
        retries: int = 0,
        estimated: bool = False,
    ) -> None:
        with self._lock:
            self.calls += 1
            self.outcomes[outcome] += 1
            self.latencies.append(round(latency, 4))
            self.seconds += latency
            self.input_tokens += input_tokens
            self.output_tokens += output_tokens
            self.dollars += dollars
            self.retries += retries
            self.estimated += estimated

    def add(self, **counts: int) -> None:
        with self._lock:
            for name, value in counts.items():
                setattr(self, name, getattr(self, name) + value)

    def exceeded(self, budget: Budget) -> str | None:
        with self._lock:
            return budget.exceeded(self.calls, self.input_tokens, self.output_tokens, self.dollars, self.seconds)

    def to_json(self) -> dict[str, Any]:
        with self._lock:
            return {
                "seat": self.spec,
                "game": self.game,
                "slot": self.seat,
                "calls": self.calls,
                "input_tokens": self.input_tokens,
                "output_tokens": self.output_tokens,
                "estimated_calls": self.estimated,
                "dollars": round(self.dollars, 6),
                "seconds": round(self.seconds, 3),
                "latency": {"p50": percentile(self.latencies, 0.5), "p99": percentile(self.latencies, 0.99)},
                "latencies": list(self.latencies),
                "outcomes": dict(sorted(self.outcomes.items())),
                "retries": self.retries,
                "repairs": self.repairs,
                "orders_by_model": self.orders_by_model,
                "orders_by_fallback": self.orders_by_fallback,
                "phases_by_fallback": self.phases_by_fallback,
                "press_sent": self.press_sent,
                "press_refused": self.press_refused,
                "exhausted": self.exhausted,
            }

    def write(self, log_dir: Path | None) -> None:
        """Write the meter to ``log_dir/usage/`` (replaced whole, never half-written)."""
        if log_dir is None:
            return
        folder = log_dir / USAGE_DIR
        folder.mkdir(parents=True, exist_ok=True)
        name = "".join(c if c.isalnum() or c in "-_." else "_" for c in f"{self.game}-{self.seat}")[:120]
        path = folder / f"{name}.json"
        temporary = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
        temporary.write_text(json.dumps(self.to_json()) + "\n", encoding="utf-8")
        os.replace(temporary, path)


class RunLedger:
    """A run's spending over all its seats and processes, in the SQLite file ``path``."""

    def __init__(self, path: Path, budget: Budget) -> None:
        self.budget = budget
        self._lock = threading.Lock()
        self._db = open_shared(
            path,
            "CREATE TABLE IF NOT EXISTS spent (id INTEGER PRIMARY KEY CHECK (id = 1), calls INTEGER, input_tokens"
            " INTEGER, output_tokens INTEGER, dollars REAL, seconds REAL)",
        )
        self._db.execute("INSERT OR IGNORE INTO spent VALUES (1, 0, 0, 0, 0.0, 0.0)")

    def add(self, input_tokens: int, output_tokens: int, dollars: float, seconds: float) -> None:
        with self._lock:
            self._db.execute(
                "UPDATE spent SET calls = calls + 1, input_tokens = input_tokens + ?, output_tokens = output_tokens + ?,"
                " dollars = dollars + ?, seconds = seconds + ? WHERE id = 1",
                (input_tokens, output_tokens, dollars, seconds),
            )

    def exceeded(self) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT calls, input_tokens, output_tokens, dollars, seconds FROM spent").fetchone()
        return self.budget.exceeded(*row)


def collect(log_dir: Path) -> list[dict[str, Any]]:
    """Every seat's usage written under ``log_dir``, in the order of game and slot."""
    folder = log_dir / USAGE_DIR
    if not folder.is_dir():
        return []
    seats = []
    for path in folder.glob("*.json"):
        try:
            seats.append(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError):
            continue

    def order(seat: Mapping[str, Any]) -> tuple[int, str, str]:
        game = str(seat.get("game", ""))
        return (int(game) if game.isdigit() else 0, game, str(seat.get("slot", "")))

    return sorted(seats, key=order)


def summarise_usage(seats: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Per seat spec over its games: calls, tokens, cost, latency p50/p99, repairs, fallbacks."""
    by_spec: dict[str, list[Mapping[str, Any]]] = {}
    for seat in seats:
        by_spec.setdefault(str(seat["seat"]), []).append(seat)
    rows = []
    for spec, entries in by_spec.items():
        latencies = [x for e in entries for x in e.get("latencies", ())]
        total = {
            key: sum(e.get(key, 0) for e in entries)
            for key in (
                "calls",
                "input_tokens",
                "output_tokens",
                "retries",
                "repairs",
                "orders_by_model",
                "orders_by_fallback",
                "phases_by_fallback",
                "press_sent",
                "press_refused",
            )
        }
        outcomes: Counter[str] = Counter()
        for e in entries:
            outcomes.update(e.get("outcomes", {}))
        rows.append(
            {
                "seat": spec,
                "seats": len(entries),
                **total,
                "dollars": round(sum(float(e.get("dollars", 0.0)) for e in entries), 6),
                "latency_p50": percentile(latencies, 0.5),
                "latency_p99": percentile(latencies, 0.99),
                "outcomes": dict(sorted(outcomes.items())),
                "exhausted": sum(1 for e in entries if e.get("exhausted")),
            }
        )
    return rows

"""Prometheus metrics for both servers, in the text exposition format, without a dependency.

A :class:`Metrics` holds counters (with labels), gauges read when scraped, and histograms
of durations; :meth:`Metrics.render` writes them as ``/metrics`` serves them.

>>> m = Metrics("detente")
>>> m.count("messages_total", "messages received", kind="SUB")
>>> m.gauge("games", "games in memory", lambda: {(("state", "playing"),): 2})
>>> m.observe("step_seconds", "time to handle a message", 0.003)
>>> print(m.render(), end="")  # doctest: +ELLIPSIS
# HELP detente_messages_total messages received
# TYPE detente_messages_total counter
detente_messages_total{kind="SUB"} 1
# HELP detente_games games in memory
# TYPE detente_games gauge
detente_games{state="playing"} 2
# HELP detente_step_seconds time to handle a message
# TYPE detente_step_seconds histogram
detente_step_seconds_bucket{le="0.001"} 0
detente_step_seconds_bucket{le="0.005"} 1
...
detente_step_seconds_bucket{le="+Inf"} 1
detente_step_seconds_sum 0.003
detente_step_seconds_count 1
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

__all__ = ["CONTENT_TYPE", "Metrics"]

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)

Labels = tuple[tuple[str, str], ...]


@dataclass
class _Histogram:
    help: str
    counts: list[int] = field(default_factory=lambda: [0] * (len(BUCKETS) + 1))
    total: float = 0.0

    def observe(self, seconds: float) -> None:
        self.counts[bisect.bisect_left(BUCKETS, seconds)] += 1
        self.total += seconds


class Metrics:
    """The metrics of one process; names get the ``prefix``."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self._counters: dict[str, tuple[str, dict[Labels, float]]] = {}
        self._gauges: dict[str, tuple[str, Callable[[], Mapping[Labels, float]]]] = {}
        self._histograms: dict[str, _Histogram] = {}

    def count(self, name: str, help: str, amount: float = 1, **labels: str) -> None:
        values = self._counters.setdefault(name, (help, {}))[1]
        key = tuple(sorted(labels.items()))
        values[key] = values.get(key, 0) + amount

    def gauge(self, name: str, help: str, read: Callable[[], Mapping[Labels, float]]) -> None:
        """A gauge whose values (by labels; ``()`` for none) ``read`` gives when scraped."""
        self._gauges[name] = (help, read)

    def observe(self, name: str, help: str, seconds: float) -> None:
        self._histograms.setdefault(name, _Histogram(help)).observe(seconds)

    def stage(self, stage: str, seconds: float) -> None:
        """One message through one stage of its handling (parsing, checking, storing, fan-out),
        in ``seconds``: where a server's time goes, per message, read off two counters."""
        self.count("stage_seconds_total", "seconds spent in each stage of handling messages", seconds, stage=stage)
        self.count("stage_messages_total", "messages through each stage of their handling", stage=stage)

    def stages(self) -> dict[str, tuple[float, int]]:
        """Each stage's seconds and messages so far (see :meth:`stage`)."""
        seconds = self._counters.get("stage_seconds_total", ("", {}))[1]
        messages = self._counters.get("stage_messages_total", ("", {}))[1]
        return {dict(key)["stage"]: (seconds[key], int(messages.get(key, 0))) for key in seconds}

    def render(self) -> str:
        lines: list[str] = []

        def head(name: str, help: str, kind: str) -> str:
            full = f"{self.prefix}_{name}"
            lines.extend((f"# HELP {full} {help}", f"# TYPE {full} {kind}"))
            return full

        for name, (help, values) in self._counters.items():
            full = head(name, help, "counter")
            lines.extend(f"{full}{_labels(k)} {_number(v)}" for k, v in sorted(values.items()))
        for name, (help, read) in self._gauges.items():
            full = head(name, help, "gauge")
            lines.extend(f"{full}{_labels(k)} {_number(v)}" for k, v in sorted(read().items()))
        for name, histogram in self._histograms.items():
            full = head(name, histogram.help, "histogram")
            running = 0
            for bound, count in zip((*map(str, BUCKETS), "+Inf"), histogram.counts, strict=True):
                running += count
                lines.append(f'{full}_bucket{{le="{bound}"}} {running}')
            lines.append(f"{full}_sum {_number(histogram.total)}")
            lines.append(f"{full}_count {running}")
        return "\n".join(lines) + "\n"


def _labels(labels: Labels) -> str:
    if not labels:
        return ""
    inner = ",".join(f'{k}="{v.replace(chr(92), chr(92) * 2).replace(chr(34), chr(92) + chr(34))}"' for k, v in labels)
    return "{" + inner + "}"


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))

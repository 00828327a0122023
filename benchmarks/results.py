"""The one shape in which every benchmark keeps its figures, and the one page it renders to.

A benchmark builds a record with :func:`record` and hands it to :func:`write`, which keeps it
as ``benchmarks/results/NAME.json`` and renders ``docs/results/NAME.md`` from that file and
nothing else. The figures in the documentation are those pages: no figure stands in the docs
that no file backs. ``python -m benchmarks.results`` renders every page again (after a change
of this renderer); ``--check`` fails when a page differs from what its file renders, which a
test runs. ``BENCHMARK_RESULTS=DIR`` sends both elsewhere (a trial run, a quick one).

A record says when, where and on what it was measured (date, machine with its load, commit),
how much (``n``, ``seeds``), and holds tables whose rows carry the reference (the figure
before, a goal, the other engine) beside each figure. ``source`` is ``"measured"`` for a file
the benchmark wrote itself, or says where figures measured before this format came from
(``"transcribed: ..."``), so that a reader can tell the two apart; the documentation build
adds how old each file is.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
# BENCHMARK_RESULTS=DIR sends a trial run's file and page to DIR, away from the kept figures
_ELSEWHERE = os.environ.get("BENCHMARK_RESULTS")
RESULTS = Path(_ELSEWHERE) if _ELSEWHERE else ROOT / "benchmarks" / "results"
PAGES = Path(_ELSEWHERE) if _ELSEWHERE else ROOT / "docs" / "results"
FORMAT = 1


@dataclass(frozen=True)
class Column:
    """A column of a table: the row's key, its heading, and numbers aligned right."""

    key: str
    label: str
    numeric: bool = False


@dataclass(frozen=True)
class Table:
    """A titled table of rows (mappings from column keys to values); ``note`` is a line under it."""

    title: str
    columns: Sequence[Column]
    rows: Sequence[Mapping[str, Any]]
    note: str = ""

    def as_json(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "columns": [{"key": c.key, "label": c.label, "numeric": c.numeric} for c in self.columns],
            "rows": [dict(row) for row in self.rows],
            "note": self.note,
        }


@dataclass(frozen=True)
class Record:
    """What one run of a benchmark measured, with everything needed to judge it."""

    benchmark: str
    title: str
    command: str
    n: int | None
    tables: Sequence[Table]
    seeds: Sequence[int] | str | None = None
    notes: Sequence[str] = ()
    source: str = "measured"
    date: str = field(default_factory=lambda: datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"))
    machine: Mapping[str, Any] | None = None
    commit: str | None = None
    data: Mapping[str, Any] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "benchmark": self.benchmark,
            "title": self.title,
            "command": self.command,
            "source": self.source,
            "date": self.date,
            "machine": dict(self.machine) if self.machine is not None else None,
            "commit": self.commit,
            "n": self.n,
            "seeds": list(self.seeds) if isinstance(self.seeds, list | tuple) else self.seeds,
            "notes": list(self.notes),
            "tables": [t.as_json() for t in self.tables],
            "data": dict(self.data),
        }


def record(
    benchmark: str,
    title: str,
    command: str,
    n: int | None,
    tables: Iterable[Table],
    *,
    seeds: Sequence[int] | str | None = None,
    notes: Iterable[str] = (),
    data: Mapping[str, Any] | None = None,
) -> Record:
    """A record of a run measured now, here, at this commit (with the machine's load average)."""
    from benchmarks.machine import commit, machine

    where = machine()
    try:
        where["load"] = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        pass
    return Record(
        benchmark=benchmark,
        title=title,
        command=command,
        n=n,
        tables=tuple(tables),
        seeds=seeds,
        notes=tuple(notes),
        machine=where,
        commit=commit(),
        data=dict(data or {}),
    )


def write(rec: Record | Mapping[str, Any]) -> Path:
    """Keep the record as JSON and render its page from that file; the JSON path."""
    as_json = rec.as_json() if isinstance(rec, Record) else dict(rec)
    path = RESULTS / f"{as_json['benchmark']}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(as_json, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    page = PAGES / f"{as_json['benchmark']}.md"
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text(render(json.loads(path.read_text(encoding="utf-8"))), encoding="utf-8")
    return path


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}" if abs(value) >= 1e5 or value == int(value) else f"{value:.4g}"
    return str(value).replace("|", "\\|").replace("\n", " ")


def _where(r: Mapping[str, Any]) -> str:
    m = r.get("machine") or {}
    if not m:
        return ""
    load = m.get("load")
    shown = f", load {load[0]:g}" if load else ""
    return f"{m.get('cores')} cores ({m.get('cpu')}, {m.get('python')}{shown})"


def render(r: Mapping[str, Any]) -> str:
    """The page of one record, in Markdown, from the JSON alone."""
    seeds = r.get("seeds")
    shown_seeds = "" if seeds in (None, [], "") else f"; seeds {seeds if isinstance(seeds, str) else ', '.join(map(str, seeds))}"
    n = "" if r.get("n") is None else f"; n = {r['n']}"
    where = _where(r)
    lines = [f"# {r['title']}", ""]
    if r.get("source", "measured") == "measured":
        lines.append(
            f"Measured by `{r['command']}` on {r['date']} at commit {r.get('commit') or 'unknown'}"
            f"{', on ' + where if where else ''}{n}{shown_seeds}. From `benchmarks/results/{r['benchmark']}.json`."
        )
    else:
        lines.append(
            f"Figures of {r['date']}{' at commit ' + r['commit'] if r.get('commit') else ''}"
            f"{', on ' + where if where else ''}{n}{shown_seeds}, {r['source']}. From"
            f" `benchmarks/results/{r['benchmark']}.json`; `{r['command']}` measures them again and replaces it."
        )
    lines.append("")
    for note in r.get("notes", []):
        lines += [note, ""]
    for table in r.get("tables", []):
        cols = table["columns"]
        if table.get("title"):
            lines += [f"## {table['title']}", ""]
        lines.append("| " + " | ".join(c["label"] for c in cols) + " |")
        lines.append("|" + "|".join("---:" if c.get("numeric") else "---" for c in cols) + "|")
        for row in table["rows"]:
            lines.append("| " + " | ".join(_cell(row.get(c["key"])) for c in cols) + " |")
        lines.append("")
        if table.get("note"):
            lines += [table["note"], ""]
    return "\n".join(lines).rstrip("\n") + "\n"


def kept(name: str) -> dict[str, Any]:
    """The record kept as ``NAME.json`` before this run (empty when there is none, or it cannot be
    read): where a benchmark finds the figures before, to print and keep beside its own."""
    try:
        return json.loads((RESULTS / f"{name}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def kept_column(name: str, by: str, key: str) -> tuple[dict[str, Any], str | None]:
    """The figures under ``key`` of the kept record ``name``, by each row's ``by``, and its date."""
    record = kept(name)
    figures = {row[by]: row[key] for table in record.get("tables", []) for row in table["rows"] if row.get(key)}
    return figures, record.get("date", "")[:10] or None


def kept_by(name: str, key: str, answer: str, label: str) -> dict[Any, Any]:
    """The kept record's p99 by each row's ``key`` (an offered rate, a number of games), and under
    ``label`` the value of its verdict row whose figure starts with ``answer``: the figures before."""
    found: dict[Any, Any] = {}
    for table in kept(name).get("tables", []):
        for row in table.get("rows", []):
            if isinstance(row.get(key), int) and row.get("p99_ms") is not None:
                found.setdefault(row[key], row["p99_ms"])
            if str(row.get("figure", "")).startswith(answer):
                found.setdefault(label, row.get("value"))
    return found


#: The columns of a verdict: a figure, its value, the kept one before, the goal, and whether it is met.
VERDICT_COLUMNS = (
    Column("figure", "figure"),
    Column("value", "value", True),
    Column("before", "before", True),
    Column("goal", "goal"),
    Column("met", "verdict"),
)


def verdict_table(rows: Sequence[Mapping[str, Any]]) -> Table:
    return Table("Verdict", VERDICT_COLUMNS, rows)


def finite(value: float, digits: int = 1) -> float | None:
    """``value`` rounded, or None for a figure that never came (an infinite latency)."""
    return round(value, digits) if math.isfinite(value) else None


def records() -> list[dict[str, Any]]:
    """Every kept record, by benchmark name."""
    return [json.loads(p.read_text(encoding="utf-8")) for p in sorted(RESULTS.glob("*.json"))]


def stale(pages: Path = PAGES) -> list[str]:
    """The pages that differ from what their files render (or have no file, or are missing)."""
    wrong = []
    kept = {r["benchmark"]: r for r in records()}
    for name, r in kept.items():
        page = pages / f"{name}.md"
        if not page.exists() or page.read_text(encoding="utf-8") != render(r):
            wrong.append(f"{page.relative_to(ROOT)}: not what {name}.json renders")
    for page in pages.glob("*.md"):
        if page.stem not in kept and page.stem != "index":
            wrong.append(f"{page.relative_to(ROOT)}: no benchmarks/results/{page.stem}.json backs it")
    return wrong


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.results", description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="fail when a page is not what its file renders")
    args = parser.parse_args(argv)
    if args.check:
        wrong = stale()
        for line in wrong:
            print(line, file=sys.stderr)
        return 1 if wrong else 0
    for r in records():
        write(r)
    return 0


if __name__ == "__main__":
    sys.exit(main())

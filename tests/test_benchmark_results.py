"""Every figure of the documentation comes from a file a benchmark wrote (issue 29): the files
are in the one shape of benchmarks/results.py, each page of docs/results/ is what its file
renders, and every benchmark has its file. Budget: under a second."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import results

FILES = sorted((ROOT / "benchmarks" / "results").glob("*.json"))
KEYS = {"format", "benchmark", "title", "command", "source", "date", "machine", "commit", "n", "seeds", "tables"}
#: Modules of benchmarks/ that measure nothing themselves: the shape, the machine, shared code.
HELPERS = {"stages", "results", "machine", "paper_common"}


def is_figure(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def test_every_page_is_what_its_file_renders() -> None:
    assert results.stale() == []


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_a_record_has_the_common_shape_and_its_figures_as_numbers(path: Path) -> None:
    record = json.loads(path.read_text(encoding="utf-8"))
    assert KEYS <= set(record), sorted(KEYS - set(record))
    assert record["format"] == results.FORMAT and record["benchmark"] == path.stem
    assert record["source"] == "measured" or record["source"].startswith("transcribed")
    assert record["tables"], "a record without a table"
    for table in record["tables"]:
        assert {"title", "columns", "rows"} <= set(table), table.get("title")
        keys = {column["key"] for column in table["columns"]}
        # a row whose figures are all text: a reader (or a test) cannot compare them
        wordy = [row for row in table["rows"] if not any(is_figure(row.get(key)) for key in keys)]
        assert not wordy, f"{table['title']!r}: rows without a figure as a number: {wordy}"


def test_every_benchmark_has_its_figures_in_a_file() -> None:
    commands = [json.loads(p.read_text(encoding="utf-8"))["command"] for p in FILES]
    scripts = sorted(p.stem for p in (ROOT / "benchmarks").glob("*.py") if p.stem not in HELPERS)
    missing = [name for name in scripts if not any(f"benchmarks/{name}.py" in command for command in commands)]
    assert missing == [], f"benchmarks with no file in benchmarks/results/: {', '.join(missing)}"

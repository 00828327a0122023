"""The parsers' LALR tables are cached on disk (grammar.parser, issue 29): a second process loads
them; a damaged file or a directory that cannot be written changes nothing but the time. Budget: 5 s."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

PARSE = (
    "from protocol.daide.parser import parse; from protocol.l import parse as l;"
    " print(parse(\"SND (FRA) (PRP (PCE (ENG FRA)))\")); print(l('propose(eng, fra, Agree([eng fra], pce([eng fra])))'))"
)
ROOT = Path(__file__).resolve().parents[2]


def parsed(cache: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DETENTE_CACHE_DIR": str(cache)}
    return subprocess.run([sys.executable, "-c", PARSE], env=env, cwd=ROOT, capture_output=True, text=True, check=True)


def test_a_second_process_loads_the_tables_and_parses_the_same(tmp_path: Path) -> None:
    first = parsed(tmp_path)
    files = sorted(tmp_path.glob("lark-*.cache"))
    assert len(files) == 2 and first.stderr == ""
    stamps = [f.stat().st_mtime_ns for f in files]
    again = parsed(tmp_path)
    assert again.stdout == first.stdout and again.stderr == ""
    assert [f.stat().st_mtime_ns for f in files] == stamps  # loaded, not written again


def test_a_damaged_cache_or_one_that_cannot_be_written_changes_nothing(tmp_path: Path) -> None:
    expected = parsed(tmp_path / "fresh").stdout
    for damaged in (tmp_path / "fresh").glob("lark-*.cache"):
        damaged.write_bytes(b"not a cache\n")
    assert parsed(tmp_path / "fresh").stdout == expected
    blocked = tmp_path / "a file"  # a directory that cannot be made, whoever runs the test (root too)
    blocked.write_text("")
    run = parsed(blocked / "cache")
    assert run.stdout == expected and run.stderr == ""

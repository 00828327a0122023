"""The model seats on the command line: ``detente run`` and ``tournament`` with real processes,
and every bad seat spec, option or config answered with one line and exit status 2.

Time budget: about 25 s.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.llm.standin import StandIn

DETENTE = [sys.executable, "-m", "detente"]


def detente(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*DETENTE, *args], cwd=cwd, capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.parametrize(
    ("bots", "extra", "said"),
    [
        ("llm:m@https://me:pw@example.com/v1", (), "a URL with a user or password is refused"),
        ("llm:nosuch", (), "no profile 'nosuch'"),
        ("dumbot", (), "did you mean dumbbot?"),
        ("llm:m@ftp://example.com/v1", (), "llm: takes MODEL@http(s)://HOST/v1"),
        ("llm:m@http://127.0.0.1:9/v1", ("--llm-offline",), "--llm-offline replays from --llm-cache"),
        ("llm:m@http://127.0.0.1:9/v1", ("--llm-timeout", "-1"), "from 0 to 3600 seconds"),
        ("llm:m@http://127.0.0.1:9/v1", ("--llm-config", "bad.toml"), "profiles.p.modle: Extra inputs"),
        ("llm:m@http://127.0.0.1:9/v1", ("--llm-config", "nofile.toml"), "cannot read nofile.toml"),
    ],
)
def test_a_bad_seat_or_option_gets_one_line_and_status_2(
    tmp_path: Path, bots: str, extra: tuple[str, ...], said: str
) -> None:
    (tmp_path / "bad.toml").write_text('[profiles.p]\nmodle = "x"\n', encoding="utf-8")
    done = detente("run", "--bots", bots, "--games", "1", "--out", "out", *extra, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert said in done.stderr and "Traceback" not in done.stderr
    # one line of error (argparse puts its usage before its own errors)
    assert len([line for line in done.stderr.splitlines() if not line.startswith(("usage:", " "))]) == 1
    assert "me:pw" not in done.stderr


def test_detente_run_prints_the_model_seats_and_their_diplomacy(tmp_path: Path) -> None:
    with StandIn() as provider:
        done = detente(
            "run",
            "--bots",
            f"llm:good@{provider.base_url},dumbbot",
            "--games",
            "2",
            "--seed",
            "3",
            "--year-limit",
            "1901",
            "--out",
            "out",
            "--jobs",
            "2",
            cwd=tmp_path,
        )
    assert done.returncode == 0, done.stderr
    assert "Model seats:" in done.stdout and "Verifiable diplomacy:" in done.stdout
    row = next(line for line in done.stdout.splitlines() if line.startswith(f"llm:good@{provider.base_url}  "))
    assert row.split()[1] == "2"  # two seats: one a game
    assert (tmp_path / "out" / "usage.json").is_file()
    report = detente("report", "out", "-o", "report.html", cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "Model seats" in page


def test_detente_tournament_shows_the_model_seats(tmp_path: Path) -> None:
    with StandIn() as provider:
        done = detente(
            "tournament",
            "--bots",
            f"llm:good@{provider.base_url},holdbot",
            "--games",
            "1",
            "--seed",
            "2",
            "--year-limit",
            "1901",
            "--out",
            "t",
            "--jobs",
            "1",
            cwd=tmp_path,
        )
    assert done.returncode == 0, done.stderr
    assert "Model seats, over every set-up:" in done.stdout
    assert "Verifiable diplomacy, over every set-up" in done.stdout

"""The wheel and the sdist, as a user makes and installs them (issue 29): ``python -m build``
makes both (the wheel from the sdist, so the sdist is proved to build, with the compiled
core); the wheel installs with its ``report`` extra into a fresh virtual environment away
from the checkout, and there ``detente --version`` names the compiled core, a short game
plays and ``detente report`` draws it. Budget: about 45 s of the 90 s allowed (the
dependencies come from the package registry, or pip's cache)."""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(
    shutil.which("cc") is None and shutil.which("gcc") is None,
    reason="no C compiler: the wheel would have no compiled core",
)

#: The environment of the commands in the new venv: nothing that points back at the checkout
#: (PYTHONPATH) or at another environment (VIRTUAL_ENV, PYTHONHOME).
AWAY = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}


def run(command: list[str], cwd: Path, timeout: float = 300) -> str:
    done = subprocess.run(command, cwd=cwd, env=AWAY, check=False, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{command}: {done.stdout[-2000:]}{done.stderr[-2000:]}"
    return done.stdout


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``python -m build`` on a copy of the tracked files (the checkout's build/ and egg-info stay as
    they are, and what is not tracked does not travel)."""
    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        pytest.skip("not a git checkout: the tracked files are what the sdist is made of")
    work = tmp_path_factory.mktemp("wheel")
    source = work / "src"
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for name in filter(None, tracked.decode().split("\0")):
        if (ROOT / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    run([sys.executable, "-m", "build", "--outdir", str(work / "dist"), str(source)], cwd=work)
    return work / "dist"


def test_build_makes_an_sdist_with_the_sources_and_a_wheel_with_the_compiled_core(dist: Path) -> None:
    [sdist] = dist.glob("detente-*.tar.gz")
    [wheel] = dist.glob("detente-*.whl")
    if sys.platform == "linux" and platform.machine() == "x86_64":  # plain linux: no manylinux image here
        tag = f"cp{sys.version_info.major}{sys.version_info.minor}"
        assert wheel.name == f"detente-0.1.0-{tag}-{tag}-linux_x86_64.whl"
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    sources = {"engine/_core.c", "engine/_saved.c", "engine/_graph.c", "setup.py", "pyproject.toml", "README.md"}
    assert sources | {"grammar/daide.lark", "grammar/l.lark", "engine/data/standard.map"} <= names
    with zipfile.ZipFile(wheel) as archive:
        inside = set(archive.namelist())
        metadata = archive.read("detente-0.1.0.dist-info/METADATA").decode()
    assert any(n.startswith("engine/_core.") and n.endswith(".so") for n in inside), "no compiled core in the wheel"
    assert any(n.startswith("engine/_graph.") and n.endswith(".so") for n in inside)
    data = {"grammar/l.lark", "grammar/daide.lark", "engine/data/standard.map", "engine/data/example-case.json"}
    assert data | {"server/static/index.html", "server/geography/standard.json", "server/geography/pure.json", "server/geography/LICENCE"} <= inside
    assert not any(n.startswith(("tests/", "benchmarks/", "docs/")) for n in inside)
    assert "Provides-Extra: report" in metadata and "matplotlib" in metadata


def test_the_wheel_installs_away_from_the_checkout_plays_and_reports(dist: Path, tmp_path: Path) -> None:
    [wheel] = dist.glob("detente-*.whl")
    venv, bin_ = tmp_path / "venv", tmp_path / "venv" / "bin"
    run([sys.executable, "-m", "venv", str(venv)], cwd=tmp_path)
    pip = [str(bin_ / "pip"), "install", "--quiet", "--disable-pip-version-check"]
    run([*pip, f"{wheel}[report]"], cwd=tmp_path)
    where = run([str(bin_ / "python"), "-c", "import engine; print(engine.__file__)"], cwd=tmp_path)
    assert where.startswith(str(venv)) and not where.startswith(str(ROOT)), where
    assert "detente 0.1.0 (engine core: compiled C)" in run([str(bin_ / "detente"), "--version"], cwd=tmp_path)
    game = ["run", "--bots", "holdbot,randombot", "--games", "1", "--year-limit", "1902", "--out"]
    run([str(bin_ / "detente"), *game, str(tmp_path / "run")], cwd=tmp_path)
    assert (tmp_path / "run" / "summary.json").is_file()
    run([str(bin_ / "detente"), "report", str(tmp_path / "run"), "-o", str(tmp_path / "report.html")], cwd=tmp_path)
    assert "<svg" in (tmp_path / "report.html").read_text(encoding="utf-8")

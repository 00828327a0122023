"""The wheel and the sdist, as a user makes and installs them (issue 29): ``python -m build``
makes both (the wheel from the sdist, with the compiled core); the wheel installs into a
fresh virtual environment away from the checkout, and there ``detente --version`` names the
compiled core and a short game plays. Budget: about 60 s (the dependencies come from the
package registry, or pip's cache)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(
    shutil.which("cc") is None and shutil.which("gcc") is None, reason="no C compiler: the wheel would have no compiled core"
)


def run(command: list[str], cwd: Path, timeout: float = 300) -> str:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{command}: {done.stdout[-2000:]}{done.stderr[-2000:]}"
    return done.stdout


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``python -m build`` on a copy of the tracked files (the checkout's build/ stays as it is)."""
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
    [wheel] = dist.glob("detente-*-linux_x86_64.whl")
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    assert {"engine/_core.c", "grammar/daide.lark", "grammar/l.lark", "engine/data/standard.map", "setup.py"} <= names
    with zipfile.ZipFile(wheel) as archive:
        inside = archive.namelist()
    assert any(n.startswith("engine/_core.") and n.endswith(".so") for n in inside)
    assert {"grammar/l.lark", "engine/data/standard.map", "server/static/index.html"} <= set(inside)
    assert not any(n.startswith(("tests/", "benchmarks/", "docs/")) for n in inside)


def test_the_wheel_installs_away_from_the_checkout_and_plays(dist: Path, tmp_path: Path) -> None:
    [wheel] = dist.glob("detente-*.whl")
    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", str(venv)], cwd=tmp_path)
    run([str(venv / "bin" / "pip"), "install", "--quiet", "--disable-pip-version-check", str(wheel)], cwd=tmp_path)
    where = run([str(venv / "bin" / "python"), "-c", "import engine; print(engine.__file__)"], cwd=tmp_path)
    assert where.startswith(str(venv)), where
    assert "engine core: compiled C" in run([str(venv / "bin" / "detente"), "--version"], cwd=tmp_path)
    game = ["run", "--bots", "holdbot,randombot", "--games", "1", "--year-limit", "1902", "--out", str(tmp_path / "run")]
    run([str(venv / "bin" / "detente"), *game], cwd=tmp_path)
    assert (tmp_path / "run" / "summary.json").is_file()

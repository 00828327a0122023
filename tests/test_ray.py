"""Games on Ray (:mod:`detente.ray_runner`, ``detente run --ray``): the same records and files as a local run.

Without Ray only the error that says how to install it is tested; with it (``pip install
'detente[ray]'``) one local cluster serves the module, and ``detente run --ray`` runs both
ways: joining that cluster by its address, and starting a local cluster of its own.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from referee.settings import GameSettings
from bots.inprocess import GameSetup, play_game, seeds_for
from bots.registry import UnknownBot
from detente import ray_runner
from detente.experiments import Experiment, run_experiment, slots_from

needs_ray = pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason="Ray is not installed")

BOTS = "dumbbot,randomnegotiator,randombot,randomnegotiator"  # the last fills the remaining seats
SLOTS = slots_from(BOTS.split(","))
#: Ray's own choice on macOS and Windows: a local cluster on loopback, so the tests reach no other address.
LOOPBACK = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}


def setups(seed: int, games: int) -> list[GameSetup]:
    return [GameSetup(s, SLOTS, settings=GameSettings(year_limit=1903, press_level=10)) for s in seeds_for(seed, games)]


def files(directory: Path) -> dict[str, bytes]:
    """Every file an experiment wrote, by path relative to its directory."""
    return {
        path.relative_to(directory).as_posix(): path.read_bytes() for path in directory.rglob("*") if path.is_file()
    }


def detente_run(out: Path, *options: str) -> subprocess.CompletedProcess[str]:
    """``detente run`` of a small experiment (4 games, seed 3) into ``out``, as a user runs it."""
    command = ["run", "--bots", BOTS, "--games", "4", "--seed", "3", "--year-limit", "1903"]
    return subprocess.run(
        [sys.executable, "-m", "detente", *command, "--press-level", "10", "--out", str(out), *options],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **LOOPBACK},
        check=False,
    )


# --- without Ray -----------------------------------------------------------------------------------


def test_without_ray_the_runner_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # what ``import ray`` finds when Ray is not installed
    with pytest.raises(ray_runner.RayMissing, match=r"pip install 'detente\[ray\]'"):
        ray_runner.import_ray()
    with pytest.raises(ImportError):
        ray_runner.run_games_on_ray(setups(1, 1))


def test_without_ray_detente_run_ray_stops_before_playing(tmp_path: Path) -> None:
    code = "import sys; sys.modules['ray'] = None; from detente.cli import main; sys.exit(main(sys.argv[1:]))"
    command = ["run", "--bots", "holdbot", "--games", "1", "--ray", "--out", str(tmp_path / "out")]
    run = subprocess.run(
        [sys.executable, "-c", code, *command], capture_output=True, text=True, timeout=60, check=False
    )
    assert run.returncode == 2, run.stderr
    assert "pip install 'detente[ray]'" in run.stderr and "Traceback" not in run.stderr
    assert not (tmp_path / "out" / "games.jsonl").exists()


# --- with Ray ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """A local Ray cluster of two CPUs for the module; its address."""
    with pytest.MonkeyPatch.context() as patch:
        for name, value in LOOPBACK.items():
            patch.setenv(name, value)
        ray = ray_runner.import_ray()
        context = ray.init(address="local", num_cpus=2, include_dashboard=False)
        try:
            yield str(context.address_info["gcs_address"])
        finally:
            ray.shutdown()


@needs_ray
def test_the_records_are_those_of_a_local_run(cluster: str) -> None:
    games = setups(11, 6)
    finished = list(ray_runner.games_on_ray(games))
    assert sorted(index for index, _ in finished) == list(range(len(games)))
    on_ray = [record.to_json() for record in ray_runner.run_games_on_ray(games)]
    assert on_ray == [play_game(setup).to_json() for setup in games]
    assert any(message.get("text") for record in on_ray for message in record["messages"]), "L was said"


@needs_ray
def test_a_game_that_fails_names_itself_and_the_cluster_stays(cluster: str) -> None:
    games = setups(5, 3)
    games[1] = GameSetup(games[1].seed, ("nobot",) * 7)
    with pytest.raises(UnknownBot) as failure:
        ray_runner.run_games_on_ray(games)
    assert any(note.startswith(f"in game 2 (seed {games[1].seed}") for note in failure.value.__notes__)
    assert ray_runner.run_games_on_ray(games[:1])[0].to_json() == play_game(games[0]).to_json()


@needs_ray
def test_an_experiment_on_ray_writes_the_files_of_a_local_run(cluster: str, tmp_path: Path) -> None:
    def experiment(out: Path) -> Experiment:
        return Experiment(slots=SLOTS, games=5, seed=8, out=out, settings=GameSettings(year_limit=1903, press_level=10))

    done: list[int] = []
    runner = functools.partial(ray_runner.games_on_ray, address=cluster)
    on_ray = run_experiment(experiment(tmp_path / "ray"), done.append, runner)
    local = run_experiment(experiment(tmp_path / "local"))  # one process: no fork of a process that runs Ray
    assert on_ray == local
    assert files(tmp_path / "ray") == files(tmp_path / "local")
    assert sorted(set(done)) == [1, 2, 3, 4, 5]


@needs_ray
def test_detente_run_joins_a_cluster_at_its_address_with_the_same_files(cluster: str, tmp_path: Path) -> None:
    local = detente_run(tmp_path / "local", "--jobs", "2")
    assert local.returncode == 0, local.stderr
    joined = detente_run(tmp_path / "joined", "--ray", cluster)
    assert joined.returncode == 0, joined.stderr
    assert f"Ray at {cluster}" in joined.stderr
    assert files(tmp_path / "joined") == files(tmp_path / "local")
    assert joined.stdout == local.stdout  # the table per bot


@needs_ray
def test_detente_run_starts_a_local_cluster_without_an_address(tmp_path: Path) -> None:
    local = detente_run(tmp_path / "local", "--jobs", "1")
    assert local.returncode == 0, local.stderr
    started = detente_run(tmp_path / "started", "--ray", "--jobs", "2")
    assert started.returncode == 0, started.stderr
    assert "a local Ray cluster of 2 CPUs" in started.stderr
    assert files(tmp_path / "started") == files(tmp_path / "local")

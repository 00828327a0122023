"""The games of an experiment as tasks on a Ray cluster (``detente run --ray [ADDRESS]``).

Each game is one task: :func:`detente.experiments.play` of its :class:`GameSetup` on a
worker, its :class:`GameRecord` sent back to the driver. A game's record depends on its
setup alone (the seeds in it fix every choice), so the records are those of a local run
of the same setups, wherever and in whatever order the tasks run. The records come back
to the driver, which writes the files: a worker on another machine shares no disk with it.

Without an address a new local cluster is started (``ray.init(address="local")``, with
``num_cpus`` workers) and shut down at the end; with one (``HOST:6379``, ``auto``,
``ray://HOST:10001``) the driver joins that cluster, whose nodes need the same version of
detente installed (``pip install 'detente[ray]'``). When Ray is already initialised in
this process (a notebook, the tests), its cluster is used and left running.

Ray is an optional extra: it is imported only when a runner is used, and
:class:`RayMissing` says how to install it when it is not there.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Sequence
from types import ModuleType

from bots.inprocess import GameSetup
from detente.experiments import play
from referee.record import GameRecord

__all__ = ["RayMissing", "games_on_ray", "import_ray", "run_games_on_ray"]

INSTALL_HINT = "pip install 'detente[ray]'"


class RayMissing(ImportError):
    """Ray is not installed: ``--ray`` needs the optional extra."""


def import_ray() -> ModuleType:
    """The ``ray`` module, imported on first use so that detente runs without it."""
    try:
        return importlib.import_module("ray")
    except ImportError as error:
        raise RayMissing(f"running games on Ray needs Ray: {INSTALL_HINT}") from error


def _play(setup: GameSetup) -> GameRecord:
    """One game, on a worker (a module-level function, so workers import it rather than unpickle code)."""
    return play(setup)


def games_on_ray(
    setups: Sequence[GameSetup], address: str | None = None, num_cpus: int | None = None
) -> Iterator[tuple[int, GameRecord]]:
    """Play every setup as a Ray task; yield ``(index in setups, record)`` as each game finishes.

    ``address`` is the cluster to join (None: start a local one of ``num_cpus`` CPUs,
    all of them when None). A game that fails raises its error, with a note naming the
    game, and the games not yet finished are cancelled.
    """
    ray = import_ray()
    started = not ray.is_initialized()
    if started:
        if address is None:
            ray.init(address="local", num_cpus=num_cpus, include_dashboard=False)
        else:
            ray.init(address=address)
    pending: dict[object, int] = {}
    try:
        play = ray.remote(_play)
        pending = {play.remote(setup): index for index, setup in enumerate(setups)}
        while pending:
            [finished], _ = ray.wait(list(pending), num_returns=1)
            index = pending.pop(finished)
            try:
                record = ray.get(finished)
            except Exception as error:
                setup = setups[index]
                error.add_note(f"in game {index + 1} (seed {setup.seed}, bots {', '.join(setup.bots)})")
                raise
            yield index, record
    finally:
        if ray.is_initialized():
            for ref in pending:  # a game failed, or the caller stopped reading (^C)
                ray.cancel(ref)
            if started:
                ray.shutdown()


def run_games_on_ray(
    setups: Sequence[GameSetup], address: str | None = None, num_cpus: int | None = None
) -> list[GameRecord]:
    """The records of every setup, in the order of ``setups``, played on Ray as :func:`games_on_ray` says."""
    return [record for _, record in sorted(games_on_ray(setups, address, num_cpus), key=lambda pair: pair[0])]

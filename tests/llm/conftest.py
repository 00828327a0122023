"""The model seats' tests: one scripted stand-in for a provider, a real HTTP server process,
shared by a module's tests and reset before each."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bots.llm.config import LLMConfig, LLMOptions
from detente.experiments import Experiment, run_experiment, slots_from
from referee.settings import GameSettings
from tests.llm.standin import StandIn


@pytest.fixture(scope="module")
def standin() -> Iterator[StandIn]:
    with StandIn() as server:
        yield server


@pytest.fixture
def provider(standin: StandIn) -> StandIn:
    standin.reset()
    return standin


@dataclass
class Ran:
    out: Path
    summary: dict[str, Any]
    usage: dict[str, Any]

    @property
    def seat(self) -> dict[str, Any]:
        """The first model seat's row of the usage table."""
        return self.usage["seats"][0]

    def record(self, n: int = 1) -> dict[str, Any]:
        return json.loads((self.out / "games" / f"{n}.json").read_text(encoding="utf-8"))

    def calls(self) -> list[dict[str, Any]]:
        lines = (self.out / "llm" / "calls.jsonl").read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines]


def play(
    out: Path,
    specs: Sequence[str],
    *,
    config: str = "",
    games: int = 1,
    year: int = 1901,
    seed: int = 5,
    cache: Path | None = None,
    offline: bool = False,
    timeout: float | None = None,
    jobs: int = 1,
    rounds: int = 2,
    powers: Sequence[str] | None = None,
) -> Ran:
    """``detente run`` of ``specs`` (the last fills the seats) in this process; ``powers``: the
    power of each slot in every game (default: dealt from the seed)."""
    options = LLMOptions(LLMConfig.from_toml(config), cache, offline, timeout)
    experiment = Experiment(
        slots=slots_from(list(specs)),
        games=games,
        seed=seed,
        out=out,
        jobs=jobs,
        settings=GameSettings(name="experiment", year_limit=year),
        rounds=rounds,
        llm=options,
        powers=None if powers is None else (tuple(powers),) * games,
    )
    summary = run_experiment(experiment)
    usage = json.loads((out / "usage.json").read_text(encoding="utf-8"))
    return Ran(out, summary, usage)

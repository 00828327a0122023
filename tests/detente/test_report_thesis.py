"""The thesis's figure 6.17 in a report (detente/report_thesis.py): shown for a thesis-style series only."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from detente.experiments import Experiment, run_experiment, slots_from
from detente.report import load, render
from detente.report_thesis import series, thesis_section
from referee.settings import GameSettings

SECTION = 'id="thesis-6-17"'


def play(folder: Path, slots: tuple[str, ...], seed: int = 5) -> Path:
    run_experiment(Experiment(slots_from(slots), 2, seed, folder, settings=GameSettings(year_limit=1902)))
    return folder


def thesis_slots(k: int) -> tuple[str, ...]:
    return ("thesis66",) * k + ("thesis66:nonego",) * (7 - k)


@pytest.fixture(scope="module")
def thesis_runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("thesis")
    for k in (1, 3):
        play(root / f"session-{k}", thesis_slots(k))
    return root


def test_a_thesis_series_gets_the_figure(thesis_runs: Path) -> None:
    experiment = load(thesis_runs)
    found = series(experiment.sessions)
    assert found is not None
    nego, other, points = found
    assert (nego, other) == ("thesis66", "thesis66:nonego")
    assert [(p.k, p.games) for p in points] == [(1, 2), (3, 2)]
    for point, session in zip(points, experiment.sessions, strict=True):
        # the share of the wins is the negotiating agents' part of each game's win, averaged
        wins = [sum(s["win"] for s in g.scores.values() if s["bot"] == "thesis66") for g in session.games]
        assert math.isclose(point.share, sum(wins) / len(wins))
        assert point.expected == point.k / 7 and point.deals is not None
    page = render(experiment)
    assert page.count(SECTION) == 1
    section = page[page.index(SECTION) :]
    section = section[: section.index("</section>")]
    assert "<svg" in section and "% won by thesis66 (± SE)" in section
    assert f"{100 * 3 / 7:.1f}" in section  # the expected share of session 3


def test_other_runs_get_no_figure(thesis_runs: Path, tmp_path: Path) -> None:
    one = load(thesis_runs / "session-1")
    assert thesis_section(one.sessions) is None  # one session is no series
    assert SECTION not in render(one)
    play(tmp_path / "a", ("dumbbot", "randombot"))
    play(tmp_path / "b", ("dumbbot", "dumbbot", "randombot"))
    other = load(tmp_path)
    assert len(other.sessions) == 2 and thesis_section(other.sessions) is None  # neither negotiates
    assert SECTION not in render(other, games_shown=0)
    mixed = tmp_path / "mixed"
    play(mixed / "a", ("randomnegotiator", "thesis66:nonego"))
    play(mixed / "b", ("randomnegotiator", "randomnegotiator", "thesis66:nonego"))
    assert thesis_section(load(mixed).sessions) is None  # a negotiator, but not a variant of the other bot
    same = tmp_path / "same"
    play(same / "x", thesis_slots(2))
    play(same / "y", thesis_slots(2), seed=6)
    assert thesis_section(load(same).sessions) is None  # two sessions with as many negotiating agents

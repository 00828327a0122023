"""Scoring systems: hand-made results, and the scores of real games adding up as the rules say."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from detente.experiments import Experiment, run_experiment, score_game, slots_from
from detente.scoring import (
    HIGHER_IS_BETTER,
    SYSTEMS,
    draw_size,
    format_system_table,
    interval_text,
    score_seats,
    scored_line,
    sum_of_squares,
    system_table,
)
from detente.stats import estimate
from referee.settings import GameSettings

POWERS = ("AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY")


def line(centres: dict[str, int], bots: dict[str, str], winner: str | None = None) -> dict:
    """A line of games.jsonl as detente run writes it (no eliminations: ranks by centres)."""
    scores = score_game(centres, {}, bots)
    return {
        "outcome": "solo" if winner else "draw",
        "winner": winner,
        "scores": {s.power: s.to_json() for s in scores},
    }


def test_draw_size_shares_one_among_the_survivors_and_a_solo_takes_it_all() -> None:
    centres = dict(zip(POWERS, (10, 8, 8, 5, 3, 0, 0), strict=True))
    draw = draw_size(centres, None)
    assert [draw[p] for p in POWERS] == [0.2] * 5 + [0.0, 0.0]
    solo = draw_size({**centres, "AUSTRIA": 18}, "AUSTRIA")
    assert solo["AUSTRIA"] == 1.0 and sum(solo.values()) == 1.0


def test_sum_of_squares_is_centres_squared_over_their_sum() -> None:
    centres = dict(zip(POWERS, (10, 8, 8, 5, 3, 0, 0), strict=True))
    sos = sum_of_squares(centres, None)
    assert sos["AUSTRIA"] == pytest.approx(100 / 262) and sos["ITALY"] == pytest.approx(9 / 262)
    assert math.isclose(sum(sos.values()), 1.0) and sos["RUSSIA"] == 0.0
    solo = sum_of_squares({**centres, "AUSTRIA": 18, "ENGLAND": 16}, "AUSTRIA")
    assert solo["AUSTRIA"] == 1.0 and solo["ENGLAND"] == 0.0  # not 256 / (324 + ...): a solo takes all


def test_the_seats_keep_centres_rank_and_win_and_only_a_solo_counts_as_one() -> None:
    bots = dict.fromkeys(POWERS, "x")
    centres = dict(zip(POWERS, (18, 16, 0, 0, 0, 0, 0), strict=True))
    solo = scored_line(line(centres, bots, winner="AUSTRIA"))
    assert solo["scores"]["AUSTRIA"]["draw-size"] == 1.0 and solo["scores"]["ENGLAND"]["draw-size"] == 0.0
    # the same centres at the year limit: a draw, whatever the winner field says
    draw = scored_line({**line(centres, bots), "winner": "AUSTRIA"})
    assert draw["scores"]["AUSTRIA"]["draw-size"] == draw["scores"]["ENGLAND"]["draw-size"] == 0.5
    seat = score_seats(line(centres, bots)["scores"], None)["ENGLAND"]
    assert (seat["bot"], seat["centres"], seat["rank"], seat["win"]) == ("x", 16, 2.0, 0.0)
    assert set(seat) == {"bot", *SYSTEMS}
    assert [s for s in SYSTEMS if not HIGHER_IS_BETTER[s]] == ["rank"]


def test_the_table_averages_a_bots_seats_in_each_game_and_counts_games() -> None:
    bots = {p: "one" if p == "AUSTRIA" else "six" for p in POWERS}
    first = line(dict(zip(POWERS, (10, 4, 4, 4, 4, 4, 4), strict=True)), bots)
    second = line(dict(zip(POWERS, (4, 10, 4, 4, 4, 4, 4), strict=True)), bots)
    table = system_table([first, second])
    assert list(table) == ["one", "six"]
    one, six = table["one"], table["six"]
    assert one["centres"].n == six["centres"].n == 2  # two games, not two and twelve seats
    assert one["centres"].mean == 7.0 and one["centres"].se == pytest.approx(3.0)
    assert six["centres"].mean == pytest.approx(4.5) and six["centres"].se == pytest.approx(0.5)
    assert one["win"].mean == 0.5 and six["win"].mean == pytest.approx(1 / 12)
    sos_first = 100 / (100 + 6 * 16)
    assert one["sum-of-squares"] == estimate([sos_first, 16 / (100 + 6 * 16)])
    # Student's t on two games reaches -31.12 and 45.12 centres: kept within 0 to 34
    assert interval_text(one["centres"]) == "7.00 [0.00, 34.00]"
    assert 0.0 <= one["win"].low < 0.5 < one["win"].high <= 1.0  # a share of the win: Wilson's interval
    assert system_table([first], ["six", "nobody"]).keys() == {"six"}
    text = format_system_table(table)
    assert text.splitlines()[0].split() == ["bot", "games", *SYSTEMS]
    assert text.splitlines()[2].split()[:2] == ["one", "2"]


def test_real_games_add_up_as_the_rules_say(tmp_path: Path) -> None:
    experiment = Experiment(
        slots_from(["dumbbot", "randombot"]),
        3,
        seed=4,
        out=tmp_path,
        settings=GameSettings(year_limit=1903),
        rotate=True,
    )
    run_experiment(experiment)
    lines = [scored_line(json.loads(text)) for text in (tmp_path / "games.jsonl").read_text().splitlines()]
    assert len(lines) == 3
    for game in lines:
        seats = game["scores"].values()
        for system in ("draw-size", "sum-of-squares", "win"):
            assert math.isclose(sum(s[system] for s in seats), 1.0), system
        assert sum(s["rank"] for s in seats) == 28
        survivors = sum(1 for s in seats if s["centres"] > 0)
        assert {s["draw-size"] for s in seats if s["centres"] > 0} == {1 / survivors}
        best = max(seats, key=lambda s: s["centres"])
        assert best["sum-of-squares"] == max(s["sum-of-squares"] for s in seats)

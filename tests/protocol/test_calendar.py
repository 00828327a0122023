"""One turn for DAIDE and L: the same value, whichever language it was read from."""

from __future__ import annotations

import pytest

from engine.position import Phase
from protocol.calendar import TURN_SEASONS, Turn
from protocol.daide import messages as d
from protocol.daide.parser import parse as parse_daide
from protocol.l import ast as a
from protocol.l import parse as parse_l
from protocol.l.printer import to_text


def test_daide_and_l_read_a_turn_as_one_value() -> None:
    assert d.Turn is a.Turn is Turn
    for season in TURN_SEASONS:
        daide = parse_daide(f"NOW ({season.token} 1903)")
        assert isinstance(daide, d.Now)
        l_time = parse_l(f"inform(eng, fra, Do(wve(eng), ({season.token.lower()}, 1903)))").info.time
        assert daide.turn == l_time == Turn.of(daide.turn.phase)
        assert str(daide) == f"NOW ({season.token} 1903)" and to_text(l_time) == f"({season.token.lower()}, 1903)"


def test_every_phase_of_a_year_is_one_turn_and_back() -> None:
    for text in ("S1901M", "S1901R", "F1901M", "F1901R", "W1901A"):
        assert str(Turn.of(Phase.parse(text)).phase) == text


def test_a_season_of_no_turn_is_refused() -> None:
    with pytest.raises(ValueError, match="not a season"):
        Turn("xyz", 1901)

"""Reading saved games fast (``formats.saved``): the same document as the engine's own
positions, the quick comparison never calling a differing state the same, errors where
the one-loop reader raised them."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from engine import Game, Position, format_order, legal_orders, standard_map
from formats import FormatError, mila
from formats.common import THEIRS
from formats.saved import _plainly_same, _recorded_view, _their_view, read_saved_game, tables_for

M = standard_map()


def random_document(seed: int, phases: int = 40) -> dict[str, Any]:
    """A détente game document of random legal orders (dislodgements, fleets on every sea)."""
    rng = random.Random(seed)
    game = Game()
    played = []
    for _ in range(phases):
        position = game.position
        if position.completed:
            break
        orders = {}
        for power in M.powers:
            choices = legal_orders(position, power)
            if position.phase.kind == "A":
                picked = choices.get(None, [])[: max(0, position.adjustments.get(power, 0))]
            else:
                picked = [rng.choice(options) for options in choices.values() if options]
            orders[M.power_names[power]] = [format_order(M, o) for o in picked]  # a document's key: the full name
        outcome = game.play(orders)
        played.append(
            {
                "phase": str(position.phase),
                "orders": orders,
                "results": {position.unit_name(u): [str(w) for w in words] for u, words in outcome.results.items()},
                "position": outcome.position.to_json(),
            }
        )
    return {"phases": played, "messages": []}


@pytest.fixture(scope="module")
def saved_games() -> list[tuple[dict[str, Any], dict[str, Any]]]:
    games = []
    for seed in range(6):
        document = random_document(seed)
        games.append((document, mila.dump(document)))
    return games


def test_every_position_read_is_the_engines_own(saved_games: list[tuple[dict[str, Any], dict[str, Any]]]) -> None:
    seas = 0
    for document, saved in saved_games:
        read = read_saved_game(saved, {"format": "mila"})
        assert not any("note" in phase for phase in read["phases"])
        by_phase = {p["phase"]: p["position"] for p in document["phases"]}
        # MILA skips a retreat phase where nobody can retreat: those positions are not read back
        for phase in read["phases"]:
            assert phase["position"] == by_phase.get(phase["phase"], phase["position"])
            units = [u for names in phase["position"]["units"].values() for u in names]
            seas += sum(1 for u in units if u[2:] in THEIRS)
    assert seas, "no fleet on a sea MILA names differently: the test proves nothing of the renaming"


def test_reading_twice_gives_the_same_document(saved_games: list[tuple[dict[str, Any], dict[str, Any]]]) -> None:
    _, saved = saved_games[0]
    assert read_saved_game(copy.deepcopy(saved), {}) == read_saved_game(copy.deepcopy(saved), {})


def _states(
    saved_games: list[tuple[dict[str, Any], dict[str, Any]]],
) -> list[tuple[dict[str, Any], dict[str, Any], Any]]:
    """(position JSON as the tables write it, the recorded MILA state of it, the position's
    centres) of every phase without dislodged units."""
    t = tables_for(M)
    pairs = []
    for document, saved in saved_games:
        states = [p["state"] for p in saved["phases"][1:]]
        for phase, state in zip(document["phases"], states, strict=False):
            if phase["position"]["dislodged"] or state["name"] != phase["position"]["phase"]:
                continue
            position = Position.from_json(phase["position"], M)
            pairs.append((t.position_json(position), state, position.centers))
    return pairs


def test_the_quick_comparison_agrees_on_recorded_states(
    saved_games: list[tuple[dict[str, Any], dict[str, Any]]],
) -> None:
    t = tables_for(M)
    pairs = _states(saved_games)
    assert len(pairs) > 100
    for ours, state, owners in pairs:
        assert _their_view(ours) == _recorded_view(state)
        assert _plainly_same(ours, state, owners, t)


def _mutations(state: dict[str, Any]) -> list[dict[str, Any]]:
    """The state changed in the ways a recorded game can differ from détente's outcome."""
    out = []
    power = next(p for p, units in state["units"].items() if units)
    dropped = copy.deepcopy(state)
    dropped["units"][power] = dropped["units"][power][1:]
    out.append(dropped)
    moved = copy.deepcopy(state)
    moved["units"][power] = [*moved["units"][power][1:], "A MOS" if "A MOS" not in str(state["units"]) else "A WAR"]
    out.append(moved)
    starred = copy.deepcopy(state)
    starred["units"][power] = [*starred["units"][power], "*A BUR"]
    out.append(starred)
    retreating = copy.deepcopy(state)
    retreating["retreats"][power] = {state["units"][power][0]: ["BUR"]}
    out.append(retreating)
    owner = next((p for p, centres in state["centers"].items() if centres), None)
    if owner is not None:
        lost = copy.deepcopy(state)
        lost["centers"][owner] = lost["centers"][owner][1:]
        out.append(lost)
    for ours_name, theirs_name in THEIRS.items():  # a fleet on a sea, named as détente names it
        for p, units in state["units"].items():
            if f"F {theirs_name}" in units:
                ours = copy.deepcopy(state)
                ours["units"][p] = [f"F {ours_name}" if u == f"F {theirs_name}" else u for u in units]
                out.append(ours)
    moved_power = copy.deepcopy(state)
    others = [p for p in M.power_names.values() if p != power]  # a state's keys: the full names
    moved_power["units"][others[0]] = [*moved_power["units"].get(others[0], []), moved_power["units"][power][0]]
    moved_power["units"][power] = moved_power["units"][power][1:]
    out.append(moved_power)
    return out


def test_the_quick_comparison_never_calls_a_different_state_the_same(
    saved_games: list[tuple[dict[str, Any], dict[str, Any]]],
) -> None:
    t = tables_for(M)
    checked = 0
    for ours, state, owners in _states(saved_games)[::3]:
        assert _plainly_same(ours, state, owners, t)  # remembered: the same centres need no comparison again
        for changed in _mutations(state):
            if _their_view(ours) != _recorded_view(changed):
                assert not _plainly_same(ours, changed, owners, t)
                checked += 1
    assert checked > 100


def test_an_unknown_power_is_named_with_the_phase_it_is_played_in() -> None:
    saved = mila.dump(random_document(1, phases=6))
    saved["phases"][3]["orders"]["NARNIA"] = ["A PAR H"]
    with pytest.raises(FormatError, match=rf"phase {saved['phases'][3]['name']}: unknown power 'NARNIA'"):
        read_saved_game(saved, {})


def test_an_unreadable_phase_after_a_differing_one_still_raises_its_own_error() -> None:
    saved = mila.dump(random_document(2, phases=6))
    state = saved["phases"][2]["state"]
    power = next(p for p, units in state["units"].items() if units)
    state["units"][power] = state["units"][power][1:]  # differs: played on from the recorded state
    saved["phases"][4]["orders"]["FRANCE"] = [["not", "text"]]
    with pytest.raises(TypeError, match="unhashable"):
        read_saved_game(saved, {})
    saved["phases"][4]["orders"]["FRANCE"] = ["A PAR H", "no order at all"]
    read = read_saved_game(saved, {})
    assert "note" in read["phases"][1] and "no order at all" in read["phases"][4]["orders"]["FRANCE"]


def test_result_words_of_other_types_are_not_taken_for_words() -> None:
    saved = mila.dump(random_document(3, phases=2))
    unit = next(u for u in saved["phases"][0]["results"] if u[2:] not in THEIRS.values())
    saved["phases"][0]["results"][unit] = ["bounce"]
    first = read_saved_game(copy.deepcopy(saved), {})
    saved["phases"][0]["results"][unit] = [True]
    second = read_saved_game(copy.deepcopy(saved), {})
    assert first["phases"][0]["results"][unit] == ["bounce"]
    assert second["phases"][0]["results"][unit] == [True]
    saved["phases"][0]["results"][unit] = [1]
    assert read_saved_game(saved, {})["phases"][0]["results"][unit] == [1]

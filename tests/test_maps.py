"""The standard map as data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.maps import ARMY, COAST, FLEET, LAND, SEA, UNIT_LETTERS, MapError, parse_map, standard_map

M = standard_map()
# The reference map's facts (locations, borders, homes, starting units), extracted once from the
# project's shared reference map file; the file's "source" field says where from.
REFERENCE = Path(__file__).resolve().parent / "data" / "standard-map.json"


def test_counts() -> None:
    assert len(M.provinces) == 75
    assert len(M.supply_centers) == 34
    assert len(M.powers) == 7
    assert sum(len(h) for h in M.homes.values()) == 22
    assert len(M.starting_units) == 22
    assert [M.kind[p] for p in M.provinces].count(SEA) == 19
    assert [M.kind[p] for p in M.provinces].count(LAND) == 14
    assert sorted(M.name_of(c) for p in M.provinces for c in M.coasts[p]) == [
        "BUL/EC",
        "BUL/SC",
        "SPA/NC",
        "SPA/SC",
        "STP/NC",
        "STP/SC",
    ]


def test_adjacency_is_symmetric() -> None:
    for loc, dests in enumerate(M.army_moves):
        for d in dests:
            assert loc in M.army_moves[d], (M.name_of(loc), M.name_of(d))
    for loc, dests in enumerate(M.fleet_moves):
        for d in dests:
            assert loc in M.fleet_moves[d], (M.name_of(loc), M.name_of(d))


def test_known_geography() -> None:
    L = M.location
    assert L("NWY") in M.army_moves[L("STP")] and L("STP/NC") in M.fleet_moves[L("NWY")]
    assert L("NAO") in M.fleet_moves[L("LVP")]
    assert L("IRI") not in M.fleet_moves[L("CLY")]
    assert M.kind[L("BUR")] == LAND and M.kind[L("BRE")] == COAST and M.kind[L("NTH")] == SEA
    assert L("ECH") == L("ENG") and L("GOL") == L("LYO") and L("GOB") == L("BOT")
    assert M.english_names[L("BUR")] == "Burgundy"
    assert M.distances[L("LON")][L("PAR")] == 3  # LON - ECH - PIC - PAR


def test_shipped_map_agrees_with_the_reference_file() -> None:
    reference = json.loads(REFERENCE.read_text(encoding="utf-8"))
    assert "standard-map.cfg" in reference["source"]
    locations = tuple(reference["locations"])
    index = {name: i for i, name in enumerate(locations)}

    def moves(by_name: dict[str, list[str]]) -> tuple[frozenset[int], ...]:
        assert set(by_name) == set(locations)
        return tuple(frozenset(index[d] for d in by_name[name]) for name in locations)

    assert locations == M.locations
    assert moves(reference["army_moves"]) == M.army_moves
    assert moves(reference["fleet_moves"]) == M.fleet_moves
    # the reference names the powers by their full names, the map by their tokens
    assert {M.power(power): tuple(index[p] for p in homes) for power, homes in reference["homes"].items()} == M.homes
    starting_units = tuple(
        (M.power(power), UNIT_LETTERS.index(letter), index[loc]) for power, letter, loc in reference["starting_units"]
    )
    assert starting_units == M.starting_units


def test_starting_units_are_on_fitting_places() -> None:
    for _, unit_type, loc in M.starting_units:
        if unit_type == ARMY:
            assert M.kind[loc] != SEA
        else:
            assert unit_type == FLEET and M.fleet_moves[loc]


@pytest.mark.parametrize(
    "text",
    [
        "[powers]\nAUS=Austria\n",
        "no section\n",
        "[powers]\n[provinces]\n[homes]\n[positions]\n[borders]\nXXX=AMY YYY\n",
    ],
)
def test_broken_map_files_are_map_errors(text: str) -> None:
    with pytest.raises(MapError):
        parse_map(text)

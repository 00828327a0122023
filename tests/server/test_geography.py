"""The drawn maps agree with the maps they draw: every province has a shape that holds its
unit and its name, and two provinces share a border exactly when the map makes them
neighbours (the straits the board closes aside). Read from the kept data, in pure Python."""

from __future__ import annotations

import itertools
import math
import re
from pathlib import Path

import pytest

from engine.maps import Map, add_map_file, variant_map
from server.board import map_data

BORDER = 3.0
"""The shortest border counted, in pixels: shorter contacts are the corners where three meet."""
CLOSED_STRAITS = {frozenset(("BAL", "SKA")), frozenset(("AEG", "BLA")), frozenset(("NAF", "SPA"))}
"""Water the board closes: the Danish straits (Denmark holds them), the Bosporus and the
Dardanelles (Constantinople), and Gibraltar (no fleet passes from Spain to North Africa)."""


def rings(shape: str) -> list[list[tuple[float, float]]]:
    return [[tuple(map(float, p.split())) for p in sub.split("L")] for sub in re.findall(r"M([^Z]*)Z", shape)]


def edges(shape: str) -> set[tuple[tuple[float, float], ...]]:
    out = set()
    for ring in rings(shape):
        for a, b in zip(ring, ring[1:] + ring[:1], strict=True):
            out.add((min(a, b), max(a, b)))
    return out


def inside(point: tuple[float, float], shape: str) -> bool:
    """Even-odd rule over all the subpaths."""
    x, y = point
    crossings = 0
    for ring in rings(shape):
        for (x1, y1), (x2, y2) in zip(ring, ring[1:] + ring[:1], strict=True):
            if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
                crossings += 1
    return crossings % 2 == 1


def neighbours(m: Map) -> set[frozenset[str]]:
    out = set()
    for loc in range(len(m.locations)):
        for dest in (*m.army_moves[loc], *m.fleet_moves[loc]):
            out.add(frozenset((m.locations[m.province_of[loc]], m.locations[m.province_of[dest]])))
    return out


@pytest.mark.parametrize("name", ["standard", "pure"])
def test_a_border_is_drawn_exactly_between_neighbours(name: str) -> None:
    data = map_data(name)
    drawn = {p.id: edges(p.shape) for p in data.provinces}
    touching = set()
    for a, b in itertools.combinations(drawn, 2):
        length = sum(math.dist(p, q) for p, q in drawn[a] & drawn[b])
        if length >= BORDER:
            touching.add(frozenset((a, b)))
    on_map = neighbours(variant_map(name))
    if name == "pure":  # seven capitals, each next to every other: London and Rome's only by the sea
        assert touching <= on_map
        assert len(touching) >= 10
        return
    assert sorted("-".join(sorted(p)) for p in on_map - touching) == []
    assert sorted("-".join(sorted(p)) for p in touching - on_map - CLOSED_STRAITS) == []


@pytest.mark.parametrize("name", ["standard", "fleet_rome", "france_austria", "pure"])
def test_every_province_holds_its_unit_and_its_name(name: str) -> None:
    data = map_data(name)
    m = variant_map(name)
    assert {p.id for p in data.provinces} == {m.locations[p] for p in m.provinces}
    for p in data.provinces:
        assert inside((p.x, p.y), p.shape), p.id
        assert inside(p.label, p.shape), p.id
        assert 0 <= p.x <= data.width and 0 <= p.y <= data.height
    for location, where in data.locations.items():
        province = location.split("/")[0]
        shape = next(p.shape for p in data.provinces if p.id == province)
        assert inside(where, shape) or location != province, location  # a coast's fleet may stand offshore
    assert data.credit == "Made with Natural Earth"


def test_a_map_file_without_geography_is_drawn_as_a_diagram(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import engine.maps as maps

    monkeypatch.setattr(maps, "_ADDED", {})
    monkeypatch.setattr(maps, "_added_from", {})
    path = tmp_path / "ring.map"
    # three provinces: no drawing has exactly these
    path.write_text(
        "[variant]\nname=ring\n[powers]\nFRA=France,French\nGER=Germany,German\n[provinces]\nPAR=Paris\n"
        "BER=Berlin\nMUN=Munich\n[homes]\nFRA=PAR\nGER=BER\n[positions]\nFRA=AMY PAR\nGER=AMY BER\n"
        "[borders]\nPAR=AMY BER MUN\nBER=AMY MUN\n"
    )
    add_map_file(path)
    data = map_data("ring")
    assert data.credit == "" and len(data.provinces) == 3
    for p in data.provinces:
        assert inside((p.x, p.y), p.shape) and inside(p.label, p.shape)

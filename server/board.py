"""The board as the page draws it: a map's province shapes, positions, adjacency and colours.

The shapes are real coastlines (Natural Earth) cut into the board's provinces by
``scripts/draw_maps.py``, which writes ``server/geography/NAME.json``; a map is drawn with the
geography that has exactly its provinces (fleet_rome and france_austria are drawn as the
standard board). A map with none (a user's map file) is drawn as a diagram: its provinces on
rings, each the Voronoi cell of its place cut to a circle. :func:`map_data` is the body of
``GET /api/maps/NAME`` (:mod:`server.web_api`).

>>> data = map_data()
>>> len(data.provinces), len(data.supply_centres), data.provinces[0].id, data.credit
(75, 34, 'ADR', 'Made with Natural Earth')
>>> sorted(data.army_moves["PAR"])
['BRE', 'BUR', 'GAS', 'PIC']
>>> map_data("fleet_rome").provinces == data.provinces, len(map_data("pure").provinces)
(True, 7)
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from engine import Position, Power
from engine.maps import COAST, LAND, SEA, Map, variant_map
from server.api_models import Body, GamePosition, game_position

__all__ = ["MapData", "map_data", "regions"]

GEOGRAPHY = Path(__file__).parent / "geography"
REGION_RADIUS = 150.0
"""No cell of a diagram reaches further than this from its province's place (by default)."""
CIRCLE_SIDES = 24
KIND_NAMES = {LAND: "land", COAST: "coast", SEA: "sea"}


class Province(Body):
    """One province as the page draws it."""

    id: str = Field(description="the DAIDE abbreviation: PAR, STP, NTH")
    name: str = Field(description="the English name")
    kind: Literal["land", "coast", "sea"]
    supply_centre: bool
    home: str | None = Field(description="the power whose home centre it is")
    coasts: list[str] = Field(description="its coasts (STP/NC, STP/SC), if it has several")
    x: float = Field(description="where its unit stands")
    y: float
    label: tuple[float, float] = Field(description="where its name is written")
    shape: str = Field(description="its outline: SVG path data in the map's frame, one closed subpath a piece")


class Place(Body):
    """Land that is no province, drawn and impassable: Switzerland, Ireland, Corsica."""

    id: str
    x: float
    y: float
    shape: str = Field(description="SVG path data")


class Edge(Body):
    """Two provinces next to each other, and which units may pass between them."""

    a: str
    b: str
    army: bool
    fleet: bool


class PowerEntry(Body):
    """A power as the page names and paints it (:class:`engine.powers.Power`)."""

    token: str = Field(description="the DAIDE token: ENG")
    name: str = Field(description="the full name the game and its positions use: ENGLAND")
    english: str = Field(description="the name for people: England")
    adjective: str = Field(description="English")
    colour: str = Field(description="its colour on the board: #2f4fb0")


class MapData(Body):
    """The body of ``GET /api/maps/NAME``."""

    name: str
    credit: str = Field(description="whose geography it is drawn from (empty for a diagram)")
    width: float
    height: float
    powers: dict[str, str] = Field(description="DAIDE abbreviation -> full name")
    power_table: list[PowerEntry] = Field(description="the powers in the map's order, with their names and colours")
    provinces: list[Province]
    locations: dict[str, tuple[float, float]] = Field(description="every location (coasts too) -> where a unit stands")
    blanks: list[Place]
    edges: list[Edge]
    army_moves: dict[str, list[str]] = Field(description="location -> where an army there may move")
    fleet_moves: dict[str, list[str]] = Field(description="location -> where a fleet there may move")
    supply_centres: list[str]
    homes: dict[str, list[str]]
    initial: GamePosition


Point = tuple[float, float]


def _clip(polygon: list[Point], normal: Point, limit: float) -> list[Point]:
    """The part of a convex polygon where ``normal · p <= limit`` (Sutherland-Hodgman, one edge)."""
    out: list[Point] = []
    for i, p in enumerate(polygon):
        q = polygon[(i + 1) % len(polygon)]
        dp = normal[0] * p[0] + normal[1] * p[1] - limit
        dq = normal[0] * q[0] + normal[1] * q[1] - limit
        if dp <= 0:
            out.append(p)
        if (dp <= 0) != (dq <= 0):
            t = dp / (dp - dq)
            out.append((p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])))
    return out


def regions(
    sites: Sequence[Point], width: float, height: float, radii: Sequence[float] | None = None
) -> list[list[Point]]:
    """The Voronoi cell of each site inside the frame, cut to a circle around it (of ``radii[i]``,
    :data:`REGION_RADIUS` by default).

    Cells are convex, so each is the frame clipped by the half-plane nearer its site than
    each other site; n is under a hundred, so the quadratic way is fast enough and short.

    >>> [len(cell) for cell in regions([(10, 10), (30, 10)], 40, 20, radii=[1000, 1000])]
    [4, 4]
    """
    cells = []
    circle = [
        (math.cos(2 * math.pi * k / CIRCLE_SIDES), math.sin(2 * math.pi * k / CIRCLE_SIDES))
        for k in range(CIRCLE_SIDES)
    ]
    for i, (sx, sy) in enumerate(sites):
        cell: list[Point] = [(0.0, 0.0), (width, 0.0), (width, height), (0.0, height)]
        for j, (tx, ty) in enumerate(sites):
            if i != j and (tx, ty) != (sx, sy):
                normal = (tx - sx, ty - sy)
                cell = _clip(cell, normal, (tx * tx + ty * ty - sx * sx - sy * sy) / 2)
        # the circle, as a polygon whose edges are tangent to it: clip by each tangent
        radius = REGION_RADIUS if radii is None else radii[i]
        for cx, cy in circle:
            cell = _clip(cell, (cx, cy), cx * sx + cy * sy + radius)
        cells.append([(round(x, 1), round(y, 1)) for x, y in cell])
    return cells


PALETTE = ("#8c564b", "#17becf", "#bcbd22", "#e377c2", "#7f7f7f", "#ff7f0e", "#1f77b4", "#2ca02c")
"""Colours for the powers of a map that are none of the standard seven, in the map's order."""


@functools.cache
def map_data(name: str = "standard") -> MapData:
    """The map called ``name`` as the page draws it (computed once a map)."""
    m = variant_map(name)
    names = [m.locations[p] for p in m.provinces]
    drawn = _geography(frozenset(names)) or _diagram(m)
    width, height = float(drawn["width"]), float(drawn["height"])
    places = drawn["provinces"]
    provinces = [
        Province(
            id=n,
            name=m.english_names[p],
            kind=KIND_NAMES[m.kind[p]],  # type: ignore[arg-type]
            supply_centre=m.is_supply_center[p],
            home=None if m.home_of[p] is None else m.power_names[m.home_of[p]],
            coasts=[m.locations[c] for c in m.coasts[p]],
            x=places[n]["x"],
            y=places[n]["y"],
            label=tuple(places[n]["label"]),
            shape=places[n]["shape"],
        )
        for n, p in zip(names, m.provinces, strict=True)
    ]
    blanks = [Place(id=k, x=b["x"], y=b["y"], shape=b["shape"]) for k, b in drawn["blanks"].items()]
    coast_positions: dict[str, list[float]] = drawn.get("coasts", {})
    locations: dict[str, tuple[float, float]] = {}
    for loc, location in enumerate(m.locations):
        province = places[m.locations[m.province_of[loc]]]
        where = coast_positions.get(location, (province["x"], province["y"]))
        locations[location] = (float(where[0]), float(where[1]))
    return MapData(
        name=m.name,
        credit=drawn.get("credit", ""),
        width=width,
        height=height,
        powers=dict(m.power_names),
        power_table=[_power_entry(m, token, i) for i, token in enumerate(m.powers)],
        provinces=provinces,
        locations=locations,
        blanks=blanks,
        edges=_edges(m),
        army_moves={
            m.locations[loc]: sorted(m.locations[d] for d in m.army_moves[loc]) for loc in range(len(m.locations))
        },
        fleet_moves={
            m.locations[loc]: sorted(m.locations[d] for d in m.fleet_moves[loc]) for loc in range(len(m.locations))
        },
        supply_centres=[m.locations[p] for p in m.supply_centers],
        homes={m.power_names[power]: [m.locations[p] for p in provinces] for power, provinces in m.homes.items()},
        initial=game_position(Position.initial(m)),
    )


def _power_entry(m: Map, token: str, index: int) -> PowerEntry:
    try:
        p = Power.of(token)
    except (KeyError, ValueError):  # a power of another map: its own name, a colour of the palette
        full = m.power_names[token]
        english = full.title()
        return PowerEntry(
            token=token, name=full, english=english, adjective=english, colour=PALETTE[index % len(PALETTE)]
        )
    return PowerEntry(token=p.value, name=p.full_name, english=p.english, adjective=p.adjective, colour=p.colour)


@functools.cache
def _geographies() -> tuple[dict[str, Any], ...]:
    out = []
    for path in sorted(GEOGRAPHY.glob("*.json")):
        with path.open(encoding="utf-8") as handle:
            out.append(json.load(handle))
    return tuple(out)


def _geography(provinces: frozenset[str]) -> dict[str, Any] | None:
    """The drawn geography whose provinces are exactly these, if one is."""
    return next((g for g in _geographies() if frozenset(g["provinces"]) == provinces), None)


DIAGRAM_SIZE = 1000.0


def _diagram(m: Map) -> dict[str, Any]:
    """A map with no geography, as a diagram: the provinces in map order on rings around the
    centre (eight on the first, then more on each), each the cell of its place cut to a circle."""
    count = len(m.provinces)
    centre, step = DIAGRAM_SIZE / 2, DIAGRAM_SIZE / 2 / (1 + math.isqrt(count // 4 + 1))
    sites: list[Point] = []
    ring, on_ring = 0, 1
    while len(sites) < count:
        for k in range(min(on_ring, count - len(sites))):
            angle = 2 * math.pi * k / on_ring + ring * 0.5
            sites.append((centre + ring * step * math.cos(angle), centre + ring * step * math.sin(angle)))
        ring += 1
        on_ring = 8 * ring
    cells = regions(sites, DIAGRAM_SIZE, DIAGRAM_SIZE, [step * 0.9] * count)
    provinces = {
        m.locations[p]: {
            "x": round(x, 1),
            "y": round(y, 1),
            "label": (round(x, 1), round(y + 16, 1)),
            "shape": "M" + "L".join(f"{a} {b}" for a, b in cell) + "Z",
        }
        for p, (x, y), cell in zip(m.provinces, sites, cells, strict=True)
    }
    return {"width": DIAGRAM_SIZE, "height": DIAGRAM_SIZE, "provinces": provinces, "blanks": {}, "credit": ""}


def _edges(m: Map) -> list[Edge]:
    """Each pair of neighbouring provinces once, with the kinds of unit that can cross."""
    army: set[tuple[int, int]] = set()
    fleet: set[tuple[int, int]] = set()
    for loc in range(len(m.locations)):
        here = m.province_of[loc]
        for kind, moves in ((army, m.army_moves[loc]), (fleet, m.fleet_moves[loc])):
            for dest in moves:
                there = m.province_of[dest]
                kind.add((min(here, there), max(here, there)))
    return [
        Edge(a=m.locations[a], b=m.locations[b], army=(a, b) in army, fleet=(a, b) in fleet)
        for a, b in sorted(army | fleet)
    ]

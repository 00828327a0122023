"""The board as the page draws it: the standard map with positions, regions and colours.

The map data has no province shapes, so each province is drawn as a region around its
position in ``static/layout.json``: the Voronoi cell of the positions, cut to a circle.
:func:`map_data` is the body of ``GET /api/map`` (:mod:`server.web_api`).

>>> data = map_data()
>>> len(data.provinces), len(data.supply_centres), data.provinces[0].id
(75, 34, 'ADR')
>>> sorted(data.army_moves["PAR"])
['BRE', 'BUR', 'GAS', 'PIC']
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from engine import Position, Power, standard_map
from engine.maps import COAST, LAND, SEA, Map
from server.api_models import Body, GamePosition, game_position

__all__ = ["MapData", "map_data", "regions"]

LAYOUT = Path(__file__).parent / "static" / "layout.json"
REGION_RADIUS = 150.0
"""No region reaches further than this from its province's position: the map's outer
provinces end in a curve, not at the frame."""
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
    x: float
    y: float
    region: list[tuple[float, float]] = Field(description="the polygon drawn for it")


class Place(Body):
    """A place of the layout with no province: an impassable area such as Switzerland, or an
    island (Ireland, Corsica) drawn as a disc of ``radius`` in a region of sea."""

    id: str
    x: float
    y: float
    region: list[tuple[float, float]]
    radius: float | None = Field(default=None, description="an island's radius; null for an impassable land")


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
    """The body of ``GET /api/map``."""

    name: str
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


@functools.cache
def _layout() -> dict[str, Any]:
    with LAYOUT.open(encoding="utf-8") as handle:
        layout: dict[str, Any] = json.load(handle)
    return layout


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


@functools.cache
def map_data() -> MapData:
    """The standard map with the layout's positions and the regions drawn from them (computed once)."""
    m = standard_map()
    layout = _layout()
    positions: dict[str, list[float]] = layout["provinces"]
    coast_positions: dict[str, list[float]] = layout["coasts"]
    blank_positions: dict[str, list[float]] = {**layout.get("blanks", {}), **layout.get("islands", {})}
    names = [m.locations[p] for p in m.provinces]
    missing = [n for n in names if n not in positions]
    if missing:
        raise ValueError(f"layout.json has no position for {', '.join(missing)}")
    sites = [(float(positions[n][0]), float(positions[n][1])) for n in names]
    sites += [(float(b[0]), float(b[1])) for b in blank_positions.values()]
    width, height = float(layout["width"]), float(layout["height"])
    cells = regions(sites, width, height)
    provinces = [
        Province(
            id=m.locations[p],
            name=m.english_names[p],
            kind=KIND_NAMES[m.kind[p]],  # type: ignore[arg-type]
            supply_centre=m.is_supply_center[p],
            home=None if m.home_of[p] is None else m.power_names[m.home_of[p]],
            coasts=[m.locations[c] for c in m.coasts[p]],
            x=sites[i][0],
            y=sites[i][1],
            region=cells[i],
        )
        for i, p in enumerate(m.provinces)
    ]
    blanks = [
        Place(
            id=name,
            x=float(b[0]),
            y=float(b[1]),
            region=cells[len(names) + k],
            radius=float(b[2]) if len(b) > 2 else None,
        )
        for k, (name, b) in enumerate(blank_positions.items())
    ]
    locations: dict[str, tuple[float, float]] = {}
    for loc, name in enumerate(m.locations):
        province = m.locations[m.province_of[loc]]
        where = coast_positions.get(name, positions[province])
        locations[name] = (float(where[0]), float(where[1]))
    return MapData(
        name=m.name,
        width=width,
        height=height,
        powers=dict(m.power_names),
        power_table=[
            PowerEntry(token=p.value, name=p.full_name, english=p.english, adjective=p.adjective, colour=p.colour)
            for p in map(Power.of, m.powers)
        ],
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

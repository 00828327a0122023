"""Draw the page's maps from real coastlines: writes ``server/geography/NAME.json``.

Run once by a developer, when a map's drawing changes (not at install or run time)::

    .venv/bin/pip install -e '.[maps]'             # shapely: this script only
    .venv/bin/python scripts/draw_maps.py          # fetches world-atlas with npm, writes the files

The coastlines are Natural Earth's 1:50m land (version 4.1.0, public domain), as npm's
``world-atlas`` 2.0.2 carries it in TopoJSON (ISC licence; see ``server/geography/LICENCE``).
No dataset has the board's provinces, so their inland borders are ours: each province is
given seed points (longitude, latitude) below; the land is cut into the cells of the land
seeds (the provinces' and those of the land that is no province) and the water into the
cells of the sea provinces' seeds. Islands that are no province (Ireland, Corsica, ...) are
kept whole as impassable land. Everything is projected with a Lambert conformal conic
projection centred on Europe, clipped to the board's frame and simplified to about a pixel,
so that the page stays small on a phone.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

from shapely import MultiPolygon, Point, Polygon, box, coverage_simplify, unary_union, voronoi_polygons
from shapely.geometry import MultiPoint
from shapely.ops import polylabel

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "server" / "geography"
WORLD_ATLAS = "world-atlas@2.0.2"
WIDTH = 1131.0
# the board's frame, in degrees: the Atlantic west of Ireland to Armenia, the Sahara to the Barents Sea
WEST, EAST, SOUTH, NORTH = -12.0, 44.0, 33.0, 70.0
SIMPLIFY = 0.8  # pixels
SMALL_ISLAND = 8000.0  # square pixels: Sicily and Zealand are smaller

# Seeds: where each province's cell is grown from; the first is where its unit stands.
STANDARD_LAND: dict[str, list[tuple[float, float]]] = {
    "CLY": [(-5.0, 57.4), (-4.5, 56.0)], "EDI": [(-3.0, 56.4), (-2.5, 57.5), (-2.2, 55.6)], "LVP": [(-2.8, 54.0), (-3.0, 55.3), (-3.5, 55.2), (-4.8, 54.9)],
    "YOR": [(-1.3, 54.0), (-1.7, 54.9)], "WAL": [(-3.7, 52.2), (-4.8, 51.4)], "LON": [(-0.3, 51.6), (0.8, 52.3)],
    "NWY": [(9.0, 61.0), (14.5, 67.0), (22.0, 70.0), (28.0, 70.0), (8.0, 58.5), (17.0, 68.8), (20.0, 69.6), (18.5, 69.3), (7.5, 58.1), (15.5, 68.3)], "SWE": [(15.0, 59.5), (18.5, 64.5), (13.8, 56.3)],
    "FIN": [(26.0, 62.5), (26.0, 67.5)], "STP": [(32.0, 60.5), (33.0, 65.5), (28.5, 58.5), (40.0, 66.0), (33.0, 68.5), (29.8, 60.6)],
    "DEN": [(9.3, 56.2), (11.6, 55.4), (10.3, 57.4)], "HOL": [(5.8, 52.3)], "BEL": [(4.6, 50.6)],
    "KIE": [(9.7, 53.3), (8.5, 51.8), (10.6, 54.0)], "BER": [(13.3, 53.0), (13.5, 54.3)], "PRU": [(20.0, 54.0), (17.0, 54.0)],
    "LVN": [(24.8, 57.0), (24.0, 55.0)], "MOS": [(38.0, 55.0), (31.0, 54.0), (42.0, 58.0), (27.5, 52.9)],
    "WAR": [(20.8, 52.0), (23.5, 52.5)], "UKR": [(30.0, 49.5), (26.5, 50.5)], "SEV": [(36.5, 47.5), (42.0, 46.0), (34.0, 45.0)],
    "ARM": [(43.0, 40.0), (40.5, 41.0), (39.5, 39.0)], "SYR": [(38.5, 36.0), (36.5, 33.5)], "SMY": [(29.0, 38.3), (32.5, 37.0), (36.0, 38.2)],
    "ANK": [(33.0, 40.6), (38.0, 40.6)], "CON": [(27.8, 41.2), (30.0, 40.2)], "BUL": [(25.3, 42.6), (27.3, 42.2), (26.0, 41.5)],
    "RUM": [(25.0, 45.5), (28.0, 44.6), (25.5, 47.8)], "SER": [(20.8, 43.8), (21.5, 42.0)], "GRE": [(22.0, 39.5), (22.3, 37.5), (21.8, 40.8)],
    "ALB": [(20.0, 41.0)], "TRI": [(15.0, 45.3), (17.5, 44.2), (18.7, 42.8), (14.2, 45.6)], "BUD": [(19.5, 47.2), (23.5, 47.0)],
    "GAL": [(23.5, 49.5), (21.0, 49.8), (24.5, 48.6)], "VIE": [(15.8, 48.0), (18.5, 48.8)], "TYR": [(11.8, 46.8), (13.5, 47.0), (10.3, 46.5)], "BOH": [(14.5, 49.8), (17.2, 49.5)], "MUN": [(11.0, 48.6), (10.3, 50.0), (13.0, 51.0)],
    "SIL": [(16.8, 51.0)], "RUH": [(7.2, 51.0), (7.0, 49.8)], "BUR": [(4.8, 47.2), (6.2, 48.8), (4.2, 49.0)],
    "PAR": [(2.2, 48.3)], "PIC": [(2.2, 50.0)], "BRE": [(-2.8, 48.1)], "GAS": [(-0.4, 44.5), (1.5, 45.5)],
    "MAR": [(5.0, 43.9), (2.5, 43.0), (6.0, 44.8)], "PIE": [(7.8, 44.9), (7.3, 45.5)], "VEN": [(11.5, 45.4), (12.3, 44.2), (13.6, 45.9)], "TUS": [(11.0, 43.3)],
    "ROM": [(12.8, 41.9), (13.8, 41.4)], "APU": [(16.5, 41.0), (14.3, 42.3), (17.8, 40.6)], "NAP": [(15.8, 40.1)],
    "SPA": [(-3.7, 40.3), (-1.0, 41.5), (-4.5, 37.5), (1.5, 41.6)], "POR": [(-8.0, 39.6)],
    "NAF": [(2.5, 34.5), (-5.0, 33.0), (-5.5, 35.0)], "TUN": [(9.6, 34.0)],
}  # fmt: skip
# land that is no province: seeds that keep it out of its neighbours' cells
STANDARD_BLANK_LAND: dict[str, list[tuple[float, float]]] = {
    "SWI": [(8.2, 46.8), (7.0, 46.3)],
    "LIBYA": [(18.0, 30.5), (24.0, 31.0)],
    "NEAR_EAST": [(42.0, 34.0), (35.5, 30.8)],
    "CAUCASUS": [(45.5, 42.5)],
}
# islands that are no province, named by a point inside them: kept whole, impassable
ISLANDS: dict[str, tuple[float, float]] = {
    "IRE": (-8.0, 53.2), "ICE": (-19.0, 65.0), "COR": (9.1, 42.1), "SAR": (9.0, 40.0),
    "CRE": (24.9, 35.2), "CYP": (33.0, 35.0), "MAJ": (2.9, 39.6), "GOT": (18.5, 57.5),
}  # fmt: skip
# islands that belong whole to a province, named by a point inside them
STANDARD_ISLANDS: dict[str, tuple[float, float]] = {"NAP": (14.0, 37.5), "DEN": (12.0, 55.5)}
STANDARD_SEA: dict[str, list[tuple[float, float]]] = {
    "NAO": [(-14.0, 58.0), (-13.0, 52.0), (-7.5, 56.0)], "NWG": [(2.0, 66.0), (-8.0, 68.0), (-3.0, 60.5)], "BAR": [(37.0, 70.0), (28.0, 70.8)],
    "NTH": [(3.0, 56.0), (3.0, 52.3), (6.0, 56.5), (4.0, 59.5)], "ECH": [(-2.5, 50.0), (-5.5, 49.5), (1.8, 51.0)], "IRI": [(-5.0, 53.7), (-6.5, 51.5), (-8.5, 51.3)],
    "MAO": [(-13.0, 44.0), (-11.0, 38.0), (-10.0, 33.0), (-5.5, 46.0), (-9.0, 48.0)], "SKA": [(10.0, 58.0)], "HEL": [(7.5, 54.5), (7.8, 54.2)],
    "BAL": [(18.0, 55.8), (21.0, 58.5), (12.5, 54.6)], "GOB": [(20.5, 62.0), (25.5, 59.8), (22.5, 59.6)], "GOL": [(4.5, 42.3), (8.8, 43.8), (3.5, 43.2)],
    "WES": [(3.0, 38.5), (-2.5, 36.3)], "TYS": [(11.5, 40.0), (12.0, 41.0)], "ION": [(19.0, 37.0), (18.0, 33.5), (22.5, 34.8)],
    "ADR": [(15.0, 43.0), (13.5, 44.5)], "AEG": [(25.0, 38.5), (26.5, 36.0)], "EAS": [(30.0, 34.0), (34.5, 36.0), (27.5, 34.5)],
    "BLA": [(34.0, 43.3), (31.0, 42.5), (38.0, 42.5)],
}  # fmt: skip
STANDARD_COASTS: dict[str, tuple[float, float]] = {
    "STP/NC": (36.5, 67.0), "STP/SC": (28.8, 60.0), "SPA/NC": (-5.5, 43.0),
    "SPA/SC": (-2.5, 37.0), "BUL/EC": (27.5, 42.8), "BUL/SC": (24.5, 41.3),
}  # fmt: skip
# Pure: the land of Europe shared among its seven capitals; the water is no province
PURE_LAND: dict[str, list[tuple[float, float]]] = {
    "LON": [(-0.1, 51.5), (-3.0, 56.0)], "PAR": [(2.35, 48.86), (-1.0, 44.0), (-4.0, 40.0)],
    "BER": [(13.4, 52.5), (10.0, 56.0), (16.0, 62.0)], "VIE": [(16.4, 48.2)], "ROM": [(12.5, 41.9), (14.0, 38.0)],
    "CON": [(29.0, 41.0), (33.0, 39.0), (24.0, 40.0), (38.0, 36.0)], "MOS": [(37.6, 55.8), (30.0, 60.0), (28.0, 67.0)],
}  # fmt: skip

PURE_BLANK_LAND: dict[str, list[tuple[float, float]]] = {
    "AFRICA": [(-5.0, 32.0), (5.0, 32.0), (15.0, 31.0), (25.0, 31.0)], "NEAR_EAST": [(40.0, 33.0), (45.0, 37.0)],
}  # fmt: skip


def lambert(lon: float, lat: float) -> tuple[float, float]:
    """Lambert conformal conic, standard parallels 40 and 60, central meridian 15 (unscaled)."""
    p1, p2, p0, l0 = (math.radians(v) for v in (40.0, 60.0, 50.0, 15.0))
    n = math.log(math.cos(p1) / math.cos(p2)) / math.log(math.tan(math.pi / 4 + p2 / 2) / math.tan(math.pi / 4 + p1 / 2))
    f = math.cos(p1) * math.tan(math.pi / 4 + p1 / 2) ** n / n
    rho = f / math.tan(math.pi / 4 + math.radians(lat) / 2) ** n
    rho0 = f / math.tan(math.pi / 4 + p0 / 2) ** n
    theta = n * (math.radians(lon) - l0)
    return rho * math.sin(theta), rho0 - rho * math.cos(theta)


class Frame:
    """Degrees to the page's pixels: the projection, scaled so the frame is WIDTH wide."""

    def __init__(self) -> None:
        # the rectangle around the frame's outline (its edges are curves once projected)
        outline = [lambert(lon, lat) for lon in range(int(WEST), int(EAST) + 1) for lat in (SOUTH, NORTH)]
        outline += [lambert(lon, lat) for lon in (WEST, EAST) for lat in range(int(SOUTH), int(NORTH) + 1)]
        self.x0, self.x1 = min(x for x, _ in outline), max(x for x, _ in outline)
        self.y0, self.y1 = min(y for _, y in outline), max(y for _, y in outline)
        self.scale = WIDTH / (self.x1 - self.x0)
        self.height = round((self.y1 - self.y0) * self.scale, 1)

    def __call__(self, lon: float, lat: float) -> tuple[float, float]:
        x, y = lambert(lon, lat)
        return (x - self.x0) * self.scale, (self.y1 - y) * self.scale


def world_atlas_land() -> dict[str, Any]:
    """The TopoJSON of land-50m, from the npm registry's tarball of world-atlas."""
    with tempfile.TemporaryDirectory() as folder:
        subprocess.run(["npm", "pack", WORLD_ATLAS, "--silent"], cwd=folder, check=True, capture_output=True)
        (tarball,) = Path(folder).glob("world-atlas-*.tgz")
        with tarfile.open(tarball) as tar:
            member = tar.extractfile("package/land-50m.json")
            assert member is not None
            return json.load(member)


def land_polygons(topo: dict[str, Any], frame: Frame) -> list[Polygon]:
    """The land inside the frame, projected: TopoJSON's delta-coded arcs decoded into rings."""
    (sx, sy), (tx, ty) = topo["transform"]["scale"], topo["transform"]["translate"]
    arcs = []
    for arc in topo["arcs"]:
        x = y = 0
        points = []
        for dx, dy in arc:
            x, y = x + dx, y + dy
            points.append((x * sx + tx, y * sy + ty))
        arcs.append(points)

    def ring(indices: list[int]) -> list[tuple[float, float]]:
        out: list[tuple[float, float]] = []
        for i in indices:
            points = arcs[i] if i >= 0 else arcs[~i][::-1]
            out.extend(points[1:] if out else points)
        return out

    polygons = []
    for geometry in topo["objects"]["land"]["geometries"]:
        shapes = geometry["arcs"] if geometry["type"] == "MultiPolygon" else [geometry["arcs"]]
        for rings in shapes:
            lonlat = [ring(r) for r in rings]
            if not any(WEST - 25 < lon < EAST + 25 and SOUTH - 12 < lat < NORTH + 12 for lon, lat in lonlat[0]):
                continue
            projected = [[frame(lon, lat) for lon, lat in r] for r in lonlat]
            polygons.append(Polygon(projected[0], projected[1:]).buffer(0))
    window = box(0, 0, WIDTH, frame.height)
    return [p.intersection(window) for p in polygons if p.intersects(window)]


def cells(seeds: dict[str, list[tuple[float, float]]], frame: Frame) -> dict[str, Any]:
    """Each name's share of the frame: the union of the Voronoi cells of its seeds."""
    points = [(name, frame(lon, lat)) for name, pts in seeds.items() for lon, lat in pts]
    window = box(-WIDTH, -WIDTH, 2 * WIDTH, 2 * WIDTH)
    diagram = voronoi_polygons(MultiPoint([p for _, p in points]), extend_to=window)
    owned: dict[str, list[Any]] = {name: [] for name in seeds}
    for cell in diagram.geoms:
        name = next(n for n, p in points if cell.covers(Point(p)))
        owned[name].append(cell)
    return {name: unary_union(parts) for name, parts in owned.items()}


def path(geometry: Any) -> str:
    """SVG path data of a polygon or multipolygon, rounded to tenths of a pixel."""
    polygons = geometry.geoms if isinstance(geometry, MultiPolygon) else [geometry]
    out = []
    for polygon in polygons:
        for r in [polygon.exterior, *polygon.interiors]:
            coords = list(r.coords)[:-1]
            if len(coords) < 3:
                continue
            out.append("M" + "L".join(f"{x:.1f} {y:.1f}".replace(".0 ", " ").replace(".0", "") for x, y in coords) + "Z")
    return "".join(out)


def largest(geometry: Any) -> Polygon:
    return max(geometry.geoms, key=lambda g: g.area) if isinstance(geometry, MultiPolygon) else geometry


def place(geometry: Any, seed: tuple[float, float]) -> tuple[tuple[float, float], tuple[float, float]]:
    """Where the unit stands and where the name is written: the seed if it is well inside,
    else the pole of inaccessibility; the name a little below the unit, inside the shape."""
    unit = Point(seed)
    polygons = list(getattr(geometry, "geoms", [geometry]))
    body = next((g for g in polygons if g.contains(unit)), None) or largest(geometry)
    if not body.buffer(-6).contains(unit):
        unit = polylabel(body, tolerance=1.0)
    for dy in (16, -16, 10, -10, 0):
        label = Point(unit.x, unit.y + dy)
        if geometry.contains(label):
            break
    return (round(unit.x, 1), round(unit.y, 1)), (round(label.x, 1), round(label.y, 1))


def specks_dropped(geometry: Any, keep: Point | None = None, least: float = 2.0) -> Any:
    """The geometry without its specks; a sea keeps only the water connected to its seed."""
    parts = [g for g in getattr(geometry, "geoms", [geometry]) if isinstance(g, Polygon) and g.area >= least]
    if keep is not None:
        parts = [g for g in parts if g.buffer(1).contains(keep)] or parts[:1]
    return parts[0] if len(parts) == 1 else MultiPolygon(parts)


def draw(
    name: str,
    land_seeds: dict[str, list[tuple[float, float]]],
    blank_seeds: dict[str, list[tuple[float, float]]],
    sea_seeds: dict[str, list[tuple[float, float]]],
    coasts: dict[str, tuple[float, float]],
    owned_islands: dict[str, tuple[float, float]],
    land: list[Polygon],
    frame: Frame,
) -> dict[str, Any]:
    """One board: every province's and blank's shape, unit position and label."""
    island_points = {key: Point(frame(*q)) for key, q in ISLANDS.items()}
    islands = {key: p for p in land for key, q in island_points.items() if p.contains(q)}
    owned = {key: p for p in land for key, q in owned_islands.items() if p.contains(Point(frame(*q)))}
    rest = [p for p in land if not any(p is i for i in (*islands.values(), *owned.values()))]
    # a small island goes whole to the cell it lies in: a border never cuts one in two
    mainland = unary_union([p for p in rest if p.area >= SMALL_ISLAND])
    small = [p for p in rest if p.area < SMALL_ISLAND]
    raw: dict[str, Any] = {}
    seeds: dict[str, tuple[float, float]] = {}
    for key, cell in cells({**land_seeds, **blank_seeds}, frame).items():
        whole = [p for p in small if cell.contains(p.representative_point())]
        whole += [owned[key]] if key in owned else []
        raw[key] = specks_dropped(unary_union([cell.intersection(mainland), *whole]))
        seeds[key] = frame(*(land_seeds.get(key) or blank_seeds[key])[0])
    for key, island in islands.items():
        raw[key], seeds[key] = island, frame(*ISLANDS[key])
    if sea_seeds:
        water = box(0, 0, WIDTH, frame.height).difference(unary_union(land))
        for key, cell in cells(sea_seeds, frame).items():
            seeds[key] = frame(*sea_seeds[key][0])
            raw[key] = specks_dropped(cell.intersection(water), keep=Point(seeds[key]), least=20.0)
    # simplified together, so that two neighbours keep one border between them (the same points)
    keys = list(raw)
    simplified = dict(zip(keys, coverage_simplify([raw[k] for k in keys], SIMPLIFY), strict=True))
    provinces: dict[str, Any] = {}
    blanks: dict[str, Any] = {}
    for key, shape in simplified.items():
        (x, y), label = place(shape, seeds[key])
        if key in land_seeds or key in sea_seeds:
            provinces[key] = {"shape": path(shape), "x": x, "y": y, "label": label}
        else:
            blanks[key] = {"shape": path(shape), "x": x, "y": y}
    return {
        "about": f"The {name} board drawn from Natural Earth's coastlines by scripts/draw_maps.py (do not edit by hand).",
        "credit": "Made with Natural Earth",
        "width": WIDTH,
        "height": frame.height,
        "provinces": dict(sorted(provinces.items())),
        "coasts": {k: [round(v, 1) for v in frame(*q)] for k, q in coasts.items()},
        "blanks": dict(sorted(blanks.items())),
    }


def main() -> int:
    frame = Frame()
    land = land_polygons(world_atlas_land(), frame)
    OUT.mkdir(exist_ok=True)
    boards = {
        "standard": draw("standard", STANDARD_LAND, STANDARD_BLANK_LAND, STANDARD_SEA, STANDARD_COASTS, STANDARD_ISLANDS, land, frame),
        "pure": draw("pure", PURE_LAND, PURE_BLANK_LAND, {}, {}, {"ROM": (14.0, 37.5)}, land, frame),
    }
    for name, data in boards.items():
        target = OUT / f"{name}.json"
        target.write_text(json.dumps(data, separators=(",", ":")) + "\n", encoding="utf-8")
        print(f"{target.relative_to(ROOT)}: {target.stat().st_size:,} bytes, {len(data['provinces'])} provinces")
    return 0


if __name__ == "__main__":
    sys.exit(main())

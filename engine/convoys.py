"""Convoy routes: chains of fleets at sea that can carry an army between two coasts."""

from __future__ import annotations

from collections.abc import Mapping

from engine.maps import COAST, FLEET, SEA, Map
from engine.position import Unit


class ConvoyRoutes:
    """Which fleets could carry an army between two provinces on this board.

    A fleet counts only when it is necessary on some route (DATC 6.G.19): the routes
    are the chains of occupied seas with no shortcut, from a sea touching the origin
    to a sea touching the destination. All routes from one origin are found in one
    search and kept.
    """

    __slots__ = ("_m", "_unit_at", "_fleet_seas", "_routes", "_without")

    def __init__(self, m: Map, unit_at: Mapping[int, Unit]) -> None:
        self._m = m
        self._unit_at = unit_at
        self._fleet_seas: frozenset[int] | None = None
        self._routes: dict[int, dict[int, frozenset[int]]] = {}
        self._without: dict[tuple[int, int], dict[int, frozenset[int]]] = {}

    @property
    def _seas(self) -> frozenset[int]:
        """The seas with a fleet in them, found on first use: most phases need none."""
        if self._fleet_seas is None:
            kind = self._m.kind
            self._fleet_seas = frozenset(p for p, u in self._unit_at.items() if u.type == FLEET and kind[p] == SEA)
        return self._fleet_seas

    def routes(self, origin: int) -> dict[int, frozenset[int]]:
        """Destination -> the fleets on some route to it, for an army at ``origin``."""
        found = self._routes.get(origin)
        if found is None:
            found = self._routes[origin] = self._search(origin, self._seas)
        return found

    def fleets(self, origin: int, destination: int, without: int = -1) -> frozenset[int]:
        """The fleets on some route from ``origin`` to ``destination``, not using ``without``."""
        if without < 0 or without not in self._seas:
            return self.routes(origin).get(destination, _NONE)
        key = (origin, without)
        found = self._without.get(key)
        if found is None:
            found = self._without[key] = self._search(origin, self._seas - {without})
        return found.get(destination, _NONE)

    def _search(self, origin: int, seas: frozenset[int]) -> dict[int, frozenset[int]]:
        m = self._m
        if not seas or m.kind[origin] != COAST:
            return {}
        touching = m.seas_touching
        shores = m.shores
        adjacent = m.fleet_reach
        start = touching[origin] & seas
        used: dict[int, set[int]] = {}

        def extend(path: list[int], reached: frozenset[int]) -> None:
            # ``reached``: the shores the path touched before its last sea; a route to
            # one of them through the last sea would have a shortcut
            last = path[-1]
            for shore in shores[last]:
                if shore not in reached and shore != origin:
                    used.setdefault(shore, set()).update(path)
            reached = reached | shores[last]
            for sea in adjacent[last] & seas:
                if sea in path or sea in start:
                    continue
                if any(sea in adjacent[earlier] for earlier in path[:-1]):
                    continue
                path.append(sea)
                extend(path, reached)
                path.pop()

        for sea in start:
            extend([sea], frozenset())
        return {shore: frozenset(fleets) for shore, fleets in used.items()}


_NONE: frozenset[int] = frozenset()


def route_exists(m: Map, origin: int, destination: int, fleets: set[int]) -> bool:
    """Is there a chain of these fleets from ``origin`` to ``destination``?"""
    if not fleets:
        return False
    touching = m.seas_touching
    frontier = [f for f in fleets if f in touching[origin]]
    seen = set(frontier)
    end = touching[destination]
    near = m.fleet_reach
    while frontier:
        f = frontier.pop()
        if f in end:
            return True
        for g in fleets:
            if g not in seen and g in near[f]:
                seen.add(g)
                frontier.append(g)
    return False

"""Convoy routes: chains of fleets at sea that can carry an army between two coasts."""

from __future__ import annotations

from engine.maps import COAST, Map


class ConvoyRoutes:
    """Which fleets could carry an army between two provinces on this board.

    A fleet counts only when it is necessary on some route (DATC 6.G.19): the routes
    are the chains of occupied seas with no shortcut, from a sea touching the origin
    to a sea touching the destination.
    """

    __slots__ = ("_m", "_seas", "_cache", "_shores")

    def __init__(self, m: Map, fleet_seas: frozenset[int]) -> None:
        self._m = m
        self._seas = fleet_seas
        self._cache: dict[tuple[int, int, int], frozenset[int]] = {}
        self._shores: dict[int, frozenset[int]] = {}

    def destinations(self, origin: int) -> frozenset[int]:
        """The coastal provinces an army at ``origin`` could be convoyed to.

        Some chain of fleets reaches a province exactly when a chain without a
        shortcut does, so a plain search of the fleets' seas is enough here.
        """
        found = self._shores.get(origin)
        if found is None:
            found = self._shores[origin] = self._reach(origin)
        return found

    def _reach(self, origin: int) -> frozenset[int]:
        m = self._m
        if not self._seas or m.kind[origin] != COAST:
            return frozenset()
        seas = self._seas
        frontier = list(m.seas_touching[origin] & seas)
        seen = set(frontier)
        while frontier:
            for sea in m.fleet_reach[frontier.pop()] & seas:
                if sea not in seen:
                    seen.add(sea)
                    frontier.append(sea)
        shores = m.shores
        return frozenset(p for sea in seen for p in shores[sea] if p != origin)

    def fleets(self, origin: int, destination: int, without: int = -1) -> frozenset[int]:
        key = (origin, destination, without)
        found = self._cache.get(key)
        if found is None:
            found = self._cache[key] = self._search(origin, destination, without)
        return found

    def _search(self, origin: int, destination: int, without: int) -> frozenset[int]:
        m = self._m
        if not self._seas or m.kind[origin] != COAST or m.kind[destination] != COAST or origin == destination:
            return frozenset()
        touching = m.seas_touching
        seas = self._seas - {without} if without >= 0 else self._seas
        start = touching[origin] & seas
        end = touching[destination]
        adjacent = m.fleet_reach
        used: set[int] = set()

        def extend(path: list[int]) -> None:
            last = path[-1]
            if last in end:
                used.update(path)
                return
            for sea in adjacent[last] & seas:
                if sea in path or sea in start:
                    continue
                if any(sea in adjacent[earlier] for earlier in path[:-1]):
                    continue
                path.append(sea)
                extend(path)
                path.pop()

        for sea in start:
            extend([sea])
        return frozenset(used)


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

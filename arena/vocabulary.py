"""Actions as numbers: a fixed vocabulary of orders for each location of a map.

A learning agent acts with one integer per location of the map (a ``MultiDiscrete``): at a
location where the power has a unit to order (or a dislodged unit, or a build to make) the
integer picks one order of that location's vocabulary; elsewhere it is ignored. Index 0 of
every location is "no order": a unit holds, a dislodged unit disbands, no build is made.

The vocabulary of a location is every order the rules could allow there on this map,
whatever the position: hold; moves to each neighbour (and, for an army on a coast, to every
other coastal province by convoy, with and without ``VIA``); supports to hold and to move of
every unit that could stand where it could reach; convoys of every army between coastal
provinces (a fleet at sea); retreats, disbands and builds. It is a superset: which of them
are legal in a position is :meth:`Vocabulary.mask`'s, from the engine's legal-order
generator. It is made from the map alone, in a fixed order, so an index means the same
order in every game on that map, and :data:`VERSION` changes when the construction does.

>>> from engine import Position, legal_orders, standard_map
>>> words = Vocabulary.of(standard_map())
>>> start = Position.initial()
>>> lvp = start.map.location("LVP")
>>> words.index(legal_orders(start, "ENG")[start.unit_in("LVP")][1])[0] == lvp
True
>>> words.order(lvp, 0) is None
True
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from engine.maps import ARMY, COAST, FLEET, SEA, Map
from engine.orders import Build, Convoy, Disband, Hold, Move, Order, Retreat, SupportHold, SupportMove, Waive

__all__ = ["VERSION", "Vocabulary"]

#: The version of the vocabulary's construction: an index names the same order only within one.
VERSION = 1


@dataclass(frozen=True, eq=False)
class Vocabulary:
    """The orders of each location of ``map``, ``orders[location][i]`` (``None`` at ``i == 0``)."""

    map: Map
    orders: tuple[tuple[Order | None, ...], ...]
    where: Mapping[Order, tuple[int, int]]

    @classmethod
    @functools.cache
    def of(cls, m: Map) -> Vocabulary:
        """The vocabulary of map ``m`` (made once a map)."""
        orders = tuple((None, *sorted(set(_possible(m, location)), key=_key)) for location in range(len(m.locations)))
        where = {order: (location, i) for location, words in enumerate(orders) for i, order in enumerate(words) if i}
        return cls(m, orders, where)

    @functools.cached_property
    def sizes(self) -> np.ndarray:
        """The number of choices at each location (the ``MultiDiscrete``'s ``nvec``)."""
        return np.array([len(words) for words in self.orders], dtype=np.int64)

    @functools.cached_property
    def offsets(self) -> np.ndarray:
        """Where each location's choices start in the flat numbering of all of them (and the total):
        choice ``i`` of location ``l`` is ``offsets[l] + i`` there."""
        return np.concatenate(([0], np.cumsum(self.sizes))).astype(np.int64)

    @functools.cached_property
    def location_of(self) -> np.ndarray:
        """The location of each flat choice."""
        return np.repeat(np.arange(len(self.orders), dtype=np.int16), self.sizes)

    @functools.cached_property
    def records(self) -> np.ndarray:
        """Each flat choice as the engine's order record of 7 ``int16`` (kind, type, location, other
        type, other location, destination, via: :func:`engine.batch.decode_legal`'s form); -1 for
        the "no order" of each location."""
        from engine.batch import encode_orders

        out = np.full((int(self.offsets[-1]), 7), -1, dtype=np.int16)
        chosen = [o for words in self.orders for o in words[1:]]
        encoded = np.frombuffer(encode_orders(self.map, {self.map.powers[0]: chosen}).tobytes(), dtype=np.int16)
        flat = np.array([self.offsets[loc] + i for loc, words in enumerate(self.orders) for i in range(1, len(words))])
        out[flat] = encoded.reshape(-1, 8)[:, 1:]
        return out

    def index(self, order: Order) -> tuple[int, int]:
        """``(location, index)`` of ``order``; :class:`KeyError` for an order no position allows."""
        return self.where[order]

    def order(self, location: int, index: int) -> Order | None:
        """The order at ``index`` of ``location`` (``None`` for 0, "no order")."""
        return self.orders[location][index]

    def decode(self, action: Sequence[int] | np.ndarray, legal: Mapping[object, Sequence[Order]]) -> list[Order]:
        """The orders an action gives, among ``legal`` (:func:`engine.legal_orders` of the power):
        an index that is not a legal order at its location is dropped (the unit holds), as the
        engine voids an illegal order; for adjustments, the engine counts the first builds or
        removals it may (DATC 4.D.4 to 4.D.6)."""
        allowed = {order for orders in legal.values() for order in orders}
        chosen = (self.orders[location][int(i)] for location, i in enumerate(action) if int(i))
        return [order for order in chosen if order in allowed]

    def encode(self, orders: Iterable[Order]) -> np.ndarray:
        """The action that gives ``orders`` (0 elsewhere): :meth:`decode`'s inverse on legal orders.
        A waived build has no location and is left out (0 builds nothing, as a waive does)."""
        action = np.zeros(len(self.orders), dtype=np.int64)
        for order in orders:
            if isinstance(order, Waive):
                continue
            location, i = self.where[order]
            action[location] = i
        return action

    def mask(self, legal: Mapping[object, Sequence[Order]]) -> tuple[np.ndarray, ...]:
        """One ``int8`` array per location, 1 where the order is legal, in the form gymnasium's
        ``MultiDiscrete.sample(mask=...)`` takes; "no order" (0) is always allowed."""
        masks = tuple(np.zeros(len(words), dtype=np.int8) for words in self.orders)
        for mask in masks:
            mask[0] = 1
        for orders in legal.values():
            for order in orders:
                if not isinstance(order, Waive):
                    location, i = self.where[order]
                    masks[location][i] = 1
        return masks

    def orderable(self, legal: Mapping[object, Sequence[Order]]) -> list[int]:
        """The locations where ``legal`` has an order to give, in order."""
        return sorted({self.where[o][0] for orders in legal.values() for o in orders if not isinstance(o, Waive)})


def _types(m: Map, location: int) -> list[int]:
    """The unit types that can stand at ``location``."""
    return [t for t, moves in ((ARMY, m.army_moves), (FLEET, m.fleet_moves)) if moves[location]]


def _moves(m: Map, unit_type: int) -> tuple[frozenset[int], ...]:
    return m.army_moves if unit_type == ARMY else m.fleet_moves


def _coastal(m: Map) -> list[int]:
    """The coastal provinces (where an army can be convoyed from or to)."""
    return [p for p in range(len(m.locations)) if m.province_of[p] == p and m.kind[p] == COAST]


def _possible(m: Map, location: int) -> Iterable[Order]:
    """Every order a unit at ``location`` could ever give (see the module)."""
    coastal = _coastal(m)
    province = m.province_of[location]
    for unit_type in _types(m, location):
        yield Hold(unit_type, location)
        yield Disband(unit_type, location)
        reach = _moves(m, unit_type)[location]
        for destination in reach:
            yield Move(unit_type, location, destination)
            yield Retreat(unit_type, location, destination)
        if unit_type == ARMY and province in coastal:
            for destination in coastal:
                if destination != province:
                    yield Move(ARMY, location, destination, via_convoy=True)
                    yield Move(ARMY, location, destination, via_convoy=False)
        reached = {m.province_of[d] for d in reach}
        for target in reached:  # supports: of a unit standing in, or moving to, a province it reaches
            places = [loc for loc in range(len(m.locations)) if m.province_of[loc] == target]
            for place in places:
                for other in _types(m, place):
                    yield SupportHold(unit_type, location, other, place)
            for mover in range(len(m.locations)):
                if m.province_of[mover] in (province, target):
                    continue
                for other in _types(m, mover):
                    convoyed = other == ARMY and m.province_of[mover] in coastal and target in coastal
                    if convoyed or any(m.province_of[d] == target for d in _moves(m, other)[mover]):
                        for destination in {
                            target,
                            *(d for d in _moves(m, other)[mover] if m.province_of[d] == target),
                        }:
                            yield SupportMove(unit_type, location, other, mover, destination)
        if unit_type == FLEET and m.kind[location] == SEA:
            for start in coastal:
                for destination in coastal:
                    if destination != start:
                        yield Convoy(FLEET, location, start, destination)
        if m.is_supply_center[province]:
            yield Build(unit_type, location)


def _key(order: Order) -> tuple[object, ...]:
    """A fixed order of a location's orders: by kind, then by their numbers."""
    return (type(order).__name__, *(int(v) if v is not None else -1 for v in vars_of(order)))


def vars_of(order: Order) -> tuple[object, ...]:
    return tuple(getattr(order, name) for name in order.__slots__)  # type: ignore[union-attr]

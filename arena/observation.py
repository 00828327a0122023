"""The board as numbers: what every agent observes, in numpy arrays (version :data:`VERSION`).

``board`` has one row per location of the map (provinces first, then the coasts of
multi-coast provinces, as :class:`engine.maps.Map` orders them) and these columns
(:data:`COLUMNS`); a power is its index in ``map.powers`` plus one, 0 for none:

==========================  =================================================================
column                      value
==========================  =================================================================
``unit``                    the unit standing there: 0 none, 1 army, 2 fleet
``unit_power``              its power
``dislodged``               the dislodged unit there (a retreat phase): 0, 1 army, 2 fleet
``dislodged_power``         its power
``supply_centre``           1 for a supply centre's province (and its coasts)
``owner``                   the power owning that supply centre
``home``                    the power whose home centre it is
``kind``                    0 land, 1 coast, 2 sea (a coast of a multi-coast province: 1)
``coast_of``                for a coast, its province's location plus one; 0 otherwise
==========================  =================================================================

``phase`` is ``[years since the first, season (0 spring, 1 fall, 2 winter), kind (0
movement, 1 retreats, 2 adjustments)]``; ``builds`` the builds (positive) or removals
(negative) each power owes in an adjustment phase, by power; ``last_orders`` the vocabulary
index (:mod:`arena.vocabulary`) of the order last given at each location, in the phase before
(0: none); ``centres`` the supply centres each power owns.

>>> from engine import Position
>>> seen = observe(Position.initial())
>>> seen["board"].shape, int(seen["board"][:, COLUMNS.index("unit")].astype(bool).sum())
((81, 9), 22)
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from arena.vocabulary import Vocabulary
from engine.maps import ARMY, Map
from engine.orders import Order
from engine.position import ADJUSTMENTS, MOVEMENT, Position

__all__ = ["COLUMNS", "VERSION", "observe", "space"]

#: The version of this encoding: a change of a column or of its meaning makes a new one.
VERSION = 1
COLUMNS = (
    "unit",
    "unit_power",
    "dislodged",
    "dislodged_power",
    "supply_centre",
    "owner",
    "home",
    "kind",
    "coast_of",
)
SEASONS = {"S": 0, "F": 1, "W": 2}


def _static(m: Map) -> np.ndarray:
    """The columns that depend on the map alone."""
    board = np.zeros((len(m.locations), len(COLUMNS)), dtype=np.int16)
    homes = {p: i + 1 for i, power in enumerate(m.powers) for p in m.homes.get(power, ())}
    for location in range(len(m.locations)):
        province = m.province_of[location]
        board[location, COLUMNS.index("supply_centre")] = int(m.is_supply_center[province])
        board[location, COLUMNS.index("home")] = homes.get(province, 0)
        board[location, COLUMNS.index("kind")] = m.kind[location]
        board[location, COLUMNS.index("coast_of")] = province + 1 if province != location else 0
    return board


def observe(position: Position, last_orders: Iterable[Order] = ()) -> dict[str, np.ndarray]:
    """The observation of ``position`` (the same for every agent: Diplomacy hides nothing but
    what is said), with ``last_orders`` the orders of the phase before."""
    m = position.map
    power_index = {power: i + 1 for i, power in enumerate(m.powers)}
    board = _static(m)
    for unit in position.units:
        board[unit.location, 0] = 1 if unit.type == ARMY else 2
        board[unit.location, 1] = power_index[unit.power]
    for dislodged in position.dislodged:
        unit = dislodged.unit
        board[unit.location, 2] = 1 if unit.type == ARMY else 2
        board[unit.location, 3] = power_index[unit.power]
    owner_column = COLUMNS.index("owner")
    for location in range(len(m.locations)):
        owner = position.centers[m.province_of[location]]
        board[location, owner_column] = power_index[owner] if owner is not None else 0
    phase = position.phase
    kind = 0 if phase.kind == MOVEMENT else 2 if phase.kind == ADJUSTMENTS else 1
    owed = position.adjustments if phase.kind == ADJUSTMENTS else {}
    words = Vocabulary.of(m)
    last = np.zeros(len(m.locations), dtype=np.int32)
    for order in last_orders:
        if order in words.where:
            location, index = words.where[order]
            last[location] = index
    return {
        "board": board,
        "phase": np.array([phase.year - m.first_year, SEASONS[phase.season], kind], dtype=np.int16),
        "builds": np.array([owed.get(power, 0) for power in m.powers], dtype=np.int16),
        "centres": np.array([position.center_counts.get(power, 0) for power in m.powers], dtype=np.int16),
        "last_orders": last,
    }


def space(m: Map, year_limit: int | None):  # type: ignore[no-untyped-def]
    """The gymnasium ``Dict`` space of :func:`observe`'s observations on map ``m``."""
    from gymnasium import spaces

    n, powers = len(m.locations), len(m.powers)
    highs = [2, powers, 2, powers, 1, powers, powers, 2, n]
    years = (year_limit - m.first_year + 1) if year_limit is not None else 1000
    centres = len(m.supply_centers)
    words = Vocabulary.of(m).sizes
    return spaces.Dict(
        {
            "board": spaces.Box(0, np.array([highs] * n, dtype=np.int16), shape=(n, len(COLUMNS)), dtype=np.int16),
            "phase": spaces.Box(0, np.array([years, 2, 2], dtype=np.int16), shape=(3,), dtype=np.int16),
            "builds": spaces.Box(-centres, centres, shape=(powers,), dtype=np.int16),
            "centres": spaces.Box(0, centres, shape=(powers,), dtype=np.int16),
            "last_orders": spaces.Box(0, (words - 1).astype(np.int32), shape=(n,), dtype=np.int32),
        }
    )

"""The records as the store keeps them: a power by its full name (``"ENGLAND"``).

Inside the game a power is its token (``"ENG"``); the records a store holds name the powers
of seats, orders and alarms by their full names, as they always have, so that a store
written by an older détente replays, and what reads records (the history, the exports)
reads one spelling. This table says, for each kind of record, which fields hold a power
and which hold a mapping keyed by power; :func:`to_store` writes them and
:func:`from_store` reads them back, both through it. Press names powers by the DAIDE tokens
it was sent with, and is not in the table.

>>> from engine import standard_map
>>> m = standard_map()
>>> to_store("orders", {"at": 1.0, "power": "FRA", "orders": ["(FRA AMY PAR) HLD"]}, m.power_names)
{'at': 1.0, 'power': 'FRANCE', 'orders': ['(FRA AMY PAR) HLD']}
>>> from_store("adjudicate", {"given": {"FRANCE": ["A PAR H"]}, "phase": "S1901M"}, m)
{'given': {'FRA': ['A PAR H']}, 'phase': 'S1901M'}
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from engine.maps import Map

__all__ = ["from_store", "to_store"]

_POWER = ("power",)
#: kind -> (the fields holding a power, the fields holding a mapping keyed by power)
POWER_FIELDS: Mapping[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "join": (_POWER, ()),
    "rejoin": (_POWER, ()),
    "leave": (_POWER, ()),
    "orders": (_POWER, ()),
    "cancel": (_POWER, ()),
    "gof": (_POWER, ()),
    "draw": (_POWER, ()),
    "alarm": (_POWER, ()),
    "stand_in": (_POWER, ()),
    "returned": (_POWER, ()),
    "fill": ((), ("bots",)),
    "session": (_POWER, ()),
    "adjudicate": ((), ("given", "orders")),
    "binding": ((), ("orders",)),
}


def _spelt(kind: str, payload: Mapping[str, Any], spell: Callable[[str], str]) -> Mapping[str, Any]:
    if kind not in POWER_FIELDS:  # press, adjudicate's neighbours, admin...: as they are
        return payload
    powers, keyed = POWER_FIELDS[kind]
    out = dict(payload)
    for field in powers:
        if out.get(field) is not None:
            out[field] = spell(out[field])
    for field in keyed:
        if field in out:
            out[field] = {spell(power): value for power, value in out[field].items()}
    return out


def to_store(kind: str, payload: Mapping[str, Any], full_names: Mapping[str, str]) -> Mapping[str, Any]:
    """A record's payload as the store keeps it: each power by its full name."""
    return _spelt(kind, payload, full_names.__getitem__)


def from_store(kind: str, payload: Mapping[str, Any], m: Map) -> Mapping[str, Any]:
    """A stored record's payload with each power by its token (read from either spelling)."""
    return _spelt(kind, payload, m.power)

"""Meta's Cicero games: dipcc's game JSON (``Game.to_json`` of ``fairdiplomacy.pydipcc``).

dipcc writes MILA's saved game with more around it, as its "Diplomacy Game JSON
Specification, Version 1.0" documents: at the top ``version``, ``is_full_press``,
``scoring_system`` (a name, or 0 and 1 for sum of squares and draw size) and ``metadata``
(strings); in each phase ``logs`` and an optional ``phase_start_time``; messages as a list
or as ``{time_sent: message}``, ``ALL`` for a public message, times in centiseconds; in
retreat phases the dislodged units starred in ``units``; and, in the files Meta released,
``results`` empty. Draw votes are messages ``<DRAW>`` to ``ALL``.

:func:`load` reads such a file as détente's game document, as :func:`formats.mila.load`
does (the same replay with détente's engine; with no recorded results, each phase's
results are the engine's). What dipcc adds is kept under ``source``: the top-level keys,
and each phase's ``logs`` and ``phase_start_time`` by phase name. :func:`dump` writes a
détente game (a ``GameRecord`` or its document) as a dipcc game: MILA's saved game with
dipcc's top-level keys (kept from ``source`` when the game came from dipcc, else version
1.0, ``is_full_press`` when it has messages, ``sum_of_squares``), each phase's ``logs``
(and its ``phase_start_time`` where one was read) and ``ALL`` for a public message; what
détente adds beyond it stays under MILA's extra ``detente`` keys, which dipcc ignores.

>>> game = {"version": "1.0", "id": "g", "is_full_press": True, "map": "standard",
...         "scoring_system": "sum_of_squares", "metadata": {"phase_minutes": "5"},
...         "phases": [{"name": "S1901M", "logs": [], "results": {},
...                     "state": {"name": "S1901M", "units": {"FRANCE": ["A PAR"]}, "centers": {"FRANCE": ["PAR"]}},
...                     "orders": {"FRANCE": ["A PAR - BUR"]},
...                     "messages": [{"sender": "FRANCE", "recipient": "ALL", "phase": "S1901M",
...                                   "time_sent": 100, "message": "<DRAW>"}]},
...                    {"name": "F1901M", "logs": [], "results": {}, "orders": {},
...                     "state": {"name": "F1901M", "units": {"FRANCE": ["A BUR"]}, "centers": {"FRANCE": ["PAR"]}},
...                     "messages": []}]}
>>> is_cicero(game)
True
>>> document = load(game)
>>> document["phases"][0]["results"], document["messages"][0]["text"], document["source"]["scoring_system"]
({'A PAR': ['ok']}, '<DRAW>', 'sum_of_squares')
>>> again = dump(document)
>>> again["metadata"], again["phases"][0]["messages"][0]["recipient"], is_cicero(again)
({'phase_minutes': '5'}, 'ALL', True)
>>> load(again)["phases"][0]["position"] == document["phases"][0]["position"]
True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.maps import Map
from formats import mila
from formats.common import FormatError
from formats.mila import is_mila
from formats.saved import read_saved_game

__all__ = ["CICERO_KEYS", "dump", "is_cicero", "load"]

#: The top-level keys dipcc writes and MILA does not.
CICERO_KEYS = ("version", "is_full_press", "scoring_system", "metadata")


def is_cicero(data: Any) -> bool:
    """A MILA-shaped game with any of dipcc's own keys (top level, or ``logs`` in a phase)."""
    if not is_mila(data):
        return False
    return any(key in data for key in CICERO_KEYS) or any(
        isinstance(phase, Mapping) and "logs" in phase for phase in data["phases"]
    )


def load(data: Mapping[str, Any], m: Map | None = None) -> dict[str, Any]:
    """A dipcc game as détente's game document (see the module)."""
    if not is_mila(data):
        raise FormatError("not a Cicero/dipcc game: no phases with a name and a state")
    if data.get("map", "standard") != "standard":
        raise FormatError(f"map {str(data.get('map'))[:40]!r}: dipcc plays the standard map only")
    source: dict[str, Any] = {"format": "cicero", "id": data.get("id"), "map": data.get("map", "standard")}
    for key in ("rules", *CICERO_KEYS):
        if key in data:
            source[key] = data[key]
    logs = {phase["name"]: phase["logs"] for phase in data["phases"] if phase.get("logs")}
    if logs:
        source["logs"] = logs
    starts = {phase["name"]: phase["phase_start_time"] for phase in data["phases"] if "phase_start_time" in phase}
    if starts:
        source["phase_start_time"] = starts
    return read_saved_game(data, source, m)


def dump(record: Any, m: Map | None = None) -> dict[str, Any]:
    """A détente game (a ``GameRecord``, or its document) as a dipcc game (see the module)."""
    document: Mapping[str, Any] = record.to_json() if hasattr(record, "to_json") else record
    board = (document.get("settings") or {}).get("map", "standard") if isinstance(document, Mapping) else "standard"
    if (m.name if m is not None else board) != "standard":
        raise FormatError(f"map {board!r}: dipcc plays the standard map only (write it as mila)")
    saved = mila.dump(document, m)
    source = document.get("source") or {} if isinstance(document, Mapping) else {}
    ours = source.get("format") == "cicero"
    logs = source.get("logs", {}) if ours else {}
    starts = source.get("phase_start_time", {}) if ours else {}
    for phase in saved["phases"]:
        phase["logs"] = list(logs.get(phase["name"], ()))
        if phase["name"] in starts:
            phase["phase_start_time"] = starts[phase["name"]]
        for message in phase["messages"]:
            if message["recipient"] == "GLOBAL":
                message["recipient"] = "ALL"
    kept = source if ours else {}
    head = {
        "version": kept.get("version", "1.0"),
        "is_full_press": kept.get("is_full_press", bool(document.get("messages"))),
        "scoring_system": kept.get("scoring_system", "sum_of_squares"),
        "metadata": dict(kept.get("metadata", {})),
    }
    return {**head, **saved}

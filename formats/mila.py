"""MILA's saved-game JSON (the ``diplomacy`` package's ``to_saved_game_format``).

A saved game is ``{"id", "map", "rules", "phases"}``; each phase is ``{"name", "state",
"orders", "results", "messages"}``, ``state`` being the position *before* the phase
(``units`` with dislodged units starred, ``retreats``, ``centers``, ``homes``,
``influence``, ``civil_disorder``, ``builds``) and the last phase the position the game
stopped at (``COMPLETED`` when it is over), with no orders. Orders are in the short
notation, with three seas named differently (``ENG``, ``LYO``, ``BOT`` for détente's
``ECH``, ``GOL``, ``GOB``). A message has one ``recipient``, a power or ``GLOBAL``.

:func:`dump` writes a détente game (a :class:`bots.inprocess.GameRecord` or its JSON
document) in that format; :func:`load` reads one back as a game document:

>>> from engine import Game
>>> game = Game()
>>> _ = game.play({"FRANCE": ["A PAR - BUR"], "ENGLAND": ["F LON - ECH"]})
>>> document = {"phases": [{"phase": "S1901M", "orders": {"FRANCE": ["A PAR - BUR"], "ENGLAND": ["F LON - ECH"]},
...             "results": {}, "position": game.position.to_json()}],
...             "messages": [{"phase": "S1901M", "sender": "FRA", "recipients": ["ENG", "GER"],
...                           "text": "propose(fra, [eng ger], Agree([eng fra ger], pce([eng fra ger])))",
...                           "level": 1, "kind": "propose"}]}
>>> saved = dump(document)
>>> [phase["name"] for phase in saved["phases"]], saved["phases"][0]["orders"]["ENGLAND"]
(['S1901M', 'F1901M'], ['F LON - ENG'])
>>> [(m["recipient"], m["detente"]["id"]) for m in saved["phases"][0]["messages"]]
[('ENGLAND', 0), ('GERMANY', 0)]
>>> back = load(saved)
>>> back["phases"][0]["position"]["units"]["ENGLAND"], back["messages"] == document["messages"]
(['F EDI', 'A LVP', 'F ECH'], True)

What MILA cannot hold is kept under extra keys its reader ignores: a message's ``detente``
key (its level, kind, every recipient, DAIDE's ``press``), and a top-level ``detente`` key
with the game's seed, settings, bots, outcome, winner and the negotiation's events. A game
that is over (a solo, or a draw at the year limit) ends in a ``COMPLETED`` phase, as MILA
ends one. MILA's per-phase ``timestamp`` and ``zobrist_hash`` are not written (the package
computes the hash again when it loads a game); ``influence`` is the last power to hold
each province as the positions show it, and ``civil_disorder`` is 0.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.maps import Map
from engine.position import Position
from formats.common import (
    FormatError,
    phase_sort_key,
    state_of_position,
    their_text,
    write_messages,
)
from formats.saved import file_map_name, map_of_file, read_saved_game

__all__ = ["FormatError", "dump", "is_mila", "load", "source_of"]


def is_mila(data: Any) -> bool:
    """Is ``data`` shaped as a MILA saved game (phases with a name and a state)?"""
    if not isinstance(data, Mapping):
        return False
    phases = data.get("phases")
    return (
        isinstance(phases, list)
        and bool(phases)
        and isinstance(phases[0], Mapping)
        and "state" in phases[0]
        and "name" in phases[0]
    )


def load(data: Mapping[str, Any], m: Map | None = None) -> dict[str, Any]:
    """A MILA saved game as détente's game document (``games/<n>.json``'s shape).

    Each phase is adjudicated again; where détente's outcome differs from the recorded
    next state, the recorded state is kept and the phase gets ``note`` and
    ``differences``. Results are the file's (MILA's ``""`` is ``ok``). The game's id, map
    and rules are kept under ``source``.
    """
    if not is_mila(data):
        raise FormatError("not a MILA saved game: no phases with a name and a state")
    return read_saved_game(data, source_of(data), m)


def source_of(data: Mapping[str, Any]) -> dict[str, Any]:
    """What a game document keeps of a MILA saved game under ``source`` (its top-level keys)."""
    return {"format": "mila", "id": data.get("id"), "map": data.get("map", "standard"), "rules": data.get("rules", [])}


def dump(record: Any, m: Map | None = None) -> dict[str, Any]:
    """A détente game (a ``GameRecord``, or its JSON document) as a MILA saved game."""
    document: Mapping[str, Any] = record.to_json() if hasattr(record, "to_json") else record
    if not isinstance(document, Mapping) or not isinstance(document.get("phases"), list):
        raise FormatError("not a détente game: no phases")
    m = m or map_of_file((document.get("settings") or {}).get("map", "standard"))
    source = document.get("source") or {}
    messages = list(document.get("messages") or ())
    game_id = source.get("id") or (f"detente-{document['seed']}" if document.get("seed") is not None else "detente")
    rules = list(source.get("rules", ["POWER_CHOICE"] + ([] if messages else ["NO_PRESS"])))
    played = document["phases"]
    powers = [m.power_names[p] for p in m.powers]  # MILA keys by the full names, as the document does
    before = document.get("start") or Position.initial(m).to_json()
    influence: dict[str, str] = {}
    phases: list[dict[str, Any]] = []
    for record_phase in played:
        state = state_of_position(before, m, influence)
        name = record_phase.get("phase") or before["phase"]
        state["name"] = name
        phases.append(
            {
                "name": name,
                "state": _stamped(state, game_id, rules, m),
                "orders": {p: [their_text(o) for o in record_phase.get("orders", {}).get(p, ())] for p in powers},
                "results": {
                    their_text(unit): [w for w in words if w != "ok"]
                    for unit, words in (record_phase.get("results") or {}).items()
                },
                "messages": [],
            }
        )
        before = record_phase["position"]
    final = state_of_position(before, m, influence)
    if document.get("outcome") in ("draw", "solo"):  # over, though détente's position goes on to a phase
        final["name"] = "COMPLETED"
    phases.append(
        {
            "name": final["name"],
            "state": _stamped(final, game_id, rules, m),
            "orders": dict.fromkeys(powers),
            "results": {},
            "messages": [],
        }
    )
    by_name = {phase["name"]: phase for phase in phases}
    keys = [phase_sort_key(phase["name"]) for phase in phases]
    for phase_name, message in write_messages(messages, m):
        target = by_name.get(phase_name)
        if target is None:  # a phase MILA does not list: the last one listed before it
            key = phase_sort_key(phase_name)
            earlier = [i for i, k in enumerate(keys) if k <= key]
            target = phases[earlier[-1] if earlier else 0]
        target["messages"].append(message)
    saved: dict[str, Any] = {"id": game_id, "map": file_map_name(m), "rules": rules, "phases": phases}
    kept = {key: document[key] for key in ("seed", "settings", "bots", "outcome", "winner") if key in document}
    if document.get("events"):
        kept["events"] = list(document["events"])
    if kept:
        saved["detente"] = kept
    return saved


def _stamped(state: dict[str, Any], game_id: str, rules: list[str], m: Map) -> dict[str, Any]:
    state["game_id"] = game_id
    state["map"] = file_map_name(m)
    state["rules"] = rules
    return state

"""A game as the store holds it, read without a game master: finished games are served
from here, since the server keeps only live games in memory.

Every phase's record (``adjudicate``) holds the orders given, each unit's result and the
position after, so the history is read, never recomputed: an engine with other rules
would not rewrite it. Records written before they held all that (stores of earlier
versions) are replayed instead, once, by the caller's fallback.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine import Position, standard_map
from engine.maps import Map, variant_map
from engine.position import Phase
from server.api_models import GamePosition, HistoryEntry

__all__ = ["MAX_IMPORTED_PHASES", "complete", "imported", "stored_history", "stored_position"]


def _adjudications(events: Sequence[Any]) -> list[dict[str, Any]]:
    return [e.payload for e in events if e.kind == "adjudicate"]


def complete(events: Sequence[Any]) -> bool:
    """Whether every phase record holds its outcome (else the game must be replayed)."""
    return all("after" in p for p in _adjudications(events))


def stored_history(events: Sequence[Any]) -> list[HistoryEntry]:
    """The phases played, oldest first, from complete records (see :func:`complete`)."""
    return [
        HistoryEntry(
            phase=p["phase"],
            orders={power: list(texts) for power, texts in p.get("given", {}).items()},
            results={unit: list(words) for unit, words in p["results"].items()},
            position=GamePosition.model_validate(p["after"]),
        )
        for p in _adjudications(events)
    ]


def stored_position(events: Sequence[Any], board: Map | None = None) -> Position:
    """The position after the last phase played on ``board`` (the game's map; the standard one
    by default), the initial one if none was; a finished game's is completed."""
    board = board or standard_map()
    phases = _adjudications(events)
    if not phases:
        return Position.initial(board)
    last = phases[-1]
    return Position.from_json(last["after"], board, played=Phase.parse(last["phase"]))


#: The most phases an imported game may have (a game to 1935 has about 180; beyond, no game).
MAX_IMPORTED_PHASES = 2_000


def imported(
    document: Mapping[str, Any], at: float, public: bool = False
) -> tuple[list[tuple[str, dict[str, Any], float]], dict[str, Any]]:
    """The store's records and result of a finished game read from a file (a détente game
    document, :func:`formats.read`): a phase record per phase with the orders, results and
    position the file gives (never recomputed), a press record per message (``public``: every
    message may be read by anyone, as when the file itself is public).

    An imported game has no ``join`` or ``start`` records: it is served from its records,
    never replayed. A game that stopped before its end keeps the outcome ``unfinished``. It
    was played on the document's ``map`` (the standard one when it names none).

    >>> records, result = imported({"phases": [], "messages": [], "outcome": "draw"}, 0.0)
    >>> records, result["outcome"], len(result["powers"]), result["phase"]
    ([], 'draw', 7, 'S1901M')
    """
    phases = list(document.get("phases") or ())
    if len(phases) > MAX_IMPORTED_PHASES:
        raise ValueError(f"{len(phases)} phases: an imported game has at most {MAX_IMPORTED_PHASES}")
    by_phase: dict[str, list[dict[str, Any]]] = {}
    for message in document.get("messages") or ():
        by_phase.setdefault(str(message.get("phase", "")), []).append(message)
    board = variant_map(str(document.get("map") or "standard"))  # MapError (a ValueError) for an unknown map
    full = board.power_names
    records: list[tuple[str, dict[str, Any], float]] = []
    last = Position.initial(board).to_json()
    for entry in phases:
        for message in by_phase.pop(str(entry.get("phase")), []):
            records.append(("press", _press(message, public), at))
        after = GamePosition.model_validate(entry["position"]).model_dump(mode="json")
        records.append(("adjudicate", {
            "phase": str(entry["phase"]),
            "given": {full.get(p, p): [str(o) for o in orders] for p, orders in (entry.get("orders") or {}).items()},
            "results": {str(unit): [str(w) for w in words] for unit, words in (entry.get("results") or {}).items()},
            "after": after,
            **({"note": str(entry["note"])} if entry.get("note") else {}),
        }, at))  # fmt: skip
        last = after
    for messages in by_phase.values():  # said in the phase the game stopped in
        records.extend(("press", _press(message, public), at) for message in messages)
    outcome = document.get("outcome") if document.get("outcome") in ("solo", "draw") else "unfinished"
    if outcome == "solo":
        powers = [full.get(document.get("winner") or "", document.get("winner") or "")]
    elif outcome == "draw":
        powers = sorted(p for p, units in (last.get("units") or {}).items() if units or (last.get("centers") or {}).get(p))
    else:
        powers = []
    phase = str(last.get("phase", "S1901M"))
    if phase == "COMPLETED" and phases:  # names no phase: the winter the game ended in, as a live game's result
        phase = str(Position.from_json(last, board, played=Phase.parse(str(phases[-1]["phase"]))).phase)
    return records, {"outcome": outcome, "powers": powers, "phase": phase}


def _press(message: Mapping[str, Any], public: bool) -> dict[str, Any]:
    """A message of a game file as the store's press record holds one (free text as it is)."""
    return {
        "sender": str(message.get("sender", "")),
        "recipients": [str(r) for r in message.get("recipients") or ()],
        "press": str(message.get("press") or message.get("text") or ""),
        "imported": True,
        **({"public": True} if public else {}),
    }

"""A game of the server as a file of the field's formats (``GET /api/games/{id}/export``).

The game's history (the phases played, as ``/history`` gives them) and its press (the
``press`` records of the store) make a détente game document, which :mod:`formats` writes as
MILA's saved-game JSON. Press between two players is private: the export holds it only for
the admin; anyone else gets the press sent to every other power (and all the press of a game
imported as public, such as ``detente replay``'s). The negotiation server's L
messages live in its own store and are not part of the game server's export.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from engine.maps import Map, standard_map
from protocol.daide.messages import Snd
from protocol.daide.parser import DaideSyntaxError, parse

__all__ = ["FORMATS", "document"]

FORMATS = ("mila", "detente")


def _content(sent: str) -> str:
    """The press of a stored ``SND (...) (press)``: what the recipients read (``FRM`` gives them the same)."""
    try:
        message = parse(sent)
    except DaideSyntaxError:
        return sent
    return str(message.press) if isinstance(message, Snd) else sent


def document(
    game_id: str,
    phases: Sequence[Mapping[str, Any]],
    press: Iterable[tuple[str, Mapping[str, Any]]],
    result: Mapping[str, Any] | None,
    private: bool,
    board: Map | None = None,
) -> dict[str, Any]:
    """The game document of ``game_id``, played on ``board`` (the standard map by default):
    ``phases`` as ``/history`` gives them, ``press`` the store's press records in order, each
    with the phase being played when it was sent. Press to every other power of the map is public.

    >>> sent = [("S1901M", {"sender": "FRA", "recipients": ["ENG"], "press": "SND (ENG) (PRP (PCE (ENG FRA)))"})]
    >>> document("g1", [], sent, None, False)["messages"]
    []
    >>> document("g1", [], sent, None, True)["messages"]
    [{'phase': 'S1901M', 'sender': 'FRANCE', 'recipients': ['ENGLAND'], 'press': 'PRP (PCE (ENG FRA))'}]
    """
    board = board or standard_map()
    full = board.power_names
    everyone = frozenset(full.values())  # as the documents name them
    messages = []
    for phase, record in press:
        sender = full.get(record.get("sender", ""), record.get("sender"))
        recipients = [full.get(r, r) for r in record.get("recipients") or ()]
        if private or record.get("public") or set(recipients) >= everyone - {sender}:
            messages.append({"phase": phase, "sender": sender, "recipients": recipients,
                             "press": _content(str(record.get("press", "")))})  # fmt: skip
    outcome = (result or {}).get("outcome", "unfinished")
    winner = (result or {}).get("powers", [None])[0] if outcome == "solo" else None
    return {
        "source": {"id": game_id},
        "map": board.name,
        "outcome": outcome,
        "winner": winner,
        "phases": list(phases),
        "messages": messages,
    }


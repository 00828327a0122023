"""Which format a game file is in.

>>> detect({"phases": [{"phase": "S1901M", "orders": {}, "results": {}, "position": {}}]})
'detente'
>>> detect({"id": "g", "map": "standard", "rules": [], "phases": [{"name": "S1901M", "state": {}}]})
'mila'
>>> detect({"version": "1.0", "phases": [{"name": "S1901M", "state": {}, "logs": []}]})
'cicero'
>>> detect({"start": {}, "turns": []})
Traceback (most recent call last):
...
formats.common.FormatError: an adjudication case, not a game (detente adjudicate reads it)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from formats.cicero import is_cicero
from formats.common import FormatError
from formats.mila import is_mila

__all__ = ["FORMATS", "detect", "is_detente"]

#: The formats read, by the name ``detente convert`` gives them.
FORMATS = ("detente", "mila", "cicero")


def is_detente(data: Any) -> bool:
    """A détente game document: phases played, each with its ``position`` after."""
    if not isinstance(data, Mapping):
        return False
    phases = data.get("phases")
    return isinstance(phases, list) and all(isinstance(p, Mapping) and "position" in p for p in phases)


def detect(data: Any) -> str:
    """``"detente"``, ``"mila"`` or ``"cicero"``; :class:`FormatError` for anything else."""
    if is_cicero(data):
        return "cicero"
    if is_mila(data):
        return "mila"
    if is_detente(data):
        return "detente"
    if isinstance(data, Mapping) and "start" in data and "turns" in data:
        raise FormatError("an adjudication case, not a game (detente adjudicate reads it)")
    if isinstance(data, list):
        raise FormatError("a JSON list, not a game (a game is an object with phases)")
    if not isinstance(data, Mapping):
        raise FormatError(f"a JSON {type(data).__name__}, not a game (a game is an object with phases)")
    raise FormatError("not a game in a known format (détente, MILA or Cicero/dipcc JSON)")

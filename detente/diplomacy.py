"""Verifiable diplomacy: what each seat proposed, accepted, got confirmed, and kept or broke.

Read from the games' records, never from what a bot says of itself: ``messages`` (each
L message with its sender and kind) and ``events`` (the notary's ``confirmed`` frames and
the ``compliance`` reports of each party after a phase). A confirmed commitment broken is
a lie in the mechanical sense: the notary had every party's word, and the orders did
otherwise. Per bot and per game (averaged over its seats in the game, as every figure of
:mod:`detente.stats`): proposals sent, acceptances sent, deals confirmed it took part in,
its parts kept and broken, and the share broken where it had any.

>>> record = {"bots": {"ENGLAND": "a", "FRANCE": "b"}, "messages": [
...     {"sender": "ENG", "kind": "propose"}, {"sender": "FRA", "kind": "accept"}],
...     "events": [{"type": "confirmed", "participants": ["ENG", "FRA"]},
...                {"type": "compliance", "reports": [{"power": "eng", "kept": True}, {"power": "fra", "kept": False}]}]}
>>> seats = seat_counts(record)
>>> seats["ENG"], seats["FRA"]["broken"]
({'proposed': 1, 'accepted': 0, 'confirmed': 1, 'kept': 1, 'broken': 0}, 1)
>>> rows = summarise_diplomacy([record])
>>> [(r["bot"], r["per_game"]["broken"]["mean"], r["broken_share"]["mean"]) for r in rows]
[('a', 0.0, 0.0), ('b', 1.0, 1.0)]
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from detente.stats import estimate
from detente.tables import columns
from engine import standard_map
from formats import jsonio

__all__ = ["MEASURES", "estimate_text", "format_diplomacy", "read_records", "seat_counts", "summarise_diplomacy"]

MEASURES = ("proposed", "accepted", "confirmed", "kept", "broken")
_MAP = standard_map()


def _power(name: object) -> str:
    """The token of a power as a game record names it: by its full name (``bots``), its token
    (messages, the notary's frames) or in lower case (compliance reports); another name upper-cased."""
    text = str(name)
    try:
        return _MAP.power(text)
    except KeyError:
        return text.upper()


def seat_counts(record: Mapping[str, Any]) -> dict[str, dict[str, int]]:
    """The five counts of each power (by its token) of one game's record."""
    counts = {_power(power): dict.fromkeys(MEASURES, 0) for power in record.get("bots", {})}

    def add(token: object, measure: str) -> None:
        power = _power(token)
        if power in counts:
            counts[power][measure] += 1

    for message in record.get("messages", ()):
        kind = message.get("kind")
        if kind == "propose":
            add(message.get("sender"), "proposed")
        elif kind == "accept":
            add(message.get("sender"), "accepted")
    for event in record.get("events", ()):
        if event.get("type") == "confirmed":
            for party in event.get("participants", ()):
                add(party, "confirmed")
        elif event.get("type") == "compliance":
            for report in event.get("reports", ()):
                add(report.get("power"), "kept" if report.get("kept") else "broken")
    return counts


def summarise_diplomacy(records: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Per bot: each measure per game (mean, se, n), its totals, and the share of its parts broken."""
    per_game: dict[str, dict[str, list[float]]] = {}
    shares: dict[str, list[float]] = {}
    totals: dict[str, dict[str, int]] = {}
    for record in records:
        counts = seat_counts(record)
        seats: dict[str, list[dict[str, int]]] = {}
        for power, bot in record.get("bots", {}).items():
            seats.setdefault(str(bot), []).append(counts[_power(power)])
        for bot, mine in seats.items():
            values = per_game.setdefault(bot, {m: [] for m in MEASURES})
            total = totals.setdefault(bot, dict.fromkeys(MEASURES, 0))
            for measure in MEASURES:
                values[measure].append(math.fsum(c[measure] for c in mine) / len(mine))
                total[measure] += sum(c[measure] for c in mine)
            parts = [(c["broken"], c["kept"] + c["broken"]) for c in mine if c["kept"] + c["broken"]]
            if parts:
                shares.setdefault(bot, []).append(math.fsum(b / n for b, n in parts) / len(parts))
    rows = []
    for bot, values in per_game.items():
        share = shares.get(bot)
        rows.append(
            {
                "bot": bot,
                "games": len(values["proposed"]),
                "per_game": {m: estimate(values[m]).to_json() for m in MEASURES},
                "totals": totals[bot],
                "broken_share": estimate(share).to_json() if share else None,
            }
        )
    return rows


def read_records(run: Path) -> list[dict[str, Any]]:
    """The full records of a ``detente run`` directory (``games/<n>.json``), in game order."""
    paths = sorted((run / "games").glob("*.json"), key=lambda p: (len(p.stem), p.stem))
    return [jsonio.loads(p.read_text(encoding="utf-8")) for p in paths if p.stem.isdigit()]


def estimate_text(e: Mapping[str, Any] | None, digits: int = 2) -> str:
    """An estimate's JSON as ``mean ± se`` (``-`` for none, the mean alone without a se).

    >>> estimate_text({"mean": 1.5, "se": 0.25}), estimate_text({"mean": 2, "se": None}), estimate_text(None)
    ('1.50 ± 0.25', '2.00', '-')
    """
    if e is None:
        return "-"
    return f"{e['mean']:.{digits}f}" + (f" ± {e['se']:.{digits}f}" if e.get("se") is not None else "")


def format_diplomacy(rows: Sequence[Mapping[str, Any]]) -> str:
    """The table of :func:`summarise_diplomacy`: per game, mean ± se (n games)."""

    header = ("bot", "games", "proposed", "accepted", "confirmed", "kept", "broken", "broken share")
    body = [
        (
            str(r["bot"]),
            str(r["games"]),
            *(estimate_text(r["per_game"][m]) for m in MEASURES),
            estimate_text(r["broken_share"]),
        )
        for r in rows
    ]
    lines = columns(header, body)
    lines.append(
        "(per game, mean ± se over games; a seat's parts of confirmed deals, as the notary's compliance reports)"
    )
    return "\n".join(lines)

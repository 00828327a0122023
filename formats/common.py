"""What the saved-game formats share: place names, states and the replay that marks rule differences.

MILA's ``diplomacy`` package and Meta's dipcc write the standard map with the names of the
package, which differ from détente's (the DAIDE names) for three seas only:

>>> their_text("F LON - ECH"), our_text("F STP/SC - BOT"), our_text("A LYO")
('F LON - ENG', 'F STP/SC - GOB', 'A GOL')

A saved game is a list of phases, each with the state *before* it, the orders given in it
and the messages sent during it; :func:`formats.saved.read_saved_game` turns one into détente's game
document (the shape of ``games/<n>.json``: phases played, each with the position *after*
it) and adjudicates every phase again with détente's engine. Where the engine's outcome
differs from the recorded next state (the formats' engine plays older rules than DATC
v3.0), the recorded state is kept and the phase gets a ``note`` and its
``differences``: the history is never rewritten.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from engine.maps import Map
from engine.position import Phase

__all__ = [
    "FormatError",
    "our_text",
    "their_text",
]

#: détente's (DAIDE) name -> the name MILA and dipcc use, for the three seas that differ.
THEIRS = {"ECH": "ENG", "GOL": "LYO", "GOB": "BOT"}
OURS = {theirs: ours for ours, theirs in THEIRS.items()}

NOTE = (
    "détente's engine (DATC v3.0) adjudicates this phase differently; the recorded outcome is kept"
    " (differences: recorded against detente)"
)


class FormatError(ValueError):
    """A document that is not a game of the format it claims (one line, for the command line)."""


def _renamer(table: Mapping[str, str]) -> Callable[[str], str]:
    memo: dict[str, str] = {}

    def rename(text: str) -> str:
        done = memo.get(text)
        if done is not None:
            return done
        words = text.split(" ")
        for i, word in enumerate(words):
            base, slash, coast = word.partition("/")
            if base in table:
                words[i] = table[base] + slash + coast
        done = " ".join(words)
        if len(memo) < 200_000:
            memo[text] = done
        return done

    return rename


#: An order, unit or place in détente's notation, written with MILA's names (memoised).
their_text = _renamer(THEIRS)
#: An order, unit or place in MILA's notation, written with détente's names (memoised).
our_text = _renamer(OURS)


# --- states -------------------------------------------------------------------------------


def position_of_state(state: Mapping[str, Any], m: Map) -> dict[str, Any]:
    """A MILA or dipcc ``state`` as détente's position JSON (``Position.to_json``'s shape).

    Dislodged units are the ``*``-prefixed ones, with their options from ``retreats``
    (``{power: {unit: [places]}}``, or dipcc's documented flat ``{unit: [places]}``).
    """
    try:
        name = state["name"]
        recorded_units = state["units"]
        recorded_centers = state.get("centers") or {}
    except (KeyError, TypeError):
        raise FormatError("a phase's state has no name or units") from None
    powers = m.power_names.values()  # a state names the powers by their full names, as the position JSON does
    units: dict[str, list[str]] = {}
    starred: dict[str, str] = {}
    for power, names in recorded_units.items():
        if power not in powers:
            raise FormatError(f"state {name}: unknown power {power!r} (only the standard map is read)")
        mine = [our_text(u) for u in names or () if not u.startswith("*")]
        if mine:
            units[power] = mine
        for u in names or ():
            if u.startswith("*"):
                starred[u[1:]] = power
    centers = {power: [our_text(c) for c in names] for power, names in recorded_centers.items() if names}
    dislodged: dict[str, dict[str, Any]] = {}
    for key, value in (state.get("retreats") or {}).items():
        if isinstance(value, Mapping):  # {power: {unit: places}}
            for unit, places in value.items():
                dislodged[our_text(unit)] = {"power": key, "retreats": sorted(our_text(p) for p in places or ())}
        elif key in starred:  # dipcc's documented flat form
            dislodged[our_text(key)] = {"power": starred[key], "retreats": sorted(our_text(p) for p in value or ())}
    for unit, power in starred.items():
        dislodged.setdefault(our_text(unit), {"power": power, "retreats": []})
    return {"phase": name, "units": units, "centers": centers, "dislodged": dislodged}


def state_of_position(position: Mapping[str, Any], m: Map, influence: dict[str, str] | None = None) -> dict[str, Any]:
    """Détente's position JSON as a MILA ``state`` (names, dislodged ``*`` units, builds).

    ``influence`` (province -> power, the last power to hold it) is updated from the
    position and written as MILA's ``influence``; MILA keeps it over the whole game, so a
    state written from one position alone approximates it with that position.
    """
    full = m.power_names
    powers = [full[p] for p in m.powers]  # MILA's keys, the position JSON's: the full names
    units_of = position.get("units") or {}
    centers_of = position.get("centers") or {}
    dislodged = position.get("dislodged") or {}
    units: dict[str, list[str]] = {p: [their_text(u) for u in units_of.get(p, ())] for p in powers}
    retreats: dict[str, dict[str, list[str]]] = {p: {} for p in powers}
    for unit, d in dislodged.items():
        theirs = their_text(unit)
        units[d["power"]].append("*" + theirs)
        retreats[d["power"]][theirs] = [their_text(r) for r in d.get("retreats", ())]
    centers = {p: [their_text(c) for c in centers_of.get(p, ())] for p in powers}
    homes = {full[p]: [m.locations[h] for h in m.homes.get(p, ())] for p in m.powers}
    if influence is None:
        influence = {}
    for p in powers:
        for c in centers_of.get(p, ()):
            influence[c] = p
        for u in units_of.get(p, ()):
            influence[u[2:].partition("/")[0]] = p
    influenced: dict[str, list[str]] = {p: [] for p in powers}
    for place, p in influence.items():
        influenced[p].append(their_text(place))
    phase = position["phase"]
    builds: dict[str, dict[str, Any]] = {}
    adjusting = phase.endswith("A")
    occupied = {u[2:].partition("/")[0] for names in units_of.values() for u in names}
    for p in powers:
        count = len(centers_of.get(p, ())) - len(units_of.get(p, ())) if adjusting else 0
        sites: list[str] = []
        if count > 0:
            owned = set(centers_of.get(p, ()))
            sites = [h for h in homes[p] if h in owned and h not in occupied]
            count = min(count, len(sites))
        builds[p] = {"count": count, "homes": [their_text(s) for s in sites]}
    return {
        "note": "",
        "name": phase,
        "units": units,
        "retreats": retreats,
        "centers": centers,
        "homes": homes,
        "influence": influenced,
        "civil_disorder": dict.fromkeys(powers, 0),
        "builds": builds,
    }


def _comparable(position: Mapping[str, Any]) -> tuple[Any, ...]:
    """What two positions must share to be the same: phase, units, centres, retreats."""
    return (
        position["phase"],
        {p: frozenset(v) for p, v in position.get("units", {}).items() if v},
        {p: frozenset(v) for p, v in position.get("centers", {}).items() if v},
        {u: frozenset(d["retreats"]) for u, d in position.get("dislodged", {}).items() if d.get("retreats")},
    )


def differences(recorded: Mapping[str, Any], ours: Mapping[str, Any]) -> dict[str, Any]:
    """The parts of two positions that differ: ``{part: {power or unit: [recorded, detente]}}``."""
    a, b = _comparable(recorded), _comparable(ours)
    diff: dict[str, Any] = {}
    if a[0] != b[0]:
        diff["phase"] = [a[0], b[0]]
    for part, left, right in (("units", a[1], b[1]), ("centers", a[2], b[2]), ("retreats", a[3], b[3])):
        for key in sorted(set(left) | set(right)):
            x, y = left.get(key, frozenset()), right.get(key, frozenset())
            if x != y:
                diff.setdefault(part, {})[key] = [sorted(x), sorted(y)]
    return diff


# --- messages -----------------------------------------------------------------------------


def _message_list(messages: Any) -> list[Mapping[str, Any]]:
    """A phase's messages: MILA's list, or dipcc's documented ``{time_sent: message}``."""
    if not messages:
        return []
    if isinstance(messages, Mapping):
        return [messages[k] for k in sorted(messages, key=lambda k: int(k))]
    return list(messages)


PUBLIC = ("GLOBAL", "ALL")


def read_messages(phases: Sequence[Mapping[str, Any]], m: Map) -> list[dict[str, Any]]:
    """Every message of the saved game as détente's messages, in order.

    A message détente wrote carries its own fields under ``detente`` (with an ``id``
    shared by the copies of a message to several powers): it comes back as it was, the
    copies merged into one. Any other message is free text: ``kind`` is ``free``, with its
    ``time_sent``; one to ``GLOBAL`` (dipcc: ``ALL``) is ``global`` and goes to every other
    power.
    """
    out: list[dict[str, Any]] = []
    merged: dict[tuple[str, Any], dict[str, Any]] = {}
    for phase in phases:
        for message in _message_list(phase.get("messages")):
            try:
                sender, recipient, text = message["sender"], message["recipient"], message["message"]
            except (KeyError, TypeError):
                raise FormatError(
                    f"phase {phase.get('name')}: a message without sender, recipient or message"
                ) from None
            when = message.get("phase") or phase.get("name")
            ours = message.get("detente")
            if isinstance(ours, Mapping) and "id" in ours:
                key = (when, ours["id"])
                if key in merged:
                    continue  # another copy of a message already read
                fields = {k: v for k, v in ours.items() if k not in ("id", "field")}
                entry = {"phase": when, "sender": _token(sender, m), ours.get("field", "text"): text}
                entry.update(fields)
                merged[key] = entry
                out.append(entry)
                continue
            entry = {"phase": when, "sender": _token(sender, m)}
            if recipient in PUBLIC:
                entry["recipients"] = [p for p in m.powers if p != entry["sender"]]
                entry["global"] = True
            else:
                entry["recipients"] = [_token(recipient, m)]
            entry["text"] = text
            entry["kind"] = "free"
            if message.get("time_sent") is not None:
                entry["time_sent"] = message["time_sent"]
            out.append(entry)
    return out


def _token(name: Any, m: Map) -> Any:
    """The token of a power a saved game names (by its full name); a name of no power as it is."""
    if isinstance(name, str):
        with contextlib.suppress(KeyError):
            return m.power(name)
    return name


def write_messages(messages: Iterable[Mapping[str, Any]], m: Map) -> list[tuple[str, dict[str, Any]]]:
    """Détente's messages as MILA messages, each with the phase it was sent in.

    A message to several powers becomes one message per recipient, sharing an ``id``
    under the extra key ``detente`` that also keeps the message's own fields (level, kind,
    DAIDE's ``press``): MILA's reader ignores extra keys, :func:`read_messages` merges the
    copies back. MILA files a phase's messages by ``time_sent``, which must differ: a
    message without one (détente's clock stands still in-process) gets the next integer.
    """
    full = m.power_names  # détente's messages name powers by their tokens, MILA's by their full names
    out: list[tuple[str, dict[str, Any]]] = []
    last = 0
    for number, message in enumerate(messages):
        phase = message.get("phase", "")
        field = "press" if "press" in message and "text" not in message else "text"
        text = str(message.get(field, ""))
        sender = message.get("sender", "")
        recipients = list(message.get("recipients") or ())
        public = bool(message.get("global"))
        plain = (
            message.get("kind") == "free"
            and message.get("time_sent") is not None
            and (public or len(recipients) == 1)
            and set(message) <= {"phase", "sender", "recipients", "text", "kind", "time_sent", "global"}
        )
        extra = None
        if not plain:
            extra = {"id": number, **({"field": field} if field != "text" else {})}
            extra.update({k: v for k, v in message.items() if k not in ("phase", "sender", field)})
        targets = ["GLOBAL"] if public else [full.get(r, r) for r in recipients] or ["GLOBAL"]
        for target in targets:
            time_sent = message.get("time_sent")
            if not isinstance(time_sent, int) or time_sent <= last:
                time_sent = last + 1
            last = time_sent
            entry: dict[str, Any] = {
                "sender": full.get(sender, sender),
                "recipient": target,
                "time_sent": time_sent,
                "phase": phase,
                "message": text,
            }
            if extra is not None:
                entry["detente"] = extra
            out.append((phase, entry))
    return out


def phase_sort_key(name: str) -> tuple[int, ...]:
    """Phases in the order they are played, ``COMPLETED`` last."""
    if name == "COMPLETED":
        return (10**6,)
    try:
        phase = Phase.parse(name)
    except ValueError:
        return (10**6 + 1,)
    return (phase.year, "SFW".index(phase.season), "MRA".index(phase.kind))


def loads(text: str | bytes) -> Any:
    """JSON text as Python data (``json.JSONDecodeError`` with line and column when it is not)."""
    return json.loads(text)

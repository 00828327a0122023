"""A model's answer read as orders or press, with what was wrong with it, in words.

A model's answer is bad input like any other: it may be empty, huge, not JSON, not what
was asked, or hostile. Each reader takes the answer's text and returns what it could use
and the problems, which go back to the model once for repair; nothing here raises.

>>> from engine import Position, legal_orders
>>> start = Position.initial()
>>> legal = legal_orders(start, "ENG")
>>> read = read_orders('{"orders": ["F LON - NTH", "A LVP-YOR", "A PAR - BUR"]}', start, "ENG", legal)
>>> sorted(read.texts), read.problems
(['A LVP - YOR', 'F LON - NTH'], ["'A PAR - BUR' is not one of your legal orders", 'no order for F EDI'])
>>> read_orders("Here are my orders:\\n- F EDI - NWG\\n- F LON H\\n- A LVP H", start, "ENG", legal).problems
[]
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import engine.orders as eo
from bots.base import LegalOrders
from engine import Position, format_order
from engine.position import Unit
from protocol.english import NotUnderstood, understand
from protocol.l import LError, check_levels, check_ontology, parse, parse_levels
from protocol.l import ast as la

__all__ = ["OrdersRead", "PressRead", "read_json", "read_orders", "read_press"]

MAX_ITEMS = 40
MAX_ORDER_TEXT = 80
MAX_L_TEXT = 4000
MAX_ENGLISH_TEXT = 600
MAX_PROBLEMS = 8
_ORDER_LINE = re.compile(r"^[\s*\-\d.)]*((?:[AF]\s+[A-Z]{3}(?:/[A-Z]{2})?\b.*)|WAIVE)\s*$", re.IGNORECASE)


@dataclass(slots=True)
class OrdersRead:
    """The legal orders found by unit (``None``: the adjustments), their texts, and the problems."""

    by_unit: dict[Unit | None, list[eo.Order]] = field(default_factory=dict)
    texts: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    answered: bool = False  # the answer said something readable as orders at all


@dataclass(slots=True)
class PressRead:
    """The L messages to send, the orders the answer revises (texts, or None), and the problems."""

    messages: list[la.Message] = field(default_factory=list)
    orders: list[str] | None = None
    problems: list[str] = field(default_factory=list)


def read_json(text: str | None) -> dict[str, Any] | None:
    """The JSON object of an answer: the whole text, or within a code fence or braces."""
    if not text:
        return None
    candidates = [text]
    fence = re.search(r"```(?:json)?\s*(.*?)```", text, re.DOTALL)
    if fence is not None:
        candidates.append(fence.group(1))
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        candidates.append(text[start : end + 1])
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict):
            return value
    return None


def _normal(text: str) -> str:
    text = re.sub(r"\s*-\s*", " - ", " ".join(text.upper().split()))
    return text.strip()


def _texts(value: object, limit: int) -> list[str] | None:
    if not isinstance(value, list):
        return None
    return [item[:limit] for item in value[:MAX_ITEMS] if isinstance(item, str)]


def read_orders(text: str | None, position: Position, power: str, legal: LegalOrders) -> OrdersRead:
    """The orders of an answer, checked against ``legal``; problems name what is wrong."""
    read = OrdersRead()
    document = read_json(text)
    given = _texts(document.get("orders"), MAX_ORDER_TEXT) if document is not None else None
    if given is None and text:  # plain text: a line per order
        given = [m.group(1) for line in text.splitlines()[:200] if (m := _ORDER_LINE.match(line[:MAX_ORDER_TEXT]))]
    if not given:
        read.problems.append('no orders found: answer {"orders": ["A PAR - BUR", ...]}')
        return read
    read.answered = True
    m = position.map
    options: dict[str, tuple[Unit | None, eo.Order]] = {}
    for unit, orders in legal.items():
        for order in orders:
            options.setdefault(_normal(format_order(m, order)), (unit, order))
    needed = abs(position.adjustments.get(power, 0)) if None in legal else 0
    for raw in given:
        key = _normal(raw)
        if key not in options:
            read.problems.append(f"{raw.strip()[:MAX_ORDER_TEXT]!r} is not one of your legal orders")
            continue
        unit, order = options[key]
        chosen = read.by_unit.setdefault(unit, [])
        if unit is not None and chosen:
            read.problems.append(f"two orders for {position.unit_name(unit)}; the first is kept")
            continue
        if unit is None and (len(chosen) >= needed or order in chosen):
            read.problems.append(f"{key!r}: more adjustments than the {needed} asked, or twice the same")
            continue
        chosen.append(order)
        read.texts.append(format_order(m, order))
    for unit in legal:
        if unit is not None and unit not in read.by_unit:
            read.problems.append(f"no order for {position.unit_name(unit)}")
    if None in legal and len(read.by_unit.get(None, ())) < needed:
        read.problems.append(f"{needed} adjustments are asked, {len(read.by_unit.get(None, ()))} given")
    read.problems = _few(read.problems)
    return read


def _few(problems: Sequence[str]) -> list[str]:
    if len(problems) <= MAX_PROBLEMS:
        return list(problems)
    return [*problems[:MAX_PROBLEMS], f"and {len(problems) - MAX_PROBLEMS} more problems"]


def read_press(
    text: str | None,
    mode: str,
    position: Position,
    power: str,
    levels: str,
    open_proposals: Mapping[str, la.Message],
) -> PressRead:
    """The messages of a press answer: L checked at ``levels`` (``mode`` ``l``), or English
    turned into L by the dialogue assistant (``english``); ``open_proposals``: the latest
    proposal from each power, which "I accept" answers."""
    read = PressRead()
    document = read_json(text)
    if document is None:
        items: list[Any] | None = _plain_press(text, mode)
    else:
        items = document.get("press") if isinstance(document.get("press"), list) else None
        read.orders = _texts(document.get("orders"), MAX_ORDER_TEXT)
    if items is None:
        read.problems.append('no press found: answer {"press": [...]} (an empty list to send nothing)')
        return read
    allowed = parse_levels(levels)
    for item in items[:8]:
        if not isinstance(item, dict):
            read.problems.append("each press item is an object")
            continue
        if mode == "l":
            message, problem = _l_item(item.get("l"), power, allowed, position)
        else:
            message, problem = _english_item(item.get("to"), item.get("text"), power, position, allowed, open_proposals)
        if problem is not None:
            read.problems.append(problem)
        elif message is not None:
            read.messages.append(message)
    if len(items) > 8:
        read.problems.append(f"at most 8 messages at a time; {len(items) - 8} were not sent")
    read.problems = _few(read.problems)
    return read


def _plain_press(text: str | None, mode: str) -> list[Any] | None:
    """Press written as lines: L messages, or ``TO POWER: text``."""
    if not text:
        return None
    items: list[Any] = []
    for line in text.splitlines()[:50]:
        line = line.strip()
        if mode == "l" and re.match(r"(propose|accept|reject|withdraw|inform|query|answer)\s*\(", line, re.IGNORECASE):
            items.append({"l": line})
        elif mode == "english" and (match := re.match(r"TO\s+([A-Za-z]+)\s*:\s*(.+)", line, re.IGNORECASE)):
            items.append({"to": match.group(1), "text": match.group(2)})
    return items or None


def _l_item(value: object, me: str, allowed: Iterable[int], position: Position) -> tuple[la.Message | None, str | None]:
    if not isinstance(value, str) or not value.strip():
        return None, 'a press item is {"l": "<an L message>"}'
    if len(value) > MAX_L_TEXT:
        return None, f"an L message of {len(value)} characters is over {MAX_L_TEXT}"
    try:
        message = parse(value)
        check_levels(message, allowed, value)
        check_ontology(message, position.map, value)
    except LError as error:
        return None, f"{value[:120]!r}: {error.message} (line {error.line}, column {error.column})"
    except RecursionError:
        return None, f"{value[:120]!r}: nested too deeply"
    if message.sender != me:
        said = me.lower()  # as the model writes it in L
        return None, f"{value[:120]!r}: you are {said}, so every message you write has {said} as its sender"
    return message, None


def _english_item(
    to: object,
    text: object,
    power: str,
    position: Position,
    allowed: Iterable[int],
    open_proposals: Mapping[str, la.Message],
) -> tuple[la.Message | None, str | None]:
    if not isinstance(to, str) or not isinstance(text, str) or not text.strip():
        return None, 'a press item is {"to": "<POWER>", "text": "<English>"}'
    try:
        receiver = position.map.power(to.strip()[:20])
    except (KeyError, ValueError):
        return None, f"{to[:20]!r} is not a power"
    if receiver == power:
        return None, "a message goes to another power, not to yourself"
    if len(text) > MAX_ENGLISH_TEXT:
        return None, f"a message of {len(text)} characters is over {MAX_ENGLISH_TEXT}: say one thing a message"
    said = understand(text, power, receiver, position, open_proposals.get(receiver), levels=list(allowed))
    if isinstance(said, NotUnderstood):
        return None, f"to {position.map.power_names[receiver]}, {text[:120]!r}: {said.reason}"
    return said.message, None

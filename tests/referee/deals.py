"""The deals the referee's tests talk about, written as L."""

from __future__ import annotations

from engine import Position
from protocol.l import ast as a
from protocol.l import check_ontology, parse

START = Position.initial()


def deal(text: str) -> a.Deal | a.Agree:
    """The deal of a proposal, checked against the map (its sender and receivers do not matter)."""
    message = parse(f"propose(aus, tur, {text})")
    check_ontology(message, START.map, text)
    assert isinstance(message, a.Propose)
    return message.deal

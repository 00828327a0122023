"""The English corpus of issue 16: what a person at the table writes, and what the dialogue
assistant must make of it: its L, or an honest answer that L cannot say it, a friendly answer
to a greeting, or a question about a misspelt word.

Each line of ``tests/data/english_corpus.jsonl`` is one sentence written by ``sender`` to
``receiver`` (with ``position``, one of the corpus positions, the open proposal ``open`` and
the game's ``levels`` when they matter), the ``template`` it comes from (at most 20 sentences
each), and what is expected:

- ``l``: understood as this L message (compared by normal form);
- ``cannot_say``: answered "L cannot say that: <why>", with ``closest`` (when given) the
  closest L offered, None for none;
- ``no_l``: a greeting, thanks, a farewell: a friendly answer, and nothing to send;
- ``ask``: a word asked about rather than guessed (``reason``: a part of the question);
- ``not_understood``: not understood, ``reason`` being a part of the reason.

The sentences were made by hand and from small templates whose expected L was written with
the template, then each read again.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from protocol.english import NotUnderstood, Understood, to_english, understand
from protocol.l import Node, Propose, parse, parse_levels
from tests.protocol.english_corpus import POSITIONS

CORPUS_FILE = Path(__file__).parent.parent / "data" / "english_corpus.jsonl"
CORPUS: list[dict[str, Any]] = [json.loads(line) for line in CORPUS_FILE.read_text().splitlines() if line.strip()]

# The sentences that issue 16 reports, each of which must be in the corpus.
REPORTED = [
    "Do you accept?",
    "Don't attack Munich",
    "Hello!",
    "Thanks!",
    "What are you going to do with your army in Venice?",
    "Get out of Belgium or I attack you",
    "We should attack Austria together",
    "I propse an aliance against Turkey",
    "I propose a draw between all of us",
    "Let's agree a draw between all of us",
    "I'm going to attack Munich",
    "I will move my army from Marseilles to Piedmont",
]


def _heard(case: dict[str, Any]) -> Understood | NotUnderstood:
    position = POSITIONS[case["position"]] if case.get("position") else None
    open_proposal = parse(case["open"]) if case.get("open") else None
    levels = parse_levels(case["levels"]) if case.get("levels") else None
    return understand(case["english"], case["sender"], case["receiver"], position, open_proposal, levels=levels)


def test_the_corpus_is_as_the_issue_asks() -> None:
    keys = [
        (c["english"], c["sender"], c["receiver"], c.get("position"), c.get("open"), c.get("levels")) for c in CORPUS
    ]
    assert len(set(keys)) == len(keys)
    assert len({c["english"] for c in CORPUS}) >= 400
    per_template = Counter(c["template"] for c in CORPUS)
    assert max(per_template.values()) <= 20, per_template.most_common(3)
    assert sum(c["expect"] == "cannot_say" for c in CORPUS) >= 50
    said = {c["english"] for c in CORPUS}
    assert [r for r in REPORTED if r not in said] == []
    assert {"l", "cannot_say", "no_l", "ask", "not_understood"} == {c["expect"] for c in CORPUS}


@pytest.mark.parametrize("case", CORPUS, ids=[f"{i}:{c['template']}:{c['english'][:40]}" for i, c in enumerate(CORPUS)])
def test_the_corpus_sentence_is_answered_as_expected(case: dict[str, Any]) -> None:
    heard = _heard(case)
    expect = case["expect"]
    if expect == "l":
        assert isinstance(heard, Understood), heard
        assert heard.message == parse(case["l"]), str(heard.message)
        assert heard.echo == to_english(heard.message, viewer=case["sender"])
        if isinstance(heard.message, Propose):
            assert heard.note is not None and heard.note.startswith("sent as a proposal to")
        return
    assert isinstance(heard, NotUnderstood), f"{heard.message}"
    assert heard.kind == expect, heard
    if expect == "cannot_say":
        assert heard.reason.startswith("L cannot say that"), heard.reason
    if "closest" in case:
        expected = case["closest"]
        assert heard.closest == (None if expected is None else parse(expected)), str(heard.closest)
    if case.get("reason") and expect != "no_l":
        assert case["reason"] in heard.reason, heard.reason


def _powers(node: object) -> set[str]:
    """The powers named anywhere in an L node."""
    found: set[str] = set()
    if isinstance(node, Node):
        for field in node.__dataclass_fields__:
            value = getattr(node, field)
            if field in ("power", "agent", "sender") and isinstance(value, str):
                found.add(value)
            elif field in ("powers", "agents", "allies", "enemies", "receivers") and isinstance(value, frozenset):
                found |= value
            else:
                found |= _powers(value)
    elif isinstance(node, tuple | frozenset):
        for item in node:
            found |= _powers(item)
    return found


def test_a_suggestion_never_brings_in_a_power_the_sentence_did_not_name() -> None:
    """The closest L offers names the same powers as the sentence: the writer, the receiver,
    and those named ("all of us" is all of them), never a power found on the board instead."""
    for case in CORPUS:
        heard = _heard(case)
        if not isinstance(heard, NotUnderstood) or heard.closest is None:
            continue
        named = {case["sender"][:3].upper(), case["receiver"][:3].upper()} | _named_in(case["english"])
        assert _powers(heard.closest) <= named, (case["english"], str(heard.closest))


_NAMES = {
    "austria": "AUS",
    "england": "ENG",
    "france": "FRA",
    "germany": "GER",
    "italy": "ITA",
    "russia": "RUS",
    "turkey": "TUR",
}


def _named_in(text: str) -> set[str]:
    text = text.lower()
    if "all of us" in text or "every" in text or "all p" in text:
        return set(_NAMES.values())
    return {short for name, short in _NAMES.items() if name in text}

"""The dialogue assistant reads alike what means alike (the issue "the assistant is
inconsistent"): a request put as a question is a proposal however its unit is named, a
negative request is the L it means, "help" is answered with examples that work, and a
proposal goes to every power it commits."""

from __future__ import annotations

import re

import pytest

from engine import Position
from protocol.english import NotUnderstood, Understood, understand
from protocol.l import Propose, parse
from tests.protocol.english_corpus import POSITIONS
from tests.protocol.test_english_corpus import CORPUS, _heard

START = Position.initial()

# The sentences of the issue, with the conversation, the board and what each must read as.
REPORTED = [
    (
        "Will you move A VEN to PIE?",
        "FRA",
        "ITA",
        "propose(fra, [ita], Commit(ita, [fra], Do(mto(Unit(ita, Region(ven, amy)), Region(pie, amy)))))",
    ),
    (
        "Will your army in Venice move to Trieste?",
        "FRA",
        "ITA",
        "propose(fra, [ita], Commit(ita, [fra], Do(mto(Unit(ita, Region(ven, amy)), Region(tri, amy)))))",
    ),
    (
        "Please don't move your fleet to the English Channel",
        "FRA",
        "ENG",
        "propose(fra, [eng], Commit(eng, [fra], ~Do(mto(Unit(eng, Region(lon, coast)), Region(ech, sea)))))",
    ),
    (
        "I propose peace with Germany and England",
        "FRA",
        "ENG",
        "propose(fra, [eng ger], Agree([eng fra ger], pce([eng fra ger])))",
    ),
]


@pytest.mark.parametrize(("english", "sender", "receiver", "expected"), REPORTED)
def test_the_reported_sentences_read_as_they_mean(english: str, sender: str, receiver: str, expected: str) -> None:
    heard = understand(english, sender, receiver, START)
    assert isinstance(heard, Understood), heard
    assert heard.message == parse(expected), str(heard.message)


def test_the_reported_sentences_are_in_the_corpus() -> None:
    said = {c["english"] for c in CORPUS}
    assert [e for e, *_ in REPORTED if e not in said] == []
    assert "help" in said


# --- a request put as a question ---------------------------------------------------------------------

# Ways of asking Italy (at the start, from France) to move its army in Venice to Trieste: one proposal.
ASKED = [
    "Will you move A VEN to TRI?",
    "Will you move your army in Venice to Trieste?",
    "Will your army in Venice move to Trieste?",
    "Would your army in Venice move to Trieste?",
    "Can your army in Venice move to Trieste?",
    "Will the army in Venice move to Trieste?",
    "Will A VEN move to Trieste?",
    "Will your army move to Trieste?",
    "Will you move to Trieste?",
    "Could you move to Trieste from Venice?",
    "Please move your army in Venice to Trieste",
    "Your army in Venice will move to Trieste",
]
TO_TRIESTE = "propose(fra, [ita], Commit(ita, [fra], Do(mto(Unit(ita, Region(ven, amy)), Region(tri, amy)))))"


@pytest.mark.parametrize("english", ASKED)
def test_asking_the_receiver_to_move_is_one_request_however_the_unit_is_named(english: str) -> None:
    heard = understand(english, "FRA", "ITA", START)
    assert isinstance(heard, Understood), heard
    assert heard.message == parse(TO_TRIESTE), str(heard.message)
    assert heard.kind == "request"


@pytest.mark.parametrize(
    ("english", "expected"),
    [
        # "going to" asks what the receiver intends: a question, whoever's unit it is
        ("Is your army in Venice going to move to Trieste?", "query(fra, [ita], Do(mto(Unit(ita, Region(ven, amy)), Region(tri, amy))))"),
        ("Are you going to move to Trieste?", "query(fra, [ita], Do(mto(Unit(ita, Region(ven, amy)), Region(tri, amy))))"),
        # another power's unit: only the receiver can be asked to act, so this is asked about
        ("Will Austria's army in Vienna move to Trieste?", "query(fra, [ita], Do(mto(Unit(aus, Region(vie, amy)), Region(tri, amy))))"),
        ("Will Austria's fleet move to the Adriatic Sea?", "query(fra, [ita], Do(mto(Unit(aus, Region(tri, coast)), Region(adr, sea))))"),
    ],
)  # fmt: skip
def test_what_a_unit_is_going_to_do_and_another_powers_unit_are_asked_about(english: str, expected: str) -> None:
    heard = understand(english, "FRA", "ITA", START)
    assert isinstance(heard, Understood), heard
    assert heard.message == parse(expected), str(heard.message)
    assert heard.kind == "query"


# --- negative requests -------------------------------------------------------------------------------------

NOT_TO_CHANNEL = "propose(fra, [eng], Commit(eng, [fra], ~Do(mto(Unit(eng, Region(lon, coast)), Region(ech, sea)))))"


@pytest.mark.parametrize(
    "english",
    [
        "Please don't move your fleet to the English Channel",
        "Don't move your fleet to the English Channel",
        "Do not move your fleet into the Channel, please",
        "Please don't move your fleet in London to the English Channel",
        "Don't move F LON to ECH",
        "Your fleet will not move to the English Channel",
        "Will your fleet not move to the English Channel?",
    ],
)
def test_a_unit_asked_not_to_move_is_the_negation_of_its_move(english: str) -> None:
    heard = understand(english, "FRA", "ENG", START)
    assert isinstance(heard, Understood), heard
    assert heard.message == parse(NOT_TO_CHANNEL), str(heard.message)
    assert heard.kind == "request"


def test_not_moving_to_a_province_is_keeping_out_of_it() -> None:
    for english in ("Don't move to the English Channel", "Please don't move into the Channel"):
        heard = understand(english, "FRA", "ENG", START)
        assert isinstance(heard, Understood), heard
        assert heard.message == parse("propose(fra, [eng], Commit(eng, [fra], dmz([eng], [ech])))")


def test_a_unit_named_by_its_kind_alone_must_be_found() -> None:
    unsure = understand("Please don't move your fleet to the North Sea", "GER", "ENG", START)
    assert isinstance(unsure, NotUnderstood)
    assert (
        unsure.reason
        == "which unit will move to the North Sea: England's fleet in Edinburgh or England's fleet in London?"
    )
    nowhere = understand("Don't move your fleet to the English Channel", "FRA", "ENG")
    assert isinstance(nowhere, NotUnderstood) and "Say where it is" in nowhere.reason
    others = understand("I will move your fleet to the English Channel", "FRA", "ENG", START)
    assert isinstance(others, NotUnderstood) and others.reason == "only England moves England's units"


# --- help ----------------------------------------------------------------------------------------------------

_REPLIES = {"yes", "no", "I withdraw", "Do you accept?", "my army in Paris", "A PAR"}


@pytest.mark.parametrize(
    ("sender", "receiver", "position"),
    [
        ("FRA", "ENG", "start"),
        ("FRA", "ITA", None),
        ("TUR", "RUS", "start"),
        ("AUS", "ITA", "1902"),
        ("ENG", "GER", "1902"),
    ],
)
def test_help_lists_examples_that_each_read_as_l_in_the_conversation(
    sender: str, receiver: str, position: str | None
) -> None:
    board = None if position is None else POSITIONS[position]
    for asked in ("help", "Help!", "What can I write?", "Hi! Help please"):
        heard = understand(asked, sender, receiver, board)
        assert isinstance(heard, NotUnderstood) and heard.kind == "no_l", heard
        assert heard.closest is None
    examples = [e for e in re.findall(r'"([^"]+)"', heard.reason) if e not in _REPLIES]
    assert len(examples) >= 8, heard.reason
    for example in examples:
        said = understand(example, sender, receiver, board)
        assert isinstance(said, Understood), (example, said)
    kinds = {understand(e, sender, receiver, board).kind for e in examples}  # type: ignore[union-attr]
    assert {"proposal", "promise", "request", "query"} <= kinds


def test_help_is_not_read_inside_a_sentence() -> None:
    heard = understand("help me into Munich", "FRA", "GER", START)
    assert isinstance(heard, NotUnderstood) and heard.kind == "not_understood"


# --- the receivers of a proposal -------------------------------------------------------------------------


def test_every_proposal_of_the_corpus_goes_to_every_power_it_commits() -> None:
    """The receivers of a proposal are the power of the conversation and every other power the
    deal commits (each must accept it), unless the words name them ("France proposes to England: ...")."""
    for case in CORPUS:
        heard = _heard(case)
        if (
            not isinstance(heard, Understood)
            or not isinstance(heard.message, Propose)
            or "proposes to" in case["english"]
        ):
            continue
        deal = heard.message.deal
        committed = deal.agents if hasattr(deal, "agents") else frozenset(c.agent for c in deal.commits)
        expected = (committed | {case["receiver"][:3]}) - {case["sender"][:3]}
        assert heard.message.receivers == expected, (case["english"], str(heard.message))


def test_a_proposal_to_several_powers_says_so() -> None:
    heard = understand("I propose peace with Germany and England", "FRA", "ENG")
    assert isinstance(heard, Understood)
    assert heard.echo == "You propose to England and Germany: peace between England, you and Germany"
    assert heard.note == "sent as a proposal to England and Germany, who can accept or reject it"
    assert heard.kind == "proposal"

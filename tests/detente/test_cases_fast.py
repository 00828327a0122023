"""The fast path of ``detente adjudicate`` (start positions from tables, orders read with one
lookup, three loops, bytes out) answers as the generic path (pydantic, ``Position.build``,
``Position.to_json``) does, byte for byte."""

from __future__ import annotations

import functools
import io
import json
import random
import sys
from typing import Any

import pytest

from detente import cases
from detente.cases import _plain_start, _tables, adjudicate_json, answer_cases, answer_text
from engine import Game, Position, _native, format_order, legal_orders, standard_map
from engine.batch import play_case, play_case_called, play_texts
from formats.jsonio import write_stdout

M = standard_map()


def random_case(seed: int, turns: int = 30) -> dict[str, Any]:
    """A case of random legal orders from a random point of a random game, with some noise."""
    rng = random.Random(seed)
    game = Game()
    for _ in range(rng.randrange(0, 12)):
        game.play(
            {
                p: [format_order(M, rng.choice(o)) for o in legal_orders(game.position, p).values() if o]
                for p in M.powers
            }
        )
    start = game.position.to_json()
    played = []
    for _ in range(turns):
        position = game.position
        if position.completed:
            break
        orders: dict[str, list[str]] = {}
        for power in M.powers:
            options = [o for o in legal_orders(position, power).values() if o]
            texts = [format_order(M, rng.choice(o)) for o in options]
            if rng.random() < 0.1:
                texts.append(rng.choice(["A XYZ H", "garbage", "F LON - NTH", "A PAR - MAR"]))
            orders[M.power_names[power] if rng.random() < 0.8 else power] = texts  # a case names either
        game.play(orders)
        played.append({"orders": orders})
    return {"name": f"case {seed}", "start": start, "turns": played}


@pytest.fixture(scope="module")
def random_cases() -> list[dict[str, Any]]:
    return [random_case(seed) for seed in range(8)]


def generic(data: Any) -> bytes:
    """The answer through the generic path: :func:`answer_cases` dumped by the standard library."""
    answer, _ = answer_cases(data)
    return answer_text(answer).encode("utf-8")


def test_random_cases_are_answered_as_the_generic_path_answers(random_cases: list[dict[str, Any]]) -> None:
    answer, errors = adjudicate_json(random_cases)
    assert not errors
    assert answer == generic(random_cases)
    assert any(p["dislodged"] for case in json.loads(answer) for p in case), "no dislodged unit: a weak test"


def test_odd_cases_are_answered_as_the_generic_path_answers() -> None:
    odd = [
        {  # one power spelt twice, texts that are no order, an order for a unit not there
            "start": {"phase": "S1901M", "units": {"FRANCE": ["A PAR", "F BRE"], "GER": ["A MUN"]}, "centers": {}},
            "turns": [
                {"orders": {"FRANCE": ["A PAR - BUR", "garbage"], "FRA": ["F BRE - MAO", "A MAR H"], "GER": []}},
                {},
                {"orders": {"france": ["A BUR - MUN"]}},
            ],
        },
        {  # a start with a dislodged unit and names the tables do not hold (lower case, a coast alias)
            "start": {
                "phase": "F1901R",
                "units": {"italy": ["f tri"], "RUSSIA": ["F STP/NC"]},
                "dislodged": {"A TRI": {"power": "AUSTRIA", "retreats": ["VIE", "BUD"]}},
            },
            "turns": [{"orders": {"AUSTRIA": ["A TRI R VIE"]}}, {"orders": {"ITALY": ["F TRI - ADR"]}}],
        },
        {"start": {"phase": "S1901M", "units": {"FRANCE": ["A PAR"]}, "extra": 1}, "turns": [], "note": "kept out"},
    ]
    for case in odd:
        assert adjudicate_json(case)[0] == generic(case)
    assert adjudicate_json(odd)[0] == generic(odd)


def test_a_start_with_an_impossible_retreat_is_an_error_of_that_case_only() -> None:
    bad = {
        "start": {
            "phase": "F1901R",
            "units": {"ITALY": ["F TRI"]},
            "dislodged": {"A TRI": {"power": "AUSTRIA", "retreats": ["VIE", "ADR"]}},
        },
        "turns": [],
    }
    good = {
        "start": {"phase": "S1901M", "units": {"FRANCE": ["A PAR"]}},
        "turns": [{"orders": {"FRANCE": ["A PAR H"]}}],
    }
    answer, errors = adjudicate_json([good, bad])
    assert answer == generic([good, bad])
    assert [e["unit"] for e in errors] == ["A TRI"] and "ADR is a sea" in errors[0]["error"]
    assert errors == answer_cases([good, bad])[1]


def test_the_start_from_the_tables_is_the_built_one(random_cases: list[dict[str, Any]]) -> None:
    t = _tables(M)
    for case in random_cases:
        start = case["start"]
        dislodged = {name: (d["power"], d["retreats"]) for name, d in start["dislodged"].items()}
        built = Position.build(start["phase"], start["units"], start["centers"], dislodged, M)
        assert _plain_start(start, M, t) == built
    assert _plain_start({"phase": "S1901M", "units": {"FRANCE": ["A PAR", "A PAR"]}}, M, t) is None
    assert _plain_start({"phase": "s1901m", "units": {}}, M, t) is None
    assert (
        _plain_start({"phase": "S1901M", "units": {"FRANCE": ["A PAR"]}, "centers": {"FRANCE": ["BUR"]}}, M, t) is None
    )


def test_the_answer_does_not_depend_on_what_was_read_before(
    random_cases: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    warm = adjudicate_json(random_cases)[0]
    monkeypatch.setattr(cases, "_tables", functools.lru_cache(maxsize=8)(cases._Tables))  # a fresh memo
    assert adjudicate_json(random_cases)[0] == warm


def test_bytes_go_out_as_text_where_standard_output_is_no_utf8_file(monkeypatch: pytest.MonkeyPatch) -> None:
    text = io.StringIO()
    monkeypatch.setattr(sys, "stdout", text)
    write_stdout('{"a":"é"}\n'.encode())
    assert text.getvalue() == '{"a":"é"}\n'
    raw = io.BytesIO()
    wrapped = io.TextIOWrapper(raw, encoding="utf-8")
    wrapped.write("before ")
    monkeypatch.setattr(sys, "stdout", wrapped)
    write_stdout('{"a":"é"}\n'.encode())
    assert raw.getvalue().decode() == 'before {"a":"é"}\n'


def test_the_first_case_in_error_is_the_one_reported() -> None:
    plain = {
        "start": {"phase": "S1901M", "units": {"FRANCE": ["A PAR"]}},
        "turns": [{"orders": {"FRANCE": ["A PAR H"]}}],
    }
    odd_shape = {"start": {"phase": "S1901M", "units": {}}, "turns": [{"orders": {"FRANCE": "A PAR H"}}]}
    unknown_power = {"start": {"phase": "S1901M", "units": {}}, "turns": [{"orders": {"NARNIA": []}}]}
    bad_start = {
        "start": {"phase": "F1901R", "units": {}, "dislodged": {"A TRI": {"power": "AUSTRIA", "retreats": ["ADR"]}}},
        "turns": [],
    }
    with pytest.raises(cases.CaseError, match="valid list"):
        adjudicate_json([plain, odd_shape, unknown_power])
    with pytest.raises(cases.CaseError, match="unknown power 'NARNIA'"):
        adjudicate_json([plain, unknown_power, odd_shape])
    with pytest.raises(cases.CaseError, match="unknown power 'NARNIA'"):
        adjudicate_json([bad_start, unknown_power])
    answer, errors = adjudicate_json([bad_start, plain])
    assert answer.startswith(b"[null,[{") and [e["case"] for e in errors] == [0]


@pytest.mark.skipif(not _native.compiled_available(), reason="the compiled core is not built")
def test_the_compiled_case_player_answers_as_the_pure_path(
    random_cases: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the compiled core the cases are played and written in C: from the texts
    (``engine.batch.play_texts``) once every text was read before, else from the orders read
    (``play_case``); the bytes are those of the pure-Python path, cold memos or warm."""
    with _native.pure_python():
        pure = adjudicate_json(random_cases)
    answered: dict[str, list[bytes | None]] = {"texts": [], "orders": []}

    def counted(name: str, play: Any) -> Any:
        def call(*args: Any) -> bytes | None:
            answered[name].append(play(*args))
            return answered[name][-1]

        return call

    monkeypatch.setattr(cases, "play_texts", counted("texts", play_texts))
    monkeypatch.setattr(cases, "play_case", counted("orders", play_case))
    monkeypatch.setattr(cases, "_tables", functools.lru_cache(maxsize=8)(cases._Tables))  # cold memos
    with _native.pure_python(False):
        assert adjudicate_json(random_cases) == pure  # cold: most cases read in Python first
        assert None not in answered["orders"]
        answered["texts"].clear()
        assert adjudicate_json(random_cases) == pure  # warm: every case from its texts
    assert len(answered["texts"]) == len(random_cases) and None not in answered["texts"]


@pytest.mark.skipif(not _native.compiled_available(), reason="the compiled module is not built")
def test_the_pure_engine_written_in_c_answers_as_the_generic_path(
    random_cases: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the pure-Python core, the compiled module writes what the engine played
    (``engine.batch.play_case_called``): the generic path's bytes, every case taken."""
    written: list[bytes | None] = []

    def counted(*args: Any) -> bytes | None:
        written.append(play_case_called(*args))
        return written[-1]

    monkeypatch.setattr(cases, "play_case_called", counted)
    with _native.pure_python():
        answer, errors = adjudicate_json(random_cases)
    assert not errors
    assert answer == generic(random_cases)
    assert len(written) == len(random_cases) and None not in written

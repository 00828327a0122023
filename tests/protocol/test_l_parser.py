"""L: parsing, the normal form and syntax errors, on the spec's examples and beyond."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from protocol.l import (
    Agree,
    And,
    Commit,
    Cto,
    Deal,
    Do,
    Hld,
    Implies,
    LError,
    LLevelError,
    LSyntaxError,
    Not,
    Pce,
    Propose,
    Region,
    Seq,
    Slo,
    TimeCmp,
    TimeVar,
    Turn,
    Unit,
    check,
    check_levels,
    level,
    parse,
    to_text,
)
from protocol.l.parser import MAX_CHARS

# The examples of section 6 of the L language spec, with the level the spec gives each example.
SPEC_EXAMPLES = [
    (
        1,
        """propose(ita, rus, [Commit(ita, rus, Do(mto(Unit(ita, Region(mar, amy)), Region(par, amy))))
                     Commit(rus, ita, Do(sup(Unit(rus, Region(spa, scs)),
                                             mto(Unit(ita, Region(mar, amy)), Region(par, amy)))))])""",
    ),
    (1, "accept(ita, rus, Agree([ita rus], aly([ita rus], eng)))"),
    (1, "propose(eng, fra, Agree([eng fra], pce([eng fra])))"),
    (1, "withdraw(eng, fra)"),
    (2, "inform(ita, eng, Agree([ita rus], pce([ita rus])))"),
    (3, "query(eng, ita, Agree([ita rus], pce([ita rus])))"),
    (3, "answer(ita, eng, Agree([ita rus], pce([ita rus])))"),
    (4, "query(rus, ita, answer(ita, eng, Agree([ita rus], pce([ita rus]))))"),
    (5, "query(ita, rus, answer(ita, eng, Agree([ita rus], pce([ita rus]))) -> Feel(rus, Sad))"),
    (6, "propose(fra, eng, Commit(fra, eng, Do(hld(Unit(fra, Region(bre, coast))), (spr, 1902))), (fal, 1901))"),
    (7, "query(ita, rus, Explain(Belief(tur, Agree([ita rus], pce([ita rus]))) -> Feel(rus, Angry)))"),
    (
        8,
        """inform(rus, eng, Support(Agree([ita rus], aly([ita rus], eng)) & Desire(ita, dmz([ita], [par])),
                              Desire(ita, Do(mto(Unit(ita, Region(mar, amy)), Region(par, amy))))))""",
    ),
]

# The one normal form the spec writes out (section 3), and the message it is the normal form of.
SPEC_NORMAL_FORM = (
    "propose(ita, [rus], [Commit(ita, [rus], Do(mto(Unit(ita, Region(mar, amy)), Region(par, amy)))) "
    "Commit(rus, [ita], Do(sup(Unit(rus, Region(spa, scs)), mto(Unit(ita, Region(mar, amy)), Region(par, amy)))))])"
)

# The spec's examples and its one printed normal form, extracted once; the file's "source" field says where from.
SPEC = Path(__file__).resolve().parents[1] / "data" / "l-spec-examples.json"


def test_the_examples_here_are_those_of_the_spec():
    spec = json.loads(SPEC.read_text(encoding="utf-8"))
    assert "section 6" in spec["source"]
    examples = [e["text"] for e in spec["examples"]]
    assert [" ".join(e.split()) for e in examples] == [" ".join(text.split()) for _, text in SPEC_EXAMPLES]
    assert [e["level"] for e in spec["examples"]] == [expected for expected, _ in SPEC_EXAMPLES]
    assert spec["normal_form_of_first_example"] == SPEC_NORMAL_FORM


@pytest.mark.parametrize(("expected_level", "text"), SPEC_EXAMPLES)
def test_spec_examples_round_trip(expected_level, text):
    message = parse(text)
    printed = to_text(message)
    assert parse(printed) == message
    assert to_text(parse(printed)) == printed
    assert hash(parse(printed)) == hash(message)
    assert check(text) == {"ok": True, "level": expected_level, "text": printed}


@pytest.mark.parametrize(("expected", "text"), SPEC_EXAMPLES)
def test_the_level_of_each_spec_example(expected, text):
    assert level(parse(text)) == expected
    assert check_levels(parse(text), range(1, expected + 1), text) == expected
    if expected > 1:
        with pytest.raises(LLevelError):
            check_levels(parse(text), range(1, expected), text)


def test_spec_normal_form_is_printed_exactly():
    assert to_text(parse(SPEC_EXAMPLES[0][1])) == SPEC_NORMAL_FORM
    assert parse(SPEC_NORMAL_FORM) == parse(SPEC_EXAMPLES[0][1])


def test_printing_follows_the_spec_conventions():
    printed = to_text(parse(SPEC_EXAMPLES[-1][1]))
    assert printed == (
        "inform(rus, [eng], Support(Agree([ita rus], aly([ita rus], [eng])) & Desire(ita, dmz([ita], [par])), "
        "Desire(ita, Do(mto(Unit(ita, Region(mar, amy)), Region(par, amy))))))"
    )
    assert to_text(parse(SPEC_EXAMPLES[9][1])) == (
        "propose(fra, [eng], Commit(fra, [eng], Do(hld(Unit(fra, Region(bre, coast))), (spr, 1902))), (fal, 1901))"
    )


def test_keywords_and_names_are_case_insensitive():
    shouted = "PROPOSE(ENG, FRA, AGREE([Eng, FRA], PCE([eng Fra])))"
    assert parse(shouted) == parse("propose(eng, fra, Agree([eng fra], pce([eng fra])))")
    assert to_text(parse(shouted)) == "propose(eng, [fra], Agree([eng fra], pce([eng fra])))"
    assert to_text(parse("inform(eng, fra, FEEL(eng, veryhappy) & DESIRE(eng, DO(WVE(ENG), (SPR, 1901))))")) == (
        "inform(eng, [fra], Desire(eng, Do(wve(eng), (spr, 1901))) & Feel(eng, VeryHappy))"
    )


def test_sets_are_sets():
    a = parse("propose(eng, rus, Agree([eng rus], pce([eng rus])))")
    assert parse("propose(eng, [rus], Agree([rus, eng], pce([rus eng rus])))") == a
    assert parse("propose(eng, [rus,rus], Agree([rus,eng,eng], pce([eng,rus])))") == a
    assert a != parse("propose(eng, [rus ita], Agree([eng rus], pce([eng rus])))")
    assert parse("inform(eng, fra, aly(eng, fra))").info == parse("inform(eng, fra, aly([eng], [fra]))").info


def test_whitespace_and_newlines_are_free():
    spaced = "\n propose (\teng ,\n[ eng\nfra ] ,Agree ( [eng fra] , pce ( [ eng fra ] ) ) )\n"
    assert parse(spaced) == parse("propose(eng,[eng fra],Agree([eng fra],pce([eng fra])))")


def test_an_accept_matches_its_proposal_whatever_the_order():
    proposal = parse("propose(eng, [fra ger], [Commit(eng, [fra ger], pce([eng fra ger])) Commit(fra, eng, slo(fra))])")
    accept = parse("accept(fra, eng, [Commit(fra, [eng], slo(fra)), COMMIT(eng, [ger, fra], pce([ger fra eng]))])")
    assert accept.deal == proposal.deal
    assert hash(accept.deal) == hash(proposal.deal)
    other = parse("accept(fra, eng, [Commit(fra, [eng], slo(fra)) Commit(eng, [ger], pce([ger fra eng]))])")
    assert other.deal != proposal.deal


def test_a_single_commit_is_a_deal_of_one():
    alone = parse("propose(eng, fra, Commit(eng, fra, pce([eng fra])))")
    bracketed = parse("propose(eng, fra, [Commit(eng, fra, pce([eng fra]))])")
    assert alone == bracketed
    assert isinstance(alone.deal, Deal) and len(alone.deal.commits) == 1
    assert to_text(bracketed) == "propose(eng, [fra], Commit(eng, [fra], pce([eng fra])))"


def _info(text: str):
    return parse(f"inform(eng, fra, {text})").info


P, Q, R = Pce(frozenset({"eng"})), Pce(frozenset({"fra"})), Slo("ger")


def test_and_is_flattened_and_sorted():
    assert _info("pce(eng) & (pce(fra) & slo(ger))") == _info("slo(ger) and pce(fra) ∧ pce(eng)")
    assert _info("pce(eng) & pce(fra) & slo(ger)") == And((R, Q, P))
    assert _info("slo(ger) & pce(eng)").operands == (P, R)
    assert to_text(_info("slo(ger) & pce(fra) & pce(eng)")) == "pce([eng]) & pce([fra]) & slo(ger)"


def test_sequences_keep_their_order_and_are_flattened():
    assert _info("pce(eng) ; pce(fra)") == Seq((P, Q))
    assert _info("pce(eng) ; pce(fra)") != _info("pce(fra) ; pce(eng)")
    assert _info("(pce(eng) ; pce(fra)) ; slo(ger)") == _info("pce(eng) ; (pce(fra) ; slo(ger))") == Seq((P, Q, R))
    assert to_text(_info("(pce(eng) ; pce(fra)) ; slo(ger)")) == "pce([eng]) ; pce([fra]) ; slo(ger)"


def test_implication_is_right_associative_and_loosest():
    assert _info("pce(eng) -> pce(fra) -> slo(ger)") == Implies(P, Implies(Q, R))
    assert _info("(pce(eng) -> pce(fra)) -> slo(ger)") == Implies(Implies(P, Q), R)
    assert to_text(_info("(pce(eng) -> pce(fra)) -> slo(ger)")) == "(pce([eng]) -> pce([fra])) -> slo(ger)"
    assert to_text(_info("pce(eng) → (pce(fra) -> slo(ger))")) == "pce([eng]) -> pce([fra]) -> slo(ger)"
    assert _info("pce(eng) ; pce(fra) -> slo(ger)") == Implies(Seq((P, Q)), R)


def test_precedence_of_not_and_seq():
    assert _info("~pce(eng) & pce(fra)") == And((Not(P), Q))
    assert _info("not (pce(eng) & pce(fra))") == Not(And((P, Q)))
    assert _info("¬¬pce(eng)") == Not(Not(P))
    assert _info("pce(eng) & pce(fra) ; slo(ger)") == Seq((And((P, Q)), R))
    assert _info("pce(eng) & (pce(fra) ; slo(ger))") == And((P, Seq((Q, R))))
    assert to_text(_info("pce(eng) & (pce(fra) ; slo(ger))")) == "pce([eng]) & (pce([fra]) ; slo(ger))"
    assert to_text(_info("~(pce(eng) & pce(fra))")) == "~(pce([eng]) & pce([fra]))"
    assert to_text(_info("((pce(eng)))")) == "pce([eng])"


def test_time_arguments_and_comparisons():
    assert _info("t1 > t0") == TimeCmp(TimeVar("t1"), ">", TimeVar("t0"))
    assert _info("(spr, 1901) <= T12") == TimeCmp(Turn("spr", 1901), "<=", TimeVar("t12"))
    assert _info("t1 >= t0 & pce(eng)") == And((P, TimeCmp(TimeVar("t1"), ">=", TimeVar("t0"))))
    do = _info("Do(hld(Unit(eng, Region(lon, coast))), (WIN, 1905))")
    assert do == Do(Hld(Unit("eng", Region("lon", "coast"))), Turn("win", 1905))
    timed = parse("withdraw(eng, fra, t3)")
    assert timed.time == TimeVar("t3") and to_text(timed) == "withdraw(eng, [fra], t3)"


def test_every_construct_can_carry_a_time():
    text = (
        "inform(eng, [fra], Belief(eng, pce([eng]), t4) & Desire(eng, pce([eng]), t5) & Explain(pce([eng]), t6)"
        " & Feel(eng, Sad, t7) & Obs(eng, [fra], Agree([eng fra], Do(wve(eng), t1), t2), t3)"
        " & Unknown(eng, Commit(eng, [fra], pce([eng]), t8), t9), (aut, 1910))"
    )
    message = parse(text)
    assert to_text(message) == text
    assert message.time == Turn("aut", 1910)


def test_convoys_and_routes():
    cto = _info("Do(cto(Unit(eng, Region(lon, amy)), Region(nwy, amy), [nth, nwg]))").action
    assert cto == Cto(Unit("eng", Region("lon", "amy")), Region("nwy", "amy"), ("nth", "nwg"))
    reversed_route = _info("Do(cto(Unit(eng, Region(lon, amy)), Region(nwy, amy), [nwg nth]))").action
    assert reversed_route != cto and reversed_route.route == ("nwg", "nth")
    cvy = _info("Do(cvy(Unit(eng, Region(nth, sea)), cto(Unit(eng, Region(lon, amy)), Region(nwy, amy))))")
    assert to_text(cvy) == "Do(cvy(Unit(eng, Region(nth, sea)), cto(Unit(eng, Region(lon, amy)), Region(nwy, amy))))"
    with pytest.raises(LSyntaxError):  # the move inside cvy has no route
        _info("Do(cvy(Unit(eng, Region(nth, sea)), cto(Unit(eng, Region(lon, amy)), Region(nwy, amy), [nth])))")


def test_every_action_and_predicate_round_trips():
    unit = "Unit(eng, Region(lon, coast))"
    actions = [
        f"hld({unit})",
        f"mto({unit}, Region(nth, sea))",
        f"sup({unit}, hld(Unit(fra, Region(bre, coast))))",
        f"sup({unit}, mto(Unit(fra, Region(bre, coast)), Region(eng, sea)))",
        f"rto({unit}, Region(wal, coast))",
        f"dsb({unit})",
        f"bld({unit})",
        f"rem({unit})",
        "wve(eng)",
        f"cto({unit}, Region(nwy, amy))",
    ]
    predicates = [
        "pce([eng fra])",
        "aly([eng fra], [ger])",
        "dmz([eng fra], [bel hol])",
        "drw([eng fra ger])",
        "slo(eng)",
    ]
    for text in [f"Do({a})" for a in actions] + predicates:
        assert to_text(_info(text)) == text


def test_names_are_lexed_by_context():
    # Three-letter keywords stand as names where a name is expected; the map decides later.
    message = parse("inform(sea, [and not], pce([amy spr]) and not slo(sad))")
    assert message.sender == "SEA" and message.receivers == {"AND", "NOT"}
    assert message.info == And((Not(Slo("sad")), Pce(frozenset({"amy", "spr"}))))
    assert parse(to_text(message)) == message


def test_the_slots_admit_what_the_spec_says():
    with pytest.raises(LSyntaxError):  # a predicate is not a deal
        parse("propose(eng, fra, pce([eng fra]))")
    assert check("inform(eng, fra, pce([eng fra]))")["level"] == 2
    with pytest.raises(LSyntaxError):  # no deal inside Commit or Agree ...
        parse("propose(eng, fra, Agree([eng fra], Agree([eng fra], pce([eng]))))")
    assert parse("inform(eng, fra, Belief(eng, Agree([eng fra], pce([eng]))))")  # ... but inside Belief
    assert parse("inform(eng, fra, Obs(eng, fra, [Commit(eng, fra, pce(eng)) Commit(fra, eng, pce(fra))]))")
    with pytest.raises(LSyntaxError):  # no -> in a formula
        parse("propose(eng, fra, Agree([eng fra], pce(eng) -> pce(fra)))")
    with pytest.raises(LSyntaxError):  # no Feel in a formula
        parse("propose(eng, fra, Agree([eng fra], Feel(eng, Sad)))")
    with pytest.raises(LSyntaxError):  # nor in Belief
        parse("inform(eng, fra, Belief(eng, Feel(eng, Sad)))")
    with pytest.raises(LSyntaxError):  # alpha is one bare agent
        parse("propose([eng], fra, Agree([eng fra], pce(eng)))")
    with pytest.raises(LSyntaxError):  # no Agree inside a bracketed deal
        parse("propose(eng, fra, [Agree([eng fra], pce(eng))])")
    with pytest.raises(LSyntaxError):  # province lists are always bracketed
        parse("inform(eng, fra, dmz(eng, par))")
    with pytest.raises(LSyntaxError):  # Attack and Support take no time
        parse("inform(eng, fra, Attack(pce(eng), pce(fra), t0))")


@pytest.mark.parametrize(
    ("text", "line", "column", "expected"),
    [
        ("propose(eng, fra)", 1, 17, ("','",)),
        ("propose(eng, [], Agree([eng fra], pce([eng fra])))", 1, 15, ("a name (three letters: eng, par)",)),
        ("accept(eng, fra, Agree([eng fra], pce([eng fra]))", 1, 50, ("')'", "','")),
        ("propose(eng, fra, pce([eng fra]))", 1, 19, ("a deal: Commit(...), [Commit(...) ...] or Agree(...)",)),
        (
            "propose(eng, fra,\n  Agree([eng fra],\n    pce([eng fra)))",
            3,
            17,
            ("','", "']'", "a name (three letters: eng, par)"),
        ),
        ("withdraw(eng, fra, (spr, 1901)) pce", 1, 33, ("the end of the message",)),
        ("withdraw(eng, fra, (spr 1901))", 1, 25, ("','",)),
        ("withdraw(eng, fra1)", 1, 15, ("'['", "a name (three letters: eng, par)")),
        ("withdraw(eng, fra) #", 1, 20, ("the end of the message",)),
        ("inform(eng, fra, Feel(eng, Glad))", 1, 28, ("a feeling (VeryHappy Happy Sad Angry)",)),
        ("", 1, 1, ("accept", "answer", "inform", "propose", "query", "reject", "withdraw")),
    ],
)
def test_syntax_errors_say_where_and_what_was_expected(text, line, column, expected):
    with pytest.raises(LSyntaxError) as caught:
        parse(text)
    error = caught.value
    assert (error.kind, error.line, error.column, error.expected) == ("syntax", line, column, expected)
    # The context shows the line of the error with a caret under the column.
    shown, caret = error.context.split("\n")
    row = text.split("\n")[line - 1]
    assert row[column - 1 :].startswith(shown[caret.index("^") :].removesuffix("..."))
    if column <= len(row):
        assert shown[caret.index("^")] == row[column - 1]
    assert check(text) == {"ok": False, "kind": "syntax", "line": line, "column": column, "message": error.message}
    assert all(e in error.message for e in expected)


def test_the_context_of_a_long_line_is_cut_around_the_error():
    text = "inform(eng, fra, " + " & ".join(["pce([eng fra])"] * 20) + " & pce([eng xyz1]))"
    with pytest.raises(LSyntaxError) as caught:
        parse(text)
    shown, caret = caught.value.context.split("\n")
    assert len(shown) < 90 and shown.startswith("  ...")
    assert shown[caret.index("^") :].startswith("xyz1")


def test_errors_are_one_family():
    assert issubclass(LSyntaxError, LError) and issubclass(LError, ValueError)
    with pytest.raises(LError):
        parse("propose(eng, fra)")


def test_years_and_nesting_have_limits_and_errors_not_crashes():
    with pytest.raises(LSyntaxError) as caught:
        parse("withdraw(eng, fra, (spr, " + "9" * 5000 + "))")
    assert caught.value.column == 26
    deep = "inform(eng, fra, " + "~" * 5000 + "pce(eng) & pce(fra))"
    assert check(deep)["ok"] is False
    for depth, ok in ((98, True), (99, False)):  # 100 nodes deep at most: Inform, Not x 98, Pce
        result = check("inform(eng, fra, " + "~" * depth + "pce(eng))")
        assert result["ok"] is ok and (ok or "nested more than 100 deep" in result["message"])
    with pytest.raises(LSyntaxError):
        parse("inform(eng, fra, " + "inform(eng, fra, " * 200 + "pce(eng)" + ")" * 201)
    # brackets count as nesting too, though they add no node: refused where they go too deep
    nested = "inform(eng, fra, " + "(" * 3000 + "pce(eng) & ~~pce(fra)" + ")" * 3000 + ")"
    result = check(nested)
    assert result["ok"] is False and "nested more than 100 deep" in result["message"]
    assert (result["line"], result["column"]) == (1, len("inform(eng, fra, ") + 100)
    assert check("inform(eng, fra, " + "(" * 90 + "pce(eng) & ~~pce(fra)" + ")" * 90 + ")")["ok"] is True


def _ok_deal(commits: int) -> str:
    commit = "Commit(eng, fra, Do(mto(Unit(eng, Region(lon, coast)), Region(nth, sea))))"
    return "propose(eng, fra, [" + " ".join([commit] * commits) + "])"


def test_the_size_of_a_message_is_bounded_before_it_is_parsed():
    assert len(_ok_deal(100)) < MAX_CHARS < len(_ok_deal(120))
    assert isinstance(parse(_ok_deal(100)), Propose)  # longer than the memo's texts, and parsed
    with pytest.raises(LSyntaxError) as caught:
        parse(_ok_deal(120))
    error = caught.value
    assert f"{MAX_CHARS} characters at most" in error.message
    assert (error.line, error.column) == (1, MAX_CHARS + 1)
    # 64 kB, on several lines: refused, with the place, before any parsing
    with pytest.raises(LSyntaxError) as caught:
        parse("inform(eng, fra,\n" + "pce([eng fra]) &\n" * 4000 + "pce(eng))")
    assert caught.value.line is not None and caught.value.line > 1


@pytest.mark.parametrize(
    "opening, closing",
    [("(", ")"), ("~", ""), ("not ", ""), ("¬(", ")"), ("Belief(eng, ", ")"), ("inform(eng, fra, ", ")")],
)
def test_deep_nesting_is_refused_at_the_place_before_it_is_parsed(opening: str, closing: str):
    head = "inform(eng, fra, "
    for size in (16_384 // 2, MAX_CHARS - 50):
        count = (size - len(head)) // (len(opening) + len(closing) or 1)
        text = head + opening * count + "pce(eng)" + closing * count + ")"
        with pytest.raises(LSyntaxError) as caught:
            parse(text)
        error = caught.value
        assert "nested more than 100 deep" in error.message or "characters at most" in error.message
        assert error.line == 1 and error.column is not None and error.column > len(head)
        assert error.to_dict()["kind"] == "syntax"


def test_memo_keeps_short_texts_only():
    from protocol.l.parser import MEMO_CHARS, _parse_cached

    short = "propose(eng, fra, Commit(eng, fra, pce([eng fra])))"
    assert parse(short) is parse(short)  # memoised
    long = _ok_deal(20)
    assert len(long) > MEMO_CHARS
    before = _parse_cached.cache_info().currsize
    assert parse(long) == parse(long)
    assert _parse_cached.cache_info().currsize == before


def test_nodes_are_immutable_and_hashable():
    message = parse("propose(eng, fra, Agree([eng fra], pce([eng fra])))")
    with pytest.raises(AttributeError):
        message.sender = "fra"  # type: ignore[misc]
    assert {message, parse(to_text(message))} == {message}
    assert str(message) == to_text(message)


def test_nodes_built_in_code_are_normalised_like_parsed_ones():
    built = Propose("ENG", ["fra"], Agree(("fra", "eng"), And((Pce("eng"), Pce(("fra", "eng"))))))
    assert built == parse("propose(eng, fra, Agree([eng fra], pce([eng fra]) & pce(eng)))")
    assert Deal(Commit("eng", "fra", P)) == Deal(frozenset({Commit("eng", ["fra"], P)}))
    with pytest.raises(ValueError):
        Pce(())
    with pytest.raises(ValueError):
        Region("par", "lake")
    with pytest.raises(ValueError):
        And((P,))
    with pytest.raises(ValueError):
        TimeVar("x1")

"""L: the level of a message, the levels a game allows, and the refusal that names the construct."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol.l import (
    CONSTRUCT_LEVELS,
    LLevelError,
    check,
    check_levels,
    constructs,
    format_levels,
    level,
    parse,
    parse_levels,
)

DEAL = "Agree([eng fra], pce([eng fra]))"

# A message for each construct, in which that construct is the highest; and its level.
ONE_CONSTRUCT = [
    ("propose", f"propose(eng, fra, {DEAL})", 1),
    ("accept", f"accept(eng, fra, {DEAL})", 1),
    ("reject", f"reject(eng, fra, {DEAL})", 1),
    ("withdraw", "withdraw(eng, fra)", 1),
    ("Commit", "propose(eng, fra, Commit(eng, fra, pce(eng)))", 1),
    ("&", "propose(eng, fra, Agree([eng fra], pce(eng) & pce(fra)))", 1),
    ("~", "propose(eng, fra, Agree([eng fra], ~pce(eng)))", 1),
    ("inform", f"inform(eng, fra, {DEAL})", 2),
    ("Obs", "inform(eng, fra, Obs(eng, fra, pce(eng)))", 2),
    ("Belief", "inform(eng, fra, Belief(eng, pce(eng)))", 2),
    ("Desire", "inform(eng, fra, Desire(eng, pce(eng)))", 2),
    ("query", f"query(eng, fra, {DEAL})", 3),
    ("answer", f"answer(eng, fra, {DEAL})", 3),
    ("Unknown", "inform(eng, fra, Unknown(eng, pce(eng)))", 3),
    ("an illocution inside another", f"inform(eng, fra, propose(eng, fra, {DEAL}))", 4),
    ("Feel", "inform(eng, fra, Feel(eng, Happy))", 5),
    ("->", "inform(eng, fra, pce(eng) -> pce(fra))", 5),
    ("a time argument", "withdraw(eng, fra, t0)", 6),
    (";", "propose(eng, fra, Agree([eng fra], pce(eng) ; pce(fra)))", 6),
    ("a time comparison", "propose(eng, fra, Agree([eng fra], t1 > t0))", 6),
    ("Explain", "inform(eng, fra, Explain(pce(eng)))", 7),
    ("Attack", "inform(eng, fra, Attack(pce(eng), pce(fra)))", 8),
    ("Support", "inform(eng, fra, Support(pce(eng), pce(fra)))", 8),
]


@pytest.mark.parametrize(("construct", "text", "expected"), ONE_CONSTRUCT)
def test_each_construct_has_the_level_of_the_spec_table(construct, text, expected):
    message = parse(text)
    assert construct in constructs(message)
    assert CONSTRUCT_LEVELS[construct] == expected
    assert level(message) == expected
    if expected > 1:
        # Every level but the construct's own: the construct is named, where it is.
        others = set(range(1, 9)) - {expected}
        with pytest.raises(LLevelError) as caught:
            check_levels(message, others, text)
        # The first construct of that level in the text is named: inform comes before Obs.
        first = "inform" if construct in ("Obs", "Belief", "Desire") else construct
        assert caught.value.construct == first
        assert caught.value.construct_level == expected
        assert caught.value.line == 1


def test_every_construct_is_in_the_table():
    seen = set().union(*(constructs(parse(text)) for _, text, _ in ONE_CONSTRUCT))
    actions = "propose(eng, fra, Commit(eng, fra, Do(cvy(Unit(eng, Region(nth, sea)), cto(Unit(eng, Region(lon, amy)), Region(nwy, amy))))))"
    seen |= constructs(parse(actions))
    assert {"Do", "cvy", "cto", "pce"} <= seen
    assert seen <= set(CONSTRUCT_LEVELS)


@pytest.mark.parametrize(
    ("text", "levels", "construct", "column"),
    [
        ("inform(eng, fra, Feel(eng, Happy))", "1-4", "Feel", 18),
        ("inform(eng, fra, pce(eng) -> Feel(eng, Sad))", "1-4,6", "->", 27),
        (
            "query(rus, ita, answer(ita, eng, Agree([ita rus], pce([ita rus]))))",
            "3",
            "an illocution inside another",
            17,
        ),
        ("query(rus, ita, answer(ita, eng, Agree([ita rus], pce([ita rus]))))", "1,2,4", "query", 1),
        ("withdraw(eng, fra, (spr, 1901))", "5", "a time argument", 20),
        ("propose(eng, fra, Agree([eng fra], t1 > (spr, 1901)))", "1-5", "a time comparison", 39),
        ("propose(eng, fra, Agree([eng fra], pce(eng) ; pce(fra)))", "1-5,7-8", ";", 45),
        ("inform(eng, fra, Explain(pce(eng)))", "6", "Explain", 18),
        ("inform(eng, fra, Support(pce(eng), pce(fra)))", "1-7", "Support", 18),
        ("propose(eng, fra, Agree([eng fra], pce(eng)))", "2-8", "propose", 1),
    ],
)
def test_a_refusal_names_the_first_construct_that_is_too_high(text, levels, construct, column):
    result = check(text, levels=parse_levels(levels))
    assert result["ok"] is False and result["kind"] == "level"
    assert (result["line"], result["column"]) == (1, column)
    assert result["message"].startswith(f"{construct} is a level-{CONSTRUCT_LEVELS[construct]} construct")
    assert format_levels(parse_levels(levels)) in result["message"]


def test_the_first_refused_construct_in_the_text_is_named():
    text = "inform(eng, fra,\n  Explain(pce(eng))\n  & Feel(eng, Sad))"
    with pytest.raises(LLevelError) as caught:
        check_levels(parse(text), parse_levels("1-4"), text)
    assert (caught.value.construct, caught.value.line, caught.value.column) == ("Explain", 2, 3)
    # Without the text there is no place to give: the highest refused construct is named.
    with pytest.raises(LLevelError) as caught:
        check_levels(parse(text), parse_levels("1-4"))
    assert (caught.value.construct, caught.value.line) == ("Explain", None)


def test_a_skipped_level_allows_the_levels_around_it():
    text = "propose(fra, eng, Commit(fra, eng, Do(hld(Unit(fra, Region(bre, coast))), (spr, 1902))), (fal, 1901))"
    assert check(text, levels=parse_levels("1-4,6")) == {"ok": True, "level": 6, "text": check(text)["text"]}


@pytest.mark.parametrize(
    ("spec", "levels"),
    [
        ("1-8", {1, 2, 3, 4, 5, 6, 7, 8}),
        ("3", {1, 2, 3}),
        ("1", {1}),
        ("1-4,6", {1, 2, 3, 4, 6}),
        ("1,3-5", {1, 3, 4, 5}),
        (" 2 - 3 , 8 ", {2, 3, 8}),
        ("5-5", {5}),
    ],
)
def test_parse_levels(spec, levels):
    assert parse_levels(spec) == levels


@pytest.mark.parametrize("spec", ["", "0", "9", "1-9", "4-2", "1,,2", "a", "1-", "-3", "1-2-3"])
def test_parse_levels_refuses_nonsense(spec):
    with pytest.raises(ValueError, match="levels are written like"):
        parse_levels(spec)


@given(st.sets(st.integers(1, 8), min_size=1))
def test_format_levels_is_read_back_by_parse_levels(levels):
    assert parse_levels(format_levels(levels)) == levels

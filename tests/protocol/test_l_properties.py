"""L, property-based: random ASTs print and parse back to themselves; random text and token
soup never raise anything but the language's own errors; the checks agree with the text."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import standard_map
from engine.maps import SEA
from protocol.l import (
    CONSTRUCT_LEVELS,
    Accept,
    Agree,
    Aly,
    And,
    Answer,
    Attack,
    Belief,
    Bld,
    Commit,
    Cto,
    Cvy,
    Deal,
    Desire,
    Dmz,
    Do,
    Drw,
    Dsb,
    Explain,
    Feel,
    Hld,
    Implies,
    Inform,
    LError,
    LLevelError,
    LOntologyError,
    Mto,
    Not,
    Obs,
    Pce,
    Propose,
    Query,
    Region,
    Reject,
    Rem,
    Rto,
    Seq,
    Slo,
    Sup,
    Support,
    TimeCmp,
    TimeVar,
    Turn,
    Unit,
    Unknown,
    Withdraw,
    Wve,
    check,
    check_levels,
    check_ontology,
    constructs,
    level,
    parse,
    to_text,
)
from protocol.l.ast import COMPARISONS, FEELINGS, REGION_TYPES, SEASONS

# The strategies nest deeply, and Hypothesis warns about the size of their repr: harmless.
pytestmark = pytest.mark.filterwarnings("ignore:Generating overly large repr")

M = standard_map()
POWERS = sorted(p.lower() for p in M.powers)
PROVINCES = sorted(M.locations[p].lower() for p in M.provinces)


def _region(location: str) -> tuple[str, str]:
    """The fleet region of a location where a fleet can be: ``STP/NC`` -> ``(stp, ncs)``."""
    province, _, coast = location.lower().partition("/")
    return province, coast + "s" if coast else "sea" if M.kind[M.location(province)] == SEA else "coast"


# Every region of the standard map, from where its armies and fleets can move.
REGIONS = sorted(
    {(M.locations[loc].lower(), "amy") for loc in M.provinces if M.army_moves[loc]}
    | {_region(M.locations[loc]) for loc in range(len(M.locations)) if M.fleet_moves[loc]}
)

any_name = st.from_regex(r"[a-z]{3}", fullmatch=True)


def _one_of(items: list | tuple) -> st.SearchStrategy:
    # sampled_from would repeat the whole list in the strategy's repr at every use.
    return st.integers(0, len(items) - 1).map(items.__getitem__)


def messages(valid: bool) -> st.SearchStrategy:
    """Random messages of every level, shaped as the slots of the grammar allow.

    ``valid``: names and regions from the standard map; otherwise any three letters,
    keywords such as ``sea`` and ``and`` included, and any region type.
    """
    power = _one_of(POWERS) if valid else any_name
    province = _one_of(PROVINCES) if valid else any_name
    powers = st.frozensets(power, min_size=1, max_size=3)
    region = _one_of(REGIONS).map(lambda r: Region(*r)) if valid else st.builds(Region, any_name, _one_of(REGION_TYPES))
    unit = st.builds(Unit, power, region)
    time = st.one_of(
        st.builds(Turn, st.sampled_from(SEASONS), st.integers(0, 999_999_999)),
        st.integers(0, 10**6).map(lambda i: TimeVar(f"t{i}")),
    )
    maybe_time = st.none() | time
    move = st.builds(Mto, unit, region)
    action = st.one_of(
        st.builds(Hld, unit),
        move,
        st.builds(Sup, unit, st.builds(Hld, unit) | move),
        st.builds(Rto, unit, region),
        st.builds(Dsb, unit),
        st.builds(Bld, unit),
        st.builds(Rem, unit),
        st.builds(Wve, power),
        st.builds(Cvy, unit, st.builds(Cto, unit, region)),
        st.builds(Cto, unit, region, st.lists(province, max_size=3).map(tuple)),
    )
    predicate = st.one_of(
        st.builds(Pce, powers),
        st.builds(Aly, powers, powers),
        st.builds(Dmz, powers, st.frozensets(province, min_size=1, max_size=3)),
        st.builds(Drw, powers),
        st.builds(Slo, power),
    )
    atom = st.one_of(
        predicate, st.builds(Do, action, maybe_time), st.builds(TimeCmp, time, st.sampled_from(COMPARISONS), time)
    )

    def operators(children: st.SearchStrategy) -> st.SearchStrategy:
        several = st.lists(children, min_size=2, max_size=3).map(tuple)
        return st.one_of(st.builds(Not, children), several.map(And), several.map(Seq))

    formula = st.recursive(atom, operators, max_leaves=4)
    commit = st.builds(Commit, power, powers, formula, maybe_time)
    deal = st.one_of(
        st.frozensets(commit, min_size=1, max_size=3).map(Deal), st.builds(Agree, powers, formula, maybe_time)
    )
    bformula = st.recursive(atom | deal, operators, max_leaves=4)
    message = st.deferred(lambda: illocution)

    def info_operators(children: st.SearchStrategy) -> st.SearchStrategy:
        return st.one_of(
            operators(children),
            st.builds(Implies, children, children),
            st.builds(Unknown, power, children, maybe_time),
            st.builds(Explain, children, maybe_time),
            st.builds(Attack, children, children),
            st.builds(Support, children, children),
            st.builds(Inform, power, powers, children, maybe_time),
        )

    info_atom = st.one_of(
        atom,
        deal,
        st.builds(Obs, power, powers, bformula, maybe_time),
        st.builds(Belief, power, bformula, maybe_time),
        st.builds(Desire, power, bformula, maybe_time),
        st.builds(Feel, power, st.sampled_from(FEELINGS), maybe_time),
    )
    info = st.recursive(info_atom, info_operators, max_leaves=5)
    illocution = st.one_of(
        *(st.builds(kind, power, powers, deal, maybe_time) for kind in (Propose, Accept, Reject)),
        st.builds(Withdraw, power, powers, maybe_time),
        *(st.builds(kind, power, powers, info, maybe_time) for kind in (Inform, Query, Answer)),
    )
    return message


ON_THE_MAP = messages(valid=True)
ANY_NAMES = messages(valid=False)
ANY = settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)


@ANY
@given(ANY_NAMES)
def test_printing_then_parsing_gives_the_message_back(message):
    text = to_text(message)
    assert parse(text) == message
    assert to_text(parse(text)) == text


@ANY
@given(ANY_NAMES, st.randoms(use_true_random=False))
def test_case_and_whitespace_do_not_matter(message, rnd):
    text = to_text(message)
    mangled = "".join(c.upper() if rnd.random() < 0.5 else c for c in text)
    mangled = re.sub(r"(?<=[,(\[]) ?", lambda _: rnd.choice(["", " ", "\n", "\t  "]), mangled)
    mangled = mangled.replace(" & ", rnd.choice([" and ", "∧", "&"])).replace("~", rnd.choice(["not ", "¬", "~ "]))
    assert parse(mangled) == message


@ANY
@given(ON_THE_MAP)
def test_messages_on_the_map_pass_the_ontology_and_have_their_level(message):
    text = to_text(message)
    result = check(text, m=M)
    assert result == {"ok": True, "level": level(message), "text": text}


@ANY
@given(ANY_NAMES)
def test_the_level_check_finds_in_the_text_each_construct_it_finds_in_the_ast(message):
    """Refusing each level in turn, the construct named is located in the text, at a token of it."""
    text = to_text(message)
    used = constructs(message)
    assert level(message) == max(CONSTRUCT_LEVELS[c] for c in used)
    for refused in {CONSTRUCT_LEVELS[c] for c in used}:
        try:
            check_levels(message, set(range(1, 9)) - {refused}, text)
        except LLevelError as e:
            assert e.construct_level == refused and e.construct in used
            assert e.line is not None and e.column is not None
        else:
            raise AssertionError(f"level {refused} was refused but the message passed")


@ANY
@given(ANY_NAMES)
def test_an_ontology_error_points_at_the_name_at_fault(message):
    text = to_text(message)
    try:
        check_ontology(message, M, text)
    except LOntologyError as e:
        assert e.line == 1 and e.column is not None
        assert text[e.column - 1 : e.column - 1 + len(e.name)] == e.name
        if "does not fit" in e.message:
            assert e.name in REGION_TYPES
        elif "not a province" in e.message:
            assert e.name in POWERS and e.name not in PROVINCES
        else:
            assert e.name not in POWERS


VOCABULARY = (
    "propose accept reject withdraw inform query answer Commit Agree Do Obs Belief Desire Unknown Feel Explain "
    "Attack Support Unit Region pce aly dmz drw slo hld mto sup rto dsb bld rem wve cvy cto amy sea coast ncs "
    "spr fal Sad Happy eng fra par xyz and not t0 t1 1901 ( ) [ ] , ; & ~ -> → ¬ ∧ > < >= = # 3x é"
).split()


@ANY
@given(st.lists(st.sampled_from(VOCABULARY), max_size=40), st.sampled_from(["", " ", "\n"]))
def test_token_soup_raises_nothing_but_lerror(tokens, separator):
    text = separator.join(tokens)
    try:
        message = parse(text)
    except LError as e:
        assert e.kind == "syntax" and e.line >= 1 and e.column >= 1
    else:
        assert parse(to_text(message)) == message
    result = check(text)
    assert set(result) in ({"ok", "level", "text"}, {"ok", "kind", "line", "column", "message"})


@ANY
@given(st.text(max_size=200))
def test_random_text_raises_nothing_but_lerror(text):
    try:
        parse(text)
    except LError as e:
        assert e.kind == "syntax"
        assert 1 <= e.line <= text.count("\n") + 1
    assert check(text)["ok"] in (True, False)


@ANY
@given(ANY_NAMES, st.integers(0, 10**6), st.text(min_size=1, max_size=3))
def test_damaged_messages_raise_nothing_but_lerror(message, where, junk):
    text = to_text(message)
    cut = where % (len(text) + 1)
    for damaged in (text[:cut], text[:cut] + junk + text[cut:], text[:cut] + text[cut + 1 :]):
        try:
            parse(damaged)
        except LError as e:
            assert e.kind == "syntax"

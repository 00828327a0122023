"""The DAIDE token table and the text, token and binary forms of a message (protocol.daide.tokens)."""

from __future__ import annotations

import doctest
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import standard_map
from engine.maps import COAST, LAND, SEA
from protocol.daide import tokens as tokens_module
from protocol.daide.tokens import (
    MAX_INTEGER,
    MIN_INTEGER,
    STANDARD,
    Category,
    DaideTokenError,
    ProvinceType,
    Representation,
    Token,
    bytes_to_tokens,
    category,
    decode_string,
    encode_string,
    integer_token,
    integer_value,
    is_integer,
    is_power,
    is_province,
    is_reserved,
    is_supply_centre,
    is_text,
    province_type,
    scan_text,
    text_to_tokens,
    tokens_to_bytes,
    tokens_to_text,
)

# The token numbers of the two DAIDE documents, extracted once (leaving out what the documents
# comment out, which is not part of the specification); the file's "source" field says where from.
REFERENCE = Path(__file__).resolve().parents[1] / "data" / "daide-tokens.json"


def _reference(part: str) -> Any:
    data = json.loads(REFERENCE.read_text(encoding="utf-8"))
    return data[part]


def test_doctests() -> None:
    result = doctest.testmod(tokens_module)
    assert result.attempted > 10
    assert result.failed == 0


# --- the table ---------------------------------------------------------------------------------------------


def test_table_is_chapter_4_of_the_protocol_document() -> None:
    listed = {name: int(number, 16) for name, number in _reference("protocol_chapter_4").items()}
    assert all(re.fullmatch(r"[A-Z]{3}", name) for name in listed)
    assert len(listed) > 180
    ours = {t.name: int(t) for t in Token if t not in (Token.LST, Token.SEL)}
    assert ours == listed


def test_table_agrees_with_appendix_a_of_the_syntax_document() -> None:
    live = {name: [int(n, 16) for n in numbers] for name, numbers in _reference("syntax_appendix_a").items()}
    assert not set(live) & set(_reference("syntax_appendix_a_removed"))
    assert len(live) > 180
    for name, numbers in live.items():
        if name == "VAR":  # its syntax is commented out of the document
            assert name not in Token.__members__
            continue
        assert Token[name] in numbers, name
    # The protocol document still lists these two, which Appendix A marks as removed.
    assert set(Token.__members__) - set(live) == {"BPR", "FLD"}
    assert {"BPR", "FLD"} <= set(_reference("syntax_appendix_a_removed"))


def test_example_message_has_the_numbers_of_appendix_a() -> None:
    tokens = text_to_tokens("SUB (SPR 1901) ((ENG FLT LON) MTO NTH)")
    expected = (0x4818, 0x4000, 0x4700, 1901, 0x4001, 0x4000, 0x4000, 0x4101, 0x4201, 0x553A, 0x4001)
    assert tokens == (*expected, 0x4323, 0x521C, 0x4001)
    assert tokens_to_bytes(tokens) == bytes.fromhex(
        "4818 4000 4700 076D 4001 4000 4000 4101 4201 553A 4001 4323 521C 4001"
    )


def test_eastern_mediterranean_is_eas() -> None:
    assert text_to_tokens("EAS") == (0x5213,)
    with pytest.raises(DaideTokenError) as error:
        text_to_tokens("(ION EMS)")
    assert error.value.index == 5


def test_standard_provinces_match_the_engine_map() -> None:
    m = standard_map()
    provinces = STANDARD.provinces
    assert sorted(p & 0xFF for p in provinces) == list(range(75))
    assert {STANDARD.name(p) for p in provinces} == {m.locations[p] for p in m.provinces}
    for token in provinces:
        p = m.location(STANDARD.name(token))
        kind = province_type(token)
        assert is_supply_centre(token) == m.is_supply_center[p], STANDARD.name(token)
        assert (kind == ProvinceType.SEA) == (m.kind[p] == SEA)
        assert (kind == ProvinceType.INLAND) == (m.kind[p] == LAND)
        assert (kind in (ProvinceType.COASTAL, ProvinceType.BICOASTAL)) == (m.kind[p] == COAST)
        assert (kind == ProvinceType.BICOASTAL) == (len(m.coasts[p]) > 1)
        assert category(token) == 0x50 | kind << 1 | is_supply_centre(token)


def test_standard_powers() -> None:
    names = [STANDARD.name(p) for p in STANDARD.powers]
    assert names == ["AUS", "ENG", "FRA", "GER", "ITA", "RUS", "TUR"]
    assert set(names) == set(standard_map().powers)
    assert all(is_power(p) and not is_province(p) for p in STANDARD.powers)


def test_order_tokens_tell_their_phase() -> None:
    movement = {Token.CTO, Token.CVY, Token.HLD, Token.MTO, Token.SUP, Token.VIA}
    retreat = {Token.DSB, Token.RTO}
    adjustment = {Token.BLD, Token.REM, Token.WVE}
    orders = {t for t in Token if category(t) == Category.ORDER}
    assert orders == movement | retreat | adjustment
    for token in orders:
        phase_bits = (token & 0xE0) >> 5
        assert phase_bits == (1 if token in movement else 2 if token in retreat else 4)


def test_categories() -> None:
    assert is_text(0x4B41) and not is_text(0x4A41)
    assert is_reserved(0x5800) and is_reserved(0x5FFF) and not is_reserved(0x5700) and not is_reserved(0x6000)
    assert is_integer(0) and is_integer(0x3FFF) and not is_integer(0x4000)
    with pytest.raises(DaideTokenError):
        province_type(Token.ENG)
    with pytest.raises(DaideTokenError):
        is_supply_centre(Token.SUB)


# --- integers and text -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "token"), [(0, 0), (1901, 1901), (8191, 0x1FFF), (-1, 0x3FFF), (-8192, 0x2000), (-2, 0x3FFE)]
)
def test_integer_encoding(value: int, token: int) -> None:
    assert integer_token(value) == token
    assert integer_value(token) == value
    assert text_to_tokens(str(value)) == (token,)
    assert tokens_to_text((token,)) == str(value)


@pytest.mark.parametrize("value", [8192, -8193, 100000])
def test_integers_out_of_range(value: int) -> None:
    with pytest.raises(DaideTokenError):
        integer_token(value)
    with pytest.raises(DaideTokenError) as error:
        text_to_tokens(f"MIS ({value})")
    assert error.value.index == 5


def test_integer_value_of_a_non_integer() -> None:
    with pytest.raises(DaideTokenError):
        integer_value(Token.BRA)


def test_text_is_utf8_octets() -> None:
    assert text_to_tokens("'Ab'") == (0x4B41, 0x4B62)
    assert encode_string("é") == (0x4BC3, 0x4BA9)
    assert decode_string((0x4BC3, 0x4BA9)) == "é"
    assert tokens_to_text(text_to_tokens("('naïve ☃')")) == "('naïve ☃')"
    with pytest.raises(DaideTokenError) as error:
        tokens_to_text((Token.BRA, 0x4B41, 0x4BC3, Token.KET))
    assert error.value.index == 2
    with pytest.raises(DaideTokenError) as error:
        decode_string((0x4B41, Token.ENG))
    assert error.value.index == 1


def test_quotes_inside_text_are_doubled() -> None:
    assert text_to_tokens("'it''s'") == encode_string("it's")
    assert tokens_to_text(encode_string("''")) == "''''''"
    assert text_to_tokens("''''") == encode_string("'")
    assert text_to_tokens("ADM ('') ('x')") == (Token.ADM, Token.BRA, Token.KET, Token.BRA, 0x4B78, Token.KET)


@pytest.mark.parametrize(("text", "index"), [("NME ('bot)", 5), ("'it''", 0), ("'''", 0), ("'", 0)])
def test_unterminated_text(text: str, index: int) -> None:
    with pytest.raises(DaideTokenError) as error:
        text_to_tokens(text)
    assert error.value.index == index


# --- the text form -----------------------------------------------------------------------------------------


def test_tokens_may_touch_brackets_and_names_ignore_case() -> None:
    canonical = "SUB (SPR 1901) ((ENG FLT LON) MTO NTH)"
    for text in ["sub(spr 1901)((eng flt lon)mto nth)", " SUB ( SPR  1901 )\t(( ENG FLT LON )MTO NTH) \n"]:
        assert tokens_to_text(text_to_tokens(text)) == canonical


@pytest.mark.parametrize(
    ("text", "index"),
    [
        ("ENGFLT", 0),
        ("SUB (ENG FLTLON)", 9),
        ("NME 'a''b'c", 10),
        ("NME 'a'ENG", 7),
        ("1901SPR", 0),
        ("SPR -X", 4),
        ("HLO #", 4),
        ("HLO [ENG]", 4),
        ("XYZ", 0),
        ("NOW (SPR 19-01)", 11),
    ],
)
def test_bad_text_gives_the_index_of_the_bad_character(text: str, index: int) -> None:
    with pytest.raises(DaideTokenError) as error:
        text_to_tokens(text)
    assert error.value.index == index


def test_scan_text_gives_offsets() -> None:
    assert scan_text("HLO (ENG) 'ab'") == (
        (Token.HLO, 0),
        (Token.BRA, 4),
        (Token.ENG, 5),
        (Token.KET, 8),
        (0x4B61, 10),
        (0x4B62, 10),
    )


def test_canonical_spacing_of_unbalanced_and_empty_brackets() -> None:
    assert tokens_to_text((Token.BRA, Token.BRA, Token.KET, Token.KET, Token.KET, Token.HLO)) == "(())) HLO"
    assert tokens_to_text(text_to_tokens("(ENG FLT NTH MRT ())")) == "(ENG FLT NTH MRT ())"
    assert tokens_to_text(()) == ""


@pytest.mark.parametrize(
    ("tokens", "index"),
    [((Token.HLO, 0x4830), 1), ((0x10000,), 0), ((Token.HLO, -1), 1), ((0x5800,), 0), ((Token.SUB, "SUB"), 1)],
)
def test_tokens_without_a_text_form(tokens: tuple, index: int) -> None:
    with pytest.raises(DaideTokenError) as error:
        tokens_to_text(tokens)
    assert error.value.index == index


# --- the binary form ---------------------------------------------------------------------------------------


def test_bytes_are_big_endian_pairs() -> None:
    assert tokens_to_bytes((Token.HLO, 0x3FFF)) == b"\x48\x04\x3f\xff"
    assert bytes_to_tokens(b"\x48\x04\x3f\xff") == (0x4804, 0x3FFF)
    assert bytes_to_tokens(b"") == ()


def test_odd_bytes() -> None:
    with pytest.raises(DaideTokenError) as error:
        bytes_to_tokens(b"\x48\x04\x40")
    assert error.value.index == 2


@pytest.mark.parametrize(("tokens", "index"), [((1, 0x10000), 1), ((-1,), 0), ((Token.HLO, 2, None), 2)])
def test_tokens_without_a_binary_form(tokens: tuple, index: int) -> None:
    with pytest.raises(DaideTokenError) as error:
        tokens_to_bytes(tokens)
    assert error.value.index == index


# --- every example of the syntax document ------------------------------------------------------------------

EXAMPLES = [
    "SUB (SPR 1901) ((ENG FLT LON) MTO NTH)",
    "MAP ('standard')",
    "HLO (ENG) (1234) ((LVL 20) (MTL 1200))",
    "SCO (AUS BUD TRI VIE) (ENG LVP EDI LON) (FRA BRE MAR PAR) (GER KIE BER MUN) (ITA ROM NAP VEN) "
    "(RUS STP MOS WAR SEV) (TUR ANK CON SMY) (UNO NWY SWE DEN HOL BEL SPA POR TUN GRE SER RUM BUL)",
    "NOW (SPR 1901) (AUS FLT TRI) (AUS AMY BUD) (AUS AMY VIE) (ENG FLT LON)",
    "(RUS FLT (STP SCS))",
    "(ENG FLT NTH MRT (LON YOR EDI NWG))",
    "(ENG FLT NTH MRT ())",
    "(TUR FLT CON MRT (BLA SMY (BUL ECS) (BUL SCS)))",
    "HST (SPR 1901)",
    "MDF (AUS ENG FRA GER ITA RUS TUR)",
    "(ANK (FLT ARM BLA CON) (AMY CON SMY ARM))",
    "(ADR (FLT ION ALB TRI VEN APU))",
    "(CON (AMY BUL SMY ANK) (FLT BLA (BUL ECS) (BUL SCS) AEG SMY ANK))",
    "(BUL (AMY GRE SER RUM CON) ((FLT ECS) RUM BLA CON) ((FLT SCS) CON AEG GRE))",
    "(BOH (AMY TYR MUN SIL GAL VIE))",
    "SUB ((ENG AMY LVP) HLD) ((ENG FLT LON) MTO NTH) ((ENG FLT EDI) SUP (ENG FLT LON) MTO NTH)",
    "SUB ((ENG FLT BAR) MTO (STP NCS)) ((ENG FLT NWY) SUP (ENG FLT BAR) MTO STP)",
    "SUB ((ITA AMY TUN) CTO SYR VIA (ION EMS)) ((ITA FLT ION) CVY (ITA AMY TUN) CTO SYR) "
    "((ITA FLT EMS) CVY (ITA AMY TUN) CTO SYR)",
    "SUB ((ENG AMY YOR) CTO NWY VIA (NTH)) ((ENG FLT NTH) CVY (ENG AMY YOR) CTO NWY) "
    "((ENG FLT NWG) SUP (ENG AMY YOR) MTO NWY)",
    "SUB ((ITA FLT NAP) BLD)",
    "SUB ((RUS FLT GOB) REM)",
    "ORD (WIN 1901) (RUS WVE) (SUC)",
    "HUH (SUB ERR (SPR 1901))",
    "PRN (SUB (SPR 1901)",
    "SND (FRA) (HUH (ERR PRP (PCE (FRA ENG))))",
    "SND (FRA) (TRY ())",
    "PRP (PCE (ENG FRA))",
    "PRP (OCC (ENG FLT BEL))",
    "PRP (OCC (ENG UNT BEL))",
    "PRP (ORR ((FRA AMY PAR) MTO PIC) (AND ((FRA AMY PAR) MTO BUR) ((GER AMY MUN) MTO BUR)))",
    "CHO (2 2) (SCD (ENG NWY)) (SCD (ENG DEN)) (SCD (ENG SWE))",
    "IFF (NOT (XDO ((RUS FLT (STP NCS)) BLD))) THN (PRP (FOR (SPR 1902) (XDO ((ENG FLT NWY) SUP (RUS FLT GOB) "
    "MTO SWE)))) ELS (INS (FOR (SPR 1902) (XDO ((ENG FLT NWY) SUP (GER FLT DEN) MTO SWE))))",
    "TRY (PRP PCE ALY VSS DRW SLO NOT NAR YES REJ BWX CCL FCT XDO DMZ AND ORR SCD OCC CHO INS QRY THK IDK SUG WHT "
    "HOW EXP SRY FOR IFF THN ELS XOY YDO FRM FWD BCC SND POB WHY)",
    "LST ('game1') (3 NME) ('standard') ((LVL 0))",
    "SEL ('game1')",
    "NME ('Bot') ('1.0')",
    "ADM ('Server') ('I''m going down')",
    "MIS (-2)",
]


@pytest.mark.parametrize("example", EXAMPLES)
def test_document_examples_round_trip(example: str) -> None:
    text = example.replace("EMS", "EAS")
    tokens = text_to_tokens(text)
    assert tokens_to_text(tokens) == text
    data = tokens_to_bytes(tokens)
    assert len(data) == 2 * len(tokens)
    assert bytes_to_tokens(data) == tokens


def test_removed_tokens_are_unknown() -> None:
    # The syntax document's puppet example uses PPT, which revision 14 removed.
    text = "IFF (SCD (AUS VIE BUD TRI)) THN (FOR ((SPR 1904) (WIN 1908)) (PPT (AUS TUR) (XDO FRM SND)))"
    with pytest.raises(DaideTokenError) as error:
        text_to_tokens(text)
    assert error.value.index == text.index("PPT")
    for name in ["NST", "IOU", "UOM", "WRT", "EPP", "PRB", "PRF", "PNG"]:
        with pytest.raises(DaideTokenError):
            text_to_tokens(name)


# --- representations ---------------------------------------------------------------------------------------

VARIANT = ((0x4100, "ONE"), (0x4101, "TWO"), (0x5000, "HOM"), (0x5501, "AWA"), (0x5702, "BI1"))


def test_variant_representation_replaces_the_standard_powers_and_provinces() -> None:
    rep = Representation(VARIANT)
    assert rep.powers == (0x4100, 0x4101)
    assert rep.provinces == (0x5000, 0x5501, 0x5702)
    assert text_to_tokens("NOW (SPR 1901) (ONE FLT (bi1 NCS))", rep)[6:10] == (0x4100, Token.FLT, Token.BRA, 0x5702)
    assert tokens_to_text((Token.SCO, Token.BRA, 0x4101, 0x5501, Token.KET), rep) == "SCO (TWO AWA)"
    with pytest.raises(DaideTokenError):
        text_to_tokens("ENG", rep)
    with pytest.raises(DaideTokenError):
        tokens_to_text((Token.LON,), rep)
    assert rep == Representation(VARIANT) and hash(rep) == hash(Representation(VARIANT))


def test_a_variant_may_reuse_standard_names() -> None:
    rep = Representation(((0x4100, "ENG"), (0x5000, "LON")))
    assert text_to_tokens("ENG LON", rep) == (0x4100, 0x5000)


@pytest.mark.parametrize(
    ("entries", "index"),
    [
        (((0x4200, "ONE"),), 0),  # a unit type
        (((0x4100, "ONE"), (0x5800, "TWO")), 1),  # reserved category
        (((0x4100, "ONE"), (0x4100, "TWO")), 1),  # the same token twice
        (((0x4100, "ONE"), (0x4101, "ONE")), 1),  # the same name twice
        (((0x4100, "SUB"),), 0),  # the name of a command
        (((0x4100, "on"),), 0),  # lower case
        (((0x4100, "ONES"),), 0),  # four characters
        (((0x4100, "123"),), 0),  # read as an integer
        (((0x4101, "ONE"),), None),  # powers numbered from 1
        (((0x5000, "ONE"), (0x5102, "TWO")), None),  # provinces 0 and 2
    ],
)
def test_representation_rules(entries: tuple, index: int | None) -> None:
    with pytest.raises(DaideTokenError) as error:
        Representation(entries)
    assert error.value.index == index


# --- properties ---------------------------------------------------------------------------------------------

named = st.sampled_from(list(Token))
integers = st.integers(MIN_INTEGER, MAX_INTEGER).map(integer_token)
strings = st.text(min_size=1, max_size=8).map(encode_string)
pieces = st.one_of(named.map(lambda t: (t,)), integers.map(lambda t: (t,)), strings)
token_lists = st.lists(pieces, max_size=40).map(lambda ps: tuple(t for p in ps for t in p))


@given(token_lists)
def test_tokens_text_and_bytes_round_trip(tokens: tuple[int, ...]) -> None:
    text = tokens_to_text(tokens)
    assert text_to_tokens(text) == tokens
    assert tokens_to_text(text_to_tokens(text)) == text
    assert bytes_to_tokens(tokens_to_bytes(tokens)) == tokens


def _check_text_soup(text: str) -> None:
    try:
        tokens = text_to_tokens(text)
    except DaideTokenError as error:
        assert error.index is not None and 0 <= error.index < len(text)
    else:
        assert text_to_tokens(tokens_to_text(tokens)) == tokens


@given(st.text(max_size=60))
def test_text_soup_raises_only_token_errors(text: str) -> None:
    _check_text_soup(text)


@given(st.text(alphabet="()' ABEGLNORSTUW0129-", max_size=40))
def test_token_like_text_soup_raises_only_token_errors(text: str) -> None:
    _check_text_soup(text)


@given(st.lists(st.integers(0, 0xFFFF), max_size=30).map(tuple))
def test_token_soup_raises_only_token_errors(tokens: tuple[int, ...]) -> None:
    try:
        text = tokens_to_text(tokens)
    except DaideTokenError as error:
        assert error.index is not None and 0 <= error.index < len(tokens)
    else:
        assert text_to_tokens(text) == tokens
    assert bytes_to_tokens(tokens_to_bytes(tokens)) == tokens


@given(st.binary(max_size=64))
def test_byte_soup_raises_only_token_errors(data: bytes) -> None:
    try:
        tokens = bytes_to_tokens(data)
    except DaideTokenError as error:
        assert len(data) % 2 == 1 and error.index == len(data) - 1
    else:
        assert tokens_to_bytes(tokens) == data


@st.composite
def representations(draw: st.DrawFn) -> Representation:
    powers = draw(st.integers(0, 10))
    provinces = draw(st.integers(0, 40))
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    names = draw(
        st.lists(
            st.text(alphabet, min_size=3, max_size=3).filter(lambda n: not n.isdigit() and n not in Token.__members__),
            min_size=powers + provinces,
            max_size=powers + provinces,
            unique=True,
        )
    )
    categories = draw(st.lists(st.integers(0x50, 0x57), min_size=provinces, max_size=provinces))
    tokens = [0x4100 | n for n in range(powers)] + [c << 8 | n for n, c in enumerate(categories)]
    order = draw(st.permutations(range(len(tokens))))
    return Representation(tuple((tokens[i], names[i]) for i in order))


@given(representations(), st.data())
def test_variant_tokens_round_trip(rep: Representation, data: st.DataObject) -> None:
    own = [t for t, _ in rep.entries]
    chosen = data.draw(st.lists(st.sampled_from([*own, Token.BRA, Token.KET, Token.AMY, 5])))
    tokens = tuple(chosen)
    assert text_to_tokens(tokens_to_text(tokens, rep), rep) == tokens

"""The DAIDE message syntax: the examples of the documents, typed messages, levels and errors."""

from __future__ import annotations

import doctest
import re
from importlib import resources

import pytest

import protocol.daide.messages as messages_module
import protocol.daide.orders as orders_module
import protocol.daide.parser as parser_module
from protocol.daide.messages import (
    GAME_STATUSES,
    KEYWORDS,
    NOTES,
    PRESS_TOKENS,
    TOKEN_NAMES,
    Aly,
    And,
    Ccd,
    Cho,
    CoastAdjacency,
    Drw,
    Exp,
    Fct,
    For,
    Frm,
    Gof,
    Hlo,
    Hold,
    HomeCentres,
    Huh,
    Idk,
    Iff,
    Location,
    LooseUnit,
    Mdf,
    Move,
    MoveByConvoy,
    MrtUnit,
    Nar,
    Nme,
    Not,
    Now,
    Ord,
    Orr,
    Ownership,
    Pce,
    Prn,
    ProvinceAdjacency,
    Prp,
    Qry,
    Scd,
    Sco,
    Snd,
    Sub,
    SupportMove,
    Thk,
    Tme,
    Try,
    Turn,
    DaideUnit,
    VariantOption,
    Waive,
    Why,
    Xdo,
    Yes,
    to_text,
)
from protocol.daide.parser import (
    DaideParser,
    DaideSyntaxError,
    HuhError,
    PrnError,
    check,
    parse,
    parse_press,
    press_level,
)
from protocol.daide.tokens import Token

# --- the examples of the syntax document ------------------------------------------------------------

# Every complete message the document writes out (EMS read as EAS). Examples the document gives as
# fragments or with "..." are completed the least possible way; the level is the lowest syntax level
# at which each is legal.
DOCUMENT_MESSAGES = [
    # level 0, (i) MDF: the example of the document without its "..."
    (
        "MDF (AUS ENG FRA GER ITA RUS TUR) (((AUS TRI BUD VIE) (ENG LON LVP EDI) (UNO POR SPA BEL)) "
        "(ADR AEG ALB APU)) ((ANK (FLT ARM BLA CON) (AMY CON SMY ARM)) (ADR (FLT ION ALB TRI VEN APU)) "
        "(CON (AMY BUL SMY ANK) (FLT BLA (BUL ECS) (BUL SCS) AEG SMY ANK)) "
        "(BUL (AMY GRE SER RUM CON) ((FLT ECS) RUM BLA CON) ((FLT SCS) CON AEG GRE)) "
        "(BOH (AMY TYR MUN SIL GAL VIE)))",
        0,
    ),
    ("HLO (ENG) (1234) ((LVL 20) (MTL 1200))", 0),
    (
        "SCO (AUS BUD TRI VIE) (ENG LVP EDI LON) (FRA BRE MAR PAR) (GER KIE BER MUN) (ITA ROM NAP VEN) "
        "(RUS STP MOS WAR SEV) (TUR ANK CON SMY) (UNO NWY SWE DEN HOL BEL SPA POR TUN GRE SER RUM BUL)",
        0,
    ),
    ("NOW (SPR 1901) (AUS FLT TRI) (AUS AMY BUD) (AUS AMY VIE) (ENG FLT LON)", 0),
    # the unit fragments of NOW and of its retreat form
    (
        "NOW (SUM 1901) (RUS FLT (STP SCS)) (ENG FLT NTH MRT (LON YOR EDI NWG)) (ENG FLT NTH MRT ()) "
        "(TUR FLT CON MRT (BLA SMY (BUL ECS) (BUL SCS)))",
        0,
    ),
    ("HST (SPR 1901)", 0),
    ("SUB ((ENG AMY LVP) HLD) ((ENG FLT LON) MTO NTH) ((ENG FLT EDI) SUP (ENG FLT LON) MTO NTH)", 0),
    ("SUB ((ENG FLT BAR) MTO (STP NCS)) ((ENG FLT NWY) SUP (ENG FLT BAR) MTO STP)", 0),
    (
        "SUB ((ITA AMY TUN) CTO SYR VIA (ION EAS)) ((ITA FLT ION) CVY (ITA AMY TUN) CTO SYR) "
        "((ITA FLT EAS) CVY (ITA AMY TUN) CTO SYR)",
        0,
    ),
    (
        "SUB ((ENG AMY YOR) CTO NWY VIA (NTH)) ((ENG FLT NTH) CVY (ENG AMY YOR) CTO NWY) "
        "((ENG FLT NWG) SUP (ENG AMY YOR) MTO NWY)",
        0,
    ),
    ("SUB ((ITA FLT NAP) BLD)", 0),
    ("SUB ((RUS FLT GOB) REM)", 0),
    ("ORD (WIN 1901) (RUS WVE) (SUC)", 0),
    # replies and commands named in the text, with their placeholders filled in
    ("LST", 0),
    ("YES (LST)", 0),
    ("REJ (LST ('gamename'))", 0),
    ("SEL ('gamename')", 0),
    ("YES (SEL ('gamename'))", 0),
    ("REJ (SEL)", 0),
    ("NME ('name') ('version')", 0),
    ("YES (NME ('name') ('version'))", 0),
    ("REJ (NME ('name') ('version'))", 0),
    ("OBS ('name') ('version')", 0),
    ("YES (OBS ('name') ('version'))", 0),
    ("YES (OBS)", 0),
    ("IAM (ENG) (1234)", 0),
    ("YES (IAM (ENG) (1234))", 0),
    ("REJ (IAM (ENG) (1234))", 0),
    ("MAP ('standard')", 0),
    ("MAP", 0),
    ("YES (MAP ('standard'))", 0),
    ("REJ (MAP ('standard'))", 0),
    ("MDF", 0),
    ("HLO", 0),
    ("REJ (HLO)", 0),
    ("SCO", 0),
    ("NOW", 0),
    ("HST", 0),
    ("REJ (HST (SPR 1901))", 0),
    ("REJ (HST)", 0),
    ("SUB (SPR 1901) ((ENG FLT LON) MTO NTH)", 0),
    ("REJ (SUB (SPR 1901) ((ENG FLT LON) MTO NTH))", 0),
    ("THX ((ENG FLT LON) MTO NTH) (MBV)", 0),
    ("THX ((ENG AMY LON) MTO NTH) (FAR)", 0),
    ("NOT (SUB ((ENG FLT LON) MTO NTH))", 0),
    ("YES (NOT (SUB ((ENG FLT LON) MTO NTH)))", 0),
    ("REJ (NOT (SUB ((ENG FLT LON) MTO NTH)))", 0),
    ("NOT (SUB)", 0),
    ("YES (NOT (SUB))", 0),
    ("MIS (ENG FLT LON) (ENG AMY LVP)", 0),
    ("MIS (ENG FLT NTH MRT (LON YOR EDI NWG))", 0),
    ("MIS (-2)", 0),
    ("MIS (1)", 0),
    ("MIS", 0),
    ("REJ (MIS)", 0),
    ("NOT (GOF)", 0),
    ("YES (NOT (GOF))", 0),
    ("REJ (NOT (GOF))", 0),
    ("GOF", 0),
    ("YES (GOF)", 0),
    ("REJ (GOF)", 0),
    ("ORD (SPR 1901) ((ENG FLT LON) MTO NTH) (SUC)", 0),
    ("ORD (SPR 1901) ((ENG FLT NTH) HLD) (RET)", 0),
    ("ORD (SPR 1901) ((ENG FLT LON) MTO NTH) (BNC RET)", 0),
    ("ORD", 0),
    ("REJ (ORD)", 0),
    ("SVE ('gamename')", 0),
    ("YES (SVE ('gamename'))", 0),
    ("REJ (SVE ('gamename'))", 0),
    ("LOD ('gamename')", 0),
    ("REJ (LOD ('gamename'))", 0),
    ("OFF", 0),
    ("TME (60)", 0),
    ("YES (TME (60))", 0),
    ("REJ (TME (60))", 0),
    ("NOT (TME (60))", 0),
    ("NOT (TME)", 0),
    ("YES (NOT (TME (60)))", 0),
    ("TME", 0),
    ("REJ (TME)", 0),
    ("PRN (SUB ((ENG AMY LVP) HLD)", 0),
    ("HUH (SUB ((ENG AMY LVP) ERR XYZ))", 0),
    ("CCD (ENG)", 0),
    ("NOT (CCD (ENG))", 0),
    ("CCD (ENG) (SPR 1901)", 0),
    ("ADM ('name') ('message')", 0),
    ("REJ (ADM ('name') ('message'))", 0),
    ("SLO (ENG)", 0),
    ("DRW", 0),
    ("YES (DRW)", 0),
    ("REJ (DRW)", 0),
    ("NOT (DRW)", 0),
    ("YES (NOT (DRW))", 0),
    ("REJ (NOT (DRW))", 0),
    ("SMR (SPR 1901) (ENG ('name') ('version') 5) (FRA ('name') ('version') 0 1905)", 0),
    ("SMR", 0),
    ("REJ (SMR)", 0),
    # level 10
    ("HLO (ENG) (1234) ((LVL 10) (MTL 1200) (PDA) (NPR) (NPB) (PTL 60))", 10),
    ("DRW (ENG FRA GER)", 10),
    ("YES (DRW (ENG FRA GER))", 10),
    ("REJ (DRW (ENG FRA GER))", 10),
    ("NOT (DRW (ENG FRA GER))", 10),
    ("SND (FRA GER) (PRP (PCE (ENG FRA GER)))", 10),
    ("SND (SPR 1901) (FRA GER) (PRP (PCE (ENG FRA GER)))", 10),
    ("CCD (FRA) (SND (FRA GER) (PRP (PCE (ENG FRA GER))))", 10),
    ("CCD (FRA) (SND (SPR 1901) (FRA GER) (PRP (PCE (ENG FRA GER))))", 10),
    ("OUT (FRA) (SND (FRA GER) (PRP (PCE (ENG FRA GER))))", 10),
    ("HUH (SND (FRA GER) (ERR PRP (PCE (ENG FRA GER))))", 0),
    ("REJ (SND (SPR 1901) (FRA GER) (PRP (PCE (ENG FRA GER))))", 10),
    ("YES (SND (FRA GER) (PRP (PCE (ENG FRA GER))))", 10),
    ("FRM (ENG) (FRA GER) (PRP (PCE (ENG FRA GER)))", 10),
    ("SND (ENG) (HUH (ERR PRP (PCE (ENG FRA))))", 10),
    ("SND (ENG) (TRY ())", 10),
    ("SND (ENG) (TRY (PRP PCE ALY VSS DRW SLO NOT NAR YES REJ BWX CCL FCT XDO DMZ AND ORR SCD OCC CHO))", 10),
    # level 50, with the arrangements of the document's examples given as XDO
    (
        "SND (GER) (PRP (ORR (XDO ((FRA AMY PAR) MTO PIC)) (AND (XDO ((FRA AMY PAR) MTO BUR)) "
        "(XDO ((GER AMY MUN) MTO BUR)))))",
        50,
    ),
    ("SND (ENG) (PRP (CHO (2 2) (SCD (ENG NWY)) (SCD (ENG DEN)) (SCD (ENG SWE))))", 50),
    # level 40
    ("SND (ENG) (PRP (OCC (ENG FLT BEL)))", 40),
    ("SND (ENG) (PRP (OCC (ENG UNT BEL)))", 40),
    # level 100
    (
        "SND (ENG) (IFF (NOT (XDO ((RUS FLT (STP NCS)) BLD))) THN (PRP (FOR (SPR 1902) (XDO ((ENG FLT NWY) SUP "
        "(RUS FLT GOB) MTO SWE)))) ELS (INS (FOR (SPR 1902) (XDO ((ENG FLT NWY) SUP (GER FLT DEN) MTO SWE)))))",
        100,
    ),
    # level 80: after YES or BWX, "it should be common for the next message to be INS (NOT (PCE ...))"
    ("SND (ENG) (INS (NOT (PCE (ENG FRA))))", 60),
]

# Messages the document shows that its own grammar refuses, with where ERR goes.
DOCUMENT_MISTAKES = [
    # PRF is in a comment of the document, "not yet accepted" into DAIDE
    ("PRF (FRA) (ENG TUR) (GER)", "HUH (ERR PRF (FRA) (ENG TUR) (GER))"),
    # the level 50 example writes orders where arrangements go (XDO is missing)
    (
        "SND (GER) (PRP (ORR ((FRA AMY PAR) MTO PIC) (AND ((FRA AMY PAR) MTO BUR) ((GER AMY MUN) MTO BUR))))",
        "HUH (SND (GER) (PRP (ORR (ERR (FRA AMY PAR) MTO PIC) (AND ((FRA AMY PAR) MTO BUR) ((GER AMY MUN) MTO BUR)))))",
    ),
    # the level 110 example puts an arrangement after THN, and uses PPT, which was removed
    (
        "SND (AUS) (IFF (SCD (AUS VIE BUD TRI)) THN (FOR ((SPR 1904) (WIN 1908)) (PPT (AUS TUR) (XDO FRM SND))))",
        "HUH (SND (AUS) (IFF (SCD (AUS VIE BUD TRI)) THN (ERR FOR ((SPR 1904) (WIN 1908)) (PPT (AUS TUR) (XDO FRM SND)))))",
    ),
]


@pytest.mark.parametrize(("text", "level"), DOCUMENT_MESSAGES)
def test_document_examples_parse_print_back_and_have_their_level(text: str, level: int) -> None:
    message = parse(text)
    assert to_text(message) == text
    assert str(message) == text
    assert parse(to_text(message)) == message
    assert press_level(message) == level


@pytest.mark.parametrize(("text", "reply"), DOCUMENT_MISTAKES)
def test_document_examples_outside_the_grammar_get_huh(text: str, reply: str) -> None:
    with pytest.raises(HuhError) as caught:
        parse(text)
    assert caught.value.reply_text == reply


def test_the_example_press_messages_alone() -> None:
    examples = {
        "PRP (ORR (XDO ((FRA AMY PAR) MTO PIC)) (AND (XDO ((FRA AMY PAR) MTO BUR)) (XDO ((GER AMY MUN) MTO BUR))))": 50,
        "PRP (OCC (ENG FLT BEL))": 40,
        "HUH (ERR PRP (PCE (ENG FRA)))": 10,
        "TRY ()": 10,
        "INS (NOT (PCE (ENG FRA)))": 60,
    }
    for text, level in examples.items():
        press = parse_press(text)
        assert to_text(press) == text
        assert press_level(press, press=True) == level
    # read as a message, HUH is the server's, which has no level
    assert press_level(parse_press("HUH (ERR PRP (PCE (ENG FRA)))")) == 0


def test_typed_messages_print_as_the_document_writes_them() -> None:
    london = DaideUnit("ENG", "FLT", Location("LON"))
    assert str(Sub((Move(london, Location("NTH")),), Turn("SPR", 1901))) == "SUB (SPR 1901) ((ENG FLT LON) MTO NTH)"
    assert str(Hlo("ENG", 1234, (VariantOption("LVL", 20), VariantOption("MTL", 1200)))) == (
        "HLO (ENG) (1234) ((LVL 20) (MTL 1200))"
    )
    assert str(Ord(Turn("WIN", 1901), Waive("RUS"), "SUC")) == "ORD (WIN 1901) (RUS WVE) (SUC)"
    unit = DaideUnit("TUR", "FLT", Location("CON"))
    retreats = (Location("BLA"), Location("SMY"), Location("BUL", "ECS"), Location("BUL", "SCS"))
    assert str(Now(Turn("SUM", 1901), (MrtUnit(unit, retreats),))) == (
        "NOW (SUM 1901) (TUR FLT CON MRT (BLA SMY (BUL ECS) (BUL SCS)))"
    )
    assert str(Sco((Ownership("UNO", ("NWY", "SWE")),))) == "SCO (UNO NWY SWE)"
    assert str(Not(Tme())) == "NOT (TME)"
    assert str(Yes(Not(Gof()))) == "YES (NOT (GOF))"
    assert str(Nme("it's", "")) == "NME ('it''s') ()"
    assert str(Snd(("FRA",), Prp(Aly(("ENG", "FRA"), ("GER",))))) == "SND (FRA) (PRP (ALY (ENG FRA) VSS (GER)))"
    assert str(Frm("ENG", ("FRA",), "hello")) == "FRM (ENG) (FRA) ('hello')"
    assert str(Ccd("FRA", turn=Turn("FAL", 1902))) == "CCD (FRA) (FAL 1902)"
    assert str(Drw(("ENG", "FRA"))) == "DRW (ENG FRA)"
    assert str(Try(("PRP", "PCE"))) == "TRY (PRP PCE)"


def test_parsing_gives_the_typed_values() -> None:
    assert parse("NOW (SPR 1901) (RUS FLT (STP SCS))") == Now(
        Turn("SPR", 1901), (DaideUnit("RUS", "FLT", Location("STP", "SCS")),)
    )
    assert parse("ORD (SPR 1901) ((ENG FLT LON) MTO NTH) (BNC RET)") == Ord(
        Turn("SPR", 1901), Move(DaideUnit("ENG", "FLT", Location("LON")), Location("NTH")), "BNC", True
    )
    assert parse("ORD (SPR 1901) ((ENG FLT NTH) HLD) (RET)").result is None
    press = parse("SND (FRA) (FCT (NAR (QRY (PCE (ENG FRA)))))")
    assert press == Snd(("FRA",), Fct(Nar(Qry(Pce(("ENG", "FRA"))))))
    mdf = parse("MDF (AUS GER) ((((AUS GER) MUN) (UNO BER)) (BOH)) ((BOH (AMY)) (BUL ((FLT ECS) BLA)))")
    assert mdf == Mdf(
        ("AUS", "GER"),
        (HomeCentres(("AUS", "GER"), ("MUN",)), HomeCentres("UNO", ("BER",))),
        ("BOH",),
        (
            ProvinceAdjacency("BOH", (CoastAdjacency("AMY", None, ()),)),
            ProvinceAdjacency("BUL", (CoastAdjacency("FLT", "ECS", (Location("BLA"),)),)),
        ),
    )


def test_loose_orders() -> None:
    sub = parse("SUB (LON HLD) ((LVP) MTO YOR) ((ENG EDI) SUP LON) ((FLT (STP NCS)) MTO BAR) (YOR CTO NWY) (WVE)")
    orders = sub.orders
    assert orders[0] == Hold(LooseUnit(None, None, Location("LON")))
    assert orders[1].unit == LooseUnit(None, None, Location("LVP"))
    assert orders[2].unit == LooseUnit("ENG", None, Location("EDI"))
    assert orders[3].unit == LooseUnit(None, "FLT", Location("STP", "NCS"))
    assert orders[4] == MoveByConvoy(LooseUnit(None, None, Location("YOR")), Location("NWY"), None)
    assert orders[5] == Waive(None)
    # the canonical text writes a bare province without brackets
    assert (
        to_text(sub) == "SUB (LON HLD) (LVP MTO YOR) ((ENG EDI) SUP LON) ((FLT (STP NCS)) MTO BAR) (YOR CTO NWY) (WVE)"
    )
    assert parse(to_text(sub)) == sub
    with pytest.raises(ValueError, match="DaideUnit"):
        LooseUnit("ENG", "FLT", Location("LON"))


def test_loose_orders_are_for_sub_only() -> None:
    with pytest.raises(HuhError) as caught:
        parse("SND (FRA) (PRP (XDO (LON HLD)))")
    assert caught.value.reply_text == "HUH (SND (FRA) (PRP (XDO (ERR LON HLD))))"
    with pytest.raises(HuhError):
        parse("ORD (SPR 1901) ((ENG FLT LON) CTO NWY) (SUC)")


def test_strict_units_check_province_kinds() -> None:
    for text, bad in [
        ("NOW (SPR 1901) (ENG AMY NTH)", "NTH"),
        ("NOW (SPR 1901) (ENG FLT PAR)", "PAR"),
        ("NOW (SPR 1901) (RUS FLT STP)", "STP"),
        ("NOW (SPR 1901) (ENG FLT (LON NCS))", "LON"),
        ("SCO (ENG NTH)", "NTH"),
        ("ORD (SPR 1901) ((ENG AMY PAR) MTO (SPA NCS)) (SUC)", "("),
        ("ORD (SPR 1901) ((ITA AMY TUN) CTO SYR VIA (ION APU)) (SUC)", "APU"),
    ]:
        with pytest.raises(HuhError) as caught:
            parse(text)
        error = caught.value
        assert error.echo[error.index] == bad, text
        assert error.reply.error_index == error.index
    # a loose order in SUB leaves such checks to the order notes of THX
    assert parse("SUB ((ENG AMY NTH) HLD)").orders[0].unit == DaideUnit("ENG", "AMY", Location("NTH"))


# --- press levels --------------------------------------------------------------------------------------

LEVELS = [
    ("PRP (PCE (ENG FRA))", 10),
    ("PRP (ALY (ENG FRA) VSS (GER))", 10),
    ("PRP (DRW)", 10),
    ("PRP (DRW (ENG FRA))", 10),
    ("PRP (SLO (ENG))", 10),
    ("PRP (NOT (PCE (ENG FRA)))", 10),
    ("PRP (NAR (PCE (ENG FRA)))", 10),
    ("YES (PRP (PCE (ENG FRA)))", 10),
    ("REJ (PRP (PCE (ENG FRA)))", 10),
    ("BWX (PRP (PCE (ENG FRA)))", 10),
    ("CCL (PRP (PCE (ENG FRA)))", 10),
    ("FCT (PCE (ENG FRA))", 10),
    ("TRY (XDO WHY)", 10),
    ("HUH (PRP (PCE (ENG ERR XYZ)))", 10),
    ("PRP (XDO ((ENG FLT LON) MTO NTH))", 20),
    ("PRP (DMZ (ENG FRA) (ECH))", 20),
    ("PRP (NOT (DMZ (ENG FRA) (ECH)))", 20),
    ("PRP (AND (PCE (ENG FRA)) (DMZ (ENG FRA) (ECH)))", 30),
    ("PRP (ORR (PCE (ENG FRA)) (DRW))", 30),
    ("YES (PRP (ORR (PCE (ENG FRA)) (DRW)))", 30),
    ("CCL (PRP (AND (PCE (ENG FRA)) (DRW)))", 30),
    ("PRP (SCD (ENG NWY) (FRA BEL))", 40),
    ("PRP (OCC (ENG FLT NTH) (FRA UNT BEL))", 40),
    ("PRP (AND (PCE (ENG FRA)) (SCD (ENG NWY)))", 40),
    ("PRP (AND (PCE (ENG FRA)) (ORR (DRW) (SLO (ENG))))", 50),
    ("PRP (NOT (AND (PCE (ENG FRA)) (DRW)))", 50),
    ("FCT (AND (PCE (ENG FRA)) (DRW))", 50),
    ("PRP (CHO (1 2) (PCE (ENG FRA)) (DRW))", 50),
    ("INS (PCE (ENG FRA))", 60),
    ("QRY (PCE (ENG FRA))", 60),
    ("SUG (PCE (ENG FRA))", 60),
    ("THK (PCE (ENG FRA))", 60),
    ("THK (QRY (PCE (ENG FRA)))", 60),
    ("THK (NAR (QRY (PCE (ENG FRA))))", 60),
    ("FCT (QRY (PCE (ENG FRA)))", 60),
    ("FCT (NAR (QRY (PCE (ENG FRA))))", 60),
    ("IDK (QRY (PCE (ENG FRA)))", 60),
    ("YES (INS (PCE (ENG FRA)))", 60),
    ("WHT (ENG FLT NTH)", 70),
    ("HOW (PAR)", 70),
    ("HOW (FRA)", 70),
    ("IDK (WHT (ENG FLT NTH))", 70),
    ("IDK (HOW (FRA))", 70),
    ("REJ (HOW (PAR))", 70),
    ("BWX (WHT (ENG FLT NTH))", 70),
    ("EXP (SPR 1901) (PRP (PCE (ENG FRA)))", 80),
    ("YES (EXP (SPR 1901) (PRP (PCE (ENG FRA))))", 80),
    ("IDK (EXP (SPR 1901) (PRP (PCE (ENG FRA))))", 80),
    ("SRY (EXP (SPR 1901) (PRP (PCE (ENG FRA))))", 80),
    ("PRP (FOR (SPR 1902) (PCE (ENG FRA)))", 90),
    ("PRP (FOR ((SPR 1902) (WIN 1903)) (NOT (PCE (ENG FRA))))", 90),
    ("IFF (PCE (ENG FRA)) THN (PRP (DRW))", 100),
    ("IFF (PCE (ENG FRA)) THN (PRP (DRW)) ELS (PRP (SLO (ENG)))", 100),
    ("IFF (PCE (ENG FRA)) THN (YES (PRP (DRW))) ELS (REJ (PRP (DRW)))", 100),
    ("PRP (XOY (ENG) (FRA))", 110),
    ("PRP (YDO (ENG) (FRA FLT BRE) (FRA AMY PAR))", 110),
    ("PRP (SND (ENG) (FRA GER) (PRP (PCE (ENG FRA GER))))", 120),
    ("PRP (FWD (GER ITA) (ENG) (FRA))", 120),
    ("PRP (BCC (ENG) (GER ITA) (FRA))", 120),
    ("PRP (NAR (FWD (GER ITA) (ENG) (FRA)))", 120),
    ("FRM (ENG) (FRA) (PRP (PCE (ENG FRA)))", 120),
    ("WHY (THK (PCE (ENG FRA)))", 130),
    ("WHY (FCT (PCE (ENG FRA)))", 130),
    ("WHY (SUG (PCE (ENG FRA)))", 130),
    ("WHY (PRP (PCE (ENG FRA)))", 130),
    ("WHY (INS (PCE (ENG FRA)))", 130),
    ("POB (WHY (THK (PCE (ENG FRA))))", 130),
    ("POB (WHY (FCT (PCE (ENG FRA))))", 130),
    ("IDK (PRP (PCE (ENG FRA)))", 130),
    ("IDK (INS (PCE (ENG FRA)))", 130),
    ("IDK (SUG (PCE (ENG FRA)))", 130),
    ("'Shall we talk?'", 8000),
    ("CCL ('it''s off')", 8000),
]


@pytest.mark.parametrize(("text", "level"), LEVELS)
def test_press_levels(text: str, level: int) -> None:
    press = parse_press(text)
    assert to_text(press) == text
    assert press_level(press, press=True) == level
    # inside SND the level is the same, and at least 10
    message = parse(f"SND (FRA) ({text})")
    assert press_level(message) == level
    assert press_level(parse(f"FRM (ENG) (FRA) ({text})")) == level


def test_levels_of_typed_press() -> None:
    two = And((Pce(("ENG", "FRA")), Drw()))
    assert press_level(Prp(two)) == 30
    assert press_level(Prp(Orr((two, Drw())))) == 50
    assert press_level(Iff(two, Prp(Drw()))) == 100
    assert press_level(Prp(Cho(1, 1, (Xdo(Hold(DaideUnit("ENG", "FLT", Location("LON")))), Drw())))) == 50
    assert press_level(Prp(For(Turn("SPR", 1902), None, Scd((Ownership("ENG", ("NWY",)),))))) == 90
    assert press_level(Thk(Qry(Aly(("ENG",), ("FRA",))))) == 60
    assert press_level(Why(Fct(Pce(("ENG",))))) == 130
    assert press_level(Idk(Exp(Turn("SPR", 1901), "sorry?"))) == 8000
    assert press_level("text") == 8000
    assert press_level(Gof()) == 0


def test_press_that_is_not_a_reply_is_refused_in_a_conditional_reply() -> None:
    # THK (arrangement) is a press message but neither a statement nor a reply
    with pytest.raises(HuhError) as caught:
        parse_press("IFF (PCE (ENG FRA)) THN (THK (PCE (ENG FRA)))")
    assert caught.value.reply_text == "HUH (IFF (PCE (ENG FRA)) THN (THK (ERR PCE (ENG FRA))))"
    with pytest.raises(HuhError):
        parse_press("IFF (PCE (ENG FRA)) THN (PRP (DRW)) ELS (YES (PRP (DRW)))")


def test_multipart_arrangements_need_two_parts() -> None:
    for text in ("PRP (AND (PCE (ENG FRA)))", "PRP (CHO (1 1) (DRW))", "PRP (DRW (ENG))"):
        with pytest.raises(HuhError) as caught:
            parse_press(text)
        assert caught.value.echo[caught.value.index] == ")"


# --- errors: PRN and HUH ---------------------------------------------------------------------------------


def test_unbalanced_brackets_get_prn() -> None:
    with pytest.raises(PrnError) as caught:
        parse("SUB ((ENG AMY LVP) HLD")
    error = caught.value
    assert error.reply == Prn(("SUB", "(", "(", "ENG", "AMY", "LVP", ")", "HLD"))
    assert error.reply_text == "PRN (SUB ((ENG AMY LVP) HLD)"
    assert (error.index, error.line, error.column) == (1, 1, 5)  # the bracket that is never closed
    assert error.may_reply
    with pytest.raises(PrnError) as caught:
        parse("GOF) (")
    assert (caught.value.index, caught.value.column) == (1, 4)  # the first bracket that closes nothing
    assert caught.value.reply_text == "PRN (GOF) ()"
    # the PRN reply is itself a message, and parses although its brackets do not match
    assert parse("PRN (SUB ((ENG AMY LVP) HLD)") == error.reply
    assert parse("PRN (GOF) ()") == caught.value.reply


def test_prn_takes_precedence_over_bad_tokens() -> None:
    with pytest.raises(PrnError):
        parse("XYZ (((")


def test_huh_puts_err_before_the_first_bad_token() -> None:
    cases = {
        # an unknown token
        "SUB ((ENG AMY LVP) HLD) ((ENG FLT LON) MTO XYZ)": "HUH (SUB ((ENG AMY LVP) HLD) ((ENG FLT LON) MTO ERR XYZ))",
        # a known token where it does not belong
        "NOW (SPR 1901) (ENG AMY NTH)": "HUH (NOW (SPR 1901) (ENG AMY ERR NTH))",
        # something missing: ERR before the bracket that comes too soon
        "SUB ((ENG FLT LON) MTO)": "HUH (SUB ((ENG FLT LON) MTO ERR))",
        "SND (FRA) (PRP (PCE ()))": "HUH (SND (FRA) (PRP (PCE (ERR))))",
        # the message ends too soon: ERR at the end
        "SUB": "HUH (SUB ERR)",
        "HLO (ENG) (1234)": "HUH (HLO (ENG) (1234) ERR)",
        # more after a complete message
        "GOF GOF": "HUH (GOF ERR GOF)",
        # a press message is not a message on its own
        "PRP (PCE (ENG FRA))": "HUH (ERR PRP (PCE (ENG FRA)))",
        # press of a level above 130
        "SND (FRA) (PRB (50) (PCE (ENG FRA)))": "HUH (SND (FRA) (ERR PRB (50) (PCE (ENG FRA))))",
        # HUH must echo a message, or have ERR in it
        "HUH (SUB (ENG))": "HUH (HUH (SUB (ENG) ERR))",
        "": "HUH (ERR)",
    }
    for text, reply in cases.items():
        with pytest.raises(HuhError) as caught:
            parse(text)
        assert caught.value.reply_text == reply, text
        assert parse(caught.value.reply_text) == caught.value.reply


def test_error_positions_are_columns_of_the_text() -> None:
    with pytest.raises(HuhError) as caught:
        parse("SUB ((ENG AMY LVP) HLD)\n  ((ENG FLT LON) MTO XYZ)")
    assert (caught.value.line, caught.value.column) == (2, 22)
    with pytest.raises(HuhError) as caught:
        parse("HLO (ENG) (1234)")
    assert (caught.value.line, caught.value.column) == (1, 17)


def test_no_reply_to_huh_or_prn() -> None:
    with pytest.raises(DaideSyntaxError) as caught:
        parse("HUH (SUB (ENG))")
    assert not caught.value.may_reply
    with pytest.raises(DaideSyntaxError) as caught:
        parse("PRN SUB")
    assert not caught.value.may_reply


def test_tokens_may_touch_brackets_and_are_not_case_sensitive() -> None:
    assert to_text(parse("sub(spr 1901)((eng flt lon)mto nth)")) == "SUB (SPR 1901) ((ENG FLT LON) MTO NTH)"
    assert to_text(parse("  NOW(  SPR   1901 )  ")) == "NOW (SPR 1901)"


def test_text() -> None:
    assert parse("NME ('it''s') ('1.0')") == Nme("it's", "1.0")
    # empty text has no tokens in the token form: () and '' are the same
    assert parse("NME () ('1.0')") == parse("NME ('') ('1.0')") == Nme("", "1.0")
    assert to_text(Nme("", "1.0")) == "NME () ('1.0')"
    # consecutive text tokens are one string, as in the token form
    assert parse("NME ('Det' 'ente') ('1')") == Nme("Detente", "1")
    assert parse("SND (FRA) ('Ça va? (oui)')") == Snd(("FRA",), "Ça va? (oui)")
    assert parse("SND (FRA) ()") == Snd(("FRA",), "")
    with pytest.raises(PrnError):
        parse("NME ('abc) ('1')")
    with pytest.raises(HuhError) as caught:
        parse("ADM ('a') ('b') 'c")
    # text without its closing quote is a bad token, echoed closed
    assert caught.value.reply_text == "HUH (ADM ('a') ('b') ERR 'c')"


def test_huh_as_a_typed_message() -> None:
    huh = Huh(("SUB", "(", "ERR", "XYZ", ")"))
    assert huh.error_index == 2
    assert Huh(("GOF",)).error_index is None
    assert parse(str(huh)) == huh


def test_check() -> None:
    assert check("SND (FRA) (PRP (PCE (ENG FRA)))") == {
        "ok": True,
        "level": 10,
        "text": "SND (FRA) (PRP (PCE (ENG FRA)))",
    }
    assert check("  gof ") == {"ok": True, "level": 0, "text": "GOF"}
    assert check("PRP (XDO ((ENG FLT LON) MTO NTH))") == {
        "ok": True,
        "level": 20,
        "text": "PRP (XDO ((ENG FLT LON) MTO NTH))",
    }
    assert check("'free text'")["level"] == 8000
    result = check("NOW (SPR 1901) (ENG AMY NTH)")
    assert result["ok"] is False and result["kind"] == "syntax"
    assert (result["line"], result["column"]) == (1, 25)
    assert "HUH (NOW (SPR 1901) (ENG AMY ERR NTH))" in result["message"]
    result = check("PRP (PCE (ENG XYZ))")
    assert result["column"] == 15 and "HUH (PRP (PCE (ENG ERR XYZ)))" in result["message"]
    result = check("SUB ((ENG AMY LVP) HLD")
    assert result["column"] == 5 and "PRN (SUB ((ENG AMY LVP) HLD)" in result["message"]


def test_a_variant_map() -> None:
    variant = DaideParser(
        powers=("ENG", "FRA", "ONE"),
        provinces={"COASTAL_SC": ("LON", "BRE", "ABC"), "SEA": ("ECH",), "BICOASTAL_SC": ("SPA",)},
    )
    assert variant.parse("NOW (SPR 1901) (ONE FLT ABC)") == Now(
        Turn("SPR", 1901), (DaideUnit("ONE", "FLT", Location("ABC")),)
    )
    with pytest.raises(HuhError):
        variant.parse("NOW (SPR 1901) (ENG FLT NTH)")
    with pytest.raises(ValueError, match="category"):
        DaideParser(provinces={"HILLS": ("ABC",)})


def test_support_to_move_into_a_coast_is_strictly_refused() -> None:
    order = SupportMove(
        DaideUnit("FRA", "FLT", Location("MAO")), DaideUnit("FRA", "FLT", Location("GAS")), Location("SPA", "NCS")
    )
    with pytest.raises(HuhError):
        parse(str(Ord(Turn("SPR", 1901), order, "SUC")))
    # loosely written, as SUB allows, it is accepted
    assert parse(str(Sub((order,)))) == Sub((order,))


def test_exp_with_a_free_text_press_message() -> None:
    assert parse_press("EXP (FAL 1901) ('I will move to BUR')") == Exp(Turn("FAL", 1901), "I will move to BUR")


@pytest.mark.parametrize("module", [messages_module, parser_module, orders_module])
def test_doctests(module: object) -> None:
    failures, attempted = doctest.testmod(module)  # type: ignore[arg-type]
    assert attempted > 0
    assert failures == 0


def test_frm_and_for_values() -> None:
    message = parse("FRM (ENG) (FRA) (PRP (FOR ((SPR 1902) (WIN 1903)) (PCE (ENG FRA))))")
    assert message == Frm("ENG", ("FRA",), Prp(For(Turn("SPR", 1902), Turn("WIN", 1903), Pce(("ENG", "FRA")))))
    assert parse("SND (FRA) (PRP (XDO ((ENG FLT LON) CTO NWY VIA (NTH))))") == Snd(
        ("FRA",), Prp(Xdo(MoveByConvoy(DaideUnit("ENG", "FLT", Location("LON")), Location("NWY"), ("NTH",))))
    )
    assert parse("SND (FRA) (PRP (SCD (ENG NWY) (FRA BEL)))").press == Prp(
        Scd((Ownership("ENG", ("NWY",)), Ownership("FRA", ("BEL",))))
    )


def _rule(grammar: str, name: str) -> set[str]:
    """The terminals of a rule of the grammar that lists tokens, one alternative each."""
    body = grammar.split(f"\n!{name}: ", 1)[1].split("\n\n", 1)[0]
    body = re.split(r"\n(?![ ]+\|)", body, maxsplit=1)[0]
    return {alternative.strip() for alternative in body.replace("\n", " ").split("|")}


def test_the_grammar_and_the_token_names_agree() -> None:
    grammar = resources.files("grammar").joinpath("daide.lark").read_text(encoding="utf-8")
    declared = {word for line in grammar.splitlines() if line.startswith("%declare") for word in line.split()[1:]}
    assert {t[1:] for t in declared if t.startswith("_") and t not in ("_LP", "_RP")} == KEYWORDS
    assert _rule(grammar, "raw_token") == declared - {"_LP", "_RP"}
    assert _rule(grammar, "press_token") == {f"_{t}" for t in PRESS_TOKENS}
    assert _rule(grammar, "status") == {f"_{t}" for t in GAME_STATUSES}
    assert _rule(grammar, "note") == {f"_{t}" for t in NOTES}


def test_the_token_names_are_those_of_the_token_table() -> None:
    # every name the grammar knows has a number, and every number of the table a name here
    assert {t.name for t in Token} - {"BRA", "KET"} == TOKEN_NAMES


def test_sco_with_empty_groups_from_real_servers_is_read_and_printed_canonically() -> None:
    """AiServer's traffic has SCO groups of a power (or UNO) with no centre: read, and dropped."""
    sco = parse("SCO (ENG LON LVP EDI) (GER) (UNO)")
    assert str(sco) == "SCO (ENG LON LVP EDI)"
    assert [o.power for o in sco.ownership] == ["ENG"]  # type: ignore[attr-defined]

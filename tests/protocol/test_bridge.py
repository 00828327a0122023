"""The bridge between DAIDE press and L: a table of pairs checked both ways, the normal forms,
the refusals and their explanations, and round trips over generated press of both languages."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Position, standard_map
from engine.maps import ARMY, FLEET, SEA
from protocol.bridge import BridgeError, bridgeable_press, daide_to_l, l_to_daide
from protocol.daide import messages as d
from protocol.daide.orders import location_from_engine
from protocol.daide.parser import parse as parse_daide
from protocol.daide.parser import parse_press
from protocol.l import ast as a
from protocol.l import check_ontology, parse
from protocol.l.actions import region_from_location
from tests.protocol.test_daide_properties import press_message
from tests.protocol.test_l_properties import ON_THE_MAP

pytestmark = pytest.mark.filterwarnings("ignore:Generating overly large repr")

M = standard_map()
# England's fleet in the North Sea makes the convoy routes of the tests.
POSITION = Position.build(
    "F1901M", {"ENG": ["F NTH", "A LON", "F EDI"], "FRA": ["A PAR", "F BRE"]}, {"ENG": ["LON", "EDI"], "RUS": ["MOS"]}
)


def _frm(text: str) -> d.Frm:
    value = parse_daide(text)
    assert isinstance(value, d.Frm)
    return value


def _pending(sender: str, recipients: frozenset[str]) -> a.Agree | a.Deal | None:
    """The pending proposal of the table's withdraw: ENG's peace with FRA."""
    if (sender, recipients) == ("ENG", frozenset({"FRA"})):
        return parse("propose(eng, fra, Agree([eng fra], pce([eng fra])))").deal  # type: ignore[union-attr]
    return None


# --- the table: each pair says the same thing, and each side bridges to the other ----------------

MAR_PAR = "mto(Unit(ita, Region(mar, amy)), Region(par, amy))"
TABLE = [
    # proposals of arrangements: an Agree among the sender and the recipients
    ("FRM (ENG) (FRA) (PRP (PCE (ENG FRA)))", "propose(eng, fra, Agree([eng fra], pce([eng fra])))"),
    ("FRM (ITA) (RUS) (PRP (ALY (ITA RUS) VSS (ENG)))", "propose(ita, rus, Agree([ita rus], aly([ita rus], eng)))"),
    (
        "FRM (ITA) (RUS) (YES (PRP (ALY (ITA RUS) VSS (ENG))))",
        "accept(ita, rus, Agree([ita rus], aly([ita rus], eng)))",
    ),
    (
        "FRM (ENG) (FRA) (PRP (DMZ (ENG FRA) (ECH NTH)))",
        "propose(eng, fra, Agree([eng fra], dmz([eng fra], [ech nth])))",
    ),
    ("FRM (ENG) (FRA) (PRP (DRW (ENG FRA)))", "propose(eng, fra, Agree([eng fra], drw([eng fra])))"),
    ("FRM (ENG) (FRA) (PRP (SLO (ENG)))", "propose(eng, fra, Agree([eng fra], slo(eng)))"),
    ("FRM (ENG) (FRA) (PRP (NOT (PCE (ENG GER))))", "propose(eng, fra, Agree([eng fra], ~pce([eng ger])))"),
    (
        "FRM (ENG) (FRA GER) (PRP (PCE (ENG FRA GER)))",
        "propose(eng, [fra ger], Agree([eng fra ger], pce([eng fra ger])))",
    ),
    (
        "FRM (FRA) (ENG GER) (YES (PRP (PCE (ENG FRA GER))))",
        "accept(fra, [eng ger], Agree([eng fra ger], pce([eng fra ger])))",
    ),
    ("FRM (FRA) (ENG) (REJ (PRP (PCE (ENG FRA))))", "reject(fra, eng, Agree([eng fra], pce([eng fra])))"),
    ("FRM (ENG) (FRA) (CCL (PRP (PCE (ENG FRA))))", "withdraw(eng, fra)"),
    (
        "FRM (ENG) (FRA) (PRP (AND (XDO ((ENG FLT NTH) HLD)) (PCE (ENG FRA))))",
        "propose(eng, fra, Agree([eng fra], Do(hld(Unit(eng, Region(nth, sea)))) & pce([eng fra])))",
    ),
    # proposals of orders: a Commit of the power that gives each order to the other parties
    (
        "FRM (ITA) (RUS) (PRP (AND (XDO ((ITA AMY MAR) MTO PAR)) (XDO ((RUS FLT (SPA SCS)) SUP (ITA AMY MAR) MTO PAR))))",
        f"propose(ita, rus, [Commit(ita, rus, Do({MAR_PAR})) "
        f"Commit(rus, ita, Do(sup(Unit(rus, Region(spa, scs)), {MAR_PAR})))])",
    ),
    (
        "FRM (ENG) (FRA) (PRP (XDO ((FRA AMY PAR) HLD)))",
        "propose(eng, fra, Commit(fra, eng, Do(hld(Unit(fra, Region(par, amy))))))",
    ),
    (
        "FRM (ENG) (FRA) (PRP (XDO ((GER AMY MUN) SUP (GER AMY BER))))",
        "propose(eng, fra, Commit(ger, [eng fra], Do(sup(Unit(ger, Region(mun, amy)), hld(Unit(ger, Region(ber, amy)))))))",
    ),
    (
        "FRM (ENG) (FRA) (PRP (XDO ((FRA FLT MAO) MTO (SPA NCS))))",
        "propose(eng, fra, Commit(fra, eng, Do(mto(Unit(fra, Region(mao, sea)), Region(spa, ncs)))))",
    ),
    (
        "FRM (RUS) (ENG) (PRP (XDO ((RUS FLT (STP SCS)) MTO GOB)))",
        "propose(rus, eng, Commit(rus, eng, Do(mto(Unit(rus, Region(stp, scs)), Region(gob, sea)))))",
    ),
    (
        "FRM (ENG) (FRA) (PRP (XDO ((FRA FLT MAO) SUP (FRA FLT GAS) MTO SPA)))",
        "propose(eng, fra, Commit(fra, eng, Do(sup(Unit(fra, Region(mao, sea)), "
        "mto(Unit(fra, Region(gas, coast)), Region(spa, ncs))))))",
    ),
    (
        "FRM (ENG) (FRA) (PRP (XDO ((ENG FLT NTH) CVY (ENG AMY LON) CTO BEL)))",
        "propose(eng, fra, Commit(eng, fra, Do(cvy(Unit(eng, Region(nth, sea)), "
        "cto(Unit(eng, Region(lon, amy)), Region(bel, amy))))))",
    ),
    (
        "FRM (ENG) (FRA) (PRP (XDO ((ENG AMY LON) CTO NWY VIA (NTH NWG))))",
        "propose(eng, fra, Commit(eng, fra, Do(cto(Unit(eng, Region(lon, amy)), Region(nwy, amy), [nth nwg]))))",
    ),
    (
        "FRM (FRA) (ENG) (PRP (XDO ((FRA FLT BRE) RTO (SPA NCS))))",
        "propose(fra, eng, Commit(fra, eng, Do(rto(Unit(fra, Region(bre, coast)), Region(spa, ncs)))))",
    ),
    (
        "FRM (FRA) (ENG) (PRP (XDO ((FRA FLT BRE) DSB)))",
        "propose(fra, eng, Commit(fra, eng, Do(dsb(Unit(fra, Region(bre, coast))))))",
    ),
    (
        "FRM (FRA) (ENG) (PRP (AND (XDO ((FRA AMY PAR) BLD)) (XDO ((FRA FLT BRE) REM))))",
        "propose(fra, eng, [Commit(fra, eng, Do(bld(Unit(fra, Region(par, amy))))) "
        "Commit(fra, eng, Do(rem(Unit(fra, Region(bre, coast)))))])",
    ),
    ("FRM (FRA) (ENG) (PRP (XDO (FRA WVE)))", "propose(fra, eng, Commit(fra, eng, Do(wve(fra))))"),
    (
        "FRM (ENG) (FRA) (PRP (AND (XDO ((ENG FLT NTH) HLD)) (NOT (XDO ((FRA FLT BRE) MTO ECH)))))",
        "propose(eng, fra, [Commit(eng, fra, Do(hld(Unit(eng, Region(nth, sea))))) "
        "Commit(fra, eng, ~Do(mto(Unit(fra, Region(bre, coast)), Region(ech, sea))))])",
    ),
    (
        "FRM (ENG) (FRA) (PRP (FOR (SPR 1902) (XDO ((ENG FLT NTH) MTO BEL))))",
        "propose(eng, fra, Commit(eng, fra, Do(mto(Unit(eng, Region(nth, sea)), Region(bel, coast)), (spr, 1902))))",
    ),
    # information
    ("FRM (ITA) (ENG) (FCT (PCE (ITA RUS)))", "inform(ita, eng, pce([ita rus]))"),
    ("FRM (ITA) (ENG) (THK (ALY (ITA RUS) VSS (TUR)))", "inform(ita, eng, Belief(ita, aly([ita rus], tur)))"),
    (
        "FRM (ITA) (ENG) (FCT (NOT (XDO ((ITA AMY VEN) MTO TRI))))",
        "inform(ita, eng, ~Do(mto(Unit(ita, Region(ven, amy)), Region(tri, amy))))",
    ),
    ("FRM (ENG) (ITA) (QRY (PCE (ITA RUS)))", "query(eng, ita, pce([ita rus]))"),
    (
        "FRM (ENG) (ITA) (QRY (AND (ALY (ITA RUS) VSS (TUR)) (DMZ (ITA) (PIE))))",
        "query(eng, ita, aly([ita rus], tur) & dmz(ita, [pie]))",
    ),
    ("FRM (ITA) (ENG) (FCT (QRY (PCE (ITA RUS))))", "answer(ita, eng, pce([ita rus]))"),
    ("FRM (ITA) (ENG) (FCT (NAR (QRY (PCE (ITA RUS)))))", "answer(ita, eng, ~pce([ita rus]))"),
    ("FRM (ITA) (ENG) (THK (QRY (PCE (ITA RUS))))", "answer(ita, eng, Belief(ita, pce([ita rus])))"),
    ("FRM (ITA) (ENG) (THK (NAR (QRY (PCE (ITA RUS)))))", "answer(ita, eng, Belief(ita, ~pce([ita rus])))"),
    ("FRM (ITA) (ENG) (IDK (QRY (PCE (ITA RUS))))", "answer(ita, eng, Unknown(ita, pce([ita rus])))"),
    ("FRM (ITA) (ENG) (IDK (QRY (NOT (PCE (ITA RUS)))))", "answer(ita, eng, Unknown(ita, ~pce([ita rus])))"),
]


@pytest.mark.parametrize(("daide", "l_text"), TABLE)
def test_daide_press_reaches_l_clients_as_l(daide: str, l_text: str) -> None:
    frm = _frm(daide)
    assert daide_to_l(frm.sender, frm.recipients, frm.press, POSITION) == parse(l_text)
    assert bridgeable_press(frm.press, POSITION) is None


@pytest.mark.parametrize(("daide", "l_text"), TABLE)
def test_l_reaches_daide_clients_as_frm_press(daide: str, l_text: str) -> None:
    frm = _frm(daide)
    assert l_to_daide(parse(l_text), POSITION, _pending) == (frm.sender, frm.recipients, frm.press)


def test_the_table_is_large_and_its_pairs_distinct() -> None:
    assert len(TABLE) >= 30
    assert len({daide for daide, _ in TABLE}) == len({l_text for _, l_text in TABLE}) == len(TABLE)


def test_snd_press_bridges_like_frm_press() -> None:
    snd = parse_daide("SND (FRA GER) (PRP (PCE (ENG FRA GER)))")
    assert isinstance(snd, d.Snd)
    assert str(daide_to_l("ENG", snd.recipients, snd.press, None)) == (
        "propose(eng, [fra ger], Agree([eng fra ger], pce([eng fra ger])))"
    )


def test_the_pending_deal_may_be_a_mapping() -> None:
    pending = {
        ("ENG", frozenset({"FRA", "GER"})): parse("accept(fra, eng, Agree([eng fra ger], drw([eng fra ger])))").deal
    }  # type: ignore[union-attr]
    assert str(l_to_daide(parse("withdraw(eng, [ger fra])"), None, pending)[2]) == "CCL (PRP (DRW (ENG FRA GER)))"
    with pytest.raises(BridgeError, match="ENG has no pending proposal to FRA to withdraw"):
        l_to_daide(parse("withdraw(eng, fra)"), None, pending)


# --- normal forms: DAIDE's other ways of saying the same thing come back in one form ---------------

NORMALISED = [
    # DAIDE in, the L it is, DAIDE out
    ("PRP (PCE (FRA ENG FRA))", "propose(eng, fra, Agree([eng fra], pce([eng fra])))", "PRP (PCE (ENG FRA))"),
    (
        "PRP (AND (SLO (ENG)) (AND (PCE (ENG FRA)) (DRW (ENG FRA))))",
        "propose(eng, fra, Agree([eng fra], drw([eng fra]) & pce([eng fra]) & slo(eng)))",
        "PRP (AND (DRW (ENG FRA)) (PCE (ENG FRA)) (SLO (ENG)))",
    ),
    (
        "PRP (AND (XDO ((FRA AMY PAR) HLD)) (XDO ((FRA AMY PAR) HLD)))",
        "propose(eng, fra, Commit(fra, eng, Do(hld(Unit(fra, Region(par, amy))))))",
        "PRP (XDO ((FRA AMY PAR) HLD))",
    ),
    ("FCT (QRY (NOT (PCE (ENG FRA))))", "answer(eng, fra, ~pce([eng fra]))", "FCT (NAR (QRY (PCE (ENG FRA))))"),
    (
        "THK (QRY (NOT (PCE (ENG FRA))))",
        "answer(eng, fra, Belief(eng, ~pce([eng fra])))",
        "THK (NAR (QRY (PCE (ENG FRA))))",
    ),
    # a bare DRW is a draw of the surviving powers: here England, France and Russia (its centre)
    ("PRP (DRW)", "propose(eng, fra, Agree([eng fra], drw([eng fra rus])))", "PRP (DRW (ENG FRA RUS))"),
    # the one coast of Spain a fleet in the Western Mediterranean reaches
    (
        "PRP (XDO ((FRA FLT WES) MTO SPA))",
        "propose(eng, fra, Commit(fra, eng, Do(mto(Unit(fra, Region(wes, sea)), Region(spa, scs)))))",
        "PRP (XDO ((FRA FLT WES) MTO (SPA SCS)))",
    ),
]


@pytest.mark.parametrize(("daide", "l_text", "normal"), NORMALISED)
def test_daide_comes_back_in_normal_form(daide: str, l_text: str, normal: str) -> None:
    message = daide_to_l("ENG", ("FRA",), parse_press(daide), POSITION)
    assert message == parse(l_text)
    assert l_to_daide(message, POSITION, None) == ("ENG", ("FRA",), parse_press(normal))
    assert daide_to_l("ENG", ("FRA",), parse_press(normal), POSITION) == message


def test_a_support_to_a_coast_comes_back_naming_the_province() -> None:
    """The strict DAIDE grammar has no coast after SUP ... MTO, but a value made by hand may."""
    gas = d.DaideUnit("FRA", "FLT", d.Location("GAS"))
    press = d.Prp(d.Xdo(d.SupportMove(d.DaideUnit("FRA", "FLT", d.Location("MAO")), gas, d.Location("SPA", "NCS"))))
    message = daide_to_l("ENG", ("FRA",), press, None)
    assert str(l_to_daide(message, None)[2]) == "PRP (XDO ((FRA FLT MAO) SUP (FRA FLT GAS) MTO SPA))"


def test_a_convoy_without_route_goes_over_the_fleets_of_the_position() -> None:
    message = parse("propose(eng, fra, Commit(eng, fra, Do(cto(Unit(eng, Region(lon, amy)), Region(bel, amy)))))")
    press = l_to_daide(message, POSITION, None)[2]
    assert str(press) == "PRP (XDO ((ENG AMY LON) CTO BEL VIA (NTH)))"
    assert str(daide_to_l("ENG", ("FRA",), press, POSITION)) == (
        "propose(eng, [fra], Commit(eng, [fra], Do(cto(Unit(eng, Region(lon, amy)), Region(bel, amy), [nth]))))"
    )
    with pytest.raises(
        BridgeError, match="has no route, and DAIDE's CTO ... VIA needs one: finding it needs the position"
    ):
        l_to_daide(message, None, None)
    far = parse("propose(eng, fra, Commit(eng, fra, Do(cto(Unit(eng, Region(lon, amy)), Region(tun, amy)))))")
    with pytest.raises(BridgeError, match="no chain of fleets in the position"):
        l_to_daide(far, POSITION, None)


# --- refusals: what one language says and the other cannot ----------------------------------------

DAIDE_REFUSED = [
    (
        "PRP (ORR (PCE (ENG FRA)) (DRW))",
        'DAIDE ORR (a choice between arrangements) has no counterpart in L: L formulas have & and ~ but no "or"',
    ),
    ("PRP (NAR (PCE (ENG FRA)))", "DAIDE NAR (the lack of an arrangement) has no counterpart in L"),
    (
        "PRP (SCD (ENG LON EDI) (FRA PAR))",
        "DAIDE SCD (a sharing out of supply centres) has no counterpart in L's ontology",
    ),
    ("PRP (OCC (ENG FLT NTH))", "DAIDE OCC (units to be placed) has no counterpart in L's ontology"),
    (
        "PRP (CHO (1 1) (PCE (ENG FRA)) (DRW))",
        "DAIDE CHO (a choice of some of the arrangements) has no counterpart in L",
    ),
    ("PRP (XOY (ENG) (FRA))", "DAIDE XOY (a favour owed) has no counterpart in L's ontology"),
    (
        "PRP (YDO (ENG) (ENG FLT NTH))",
        "DAIDE YDO (control of units given to a power) has no counterpart in L's ontology",
    ),
    ("PRP (SND (ENG) (FRA) (PRP (DRW)))", "DAIDE SND as an arrangement (press to be sent) has no counterpart in L"),
    ("PRP (FWD (ENG) (FRA) (GER))", "DAIDE FWD (press to be forwarded) has no counterpart in L"),
    ("PRP (BCC (ENG) (FRA) (GER))", "DAIDE BCC (press to be copied) has no counterpart in L"),
    ("PRP (FOR (SPR 1902) (PCE (ENG FRA)))", "DAIDE FOR has a counterpart in L only for one turn around an XDO"),
    (
        "PRP (FOR ((SPR 1902) (FAL 1903)) (XDO ((ENG FLT NTH) HLD)))",
        "DAIDE FOR has a counterpart in L only for one turn",
    ),
    (
        "INS (PCE (ENG FRA))",
        "DAIDE INS (insisting on an arrangement) has no counterpart in L, which proposes but does not insist",
    ),
    ("SUG (PCE (ENG FRA))", "DAIDE SUG (suggesting what is in the parties' interest) has no counterpart in L"),
    ("WHT (ENG FLT NTH)", "DAIDE WHT (asking what a unit should do) has no counterpart in L"),
    ("HOW (PAR)", "DAIDE HOW (asking how to attack) has no counterpart in L"),
    ("EXP (SPR 1901) (PRP (PCE (ENG FRA)))", "DAIDE EXP (asking to explain a turn's orders) has no counterpart in L"),
    ("IFF (PCE (ENG FRA)) THN (PRP (DRW))", "DAIDE IFF (a conditional statement) has no counterpart in L"),
    ("BWX (PRP (PCE (ENG FRA)))", "DAIDE BWX (refusing to answer) has no counterpart in L"),
    ("HUH (ERR PRP (PCE (ENG FRA)))", "DAIDE HUH (press not understood) has no counterpart in L"),
    ("TRY (PRP PCE)", "DAIDE TRY (the tokens a player understands) has no counterpart in L"),
    ("SRY (EXP (SPR 1901) (PRP (PCE (ENG FRA))))", "DAIDE SRY (an apology) has no counterpart in L"),
    ("WHY (FCT (PCE (ENG FRA)))", "DAIDE WHY (asking for a reason) has no counterpart in L"),
    ("POB (WHY (FCT (PCE (ENG FRA))))", "DAIDE POB (the position on the board as a reason) has no counterpart in L"),
    ("FRM (GER) (ENG) (PRP (PCE (ENG GER)))", "DAIDE FRM (forwarded press) has no counterpart in L"),
    ("'shall we?'", "DAIDE free text has no counterpart in L"),
    (
        "YES (QRY (PCE (ENG FRA)))",
        "DAIDE YES (QRY ...) has no counterpart in L, whose accept, reject and withdraw answer proposals only",
    ),
    ("REJ (INS (PCE (ENG FRA)))", "DAIDE REJ (INS ...) has no counterpart in L"),
    ("CCL (FCT (PCE (ENG FRA)))", "DAIDE CCL (FCT ...) has no counterpart in L"),
    ("IDK (WHT (ENG FLT NTH))", "DAIDE IDK (WHT ...) has no counterpart in L: L's Unknown answers a query only"),
    ("FCT (NAR (PCE (ENG FRA)))", "DAIDE NAR (the lack of an arrangement) has no counterpart in L"),
    (
        "PRP (XDO ((FRA FLT MAO) SUP (FRA FLT POR) MTO SPA))",
        "the fleet reaches several coasts of SPA, and L's region names the one it goes to",
    ),
    (
        "PRP (XDO ((FRA FLT MAO) MTO SPA))",
        "DAIDE's (FRA FLT MAO) MTO SPA has no counterpart in L: the fleet reaches several",
    ),
    (
        "PRP (XDO ((FRA AMY PAR) MTO ECH))",
        "DAIDE's (FRA AMY PAR) MTO ECH has no counterpart in L: an army cannot be in ECH",
    ),
]


@pytest.mark.parametrize(("daide", "explanation"), DAIDE_REFUSED)
def test_daide_press_that_l_cannot_say_is_refused_with_the_reason(daide: str, explanation: str) -> None:
    press = parse_press(daide)
    with pytest.raises(BridgeError) as refused:
        daide_to_l("ENG", ("FRA",), press, POSITION)
    assert explanation in str(refused.value)
    assert bridgeable_press(press, POSITION) == str(refused.value)


def test_a_bare_draw_needs_the_position() -> None:
    assert bridgeable_press(parse_press("PRP (DRW)"), POSITION) is None
    assert bridgeable_press(parse_press("PRP (DRW)")) == (
        "DAIDE's bare DRW means a draw of every surviving power: naming them needs the position"
    )


@pytest.mark.parametrize(
    ("sender", "recipients", "explanation"),
    [("ENG", ("ENG", "FRA"), "ENG sends press to itself"), ("XYZ", ("FRA",), "no power XYZ"), ("ENG", (), "empty")],
)
def test_daide_senders_and_recipients_are_powers_of_the_map(sender: str, recipients: tuple, explanation: str) -> None:
    with pytest.raises(BridgeError, match=explanation):
        daide_to_l(sender, recipients, parse_press("PRP (PCE (ENG FRA))"), None)


def test_hand_made_daide_values_that_l_cannot_say() -> None:
    fleet = d.DaideUnit("FRA", "FLT", d.Location("MAO"))
    loose = d.Hold(d.LooseUnit(None, "FLT", d.Location("LON")))
    cases = {
        d.Prp(d.Xdo(loose)): "is loosely written: L names every unit's power and type",
        d.Prp(d.Xdo(d.Waive())): "WVE names no power",
        d.Prp(d.Xdo(d.Hold(d.DaideUnit("FRA", "FLT", d.Location("SPA"))))): "a fleet in SPA is on one of its coasts",
        d.Prp(d.Xdo(d.Move(fleet, d.Location("SPA", "ECS")))): "SPA has no coast ECS",
        d.Prp(d.Xdo(d.Hold(d.DaideUnit("FRA", "FLT", d.Location("PAR"))))): "a fleet cannot be in inland PAR",
        d.Prp(d.Xdo(d.MoveByConvoy(d.DaideUnit("ENG", "AMY", d.Location("LON")), d.Location("BEL"), ("YOR",)))): (
            "goes over land"
        ),
        d.Prp(d.And((d.Pce(("ENG", "FRA")),))): "AND needs two arrangements",
        d.Prp(d.Pce(())): "a list of powers is empty",
        d.Prp(d.Dmz(("ENG",), ("XYZ",))): "no province XYZ",
        d.Prp(d.For(d.Turn("SPR", -1), None, d.Xdo(d.Hold(fleet)))): "L has no year -1",
    }
    for press, explanation in cases.items():
        with pytest.raises(BridgeError, match=explanation):
            daide_to_l("ENG", ("FRA",), press, None)


L_REFUSED = [
    ("inform(eng, fra, Feel(eng, Happy))", "L's Feel has no counterpart in DAIDE press, which has no feelings"),
    ("inform(eng, fra, Obs(eng, fra, pce([eng fra])))", "L's Obs has no counterpart in DAIDE press"),
    ("inform(eng, fra, Desire(eng, pce([eng fra])))", "L's Desire has no counterpart in DAIDE press"),
    ("query(eng, fra, Explain(pce([eng fra])))", "L's Explain has no counterpart in DAIDE press"),
    ("inform(eng, fra, Attack(pce(eng), pce(fra)))", "L's Attack has no counterpart in DAIDE press"),
    ("inform(eng, fra, Support(pce(eng), pce(fra)))", "L's Support (of an argument) has no counterpart in DAIDE press"),
    ("inform(eng, fra, pce(eng) -> pce(fra))", "L's -> has no counterpart in DAIDE press"),
    ("inform(eng, fra, pce(eng) ; pce(fra))", "L's ; (a sequence) has no counterpart in DAIDE press"),
    ("inform(eng, fra, t1 > t0)", "L's time comparison has no counterpart in DAIDE press"),
    ("inform(eng, fra, Belief(ger, pce([eng fra])))", "L's Belief has a DAIDE counterpart (THK) only as the sender's"),
    ("query(eng, fra, Belief(fra, pce([eng fra])))", "L's Belief has a DAIDE counterpart (THK) only as the sender's"),
    ("inform(eng, fra, Belief(eng, pce(fra)) & pce(eng))", "L's Belief has a DAIDE counterpart (THK) only"),
    ("inform(eng, fra, Unknown(eng, pce([eng fra])))", "L's Unknown has a DAIDE counterpart (IDK (QRY ...)) only"),
    ("answer(eng, fra, Unknown(fra, pce([eng fra])))", "L's Unknown has a DAIDE counterpart (IDK (QRY ...)) only"),
    (
        "inform(ita, eng, Agree([ita rus], pce([ita rus])))",
        "L's Agree as information has no counterpart in DAIDE press",
    ),
    ("answer(eng, fra, Commit(eng, fra, Do(wve(eng))))", "L's Commit as information has no counterpart in DAIDE press"),
    (
        "query(rus, ita, answer(ita, eng, Agree([ita rus], pce([ita rus]))))",
        "L's illocution inside another has no counterpart in DAIDE press",
    ),
    ("propose(eng, fra, Agree([eng fra], pce([eng fra])), (spr, 1901))", "L's time argument of Propose"),
    ("withdraw(eng, fra, t0)", "L's time argument of Withdraw"),
    ("propose(eng, fra, Agree([eng fra], pce([eng fra]), (spr, 1901)))", "L's time argument of Agree"),
    ("propose(eng, fra, Commit(eng, fra, Do(wve(eng)), (win, 1901)))", "L's time argument of Commit"),
    ("inform(eng, fra, Belief(eng, pce(fra), t0))", "L's time argument of Belief"),
    ("propose(eng, fra, Commit(eng, fra, Do(wve(eng), t1)))", "L's time variable t1 has no counterpart in DAIDE"),
    ("propose(eng, [fra ger], Agree([eng fra], pce([eng fra])))", "the agents must be [eng fra ger]"),
    ("accept(fra, eng, Agree([eng fra ger], pce([eng fra])))", "the agents must be [eng fra]"),
    (
        "propose(eng, fra, Agree([eng fra], Do(wve(eng)) & ~Do(wve(fra))))",
        "write it as Commit(power, [the other parties]",
    ),
    ("propose(eng, fra, Commit(eng, fra, pce([eng fra])))", "whose XDO commits a power to one order"),
    ("propose(eng, fra, Commit(eng, fra, Do(wve(eng)) & Do(wve(eng))))", "say several pledges as several Commits"),
    ("propose(eng, fra, Commit(fra, eng, Do(wve(eng))))", "an XDO commits the power that gives the order, eng"),
    ("propose(eng, [fra ger], Commit(fra, eng, Do(wve(fra))))", "fra commits to [eng ger]"),
    ("withdraw(eng, ger)", "DAIDE's CCL repeats the proposal it cancels, and ENG has no pending proposal to GER"),
    (
        "propose(eng, fra, Commit(fra, eng, Do(sup(Unit(fra, Region(mao, sea)), mto(Unit(fra, Region(por, coast)), Region(spa, ncs))))))",
        "SUP names the province SPA only",
    ),
    (
        "propose(eng, fra, Commit(fra, eng, Do(sup(Unit(fra, Region(mao, sea)), mto(Unit(fra, Region(gas, coast)), Region(spa, scs))))))",
        "SUP names the province SPA only",
    ),
    (
        "propose(eng, fra, Commit(fra, eng, Do(cvy(Unit(fra, Region(mao, sea)), cto(Unit(fra, Region(bre, coast)), Region(spa, ncs))))))",
        "CVY names the province SPA only",
    ),
    (
        "propose(eng, fra, Commit(fra, eng, Do(hld(Unit(fra, Region(par, sea))))))",
        "L's Region(par, sea) is no region of the map: PAR has amy",
    ),
    (
        "propose(eng, fra, Commit(fra, eng, Do(mto(Unit(fra, Region(mao, sea)), Region(spa, amy)))))",
        "is a fleet and cannot go to Region(spa, amy)",
    ),
    (
        "propose(eng, fra, Commit(eng, fra, Do(cto(Unit(eng, Region(lon, amy)), Region(bel, amy), [nth hol]))))",
        "goes over land",
    ),
    ("propose(eng, fra, Agree([eng fra], pce([eng xyz])))", "no power XYZ"),
    ("propose(eng, fra, Agree([eng fra], dmz(eng, [xyz])))", "no province XYZ"),
    ("propose(eng, [eng fra], Agree([eng fra], pce(eng)))", "ENG sends press to itself"),
]


@pytest.mark.parametrize(("l_text", "explanation"), L_REFUSED)
def test_l_that_daide_cannot_say_is_refused_with_the_reason(l_text: str, explanation: str) -> None:
    with pytest.raises(BridgeError) as refused:
        l_to_daide(parse(l_text), POSITION, _pending)
    assert explanation in str(refused.value)


# --- round trips over generated press ---------------------------------------------------------------

ANY = settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
POWERS = sorted(M.powers)
PROVINCES = sorted(M.locations[p] for p in M.provinces)
SEAS = [p for p in PROVINCES if M.kind[M.location(p)] == SEA]


def _one_of(items: list) -> st.SearchStrategy:
    return st.integers(0, len(items) - 1).map(items.__getitem__)


# Engine units that can move, by type and location; their DAIDE and L forms are made independently
# of the bridge (protocol.daide.orders, protocol.l.actions).
MOVERS = [(ARMY, loc) for loc in M.provinces if M.army_moves[loc]] + [
    (FLEET, loc) for loc in range(len(M.locations)) if M.fleet_moves[loc]
]


def _moves(unit_type: int, location: int) -> list[int]:
    return sorted(M.army_moves[location] if unit_type == ARMY else M.fleet_moves[location])


def _said_by_province(unit_type: int, location: int, destination: int) -> bool:
    """Whether DAIDE's province of ``destination`` tells the coast (SUP and CVY name a province only)."""
    province = M.province_of[destination]
    return unit_type == ARMY or len([c for c in M.coasts[province] if c in M.fleet_moves[location]]) <= 1


@st.composite
def units(draw: st.DrawFn, types: tuple[int, ...] = (ARMY, FLEET)) -> tuple[int, int, d.DaideUnit, a.Unit]:
    unit_type, location = draw(_one_of([m for m in MOVERS if m[0] in types]))
    power = draw(_one_of(POWERS))
    daide = d.DaideUnit(power, "AMY" if unit_type == ARMY else "FLT", location_from_engine(location, M))
    return unit_type, location, daide, a.Unit(power, region_from_location(M, unit_type, location))


@st.composite
def order_pairs(draw: st.DrawFn) -> tuple[d.Order, a.Action]:
    """A DAIDE order and the L action it is."""
    unit_type, location, du, lu = draw(units())
    kind = draw(st.sampled_from(["HLD", "MTO", "RTO", "SUP", "SUPMTO", "CVY", "CTO", "DSB", "BLD", "REM", "WVE"]))
    if kind in ("MTO", "RTO"):
        to = draw(_one_of(_moves(unit_type, location)))
        place, region = location_from_engine(to, M), region_from_location(M, unit_type, to)
        return (d.Move(du, place), a.Mto(lu, region)) if kind == "MTO" else (d.Retreat(du, place), a.Rto(lu, region))
    if kind == "SUP":
        _, _, other, lother = draw(units())
        return d.SupportHold(du, other), a.Sup(lu, a.Hld(lother))
    if kind == "SUPMTO":
        other_type, other_location, other, lother = draw(units())
        choices = [t for t in _moves(other_type, other_location) if _said_by_province(other_type, other_location, t)]
        to = draw(_one_of(choices))
        province = d.Location(M.locations[M.province_of[to]])
        return d.SupportMove(du, other, province), a.Sup(lu, a.Mto(lother, region_from_location(M, other_type, to)))
    if kind in ("CVY", "CTO"):
        _, army_location, army, larmy = draw(units((ARMY,)))
        to = draw(_one_of([p for p in PROVINCES if M.kind[M.location(p)] != SEA]))
        if kind == "CVY":
            return d.Convoy(du, army, d.Location(to)), a.Cvy(lu, a.Cto(larmy, a.Region(to, "amy")))
        route = tuple(draw(st.lists(_one_of(SEAS), min_size=1, max_size=3)))
        return d.MoveByConvoy(army, d.Location(to), route), a.Cto(larmy, a.Region(to, "amy"), route)
    if kind == "WVE":
        return d.Waive(du.power), a.Wve(lu.power)
    daide_type, l_type = {
        "HLD": (d.Hold, a.Hld),
        "DSB": (d.Disband, a.Dsb),
        "BLD": (d.Build, a.Bld),
        "REM": (d.Remove, a.Rem),
    }[kind]
    return daide_type(du), l_type(lu)


def _pairs(children: st.SearchStrategy) -> st.SearchStrategy:
    def conjunction(parts: list[tuple[d.Arrangement, a.Formula]]) -> tuple[d.Arrangement, a.Formula]:
        # the bridge writes AND's parts in the order of L's normal form
        formula = a.And(tuple(f for _, f in parts))
        by_text = {str(f): arrangement for arrangement, f in parts}
        return d.And(tuple(by_text[str(f)] for f in formula.operands)), formula

    # no AND directly inside AND: L flattens it (a normal form of its own, tested above)
    unnested = children.filter(lambda pair: not isinstance(pair[0], d.And))
    return st.one_of(
        children.map(lambda pair: (d.Not(pair[0]), a.Not(pair[1]))),
        st.lists(unnested, min_size=2, max_size=3, unique_by=lambda pair: str(pair[1])).map(conjunction),
    )


powers = st.lists(_one_of(POWERS), min_size=1, max_size=3, unique=True).map(sorted)
turn = st.builds(d.Turn, st.sampled_from(d.SEASONS), st.integers(1901, 2100))
leaf_pairs = st.one_of(
    powers.map(lambda p: (d.Pce(tuple(p)), a.Pce(p))),
    st.tuples(powers, powers).map(lambda ps: (d.Aly(tuple(ps[0]), tuple(ps[1])), a.Aly(*ps))),
    st.tuples(powers, st.lists(_one_of(PROVINCES), min_size=1, max_size=3, unique=True).map(sorted)).map(
        lambda x: (d.Dmz(tuple(x[0]), tuple(x[1])), a.Dmz(x[0], x[1]))
    ),
    powers.map(lambda p: (d.Drw(tuple(p)), a.Drw(p))),
    _one_of(POWERS).map(lambda p: (d.Slo(p), a.Slo(p))),
    order_pairs().map(lambda pair: (d.Xdo(pair[0]), a.Do(pair[1]))),
    st.tuples(turn, order_pairs()).map(
        lambda x: (d.For(x[0], None, d.Xdo(x[1][0])), a.Do(x[1][1], a.Turn(x[0].season, x[0].year)))
    ),
)
arrangement_pairs = st.recursive(leaf_pairs, _pairs, max_leaves=5)


def _is_pledge(formula: a.Formula) -> bool:
    return isinstance(formula, a.Do) or (isinstance(formula, a.Not) and isinstance(formula.operand, a.Do))


def _deal(formula: a.Formula, parties: frozenset[str]) -> a.Deal | a.Agree:
    """The deal of a proposal: one Commit per pledge of the power that gives the order, else an Agree."""
    conjuncts = formula.operands if isinstance(formula, a.And) else (formula,)
    if not all(_is_pledge(c) for c in conjuncts):
        return a.Agree(parties, formula)

    def pledger(pledge: a.Formula) -> str:
        action = (pledge.operand if isinstance(pledge, a.Not) else pledge).action  # type: ignore[union-attr]
        return action.power if isinstance(action, a.Wve) else action.unit.power

    return a.Deal(frozenset(a.Commit(pledger(c), parties - {pledger(c)}, c) for c in conjuncts))


@st.composite
def press_pairs(draw: st.DrawFn) -> tuple[str, tuple[str, ...], d.Value, a.Message, a.Deal | a.Agree]:
    """Sender, recipients, DAIDE press, the L message it is, and the deal that a withdraw cancels."""
    sender = draw(_one_of(POWERS))
    recipients = tuple(
        sorted(draw(st.lists(_one_of([p for p in POWERS if p != sender]), min_size=1, max_size=3, unique=True)))
    )
    alpha, beta = sender, frozenset(recipients)
    arrangement, formula = draw(arrangement_pairs)
    deal = _deal(formula, beta | {alpha})
    said = arrangement  # as a formula (FCT, QRY, ...) it keeps the order of the operands of &
    if isinstance(deal, a.Deal):
        # the bridge writes the commitments in the order of L's normal form
        by_text = {
            str(f): arr
            for arr, f in (
                [(arrangement, formula)]
                if not isinstance(formula, a.And)
                else zip(arrangement.parts, formula.operands, strict=True)
            )
        }  # type: ignore[union-attr]
        parts = tuple(by_text[str(c.formula)] for c in sorted(deal.commits, key=str))
        arrangement = parts[0] if len(parts) == 1 else d.And(parts)
    negative = isinstance(formula, a.Not)
    kind = draw(st.sampled_from(["PRP", "YES", "REJ", "CCL", "FCT", "THK", "QRY", "ANSWER", "THINK", "IDK"]))
    pairs: dict[str, tuple[d.Value, a.Message]] = {
        "PRP": (d.Prp(arrangement), a.Propose(alpha, beta, deal)),
        "YES": (d.Yes(d.Prp(arrangement)), a.Accept(alpha, beta, deal)),
        "REJ": (d.Rej(d.Prp(arrangement)), a.Reject(alpha, beta, deal)),
        "CCL": (d.Ccl(d.Prp(arrangement)), a.Withdraw(alpha, beta)),
        "FCT": (d.Fct(said), a.Inform(alpha, beta, formula)),
        "THK": (d.Thk(said), a.Inform(alpha, beta, a.Belief(alpha, formula))),
        "QRY": (d.Qry(said), a.Query(alpha, beta, formula)),
        "ANSWER": (
            d.Fct(d.Nar(d.Qry(said.content)) if negative else d.Qry(said)),  # type: ignore[union-attr]
            a.Answer(alpha, beta, formula),
        ),
        "THINK": (
            d.Thk(d.Nar(d.Qry(said.content)) if negative else d.Qry(said)),  # type: ignore[union-attr]
            a.Answer(alpha, beta, a.Belief(alpha, formula)),
        ),
        "IDK": (d.Idk(d.Qry(said)), a.Answer(alpha, beta, a.Unknown(alpha, formula))),
    }
    press, message = pairs[kind]
    return sender, recipients, press, message, deal


@ANY
@given(press_pairs())
def test_generated_pairs_bridge_both_ways(pair: tuple) -> None:
    sender, recipients, press, message, deal = pair
    assert daide_to_l(sender, recipients, press, None) == message
    assert l_to_daide(message, None, lambda s, r: deal) == (sender, recipients, press)
    assert bridgeable_press(press) is None


@ANY
@given(press_message)
def test_any_daide_press_bridges_or_says_why(press: d.Value | str) -> None:
    """L or BridgeError, nothing else; the L is on the map, and bridging it back and forth again
    changes nothing more (DAIDE's normal form is a fixed point)."""
    try:
        message = daide_to_l("ENG", ("FRA", "GER"), press, POSITION)
    except BridgeError as e:
        assert bridgeable_press(press, POSITION) == str(e)
        return
    assert bridgeable_press(press, POSITION) is None
    check_ontology(message, M)
    proposal = daide_to_l("ENG", ("FRA", "GER"), press.press, POSITION) if isinstance(press, d.Ccl) else message
    deal = getattr(proposal, "deal", None)
    sender, recipients, normal = l_to_daide(message, POSITION, lambda s, r: deal)
    assert (sender, recipients) == ("ENG", ("FRA", "GER"))
    assert daide_to_l(sender, recipients, normal, POSITION) == message


@ANY
@given(ON_THE_MAP)
def test_any_l_message_bridges_back_to_itself_or_says_why(message: a.Message) -> None:
    """With no position (so no route is made up), whatever bridges comes back unchanged."""
    parties = message.receivers | {message.sender}
    pending = a.Agree(parties, a.Pce(parties))
    try:
        sender, recipients, press = l_to_daide(message, None, lambda s, r: pending)
    except BridgeError as e:
        assert str(e)
        return
    assert daide_to_l(sender, recipients, press, None) == message

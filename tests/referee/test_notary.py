"""The notary: deals confirmed by every committed power, conflicts, phases, replay."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from engine import Position
from protocol.l import ast as a
from referee.notary import Confirmed, Conflict, Notary, Pending, participants
from tests.referee.deals import START, deal

LON_ECH = "Do(mto(Unit(eng, Region(lon, coast)), Region(ech, sea)))"
LON_NTH = "Do(mto(Unit(eng, Region(lon, coast)), Region(nth, sea)))"
LON_HOLDS = "Do(hld(Unit(eng, Region(lon, coast))))"
BRE_MAO = "Do(mto(Unit(fra, Region(bre, coast)), Region(mao, sea)))"
PAR_BUR = "Do(mto(Unit(fra, Region(par, amy)), Region(bur, amy)))"


def notary(phase: str = "S1901M") -> Notary:
    n = Notary(START.map)
    n.new_phase(phase)
    return n


def test_a_deal_is_confirmed_when_every_committed_power_endorsed_it_and_not_before() -> None:
    n = notary()
    both = deal(f"[Commit(eng, fra, {LON_ECH}) Commit(fra, eng, {BRE_MAO})]")
    assert n.endorse("ENG", both, START) == Pending(both, frozenset({"FRA"}))
    assert n.endorse("ENG", both, START) == Pending(both, frozenset({"FRA"}))  # endorsing twice counts once
    assert n.endorse("GER", both, START) == Pending(both, frozenset({"FRA"}))  # ger commits nothing
    assert n.confirmed() == []
    assert n.endorse("FRA", both, START) == Confirmed(both, frozenset({"ENG", "FRA", "GER"}))
    assert n.confirmed() == [both]


def test_an_agree_over_three_powers_needs_all_three() -> None:
    n = notary()
    peace = deal("Agree([eng fra ger], pce([eng fra ger]))")
    assert n.endorse("FRA", peace, START) == Pending(peace, frozenset({"ENG", "GER"}))
    assert n.endorse("GER", peace, START) == Pending(peace, frozenset({"ENG"}))
    assert n.endorse("ENG", peace, START) == Confirmed(peace, frozenset({"ENG", "FRA", "GER"}))
    # a late endorsement gets the same confirmation, not a second one
    assert n.endorse("ITA", peace, START) == Confirmed(peace, frozenset({"ENG", "FRA", "GER"}))
    assert n.confirmed() == [peace]


def test_a_commitment_of_one_power_alone_is_confirmed_by_its_acceptance() -> None:
    """Endorsed without ``proposing`` (eng accepts a request); proposed, it is a promise (test_truth)."""
    n = notary()
    promise = deal(f"Commit(eng, fra, {LON_NTH})")
    assert n.endorse("ENG", promise, START) == Confirmed(promise, frozenset({"ENG", "FRA"}))
    request = deal(f"Commit(fra, eng, {BRE_MAO})")
    assert n.endorse("ENG", request, START) == Pending(request, frozenset({"FRA"}))  # asking binds no one
    assert isinstance(n.endorse("FRA", request, START), Confirmed)
    assert participants(request) == frozenset({"ENG", "FRA"})


def test_the_same_unit_given_two_orders_conflicts_with_the_confirmed_deal() -> None:
    n = notary()
    first = deal(f"Commit(eng, fra, {LON_ECH})")
    assert isinstance(n.endorse("ENG", first, START), Confirmed)
    second = deal(f"Commit(eng, ger, {LON_HOLDS})")
    outcome = n.endorse("ENG", second, START)
    assert isinstance(outcome, Conflict)
    assert outcome.with_deal == first and outcome.deal == second
    assert "unit in lon" in outcome.reason
    assert isinstance(n.endorse("GER", second, START), Conflict)
    assert n.confirmed() == [first]
    # the same order again is no conflict
    again = deal(f"Commit(eng, ger, {LON_ECH})")
    assert isinstance(n.endorse("ENG", again, START), Confirmed)


def test_do_and_not_do_conflict_both_ways() -> None:
    n = notary()
    refusal = deal(f"Commit(fra, ger, ~{PAR_BUR})")
    assert isinstance(n.endorse("FRA", refusal, START), Confirmed)
    promise = deal(f"Commit(fra, eng, {PAR_BUR})")
    outcome = n.endorse("FRA", promise, START)
    assert isinstance(outcome, Conflict) and outcome.with_deal == refusal
    assert "committed and refused" in outcome.reason

    n = notary()
    assert isinstance(n.endorse("FRA", promise, START), Confirmed)
    outcome = n.endorse("FRA", refusal, START)
    assert isinstance(outcome, Conflict) and outcome.with_deal == promise


def test_a_deal_that_contradicts_itself_is_a_conflict_at_once() -> None:
    n = notary()
    absurd = deal(f"[Commit(fra, eng, {PAR_BUR}) Commit(fra, ger, ~{PAR_BUR})]")
    outcome = n.endorse("ENG", absurd, START)
    assert isinstance(outcome, Conflict) and outcome.with_deal == absurd
    assert n.confirmed() == []


def test_a_demilitarised_zone_conflicts_with_a_party_moving_in_or_staying() -> None:
    n = notary()
    zone = deal("Agree([fra ger], dmz([fra ger], [bur pic]))")
    n.endorse("FRA", zone, START)
    assert isinstance(n.endorse("GER", zone, START), Confirmed)
    into = n.endorse("FRA", deal(f"Commit(fra, eng, {PAR_BUR})"), START)
    assert isinstance(into, Conflict) and into.with_deal == zone and "bur" in into.reason
    # another power is not bound by the zone, and a move elsewhere is fine
    board = Position.build("S1901M", {"ENG": ["A BEL"], "FRA": ["A PAR"], "GER": ["A MUN"]})
    n = notary()
    n.endorse("FRA", zone, board)
    n.endorse("GER", zone, board)
    to_pic = deal("Commit(eng, fra, Do(mto(Unit(eng, Region(bel, amy)), Region(pic, amy))))")
    assert isinstance(n.endorse("ENG", to_pic, board), Confirmed)
    to_gas = deal("Commit(fra, eng, Do(mto(Unit(fra, Region(par, amy)), Region(gas, amy))))")
    assert isinstance(n.endorse("FRA", to_gas, board), Confirmed)


def test_peace_conflicts_with_a_move_or_support_into_a_partners_centre() -> None:
    board = Position.build(
        "S1901M",
        {"ENG": ["F ECH", "F IRI"], "FRA": ["A PAR"], "GER": ["A PIC"]},
        centers={"FRA": ["BRE", "PAR"], "ENG": ["LON"]},
    )
    n = notary()
    peace = deal("Agree([eng fra], pce([eng fra]))")
    n.endorse("ENG", peace, board)
    assert isinstance(n.endorse("FRA", peace, board), Confirmed)
    attack = deal("Commit(eng, ger, Do(mto(Unit(eng, Region(ech, sea)), Region(bre, coast))))")
    outcome = n.endorse("ENG", attack, board)
    assert isinstance(outcome, Conflict) and "centre of fra" in outcome.reason
    support = deal(
        "Commit(eng, ger, Do(sup(Unit(eng, Region(ech, sea)), mto(Unit(ger, Region(pic, amy)), Region(bre, amy)))))"
    )
    assert isinstance(n.endorse("ENG", support, board), Conflict)
    # the sea is no one's centre, and ger is no party to the peace
    elsewhere = deal("Commit(eng, ger, Do(mto(Unit(eng, Region(iri, sea)), Region(mao, sea))))")
    assert isinstance(n.endorse("ENG", elsewhere, board), Confirmed)
    german = deal("Commit(ger, eng, Do(mto(Unit(ger, Region(pic, amy)), Region(bre, amy))))")
    assert isinstance(n.endorse("GER", german, board), Confirmed)


def test_orders_for_different_phases_do_not_conflict() -> None:
    n = notary()
    spring = deal(f"Commit(eng, fra, {LON_ECH})")
    autumn = deal("Commit(eng, ger, Do(hld(Unit(eng, Region(lon, coast))), (fal, 1901)))")
    assert isinstance(n.endorse("ENG", spring, START), Confirmed)
    assert isinstance(n.endorse("ENG", autumn, START), Confirmed)
    clash = deal("Commit(eng, ita, Do(mto(Unit(eng, Region(lon, coast)), Region(wal, coast)), (fal, 1901)))")
    outcome = n.endorse("ENG", clash, START)
    assert isinstance(outcome, Conflict) and outcome.with_deal == autumn


def test_a_new_phase_clears_endorsements_and_confirmed_deals() -> None:
    n = notary()
    first = deal(f"Commit(eng, fra, {LON_ECH})")
    second = deal(f"Commit(eng, ger, {LON_HOLDS})")
    both = deal(f"[Commit(eng, fra, {LON_NTH}) Commit(fra, eng, {BRE_MAO})]")
    n.endorse("ENG", first, START)
    n.endorse("FRA", both, START)
    n.new_phase("F1901M")
    assert n.phase == "F1901M" and n.confirmed() == []
    fall = Position.build("F1901M", {"ENG": ["F LON"], "FRA": ["F BRE"]})
    assert n.endorse("ENG", both, fall) == Pending(both, frozenset({"FRA"}))  # fra's endorsement expired
    assert isinstance(n.endorse("ENG", second, fall), Confirmed)  # no conflict left over from spring


def test_forget_takes_back_an_endorsement_but_not_a_confirmation() -> None:
    n = notary()
    both = deal(f"[Commit(eng, fra, {LON_ECH}) Commit(fra, eng, {BRE_MAO})]")
    n.endorse("ENG", both, START)
    assert n.forget("ENG", both) is True
    assert n.forget("ENG", both) is False
    assert n.endorse("FRA", both, START) == Pending(both, frozenset({"ENG"}))
    assert isinstance(n.endorse("ENG", both, START), Confirmed)
    assert n.forget("ENG", both) is False
    assert n.confirmed() == [both]


CALLS = [
    ("endorse", "ENG", f"[Commit(eng, fra, {LON_ECH}) Commit(fra, eng, {BRE_MAO})]"),
    ("endorse", "GER", "Agree([eng fra ger], pce([eng fra ger]) & dmz([eng fra ger], [bur]))"),
    ("endorse", "FRA", f"[Commit(eng, fra, {LON_ECH}) Commit(fra, eng, {BRE_MAO})]"),
    ("endorse", "FRA", f"[Commit(fra, ger, {PAR_BUR}) Commit(eng, fra, {LON_NTH})]"),
    ("endorse", "FRA", "Agree([eng fra ger], pce([eng fra ger]) & dmz([eng fra ger], [bur]))"),
    ("forget", "FRA", "Agree([eng fra ger], pce([eng fra ger]) & dmz([eng fra ger], [bur]))"),
    ("endorse", "ENG", "Agree([eng fra ger], pce([eng fra ger]) & dmz([eng fra ger], [bur]))"),
    ("endorse", "ENG", f"[Commit(fra, ger, {PAR_BUR}) Commit(eng, fra, {LON_NTH})]"),
    # two clashes: which one the reason names must not depend on the order of a set
    ("endorse", "ENG", f"[Commit(eng, ger, {LON_HOLDS}) Commit(fra, ger, Do(hld(Unit(fra, Region(bre, coast)))))]"),
]


def canonical(outcome: object) -> str:
    """An outcome as text with its sets sorted (a set's repr depends on the process)."""
    if isinstance(outcome, Pending):
        return f"pending {outcome.deal} {sorted(outcome.missing)}"
    if isinstance(outcome, Confirmed):
        return f"confirmed {outcome.deal} {sorted(outcome.participants)}"
    if isinstance(outcome, Conflict):
        return f"conflict {outcome.deal} {outcome.reason} {outcome.with_deal}"
    return repr(outcome)


def play(calls: list[tuple[str, str, str]]) -> tuple[list[object], list[a.Deal | a.Agree]]:
    n = notary()
    outcomes: list[object] = []
    for method, power, text in calls:
        if method == "endorse":
            outcomes.append(n.endorse(power, deal(text), START))
        else:
            outcomes.append(n.forget(power, deal(text)))
    return outcomes, n.confirmed()


def test_replaying_the_same_calls_gives_the_same_outcomes_and_state() -> None:
    outcomes, confirmed = play(CALLS)
    assert [type(o).__name__ for o in outcomes] == [
        "Pending",
        "Pending",
        "Confirmed",
        "Conflict",  # its F LON - NTH clashes with the F LON - ECH confirmed
        "Pending",
        "bool",
        "Pending",
        "Conflict",
        "Conflict",
    ]
    assert play(CALLS) == (outcomes, confirmed)
    assert confirmed == [deal(f"[Commit(eng, fra, {LON_ECH}) Commit(fra, eng, {BRE_MAO})]")]


def test_outcomes_do_not_depend_on_the_process_hash_seed() -> None:
    """Sets are iterated in a different order by each process: the reasons must not change."""
    script = (
        "from tests.referee.test_notary import CALLS, play\n"
        "outcomes, confirmed = play(CALLS)\n"
        "from tests.referee.test_notary import canonical\n"
        "print([canonical(o) for o in outcomes], [str(d) for d in confirmed])\n"
    )
    root = Path(__file__).resolve().parents[2]
    runs = set()
    for seed in ("1", "2", "3", "4", "5"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", script], cwd=root, env=env, capture_output=True, text=True, check=True
        )
        runs.add(done.stdout)
    assert len(runs) == 1
    outcomes, confirmed = play(CALLS)
    assert runs == {f"{[canonical(o) for o in outcomes]} {[str(d) for d in confirmed]}\n"}


def test_deals_that_share_no_power_and_no_unit_never_clash() -> None:
    """The notary compares a new deal only with confirmed deals it shares a power or a unit
    with (``_Claims.reach``): every clash between any two of these deals, either way round,
    is between deals that do share one, so the shortcut never hides a conflict."""
    from referee.notary import _clash, _Claims

    texts = [
        f"Commit(eng, fra, {LON_ECH})",
        f"Commit(eng, ger, {LON_NTH})",
        f"Commit(eng, ita, {LON_HOLDS})",
        f"Commit(eng, ita, Not({LON_HOLDS}))",
        f"Commit(fra, eng, {BRE_MAO})",
        f"Commit(fra, ger, {PAR_BUR})",
        "Agree([eng fra], pce([eng fra]))",
        "Agree([eng fra], Not(pce([eng fra])))",
        "Agree([fra ger], dmz([fra ger], [bur pic]))",
        "Agree([fra ger], aly([fra ger], [eng]))",
        "Agree([eng ger], aly([eng ger], [fra]))",
        "Agree([aus tur], drw([aus tur]))",
        "Agree([aus tur], slo(aus))",
        "Commit(ger, eng, Do(mto(Unit(ger, Region(mun, amy)), Region(bur, amy))))",
        "Commit(ita, aus, Do(mto(Unit(ita, Region(ven, amy)), Region(tri, amy))))",
        "Agree([aus ita], pce([aus ita]))",
    ]
    claims = [_Claims.of(deal(t), START.phase, START) for t in texts]
    clashes = 0
    for one in claims:
        for other in claims:
            if _clash(one, other) is not None:
                clashes += 1
                assert not one.reach.isdisjoint(other.reach)
    assert clashes >= 8  # the deals above do contradict each other, in every way _clash knows

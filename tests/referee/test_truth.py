"""Negotiation shown truthfully (issue 16, docs/negotiation.md): what the notary confirms, what a
promise is, what a rejection or withdrawal takes back, which deals contradict, what compliance
covers, and the notes a reloaded chat gets back from the stored records."""

from __future__ import annotations

from typing import Any

import engine.orders as eo
from engine import Position, adjudicate
from protocol.l import parse, to_text
from referee.effects import Step
from referee.negotiation import Negotiation, notes
from referee.notary import Accepted, Confirmed, Conflict, Notary, Offered, Pending
from referee.notices import PhaseNotice, ResultsNotice
from referee.settings import GameSettings
from tests.referee.deals import START, deal

#: "I will move my army from Marseilles to Piedmont": France alone commits.
MAR_PIE = "Commit(fra, aus, Do(mto(Unit(fra, Region(mar, amy)), Region(pie, amy))))"
PEACE = "Agree([aus fra], pce([aus fra]))"
PEACE_FG = "Agree([fra ger], pce([fra ger]))"
AGAINST_GER = "Agree([eng fra], aly([eng fra], [ger]))"
THREE = "Agree([eng fra ger], pce([eng fra ger]))"


def normal(text: str) -> str:
    return to_text(deal(text))


def started(settings: GameSettings | None = None) -> tuple[Negotiation, list[dict[str, Any]]]:
    n = Negotiation("g", settings or GameSettings())
    step = n.feed(PhaseNotice("g", "S1901M", "movement", None))
    return n, [dict(r.payload) for r in step.records]


def said(n: Negotiation, records: list[dict[str, Any]], power: str, text: str) -> Step:
    step = n.say(power, text)
    assert step.reply is not None and step.reply["type"] == "ack", step.reply
    records.extend(dict(r.payload) for r in step.records)
    return step


def sent(step: Step, *kinds: str) -> list[tuple[str, dict[str, Any]]]:
    return [(s.to, s.message) for s in step.sends if s.message["type"] in kinds]


def results(n: Negotiation, orders: dict[str, list[str]]) -> Step:
    """Adjudicate S1901M from the start with ``orders`` (the other units hold) and feed the results."""
    given = {p: [eo.parse_order(START.map, o) for o in texts] for p, texts in orders.items()}
    outcome = adjudicate(START, given)
    notice = ResultsNotice(
        "g",
        "S1901M",
        {p: tuple(texts) for p, texts in orders.items()},
        {START.unit_name(u): tuple(words) for u, words in outcome.results.items()},
        START.to_json(),
        outcome.position.to_json(),
    )
    return n.feed(notice)


# --- promises -----------------------------------------------------------------------------------


def test_a_promise_is_offered_not_confirmed_and_a_rejected_promise_is_void() -> None:
    """The issue's first untruth: a promise rejected by Austria was shown as "Deal confirmed"."""
    n, records = started()
    offer = said(n, records, "FRA", f"propose(fra, aus, {MAR_PIE})")
    assert not sent(offer, "confirmed", "accepted", "pending")
    rejected = said(n, records, "AUS", f"reject(aus, fra, {MAR_PIE})")
    assert not sent(rejected, "confirmed", "accepted", "pending")
    assert n.notary.agreed() == [] and n.commitments == []
    # broken or not, a rejected promise holds nobody: no compliance report
    assert not sent(results(n, {"FRA": ["A MAR H"]}), "compliance")


def test_an_accepted_promise_is_accepted_and_holds_its_sender_not_confirmed() -> None:
    n, records = started()
    said(n, records, "FRA", f"propose(fra, aus, {MAR_PIE})")
    accepted = said(n, records, "AUS", f"accept(aus, fra, {MAR_PIE})")
    frames = sent(accepted, "accepted", "confirmed")
    assert [(to, f["type"]) for to, f in frames] == [("AUS", "accepted"), ("FRA", "accepted")]
    assert frames[0][1] == {
        "type": "accepted",
        "deal": normal(MAR_PIE),
        "participants": ["AUS", "FRA"],
        "phase": "S1901M",
        "promise": True,
    }


def test_a_broken_promise_gets_a_compliance_report_for_both_sides() -> None:
    """The issue's fourth untruth: breaking a one-sided promise produced no compliance report."""
    n, records = started()
    said(n, records, "FRA", f"propose(fra, aus, {MAR_PIE})")
    said(n, records, "AUS", f"accept(aus, fra, {MAR_PIE})")
    step = results(n, {"FRA": ["A MAR H"]})
    reports = sent(step, "compliance")
    assert [to for to, _ in reports] == ["AUS", "FRA"]
    frame = reports[0][1]
    assert frame["promise"] is True and frame["participants"] == ["AUS", "FRA"]
    assert [(r["power"], r["kept"]) for r in frame["reports"]] == [("fra", False)]
    assert "A MAR H" in frame["reports"][0]["detail"]


def test_a_request_is_confirmed_when_the_power_it_commits_accepts() -> None:
    n, records = started()
    asked = "Commit(aus, fra, Do(mto(Unit(aus, Region(vie, amy)), Region(gal, amy))))"
    assert not sent(said(n, records, "FRA", f"propose(fra, aus, {asked})"), "confirmed", "accepted")
    step = said(n, records, "AUS", f"accept(aus, fra, {asked})")
    assert [(to, f["type"]) for to, f in sent(step, "confirmed", "accepted")] == [
        ("AUS", "confirmed"),
        ("FRA", "confirmed"),
    ]


def test_the_notary_tells_a_promise_from_a_request() -> None:
    n = Notary(START.map)
    n.new_phase("S1901M")
    promise = deal(MAR_PIE)
    assert n.endorse("FRA", promise, START, proposing=True) == Offered(promise, "FRA")
    assert n.agreed() == []
    assert n.endorse("AUS", promise, START) == Accepted(promise, frozenset({"AUS", "FRA"}))
    assert n.confirmed() == [] and n.agreed() == [promise]
    request = deal("Commit(aus, fra, Do(hld(Unit(aus, Region(vie, amy)))))")
    assert n.endorse("FRA", request, START, proposing=True) == Pending(request, frozenset({"AUS"}))
    assert n.endorse("AUS", request, START) == Confirmed(request, frozenset({"AUS", "FRA"}))


# --- rejections and withdrawals take endorsements back --------------------------------------------


def test_a_rejected_proposal_is_confirmed_only_by_new_agreement() -> None:
    """The issue's second untruth: FRA proposed peace, AUS rejected it, then AUS proposed the same
    peace, and it was "confirmed" though FRA never accepted."""
    n, records = started()
    said(n, records, "FRA", f"propose(fra, aus, {PEACE})")
    said(n, records, "AUS", f"reject(aus, fra, {PEACE})")
    again = said(n, records, "AUS", f"propose(aus, fra, {PEACE})")
    assert not sent(again, "confirmed")
    expired = n.feed(PhaseNotice("g", "F1901M", "movement", None))
    assert [to for to, _ in sent(expired, "expired")] == ["AUS", "FRA"] and not sent(expired, "confirmed")
    # and new agreement does confirm it
    said(n, records, "AUS", f"propose(aus, fra, {PEACE})")
    assert [to for to, _ in sent(said(n, records, "FRA", f"accept(fra, aus, {PEACE})"), "confirmed")] == ["AUS", "FRA"]


def test_a_rejection_voids_the_acceptances_its_proposal_had() -> None:
    n, records = started()
    said(n, records, "ENG", f"propose(eng, [fra ger], {THREE})")
    said(n, records, "FRA", f"accept(fra, eng, {THREE})")
    said(n, records, "GER", f"reject(ger, eng, {THREE})")
    said(n, records, "GER", f"propose(ger, [eng fra], {THREE})")
    step = said(n, records, "ENG", f"accept(eng, ger, {THREE})")
    assert not sent(step, "confirmed")  # FRA accepted a proposal that was rejected: it must agree again
    assert sent(said(n, records, "FRA", f"accept(fra, ger, {THREE})"), "confirmed")


def test_a_withdrawal_voids_the_acceptances_its_proposal_had() -> None:
    n, records = started()
    said(n, records, "ENG", f"propose(eng, [fra ger], {THREE})")
    said(n, records, "FRA", f"accept(fra, eng, {THREE})")
    said(n, records, "ENG", "withdraw(eng, [fra ger])")
    said(n, records, "GER", f"propose(ger, [eng fra], {THREE})")
    assert not sent(said(n, records, "ENG", f"accept(eng, ger, {THREE})"), "confirmed")


def test_a_promise_withdrawn_before_it_is_accepted_is_void() -> None:
    n, records = started()
    said(n, records, "FRA", f"propose(fra, aus, {MAR_PIE})")
    said(n, records, "FRA", "withdraw(fra, aus)")
    step = said(n, records, "AUS", f"accept(aus, fra, {MAR_PIE})")  # the free protocol lets it through
    assert not sent(step, "confirmed", "accepted") and n.commitments == []


def test_an_accepted_deal_never_confirmed_is_not_checked() -> None:
    n, records = started()
    said(n, records, "ENG", f"propose(eng, [fra ger], {THREE})")
    said(n, records, "FRA", f"accept(fra, eng, {THREE})")  # GER never answers
    assert n.commitments == []


# --- conflicts ------------------------------------------------------------------------------------


def test_peace_with_a_power_and_an_alliance_against_it_conflict_both_ways() -> None:
    """The issue's third untruth: peace with Germany and an alliance with England against Germany,
    both confirmed in one phase."""
    n, records = started()
    said(n, records, "FRA", f"propose(fra, ger, {PEACE_FG})")
    assert sent(said(n, records, "GER", f"accept(ger, fra, {PEACE_FG})"), "confirmed")
    said(n, records, "ENG", f"propose(eng, fra, {AGAINST_GER})")
    step = said(n, records, "FRA", f"accept(fra, eng, {AGAINST_GER})")
    assert not sent(step, "confirmed")
    [(to, conflict)] = sent(step, "conflict")
    assert to == "FRA"
    assert conflict["reason"] == "France cannot keep the peace with Germany and be allied against Germany"
    assert conflict["with"] == normal(PEACE_FG) and conflict["deal"] == normal(AGAINST_GER)
    assert conflict["participants"] == ["ENG", "FRA"]

    n, records = started()  # the other way round
    said(n, records, "ENG", f"propose(eng, fra, {AGAINST_GER})")
    assert sent(said(n, records, "FRA", f"accept(fra, eng, {AGAINST_GER})"), "confirmed")
    said(n, records, "GER", f"propose(ger, fra, {PEACE_FG})")
    step = said(n, records, "FRA", f"accept(fra, ger, {PEACE_FG})")
    assert not sent(step, "confirmed")
    assert "peace with Germany and be allied against Germany" in sent(step, "conflict")[0][1]["reason"]


def conflict(first: str, second: str, board: Position = START) -> Conflict | None:
    """The outcome of agreeing ``second`` after ``first`` was agreed (every committed power endorses)."""
    n = Notary(START.map)
    n.new_phase("S1901M")
    for text in (first, second):
        d = deal(text)
        outcome = None
        for power in ("AUS", "ENG", "FRA", "GER", "ITA", "RUS", "TUR"):
            outcome = n.endorse(power, d, board)
            if isinstance(outcome, Conflict):
                return outcome
    return None


def test_alliances_negations_and_ends_of_the_game_that_cannot_all_hold() -> None:
    with_eng = "Agree([fra ger], aly([fra ger], [eng]))"
    found = conflict(AGAINST_GER, with_eng)
    assert found is not None and found.reason == "France cannot be allied with Germany and allied against Germany"
    assert conflict("Agree([eng fra], aly([eng fra], [fra]))", PEACE_FG) is not None  # allied with France against it
    assert conflict(AGAINST_GER, "Agree([eng fra], aly([eng fra], [tur]))") is None  # two enemies: fine
    denied = conflict(PEACE_FG, "Agree([fra ger], ~pce([fra ger]))")
    assert denied is not None and "negation" in denied.reason
    end = conflict("Agree([eng fra], drw([eng fra]))", "Agree([eng fra], slo(eng))")
    assert end is not None and "a draw between England and France" in end.reason
    assert conflict("Agree([eng fra], drw([eng fra]))", "Agree([eng fra], drw([eng fra]))") is None


def test_a_demilitarised_zone_and_a_move_into_it_by_a_party_conflict_both_ways() -> None:
    zone = "Agree([fra ger], dmz([fra ger], [bur]))"
    into = "Commit(fra, ger, Do(mto(Unit(fra, Region(par, amy)), Region(bur, amy))))"
    assert conflict(zone, into) is not None and conflict(into, zone) is not None
    # a promise that breaks a confirmed zone is refused when it is offered
    n, records = started()
    said(n, records, "FRA", f"propose(fra, ger, {zone})")
    said(n, records, "GER", f"accept(ger, fra, {zone})")
    step = said(n, records, "FRA", f"propose(fra, ger, {into})")
    [(to, frame)] = sent(step, "conflict")
    assert to == "FRA" and frame["promise"] is True and "bur" in frame["reason"]


# --- notes come back from the records --------------------------------------------------------------


def test_the_notes_of_a_power_are_made_again_from_the_stored_records() -> None:
    """Chat notes vanished on reload: the welcome now carries them, made from the records."""
    settings = GameSettings(protocol="reply")
    n = Negotiation("g", settings)
    records: list[dict[str, Any]] = []
    live: dict[str, list[dict[str, Any]]] = {"FRA": [], "ITA": []}

    def keep(step: Step) -> None:
        records.extend(dict(r.payload) for r in step.records)
        for s in step.sends:
            if s.to in live and s.message["type"] != "message":
                live[s.to].append(dict(s.message))

    keep(n.feed(PhaseNotice("g", "S1901M", "movement", None)))
    keep(n.say("FRA", f"propose(fra, aus, {MAR_PIE})"))
    keep(n.say("AUS", f"accept(aus, fra, {MAR_PIE})"))
    keep(n.say("FRA", f"propose(fra, ger, {PEACE_FG})"))
    keep(n.say("AUS", f"propose(aus, fra, {PEACE})"))
    keep(results(n, {"FRA": ["A MAR H"]}))
    keep(n.feed(PhaseNotice("g", "F1901M", "movement", None)))
    replayed = notes("g", settings, records, "FRA")
    assert [{k: v for k, v in f.items() if k != "after"} for f in replayed] == live["FRA"]
    assert [f["type"] for f in replayed] == ["phase", "accepted", "compliance", "expired", "expired", "phase"]
    assert [f["after"] for f in replayed] == [0, 2, 4, 4, 4, 4]  # the last message stored before each
    assert [{k: v for k, v in f.items() if k != "after"} for f in notes("g", settings, records, "ITA")] == live["ITA"]
    assert parse(records[1]["text"])  # messages are stored in the normal form a replay parses again

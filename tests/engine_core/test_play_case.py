"""``engine.batch.play_case`` (a whole adjudication case played, advanced and written in C)
against the pure-Python reference: the object API's ``adjudicate`` turn after turn, each
position written by ``Position.to_json`` with its ``results``, dumped; byte for byte.

DATC cases, random positions of every phase kind played on for a few turns, whole random
games, a game won, and texts that were no orders (one of them a unit's name, repeated).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from engine import Position, _native, standard_map
from engine.batch import play_case
from engine.game import adjudicate, parse_orders
from engine.maps import ARMY, FLEET
from engine.orders import Order
from engine.position import ADJUSTMENTS, MOVEMENT, RETREATS, Phase, Unit
from tests.engine_core.boards import random_orders, random_position

pytestmark = pytest.mark.skipif(not _native.compiled_available(), reason="the compiled core is not built")

DATC = Path(__file__).parent.parent / "datc" / "data"
M = standard_map()


def dump(data: Any) -> bytes:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def reference(position: Position, turns: list[dict[str, list[Order]]], texts: list[list[str]]) -> bytes:
    """What ``detente adjudicate`` answers for the case, from the pure-Python engine."""
    entries = []
    with _native.pure_python():
        for orders, unreadable in zip(turns, texts, strict=True):
            outcome = adjudicate(position, orders)
            entry = outcome.position.to_json()
            results = {position.unit_name(u): list(words) for u, words in outcome.results.items()}
            for text in unreadable:
                results.setdefault(text, ["void"])
            entry["results"] = results
            entries.append(entry)
            position = outcome.position
    return dump(entries)


def compiled(position: Position, turns: list[dict[str, list[Order]]], texts: list[list[str]]) -> bytes | None:
    with _native.pure_python(False):
        return play_case(position, turns, [[dump(t) for t in unreadable] for unreadable in texts], dump)


def check(position: Position, turns: list[dict[str, list[Order]]], texts: list[list[str]] | None = None) -> bool:
    """The two agree; whether the compiled core took the case (it may decline odd ones)."""
    texts = texts if texts is not None else [[] for _ in turns]
    answer = compiled(position, turns, texts)
    if answer is not None:
        assert answer == reference(position, turns, texts), f"{position.to_json()}\n{turns}"
    return answer is not None


def played_on(rng: random.Random, position: Position, count: int, garbage: float) -> list[dict[str, list[Order]]]:
    """Random orders for ``count`` turns from ``position``, each for the position the last one left."""
    turns = []
    for _ in range(count):
        orders = random_orders(rng, position, garbage=garbage)
        turns.append(orders)
        with _native.pure_python():
            position = adjudicate(position, orders).position
    return turns


def test_datc_cases() -> None:
    taken = 0
    for path in sorted(DATC.glob("*.json")):
        for case in json.loads(path.read_text()):
            start = case["start"]
            dislodged = {name: (d["power"], d.get("retreats", [])) for name, d in start.get("dislodged", {}).items()}
            position = Position.build(start["phase"], start.get("units", {}), start.get("centers", {}), dislodged, M)
            read = [parse_orders(M, turn.get("orders", {})) for turn in case.get("turns", [])]
            taken += check(position, [orders for orders, _ in read], [texts for _, texts in read])
    assert taken > 100


@pytest.mark.parametrize("kind", [MOVEMENT, RETREATS, ADJUSTMENTS])
def test_random_positions_played_on(kind: str) -> None:
    rng = random.Random(f"play_case/{kind}")
    taken = 0
    for _ in range(400):
        position = random_position(rng, M, kind, garbage=rng.random() < 0.2)
        taken += check(position, played_on(rng, position, 3, garbage=0.4))
    assert taken > 300


def test_whole_random_games() -> None:
    rng = random.Random("play_case/games")
    for _ in range(10):
        start = Position.initial(M)
        assert check(start, played_on(rng, start, 30, garbage=0.1))


def test_a_game_won_ends_and_stays_ended() -> None:
    centres = [p for p in range(len(M.locations)) if M.is_supply_center[p]]
    bel, hol = M.location("BEL"), M.location("HOL")
    owners = [None] * len(M.locations)
    for p in centres[:17] if hol not in centres[:17] else [c for c in centres if c != hol][:17]:
        owners[p] = "FRA"
    owners[hol] = None
    units = (Unit("FRA", ARMY, bel), Unit("ENG", FLEET, M.location("NTH")))
    position = Position(M, Phase(1905, "F", MOVEMENT), units, tuple(owners))
    move = parse_orders(M, {"FRANCE": ["A BEL - HOL"], "ENGLAND": ["F NTH H"]})[0]
    turns = [move, move, {}]
    assert check(position, turns, [["garbage"], [], ["A BEL", "garbage"]])
    assert b'"COMPLETED"' in (compiled(position, turns, [[], [], []]) or b"")


def test_texts_that_were_no_orders() -> None:
    """A text named as a unit with a result is not written again; repeats once; any text escaped."""
    start = Position.initial(M)
    orders = parse_orders(M, {"FRANCE": ["A PAR - BUR"], "GERMANY": ["A MUN - BUR"], "ITALY": ["A XYZ H"]})[0]
    texts = ["A PAR", "garbage", "garbage", 'quo"te\\ é\n\t\x01', "A BUR"]
    assert check(start, [orders, orders], [texts, texts[::-1]])


def test_two_powers_ordering_one_empty_place() -> None:
    """Results by name keep the first one's place and the last one's words."""
    start = Position.initial(M)
    orders = parse_orders(M, {"FRANCE": ["A BUR H", "A PAR - BUR"], "GERMANY": ["A BUR - MUN", "A MUN - RUH"]})[0]
    winter = Position(M, Phase(1901, "W", ADJUSTMENTS), start.units[:-3], start.centers)
    builds = parse_orders(M, {"RUSSIA": ["A MOS B", "F SEV B"], "TURKEY": ["A MOS B"]})[0]
    assert check(start, [orders])
    assert check(winter, [builds, builds])


def test_odd_positions_are_declined() -> None:
    start = Position.initial(M)
    off_map = Position(M, start.phase, (*start.units, Unit("FRA", ARMY, 999)), start.centers)
    stranger = Position(M, start.phase, (*start.units, Unit("ATLANTIS", ARMY, M.location("BOH"))), start.centers)
    odd_phase = Position(M, Phase(1901, "W", MOVEMENT), start.units, start.centers)
    for position in (off_map, stranger, odd_phase):
        assert compiled(position, [{}], [[]]) is None
    with _native.pure_python():
        assert play_case(start, [{}], [[]], dump) is None  # the reference answers through the object API


def test_threads_play_cases_at_once() -> None:
    """The GIL is released while a case plays; names set again meanwhile do not disturb it."""
    import threading

    rng = random.Random("play_case/threads")
    start = Position.initial(M)
    turns = played_on(rng, start, 20, garbage=0.1)
    texts: list[list[str]] = [[] for _ in turns]
    expected = reference(start, turns, texts)
    seen: list[bytes | None] = []

    def other_dump(data: Any) -> bytes:
        return dump(data)

    def play(d: Any) -> None:
        for _ in range(20):
            with _native.pure_python(False):
                seen.append(play_case(start, turns, [[] for _ in turns], d))

    workers = [threading.Thread(target=play, args=(d,)) for d in (dump, other_dump, dump)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert seen == [expected] * 60


def test_the_object_api_advances_as_the_reference() -> None:
    """``engine.adjudicate`` (compiled: retreats, adjustments, the fall's centres and winner in
    C) against the reference, on fall positions where one power holds most centres."""
    from tests.engine_core.boards import differences

    rng = random.Random("play_case/advance")
    won = 0
    for number in range(400):
        kind = rng.choice((MOVEMENT, RETREATS))
        position = random_position(rng, M, kind, garbage=False)
        strong = rng.choice(M.powers)
        owners = tuple(strong if owner is not None and rng.random() < 0.7 else owner for owner in position.centers)
        units = tuple(Unit(strong, u.type, u.location) if rng.random() < 0.6 else u for u in position.units)
        position = Position(M, Phase(1903, "F", kind), units, owners, position.dislodged)
        orders = random_orders(rng, position, garbage=0.2)
        found = differences(position, orders)
        assert not found, f"phase {number}: {position.to_json()}\n{orders}\n" + "\n".join(found)
        with _native.pure_python():
            won += adjudicate(position, orders).position.completed
    assert won > 40


def texts_of(m_turns: list[dict[str, list[str]]]) -> tuple[dict[str, bytes], dict[str, bytes]]:
    """The memos ``play_texts`` reads: each text's record, or its JSON if it is no order."""
    from engine.batch import encode_orders
    from engine.orders import OrderSyntaxError, parse_order

    records: dict[str, bytes] = {}
    voids: dict[str, bytes] = {}
    for turn in m_turns:
        for texts in turn.values():
            for text in texts:
                try:
                    records[text] = encode_orders(M, {M.powers[0]: [parse_order(M, text)]}).tobytes()
                except OrderSyntaxError:
                    voids[text] = dump(text)
    return records, voids


def test_play_texts_reads_the_texts_as_the_reference() -> None:
    """DATC cases and whole random games, their orders as texts, read in C from the memos."""
    from engine import format_order
    from engine.batch import play_texts

    # a case names a power by its token or its full name
    powers = {power: i for i, power in enumerate(M.powers)} | {M.power_names[p]: i for i, p in enumerate(M.powers)}
    cases = [case for path in sorted(DATC.glob("*.json")) for case in json.loads(path.read_text())]
    rng = random.Random("play_case/texts")
    for _ in range(3):
        start = Position.initial(M)
        turns = played_on(rng, start, 25, garbage=0.1)
        texts = [{p: [format_order(M, o) for o in os] + ["no order"] for p, os in turn.items()} for turn in turns]
        cases.append({"start": start.to_json(), "turns": [{"orders": t} for t in texts]})
    taken = 0
    for case in cases:
        start = case["start"]
        dislodged = {name: (d["power"], d.get("retreats", [])) for name, d in start.get("dislodged", {}).items()}
        position = Position.build(start["phase"], start.get("units", {}), start.get("centers", {}), dislodged, M)
        given = [turn.get("orders", {}) for turn in case.get("turns", [])]
        read = [parse_orders(M, orders) for orders in given]
        records, voids = texts_of(given)
        with _native.pure_python(False):
            answer = play_texts(position, case.get("turns", []), powers, records, voids, dump)
        if answer is not None:
            taken += 1
            assert answer == reference(position, [o for o, _ in read], [u for _, u in read]), case.get("name")
    assert taken > 100


def test_play_texts_declines_what_it_was_not_given() -> None:
    from engine.batch import play_texts

    start = Position.initial(M)
    records, voids = texts_of([{"FRANCE": ["A PAR - BUR", "garbage"]}])
    powers = {"FRANCE": 2, "FRA": 2}
    with _native.pure_python(False):
        assert play_texts(start, [{"orders": {"FRANCE": ["A PAR - BUR", "garbage"]}}], powers, records, voids, dump)
        for turns in (
            [{"orders": {"FRANCE": ["A MAR - SPA"]}}],  # a text not read before
            [{"orders": {"GERMANY": []}}],  # a power not read before
            [{"orders": {"FRANCE": ["A PAR - BUR"], "FRA": []}}],  # a power written twice
            [{"orders": {"FRANCE": "A PAR - BUR"}}],  # not a list
            [{"orders": {"FRANCE": [1]}}],  # not a text
            [["A PAR - BUR"]],  # not a turn
        ):
            assert play_texts(start, turns, powers, records, voids, dump) is None, turns

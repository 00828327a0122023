"""D-Brane's search budget: today's budget plays the games it played before the budget was
explicit, every budget replays a seeded game, and no search spends more than its budget."""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter
from collections.abc import Mapping

import pytest

import bots.dbrane.nb3 as nb3
import bots.registry as registry
from bots.dbrane import Budget, DBrane
from bots.dbrane.budget import DEEP, TODAY, X4
from bots.dbrane.nb3 import Evaluator, Ledger, Search
from bots.dbrane.tactics import Key, Tactics
from bots.dumbbot import DumbBot
from bots.inprocess import GameSetup, play_game
from engine import Position, adjudicate, legal_orders, standard_map
from referee.record import GameRecord
from referee.settings import GameSettings

M = standard_map()
#: A budget small enough to bind in a short game, searching in every round it can propose in.
TINY = Budget(nodes=2, rounds=None, depth=3, width=20, solve_nodes=30)


class TinyDBrane(DBrane):
    name = "dbrane:tiny"
    BUDGET = TINY


@pytest.fixture(autouse=True)
def _registered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(registry.BOTS, "dbrane:tiny", "tests.bots.test_dbrane_budget:TinyDBrane")


def orders_digest(record: GameRecord) -> str:
    """The orders of every phase, each power by its full name as the game files write it."""
    full = record.power_names
    orders = [[phase.phase, {full[p]: given for p, given in phase.orders.items()}] for phase in record.phases]
    text = json.dumps(orders, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def battle_deals(record: GameRecord) -> int:
    return sum(1 for e in record.events if e["type"] == "confirmed" and "Commit" in str(e["deal"]))


def three_dbranes(seed: int, name: str, rounds: int, year: int = 1904) -> GameSetup:
    return GameSetup(seed, (name,) * 3 + ("dumbbot",) * 4, GameSettings(year_limit=year), rounds)


@pytest.mark.parametrize(
    ("seed", "rounds", "digest"),
    # recorded at commit 7405c0c, before the budget was explicit (``MAX_EVALUATIONS`` and the
    # other caps were constants then); they change only if the engine, DumbBot, the game
    # master or D-Brane's play at today's budget change
    [(1, 3, "734e480704e343fa"), (2, 5, "77b4d6f969dfb44d")],
)
def test_todays_budget_plays_the_games_it_played_before(seed: int, rounds: int, digest: str) -> None:
    record = play_game(three_dbranes(seed, "dbrane", rounds))
    assert battle_deals(record) >= 2  # the search's deals were proposed, confirmed and played
    assert orders_digest(record) == digest
    assert DBrane(random.Random(1)).budget == TODAY == Budget()


@pytest.mark.parametrize("name", ["dbrane:x4", "dbrane:deep", "dbrane:tiny"])
def test_a_seed_replays_a_game_exactly_at_every_budget(name: str) -> None:
    setup = three_dbranes(2, name, 5, year=1903)
    first = json.dumps(play_game(setup).to_json(), sort_keys=True)
    assert json.dumps(play_game(setup).to_json(), sort_keys=True) == first


def test_the_named_budgets() -> None:
    assert registry.make_bot("dbrane:x4", 1).budget == X4  # type: ignore[attr-defined]
    assert registry.make_bot("dbrane:deep", 1).budget == DEEP  # type: ignore[attr-defined]
    assert DEEP.nodes == 16 * TODAY.nodes and DEEP.solve_nodes == 16 * TODAY.solve_nodes
    with pytest.raises(ValueError):
        Budget(nodes=0)


def test_no_round_spends_more_nodes_than_the_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """Deal evaluations counted by the evaluator, not by the search, for each bot, phase and round."""
    calls = Counter[tuple[int, str, int]]()
    spent = Counter[tuple[int, str, int]]()
    searching: list[tuple[int, str, int]] = []  # the (bot, phase, round) whose search is running
    made: list[DBrane] = []
    gains, run, init = Evaluator.gains, Search.run, DBrane.__init__

    def tracked_init(self: DBrane, *args: object, **kwargs: object) -> None:
        init(self, *args, **kwargs)  # type: ignore[arg-type]
        made.append(self)

    def counted_gains(self: Evaluator, orders: Mapping[int, Key]) -> dict[str, float]:
        if searching:
            spent[searching[-1]] += 1
        return gains(self, orders)

    def tracked_run(self: Search, evaluator: Evaluator, nodes: int) -> list[nb3.Candidate]:
        bot = next(b for b in made if b._search is self)
        key = (id(bot), str(bot.committed_in), bot._round)
        calls[key] += 1
        searching.append(key)
        try:
            return run(self, evaluator, nodes)
        finally:
            searching.pop()

    monkeypatch.setattr(Evaluator, "gains", counted_gains)
    monkeypatch.setattr(Search, "run", tracked_run)
    monkeypatch.setattr(DBrane, "__init__", tracked_init)
    play_game(three_dbranes(2, "dbrane:tiny", 5))
    assert spent and max(spent.values()) <= TINY.nodes
    assert TINY.nodes in spent.values()  # the budget bound somewhere
    assert max(calls.values()) == 1  # one run a round
    rounds_of = Counter((bot, phase) for bot, phase, _ in spent)
    assert max(rounds_of.values()) > 1  # a search went on in a later round


def _position_and_evaluator() -> tuple[Tactics, Evaluator]:
    """Germany and Russia in fall 1903 of a DumbBot game: a tree of over a hundred deals."""
    bots = {power: DumbBot(random.Random(30 + i)) for i, power in enumerate(M.powers)}
    for power, bot in bots.items():
        bot.start(power, M)
    position = Position.initial()
    while str(position.phase) != "F1903M":
        orders = {p: bot.orders(position, legal_orders(position, p)) for p, bot in bots.items()}
        position = adjudicate(position, orders).position
    tactics = Tactics(position)
    return tactics, Evaluator(tactics, frozenset({"GER", "RUS"}), True, {}, Ledger())


def test_a_search_run_in_pieces_finds_what_one_run_finds() -> None:
    tactics, evaluator = _position_and_evaluator()
    whole = Search(tactics, "GER", evaluator, 3, 40)
    all_at_once = whole.run(evaluator, 10_000)
    assert whole.exhausted and whole.nodes > 100 and all_at_once
    pieces = Search(tactics, "GER", evaluator, 3, 40)
    found = []
    for size in [1, 2, 3, 5, 7, 11] * 40:
        if pieces.exhausted:
            break
        before = pieces.nodes
        found += pieces.run(evaluator, size)
        assert pieces.nodes - before <= size
    assert found == all_at_once and pieces.nodes == whole.nodes


def test_the_strategic_search_keeps_to_its_nodes() -> None:
    tactics, _ = _position_and_evaluator()
    full = tactics.solve("GER", full=False)
    assert tactics.largest_search > 100
    values = []
    for nodes in (5, 20, 100, tactics.largest_search):
        small = Tactics(tactics.board.position, nodes=nodes)
        values.append(small.solve("GER", full=False).expected)
        assert small.largest_search <= nodes
    assert values == sorted(values) and values[0] < values[-1] == full.expected

"""Games in process: seeds fix everything, records say what happened, the phase hook is called."""

from __future__ import annotations

import itertools
import json
import random

from bots.base import Bot, HoldBot, LegalOrders
from bots.inprocess import GameSetup, InProcessGame, play_game
from engine import Position
from engine.orders import Build, Move, Order, SupportMove
from protocol.daide.messages import Pce, Prp, Snd
from referee.settings import GameSettings

RANDOM = ("randombot",) * 4 + ("holdbot",) * 3


def as_json(setup: GameSetup) -> str:
    return json.dumps(play_game(setup).to_json(), sort_keys=True)


def test_the_same_seed_gives_the_same_game_and_another_seed_another() -> None:
    first = as_json(GameSetup(seed=3, bots=RANDOM, settings=GameSettings(year_limit=1903)))
    assert as_json(GameSetup(seed=3, bots=RANDOM, settings=GameSettings(year_limit=1903))) == first
    assert as_json(GameSetup(seed=4, bots=RANDOM, settings=GameSettings(year_limit=1903))) != first


def test_the_seed_hands_out_the_powers() -> None:
    powers_of_slot_0 = set()
    for seed in range(12):
        record = play_game(GameSetup(seed=seed, bots=("randombot",) + ("holdbot",) * 6, settings=GameSettings(year_limit=1901)))
        assert sorted(record.bots.values()) == ["holdbot"] * 6 + ["randombot"]
        powers_of_slot_0 |= {p for p, name in record.bots.items() if name == "randombot"}
    assert len(powers_of_slot_0) >= 4


def test_the_record_of_a_game_to_the_year_limit() -> None:
    record = play_game(GameSetup(seed=5, bots=RANDOM, settings=GameSettings(year_limit=1902, press_level=10, l_levels="1-3")))
    data = record.to_json()
    assert data["outcome"] == "draw" and data["winner"] is None and data["last_year"] == 1902
    assert data["settings"] == {
        "year_limit": 1902,
        "press_level": 10,
        "l_levels": "1-3",
        "protocol": "free",
        "binding": False,
        "rounds": 3,
    }
    assert sorted(data["bots"]) == ["AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY"]
    assert list(data["centres"]) == ["1901", "1902"]
    assert data["final_centres"] == data["centres"]["1902"] and sum(data["final_centres"].values()) <= 34
    phases = data["phases"]
    assert phases[0]["phase"] == "S1901M" and phases[-1]["phase"] in {"F1902M", "F1902R", "W1902A"}
    first = phases[0]
    assert len(first["orders"]) == 7 and sum(len(o) for o in first["orders"].values()) == 22  # nobody defaulted
    assert len(first["results"]) == 22 and first["position"]["phase"] == phases[1]["phase"]
    assert data["messages"] == []  # no press without negotiation
    # the record is the game master's: positions follow from one another
    for before, after in zip(phases, phases[1:], strict=False):
        assert before["position"]["phase"] == after["phase"]


class Conqueror(Bot):
    """Takes empty centres, attacks a held one with support where two units reach it, else closes in:
    enough to win alone against HoldBots."""

    def orders(self, position: Position, legal: LegalOrders) -> list[Order]:
        if None in legal:
            return [o for o in legal[None] if isinstance(o, Build)]
        m = position.map
        province = m.province_of
        targets = [p for p in m.supply_centers if position.centers[p] != self.power]
        moves = {u: {province[o.destination]: o for o in opts if isinstance(o, Move)} for u, opts in legal.items()}
        chosen: dict[object, Order] = {}
        for target in targets:
            free = [u for u in legal if u is not None and u not in chosen and target in moves[u]]
            if target not in position.unit_at and free:
                chosen[free[0]] = moves[free[0]][target]
                continue
            for attacker, helper in itertools.permutations(free, 2):
                support = next((o for o in legal[helper] if _supports(o, attacker.location, target)), None)
                if support is not None:
                    chosen[attacker], chosen[helper] = moves[attacker][target], support
                    break
        taken = {province[o.destination] for o in chosen.values() if isinstance(o, Move)}
        for unit in legal:
            if unit in chosen:
                continue
            open_moves = [p for p in moves[unit] if p not in taken and p not in position.unit_at]
            if open_moves:
                best = min(open_moves, key=lambda p: min(m.distances[p][t] for t in targets))
                chosen[unit] = moves[unit][best]
                taken.add(best)
        return list(chosen.values())


def _supports(order: Order, location: int, target: int) -> bool:
    return isinstance(order, SupportMove) and order.supported_location == location and order.destination == target


def test_a_solo_ends_the_game_with_a_winner_and_eliminations_are_recorded() -> None:
    bots: list[Bot] = [Conqueror(random.Random(0)), *(HoldBot() for _ in range(6))]
    game = InProcessGame(bots, seed=0, settings=GameSettings(year_limit=1920))
    game.play()
    record = game.record(seed=1, names=["conqueror"] + ["holdbot"] * 6, settings={})
    winner = next(p for p, name in record.bots.items() if name == "conqueror")
    assert record.outcome == "solo" and record.winner == winner
    assert record.final_centres[winner] >= 18 and record.last_year < 1920 and record.eliminated
    positions = {p.phase: p.position for p in record.phases}
    for power, phase in record.eliminated.items():
        assert record.final_centres[power] == 0
        assert not positions[phase].units_of(power) and not positions[phase].center_counts[power]
        earlier = [p.position for p in record.phases[: list(positions).index(phase)]]
        assert all(p.units_of(power) or p.center_counts[power] for p in earlier)


def test_the_phase_hook_runs_once_a_phase_before_the_orders_and_its_press_is_recorded() -> None:
    seen: list[tuple[str, int]] = []

    def hook(game: InProcessGame) -> None:
        seen.append((str(game.gm.position.phase), sum(1 for s in game.sessions if s.due)))
        if len(seen) == 2:
            sender = next(slot for slot, s in enumerate(game.sessions) if s.power != "FRA")
            game.deliver(sender, [Snd(("FRA",), Prp(Pce(("ENG", "FRA"))))])

    bots = [HoldBot() for _ in range(7)]
    game = InProcessGame(bots, seed=2, settings=GameSettings(press_level=10, year_limit=1902), before_orders=hook)
    game.play()
    assert seen == [("S1901M", 7), ("F1901M", 7), ("S1902M", 7), ("F1902M", 7)]
    (message,) = game.record(seed=2, names=["holdbot"] * 7, settings={}).messages
    assert message["phase"] == "F1901M" and message["recipients"] == ["FRA"]
    assert message["press"] == "SND (FRA) (PRP (PCE (ENG FRA)))"


def test_holdbots_hold_to_the_year_limit() -> None:
    record = play_game(GameSetup(seed=1, bots=("holdbot",) * 7, settings=GameSettings(year_limit=1920)))
    assert record.outcome == "draw" and record.last_year == 1920 and len(record.phases) == 40  # no retreat, no build
    assert list(record.centres) == list(range(1901, 1921))
    assert record.final_centres == {p: 4 if p == "RUS" else 3 for p in record.bots} and not record.eliminated

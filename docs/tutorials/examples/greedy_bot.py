"""A bot in 30 lines: each unit moves to a supply centre its power does not own when it
can; it offers peace to every power each phase, and accepts every offer of peace."""

from bots.base import HoldBot
from engine.orders import Move
from engine.position import MOVEMENT
from protocol.l.ast import Accept, Agree, Pce, Propose


class GreedyBot(HoldBot):
    name = "greedy"
    negotiates = True  # so that it is asked on_phase and told on_message

    def orders(self, position, legal):
        m, mine = position.map, set(position.centers_of(self.power))
        chosen = HoldBot.orders(self, position, legal)  # every unit holds; builds and removals
        for unit, options in legal.items():
            wanted = [o for o in options if isinstance(o, Move) and self.wants(m, mine, o.destination)]
            if unit is not None and wanted:  # this unit moves instead of holding
                chosen = [o for o in chosen if getattr(o, "location", None) != unit.location]
                chosen.append(self.rng.choice(wanted))
        return chosen

    def wants(self, m, mine, location):
        province = m.province_of[location]
        return m.is_supply_center[province] and m.name_of(province) not in mine

    def on_phase(self, position):
        if position.phase.kind != MOVEMENT:  # press is for movement phases (the game's settings)
            return []
        others = [p for p in position.map.powers if p != self.power and position.units_of(p)]
        return [Propose(self.power, frozenset({p}), peace(self.power, p)) for p in others]

    def on_message(self, sender, message, position):
        if isinstance(message, Propose) and isinstance(message.deal.formula, Pce):
            return [Accept(self.power, frozenset({sender}), message.deal)]
        return []


def peace(*powers):
    return Agree(frozenset(powers), Pce(frozenset(powers)))

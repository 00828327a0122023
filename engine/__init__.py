"""The rules of Diplomacy: maps, positions, orders and a DATC v3.0 adjudicator.

Pure and synchronous: no I/O beyond reading the map files shipped with it.

>>> from engine import Game
>>> game = Game()
>>> _ = game.play({"ENGLAND": ["F LON - NTH", "F EDI - NWG", "A LVP - YOR"]})
>>> sorted(game.position.unit_name(u) for u in game.position.units_of("ENG"))
['A YOR', 'F NTH', 'F NWG']
"""

from engine.game import Adjudication, Game, adjudicate, parse_orders
from engine.legal import legal_orders, legal_orders_for
from engine.maps import ARMY, FLEET, Map, load_map, standard_map
from engine.orders import (
    Build,
    Convoy,
    Disband,
    Hold,
    Move,
    Order,
    OrderSyntaxError,
    Retreat,
    SupportHold,
    SupportMove,
    Waive,
    format_order,
    parse_order,
)
from engine.position import Dislodged, Phase, Position, Unit
from engine.powers import Power
from engine.results import Result

__all__ = [
    "ARMY",
    "FLEET",
    "Adjudication",
    "Build",
    "Convoy",
    "Disband",
    "Dislodged",
    "Game",
    "Hold",
    "Map",
    "Move",
    "Order",
    "OrderSyntaxError",
    "Phase",
    "Position",
    "Power",
    "Result",
    "Retreat",
    "SupportHold",
    "SupportMove",
    "Unit",
    "Waive",
    "adjudicate",
    "format_order",
    "legal_orders",
    "legal_orders_for",
    "load_map",
    "parse_order",
    "parse_orders",
    "standard_map",
]

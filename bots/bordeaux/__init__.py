"""The Bordeaux diplomat (Loeb): RES strategy finder, observation module, ambassador.

:class:`Bordeaux` (``bordeaux``) is the bot; :mod:`bots.bordeaux.strategy` the strategic
core, :mod:`bots.bordeaux.observation` the friendliness matrix and StabLimit,
:mod:`bots.bordeaux.ambassador` the questions about broken agreements,
:mod:`bots.bordeaux.prediction` the model of the other powers' orders
(:class:`BordeauxDumbBotModel`, ``bordeaux:dumbbot-model``: the variant that predicts them
with private copies of DumbBot).
"""

from bots.bordeaux.diplomat import Bordeaux, BordeauxDumbBotModel

__all__ = ["Bordeaux", "BordeauxDumbBotModel"]

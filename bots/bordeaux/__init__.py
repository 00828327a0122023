"""The Bordeaux diplomat (Loeb): RES strategy finder, observation module, ambassador.

:class:`Bordeaux` (``bordeaux``) is the bot; :mod:`bots.bordeaux.strategy` the strategic
core, :mod:`bots.bordeaux.observation` the friendliness matrix and StabLimit,
:mod:`bots.bordeaux.ambassador` the questions about broken agreements.
"""

from bots.bordeaux.diplomat import Bordeaux

__all__ = ["Bordeaux"]

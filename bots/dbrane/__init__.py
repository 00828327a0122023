"""D-Brane (de Jonge and Sierra): a strategic component that finds invincible battle plans, and
NB³ negotiation over coalition battle plans through the notary.

``tactics``: the strategic component (section 5.1); ``nb3``: the negotiating component
(section 5.3: the search, the utility with credits); ``budget``: how much both search, in
nodes; ``bot``: the bots ``dbrane``, ``dbrane:nonego`` and, with more search, ``dbrane:x4``
and ``dbrane:deep``.
"""

from bots.dbrane.bot import DBrane, DBraneDeep, DBraneNoNego, DBraneX4
from bots.dbrane.budget import Budget

__all__ = ["Budget", "DBrane", "DBraneDeep", "DBraneNoNego", "DBraneX4"]

"""D-Brane (de Jonge and Sierra): a strategic component that finds invincible battle plans, and
NB³ negotiation over coalition battle plans through the notary.

``tactics``: the strategic component (section 5.1); ``nb3``: the negotiating component
(section 5.3: the search, the utility with credits); ``bot``: the bots ``dbrane`` and
``dbrane:nonego``.
"""

from bots.dbrane.bot import DBrane, DBraneNoNego

__all__ = ["DBrane", "DBraneNoNego"]

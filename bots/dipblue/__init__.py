"""DipBlue (Ferreira, Lopes Cardoso and Reis, ICAART 2015): a DumbBot-based negotiator with trust.

The bot is a negotiator around five advisers (paper section 4.1):

- :mod:`bots.dipblue.advisers`: MapTactician (DumbBot's province values), FortuneTeller,
  TeamBuilder, AgreementExecutor and WordKeeper, and the accumulation of their values (Eq. 1);
- :mod:`bots.dipblue.tactics`: the best order for each unit without bouncing our own units,
  then TeamBuilder's supports;
- :mod:`bots.dipblue.trust`: friction (the inverse of trust) and the peace and war states;
- :mod:`bots.dipblue.language`: peace, alliances and order requests in L, level 1;
- :mod:`bots.dipblue.bot`: the negotiator (Algorithm 1) and the four archetypes of section
  4.4, :class:`DipBlueNoPress`, :class:`DipBlueSlave`, :class:`DipBlueNaive` and :class:`DipBlue`.
"""

from bots.dipblue.bot import DipBlue, DipBlueNaive, DipBlueNoPress, DipBlueSlave

__all__ = ["DipBlue", "DipBlueNaive", "DipBlueNoPress", "DipBlueSlave"]

"""The referee: the sans-I/O core of a game, beneath both servers, the bots and the tools.

It imports only :mod:`engine` and :mod:`protocol`; it reads no clock, opens no socket,
starts no task and touches no database. Time comes in as numbers, and what should happen
comes out as effects (:mod:`referee.effects`) for the caller to store and perform.
"""

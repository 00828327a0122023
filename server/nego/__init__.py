"""The negotiation server's I/O: the /nego websocket, its frames, and the service that
follows the game server (the negotiation itself is :mod:`referee.negotiation`)."""

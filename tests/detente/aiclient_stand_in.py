"""A stand-in for an AiClient bot, for the tests of ``daide:`` seats where the C++ bots are not built.

It takes AiClient's command line (``-iIP -pPORT -rPOW:PASSCODE``, each flag glued to its value)
and behaves on the wire as AiClient bots do: ``IM`` then ``NME ('POW:HoldBot')`` at once,
without waiting for the ``RM``; ``YES (MAP ...)`` once it has the map; orders on each ``NOW``
(our HoldBot, through :class:`bots.session.BotSession`); it stays connected after the game
until the server closes. ``-xN`` makes it exit (status 3) on the ``N``-th ``NOW``: a program
that dies mid-game.

Run as a program: ``tests/detente/test_daide_seats.py`` writes an executable wrapper that
starts it with this interpreter.
"""

from __future__ import annotations

import socket
import sys

from bots.base import HoldBot
from bots.session import BotSession
from protocol.daide.framing import Connection as Framing
from protocol.daide.framing import DiplomacyMessage, InitialMessage, Role, Sentinel, encode
from protocol.daide.messages import Now
from protocol.daide.parser import parse


def main(argv: list[str]) -> int:
    flags = {arg[1]: arg[2:] for arg in argv if arg.startswith("-") and len(arg) > 1}
    power, _, _ = flags.get("r", "").partition(":")
    session = BotSession(HoldBot(), name=f"{power}:HoldBot" if power else "HoldBot")
    framing = Framing(Role.CLIENT)
    sock = socket.create_connection((flags.get("i", "127.0.0.1"), int(flags.get("p", "16713"))))

    def send(values: list) -> None:
        for value in values:
            sock.sendall(framing.send(DiplomacyMessage.from_text(str(value))))

    sock.sendall(framing.send(InitialMessage()))
    for value in session.start():  # AiClient's NME goes right behind its IM: our framing would refuse it
        sock.sendall(encode(DiplomacyMessage.from_text(str(value))))
    nows = 0
    while True:
        event = framing.next_event()
        if event is Sentinel.NEED_DATA:
            data = sock.recv(65536)
            if not data:
                return 0
            framing.receive_data(data)
            continue
        if not isinstance(event, DiplomacyMessage):
            continue
        message = parse(event.to_text())
        if isinstance(message, Now) and message.turn is not None:
            nows += 1
            if str(nows) == flags.get("x"):
                return 3
        send(session.receive(message))
        if session.due:
            send(session.submit())


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

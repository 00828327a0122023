"""Negotiation rounds over real servers, for the negotiating bots of one process.

In process (:mod:`bots.inprocess`) a phase's negotiation is ``rounds`` rounds of a simulated
clock before anyone orders. At a table with external programs (``daide:`` seats,
:mod:`detente.daide_game`) the game and the negotiation are real servers, and the bots talk
through ``/nego`` (:class:`~bots.nego_client.NegoLink`); :class:`Rounds` gives the negotiating
bots of this process the same clock there, so that a bot plays as it does in process:

* each phase in which press is open, every negotiating seat that owes orders opens it
  (:meth:`NegoLink.before_orders`: what :meth:`Bot.on_phase` returns is said);
* once every such seat has, the negotiation is let run until it is *quiet* (every message
  said is answered by the server, every frame the server queued for a seat has been handed
  to its bot, and handing them made nobody say more: :func:`quiet`), then round ``1`` of
  ``rounds - 1`` begins (``{"type": "round", ...}`` to each bot, in the order of the powers,
  :meth:`NegoLink.round`), and so on;
* after the last round, once quiet again, the seats send their orders.

No order of these seats is in before that, and the game server ends a phase only when
every power's orders are in, so the external programs, which ordered at once, wait too. The
bots answer each frame as it comes, as over any network, rather than once a round: within
a round a conversation may run several exchanges, at most :data:`MAX_PASSES` before the
round is called over.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field

import structlog

from bots.nego_client import NegoLink
from bots.ws_client import WsClient
from engine import Position, legal_orders
from engine.position import PHASE_KINDS

__all__ = ["MAX_PASSES", "OPEN_TIMEOUT", "Rounds", "quiet"]

log = structlog.get_logger("detente.bots")

#: Passes of :func:`quiet` before a round that will not fall quiet is called over anyway
#: (two bots that answer each other for ever).
MAX_PASSES = 200
#: Seconds a seat waits for the others to open the phase before it orders without rounds.
OPEN_TIMEOUT = 60.0


async def quiet(links: Sequence[NegoLink], max_passes: int = MAX_PASSES) -> bool:
    """Wait until the negotiation among ``links`` is quiet (see the module); whether it fell
    quiet within ``max_passes`` passes.

    A pass waits for the server's answer to every message said (then every delivery of those
    messages is queued: the server puts a message's deliveries before its ``ack``), then for a
    ``synced`` on every link (then each bot has been handed all of them, and has said its
    answers). A pass in which nobody said anything leaves nothing in flight.
    """
    for _ in range(max_passes):
        await asyncio.gather(*(link.answered() for link in links))
        before = sum(link.said for link in links)
        await asyncio.gather(*(link.sync() for link in links))
        if sum(link.said for link in links) == before:
            return True
    return False


@dataclass
class _Phase:
    expected: frozenset[NegoLink]
    opened: set[NegoLink] = field(default_factory=set)
    started: asyncio.Event = field(default_factory=asyncio.Event)
    done: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task[None] | None = None


class Rounds:
    """The rounds of each press phase for the links of one table (see the module).

    ``rounds`` counts the round of the openings (0) too, as ``--rounds`` does in process;
    ``press_phases`` are the kinds of phase with press (the game's settings).
    """

    def __init__(self, rounds: int, press_phases: Iterable[str], open_timeout: float = OPEN_TIMEOUT) -> None:
        self.rounds = rounds
        self.press_phases = frozenset(press_phases)
        self.open_timeout = open_timeout
        self.links: list[NegoLink] = []
        self._phases: dict[str, _Phase] = {}
        self.unquiet = 0  # rounds called over before they fell quiet

    def seat(self, link: NegoLink) -> Callable[[WsClient], Awaitable[None]]:
        """The ``before_orders`` hook of the game client of ``link``'s seat."""
        self.links.append(link)

        async def before_orders(client: WsClient) -> None:
            await link.before_orders(client)
            position = link.session.position
            if position is not None and PHASE_KINDS[position.phase.kind] in self.press_phases:
                await self._opened(link, position)

        return before_orders

    async def _opened(self, link: NegoLink, position: Position) -> None:
        name = str(position.phase)
        phase = self._phases.get(name)
        if phase is None:
            phase = self._phases[name] = _Phase(frozenset(self._due(position)))
            for old in [n for n, p in self._phases.items() if p.done.is_set()]:
                del self._phases[old]
        if phase.done.is_set():  # back after a lost connection, in a phase negotiated already
            return
        phase.opened.add(link)
        if phase.task is None and phase.opened >= phase.expected:
            phase.task = asyncio.create_task(self._run(phase))
            phase.started.set()
        try:
            await asyncio.wait_for(phase.started.wait(), self.open_timeout)
        except TimeoutError:
            missing = sorted(str(other.session.power) for other in phase.expected - phase.opened)
            log.warning("seats never opened the phase: ordering without rounds", phase=name, missing=missing)
            return
        await phase.done.wait()

    def _due(self, position: Position) -> list[NegoLink]:
        return [link for link in self.links if link.session.power and legal_orders(position, link.session.power)]

    async def _run(self, phase: _Phase) -> None:
        speakers = sorted(phase.expected, key=lambda link: str(link.session.power))
        try:
            for number in range(1, self.rounds):
                await self._quiet(speakers)
                for link in speakers:
                    await link.round(number, self.rounds)
            await self._quiet(speakers)
        finally:
            phase.done.set()

    async def _quiet(self, links: Sequence[NegoLink]) -> None:
        if not await quiet(links):
            self.unquiet += 1
            log.warning("a negotiation round did not fall quiet", passes=MAX_PASSES)

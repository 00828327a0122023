"""The negotiation baselines the field expects (issue 17): four DumbBots that talk, and DipGame's RandomNegotiator.

* ``always-accept`` (:class:`AlwaysAccept`): DumbBot's orders; accepts every proposal it
  receives; proposes nothing.
* ``always-reject`` (:class:`AlwaysReject`): DumbBot's orders; rejects every proposal it
  receives; proposes nothing.
* ``deal-breaker`` (:class:`DealBreaker`): negotiates like a cooperative bot and breaks
  every commitment it made (see the class for exactly how it chooses the breach).
* ``sanctioning`` (:class:`Sanctioning`): cooperative, keeps its peace, and punishes a
  partner that a compliance report says broke a deal with it.
* ``dipgame-random`` (:class:`DipGameRandom`): the thesis's random negotiator: random
  legal orders, coin-flip proposals and answers.

The DumbBot-based ones play DumbBot's orders with DumbBot's randomness (the same ``rng``
draws in the same order), changing them only as each class says, so that a difference in
results against DumbBot is the negotiation's.

>>> import random
>>> from engine import Position
>>> from protocol.l import parse
>>> start = Position.initial()
>>> bot = AlwaysAccept(random.Random(1))
>>> bot.start("ENG", start.map)
>>> proposal = parse("propose(fra, eng, Agree([eng fra], pce([eng fra])))")
>>> [str(m) for m in bot.on_message("FRA", proposal, start)]
['accept(eng, [fra], Agree([eng fra], pce([eng fra])))']
>>> bot.on_phase(start)
()
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import engine.orders as eo
from bots.base import LegalOrders, Outgoing, RandomBot
from bots.dumbbot import DumbBot, _Appraisal
from engine.maps import ARMY, FLEET
from engine.position import MOVEMENT, Phase, Position
from protocol.l import LError, parse
from protocol.l import ast as a
from protocol.l.actions import ActionError, order_from_action
from referee.binding import Literal, in_force, literals
from referee.compliance import attacks

__all__ = ["AlwaysAccept", "AlwaysReject", "DealBreaker", "DipGameRandom", "Sanctioning"]


# --- helpers --------------------------------------------------------------------------------


def _alive(position: Position, power: str) -> bool:
    return bool(position.units_of(power)) or bool(position.centers_of(power))


def _neighbours(position: Position, power: str) -> list[str]:
    """The other living powers with a unit or a centre within two provinces of one of
    ``power``'s units or centres (by army or fleet moves), in map order."""
    m = position.map
    near = {m.province_of[u.location] for u in position.units_of(power)}
    near |= {p for p, owner in enumerate(position.centers) if owner == power}
    for _ in range(2):
        near |= {q for p in near for t in (ARMY, FLEET) for q in m.reach[t][p]}
    found = {u.power for u in position.units if m.province_of[u.location] in near}
    found |= {position.centers[p] for p in near if position.centers[p] is not None}
    return [p for p in m.powers if p in found and p != power and _alive(position, p)]


def _peace(me: str, other: str) -> a.Propose:
    pair = frozenset({me, other})
    return a.Propose(me, frozenset({other}), a.Agree(pair, a.Pce(pair)))


def _deal_of(text: str, me: str, other: str) -> a.Deal | a.Agree | None:
    """The deal of a ``confirmed`` / ``accepted`` frame (its L text)."""
    try:
        message = parse(f"propose({me}, {other}, {text})")
    except LError:
        return None
    return message.deal if isinstance(message, a.Propose) else None


def _peaceful(deal: a.Deal | a.Agree) -> bool:
    """Whether every commitment of ``deal`` is peace or an alliance (kept by attacking no partner)."""
    found = literals(deal)
    return bool(found) and all(x.positive and isinstance(x.atom, a.Pce | a.Aly) for x in found)


class _Talker(DumbBot):
    """DumbBot's orders; negotiates."""

    negotiates = True


# --- always-accept, always-reject -------------------------------------------------------------


class AlwaysAccept(_Talker):
    """DumbBot's orders; accepts every proposal it receives; proposes nothing. It does not
    keep what it accepts any more than DumbBot would: its orders are DumbBot's."""

    name = "always-accept"

    def on_message(self, sender: str, message: a.Message, position: Position) -> Outgoing:
        if not isinstance(message, a.Propose):
            return ()
        return (a.Accept(self.power, frozenset({message.sender}), message.deal),)


class AlwaysReject(_Talker):
    """DumbBot's orders; rejects every proposal it receives; proposes nothing."""

    name = "always-reject"

    def on_message(self, sender: str, message: a.Message, position: Position) -> Outgoing:
        if not isinstance(message, a.Propose):
            return ()
        return (a.Reject(self.power, frozenset({message.sender}), message.deal),)


# --- deal-breaker ------------------------------------------------------------------------------


class DealBreaker(_Talker):
    """Agrees like a cooperative negotiator, then breaks what it agreed.

    Talk: at the start of each movement phase it proposes peace
    (``Agree([me x], pce([me x]))``) to every neighbour (:func:`_neighbours`: a living power
    with a unit or centre within two provinces of its own), again every movement phase even
    to those it is at peace with (so a partner it betrayed is asked again, and may refuse),
    and it accepts every proposal it receives.

    Commitments: it records every ``confirmed`` deal and every ``accepted`` promise of its
    own, and each phase takes the literals that bind it in that phase
    (:func:`referee.binding.in_force`, the rule the compliance check uses).

    The breach: it first chooses DumbBot's orders (DumbBot's randomness, unchanged), then for
    each commitment in force, in the order received:

    * ``pce``/``aly`` with partners P (movement phases): if DumbBot's orders already attack a
      power of P (:func:`referee.compliance.attacks`, given its own orders only) nothing
      changes; else, among every legal move of its units into a province where a unit of P
      stands or that P owns as a supply centre, it takes the one DumbBot values most (the
      DumbBot value of the destination node this phase; ties by order text) and plays it
      instead of that unit's order. A move into a centre P owns is an attack whatever P's
      units do, so those are preferred to moves onto a P unit that may leave: a move into an
      owned centre is taken when one exists, else a move onto a unit.
    * ``Do(x)`` of one of its units: if DumbBot's order for that unit is not ``x`` it is kept
      (already a breach); else that unit plays its best-valued other legal move (a hold if
      it has none).
    * ``~Do(x)``: it plays ``x`` when ``x`` is legal.
    * ``dmz`` on provinces D: as for peace, the best-valued legal move into D, unless an
      order already moves into D.

    Whatever it cannot break this way (no such order exists) is kept by accident. It never
    changes an order of a unit it has already changed for an earlier breach.
    """

    name = "deal-breaker"

    def __init__(self, rng=None) -> None:  # type: ignore[no-untyped-def]
        super().__init__(rng)
        self.commitments: list[tuple[Literal, Phase]] = []
        self.at_peace: set[str] = set()  # powers with a confirmed peace or alliance

    def on_phase(self, position: Position) -> Outgoing:
        if position.phase.kind != MOVEMENT:
            return ()
        return [_peace(self.power, p) for p in _neighbours(position, self.power)]

    def on_message(self, sender: str, message: a.Message, position: Position) -> Outgoing:
        if not isinstance(message, a.Propose):
            return ()
        return (a.Accept(self.power, frozenset({message.sender}), message.deal),)

    def on_event(self, event: Mapping[str, object], position: Position) -> Outgoing:
        kind = event.get("type")
        if kind not in ("confirmed", "accepted") or not isinstance(event.get("deal"), str):
            return ()
        me = self.power
        other = next(p for p in position.map.powers if p != self.power)
        deal = _deal_of(str(event["deal"]), me, other)
        if deal is None:
            return ()
        try:
            made = Phase.parse(str(event.get("phase")))
        except (ValueError, KeyError):
            made = position.phase
        for literal in literals(deal):
            if literal.power != me:
                continue
            self.commitments.append((literal, made))
            if isinstance(literal.atom, a.Pce | a.Aly) and literal.positive:
                parties = literal.atom.powers if isinstance(literal.atom, a.Pce) else literal.atom.allies
                self.at_peace |= {p for p in parties if p != me}
        return ()

    def orders(self, position: Position, legal: LegalOrders) -> list[eo.Order]:
        chosen = super().orders(position, legal)
        binding = [x for x, made in self.commitments if in_force(x.atom, x.time, position.phase, made)]
        if not binding:
            return chosen
        m = position.map
        by_province = {m.province_of[o.location]: o for o in chosen if not isinstance(o, eo.Waive)}
        value = _Appraisal(position, self.power, self.season_weights(position), self.SIZE)
        g = value.geometry
        changed: set[int] = set()
        units = {m.province_of[u.location]: u for u in legal if u is not None}

        def worth(order: eo.Order) -> float:
            unit = units[m.province_of[order.location]]
            node = g.node[unit.type][order.destination] if isinstance(order, eo.Move) else -1
            return value(node) if node >= 0 else float("-inf")

        def best(orders: Iterable[eo.Order]) -> eo.Order | None:
            ranked = sorted(orders, key=lambda o: (-worth(o), eo.format_order(m, o)))
            return ranked[0] if ranked else None

        def play(order: eo.Order) -> None:
            province = m.province_of[order.location]
            by_province[province] = order
            changed.add(province)

        def free_moves() -> list[eo.Order]:  # direct moves (no convoy) of units not changed yet
            return [
                o
                for u in legal
                if u is not None and m.province_of[u.location] not in changed
                for o in legal[u]
                if isinstance(o, eo.Move) and m.province_of[o.destination] in m.reach[u.type][u.location]
            ]

        for literal in binding:
            atom = literal.atom
            if isinstance(atom, a.Pce | a.Aly) and position.phase.kind == MOVEMENT:
                parties = atom.powers if isinstance(atom, a.Pce) else atom.allies
                victims = set(parties) - {self.power}
                if any(h.victim in victims for h in attacks(position, {self.power: list(by_province.values())})):
                    continue
                moves = free_moves()
                owned = [o for o in moves if position.centers[m.province_of[o.destination]] in victims]
                held = [
                    o
                    for o in moves
                    if (u := position.unit_at.get(m.province_of[o.destination])) is not None and u.power in victims
                ]
                pick = best(owned) or best(held)
                if pick is not None:
                    play(pick)
            elif isinstance(atom, a.Dmz) and position.phase.kind == MOVEMENT:
                zone = {m.province_of[i] for i, name in enumerate(m.locations) if name.lower() in atom.provinces}
                if any(isinstance(o, eo.Move) and m.province_of[o.destination] in zone for o in by_province.values()):
                    continue
                pick = best(o for o in free_moves() if m.province_of[o.destination] in zone)
                if pick is not None:
                    play(pick)
            elif isinstance(atom, a.Do):
                try:
                    power, order = order_from_action(m, atom.action)
                except (ActionError, LookupError, ValueError):
                    continue
                if power != self.power or isinstance(order, eo.Waive):
                    continue
                province = m.province_of[order.location]
                unit = units.get(province)
                if unit is None or province in changed:
                    continue
                if literal.positive:
                    if by_province.get(province) != order:
                        continue
                    others = [o for o in legal[unit] if o != order]
                    pick = best(o for o in others if isinstance(o, eo.Move))
                    if pick is None:
                        pick = next((o for o in others if isinstance(o, eo.Hold | eo.Disband)), None)
                    if pick is not None:
                        play(pick)
                elif order in legal[unit]:
                    play(order)
        return [o for o in chosen if isinstance(o, eo.Waive)] + list(by_province.values())


# --- sanctioning ------------------------------------------------------------------------------


class _SanctionedAppraisal(_Appraisal):
    """DumbBot's values with the seeds of some centres changed: those of ``boosted`` owners
    multiplied by ``factor``, those of ``spared`` owners set to nothing."""

    def __init__(  # type: ignore[no-untyped-def]
        self, position: Position, power: str, weights, size, boosted: set[str], spared: set[str], factor: float
    ) -> None:
        super().__init__(position, power, weights, size)
        for i, n in enumerate(self.geometry.centres):
            owner = position.centers[self.geometry.province[n]]
            if owner in boosted:
                self._seeds[i] *= factor
            elif owner in spared:
                self._seeds[i] = 0.0


class Sanctioning(_Talker):
    """Cooperative, keeps its deals, punishes a broken one.

    Talk: at the start of each movement phase it proposes peace to every neighbour (as
    :class:`DealBreaker` finds them) it is not at peace with and does not sanction; it
    accepts a proposal when every commitment of its deal is peace or an alliance (which it
    can keep) and its sender is not sanctioned, and rejects it otherwise.

    Keeping its word: the centres of powers it has a confirmed peace or alliance with
    (and does not sanction) are worth nothing to its DumbBot (their attack seed is 0), and
    any order of its own that would still attack one of them
    (:func:`referee.compliance.attacks`, its orders alone) becomes a hold.

    The sanction: when a ``compliance`` report says a power other than itself broke a
    part of a deal (``kept: False``), that power is sanctioned from the phase reported
    through the next ``SANCTION_PHASES`` = 4 movement phases (two years: a breach in Spring
    1901 is punished through Spring 1903). While sanctioned, every proposal of that power is
    rejected, no peace is proposed to it, its peace no longer restrains the bot, and the
    bot *prefers orders against it*: the attack seed of every centre it owns is multiplied
    by ``SANCTION_WEIGHT`` = 3 in DumbBot's values (so the spread pulls units towards its
    centres three times as hard); DumbBot then chooses as usual. A new breach extends the
    sanction.
    """

    name = "sanctioning"
    SANCTION_PHASES = 4
    SANCTION_WEIGHT = 3.0

    def __init__(self, rng=None) -> None:  # type: ignore[no-untyped-def]
        super().__init__(rng)
        self.partners: set[str] = set()  # confirmed peace or alliance
        self.sanctions: dict[str, int] = {}  # power -> the last movement phase (index) it is sanctioned

    @staticmethod
    def _index(phase: Phase) -> int:
        """Movement phases counted from year 0: Spring 1901 is 3802, Fall 1901 is 3803."""
        return 2 * phase.year + (0 if phase.season == "S" else 1)

    def sanctioned(self, position: Position) -> set[str]:
        now = self._index(position.phase)
        return {p for p, last in self.sanctions.items() if now <= last}

    def on_phase(self, position: Position) -> Outgoing:
        if position.phase.kind != MOVEMENT:
            return ()
        skip = self.partners | self.sanctioned(position)
        return [_peace(self.power, p) for p in _neighbours(position, self.power) if p not in skip]

    def on_message(self, sender: str, message: a.Message, position: Position) -> Outgoing:
        if not isinstance(message, a.Propose):
            return ()
        me = self.power
        ok = sender not in self.sanctioned(position) and _peaceful(message.deal)
        answer = a.Accept if ok else a.Reject
        return (answer(me, frozenset({message.sender}), message.deal),)

    def on_event(self, event: Mapping[str, object], position: Position) -> Outgoing:
        kind = event.get("type")
        me = self.power
        if kind == "confirmed" and isinstance(event.get("deal"), str):
            other = next(p for p in position.map.powers if p != self.power)
            deal = _deal_of(str(event["deal"]), me, other)
            if deal is not None:
                for x in literals(deal):
                    if x.power == me and x.positive and isinstance(x.atom, a.Pce | a.Aly):
                        parties = x.atom.powers if isinstance(x.atom, a.Pce) else x.atom.allies
                        self.partners |= {p for p in parties if p != me}
        elif kind == "compliance":
            reports = event.get("reports")
            try:
                phase = Phase.parse(str(event.get("phase")))
            except (ValueError, KeyError):
                phase = position.phase
            for report in reports if isinstance(reports, list) else ():
                if report.get("kept") is not False:
                    continue
                breaker = position.map.power(str(report["power"]))  # the frame writes it as L does: eng
                if breaker == me:
                    continue
                last = self._index(phase) + self.SANCTION_PHASES
                self.sanctions[breaker] = max(self.sanctions.get(breaker, 0), last)
        return ()

    def orders(self, position: Position, legal: LegalOrders) -> list[eo.Order]:
        kind = position.phase.kind
        punished = self.sanctioned(position)
        spared = self.partners - punished
        if kind != MOVEMENT or not (punished or spared):
            return super().orders(position, legal)
        weights = self.season_weights(position)
        value = _SanctionedAppraisal(position, self.power, weights, self.SIZE, punished, spared, self.SANCTION_WEIGHT)
        units = [u for u in legal if u is not None]
        chosen = self._movement(position, units, value)
        if not spared:
            return chosen
        kept: list[eo.Order] = []
        for order in chosen:
            hits = attacks(position, {self.power: [order]})
            if any(h.victim in spared for h in hits):
                order = eo.Hold(position.unit_at[position.map.province_of[order.location]].type, order.location)
            kept.append(order)
        return kept


# --- DipGame's RandomNegotiator -----------------------------------------------------------------


class DipGameRandom(RandomBot):
    """DipGame's random negotiator as Fabregues's thesis describes it (section 6.4.3, the
    methodology that closes chapter 6.4 just before 6.5, and appendix A.5): "a player that
    performs random moves and negotiates also randomly", built on RandomBot.

    * Orders: a random legal order for every unit, random builds and removals
      (:class:`bots.base.RandomBot`).
    * Proposals: at every new turn (each phase in which the negotiation is open) it throws a
      coin to decide whether to propose something; if so it chooses at random whom to
      propose to (a living power) and the offer: peace or, on a second coin, an alliance
      with that power against a third one drawn at random. At most one proposal per turn,
      as in the thesis's example experiment.
    * Answers: a coin for every proposal received (accept or reject); an accept or a reject
      received is ignored, and so is everything else.

    How our older ``randomnegotiator`` (:mod:`bots.randomnegotiator`, unchanged) differs:
    it plays DumbBot's orders instead of random ones; it proposes in movement phases only,
    and may send two proposals a phase (peace with probability 0.5 and, independently, an
    alliance with probability 0.3) instead of one on a single coin; it answers alike.
    """

    name = "dipgame-random"
    negotiates = True
    PROPOSE = 0.5  # the coin: propose something this turn
    PEACE = 0.5  # the coin: the offer is peace (else an alliance)
    ACCEPT = 0.5

    def on_phase(self, position: Position) -> Outgoing:
        me = self.power
        others = [p for p in position.map.powers if p != self.power and _alive(position, p)]
        if not others or self.rng.random() >= self.PROPOSE:
            return ()
        other = self.rng.choice(others)
        pair = frozenset({me, other})
        thirds = [p for p in others if p != other]
        if self.rng.random() < self.PEACE or not thirds:
            formula: a.Formula = a.Pce(pair)
        else:
            formula = a.Aly(pair, frozenset({self.rng.choice(thirds)}))
        return (a.Propose(me, frozenset({other}), a.Agree(pair, formula)),)

    def on_message(self, sender: str, message: a.Message, position: Position) -> Outgoing:
        if not isinstance(message, a.Propose):
            return ()
        answer = a.Accept if self.rng.random() < self.ACCEPT else a.Reject
        return (answer(self.power, frozenset({message.sender}), message.deal),)

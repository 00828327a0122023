"""DipBlue and its archetypes (paper section 4.4): the negotiator around the advisers.

The negotiator (sections 4.1, 4.2 and Algorithm 1), each movement phase:

1. at the first one, peace proposed to every other power (lines 1-3);
2. peace broken with the partners whose friction passed the threshold (line 7), and, when
   every power left alive is at peace with us (nobody to ally against), with the partner
   least beneficial to us by its centres and its proximity (section 4.2: :func:`least_beneficial`);
3. an alliance proposed to every partner against the strongest power not in peace with
   us, most centres first, then the current enemy, then the most friction (lines 8-9),
   once per partner and enemy;
4. the orders chosen by the advisers (line 10), and for each of our moves a request to
   every partner unit next to its destination (line 11): to support it while the strongest
   other power near the destination outnumbers our supports, otherwise not to move there.

It answers every proposal, accepting (section 4.2):

- peace, unless at war with the proposer or its effective friction is 2 or more;
- an alliance from a partner, against powers none of which is a partner;
- an order request from a partner when the orders the advisers then choose keep it (the
  request counts through the AgreementExecutor, that is with the partner's trust, so it
  wins only if it is worth about as much as what the unit would do instead), for units
  whose own move is not already the subject of our requests.

After each phase a bot that reasons about trust lowers its trust in every power that
attacked it (``referee.compliance.attacks``) and in every power that broke a commitment
(the negotiation server's ``compliance`` reports), and raises it for kept commitments and
for neighbours that did not attack (lines 18-24; :mod:`bots.dipblue.trust`).

The archetypes:

- :class:`DipBlueNoPress`: no negotiation and no trust; MapTactician, FortuneTeller, TeamBuilder.
- :class:`DipBlueSlave`: every adviser; proposes nothing, accepts every proposal and every
  executable request, and its agreements go before anything else (a blind AgreementExecutor).
- :class:`DipBlueNaive`: every adviser, the whole negotiator, no trust reasoning (friction
  stays 1: a betrayal goes unnoticed, but peace and war still weigh).
- :class:`DipBlue`: the Naive with trust reasoning.

Retreats, builds and removals are DumbBot's (MapTactician's values alone, DumbBot's
randomness from ``self.rng``); movement orders have no randomness.

>>> import random
>>> from engine import Position
>>> bot = DipBlue(random.Random(1))
>>> bot.start("FRA", Position.initial().map)
>>> [str(m) for m in bot.on_phase(Position.initial())][:2]
['propose(fra, [aus], Agree([aus fra], pce([aus fra])))', 'propose(fra, [eng], Agree([eng fra], pce([eng fra])))']
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import ClassVar

import engine.orders as eo
from bots.base import LegalOrders, Outgoing, Results
from bots.dipblue.advisers import (
    Adviser,
    Agreement,
    AgreementExecutor,
    Board,
    FortuneTeller,
    MapTactician,
    TeamBuilder,
    WordKeeper,
)
from bots.dipblue.language import AllianceOffer, OrderRequest, PeaceOffer, alliance, answer, peace, read, request
from bots.dipblue.tactics import Plan, plan
from bots.dipblue.trust import Relations, TrustRules
from bots.dumbbot import DumbBot
from engine import legal_orders
from engine.maps import Map
from engine.position import ADJUSTMENTS, MOVEMENT, Phase, Position, Unit
from protocol.l import ast as a
from referee.compliance import attacks

__all__ = ["DipBlue", "DipBlueNaive", "DipBlueNoPress", "DipBlueSlave"]

ALL_ADVISERS: tuple[Adviser, ...] = (MapTactician(), FortuneTeller(), TeamBuilder(), WordKeeper(), AgreementExecutor())


class DipBlue(DumbBot):
    """The complete DipBlue: negotiation, every adviser, trust reasoning."""

    name = "dipblue"
    negotiates = True

    #: The advisers, in the order their values accumulate (section 4.3).
    ADVISERS: ClassVar[tuple[Adviser, ...]] = ALL_ADVISERS
    #: Proposes peace, alliances and order requests (all but the Slave).
    INITIATES: ClassVar[bool] = True
    #: Accepts every proposal and every executable request (the Slave).
    OBEYS: ClassVar[bool] = False
    #: Reasons about trust: attacks, betrayals and kept promises move the friction.
    LEARNS: ClassVar[bool] = True
    TRUST: ClassVar[TrustRules] = TrustRules()

    def __init__(self, rng: random.Random | None = None) -> None:
        super().__init__(rng)
        self.relations = Relations("", (), self.TRUST, self.LEARNS)
        self.agreements: dict[Unit, list[Agreement]] = {}
        self._phase = ""  # the movement phase the agreements and caches are for
        self._legal: LegalOrders = {}
        self._asked: set[Unit] = set()  # our units whose moves we asked partners to support
        self._proposed: set[a.Deal | a.Agree] = set()
        self._offered: set[tuple[str, str]] = set()  # (ally, enemy) of the alliances proposed
        self._peace_offered = False
        self._heard = ""  # the phase the negotiation server last announced
        self._reported: set[tuple[str, str, bool]] = set()  # (phase, power, kept) of the compliance counted

    def start(self, power: str, m: Map) -> None:
        super().start(power, m)
        self.relations = Relations(power, m.powers, self.TRUST, self.LEARNS)

    # --- orders ---------------------------------------------------------------------------------

    def orders(self, position: Position, legal: LegalOrders) -> list[eo.Order]:
        if position.phase.kind != MOVEMENT:
            return super().orders(position, legal)
        self._enter(position, legal)
        chosen = self.plan(position).orders
        return [chosen[u] for u in legal if u is not None]

    def plan(self, position: Position) -> Plan:
        """The advisers' orders for this movement phase, with the agreements made so far."""
        return plan(self.ADVISERS, self.board(position))

    def board(self, position: Position) -> Board:
        """What the advisers read this phase: DumbBot's spring or fall values, our relations and agreements."""
        self._enter(position)
        weights = self.SPRING if position.phase.season == "S" else self.FALL
        return Board(position, self.power, weights, self.SIZE, self.relations, self.agreements, self._legal)

    def _enter(self, position: Position, legal: LegalOrders | None = None) -> None:
        """Start the bookkeeping of a new movement phase (agreements last one phase)."""
        phase = str(position.phase)
        if phase != self._phase:
            self._phase = phase
            self.agreements = {}
            self._asked = set()
            self._legal = legal if legal is not None else legal_orders(position, self.power)

    # --- negotiation: what we propose ------------------------------------------------------------

    def on_phase(self, position: Position) -> Outgoing:
        if position.phase.kind != MOVEMENT or not self.INITIATES:
            return ()
        m = position.map
        alive = [p for p in m.powers if p != self.power and _alive(position, p)]
        out: list[a.Propose] = []
        if not self._peace_offered:
            self._peace_offered = True
            out += [peace(self.power, p) for p in alive]
        self.relations.review_peace()
        self._break_truce(position, alive)
        partners = [p for p in self.relations.partners() if p in alive]
        if partners:
            out += self._alliances(position, alive, partners)
            out += self._requests(position, partners)
        self._proposed.update(p.deal for p in out)
        return out

    def _break_truce(self, position: Position, alive: list[str]) -> None:
        """Section 4.2: with every power left alive at peace with us there is nobody to ally
        against, and DipBlue breaks the truce with the partner least beneficial to it, by the
        centres it holds and its proximity (:func:`least_beneficial`)."""
        relations = self.relations
        if not alive or not all(relations.at_peace(p) for p in alive):
            return
        relations.break_peace(least_beneficial(position, self.power, alive))

    def _alliances(self, position: Position, alive: list[str], partners: list[str]) -> list[a.Propose]:
        """Alliances against the strongest power not in peace with us, to the partners not yet asked."""
        rivals = [p for p in alive if not self.relations.at_peace(p)]
        if not rivals:
            return []
        counts = position.center_counts
        relations = self.relations
        enemy = max(rivals, key=lambda p: (counts[p], relations.at_war(p), relations.friction[p]))
        out = []
        for ally in partners:
            if (ally, enemy) not in self._offered:
                self._offered.add((ally, enemy))
                out.append(alliance(self.power, ally, enemy))
        return out

    def _requests(self, position: Position, partners: list[str]) -> list[a.Propose]:
        """Order requests to the partners' units next to where our units move (Algorithm 1, line 11)."""
        m = position.map
        board = self.board(position)
        chosen = plan(self.ADVISERS, board)
        friends = frozenset(partners)
        asked: set[Unit] = set()
        out = []
        for choice in chosen.moves():
            u, q = choice.candidate.unit, choice.candidate.province
            if choice.candidate.target in friends:
                continue  # no partner is asked to help against a partner
            need = board.opposition(q, ignoring=friends) - chosen.supports_of(u)
            for w in position.units:
                if w.power not in friends or w in asked or m.province_of[w.location] == q:
                    continue
                if q not in m.reach[w.type][w.location]:
                    continue
                asked.add(w)
                if need > 0:
                    need -= 1
                    self._asked.add(u)
                    support = eo.SupportMove(w.type, w.location, u.type, u.location, q)
                    out.append(request(position, self.power, w.power, support, negated=False))
                else:
                    steps = (m.army_moves, m.fleet_moves)[w.type][w.location]
                    for d in sorted(d for d in steps if m.province_of[d] == q):
                        move = eo.Move(w.type, w.location, d)
                        out.append(request(position, self.power, w.power, move, negated=True))
        return out

    # --- negotiation: what we hear ---------------------------------------------------------------

    def on_message(self, sender: str, message: a.Message, position: Position) -> Outgoing:
        if isinstance(message, a.Propose):
            if not self._fresh(position):
                return ()
            return (answer(self.power, message, self._consider(sender, message.deal, position)),)
        # an answer read late still answers our proposal: the peace or alliance holds all the same
        if isinstance(message, a.Accept | a.Reject) and message.deal in self._proposed:
            offer = read(message.deal, position.map, self.power)
            if isinstance(message, a.Reject):
                if isinstance(offer, PeaceOffer):
                    self.relations.rejected_peace(sender)
            elif isinstance(offer, PeaceOffer):
                self.relations.make_peace(sender)
            elif isinstance(offer, AllianceOffer):
                self.relations.ally_against(offer.allies, offer.enemies)
        return ()

    def _fresh(self, position: Position) -> bool:
        """Whether a proposal is of this phase: the server announced it, or it is the game's first
        (a proposal read after its phase ended, before this one's announcement, is stale: its orders
        were for a position that is gone)."""
        first = Phase(position.map.first_year, "S", MOVEMENT)
        return self._heard == str(position.phase) or position.phase == first

    def _consider(self, sender: str, deal: a.Deal | a.Agree, position: Position) -> bool:
        """Whether to accept a proposal from ``sender``; an accepted one takes effect at once."""
        offer = read(deal, position.map, self.power)
        relations = self.relations
        if isinstance(offer, PeaceOffer):
            ok = self.OBEYS or all(
                not relations.at_war(p) and relations.effective(p) < relations.rules.accept_peace for p in offer.others
            )
            if ok:
                for p in offer.others:
                    relations.make_peace(p)
            return ok
        if isinstance(offer, AllianceOffer):
            ok = self.OBEYS or (
                relations.at_peace(sender)
                and not any(relations.at_war(p) for p in offer.allies)
                and not any(relations.at_peace(p) for p in offer.enemies)
            )
            if ok:
                relations.ally_against(offer.allies, offer.enemies)
            return ok
        if isinstance(offer, OrderRequest) and position.phase.kind == MOVEMENT:
            return self._take(sender, offer, position)
        return False

    def _take(self, sender: str, offer: OrderRequest, position: Position) -> bool:
        """Accept an order request if its orders are ours to give and (unless obeying) the plan keeps them."""
        self._enter(position)
        if not (self.OBEYS or self.relations.at_peace(sender)):
            return False
        province_of = position.map.province_of
        new = []
        for order, negated in offer.orders:
            if isinstance(order, eo.Waive):
                return False
            unit = position.unit_at.get(province_of[order.location])
            if unit is None or unit.power != self.power or (unit.type, unit.location) != (order.type, order.location):
                return False
            if unit in self._asked or (not negated and order not in self._legal.get(unit, ())):
                return False
            if any(_clash(agreed, order, negated) for agreed in self.agreements.get(unit, ())):
                return False
            new.append(Agreement(unit, order, sender, negated))
        for agreement in new:
            self.agreements.setdefault(agreement.unit, []).append(agreement)
        if self.OBEYS:
            return True
        orders = self.plan(position).orders
        if all((orders[g.unit] == g.order) != g.negated for g in new):
            return True
        for agreement in new:
            self.agreements[agreement.unit].remove(agreement)
        return False

    def on_event(self, event: Mapping[str, object], position: Position) -> Outgoing:
        kind = event.get("type")
        if kind == "phase":
            self._heard = str(event.get("phase"))
        elif kind == "compliance" and self.LEARNS:
            reports = event.get("reports")
            for report in reports if isinstance(reports, list) else ():
                power = position.map.power(str(report["power"]))  # the frame writes it as L does: eng
                # one act is reported under every deal it touches (a peace and each alliance):
                # it counts once a phase, as a kept word and as a broken one
                seen = (str(event.get("phase")), power, bool(report["kept"]))
                if power == self.power or seen in self._reported:
                    continue
                self._reported.add(seen)
                if report["kept"]:
                    self.relations.kept(power)
                else:
                    self.relations.betrayed(power)
        return ()

    def on_results(self, before: Position, orders: Results, after: Position) -> None:
        """Trust from what was done (Algorithm 1, lines 18-24): attacks on us, quiet neighbours."""
        if not self.LEARNS or before.phase.kind == ADJUSTMENTS:
            return
        attackers = set()
        for hit in attacks(before, orders):
            if hit.victim == self.power:
                self.relations.attacked(hit.attacker)
                attackers.add(hit.attacker)
        if before.phase.kind == MOVEMENT:
            for power in sorted(_neighbours(before, self.power) - attackers):
                self.relations.quiet(power)


class DipBlueNaive(DipBlue):
    """DipBlue without trust reasoning: it negotiates alike but never notices a betrayal."""

    name = "dipblue:naive"
    LEARNS = False


class DipBlueSlave(DipBlue):
    """Proposes nothing, accepts everything it can do and does what it agreed before anything else."""

    name = "dipblue:slave"
    ADVISERS = (MapTactician(), FortuneTeller(), TeamBuilder(), WordKeeper(), AgreementExecutor(blind=True))
    INITIATES = False
    OBEYS = True
    LEARNS = False


class DipBlueNoPress(DipBlue):
    """The base of DipBlue: no negotiation, no trust; MapTactician, FortuneTeller and TeamBuilder."""

    name = "dipblue:nopress"
    negotiates = False
    ADVISERS = (MapTactician(), FortuneTeller(), TeamBuilder())
    INITIATES = False
    LEARNS = False


def _clash(agreed: Agreement, order: eo.Order, negated: bool) -> bool:
    """Whether a new agreement for the same unit contradicts ``agreed``: two different orders, or
    an order and its refusal."""
    if agreed.negated and negated:
        return False
    if agreed.negated or negated:
        return agreed.order == order
    return agreed.order != order


def _alive(position: Position, power: str) -> bool:
    return bool(position.units_of(power)) or bool(position.centers_of(power))


def least_beneficial(position: Position, me: str, partners: Sequence[str]) -> str:
    """The partner whose peace is worth least to ``me`` (section 4.2: "taking into account the
    number of supply centers held by the other powers and the proximity between the power
    under analysis and DipBlue in the map"): the most centres for the fewest moves between
    them, ``centres / (1 + distance)``, the distance being the fewest moves from a unit or
    centre of ours to a centre of theirs. The paper gives no formula: this is the plainest
    reading that grows with the centres and falls with the distance. Ties go to the first
    in the order of the powers.

    >>> position = Position.initial()
    >>> least_beneficial(position, "FRA", ["RUS", "GER", "TUR"])  # Russia has 4, Germany is next door
    'GER'
    """
    m = position.map
    province_of, distances = m.province_of, m.distances
    ours = {province_of[u.location] for u in position.units if u.power == me}
    ours |= {p for p, owner in enumerate(position.centers) if owner == me}

    def worth(power: str) -> float:
        theirs = [p for p, owner in enumerate(position.centers) if owner == power]
        near = min((distances[a][b] for a in ours for b in theirs if distances[a][b] >= 0), default=len(distances))
        return len(theirs) / (1 + near)

    return max(sorted(partners, key=m.powers.index), key=worth)


def _neighbours(position: Position, power: str) -> set[str]:
    """The other powers with a unit in or next to a province where ``power`` has a unit or a centre."""
    m = position.map
    province_of = m.province_of
    ours = {province_of[u.location] for u in position.units if u.power == power}
    ours |= {p for p, owner in enumerate(position.centers) if owner == power}
    return {
        u.power
        for u in position.units
        if u.power != power and (province_of[u.location] in ours or not ours.isdisjoint(m.reach[u.type][u.location]))
    }

"""The bridge between DAIDE press and L (issue 5): the same press in either language, or an
error that says which construct the other language lacks.

A DAIDE bot's press reaches the negotiation clients of a game as L, and their L reaches
the DAIDE bots as ``FRM`` press. Both directions are pure functions of the press, its
sender and recipients, and (where a construct needs it) the game's position:

>>> from protocol.daide.parser import parse_press
>>> from protocol.l import parse
>>> message = daide_to_l("ENG", ("FRA",), parse_press("PRP (AND (PCE (ENG FRA)) (DRW (ENG FRA)))"), None)
>>> str(message)
'propose(eng, [fra], Agree([eng fra], drw([eng fra]) & pce([eng fra])))'
>>> sender, recipients, press = l_to_daide(message, None)
>>> sender, recipients, str(press)
('ENG', ('FRA',), 'PRP (AND (DRW (ENG FRA)) (PCE (ENG FRA)))')
>>> bridgeable_press(parse_press("PRP (ORR (PCE (ENG FRA)) (DRW))"))
'DAIDE ORR (a choice between arrangements) has no counterpart in L: L formulas have & and ~ but no "or"'

The mapping, for press from S to the recipients R (the *parties* are S and R together):

=====================================  ==================================================
DAIDE press                            L message
=====================================  ==================================================
``PRP (arr)``                          ``propose(s, R, deal(arr))``
``YES (PRP (arr))``                    ``accept(s, R, deal(arr))``
``REJ (PRP (arr))``                    ``reject(s, R, deal(arr))``
``CCL (PRP (arr))``                    ``withdraw(s, R)``: the deal is that of s's pending
                                       proposal to R, which ``l_to_daide`` looks up
``FCT (arr)``                          ``inform(s, R, f(arr))``
``THK (arr)``                          ``inform(s, R, Belief(s, f(arr)))``
``QRY (arr)``                          ``query(s, R, f(arr))``
``FCT (QRY (arr))``                    ``answer(s, R, f(arr))``
``FCT (NAR (QRY (arr)))``              ``answer(s, R, ~f(arr))``
``THK (QRY (arr))``                    ``answer(s, R, Belief(s, f(arr)))``
``THK (NAR (QRY (arr)))``              ``answer(s, R, Belief(s, ~f(arr)))``
``IDK (QRY (arr))``                    ``answer(s, R, Unknown(s, f(arr)))``
=====================================  ==================================================

``deal(arr)`` is a deal of commitments when every conjunct of ``f(arr)`` (the operands of
its ``&``, or itself) is a pledge, ``Do(action)`` or ``~Do(action)``: one
``Commit(o, parties - o, pledge)`` per conjunct, where o is the power that gives the order
(the owner of the ordered unit). Otherwise it is ``Agree(parties, f(arr))``. DAIDE agrees
an arrangement among the proposer and every recipient (each recipient answers ``YES`` to
the proposer and all other recipients), hence the parties; since they depend only on who
talks, a ``YES`` sent as DAIDE prescribes becomes an ``accept`` of the very deal proposed.

``f(arr)``, an arrangement as an L formula, and back:

=====================================  ==================================================
DAIDE arrangement                      L formula
=====================================  ==================================================
``PCE (p ...)``                        ``pce([p ...])``
``ALY (p ...) VSS (q ...)``            ``aly([p ...], [q ...])``
``DMZ (p ...) (province ...)``         ``dmz([p ...], [province ...])``
``DRW (p ...)``                        ``drw([p ...])``; a bare ``DRW`` (every surviving
                                       power) needs the position to name them
``SLO (p)``                            ``slo(p)``
``XDO (order)``                        ``Do(action)`` (below)
``FOR (turn) (XDO (order))``           ``Do(action, (season, year))``
``NOT (arr)``                          ``~f(arr)``
``AND (arr) (arr) ...``                ``f(arr) & f(arr) & ...``
=====================================  ==================================================

Orders and actions correspond one to one, ``(ENG FLT LON) MTO NTH`` to
``mto(Unit(eng, Region(lon, coast)), Region(nth, sea))``, ``HLD SUP CVY CTO RTO DSB BLD
REM WVE`` to ``hld sup cvy cto rto dsb bld rem wve``. Both name every unit's owner (the
engine's orders do not, so whole orders do not go through them, only units' places, with
:mod:`protocol.l.actions` and :mod:`protocol.daide.orders`). Where DAIDE names a
province and L a region, the region is the one the unit can be in or reach: a fleet's
move, retreat or supported move to ``SPA`` is to the one coast of Spain it can reach (an
error when it can reach both, as a fleet in MAO can), and an L ``sup`` or ``cvy`` of a
move to a coast is bridged only when it is that coast. ``cto`` without a route becomes
``CTO ... VIA`` over the fleets of the position (it needs one); the route comes back.

Normal forms: L's sets and ``&`` are sorted, so DAIDE press comes back from a round
trip with its lists sorted, nested ``AND`` flattened and the parts of ``AND`` in the
order of L's normal form (repeated pledges once); ``FCT (QRY (NOT (arr)))`` comes back as
``FCT (NAR (QRY (arr)))`` (both say that arr is not true, and L's answer cannot tell
them apart), a bare ``DRW`` as ``DRW (p ...)``, a fleet's ``MTO SPA`` with its coast.
Otherwise the two directions are inverse: ``daide_to_l(*l_to_daide(m, position),
position) == m`` for every L message that bridges, but for a ``cto`` whose route the
position gave. L's ``withdraw`` withdraws every pending proposal to exactly R, DAIDE's
``CCL`` one: the lookup says which (the server's choice, say the latest).

No counterpart in L (``daide_to_l`` raises :class:`BridgeError`): ``ORR NAR SCD OCC CHO
XOY YDO``, ``FOR`` over a range of turns or around anything but ``XDO``, the
arrangements ``SND FWD BCC``; the press ``INS SUG WHT HOW EXP IFF BWX HUH TRY SRY WHY
POB FRM``, free text, ``YES``/``REJ``/``CCL`` of anything but ``PRP``, ``IDK`` of anything
but ``QRY``; loosely written orders (``(FLT LON) HLD``).

No counterpart in DAIDE (``l_to_daide`` raises): ``Feel Obs Desire Explain Attack
Support``, ``->``, ``;``, time comparisons and time variables, a time argument anywhere
but on ``Do``, an illocution inside another, ``Belief`` but the sender's at the top of
an inform or answer, ``Unknown`` but the sender's at the top of an answer, ``Agree`` or
``Commit`` as information, an ``Agree`` whose agents are not the parties or whose
conjuncts are all pledges (DAIDE's ``XDO`` is a commitment: say it with ``Commit``), a
``Commit`` whose formula is not one pledge of the committing power or whose agents are
not the other parties, ``withdraw`` with no pending proposal to look up.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import TypeAlias, TypeGuard

from engine.maps import ARMY, FLEET, LAND, SEA, Map, standard_map
from engine.position import Position
from protocol.daide import messages as d
from protocol.daide.orders import convoy_route, location_from_engine, location_to_engine
from protocol.l import ast as a
from protocol.l.actions import region_from_location, region_to_location

__all__ = ["BridgeError", "PendingDeals", "bridgeable_press", "daide_to_l", "l_to_daide"]

LDeal: TypeAlias = a.Deal | a.Agree
#: What ``l_to_daide`` asks for the deal of a pending proposal: given the sender's power
#: token and the recipients' (``"ENG"``, ``frozenset({"FRA"})``), a mapping of those pairs
#: or a function of them.
PendingDeals: TypeAlias = Mapping[tuple[str, frozenset[str]], LDeal] | Callable[[str, frozenset[str]], LDeal | None]


class BridgeError(ValueError):
    """Press that one language can say and the other cannot; the text says which construct.

    >>> str(BridgeError("DAIDE INS has no counterpart in L"))
    'DAIDE INS has no counterpart in L'
    """


# --- what has no counterpart ------------------------------------------------------------------

_NO_L: dict[type, str] = {
    d.Orr: 'ORR (a choice between arrangements) has no counterpart in L: L formulas have & and ~ but no "or"',
    d.Nar: "NAR (the lack of an arrangement) has no counterpart in L",
    d.Scd: "SCD (a sharing out of supply centres) has no counterpart in L's ontology",
    d.Occ: "OCC (units to be placed) has no counterpart in L's ontology",
    d.Cho: "CHO (a choice of some of the arrangements) has no counterpart in L",
    d.Xoy: "XOY (a favour owed) has no counterpart in L's ontology",
    d.Ydo: "YDO (control of units given to a power) has no counterpart in L's ontology",
    d.SndArrangement: "SND as an arrangement (press to be sent) has no counterpart in L",
    d.Fwd: "FWD (press to be forwarded) has no counterpart in L",
    d.Bcc: "BCC (press to be copied) has no counterpart in L",
    d.Ins: "INS (insisting on an arrangement) has no counterpart in L, which proposes but does not insist",
    d.Sug: "SUG (suggesting what is in the parties' interest) has no counterpart in L",
    d.Wht: "WHT (asking what a unit should do) has no counterpart in L",
    d.How: "HOW (asking how to attack) has no counterpart in L",
    d.Exp: "EXP (asking to explain a turn's orders) has no counterpart in L",
    d.Iff: "IFF (a conditional statement) has no counterpart in L, whose -> joins information, not proposals",
    d.Bwx: "BWX (refusing to answer) has no counterpart in L",
    d.Huh: "HUH (press not understood) has no counterpart in L",
    d.Try: "TRY (the tokens a player understands) has no counterpart in L",
    d.Sry: "SRY (an apology) has no counterpart in L",
    d.Why: "WHY (asking for a reason) has no counterpart in L",
    d.Pob: "POB (the position on the board as a reason) has no counterpart in L",
    d.Frm: "FRM (forwarded press) has no counterpart in L",
}

_NO_DAIDE: dict[type, str] = {
    a.Feel: "L's Feel has no counterpart in DAIDE press, which has no feelings",
    a.Obs: "L's Obs has no counterpart in DAIDE press, which cannot say what a power observed",
    a.Desire: "L's Desire has no counterpart in DAIDE press, which cannot say what a power desires",
    a.Explain: "L's Explain has no counterpart in DAIDE press (EXP asks about a turn's orders)",
    a.Attack: "L's Attack has no counterpart in DAIDE press, which has no arguments",
    a.Support: "L's Support (of an argument) has no counterpart in DAIDE press, which has no arguments",
    a.Implies: "L's -> has no counterpart in DAIDE press (IFF conditions proposals, not information)",
    a.Seq: "L's ; (a sequence) has no counterpart in DAIDE press, whose arrangements have no order in time",
    a.TimeCmp: "L's time comparison has no counterpart in DAIDE press, which names turns, not time variables",
    a.Belief: "L's Belief has a DAIDE counterpart (THK) only as the sender's, at the top of an inform or answer",
    a.Unknown: "L's Unknown has a DAIDE counterpart (IDK (QRY ...)) only as the sender's, at the top of an answer",
    a.Agree: (
        "L's Agree as information has no counterpart in DAIDE press: FCT, QRY and THK say that an arrangement "
        "holds, not who agreed to it; say the formula itself, e.g. pce([ita rus])"
    ),
    a.Deal: (
        "L's Commit as information has no counterpart in DAIDE press: FCT, QRY and THK say that an arrangement "
        "holds, not who committed to it; say the formula itself, e.g. Do(...)"
    ),
    **dict.fromkeys(
        a.MESSAGE_TYPES, "L's illocution inside another has no counterpart in DAIDE press, which cannot quote press"
    ),
}


def _head(value: object) -> str:
    """The token that starts a DAIDE value, or "free text"."""
    return value.tokens()[0] if isinstance(value, d.Value) else "free text"


def _no_l(value: object) -> BridgeError:
    explanation = _NO_L.get(type(value), f"{_head(value)} has no counterpart in L")
    return BridgeError(f"DAIDE {explanation}")


def _no_daide(node: object) -> BridgeError:
    return BridgeError(_NO_DAIDE[type(node)])


def _no_time(node: a.Node) -> None:
    if getattr(node, "time", None) is not None:
        raise BridgeError(
            f"L's time argument of {type(node).__name__} has no counterpart in DAIDE press: "
            "DAIDE's FOR gives a turn to an XDO only, which L writes Do(action, (season, year))"
        )


# --- the board: powers, provinces, regions -------------------------------------------------------


@functools.lru_cache(maxsize=8)
def _provinces(m: Map) -> dict[str, int]:
    return {m.locations[p]: p for p in m.provinces}


def _province(m: Map, name: str) -> int:
    try:
        return _provinces(m)[name.upper()]
    except KeyError:
        raise BridgeError(f"there is no province {name.upper()} on the map") from None


class _Board:
    """The map and position that press is about, and the translation of its names."""

    def __init__(self, position: Position | None) -> None:
        self.position = position
        self.map = standard_map() if position is None else position.map

    # powers and provinces

    def power(self, name: str) -> str:
        """The power ``name``, checked to be on the map."""
        if name not in self.map.powers:
            raise BridgeError(f"there is no power {name} on the map")
        return name

    def powers_to_l(self, tokens: Sequence[str]) -> frozenset[str]:
        if not tokens:
            raise BridgeError("a list of powers is empty")
        return frozenset(self.power(t) for t in tokens)

    def powers_to_daide(self, names: frozenset[str]) -> tuple[str, ...]:
        return tuple(sorted(self.power(n) for n in names))

    def provinces_to_l(self, names: Sequence[str]) -> frozenset[str]:
        if not names:
            raise BridgeError("a list of provinces is empty")
        return frozenset(self.map.locations[_province(self.map, n)].lower() for n in names)

    def provinces_to_daide(self, names: frozenset[str]) -> tuple[str, ...]:
        return tuple(sorted(self.map.locations[_province(self.map, n)] for n in names))

    def surviving(self) -> tuple[str, ...]:
        """The powers with a unit or a centre: those a bare ``DRW`` names."""
        if self.position is None:
            raise BridgeError("DAIDE's bare DRW means a draw of every surviving power: naming them needs the position")
        p = self.position
        owners = {u.power for u in p.units} | {g.unit.power for g in p.dislodged} | {o for o in p.centers if o}
        return tuple(sorted(owners))

    # regions and locations

    def region_to_l(self, unit_type: str, place: d.Location, origin: int | None, what: object) -> a.Region:
        """The L region of a unit of ``unit_type`` at DAIDE's ``place`` (in ``what``); a fleet
        going to a province of coasts without naming one goes to the coast it can reach from
        ``origin``."""
        m = self.map
        p = _province(m, place.province)
        problem = f"DAIDE's {what} has no counterpart in L:"
        if unit_type == "AMY":
            if place.coast is not None or m.kind[p] == SEA:
                raise BridgeError(f"{problem} an army cannot be in {place}")
            return region_from_location(m, ARMY, p)
        if unit_type != "FLT":
            raise BridgeError(f"{problem} L's units are armies and fleets, not {unit_type}")
        if m.kind[p] == LAND:
            raise BridgeError(f"{problem} a fleet cannot be in inland {place}")
        if place.coast is not None:
            location = location_to_engine(place, m)
            if location_from_engine(location, m) != place:  # the engine drops a coast the province lacks
                raise BridgeError(f"{problem} {place.province} has no coast {place.coast}")
        elif m.coasts[p]:
            if origin is None:
                raise BridgeError(f"{problem} a fleet in {place.province} is on one of its coasts, which L names")
            reachable = [c for c in m.coasts[p] if c in m.fleet_moves[origin]]
            if len(reachable) != 1:
                how = "several coasts" if reachable else "no coast"
                raise BridgeError(
                    f"{problem} the fleet reaches {how} of {place.province}, and L's region names the one it goes to"
                )
            location = reachable[0]
        else:
            location = p
        return region_from_location(m, FLEET, location)

    def location(self, region: a.Region) -> d.Location:
        """DAIDE's place of an L region, which must be one of the map's."""
        m = self.map
        p = _province(m, region.province)
        fits: tuple[str, ...]
        if m.kind[p] == SEA:
            fits = ("sea",)
        elif m.kind[p] == LAND:
            fits = ("amy",)
        elif m.coasts[p]:
            fits = ("amy", *((location_from_engine(c, m).coast or "").lower() for c in m.coasts[p]))
        else:
            fits = ("amy", "coast")
        if region.rtype not in fits:
            raise BridgeError(f"L's {region} is no region of the map: {m.locations[p]} has {' '.join(fits)}")
        return location_from_engine(region_to_location(m, region)[1], m)

    @staticmethod
    def unit_type(unit: a.Unit) -> str:
        return "AMY" if unit.region.rtype == "amy" else "FLT"

    def origin(self, unit: a.Unit) -> int:
        return region_to_location(self.map, unit.region)[1]

    # units

    def unit_to_l(self, unit: d.DaideUnit | d.LooseUnit) -> a.Unit:
        if isinstance(unit, d.LooseUnit):
            raise BridgeError(f"DAIDE's unit {unit} is loosely written: L names every unit's power and type")
        region = self.region_to_l(unit.unit_type, unit.location, None, str(unit))
        return a.Unit(self.power(unit.power), region)

    def unit_to_daide(self, unit: a.Unit) -> d.DaideUnit:
        place = self.location(unit.region)
        return d.DaideUnit(self.power(unit.power), self.unit_type(unit), place)

    def destination(self, unit: a.Unit, region: a.Region) -> d.Location:
        """DAIDE's place of a move's destination: where a unit of that type can go."""
        if (unit.region.rtype == "amy") != (region.rtype == "amy"):
            kind = "an army" if unit.region.rtype == "amy" else "a fleet"
            raise BridgeError(f"L's {unit} is {kind} and cannot go to {region}")
        return self.location(region)

    def province_only(self, unit: a.Unit, region: a.Region, token: str) -> d.Location:
        """The province of a move that DAIDE's SUP or CVY names without its coast: the region
        must be the one the province stands for."""
        province = d.Location(self.destination(unit, region).province)
        try:
            said = self.region_to_l(self.unit_type(unit), province, self.origin(unit), token) == region
        except BridgeError:
            said = False
        if not said:
            raise BridgeError(
                f"L's {region} as where {unit} goes has no counterpart in DAIDE: {token} names the province "
                f"{province} only, which says {region} only when it is the one coast of {province} the unit reaches"
            )
        return province

    def turn_to_l(self, turn: d.Turn) -> a.Turn:
        if turn.year < 0:
            raise BridgeError(f"L has no year {turn.year}")
        return turn

    # orders and actions

    def action(self, order: d.Order) -> a.Action:
        """The L action of a DAIDE order."""
        if isinstance(order, d.Waive):
            if order.power is None:
                raise BridgeError("DAIDE's WVE names no power: L's wve needs one")
            return a.Wve(self.power(order.power))
        unit = self.unit_to_l(order.unit)
        origin = self.origin(unit)
        if isinstance(order, d.Hold):
            return a.Hld(unit)
        if isinstance(order, d.Move | d.Retreat | d.MoveByConvoy):
            region = self.region_to_l(self.unit_type(unit), order.destination, origin, str(order))
            if isinstance(order, d.MoveByConvoy):
                return a.Cto(unit, region, tuple(s.lower() for s in self.seas(order.via or ())))
            return a.Mto(unit, region) if isinstance(order, d.Move) else a.Rto(unit, region)
        if isinstance(order, d.SupportHold):
            return a.Sup(unit, a.Hld(self.unit_to_l(order.supported)))
        if isinstance(order, d.SupportMove | d.Convoy):
            other = self.unit_to_l(order.supported if isinstance(order, d.SupportMove) else order.army)
            region = self.region_to_l(self.unit_type(other), order.destination, self.origin(other), str(order))
            if isinstance(order, d.SupportMove):
                return a.Sup(unit, a.Mto(other, region))
            return a.Cvy(unit, a.Cto(other, region))
        if isinstance(order, d.Disband):
            return a.Dsb(unit)
        if isinstance(order, d.Remove):
            return a.Rem(unit)
        return a.Bld(unit)

    def order(self, action: a.Action) -> d.Order:
        """The DAIDE order of an L action."""
        if isinstance(action, a.Wve):
            return d.Waive(self.power(action.power))
        unit = self.unit_to_daide(action.unit)
        if isinstance(action, a.Hld):
            return d.Hold(unit)
        if isinstance(action, a.Mto):
            return d.Move(unit, self.destination(action.unit, action.region))
        if isinstance(action, a.Rto):
            return d.Retreat(unit, self.destination(action.unit, action.region))
        if isinstance(action, a.Cto):
            destination = self.destination(action.unit, action.region)
            return d.MoveByConvoy(unit, destination, self.route(action))
        if isinstance(action, a.Sup):
            supported = self.unit_to_daide(action.order.unit)
            if isinstance(action.order, a.Hld):
                return d.SupportHold(unit, supported)
            return d.SupportMove(unit, supported, self.province_only(action.order.unit, action.order.region, "SUP"))
        if isinstance(action, a.Cvy):
            army = self.unit_to_daide(action.move.unit)
            return d.Convoy(unit, army, self.province_only(action.move.unit, action.move.region, "CVY"))
        if isinstance(action, a.Dsb):
            return d.Disband(unit)
        if isinstance(action, a.Rem):
            return d.Remove(unit)
        return d.Build(unit)

    def route(self, move: a.Cto) -> tuple[str, ...]:
        """The seas of a convoyed move: L's route, or else a shortest one over the position's fleets."""
        m = self.map
        if move.route:
            return self.seas(move.route)
        if self.position is None:
            raise BridgeError(f"{move} has no route, and DAIDE's CTO ... VIA needs one: finding it needs the position")
        fleets = frozenset(
            m.province_of[u.location]
            for u in self.position.units
            if u.type == FLEET and m.kind[m.province_of[u.location]] == SEA
        )
        start, end = region_to_location(m, move.unit.region)[1], region_to_location(m, move.region)[1]
        found = convoy_route(m, start, end, fleets)
        if found is None:
            raise BridgeError(f"{move} has no route, and no chain of fleets in the position makes one for DAIDE's VIA")
        return found

    def seas(self, names: Sequence[str]) -> tuple[str, ...]:
        """The provinces of a convoy route, which are seas, as DAIDE names them."""
        provinces = [_province(self.map, name) for name in names]
        if any(self.map.kind[p] != SEA for p in provinces):
            raise BridgeError(f"the convoy route {' '.join(names)} goes over land, and DAIDE's VIA lists seas")
        return tuple(self.map.locations[p] for p in provinces)

    # arrangements and formulas

    def formula(self, arrangement: object) -> a.Formula:
        """The L formula of a DAIDE arrangement."""
        if isinstance(arrangement, d.Pce):
            return a.Pce(self.powers_to_l(arrangement.powers))
        if isinstance(arrangement, d.Aly):
            return a.Aly(self.powers_to_l(arrangement.allies), self.powers_to_l(arrangement.versus))
        if isinstance(arrangement, d.Dmz):
            return a.Dmz(self.powers_to_l(arrangement.powers), self.provinces_to_l(arrangement.provinces))
        if isinstance(arrangement, d.Drw):
            return a.Drw(self.powers_to_l(arrangement.powers or self.surviving()))
        if isinstance(arrangement, d.Slo):
            return a.Slo(self.power(arrangement.power))
        if isinstance(arrangement, d.Xdo):
            return a.Do(self.action(arrangement.order))
        if isinstance(arrangement, d.For):
            if arrangement.end is not None or not isinstance(arrangement.arrangement, d.Xdo):
                raise BridgeError(
                    "DAIDE FOR has a counterpart in L only for one turn around an XDO: L gives a time to Do only"
                )
            return a.Do(self.action(arrangement.arrangement.order), self.turn_to_l(arrangement.start))
        if isinstance(arrangement, d.Not):
            return a.Not(self.formula(arrangement.content))
        if isinstance(arrangement, d.And):
            if len(arrangement.parts) < 2:
                raise BridgeError("DAIDE's AND needs two arrangements at least")
            return a.And(tuple(self.formula(part) for part in arrangement.parts))
        raise _no_l(arrangement)

    def arrangement(self, formula: object) -> d.Arrangement:
        """The DAIDE arrangement of an L formula."""
        if isinstance(formula, a.Pce):
            return d.Pce(self.powers_to_daide(formula.powers))
        if isinstance(formula, a.Aly):
            return d.Aly(self.powers_to_daide(formula.allies), self.powers_to_daide(formula.enemies))
        if isinstance(formula, a.Dmz):
            return d.Dmz(self.powers_to_daide(formula.powers), self.provinces_to_daide(formula.provinces))
        if isinstance(formula, a.Drw):
            return d.Drw(self.powers_to_daide(formula.powers))
        if isinstance(formula, a.Slo):
            return d.Slo(self.power(formula.power))
        if isinstance(formula, a.Do):
            xdo = d.Xdo(self.order(formula.action))
            if formula.time is None:
                return xdo
            if isinstance(formula.time, a.TimeVar):
                raise BridgeError(f"L's time variable {formula.time} has no counterpart in DAIDE, which names turns")
            return d.For(formula.time, None, xdo)
        if isinstance(formula, a.Not):
            return d.Not(self.arrangement(formula.operand))
        if isinstance(formula, a.And):
            return d.And(tuple(self.arrangement(operand) for operand in formula.operands))
        raise _no_daide(formula)

    # deals

    def deal_to_l(self, arrangement: d.Arrangement, parties: frozenset[str]) -> LDeal:
        formula = self.formula(arrangement)
        conjuncts = formula.operands if isinstance(formula, a.And) else (formula,)
        pledges = [c for c in conjuncts if _is_pledge(c)]
        if len(pledges) == len(conjuncts):
            return a.Deal(frozenset(a.Commit(_pledger(c), parties - {_pledger(c)}, c) for c in pledges))
        return a.Agree(parties, formula)

    def deal_to_daide(self, deal: LDeal, parties: frozenset[str]) -> d.Arrangement:
        named = " ".join(sorted(p.lower() for p in parties))  # as L writes them
        if isinstance(deal, a.Agree):
            _no_time(deal)
            if deal.agents != parties:
                raise BridgeError(
                    f"L's {deal} has no counterpart in DAIDE, whose arrangements are agreed among the sender and "
                    f"the recipients: the agents must be [{named}]"
                )
            conjuncts = deal.formula.operands if isinstance(deal.formula, a.And) else (deal.formula,)
            if all(_is_pledge(c) for c in conjuncts):
                raise BridgeError(
                    f"L's {deal} is said in DAIDE with XDO, a commitment of the power that gives the order: "
                    "write it as Commit(power, [the other parties], Do(...)), one per order"
                )
            return self.arrangement(deal.formula)
        parts: list[d.Arrangement] = []
        for commit in sorted(deal.commits, key=str):
            _no_time(commit)
            if not _is_pledge(commit.formula):
                raise BridgeError(
                    f"L's {commit} has no counterpart in DAIDE, whose XDO commits a power to one order "
                    "(Do(action) or ~Do(action)): say several pledges as several Commits, anything else with Agree"
                )
            pledger = _pledger(commit.formula)
            if commit.agent != pledger:
                raise BridgeError(
                    f"L's {commit} has no counterpart in DAIDE: an XDO commits the power that gives the order, {pledger.lower()}"
                )
            if commit.agents != parties - {pledger}:
                others = " ".join(sorted(p.lower() for p in parties - {pledger}))
                raise BridgeError(
                    f"L's {commit} has no counterpart in DAIDE, whose arrangements bind the sender and the "
                    f"recipients: {pledger.lower()} commits to [{others}]"
                )
            parts.append(self.arrangement(commit.formula))
        return parts[0] if len(parts) == 1 else d.And(tuple(parts))


def _is_pledge(formula: object) -> TypeGuard[a.Do | a.Not]:
    """``Do(action)`` or ``~Do(action)``: what one power commits to with an XDO."""
    return isinstance(formula, a.Do) or (isinstance(formula, a.Not) and isinstance(formula.operand, a.Do))


def _pledger(pledge: a.Do | a.Not) -> str:
    """The power that gives the order of a pledge."""
    do = pledge.operand if isinstance(pledge, a.Not) else pledge
    assert isinstance(do, a.Do)
    action = do.action
    return action.power if isinstance(action, a.Wve) else action.unit.power


# --- DAIDE to L ----------------------------------------------------------------------------------


def daide_to_l(sender: str, recipients: Sequence[str], press: d.Value | str, position: Position | None) -> a.Message:
    """The L message of DAIDE ``press`` from ``sender`` to ``recipients`` (power tokens),
    about ``position`` (needed for a bare ``DRW`` only; None: the standard map).

    >>> from protocol.daide.parser import parse_press
    >>> str(daide_to_l("ITA", ["RUS"], parse_press("PRP (XDO ((ITA AMY MAR) MTO PAR))"), None))
    'propose(ita, [rus], Commit(ita, [rus], Do(mto(Unit(ita, Region(mar, amy)), Region(par, amy)))))'
    >>> str(daide_to_l("ENG", ["ITA"], parse_press("FCT (NAR (QRY (PCE (ITA RUS))))"), None))
    'answer(eng, [ita], ~pce([ita rus]))'

    Raises :class:`BridgeError` when L cannot say it.
    """
    board = _Board(position)
    alpha = board.power(sender)
    beta = board.powers_to_l(recipients)
    if alpha in beta:
        raise BridgeError(f"{sender} sends press to itself")
    parties = beta | {alpha}
    if isinstance(press, d.Prp):
        return a.Propose(alpha, beta, board.deal_to_l(press.arrangement, parties))
    if isinstance(press, d.Yes | d.Rej | d.Ccl):
        inner = press.press if isinstance(press, d.Ccl) else press.content
        if not isinstance(inner, d.Prp):
            raise BridgeError(
                f"DAIDE {_head(press)} ({_head(inner)} ...) has no counterpart in L, "
                "whose accept, reject and withdraw answer proposals only"
            )
        deal = board.deal_to_l(inner.arrangement, parties)
        if isinstance(press, d.Yes):
            return a.Accept(alpha, beta, deal)
        if isinstance(press, d.Rej):
            return a.Reject(alpha, beta, deal)
        return a.Withdraw(alpha, beta)
    if isinstance(press, d.Qry):
        return a.Query(alpha, beta, board.formula(press.arrangement))
    if isinstance(press, d.Fct | d.Thk | d.Idk):
        content = press.content
        negated = isinstance(content, d.Nar) and isinstance(content.content, d.Qry)
        if isinstance(content, d.Nar) and negated:
            content = content.content
        replying = isinstance(content, d.Qry)
        if isinstance(press, d.Idk) and (negated or not replying):
            raise BridgeError(
                f"DAIDE IDK ({_head(press.content)} ...) has no counterpart in L: L's Unknown answers a query only"
            )
        info: a.Info = board.formula(content.arrangement if isinstance(content, d.Qry) else content)
        if negated:
            info = a.Not(info)
        if isinstance(press, d.Thk):
            info = a.Belief(alpha, info)
        elif isinstance(press, d.Idk):
            info = a.Unknown(alpha, info)
        return (a.Answer if replying else a.Inform)(alpha, beta, info)
    raise _no_l(press)


def bridgeable_press(press: d.Value | str, position: Position | None = None) -> str | None:
    """None when DAIDE ``press`` has an L form, otherwise why not (``position`` as for
    :func:`daide_to_l`).

    >>> from protocol.daide.parser import parse_press
    >>> bridgeable_press(parse_press("PRP (PCE (ENG FRA))")) is None
    True
    >>> bridgeable_press(parse_press("INS (PCE (ENG FRA))"))
    'DAIDE INS (insisting on an arrangement) has no counterpart in L, which proposes but does not insist'
    """
    # Whether L can say it does not depend on who says it: any two powers will do.
    first, second = sorted((standard_map() if position is None else position.map).powers)[:2]
    try:
        daide_to_l(first, (second,), press, position)
    except BridgeError as e:
        return str(e)
    return None


# --- L to DAIDE ----------------------------------------------------------------------------------


def l_to_daide(
    message: a.Message, position: Position | None, pending: PendingDeals | None = None
) -> tuple[str, tuple[str, ...], d.Value]:
    """The sender's power token, the recipients' and the DAIDE press of an L ``message``
    about ``position`` (needed for a ``cto`` without route only; None: the standard map).

    ``pending`` gives the deal of the sender's pending proposal to exactly the recipients,
    which DAIDE's ``CCL`` repeats and L's ``withdraw`` does not.

    >>> from protocol.l import parse, Agree, Pce
    >>> sender, recipients, press = l_to_daide(parse("withdraw(eng, fra)"), None,
    ...                                         {("ENG", frozenset({"FRA"})): Agree({"eng", "fra"}, Pce({"eng", "fra"}))})
    >>> sender, recipients, str(press)
    ('ENG', ('FRA',), 'CCL (PRP (PCE (ENG FRA)))')
    >>> l_to_daide(parse("inform(eng, fra, Feel(eng, Happy))"), None)
    Traceback (most recent call last):
      ...
    protocol.bridge.BridgeError: L's Feel has no counterpart in DAIDE press, which has no feelings

    Raises :class:`BridgeError` when DAIDE cannot say it.
    """
    board = _Board(position)
    sender = board.power(message.sender)
    recipients = board.powers_to_daide(message.receivers)
    if sender in recipients:
        raise BridgeError(f"{sender} sends press to itself")
    _no_time(message)
    parties = message.receivers | {message.sender}
    press: d.Value
    if isinstance(message, a.Propose | a.Accept | a.Reject):
        proposal = d.Prp(board.deal_to_daide(message.deal, parties))
        press = (
            proposal
            if isinstance(message, a.Propose)
            else (d.Yes if isinstance(message, a.Accept) else d.Rej)(proposal)
        )
    elif isinstance(message, a.Withdraw):
        key = (sender, frozenset(recipients))
        deal = pending.get(key) if isinstance(pending, Mapping) else None if pending is None else pending(*key)
        if deal is None:
            raise BridgeError(
                f"DAIDE's CCL repeats the proposal it cancels, and {sender} has no pending proposal to "
                f"{' '.join(recipients)} to withdraw"
            )
        press = d.Ccl(d.Prp(board.deal_to_daide(deal, parties)))
    elif isinstance(message, a.Query):
        press = d.Qry(board.arrangement(message.info))
    else:
        press = _statement(board, message)
    return sender, recipients, press


def _statement(board: _Board, message: a.Inform | a.Answer) -> d.Value:
    """``FCT``, ``THK`` or ``IDK`` for an inform or an answer."""
    info = message.info
    answer = isinstance(message, a.Answer)
    if isinstance(info, a.Belief | a.Unknown):
        _no_time(info)
        if info.agent != message.sender or (isinstance(info, a.Unknown) and not answer):
            raise _no_daide(info)
        inner = info.formula if isinstance(info, a.Belief) else info.info
        if isinstance(info, a.Unknown):
            return d.Idk(d.Qry(board.arrangement(inner)))
        return d.Thk(_reply(board, inner) if answer else board.arrangement(inner))
    return d.Fct(_reply(board, info) if answer else board.arrangement(info))


def _reply(board: _Board, info: a.Info) -> d.Qry | d.Nar:
    """The reply to a query that ``info`` is true: ``QRY (arr)``, or ``NAR (QRY (arr))`` for ``~arr``."""
    if isinstance(info, a.Not):
        return d.Nar(d.Qry(board.arrangement(info.operand)))
    return d.Qry(board.arrangement(info))

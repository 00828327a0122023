"""Adjudication of a movement phase, by the DATC v3.0 rules and preferences.

Orders are first checked one by one against the board (an illegal order is void and
its unit holds, DATC 4.E.1), then matched with each other (a support or convoy that
matches no order is void), and finally the MOVE, SUPPORT and CONVOY decisions are
resolved by the equations of DATC section 5.B with Kruijswijk's guess algorithm
(section 5.F, in the dependency-list form of "The Math of Adjudication"): recursive
resolution, a guess where the recursion meets itself, the backup rule for circular
movement (all moves succeed) and the Szykman rule for convoy paradoxes (the convoys in
the paradox fail). Attacks on a convoy are adjudicated rather than resolved (5.D), so
that every cycle is a clean one.

Everything is indexed by province number, so the hot loops touch only lists of ints.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from engine import _native
from engine.convoys import ConvoyRoutes, route_exists
from engine.maps import ARMY, FLEET, SEA, Map
from engine.orders import Convoy, Hold, Move, Order, SupportHold, SupportMove
from engine.position import Dislodged, Position, Unit, named_unit
from engine.results import Result

HOLD, MOVE, SUPPORT, CONVOY = 0, 1, 2, 3
_UNRESOLVED, _GUESSING, _RESOLVED = 0, 1, 2


@dataclass(frozen=True, slots=True)
class MovementOutcome:
    units: tuple[Unit, ...]
    dislodged: tuple[Dislodged, ...]
    results: dict[Unit, tuple[str, ...]]


def adjudicate_movement(position: Position, orders: Mapping[str, Iterable[Order]]) -> MovementOutcome:
    """Resolve a movement phase. ``orders`` maps each power to the orders it gave.

    The compiled core answers where it is active and the input is one it models; the
    reference below answers the rest (and everything under ``DETENTE_PURE_PYTHON=1``).
    """
    core = _native.core_for(position.map)
    if core is not None:
        outcome = core.adjudicate_movement(position.units, orders)
        if outcome is not None:
            return outcome
    return reference_adjudicate_movement(position, orders)


def reference_adjudicate_movement(position: Position, orders: Mapping[str, Iterable[Order]]) -> MovementOutcome:
    """The pure-Python adjudicator: the reference the compiled core matches bit for bit."""
    m = position.map
    province_of = m.province_of
    army_moves = m.army_moves
    reach = m.reach
    unit_at = position.unit_at
    n = len(m.locations)

    convoys = ConvoyRoutes(m, unit_at)
    kind = [HOLD] * n
    target = [-1] * n  # move: destination province; support/convoy: the unit it is for
    target_dest = [-1] * n  # support of a move / convoy: destination province
    target_loc = [-1] * n  # move: destination location; support: coast it names, or -1
    via = [0] * n  # 1 where a move goes by convoy

    # --- 1. legality, one order at a time (see _CHECKS) -------------------------------------
    given: dict[int, _Spec] = {}  # province -> the first legal order's meaning
    conflicted: set[int] = set()
    ordered: set[int] = set()
    phantoms: list[Unit] = []  # orders for units that are not there
    moves: list[int] = []
    supports: list[int] = []
    convoy_orders: list[int] = []
    maybe_convoyed: list[int] = []  # army moves that are or may be by convoy
    for power, power_orders in orders.items():
        for order in power_orders:
            location = getattr(order, "location", None)
            if location is None:
                continue
            here = province_of[location]
            unit = unit_at.get(here)
            if unit is None:
                phantoms.append(named_unit(power, order))
                continue
            ordered.add(here)
            if unit.power != power:
                continue
            kind_of_order = type(order)
            if kind_of_order is Hold:
                spec: _Spec | None = _HOLD_SPEC
            else:
                check = _CHECKS.get(kind_of_order)
                spec = None if check is None else check(m, unit, here, order, unit_at, convoys)
            if spec is None:
                continue
            if here in given:
                if given[here] != spec:
                    conflicted.add(here)  # DATC 4.D.3: differing legal orders for one unit; it holds
                continue
            given[here] = spec
            k = kind[here] = spec[0]
            if k == MOVE:
                target[here], target_loc[here], via[here] = spec[1], spec[2], spec[3]
                moves.append(here)
                if unit.type == ARMY and (spec[3] or spec[1] not in army_moves[here]):
                    maybe_convoyed.append(here)
            elif k == SUPPORT:
                target[here], target_dest[here], target_loc[here] = spec[1], spec[2], spec[3]
                supports.append(here)
            elif k == CONVOY:
                target[here], target_dest[here] = spec[1], spec[2]
                convoy_orders.append(here)
    for p in conflicted:
        kind[p] = HOLD
    power_at: list[str | None] = [None] * n
    for p, u in unit_at.items():
        power_at[p] = u.power

    # --- 2. convoy intent and routes (DATC 4.A.3) --------------------------------------------
    carriers: dict[int, list[int]] = {}
    no_convoy: set[int] = set()
    if convoy_orders or maybe_convoyed:
        # A legal convoy order is on a route already, so the offers are all that matter.
        offers: dict[tuple[int, int], list[int]] = {}
        for p in convoy_orders:
            if kind[p] == CONVOY:
                offers.setdefault((target[p], target_dest[p]), []).append(p)
        for p in moves:
            if kind[p] != MOVE or unit_at[p].type != ARMY:
                continue
            d = target[p]
            offered = offers.get((p, d), [])
            if not via[p]:
                if d in army_moves[p] and not any(power_at[f] == power_at[p] for f in offered):
                    continue  # over land
                via[p] = 1
            carriers[p] = offered
            if not route_exists(m, p, d, set(offered)):
                # DATC 6.D.8: a convoy was possible, so the move stays a move (one that
                # fails and cannot be supported in holding), not an illegal order
                no_convoy.add(p)
        for p in convoy_orders:
            a = target[p]
            if kind[a] != MOVE or not via[a] or target[a] != target_dest[p] or a in no_convoy:
                kind[p] = HOLD

    # --- 3. supports that match the supported unit's order ------------------------------------
    supporters: dict[int, list[int]] = {}
    attackers: dict[int, list[int]] = {}
    void_support: set[int] = set()
    for p in supports:
        if kind[p] != SUPPORT:
            continue
        s = target[p]
        d = target_dest[p]
        if d < 0:
            matches = kind[s] != MOVE
        else:
            matches = kind[s] == MOVE and target[s] == d and (target_loc[p] < 0 or target_loc[p] == target_loc[s])
        if matches:
            if s in supporters:
                supporters[s].append(p)
            else:
                supporters[s] = [p]
        else:
            void_support.add(p)
            kind[p] = HOLD
    for p in moves:
        if kind[p] == MOVE:
            d = target[p]
            if d in attackers:
                attackers[d].append(p)
            else:
                attackers[d] = [p]

    # --- 4. the decisions ------------------------------------------------------------------------
    state = [_UNRESOLVED] * n
    result = [False] * n
    # Orders whose tentative result rests on a guess, in the order met (repeats allowed,
    # so that every caller that leans on a guess sees the list grow).
    guesses: list[int] = []

    def path(p: int) -> bool:
        if not via[p]:
            return True
        if p in no_convoy:
            return False
        fleets = carriers[p]
        destination_seas = m.seas_touching[target[p]]
        origin_seas = m.seas_touching[p]
        frontier = [f for f in fleets if f in origin_seas and resolve(f)]
        seen = set(frontier)
        while frontier:
            f = frontier.pop()
            if f in destination_seas:
                return True
            near = reach[FLEET][f]
            for g in fleets:
                if g not in seen and g in near:
                    seen.add(g)
                    if resolve(g):
                        frontier.append(g)
        return False

    def support_count(p: int, excluded_power: str | None = None) -> int:
        count = 1
        for s in supporters.get(p, ()):
            if power_at[s] != excluded_power and resolve(s):
                count += 1
        return count

    def head_to_head(p: int) -> bool:
        d = target[p]
        return kind[d] == MOVE and target[d] == p and not via[p] and not via[d]

    def prevent_strength(p: int) -> int:
        if not path(p):
            return 0
        if head_to_head(p) and resolve(target[p]):
            return 0
        return support_count(p)

    def adjudicate_move(p: int) -> bool:
        d = target[p]
        if not path(p):
            return False
        occupant = power_at[d]
        versus_head = occupant is not None and head_to_head(p)
        if occupant is None or (not versus_head and kind[d] == MOVE and resolve(d)):
            attack = support_count(p)
        elif occupant == power_at[p]:
            return False
        else:
            attack = support_count(p, occupant)
        if versus_head:
            if attack <= support_count(d):
                return False
        elif occupant is not None:
            if kind[d] == MOVE:
                hold = 0 if resolve(d) else 1
            else:
                hold = support_count(d)
            if attack <= hold:
                return False
        for other in attackers[d]:
            if other != p and attack <= prevent_strength(other):
                return False
        return True

    def adjudicate_support(p: int) -> bool:
        aimed_at = target_dest[p]
        own = power_at[p]
        hostile = attackers.get(p, ())
        for a in hostile:
            if power_at[a] != own and a != aimed_at and path(a):
                return False
        for a in hostile:
            if resolve(a):
                return False
        return True

    def adjudicate_convoy(p: int) -> bool:
        # DATC 5.D: adjudicate (not resolve) the attacks on a convoy, so that every
        # dependency cycle through a convoy is a single clean one.
        for a in attackers.get(p, ()):
            if adjudicate_move(a):
                return False
        return True

    def adjudicate(p: int) -> bool:
        k = kind[p]
        if k == MOVE:
            return adjudicate_move(p)
        if k == SUPPORT:
            return adjudicate_support(p)
        return adjudicate_convoy(p)

    def forget(length: int) -> None:
        """Drop the guesses made since ``length``; their orders are to be resolved anew."""
        for p in guesses[length:]:
            if state[p] == _GUESSING:
                state[p] = _UNRESOLVED
        del guesses[length:]

    def backup_rule(length: int) -> None:
        members = set(guesses[length:])
        convoying = [p for p in members if kind[p] == CONVOY]
        if convoying:  # a convoy paradox; Szykman: the convoys in it fail
            for p in convoying:
                result[p] = False
                state[p] = _RESOLVED
        else:  # circular movement: every move in the circle succeeds
            for p in members:
                if kind[p] == MOVE:
                    result[p] = True
                    state[p] = _RESOLVED
        forget(length)

    def resolve(p: int) -> bool:
        """The decision of order ``p``, by Kruijswijk's guess algorithm."""
        s = state[p]
        if s == _RESOLVED:
            return result[p]
        if s == _GUESSING:
            guesses.append(p)
            return result[p]
        length = len(guesses)
        result[p] = False
        state[p] = _GUESSING
        first = adjudicate(p)
        if len(guesses) == length:
            if state[p] != _RESOLVED:
                result[p] = first
                state[p] = _RESOLVED
            return result[p]
        if guesses[length] != p:
            # rests on the guess of an order further up: tentative until that settles
            guesses.append(p)
            result[p] = first
            return first
        forget(length)
        state[p] = _GUESSING
        result[p] = True
        second = adjudicate(p)
        if first == second:
            forget(length)
            result[p] = first
            state[p] = _RESOLVED
            return first
        backup_rule(length)
        return resolve(p)

    for p in moves:
        if kind[p] == MOVE:
            resolve(p)
    for p in supports:
        if kind[p] == SUPPORT:
            resolve(p)
    for p in convoy_orders:
        if kind[p] == CONVOY:
            resolve(p)

    # --- 5. the new board -----------------------------------------------------------------
    winner_into = [-1] * n
    for p in moves:
        if kind[p] == MOVE and result[p]:
            winner_into[target[p]] = p
    moved_units: list[Unit] = []
    staying: list[Unit] = []
    dislodged_at: list[int] = []
    occupied = set()
    for p, u in unit_at.items():
        if kind[p] == MOVE and result[p]:
            dest_loc = target_loc[p] if u.type == FLEET else target[p]
            moved_units.append(Unit(u.power, u.type, dest_loc))
            occupied.add(target[p])
        elif winner_into[p] >= 0:
            dislodged_at.append(p)
        else:
            staying.append(u)
            occupied.add(p)

    dislodged: list[Dislodged] = []
    destroyed: set[int] = set()
    if dislodged_at:
        # a standoff leaves a province vacant: a failed move with prevent strength
        # (a unit beaten head to head has none, DATC 6.H.9)
        contested = {
            target[p]
            for p in moves
            if kind[p] == MOVE and not result[p] and target[p] not in occupied and prevent_strength(p) > 0
        }
        for p in dislodged_at:
            u = unit_at[p]
            attacker = winner_into[p]
            options = army_moves[p] if u.type == ARMY else m.fleet_moves[u.location]
            retreats = frozenset(
                loc
                for loc in options
                if province_of[loc] not in occupied
                and province_of[loc] not in contested
                and (province_of[loc] != attacker or via[attacker])
            )
            if retreats:
                dislodged.append(Dislodged(u, retreats))
            else:
                destroyed.add(p)  # nowhere to go: disbanded at once, no retreat phase for it

    results: dict[Unit, tuple[str, ...]] = {}
    for p in ordered:
        u = unit_at[p]
        gone = winner_into[p] >= 0 and not (kind[p] == MOVE and result[p])
        k = kind[p]
        if p in no_convoy:
            words: tuple[str, ...] = (Result.NO_CONVOY,)
        elif p not in given or p in void_support or p in conflicted:
            words = (Result.VOID,)
        elif k == MOVE:
            words = (Result.OK,) if result[p] else (Result.DISRUPTED,) if via[p] and not path(p) else (Result.BOUNCE,)
        elif k == SUPPORT:
            words = (Result.OK,) if result[p] else (Result.CUT,)
        elif k == CONVOY:
            words = (Result.OK,) if result[p] else () if gone else (Result.DISRUPTED,)
        elif given[p][0] == CONVOY:
            words = (Result.VOID,)  # a legal convoy that matched no convoyed move
        else:
            words = (Result.OK,) if not gone else ()
        results[u] = words + (Result.DISLODGED,) if gone else words
    for p in dislodged_at:
        results.setdefault(unit_at[p], (Result.DISLODGED,))
    for p in destroyed:
        results[unit_at[p]] += (Result.DISBAND,)
    for phantom in phantoms:
        results.setdefault(phantom, (Result.VOID,))

    return MovementOutcome(tuple(staying + moved_units), tuple(dislodged), results)


_Spec = tuple[int, ...]
_HOLD_SPEC: _Spec = (HOLD,)


def _legal_move(
    m: Map, unit: Unit, here: int, order: Move, unit_at: dict[int, Unit], convoys: ConvoyRoutes
) -> _Spec | None:
    dest = m.province_of[order.destination]
    if dest == here:
        return None
    if unit.type == ARMY:
        if m.kind[dest] == SEA:
            return None
        if (order.via_convoy or dest not in m.army_moves[here]) and dest not in convoys.routes(here):
            return None
        return (MOVE, dest, dest, order.via_convoy)
    if order.via_convoy:
        return None
    dest_loc = _fleet_destination(m, unit.location, order.destination)
    return None if dest_loc < 0 else (MOVE, dest, dest_loc, False)


def _legal_support_hold(
    m: Map, unit: Unit, here: int, order: SupportHold, unit_at: dict[int, Unit], convoys: ConvoyRoutes
) -> _Spec | None:
    supported = m.province_of[order.supported_location]
    if supported == here or supported not in unit_at or supported not in m.reach[unit.type][unit.location]:
        return None
    return (SUPPORT, supported, -1, -1)


def _legal_support_move(
    m: Map, unit: Unit, here: int, order: SupportMove, unit_at: dict[int, Unit], convoys: ConvoyRoutes
) -> _Spec | None:
    supported = m.province_of[order.supported_location]
    dest = m.province_of[order.destination]
    other = unit_at.get(supported)
    if other is None or supported == here or dest == here or dest == supported:
        return None
    if dest not in m.reach[unit.type][unit.location]:
        return None
    if other.type == FLEET:
        coast = order.destination if order.destination != dest else -1
        if coast >= 0:
            if coast not in m.fleet_moves[other.location]:
                return None
        elif dest not in m.fleet_reach[other.location]:
            return None
        return (SUPPORT, supported, dest, coast)
    if dest not in m.army_moves[supported] and not convoys.fleets(supported, dest, here):
        return None  # DATC 6.D.31: the supporter cannot also be the convoy
    return (SUPPORT, supported, dest, -1)


def _legal_convoy(
    m: Map, unit: Unit, here: int, order: Convoy, unit_at: dict[int, Unit], convoys: ConvoyRoutes
) -> _Spec | None:
    army = m.province_of[order.army_location]
    dest = m.province_of[order.destination]
    carried = unit_at.get(army)
    if unit.type != FLEET or m.kind[here] != SEA or carried is None or carried.type != ARMY:
        return None
    if here not in convoys.fleets(army, dest):
        return None
    return (CONVOY, army, dest)


# The movement orders and their checks: each reduces an order to its meaning
# (HOLD,), (MOVE, dest, dest_loc, via), (SUPPORT, supported, dest or -1, coast or -1)
# or (CONVOY, army, dest), or says None where it is illegal (void).
_CHECKS: dict[type, Any] = {
    Move: _legal_move,
    SupportHold: _legal_support_hold,
    SupportMove: _legal_support_move,
    Convoy: _legal_convoy,
}


def _fleet_destination(m: Map, origin: int, written: int) -> int:
    """Where a fleet move really goes, taking coasts into account (DATC 4.B.1-4.B.3)."""
    moves = m.fleet_moves[origin]
    if written in moves:
        return written
    coasts = m.coasts[written] if m.province_of[written] == written else ()
    if coasts:
        possible = [c for c in coasts if c in moves]
        if len(possible) == 1:
            return possible[0]  # DATC 4.B.2: the only coast it can reach
    return -1

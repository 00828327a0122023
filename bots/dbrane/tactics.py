"""D-Brane's strategic component (de Jonge and Sierra, section 5.1 and appendix B).

Given a movement position, a deal and a power, :meth:`Tactics.solve` returns orders for the
power, the number of supply centres they *guarantee* it this phase whatever everybody else
does within the deal, and the number they are *expected* to bring. It follows the paper's
steps:

1. for each supply centre, the *invincible* battle plans (definition 18): one unit moves
   into the centre, or holds in it, with supports from the power's units and moves that
   cut supports an adversary could give; a plan is invincible when no adversary action can
   stop it. Only the minimal ones are kept (a plan with a unit more conflicts with more);
2. the *invincible pairs* (definition 19): two plans, neither invincible, that no adversary
   action can stop both of;
3. plans and pairs that contradict the deal are dropped, and plans with orders of another
   power are kept only when the deal commits that power to them;
4. the best compatible set of plans and pairs, by branch and bound over the centres
   (section 5.1.2), solved separately on each group of centres whose plans share no unit
   (the AND nodes of the paper's And/Or search);
5. for each centre left, the strongest plan that still fits;
6. the paper stops there; we also order the units left (below).

**The threat model.** A plan is judged against the worst case over the *adversaries*:
every unit of a power outside the coalition (with implicit agreements, section 5.3.4) or of
any other power (without), except units whose orders the deal fixes. Each *threat* to a plan
is one adversary unit going for the centre (or, when the centre's occupant is an adversary,
the occupant staying, or moving head to head into our attacker's province), helped by every
other adversary unit that could support it, while the adversaries left cut as many of our
supports as they can (a maximum matching of units to supporters). A plan survives a threat
when

    helpers left uncut + supports cut  <  our supports (+1 when we hold: a tie holds),

which is the paper's force comparison (definition 14: a hold counts 1.5, a move 1, plus one
per valid support not cut) with the rules' exceptions kept: a support into a province is
not cut from that province, and a power does not cut its own supports. An adversary army
also reaches every province a chain of adversary fleets could convoy it to. The *margin* of
a plan is the smallest left-hand deficit over its threats: positive means invincible, and
then it is how many more units the adversaries would need. Coalition partners, with
implicit agreements, keep the coalition: they never move into a province where one of our
units stands or into a centre of ours and never support or cut against us, but they may go
for the same centre as we do (a bounce). We keep the same agreements: no move or support
into a partner's centre or a province a partner stands in.

**Values (section 5.2).** The paper turns the game into a constraint optimisation problem
by giving every plan a value, and notes that valuing each plan by its worst case (1 if
invincible, else 0) is one choice among others. Against real opponents the worst case is
too dark: it leaves every threatened centre of ours defended and every unit idle that has
no invincible plan. So we value a plan that is not invincible by its *chance*
(:func:`chance_of`), each adversary unit acting on its own: an occupant stays with chance
``STAY``, a unit next to the target moves in with chance ``MOVE``, a unit of its power helps
it with chance ``HELP``; and an own centre that no plan defends by the chance of keeping it
anyway (:meth:`Tactics.keep_chance`). Step 4 maximises the centres expected over that
baseline. The guarantee keeps the paper's meaning: our centres no adversary can reach, and
the invincible plans and pairs chosen.

**Departures from the paper.** A unit that holds in a centre may also support (a unit that
supports holds its province): its order in a plan is *stay*, compatible with a support
another plan gives it. Own centres no adversary can reach count as guaranteed without a
plan. Convoys are not part of our own plans. Step 6 is ours: a unit left over supports the
weakest plan chosen that it can reach, else moves towards the supply centres that are not
ours (each worth ``DECAY ** distance``, distances for its kind of unit), or holds; with an
``rng`` it takes the next best place with DumbBot's odds (``ALTERNATIVE - SPREAD * gap``),
which keeps two units from bouncing off each other every turn.

Caps that keep a phase bounded: ``MAX_EVALUATIONS`` plan evaluations per centre and
attacker, ``MAX_CUTS`` cutting moves per plan, ``WEAK_PLANS`` non-invincible plans kept per
centre, ``PAIR_PLANS`` of them per centre tried in pairs and ``MAX_PAIRS`` pairs per solve,
and the search budget's ``solve_nodes`` branch-and-bound nodes per group of centres
(:mod:`bots.dbrane.budget`; ``largest_search`` keeps the most one search took).

>>> from engine import Position, format_order
>>> start = Position.initial()
>>> solution = Tactics(start).solve("FRA")
>>> sorted(format_order(start.map, o) for o in solution.orders), solution.guaranteed
(['A MAR - SPA', 'A PAR - BUR', 'F BRE - ECH'], 4)
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import engine.orders as eo
from bots.dbrane.budget import TODAY
from engine.convoys import ConvoyRoutes
from engine.maps import ARMY, FLEET, Map
from engine.position import Position, Unit

__all__ = [
    "STAY",
    "Board",
    "Item",
    "Key",
    "Odds",
    "Plan",
    "Solution",
    "Tactics",
    "Threat",
    "View",
    "apply_orders",
    "chance_of",
    "compatible_keys",
    "key_of_order",
    "margin_of",
    "near_provinces",
    "order_of_key",
    "undo_orders",
]

#: A unit's order in a plan: ``("-", p)`` move to province p, ``("H",)`` hold, ``("S", q)``
#: support the unit in q to hold, ``("S", q, p)`` support it from q into p, ``("C", q, p)``
#: convoy it (deals only), and ``STAY``: hold or support, whichever another plan asks.
Key = tuple[str | int, ...]
STAY: Key = ("=",)
HOLD: Key = ("H",)
INFINITE = 99  # the margin of a plan nothing threatens


def compatible_keys(first: Key, second: Key) -> Key | None:
    """The order of a unit two plans give ``first`` and ``second``; None if it cannot obey both.

    >>> compatible_keys(STAY, ("S", 3, 4)), compatible_keys(("-", 3), ("-", 4))
    (('S', 3, 4), None)
    """
    if first == second:
        return first
    if first == STAY and second[0] in ("S", "H"):
        return second
    if second == STAY and first[0] in ("S", "H"):
        return first
    return None


@dataclass(frozen=True, slots=True)
class Odds:
    """How likely an adversary unit is to act against a plan (see :func:`chance_of`)."""

    stay: float
    move: float
    help: float


@dataclass(frozen=True, slots=True)
class Threat:
    """One adversary unit going for a plan's target (or staying in it), and who could support it."""

    unit: int  # its province
    helpers: frozenset[int]  # the adversary units that could support it
    stays: bool = False  # the target's occupant staying (not a move)


@dataclass(frozen=True, slots=True)
class Plan:
    """A battle plan (definition 17) of ``power`` for the centre ``target``.

    ``unit`` moves into the target (or, with ``hold``, stays in it); ``supporters`` support
    it; ``cuts`` are (our unit, adversary unit) moves that cut a support the adversary could
    give. Units are named by their province. ``margin > 0``: invincible.
    """

    power: str
    target: int
    unit: int
    hold: bool
    supporters: tuple[int, ...]
    cuts: tuple[tuple[int, int], ...]
    margin: int
    chance: float = field(compare=False)  # of taking (keeping) the target: 1 when invincible
    orders: tuple[tuple[int, Key], ...] = field(compare=False)
    moves: tuple[tuple[int, int], ...] = field(compare=False)  # (destination, unit)

    @property
    def invincible(self) -> bool:
        return self.margin > 0

    @property
    def size(self) -> int:
        return 1 + len(self.supporters) + len(self.cuts)


@dataclass(frozen=True, slots=True)
class Item:
    """What the branch and bound picks: a plan, or an invincible pair (one centre of two at least).

    ``value``: the centres it is expected to bring (1 for an invincible plan, the chance of
    another one; for a pair 1, or the sum of its plans' chances when more).
    """

    plans: tuple[Plan, ...]
    targets: tuple[int, ...]
    orders: tuple[tuple[int, Key], ...]
    moves: tuple[tuple[int, int], ...]
    value: float
    invincible: bool

    @classmethod
    def of(cls, *plans: Plan, value: float | None = None) -> Item:
        orders: dict[int, Key] = {}
        for plan in plans:
            for unit, key in plan.orders:
                orders[unit] = (compatible_keys(orders[unit], key) or key) if unit in orders else key
        moves = tuple(sorted({move for plan in plans for move in plan.moves}))
        worth = plans[0].chance if value is None else value
        targets = tuple(sorted(plan.target for plan in plans))
        return cls(plans, targets, tuple(sorted(orders.items())), moves, worth, len(plans) > 1 or plans[0].invincible)

    @property
    def size(self) -> int:
        return len(self.orders)


@dataclass(frozen=True, slots=True)
class Solution:
    """The strategic component's answer (orders empty when asked for the values only)."""

    orders: tuple[eo.Order, ...]
    guaranteed: int
    expected: float
    items: tuple[Item, ...]


# --- the board ------------------------------------------------------------------------------------


class Board:
    """What every view of one movement position shares: units by province and where each can move."""

    def __init__(self, position: Position) -> None:
        m = position.map
        self.position = position
        self.map = m
        self.unit_at: dict[int, Unit] = dict(position.unit_at)
        self.reach: dict[int, frozenset[int]] = {p: m.reach[u.type][u.location] for p, u in self.unit_at.items()}
        self.power_at: dict[int, str] = {p: u.power for p, u in self.unit_at.items()}
        self.centres: tuple[int, ...] = tuple(sorted(m.supply_centers))
        self.owner = position.centers


class View:
    """One power's reading of the board (definition 16): its units, its partners', its adversaries'.

    ``full`` are the adversaries, ``semi`` the partners with implicit agreements (they may
    bounce us but do not attack us); ``fixed`` units, whose orders a deal commits, are neither.
    """

    def __init__(
        self, board: Board, power: str, partners: frozenset[str], implicit: bool, fixed: frozenset[int]
    ) -> None:
        self.board = board
        self.power = power
        self.partners = partners
        self.implicit = implicit
        self.fixed = fixed
        power_at = board.power_at
        self.mine = frozenset(p for p, owner in power_at.items() if owner == power)
        friendly = partners if implicit else frozenset()
        self.full = frozenset(
            p for p, owner in power_at.items() if owner != power and owner not in friendly and p not in fixed
        )
        self.semi = frozenset(p for p, owner in power_at.items() if owner in friendly and p not in fixed)
        self.attack_reach = self._attack_reach()
        self._helpers: dict[int, frozenset[int]] = {}
        self._threats: dict[tuple[int, int, bool], tuple[Threat, ...]] = {}

    def _attack_reach(self) -> dict[int, frozenset[int]]:
        """Where each adversary could move: its reach, and for an army every convoy destination."""
        board = self.board
        reach = {p: board.reach[p] for p in self.full}
        convoys = ConvoyRoutes(board.map, {p: board.unit_at[p] for p in self.full})
        for p in self.full:
            if board.unit_at[p].type == ARMY:
                routes = convoys.routes(p)
                if routes:
                    reach[p] = reach[p] | frozenset(routes)
        return reach

    def helpers_into(self, province: int) -> frozenset[int]:
        """The adversaries that could support a move into (or a hold in) ``province``."""
        found = self._helpers.get(province)
        if found is None:
            reach = self.board.reach
            found = self._helpers[province] = frozenset(p for p in self.full if province in reach[p])
        return found

    def forbidden(self, province: int) -> bool:
        """A province implicit agreements keep us out of: a partner stands there, or it is a partner's centre."""
        if not self.implicit or not self.partners:
            return False
        owner = self.board.owner[province]
        return self.board.power_at.get(province) in self.partners or owner in self.partners

    def safe_centres(self) -> list[int]:
        """Our centres that no adversary stands in or could move into this phase."""
        board = self.board
        safe = []
        for p in board.centres:
            if board.owner[p] != self.power or board.power_at.get(p, self.power) != self.power:
                continue
            if not any(p in self.attack_reach[u] for u in self.full):
                safe.append(p)
        return safe

    def threats(self, target: int, unit: int, hold: bool) -> tuple[Threat, ...]:
        """Every way one adversary unit could stop ``unit`` taking (or, ``hold``, keeping) ``target``."""
        key = (target, unit, hold)
        found = self._threats.get(key)
        if found is not None:
            return found
        board = self.board
        occupant = None if hold else (target if target in self.full else None)
        into = self.helpers_into(target)
        threats: list[Threat] = []
        if occupant is not None:
            threats.append(Threat(occupant, into - {occupant}, stays=True))  # with hold supports
            if unit in board.reach[occupant]:  # head to head into our attacker's province
                threats.append(Threat(occupant, self.helpers_into(unit) - {occupant}))
        for e in sorted(self.full):
            if e != occupant and target in self.attack_reach[e]:
                threats.append(Threat(e, into - {e} - ({occupant} if occupant is not None else set())))
        if board.owner[target] != self.power and target not in self.mine:  # partners may want it too
            semi_into = frozenset(s for s in self.semi if target in board.reach[s])
            threats += [Threat(s, semi_into - {s}) for s in sorted(semi_into)]
        found = self._threats[key] = tuple(threats)
        return found

    def cutters(self, threat: Threat, occupant: int | None, uncut: frozenset[int]) -> list[int]:
        """The adversaries free to cut our supports while ``threat`` goes ahead."""
        return [u for u in self.full if u != threat.unit and u != occupant and u not in uncut]

    def hits(self, cutter: int, supporters: Sequence[int]) -> list[int]:
        """Our supporters ``cutter`` could cut: it can move into their province, and is not of their power."""
        reach = self.attack_reach[cutter]
        power_at = self.board.power_at
        return [s for s in supporters if s in reach and power_at[s] != power_at[cutter]]


def _matching(view: View, pool: Iterable[int], supporters: Sequence[int]) -> int:
    """The most supporters the ``pool`` can cut at once, one each (augmenting paths; both sides are small)."""
    if not supporters:
        return 0
    hits_of = {u: hits for u in pool if (hits := view.hits(u, supporters))}
    matched: dict[int, int] = {}

    def augment(u: int, seen: set[int]) -> bool:
        for s in hits_of[u]:
            if s not in seen:
                seen.add(s)
                if s not in matched or augment(matched[s], seen):
                    matched[s] = u
                    return True
        return False

    count = 0
    for u in hits_of:
        if augment(u, set()):
            count += 1
            if count == len(supporters):
                break
    return count


def margin_of(view: View, target: int, unit: int, hold: bool, supporters: Sequence[int], cuts: frozenset[int]) -> int:
    """The plan's margin against its worst threat (see the module docstring); ``cuts``: adversaries we attack."""
    need = len(supporters) + (1 if hold else 0)
    occupant = None if hold else (target if target in view.full else None)
    worst = INFINITE
    for threat in view.threats(target, unit, hold):
        uncut = threat.helpers - cuts
        deficit = need - len(uncut) - _matching(view, view.cutters(threat, occupant, uncut), supporters)
        worst = min(worst, deficit)
    return worst


def chance_of(
    view: View, target: int, unit: int, hold: bool, supporters: Sequence[int], cuts: frozenset[int], odds: Odds
) -> float:
    """The chance a plan that is not invincible works, each adversary unit acting on its own.

    A threat stops the plan when its unit acts (stays: ``odds.stay``; moves in:
    ``odds.move``) and its helpers that do help (each with chance ``odds.help``, of its own
    power only) and our supports that are cut (each by any adversary next to it moving in,
    ``odds.move`` each) add up to what the plan needs. The plan works when no threat stops
    it, threats taken as independent (per unit: its likeliest threat).
    """
    need = len(supporters) + (1 if hold else 0)
    occupant = None if hold else (target if target in view.full else None)
    power_at = view.board.power_at
    cut: dict[int, float] = {}
    for s in supporters:
        cutters = sum(
            1 for u in view.full if u != occupant and s in view.attack_reach[u] and power_at[u] != power_at[s]
        )
        cut[s] = 1.0 - (1.0 - odds.move) ** cutters
    stops: dict[int, float] = {}
    for threat in view.threats(target, unit, hold):
        power = power_at[threat.unit]
        helping = [odds.help] * sum(1 for u in threat.helpers - cuts if power_at[u] == power)
        acts = odds.stay if threat.stays else odds.move
        chance = acts * _at_least(need, helping + [c for s, c in cut.items() if s != threat.unit])
        stops[threat.unit] = max(stops.get(threat.unit, 0.0), chance)
    works = 1.0
    for chance in stops.values():
        works *= 1.0 - chance
    return works


def _at_least(count: int, chances: Sequence[float]) -> float:
    """The chance that at least ``count`` of independent events with these ``chances`` happen.

    >>> round(_at_least(1, [0.5, 0.5]), 2), _at_least(0, []), _at_least(2, [0.5])
    (0.75, 1.0, 0.0)
    """
    if count <= 0:
        return 1.0
    exactly = [1.0] + [0.0] * count  # exactly[k]: k happened so far; the last cell counts ``count`` or more
    for p in chances:
        for k in range(count - 1, -1, -1):
            moved = exactly[k] * p
            exactly[k] -= moved
            exactly[k + 1] += moved
    return exactly[count]


# --- the strategic component ------------------------------------------------------------------------


class Tactics:
    """The strategic component on one movement position; views, plans and pairs are cached for the phase."""

    MAX_EVALUATIONS = 48  # plan evaluations per centre and attacker
    MAX_CUTS = 2  # cutting moves per plan
    WEAK_PLANS = 4  # non-invincible plans kept per centre (for steps 4-5 and pairs)
    PAIR_PLANS = 2  # of them, tried in pairs
    MAX_PAIRS = 120  # pairs tried per solve
    # The odds of an adversary unit acting against us, for spring and fall. Fitted in games
    # against DumbBot (100 games a setting, 2 and 3 D-Branes): an occupant stays more often
    # in the fall, when staying takes the centre; a unit moves into a given province next to
    # it with chance 0.2 to 0.3, and a unit of the same power helps it with chance 0.3.
    STAY = (0.4, 0.7)
    MOVE = (0.2, 0.3)
    HELP = 0.3
    SPRING_LOSS = 0.5  # of an undefended centre of ours entered in spring, the chance it is lost in the fall
    DECAY = 0.5  # step 6: a centre ``d`` moves away is worth ``DECAY ** d``
    ALTERNATIVE, SPREAD = 0.5, 5.0  # step 6 with an rng: DumbBot's odds of taking the next best place

    def __init__(self, position: Position, rng: random.Random | None = None, nodes: int = TODAY.solve_nodes) -> None:
        self.board = Board(position)
        self.rng = rng
        self.nodes = nodes  # branch-and-bound nodes per search (a solve's group of centres)
        self.largest_search = 0  # the most nodes one branch and bound took, this phase
        fall = position.phase.season != "S"
        self.odds = Odds(self.STAY[fall], self.MOVE[fall], self.HELP)
        self._views: dict[tuple[str, frozenset[str], bool, frozenset[int]], View] = {}
        self._plans: dict[tuple[object, ...], tuple[list[Plan], list[Plan]]] = {}
        self._pairs: dict[tuple[object, ...], bool] = {}

    def view(
        self,
        power: str,
        partners: frozenset[str] = frozenset(),
        implicit: bool = False,
        fixed: frozenset[int] = frozenset(),
    ) -> View:
        key = (power, partners, implicit, fixed)
        found = self._views.get(key)
        if found is None:
            found = self._views[key] = View(self.board, power, partners, implicit, fixed)
        return found

    # --- step 1: plans ------------------------------------------------------------------------------

    def plans(self, view: View, target: int, members: frozenset[str]) -> tuple[list[Plan], list[Plan]]:
        """The minimal invincible plans of ``view.power`` for ``target`` and its ``WEAK_PLANS`` best
        others, with units of ``members`` (more than the power itself: NB³'s coalition plans)."""
        near = view.fixed & near_provinces(self.board.map, target)  # a fixed unit further off changes nothing here
        key = (view.power, view.partners, view.implicit, near, target, members)
        found = self._plans.get(key)
        if found is None:
            found = self._plans[key] = self._make_plans(view, target, members)
        return found

    def _make_plans(self, view: View, target: int, members: frozenset[str]) -> tuple[list[Plan], list[Plan]]:
        """Supports first, in growing sets; cuts only for a set of supports that is not enough."""
        board = self.board
        if view.forbidden(target):
            return [], []
        occupant = board.power_at.get(target)
        if occupant == view.power:
            attackers, hold = [target], True
        elif target in view.full or occupant is None:
            attackers, hold = sorted(u for u in view.mine if target in board.reach[u]), False
        else:  # a partner, or a unit the deal fixes, stands there
            return [], []
        ours = sorted(p for p, owner in board.power_at.items() if owner in members)
        reach = board.reach
        strong: list[Plan] = []
        weak: list[Plan] = []
        for unit in attackers:
            candidates = [s for s in ours if s != unit and s != target and target in reach[s]]
            helpers: set[int] = set()
            for threat in view.threats(target, unit, hold):
                helpers |= threat.helpers
            cut_options = [
                (u, c)
                for c in sorted(helpers & view.full)
                if not view.forbidden(c)
                for u in ours
                if u not in (unit, target) and c in reach[u] and board.power_at[u] != board.power_at[c]
            ]
            found: list[tuple[frozenset[int], frozenset[tuple[int, int]]]] = []  # the invincible ones
            evaluations = 0
            for supporters in itertools.chain.from_iterable(
                itertools.combinations(candidates, size) for size in range(len(candidates) + 1)
            ):
                if evaluations >= self.MAX_EVALUATIONS:
                    break
                support_set = frozenset(supporters)
                if any(s <= support_set and not c for s, c in found):
                    continue
                evaluations += 1
                margin = margin_of(view, target, unit, hold, supporters, frozenset())
                plan = self._plan(view, target, unit, hold, supporters, (), margin)
                if margin > 0:
                    found.append((support_set, frozenset()))
                    strong.append(plan)
                    continue
                weak.append(plan)
                free = [(u, c) for u, c in cut_options if u not in support_set]
                for cuts in itertools.chain.from_iterable(
                    itertools.combinations(free, count) for count in range(1, self.MAX_CUTS + 1)
                ):
                    if evaluations >= self.MAX_EVALUATIONS:
                        break
                    cut_set = frozenset(cuts)
                    if len({u for u, _ in cuts}) < len(cuts) or len({c for _, c in cuts}) < len(cuts):
                        continue
                    if any(s <= support_set and c <= cut_set for s, c in found):
                        continue
                    evaluations += 1
                    margin = margin_of(view, target, unit, hold, supporters, frozenset(c for _, c in cuts))
                    plan = self._plan(view, target, unit, hold, supporters, cuts, margin)
                    if margin > 0:
                        found.append((support_set, cut_set))
                        strong.append(plan)
                    else:
                        weak.append(plan)
        weak.sort(key=lambda plan: (-plan.chance, -plan.margin, plan.size, plan.unit, plan.supporters, plan.cuts))
        return strong, weak[: self.WEAK_PLANS]

    def _plan(
        self,
        view: View,
        target: int,
        unit: int,
        hold: bool,
        supporters: Sequence[int],
        cuts: Sequence[tuple[int, int]],
        margin: int,
    ) -> Plan:
        orders: list[tuple[int, Key]] = [(unit, STAY if hold else ("-", target))]
        orders += [(s, ("S", unit) if hold else ("S", unit, target)) for s in supporters]
        orders += [(u, ("-", c)) for u, c in cuts]
        moves = [(c, u) for u, c in cuts] + ([] if hold else [(target, unit)])
        attacked = frozenset(c for _, c in cuts)
        chance = 1.0 if margin > 0 else chance_of(view, target, unit, hold, supporters, attacked, self.odds)
        return Plan(
            view.power,
            target,
            unit,
            hold,
            tuple(supporters),
            tuple(cuts),
            margin,
            chance,
            tuple(sorted(orders)),
            tuple(sorted(moves)),
        )

    # --- step 2: pairs ------------------------------------------------------------------------------

    def pair_holds(self, view: View, first: Plan, second: Plan) -> bool:
        """Whether no adversary action stops both plans (definition 19): an invincible pair.

        Every choice of a threat to each plan is tried, with every split of the adversary
        units that could serve either side. The occupant of a target may serve the other side
        as well (a unit that supports still holds), and a threat moving into the other
        target cuts the support of a unit holding it.
        """
        near = view.fixed & (
            near_provinces(self.board.map, first.target) | near_provinces(self.board.map, second.target)
        )
        key = (view.power, view.partners, view.implicit, near, first, second)
        found = self._pairs.get(key)
        if found is None:
            found = self._pairs[key] = not any(
                _both_stopped(view, first, second, a, b)
                for a in view.threats(first.target, first.unit, first.hold)
                for b in view.threats(second.target, second.unit, second.hold)
            )
        return found

    # --- steps 3 to 5 -----------------------------------------------------------------------------

    def items(self, view: View, commitments: Mapping[int, Key]) -> tuple[list[Item], dict[int, float]]:
        """The plans and invincible pairs of ``view.power`` that fit the deal ``commitments``, and the
        chance of keeping each threatened centre of ours if no plan defends it (:meth:`keep_chance`).

        A plan fits when each of its units is free or committed to the plan's own order, and
        the deal commits every order of another power in it.
        """
        board = self.board
        members = frozenset({view.power}) | frozenset(
            board.power_at[p] for p in commitments if p in board.power_at and board.power_at[p] != view.power
        )
        strong: list[Plan] = []
        weak: dict[int, list[Plan]] = {}
        baseline: dict[int, float] = {}
        safe = set(view.safe_centres())
        for target in board.centres:
            if target in safe:
                continue
            if board.owner[target] == view.power:
                baseline[target] = self.keep_chance(view, target)
            good, bad = self.plans(view, target, members)
            strong += [plan for plan in good if _fits(plan, commitments, board, view.power)]
            fitting = [plan for plan in bad if _fits(plan, commitments, board, view.power)]
            if fitting:
                weak[target] = fitting
        covered = {plan.target for plan in strong}
        items = [Item.of(plan) for plan in strong]
        items += [Item.of(plan) for plans in weak.values() for plan in plans]
        items += self._pair_items(view, {t: plans for t, plans in weak.items() if t not in covered})
        return items, baseline

    def keep_chance(self, view: View, target: int) -> float:
        """The chance that our centre ``target`` stays ours with no plan for it: nil when an adversary
        stands in it, else ``1 - MOVE`` for each adversary that could move in (in spring,
        ``1 - MOVE * SPRING_LOSS``: a unit that comes in may leave again or be thrown out)."""
        if target in view.full or target in view.semi:
            return 0.0
        loss = self.SPRING_LOSS if self.board.position.phase.season == "S" else 1.0
        invaders = sum(1 for u in view.full if target in view.attack_reach[u])
        return (1.0 - self.odds.move * loss) ** invaders

    def _pair_items(self, view: View, weak: Mapping[int, list[Plan]]) -> list[Item]:
        """Invincible pairs among the best weak plans of centres whose threats share a unit."""
        involved: dict[Plan, frozenset[int]] = {}
        for plans in weak.values():
            for plan in plans[: self.PAIR_PLANS]:
                units: set[int] = set()
                for threat in view.threats(plan.target, plan.unit, plan.hold):
                    units |= threat.helpers | {threat.unit}
                involved[plan] = frozenset(units)
        found: list[Item] = []
        tried = 0
        candidates = sorted(involved, key=lambda plan: (plan.target, -plan.margin, plan.size, plan.orders))
        for i, first in enumerate(candidates):
            for second in candidates[i + 1 :]:
                if second.target == first.target or not involved[first] & involved[second]:
                    continue
                if not _consistent((first, second)):
                    continue
                if tried >= self.MAX_PAIRS:
                    return found
                tried += 1
                if self.pair_holds(view, first, second):
                    found.append(Item.of(first, second, value=max(1.0, first.chance + second.chance)))
        return found

    def best_set(
        self, items: Sequence[Item], baseline: Mapping[int, float], assigned: dict[int, Key], moved: dict[int, int]
    ) -> list[Item]:
        """Step 4: the compatible items worth most over ``baseline``, one group of centres at a time
        (centres whose items share no unit and no destination are independent)."""
        parent: dict[int, int] = {}

        def find(x: int) -> int:
            while parent.setdefault(x, x) != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        useful = [item for item in items if _gain(item, baseline) > 0]
        first_seen: dict[tuple[str, int], int] = {}
        for item in useful:
            first = item.targets[0]
            find(first)
            for t in item.targets[1:]:
                parent[find(t)] = find(first)
            for resource in [("u", u) for u, _ in item.orders] + [("d", d) for d, _ in item.moves]:
                parent[find(first_seen.setdefault(resource, first))] = find(first)
        groups: dict[int, list[Item]] = {}
        for item in useful:
            groups.setdefault(find(item.targets[0]), []).append(item)
        chosen: list[Item] = []
        for root in sorted(groups):
            items, nodes = _branch_and_bound(groups[root], baseline, assigned, moved, self.nodes)
            chosen += items
            self.largest_search = max(self.largest_search, nodes)
        return chosen

    def solve(
        self,
        power: str,
        partners: frozenset[str] = frozenset(),
        implicit: bool = False,
        commitments: Mapping[int, Key] | None = None,
        full: bool = True,
    ) -> Solution:
        """Orders for ``power`` under the deal ``commitments`` (unit province -> committed order, of any
        power), the centres they guarantee and the centres expected; ``full=False``: steps 1-4 only."""
        commitments = commitments or {}
        board = self.board
        fixed = frozenset(p for p in commitments if board.power_at.get(p) != power)
        view = self.view(power, partners, implicit, fixed)
        items, baseline = self.items(view, commitments)
        assigned: dict[int, Key] = {u: k for u, k in commitments.items() if board.power_at.get(u) == power}
        moved: dict[int, int] = {int(k[1]): u for u, k in commitments.items() if k[0] == "-"}
        chosen = self.best_set(items, baseline, assigned, moved)
        safe = len(view.safe_centres())
        covered = {t for item in chosen for t in item.targets}
        guaranteed = safe + sum(1 for item in chosen if item.invincible)
        expected = safe + sum(item.value for item in chosen) + sum(k for t, k in baseline.items() if t not in covered)
        if not full:
            return Solution((), guaranteed, expected, tuple(chosen))
        for item in chosen:
            apply_orders(item.orders, item.moves, assigned, moved)
        weak = [plan for item in chosen for plan in item.plans if not plan.invincible]
        weak += self._fill(items, covered, assigned, moved)
        self._leftovers(view, weak, assigned, moved)
        orders = tuple(order_of_key(board, u, assigned[u]) for u in sorted(assigned) if u in view.mine)
        return Solution(orders, guaranteed, expected, tuple(chosen))

    @staticmethod
    def _fill(items: Sequence[Item], covered: set[int], assigned: dict[int, Key], moved: dict[int, int]) -> list[Plan]:
        """Step 5: for each centre left, the strongest plan that still fits, strongest first."""
        plans = sorted(
            (item.plans[0] for item in items if len(item.plans) == 1 and item.targets[0] not in covered),
            key=lambda plan: (-plan.chance, -plan.margin, plan.size, plan.target, plan.orders),
        )
        chosen: list[Plan] = []
        for plan in plans:
            if plan.target not in covered and apply_orders(plan.orders, plan.moves, assigned, moved) is not None:
                covered.add(plan.target)
                chosen.append(plan)
        return chosen

    # --- step 6 -----------------------------------------------------------------------------------

    def _leftovers(self, view: View, weak: Sequence[Plan], assigned: dict[int, Key], moved: dict[int, int]) -> None:
        """Each unit without an order supports the weakest plan it can reach, else advances."""
        reach = self.board.reach
        extra = dict.fromkeys(weak, 0)
        for unit in sorted(view.mine - set(assigned)):
            helpable = [plan for plan in weak if plan.target in reach[unit] and plan.unit != unit]
            if helpable:
                plan = min(helpable, key=lambda plan: (plan.margin + extra[plan], plan.target))
                extra[plan] += 1
                assigned[unit] = ("S", plan.unit) if plan.hold else ("S", plan.unit, plan.target)
            else:
                assigned[unit] = self._advance(view, unit, moved)

    def _advance(self, view: View, unit: int, moved: dict[int, int]) -> Key:
        """A step towards the centres that are not ours (nor, with implicit agreements, a partner's)."""
        board = self.board
        m = board.map
        u = board.unit_at[unit]
        table = m.unit_distances(u.type)  # a province's coasts as one place: where a fleet stands is its province
        friendly = {view.power} | (view.partners if view.implicit else set())
        goals = [c for c in board.centres if board.owner[c] not in friendly]

        def worth(province: int) -> float:
            row = table[province]
            return sum(self.DECAY ** row[c] for c in goals if row[c] >= 0)

        options = [(worth(unit), unit)]
        for q in sorted(board.reach[unit]):
            if q not in moved and not view.forbidden(q) and board.power_at.get(q) not in friendly:
                options.append((worth(q), q))
        options.sort(key=lambda option: (-option[0], option[1] != unit, option[1]))
        i = 0
        while self.rng is not None and i + 1 < len(options):
            best, next_best = options[i][0], options[i + 1][0]
            gap = abs(best - next_best) / abs(best) if best else 0.0
            if self.rng.random() >= self.ALTERNATIVE - self.SPREAD * gap:
                break
            i += 1
        chosen = options[i][1]
        if chosen == unit:
            return HOLD
        moved[chosen] = unit
        return ("-", chosen)


# --- helpers ---------------------------------------------------------------------------------------


def _both_stopped(view: View, first: Plan, second: Plan, a: Threat, b: Threat) -> bool:
    """Whether the threats ``a`` to ``first`` and ``b`` to ``second``, with the adversaries left
    split between them, stop both plans (see :meth:`Tactics.pair_holds`)."""
    occupants = [None if plan.hold else (plan.target if plan.target in view.full else None) for plan in (first, second)]
    if a.unit == b.unit and a.unit not in occupants:
        return False  # one unit cannot move into two provinces
    sides = []
    for plan, threat, occupant, other in ((first, a, occupants[0], b), (second, b, occupants[1], a)):
        attacked = frozenset(c for _, c in plan.cuts)
        helpers = threat.helpers - attacked - ({other.unit} if other.unit not in occupants else set())
        sides.append((plan, threat, occupant, helpers))
    busy = {u for u in (a.unit, b.unit) if u not in occupants}
    able: list[tuple[int, bool, bool]] = []
    for u in sorted((sides[0][3] | sides[1][3] | view.full | {a.unit, b.unit}) - busy):
        flags = []
        for plan, threat, occupant, helpers in sides:
            if u == threat.unit and u != occupant:
                flags.append(False)
            else:
                cutting = u in view.full and u != occupant and bool(view.hits(u, plan.supporters))
                flags.append(u in helpers or cutting)
        if flags[0] or flags[1]:
            able.append((u, flags[0], flags[1]))
    only_first = [u for u, f, s in able if f and not s]
    only_second = [u for u, f, s in able if s and not f]
    both = [u for u, f, s in able if f and s]
    if len(both) > 10:
        return True  # too many to split: assume the worst
    for mask in range(1 << len(both)):
        split = ([*only_first], [*only_second])
        for i, u in enumerate(both):
            split[(mask >> i) & 1].append(u)
        if all(
            _stopped(view, plan, occupant, helpers, units, other_plan, other_threat)
            for (plan, _, occupant, helpers), units, (other_plan, _, _, _), other_threat in zip(
                sides, split, reversed(sides), (b, a), strict=True
            )
        ):
            return True
    return False


def _stopped(
    view: View,
    plan: Plan,
    occupant: int | None,
    helpers: frozenset[int],
    units: Sequence[int],
    other_plan: Plan,
    other_threat: Threat,
) -> bool:
    """Whether ``units``, helping the threat to ``plan`` or cutting its supports, stop it."""
    helping = sum(1 for u in units if u in helpers)
    cutting = [u for u in units if u not in helpers and u in view.full and u != occupant]
    # a supporter that holds the other target is cut by the threat moving in there
    free = [s for s in plan.supporters if s == other_plan.target and not other_threat.stays]
    left = [s for s in plan.supporters if s not in free]
    need = len(plan.supporters) + (1 if plan.hold else 0)
    return len(free) + helping + _matching(view, cutting, left) >= need


def near_provinces(m: Map, province: int) -> frozenset[int]:
    """The provinces within two moves of ``province`` (any unit): where a plan for it finds its units."""
    return m.within(2)[province]


#: What :func:`apply_orders` changed, to undo: (``"u"``, unit, key before) or (``"d"``, destination, None).
Changes = list[tuple[str, int, Key | None]]


def apply_orders(
    orders: Iterable[tuple[int, Key]], moves: Iterable[tuple[int, int]], assigned: dict[int, Key], moved: dict[int, int]
) -> Changes | None:
    """Add a plan's orders (unit -> key) and moves (destination, unit) to ``assigned`` and ``moved`` if
    they fit: each unit one order (a stay may become a support), each province one unit moving in.
    Returns the changes made (for :func:`undo_orders`), or None with nothing changed."""
    changes: Changes = []
    for unit, key in orders:
        current = assigned.get(unit)
        new = key if current is None else compatible_keys(current, key)
        if new is None:
            undo_orders(changes, assigned, moved)
            return None
        if new != current:
            changes.append(("u", unit, current))
            assigned[unit] = new
    for destination, unit in moves:
        mover = moved.get(destination)
        if mover is None:
            changes.append(("d", destination, None))
            moved[destination] = unit
        elif mover != unit:
            undo_orders(changes, assigned, moved)
            return None
    return changes


def undo_orders(changes: Changes, assigned: dict[int, Key], moved: dict[int, int]) -> None:
    """Take back what :func:`apply_orders` did."""
    for kind, where, before in reversed(changes):
        if kind == "d":
            del moved[where]
        elif before is None:
            del assigned[where]
        else:
            assigned[where] = before
    changes.clear()


def _fits(plan: Plan, commitments: Mapping[int, Key], board: Board, power: str) -> bool:
    """Step 3: the plan agrees with the deal, and the deal commits every order of another power in it."""
    for unit, key in plan.orders:
        committed = commitments.get(unit)
        if board.power_at.get(unit) != power:
            if committed != key:
                return False
        elif committed is not None and compatible_keys(committed, key) is None:
            return False
    return True


def _consistent(plans: Sequence[Plan]) -> bool:
    assigned: dict[int, Key] = {}
    moved: dict[int, int] = {}
    return all(apply_orders(plan.orders, plan.moves, assigned, moved) is not None for plan in plans)


def _gain(item: Item, baseline: Mapping[int, float]) -> float:
    """What choosing ``item`` adds: its value, less the chance of keeping its centres without it."""
    return item.value - sum(baseline.get(t, 0.0) for t in item.targets)


def _branch_and_bound(
    items: Sequence[Item],
    baseline: Mapping[int, float],
    assigned: dict[int, Key],
    moved: dict[int, int],
    max_nodes: int,
) -> tuple[list[Item], int]:
    """The compatible items of most gain (ties: fewest orders), depth first over the centres,
    visiting at most ``max_nodes`` nodes; and the nodes it visited.

    Centres with the fewest candidates come first; an item is tried at the first of its
    centres (the paper's footnote 6, for pairs); a centre may also be left empty. The bound
    adds, for each centre left, the best gain of an item on it. ``assigned`` and ``moved``
    (what the deal already fixes) are left as they were.
    """
    best_on: dict[int, float] = {}
    touching: dict[int, int] = {}
    for item in items:
        gain = _gain(item, baseline)
        for t in item.targets:
            touching[t] = touching.get(t, 0) + 1
            best_on[t] = max(best_on.get(t, 0.0), gain)
    order = sorted(touching, key=lambda t: (touching[t], t))
    rank = {t: i for i, t in enumerate(order)}
    left = [0.0] * (len(order) + 1)
    for i in range(len(order) - 1, -1, -1):
        left[i] = left[i + 1] + best_on[order[i]]
    starting: dict[int, list[tuple[float, Item]]] = {}
    for item in sorted(items, key=lambda item: (-_gain(item, baseline), item.size, item.targets, item.orders)):
        starting.setdefault(min(item.targets, key=rank.__getitem__), []).append((_gain(item, baseline), item))
    covered: set[int] = set()
    path: list[Item] = []
    best: list[Item] = []
    best_score = (0.0, 0)
    nodes = 0

    def search(i: int, gain: float, size: int) -> None:
        nonlocal best, best_score, nodes
        if nodes >= max_nodes:
            return
        nodes += 1
        score = (round(gain, 9), -size)
        if score > best_score:
            best, best_score = list(path), score
        if i == len(order) or gain + left[i] <= best_score[0] + 1e-9:
            return
        target = order[i]
        if target not in covered:
            for worth, item in starting.get(target, ()):
                if any(t in covered for t in item.targets):
                    continue
                changes = apply_orders(item.orders, item.moves, assigned, moved)
                if changes is None:
                    continue
                covered.update(item.targets)
                path.append(item)
                search(i + 1, gain + worth, size + item.size)
                path.pop()
                covered.difference_update(item.targets)
                undo_orders(changes, assigned, moved)
        search(i + 1, gain, size)

    search(0, 0.0, 0)
    return best, nodes


# --- orders ----------------------------------------------------------------------------------------


def key_of_order(m: Map, order: eo.Order) -> Key | None:
    """The key of an engine movement order (None for the orders of other phases)."""
    province = m.province_of
    if isinstance(order, eo.Hold):
        return HOLD
    if isinstance(order, eo.Move):
        return ("-", province[order.destination])
    if isinstance(order, eo.SupportHold):
        return ("S", province[order.supported_location])
    if isinstance(order, eo.SupportMove):
        return ("S", province[order.supported_location], province[order.destination])
    if isinstance(order, eo.Convoy):
        return ("C", province[order.army_location], province[order.destination])
    return None


def order_of_key(board: Board, unit: int, key: Key) -> eo.Order:
    """The engine order of the unit in province ``unit`` for ``key`` (a stay is a hold; a fleet goes to
    the first coast it can reach)."""
    m = board.map
    u = board.unit_at[unit]
    if key[0] == "-":
        destination = int(key[1])
        if u.type == FLEET:
            destination = min(d for d in m.fleet_moves[u.location] if m.province_of[d] == destination)
        return eo.Move(u.type, u.location, destination)
    if key[0] == "S" and len(key) == 2:
        supported = board.unit_at[int(key[1])]
        return eo.SupportHold(u.type, u.location, supported.type, supported.location)
    if key[0] == "S":
        supported = board.unit_at[int(key[1])]
        return eo.SupportMove(u.type, u.location, supported.type, supported.location, int(key[2]))
    if key[0] == "C":
        army = board.unit_at[int(key[1])]
        return eo.Convoy(u.type, u.location, army.location, int(key[2]))
    return eo.Hold(u.type, u.location)

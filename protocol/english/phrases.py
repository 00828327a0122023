"""What the grammar reads, as syntax, and how each piece becomes L in a conversation.

The grammar builds these values without looking at the position, so that every reading
of a sentence is kept; the meaning is made afterwards, reading by reading, against a
:class:`~protocol.english.resolve.Scene`, and a reading whose units are not on the board
gives way to the next one.

Who a predicate is between depends on where it is said: "peace" proposed is between
the two speakers, "peace with Russia" adds Russia to whoever has it, and "peace between
Germany and Italy" says it all:

>>> from engine.maps import standard_map
>>> from protocol.english.names import Names
>>> scene = Scene("ENG", "FRA", Names.of(standard_map()), None)
>>> str(AgreementWords((PeaceWords(Parties(with_=frozenset({"rus"}))),), None).agree(scene))
'Agree([eng rus], pce([eng rus]))'
>>> str(AgreementInfo(frozenset({"fra"}), (AllianceWords(Parties(), frozenset({"ger"})),)).info(scene))
'Agree([fra], aly([fra], [ger]))'
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import TypeVar

from protocol.english.resolve import AGENT, Misunderstanding, Place, Scene, UnitWords, kind_of
from protocol.l import ast as a

__all__ = [
    "AgreementInfo",
    "AgreementVP",
    "AgreementWords",
    "AllianceWords",
    "AndInfo",
    "AndVP",
    "AttackPowersVP",
    "AttackWords",
    "BuildVP",
    "ClausesWords",
    "CommitWords",
    "ConvoyVP",
    "DisbandVP",
    "DmzWords",
    "DrawWords",
    "ExplainInfo",
    "FeelInfo",
    "HoldVP",
    "IntentInfo",
    "KeepOutVP",
    "KindWords",
    "MessageWords",
    "MoveVP",
    "NotInfo",
    "NotVP",
    "Parties",
    "PeaceWords",
    "RemoveVP",
    "RetreatVP",
    "SoloWords",
    "SupportVP",
    "TimedVP",
    "Unsayable",
    "WaiveVP",
    "parties_of",
]


class Unsayable(Misunderstanding):
    """Words understood, that L cannot say: the reason begins "L cannot say that"."""

    def __init__(self, why: str) -> None:
        super().__init__(f"L cannot say that: {why}")


_N = TypeVar("_N", bound=a.Info)


def _and(operands: Iterable[_N]) -> _N | a.And:
    """The conjunction of the operands, each once ("peace? peace!" is one peace)."""
    distinct = tuple(dict.fromkeys(operands))
    return distinct[0] if len(distinct) == 1 else a.And(distinct)


def _one(powers: frozenset[str], what: str) -> str:
    if len(powers) != 1:
        raise Misunderstanding(f"say which one power will {what}")
    return next(iter(powers))


def _committed(deal: a.Deal | a.Agree) -> frozenset[str]:
    """The powers a deal commits: the α of each Commit, or every power of an Agree."""
    if isinstance(deal, a.Agree):
        return deal.agents
    return frozenset(c.agent for c in deal.commits)


def parties_of(predicate: a.Predicate) -> frozenset[str]:
    """The powers that agree to a predicate: both sides of peace, the allies of an alliance, ..."""
    if isinstance(predicate, a.Aly):
        return predicate.allies
    if isinstance(predicate, a.Slo):
        return frozenset({predicate.power})
    return predicate.powers


# --- agreements: noun phrases -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Parties:
    """Who a predicate is between: named ("between England and France"), added to the
    subject ("with Russia"), or left to the context (neither)."""

    between: frozenset[str] | None = None
    with_: frozenset[str] | None = None

    def resolve(self, default: frozenset[str], owner: frozenset[str]) -> frozenset[str]:
        if self.between is not None:
            return self.between
        if self.with_ is not None:
            return owner | self.with_
        return default


@dataclass(frozen=True, slots=True)
class PeaceWords:
    parties: Parties

    def predicate(self, default: frozenset[str], owner: frozenset[str]) -> a.Predicate:
        return a.Pce(self.parties.resolve(default, owner))


@dataclass(frozen=True, slots=True)
class AllianceWords:
    parties: Parties
    enemies: frozenset[str] | None

    def predicate(self, default: frozenset[str], owner: frozenset[str]) -> a.Predicate:
        if self.enemies is None:
            raise Misunderstanding("an alliance against whom?")
        return a.Aly(self.parties.resolve(default, owner), self.enemies)


@dataclass(frozen=True, slots=True)
class DmzWords:
    places: tuple[Place, ...]
    parties: Parties

    def predicate(self, default: frozenset[str], owner: frozenset[str]) -> a.Predicate:
        return a.Dmz(self.parties.resolve(default, owner), frozenset(p.province for p in self.places))


@dataclass(frozen=True, slots=True)
class DrawWords:
    parties: Parties

    def predicate(self, default: frozenset[str], owner: frozenset[str]) -> a.Predicate:
        return a.Drw(self.parties.resolve(default, owner))


@dataclass(frozen=True, slots=True)
class SoloWords:
    power: frozenset[str]

    def predicate(self, default: frozenset[str], owner: frozenset[str]) -> a.Predicate:
        return a.Slo(_one(self.power, "win alone"))


Agreement = PeaceWords | AllianceWords | DmzWords | DrawWords | SoloWords


def _predicates(nps: Iterable[Agreement], default: frozenset[str], owner: frozenset[str]) -> list[a.Predicate]:
    return [np.predicate(default, owner) for np in nps]


def _added(nps: Iterable[Agreement]) -> frozenset[str]:
    """The powers that "with ..." adds to the subject."""
    return frozenset().union(*(np.parties.with_ or () for np in nps if not isinstance(np, SoloWords)))


@dataclass(frozen=True, slots=True)
class AgreementWords:
    """An agreement proposed: "peace and an alliance against Germany"; ``agents`` when said
    ("an agreement between England, France and Italy on ...")."""

    nps: tuple[Agreement, ...]
    agents: frozenset[str] | None

    def agree(self, scene: Scene) -> a.Agree:
        both = frozenset({scene.me, scene.you})
        predicates = [np.predicate(self.agents or both, self.agents or self._owner(np, scene)) for np in self.nps]
        agents = self.agents or frozenset().union(*map(parties_of, predicates))
        return a.Agree(agents, _and(list(predicates)))

    @staticmethod
    def _owner(np: Agreement, scene: Scene) -> frozenset[str]:
        """Whom "with ..." pairs the powers named with: the sender ("peace with Russia"), or
        the receiver when the sender is among them ("an alliance with me")."""
        named = frozenset() if isinstance(np, SoloWords) else np.parties.with_ or frozenset()
        return frozenset({scene.you if scene.me in named else scene.me})


# --- information -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AgreementInfo:
    """That powers have an agreement: "France and Russia are at peace", "do you have peace
    with Russia"; the subject None for "there is peace between ..."."""

    subject: frozenset[str] | None
    nps: tuple[Agreement, ...]
    negated: bool = False

    def info(self, scene: Scene) -> a.Info:
        both = frozenset({scene.me, scene.you})
        predicates = _predicates(self.nps, self.subject or both, self.subject or frozenset({scene.me}))
        if self.subject is None:
            agents = frozenset().union(*map(parties_of, predicates))
        else:
            agents = self.subject | _added(self.nps)
        agree = a.Agree(agents, _and(list(predicates)))
        return a.Not(agree) if self.negated else agree


@dataclass(frozen=True, slots=True)
class FeelInfo:
    subject: frozenset[str]
    feeling: str

    def info(self, scene: Scene) -> a.Info:
        return a.Feel(_one(self.subject, "feel it"), self.feeling)


@dataclass(frozen=True, slots=True)
class NotInfo:
    operand: Information

    def info(self, scene: Scene) -> a.Info:
        return a.Not(self.operand.info(scene))


@dataclass(frozen=True, slots=True)
class AndInfo:
    operands: tuple[Information, ...]

    def info(self, scene: Scene) -> a.Info:
        return _and(o.info(scene) for o in self.operands)


@dataclass(frozen=True, slots=True)
class ExplainInfo:
    """ "Why ...?": the explanation of the information asked for."""

    operand: Information

    def info(self, scene: Scene) -> a.Info:
        return a.Explain(self.operand.info(scene))


@dataclass(frozen=True, slots=True)
class IntentInfo:
    """What a power (or unit) will do, as information: "are you going to move to Trieste?"."""

    clause: CommitWords

    def info(self, scene: Scene) -> a.Info:
        return self.clause.resolve(scene)[1]


Information = AgreementInfo | FeelInfo | NotInfo | AndInfo | ExplainInfo | IntentInfo


# --- commitments: verb phrases ------------------------------------------------------------------
# Each verb phrase is made a formula for the powers that commit to it (``agents``) and, when
# the subject was a unit ("my army in Paris will ..."), that unit (``actor``).


def _own(words: UnitWords | Place | None, agent: str, scene: Scene, reaching: str | None = None) -> a.Unit | None:
    """A unit of the agent's own, as said: "with my army in Ruhr", "from Ruhr"."""
    if words is None:
        return None
    if isinstance(words, Place):
        words = UnitWords(AGENT, None, words)
    return scene.unit(words, agent, default_owner=agent, reaching=reaching)


def _target(
    words: UnitWords | frozenset[str],
    origin: Place | None,
    agent: str,
    scene: Scene,
    kind: str | None,
    reaching: Place | None,
) -> a.Unit | None:
    """Another unit, as said: "your army in Munich", or "you" with "from Munich"."""
    if isinstance(words, UnitWords):
        return scene.unit(words, agent)
    power = _one(words, "be supported")
    if origin is not None:
        return scene.unit(
            UnitWords(power, kind, origin), agent, reaching=None if reaching is None else reaching.province
        )
    return None


def _planned_move(power: str, destination: str | None, scene: Scene) -> a.Mto | a.Cto | None:
    """The one move of ``power`` (to ``destination`` if given) that the rest of the message plans."""
    moves = [
        m
        for m in scene.planned
        if isinstance(m, a.Mto | a.Cto)
        and m.unit.power == power
        and (destination is None or m.region.province == destination)
    ]
    return moves[0] if len(moves) == 1 else None


@dataclass(frozen=True, slots=True)
class KindWords:
    """A unit said by its owner and kind alone: "your fleet" (``kind`` None: "your unit"),
    found on the board as the one of that kind that can do what is said."""

    owner: str | None
    kind: str | None


@dataclass(frozen=True, slots=True)
class HoldVP:
    unit: UnitWords | None
    place: Place | None

    def formula(self, agents: frozenset[str], actor: a.Unit | None, scene: Scene) -> a.Formula:
        agent = _one(agents, "hold")
        unit = _own(self.unit or self.place, agent, scene) or actor
        if unit is None:
            raise Misunderstanding("which unit will hold?")
        return a.Do(a.Hld(unit))


@dataclass(frozen=True, slots=True)
class MoveVP:
    """A move; ``convoy`` is the route (maybe empty) of a move by convoy, None for a move by land or sea."""

    unit: UnitWords | KindWords | None
    origin: Place | None
    destination: Place
    convoy: tuple[Place, ...] | None

    def formula(self, agents: frozenset[str], actor: a.Unit | None, scene: Scene) -> a.Formula:
        agent = _one(agents, "move")
        where = scene.names.province(self.destination.province)
        if isinstance(self.unit, KindWords):
            unit = self._of_kind(self.unit, agent, where, scene)
            return a.Do(a.Mto(unit, scene.region(unit, self.destination)))
        unit = _own(self.unit or self.origin, agent, scene, reaching=self.destination.province) or actor
        if unit is None:
            unit = scene.choose(scene.units_reaching(agent, self.destination.province), f"move to {where}", agent)
        if self.convoy is None:
            return a.Do(a.Mto(unit, scene.region(unit, self.destination)))
        if kind_of(unit) != "army":
            raise Misunderstanding(f"only an army moves by convoy, and {scene.describe(unit)} is a fleet")
        route = tuple(p.province for p in self.convoy)
        return a.Do(a.Cto(unit, a.Region(self.destination.province, "amy"), route))

    def _of_kind(self, words: KindWords, agent: str, where: str, scene: Scene) -> a.Unit:
        """ "move your fleet to the English Channel": the agent's one unit of that kind that can."""
        owner = agent if words.owner in (None, AGENT) else words.owner
        if owner != agent:
            raise Misunderstanding(f"only {scene.names.power(owner)} moves {scene.whose(owner)} units")
        said = words.kind or "unit"
        if scene.position is None:
            mine = "my" if agent == scene.me else "your" if agent == scene.you else f"{scene.names.power(agent)}'s"
            raise Misunderstanding(f'which {said}, to {where}? Say where it is: "{mine} {said} in ..."')
        return scene.choose(
            scene.units_reaching(agent, self.destination.province, words.kind), f"move to {where}", agent
        )


@dataclass(frozen=True, slots=True)
class SupportVP:
    """A support: of a hold when ``destination`` is None."""

    target: UnitWords | frozenset[str]
    origin: Place | None
    destination: Place | None
    supporter: UnitWords | Place | None

    def formula(self, agents: frozenset[str], actor: a.Unit | None, scene: Scene) -> a.Formula:
        agent = _one(agents, "support")
        destination = self.destination
        supported = _target(self.target, self.origin, agent, scene, None, destination)
        if supported is None:
            # "support me (into Belgium)": my move that the message plans, or the unit that can make it
            assert not isinstance(self.target, UnitWords)  # a unit said is found or refused by _target
            power = _one(self.target, "be supported")
            planned = _planned_move(power, None if destination is None else destination.province, scene)
            if planned is not None:
                supported = planned.unit
                destination = destination or Place(planned.region.province, planned.region.rtype)
            elif destination is None:
                raise Misunderstanding("support which unit?")
            else:
                where = scene.names.province(destination.province)
                supported = scene.choose(scene.units_reaching(power, destination.province), f"move to {where}", power)
        province = supported.region.province if destination is None else destination.province
        supporter = _own(self.supporter, agent, scene, reaching=province) or actor
        if supporter is None:
            what = f"support {scene.describe(supported)}"
            what += "" if destination is None else f" into {scene.names.province(destination.province)}"
            candidates = [u for u in scene.units_reaching(agent, province) if u != supported]
            supporter = scene.choose(candidates, what, agent)
        if destination is None:
            return a.Do(a.Sup(supporter, a.Hld(supported)))
        return a.Do(a.Sup(supporter, a.Mto(supported, scene.region(supported, destination))))


@dataclass(frozen=True, slots=True)
class ConvoyVP:
    army: UnitWords | frozenset[str]
    origin: Place | None
    destination: Place
    fleet: UnitWords | Place | None

    def formula(self, agents: frozenset[str], actor: a.Unit | None, scene: Scene) -> a.Formula:
        agent = _one(agents, "convoy")
        army = _target(self.army, self.origin, agent, scene, "army", self.destination)
        if army is None:
            raise Misunderstanding("convoy which army? Say where it is")
        if kind_of(army) != "army":
            raise Misunderstanding(f"only armies are convoyed, and {scene.describe(army)} is a fleet")
        fleet = _own(self.fleet, agent, scene) or actor
        where = scene.names.province(self.destination.province)
        if fleet is None:
            candidates = scene.convoying_fleets(agent, army, self.destination.province)
            fleet = scene.choose(candidates, f"convoy {scene.describe(army)} to {where}", agent)
        return a.Do(a.Cvy(fleet, a.Cto(army, a.Region(self.destination.province, "amy"))))


@dataclass(frozen=True, slots=True)
class RetreatVP:
    unit: UnitWords | Place | None
    destination: Place

    def formula(self, agents: frozenset[str], actor: a.Unit | None, scene: Scene) -> a.Formula:
        unit = _own(self.unit, _one(agents, "retreat"), scene) or actor
        if unit is None:
            raise Misunderstanding("which unit will retreat?")
        return a.Do(a.Rto(unit, scene.region(unit, self.destination)))


@dataclass(frozen=True, slots=True)
class DisbandVP:
    unit: UnitWords | None

    def formula(self, agents: frozenset[str], actor: a.Unit | None, scene: Scene) -> a.Formula:
        unit = _own(self.unit, _one(agents, "disband"), scene) or actor
        if unit is None:
            raise Misunderstanding("which unit will disband?")
        return a.Do(a.Dsb(unit))


@dataclass(frozen=True, slots=True)
class RemoveVP:
    unit: UnitWords

    def formula(self, agents: frozenset[str], actor: a.Unit | None, scene: Scene) -> a.Formula:
        unit = _own(self.unit, _one(agents, "remove a unit"), scene)
        assert unit is not None  # the words name one
        return a.Do(a.Rem(unit))


@dataclass(frozen=True, slots=True)
class BuildVP:
    kind: str | None
    place: Place

    def formula(self, agents: frozenset[str], actor: a.Unit | None, scene: Scene) -> a.Formula:
        agent = _one(agents, "build")
        if self.kind is None:
            raise Misunderstanding("build an army or a fleet?")
        # a unit to be built is not on the board yet: made from the words alone
        words_only = Scene(scene.me, scene.you, scene.names, None, scene.strict)
        return a.Do(a.Bld(words_only.unit(UnitWords(agent, self.kind, self.place), agent)))


@dataclass(frozen=True, slots=True)
class WaiveVP:
    def formula(self, agents: frozenset[str], actor: a.Unit | None, scene: Scene) -> a.Formula:
        return a.Do(a.Wve(_one(agents, "waive a build")))


@dataclass(frozen=True, slots=True)
class KeepOutVP:
    """Keeping out of provinces; ``unit`` when said ("move your fleet out of the North Sea"),
    which must be there."""

    places: tuple[Place, ...]
    unit: UnitWords | None

    def formula(self, agents: frozenset[str], actor: a.Unit | None, scene: Scene) -> a.Formula:
        if self.unit is not None:
            scene.unit(self.unit, _one(agents, "move out"))
        return a.Dmz(agents, frozenset(p.province for p in self.places))


_NO_ATTACK_ON_POWERS = (
    "L has no attack on a power: an attack in L is a unit's move into a province (say which one),"
    " and powers fight together as an alliance against another"
)


@dataclass(frozen=True, slots=True)
class AttackPowersVP:
    """ "attack Austria", "not attack you": no action of L. Said to say so; the closest a
    promise not to attack comes to is keeping the peace with the same powers."""

    enemies: frozenset[str]
    negated: bool

    def formula(self, agents: frozenset[str], actor: a.Unit | None, scene: Scene) -> a.Formula:
        if not self.negated:
            raise Unsayable(_NO_ATTACK_ON_POWERS)
        if agents & self.enemies:
            raise Misunderstanding("who will not attack whom?")
        if scene.strict:
            raise Unsayable(f"{_NO_ATTACK_ON_POWERS}; the closest is a promise to keep the peace")
        return a.Pce(agents | self.enemies)


@dataclass(frozen=True, slots=True)
class AgreementVP:
    """A predicate promised: "keep the peace with France", "ally with you against Germany"."""

    np: Agreement

    def formula(self, agents: frozenset[str], actor: a.Unit | None, scene: Scene) -> a.Formula:
        return self.np.predicate(agents | {scene.me, scene.you}, agents)


@dataclass(frozen=True, slots=True)
class NotVP:
    operand: VerbPhrase

    def formula(self, agents: frozenset[str], actor: a.Unit | None, scene: Scene) -> a.Formula:
        return a.Not(self.operand.formula(agents, actor, scene))


@dataclass(frozen=True, slots=True)
class AndVP:
    operands: tuple[VerbPhrase, ...]

    def formula(self, agents: frozenset[str], actor: a.Unit | None, scene: Scene) -> a.Formula:
        return _and(o.formula(agents, actor, scene) for o in self.operands)


@dataclass(frozen=True, slots=True)
class TimedVP:
    """An order at a time: "move to Burgundy in spring 1902"."""

    operand: VerbPhrase
    time: a.Time

    def formula(self, agents: frozenset[str], actor: a.Unit | None, scene: Scene) -> a.Formula:
        formula = self.operand.formula(agents, actor, scene)
        assert isinstance(formula, a.Do)  # the grammar times orders only
        return a.Do(formula.action, self.time)


VerbPhrase = (
    HoldVP
    | MoveVP
    | SupportVP
    | ConvoyVP
    | RetreatVP
    | DisbandVP
    | RemoveVP
    | BuildVP
    | WaiveVP
    | KeepOutVP
    | AgreementVP
    | NotVP
    | AndVP
    | TimedVP
)


# --- clauses and deals ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CommitWords:
    """A promise: "I will ...", "my army in Paris will ...", "your fleet will not move to ...",
    "please ..." (``subject`` None: you)."""

    subject: frozenset[str] | UnitWords | KindWords | None
    vp: VerbPhrase

    def resolve(self, scene: Scene) -> tuple[frozenset[str], a.Formula]:
        """Who promises, and what."""
        if isinstance(self.subject, UnitWords):
            actor = scene.unit(self.subject, None)
            agents = frozenset({actor.power})
            return agents, self.vp.formula(agents, actor, scene)
        if isinstance(self.subject, KindWords):
            assert self.subject.owner not in (None, AGENT)  # the grammar names the owner
            agents = frozenset({self.subject.owner})
            return agents, _moved_by(self.vp, self.subject, scene).formula(agents, None, scene)
        agents = frozenset({scene.you}) if self.subject is None else self.subject
        return agents, self.vp.formula(agents, None, scene)


def _moved_by(vp: VerbPhrase, unit: KindWords, scene: Scene) -> VerbPhrase:
    """What "your fleet" does, when it moves ("your fleet will (not) move to the Channel"): the
    move of the one such unit that can; anything else needs the unit's place."""
    if isinstance(vp, NotVP | AndVP | TimedVP):
        inner = (vp.operand,) if isinstance(vp, NotVP | TimedVP) else vp.operands
        done = tuple(_moved_by(v, unit, scene) for v in inner)
        if isinstance(vp, AndVP):
            return AndVP(done)
        return NotVP(done[0]) if isinstance(vp, NotVP) else TimedVP(done[0], vp.time)
    if isinstance(vp, MoveVP) and vp.unit is None and vp.origin is None and vp.convoy is None:
        return replace(vp, unit=unit)
    said = unit.kind or "unit"
    raise Misunderstanding(f'which {said}? Say where it is: "{scene.whose(unit.owner or scene.you)} {said} in ..."')


@dataclass(frozen=True, slots=True)
class ClausesWords:
    """Promises proposed together: a deal of commitments, one for each promise; or, when the
    only subject is several powers ("let's keep out of Burgundy"), their agreement.

    ``asked``: a request put as a question ("will your army in Venice move to Trieste?"),
    which asks the receiver alone: about anyone else's units it is a question (the next reading).
    """

    clauses: tuple[CommitWords, ...]
    asked: bool = False

    def deal(self, scene: Scene) -> a.Deal | a.Agree:
        promises = self._promises(scene)
        if self.asked and any(agents != {scene.you} for agents, _ in promises):
            other = scene.names.power(scene.you)
            raise Misunderstanding(f"a request asks {other} what {other}'s own units will do")
        if len(promises) == 1 and len(promises[0][0]) > 1:
            return a.Agree(*promises[0])
        commits = []
        for agents, formula in promises:
            agent = _one(agents, "promise this")
            if agent not in (scene.me, scene.you):
                other = scene.names.power(scene.you)
                raise Misunderstanding(f"only you and {other} can promise something in this conversation")
            commits.append(a.Commit(agent, frozenset({scene.you if agent == scene.me else scene.me}), formula))
        return a.Deal(frozenset(commits))

    def _promises(self, scene: Scene) -> list[tuple[frozenset[str], a.Formula]]:
        """Each clause's promise; a clause that needs the others ("you support me into
        Belgium") is made again knowing the orders they plan."""
        made: list[tuple[frozenset[str], a.Formula] | None] = []
        for clause in self.clauses:
            try:
                made.append(clause.resolve(scene))
            except Misunderstanding:
                made.append(None)
        if all(made):
            return [m for m in made if m is not None]
        formulas = [m[1] for m in made if m is not None]
        dos = [f for f in formulas if isinstance(f, a.Do)]
        dos += [o for f in formulas if isinstance(f, a.And) for o in f.operands if isinstance(o, a.Do)]
        informed = replace(scene, planned=tuple(d.action for d in dos))
        return [m or clause.resolve(informed) for m, clause in zip(made, self.clauses, strict=True)]


@dataclass(frozen=True, slots=True)
class AttackWords:
    """ "We should attack Austria (together)": an alliance against Austria of the powers that
    attack it (``subject`` None: "we"), when the sender is one of them."""

    subject: frozenset[str] | None
    enemies: frozenset[str]
    with_: frozenset[str] | None = None

    def agree(self, scene: Scene) -> a.Agree:
        allies = self.subject or frozenset({scene.me, scene.you})
        allies |= self.with_ or frozenset()
        if scene.me not in allies or len(allies) < 2 or allies & self.enemies:
            raise Unsayable(_NO_ATTACK_ON_POWERS)
        return a.Agree(allies, a.Aly(allies, self.enemies))


Deal = AgreementWords | ClausesWords | AttackWords


@dataclass(frozen=True, slots=True)
class MessageWords:
    """A whole message: its illocution (``propose``, ``accept``, ``reject``, ``withdraw``,
    ``inform``, ``query``, ``answer``), what it says, and, when the words name them (the
    echo of a message: "England proposes to France: ..."), its sender and receivers; and
    the power addressed, if any."""

    kind: str  # or "threat" and "conditional": what L cannot say (the body is the demand, or the condition)
    body: Deal | Information | None
    sender: frozenset[str] | None = None
    receivers: frozenset[str] | None = None
    vocative: frozenset[str] | None = None  # "France, ...": whom the person addresses

    def message(self, scene: Scene) -> a.Message:
        if self.vocative is not None and self.vocative != {scene.you}:
            raise Misunderstanding(f"this conversation is with {scene.names.power(scene.you)} alone")
        if self.sender is not None and self.sender != {scene.me}:
            raise Misunderstanding(f"you are {scene.names.power(scene.me)}: you cannot speak for another power")
        message = self._message(scene)
        said = self.receivers
        if said is None or self.kind == "withdraw" or said == message.receivers:
            return message
        # the echo of a proposal names its receivers: the power of the conversation, and any of
        # the powers the deal commits ("England proposes to France: peace between France and Italy")
        if isinstance(message, a.Propose) and scene.you in said and said <= message.receivers:
            return replace(message, receivers=said)
        raise Misunderstanding(f"this conversation is with {scene.names.power(scene.you)} alone")

    def _message(self, scene: Scene) -> a.Message:
        me, you = scene.me, frozenset({scene.you})
        if self.kind == "withdraw" and self.receivers is not None:
            you = self.receivers
        if self.kind == "withdraw":
            return a.Withdraw(me, you)
        if self.kind == "conditional":
            raise Unsayable(
                'a proposal in L cannot depend on a condition (L has no "if" in deals). To offer one thing for'
                ' another, propose both together, e.g. "you support me into Burgundy and I keep out of Belgium"'
            )
        if self.kind == "threat" and scene.strict:
            raise Unsayable(
                'L has no threats, and no "or" between two things to do; the closest I can say is the first part'
            )
        if isinstance(self.body, AgreementWords | ClausesWords | AttackWords):
            deal = self.body.deal(scene) if isinstance(self.body, ClausesWords) else self.body.agree(scene)
            if self.kind == "accept":
                return a.Accept(me, you, deal)
            if self.kind == "reject":
                return a.Reject(me, you, deal)
            # a proposal goes to every power it commits ("peace with Germany and England"), each of
            # which must accept it, as well as to the power of the conversation
            return a.Propose(me, frozenset({scene.you}) | (_committed(deal) - {me}), deal)
        assert self.body is not None  # every illocution but withdraw says something
        info = self.body.info(scene)
        if self.kind == "query":
            return a.Query(me, you, info)
        return a.Answer(me, you, info) if self.kind == "answer" else a.Inform(me, you, info)

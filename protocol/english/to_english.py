"""Every L message, up to level 8, in readable English.

Powers and provinces by their English names, the ``viewer`` as "you"; a proposal's
commitments as what each power will do; information as clauses. The forms that
:func:`protocol.english.understand` reads are written so that it reads them back (the
"core" of the language: proposals, answers to them, agreements told and asked about).

>>> from protocol.l import parse
>>> print(to_english(parse("propose(eng, fra, Agree([eng fra], pce([eng fra])))"), viewer="FRANCE"))
England proposes to you: peace between England and you
>>> text = "propose(ita, rus, [Commit(ita, rus, Do(mto(Unit(ita, Region(mar, amy)), Region(par, amy))))"
>>> text += " Commit(rus, ita, Do(sup(Unit(rus, Region(spa, scs)), mto(Unit(ita, Region(mar, amy)), Region(par, amy)))))])"
>>> print(to_english(parse(text)))
Italy proposes to Russia: Italy will move its army in Marseilles to Paris, and Russia will support Italy's army in Marseilles into Paris with its fleet in Spain (south coast)
>>> print(to_english(parse("query(eng, ita, Agree([ita rus], pce([ita rus])))"), viewer="ITALY"))
England asks you whether you and Russia have agreed on peace
>>> print(to_english(parse("inform(rus, eng, Support(Feel(ita, Angry), Desire(ita, dmz([ita], [par]))))")))
Russia tells England: Italy wishes that Italy keeps out of Paris, because Italy is angry
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from engine.maps import Map, standard_map
from protocol.calendar import TURN_SEASONS
from protocol.english.names import Names
from protocol.english.phrases import parties_of
from protocol.l import ast as a
from protocol.l.printer import to_text

__all__ = ["to_english"]

_SEASONS = {s.token: s.word for s in TURN_SEASONS}
_COASTS = {"ncs": "north", "scs": "south", "ecs": "east", "wcs": "west"}
_COMPARISONS = {">": "after", "<": "before", ">=": "not before", "<=": "not after", "=": "the same time as"}
_FEELINGS = {"VeryHappy": "very happy", "Happy": "happy", "Sad": "sad", "Angry": "angry"}


def to_english(message: a.Message, viewer: str | None = None, m: Map | None = None) -> str:
    """``message`` in English; ``viewer`` (a power, full name or abbreviation) is "you"."""
    names = Names.of(m or standard_map())
    you = None
    if viewer is not None:
        try:
            you = names.map.power(viewer)
        except KeyError:
            you = viewer.lower()  # a power the map lacks still reads as "you"
    text = _Writer(names, you).message(message, nested=False)
    return text[0].upper() + text[1:]


def _join(items: Iterable[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _is_predicates(f: a.Node) -> bool:
    """A predicate or a conjunction of predicates: what an agreement on something names."""
    if isinstance(f, a.And):
        return all(_is_predicates(o) for o in f.operands)
    return isinstance(f, a.Pce | a.Aly | a.Dmz | a.Drw | a.Slo)


def _parties(f: a.Node) -> frozenset[str]:
    """The powers that agree to predicates (``f`` is :func:`_is_predicates`)."""
    if isinstance(f, a.And):
        return frozenset().union(*map(_parties, f.operands))
    assert isinstance(f, a.Pce | a.Aly | a.Dmz | a.Drw | a.Slo)
    return parties_of(f)


@dataclass(frozen=True)
class _Writer:
    names: Names
    viewer: str | None

    # --- names ------------------------------------------------------------------------------

    def power(self, p: str) -> str:
        return "you" if p == self.viewer else self.names.power(p)

    def powers(self, ps: Iterable[str]) -> str:
        return _join(self.power(p) for p in sorted(ps))

    def whose(self, p: str) -> str:
        return "your" if p == self.viewer else f"{self.names.power(p)}'s"

    def plural(self, ps: Iterable[str]) -> bool:
        """Whether the subject takes a plural verb: several powers, or "you"."""
        ps = set(ps)
        return len(ps) > 1 or ps == {self.viewer}

    def subject(self, ps: Iterable[str], singular: str, plural: str) -> str:
        """``England is``, ``you are``, ``England and France are``."""
        ps = frozenset(ps)
        return f"{self.powers(ps)} {plural if self.plural(ps) else singular}"

    def provinces(self, ps: Iterable[str]) -> str:
        return _join(self.names.province(p) for p in ps)

    def region(self, r: a.Region) -> str:
        coast = _COASTS.get(r.rtype)
        name = self.names.province(r.province)
        return name if coast is None else f"{name} ({coast} coast)"

    def unit(self, u: a.Unit, agent: str | None = None) -> str:
        """``England's army in Paris``; ``its army in Paris`` when it is the agent's own."""
        owner = "its" if u.power == agent and agent != self.viewer else self.whose(u.power)
        kind = "army" if u.region.rtype == "amy" else "fleet"
        return f"{owner} {kind} in {self.region(u.region)}"

    def time(self, t: a.Time) -> str:
        return f"{_SEASONS[t.season]} {t.year}" if isinstance(t, a.Turn) else f"time {t.name}"

    def at(self, t: a.Time) -> str:
        """``in spring 1902``, ``at time t0``."""
        return f"{'in' if isinstance(t, a.Turn) else 'at'} {self.time(t)}"

    def when(self, t: a.Time | None) -> str:
        return "" if t is None else f" {self.at(t)}"

    def as_of(self, t: a.Time | None) -> str:
        return "" if t is None else f", as of {self.time(t)},"

    # --- messages ---------------------------------------------------------------------------

    def message(self, n: a.Message, nested: bool) -> str:
        """A message: in the present with a colon; ``nested`` in another, reported in the past."""
        s, to = n.sender, self.powers(n.receivers)
        prefix = "" if n.time is None else f"{self.at(n.time)}, "
        if isinstance(n, a.Withdraw):
            verb = "withdrew" if nested else "withdraws" if not self.plural({s}) else "withdraw"
            whose = "your" if s == self.viewer else "its"
            return f"{prefix}{self.power(s)} {verb} {whose} proposals to {to}"
        if isinstance(n, a.Propose | a.Accept | a.Reject):
            deal = self.deal(n.deal, s, n.receivers)
            word = {a.Propose: "propose", a.Accept: "accept", a.Reject: "reject"}[type(n)]
            verb = f"{word.rstrip('e')}ed" if nested else word if self.plural({s}) else f"{word}s"
            where = f"to {to}" if isinstance(n, a.Propose) else f"the proposal from {to}"
            return f"{prefix}{self.power(s)} {verb} {where}: {deal}"
        if isinstance(n.info, a.Explain) and n.info.time is None and not nested:
            why = self.clause(n.info.info)
            if isinstance(n, a.Query):
                return f"{prefix}{self.subject({s}, 'asks', 'ask')} {to} why {why}"
            return f"{prefix}{self.subject({s}, 'explains', 'explain')} to {to} why {why}"
        info = self.clause(n.info)
        if isinstance(n, a.Query):
            verb = "asked" if nested else "asks" if not self.plural({s}) else "ask"
            return f"{prefix}{self.power(s)} {verb} {to} whether {info}"
        word = "tell" if isinstance(n, a.Inform) else "answer"
        if nested:
            return f"{prefix}{self.power(s)} {'told' if word == 'tell' else 'answered'} {to} that {info}"
        return f"{prefix}{self.subject({s}, word + 's', word)} {to}: {info}"

    def deal(self, d: a.Deal | a.Agree, s: str | None, receivers: frozenset[str] | None) -> str:
        """What is proposed, accepted or rejected."""
        if isinstance(d, a.Agree):
            return self.agreement(d)
        return ", and ".join(sorted(self.commit(c, s, receivers) for c in d.commits))

    def agreement(self, d: a.Agree) -> str:
        """An agreement proposed: the bare predicates when the agents are those they name."""
        when = self.when(d.time)
        if _is_predicates(d.formula) and _parties(d.formula) == d.agents:
            return self.np(d.formula, None) + when
        between = f"an agreement between {self.powers(d.agents)}{when}"
        if _is_predicates(d.formula):
            return f"{between} on {self.np(d.formula, d.agents)}"
        return f"{between} that {self.clause(d.formula)}"

    def commit(self, c: a.Commit, s: str | None, receivers: frozenset[str] | None) -> str:
        """A promise. In a message from ``s`` to ``receivers``, one between them reads "England
        will ...", others name to whom they are made; in information (``s`` None) all do."""
        when, what = self.as_of(c.time), self.vp(c.formula, c.agent)
        if s is None:
            return f"{self.subject({c.agent}, 'has', 'have')} promised {self.powers(c.agents)}{when} to {what}"
        if (c.agent == s and c.agents == receivers) or (
            receivers is not None and c.agent in receivers and c.agents == {s}
        ):
            return f"{self.power(c.agent)} will{when} {what}"
        return f"{self.subject({c.agent}, 'promises', 'promise')} {self.powers(c.agents)}{when} to {what}"

    # --- predicates as noun phrases ---------------------------------------------------------

    def np(self, f: a.Node, elide: frozenset[str] | None) -> str:
        """Predicates named: ``peace between England and France``; the powers left out when
        they are ``elide``, the agents already named."""
        if isinstance(f, a.And):
            return " and ".join(self.np(o, elide) for o in f.operands)
        if isinstance(f, a.Pce):
            return "peace" + ("" if f.powers == elide else f" between {self.powers(f.powers)}")
        if isinstance(f, a.Aly):
            allies = "" if f.allies == elide else f" of {self.powers(f.allies)}"
            return f"an alliance{allies} against {self.powers(f.enemies)}"
        if isinstance(f, a.Dmz):
            powers = "" if f.powers == elide else f" for {self.powers(f.powers)}"
            return f"a demilitarised zone in {self.provinces(sorted(f.provinces))}{powers}"
        if isinstance(f, a.Drw):
            return "a draw" + ("" if f.powers == elide else f" between {self.powers(f.powers)}")
        assert isinstance(f, a.Slo)
        return f"a solo win for {self.power(f.power)}"

    # --- formulas as what an agent does -----------------------------------------------------

    def vp(self, f: a.Node, agent: str) -> str:
        """What ``agent`` will do: ``move its army in Paris to Burgundy``."""
        if isinstance(f, a.Do):
            return self.action_vp(f.action, agent) + self.when(f.time)
        if isinstance(f, a.Not):
            inner = self.vp(f.operand, agent)
            return f"not ({inner})" if isinstance(f.operand, a.And | a.Seq) else f"not {inner}"
        if isinstance(f, a.And):
            return " and ".join(self.vp(o, agent) for o in f.operands)
        if isinstance(f, a.Seq):
            return ", then ".join(self.vp(o, agent) for o in f.steps)
        others = lambda ps: ps - {agent}  # noqa: E731 - a name for a small set operation
        if isinstance(f, a.Pce) and agent in f.powers and others(f.powers):
            return f"keep the peace with {self.powers(others(f.powers))}"
        if isinstance(f, a.Aly) and agent in f.allies and others(f.allies):
            return f"ally with {self.powers(others(f.allies))} against {self.powers(f.enemies)}"
        if isinstance(f, a.Dmz) and f.powers == {agent}:
            return f"keep out of {self.provinces(sorted(f.provinces))}"
        if _is_predicates(f):
            return f"bring about {self.np(f, None)}"
        return f"see to it that {self.clause(f)}"

    def action_vp(self, n: a.Action, agent: str) -> str:
        if isinstance(n, a.Wve):
            return "waive a build" if n.power == agent else f"have {self.power(n.power)} waive a build"
        if isinstance(n, a.Bld):
            built = f"build {'an army' if n.unit.region.rtype == 'amy' else 'a fleet'} in {self.region(n.unit.region)}"
            return built if n.unit.power == agent else f"have {self.power(n.unit.power)} {built}"
        if n.unit.power != agent:
            return f"have {self.unit(n.unit)} {self.bare_action(n, agent)}"
        mine = self.unit(n.unit, agent)
        if isinstance(n, a.Hld):
            return f"hold {mine}"
        if isinstance(n, a.Mto):
            return f"move {mine} to {self.region(n.region)}"
        if isinstance(n, a.Cto):
            return f"move {mine} to {self.region(n.region)}{self.route(n)}"
        if isinstance(n, a.Rto):
            return f"retreat {mine} to {self.region(n.region)}"
        if isinstance(n, a.Dsb):
            return f"disband {mine}"
        if isinstance(n, a.Rem):
            return f"remove {mine}"
        return f"{self.bare_action(n, agent)} with {mine}"

    def bare_action(self, n: a.Action, agent: str | None) -> str:
        """What a unit does, without the unit: ``move to Burgundy``, ``support ... into ...``."""
        if isinstance(n, a.Hld):
            return "hold"
        if isinstance(n, a.Mto):
            return f"move to {self.region(n.region)}"
        if isinstance(n, a.Cto):
            return f"move to {self.region(n.region)}{self.route(n)}"
        if isinstance(n, a.Rto):
            return f"retreat to {self.region(n.region)}"
        if isinstance(n, a.Dsb):
            return "disband"
        if isinstance(n, a.Rem):
            return "be removed"
        if isinstance(n, a.Sup):
            into = "" if isinstance(n.order, a.Hld) else f" into {self.region(n.order.region)}"
            return f"support {self.unit(n.order.unit, agent)}{into}"
        assert isinstance(n, a.Cvy)
        return f"convoy {self.unit(n.move.unit, agent)} to {self.region(n.move.region)}"

    def route(self, n: a.Cto) -> str:
        via = f" via {self.provinces(n.route)}" if n.route else ""
        return f" by convoy{via}"

    # --- information as clauses -------------------------------------------------------------

    def clause(self, n: a.Node) -> str:
        """Information as a clause: ``France and Russia have agreed on peace``."""
        if isinstance(n, a.MESSAGE_TYPES):
            return self.message(n, nested=True)
        if isinstance(n, a.Do):
            return self.action_clause(n.action) + self.when(n.time)
        if isinstance(n, a.Pce):
            return f"{self.subject(n.powers, 'is', 'are')} at peace"
        if isinstance(n, a.Aly):
            return f"{self.subject(n.allies, 'is', 'are')} allied against {self.powers(n.enemies)}"
        if isinstance(n, a.Dmz):
            return f"{self.subject(n.powers, 'keeps', 'keep')} out of {self.provinces(sorted(n.provinces))}"
        if isinstance(n, a.Drw):
            return f"the game ends in a draw between {self.powers(n.powers)}"
        if isinstance(n, a.Slo):
            return f"{self.subject({n.power}, 'wins', 'win')} alone"
        if isinstance(n, a.TimeCmp):
            return f"{self.time(n.left)} is {_COMPARISONS[n.op]} {self.time(n.right)}"
        if isinstance(n, a.Not):
            return f"it is not true that {self.clause(n.operand)}"
        if isinstance(n, a.And):
            return ", and ".join(self.operand(o) for o in n.operands)
        if isinstance(n, a.Seq):
            return ", then ".join(self.operand(o) for o in n.steps)
        if isinstance(n, a.Implies):
            return f"if {self.operand(n.premise)}, then {self.operand(n.conclusion)}"
        if isinstance(n, a.Agree):
            have = self.subject(n.agents, "has", "have")
            if _is_predicates(n.formula):
                return f"{have} agreed{self.when(n.time)} on {self.np(n.formula, n.agents)}"
            return f"{have} agreed{self.when(n.time)} that {self.clause(n.formula)}"
        if isinstance(n, a.Deal):
            return ", and ".join(sorted(self.commit(c, None, None) for c in n.commits))
        return self.attitude(n)

    def operand(self, n: a.Node) -> str:
        """A clause inside a conjunction, sequence or implication: bracketed when it is one too."""
        text = self.clause(n)
        return f"({text})" if isinstance(n, a.And | a.Seq | a.Implies) else text

    def attitude(self, n: a.Node) -> str:
        """What powers observe, believe, want, do not know or feel; explanations and arguments."""
        if isinstance(n, a.Obs):
            observed = self.subject({n.agent}, "observes", "observe")
            return f"{observed}{self.when(n.time)}, with {self.powers(n.agents)}, that {self.clause(n.formula)}"
        if isinstance(n, a.Belief):
            return f"{self.subject({n.agent}, 'believes', 'believe')}{self.when(n.time)} that {self.clause(n.formula)}"
        if isinstance(n, a.Desire):
            return f"{self.subject({n.agent}, 'wishes', 'wish')}{self.when(n.time)} that {self.clause(n.formula)}"
        if isinstance(n, a.Unknown):
            knows = self.subject({n.agent}, "does not know", "do not know")
            return f"{knows}{self.when(n.time)} whether {self.clause(n.info)}"
        if isinstance(n, a.Feel):
            return f"{self.subject({n.agent}, 'is', 'are')} {_FEELINGS[n.feeling]}{self.when(n.time)}"
        if isinstance(n, a.Explain):
            return f"here is why{'' if n.time is None else f', {self.at(n.time)},'} {self.clause(n.info)}"
        if isinstance(n, a.Support):
            return f"{self.operand(n.second)}, because {self.operand(n.first)}"
        if isinstance(n, a.Attack):
            return f"{self.operand(n.first)}, which speaks against the claim that {self.operand(n.second)}"
        raise TypeError(f"not a node of information: {to_text(n)}")  # pragma: no cover - the union is exhausted

    def action_clause(self, n: a.Action) -> str:
        """An order that will be given: ``England's army in Paris will move to Burgundy``."""
        if isinstance(n, a.Wve):
            return f"{self.power(n.power)} will waive a build"
        if isinstance(n, a.Bld | a.Rem):
            return f"{self.power(n.unit.power)} will {self.action_vp(n, n.unit.power)}"
        return f"{self.unit(n.unit)} will {self.bare_action(n, None)}"

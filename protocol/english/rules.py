"""The restricted English that :func:`protocol.english.understand` reads, as a grammar.

The words are normalised first (:mod:`protocol.english.tokens`: "truce" is "peace", "back"
is "support", "is" and "am" are "are", articles are gone), so the templates below
name one word for many. The rules of each nonterminal are tried in order, and the first
reading of a whole sentence that makes sense on the board wins.

>>> from engine.maps import standard_map
>>> from protocol.english.grammar import Parser
>>> from protocol.english.names import Names
>>> from protocol.english.resolve import Scene
>>> scene = Scene("ENG", "FRA", Names.of(standard_map()), None)
>>> words = ("i", "propose", "peace", "and", "alliance", "against", "germany")
>>> [str(w.message(scene)) for w in Parser(grammar(scene), words).complete("message")]
['propose(eng, [fra], Agree([eng fra], aly([eng fra], [ger]) & pce([eng fra])))']
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from protocol.calendar import TURN_SEASONS
from protocol.english.grammar import NO, Bindings, Grammar, Rule, Terminal, rule
from protocol.english.phrases import (
    AgreementInfo,
    AgreementVP,
    AgreementWords,
    AllianceWords,
    AndInfo,
    AndVP,
    AttackPowersVP,
    AttackWords,
    BuildVP,
    ClausesWords,
    CommitWords,
    ConvoyVP,
    DisbandVP,
    DmzWords,
    DrawWords,
    ExplainInfo,
    FeelInfo,
    HoldVP,
    IntentInfo,
    KeepOutVP,
    KindWords,
    MessageWords,
    MoveVP,
    NotInfo,
    NotVP,
    Parties,
    PeaceWords,
    RemoveVP,
    RetreatVP,
    SoloWords,
    SupportVP,
    TimedVP,
    WaiveVP,
)
from protocol.english.resolve import AGENT, Place, Scene, UnitWords
from protocol.l import ast as a

__all__ = ["grammar"]


def _value(value: Any) -> Callable[[Bindings], Any]:
    return lambda _: value


def _words(*templates: str) -> list[Rule]:
    """Rules that only read words."""
    return [rule(t, _value(None)) for t in templates]


def _list(item: str, name: str, join: str = "and") -> list[Rule]:
    """The nonterminal ``name``: ``item (join)? item ...`` as a tuple; the joining word may be
    left out, since commas are gone."""
    return [
        rule(f"{{i:{item}}} ({join})? {{rest:{name}}}", lambda b: (b["i"], *b["rest"])),
        rule(f"{{i:{item}}}", lambda b: (b["i"],)),
    ]


def _powers(b: Bindings) -> Any:
    """A list of powers as one set; refused when it names a power twice ("England England" is
    two lists that lost their comma, as in "England tells France: France and Russia ...")."""
    powers: tuple[frozenset[str], ...] = b["p"]
    union = frozenset().union(*powers)
    return union if len(union) == sum(map(len, powers)) else NO


_COASTS = {"north": "ncs", "south": "scs", "east": "ecs", "west": "wcs"}
_SEASONS = {s.word: s.token for s in TURN_SEASONS}
_AGAINST = "(against|on|to attack)"
_MAKE = "(have|make|form|sign|agree on|agree to|agree|establish|keep|conclude|declare|propose)"
_WILL = (
    "(will|shall|can|would|could|should|must|may|promise to|promise|agree to|commit to|are move to|are willing to"
    "|are ready to|are about to|are planning to|plan to|intend to|mean to|want to|need to|have to|propose to)"
)

_RULES: dict[str, list[Rule]] = {
    # --- names, places, units, times ---------------------------------------------------------------
    "power_list": _list("power", "power_list", "and|or"),
    "powers": [rule("{p:power_list}", _powers)],
    "coast": [rule(f"({d}|{d}ern|{d[0]}) coast", _value(rtype)) for d, rtype in _COASTS.items()]
    + [rule(f"({rtype[:2]}|{rtype})", _value(rtype)) for rtype in _COASTS.values()],
    "place": [
        rule("{c:coast} of {p:province}", lambda b: Place(b["p"], b["c"])),
        rule("{p:province} (on)? {c:coast}", lambda b: Place(b["p"], b["c"])),
        rule("{p:province}", lambda b: Place(b["p"])),
    ],
    "places": _list("place", "places", "and|or"),
    "kind": [rule("army", _value("army")), rule("fleet", _value("fleet")), rule("unit", _value(None))],
    # "your fleet": a unit by its owner and kind alone, found by what it does ("... move to the Channel")
    "some_unit": [rule("{o:owner} {k:kind}", lambda b: NO if b["o"] == AGENT else KindWords(b["o"], b["k"]))],
    "unit": [
        rule("{o:owner}? {k:kind} (in|at|on|from|of)? {p:place}", lambda b: UnitWords(b["o"], b["k"], b["p"])),
        rule("{o:owner} {p:place} {k:kind}", lambda b: UnitWords(b["o"], b["k"], b["p"])),
    ],
    "time": [
        rule("(in|during|at|by|from)? {s:season} (of)? {y:year}", lambda b: a.Turn(b["s"], b["y"])),
        rule("(in|at)? time {v:timevar}", lambda b: a.TimeVar(b["v"])),
    ],
    "feeling": [
        rule("very (happy|glad|pleased)", _value("VeryHappy")),
        rule("(delighted|thrilled|overjoyed)", _value("VeryHappy")),
        rule("(happy|glad|pleased|content)", _value("Happy")),
        rule("(sad|unhappy|disappointed|upset)", _value("Sad")),
        rule("(angry|furious|mad|annoyed|cross)", _value("Angry")),
    ],
    # --- agreements ---------------------------------------------------------------------------------------
    "agreement": [
        rule("peace ((between|among|for) {b:powers})?", lambda b: PeaceWords(Parties(between=b["b"]))),
        rule("peace with {w:powers}", lambda b: PeaceWords(Parties(with_=b["w"]))),
        rule(
            f"alliance ((of|between|among) {{b:powers}})? ({_AGAINST} {{e:powers}})?",
            lambda b: AllianceWords(Parties(between=b["b"]), b["e"]),
        ),
        rule(
            f"alliance with {{w:powers}} ({_AGAINST} {{e:powers}})?",
            lambda b: AllianceWords(Parties(with_=b["w"]), b["e"]),
        ),
        rule(
            "dmz (in|of|on|at|for|around|over)? {ps:places} ((for|between|among) {b:powers})?",
            lambda b: DmzWords(b["ps"], Parties(between=b["b"])),
        ),
        rule(
            "dmz (in|of|on|at|for|around|over)? {ps:places} with {w:powers}",
            lambda b: DmzWords(b["ps"], Parties(with_=b["w"])),
        ),
        rule(
            "{ps:places} (as|be|become)? dmz ((for|between|among) {b:powers})?",
            lambda b: DmzWords(b["ps"], Parties(between=b["b"])),
        ),
        rule("draw ((between|for|among|with) {b:powers})?", lambda b: DrawWords(Parties(between=b["b"]))),
        rule("(solo|solo win|solo victory|win) for {p:power}", lambda b: SoloWords(b["p"])),
    ],
    "agreements": _list("agreement", "agreements"),
    # --- orders and promises ----------------------------------------------------------------------------
    "convoy": [
        rule("by convoy (via {r:places})?", lambda b: b["r"] or ()),
        rule("via {r:places}", lambda b: b["r"]),
    ],
    "target": [
        rule("{u:unit}", lambda b: b["u"]),
        rule("{p:powers}", lambda b: b["p"]),
        rule("{o:owner} (move|attack)", lambda b: frozenset({b["o"]})),
    ],
    "supporter": [rule("{u:unit}", lambda b: b["u"]), rule("{p:place}", lambda b: b["p"])],
    "action": [
        rule("hold {u:unit}", lambda b: HoldVP(b["u"], None)),
        rule("hold (in|at)? {p:place}", lambda b: HoldVP(None, b["p"])),
        rule("hold", _value(HoldVP(None, None))),
        rule("move {u:unit} (to|into) {d:place} {c:convoy}?", lambda b: MoveVP(b["u"], None, b["d"], b["c"])),
        # "move your fleet to the English Channel": the one fleet of yours that can
        rule(
            "move {o:owner} {k:kind} (to|into) {d:place}",
            lambda b: MoveVP(KindWords(b["o"], b["k"]), None, b["d"], None),
        ),
        rule(
            "(move|attack) (from {o:place})? (to|into)? {d:place} {c:convoy}?",
            lambda b: MoveVP(None, b["o"], b["d"], b["c"]),
        ),
        rule(
            "(move|attack) (to|into)? {d:place} from {o:place} {c:convoy}?",
            lambda b: MoveVP(None, b["o"], b["d"], b["c"]),
        ),
        rule("attack {d:place} (with|using|from) {u:unit}", lambda b: MoveVP(b["u"], None, b["d"], None)),
        rule(
            "support {t:target} ((in|to)? hold)? ((with|from|using) {s:supporter})?",
            lambda b: SupportVP(b["t"], None, None, b["s"]),
        ),
        rule(
            "support {t:target} (into|to|in|on|move to|move into|attack on|attack|attack into) {d:place}"
            " ((with|from|using) {s:supporter})?",
            lambda b: SupportVP(b["t"], None, b["d"], b["s"]),
        ),
        rule(
            "support {t:target} (move|attack)? from {o:place} (into|to|on) {d:place} ((with|using) {s:supporter})?",
            lambda b: SupportVP(b["t"], b["o"], b["d"], b["s"]),
        ),
        rule(
            "convoy {t:target} (from {o:place})? (to|into) {d:place} ((with|using|from) {f:supporter})?",
            lambda b: ConvoyVP(b["t"], b["o"], b["d"], b["f"]),
        ),
        rule("retreat {u:unit} (to|into) {d:place}", lambda b: RetreatVP(b["u"], b["d"])),
        rule("retreat (from {o:place})? (to|into) {d:place}", lambda b: RetreatVP(b["o"], b["d"])),
        rule("disband {u:unit}?", lambda b: DisbandVP(b["u"])),
        rule("remove {u:unit}", lambda b: RemoveVP(b["u"])),
        rule("build {k:kind} (in|at) {p:place}", lambda b: BuildVP(b["k"], b["p"])),
        rule("waive (build)?", _value(WaiveVP())),
    ],
    "promise": [
        rule("keep out of {ps:places}", lambda b: KeepOutVP(b["ps"], None)),
        rule("move out of {ps:places}", lambda b: KeepOutVP(b["ps"], None)),
        rule(
            "move {o:owner} {k:kind} out of {p:place}",
            lambda b: KeepOutVP((b["p"],), UnitWords(b["o"], b["k"], b["p"])),
        ),
        rule("not (move|attack|enter) (to|into)? {ps:places}", lambda b: KeepOutVP(b["ps"], None)),
        rule("dmz {ps:places}", lambda b: AgreementVP(DmzWords(b["ps"], Parties()))),
        rule(
            "(keep|make|maintain|respect) peace (with {w:powers})?",
            lambda b: AgreementVP(PeaceWords(Parties(with_=b["w"]))),
        ),
        rule(
            f"(make|form)? alliance with {{w:powers}} ({_AGAINST} {{e:powers}})?",
            lambda b: AgreementVP(AllianceWords(Parties(with_=b["w"]), b["e"])),
        ),
        rule(f"(make|form)? alliance {_AGAINST} {{e:powers}}", lambda b: AgreementVP(AllianceWords(Parties(), b["e"]))),
        rule("(bring about|agree to|agree on|accept|respect) {n:agreement}", lambda b: AgreementVP(b["n"])),
        # "attack Austria": no order of L, said only to say so (or, with "we", an alliance)
        rule("attack {e:powers}", lambda b: AttackPowersVP(b["e"], False)),
        rule("not attack {e:powers}", lambda b: AttackPowersVP(b["e"], True)),
    ],
    "vp": [
        rule("{v:promise}", lambda b: b["v"]),
        rule("not {v:vp}", lambda b: NotVP(b["v"])),
        rule("{v:action} {t:time}", lambda b: TimedVP(b["v"], b["t"])),
        rule("{v:action}", lambda b: b["v"]),
    ],
    "vps": [
        rule("{v:vp} and {rest:vps}", lambda b: AndVP((b["v"], b["rest"]))),
        rule("{v:vp}", lambda b: b["v"]),
    ],
    "clause": [
        rule(f"{{s:powers}} {_WILL} {{v:vps}}", lambda b: CommitWords(b["s"], b["v"])),
        # "I'm going to Belgium": "going" is read "move"
        rule(
            "{s:powers} are move (to|into) {d:place} {c:convoy}?",
            lambda b: CommitWords(b["s"], MoveVP(None, None, b["d"], b["c"])),
        ),
        rule("{s:powers} {v:vps}", lambda b: CommitWords(b["s"], b["v"])),
        rule("{u:unit} (will|shall|can|should|must|may|would|could)? {v:vps}", lambda b: CommitWords(b["u"], b["v"])),
        rule(
            "{u:some_unit} (will|shall|can|should|must|may|would|could)? {v:vps}", lambda b: CommitWords(b["u"], b["v"])
        ),
        rule("let {s:powers} {v:vps}", lambda b: CommitWords(b["s"], b["v"])),
        rule(
            "(shall|should|can|could|will|would|why do not|why not) {s:powers} {v:vps}",
            lambda b: CommitWords(b["s"], b["v"]),
        ),
        rule("i (want|need|ask) {s:powers} to {v:vps}", lambda b: CommitWords(b["s"], b["v"])),
        rule("please? {v:vps} (please)?", lambda b: CommitWords(None, b["v"])),
    ],
    # one promise of several orders before several promises: "I will hold in Munich and move ..."
    "clauses": [
        rule("{c:clause}", lambda b: (b["c"],)),
        rule("{c:clause} (and|then)? {rest:clauses}", lambda b: (b["c"], *b["rest"])),
    ],
    # --- proposals ------------------------------------------------------------------------------------------
    "lead": _words(
        "i (propose|want) (to)?",
        "i propose (to)? you",
        "i want to propose",
        "(how|what) about",
        "let us (all)?",
        "(shall|should|can|could|will|would) we",
        "we (should|could|can|must|will)",
        "why not we",
        "why not",
        "(do|would) you (want|like) (to)?",
        "are you (interested in|up for|open to|ready for)",
        "proposal",
    ),
    "intro": [rule(f"{{lead}} {_MAKE}?", _value(None)), rule(_MAKE, _value(None))],
    "deal_intro": _words("i propose (that)?", "(how|what) about", "proposal"),
    # what introduces a joint attack: "we should attack Austria" is an alliance against Austria
    "we_lead": _words(
        "let us",
        "(shall|should|can|could|will|would) we",
        "we (should|could|can|must|will|are move to|need to|have to|ought to)",
        "why not we",
        "why not",
        "(how|what) about",
        "i propose (that)? we",
        "i propose (to)?",
        "(do|would) you (want|like) to",
        "are you (interested in|up for|open to|ready for)",
    ),
    "agreed": [
        rule("{n:agreements}", lambda b: AgreementWords(b["n"], None)),
        rule(
            "agreement (between|among|of) {g:powers} (on|to|about|that)? {n:agreements}",
            lambda b: AgreementWords(b["n"], b["g"]),
        ),
    ],
    "deal": [
        rule("{d:agreed}", lambda b: b["d"]),
        rule("{c:clauses}", lambda b: ClausesWords(b["c"])),
    ],
    # --- information and questions -----------------------------------------------------------------------
    "fact": [
        rule("it are not true that {i:info}", lambda b: NotInfo(b["i"])),
        rule("{s:powers} have agree (on|to)? {n:agreements}", lambda b: AgreementInfo(b["s"], b["n"])),
        rule("{s:powers} have not agree (on|to)? {n:agreements}", lambda b: AgreementInfo(b["s"], b["n"], True)),
        rule("{s:powers} (have|are in) {n:agreements}", lambda b: AgreementInfo(b["s"], b["n"])),
        rule("{s:powers} (have no|not have|are not in) {n:agreements}", lambda b: AgreementInfo(b["s"], b["n"], True)),
        rule(
            "{s:powers} are (at)? peace (with {w:powers})?",
            lambda b: AgreementInfo(b["s"], (PeaceWords(Parties(with_=b["w"])),)),
        ),
        rule(
            "{s:powers} are not (at)? peace (with {w:powers})?",
            lambda b: AgreementInfo(b["s"], (PeaceWords(Parties(with_=b["w"])),), True),
        ),
        rule(
            f"{{s:powers}} are (in)? alliance (with {{w:powers}})? ({_AGAINST} {{e:powers}})?",
            lambda b: AgreementInfo(b["s"], (AllianceWords(Parties(with_=b["w"]), b["e"]),)),
        ),
        rule(
            f"{{s:powers}} are not (in)? alliance (with {{w:powers}})? ({_AGAINST} {{e:powers}})?",
            lambda b: AgreementInfo(b["s"], (AllianceWords(Parties(with_=b["w"]), b["e"]),), True),
        ),
        rule("there are {n:agreements}", lambda b: AgreementInfo(None, b["n"])),
        rule("there are no {n:agreements}", lambda b: AgreementInfo(None, b["n"], True)),
        rule("{s:powers} are {f:feeling}", lambda b: FeelInfo(b["s"], b["f"])),
    ],
    "info": [
        rule("{i:fact} and {rest:info}", lambda b: AndInfo((b["i"], b["rest"]))),
        rule("{i:fact}", lambda b: b["i"]),
    ],
    "question": [
        rule("do {s:powers} have {n:agreements}", lambda b: AgreementInfo(b["s"], b["n"])),
        rule(
            "are {s:powers} (at)? peace (with {w:powers})?",
            lambda b: AgreementInfo(b["s"], (PeaceWords(Parties(with_=b["w"])),)),
        ),
        rule(
            f"are {{s:powers}} (in)? alliance (with {{w:powers}})? ({_AGAINST} {{e:powers}})?",
            lambda b: AgreementInfo(b["s"], (AllianceWords(Parties(with_=b["w"]), b["e"]),)),
        ),
        rule("have {s:powers} agree (on|to)? {n:agreements}", lambda b: AgreementInfo(b["s"], b["n"])),
        rule("are there {n:agreements}", lambda b: AgreementInfo(None, b["n"])),
        rule("are {s:powers} {f:feeling}", lambda b: FeelInfo(b["s"], b["f"])),
        rule("(whether|are it true that) {i:info}", lambda b: b["i"]),
        # questions about intentions: what a power (or a unit) will do, asked yes or no
        rule(
            "are {s:powers} (move to|planning to|about to|intending to) {v:vps}",
            lambda b: IntentInfo(CommitWords(b["s"], b["v"])),
        ),
        rule("do {s:powers} (plan|intend|mean) to {v:vps}", lambda b: IntentInfo(CommitWords(b["s"], b["v"]))),
        rule("are ({u:unit}|{u:some_unit}) move to {v:vps}", lambda b: IntentInfo(CommitWords(b["u"], b["v"]))),
        rule("will ({u:unit}|{u:some_unit}) {v:vps}", lambda b: IntentInfo(CommitWords(b["u"], b["v"]))),
        # "why ...?": an explanation asked for (level 7)
        rule("why {i:question}", lambda b: ExplainInfo(b["i"])),
    ],
    # --- whole messages -------------------------------------------------------------------------------------
    "message": [
        # the echo of a message, as to_english writes it
        rule("{s:powers} propose to {r:powers} {d:deal}", lambda b: MessageWords("propose", b["d"], b["s"], b["r"])),
        rule(
            "{s:powers} accept proposal from {r:powers} {d:deal}",
            lambda b: MessageWords("accept", b["d"], b["s"], b["r"]),
        ),
        rule(
            "{s:powers} reject proposal from {r:powers} {d:deal}",
            lambda b: MessageWords("reject", b["d"], b["s"], b["r"]),
        ),
        rule(
            "{s:powers} withdraw (its|my|your|his|her|their)? proposal to {r:powers}",
            lambda b: MessageWords("withdraw", None, b["s"], b["r"]),
        ),
        rule("{s:powers} tell {r:powers} (that)? {i:info}", lambda b: MessageWords("inform", b["i"], b["s"], b["r"])),
        rule(
            "{s:powers} ask {r:powers} (whether|if) {i:info}", lambda b: MessageWords("query", b["i"], b["s"], b["r"])
        ),
        rule("{s:powers} answer {r:powers} (that)? {i:info}", lambda b: MessageWords("answer", b["i"], b["s"], b["r"])),
        # what a person writes
        rule("i accept (your)? (proposal)? (of|for)? {d:deal}", lambda b: MessageWords("accept", b["d"])),
        rule("i reject (your)? (proposal)? (of|for)? {d:deal}", lambda b: MessageWords("reject", b["d"])),
        rule("i withdraw (my)? proposal to {r:powers}", lambda b: MessageWords("withdraw", None, None, b["r"])),
        # "will your army in Venice move to Trieste?" asks the receiver to, as "will you move ...?" does;
        # about another power's unit it is a question (the next rule)
        rule(
            "(will|would|can|could) ({u:unit}|{u:some_unit}) {v:vps} (please)?",
            lambda b: MessageWords("propose", ClausesWords((CommitWords(b["u"], b["v"]),), asked=True)),
        ),
        rule("{i:question}", lambda b: MessageWords("query", b["i"])),
        rule("(yes|no) {i:info}", lambda b: MessageWords("answer", b["i"])),
        rule("{intro}? {d:agreed} (please)?", lambda b: MessageWords("propose", b["d"])),
        rule("{i:info}", lambda b: MessageWords("inform", b["i"])),
        rule("{deal_intro}? {c:clauses}", lambda b: MessageWords("propose", ClausesWords(b["c"]))),
        rule(
            "{we_lead} attack {e:powers} (with {w:powers})?",
            lambda b: MessageWords("propose", AttackWords(None, b["e"], b["w"])),
        ),
        rule(
            f"{{s:powers}} {_WILL} attack {{e:powers}}", lambda b: MessageWords("propose", AttackWords(b["s"], b["e"]))
        ),
        # what L cannot say, read to say so: threats, "or", conditions
        rule("{d:deal} (or|otherwise|or else|else) {r:rest}", lambda b: MessageWords("threat", b["d"])),
        rule("{r:rest} unless {d:deal}", lambda b: MessageWords("threat", b["d"])),
        rule("if {d:deal} (then)? {r:rest}", lambda b: MessageWords("conditional", b["d"])),
        rule("{d:deal} if {r:rest}", lambda b: MessageWords("conditional", b["d"])),
        # "France, I propose peace"
        rule("{v:name} {m:message}", lambda b: replace(b["m"], vocative=b["v"]) if b["m"].vocative is None else NO),
    ],
}


_PRONOUNS = ("i", "me", "myself", "you", "yourself", "we", "us", "ourselves")
_OWNERS = ("my", "your", "its", "his", "her", "their")
#: Words for every power in the game: "a draw between all of us" is all of them, never two.
_EVERYONE = (
    ("all", "of", "us"), ("all", "of", "them"), ("everyone",), ("all", "powers"), ("all", "players"),
    ("all", "survivors"), ("all", "surviving", "powers"), ("all", "remaining", "powers"), ("all", "seven"),
    ("all", "seven", "powers"), ("all", "powers", "left"), ("all", "us"),
)  # fmt: skip


def pronouns_and_owners() -> set[str]:
    """The words that name a power in a conversation without naming it."""
    return {*_PRONOUNS, *_OWNERS, *(w for words in _EVERYONE for w in words)}


def everyone(scene: Scene) -> frozenset[str]:
    """The powers still in the game (all of the map's without a position)."""
    m = scene.map
    if scene.position is None:
        return frozenset(m.powers)
    alive = {u.power for u in scene.position.units} | {c for c in scene.position.centers if c}
    return frozenset(alive)


def _terminals(scene: Scene) -> dict[str, Terminal]:
    """The nonterminals that read names, and the pronouns of this conversation."""
    me, you = scene.me, scene.you
    pronouns = {
        "i": {me}, "me": {me}, "myself": {me}, "you": {you}, "yourself": {you},
        "we": {me, you}, "us": {me, you}, "ourselves": {me, you},
    }  # fmt: skip
    owners = {"my": me, "your": you, "its": AGENT, "his": AGENT, "her": AGENT, "their": AGENT}

    def name(words: tuple[str, ...], i: int) -> Sequence[tuple[Any, int]]:
        return [(frozenset({p}), j) for p, j in scene.names.powers_at(words, i)]

    def power(words: tuple[str, ...], i: int) -> Sequence[tuple[Any, int]]:
        for phrase in _EVERYONE:
            if words[i : i + len(phrase)] == phrase:
                return [(everyone(scene), i + len(phrase))]
        if i < len(words) and words[i] in pronouns:
            return [(frozenset(pronouns[words[i]]), i + 1)]
        return name(words, i)

    def owner(words: tuple[str, ...], i: int) -> Sequence[tuple[Any, int]]:
        if i < len(words) and words[i] in owners:
            return [(owners[words[i]], i + 1)]
        return scene.names.powers_at(words, i)

    def province(words: tuple[str, ...], i: int) -> Sequence[tuple[Any, int]]:
        return scene.names.provinces_at(words, i)

    def word(pattern: str, convert: Callable[[str], Any]) -> Terminal:
        return lambda words, i: (
            [(convert(words[i]), i + 1)] if i < len(words) and re.fullmatch(pattern, words[i]) else []
        )

    return {
        "name": name,
        "power": power,
        "owner": owner,
        "province": province,
        "season": word("|".join(_SEASONS), _SEASONS.__getitem__),
        "year": word(r"[0-9]{4}", int),
        "timevar": word(r"t[0-9]+", str),
        "rest": lambda words, i: [(words[i:j], j) for j in range(len(words), i, -1)],
    }


def grammar(scene: Scene) -> Grammar:
    """The grammar for one conversation: the rules, and terminals that know who "I" and "you" are."""
    return {**_RULES, **_terminals(scene)}

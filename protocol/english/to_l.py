"""English to L: what a person types in a conversation, understood as one L message.

The sender and receiver come from the conversation; "I", "you" and "my army in Paris"
are theirs, and units are looked up on the board when the position is given. A bare
"yes", "no" or "I withdraw" answers the open proposal of the conversation (or the open
question). A message written in L itself is taken as it is (the expert mode). A proposal goes
to the receiver and to every other power its deal commits, each of which must accept it
("peace with Germany and England", written to England, goes to England and Germany); and
"help" is answered with examples of what to write, each of which reads as L in the conversation.

>>> from engine import Position
>>> said = understand("Shall we make peace?", "ENGLAND", "FRANCE")
>>> print(said.message)
propose(eng, [fra], Agree([eng fra], pce([eng fra])))
>>> print(said.echo)
You propose to France: peace between you and France
>>> print(understand("ok", "FRANCE", "ENGLAND", open_proposal=said.message).message)
accept(fra, [eng], Agree([eng fra], pce([eng fra])))
>>> understand("I will support your army in Munich into Burgundy", "FRANCE", "GERMANY", Position.initial()).reason
"which unit will support Germany's army in Munich into Burgundy: your army in Marseilles or your army in Paris?"
>>> print(understand("I propose peace, and my cat is hungry", "ENGLAND", "FRANCE").closest)
propose(eng, [fra], Agree([eng fra], pce([eng fra])))
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace

from engine.maps import FLEET, standard_map
from engine.position import Position
from protocol.english import politeness
from protocol.english.grammar import Parser
from protocol.english.names import Names
from protocol.english.phrases import MessageWords, Unsayable
from protocol.english.resolve import Misunderstanding, Scene
from protocol.english.rules import everyone, grammar, pronouns_and_owners
from protocol.english.spelling import Speller, describe_unsure
from protocol.english.to_english import to_english
from protocol.english.tokens import Sentence, normalise, sentences
from protocol.l import LError, LLevelError, check_levels, check_ontology, parse
from protocol.l import ast as a

__all__ = ["NotUnderstood", "Understood", "understand"]


@dataclass(frozen=True, slots=True)
class Understood:
    """The L message understood, and ``echo``: it in English, to show the person who wrote it.

    ``kind`` says what it is: ``promise`` (a proposal of what the writer alone will do: "I
    will ..."), ``request`` (of what the receiver alone will do), ``proposal`` (any other),
    or the illocution (``accept``, ``reject``, ``withdraw``, ``inform``, ``query``,
    ``answer``); ``note`` says how it is sent ("sent as a proposal to Austria: ..."), and
    which misspelt words were read as which.
    """

    message: a.Message
    echo: str
    kind: str = "proposal"
    note: str | None = None


@dataclass(frozen=True, slots=True)
class NotUnderstood:
    """Why the words were not understood, and the closest L message that could be built, if any.

    ``kind``: ``not_understood``; ``cannot_say`` when the words were understood but L cannot
    say them (the reason begins "L cannot say that"); ``no_l`` for greetings and thanks,
    answered kindly, and for "help", answered with examples of what to write, with nothing to
    send; ``ask`` when a word is asked about rather than guessed.
    """

    reason: str
    closest: a.Message | None
    kind: str = "not_understood"


_LONGEST_SENTENCE = 80  # words: the closest reading of a sentence is looked for from each of its words

_RAW_L = re.compile(r"\s*(propose|accept|reject|withdraw|inform|query|answer)\s*\(", re.IGNORECASE)


def _phrases(*texts: str) -> frozenset[tuple[str, ...]]:
    return frozenset(normalise(t) for t in texts)


# Replies that need no more words, normalised as the sentences are.
_REPLIES = {
    "accept": _phrases(
        "yes", "yeah", "yep", "yup", "ok", "okay", "sure", "agreed", "deal", "accept", "fine", "alright",
        "all right", "done", "absolutely", "definitely", "certainly", "of course", "sounds good", "that works",
        "you have a deal", "it's a deal", "let's do it", "go ahead", "why not", "good idea", "great", "excellent",
        "perfect", "gladly", "with pleasure", "I'm in", "count me in",
    ),
    "reject": _phrases(
        "no", "nope", "nah", "never", "refuse", "reject", "decline", "no thanks", "no thank you", "no way",
        "no deal", "not interested", "not now", "don't accept", "don't agree", "I'd rather not", "I'm out",
    ),
    "withdraw": _phrases(
        "withdraw", "never mind", "nevermind", "cancel", "forget it", "forget that", "take it back",
        "scratch that", "I change my mind", "I changed my mind",
    ),
    None: _phrases(
        "I", "it", "that", "this", "your proposal", "my proposal", "the proposal", "your offer", "my offer",
        "thanks", "thank you", "please", "sorry", "for now", "then",
    ),
}  # fmt: skip
_LONGEST_REPLY = max(len(p) for phrases in _REPLIES.values() for p in phrases)

# "Do you accept?": the status of the writer's open proposal, asked.
_ASK_ACCEPT = _phrases(
    "do you accept", "do you accept it", "do you accept this", "do you accept that", "do you accept my proposal",
    "do you accept my offer", "do you accept the proposal", "do you accept the offer", "do you accept the deal",
    "do you agree", "do you agree to it", "do you agree to that", "do you agree to my proposal", "will you accept",
    "will you accept it", "will you accept my proposal", "would you accept", "would you accept it", "can you accept",
    "can you accept it", "are we agreed", "is it a deal", "do we have a deal", "deal or not", "deal or no deal",
    "do you accept or not", "what do you say", "what do you think", "what is your answer", "any answer",
    "so do you accept", "your answer", "yes or no",
)  # fmt: skip

# "Help": answered with what one can write, and examples of it.
_HELP = _phrases(
    "help", "help me", "help please", "please help", "help me please", "I need help", "need help", "can you help",
    "can you help me", "what can I say", "what can I write", "what can I type", "what do I say", "what do I write",
    "what do I type", "what should I say", "what should I write", "how does this work", "how does it work",
    "how do I use this", "how do I use it", "what do you understand", "what can you understand", "examples",
    "example", "give me examples", "show me examples", "some examples", "commands", "instructions", "usage", "hints",
)  # fmt: skip

# The words of the replies and of asking for help: known to the speller, never misspellings.
_KNOWN = frozenset(w for phrases in (*_REPLIES.values(), _ASK_ACCEPT, _HELP) for p in phrases for w in p) | frozenset(
    w for phrases in _REPLIES.values() for p in phrases for w in " ".join(p).split()
)

# Words that, left out of the closest reading, would change who does what to whom.
_ROLE_WORDS = frozenset(pronouns_and_owners()) - {"my", "your", "its", "his", "her", "their"}

_OPEN_QUESTION = frozenset({"what", "where", "which", "who", "whom", "whose", "when", "how", "why"})
_TRUST = frozenset(
    {
        "trust",
        "trusted",
        "distrust",
        "lie",
        "lies",
        "lied",
        "lying",
        "liar",
        "betray",
        "betrayed",
        "betrayal",
        "backstab",
        "stab",
        "stabbed",
        "cheat",
        "cheated",
        "cheating",
        "honest",
        "loyal",
    }
)
_CENTRES = frozenset(
    {
        "give",
        "gives",
        "giving",
        "hand",
        "cede",
        "yours",
        "mine",
        "take",
        "get",
        "own",
        "owns",
        "belongs",
        "belong",
        "center",
        "centre",
        "centers",
        "centres",
        "sc",
        "scs",
    }
)
_OWN = frozenset({"have", "keep", "take", "get", "hold"})  # "you can have Belgium"
_MAYBE = frozenset({"later", "think", "thinking", "consider", "considering", "decide", "sure", "wait"})


def understand(
    text: str,
    sender: str,
    receiver: str,
    position: Position | None = None,
    open_proposal: a.Message | None = None,
    *,
    expert: bool = False,
    levels: Iterable[int] | None = None,
) -> Understood | NotUnderstood:
    """``text``, written by ``sender`` to ``receiver`` (full power names), as an L message.

    ``position``: the board that units are looked up on; ``open_proposal``: the proposal
    (or question) of the conversation that a bare "yes", "no" or "I withdraw" answers;
    ``expert``: ``text`` is L, as it is also when it begins like an illocution; ``levels``:
    the L levels the game allows (None: all), beyond which "L cannot say that" in this game.
    """
    names = Names.of(standard_map() if position is None else position.map)
    scene = Scene(names.map.power(sender), names.map.power(receiver), names, position)
    if expert or _RAW_L.match(text):
        raw = _raw_l(text, scene, sender)
        if not (expert or isinstance(raw, Understood) or raw.closest is not None):
            english = _english(text, scene, sender, open_proposal)  # "Propose (peace)?" looked like L
            raw = english if isinstance(english, Understood) else raw
        return _within(raw, levels)
    return _within(_english(text, scene, sender, open_proposal), levels)


def _within(said: Understood | NotUnderstood, levels: Iterable[int] | None) -> Understood | NotUnderstood:
    """What was understood, if the game's levels let L say it."""
    if levels is None or isinstance(said, NotUnderstood):
        return said
    try:
        check_levels(said.message, levels)
    except LLevelError as e:
        return NotUnderstood(f"L cannot say that in this game: {e.message}", None, "cannot_say")
    return said


def _understood(message: a.Message, scene: Scene, sender: str, corrected: Iterable[tuple[str, str]] = ()) -> Understood:
    """The message understood, what kind of message it is and how it is sent."""
    you = _join(scene.names.power(p) for p in sorted(message.receivers))
    kind = type(message).__name__.lower()
    note: str | None = None
    if isinstance(message, a.Propose):
        agents = (
            {c.agent for c in message.deal.commits} if isinstance(message.deal, a.Deal) else set(message.deal.agents)
        )
        if isinstance(message.deal, a.Deal) and agents == {scene.me}:
            kind = "promise"
            note = (
                f"sent as a proposal to {you}: L says what you will do as a promise that you propose,"
                f" and {you} can accept or reject it"
            )
        else:
            kind = "request" if isinstance(message.deal, a.Deal) and scene.me not in agents else "proposal"
            note = f"sent as a proposal to {you}, who can accept or reject it"
    elif isinstance(message, a.Query):
        note = f"sent as a yes-or-no question to {you}"
    elif isinstance(message, a.Inform):
        note = f"sent as information to {you}"
    read = list(dict.fromkeys(corrected))
    if read:
        spelt = ", ".join(f'"{typed}" as "{meant}"' for typed, meant in read)
        note = f"{note}; I read {spelt}" if note else f"I read {spelt}"
    return Understood(message, to_english(message, sender, scene.map), kind, note)


def _join(items: Iterable[str]) -> str:
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _english(text: str, scene: Scene, sender: str, open_proposal: a.Message | None) -> Understood | NotUnderstood:
    names = scene.names
    speller = Speller.of(names.map, _KNOWN)
    text, polite = politeness.strip(text)
    found = sentences(text, names.is_province, speller.correct)
    if found and all(sentence.words in _HELP for sentence in found):
        return NotUnderstood(_help(scene, sender), None, "no_l")
    found = [sentence for sentence in found if sentence.words not in _HELP]  # "Help! I propose peace"
    for sentence in found:
        for word, candidates in sentence.unsure:
            return NotUnderstood(describe_unsure(word, candidates, speller, names.map), None, "ask")
    corrected = [c for sentence in found for c in sentence.corrected]
    said = [
        (sentence, "ask_accept" if sentence.words in _ASK_ACCEPT else _reply(sentence.words))
        for sentence in found
        if _trailing_name(sentence, scene) != 0  # "Hello France!" greets, it says nothing
    ]
    said = [(sentence, kind) for sentence, kind in said if kind != "neutral"]
    if polite and all(_only_names(sentence, scene) for sentence, _ in said):
        said = []  # "Greetings, Austria!"
    if len(said) > 1 and all(kind is None for _, kind in said):
        # sentences that may refer to each other ("I move to Belgium. Support me there."), read as one
        words = tuple(w for i, (s, _) in enumerate(said) for w in ("and",) * bool(i) + s.words)
        joined = _sentence(Sentence(words, tuple(words)), scene)
        if not isinstance(joined, NotUnderstood):
            return _understood(joined, scene, sender, corrected)
    results = [
        _sentence(s, scene)
        if kind is None
        else _ask_accept(scene, open_proposal)
        if kind == "ask_accept"
        else _answer(kind, scene, open_proposal)
        for s, kind in said
    ]
    if not results:
        if polite:
            return NotUnderstood(politeness.answer(polite, names.power(scene.you)), None, "no_l")
        return NotUnderstood("there is nothing to understand", None)
    failed = [r for r in results if isinstance(r, NotUnderstood)]
    messages = [r for r in results if not isinstance(r, NotUnderstood)]
    if failed:
        first = failed[0]
        return NotUnderstood(first.reason, first.closest or (messages[0] if messages else None), first.kind)
    message = _together(messages)
    if message is None:
        return NotUnderstood("say one thing at a time: one proposal, reply or question a message", messages[0])
    return _understood(message, scene, sender, corrected)


def _help(scene: Scene, sender: str) -> str:
    """What one can write in this conversation: each example made for it (its powers, and
    units on its board) and read here as L, so that none of them fails."""
    names, m = scene.names, scene.map
    you = names.power(scene.you)
    others = [names.power(p) for p in sorted(everyone(scene)) if p not in (scene.me, scene.you)]
    board = scene.position or Position.initial(m)
    mine = _example_moves(board, scene.me, names)
    yours = _example_moves(board, scene.you, names)

    def first(*texts: str) -> list[str]:
        """The first of the texts that is understood here as it says (none if none is)."""
        for text in texts:
            said = _english(text, scene, sender, None)
            if isinstance(said, Understood):
                return [f'"{text}"']
        return []

    proposals = first("Peace?")
    if others:
        proposals += first(f"I propose peace with {others[0]} and {you}")
        proposals += first(*(f"An alliance against {enemy}" for enemy in reversed(others)))
    proposals += first("A draw between all of us")
    orders = first(*(f"I will move my {unit} to {where}" for unit, where in mine))
    orders += first(*(f"Will your {unit} move to {where}?" for unit, where in yours))
    orders += first(*(f"Please don't move your {unit} to {where}" for unit, where in reversed(yours)))
    orders += first(*(f"Keep out of {where}" for _, where in mine))
    questions = first(*(f"Do you have peace with {other}?" for other in others))
    questions += first(*(f"Is your {unit} going to move to {where}?" for unit, where in yours))
    examples = "; ".join(
        f"{what}: {', '.join(said)}"
        for what, said in (
            ("to propose", proposals),
            ("to promise or ask what units do", orders),
            ("to ask", questions),
        )
        if said
    )
    return (
        f"Write to {you} in plain English, one proposal, request, question or reply a message. For example,"
        f' {examples}; to answer an open proposal, "yes", "no", "I withdraw" or "Do you accept?".'
        f' A unit is its kind and place ("my army in Paris", "A PAR"); a proposal that names other powers'
        " goes to each of them too. In expert mode you write L itself."
    )


def _example_moves(board: Position, power: str, names: Names) -> list[tuple[str, str]]:
    """Some moves of ``power``'s units on the board, in words: ("army in Paris", "Burgundy")."""
    m = board.map
    moves = []
    for unit in sorted(board.units, key=lambda u: (u.type, m.locations[u.location])):
        if unit.power != power:
            continue
        kind = "fleet" if unit.type == FLEET else "army"
        here = names.province(m.locations[m.province_of[unit.location]].lower())
        reach = sorted(m.locations[p].lower() for p in m.reach[unit.type][unit.location])
        moves += [(f"{kind} in {here}", names.province(p)) for p in reach[:2]]
    return moves[:6]


def _ask_accept(scene: Scene, open_proposal: a.Message | None) -> a.Message | NotUnderstood:
    """ "Do you accept?": whether the receiver accepts the writer's open proposal, asked (an
    accept inside a query: level 4)."""
    me, you = scene.me, scene.you
    other = scene.names.power(you)
    if isinstance(open_proposal, a.Propose) and open_proposal.sender == me and you in open_proposal.receivers:
        return a.Query(me, frozenset({you}), a.Accept(you, frozenset({me}), open_proposal.deal))
    if isinstance(open_proposal, a.Propose) and open_proposal.sender == you and me in open_proposal.receivers:
        return NotUnderstood(
            f'the open proposal is {other}\'s: it is yours to accept or reject (say "yes" or "no")', None
        )
    if isinstance(open_proposal, a.Query) and open_proposal.sender == me:
        return NotUnderstood(
            f"your open message to {other} is a question, not a proposal: there is nothing to accept", None
        )
    return NotUnderstood(f"you have no open proposal to {other} to ask about: propose something first", None)


def _raw_l(text: str, scene: Scene, sender: str) -> Understood | NotUnderstood:
    """The expert mode: ``text`` is an L message, and its sender must be the person's power."""
    try:
        message = parse(text)
        check_ontology(message, scene.map, text)
    except LError as e:
        return NotUnderstood(f"this is not L: {e.message} (line {e.line}, column {e.column})", None)
    if message.sender != scene.me:
        return NotUnderstood(f"the sender of your L message must be {scene.me.lower()}", replace(message, sender=scene.me))
    return _understood(message, scene, sender)


def _reply(words: tuple[str, ...]) -> str | None:
    """``accept``, ``reject`` or ``withdraw`` when the words are a bare reply of that kind,
    ``neutral`` when they are only politeness, None when they say more."""
    kinds: set[str | None] = set()
    i = 0
    while i < len(words):
        for length in range(min(_LONGEST_REPLY, len(words) - i), 0, -1):
            kind = next((k for k, phrases in _REPLIES.items() if words[i : i + length] in phrases), "")
            if kind != "":
                kinds.add(kind)
                i += length
                break
        else:
            return None
    kinds.discard(None)
    if len(kinds) > 1:
        return None
    return kinds.pop() if kinds else "neutral"


def _answer(kind: str, scene: Scene, open_proposal: a.Message | None) -> a.Message | NotUnderstood:
    """A bare reply, applied to the open proposal (or question) of the conversation."""
    me = scene.me
    if kind == "withdraw":
        if isinstance(open_proposal, a.Propose) and open_proposal.sender == me:
            return a.Withdraw(me, open_proposal.receivers)
        return NotUnderstood("you have no open proposal to withdraw", a.Withdraw(me, frozenset({scene.you})))
    if open_proposal is None or open_proposal.sender == me or me not in open_proposal.receivers:
        return NotUnderstood(f"there is no open proposal to {kind}", None)
    if isinstance(open_proposal, a.Propose):
        reply = a.Accept if kind == "accept" else a.Reject
        return reply(me, frozenset({open_proposal.sender}), open_proposal.deal)
    if isinstance(open_proposal, a.Query):
        info = open_proposal.info if kind == "accept" else a.Not(open_proposal.info)
        return a.Answer(me, frozenset({open_proposal.sender}), info)
    return NotUnderstood(f"there is no open proposal to {kind}", None)


def _sentence(sentence: Sentence, scene: Scene) -> a.Message | NotUnderstood:
    """One sentence: its first reading that makes sense; else why not, and the closest message."""
    words = sentence.words
    if len(words) > _LONGEST_SENTENCE:
        return NotUnderstood(f"that sentence is too long for me ({len(words)} words): please split it", None)
    parser = Parser(grammar(scene), words)
    readings: list[MessageWords] = parser.complete("message")
    addressed = _trailing_name(sentence, scene)
    if not readings and addressed is not None:
        return _sentence(sentence.cut(0, addressed), scene)  # "Peace, Turkey?"
    problem: Misunderstanding | None = None
    for reading in readings:
        try:
            return reading.message(scene)
        except Misunderstanding as e:
            problem = problem or e
    guessing = replace(scene, strict=False)
    if problem is not None:
        kind = "cannot_say" if isinstance(problem, Unsayable) else "not_understood"
        return NotUnderstood(problem.reason, _first_made(readings, guessing), kind)
    unsayable = _unsayable(sentence, scene)
    if unsayable is not None:
        return NotUnderstood(f"L cannot say that: {unsayable}", None, "cannot_say")
    # the longest part of the sentence that makes sense, the first of those as long; never
    # one that leaves out who does it or to whom ("I'm going ..." is not "Germany will ...")
    parts = sorted(
        ((start, end, reading) for start in range(len(words)) for reading, end in parser.parse("message", start)),
        key=lambda part: (part[0] - part[1], part[0]),
    )
    for start, end, reading in parts:
        if _names_someone(sentence, scene, 0, start) or _names_someone(sentence, scene, end, len(words)):
            continue
        try:
            made = reading.message(guessing)
        except Misunderstanding as e:
            problem = problem or e
            continue
        left = " ... ".join(q for q in (sentence.quote(0, start), sentence.quote(end, len(words))) if q)
        return NotUnderstood(f'I did not understand "{left}"', made)
    why = "" if problem is None else f": {problem.reason}"
    return NotUnderstood(f'I did not understand "{sentence.quote(0, len(words))}"{why}', None)


def _only_names(sentence: Sentence, scene: Scene) -> bool:
    """Whether a sentence is only names of powers ("Austria", "England and France")."""
    words, i = sentence.words, 0
    while i < len(words):
        if words[i] == "and":
            i += 1
            continue
        found = scene.names.powers_at(words, i)
        if not found:
            return False
        i = max(end for _, end in found)
    return True


def _names_someone(sentence: Sentence, scene: Scene, start: int, end: int) -> bool:
    """Whether ``words[start:end]`` name a power, by name or pronoun ("I", "all of us")."""
    words = sentence.words
    return any(words[i] in _ROLE_WORDS or scene.names.powers_at(words, i) for i in range(start, end))


def _unsayable(sentence: Sentence, scene: Scene) -> str | None:
    """Why L cannot say a sentence that the grammar does not read, when it is one of the
    things L has no words for."""
    words = sentence.words
    said = set(" ".join(sentence.said).split()) | set(words)
    if words and (
        (words[0] in _OPEN_QUESTION and words[1:2] != ("about",))
        or ("tell" in words and said & _OPEN_QUESTION)
        or ("how", "many") == words[:2]
    ):
        return (
            "L has no open questions (what, where, which, who, when, how, why): it asks yes-or-no questions only,"
            ' such as "Is your army in Venice going to move to Trieste?" or "Are you going to support me into Munich?"'
        )
    if said & _TRUST:
        return "L has no words for trust, lies or betrayal: it says what powers agree on, promise and do"
    owning = any(w in _OWN and scene.names.provinces_at(words, i + 1) for i, w in enumerate(words))
    if said & _CENTRES or owning:
        return (
            "L has no ownership of supply centres: it says who moves where and who keeps out of where,"
            ' such as "I will keep out of Belgium" or "You move to Belgium"'
        )
    if said & _MAYBE:
        return (
            'L has no "maybe" or "later": a proposal is accepted, rejected, withdrawn or left open until it'
            " expires, so to think it over, say nothing yet"
        )
    return None


def _trailing_name(sentence: Sentence, scene: Scene) -> int | None:
    """Where the receiver's name that ends the sentence begins, if one does."""
    words = sentence.words
    for start in range(len(words)):
        if (scene.you, len(words)) in scene.names.powers_at(words, start):
            return start
    return None


def _first_made(readings: list[MessageWords], scene: Scene) -> a.Message | None:
    for reading in readings:
        try:
            return reading.message(scene)
        except Misunderstanding:
            continue
    return None


def _together(messages: list[a.Message]) -> a.Message | None:
    """The messages of several sentences as one: the same message said again; None when they
    are different things (sentences that make one message together are read as one)."""
    distinct = list(dict.fromkeys(messages))
    return distinct[0] if len(distinct) == 1 else None

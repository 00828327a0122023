"""English to L: what a person types in a conversation, understood as one L message.

The sender and receiver come from the conversation; "I", "you" and "my army in Paris"
are theirs, and units are looked up on the board when the position is given. A bare
"yes", "no" or "I withdraw" answers the open proposal of the conversation (or the open
question). A message written in L itself is taken as it is (the expert mode).

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
from dataclasses import dataclass, replace

from engine.maps import standard_map
from engine.position import Position
from protocol.english.grammar import Parser
from protocol.english.names import Names
from protocol.english.phrases import MessageWords
from protocol.english.resolve import Misunderstanding, Scene
from protocol.english.rules import grammar
from protocol.english.to_english import to_english
from protocol.english.tokens import Sentence, normalise, sentences
from protocol.l import LError, check_ontology, parse
from protocol.l import ast as a

__all__ = ["NotUnderstood", "Understood", "understand"]


@dataclass(frozen=True, slots=True)
class Understood:
    """The L message understood, and ``echo``: it in English, to show the person who wrote it."""

    message: a.Message
    echo: str


@dataclass(frozen=True, slots=True)
class NotUnderstood:
    """Why the words were not understood, and the closest L message that could be built, if any."""

    reason: str
    closest: a.Message | None


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


def understand(
    text: str,
    sender: str,
    receiver: str,
    position: Position | None = None,
    open_proposal: a.Message | None = None,
    *,
    expert: bool = False,
) -> Understood | NotUnderstood:
    """``text``, written by ``sender`` to ``receiver`` (full power names), as an L message.

    ``position``: the board that units are looked up on; ``open_proposal``: the proposal
    (or question) of the conversation that a bare "yes", "no" or "I withdraw" answers;
    ``expert``: ``text`` is L, as it is also when it begins like an illocution.
    """
    names = Names.of(standard_map() if position is None else position.map)
    scene = Scene(names.abbreviation(sender), names.abbreviation(receiver), names, position)
    if expert or _RAW_L.match(text):
        raw = _raw_l(text, scene, sender)
        if expert or isinstance(raw, Understood) or raw.closest is not None:
            return raw
        english = _english(text, scene, sender, open_proposal)  # "Propose (peace)?" looked like L
        return english if isinstance(english, Understood) else raw
    return _english(text, scene, sender, open_proposal)


def _english(text: str, scene: Scene, sender: str, open_proposal: a.Message | None) -> Understood | NotUnderstood:
    names = scene.names
    said = [
        (sentence, _reply(sentence.words))
        for sentence in sentences(text, names.is_province)
        if _trailing_name(sentence, scene) != 0  # "Hello France!" greets, it says nothing
    ]
    said = [(sentence, kind) for sentence, kind in said if kind != "neutral"]
    if len(said) > 1 and all(kind is None for _, kind in said):
        # sentences that may refer to each other ("I move to Belgium. Support me there."), read as one
        words = tuple(w for i, (s, _) in enumerate(said) for w in ("and",) * bool(i) + s.words)
        joined = _sentence(Sentence(words, tuple(words)), scene)
        if not isinstance(joined, NotUnderstood):
            return Understood(joined, to_english(joined, sender, names.map))
    results = [_sentence(s, scene) if kind is None else _answer(kind, scene, open_proposal) for s, kind in said]
    if not results:
        return NotUnderstood("there is nothing to understand", None)
    failed = [r for r in results if isinstance(r, NotUnderstood)]
    messages = [r for r in results if not isinstance(r, NotUnderstood)]
    if failed:
        return NotUnderstood(failed[0].reason, failed[0].closest or (messages[0] if messages else None))
    message = _together(messages)
    if message is None:
        return NotUnderstood("say one thing at a time: one proposal, reply or question a message", messages[0])
    return Understood(message, to_english(message, sender, names.map))


def _raw_l(text: str, scene: Scene, sender: str) -> Understood | NotUnderstood:
    """The expert mode: ``text`` is an L message, and its sender must be the person's power."""
    try:
        message = parse(text)
        check_ontology(message, scene.map, text)
    except LError as e:
        return NotUnderstood(f"this is not L: {e.message} (line {e.line}, column {e.column})", None)
    if message.sender != scene.me:
        return NotUnderstood(f"the sender of your L message must be {scene.me}", replace(message, sender=scene.me))
    return Understood(message, to_english(message, sender, scene.map))


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
        return NotUnderstood(problem.reason, _first_made(readings, guessing))
    # the longest part of the sentence that makes sense, the first of those as long
    parts = sorted(
        ((start, end, reading) for start in range(len(words)) for reading, end in parser.parse("message", start)),
        key=lambda part: (part[0] - part[1], part[0]),
    )
    for start, end, reading in parts:
        try:
            made = reading.message(guessing)
        except Misunderstanding as e:
            problem = problem or e
            continue
        left = " ... ".join(q for q in (sentence.quote(0, start), sentence.quote(end, len(words))) if q)
        return NotUnderstood(f'I did not understand "{left}"', made)
    why = "" if problem is None else f": {problem.reason}"
    return NotUnderstood(f'I did not understand "{sentence.quote(0, len(words))}"{why}', None)


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

"""What a person types, as sentences of normalised words for the grammar.

Lower case; contractions opened (``let's`` -> ``let us``, ``won't`` -> ``will not``); the
possessive ``'s`` dropped (``England's army`` -> ``england army``); punctuation gone, but
``.``, ``!``, ``?`` and ``;`` end a sentence; articles and fillers dropped; and synonyms
replaced by one word, so that the grammar has one word to look for:

>>> [s.words for s in sentences("Let's agree a truce! I'll back your army in Munich into Burgundy.")]
[('let', 'us', 'agree', 'peace'), ('i', 'will', 'support', 'your', 'army', 'in', 'munich', 'into', 'burgundy')]
>>> (said,) = sentences("Do you have a cease-fire with the Russians?")
>>> said.words, said.quote(2, 5)
(('do', 'you', 'have', 'peace', 'with', 'russians'), 'have cease fire with')

Order notation keeps its unit letters when the province follows (``A PAR - BUR`` -> ``army
par to bur``); ``is_province`` says which three letters are provinces.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Sentence", "normalise", "sentences"]

# Words that carry nothing the grammar needs.
_FILLERS = frozenset(
    "the a an hey hi hello dear um uh well just also really kindly maybe perhaps both together now".split()
)

# Synonyms and inflections, several words or one, to the one word the grammar knows.
# Matched longest first, so that "stay out of" wins over "stay".
_SYNONYMS: dict[str, str] = {
    # peace
    "truce": "peace",
    "ceasefire": "peace",
    "cease fire": "peace",
    "armistice": "peace",
    "non aggression pact": "peace",
    "nonaggression pact": "peace",
    "non aggression": "peace",
    # alliance
    "ally": "alliance",
    "allies": "alliance",
    "allied": "alliance",
    "allying": "alliance",
    "alliances": "alliance",
    "team up": "alliance",
    "teamed up": "alliance",
    "join forces": "alliance",
    "coalition": "alliance",
    "gang up on": "alliance against",
    "versus": "against",
    "vs": "against",
    # demilitarised zones
    "dmz": "dmz",
    "demilitarised zone": "dmz",
    "demilitarized zone": "dmz",
    "demilitarised": "dmz",
    "demilitarized": "dmz",
    "demilitarise": "dmz",
    "demilitarize": "dmz",
    "neutral zone": "dmz",
    "buffer zone": "dmz",
    "stay out of": "keep out of",
    "keep away from": "keep out of",
    "stay away from": "keep out of",
    "keep clear of": "keep out of",
    "stay clear of": "keep out of",
    # orders
    "back": "support",
    "back up": "support",
    "supports": "support",
    "supporting": "support",
    "supported": "support",
    "moves": "move",
    "moving": "move",
    "moved": "move",
    "go": "move",
    "goes": "move",
    "going": "move",
    "march": "move",
    "sail": "move",
    "head": "move",
    "advance": "move",
    "attacks": "attack",
    "attacking": "attack",
    "holds": "hold",
    "holding": "hold",
    "stay": "hold",
    "stay put": "hold",
    "stays": "hold",
    "remain": "hold",
    "stand": "hold",
    "convoys": "convoy",
    "convoying": "convoy",
    "convoyed": "convoy",
    "ferry": "convoy",
    "transport": "convoy",
    "carry": "convoy",
    "retreats": "retreat",
    "disbands": "disband",
    "builds": "build",
    "removes": "remove",
    "waives": "waive",
    "in to": "into",
    "onto": "into",
    "through": "via",
    "by sea": "by convoy",
    "via convoy": "by convoy",
    "with convoy": "by convoy",
    "armies": "army",
    "troops": "army",
    "fleets": "fleet",
    "navy": "fleet",
    "ship": "fleet",
    "units": "unit",
    # illocutions, as the echo writes them too
    "proposes": "propose",
    "proposed": "propose",
    "suggest": "propose",
    "suggests": "propose",
    "offer": "propose",
    "offers": "propose",
    "accepts": "accept",
    "accepted": "accept",
    "rejects": "reject",
    "rejected": "reject",
    "refuse": "reject",
    "decline": "reject",
    "withdraws": "withdraw",
    "withdrew": "withdraw",
    "withdrawn": "withdraw",
    "tells": "tell",
    "told": "tell",
    "asks": "ask",
    "asked": "ask",
    "answers": "answer",
    "answered": "answer",
    "agrees": "agree",
    "agreed": "agree",
    "wants": "want",
    "wish": "want",
    "would like": "want",
    "proposals": "proposal",
    # negation: "don't attack" is "not attack"
    "do not": "not",
    "does not": "not",
    "did not": "not",
    "not to": "not",
    "get out of": "move out of",
    "pull out of": "move out of",
    "pull back from": "move out of",
    "withdraw from": "move out of",
    "leave": "move out of",
    "go to war against": "attack",
    "go to war with": "attack",
    "declare war on": "attack",
    "make war on": "attack",
    "wage war on": "attack",
    "invade": "attack",
    "invades": "attack",
    "fight": "attack",
    "fights": "attack",
    "fighting": "attack",
    "everybody": "everyone",
    # the verbs to be, to have, to do: the grammar does not need their person
    "is": "are",
    "am": "are",
    "was": "are",
    "were": "are",
    "has": "have",
    "does": "do",
    "did": "do",
}
_SYNONYM_WORDS = {tuple(key.split()): tuple(value.split()) for key, value in _SYNONYMS.items()}
_LONGEST = max(map(len, _SYNONYM_WORDS))

_CONTRACTIONS = (
    (r"\blet's\b", "let us"),
    # without the apostrophe, as typed in a hurry
    (r"\blets\b", "let us"),
    (r"\bwont\b", "will not"),
    (r"\bcant\b", "can not"),
    (r"\b(do|does|did|is|are|was|were|should|would|could|have|has)nt\b", r"\1 not"),
    (r"\bim\b", "i am"),
    (r"\bive\b", "i have"),
    (r"\b(you|we|they)re\b", r"\1 are"),
    (r"\b(am|are|is) not going to\b", "will not"),
    (r"\b(i|you|we|they|he|she|it)'?(m|re|s) not going to\b", r"\1 will not"),
    (r"\bwon't\b", "will not"),
    (r"\bshan't\b", "shall not"),
    (r"\bcan't\b", "can not"),
    (r"\bcannot\b", "can not"),
    (r"n't\b", " not"),
    (r"'ll\b", " will"),
    (r"'m\b", " am"),
    (r"'re\b", " are"),
    (r"'ve\b", " have"),
    (r"'d\b", " would"),
    (r"\b(it|that|there|what|here|who|he|she)'s\b", r"\1 is"),
    (r"'s\b|(?<=s)'", ""),  # the possessive: "England's army", "the Germans' army"
)


@dataclass(frozen=True, slots=True)
class Sentence:
    """A sentence's normalised words, and for each the words the person wrote for it (empty
    for the second and later words of what one word became), to quote them back."""

    words: tuple[str, ...]
    said: tuple[str, ...]
    #: the misspelt words read as another word: ``(as typed, as read)``
    corrected: tuple[tuple[str, str], ...] = ()
    #: the misspelt words that could be several words, or a province abbreviation: ``(as typed, candidates)``
    unsure: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def quote(self, start: int, end: int) -> str:
        """What the person wrote for ``words[start:end]``."""
        return " ".join(w for w in self.said[start:end] if w)

    def cut(self, start: int, end: int) -> Sentence:
        return Sentence(self.words[start:end], self.said[start:end], self.corrected, self.unsure)


def normalise(sentence: str) -> tuple[str, ...]:
    """The words of one sentence, normalised (see the module's docstring).

    >>> normalise("We won't move into the North Sea, we'll stay out of it")
    ('we', 'will', 'not', 'move', 'into', 'north', 'sea', 'we', 'will', 'keep', 'out', 'of', 'it')
    """
    return _sentence(sentence).words


#: What a speller makes of one word: the word to read (itself, or its correction), or the
#: candidates when it cannot choose (a tuple, maybe of one: "ask, do not guess").
Correct = Callable[[str], "str | tuple[str, ...]"]


def _sentence(text: str, correct: Correct | None = None) -> Sentence:
    text = text.lower().replace("\u2019", "'")
    for pattern, replacement in _CONTRACTIONS:
        text = re.sub(pattern, replacement, text)
    typed = re.findall(r"[a-z0-9]+", text)
    words = list(typed)
    corrected: list[tuple[str, str]] = []
    unsure: list[tuple[str, tuple[str, ...]]] = []
    if correct is not None:
        for k, word in enumerate(typed):
            read = correct(word)
            if isinstance(read, tuple):
                unsure.append((word, read))
            elif read != word:
                corrected.append((word, read))
                words[k] = read
    out: list[tuple[str, str]] = []
    i = 0
    while i < len(words):
        for length in range(min(_LONGEST, len(words) - i), 0, -1):
            synonym = _SYNONYM_WORDS.get(tuple(words[i : i + length]))
            if synonym is not None:
                said = " ".join(typed[i : i + length])
                out += [(word, said if k == 0 else "") for k, word in enumerate(synonym)]
                i += length
                break
        else:
            out.append((words[i], typed[i]))
            i += 1
    kept = [(word, said) for word, said in out if word not in _FILLERS]
    return Sentence(tuple(w for w, _ in kept), tuple(s for _, s in kept), tuple(corrected), tuple(unsure))


def sentences(
    text: str, is_province: Callable[[str], bool] = lambda _: False, correct: Correct | None = None
) -> list[Sentence]:
    """The sentences of ``text`` that have words left, each normalised; ``correct`` reads
    misspelt words (see :mod:`protocol.english.spelling`)."""
    # before lower case hides them: the unit letters of order notation, "A PAR", "F NTH"
    text = re.sub(
        r"\b([AF])\s+([A-Za-z]{3})\b",
        lambda g: f"{'army' if g[1] == 'A' else 'fleet'} {g[2]}" if is_province(g[2]) else g[0],
        text,
    )
    text = re.sub(r"\s+-+>?\s+|\s*->\s*", " to ", text)  # "A PAR - BUR", "A PAR -> BUR"
    text = re.sub(r"\b[Ss]t\.", "st ", text)  # "St. Petersburg" is no end of a sentence
    found = (_sentence(part, correct) for part in re.split(r"[.!?;\n]+", text))
    return [sentence for sentence in found if sentence.words]

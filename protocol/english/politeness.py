"""Greetings, thanks, farewells and apologies: said to a person, never sent as L.

L has no words for them (DipGame's L is about deals and information), so they are taken
out of what a person types before it is read; a message that was only politeness gets a
friendly answer that says nothing was sent.

>>> text, kinds = strip("Hello France! How are you? Thanks, I propose peace.")
>>> text.split(), kinds
(['France!', '?', ',', 'I', 'propose', 'peace.'], ('greeting', 'thanks'))
>>> answer(("thanks",), "France")
'You are welcome! Thanks are not sent: L has no words for them. To accept a proposal of France, say "yes".'
"""

from __future__ import annotations

import re

__all__ = ["WORDS", "answer", "strip"]

_END = r"(?=\s*(?:[,.!?;:]|$))"  # the phrase ends a clause: "how are you?", not "how are you going to ..."

_PATTERNS: tuple[tuple[str, str], ...] = (
    ("greeting", rf"\bhow(?:'s| is| are) (?:you|it going|things|everything)(?: doing| today| going)?{_END}"),
    ("greeting", rf"\bhow do you do{_END}"),
    (
        "greeting",
        r"\b(?:(?:it is |it's )?(?:nice|good|great|a pleasure) to (?:meet|see|hear from|talk to) you(?: too| again)?)\b",
    ),
    ("greeting", r"\b(?:i )?hope (?:you are|you're|all is|everything is) (?:well|fine|good|doing well)\b"),
    (
        "greeting",
        (
            r"\b(?:hello|hi|hey|hiya|howdy|greetings|salutations|good (?:morning|afternoon|evening|day)|bonjour|salut"
            r"|ciao|yo|welcome)\b(?:[,\s]+(?:there|friend|friends|everyone|all|again|neighbou?r|mate|to you))?"
        ),
    ),
    (
        "thanks",
        (
            r"\b(?:(?:many |big )?thanks|thank you|thx|ty|cheers|much appreciated|(?:i )?appreciate (?:it|that|this))"
            r"(?: (?:so|very) much| a lot| again)?"
            r"(?: for (?:your|the|this|that) (?:proposal|offer|message|reply|answer|help|time|note))?\b"
        ),
    ),
    (
        "farewell",
        (
            r"\b(?:good ?bye|bye|see you(?: later| soon| around)?|good night|good luck|all the best|take care"
            r"|have (?:a )?(?:nice|good|great) (?:day|game|evening|turn)|talk (?:to you )?(?:later|soon))\b"
        ),
    ),
    ("apology", r"\b(?:sorry|my apologies|apologies|i apologi[sz]e|excuse me|pardon)\b"),
)
_COMPILED = tuple((kind, re.compile(pattern, re.IGNORECASE)) for kind, pattern in _PATTERNS)

#: Every word of the phrases, for the speller: never misspellings.
WORDS = frozenset(re.findall(r"[a-z]{2,}", " ".join(p for _, p in _PATTERNS)))

_ANSWERS = {
    "greeting": "Hello! A greeting is not sent: L has no words for greetings. Say what you would like from {you},"
    ' for example "Shall we make peace?"',
    "thanks": 'You are welcome! Thanks are not sent: L has no words for them. To accept a proposal of {you}, say "yes".',
    "farewell": "Goodbye! A farewell is not sent: L has no words for it.",
    "apology": "No offence taken! An apology is not sent: L has no words for it.",
}


def strip(text: str) -> tuple[str, tuple[str, ...]]:
    """``text`` without its politeness, and the kinds of politeness taken out, in order."""
    found: list[tuple[int, str]] = []
    for kind, pattern in _COMPILED:
        for match in pattern.finditer(text):
            found.append((match.start(), kind))
        text = pattern.sub(" ", text)
    return text, tuple(dict.fromkeys(kind for _, kind in sorted(found)))


def answer(kinds: tuple[str, ...], you: str) -> str:
    """The friendly answer to a message that was only politeness (``kinds`` not empty)."""
    return _ANSWERS[kinds[0]].format(you=you)

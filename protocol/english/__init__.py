"""The dialogue assistant: restricted English to L and back, for people and for bots.

As DipGame's dialogueAssistant did for its ChatApp (Fabregues 2012, sections 6.4 and
6.5.1), :func:`understand` turns what a person types in a conversation into one L
message, or says why it cannot and offers the closest message it can build; and
:func:`to_english` writes any L message, up to level 8, in English.

>>> said = understand("do you have peace with Russia?", "ENGLAND", "FRANCE")
>>> print(said.message)
query(eng, [fra], Agree([fra rus], pce([fra rus])))
>>> print(to_english(said.message, viewer="FRANCE"))
England asks you whether you and Russia have agreed on peace
>>> understand("I propose an alliance against Xanadu", "ENGLAND", "FRANCE").reason
'I did not understand "i propose alliance against xanadu": an alliance against whom?'

Nothing here does any input or output.
"""

from protocol.english.to_english import to_english
from protocol.english.to_l import NotUnderstood, Understood, understand

__all__ = ["NotUnderstood", "Understood", "to_english", "understand"]

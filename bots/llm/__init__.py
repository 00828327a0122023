"""Language models at the table: the ``llm:MODEL@BASE_URL`` and ``llm:PROFILE`` seats.

:class:`LLMBot` plays a power through any OpenAI-compatible chat-completions endpoint
(:mod:`bots.llm.client`), within the budgets of its profile (:mod:`bots.llm.config`),
recording every call and replaying it from the cache (:mod:`bots.llm.recorder`).
"""

from bots.llm.bot import LLMBot
from bots.llm.config import LLMConfig, LLMOptions, Profile

__all__ = ["LLMBot", "LLMConfig", "LLMOptions", "Profile"]

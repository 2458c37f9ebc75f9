"""The reply a language model writes inside the turn, under its own deadline and counted.

The reply is the one model call on the turn's path: it gets ``LORE_LLM_REPLY_TIMEOUT_MS``, however long
extraction may take in the background, and each one is counted (operation ``reply``: path ``model``, or
``fallback`` with the reason ``timeout`` or ``unavailable``, when the turn answers without one).
"""

from __future__ import annotations

from collections.abc import Sequence

from lore_runtime.errors import DeadlineExceeded

from agent_svc.adapters.model_extractor import PathRecorder
from agent_svc.adapters.openai_chat import (
    LanguageModelTimedOut,
    LanguageModelUnavailable,
    OpenAICompatibleLanguageModel,
)


class ModelReplies:
    """The turn loop's ``LanguageModel``: ``model.reply`` within ``timeout`` seconds, its path recorded.
    Raises ``DeadlineExceeded`` past the deadline, ``LanguageModelUnavailable`` otherwise."""

    def __init__(self, model: OpenAICompatibleLanguageModel, timeout: float, paths: PathRecorder) -> None:
        self._model = model
        self._timeout = timeout
        self._paths = paths

    async def reply(self, messages: Sequence[tuple[str, str]]) -> str:
        try:
            text = await self._model.reply(messages, timeout=self._timeout)
        except LanguageModelTimedOut as error:
            self._paths.record("reply", "fallback", "timeout")
            raise DeadlineExceeded(error.message, reason=error.reason, metadata=error.metadata) from None
        except LanguageModelUnavailable:
            self._paths.record("reply", "fallback", "unavailable")
            raise
        self._paths.record("reply", "model")
        return text

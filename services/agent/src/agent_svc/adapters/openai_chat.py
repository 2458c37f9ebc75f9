"""A language model over an OpenAI-compatible ``POST /v1/chat/completions`` endpoint (vLLM, Ollama, hosted).

One typed seam for every chat call the agent makes: JSON answers constrained by a schema (extraction)
and free text (the reply). Whatever goes wrong on the way — an HTTP status of 400 or more, a timeout,
a refused connection, a body without a message — leaves this module as ``LanguageModelUnavailable``
with a short reason, so callers handle one error and can fall back.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import httpx
from lore_runtime.errors import DependencyUnavailable


class LanguageModelUnavailable(DependencyUnavailable):
    """The model did not give a usable answer in time. ``message`` is a short reason, never the prompt."""

    default_reason = "LANGUAGE_MODEL_UNAVAILABLE"


class OpenAICompatibleLanguageModel:
    """Chat completions from one model on one server; one ``httpx.AsyncClient``, closed by :meth:`aclose`.

    ``base_url`` is the server root (``http://localhost:8000``); a trailing ``/v1`` is accepted too, as
    the embedder accepts it. ``timeout`` (seconds) bounds each call as a whole — connecting, sending,
    waiting and reading — not each network operation, so a server that trickles bytes cannot hold a
    turn longer than that; a caller with less time left passes its own, smaller ``timeout``.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        timeout: float = 10.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        root = base_url.rstrip("/")
        self._url = root + "/chat/completions" if root.endswith("/v1") else root + "/v1/chat/completions"
        self.model_name = model
        self.timeout = timeout
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.AsyncClient(headers=headers, timeout=timeout, transport=transport)

    async def complete_json(
        self, system: str, user: str, schema: dict[str, Any], schema_name: str, *, timeout: float | None = None
    ) -> str:
        """The model's answer to ``user`` as JSON text, asked to follow ``schema`` strictly (temperature 0).

        The text is returned as the model wrote it: the server may not enforce the schema, so the
        caller validates it.
        """
        body = {
            "model": self.model_name,
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
            "temperature": 0,
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": schema_name, "schema": schema, "strict": True},
            },
        }
        return await self._complete(body, timeout)

    async def reply(self, messages: Sequence[tuple[str, str]], *, timeout: float | None = None) -> str:
        """The assistant's next message after ``messages`` (``(role, content)``, oldest first)."""
        body = {
            "model": self.model_name,
            "messages": [{"role": role, "content": content} for role, content in messages],
        }
        return await self._complete(body, timeout)

    async def _complete(self, body: dict[str, Any], timeout: float | None) -> str:
        seconds = self.timeout if timeout is None else min(timeout, self.timeout)
        try:
            # httpx's timeout applies to each read or write; this one to the call, body included.
            async with asyncio.timeout(seconds):
                response = await self._client.post(self._url, json=body, timeout=seconds)
        except (TimeoutError, httpx.TimeoutException):
            raise self._unavailable(f"no answer within {seconds:g} s") from None
        except httpx.HTTPError as error:
            # The class name says enough (ConnectError, RemoteProtocolError...); the text may hold the URL only.
            raise self._unavailable(f"unreachable ({type(error).__name__})") from None
        if response.status_code >= 400:
            # The body is not quoted: some servers echo the prompt in their error messages.
            raise self._unavailable(f"answered HTTP {response.status_code}")
        return self._content(response)

    def _content(self, response: httpx.Response) -> str:
        try:
            message = response.json()["choices"][0]["message"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise self._unavailable("answered without choices") from None
        if not isinstance(message, dict):
            raise self._unavailable("answered without a message")
        content = message.get("content")
        if not isinstance(content, str) or not content:
            # Strict structured outputs may refuse instead of answering.
            reason = "refused to answer" if message.get("refusal") else "answered without content"
            raise self._unavailable(reason)
        return content

    def _unavailable(self, reason: str) -> LanguageModelUnavailable:
        return LanguageModelUnavailable(
            f"language model {self.model_name}: {reason}", metadata={"model": self.model_name}
        )

    async def aclose(self) -> None:
        await self._client.aclose()


def open_language_model(base_url: str, api_key: str, model: str, timeout_s: float) -> OpenAICompatibleLanguageModel:
    """The chat client for ``LORE_LLM_BASE_URL``, ``LORE_LLM_API_KEY``, ``LORE_LLM_MODEL`` and the timeout.

    ``api_key`` may be empty (local vLLM or Ollama need none); then no ``Authorization`` header is sent.
    ``timeout_s`` bounds each call (``LORE_LLM_TIMEOUT_MS / 1000``). Nothing is contacted here: an
    absent server shows up as ``LanguageModelUnavailable`` on the first call. The caller owns the
    client: close it with ``aclose()``, e.g. ``stack.push_async_callback(model.aclose)`` in bootstrap.
    Raises ``ValueError`` on an empty base URL or model, or a timeout that is not positive.
    """
    if not base_url.strip():
        raise ValueError("the language model needs a base URL (LORE_LLM_BASE_URL)")
    if not model.strip():
        raise ValueError("the language model needs a model name (LORE_LLM_MODEL)")
    if not timeout_s > 0:
        raise ValueError(f"the language model timeout must be positive, not {timeout_s!r}")
    return OpenAICompatibleLanguageModel(base_url.strip(), model.strip(), api_key=api_key or None, timeout=timeout_s)

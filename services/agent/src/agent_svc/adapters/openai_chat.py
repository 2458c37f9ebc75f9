"""A language model over an OpenAI-compatible ``POST /v1/chat/completions`` endpoint (vLLM, Ollama,
llama.cpp, hosted).

One typed seam for every chat call the agent makes: JSON answers constrained by a schema (extraction)
and free text (the reply). Whatever goes wrong on the way — an HTTP status of 400 or more, a timeout,
a refused connection, a body without a message — leaves this module as ``LanguageModelUnavailable``
with a short reason, so callers handle one error and can fall back.

Constrained output where the server supports it: the schema goes as ``response_format``
``json_schema`` (OpenAI, vLLM); a server that refuses that (HTTP 400 or 422) is asked again at once
with ``json_object`` carrying the schema (llama.cpp's server turns it into a grammar; others ignore
the schema and still answer JSON), then with no ``response_format`` at all. The first format a server
accepts is remembered for this client (one client per server), so the refusal costs one call once.
Reasoning a model writes before its answer (``<think>...</think>``) is cut from every answer.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import httpx
from lore_runtime.errors import DependencyUnavailable

log = logging.getLogger(__name__)

# response_format, most constrained first: each server is asked with the first one it accepts.
FORMATS = ("json_schema", "json_object", "text")
# What a server answers to a request it does not understand (vLLM and OpenAI 400, FastAPI-based 422).
REFUSED = frozenset({400, 422})


def _refused(response: httpx.Response) -> bool:
    """Whether the server refused the request's format. llama-cpp-python's server answers a
    response_format type it does not know with a 500 whose body names the field."""
    if response.status_code in REFUSED:
        return True
    return response.status_code == 500 and b"response_format" in response.content


_REASONING = re.compile(r"<(think|thinking|reasoning)>.*?</\1>", re.DOTALL | re.IGNORECASE)
_UNCLOSED = re.compile(r"<(think|thinking|reasoning)>.*", re.DOTALL | re.IGNORECASE)
_CLOSING = re.compile(r"^.*</(think|thinking|reasoning)>", re.DOTALL | re.IGNORECASE)


def without_reasoning(text: str) -> str:
    """``text`` without the reasoning a model wrote before answering: closed ``<think>`` blocks, a
    block cut off by the token limit (everything after its opening), and the tail of a block whose
    opening the chat template wrote (everything up to a lone ``</think>``)."""
    text = _REASONING.sub("", text)
    text = _UNCLOSED.sub("", text)
    return _CLOSING.sub("", text).strip()


class LanguageModelUnavailable(DependencyUnavailable):
    """The model did not give a usable answer in time. ``message`` is a short reason, never the prompt."""

    default_reason = "LANGUAGE_MODEL_UNAVAILABLE"


class LanguageModelTimedOut(LanguageModelUnavailable):
    """The model did not answer within the call's deadline."""

    default_reason = "LANGUAGE_MODEL_TIMEOUT"


@dataclass(slots=True)
class Usage:
    """Calls made and tokens the server reported (0 when it reports none), summed since the client opened."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0


class OpenAICompatibleLanguageModel:
    """Chat completions from one model on one server; one ``httpx.AsyncClient``, closed by :meth:`aclose`.

    ``base_url`` is the server root (``http://localhost:8000``); a trailing ``/v1`` is accepted too, as
    the embedder accepts it. ``timeout`` (seconds) bounds each call as a whole — connecting, sending,
    waiting and reading, a refused format's second ask included — not each network operation, so a
    server that trickles bytes cannot hold a turn longer than that; a caller with less time left passes
    its own, smaller ``timeout``. ``concurrency`` bounds the JSON calls in flight (extraction, off the
    turn's path; waiting for a slot is not part of a call's deadline); a reply is never queued behind
    them. ``max_tokens`` bounds every answer.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        timeout: float = 10.0,
        concurrency: int = 2,
        max_tokens: int = 1024,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        root = base_url.rstrip("/")
        self._url = root + "/chat/completions" if root.endswith("/v1") else root + "/v1/chat/completions"
        self.model_name = model
        self.timeout = timeout
        self.max_tokens = max_tokens
        self.format = FORMATS[0]  # the response_format this server accepts, as far as is known
        self.usage = Usage()
        self._slots = asyncio.Semaphore(concurrency)
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.AsyncClient(headers=headers, timeout=timeout, transport=transport)

    async def complete_json(
        self, system: str, user: str, schema: dict[str, Any], schema_name: str, *, timeout: float | None = None
    ) -> str:
        """The model's answer to ``user``, asked to follow ``schema`` (temperature 0), reasoning cut.

        The text is returned as the model wrote it otherwise: the server may not enforce the schema
        (or may not have been asked to), so the caller validates it.
        """
        body = {
            "model": self.model_name,
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
            "temperature": 0,
            "max_tokens": self.max_tokens,
        }
        async with self._slots:
            return await self._complete(body, timeout, (schema, schema_name))

    async def reply(self, messages: Sequence[tuple[str, str]], *, timeout: float | None = None) -> str:
        """The assistant's next message after ``messages`` (``(role, content)``, oldest first)."""
        body = {
            "model": self.model_name,
            "messages": [{"role": role, "content": content} for role, content in messages],
            "max_tokens": self.max_tokens,
        }
        return await self._complete(body, timeout, None)

    async def _complete(
        self, body: dict[str, Any], timeout: float | None, constrained: tuple[dict[str, Any], str] | None
    ) -> str:
        seconds = self.timeout if timeout is None else min(timeout, self.timeout)
        try:
            # httpx's timeout applies to each read or write; this one to the call, body included.
            async with asyncio.timeout(seconds):
                response = await self._post(body, seconds, constrained)
        except (TimeoutError, httpx.TimeoutException):
            raise self._unavailable(f"no answer within {seconds:g} s", LanguageModelTimedOut) from None
        except httpx.HTTPError as error:
            # The class name says enough (ConnectError, RemoteProtocolError...); the text may hold the URL only.
            raise self._unavailable(f"unreachable ({type(error).__name__})") from None
        if response.status_code >= 400:
            # The body is not quoted: some servers echo the prompt in their error messages.
            raise self._unavailable(f"answered HTTP {response.status_code}")
        return self._content(response)

    async def _post(
        self, body: dict[str, Any], seconds: float, constrained: tuple[dict[str, Any], str] | None
    ) -> httpx.Response:
        """The answer to ``body``; with a schema, asked with the most constrained format the server takes."""
        if constrained is None:
            return await self._client.post(self._url, json=body, timeout=seconds)
        schema, name = constrained
        level = FORMATS.index(self.format)
        while True:
            response = await self._client.post(
                self._url, json={**body, **_response_format(FORMATS[level], schema, name)}, timeout=seconds
            )
            if not _refused(response) or level == len(FORMATS) - 1:
                break
            level += 1
        if response.status_code < 400 and FORMATS[level] != self.format:
            # Remembered only once a format was accepted: a request refused whatever its format
            # (too long, say) teaches nothing about the server.
            log.info(
                "language model %s: response_format %s refused, using %s", self.model_name, self.format, FORMATS[level]
            )
            self.format = FORMATS[level]
        return response

    def _content(self, response: httpx.Response) -> str:
        try:
            answer = response.json()
            message = answer["choices"][0]["message"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise self._unavailable("answered without choices") from None
        if not isinstance(message, dict):
            raise self._unavailable("answered without a message")
        self._count(answer.get("usage"))
        content = message.get("content")
        if not isinstance(content, str) or not content:
            # Strict structured outputs may refuse instead of answering.
            reason = "refused to answer" if message.get("refusal") else "answered without content"
            raise self._unavailable(reason)
        return without_reasoning(content)

    def _count(self, usage: Any) -> None:
        self.usage.calls += 1
        if isinstance(usage, dict):
            self.usage.prompt_tokens += _tokens(usage.get("prompt_tokens"))
            self.usage.completion_tokens += _tokens(usage.get("completion_tokens"))

    def _unavailable(
        self, reason: str, error: type[LanguageModelUnavailable] = LanguageModelUnavailable
    ) -> LanguageModelUnavailable:
        return error(f"language model {self.model_name}: {reason}", metadata={"model": self.model_name})

    async def aclose(self) -> None:
        await self._client.aclose()


def _response_format(kind: str, schema: dict[str, Any], name: str) -> dict[str, Any]:
    if kind == "json_schema":
        return {
            "response_format": {"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": True}}
        }
    if kind == "json_object":
        return {"response_format": {"type": "json_object", "schema": _without_lengths(schema)}}
    return {}


def _without_lengths(schema: Any) -> Any:
    """``schema`` without its string length bounds. llama.cpp turns a ``json_object`` schema into a
    grammar with one nested rule per allowed character, and a 600-character bound crashes its server;
    the answer's validation still checks every length."""
    if isinstance(schema, dict):
        return {key: _without_lengths(value) for key, value in schema.items() if key not in ("maxLength", "minLength")}
    if isinstance(schema, list):
        return [_without_lengths(value) for value in schema]
    return schema


def _tokens(value: Any) -> int:
    return value if isinstance(value, int) and value >= 0 else 0


def open_language_model(
    base_url: str, api_key: str, model: str, timeout_s: float, *, concurrency: int = 2, max_tokens: int = 1024
) -> OpenAICompatibleLanguageModel:
    """The chat client for ``LORE_LLM_BASE_URL``, ``LORE_LLM_API_KEY``, ``LORE_LLM_MODEL``, the timeout, the
    concurrency and the answers' token limit.

    ``api_key`` may be empty (local vLLM or Ollama need none); then no ``Authorization`` header is sent.
    ``timeout_s`` bounds each call (``LORE_LLM_TIMEOUT_MS / 1000``). Nothing is contacted here: an
    absent server shows up as ``LanguageModelUnavailable`` on the first call. The caller owns the
    client: close it with ``aclose()``, e.g. ``stack.push_async_callback(model.aclose)`` in bootstrap.
    Raises ``ValueError`` on an empty base URL or model, or a timeout, concurrency or token limit that
    is not positive.
    """
    if not base_url.strip():
        raise ValueError("the language model needs a base URL (LORE_LLM_BASE_URL)")
    if not model.strip():
        raise ValueError("the language model needs a model name (LORE_LLM_MODEL)")
    if not timeout_s > 0:
        raise ValueError(f"the language model timeout must be positive, not {timeout_s!r}")
    if concurrency < 1 or max_tokens < 1:
        raise ValueError("the language model's concurrency and token limit must be positive")
    return OpenAICompatibleLanguageModel(
        base_url.strip(),
        model.strip(),
        api_key=api_key or None,
        timeout=timeout_s,
        concurrency=concurrency,
        max_tokens=max_tokens,
    )

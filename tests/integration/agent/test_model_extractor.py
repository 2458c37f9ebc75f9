"""The model extractor against a real HTTP stub of ``/v1/chat/completions`` on 127.0.0.1: good answers are
used, one malformed answer is retried with its validation error, anything worse falls back to the rules."""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from agent_svc.adapters.model_answers import EngagementAnswer, EpisodeAnswer, ReflectionAnswer, answer_schema
from agent_svc.adapters.model_extractor import ExtractionPaths, ModelExtractor
from agent_svc.adapters.openai_chat import (
    LanguageModelUnavailable,
    OpenAICompatibleLanguageModel,
    open_language_model,
)
from agent_svc.domain.extraction import (
    ActionItem,
    EngagementProposal,
    EpisodeDraft,
    EvidenceLine,
    ExtractedClaim,
    ExtractedMemory,
    HypothesisProposal,
    Thread,
    TurnReflection,
    Utterance,
)
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from tests.chat_server import serving_chat

TIMEOUT_S = 0.5
MARGIN_S = 0.5
SECRET = "The user whispered: my PIN is 4321"  # turn content that must never reach a log line

GOOD_REFLECTION = {
    "memories": [
        {
            "kind": "preference",
            "content": "The user is vegetarian.",
            "speaker": "user",
            "importance": 0.7,
            "entities": [],
            "owner": "",
            "deadline": "",
        },
        {
            "kind": "commitment",
            "content": "The user will send the report (by Friday).",
            "speaker": "user",
            "importance": 0.8,
            "entities": ["report"],
            "owner": "user",
            "deadline": "Friday",
        },
    ],
    "claims": [
        {
            "kind": "operator_preference",
            "subject_type": "user",
            "subject_id": "",
            "slot": "diet",
            "summary": "The user is vegetarian.",
            "excerpt": "I'm vegetarian",
            "contradicts": False,
        }
    ],
    "emotion": None,
    "plan": None,
    "summary": "The user said they are vegetarian and will send the report Friday.",
}

GOOD_EPISODE = {
    "summary": "The team chose Postgres; the user will send the report Friday.",
    "key_topics": ["postgres", "report"],
    "entities": ["postgres"],
    "user_state": {"mood": "pleased", "confidence": "high", "focus": "postgres"},
    "outcomes": [{"type": "decision", "content": "Go with Postgres."}],
    "open_threads": [{"topic": "Backups for Postgres", "status": "open", "context": "Asked, not answered."}],
    "decisions": ["Go with Postgres."],
    "action_items": [{"owner": "user", "task": "Send the report", "deadline": "Friday"}],
    "next_session_questions": ["Did you send the report?"],
    "importance": 0.7,
}

GOOD_ENGAGEMENT = {
    "hypotheses": [
        {
            "statement": "Churn comes from pricing.",
            "evidence": [{"statement": "I suspect the churn comes from pricing", "supports": True, "turn_id": "t1"}],
        }
    ],
    "unknowns": ["Why trial users leave in week two."],
}

TURN = Utterance("user", f"I'm vegetarian, and I'll send the report Friday. {SECRET}", "t3")
EARLIER = (Utterance("user", "Hi!", "t1"), Utterance("assistant", "Hello, how can I help?", "t2"))
CONVERSATION = (
    Utterance("user", "I suspect the churn comes from pricing.", "t1"),
    Utterance("assistant", "Possibly; we don't know why trial users leave in week two.", "t2"),
)


# --- the stub server -------------------------------------------------------------------------------------------


@dataclass
class Seen:
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def user_message(self) -> str:
        return self.body["messages"][-1]["content"]


@dataclass
class ChatStub:
    """Answers each request with the next scripted reply (the last one repeats) and keeps what it was sent.

    A reply is a JSON-able answer (sent as the message content, as text), a ``str`` sent verbatim as the
    content, ``("status", code)``, ``("sleep", seconds)`` before a good answer, or ``("raw", body)`` for a
    whole response body of the stub's choosing.
    """

    port: int
    script: list[Any] = field(default_factory=list)
    seen: list[Seen] = field(default_factory=list)
    # response_format types answered ``refusal`` (422, as a server that does not know them answers; 500
    # with a body naming response_format, as llama-cpp-python's server does); the script waits.
    refuses: set[str] = field(default_factory=set)
    refusal: int = 422
    refused: int = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def answer(self, *replies: Any) -> None:
        self.script = list(replies)
        self.seen.clear()
        self.refuses, self.refusal, self.refused = set(), 422, 0

    async def handle(self, request: Request) -> Response:
        self.seen.append(Seen(dict(request.headers), await request.json()))
        if self.seen[-1].body.get("response_format", {}).get("type", "text") in self.refuses:
            self.refused += 1
            return JSONResponse({"detail": "unknown response_format"}, status_code=self.refusal)
        reply = self.script[min(len(self.seen) - self.refused, len(self.script)) - 1]
        if isinstance(reply, tuple) and reply[0] == "status":
            return JSONResponse({"error": {"message": "boom"}}, status_code=reply[1])
        if isinstance(reply, tuple) and reply[0] == "raw":
            return JSONResponse(reply[1])
        if isinstance(reply, tuple) and reply[0] == "sleep":
            await asyncio.sleep(reply[1])  # fault injection: a model that answers late
            reply = GOOD_REFLECTION
        content = reply if isinstance(reply, str) else json.dumps(reply)
        return JSONResponse(
            {
                "id": "chatcmpl-stub",
                "object": "chat.completion",
                "model": "stub",
                "choices": [
                    {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
                ],
            }
        )


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def stub_server() -> Iterator[ChatStub]:
    """A real uvicorn server on a free port, in its own thread, for the whole module."""
    with serving_chat(lambda port: ChatStub(port=port), "the stub server") as stub:
        yield stub


@pytest.fixture
def stub(stub_server: ChatStub) -> ChatStub:
    stub_server.answer(GOOD_REFLECTION)
    return stub_server


@pytest.fixture
async def model(stub: ChatStub) -> AsyncIterator[OpenAICompatibleLanguageModel]:
    client = open_language_model(stub.base_url, "sk-test", "qwen2.5-7b-instruct", TIMEOUT_S)
    yield client
    await client.aclose()


class RecordingExtractor:
    """The fallback: says which calls reached it and answers something recognisable."""

    REFLECTION = TurnReflection(summary="from the rules")
    EPISODE = EpisodeDraft(summary="from the rules")
    ENGAGEMENT = EngagementProposal(unknowns=("from the rules",))

    def __init__(self) -> None:
        self.calls: list[str] = []

    async def reflect(self, turn, earlier) -> TurnReflection:
        self.calls.append("reflect")
        return self.REFLECTION

    async def summarise(self, turns) -> EpisodeDraft:
        self.calls.append("summarise")
        return self.EPISODE

    async def engagement(self, turns) -> EngagementProposal:
        self.calls.append("engagement")
        return self.ENGAGEMENT


@pytest.fixture
def rules() -> RecordingExtractor:
    return RecordingExtractor()


@pytest.fixture
def extractor(model, rules) -> ModelExtractor:
    return ModelExtractor(model, rules, paths=ExtractionPaths())


# --- the model answers well --------------------------------------------------------------------------------------


async def test_a_good_answer_becomes_the_domain_reflection_without_the_rules(extractor, stub, rules) -> None:
    reflection = await extractor.reflect(TURN, EARLIER)

    assert reflection.memories == (
        ExtractedMemory("preference", "The user is vegetarian.", "user", 0.7, (), "", ""),
        ExtractedMemory(
            "commitment", "The user will send the report (by Friday).", "user", 0.8, ("report",), "user", "Friday"
        ),
    )
    assert reflection.claims == (
        ExtractedClaim("operator_preference", "user", "", "diet", "The user is vegetarian.", "I'm vegetarian"),
    )
    assert reflection.emotion is None and reflection.plan is None
    assert reflection.summary.startswith("The user said they are vegetarian")
    assert rules.calls == ["reflect"]  # the rules read every turn too (hybrid), and add nothing here
    assert extractor.paths.counts == {("reflect", "model", ""): 1}
    assert len(stub.seen) == 1


async def test_the_request_names_the_model_the_strict_schema_and_the_bearer_key(extractor, stub) -> None:
    await extractor.reflect(TURN, EARLIER)

    (request,) = stub.seen
    assert request.headers["authorization"] == "Bearer sk-test"
    assert request.body["model"] == "qwen2.5-7b-instruct"
    assert request.body["temperature"] == 0
    assert request.body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "turn_reflection", "schema": ReflectionAnswer.model_json_schema(), "strict": True},
    }
    system, user = request.body["messages"]
    assert system["role"] == "system" and "extract what is worth remembering" in system["content"]
    assert user["role"] == "user"
    assert "user: I'm vegetarian, and I'll send the report Friday." in user["content"]
    assert "assistant: Hello, how can I help?" in user["content"]


async def test_no_authorization_header_is_sent_without_an_api_key(stub, rules) -> None:
    client = open_language_model(stub.base_url + "/v1/", "", "llama3.1", TIMEOUT_S)  # a /v1 base URL works too
    try:
        await ModelExtractor(client, rules).reflect(TURN, EARLIER)
    finally:
        await client.aclose()

    (request,) = stub.seen
    assert "authorization" not in request.headers
    assert request.body["model"] == "llama3.1"


@pytest.mark.parametrize("answer_type", [ReflectionAnswer, EpisodeAnswer, EngagementAnswer])
def test_every_schema_sent_is_what_strict_structured_outputs_accept(answer_type) -> None:
    """Every object closed and every property required, all the way down (OpenAI rejects anything else)."""
    schema = answer_schema(answer_type)

    def objects(node: Any) -> Iterator[dict[str, Any]]:
        if isinstance(node, dict):
            if node.get("type") == "object":
                yield node
            for child in node.values():
                yield from objects(child)
        elif isinstance(node, list):
            for child in node:
                yield from objects(child)

    found = list(objects(schema))
    assert found
    for node in found:
        assert node["additionalProperties"] is False
        assert set(node["required"]) == set(node["properties"])
    assert "default" not in json.dumps(schema)


async def test_summarise_turns_a_good_answer_into_the_episode(extractor, stub, rules) -> None:
    stub.answer(GOOD_EPISODE)

    episode = await extractor.summarise(CONVERSATION)

    assert episode.summary == "The team chose Postgres; the user will send the report Friday."
    assert episode.decisions == ("Go with Postgres.",)
    assert episode.action_items == (ActionItem("user", "Send the report", "Friday"),)
    assert episode.open_threads == (Thread("Backups for Postgres", "open", "Asked, not answered."),)
    assert episode.user_state.confidence == "high"
    assert episode.importance == 0.7
    assert stub.seen[0].body["response_format"]["json_schema"]["name"] == "episode"
    assert rules.calls == []


async def test_engagement_evidence_keeps_the_turn_it_came_from(extractor, stub, rules) -> None:
    stub.answer(GOOD_ENGAGEMENT)

    proposal = await extractor.engagement(CONVERSATION)

    assert proposal == EngagementProposal(
        hypotheses=(
            HypothesisProposal(
                "Churn comes from pricing.", (EvidenceLine("I suspect the churn comes from pricing", True, "t1"),)
            ),
        ),
        unknowns=("Why trial users leave in week two.",),
    )
    assert "[t1] user: I suspect the churn comes from pricing." in stub.seen[0].user_message
    assert rules.calls == []


# --- one malformed answer is retried with its error ----------------------------------------------------------------

WRONG_KIND = {**GOOD_REFLECTION, "memories": [{**GOOD_REFLECTION["memories"][0], "kind": "gossip"}]}
WRONG_SHAPE = {**GOOD_REFLECTION, "memories": "the user is vegetarian"}
TOO_MANY = {**GOOD_REFLECTION, "memories": GOOD_REFLECTION["memories"] * 6}
UNKNOWN_KEY = {**GOOD_REFLECTION, "mood": "happy"}


@pytest.mark.parametrize(
    ("malformed", "error_names"),
    [
        pytest.param("Sure! The user is vegetarian.", "Invalid JSON", id="not-json"),
        pytest.param(WRONG_SHAPE, "memories: Input should be a valid array", id="wrong-shape"),
        pytest.param(WRONG_KIND, "memories.0.kind: Input should be 'fact', 'preference'", id="unknown-enum"),
        pytest.param(TOO_MANY, "memories: List should have at most 10 items", id="too-many"),
        pytest.param(UNKNOWN_KEY, "mood: Extra inputs are not permitted", id="unknown-key"),
    ],
)
async def test_a_malformed_answer_is_asked_again_with_its_validation_error(
    extractor, stub, rules, malformed, error_names
) -> None:
    stub.answer(malformed, GOOD_REFLECTION)

    reflection = await extractor.reflect(TURN, EARLIER)

    assert reflection.claims[0].slot == "diet"
    assert extractor.paths.counts == {("reflect", "retried", ""): 1}
    first, second = stub.seen
    assert "rejected" not in first.user_message
    assert second.user_message.startswith(first.user_message)
    assert "Your previous answer was rejected: " in second.user_message
    assert error_names in second.user_message
    assert second.body["response_format"] == first.body["response_format"]


async def test_evidence_pointing_at_a_turn_never_shown_is_asked_again(extractor, stub, rules) -> None:
    invented = json.loads(json.dumps(GOOD_ENGAGEMENT))
    invented["hypotheses"][0]["evidence"][0]["turn_id"] = "t99"
    stub.answer(invented, GOOD_ENGAGEMENT)

    proposal = await extractor.engagement(CONVERSATION)

    assert proposal.hypotheses[0].evidence[0].turn_id == "t1"
    assert "hypotheses.0.evidence.0.turn_id" in stub.seen[1].user_message
    assert extractor.paths.count(path="retried") == 1


# --- anything worse falls back to the rules ------------------------------------------------------------------------


async def test_two_malformed_answers_fall_back_to_the_rules_and_log_no_turn_text(
    extractor, stub, rules, caplog
) -> None:
    stub.answer(UNKNOWN_KEY, WRONG_SHAPE)

    with caplog.at_level(logging.INFO, logger="agent_svc.adapters.model_extractor"):
        reflection = await extractor.reflect(TURN, EARLIER)

    assert reflection is RecordingExtractor.REFLECTION
    assert rules.calls == ["reflect"]
    assert len(stub.seen) == 2
    assert extractor.paths.counts == {("reflect", "fallback", "invalid"): 1}
    (warning,) = [record for record in caplog.records if record.levelno == logging.WARNING]
    assert "reflect: falling back to the rules" in warning.getMessage()
    assert "memories: Input should be a valid array" in warning.getMessage()
    assert all(
        SECRET not in record.getMessage() and "vegetarian" not in record.getMessage() for record in caplog.records
    )


async def test_a_slow_model_falls_back_within_the_timeout(extractor, stub, rules, caplog) -> None:
    stub.answer(("sleep", TIMEOUT_S + 2))

    started = time.monotonic()
    with caplog.at_level(logging.WARNING, logger="agent_svc.adapters.model_extractor"):
        reflection = await extractor.reflect(TURN, EARLIER)
    elapsed = time.monotonic() - started

    assert reflection is RecordingExtractor.REFLECTION
    assert elapsed < TIMEOUT_S + MARGIN_S
    assert len(stub.seen) == 1  # a model that is down is not asked twice
    assert extractor.paths.counts == {("reflect", "fallback", "timeout"): 1}
    assert "no answer within 0.5 s" in caplog.text


async def test_an_http_500_falls_back_to_the_rules(extractor, stub, rules, caplog) -> None:
    stub.answer(("status", 500))

    with caplog.at_level(logging.WARNING, logger="agent_svc.adapters.model_extractor"):
        episode = await extractor.summarise(CONVERSATION)

    assert episode is RecordingExtractor.EPISODE
    assert rules.calls == ["summarise"]
    assert extractor.paths.counts == {("summarise", "fallback", "unavailable"): 1}
    assert "answered HTTP 500" in caplog.text
    assert len(stub.seen) == 1  # a 500 that does not name response_format is no refusal of the format


async def test_a_refused_connection_falls_back_to_the_rules(rules) -> None:
    client = open_language_model(f"http://127.0.0.1:{free_port()}", "", "m", TIMEOUT_S)  # nobody listens
    extractor = ModelExtractor(client, rules)
    try:
        started = time.monotonic()
        proposal = await extractor.engagement(CONVERSATION)
        elapsed = time.monotonic() - started
    finally:
        await client.aclose()

    assert proposal is RecordingExtractor.ENGAGEMENT
    assert elapsed < TIMEOUT_S + MARGIN_S
    assert extractor.paths.count(path="fallback", reason="unavailable") == 1


async def test_a_retry_that_times_out_falls_back_as_a_timeout(extractor, stub, rules) -> None:
    stub.answer("not json", ("sleep", TIMEOUT_S + 2))

    reflection = await extractor.reflect(TURN, EARLIER)

    assert reflection is RecordingExtractor.REFLECTION
    assert extractor.paths.counts == {("reflect", "fallback", "timeout"): 1}


# --- the chat client itself ----------------------------------------------------------------------------------------


async def test_reply_sends_the_conversation_and_returns_the_text(model, stub) -> None:
    stub.answer("Postgres is a good fit here.")

    text = await model.reply([("system", "You are helpful."), ("user", "Which database?")])

    assert text == "Postgres is a good fit here."
    (request,) = stub.seen
    assert request.body["messages"] == [
        {"role": "system", "content": "You are helpful."},
        {"role": "user", "content": "Which database?"},
    ]
    assert "response_format" not in request.body
    assert request.headers["authorization"] == "Bearer sk-test"


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        pytest.param(("status", 503), "answered HTTP 503", id="http-503"),
        pytest.param(("status", 400), "answered HTTP 400", id="http-400"),
        pytest.param(("raw", {"object": "error"}), "answered without choices", id="no-choices"),
        pytest.param(("raw", {"choices": []}), "answered without choices", id="empty-choices"),
        pytest.param(
            ("raw", {"choices": [{"message": {"role": "assistant", "content": None, "refusal": "no"}}]}),
            "refused to answer",
            id="refusal",
        ),
    ],
)
async def test_unusable_answers_raise_one_error_with_a_short_reason(model, stub, reply, reason) -> None:
    stub.answer(reply)

    with pytest.raises(LanguageModelUnavailable) as raised:
        await model.complete_json("system", "user", {"type": "object"}, "x")

    assert raised.value.message == f"language model qwen2.5-7b-instruct: {reason}"
    assert raised.value.reason == "LANGUAGE_MODEL_UNAVAILABLE"
    assert "boom" not in raised.value.message  # the server's error body is not quoted


async def test_a_caller_with_less_time_left_gets_a_shorter_deadline(model, stub) -> None:
    stub.answer(("sleep", 2))

    started = time.monotonic()
    with pytest.raises(LanguageModelUnavailable, match=r"no answer within 0\.1 s"):
        await model.reply([("user", "hi")], timeout=0.1)
    assert time.monotonic() - started < 0.1 + MARGIN_S


@pytest.mark.parametrize(
    ("base_url", "model_name", "timeout_s"),
    [("", "m", 1.0), ("http://x", " ", 1.0), ("http://x", "m", 0.0), ("http://x", "m", -1.0)],
)
def test_open_language_model_refuses_incomplete_settings(base_url, model_name, timeout_s) -> None:
    with pytest.raises(ValueError):
        open_language_model(base_url, "", model_name, timeout_s)


# --- constrained output where the server takes it, robust parsing where it does not -------------------------------


async def test_a_refused_json_schema_is_asked_again_as_json_object_and_remembered(extractor, model, stub) -> None:
    stub.answer(GOOD_REFLECTION)
    stub.refuses = {"json_schema"}

    await extractor.reflect(TURN, EARLIER)
    await extractor.reflect(TURN, EARLIER)

    formats = [request.body.get("response_format", {}).get("type") for request in stub.seen]
    assert formats == ["json_schema", "json_object", "json_object"]  # the refusal costs one call, once
    # The json_object step sends the schema without length bounds: llama.cpp's grammar for long
    # bounds crashed its server. The answer's validation still holds them.
    sent = stub.seen[1].body["response_format"]["schema"]
    full = ReflectionAnswer.model_json_schema()
    assert "maxLength" in json.dumps(full)
    assert "maxLength" not in json.dumps(sent) and "minLength" not in json.dumps(sent)
    assert sent["required"] == full["required"] and sent["properties"].keys() == full["properties"].keys()
    assert model.format == "json_object"
    assert extractor.paths.counts == {("reflect", "model", ""): 2}


async def test_a_500_naming_response_format_is_a_refusal_as_llama_cpp_answers_it(extractor, model, stub) -> None:
    stub.answer(GOOD_REFLECTION)
    stub.refuses, stub.refusal = {"json_schema"}, 500

    reflection = await extractor.reflect(TURN, EARLIER)

    assert reflection.claims[0].slot == "diet"
    formats = [request.body.get("response_format", {}).get("type") for request in stub.seen]
    assert formats == ["json_schema", "json_object"]
    assert model.format == "json_object"
    assert extractor.paths.counts == {("reflect", "model", ""): 1}


async def test_a_server_refusing_every_format_is_asked_in_plain_text(extractor, model, stub) -> None:
    stub.answer(GOOD_REFLECTION)
    stub.refuses = {"json_schema", "json_object"}

    reflection = await extractor.reflect(TURN, EARLIER)

    assert reflection.claims[0].slot == "diet"
    assert "response_format" not in stub.seen[-1].body
    assert model.format == "text"


async def test_a_request_refused_in_every_format_teaches_nothing_about_the_server(model, stub) -> None:
    stub.answer(("status", 400))  # refused whatever the format: too long, say

    with pytest.raises(LanguageModelUnavailable, match="answered HTTP 400"):
        await model.complete_json("system", "user", {"type": "object"}, "x")

    assert len(stub.seen) == 3
    assert model.format == "json_schema"


@pytest.mark.parametrize(
    "wrapped",
    [
        pytest.param("<think>The user said they are vegetarian, so...</think>\n{answer}", id="think-tags"),
        pytest.param("```json\n{answer}\n```", id="markdown-fence"),
        pytest.param("<think>\nhmm\n</think>Here is the JSON:\n```\n{answer}\n```\nHope this helps!", id="both"),
        pytest.param("Okay, so the user is vegetarian.</think>{answer}", id="template-opened-think"),
    ],
)
async def test_reasoning_and_fences_around_the_answer_are_cut_away(extractor, stub, wrapped) -> None:
    stub.answer(wrapped.replace("{answer}", json.dumps(GOOD_REFLECTION)))

    reflection = await extractor.reflect(TURN, EARLIER)

    assert reflection.claims[0].slot == "diet"
    assert extractor.paths.counts == {("reflect", "model", ""): 1}


async def test_a_reply_comes_back_without_its_reasoning(model, stub) -> None:
    stub.answer("<think>They want a database.</think>\n\nPostgres fits.")

    assert await model.reply([("user", "Which database?")]) == "Postgres fits."


ONE_BAD_MEMORY = {
    **GOOD_REFLECTION,
    "memories": [GOOD_REFLECTION["memories"][0], {**GOOD_REFLECTION["memories"][1], "kind": "gossip"}],
}


async def test_one_bad_item_never_drops_the_good_ones_in_the_same_answer(extractor, stub, rules) -> None:
    stub.answer(ONE_BAD_MEMORY, "still not the answer")

    reflection = await extractor.reflect(TURN, EARLIER)

    assert [memory.content for memory in reflection.memories] == ["The user is vegetarian."]
    assert reflection.claims[0].slot == "diet"
    assert len(stub.seen) == 2  # asked once more, in case the second answer is whole
    assert extractor.paths.counts == {("reflect", "partial", ""): 1}


async def test_a_partial_answer_is_kept_when_the_retry_times_out(extractor, stub) -> None:
    stub.answer(ONE_BAD_MEMORY, ("sleep", TIMEOUT_S + 2))

    reflection = await extractor.reflect(TURN, EARLIER)

    assert [memory.content for memory in reflection.memories] == ["The user is vegetarian."]
    assert extractor.paths.counts == {("reflect", "partial", ""): 1}


async def test_bad_evidence_drops_the_line_not_the_hypothesis(extractor, stub) -> None:
    answer = json.loads(json.dumps(GOOD_ENGAGEMENT))
    answer["hypotheses"][0]["evidence"].append({"statement": "Made up.", "supports": True, "turn_id": "t99"})
    stub.answer(answer, answer)

    proposal = await extractor.engagement(CONVERSATION)

    (hypothesis,) = proposal.hypotheses
    assert [line.turn_id for line in hypothesis.evidence] == ["t1"]
    assert extractor.paths.counts == {("engagement", "partial", ""): 1}


# --- hybrid: where the rules are sure, they stand ----------------------------------------------------------------


class SureRules(RecordingExtractor):
    """Rules that filled the diet slot with a correction for this turn."""

    DIET = ExtractedClaim(
        "operator_preference", "user", "", "diet", "The user is no longer vegetarian.", "not vegetarian", True
    )
    REFLECTION = TurnReflection(
        memories=(ExtractedMemory("preference", "The user is no longer vegetarian.", "user", 0.7),),
        claims=(DIET,),
        summary="from the rules",
    )

    async def reflect(self, turn, earlier) -> TurnReflection:
        self.calls.append("reflect")
        return self.REFLECTION


async def test_a_slot_the_rules_filled_stands_and_the_model_adds_the_rest(model, stub) -> None:
    contrary = json.loads(json.dumps(GOOD_REFLECTION))
    contrary["claims"].append({**contrary["claims"][0], "slot": "home_city", "summary": "The user lives in Leeds."})
    stub.answer(contrary)

    reflection = await ModelExtractor(model, SureRules()).reflect(TURN, EARLIER)

    assert [claim.slot for claim in reflection.claims] == ["diet", "home_city"]
    assert reflection.claims[0] is SureRules.DIET  # the model's "vegetarian" on the same slot is dropped
    # The model's memory restating its overruled claim goes with it; its other memory is added.
    assert [memory.content for memory in reflection.memories] == [
        "The user is no longer vegetarian.",
        "The user will send the report (by Friday).",
    ]
    assert reflection.summary == GOOD_REFLECTION["summary"]

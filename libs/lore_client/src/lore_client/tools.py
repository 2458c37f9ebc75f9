"""Lore's tools for a model: one catalogue, in OpenAI's and Anthropic's formats, and the helper that
executes a model's tool call against a client.

    from lore_client import LoreClient
    from lore_client.tools import ToolBinding, openai_tools, resolve_tool_call

    binding = ToolBinding(user_id="u-noor", agent_id="aria")   # whose memory: yours to fix, never the model's
    response = openai.chat.completions.create(model=..., messages=..., tools=openai_tools())
    for call in response.choices[0].message.tool_calls or ():
        result = await resolve_tool_call(lore, binding, call)   # JSON-able; {"error": {...}} on a domain error

**Whose memory.** No tool takes a user, agent or team: they come from the ``ToolBinding`` the
integrator builds, so a prompt-injected model cannot reach another user's memory by naming them. A
tool addressing a record by id (``forget_memory``) checks that the record is the bound user's first.

**One table, two clients.** Each executor is a generator that yields the client calls it needs
(``Call``: a method name and its arguments) and returns the tool's result; ``resolve_tool_call``
awaits each call on a ``LoreClient``, ``resolve_tool_call_sync`` makes it on a ``SyncLoreClient``
(same method names and signatures), so the two never drift.

**Errors.** An unknown tool or arguments the schema refuses raise ``ToolCallError`` naming the tool
and the argument (a caller's or model's mistake, before anything is sent). A ``LoreApiError`` (the
gateway refused or failed) becomes an error result, ``{"error": {"message": ..., "code": ...}}``,
to hand back to the model like any result.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass
from typing import Any

from lore_client import plans
from lore_client.errors import LoreApiError
from lore_client.inputs import NewEvidence, NewMemory
from lore_client.models import Memory, Observation, Scope, Turn
from lore_client.plans import Call
from lore_client.route_rules import ROUTE_RULES

Json = dict[str, Any]


# An executor: (binding, validated arguments) -> yields Calls, receives their results, returns the result.
Executor = Callable[["ToolBinding", Json], Generator[Call, Any, Json]]


@dataclass(frozen=True, slots=True)
class ToolBinding:
    """Whose memory the tools act on, fixed by the integrator (configuration or credential).

    ``session_id``: the conversation ``record_turn`` writes to and ``get_context`` reads the working
    memory of; empty: ``record_turn`` uses the user's active session with this agent, or starts one."""

    user_id: str
    agent_id: str
    team_id: str = ""
    session_id: str = ""

    def __post_init__(self) -> None:
        for name in ("user_id", "agent_id"):
            if not getattr(self, name).strip():
                raise ValueError(f"ToolBinding.{name} is required: the tools act for one user and one agent")

    @property
    def scope(self) -> Scope:
        return Scope(user_id=self.user_id, agent_id=self.agent_id, team_id=self.team_id)


@dataclass(frozen=True, slots=True)
class Tool:
    name: str
    description: str
    parameters: Json  # a JSON Schema object, the same for every vendor
    execute: Executor


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    """A tool's result and whether it is an error result (``{"error": ...}``, a ``LoreApiError``)."""

    result: Json
    is_error: bool = False


class ToolCallError(ValueError):
    """The call cannot be made as given: an unknown tool, or arguments its schema refuses (the
    message names the tool and the argument). ``tool``: the name asked for."""

    def __init__(self, tool: str, message: str) -> None:
        super().__init__(message)
        self.tool = tool


class UnknownToolError(ToolCallError):
    """No tool of the catalogue has that name (a JSON-RPC error over MCP, not a tool result)."""


class ToolArgumentError(ToolCallError):
    """``argument``: the offending argument's name (``""`` for the arguments as a whole)."""

    def __init__(self, tool: str, argument: str, rule: str) -> None:
        super().__init__(tool, f"{tool}: {argument + ': ' if argument else ''}{rule}")
        self.argument = argument


# -- schemas ----------------------------------------------------------------------------------

MEMORY_TYPES = ["fact", "preference", "commitment", "decision", "opinion", "insight", "skill"]
BELIEF_KINDS = [
    "operator_preference",
    "project_state",
    "world_fact",
    "self_model",
    "relationship_fact",
    "tooling_state",
]
SUBJECT_TYPES = ["entity", "project", "tool", "agent", "global"]
# The observations service's rules for a subject id (observations_svc.domain.keys), stated here
# because the client does not depend on the service and the document cannot say them (a global
# subject has no id); a test compares them.
SUBJECT_ID = "^[A-Za-z0-9][A-Za-z0-9._@/-]{0,127}$"
NOT_BLANK = "^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$"  # a non-space character, and no NUL (the gateway's)
# The agent's limit on a turn's content (agent_svc.domain.transcript): the turn is a message the
# answers carry too, so the document states no rule on it; a test compares it.
MAX_TURN_CHARS = 16_000

# The route field each tool argument is sent as, where the gateway states rules for that field: the
# argument's schema is made from them (``route_rules.py``, generated from the gateway's document), so
# a tool never allows what the route refuses nor refuses what it takes. The MCP endpoint and the
# stdio server list these same schemas.
ARGUMENT_FIELDS: dict[tuple[str, str], tuple[str, str]] = {
    ("remember", "content"): ("memories.remember", "memories[].content"),
    ("remember", "importance"): ("memories.remember", "memories[].importance"),
    ("search_memories", "query"): ("memories.search", "query"),
    ("get_context", "message"): ("context.assembleContext", "message"),
    ("forget_about", "about"): ("memories.forgetAbout", "about"),
    ("search_beliefs", "query"): ("observations.searchObservations", "query"),
    ("observe", "slot"): ("observations.observe", "candidate.slot"),
    ("observe", "summary"): ("observations.observe", "candidate.summary"),
    ("observe", "detail"): ("observations.observe", "candidate.detail"),
}


def _argument(tool: str, name: str, description: str) -> Json:
    """The schema of argument ``name`` of ``tool``: its route field's rules (``ARGUMENT_FIELDS``), but
    whether it is required, which the tool's own list says."""
    operation_id, field = ARGUMENT_FIELDS[(tool, name)]
    rules = {keyword: value for keyword, value in ROUTE_RULES[operation_id][field].items() if keyword != "required"}
    kind = "number" if {"minimum", "maximum"} & set(rules) else "string"
    return {"type": kind, "description": description, **rules}


def _string(description: str, *, max_length: int = 4000, min_length: int = 1, **more: Any) -> Json:
    """A string argument; a required-looking one (``min_length`` 1) must hold a non-space character."""
    rules = {"type": "string", "description": description, "minLength": min_length, "maxLength": max_length}
    return rules | ({"pattern": NOT_BLANK} if min_length > 0 else {}) | more


def _object(properties: Json, required: list[str]) -> Json:
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


K = {"type": "integer", "minimum": 1, "maximum": 50, "description": "How many results at most (default 8)."}


# -- results: small, model-readable JSON ------------------------------------------------------


def _short(value: str, prefix: str) -> str:
    return value.removeprefix(prefix).lower() if value.startswith(prefix) else value


def _memory(memory: Memory) -> Json:
    found = {"id": memory.id, "content": memory.content, "type": _short(memory.memory_type, "MEMORY_TYPE_")}
    when = memory.valid_at or memory.created_at
    if when is not None:
        found["when"] = when.isoformat()
    return found


def _belief(observation: Observation) -> Json:
    return {
        "id": observation.id,
        "summary": observation.summary,
        "kind": _short(observation.kind, "OBSERVATION_KIND_"),
        "subject": observation.subject_id,
        "confidence": round(observation.confidence, 3),
        "status": _short(observation.status, "OBSERVATION_STATUS_"),
    }


def _turn(turn: Turn) -> Json:
    return {"id": turn.id, "sequence": turn.sequence, "role": _short(turn.role, "TURN_ROLE_")}


# -- executors --------------------------------------------------------------------------------


def _remember(binding: ToolBinding, args: Json) -> Generator[Call, Any, Json]:
    memory = NewMemory(
        content=args["content"],
        memory_type=args.get("memory_type", "fact"),
        importance=args.get("importance"),
        entities=tuple(args.get("entities", ())),
        valid_at=args.get("valid_at"),
    )
    stored = yield Call("remember", (memory,), {"scope": binding.scope})
    return {"remembered": _memory(stored[0])}


def _search_memories(binding: ToolBinding, args: Json) -> Generator[Call, Any, Json]:
    hits = yield Call(
        "search",
        (args["query"], binding.scope),
        {"k": args.get("k", 8), "memory_types": args.get("memory_types"), "scope_match": "context"},
    )
    return {"results": [{**_memory(hit.memory), "score": round(hit.score, 4)} for hit in hits]}


def _get_context(binding: ToolBinding, args: Json) -> Generator[Call, Any, Json]:
    context = yield Call("assemble_context", (args["message"], binding.scope), {"session_id": binding.session_id})
    return {"context": context.text, "firstSession": context.first_session}


def _prime(binding: ToolBinding, args: Json) -> Generator[Call, Any, Json]:
    primed = yield Call(
        "prime",
        (binding.scope,),
        {"initial_message": args.get("initial_message", ""), "budget_tokens": args.get("budget_tokens")},
    )
    return {"context": primed.formatted_context, "entities": list(primed.entities)}


def _get_user_profile(binding: ToolBinding, args: Json) -> Generator[Call, Any, Json]:
    profile = yield Call(
        "get_user_profile", (binding.user_id,), {"agent_id": binding.agent_id, "team_id": binding.team_id}
    )
    lines = [
        {"text": line.text, "kind": line.kind, "sourceId": line.source_id, "confidence": round(line.confidence, 4)}
        for line in profile.lines
    ]
    return {"profile": profile.text, "lines": lines}


def _forget_memory(binding: ToolBinding, args: Json) -> Generator[Call, Any, Json]:
    memory_id = args["memory_id"]
    memory = yield Call("get_memory", (memory_id,))
    if memory.scope.user_id != binding.user_id:
        # The organisation's shared memories and other users' are not this user's to forget; answered
        # as the gateway answers an id it does not hold, so an id reveals nothing.
        raise LoreApiError(status=404, code="NOT_FOUND", message=f"memory {memory_id} not found")
    yield Call("forget_memory", (memory_id,))
    return {"forgotten": memory_id}


def _forget_about(binding: ToolBinding, args: Json) -> Generator[Call, Any, Json]:
    # The binding's user only: the gateway refuses another user for a pinned key, and the tool never
    # names one (org-shared and team memories are never forgotten by one user).
    done = yield Call("forget_about", (binding.scope, args["about"]))
    return {
        "status": done.status,
        "forgotten": [{"id": item.id, "type": item.type, "text": item.text} for item in done.forgotten],
    }


def _record_turn(binding: ToolBinding, args: Json) -> Generator[Call, Any, Json]:
    session_id = binding.session_id
    if session_id:
        # Configuration, not the model, names it; still, a turn never lands in another user's conversation.
        session = yield Call("get_session", (session_id,))
        if session.scope.user_id != binding.user_id:
            raise LoreApiError(status=404, code="NOT_FOUND", message=f"session {session_id} not found")
    else:
        active = yield Call("list_sessions", (binding.scope,), {"status": "active", "page_size": 1})
        if active.items:
            session_id = active.items[0].id
        else:
            session_id = (yield Call("start_session", (binding.scope,), {"metadata": {"source": "tools"}})).id
    said = yield Call("process_turn", (session_id, args["user_message"]), {"role": "user"})
    replied = yield Call("process_turn", (session_id, args["assistant_reply"]), {"role": "assistant"})
    return {"sessionId": session_id, "userTurn": _turn(said.turn), "assistantTurn": _turn(replied.turn)}


def _search_beliefs(binding: ToolBinding, args: Json) -> Generator[Call, Any, Json]:
    hits = yield Call(
        "search_observations",
        (args["query"],),
        {
            "agent_id": binding.agent_id,
            "user_id": binding.user_id,
            "team_id": binding.team_id,
            "kinds": args.get("kinds"),
            "k": args.get("k", 8),
        },
    )
    return {"results": [{**_belief(hit.observation), "score": round(hit.score, 4)} for hit in hits]}


def _observe(binding: ToolBinding, args: Json) -> Generator[Call, Any, Json]:
    # The model's quote, filed under the subject it is about (an entity by its name): a model holds no
    # turn or memory ids it could be trusted to cite.
    quote = args.get("evidence")
    evidence = [NewEvidence(source_type="entity", source_id=args["subject_id"], excerpt=quote)] if quote else []
    observed = yield Call(
        "observe",
        (binding.agent_id,),
        {
            "kind": args["kind"],
            "subject_id": args["subject_id"],
            "summary": args["summary"],
            "subject_type": args.get("subject_type", "entity"),
            "slot": args["slot"],
            "detail": args.get("detail", ""),
            "evidence": evidence,
            "scope": {"userId": binding.user_id, "teamId": binding.team_id},
        },
    )
    return {"belief": _belief(observed.observation), "outcome": _short(observed.outcome, "OBSERVE_OUTCOME_")}


TOOLS: tuple[Tool, ...] = (
    Tool(
        "remember",
        "Store something worth remembering about the user for later conversations: a fact, a preference, a"
        " commitment, a decision. Write one self-contained statement in the third person, with names and dates"
        ' spelled out ("Noor\'s sister Lena moved to Porto in March 2024"), not a transcript. Do not store'
        " small talk or what is already remembered. Returns the stored memory and its id.",
        _object(
            {
                "content": _argument("remember", "content", "The statement to remember, self-contained."),
                "memory_type": {
                    "type": "string",
                    "enum": MEMORY_TYPES,
                    "description": "What kind of statement it is (default fact).",
                },
                "importance": _argument(
                    "remember", "importance", "How much it matters, 0 to 1 (default: Lore's estimate)."
                ),
                "entities": {
                    "type": "array",
                    "items": _string("A name.", max_length=200),
                    "maxItems": 20,
                    "description": "People, places and things it names.",
                },
                "valid_at": _string("When it became true, RFC 3339 (2024-03-01T00:00:00Z), if not now.", max_length=64),
            },
            ["content"],
        ),
        _remember,
    ),
    Tool(
        "search_memories",
        "Search the user's long-term memory by meaning and words: use it before answering a question about"
        " the user's past, their people, plans or preferences. Ask a full question (\"Where does Noor's sister"
        ' live?"). Returns the best memories first, each with its id, content, type, when, and score.',
        _object(
            {
                "query": _argument("search_memories", "query", "What to look for, as a question or a phrase."),
                "k": K,
                "memory_types": {
                    "type": "array",
                    "items": {"type": "string", "enum": MEMORY_TYPES},
                    "maxItems": len(MEMORY_TYPES),
                    "description": "Only these kinds of memories (default: all).",
                },
            },
            ["query"],
        ),
        _search_memories,
    ),
    Tool(
        "get_context",
        "Assemble what you should know to answer the user's message: relevant memories, beliefs, the recent"
        " conversation and open threads, ranked and fitted to a budget. Call it with the user's latest message"
        " before replying when the answer may depend on the past. Returns the context as text.",
        _object(
            {"message": _argument("get_context", "message", "The user's message you are about to answer.")},
            ["message"],
        ),
        _get_context,
    ),
    Tool(
        "prime",
        "At the start of a conversation, recall what matters about the user: recent context, open threads,"
        " salient facts and beliefs. Returns the context as text and the names it mentions.",
        _object(
            {
                "initial_message": _string(
                    "The user's opening message, if any: memories about what it names are included.",
                    max_length=16000,
                ),
                "budget_tokens": {
                    "type": "integer",
                    "minimum": 50,
                    "maximum": 8000,
                    "description": "Size of the context in tokens (default 600).",
                },
            },
            [],
        ),
        _prime,
    ),
    Tool(
        "get_user_profile",
        "What you have learnt about the user, newest truth only: their preferred name, the people and pets in"
        " their life, home, work, health, diet and allergies, languages, strong likes and dislikes, current"
        " goals. Returns the profile as text and its lines, each with its kind (belief, fact, preference),"
        " source id and confidence.",
        _object({}, []),
        _get_user_profile,
    ),
    Tool(
        "forget_memory",
        "Forget one of the user's memories by its id (from search_memories or remember): when the user asks"
        " you to forget it, or it is wrong. It is archived and no longer recalled. Returns the id forgotten.",
        _object({"memory_id": _string("The memory's id.", max_length=200)}, ["memory_id"]),
        _forget_memory,
    ),
    Tool(
        "forget_about",
        'Forget what the user told you about something, when they ask you to ("forget my address"): their'
        " memories about it are archived and the beliefs drawn from them invalidated. Say what it is in the"
        " user's words. Returns what was forgotten, or status FORGET_STATUS_NOTHING_MATCHED when nothing of"
        " theirs matched well enough (nothing is forgotten then).",
        _object({"about": _argument("forget_about", "about", 'What to forget, e.g. "my home address".')}, ["about"]),
        _forget_about,
    ),
    Tool(
        "record_turn",
        "Record one exchange of the conversation: the user's message and the reply you gave. Lore keeps the"
        " transcript, learns from it in the background (facts, commitments, beliefs) and uses it in later"
        " contexts. Call it once per exchange, after replying. Returns the session and the two turns stored.",
        _object(
            {
                "user_message": _string("The user's message, verbatim.", max_length=MAX_TURN_CHARS),
                "assistant_reply": _string("Your reply to it, verbatim.", max_length=MAX_TURN_CHARS),
            },
            ["user_message", "assistant_reply"],
        ),
        _record_turn,
    ),
    Tool(
        "search_beliefs",
        "Search your beliefs about the user and their world (observations with a confidence, learnt over"
        " conversations: preferences, project state, relationships). Returns the best matches first, each"
        " with its id, summary, kind, subject, confidence and status.",
        _object(
            {
                "query": _argument("search_beliefs", "query", "What to look for."),
                "k": K,
                "kinds": {
                    "type": "array",
                    "items": {"type": "string", "enum": BELIEF_KINDS},
                    "maxItems": len(BELIEF_KINDS),
                    "description": "Only these kinds of beliefs (default: all).",
                },
            },
            ["query"],
        ),
        _search_beliefs,
    ),
    Tool(
        "observe",
        "Record a belief about the user or their world that you formed from the conversation, with the"
        " words that support it. Observing the same subject and slot again supports, contradicts or"
        " supersedes the earlier belief, so confidence follows the evidence. Returns the belief and the"
        " outcome (created, supported, contradicted, superseded).",
        _object(
            {
                "kind": {"type": "string", "enum": BELIEF_KINDS, "description": "What the belief is about."},
                "subject_id": _string(
                    "Who or what it is about, by a stable name (noor, kitchen-renovation).",
                    max_length=128,
                    pattern=SUBJECT_ID,
                ),
                "summary": _argument("observe", "summary", "The belief in one sentence."),
                "subject_type": {
                    "type": "string",
                    "enum": SUBJECT_TYPES,
                    "description": "What kind of subject (default entity).",
                },
                "slot": _argument(
                    "observe",
                    "slot",
                    "Which attribute of the subject, in lower case (diet, deadline): one current belief per"
                    " subject, kind and slot.",
                ),
                "detail": _argument("observe", "detail", "More detail, if useful."),
                "evidence": _string("The user's words that support it, quoted.", max_length=2000),
            },
            ["kind", "subject_id", "slot", "summary"],
        ),
        _observe,
    ),
)
TOOLS_BY_NAME = {tool.name: tool for tool in TOOLS}


def openai_tools(*, responses_api: bool = False) -> list[Json]:
    """The function definitions for OpenAI's Chat Completions ``tools=`` (``{"type": "function",
    "function": {...}}``), or, with ``responses_api``, the Responses API's flat form."""
    if responses_api:
        # strict: False — strict mode would make every argument required; most of these are optional.
        return [
            {
                "type": "function",
                "name": t.name,
                "description": t.description,
                "parameters": _copy(t.parameters),
                "strict": False,
            }
            for t in TOOLS
        ]
    return [
        {
            "type": "function",
            "function": {"name": t.name, "description": t.description, "parameters": _copy(t.parameters)},
        }
        for t in TOOLS
    ]


def anthropic_tools() -> list[Json]:
    """The tool definitions for Anthropic's Messages API ``tools=`` (``name``, ``description``,
    ``input_schema``)."""
    return [{"name": t.name, "description": t.description, "input_schema": _copy(t.parameters)} for t in TOOLS]


def _copy(schema: Json) -> Json:
    return json.loads(json.dumps(schema))  # callers may edit what they get; the catalogue stays as it is


# -- a model's tool call ----------------------------------------------------------------------


def parse_tool_call(call: Any, arguments: Any = None) -> tuple[str, Json]:
    """The tool name and arguments of a call in any of the shapes models produce:

    - OpenAI Chat Completions: ``{"type": "function", "function": {"name", "arguments": "<json>"}}``;
    - OpenAI Responses: ``{"type": "function_call", "name", "arguments": "<json>"}``;
    - Anthropic: ``{"type": "tool_use", "name", "input": {...}}``;
    - plain ``{"name", "arguments"}``, or the name as ``call`` with ``arguments`` beside it;

    as dicts or as the vendors' SDK objects (read by ``model_dump()`` or attributes)."""
    if isinstance(call, str):
        return call, _arguments(call, arguments if arguments is not None else {})
    document = _as_mapping(call)
    function = document.get("function")
    if function is not None:
        document = _as_mapping(function)
    name = document.get("name")
    if not isinstance(name, str) or not name:
        raise ToolCallError("", "a tool call names its tool: no name found in the call")
    raw = document.get("input") if "input" in document else document.get("arguments")
    return name, _arguments(name, raw if raw is not None else {})


def _as_mapping(value: Any) -> Mapping[str, Any]:
    if isinstance(value, Mapping):
        return value
    if hasattr(value, "model_dump"):
        return value.model_dump()
    names = ("type", "name", "arguments", "input", "function")
    found = {name: getattr(value, name) for name in names if getattr(value, name, None) is not None}
    if not found:
        raise ToolCallError("", f"not a tool call: {type(value).__name__}")
    return found


def _arguments(tool: str, raw: Any) -> Json:
    if isinstance(raw, str):
        try:
            raw = json.loads(raw) if raw.strip() else {}
        except ValueError as error:
            raise ToolArgumentError(tool, "", f"the arguments are not JSON ({error})") from None
    if not isinstance(raw, Mapping):
        raise ToolArgumentError(tool, "", "the arguments must be a JSON object")
    return dict(raw)


def check_arguments(tool: Tool, arguments: Json) -> None:
    """Refuse arguments the tool's schema refuses, naming the argument and the rule (the subset of
    JSON Schema the catalogue uses: types, enum, bounds, lengths, pattern, required, no others)."""
    schema = tool.parameters
    for name in schema["required"]:
        if name not in arguments:
            raise ToolArgumentError(tool.name, name, "required")
    for name, value in arguments.items():
        rules = schema["properties"].get(name)
        if rules is None:
            raise ToolArgumentError(tool.name, name, f"unknown argument (known: {', '.join(schema['properties'])})")
        problem = _problem(rules, value)
        if problem:
            raise ToolArgumentError(tool.name, name, problem)


def _problem(rules: Json, value: Any) -> str:
    kind = rules["type"]
    if kind == "string":
        if not isinstance(value, str):
            return "must be a string"
        if len(value) < rules.get("minLength", 0) or (rules.get("pattern") == NOT_BLANK and not value.strip()):
            return "must not be empty"
        if len(value) > rules.get("maxLength", len(value)):
            return f"at most {rules['maxLength']} characters"
        if "pattern" in rules and not re.search(rules["pattern"], value):
            return f"must match {rules['pattern']}"
    elif kind in ("integer", "number"):
        if isinstance(value, bool) or not isinstance(value, int | float):
            return f"must be a{'n integer' if kind == 'integer' else ' number'}"
        if kind == "integer" and value != int(value):
            return "must be an integer"
        if not rules.get("minimum", value) <= value <= rules.get("maximum", value):
            return f"must be between {rules['minimum']} and {rules['maximum']}"
    elif kind == "array":
        if not isinstance(value, list):
            return "must be an array"
        if len(value) > rules.get("maxItems", len(value)):
            return f"at most {rules['maxItems']} items"
        for index, item in enumerate(value):
            problem = _problem(rules["items"], item)
            if problem:
                return f"[{index}] {problem}"
    if "enum" in rules and value not in rules["enum"]:
        return f"must be one of {', '.join(rules['enum'])}"
    return ""


def prepare(call: Any, arguments: Any = None) -> tuple[Tool, Json]:
    """The tool a call names and its checked arguments; ``ToolCallError`` when either is wrong."""
    name, args = parse_tool_call(call, arguments)
    tool = TOOLS_BY_NAME.get(name)
    if tool is None:
        raise UnknownToolError(name, f"unknown tool {name!r} (known: {', '.join(TOOLS_BY_NAME)})")
    check_arguments(tool, args)
    return tool, args


def error_result(error: LoreApiError) -> Json:
    """What a model is told when Lore refused or failed: the REST message, code and the field it names."""
    found = {"message": error.message, "code": error.code, "status": error.status}
    if error.reason:
        found["reason"] = error.reason
    if error.field:
        found["field"] = error.field
    return {"error": found}


async def execute(client: Any, binding: ToolBinding, tool: Tool, arguments: Json) -> ToolOutcome:
    """Run ``tool`` with checked ``arguments`` on an async client (``LoreClient``)."""
    try:
        return ToolOutcome(await plans.run(tool.execute(binding, arguments), client))
    except LoreApiError as error:
        return ToolOutcome(error_result(error), is_error=True)


def execute_sync(client: Any, binding: ToolBinding, tool: Tool, arguments: Json) -> ToolOutcome:
    """``execute`` on a sync client (``SyncLoreClient``): the same executor, each call made directly."""
    try:
        return ToolOutcome(plans.run_sync(tool.execute(binding, arguments), client))
    except LoreApiError as error:
        return ToolOutcome(error_result(error), is_error=True)


async def resolve_tool_call(client: Any, binding: ToolBinding, call: Any, arguments: Any = None) -> Json:
    """Execute a model's tool call (any shape ``parse_tool_call`` reads) for ``binding`` on a
    ``LoreClient``; returns the JSON-able result, ``{"error": {...}}`` when Lore refused or failed.
    Raises ``ToolCallError`` for an unknown tool or bad arguments."""
    tool, args = prepare(call, arguments)
    return (await execute(client, binding, tool, args)).result


def resolve_tool_call_sync(client: Any, binding: ToolBinding, call: Any, arguments: Any = None) -> Json:
    """``resolve_tool_call`` for a ``SyncLoreClient``."""
    tool, args = prepare(call, arguments)
    return execute_sync(client, binding, tool, args).result

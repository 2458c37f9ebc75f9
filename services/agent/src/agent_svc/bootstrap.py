"""The only wiring of the agent service: stores, outbound clients, use cases, the job worker and
the idle-session scan."""

from __future__ import annotations

import dataclasses
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from datetime import timedelta

import asyncpg
import grpc
from lore_embeddings import Embedder, open_embedder
from lore_runtime.channels import open_service_channel
from lore_runtime.clock import Clock, SystemClock
from lore_runtime.health import check_upstream
from lore_runtime.metrics import ScheduledRunMetrics, ServiceMetrics
from lore_runtime.scheduled import JobClaims, ScheduledJob, run_in_background, run_periodically
from lore_runtime.server import DependencyCheck
from lore_runtime.stores import open_postgres, ping_postgres
from opentelemetry.sdk.trace import TracerProvider

from agent_svc.adapters import prometheus_metrics
from agent_svc.adapters.grpc_assembler import GrpcContextAssembler
from agent_svc.adapters.grpc_episodes import GrpcEpisodes
from agent_svc.adapters.grpc_erasure import GrpcSubjectEraser
from agent_svc.adapters.grpc_forgetting import GrpcForgetting
from agent_svc.adapters.grpc_memories import GrpcMemories
from agent_svc.adapters.grpc_observations import GrpcEngagement, GrpcObservations
from agent_svc.adapters.grpc_timeline import GrpcTimeline
from agent_svc.adapters.grpc_working_memory import GrpcWorkingMemory
from agent_svc.adapters.pgqueuer_jobs import JobWorker, PgqueuerAdmin, RetryPolicy, prune_history
from agent_svc.adapters.postgres_erasure import PostgresErasureStore
from agent_svc.adapters.postgres_transcript import PostgresTranscript
from agent_svc.adapters.postgres_turn_loop import PostgresTurnLoop
from agent_svc.config import Settings
from agent_svc.domain import jobs
from agent_svc.domain.extraction import Extractor
from agent_svc.domain.rules import RuleExtractor
from agent_svc.domain.rules.kinds import KindReader
from agent_svc.usecases.digests import DigestServices, run_daily_digests
from agent_svc.usecases.episodes import EpisodeServices, end_idle_sessions, extract_episode
from agent_svc.usecases.erasure import ErasureServices, run_erasure
from agent_svc.usecases.forget import ForgetServices
from agent_svc.usecases.job_ports import JobQueueAdmin
from agent_svc.usecases.memory_ports import Memories
from agent_svc.usecases.process_turn import TurnServices
from agent_svc.usecases.reflect import ReflectionServices, reflect_through
from agent_svc.usecases.transcript_ports import Transcript
from agent_svc.usecases.turn_loop_ports import LanguageModel


@dataclass(frozen=True, slots=True, kw_only=True)
class AgentOverrides:
    """What a test puts in place of the real thing; each left None is built from the settings."""

    postgres: asyncpg.Pool | None = None
    clock: Clock | None = None
    transcript: Transcript | None = None
    messages: Memories | None = None
    metrics: ServiceMetrics | None = None
    extractor: Extractor | None = None
    embedder: Embedder | None = None


@dataclass
class Container:
    settings: Settings
    postgres: asyncpg.Pool
    transcript: Transcript
    messages: Memories
    clock: Clock
    turns: TurnServices
    reflection: ReflectionServices
    episodes: EpisodeServices
    erasure: ErasureServices
    job_queue: JobQueueAdmin
    tracer_provider: TracerProvider | None = None
    checks: dict[str, DependencyCheck] = field(default_factory=dict)
    metrics: ServiceMetrics = field(default_factory=ServiceMetrics)


async def _language(
    settings: Settings, stack: AsyncExitStack, rules: Extractor, paths: prometheus_metrics.ExtractionPathCounter
) -> tuple[Extractor, LanguageModel | None]:
    """The rule-based extractor, and no model, unless a model's base URL is configured."""
    if not settings.llm_base_url:
        return rules, None
    from agent_svc.adapters.model_extractor import ModelExtractor
    from agent_svc.adapters.model_replies import ModelReplies
    from agent_svc.adapters.openai_chat import open_language_model

    model = open_language_model(
        settings.llm_base_url,
        settings.llm_api_key or "",
        settings.llm_model,
        settings.llm_timeout_ms / 1000,
        concurrency=settings.llm_concurrency,
        max_tokens=settings.llm_max_tokens,
    )
    stack.push_async_callback(model.aclose)
    replies = ModelReplies(model, settings.llm_reply_timeout_ms / 1000, paths)
    return ModelExtractor(model, fallback=rules, paths=paths), replies


async def build(
    settings: Settings,
    stack: AsyncExitStack,
    overrides: AgentOverrides | None = None,
    *,
    tracer_provider: TracerProvider | None = None,
) -> Container:
    overrides = overrides or AgentOverrides()
    postgres = overrides.postgres or await open_postgres(stack, settings.database_url, vectors=False)
    memory = open_service_channel(stack, "memory", settings.memory_addr, settings, tracer_provider)
    observations = open_service_channel(stack, "observations", settings.observations_addr, settings, tracer_provider)
    assembler = open_service_channel(stack, "assembler", settings.assembler_addr, settings, tracer_provider)
    clock = overrides.clock or SystemClock()
    transcript = overrides.transcript or PostgresTranscript(postgres)
    results = PostgresTurnLoop(postgres)
    memories = overrides.messages or GrpcMemories(memory)
    working_memory = GrpcWorkingMemory(memory)
    metrics = overrides.metrics or ServiceMetrics()
    paths = prometheus_metrics.register(metrics.registry, postgres)
    # Rule-based mode (no model): an episode summary is the sentences that best cover the conversation,
    # chosen with the packaged embedding model (domain/rules/central.py), and the same model vouches
    # for the kind of a fact the patterns missed (domain/rules/kinds.py).
    embedder = None
    if not settings.llm_base_url:
        embedder = overrides.embedder or await settings.open_embedder(stack, open_embedder)
    rules = overrides.extractor or RuleExtractor(KindReader(embedder) if embedder is not None else None)
    extractor, model = await _language(settings, stack, rules, paths)
    erasures = PostgresErasureStore(postgres)
    episodes = EpisodeServices(
        transcript, extractor, GrpcEpisodes(memory), embedder, GrpcMemories(memory), fence=erasures
    )
    forget = ForgetServices(GrpcForgetting(memory, observations), episodes=episodes)
    container = Container(
        settings=settings,
        postgres=postgres,
        transcript=transcript,
        messages=memories,
        clock=clock,
        turns=TurnServices(
            transcript,
            results,
            working_memory,
            GrpcContextAssembler(assembler),
            clock,
            model,
            forget=forget,
            redact=settings.redact,
        ),
        reflection=ReflectionServices(
            transcript,
            results,
            extractor,
            memories,
            GrpcObservations(observations),
            GrpcEngagement(observations),
            working_memory,
            settings.engagement_agents,
            prometheus_metrics.EngagementSkipCounter(metrics.registry),
            fence=erasures,
            forget=forget,
        ),
        episodes=episodes,
        erasure=ErasureServices(erasures, GrpcSubjectEraser(memory, observations), clock),
        job_queue=PgqueuerAdmin(postgres),
        tracer_provider=tracer_provider,
        checks={
            "postgres": lambda: ping_postgres(postgres),
            "memory": lambda: check_upstream(memory, "lore.memory.v1.MemoryService"),
        },
        metrics=metrics,
    )
    if settings.jobs_enabled:
        await _start_worker(settings, stack, container)
    _start_schedules(settings, stack, container, results, memory)
    return container


async def _start_worker(settings: Settings, stack: AsyncExitStack, container: Container) -> None:
    async def reflect(job: jobs.Job) -> None:
        await reflect_through(job.org_id, str(job.args["session_id"]), int(job.args["through"]), container.reflection)

    async def episode(job: jobs.Job) -> None:
        await extract_episode(job.org_id, str(job.args["session_id"]), container.episodes)

    async def erase(job: jobs.Job) -> None:
        await run_erasure(job.org_id, str(job.args["erasure_id"]), container.erasure)

    worker = JobWorker(
        settings.database_url,
        {jobs.REFLECT: reflect, jobs.EPISODE: episode, jobs.ERASE: erase},
        RetryPolicy(settings.job_max_attempts, timedelta(milliseconds=settings.job_backoff_ms)),
        concurrency=settings.job_concurrency,
        heartbeat_timeout=timedelta(seconds=settings.job_heartbeat_seconds),
    )
    await worker.start()
    stack.push_async_callback(worker.stop)


def _start_schedules(
    settings: Settings, stack: AsyncExitStack, container: Container, results: PostgresTurnLoop, memory: grpc.aio.Channel
) -> None:
    """The scheduled jobs one replica runs per period (lore_runtime.scheduled): the idle-session
    scan, the daily digests and the job queue's history; a period of 0 turns a job off."""
    idle = timedelta(minutes=settings.idle_session_minutes)
    digests = DigestServices(
        results,
        GrpcTimeline(memory),
        container.clock,
        settings.digest_warm_after_days,
        settings.digest_archive_after_days,
    )
    jobs = []
    if settings.idle_scan_seconds > 0:
        jobs.append(
            ScheduledJob(
                "idle_sessions",
                timedelta(seconds=settings.idle_scan_seconds),
                lambda: end_idle_sessions(
                    idle, transcript=container.transcript, results=results, clock=container.clock
                ),
                lease=timedelta(minutes=10),
            )
        )
    if settings.digest_interval_seconds > 0:
        jobs.append(
            ScheduledJob(
                "daily_digests", timedelta(seconds=settings.digest_interval_seconds), lambda: run_daily_digests(digests)
            )
        )
    if settings.job_history_days > 0:
        keep = timedelta(days=settings.job_history_days)
        jobs.append(ScheduledJob("job_history", timedelta(days=1), lambda: prune_history(container.postgres, keep)))
    if settings.turn_result_days > 0:
        kept = timedelta(days=settings.turn_result_days)

        async def prune_turn_results() -> dict[str, int]:
            return {"turn_results": await results.prune_results(container.clock.now() - kept)}

        jobs.append(ScheduledJob("turn_results", timedelta(days=1), prune_turn_results))
    if jobs:
        runs = ScheduledRunMetrics(container.metrics.registry)
        jobs = [dataclasses.replace(job, run=runs.counted(job.name, job.run)) for job in jobs]
        poll = timedelta(seconds=min([30.0, *(job.interval.total_seconds() for job in jobs)]))
        run_in_background(stack, run_periodically(JobClaims(container.postgres, "agent"), jobs, poll))

"""``lore org export`` and ``lore org import``: one org as JSON lines, through the services' admin RPCs.

The file: a header line ``{"format": "lore.org-export", "version": 1, "org": …, "exportedAt": …,
"counts": {…}}``, then one ``{"kind": …, "record": …}`` per line, ``record`` being the proto3 JSON
of the service's own message (Memory, Episode, Observation with its evidence, EngagementState,
Hypothesis with its evidence, revisions and finding, Unknown). Kinds come in dependency order:
memories, episodes, observations (oldest first, so a belief precedes its successor), the
engagement row, hypotheses, unknowns.

Import writes under ``--org`` (sent as tenant metadata; the file's ``org`` is informational) in
batches of at most 500 records of one kind; the service validates a whole batch before writing
any of it, and a refused record is reported with its line. Copying into another org re-derives the
ids (``lore_cli.org_ids``); restoring into the file's org keeps them.
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
from collections.abc import Mapping
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

import grpc
from google.protobuf import json_format
from google.protobuf.message import Message
from lore.memory.v1 import episode_service_pb2, episode_service_pb2_grpc, memory_service_pb2, memory_service_pb2_grpc
from lore.observations.v1 import (
    engagement_service_pb2,
    engagement_service_pb2_grpc,
    observation_service_pb2,
    observation_service_pb2_grpc,
)

from lore_cli import org_ids
from lore_cli.service_calls import address, dial, field_of, report_rpc_error, tenant

FORMAT = "lore.org-export"
VERSION = 1
KINDS: dict[str, type[Message]] = {
    "memory": memory_service_pb2.Memory,
    "episode": episode_service_pb2.Episode,
    "observation": observation_service_pb2.Observation,
    "engagement": engagement_service_pb2.EngagementState,
    "hypothesis": engagement_service_pb2.Hypothesis,
    "unknown": engagement_service_pb2.Unknown,
}
# Which service owns each kind (for the address in an error message).
SERVICE_OF = {"memory": "memory", "episode": "memory"} | dict.fromkeys(
    ("observation", "engagement", "hypothesis", "unknown"), "observations"
)
MAX_BATCH = 500
# Well under gRPC's 4 MiB default message cap, however large the records.
MAX_BATCH_BYTES = 2_000_000
TIMEOUT_SECONDS = 600.0
_INDEXED_FIELD = re.compile(r"^(\w+)\[(\d+)\]")


class ImportFailed(Exception):
    """A line of the file cannot be imported; the message names it."""


def record_line(kind: str, record: Message) -> str:
    """One line of the file (no newline): sorted keys, so equal records give equal lines."""
    document = {"kind": kind, "record": json_format.MessageToDict(record)}
    return json.dumps(document, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def header_line(org: str, counts: Mapping[str, int], exported_at: datetime) -> str:
    header = {
        "format": FORMAT,
        "version": VERSION,
        "org": org,
        "exportedAt": exported_at.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        "counts": dict(counts),
    }
    return json.dumps(header, sort_keys=True, separators=(",", ":"))


class _Stubs:
    def __init__(self, stack: AsyncExitStack, environ: Mapping[str, str]) -> None:
        self.addresses = {service: address(environ, service) for service in ("memory", "observations")}
        memory = dial(environ, self.addresses["memory"])
        observations = dial(environ, self.addresses["observations"])
        for channel in (memory, observations):
            stack.push_async_callback(channel.close)
        self.memories = memory_service_pb2_grpc.MemoryServiceStub(memory)
        self.episodes = episode_service_pb2_grpc.EpisodeServiceStub(memory)
        self.observations = observation_service_pb2_grpc.ObservationServiceStub(observations)
        self.engagement = engagement_service_pb2_grpc.EngagementServiceStub(observations)


# ---------------------------------------------------------------------------------------- export


async def export_org(environ: Mapping[str, str], *, org: str, output: Path | None) -> int:
    counts = dict.fromkeys(KINDS, 0)
    metadata = tenant(org)
    step = "memory"
    # Records are spooled: the header, written first, carries their counts.
    with tempfile.TemporaryFile("w+", encoding="utf-8") as spool:

        def write(kind: str, record: Message) -> None:
            spool.write(record_line(kind, record) + "\n")
            counts[kind] += 1

        async with AsyncExitStack() as stack:
            stubs = _Stubs(stack, environ)
            call: dict[str, Any] = {"metadata": metadata, "timeout": TIMEOUT_SECONDS}
            try:
                async for page in stubs.memories.ExportMemories(memory_service_pb2.ExportMemoriesRequest(), **call):
                    for memory in page.memories:
                        write("memory", memory)
                step = "episode"
                async for page in stubs.episodes.ExportEpisodes(episode_service_pb2.ExportEpisodesRequest(), **call):
                    for episode in page.episodes:
                        write("episode", episode)
                step = "observation"
                request = observation_service_pb2.ExportObservationsRequest()
                async for page in stubs.observations.ExportObservations(request, **call):
                    for observation in page.observations:
                        write("observation", observation)
                step = "engagement"
                request = engagement_service_pb2.ExportEngagementRequest()
                async for page in stubs.engagement.ExportEngagement(request, **call):
                    if page.HasField("engagement"):
                        write("engagement", page.engagement)
                    for hypothesis in page.hypotheses:
                        write("hypothesis", hypothesis)
                    for unknown in page.unknowns:
                        write("unknown", unknown)
            except grpc.aio.AioRpcError as error:
                service = SERVICE_OF[step]
                return report_rpc_error("lore org export", service, stubs.addresses[service], error)
        spool.seek(0)
        header = header_line(org, counts, datetime.now(UTC))
        if output is None:
            _copy(header, spool, sys.stdout)
        else:
            # Written beside the target and renamed: an interrupted export never leaves half a file.
            partial = output.with_name(output.name + ".partial")
            with partial.open("w", encoding="utf-8") as handle:
                _copy(header, spool, handle)
            os.replace(partial, output)
    summary = ", ".join(f"{count} {kind}" for kind, count in counts.items())
    print(f"exported org {org}: {summary}" + (f" to {output}" if output else ""), file=sys.stderr)
    return 0


def _copy(header: str, spool: IO[str], target: IO[str]) -> None:
    target.write(header + "\n")
    while chunk := spool.read(1 << 20):
        target.write(chunk)
    target.flush()


# ---------------------------------------------------------------------------------------- import


def read_header(line: str) -> dict[str, Any]:
    """The header of an export file, or ImportFailed saying why the file is refused."""
    try:
        header = json.loads(line)
    except json.JSONDecodeError:
        header = None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise ImportFailed(f'line 1: not a Lore org export (the first line must be a header with "format": "{FORMAT}")')
    if header.get("version") != VERSION:
        raise ImportFailed(
            f"line 1: export format version {header.get('version')!r} is not supported (this lore reads {VERSION})"
        )
    if not isinstance(header.get("org"), str) or not header["org"]:
        raise ImportFailed('line 1: the header has no "org"')
    return header


def parse_line(line_number: int, text: str) -> tuple[str, Message]:
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise ImportFailed(f"line {line_number}: not JSON ({error.msg})") from None
    kind = document.get("kind") if isinstance(document, dict) else None
    if kind not in KINDS:
        raise ImportFailed(f"line {line_number}: unknown kind {kind!r} (expected one of {', '.join(KINDS)})")
    if not isinstance(document.get("record"), dict):
        raise ImportFailed(f'line {line_number}: "record" must be an object')
    record = KINDS[kind]()
    try:
        json_format.ParseDict(document["record"], record)
    except json_format.ParseError as error:
        raise ImportFailed(f"line {line_number}: invalid {kind} record: {error}") from None
    return kind, record


@dataclass
class _Batch:
    """Consecutive records sent in one import call, with the line each came from."""

    group: str = ""
    records: dict[str, list[Message]] = field(default_factory=dict)
    lines: dict[str, list[int]] = field(default_factory=dict)
    size: int = 0
    bytes: int = 0

    def add(self, kind: str, record: Message, line_number: int, length: int) -> None:
        self.records.setdefault(kind, []).append(record)
        self.lines.setdefault(kind, []).append(line_number)
        self.size += 1
        self.bytes += length

    def line_of(self, field_path: str) -> int | None:
        """The line of the record an error's field names (``memories[3].importance``)."""
        match = _INDEXED_FIELD.match(field_path)
        if match is None:
            return None
        kind = {
            "memories": "memory",
            "episodes": "episode",
            "observations": "observation",
            "hypotheses": "hypothesis",
            "unknowns": "unknown",
        }.get(match.group(1))
        lines = self.lines.get(kind or "", [])
        index = int(match.group(2))
        return lines[index] if index < len(lines) else None

    def span(self) -> str:
        numbers = [number for lines in self.lines.values() for number in lines]
        return f"lines {min(numbers)}-{max(numbers)}" if numbers else "no lines"


@dataclass
class _Importer:
    stubs: _Stubs
    metadata: tuple[tuple[str, str], ...]
    engagement: engagement_service_pb2.EngagementState | None = None
    imported: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KINDS, 0))
    skipped: int = 0
    restored_engagement: bool = False

    async def send(self, batch: _Batch) -> None:
        call: dict[str, Any] = {"metadata": self.metadata, "timeout": TIMEOUT_SECONDS}
        records = batch.records
        try:
            if batch.group == "memory":
                response = await self.stubs.memories.ImportMemories(
                    memory_service_pb2.ImportMemoriesRequest(memories=records["memory"]), **call
                )
                self._count("memory", response.imported, response.skipped)
            elif batch.group == "episode":
                response = await self.stubs.episodes.ImportEpisodes(
                    episode_service_pb2.ImportEpisodesRequest(episodes=records["episode"]), **call
                )
                self._count("episode", response.imported, response.skipped)
            elif batch.group == "observation":
                response = await self.stubs.observations.ImportObservations(
                    observation_service_pb2.ImportObservationsRequest(observations=records["observation"]), **call
                )
                self._count("observation", response.imported, response.skipped)
            else:
                request = engagement_service_pb2.ImportEngagementRequest(
                    engagement=self.engagement,
                    hypotheses=records.get("hypothesis", []),
                    unknowns=records.get("unknown", []),
                )
                response = await self.stubs.engagement.ImportEngagement(request, **call)
                self.imported["hypothesis"] += response.imported_hypotheses
                self.imported["unknown"] += response.imported_unknowns
                self.skipped += response.skipped
        except grpc.aio.AioRpcError as error:
            service = SERVICE_OF[batch.group]
            where = self.stubs.addresses[service]
            if error.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
                raise ImportFailed(
                    f"the {service} service at {where} is unreachable ({error.code().name}: {error.details()}); "
                    f"start it (`lore up`) or point LORE_{service.upper()}_ADDR at it"
                ) from None
            line = batch.line_of(field_of(error))
            where_in_file = f"line {line}" if line is not None else batch.span()
            # Every service validates a whole batch before it writes any of it.
            untouched = (
                f" (nothing of {batch.span()} was written)" if error.code() is grpc.StatusCode.INVALID_ARGUMENT else ""
            )
            raise ImportFailed(f"{where_in_file}: {error.code().name}: {error.details()}{untouched}") from None

    def _count(self, kind: str, imported: int, skipped: int) -> None:
        self.imported[kind] += imported
        self.skipped += skipped


def _group(kind: str) -> str:
    return "engagement" if kind in ("hypothesis", "unknown") else kind


async def import_org(environ: Mapping[str, str], *, org: str, source: Path | None) -> int:
    handle = sys.stdin if source is None else source.open(encoding="utf-8")
    try:
        async with AsyncExitStack() as stack:
            importer = _Importer(_Stubs(stack, environ), tenant(org))
            try:
                header = await _import_lines(handle, org, importer)
            except ImportFailed as failure:
                print(f"lore org import: {failure}", file=sys.stderr)
                return 1
    finally:
        if source is not None:
            handle.close()
    summary = ", ".join(f"{count} {kind}" for kind, count in importer.imported.items() if kind != "engagement")
    summary += ", the engagement state" if importer.restored_engagement else ""
    copy = f" (a copy of org {header['org']}: new ids)" if header["org"] != org else ""
    print(f"imported into org {org}{copy}: {summary}; {importer.skipped} already there")
    return 0


async def _import_lines(handle: IO[str], org: str, importer: _Importer) -> dict[str, Any]:
    first = handle.readline()
    header = read_header(first)
    source_org = header["org"]
    batch = _Batch()
    for line_number, text in enumerate(handle, start=2):
        if not text.strip():
            continue
        kind, record = parse_line(line_number, text)
        if source_org != org:
            org_ids.translate(kind, record, source_org, org)
        if kind == "engagement":
            # The row every later batch of hypotheses and unknowns carries (created on the first).
            if batch.size:
                await importer.send(batch)
                batch = _Batch()
            importer.engagement = record  # type: ignore[assignment]
            await importer.send(_Batch(group="engagement", lines={"engagement": [line_number]}))
            importer.restored_engagement = True
            continue
        group = _group(kind)
        if batch.size and (
            batch.group != group or batch.size >= MAX_BATCH or batch.bytes + len(text) > MAX_BATCH_BYTES
        ):
            await importer.send(batch)
            batch = _Batch()
        batch.group = group
        batch.add(kind, record, line_number, len(text))
    if batch.size:
        await importer.send(batch)
    return header

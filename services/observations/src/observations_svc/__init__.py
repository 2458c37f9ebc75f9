"""Lore observations service: knowledge observations with evidence; engagement state."""

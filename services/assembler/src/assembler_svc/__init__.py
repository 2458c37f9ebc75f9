"""Lore assembler service: context assembly and priming."""

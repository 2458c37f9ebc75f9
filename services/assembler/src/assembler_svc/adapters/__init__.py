"""Adapters of the assembler: the technology behind the domain's ports."""

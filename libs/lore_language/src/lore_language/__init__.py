"""Language rules shared by services, pure and model-free: what a relative date meant (``dates``).

A library, not a service's domain: the agent dates what it extracts and the assembler dates the
messages it hands back with the same rules, so "yesterday" means one day in both places.
"""

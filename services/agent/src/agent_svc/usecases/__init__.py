"""The agent's use cases."""

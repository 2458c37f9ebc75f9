"""The agent's pure rules: sessions, the transcript's text and ids. No I/O."""

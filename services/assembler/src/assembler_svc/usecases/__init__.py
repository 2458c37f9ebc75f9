"""The assembler's use cases: gather from the sources in parallel, then run the pure pipeline."""

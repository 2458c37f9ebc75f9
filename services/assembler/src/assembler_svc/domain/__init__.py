"""The assembler's pure domain: score, dedupe, order and budget context candidates into sections.

No I/O, no grpc, no tokenizer library: the token counter comes in through ``model.TokenCounter``
so the same pipeline runs with the real BPE in services and a fake in unit tests.
"""

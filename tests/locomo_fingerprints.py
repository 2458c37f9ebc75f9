"""Fingerprints of LoCoMo's text, so a test can tell a copied sentence without the data set.

LoCoMo's licence is non-commercial: its text stays out of the repository, yet the paraphrase and
trap suites must prove they copy none of it on any machine (CI has no copy of the data). So the
repository keeps only digests: a 5-byte BLAKE2b of every LoCoMo sentence of at least ``WHOLE``
words and of every run of ``SHINGLE`` words (lower case, words joined by one space), sorted, in
``tests/data/paraphrase/locomo.fingerprints``. 110k digests of 40 bits: a false match among the
suites' ~10k runs has odds of about 1 in 1,000.

Rebuild (only when the data set changes):
    .venv/bin/python -m tests.locomo_fingerprints [path/to/locomo-dev.json]
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "locomo-dev.json"
FINGERPRINTS = ROOT / "tests" / "data" / "paraphrase" / "locomo.fingerprints"
SHINGLE = 8  # words: a run this long shared with LoCoMo is a copied sentence
WHOLE = 4  # words: a shorter sentence is a stock phrase nobody owns ("Thanks for asking.")
DIGEST_BYTES = 5


def words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+(?:'[a-z]+)?", text.lower())


def digest(run: list[str]) -> bytes:
    return hashlib.blake2b(" ".join(run).encode(), digest_size=DIGEST_BYTES).digest()


def sentences(text: str) -> list[str]:
    return re.split(r"(?<=[.!?])\s+", text)


def runs(text: str) -> Iterator[list[str]]:
    """What a text is checked by: each sentence of ``WHOLE`` words or more, and each run of ``SHINGLE``."""
    for sentence in sentences(text):
        said = words(sentence)
        if len(said) >= WHOLE:
            yield said
    said = words(text)
    for start in range(len(said) - SHINGLE + 1):
        yield said[start : start + SHINGLE]


def strings(node: Any) -> Iterator[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from strings(value)


def load() -> frozenset[bytes]:
    data = FINGERPRINTS.read_bytes()
    return frozenset(data[i : i + DIGEST_BYTES] for i in range(0, len(data), DIGEST_BYTES))


def main() -> None:
    source = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_DATA
    found = {digest(run) for text in strings(json.loads(source.read_text(encoding="utf-8"))) for run in runs(text)}
    FINGERPRINTS.write_bytes(b"".join(sorted(found)))
    print(f"{len(found)} fingerprints -> {FINGERPRINTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()

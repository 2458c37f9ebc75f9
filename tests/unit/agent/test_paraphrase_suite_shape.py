"""The paraphrase and trap suites (tests/data/paraphrase) have the shape their measure needs: enough
kinds, phrasings and traps, patterns that compile and mean what they say, two halves that share no
sentence, secrets that are real secrets, and no sentence taken from LoCoMo."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tests.locomo_fingerprints import digest, runs, words
from tests.locomo_fingerprints import load as load_fingerprints

ROOT = Path(__file__).resolve().parents[3]
SUITE = ROOT / "tests" / "data" / "paraphrase"
HALVES = ("held_out", "tuning")
TRAP_CLASSES = {
    "other_person",
    "hypothetical",
    "question",
    "wish",
    "negation",
    "joke_sarcasm",
    "quote_reported",
    "lyric_film",
    "assistant_small_talk",
    "temporary_state",
    "non_english",
    "not_secret",
    "secret",
}
SECRET_KINDS = {"card", "iban", "password", "api_key", "ssn", "ni_number"}


def load(name: str) -> dict[str, Any]:
    return json.loads((SUITE / name).read_text(encoding="utf-8"))


KINDS = load("kinds.json")
KIND_IDS = [kind["id"] for kind in KINDS["kinds"]]
PHRASINGS = {half: load(f"{half}.json") for half in HALVES}
TRAPS = {half: load(f"traps_{half}.json")["traps"] for half in HALVES}


def phrasings(half: str) -> Iterator[tuple[str, dict[str, Any]]]:
    for group in PHRASINGS[half]["kinds"]:
        for phrasing in group["phrasings"]:
            yield group["kind"], phrasing


def expectations(phrasing: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield phrasing
    yield from phrasing.get("also", [])


def sentences(half: str) -> Iterator[tuple[str, str]]:
    """(id, text) of every sentence a half makes the stack hear, previous turns included."""
    for _, phrasing in phrasings(half):
        yield phrasing["id"], phrasing["text"]
        if "previous_turn" in phrasing:
            yield phrasing["id"] + " (previous turn)", phrasing["previous_turn"]["text"]
    for trap in TRAPS[half]:
        yield trap["id"], trap["text"]
        if "previous_turn" in trap:
            yield trap["id"] + " (previous turn)", trap["previous_turn"]["text"]


def luhn_valid(number: str) -> bool:
    digits = [int(c) for c in number if c.isdigit()][::-1]
    total = sum(d if i % 2 == 0 else (d * 2 - 9 if d * 2 > 9 else d * 2) for i, d in enumerate(digits))
    return total % 10 == 0


def iban_valid(iban: str) -> bool:
    compact = iban.replace(" ", "").upper()
    rearranged = compact[4:] + compact[:4]
    return int("".join(str(int(c, 36)) for c in rearranged)) % 97 == 1


def test_the_suite_has_at_least_40_kinds_each_with_8_phrasings_in_either_half():
    assert len(KIND_IDS) >= 40
    assert len(set(KIND_IDS)) == len(KIND_IDS), "a kind is defined twice"
    for half in HALVES:
        counts = Counter(kind for kind, _ in phrasings(half))
        assert set(counts) == set(KIND_IDS), f"{half}: kinds without phrasings {set(KIND_IDS) - set(counts)}"
        thin = {kind: n for kind, n in counts.items() if n < 8}
        assert not thin, f"{half}: kinds with fewer than 8 phrasings: {thin}"


def test_every_phrasing_names_a_known_kind_and_a_unique_id():
    ids = [phrasing["id"] for half in HALVES for _, phrasing in phrasings(half)]
    ids += [trap["id"] for half in HALVES for trap in TRAPS[half]]
    assert len(ids) == len(set(ids)), [i for i, n in Counter(ids).items() if n > 1]
    for half in HALVES:
        letter = half[0]  # h… / t…
        for kind, phrasing in phrasings(half):
            assert phrasing["id"].startswith(f"{kind}.{letter}"), phrasing["id"]
            for also in phrasing.get("also", []):
                assert also["kind"] in KIND_IDS, (phrasing["id"], also["kind"])
            if "previous_turn" in phrasing:
                assert phrasing["previous_turn"]["role"] in ("user", "assistant"), phrasing["id"]
        for trap in TRAPS[half]:
            assert trap["id"].startswith(f"trap.{letter}"), trap["id"]


def test_there_are_at_least_150_traps_in_two_sizeable_halves_over_every_class():
    held_out, tuning = len(TRAPS["held_out"]), len(TRAPS["tuning"])
    assert held_out + tuning >= 150
    # New traps go into the tuning half (README.md), so it may outgrow the held-out half, which was
    # committed first and stays a sizeable share of the suite (a third at least); neither half is thin.
    assert held_out >= (held_out + tuning) / 3
    assert tuning >= 0.8 * held_out
    for half in HALVES:
        classes = Counter(trap["class"] for trap in TRAPS[half])
        assert set(classes) == TRAP_CLASSES, f"{half}: {set(classes) ^ TRAP_CLASSES}"


def test_every_regex_compiles():
    re.compile(KINDS["chatter"], re.IGNORECASE)
    for kind in KINDS["kinds"]:
        assert kind["memory_type"] in ("fact", "preference"), kind["id"]
        if kind["slot"] is not None:
            re.compile(kind["slot"])
    for half in HALVES:
        for _, phrasing in phrasings(half):
            for expected in expectations(phrasing):
                re.compile(expected["pattern"], re.IGNORECASE)
                if "not_pattern" in expected:
                    re.compile(expected["not_pattern"], re.IGNORECASE)
        for trap in TRAPS[half]:
            assert trap["must_not"], trap["id"]
            for item in [*trap["must_not"], *trap.get("instead", [])]:
                assert "pattern" in item or "slot" in item, trap["id"]
                assert item.get("where", "facts") in ("facts", "anywhere"), trap["id"]
                if "pattern" in item:
                    re.compile(item["pattern"], re.IGNORECASE)
                if "slot" in item:
                    re.compile(item["slot"])


def test_an_expected_pattern_finds_its_fact_in_the_words_said():
    """A pattern names the fact's own words (what stays when the sentence is rewritten), so it
    matches what the user said: the turn or the turn before it."""
    for half in HALVES:
        for _, phrasing in phrasings(half):
            said = phrasing.get("previous_turn", {}).get("text", "") + "\n" + phrasing["text"]
            for expected in expectations(phrasing):
                found = re.search(expected["pattern"], said, re.IGNORECASE | re.DOTALL)
                assert found, (phrasing["id"], expected["pattern"])


def test_a_trap_never_forbids_what_it_asks_to_be_stored_instead():
    for half in HALVES:
        for trap in TRAPS[half]:
            for forbidden in trap["must_not"]:
                if "pattern" in forbidden:
                    example = forbidden["example"]
                    assert re.search(forbidden["pattern"], example, re.IGNORECASE), (trap["id"], "misses", example)
            for wanted in trap.get("instead", []):
                assert re.search(wanted["pattern"], wanted["example"], re.IGNORECASE), trap["id"]
                for forbidden in trap["must_not"]:
                    if "pattern" in forbidden:
                        hit = re.search(forbidden["pattern"], wanted["example"], re.IGNORECASE)
                        assert not hit, (trap["id"], forbidden["pattern"], wanted["example"])


def test_the_chatter_pattern_is_never_the_fact_itself():
    chatter = re.compile(KINDS["chatter"], re.IGNORECASE)
    for half in HALVES:
        for trap in TRAPS[half]:
            for wanted in trap.get("instead", []):
                assert not chatter.search(wanted["example"]), trap["id"]
        for _, phrasing in phrasings(half):
            for expected in expectations(phrasing):
                assert not chatter.search(expected["pattern"]), phrasing["id"]


def test_no_sentence_is_in_both_halves_or_twice_in_one():
    seen: dict[str, str] = {}
    for half in HALVES:
        for sentence_id, text in sentences(half):
            if "(previous turn)" in sentence_id:
                continue  # a short question of the assistant's may recur
            key = " ".join(words(text))
            # Ids only: the message must not show a held-out sentence to whoever tunes the rules.
            assert key not in seen, f"{sentence_id} repeats {seen[key]}"
            seen[key] = sentence_id


def test_secrets_are_real_and_the_look_alikes_are_not():
    for half in HALVES:
        for trap in TRAPS[half]:
            if trap["class"] == "secret":
                secret = trap["secret"]
                assert secret["kind"] in SECRET_KINDS, trap["id"]
                assert secret["value"] in trap["text"], trap["id"]
                if secret["kind"] == "card":
                    assert luhn_valid(secret["value"]), trap["id"]
                    assert 13 <= sum(c.isdigit() for c in secret["value"]) <= 19, trap["id"]
                if secret["kind"] == "iban":
                    assert iban_valid(secret["value"]), trap["id"]
            else:
                assert "secret" not in trap, trap["id"]
            if trap["class"] == "not_secret":
                for run in re.findall(r"\d[\d -]{14,}\d", trap["text"]):
                    digits = re.sub(r"\D", "", run)
                    if 13 <= len(digits) <= 19 and not digits.startswith("978"):
                        assert not luhn_valid(digits), (trap["id"], "a Luhn-valid number is a card")


def test_no_sentence_is_copied_from_locomo():
    """Checked against LoCoMo's fingerprints (tests/locomo_fingerprints.py), not its text."""
    fingerprints = load_fingerprints()
    assert len(fingerprints) > 100_000, "the fingerprints of LoCoMo's text are in the repository"
    for half in HALVES:
        for sentence_id, text in sentences(half):
            for run in runs(text):
                assert digest(run) not in fingerprints, f"{sentence_id} shares {' '.join(run)!r} with LoCoMo"

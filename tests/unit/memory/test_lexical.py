from hypothesis import given
from hypothesis import strategies as st
from memory_svc.domain.lexical import AVG_DOC_LEN, K1, B, encode_document, encode_query, stem, term_index, tokenize


def test_tokenize_lower_cases_drops_stop_words_and_stems():
    assert tokenize("Noor went to the animal shelters!") == ["noor", "went", "animal", "shelter"]
    assert tokenize("Café Über 2023_05") == ["café", "über", "2023", "05"]
    assert tokenize("the of and I'm") == []


def test_stem_folds_common_suffixes_conservatively():
    assert stem("parties") == "party"
    assert stem("painting") == stem("painted") == stem("paints") == "paint"
    assert stem("running") == "run"
    assert stem("glass") == "glass" and stem("bus") == "bus" and stem("is") == "is" and stem("coffee") == "coffee"
    assert stem("2023s") == "2023s"


def test_term_indexes_are_stable_uint32():
    # BLAKE2b, not hash(): the same number in every process and Python version.
    assert term_index("tangerine") == 1_494_560_447
    assert all(0 <= term_index(word) < 2**32 for word in ("a", "ü", "tangerine" * 50))


def test_document_weights_follow_bm25_saturation():
    vector = encode_document("tea tea coffee")
    weights = vector.as_dict()
    length = 3
    norm = K1 * (1 - B + B * length / AVG_DOC_LEN)
    assert weights[term_index("tea")] == 2 * (K1 + 1) / (2 + norm)
    assert weights[term_index("coffee")] == 1 * (K1 + 1) / (1 + norm)
    assert list(vector.indices) == sorted(vector.indices)


def test_query_is_one_per_unique_term():
    vector = encode_query("Tea? tea and coffee")
    assert vector.as_dict() == {term_index("tea"): 1.0, term_index("coffee"): 1.0}
    assert not encode_query("the and of")


texts = st.text(alphabet=st.characters(categories=("L", "N", "Zs", "P")), max_size=200)


@given(texts)
def test_encoding_is_deterministic_sorted_and_positive(text):
    first, second = encode_document(text), encode_document(text)
    assert first == second
    assert list(first.indices) == sorted(set(first.indices))
    assert all(0 < value < K1 + 1 for value in first.values)
    assert all(0 <= index < 2**32 for index in first.indices)
    assert set(encode_query(text).indices) == set(first.indices)


@given(st.integers(min_value=1, max_value=50), st.integers(min_value=0, max_value=50))
def test_more_occurrences_weigh_more_and_longer_documents_less(count, padding):
    base = encode_document(" ".join(["kiwi"] * count) + " apple" * padding).as_dict()[term_index("kiwi")]
    more = encode_document(" ".join(["kiwi"] * (count + 1)) + " apple" * padding).as_dict()[term_index("kiwi")]
    longer = encode_document(" ".join(["kiwi"] * count) + " apple" * (padding + 1)).as_dict()[term_index("kiwi")]
    assert more > base
    assert longer < base

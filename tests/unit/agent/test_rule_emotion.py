"""The emotion lexicon: labels, valence, intensity, negation; nothing for assistants or plain text."""

from agent_svc.domain.rules.emotion import detect_emotion


def test_plain_cue_has_its_label_and_sign() -> None:
    emotion = detect_emotion("I'm frustrated with this build.")
    assert emotion is not None and emotion.label == "frustrated" and emotion.valence < 0


def test_intensifiers_and_exclamations_raise_intensity() -> None:
    plain = detect_emotion("I'm worried about the launch.")
    strong = detect_emotion("I'm really worried about the launch!!")
    assert plain and strong and strong.label == plain.label == "anxious"
    assert strong.intensity > plain.intensity


def test_negation_flips_the_valence() -> None:
    emotion = detect_emotion("I'm not happy with the result.")
    assert emotion is not None and emotion.label == "disappointed" and emotion.valence < 0
    calm = detect_emotion("I'm not worried at all.")
    assert calm is not None and calm.valence > 0


def test_positive_cues_and_emoji() -> None:
    assert detect_emotion("Thank you so much!").label == "grateful"  # type: ignore[union-attr]
    assert detect_emotion("We shipped it 🎉").label == "excited"  # type: ignore[union-attr]


def test_nothing_detected_and_assistant_turns_carry_no_emotion() -> None:
    assert detect_emotion("The report is in the shared folder.") is None
    assert detect_emotion("") is None
    assert detect_emotion("I'm so happy to help!", role="assistant") is None


def test_values_stay_in_range() -> None:
    emotion = detect_emotion("I am SO SO REALLY extremely FRUSTRATED!!!!!!!!")
    assert emotion is not None and -1 <= emotion.valence <= 1 and 0 <= emotion.intensity <= 1

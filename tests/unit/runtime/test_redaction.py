"""Secrets become typed placeholders; phone numbers, order numbers, ISBNs and dates stay as typed."""

from __future__ import annotations

import json
import random
import re
import string
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lore_runtime.redaction import ALL_KINDS, Kind, Redactor, parse_kinds, redact

# --- generators of valid secrets ------------------------------------------------------------------

ISSUER_PREFIXES = ("4", "51", "55", "2221", "2720", "34", "37", "6011", "65", "3528", "36", "62", "2200")


def luhn_complete(partial: str) -> str:
    """``partial`` with the check digit that makes it Luhn-valid."""
    for check in string.digits:
        candidate = partial + check
        total = 0
        for index, char in enumerate(reversed(candidate)):
            value = int(char) * (2 if index % 2 else 1)
            total += value - 9 if value > 9 else value
        if total % 10 == 0:
            return candidate
    raise AssertionError("unreachable")


def grouped(digits: str, sizes: list[int], separator: str) -> str:
    parts, position = [], 0
    for size in sizes:
        if position >= len(digits):
            break
        parts.append(digits[position : position + size])
        position += size
    if position < len(digits):
        parts.append(digits[position:])
    return separator.join(parts)


@st.composite
def card_numbers(draw) -> tuple[str, str]:
    """(the number as typed, its digits): an issuer's prefix, 13–19 digits, Luhn-valid, any grouping."""
    prefix = draw(st.sampled_from(ISSUER_PREFIXES))
    length = draw(st.integers(13, 19))
    body = draw(st.text(string.digits, min_size=length - len(prefix) - 1, max_size=length - len(prefix) - 1))
    digits = luhn_complete(prefix + body)
    separator = draw(st.sampled_from(["", " ", "-"]))
    sizes = draw(st.lists(st.integers(3, 6), min_size=1, max_size=6))
    return (grouped(digits, sizes, separator) if separator else digits), digits


IBAN_EXAMPLES = {"GB": 22, "DE": 22, "FR": 27, "NL": 18, "ES": 24, "IT": 27, "NO": 15, "CH": 21, "PL": 28}


def iban_of(country: str, bban: str) -> str:
    rearranged = bban + country + "00"
    number = int("".join(str(int(char, 36)) for char in rearranged))
    return f"{country}{98 - number % 97:02d}{bban}"


@st.composite
def ibans(draw) -> tuple[str, str]:
    country = draw(st.sampled_from(sorted(IBAN_EXAMPLES)))
    length = IBAN_EXAMPLES[country] - 4
    letters = 4 if country in ("GB", "NL") else 0
    bban = draw(st.text(string.ascii_uppercase, min_size=letters, max_size=letters)) + draw(
        st.text(string.digits, min_size=length - letters, max_size=length - letters)
    )
    iban = iban_of(country, bban)
    if draw(st.booleans()):
        return " ".join(iban[i : i + 4] for i in range(0, len(iban), 4)), iban
    return iban, iban


@st.composite
def ssns(draw) -> str:
    area = draw(st.integers(1, 899).filter(lambda a: a != 666))
    group = draw(st.integers(1, 99))
    serial = draw(st.integers(1, 9999))
    separator = draw(st.sampled_from(["-", " "]))
    return f"{area:03d}{separator}{group:02d}{separator}{serial:04d}"


@st.composite
def ninos(draw) -> str:
    first = draw(st.sampled_from("ABCEGHJKLMNOPRSTWXYZ"))
    second = draw(st.sampled_from("ABCEGHJKLMNPRSTWXYZ"))
    if first + second in ("BG", "GB", "KN", "NK", "NT", "TN", "ZZ"):
        second = "A"
    digits = draw(st.text(string.digits, min_size=6, max_size=6))
    suffix = draw(st.sampled_from("ABCD"))
    if draw(st.booleans()):
        return f"{first}{second} {digits[:2]} {digits[2:4]} {digits[4:]} {suffix}"
    return f"{first}{second}{digits}{suffix}"


FILLER = st.sampled_from(
    ["", "Here you go: ", "ok so ", "Please charge ", "Thanks! ", "For the hotel, ", "(just in case) "]
)
AFTER = st.sampled_from(["", ".", " thanks", ", cheers!", " — keep it safe.", "\nThat's all."])


# --- secrets go ---------------------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(card_numbers(), FILLER, AFTER)
def test_every_issuers_luhn_valid_card_number_in_any_grouping_becomes_its_placeholder(card, before, after):
    typed, digits = card
    redacted = redact(f"{before}my card is {typed}{after}")
    assert redacted == f"{before}my card is [card ending {digits[-4:]}]{after}"


@settings(max_examples=200, deadline=None)
@given(card_numbers(), FILLER, AFTER)
def test_a_card_number_without_a_keyword_goes_too(card, before, after):
    typed, digits = card
    assert redact(f"{before}{typed}{after}") == f"{before}[card ending {digits[-4:]}]{after}"


@settings(max_examples=200, deadline=None)
@given(ibans(), FILLER, AFTER)
def test_a_checksum_valid_iban_compact_or_grouped_becomes_its_placeholder(iban, before, after):
    typed, compact = iban
    assert redact(f"{before}{typed}{after}") == f"{before}[IBAN ending {compact[-4:]}]{after}"
    assert redact(f"{before}{typed.lower()}{after}") == f"{before}[IBAN ending {compact[-4:]}]{after}"


@settings(max_examples=200, deadline=None)
@given(ssns(), FILLER, AFTER)
def test_a_social_security_number_becomes_its_placeholder(ssn, before, after):
    assert redact(f"{before}SSN {ssn}{after}") == f"{before}SSN [SSN]{after}"
    assert redact(f"{before}{ssn}{after}") == f"{before}[SSN]{after}"


@settings(max_examples=200, deadline=None)
@given(ninos(), FILLER, AFTER)
def test_a_national_insurance_number_becomes_its_placeholder(nino, before, after):
    assert redact(f"{before}{nino}{after}") == f"{before}[NI number]{after}"
    assert redact(f"{before}my NI number is {nino.lower()}{after}") == f"{before}my NI number is [NI number]{after}"


PASSWORDS = [
    ("My password is Tr0ub4dor&3", "My password is [password]"),
    ("my password is hunter2.", "my password is [password]."),
    ("pw: correct-horse-battery", "pw: [password]"),
    ("PWD=s3cr3t!x", "PWD=[password]"),
    ("The wifi password for the cabin is 'blue fox 42'.", "The wifi password for the cabin is '[password]'."),
    ('password: "two words"', 'password: "[password]"'),
    ("my bank PIN is 4821", "my bank PIN is [password]"),
    ("password for the team wiki: plum-Tree7", "password for the team wiki: [password]"),
    ("the password for my email account at work is Rover99", "the password for my email account at work is [password]"),
    ("I changed my password to Sunshine2024!", "I changed my password to [password]!"),
    ("the passcode to the gate's 7741#", "the passcode to the gate's [password]"),
    ("clone https://ana:gh0stRider@git.example.com/repo.git", "clone https://ana:[password]@git.example.com/repo.git"),
]


@pytest.mark.parametrize(("said", "kept"), PASSWORDS)
def test_a_password_stated_as_such_is_replaced(said, kept):
    assert redact(said) == kept


RANDOM = random.Random(37)
RANDOM_KEYS = ["".join(RANDOM.choice(string.ascii_letters + string.digits) for _ in range(40)) for _ in range(5)]
API_KEYS = [
    "sk-proj-4fJ8kL2mN9pQ1rS7tU3vW5xY0zA6bC",
    "sk-ant-api03-Zx8Yw7Vu6Ts5Rq4Po3Nm2Lk1Jh",
    "sk_live_51HqLyjWDarjtT1zdp7dcXQ4R",
    "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
    "github_pat_11ABCDEFG0abcdefghijklmnopqrstuvwxyz0123",
    "glpat-xY3zA9bC7dE5fG1hI2jK",
    "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOp",
    "AKIAIOSFODNN7EXAMPLE",
    "AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW",
    "hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    *RANDOM_KEYS,
]


@pytest.mark.parametrize("key", API_KEYS)
def test_an_api_key_or_token_is_replaced_wherever_it_stands(key):
    assert redact(f"use {key} for the deploy") == "use [API key] for the deploy"
    assert redact(f"KEY={key}") == "KEY=[API key]"


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("Authorization: Bearer abc.def-ghi_jkl123456", "Authorization: Bearer [API key]"),
        ("my api key is 3f2a9c8b7d6e5f4a", "my api key is [API key]"),
        ("the client secret: q8w7e6r5t4y3", "the client secret: [API key]"),
    ],
)
def test_a_token_after_its_scheme_or_label_is_replaced(said, kept):
    assert redact(said) == kept


# --- the forms people type secrets in (tests/data/paraphrase/secret_forms_tuning.json) ----------------

FORMS = json.loads(
    (Path(__file__).resolve().parents[2] / "data" / "paraphrase" / "secret_forms_tuning.json").read_text()
)


def _compact(text: str) -> str:
    return re.sub(r"[\s.\-\u2013\u2014/]", "", text).lower()


@pytest.mark.parametrize("form", FORMS["secrets"], ids=lambda form: f"{form['kind']}: {form['text']}")
def test_every_form_of_a_secret_becomes_its_placeholder(form):
    redacted = redact(form["text"])
    assert redacted == form["redacted"]
    assert _compact(form["value"]) not in _compact(redacted)


@pytest.mark.parametrize("form", FORMS["not_secrets"], ids=lambda form: f"{form['what']}: {form['text']}")
def test_every_look_alike_of_a_secret_stays_as_typed(form):
    assert redact(form["text"]) == form["text"]


@settings(max_examples=200, deadline=None)
@given(card_numbers(), st.sampled_from([".", "  ", " - ", "\u2013", " \u2013 ", "\u2014"]), FILLER, AFTER)
def test_a_card_number_grouped_by_dots_double_spaces_or_dashes_with_spaces_goes(card, separator, before, after):
    _, digits = card
    sizes = {13: [4, 4, 5], 14: [4, 6, 4], 15: [4, 6, 5], 17: [4, 4, 4, 5], 18: [4, 4, 4, 6], 19: [4, 4, 4, 4, 3]}
    sizes = sizes.get(len(digits), [4, 4, 4, 4])
    typed = grouped(digits, sizes, separator)
    assert redact(f"{before}{typed}{after}") == f"{before}[card ending {digits[-4:]}]{after}"


@pytest.mark.parametrize("number", ["3.14159265358979", "1234.5678901234567", "4527.382910465739"])
def test_a_decimal_number_is_never_a_card_grouped_by_dots(number):
    assert redact(f"it came to {number} in total") == f"it came to {number} in total"


@settings(max_examples=100, deadline=None)
@given(ssns(), st.sampled_from([".", ""]))
def test_a_social_security_number_with_dots_or_none_after_social_goes(ssn, separator):
    typed = ssn.replace("-", separator).replace(" ", separator)
    assert redact(f"my social is {typed}") == "my social is [SSN]"


@settings(max_examples=100, deadline=None)
@given(ninos())
def test_a_national_insurance_number_grouped_by_dashes_goes(nino):
    typed = re.sub(r"\s+", "-", nino) if " " in nino else nino
    assert redact(f"NI: {typed}") == "NI: [NI number]"


@settings(max_examples=100, deadline=None)
@given(st.integers(900, 999), st.integers(1, 99), st.integers(1, 9999), st.sampled_from(["-", " "]))
def test_a_taxpayer_number_in_the_9xx_area_goes_like_an_ssn(area, group, serial, separator):
    typed = f"{area}{separator}{group:02d}{separator}{serial:04d}"
    assert redact(f"my ITIN is {typed}") == "my ITIN is [SSN]"
    assert redact(f"{typed} for the tax form") == "[SSN] for the tax form"


@pytest.mark.parametrize("number", ["000-12-3456", "666-12-3456", "123-00-4567", "123-45-0000"])
def test_a_number_no_ssn_can_be_goes_after_its_label_only(number):
    assert redact(f"SSN: {number}") == "SSN: [SSN]"
    assert redact(f"part {number} is on back order") == f"part {number} is on back order"


@settings(max_examples=100, deadline=None)
@given(st.text("ABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=2, max_size=2), st.text(string.digits, min_size=6, max_size=6))
def test_any_letters_six_digits_and_a_suffix_go_next_to_the_ni_label(letters, digits):
    typed = f"{letters} {digits[:2]} {digits[2:4]} {digits[4:]} C"
    assert redact(f"My national insurance number is {typed}.") == "My national insurance number is [NI number]."
    assert redact(f"{typed.lower()} is my NI number") == "[NI number] is my NI number"


@settings(max_examples=100, deadline=None)
@given(card_numbers(), st.sampled_from(["For the order, use", "The invoice is paid; charge", "Phone later. Pay with"]))
def test_a_keyword_naming_something_else_keeps_only_the_number_it_labels(card, before):
    typed, digits = card
    assert redact(f"{before} {typed}") == f"{before} [card ending {digits[-4:]}]"


# --- not secrets stay ---------------------------------------------------------------------------------

NOT_SECRETS = [
    "Call me on +44 20 7946 0958 or 07700 900123.",
    "My US number is (555) 123-4567, or 555-123-4567, or +1 555 123 4567.",
    "Order number 4111111111111111 shipped yesterday.",
    "My order #5500 0000 0000 0004 hasn't arrived.",
    "The tracking number is 4242424242424242.",
    "ISBN 978-0-306-40615-7, also printed as 9780306406157.",
    "ISBN-13: 979-10-90636-07-1",
    "Meeting on 2024-03-15 at 10:30; I was born 15/03/1985 and we married on 3 June 2012.",
    "The timestamp 20240315103000 and the epoch 1710498600000.",
    "commit a59d22f3b1c4e5d6f7a8b9c0d1e2f3a4b5c6d7e8 fixed it",
    "request 550e8400-e29b-41d4-a716-446655440000 failed",
    "my password is too long",
    "I forgot my password again.",
    "The token is ready.",
    "See /home/User2024/Projects/MyApp/Release/x64/Debug for the build.",
    "SuperCalifragilisticExpialidociousWord",
    "Flight BA2490 leaves at 07:45 from gate 12.",
    "My postcode is LS1 4AP and my zip is 94103-1234.",
    "We paid 1,234,567.89 for the house in 2019.",
]


@pytest.mark.parametrize("text", NOT_SECRETS)
def test_phone_numbers_order_numbers_isbns_dates_and_plain_words_are_not_secrets(text):
    assert redact(text) == text


@st.composite
def isbn13s(draw) -> str:
    prefix = draw(st.sampled_from(["978", "979"]))
    body = prefix + draw(st.text(string.digits, min_size=9, max_size=9))
    check = (10 - sum(int(d) * (1 if i % 2 == 0 else 3) for i, d in enumerate(body)) % 10) % 10
    digits = body + str(check)
    if draw(st.booleans()):
        return f"{digits[:3]}-{digits[3]}-{digits[4:7]}-{digits[7:12]}-{digits[12]}"
    return digits


@settings(max_examples=200, deadline=None)
@given(isbn13s(), st.sampled_from(["", "ISBN ", "the book "]))
def test_an_isbn_13_is_never_a_card(isbn, before):
    assert redact(f"{before}{isbn}") == f"{before}{isbn}"


@settings(max_examples=200, deadline=None)
@given(card_numbers(), st.sampled_from(["order", "Order no.", "invoice", "tracking number", "ISBN", "phone"]))
def test_a_card_shaped_number_after_a_keyword_naming_something_else_stays(card, keyword):
    typed, _ = card
    assert redact(f"{keyword} {typed}") == f"{keyword} {typed}"
    assert redact(typed, context=f"{keyword}Number") == typed


@settings(max_examples=100, deadline=None)
@given(st.dates(), st.sampled_from(["%Y-%m-%d", "%d/%m/%Y", "%m-%d-%Y", "%d %B %Y", "%Y%m%d", "%d.%m.%Y"]))
def test_dates_stay(day, shape):
    text = f"on {day.strftime(shape)} we met"
    assert redact(text) == text


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(["+44 7700 9", "07700 9", "+1 415 55", "(212) 55", "0161 49"]), st.integers(0, 99999))
def test_phone_numbers_stay(start, rest):
    text = f"ring {start}{rest:05d} tonight"
    assert redact(text) == text


# --- the function's own properties ----------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_redacting_twice_changes_nothing_more(text):
    once = redact(text)
    assert redact(once) == once


@settings(max_examples=100, deadline=None)
@given(card_numbers(), ssns(), st.sampled_from(sorted(Kind)))
def test_only_the_kinds_asked_for_are_redacted(card, ssn, kind):
    typed, _ = card
    text = f"card {typed} ssn {ssn} pw: hunter2 key ghp_16C7e42F292c6912E7710c838347Ae178B4a"
    redacted = Redactor(frozenset({kind}))(text)
    assert (typed not in redacted) == (kind is Kind.CARD)
    assert (ssn not in redacted) == (kind is Kind.SSN)
    assert ("hunter2" not in redacted) == (kind is Kind.PASSWORD)
    assert ("ghp_" not in redacted) == (kind is Kind.API_KEY)
    assert Redactor(frozenset())(text) == text


def test_lore_redact_names_kinds_all_or_none():
    assert parse_kinds("card, iban") == frozenset({Kind.CARD, Kind.IBAN})
    assert parse_kinds("all") == ALL_KINDS
    assert parse_kinds("none") == frozenset()
    with pytest.raises(ValueError, match="unknown kind phone"):
        parse_kinds("card,phone")


def test_a_service_and_the_gateway_read_lore_redact_and_refuse_an_unknown_kind_naming_the_variable():
    from gateway_svc.config import Settings as GatewaySettings
    from lore_runtime.settings import ServerSettings, SettingsError, load_settings

    base = {"LORE_SERVICE_TOKEN": "t" * 40, "LORE_DATABASE_URL": "postgresql://localhost/lore"}
    assert load_settings(ServerSettings, base).redact == ALL_KINDS
    assert load_settings(ServerSettings, {**base, "LORE_REDACT": "none"}).redact == frozenset()
    assert load_settings(GatewaySettings, {**base, "LORE_REDACT": "card,ssn"}).redact == {Kind.CARD, Kind.SSN}
    with pytest.raises(SettingsError, match=r"LORE_REDACT: .*unknown kind phone"):
        load_settings(ServerSettings, {**base, "LORE_REDACT": "card,phone"})


# Integers shorter than a card number: a 13-19 digit number that passes Luhn's check beside the word
# "card" is meant to be redacted, wherever it stands, so it would not stay the same on both sides.
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**12), 10**12) | st.text(max_size=40),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)
SAID_SECRETS = st.sampled_from(
    [
        'my password is "two words"',
        "pw: hunter2",
        "card 4242 4242 4242 4242",
        "key ghp_16C7e42F292c6912E7710c838347Ae178B4a",
        "ssn 123-45-6789",
        "IBAN GB82 WEST 1234 5698 7654 32",
    ]
)


@settings(max_examples=300, deadline=None)
@given(JSON_VALUES, SAID_SECRETS, st.booleans(), st.sampled_from(["\n", "\t", '"', "\\", " ", ""]))
def test_json_kept_as_text_stays_the_same_json_with_placeholders(document, said, compact, around):
    """A LangGraph value is JSON kept in metadata: redacting it never breaks it or another value."""
    value = {"before": document, "said": f"{around}{said}{around}", "after": document}
    separators = (",", ":") if compact else (", ", ": ")
    redacted = json.loads(redact(json.dumps(value, separators=separators)))
    assert redacted["before"] == redacted["after"]
    for raw in ("two words", "hunter2", "4242 4242", "ghp_16C7", "123-45-6789", "GB82 WEST"):
        assert raw not in redacted["said"]


@pytest.mark.parametrize(
    ("key", "value", "kept"),
    [
        ("password", "x1", "[password]"),
        ("wifiPassword", "blue fox", "[password]"),
        ("pin", "4821", "[password]"),
        ("apiKey", "abc", "[API key]"),
        ("access_token", "short", "[API key]"),
        ("spinach", "leaf", "leaf"),
        ("orderNumber", "4111111111111111", "4111111111111111"),
    ],
)
def test_a_value_under_a_key_naming_a_credential_is_one_whatever_it_looks_like(key, value, kept):
    assert redact(value, context=key) == kept


# --- a password or key said the way people say them -----------------------------------------------------

SAID_PLAINLY = [
    # the label straight before the value
    ("password Kettle77", "password [password]"),
    ("pw b1ue-fox, don't share it", "pw [password], don't share it"),
    ("the passcode 4471 opens the side door", "the passcode [password] opens the side door"),
    ("the garage PIN's 0915", "the garage PIN's [password]"),
    ("the alarm passcode's 7720#", "the alarm passcode's [password]"),
    # the value in the next sentence
    ("I'll text you the wifi password. It's Gr33n-Tea!", "I'll text you the wifi password. It's [password]!"),
    ("That's my PIN for the locker. It is 5512.", "That's my PIN for the locker. It is [password]."),
    ("You wanted the router password? Here it is: Ma9pie&Co", "You wanted the router password? Here it is: [password]"),
    ("Need my passcode for the shed? It's 'lark 33'.", "Need my passcode for the shed? It's '[password]'."),
    # bare labels
    ("pass: m00nRiver", "pass: [password]"),
    ("user ana, pass=Qx7-vv", "user ana, pass=[password]"),
    # a PIN, with a sign, a verb or neither
    ("my PIN is 2291", "my PIN is [password]"),
    ("pin 2291", "pin [password]"),
    ("PIN: 2291", "PIN: [password]"),
    ("the bike lock's pin code - 2291", "the bike lock's pin code - [password]"),
    # dashes
    ("email password - Orchid5", "email password - [password]"),
    ("email password -- Orchid5", "email password -- [password]"),
    ("email password — Orchid5", "email password — [password]"),
    ("email password – Orchid5", "email password – [password]"),
    ("email password—Orchid5", "email password—[password]"),
    # a double quote inside the password
    ('my password is Sun"Flower9', "my password is [password]"),
    ('the password is "5un"set" now', 'the password is "[password]" now'),
]


@pytest.mark.parametrize(("said", "kept"), SAID_PLAINLY)
def test_a_password_said_without_a_separator_in_the_next_sentence_or_after_a_dash_is_replaced(said, kept):
    assert redact(said) == kept


SHORT_KEYS = [
    ("my API key is Qm7xT2vLp9", "my API key is [API key]"),
    ("the Mailgun key is k3yZ8pQ1wx", "the Mailgun key is [API key]"),
    ("here's my api key Qm7xT2vLp9 for the script", "here's my api key [API key] for the script"),
    ("the staging key for the billing service: Pq8sW3eR5t", "the staging key for the billing service: [API key]"),
    ("key: Zt4qP9wLm2", "key: [API key]"),
    ("secret: 77hqLwx9Pe", "secret: [API key]"),
    ("token - r8Tq2LmZ0s", "token - [API key]"),
    ("the access token's r8Tq2LmZ0s", "the access token's [API key]"),
]


@pytest.mark.parametrize(("said", "kept"), SHORT_KEYS)
def test_a_short_key_in_no_known_format_is_replaced_when_stated_as_a_key(said, kept):
    assert redact(said) == kept


PLAIN_ALPHABET = string.ascii_letters + string.digits


@st.composite
def said_passwords(draw) -> str:
    """A password as people make them: letters, a digit, then letters, digits and symbols."""
    head = draw(st.text(string.ascii_letters, min_size=2, max_size=8))
    tail = draw(st.text(PLAIN_ALPHABET + "!@#$%^&*_+=~-", max_size=12))
    last = draw(st.sampled_from(PLAIN_ALPHABET))
    return f"{head}{draw(st.sampled_from(string.digits))}{tail}{last}"


PASSWORD_LABELS = st.sampled_from(
    [
        "password", "pw", "passcode", "PIN", "my password is", "password:", "pass:", "password -",
        "password —", "the wifi password's", "the door code passcode", "Password =",
    ]
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(said_passwords(), PASSWORD_LABELS, FILLER, AFTER)
def test_any_password_after_any_label_is_replaced(password, label, before, after):
    assert redact(f"{before}{label} {password}{after}") == f"{before}{label} [password]{after}"


@st.composite
def short_keys(draw) -> str:
    """A generated key under 32 characters: lower case, upper case and digits in turn, then anything."""
    parts = [draw(st.text(alphabet, min_size=1, max_size=3)) for alphabet in (string.ascii_lowercase, string.digits)]
    parts += [draw(st.text(string.ascii_uppercase, min_size=1, max_size=3)), draw(st.sampled_from(string.digits))]
    return "".join(parts) + draw(st.text(PLAIN_ALPHABET, min_size=4, max_size=20))


@settings(max_examples=200, deadline=None)
@given(
    short_keys(),
    st.sampled_from(["my API key is", "api key:", "the Twilio key is", "key:", "here's my access token", "secret ="]),
    FILLER,
    AFTER,
)
def test_any_short_key_stated_as_a_key_is_replaced(key, label, before, after):
    assert redact(f"{before}{label} {key}{after}") == f"{before}{label} [API key]{after}"


ORDINARY_WORDS_AFTER_A_LABEL = [
    "my password manager is great",
    "I forgot my password again",
    "Can you send me a password reset link?",
    "the key to success is patience",
    "pin the tweet",
    "Can you pin the recipe to the top of the chat?",
    "the PIN pad at the shop was broken",
    "My password is the one thing I always forget.",
    "my password is 8 characters long",
    "I changed my password 3 times this year.",
    "The password for the wifi is on the fridge.",
    "I forgot my password. It's annoying.",
    "I reset my password. It's 10pm now and I'm done.",
    "I changed my PIN last week. It's 2024 and banks still send letters.",
    "password (the new one) works",
    "Key: 2024-03-15 is the deadline.",
    "The key to the shed is under the mat.",
    "The key for room 12 is at reception.",
    "My key lime pie uses 4 limes.",
    "Pass the salt: it's on the left.",
    "Boarding pass: BA2490, seat 14C.",
    "my bus pass: 2024-25",
    "The secret is practice, 20 minutes a day.",
    "the token is ready, the pw reset too",
    "api key rotation is on Friday",
    "API key rotation2024 is planned for Python3 services",
    "Can you pin 2024 goals to the top?",
    "my password — never mind, I'll type it myself",
    "the key for the Airbnb is in lockbox 4471",
]


@pytest.mark.parametrize("text", ORDINARY_WORDS_AFTER_A_LABEL)
def test_ordinary_words_counts_and_dates_after_a_credential_word_are_not_secrets(text):
    assert redact(text) == text


@pytest.mark.parametrize("number", ["4242424242424242", "-4988086818973155"])
def test_a_number_in_json_kept_as_text_leaves_it_json(number):
    document = json.dumps({"amount": int(number), "note": "pw b1ue-fox"})
    assert json.loads(redact(document))["note"] == "pw [password]"
    assert json.loads(redact(document))["amount"] in (int(number), "[card ending 4242]")


# --- a password of letters only, or a PIN like a year, said with no verb ---------------------------------

SAID_WITHOUT_A_VERB = [
    ("wifi password sunflower", "wifi password [password]"),
    ("Password bluebird.", "Password [password]."),
    ("username jsmith password bluebird", "username jsmith password [password]"),
    ("the router password marmalade, thanks", "the router password [password], thanks"),
    ("password is: sunflower", "password is: [password]"),
    ("password -> sunflower", "password -> [password]"),
    ("password → sunflower", "password → [password]"),
    ("passphrase: correct horse battery staple", "passphrase: [password]"),
    ("My passphrase is still purple monkey dishwasher.", "My passphrase is still [password]."),
    ("my PIN 1987", "my PIN [password]"),
    ("pin 1987", "pin [password]"),
    ("PIN 1987 for the debit card", "PIN [password] for the debit card"),
    ("bank pin 1987, please remember it", "bank pin [password], please remember it"),
    ("pin no. 1987", "pin no. [password]"),
    ("the garage passcode 1999.", "the garage passcode [password]."),
    ("That's my PIN. It's 1987.", "That's my PIN. It's [password]."),
    ("I was born in 1987 and my PIN is 1987", "I was born in 1987 and my PIN is [password]"),
    # asked and answered, said first, after a comma, qualified, bracketed, a door or alarm code
    ("The wifi password? Marmalade.", "The wifi password? [password]."),
    ("My card PIN? 1987.", "My card PIN? [password]."),
    ("Marmalade is my password.", "[password] is my password."),
    ("1987 is my PIN", "[password] is my PIN"),
    ("It's 1987, my PIN.", "It's [password], my PIN."),
    ("my pin, 1987", "my pin, [password]"),
    ("my email password is just marmalade", "my email password is just [password]"),
    ("pin (1987)", "pin ([password])"),
    ("the alarm code is 1987", "the alarm code is [password]"),
    ("door code 4821, thanks", "door code [password], thanks"),
]


@pytest.mark.parametrize(("said", "kept"), SAID_WITHOUT_A_VERB)
def test_a_password_of_letters_or_a_pin_like_a_year_said_with_no_verb_is_replaced(said, kept):
    assert redact(said) == kept


LOOK_ALIKES_OF_PLAIN_PASSWORDS = [
    "I was born in 1987.",
    "Born in 1987, raised in Leeds.",
    "Call me on 07700 900123; my order number is 1987 2291.",
    "ISBN 978-0-306-40615-7 came out in 1987.",
    "We met on 15/03/1987 and married in 1990.",
    "Pin 1987 photos to the board, please.",
    "Can you pin 2024 to the top of the list?",
    "I use a password manager.",
    "My password expired yesterday.",
    "I need to reset my password today.",
    "Send me the password reset link please.",
    "my passphrase is wrong",
    "the passphrase is too long to type every time.",
    "What's the wifi password?",
    "The PIN pad at the till was broken.",
    "That's my PIN. It's 2024, the year I opened the account, not the number.",
    "Patience is the password.",
    "What's the wifi password? I forgot it.",
    "That is my password",
    "My zip code is 94103 and the area code is 0161.",
    "The dress code is smart casual; promo code SAVE2024.",
    "The door code is broken again.",
    "Meeting at 1987, my time.",
]


@pytest.mark.parametrize("text", LOOK_ALIKES_OF_PLAIN_PASSWORDS)
def test_years_dates_phone_order_numbers_and_words_after_a_password_word_stay(text):
    assert redact(text) == text


@st.composite
def plain_words(draw) -> str:
    """A password of letters only, as people pick them: a made-up word of two to five syllables."""
    syllables = st.sampled_from(["ka", "lo", "mi", "ru", "te", "zo", "pa", "ne", "sun", "flo", "wer", "bir"])
    # "mine" is a word ("the wifi password mine"), not a password
    return draw(st.lists(syllables, min_size=2, max_size=5).map("".join).filter(lambda word: word != "mine"))


@settings(max_examples=200, deadline=None)
@given(
    plain_words(),
    st.sampled_from(["wifi password", "my password", "Password", "the router passcode", "email pw"]),
    st.sampled_from(["", ".", ", thanks", "!", "\nThat's all."]),
)
def test_any_word_after_a_password_label_that_ends_its_clause_is_replaced(word, label, after):
    assert redact(f"{label} {word}{after}") == f"{label} [password]{after}"


# --- slashes, underscores, spelled PINs, PEM blocks, dotted tokens; and what only looks like one ---------


@settings(max_examples=200, deadline=None)
@given(card_numbers(), st.sampled_from(["/", " / ", "_"]), FILLER, AFTER)
def test_a_card_number_grouped_by_slashes_or_underscores_goes(card, separator, before, after):
    _, digits = card
    sizes = {13: [4, 4, 5], 14: [4, 6, 4], 15: [4, 6, 5], 17: [4, 4, 4, 5], 18: [4, 4, 4, 6], 19: [4, 4, 4, 4, 3]}
    typed = grouped(digits, sizes.get(len(digits), [4, 4, 4, 4]), separator)
    assert redact(f"{before}{typed}{after}") == f"{before}[card ending {digits[-4:]}]{after}"


DIGIT_WORDS = ["zero", "oh", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.sampled_from(DIGIT_WORDS), min_size=4, max_size=8),
    st.sampled_from(["my pin is ", "PIN: ", "the alarm code is ", "my passcode's "]),
    st.sampled_from(["", ".", ", ok?"]),
)
def test_a_pin_read_out_as_words_goes_whole(words, label, after):
    assert redact(f"{label}{' '.join(words)}{after}") == f"{label}[password]{after}"


@settings(max_examples=200, deadline=None)
@given(
    st.one_of(
        st.tuples(*[st.integers(0, 255)] * 4).map(lambda parts: ".".join(map(str, parts))),
        st.tuples(st.integers(1, 28), st.integers(1, 12), st.integers(1900, 2099)).flatmap(
            lambda d: st.sampled_from(
                [f"{d[0]:02}/{d[1]:02}/{d[2]}", f"{d[2]}/{d[1]:02}/{d[0]:02}", f"{d[2]}.{d[1]}.{d[0]}"]
            )
        ),
        st.tuples(*[st.integers(0, 99)] * 3, st.integers(0, 9999)).map(lambda v: "v{}.{}.{}.{}".format(*v)),
        st.lists(st.integers(0, 9999), min_size=2, max_size=3).map(lambda v: "/".join(f"{n:04}" for n in v)),
    ),
    st.sampled_from(["the address is ", "it happened on ", "version ", "we moved it to ", ""]),
)
def test_addresses_dates_versions_and_short_slashed_numbers_stay(value, before):
    assert redact(f"{before}{value} today") == f"{before}{value} today"


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.text(alphabet=string.ascii_letters + string.digits + "+/", min_size=8, max_size=64), min_size=1, max_size=6
    )
)
def test_a_pem_private_key_block_goes_whole(lines):
    block = "-----BEGIN PRIVATE KEY-----\n" + "\n".join(lines) + "\n-----END PRIVATE KEY-----"
    assert redact(f"my key:\n{block}\nthanks") == "my key:\n[private key]\nthanks"


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet=string.ascii_lowercase, min_size=4, max_size=10), min_size=3, max_size=5))
def test_a_dotted_name_of_lower_case_words_is_no_token(parts):
    name = ".".join(parts)
    assert redact(f"open {name} please") == f"open {name} please"


def test_a_random_dotted_token_goes_and_a_long_dotted_version_stays():
    pick = random.Random(7)
    token = "".join(pick.choice(string.ascii_letters + string.digits) for _ in range(30))
    dotted = ".".join(token[i : i + 10] for i in range(0, 30, 10))
    assert redact(f"put {dotted} in the header") == "put [API key] in the header"
    assert redact("build 2026.1129.0154.4242.1234 shipped") == "build 2026.1129.0154.4242.1234 shipped"


# --- secrets known by their shape: unlabelled passwords, seed phrases, backup and one-time codes, sessions

# Random words that are no credential label themselves ("aaa_pin=0" names a PIN: it is redacted).
LABELS = (
    "pin",
    "pass",
    "pwd",
    "key",
    "token",
    "secret",
    "code",
    "otp",
    "auth",
    "cred",
    "login",
    "cookie",
    "seed",
    "cvv",
    "cvc",
)
WORDS = st.text(alphabet=string.ascii_lowercase, min_size=3, max_size=8).filter(
    lambda word: not any(label in word for label in LABELS)
)


@st.composite
def password_shaped(draw) -> str:
    """One word mixing letters, digits and a symbol inside it ("Kettle!42", "gr33n*Lamp")."""
    letters = draw(st.text(alphabet=string.ascii_letters, min_size=3, max_size=8))
    digits = draw(st.text(alphabet=string.digits, min_size=1, max_size=4))
    symbol = draw(st.sampled_from("!%^&*?~#|"))
    tail = draw(st.text(alphabet=string.ascii_letters + string.digits, min_size=3, max_size=6))
    return draw(st.sampled_from([f"{letters}{symbol}{digits}{tail}", f"{letters}{digits}{symbol}{tail}"]))


@settings(max_examples=200, deadline=None)
@given(
    password_shaped(),
    st.sampled_from(["use {}", "try {} for the router", "just type {} when it asks", "{} is the admin login"]),
)
def test_a_password_shaped_word_beside_a_credential_word_is_replaced(token, said):
    redacted = redact(said.format(token))
    assert redacted == said.format("[password]")
    assert token not in redacted


@st.composite
def generated_passwords(draw) -> str:
    """What a password generator writes: upper and lower case, digits and symbols, the class changing
    at almost every character."""
    classes = [string.ascii_uppercase, string.ascii_lowercase, string.digits, "#%^&*~|!?"]
    groups = draw(st.lists(st.permutations(classes), min_size=3, max_size=4))
    chars = [draw(st.sampled_from(alphabet)) for group in groups for alphabet in group]
    return "".join(chars) + draw(st.sampled_from(string.ascii_lowercase))


@settings(max_examples=200, deadline=None)
@given(generated_passwords())
def test_a_generated_password_alone_is_replaced(token):
    assert redact(f"{token} ok") == "[password] ok"


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.tuples(*[st.integers(0, 30)] * 4).map(lambda v: "v{}.{}.{}-rc{}".format(*v)),
        st.tuples(WORDS, st.integers(1, 9)).map(lambda v: f"{v[0]}_v{v[1]}_final.docx"),
        st.tuples(WORDS, st.integers(0, 9999)).map(lambda v: f"{v[0]}{v[1]}@example.com"),
        st.tuples(WORDS, *[st.integers(0, 30)] * 3).map(lambda v: "{}@{}.{}.{}".format(*v)),
        st.tuples(WORDS, WORDS, st.integers(0, 9999)).map(lambda v: "{}_{}={}".format(*v)),
        st.tuples(WORDS, st.integers(0, 9999)).map(lambda v: f"#{v[0].title()}{v[1]}"),
        st.tuples(WORDS, st.integers(0, 9999)).map(lambda v: f"@{v[0]}_{v[1]}"),
        st.text(alphabet="0123456789abcdef", min_size=6, max_size=6).map(lambda v: f"#{v}"),
        st.text(alphabet="0123456789abcdef", min_size=40, max_size=40),
        st.sampled_from(["C++17", "C++20", "R2-D2", "SKU-4471-B", "BA2490", "9:30am", "#ff8800", "US$1,299.99"]),
        st.tuples(WORDS, st.integers(0, 99)).map(lambda v: f"https://example.com/{v[0]}?page={v[1]}&lang=en"),
    ),
    st.sampled_from(["use {} for the account", "try {}", "the router said {}", "log in after {} ships"]),
)
def test_versions_files_addresses_settings_tags_colours_and_hashes_beside_a_credential_word_stay(value, said):
    assert redact(said.format(value)) == said.format(value)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(WORDS, min_size=12, max_size=24),
    st.sampled_from(["my seed phrase is ", "recovery phrase: ", "the wallet's mnemonic: ", "seed words are "]),
)
def test_a_seed_phrase_after_its_label_goes_whole(words, label):
    assert redact(f"{label}{' '.join(words)}.") == f"{label}[password]."


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.tuples(st.integers(1000, 9999), st.integers(1000, 9999)).map(lambda v: f"{v[0]}-{v[1]}"),
            st.text(alphabet=string.ascii_lowercase + string.digits, min_size=8, max_size=8).filter(
                lambda v: any(c.isdigit() for c in v)
            ),
        ),
        min_size=1,
        max_size=6,
    ),
    st.sampled_from(["my backup codes are ", "2FA recovery codes: ", "recovery code: "]),
    st.sampled_from([", ", " ", "; "]),
)
def test_every_backup_or_recovery_code_in_a_list_is_replaced(codes, label, separator):
    assert redact(f"{label}{separator.join(codes)}") == label + separator.join(["[password]"] * len(codes))


@settings(max_examples=100, deadline=None)
@given(
    st.text(alphabet=string.digits, min_size=4, max_size=8),
    st.sampled_from(["OTP ", "my verification code is ", "the 2fa code: ", "one-time code ", "SMS code - "]),
)
def test_a_one_time_code_is_a_password(code, label):
    assert redact(f"{label}{code}, quick") == f"{label}[password], quick"


@settings(max_examples=100, deadline=None)
@given(
    st.sampled_from(["sid", "PHPSESSID", "JSESSIONID", "connect.sid", "laravel_session", "session_id", "sessionid"]),
    st.text(alphabet=string.ascii_letters + string.digits + "%-_", min_size=16, max_size=48),
    st.sampled_from(["{}", "Cookie: theme=dark; {}; lang=en", "set {} in the browser"]),
)
def test_a_session_cookies_value_becomes_its_placeholder(name, value, said):
    assert redact(said.format(f"{name}={value}")) == said.format(f"{name}=[session token]")


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("the pass is swordfish", "the pass is [password]"),
        ("My wifi pass is pelican.", "My wifi pass is [password]."),
        ("the code is hunter two", "the code is [password]"),
        ("the bus pass is expired", "the bus pass is expired"),
        ("The pass is free.", "The pass is free."),
        ("the mountain pass is closed", "the mountain pass is closed"),
        ("my boarding pass is on my phone", "my boarding pass is on my phone"),
        ("the code is on the fridge", "the code is on the fridge"),
        ("OTP is short for one-time password", "OTP is short for one-time password"),
        ("the confirmation code is K7X9QZ", "the confirmation code is K7X9QZ"),
        ("the session was great, sid=Sidney", "the session was great, sid=Sidney"),
    ],
)
def test_a_word_after_pass_is_or_code_is_is_a_password_unless_it_names_a_tickets_state(said, kept):
    assert redact(said) == kept

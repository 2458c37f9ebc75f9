"""Secrets out of text: what a user types that Lore must never keep becomes a typed placeholder.

``redact(text)`` replaces, wherever they stand in free text:

- **card** — a payment card number: 13 to 19 digits, grouped by spaces (one or two), dashes (an en
  or em dash too, spaces around it or not) or dots, slashes or underscores (groups of three to six
  digits) or not at all,
  Luhn-valid and starting with a card issuer's prefix (IIN ranges of Visa, Mastercard, Amex,
  Discover, Diners, JCB, UnionPay, Maestro, Mir, RuPay), unless a keyword straight before it names
  something else (an order, invoice, ISBN, phone, tracking or booking number: "order 4111…", "the
  tracking number is …"; not "for the order, use 4111…"). After "card",
  "visa", "credit", "debit" and the like, any Luhn-valid number counts. ``[card ending 4242]``.
  The card's security code after "CVV", "CVC", "CSC" or "card security code" goes with it:
  ``[card security code]``.
- **iban** — an IBAN of a known country, of that country's length, with a valid mod-97 check
  digit pair, in groups of four (by spaces, dashes or dots) or not, in any case. ``[IBAN ending 1234]``.
- **password** — a value stated as a password (also "pw", "pwd", "p/w", "psswd", "pass is"), passphrase,
  passcode or PIN (a PIN is a password: it opens a card, a phone or a door) after a verb or a sign
  ("my password is …", "pw: …", "pass: …", "PIN — …", "password -> …", "the wifi passcode for the
  cabin is …", "changed my password to …"), straight after the label ("password Kettle77", "pin 2291")
  or in the next sentence ("… my wifi password. It's …") when it looks like one (four or more digits,
  or a word with a digit or a symbol), and the password of a URL's user-info (``https://user:…@host``).
  Said straight after a label that is a noun there ("my PIN …", "wifi password …", a label opening
  its clause; not "can you pin …") and ending its clause, a word of letters is one too ("wifi password
  sunflower"; not "password manager", "password again") and so are four digits like a year ("PIN
  1987"); a year alone as the next sentence ("That's my PIN. It's 1987.") as well. Also the label
  asked and answered ("The wifi password? Marmalade."), one's own value said first ("Marmalade is my
  password", "1987, my PIN"), after a comma ("my PIN, 1987") or after "just"/"literally", and the
  digits of a door, alarm, gate or lock code or of "the code to my phone", a lock's combination
  ("the safe combination is 12-34-56"), the password of a login given with its user ("login:
  jane@example.com / …", "creds: admin / …"), an environment line (``DB_PASSWORD=…``), a wifi or
  network code or key ("the wifi code is …", "the code for the wifi is …"), the label's own clause
  or an aside before the verb ("the password I use for everything is …", "the password, by the way,
  is …"), "the word '…'", one's own value before a comma and its label ("It's Kettle77, my
  password") and a value to log in with ("use Kettle77 to log in"). A passphrase's words go to the
  clause's end. A PIN or code read out as four or more digit words ("four four one seven") goes whole,
  and after "pass:" or "pass=" a single word ending its clause is one ("pass: swordfish"), after "pass
  is" one that is not a state a ticket or a road is in ("the pass is swordfish"; not "the pass is valid",
  "the mountain pass is closed", "the bus pass is expired"). A password spelled with number words ("the
  code is hunter two"). By its shape alone, one word mixing letters, digits and a symbol inside it, eight
  characters or more ("p@ssw0rd!23"), near a credential word ("use …", "try … for the router", "the
  admin login is …") or anywhere when it changes between lower and upper case, digits and symbols like
  a generated password; never a path, a URL, an email address, a package's version (``lodash@4.17.21``),
  a setting (``max_connections=200``), an amount, a query string, a tag (``#Summer2024``, ``@handle``) or
  code. A wallet's seed or recovery phrase (twelve to twenty-four words after its label), each of an
  account's 2FA backup or recovery codes, and a one-time code (OTP, 2FA, verification or SMS code: a
  password while it is valid) too. The value alone becomes ``[password]``.
- **api_key** — common key and token formats (``sk-…``, ``sk_live_…``, ``ghp_…``, ``github_pat_…``,
  ``glpat-…``, ``xox?-…``, ``AKIA…``, ``AIza…``, ``hf_…``, ``npm_…``, SendGrid keys, JWTs, Shopify,
  DigitalOcean, Stripe webhook, PyPI, Google OAuth, Mailgun and Telegram bot tokens, a Slack webhook's
  path), the token after ``Bearer``/``Basic`` (in lower case, one mixing like a generated key), a
  value stated as an API key, token, secret or key, an environment line's too
  (``AWS_SECRET_ACCESS_KEY=…``; after a bare "key", "token" or "secret" or with no verb or sign, one
  alternating cases and digits like a generated key), and any long high-entropy string (32+
  characters of base64 or base62 mixing upper and lower case and digits, changing character class
  often: a random key, not a word, a path or a hex hash), or such a string of 24+ characters cut into
  three or more runs by dots (a session or bot token; not a version, a host or a file name).
  ``[API key]``. A session's value (``sid=…``, ``PHPSESSID=…``, ``connect.sid=…``, "the session cookie
  is …", a ``Cookie:`` header's session or generated-looking values): ``[session token]``. A PEM
  private key block (``-----BEGIN … PRIVATE KEY-----`` to its END line, or to where its base64 stops
  when cut off) goes whole: ``[private key]``.
- **ssn** — a US social security number or taxpayer number (ITIN, area 9xx), ``123-45-6789``,
  ``123 45 6789`` or ``123.45.6789`` (area not 000 or 666; group not 00; serial not 0000: after
  "SSN", "ITIN", "social" or "social security" any such number is one), or nine digits after one of
  those labels. ``[SSN]``.
- **nino** — a UK National Insurance number (``AB 12 34 56 C``, ``AB-12-34-56-C``, ``AB123456C``: the
  prefix letters the scheme allows, or QQ, the prefix of HMRC's printed example), in capitals, or
  any two letters in any case next to "national insurance", "NI number" or "NI is". ``[NI number]``.

Phone numbers, order and tracking numbers, ISBNs, dates, version strings and identifiers (UUIDs,
commit hashes, checksums: they name a thing, they open nothing) are not secrets and stay as they are:
a phone number or a date has too few digits or the wrong shape, an ISBN-13 starts with 978/979 (no issuer's
prefix), and a keyword before a number (order, ISBN, phone, …) keeps it. Placeholders never match
a rule, so ``redact`` is idempotent. Pure: no I/O; ``LORE_REDACT`` names the kinds
(``parse_kinds``), every kind by default.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from itertools import pairwise


class Kind(StrEnum):
    CARD = "card"
    IBAN = "iban"
    PASSWORD = "password"
    API_KEY = "api_key"
    SSN = "ssn"
    NINO = "nino"


ALL_KINDS = frozenset(Kind)
NONE = "none"
ALL = "all"

PASSWORD = "[password]"
API_KEY = "[API key]"
SSN = "[SSN]"
NINO = "[NI number]"
CARD_CODE = "[card security code]"


def card_placeholder(digits: str) -> str:
    return f"[card ending {digits[-4:]}]"


def iban_placeholder(iban: str) -> str:
    return f"[IBAN ending {iban[-4:]}]"


def parse_kinds(value: object) -> object:
    """``LORE_REDACT``'s text as kinds: comma-separated names (``card,iban,password,api_key,ssn,nino``),
    ``all`` for every kind, ``none`` (alone) for none. An unknown name is a ``ValueError`` naming the
    known ones. Anything but a string is handed on as it is (pydantic validates it)."""
    if not isinstance(value, str):
        return value
    names = [part.strip().lower() for part in value.split(",") if part.strip()]
    if names == [NONE]:
        return frozenset()
    if not names or names == [ALL]:
        return ALL_KINDS
    known = {kind.value for kind in Kind}
    unknown = [name for name in names if name not in known]
    if unknown:
        raise ValueError(
            f"unknown kind {', '.join(unknown)}: name some of {', '.join(sorted(known))}, or 'all', or 'none'"
        )
    return frozenset(Kind(name) for name in names)


# --- the rules -------------------------------------------------------------------------------------

_Span = tuple[int, int, str]  # start, end, replacement
_WINDOW = 48  # characters before a number searched for the keyword that says what it is

# The nearest of these before a number says what it is: a card, or something that is not a secret.
_NUMBER_KEYWORDS = re.compile(
    r"\b(?:(?P<card>card|cards|visa|mastercard|master\s?card|amex|american\s+express|discover|maestro|"
    r"credit|debit|cc|pan)|(?P<other>order|orders|invoice|isbn|isbn-?1[03]|phone|telephone|tel|mobile|"
    r"cell|fax|call|text|whatsapp|tracking|parcel|shipment|reference|ref|booking|confirmation|ticket|"
    r"reservation|serial|imei|item|sku|product|customer|member|membership|loyalty|policy|account\s+id|"
    r"isin|ean|upc|barcode))\b",
    re.IGNORECASE,
)
# Between a keyword and the number it labels: "number", "no.", "#", a colon, "is".
_LABELS_IT = re.compile(
    r"\s*(?:(?:number|numbers|no\.?|num|nr|#|id|ref|reference|code)\s*)*(?:[:#=,-]\s*|(?:is|was|are)\s+(?::\s*)?)?",
    re.IGNORECASE,
)
_CAMEL = re.compile(r"([a-z0-9])([A-Z])")
_ACRONYM = re.compile(r"([A-Z]+)([A-Z][a-z])")
# A minus sign before the digits makes them a negative number (JSON kept as text), not a card.
# Between two digits of a card: nothing, one or two spaces, or a dash, en dash, em dash or dot with
# a space or two around it at most.
_CARD_SEPARATOR = r"(?:[ \t]{0,2}[-\u2013\u2014./_][ \t]{0,2}|[ \t]{1,2})?"
_CARD = re.compile(rf"(?<![\w+.,/-])\d(?:{_CARD_SEPARATOR}\d){{12,18}}(?![\w/]|[.,]\d)")
_CARD_SEPARATORS = re.compile(r"\D+")
# A card's security code, which no one may keep either (``[card security code]``).
_CARD_CODE = re.compile(
    r"\b(?:cvv2?|cvc2?|csc|card\s+(?:verification|security)\s+(?:code|value|number))"
    r"(?:\s+(?:code|number|no\.?|#))?(?:\s*[:=#]\s*|\s+(?:is|was)\s+(?::\s*)?|['\u2019]s\s+|\s+)(?P<bare>\d{3,4})(?![\d,.]\d|\w)",
    re.IGNORECASE,
)
_SSN = re.compile(r"(?<![\w.-])(\d{3})([- .])(\d{2})\2(\d{4})(?![\w-]|\.\d)")
_SSN_LABEL = r"(?:ssn|ss#|ss\s+(?:number|no\.?)|itin|social(?:\s+security)?(?:\s+(?:number|no\.?|#))?)(?:\b|(?<=#))"
_SSN_LABELLED = re.compile(rf"\b{_SSN_LABEL}\W{{0,12}}(?:is\s+|was\s+)?(\d{{9}})(?!\w)", re.IGNORECASE)
_SSN_KEYWORD = re.compile(rf"\b{_SSN_LABEL}|\btax(?:payer)?\s+(?:id|identification)\b", re.IGNORECASE)
_NINO_SHAPE = r"([A-Z]{2})[ -]?(\d{2})[ -]?(\d{2})[ -]?(\d{2})[ -]?([A-D])"
_NINO = re.compile(rf"(?<![A-Za-z0-9]){_NINO_SHAPE}(?![A-Za-z0-9])")
_NINO_ANY_CASE = re.compile(rf"(?<![A-Za-z0-9]){_NINO_SHAPE}(?![A-Za-z0-9])", re.IGNORECASE)
# The prefix letters the scheme allows, and QQ, the prefix of the number HMRC prints as its example.
_NINO_PREFIX = re.compile(r"[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z]|QQ")
_NINO_KEYWORD = re.compile(
    r"\b(?:national\s+insurance|ni\s+(?:number|no)|nino)\b|\bni\b(?=\s*(?:is\b|[:#=-]))", re.IGNORECASE
)
_NINO_REFUSED_PREFIXES = frozenset({"BG", "GB", "KN", "NK", "NT", "TN", "ZZ"})
_IBAN = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]{2}\d{2}(?:[ .-]?[A-Za-z0-9]){10,32}")

# A stated value: quoted (a closing quote is one followed by a space, punctuation or the end, so a quote
# inside the value stays in it) or bare (a quote inside a bare value too, but not one ending it or
# followed by JSON's punctuation: JSON kept as text stays JSON).
_VALUE = (
    r"(?:\"?\"(?P<dq>[^\n]{1,128}?)\"(?=[\s.,;:!?)\]}\"'\\]|$)|'(?P<sq>[^'\n]{1,128})'|`(?P<bq>[^`\n]{1,128})`"
    r"|(?P<bare>[^\s\"]{1,128}(?:\"[^\s\",:;}\]\\]{1,64})*))"
)
# The signs between a label and its value: an arrow, a colon, an equals sign, a dash, an en or em dash.
_SIGN = r"\s*(?:->|=>|\u2192)\s*|\s*[:=]\s*|\s*[\u2013\u2014]\s*|\s+-{1,2}\s+"
_PASSWORD_LABEL = (
    r"(?:pass(?:word|wd|phrase|code)s?|pass\s+phrase|ps?swd|pwd|pw|p/w|pword|pin(?:\s+(?:code|number|no\.|#))?"
    r"|(?:wi-?fi|wlan|wpa2?|network|router)\s+(?:code|key)|code\s+(?:for|to|of)\s+(?:the|my|our)\s+(?:wi-?fi|router|network))"
)
# A value stated as a password: the label, what it is for, the verb or sign, then the value.
_PASSWORD = re.compile(
    rf"(?<![A-Za-z0-9]){_PASSWORD_LABEL}"
    r"(?:\s+(?:for|to|of|on|at)(?:\s+[\w.@'-]+){1,6}?"
    r"|\s+(?:that\s+)?(?:i|we)\s+(?:use|used|have|chose|picked|set|made|gave\s+you)(?:\s+[\w.@'-]+){0,4}?)?"
    r"(?:\s*,\s*(?:by the way|btw|fyi|for the record|just so you know|if you need it|in case you need it)\s*,)?"
    rf"(?:{_SIGN}|['\u2019]s\s+|\s+(?:is|was|is\s+now|will\s+be|has\s+been\s+changed\s+to)(?:\s*:)?\s+(?:(?:still|now|just|literally|simply|only|actually|currently)\s+)?)"
    r"(?:the\s+(?:word|phrase|name)\s+)?" + _VALUE,
    re.IGNORECASE,
)
# The label straight before its value ("password hunter2", "pin 4471"): the value must look like one.
_PASSWORD_UNMARKED = re.compile(rf"\b{_PASSWORD_LABEL}\s+{_VALUE}", re.IGNORECASE)
# "pass" alone as a label ("pass: …"), unless the word before makes it a ticket ("boarding pass: …").
_PASS_LABELLED = re.compile(
    rf"(?:\b(?P<before>[a-z]+)\s+)?\b(?P<pass>pass)(?:\s*[:=]\s*|['\u2019]s\s+|\s+(?:is|was)\s+){_VALUE}", re.IGNORECASE
)
# A login's user and password together ("login: jane@example.com / Kettle77", "creds are admin:Kettle77").
_LOGIN_PAIR = re.compile(
    r"\b(?:login|log-in|logon|sign-in|credentials|creds)(?:\s+(?:details|info))?(?:\s+(?:is|are)\s+|\s*[:=-]\s*)"
    r"(?P<user>[^\s/,;:]{2,64})\s*(?:/|:|,)\s*" + _VALUE,
    re.IGNORECASE,
)
_NOT_A_CREDENTIAL_PASS = frozenset(
    """boarding bus rail train travel season day week weekend guest press backstage hall ski lift gym
    park parking festival visitor visitors access all-access vip free bike museum mountain alpine high
    narrow annual monthly yearly student family rover national hall-pass""".split()
)
# What a pass is when it is a ticket or a road ("the pass is free", "the pass is closed").
_PASS_STATES = frozenset(
    """free valid invalid gone open closed shut steep narrow cheap dear pricey included digital paper
    printed plastic yours ours theirs his hers mine useless worthless great fine good full void active
    inactive due late blue red green gold silver black white""".split()
)
_STATE_ENDINGS = ("ed", "ing", "ly", "able", "ible", "ful", "less", "ous", "ive", "al", "ic", "ent", "ant", "ary")


def _names_not_a_state(value: str) -> bool:
    """A word after "pass is" that can be a password: letters, not a state a ticket or a road is in."""
    lower = value.lower()
    return (
        value.isalpha()
        and len(value) >= 4
        and lower not in _PASS_STATES
        and lower not in _NOT_A_VALUE
        and not lower.endswith(_STATE_ENDINGS)
    )


# A count the value is ("my password is 8 characters long"): no PIN has fewer than four digits.
_COUNT_AFTER = re.compile(
    r"\s+(?:characters?|chars|letters?|digits?|numbers?|symbols?|words?|long|times|days|weeks|months|years)\b",
    re.IGNORECASE,
)
# The value in the next sentence ("I'll give you my password. It's …", "… my PIN. Here it is: …").
_PASSWORD_NEXT = re.compile(
    rf"(?:\b(?:my|the|our|your)\s+(?:[\w'-]+\s+){{0,2}}|^\s*){_PASSWORD_LABEL}\b[^.!?\n]{{0,60}}[.!?:]\s+"
    r"(?:it['\u2019]s|it\s+is|here\s+it\s+is|here\s+you\s+go|here)\s*:?\s+" + _VALUE,
    re.IGNORECASE,
)
_PASSWORD_CHANGED = re.compile(
    r"\b(?:changed|set|reset|updated)\s+(?:my\s+|the\s+|our\s+)?(?:[\w.@'-]+\s+)?(?:password|passcode|pin)\s+to\s+"
    + _VALUE,
    re.IGNORECASE,
)
# The label asked and answered ("The wifi password? Sunflower.", "My PIN? 1987."): it must look like one.
_PASSWORD_ASKED = re.compile(rf"\b{_PASSWORD_LABEL}\?\s+{_VALUE}", re.IGNORECASE)
# The value said first ("Sunflower is my password", "use sunflower as the password", "1987, my PIN")
# or after a comma ("my PIN, 1987").
_PASSWORD_BEFORE = re.compile(
    r"(?:(?<![\w'])(?P<bare>[^\s\"]{4,64})\s+(?:is|was)\s+|\buse\s+(?P<used>[^\s\"]{4,64})\s+as\s+)"
    rf"(?P<det>my|the|our|a)\s+(?:[\w'-]+\s+){{0,2}}{_PASSWORD_LABEL}\b(?!\s+(?:for|to|of)\b)",
    re.IGNORECASE,
)
# One's own value, then its label after a comma ("It's Kettle77, my password."): it must look like one.
_VALUE_BY_COMMA = re.compile(
    rf"(?<![\w'])(?P<bare>[^\s\",]{{4,64}}),\s+(?:my|the|our)\s+(?:[\w'-]+\s+){{0,2}}{_PASSWORD_LABEL}\b",
    re.IGNORECASE,
)
# A value given to log in with ("use Kettle77 to log in"): it must look like one.
_TO_LOG_IN = re.compile(
    r"\b(?:use|try|it's|it\s+is)\s+(?P<bare>[^\s\"]{4,64})\s+to\s+(?:log\s*in|sign\s*in|unlock|get\s+in|connect)\b",
    re.IGNORECASE,
)
_PIN_BY_COMMA = re.compile(
    rf"(?<![\w'])(?P<bare>\d{{4,12}}),\s+(?:my|the|our)\s+(?:[\w'-]+\s+){{0,2}}{_PASSWORD_LABEL}\b"
    rf"|\b(?:my|the|our)\s+(?:[\w'-]+\s+){{0,2}}{_PASSWORD_LABEL},\s+(?P<after>\d{{4,12}})(?![\d,.]\d)",
    re.IGNORECASE,
)
# A PIN read out as words ("my pin is four four one seven"): four or more digit words in a row.
_DIGIT_WORD = r"(?:zero|oh|one|two|three|four|five|six|seven|eight|nine)"
_SPELLED_DIGITS = re.compile(rf"{_DIGIT_WORD}(?:(?:\s*[,-]\s*|\s+){_DIGIT_WORD}){{3,}}\b", re.IGNORECASE)
# A door, alarm or lock code: digits after the code's name ("the door code is 4821", "alarm code 1987").
_CODE = re.compile(
    r"(?:\b(?:door|alarm|gate|lock|safe|entry|access|garage|keypad|key\s?pad|locker|building|(?<!card\s)security|unlock)\s+code"
    r"(?:\s+(?:for|to|of|on|at)(?:\s+[\w.@'-]+){1,6}?)?"
    r"|\bcode\s+(?:for|to|of)\s+(?:my|the|our|his|her|their)\s+(?:[\w-]+\s+)?(?:phone|iphone|ipad|tablet|laptop|"
    r"computer|door|alarm|safe|lock|padlock|garage|gate|locker|keypad|building|flat|house|apartment|lockbox|"
    r"key\s?safe|key\s?box))"
    rf"(?:{_SIGN}|['\u2019]s\s+|\s+(?:is|was|is\s+now)\s+|\s+)"
    rf"(?P<bare>\d{{4,12}}|(?={_SPELLED_DIGITS.pattern}){_DIGIT_WORD})(?![\d,.]\d)",
    re.IGNORECASE,
)
# A lock's combination: digits, or numbers with dashes or spaces ("the safe combination is 12-34-56").
_COMBINATION = re.compile(
    r"(?:\b(?:lock|safe|padlock|locker|suitcase)\s+(?:combination|combo)"
    r"|\b(?:combination|combo)\s+(?:for|to|of|on)\s+(?:my|the|our)\s+(?:[\w-]+\s+)?(?:lock|safe|padlock|locker|suitcase))"
    rf"(?:{_SIGN}|['\u2019]s\s+|\s+(?:is|was|is\s+now)\s+|\s+)"
    r"(?P<bare>\d{1,3}(?:[- ]\d{1,3}){2,4}|\d{3,8})(?![\d,.]\d|\w)",
    re.IGNORECASE,
)
_URL_PASSWORD = re.compile(r"(?<=://)[^\s:/@]{1,64}:(?P<bare>[^\s/@\"]{1,128})@")
# Words that follow "password is" without being one ("my password is too long").
_NOT_A_VALUE = frozenset(
    """a an the my your his her our their this that it not too very so still also now being getting set
    wrong incorrect correct right invalid expired weak strong long short same different case required
    missing empty blank reset changed saved stored there here in on at secure safe hard easy simple fine
    ok okay good bad broken locked old new what how why where when who which and or but if for to of
    with without mandatory optional needed hidden visible forgotten lost known unknown ready done never
    nevermind wait hold sorry um uh erm hmm actually oops scratch forget mine yours which whose something
    nothing anything everything one""".split()
)
_TRAILING = ".,;:!?)]}'\""

_KEY_FORMATS = re.compile(
    r"(?<![\w-])(?:"
    r"sk-(?:ant-|proj-|live-|test-|svcacct-)?[A-Za-z0-9_-]{16,}"
    r"|(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"
    r"|gh[pousr]_[A-Za-z0-9]{30,}"
    r"|github_pat_[A-Za-z0-9_]{30,}"
    r"|glpat-[A-Za-z0-9_-]{20,}"
    r"|xox[abposre]-[A-Za-z0-9-]{10,}"
    r"|(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|APKA)[A-Z0-9]{16}"
    r"|AIza[A-Za-z0-9_-]{35}"
    r"|hf_[A-Za-z0-9]{30,}"
    r"|npm_[A-Za-z0-9]{36}"
    r"|SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}"
    r"|eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"
    r"|shp(?:at|ss|ca|pa)_[A-Fa-f0-9]{32}"
    r"|dop_v1_[a-f0-9]{64}"
    r"|whsec_[A-Za-z0-9+/]{24,}"
    r"|pypi-[A-Za-z0-9_-]{50,}"
    r"|ya29\.[A-Za-z0-9_-]{20,}"
    r"|key-[a-z0-9]{32}"
    r"|sq0(?:atp|csp)-[A-Za-z0-9_-]{22,}"
    r"|\d{8,10}:AA[A-Za-z0-9_-]{30,40}"
    r"|(?<=hooks\.slack\.com/services/)T[A-Z0-9]{6,}/B[A-Z0-9]{6,}/[A-Za-z0-9]{20,}"
    r")(?![\w-])"
)
# Every format above holds one of these: the formats are searched only where one is.
_KEY_FORMAT_HINTS = (
    "sk-", "sk_", "pk_", "rk_", "p_", "o_", "u_", "s_", "r_", "pat", "xox", "AKIA", "ASIA", "ABIA", "ACCA",
    "AGPA", "AIDA", "AROA", "ANPA", "ANVA", "APKA", "AIza", "hf_", "npm_", "SG.", "eyJ", "shp", "dop_",
    "whsec_", "pypi-", "ya29.", "key-", ":AA", "hooks.slack", "sq0",
)  # fmt: skip
_AUTH_SCHEME = re.compile(
    r"\b(?:Bearer\s+(?P<bearer>[A-Za-z0-9._~+/-]{12,}=*)|Basic\s+(?P<basic>[A-Za-z0-9+/]{12,}={0,2})"
    r"|(?i:bearer|basic)\s+(?P<lower>[A-Za-z0-9._~+/-]{12,}=*))"
)
_KEY_LABEL = (
    r"api[ _-]?(?:key|token|secret)|access[ _-]?(?:key|token)|secret[ _-]?(?:access[ _-]?)?key|"
    r"client[ _-]?secret|auth[ _-]?token|bearer[ _-]?token|private[ _-]?key"
)
# A value stated as a key, token or secret; a bare "key" ("my OpenAI key is …", "key: …") is a key
# only when its value mixes cases and digits like a generated key (not "the key to success is patience").
_KEY_LABELLED = re.compile(
    rf"(?<![A-Za-z0-9])(?:{_KEY_LABEL}|secret|token|(?P<key>key))s?"
    r"(?:\s+(?:for|to|of|on)(?:\s+[\w.@'-]+){1,6}?)?"
    rf"(?:{_SIGN}|['\u2019]s\s+|\s+(?:is|was|is\s+now)\s+)"
    r"[\"'`]?(?P<bare>[A-Za-z0-9_\-./+=:]{8,256})",
    re.IGNORECASE,
)
# The label straight before its value ("here's my api key a8Fk29xLq0"): mixed like a generated key.
_KEY_UNMARKED = re.compile(
    rf"(?<![A-Za-z0-9])(?:{_KEY_LABEL}|secret|token)s?\s+[\"'`]?(?P<bare>[A-Za-z0-9_\-./+=:]{{8,256}})",
    re.IGNORECASE,
)
_LONG_RUN = re.compile(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{32,}={0,2}(?![A-Za-z0-9+/_=-])")
# Three or more runs joined by dots, each of four or more ("AbC12dEf.GhI34jKl.MnO56pQr"): a token
# when the whole, dots left out, is random (a version, a host name or a file name is not).
_DOTTED_RUN = re.compile(r"(?<![\w.+/-])[A-Za-z0-9_-]{4,}(?:\.[A-Za-z0-9_-]{4,}){2,}(?![\w+/-]|\.\w)")
_DOTTED_MIN = 24
# A PEM private key block, from its BEGIN line to its END line, or to where its base64 stops when the
# paste was cut off; headers ("Proc-Type: 4,ENCRYPTED") are part of it.
_PRIVATE_KEY = re.compile(
    r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?:\s+(?!-----)[A-Za-z0-9+/=:,-]+)*"
    r"(?:\s*-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----)?"
)
PRIVATE_KEY = "[private key]"


def _luhn_valid(digits: str) -> bool:
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = ord(char) - 48
        if index % 2:
            value *= 2
            if value > 9:
                value -= 9
        total += value
    return total % 10 == 0


def _in_ranges(digits: str, ranges: tuple[tuple[int, int], ...], width: int) -> bool:
    prefix = int(digits[:width])
    return any(low <= prefix <= high for low, high in ranges)


# Issuer identification number ranges: (first digits as a number, inclusive ranges).
_IIN_RANGES: tuple[tuple[int, tuple[tuple[int, int], ...]], ...] = (
    (1, ((4, 4),)),  # Visa
    (2, ((34, 34), (37, 37), (36, 36), (38, 39), (51, 55), (50, 50), (56, 69), (81, 82))),
    (3, ((300, 305), (353, 353), (356, 356), (508, 508))),
    (4, ((2200, 2204), (2221, 2720), (3095, 3095), (3528, 3589), (6011, 6011))),
)


def _issuer_prefix(digits: str) -> bool:
    return any(_in_ranges(digits, ranges, width) for width, ranges in _IIN_RANGES)


def _nearest_keyword(text: str, start: int, context: str) -> str | None:
    """``"card"`` or ``"other"``: the group of the last keyword in the window before ``start``
    (``context``, a Struct key for instance, counts as written just before it)."""
    window = text[max(0, start - _WINDOW) : start]
    if context:  # a key: "orderNumber", "order_number" read as words
        words = _CAMEL.sub(r"\1 \2", _ACRONYM.sub(r"\1 \2", context)).replace("_", " ")
        window = f"{words} {window}"
    last = None
    for found in _NUMBER_KEYWORDS.finditer(window):
        last = found
    if last is None:
        return None
    if last.group("card"):
        return "card"
    # Something else's keyword labels the number only straight before it ("order 4111…", "order
    # number: …", "the tracking number is …"), not a sentence earlier ("for the order, use 4111…").
    if last.end() <= len(window) - (start - max(0, start - _WINDOW)) or _LABELS_IT.fullmatch(window[last.end() :]):
        return "other"
    return "card" if any(found.group("card") for found in _NUMBER_KEYWORDS.finditer(window)) else None


def _card_number(raw: str) -> tuple[int, str] | None:
    """The longest run of whole groups at the start of ``raw`` that is a Luhn-valid card number
    (its length in ``raw``, its digits): a number typed before the next one ("… 1111 200") is
    still found. One separator throughout, or none; with dots, slashes or underscores, groups of three
    to six digits (not a decimal number, not a date)."""
    separators = set(_CARD_SEPARATORS.findall(raw))
    if len(separators) > 1:
        return None
    separator = separators.pop() if separators else ""
    groups = raw.split(separator) if separator else [raw]
    if any(sign in separator for sign in "./_") and not all(3 <= len(group) <= 6 for group in groups):
        return None
    for count in range(len(groups), 0, -1):
        digits = "".join(groups[:count])
        if 13 <= len(digits) <= 19 and _luhn_valid(digits):
            return len(digits) + len(separator) * (count - 1), digits
    return None


def _cards(text: str, context: str) -> Iterator[_Span]:
    for found in _CARD.finditer(text):
        number = _card_number(found.group())
        if number is None:
            continue
        length, digits = number
        keyword = _nearest_keyword(text, found.start(), context)
        if keyword == "other" or (keyword is None and not _issuer_prefix(digits)):
            continue
        yield found.start(), found.start() + length, card_placeholder(digits)


def _card_codes(text: str, context: str) -> Iterator[_Span]:
    if not any(word in text.lower() for word in ("cvv", "cvc", "csc", "card")):
        return
    for found in _CARD_CODE.finditer(text):
        yield found.start("bare"), found.end("bare"), CARD_CODE


# Each IBAN country's length (the ISO 13616 registry).
_IBAN_LENGTHS = {
    "AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22, "BI": 27,
    "BR": 29, "BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DJ": 27, "DK": 18, "DO": 28,
    "EE": 20, "EG": 29, "ES": 24, "FI": 18, "FK": 18, "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23,
    "GL": 18, "GR": 27, "GT": 28, "HR": 21, "HU": 28, "IE": 22, "IL": 23, "IQ": 23, "IS": 26, "IT": 27,
    "JO": 30, "KW": 30, "KZ": 20, "LB": 28, "LC": 32, "LI": 21, "LT": 20, "LU": 20, "LV": 21, "LY": 25,
    "MC": 27, "MD": 24, "ME": 22, "MK": 19, "MN": 20, "MR": 27, "MT": 31, "MU": 30, "NI": 28, "NL": 18,
    "NO": 15, "OM": 23, "PK": 24, "PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22, "RU": 33,
    "SA": 24, "SC": 31, "SD": 18, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "SO": 23, "ST": 25, "SV": 28,
    "TL": 23, "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20, "YE": 30,
}  # fmt: skip


def _iban_valid(iban: str) -> bool:
    rearranged = iban[4:] + iban[:4]
    number = "".join(str(int(char, 36)) for char in rearranged)
    return int(number) % 97 == 1


def _ibans(text: str, context: str) -> Iterator[_Span]:
    for found in _IBAN.finditer(text):
        raw = found.group()
        country = raw[:2].upper()
        length = _IBAN_LENGTHS.get(country)
        if length is None:
            continue
        # The candidate may run on into the next word: take the country's length of characters.
        kept = 0
        end = found.start()
        for offset, char in enumerate(raw):
            if char.isalnum():
                kept += 1
                if kept == length:
                    end = found.start() + offset + 1
                    break
        if kept < length or (end < len(text) and text[end].isalnum()):
            continue
        compact = re.sub(r"[ .-]", "", text[found.start() : end]).upper()
        if compact[2:4].isdigit() and _iban_valid(compact):
            yield found.start(), end, iban_placeholder(compact)


def _ssns(text: str, context: str) -> Iterator[_Span]:
    for found in _SSN.finditer(text):
        area, _, group, serial = found.groups()
        # 9xx is an ITIN, a taxpayer's number as secret as an SSN; after its label any number is one
        if area in ("000", "666") or group == "00" or serial == "0000":
            window = f"{context} {text[max(0, found.start() - _WINDOW) : found.start()]}"
            if not _SSN_KEYWORD.search(window):
                continue
        if _nearest_keyword(text, found.start(), context) == "other":
            continue
        yield found.start(), found.end(), SSN
    lower = text.lower()
    if "ssn" not in lower and "ss" not in lower and "social" not in lower and "itin" not in lower:
        return
    for found in _SSN_LABELLED.finditer(text):
        yield found.start(1), found.end(1), SSN


def _ninos(text: str, context: str) -> Iterator[_Span]:
    for found in _NINO.finditer(text):
        if _NINO_PREFIX.fullmatch(found.group(1)) and found.group(1) not in _NINO_REFUSED_PREFIXES:
            yield found.start(), found.end(), NINO
    if not _NINO_KEYWORD.search(f"{context} {text}"):
        return
    # After its label, any two letters, six digits and the suffix are one, in any case.
    for found in _NINO_ANY_CASE.finditer(text):
        window = f"{context} {text[max(0, found.start() - _WINDOW) : found.start()]}"
        if _NINO_KEYWORD.search(window):
            yield found.start(), found.end(), NINO
    for found in _NINO_ANY_CASE.finditer(text):
        after = text[found.end() : found.end() + _WINDOW]
        if _NINO_KEYWORD.search(after) and re.match(r"\s+(?:is|was)\s+(?:my|the|our|his|her)\b", after, re.IGNORECASE):
            yield found.start(), found.end(), NINO


def _value_span(found: re.Match[str]) -> tuple[int, int] | None:
    """Where the stated value is (quotes kept outside it, trailing punctuation left to the sentence)."""
    for group in ("dq", "sq", "bq"):
        if group in found.re.groupindex and found.group(group) is not None:
            return found.start(group), found.end(group)
    group = next((g for g in ("bare", "used", "after") if g in found.re.groupindex and found.group(g) is not None), "")
    if not group:
        return None
    start, end = found.start(group), found.end(group)
    value = found.group(group)
    lead = len(value) - len(value.lstrip("([{"))
    start, value = start + lead, value[lead:]
    stripped = value.rstrip(_TRAILING)
    if not stripped:
        return None
    return start, end - (len(value) - len(stripped))


def _is_placeholder(value: str) -> bool:
    return value.startswith("[") and value.endswith("]")


def _password_patterns(text: str) -> Iterator[tuple[re.Pattern[str], bool]]:
    """The password rules worth running on ``text`` (each needs a word a cheap search finds first),
    each with whether its bare value must look like a password (no sign or verb said it is one)."""
    lower = text.lower()
    if any(
        word in lower
        for word in (
            "pass",
            "pw",
            "pin",
            "psw",
            "pssw",
            "p/w",
            "pword",
            "wifi",
            "wi-fi",
            "network",
            "router",
            "wlan",
            "wpa",
        )
    ):
        yield _PASSWORD, False
        yield _PASSWORD_UNMARKED, True
        if "pass" in lower:
            yield _PASS_LABELLED, True
        if "it" in lower or "here" in lower:
            yield _PASSWORD_NEXT, True
        if " to " in lower and any(verb in lower for verb in ("changed", "set", "updated")):
            yield _PASSWORD_CHANGED, False
        if "?" in text:
            yield _PASSWORD_ASKED, True
        yield _PASSWORD_BEFORE, False
        if "," in text:
            yield _PIN_BY_COMMA, False
            yield _VALUE_BY_COMMA, True
    if "code" in lower:
        yield _CODE, False
    if " to " in lower and any(word in lower for word in ("log", "sign", "unlock", "get in", "connect")):
        yield _TO_LOG_IN, True
    if "comb" in lower:
        yield _COMBINATION, False
    if any(word in lower for word in ("login", "log-in", "logon", "sign-in", "creds", "credentials")):
        yield _LOGIN_PAIR, True
    if "://" in text:
        yield _URL_PASSWORD, False


# A date, a time, an amount or a count with its unit: never a password nobody called one.
_NOT_A_PASSWORD_SHAPE = re.compile(
    r"[\d.,:/-]*|\d{1,4}(?:[.:,]\d+)*(?:am|pm|st|nd|rd|th|s|h|hrs?|mins?|k|km|kg|m|mb|gb|x|%)", re.IGNORECASE
)
_YEAR = re.compile(r"(?:19|20)\d\d")


def _looks_like_password(value: str, *, years: bool = True) -> bool:
    """A bare value no sign or verb called a password: a PIN's four or more digits (a year too only
    when ``years``), or a word with a digit or a symbol inside it ("hunter2", "Tr0ub4dor&3"); not an
    ordinary word ("manager", "again"), a count ("3", "10pm"), a date or a time ("2024-03-15")."""
    if len(value) < 4 or value.lower() in _NOT_A_VALUE:
        return False
    if value.isdigit():
        return years or not _YEAR.fullmatch(value)
    if _NOT_A_PASSWORD_SHAPE.fullmatch(value):
        return False
    if any(char.isdigit() for char in value):
        return True
    return any(not char.isalnum() and char not in "'-.," for char in value[1:-1])


# What a label is a noun after ("my PIN 1987", "bank pin 1987", "the router password sunflower"), not
# a verb ("can you pin 2024 goals …"): a determiner, a possessive or a thing with a PIN or password.
_LABEL_AS_NOUN = re.compile(
    r"(?:^|[.!?,;:(\n-]\s*|\b(?:my|the|our|your|his|her|their|its|new|bank|card|debit|credit|atm|phone|sim|door|"
    r"alarm|safe|lock|locker|garage|gate|wifi|wi-fi|router|email|e-mail|account|login|laptop|computer|user(?:name)?\s+"
    r"[^\s,;]+|[\w-]+['\u2019]s)\s+)$",
    re.IGNORECASE,
)
# Where a value said straight after its label ends: the clause ends, or "for" says what it opens.
_VALUE_ENDS = re.compile(r"\s*(?:$|[.!?,;:)\n]|\s(?:for|btw|thanks|please|ok)\b)", re.IGNORECASE)
# Words that follow a bare "password" as the name of something else ("password manager", "password
# again"): a value said plainly is a password only when it is none of them.
_AFTER_A_PASSWORD_WORD = frozenset(
    """manager managers reset resets hint hints policy policies field fields box prompt protected protection
    change changes rule rules requirement requirements strength expiry expiration generator vault app apps
    screen page form login recovery sharing hygiene leak leaks breach again today yesterday tomorrow tonight
    lol btw recently twice earlier later already anyway though please thanks either entry entered typed works
    worked keeper list file spreadsheet section question questions issue issues problem problems error errors
    stuff thing things security update updates length complexity rotation less free based authentication
    auth input dialog window request requests email emails link forgot pad pads protect plz pls thx will goes
    reads says everywhere anywhere elsewhere somewhere reminder reminders""".split()
)


# A passphrase's words, three to eight of them, up to where its clause ends.
# A sentence, not a passphrase, holds one of these ("the passphrase is too long to type").
_GRAMMAR_WORDS = frozenset(
    "a an the to too is are was be not no very so and or but of in on at for with it that this my your i you".split()
)
_PASSPHRASE = re.compile(r"[^\s.,;!?]+(?:[ \t]+[^\s.,;!?\[\]]+){2,7}(?=\s*(?:$|[.,;!?\n]))")


def _year_may_be_one(text: str, span: tuple[int, int], pattern: re.Pattern[str]) -> bool:
    """Whether four digits like a year may be the value: after "pass:", or alone as the next sentence
    ("That's my PIN. It's 1987."), not a sentence going on about the year ("It's 2024 and …")."""
    return pattern is _PASS_LABELLED or (pattern is _PASSWORD_NEXT and _SENTENCE_ENDS.match(text, span[1]) is not None)


_SENTENCE_ENDS = re.compile(r"\s*(?:[.!]|$)")
_SIGNED = re.compile(r"\s*[:=]")


def _stated_plainly(
    text: str, found: re.Match[str], span: tuple[int, int], value: str, pattern: re.Pattern[str]
) -> bool:
    """A value straight after its label that does not look like a password ("password sunflower",
    "PIN 1987") is one when the label is a noun there and the value ends its clause: a word of
    letters after a password label, four digits (a year too) after a PIN or passcode."""
    if pattern not in (_PASSWORD_UNMARKED, _PASSWORD_ASKED, _PASS_LABELLED) or not _VALUE_ENDS.match(text, span[1]):
        return False
    if pattern is _PASS_LABELLED:
        # "pass: swordfish", "pass=swordfish": the sign says it; "the pass is swordfish" too, but not
        # a ticket's state ("the pass is valid", "the pass is free", "the mountain pass is closed")
        if not _SIGNED.match(text, found.end("pass")) and not _names_not_a_state(value):
            return False
    elif not _LABEL_AS_NOUN.search(text, 0, found.start()):
        return False
    label = found.group().split()[0].lower()
    if value.isdigit():
        return len(value) >= 4 and label.startswith(("pin", "passcode", "pass"))
    return (
        value.isalpha()
        and len(value) >= 4
        and not label.startswith("pin")
        and value.lower() not in _NOT_A_VALUE
        and value.lower() not in _AFTER_A_PASSWORD_WORD
        and not value.lower().endswith(("ed", "ing", "ly"))
    )


def _passwords(text: str, context: str) -> Iterator[_Span]:
    for pattern, must_look_like_one in _password_patterns(text):
        for found in pattern.finditer(text):
            span = _value_span(found)
            if span is None:
                continue
            value = text[span[0] : span[1]]
            bare = any(g in found.re.groupindex and found.group(g) is not None for g in ("bare", "used", "after"))
            if bare and (spelled := _SPELLED_DIGITS.match(text, span[0])):
                yield span[0], spelled.end(), PASSWORD
                continue
            if bare and pattern is _PASSWORD and re.match(r"pass\s*phrase", found.group(), re.IGNORECASE):
                # several words to the clause's end ("passphrase: correct horse battery staple")
                phrase = _PASSPHRASE.match(text, span[0])
                if phrase and not _GRAMMAR_WORDS.intersection(phrase.group().lower().split()):
                    yield span[0], phrase.end(), PASSWORD
                    continue
            if _is_placeholder(value) or (bare and value.lower() in _NOT_A_VALUE):
                continue
            if (
                bare
                and must_look_like_one
                and not _looks_like_password(value, years=_year_may_be_one(text, span, pattern))
                and not _stated_plainly(text, found, span, value, pattern)
            ):
                continue
            # "Patience is the password": only one's own password said first may be a plain word.
            if pattern is _PASSWORD_BEFORE and found.group("det").lower() in ("the", "a"):
                if not _looks_like_password(value):
                    continue
            if pattern is _PASS_LABELLED and (found.group("before") or "").lower() in _NOT_A_CREDENTIAL_PASS:
                continue
            if bare and len(value) < 4 and value.isdigit() and _COUNT_AFTER.match(text, span[1]):
                continue
            yield span[0], span[1], PASSWORD


def _looks_random(token: str, shortest: int = 32) -> bool:
    """A key rather than a word, a path or a hash: every character class, often changing, spread out."""
    body = token.rstrip("=")
    if len(body) < shortest or body.startswith("/"):  # a path, not a key
        return False
    classes = ["l" if char.islower() else "u" if char.isupper() else "d" for char in body if char.isalnum()]
    if not {"l", "u", "d"} <= set(classes):
        return False
    # Random text changes class at about 3 of 5 characters; words, names and paths far less often.
    changes = sum(1 for before, after in pairwise(classes) if before != after)
    if changes / len(classes) < 0.4:
        return False
    counts = Counter(body)
    entropy = -sum(count / len(body) * math.log2(count / len(body)) for count in counts.values())
    return entropy >= 3.5


def _api_keys(text: str, context: str) -> Iterator[_Span]:
    if "PRIVATE KEY" in text:
        for found in _PRIVATE_KEY.finditer(text):
            yield found.start(), found.end(), PRIVATE_KEY
    if any(hint in text for hint in _KEY_FORMAT_HINTS):
        for found in _KEY_FORMATS.finditer(text):
            yield found.start(), found.end(), API_KEY
    lower = text.lower()
    if "bearer" in lower or "basic" in lower:
        for found in _AUTH_SCHEME.finditer(text):
            group = next(name for name in ("bearer", "basic", "lower") if found.group(name))
            # said in lower case, a scheme's word is English too ("the bearer of bad news"): a token mixes
            if group == "lower" and not _mixes_like_a_key(found.group(group)):
                continue
            yield found.start(group), found.end(group), API_KEY
    if "key" not in lower and "token" not in lower and "secret" not in lower:
        yield from _long_runs(text)
        return
    for found in (*_KEY_LABELLED.finditer(text), *_KEY_UNMARKED.finditer(text)):
        span = _value_span(found)
        if span is None:
            continue
        value = text[span[0] : span[1]]
        if _is_placeholder(value):
            continue
        if found.re is _KEY_UNMARKED or found.group("key"):
            if not _mixes_like_a_key(value):
                continue
        elif not (any(c.isdigit() for c in value) or len(value) >= 20):
            continue
        yield span[0], span[1], API_KEY
    yield from _long_runs(text)


def _mixes_like_a_key(value: str) -> bool:
    """Letters and digits mixed the way a generated key mixes them ("k3yZ8pQ1wx"), not a word with
    a number ("rotation2024", "Python3"): lower case, upper case and digits alternate three times."""
    classes = ["l" if char.islower() else "u" if char.isupper() else "d" for char in value if char.isalnum()]
    if "d" not in classes or not {"l", "u"} & set(classes):
        return False
    return sum(1 for before, after in pairwise(classes) if before != after) >= 3


def _long_runs(text: str) -> Iterator[_Span]:
    if "." in text:
        for found in _DOTTED_RUN.finditer(text):
            if _looks_random(found.group().replace(".", ""), _DOTTED_MIN):
                yield found.start(), found.end(), API_KEY
    for found in _LONG_RUN.finditer(text):
        if _looks_random(found.group()):
            yield found.start(), found.end(), API_KEY


# --- secrets by their shape --------------------------------------------------------------------------

SESSION = "[session token]"

# A password spelled with number words ("the code is hunter two", "the password is kettle seventy seven").
_NUMBER_WORD = (
    r"(?:zero|oh|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|"
    r"sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred)"
)
_SPELLED_PASSWORD = re.compile(
    rf"(?<![A-Za-z0-9])(?:{_PASSWORD_LABEL}|code)(?:{_SIGN}|['\u2019]s\s+|\s+(?:is|was)\s+)"
    rf"(?P<bare>(?P<word>[A-Za-z]{{3,20}})(?:[ \t-]+{_NUMBER_WORD})+)(?=\s*(?:$|[.!?,;\n]))",
    re.IGNORECASE,
)
# A wallet's seed or recovery phrase: twelve to twenty-four words of lower-case letters after its label.
_SEED_PHRASE = re.compile(
    r"\b(?:(?:secret\s+)?(?:seed|recovery|backup|wallet|mnemonic)\s+(?:phrase|words)|mnemonic)"
    rf"(?:{_SIGN}|['\u2019]s\s+|\s+(?:is|are|was|were)\s+(?::\s*)?)"
    r"(?P<bare>[a-z]{3,8}(?:(?:[ \t]+|\s*,\s*)[a-z]{3,8}){11,23})\b"
)
# An account's 2FA backup or recovery codes, each replaced ("my backup codes are 4821-9937, 1120-4471").
_BACKUP_CODES = re.compile(
    r"\b(?:(?:2fa|mfa|two[- ]factor|2-step)\s+)?(?:backup|recovery)\s+codes?"
    rf"(?:{_SIGN}|\s+(?:are|is|were|was)\s+(?::\s*)?)"
    r"(?P<list>[A-Za-z0-9]{4,12}(?:-[A-Za-z0-9]{3,12})?(?:(?:\s*[,;]\s*(?:and\s+)?|\s+and\s+|[ \t]+)"
    r"[A-Za-z0-9]{4,12}(?:-[A-Za-z0-9]{3,12})?)*)",
    re.IGNORECASE,
)
_BACKUP_CODE = re.compile(r"[A-Za-z0-9]{4,12}(?:-[A-Za-z0-9]{3,12})?")
# A one-time code: a password while it is valid, and no one can say here when it stops being valid.
_ONE_TIME_CODE = re.compile(
    r"\b(?:otp|one[- ]time\s+(?:code|password|pin)|verification\s+code|(?:2fa|mfa|sms|login|sign[- ]in|two[- ]factor|"
    r"auth(?:entication|enticator)?)\s+code)"
    rf"(?:{_SIGN}|['\u2019]s\s+|\s+(?:is|was)\s+(?::\s*)?|\s+)"
    r"(?P<bare>\d{3}[ -]\d{3}|\d{4,8})(?![\w,.]\w|\w|[ -]\d)",
    re.IGNORECASE,
)
# A session cookie's value: ``sid=…``, ``PHPSESSID=…``, ``connect.sid=…``, ``laravel_session=…``.
_SESSION_NAME = r"(?:[A-Za-z0-9]+[_.-])*(?:php|j|asp\.net_)?(?:sess(?:ion)?(?:[_-]?(?:id|key|token))?|sid)"
_SESSION_VALUE = r"(?P<value>[A-Za-z0-9%._~+/=-]{8,512})"
_SESSION_PAIR = re.compile(rf"(?<![\w.-]){_SESSION_NAME}\s*[=:]\s*{_SESSION_VALUE}", re.IGNORECASE)
_SESSION_STATED = re.compile(
    rf"\bsession\s+(?:cookie|id|token|key)s?(?:{_SIGN}|['\u2019]s\s+|\s+(?:is|was)\s+){_SESSION_VALUE}",
    re.IGNORECASE,
)
# A ``Cookie:`` header's pairs: a session's value, or any value shaped like a generated one.
_COOKIE_HEADER = re.compile(r"\b(?:set-)?cookie\s*:\s*(?P<pairs>[^\n]+)", re.IGNORECASE)
_COOKIE_PAIR = re.compile(r"(?P<name>[^\s=;,]+)=(?P<value>[^\s;,]+)")
_SECRET_COOKIE_NAME = re.compile(r"sess|sid|token|auth|jwt|remember|login|csrf|xsrf|secret|key", re.IGNORECASE)


def _session_value(value: str) -> bool:
    """A session's value, not a word or a count: eight or more characters holding a digit and a
    letter, or sixteen or more."""
    value = value.rstrip(_TRAILING)
    return len(value) >= 16 or (len(value) >= 8 and any(c.isdigit() for c in value) and any(c.isalpha() for c in value))


def _sessions(text: str, context: str) -> Iterator[_Span]:
    lower = text.lower()
    if "cookie" in lower:
        for header in _COOKIE_HEADER.finditer(text):
            for pair in _COOKIE_PAIR.finditer(text, header.start("pairs"), header.end("pairs")):
                value = pair.group("value").rstrip(_TRAILING)
                if _SECRET_COOKIE_NAME.search(pair.group("name")) or _looks_random(value, 16):
                    if value and not _is_placeholder(value):
                        yield pair.start("value"), pair.start("value") + len(value), SESSION
    if "sid" in lower or "sess" in lower:
        for pattern in (_SESSION_PAIR, _SESSION_STATED):
            for found in pattern.finditer(text):
                value = found.group("value").rstrip(_TRAILING)
                if _session_value(value) and not _is_placeholder(value):
                    yield found.start("value"), found.start("value") + len(value), SESSION


# A password-shaped token: one word mixing letters, digits and a symbol ("p@ssw0rd!23", "Tr0ub4dor&3").
_SYMBOLS = "!$%^&*=?~@#|+"
# A symbol after a letter or digit ("!" and "?" only inside a word: at its end they end a sentence).
_HAS_SYMBOL_INSIDE = re.compile(r"[A-Za-z0-9](?:[$%^&*=~@#|+]|[!?]+[^\s.,;:!?)\]}'\"])")
_TOKEN = re.compile(r"(?<!\S)\S{8,80}(?!\S)")
_LETTERS = re.compile(r"[A-Za-z]{2}")  # two letters in a row: a word's piece, not a formula (x^2+y^2=25)
_NOT_A_PASSWORD_TOKEN = re.compile(
    r".*[/\\].*"  # a path or a URL
    r"|.*[\"{}\[\]<>].*"  # code or JSON, not a word
    r"|[^@\s]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+"  # an email address
    r"|[\w.-]+@v?\d+(?:\.\w+)*"  # a package at its version (lodash@4.17.21)
    r"|[A-Za-z_][\w.-]{2,}[:=].*"  # a setting (max_connections=200)
    r"|.*\+\+.*"  # C++, Notepad++
    r"|[A-Z]{0,3}[$\u20ac\u00a3\u00a5][\d.,]+[kKmM]?"  # an amount (US$1,299.99)
    r"|.*[?&]\w+=.*"  # a query string (?ref=abc123)
)
# Words near a token that make it a credential ("use …", "try … for the router", "login is …").
_CREDENTIAL_CUE = re.compile(
    r"\b(?:use|using|try|type|enter|login|log|logon|sign|password|passwd|pwd|pw|pass|passcode|code|key|wi-?fi|"
    r"router|account|vpn|admin|unlock|credentials?|creds)\b",
    re.IGNORECASE,
)
_CUE_WORDS_BEFORE = 6
_CUE_WORDS_AFTER = 4


def _password_shaped(token: str) -> bool:
    """Letters, a digit and a symbol inside, eight characters or more; not a path, a URL, an email
    address, a package's version, a setting, an amount or a tag (#, @ first)."""
    if len(token) < 8 or _is_placeholder(token) or _NOT_A_PASSWORD_TOKEN.fullmatch(token):
        return False
    if not any(char.isdigit() for char in token) or not any(char.isalpha() for char in token):
        return False
    return any(char in _SYMBOLS for char in token[1:])


def _generated(token: str) -> bool:
    """A password no one needs to call one: ten or more characters of lower and upper case, digits
    and symbols, changing class at most characters."""
    classes = ["l" if c.islower() else "u" if c.isupper() else "d" if c.isdigit() else "s" for c in token]
    if len(token) < 10 or set(classes) != {"l", "u", "d", "s"}:
        return False
    return sum(1 for before, after in pairwise(classes) if before != after) / (len(classes) - 1) >= 0.6


def _cued(text: str, start: int, end: int) -> bool:
    before = text[max(0, start - 80) : start].split()[-_CUE_WORDS_BEFORE:]
    after = text[end : end + 60].split()[:_CUE_WORDS_AFTER]
    return _CREDENTIAL_CUE.search(" ".join((*before, *after))) is not None


def _shaped_passwords(text: str, context: str) -> Iterator[_Span]:
    lower = text.lower()
    if "seed" in lower or "phrase" in lower or "mnemonic" in lower or "words" in lower:
        for found in _SEED_PHRASE.finditer(text):
            yield found.start("bare"), found.end("bare"), PASSWORD
    if "codes" in lower or "code " in lower or "code:" in lower:
        for found in _BACKUP_CODES.finditer(text):
            for code in _BACKUP_CODE.finditer(text, found.start("list"), found.end("list")):
                if any(char.isdigit() for char in code.group()) and code.group().lower() != "and":
                    yield code.start(), code.end(), PASSWORD
    if any(word in lower for word in ("otp", "one-time", "one time", "code")):
        for found in _ONE_TIME_CODE.finditer(text):
            yield found.start("bare"), found.end("bare"), PASSWORD
    if any(word in lower for word in ("code", "pass", "pw", "pin", "pwd")):
        for found in _SPELLED_PASSWORD.finditer(text):
            word = found.group("word").lower()
            if word not in _NOT_A_VALUE and word not in _GRAMMAR_WORDS and not word.endswith(("ed", "ly")):
                yield found.start("bare"), found.end("bare"), PASSWORD
    if not any(symbol in text for symbol in _SYMBOLS) or _HAS_SYMBOL_INSIDE.search(text) is None:
        return
    for found in _TOKEN.finditer(text):
        raw = found.group()
        lead = len(raw) - len(raw.lstrip("([{\"'`"))
        token = raw[lead:].rstrip(_TRAILING + "`")
        start, end = found.start() + lead, found.start() + lead + len(token)
        if _password_shaped(token) and (_generated(token) or (_LETTERS.search(token) and _cued(text, start, end))):
            yield start, end, PASSWORD


# In this order: where two rules claim overlapping text, the earlier rule's claim stands. A rule
# marked as a number's is run only on text with six digits in a row (at most a separator between two):
# every card, IBAN, SSN and NI number holds them.
_RULES: tuple[tuple[Kind, Callable[[str, str], Iterator[_Span]], bool], ...] = (
    (Kind.API_KEY, _sessions, False),
    (Kind.API_KEY, _api_keys, False),
    (Kind.PASSWORD, _shaped_passwords, False),
    (Kind.PASSWORD, _passwords, False),
    (Kind.IBAN, _ibans, True),
    (Kind.CARD, _cards, True),
    (Kind.CARD, _card_codes, False),
    (Kind.SSN, _ssns, True),
    (Kind.NINO, _ninos, True),
)
_SIX_DIGITS = re.compile(r"\d(?:[ \t]{0,2}[-\u2013\u2014./_]?[ \t]{0,2}\d){5}")


# A key naming a credential: its whole value is one ("password": "…", "apiKey": "…").
_CREDENTIAL_KEY = re.compile(
    r"^(?:.*\s)?(?:(?P<password>pass(?:word|wd|phrase|code)|pwd|pin(?: code)?)"
    r"|(?P<key>api ?key|api ?token|access ?key|secret(?: ?key)?|client ?secret|(?:access |auth |bearer |refresh )?token"
    r"|private ?key))s?$",
    re.IGNORECASE,
)
# A JSON string's escape (text can be JSON kept as a string: a LangGraph value in metadata).
_ESCAPE = re.compile(r"\\(?:u[0-9a-fA-F]{4}|.)", re.DOTALL)


def _blank_escape(escape: re.Match[str]) -> str:
    """Spaces as long as the escape; an escaped quote two quotes, so a quoted value is found and its
    placeholder falls between the escapes."""
    return '""' if escape.group() == '\\"' else " " * len(escape.group())


def _credential_value(text: str, kinds: frozenset[Kind], context: str) -> str | None:
    words = _CAMEL.sub(r"\1 \2", _ACRONYM.sub(r"\1 \2", context)).replace("_", " ").replace("-", " ").strip()
    found = _CREDENTIAL_KEY.match(words)
    if found is None or not text.strip() or _is_placeholder(text):
        return None
    if found.group("password") and Kind.PASSWORD in kinds:
        return PASSWORD
    if found.group("key") and Kind.API_KEY in kinds:
        return API_KEY
    return None


def _json_number_at(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is a whole number of the JSON ``text`` (its placeholder is then
    written as a string, so the JSON stays JSON)."""
    before = text[:start].rstrip()[-1:]
    after = text[end:].lstrip()[:1]
    return before in (":", "[", ",") and after in (",", "]", "}")


def redact(text: str, kinds: frozenset[Kind] = ALL_KINDS, context: str = "") -> str:
    """``text`` with every secret of ``kinds`` replaced by its placeholder. ``context`` is the key
    the text was found under (a JSON or Struct key): read for the keywords a number follows, and a
    key naming a credential (``password``, ``apiKey``, ``accessToken``) makes the whole value one.

    Text holding JSON escapes (``\\n``, ``\\"``) is searched with each escape read as spaces, so a
    secret next to one is found and a placeholder never splits one: JSON kept as a string stays JSON."""
    if not kinds:
        return text
    if context:
        credential = _credential_value(text, kinds, context)
        if credential is not None:
            return credential
    if len(text) < 6:
        return text
    searched = _ESCAPE.sub(_blank_escape, text) if "\\" in text else text
    numbers = _SIX_DIGITS.search(searched) is not None
    claimed: list[_Span] = []
    for kind, rule, of_a_number in _RULES:
        if kind not in kinds or (of_a_number and not numbers):
            continue
        for start, end, replacement in rule(searched, context):
            if all(end <= other_start or start >= other_end for other_start, other_end, _ in claimed):
                claimed.append((start, end, replacement))
    if not claimed:
        return text
    claimed.sort()
    json_text = text.lstrip()[:1] in ("{", "[") and text.rstrip()[-1:] in ("}", "]")
    parts: list[str] = []
    position = 0
    for start, end, replacement in claimed:
        parts.append(text[position:start])
        parts.append(f'"{replacement}"' if json_text and _json_number_at(text, start, end) else replacement)
        position = end
    parts.append(text[position:])
    return "".join(parts)


@dataclass(frozen=True, slots=True)
class Redactor:
    """``redact`` bound to the kinds a deployment chose (``LORE_REDACT``)."""

    kinds: frozenset[Kind] = ALL_KINDS

    def __call__(self, text: str, context: str = "") -> str:
        return redact(text, self.kinds, context)

    @property
    def enabled(self) -> bool:
        return bool(self.kinds)

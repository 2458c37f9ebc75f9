"""Jokes said flat, words reported and the assistant's make-believe: what reads like a fact but is not one.

People exaggerate about themselves without a wink: "I'm basically a professional napper", "my cat is
my boss", "I live at the office these days", "I have like a million cousins", "I'm allergic to
Mondays". Taken at their word these become a job, an employer, a home, a count, an allergy. The
shapes below are figures of speech whatever the words in them (``figurative``):

- an identity hedged as a figure: "basically / practically / literally / officially / pretty much
  a …", "I practically live at …";
- a mock title: "a walking encyclopedia", "a human alarm clock", "the family's unpaid taxi driver",
  "a professional napper", "a certified pizza expert" (a title on a pastime, not a trade);
- a pet in a person's role: "the dog is my boss", "our parrot runs this house";
- a life lived where nobody lives: "lives at the office / the gym / the library", "lives on
  coffee", "runs on caffeine", "married to my job", "my second home is the gym";
- numbers no one counts: "a million cousins", "a zillion emails";
- an allergy to a day, a time or a chore ("allergic to Mondays / mornings / exercise"), fluency in
  something that is no language ("fluent in sarcasm");
- words passed on: "word is …", "rumour has it …", "legend has it …".

The assistant has no body, no town and no weekend: its "I'll check out the Hobbit", "I'll make you a
cup of tea, virtually", "I'll look for that bakery next time I'm in town", "I'll keep my fingers
crossed" are warmth, not promises (``make_believe``). A promise about the user's things ("I'll read
your draft tonight") is one.
"""

from __future__ import annotations

import dataclasses
import re

from agent_svc.domain.extraction import ExtractedMemory
from agent_svc.domain.rules.model import Statement

_I = re.IGNORECASE
_BE = r"(?:is|am|are|was|'s|'m)"
_WHOSE = r"(?:the|my|our|their|his|her|the user's)"
# Whose unpaid driver or personal chef the user jokes to be: the household's, not an employer's.
_HOUSEHOLD = (
    r"(?:the|my|our|their|the user's)\s+(?:family|kids|children|household|husband|wife|partner|mum|mom|dad|"
    r"parents|friends|flatmates|teens|teenagers|toddlers?|cats?|dogs?|son|daughter)(?:'s|s'|')"
)
# Where people do not live ("lives in the garden flat" is a home: a dwelling word after it makes one).
_NOT_A_HOME = (
    r"(?:office|gym|library|studio|lab|work|desk|pub|bar|cafe|café|airport|kitchen|couch|sofa|garden|shed|"
    r"hospital|rink|pool|stadium|mall|workshop|climbing gym|coffee shop|allotment|garage|inbox|car park)\b"
    r"(?!\s+(?:flat|apartment|house|cottage|room|rooms|suite|annexe?|block|building|district|quarter|area|"
    r"estate|street|road|lane|village|town|city|complex|conversion))"
)

_FIGURES = (
    # "basically a professional napper", "practically live at the gym"
    rf"\b{_BE}\s+(?:basically|practically|literally|virtually|officially|technically|pretty much|essentially|"
    r"secretly|apparently|kind of|kinda|sort of|low-?key|unofficially)\s+(?:a|an|the|my|their|the user's|\w+'s)\b",
    r"\b(?:basically|practically|literally|virtually|pretty much)\s+(?:lives?|living|sleeps?|exists?)\b",
    # mock titles
    r"\b(?:a|an|the)\s+(?:walking|human|unpaid|self-appointed|self-proclaimed|unofficial|honorary|crazy)\s+"
    r"(?:encyclopedia|dictionary|alarm|clock|calculator|gps|sat-?nav|taxi|chauffeur|plant|cat|dog|lady|"
    r"man|guy|meme|trivia|tornado|disaster|magnet|sponge|zombie|jukebox|thermostat|heater|radiator)\b",
    rf"\b{_HOUSEHOLD}\s+(?:(?:unpaid|personal|full-time|live-in|on-call|24/7|private)\s+)+"
    r"(?:taxi|chauffeur|driver|chef|cook|maid|butler|therapist|assistant|secretary|cleaner|nanny|alarm|"
    r"entertainer|stylist|it support|tech support|bank|atm|cashier|referee)\b",
    r"\b(?:professional|certified|full-time|world-class|olympic-level)\s+"
    r"(?:napper|napping|sleeper|snacker|procrastinator|overthinker|worrier|complainer|shopaholic|binge-?watcher|"
    r"daydreamer|over-?sharer|couch potato|scroller|lounger|people-?watcher|lazybones|"
    r"(?:pizza|snack|cake|chocolate|biscuit|crisp) (?:expert|eater|connoisseur|enthusiast|lover|taster))\b",
    # a pet in a person's role
    r"\b(?:dog|cat|puppy|pup|kitten|kitty|parrot|rabbit|bunny|hamster|pet|goldfish|budgie|tortoise|pug|"
    r"labrador|terrier|spaniel)(?:\s+[A-Z][\w-]*)?\s+(?:is|'s|was)\s+(?:really\s+|basically\s+|clearly\s+)?"
    r"(?:the\s+(?:real\s+|true\s+|actual\s+)?|the user's\s+|their\s+|my\s+|our\s+)?"
    r"(?:boss|ceo|manager|landlord|king|queen|ruler|overlord|supervisor|master|mistress|in charge|head of|"
    r"chief|president|director|alarm clock|therapist)\b",
    r"\b(?:dog|cat|puppy|pup|kitten|kitty|parrot|rabbit|bunny|hamster|pet|goldfish|budgie|tortoise)"
    r"(?:\s+[A-Z][\w-]*)?\s+(?:runs|rules|owns|bosses)\s+(?:this|the|our|my|their|the user's)\s+"
    r"(?:house|household|home|place|show|flat|family|roost)\b",
    # living where nobody lives, on what nobody lives on
    rf"\blives?\s+(?:at|in)\s+(?:the|my|their|the user's)\s+{_NOT_A_HOME}",
    r"\blives?\s+on\s+(?:coffee|caffeine|tea|toast|pizza|snacks|crisps|chocolate|sugar|spite|adrenaline|"
    r"energy drinks|cereal|noodles|takeaway|air|hope|vibes)\b",
    r"\bruns?\s+on\s+(?:coffee|caffeine|tea|sugar|spite|adrenaline|energy drinks|chocolate|vibes|"
    r"dry shampoo|no sleep|fumes)\b",
    rf"\bmarried to\s+{_WHOSE}\s+(?:job|work|desk|phone|laptop|career|office|inbox|bed|couch|sofa)\b",
    r"\bin a (?:committed |serious |long-term )?relationship with\s+(?:the|my|their|the user's)\s+"
    r"(?:couch|sofa|bed|phone|fridge|laptop|coffee machine|job|duvet|pillow)\b",
    rf"\bsecond home is\s+(?:the|my|their|the user's)\s+(?:\w+\s+)?{_NOT_A_HOME}",
    # counts nobody counts
    r"\b(?:a|like a|about a)\s+(?:million|billion|trillion|gazillion|zillion|bazillion|kajillion)\b",
    # an allergy to a day, a time or a chore; fluency in no language
    r"\ballergic to\s+(?:mondays?|tuesdays?|wednesdays?|thursdays?|fridays?|saturdays?|sundays?|mornings?|"
    r"work|people|effort|exercise|cardio|adulting|responsibility|responsibilities|housework|chores|homework|"
    r"meetings|small talk|maths?|alarm clocks?|running|the gym|decisions|deadlines|emails?|"
    r"paperwork|ironing|hoovering|vacuuming|early starts)\b",
    r"\bfluent in\s+(?:sarcasm|emoji|memes?|jokes|dad jokes|puns|gibberish|toddler|baby talk|cat|dog|"
    r"nonsense|movie quotes|film quotes|slang|excuses|sass|irony|teenager)\b",
    # words passed on
    r"^(?:word is|the word is|rumou?r (?:has it|is)|legend has it|the story goes|they say|people say|"
    r"the grapevine says|a little bird told)\b",
)
_FIGURE = re.compile("|".join(f"(?:{figure})" for figure in _FIGURES), _I)

# What the assistant would do for its own pleasure; "look for", "check" and "read" are errands when
# what they are about is the user's or a task ("look for flights", "read the user's draft").
_ASSISTANT_LEISURE = re.compile(
    r"^the assistant will\s+(?:(?:definitely|totally|absolutely|have to|need to|also|so|really|def)\s+)*"
    r"(?:check out|watch|listen to|try|taste|visit|play|binge|"
    r"give\b.{1,40}\b(?:a try|a go|a listen|a read|a watch|a shot)|add\b.{1,40}\bto (?:its|the assistant's) "
    r"(?:list|reading list|watchlist|playlist|bucket list))\b",
    _I,
)
_MAKE_BELIEVE = re.compile(
    r"\b(?:virtually|in spirit|fingers crossed|keep its fingers|keep the assistant's fingers|"
    r"(?:next time|when|whenever) (?:the assistant|it) (?:is|'s) in|a (?:virtual |big )?(?:hug|high[- ]five)|"
    r"(?:make|bring|pour|bake|cook|buy|get) the user (?:a|some) (?:cup|mug|pot|slice|drink|pint|coffee|tea|cake|"
    r"cookies|soup)|throw the user a party)\b",
    _I,
)
_THE_USERS = re.compile(r"\bthe user(?:'s)?\b", _I)


def figurative(text: str) -> bool:
    """A figure of speech or words passed on, said like a fact about the user."""
    return bool(_FIGURE.search(text))


def make_believe(content: str) -> bool:
    """The assistant's pastime or make-believe said as a promise ("The assistant will check out the
    Hobbit."); a promise about the user's own things ("… read the user's draft …") is kept."""
    if not content.lower().startswith("the assistant will"):
        return False
    if _MAKE_BELIEVE.search(content):
        return True
    return bool(_ASSISTANT_LEISURE.match(content)) and not _THE_USERS.search(content)


def in_jest(memory: ExtractedMemory) -> bool:
    """A memory that is a figure of speech, words passed on or the assistant's make-believe."""
    return figurative(memory.content) or (memory.speaker == "assistant" and make_believe(memory.content))


# Someone named in a joke is still named: "our cat Pickles is the boss of the house" names the cat.
_NAMED_IN_PASSING = ("pet:", "family:")


def meant(statement: Statement) -> Statement:
    """``statement`` with only the beliefs meant: none from a figure of speech but the names said in
    it, none whose own summary is one."""
    joke = in_jest(statement.memory)
    facets = tuple(
        facet
        for facet in statement.facets
        if not figurative(facet.summary) and (not joke or facet.attribute.startswith(_NAMED_IN_PASSING))
    )
    return statement if facets == statement.facets else dataclasses.replace(statement, facets=facets)

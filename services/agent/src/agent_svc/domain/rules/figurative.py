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
  something that is no language ("fluent in sarcasm"), a pastime or a workout that is a mishap ("my
  main hobby is losing socks", "my cardio is running late");
- words passed on: "word is …", "rumour has it …", "legend has it …";
- a claim no one makes of themselves in earnest: "a billionaire", "a secret agent", "a wizard",
  "basically royalty", "the CEO of naps", "the queen of bad decisions", "a PhD in overthinking",
  "the worst cook in the world", "the world's okayest runner", "29 again", "39 for ten years",
  "Danger is my middle name", "my blood type is coffee", "I live in a castle", "I speak fluent cat".

A sentence may also say itself that it is not meant, or be someone else's words (``unmeant``, read on
the turn before any pattern): it is taken back ("I'm a secret agent, jk", "I work at NASA /s", "I'm
a morning person. Not.", "… jk, I sit at a desk all day": the sentence before is taken back), winks
(🙃 😜 😉 after it), or reports what another said or thinks ("my brother keeps saying …", "my mum is
convinced …", "she swears …", "she was like, …", "per my therapist …", "I heard I'm …", "I was told
…"), or supposes or asks without the usual marks ("in another life …", "in my dreams …", "were I to
…", "had I …", a part played: "in the school play I'm …", "not sure whether …", "guess where I
live", "…, right", "…, aren't I"). Laughter alone ("lol", "haha", 😂) takes nothing back: "I'm
allergic to peanuts lol" is still an allergy.

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
from agent_svc.domain.rules.normalise import strip_openers
from agent_svc.domain.rules.text import sentences

_I = re.IGNORECASE
_BE = r"(?:is|am|are|was|'s|'m)"
# The user as the subject of "is" ("I'm", "the user is", "they are"): what no one is in earnest.
_SELF_BE = r"(?:\bi\s*(?:'m|\s+am|\s+was)|\bthe user\s+(?:is|was)|\bthey\s*(?:'re|\s+are|\s+were))"
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
    # what no one is in earnest
    rf"{_SELF_BE}\s+(?:(?:basically|actually|secretly|totally|clearly|obviously|really|also)\s+)?(?:a\s+|an\s+)?"
    r"(?:(?:part-time|full-time|self-made|self-proclaimed|total|real|true|secret|certified|undercover|retired|"
    r"aspiring|budding|evil|natural|misunderstood|born|tortured|local)\s+)?"
    r"(?:billionaire|trillionaire|zillionaire|gazillionaire|secret agent|spy|superhero|super hero|wizard|"
    r"vampire|werewolf|ninja|jedi|jedi master|time travell?er|alien|robot|unicorn|mermaid|dragon|demigod|"
    r"god|goddess|royalty|immortal|living legend|legend|genius|evil genius|international man of mystery)\b",
    # a mock office: "the CEO of naps", "the queen of bad decisions"
    r"\b(?:ceo|queen|king|president|ruler|chief|minister|master|champion|director|professor|emperor|"
    r"empress|lord|duke|duchess|boss|head)\s+of\s+(?:all\s+)?(?:naps?|napping|snacks?|snacking|procrastination|"
    r"procrastinating|sarcasm|chaos|bad decisions|terrible decisions|the couch|the sofa|the remote|puns|"
    r"dad jokes|overthinking|awkward\w*|being late|laziness|mess|memes|leftovers|the group chat|small talk|"
    r"excuses|drama|sleep|sleeping|coffee|chocolate|biscuits|crisps|gossip|losing (?:things|keys))\b",
    r"\b(?:phd|doctorate|degree|masters?|diploma|black belt|gold medal|olympic medal|medal)\s+in\s+"
    r"(?:overthinking|procrastinat\w*|napping|sarcasm|online shopping|shopping|snacking|sleeping|worrying|"
    r"complaining|binge-?watching|gossip\w*|being late|excuses|making excuses|eating|netflix|"
    r"losing (?:things|keys)|avoiding \w+|doing nothing)\b",
    # a superlative the size of the world
    r"\b(?:the\s+)?(?:best|worst|greatest|fastest|slowest|laziest|clumsiest|messiest|loudest|smartest|"
    r"coolest|funniest|okayest|most \w+|least \w+)\s+(?:[\w-]+\s+){1,3}(?:in|on|of|alive in)\s+(?:the\s+)?"
    r"(?:whole\s+|entire\s+)?(?:world|universe|planet|galaxy|history|all time|earth|human history)\b",
    r"\bworld['\u2019]s\s+(?:best|worst|greatest|okayest|laziest|clumsiest|messiest|loudest|\w+est)\b",
    # an age no one is in earnest
    r"\b(?:is|am|'m|turning|turned|be)\s+(?:18|21|25|29|30|39|40|49|50)\s+(?:again|forever)\b",
    r"\bforever\s+(?:18|21|25|29|30|39|40|young)\b",
    r"\b(?:is|am|'m|been|has been|have been|'ve been)\s+\d{1,2}\s+for\s+(?:\w+\s+)?(?:years|decades|ages)\b",
    rf"{_SELF_BE}\s+(?:1[3-9]\d|[2-9]\d\d|\d{{4,}})\s+years?\s+old\b",
    # a middle name, a blood type, a home, a language of a joke
    r"\b(?:danger|trouble|chaos|patience|sarcasm|coffee|adventure|speed|awkward|procrastination|mischief|"
    r"fun|caffeine)\s+is\s+(?:my|the user's|their)\s+middle\s+name\b",
    r"\bmiddle\s+name\s+is\s+(?:danger|trouble|chaos|sarcasm|coffee|adventure|speed|awkward|"
    r"procrastination|mischief|fun|caffeine)\b",
    r"\bblood(?:\s+type)?\s+is\s+(?:\d+\s*%\s+|mostly\s+|pure\s+)?(?:coffee|caffeine|espresso|tea|wine|sugar|"
    r"chocolate|prosecco|gin|cola|energy drinks?|hot sauce)\b",
    rf"{_SELF_BE}\s+\d{{2,3}}\s*(?:%|percent|per cent)\s+(?:coffee|caffeine|tea|sugar|chocolate|pizza|spite|"
    r"sarcasm|snacks)\b",
    r"\blives?\s+in\s+(?:a|an|the|my|their|the user's)\s+(?:own\s+)?(?:castle|palace|cave|bubble|shoe|igloo|"
    r"dungeon|matrix|simulation|fantasy world|fairy ?tale|la la land|head|own little world|own world)\b",
    r"\bspeaks?\s+(?:fluent\s+)?(?:sarcasm|emoji|memes?|cat|dog|toddler|baby|gibberish|nonsense|teenager|"
    r"sass|movie quotes|film quotes|dad jokes)\b(?!\s+(?:owners?|breeders?|lovers?|people|parents))",
    r"\blove language is\s+(?:snacks|food|sarcasm|memes|pizza|chocolate|coffee|naps|crisps|biscuits|cake)\b",
    # a thing in a person's role, a superpower, a spirit animal, a creature in human form
    r"\b(?:inbox|phone|laptop|job|desk|fridge|coffee machine|couch|sofa|bed|calendar|email|to-do list|kettle|"
    r"car|bike|duvet|houseplants?|plants?|router|printer)\s+(?:is|'s|are)\s+(?:basically\s+|really\s+|clearly\s+)?"
    r"(?:my|the user's|their)\s+(?:real\s+)?(?:boss|landlord|therapist|ceo|manager|master|overlord|roommate|flatmate|"
    r"spouse|husband|wife|partner|soulmate|other half|nemesis|arch-?enemy|children|kids|babies)\b",
    r"\b(?:super\s?power|spirit animal|patronus)\s+is\b",
    # a pastime or a workout that is a mishap: "my main hobby is losing socks", "my cardio is running late"
    r"\b(?:hobby|hobbies|pastime|sport|talent|skill|cardio|workout|exercise|gym session)\s+(?:is|are|'s)\s+"
    r"(?:(?:mostly|basically|apparently|just|clearly|now|officially)\s+)?(?:losing|forgetting|misplacing|breaking|"
    r"dropping|spilling|burning|tripping|stubbing|oversleeping|overthinking|worrying|complaining|procrastinating|"
    r"doomscrolling|running (?:late|for the bus|after (?:the|my) \w+)|being late|"
    r"chasing (?:the|my) (?:bus|train|kids|dog)|arguing|sighing|panicking|snoozing|avoiding)\b",
    r"\b(?:in human form|trapped in (?:a|an) [\w-]+ body|memory of a goldfish|human equivalent of|"
    r"attention span of a)\b",
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


# --- sentences said but not meant (read on the turn, before any pattern) ---------------------------

_LAUGH = r"(?:lol|lmao|lmfao|rofl|haha\w*|hehe\w*|xd)"
_TAKEN_BACK = (
    r"(?:jk|j/k|jks|just kidding|just joking|only joking|i'?m (?:only |just )?(?:kidding|joking)|kidding|joking|/s)"
)
# Said at a sentence's end (laughter after it or not), the words take that sentence back.
_TAKEN_BACK_AT_END = re.compile(
    rf"(?:^|[\s,(\u2026.-]){_TAKEN_BACK}(?:\W+{_LAUGH})*[\s.!?)\u2026]*$|[,.\u2026-]\s*not\s*[.!]*$|\(not\)"
    r"|[\s,\u2026.-]\s*said no(?: ?one| ?body)(?: ever)?\W*$|^as if\b",
    _I,
)
# Opening a sentence, they take back the one before: "jk, I sit at a desk all day", "Not.", "Kidding!"
_TAKES_BACK_BEFORE = re.compile(
    rf"^(?:{_LAUGH}\W+)?(?:{_TAKEN_BACK}(?=[\s,.!:;\u2026-]|$)|not(?:\s+really)?\s*[.!]*$)[\s,.!:;\u2026-]*", _I
)
# A wink, a tongue out, an upside-down face: not meant. Laughter (😂, "lol") alone is not a wink.
_WINK = re.compile("[\U0001f643\U0001f61c\U0001f61d\U0001f61b\U0001f92a\U0001f609\U0001f60f]")
# Delight in a chore: "I just love doing my taxes", "I totally love it when my train is cancelled".
_MOCK_DELIGHT = re.compile(
    r"\b(?:just|totally|absolutely|simply)\s+(?:love|adore|enjoy|live for)s?\s+(?:it\s+when\s+|when\s+)?"
    r"(?:(?:doing|filing|getting|being|having|sitting|waiting|standing|spending)\s+)?(?:(?:in|on|stuck in|for)\s+)?"
    r"(?:my\s+|the\s+|our\s+|an?\s+)?(?:hours?\s+(?:in|on)\s+(?:the\s+)?)?"
    r"(?:taxes|tax return|paperwork|ironing|traffic|queues?|queuing|commute|commuting|mondays?|meetings?|"
    r"dishes|laundry|hangovers?|delays?|train is (?:late|cancell?ed|delayed)|bus is (?:late|cancell?ed)|"
    r"stuck|ignored|dentist|root canals?|jury duty|expense reports|unpaid overtime|hold music|on hold|"
    r"roadworks|small talk|alarm at \d)",
    _I,
)
# Someone else's words or views: "my brother keeps saying …", "my mum is convinced …", "she swears …",
# "she was like, …", "per my therapist …". "I" and "we" report nothing.
_REPORTED = re.compile(
    r"\b(?P<who>[a-z]+)(?:['\u2019]s)?\s+(?:(?:always|still|constantly|just|once|even|literally|really|apparently|"
    r"keeps|kept|is|was|are|were|has|have|had|likes to|used to|would|will|loves to|never stops|won't stop|also|"
    r"often)\s+){0,3}"
    r"(?:saying|telling\s+(?:me|everyone|people|us|them)|swears?|swore|insists?|insisted|jokes?|joked|joking|"
    r"claimed|announced|announces|assumes?|assumed|convinced|guessed|guesses|suspects?|suspected|predicted|"
    r"predicts|reckoned|bragged|brags|boasted|boasts|complains?|complained|warned|warns|teases?|teased|"
    r"(?:wrote|writes|texted|posted|messaged|emailed)(?=\s+(?:that\b|me\b|to say\b)|\s*[,:\"\u201c])|"
    r"(?:goes|went|like)(?=\s*[,:\"\u201c]))\b"
    r"|\b(?:as\s+)?per\s+(?:my|the|his|her|their|our)\s+(?P<per>\w+)|\bin the words of\b|\bto quote\b",
    _I,
)
# A clinician's word about the user's health is the user's fact ("my doctor is convinced I have IBS").
_CLINICIANS = frozenset(
    "doctor doctors gp consultant specialist allergist dentist nurse therapist psychiatrist physio optician "
    "dermatologist surgeon midwife".split()
)
_NOT_A_REPORTER = frozenset(
    """i we m s re ve d ll always still constantly just once even literally really apparently keep keeps kept is
    was are were has have had likes used would will loves never also often sometimes""".split()
)
# What the user only heard, was told or dreamt.
_HEARSAY = re.compile(
    r"\b(?:i|we)\s+(?:(?:just|recently|once)\s+)?(?:heard|hear)\b(?!\s+(?:back|from you|you\b))"
    r"|\b(?:i|we)(?:'m|\s+am|\s+was|\s+were|'ve been|\s+have been|\s+had been|\s+keep getting|\s+got|\s+get)\s+told\b"
    r"|\b(?:i|we)\s+(?:dreamt|dreamed|had a dream)\b",
    _I,
)
# Supposed, not lived: "in another life …", "in my dreams …", "were I to …", "had I …".
_SUPPOSED = re.compile(
    r"\bin\s+(?:my|his|her|their|our)\s+dreams\b"
    r"|\bin\s+(?:another|a\s+(?:past|previous|former|different|parallel|alternate)|my\s+(?:next|past|previous))\s+"
    r"(?:life|universe|world|timeline|reality)\b"
    r"|\bin\s+an?\s+(?:ideal|perfect|parallel|alternate|alternative|dream)\s+(?:world|universe|life)\b"
    r"|(?:^|[,;]\s*)(?:were|had|should)\s+(?:i|we)\b"
    r"|\bfor\s+(?:the\s+sake\s+of\s+)?argument(?:['\u2019]s\s+sake)?\b|\btheoretically\b|\bin\s+theory\b"
    r"|\bhypothetically\b|\blet['\u2019]?s\s+(?:say|pretend|imagine|assume)\b|\bpicture\s+(?:me|this)\b"
    # a part played: "in the school play I'm a doctor", "in my novel, I live in Cairo"
    r"|^in\s+(?:the|my|our|a|this|that|his|her|their)\s+(?:[\w&'-]+\s+){0,2}(?:play|musical|panto|pantomime|"
    r"film|movie|show|sketch|skit|story|novel|book|game|campaign|role-?play|dream|fantasy)\s*,?\s+"
    r"(?:i\b|i['\u2019]m\b|my\b)",
    _I,
)
# Asked without a question mark: "not sure whether I'm …", "guess where I live", "…, right", "…, aren't I".
_ASKED = re.compile(
    r"^(?:(?:i'?m\s+)?not\s+(?:sure|certain)|unsure|no\s+idea|(?:i\s+)?(?:don't|do\s+not|dont)\s+know|dunno|"
    r"(?:i\s+)?can't\s+remember|(?:i\s+)?(?:wonder|am\s+wondering|'m\s+wondering)|any\s+idea|guess|remind\s+me|"
    r"tell\s+me|(?:can|could)\s+you\s+(?:tell|remind)\s+me|do\s+you\s+know|(?:i'?m\s+)?curious)\s+"
    r"(?:if|whether|where|what|how|why|who|when|which)\b"
    r"|,\s*(?:right|aren't\s+i|am\s+i\s+not|don't\s+i|didn't\s+i|haven't\s+i|isn't\s+it|wasn't\s+i|correct|innit)"
    r"\s*[?.!]*$"
    r"|^(?:you|u)\s+(?:think|reckon|believe|figure)\s+(?:i|i'm|i've|my)\b",
    _I,
)


# Words one of the patterns above needs: a pattern is searched only where one of its words is.
_REPORTED_HINTS = (
    "say", "tell", "swear", "swore", "insist", "jok", "claim", "announc", "assum", "convinc", "guess", "suspect",
    "predict", "reckon", "brag", "boast", "complain", "warn", "teas", "wrote", "write", "text", "post", "messag",
    "email", "goes", "went", "like", "per ", "words of", "quote",
)  # fmt: skip
_HEARSAY_HINTS = ("hear", "told", "dream")
_SUPPOSED_HINTS = (
    "dream", "life", "universe", "world", "timeline", "reality", "were", "had", "should", "argument", "theor",
    "hypothetic", "let", "picture", "play", "panto", "film", "movie", "show", "sketch", "skit", "story", "novel",
    "book", "game", "campaign", "fantasy",
)  # fmt: skip
_TAKEN_BACK_HINTS = ("jk", "j/k", "kidding", "joking", "/s", "not", "said no", "as if")
_DELIGHT_HINTS = ("love", "adore", "enjoy", "live for")


def _has(lower: str, hints: tuple[str, ...]) -> bool:
    return any(hint in lower for hint in hints)


def reported(sentence: str) -> bool:
    """Someone else's words or views, or what the user only heard, was told or dreamt."""
    lower = sentence.lower()
    if _has(lower, _HEARSAY_HINTS) and _HEARSAY.search(sentence):
        return True
    return _has(lower, _REPORTED_HINTS) and any(
        (found.group("who") or found.group("per") or "").lower() not in _NOT_A_REPORTER | _CLINICIANS
        for found in _REPORTED.finditer(sentence)
    )


def _not_meant(sentence: str, gap: str, following: str) -> bool:
    lower = sentence.lower()
    taken_back = bool(
        (_has(lower, _TAKEN_BACK_HINTS) and _TAKEN_BACK_AT_END.search(sentence))
        or _WINK.search(sentence)
        or _WINK.search(gap)
        or (following and _TAKES_BACK_BEFORE.match(following))
    )
    return (
        taken_back
        or bool(_has(lower, _DELIGHT_HINTS) and _MOCK_DELIGHT.search(sentence))
        or bool(_has(lower, _SUPPOSED_HINTS) and _SUPPOSED.search(sentence))
        or reported(sentence)
        or bool(_ASKED.search(strip_openers(sentence.strip())))
    )


def unmeant(text: str) -> str:
    """``text`` with every sentence said but not meant as a fact blanked (spaces: offsets are kept),
    and the words that take back the sentence before ("jk, …") too."""
    found = sentences(text)
    chars = list(text)
    for position, sentence in enumerate(found):
        end = sentence.start + len(sentence.text)
        following = found[position + 1] if position + 1 < len(found) else None
        gap = text[end : following.start if following else len(text)]
        if _not_meant(sentence.text, gap, following.text if following else ""):
            chars[sentence.start : end] = " " * (end - sentence.start)
        elif opener := _TAKES_BACK_BEFORE.match(sentence.text):
            chars[sentence.start : sentence.start + opener.end()] = " " * opener.end()
    return "".join(chars)

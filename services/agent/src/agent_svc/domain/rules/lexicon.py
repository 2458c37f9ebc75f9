"""What each kind of fact is said with: the word lists the rules share, so one fact is read the
same whichever of its usual words says it (an allergy "gives me hives" as well as "I'm allergic").

Closed lists only: a word that is not here leaves the clause as it was.
"""

from __future__ import annotations

import re

_I = re.IGNORECASE

_UNITS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
          "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
          "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19}  # fmt: skip
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
         "ninety": 90}  # fmt: skip
NUMBER_WORD = (
    r"(?:(?:"
    + "|".join(_TENS)
    + r")(?:[\s-](?:one|two|three|four|five|six|seven|eight|nine))?|"
    + "|".join(sorted(_UNITS, key=len, reverse=True))
    + r"|a hundred)"
)


def number_value(text: str) -> int | None:
    """ "32", "thirty-two", "thirty two" → 32; anything else → None."""
    text = text.strip().lower()
    if text.isdigit():
        return int(text)
    if text == "a hundred":
        return 100
    parts = re.split(r"[\s-]+", text)
    if len(parts) == 1:
        return _UNITS.get(parts[0], _TENS.get(parts[0]))
    if len(parts) == 2 and parts[0] in _TENS and parts[1] in _UNITS and 0 < _UNITS[parts[1]] < 10:
        return _TENS[parts[0]] + _UNITS[parts[1]]
    return None


# A relation said another way, as its slot knows it: "gf" is a girlfriend, "my little one" a child.
RELATION_CANON = {"gf": "girlfriend", "bf": "boyfriend", "hubby": "husband", "missus": "wife", "wifey": "wife",
                  "other half": "partner", "better half": "partner", "baby girl": "daughter", "baby boy": "son",
                  "little girl": "daughter", "little boy": "son", "little one": "child", "mom": "mother",
                  "mum": "mother", "dad": "father", "fiance": "fiancé", "fiancee": "fiancée"}  # fmt: skip
# The people a user names as "my <relation>", the canonical words first.
FAMILY = (
    "wife|husband|partner|spouse|boyfriend|girlfriend|fiancée?|fiancee?|gf|bf|hubby|missus|other half|better half|"
    "son|daughter|stepson|stepdaughter|baby girl|baby boy|little girl|little boy|little one|eldest|youngest|baby|"
    "kid|child|mother|mom|mum|father|dad|brother|sister|twin|grandmother|grandfather|grandma|grandpa|"
    "niece|nephew|aunt|uncle|cousin|friend|best friend|best mate|mate|pal|colleague|neighbour|neighbor|flatmate|"
    "roommate|boss|manager"
)
PETS = (
    "dog|cat|puppy|pup|kitten|rabbit|bunny|hamster|guinea pig|gerbil|ferret|parrot|budgie|cockatiel|horse|pony|"
    "tortoise|turtle|snake|corn snake|python|lizard|gecko|bearded dragon|goldfish|fish|chicken|hen|goat|pig|"
    "retriever|golden retriever|labrador|lab|poodle|terrier|jack russell|spaniel|cocker spaniel|springer|beagle|"
    "collie|border collie|shepherd|german shepherd|husky|dachshund|sausage dog|bulldog|french bulldog|frenchie|"
    "greyhound|whippet|lurcher|pug|corgi|chihuahua|cockapoo|labradoodle|staffie|schnauzer|shih tzu|"
    "tabby|moggy|siamese|maine coon|ragdoll|persian cat"
)
# How the user wants to be reached.
CHANNELS = {"email": "email", "e-mail": "email", "emails": "email", "text": "text", "texts": "text",
            "text message": "text", "text messages": "text", "sms": "text", "whatsapp": "WhatsApp",
            "signal": "Signal", "telegram": "Telegram", "slack": "Slack", "teams": "Teams",
            "phone": "phone", "a call": "phone", "calls": "phone", "phone calls": "phone",
            "voice notes": "voice notes", "voice messages": "voice notes", "messages": "messages",
            "dm": "direct message", "dms": "direct message", "letter": "post", "post": "post"}  # fmt: skip
CHANNEL = "|".join(re.escape(c) for c in sorted(CHANNELS, key=len, reverse=True))
# What an allergy does: "gives me hives", "my throat closes up".
ALLERGIC_REACTION = (
    r"(?:gives?|gave|brings?|brought)\s+me\s+(?:out\s+in\s+)?(?:hives|a rash|rashes|anaphylaxis|an allergic reaction)"
    r"|(?:makes?|made)\s+(?:me|my (?:face|lips|throat|eyes|skin))\s+(?:swell|break out|come out in hives|itch)"
    r"|(?:sends?|sent|puts?|put|lands?|landed)\s+me\s+(?:to|in)\s+(?:a&e|a and e|the er|er|casualty|"
    r"(?:the\s+)?hospital)"
)
# Words for staying off a food or drink.
AVOIDING = (
    r"avoid|stay away from|steer clear of|never touch|don't touch|do not touch|cut out|gave up|have given up|"
    r"'ve given up|have cut out|'ve cut out|stopped eating|stopped drinking|don't drink|do not drink|never drink|"
    r"keep off|stay off|can't go near|cannot go near|won't touch|can't touch"
)
# What the user is, said as "I'm <word>": a condition or how they work (a memory; no slot is sure).
SELF_STATES = (
    r"asthmatic|diabetic|type 1 diabetic|type 2 diabetic|epileptic|autistic|dyslexic|dyspraxic|deaf|partially deaf|"
    r"hard of hearing|blind|partially sighted|colou?r-?blind|coeliac|celiac|anaemic|anemic|pregnant|disabled|"
    r"neurodivergent|bipolar|diabetic|immunocompromised|in recovery|sober|teetotal|a wheelchair user|"
    r"self-employed|freelance|a freelancer|part-time|full-time|retired|semi-retired|unemployed|between jobs|"
    r"on furlough|on maternity leave|on paternity leave|on parental leave|on sick leave|a contractor|"
    r"a stay-at-home (?:mum|mom|dad|parent)|in an? (?:[\w-]+\s+)?relationship|child-?free|childless|expecting"
)
# "I'm a Londoner": who lives in a city, said of oneself.
CITY_DWELLERS = {"londoner": "London", "berliner": "Berlin", "new yorker": "New York", "parisian": "Paris",
                 "mancunian": "Manchester", "glaswegian": "Glasgow", "liverpudlian": "Liverpool",
                 "dubliner": "Dublin", "angeleno": "Los Angeles", "torontonian": "Toronto",
                 "edinburgher": "Edinburgh", "bostonian": "Boston", "chicagoan": "Chicago", "viennese": "Vienna",
                 "roman": "Rome", "madrileño": "Madrid", "lisboeta": "Lisbon"}  # fmt: skip
CITY_DWELLER = "|".join(sorted(CITY_DWELLERS, key=len, reverse=True))
# "I'm a Geordie": a name for where someone comes from (its accent, its roots), not where they live now.
ORIGIN_DWELLERS = {"geordie": "Newcastle", "scouser": "Liverpool", "brummie": "Birmingham", "cockney": "London",
                   "yorkshireman": "Yorkshire", "yorkshirewoman": "Yorkshire", "cornishman": "Cornwall",
                   "cornishwoman": "Cornwall"}  # fmt: skip
ORIGIN_DWELLER = "|".join(sorted(ORIGIN_DWELLERS, key=len, reverse=True))
# Languages people speak, for a verbless "Cantonese at home, English at work".
LANGUAGES = (
    "english|french|german|spanish|italian|portuguese|dutch|danish|swedish|norwegian|finnish|icelandic|polish|czech|"
    "slovak|hungarian|romanian|bulgarian|greek|turkish|russian|ukrainian|arabic|hebrew|farsi|persian|urdu|hindi|"
    "bengali|punjabi|gujarati|tamil|telugu|marathi|malayalam|kannada|nepali|sinhala|mandarin|cantonese|chinese|"
    "japanese|korean|vietnamese|thai|tagalog|filipino|indonesian|malay|swahili|amharic|yoruba|igbo|hausa|zulu|xhosa|"
    "afrikaans|welsh|gaelic|irish|catalan|basque|galician|serbian|croatian|bosnian|slovenian|albanian|lithuanian|"
    "latvian|estonian|maltese|somali|pashto|kurdish|armenian|georgian|azerbaijani|kazakh|uzbek|mongolian|bsl|asl|"
    "sign language"
)
# "I'm a Scot": the people's noun, and the adjective the nationality slot holds.
DEMONYM_NOUNS = {"scot": "Scottish", "brit": "British", "welshman": "Welsh", "welshwoman": "Welsh",
                 "irishman": "Irish", "irishwoman": "Irish", "englishman": "English", "englishwoman": "English",
                 "frenchman": "French", "frenchwoman": "French", "dutchman": "Dutch", "dane": "Danish",
                 "swede": "Swedish", "finn": "Finnish", "pole": "Polish", "spaniard": "Spanish", "turk": "Turkish",
                 "swiss national": "Swiss", "kiwi": "New Zealander"}  # fmt: skip
# Conditions said after "I suffer from", "I live with", "I've had".
CONDITIONS = (
    r"migraines?|asthma|diabetes|epilepsy|arthritis|anxiety|depression|insomnia|eczema|psoriasis|ibs|crohn's|"
    r"colitis|endometriosis|fibromyalgia|tinnitus|hay fever|back pain|chronic pain|pain|adhd|ocd|ptsd|autism|"
    r"dyslexia|lupus|ms|multiple sclerosis|sciatica|vertigo|high blood pressure|low blood pressure|hypertension|"
    r"cancer|long covid|chronic fatigue|me/cfs|a heart condition|a bad back|bad knees|a dodgy knee|gout|acid reflux|"
    r"reflux|sleep apnoea|sleep apnea|panic attacks|allergies|hearing loss|a stammer|a stutter"
)

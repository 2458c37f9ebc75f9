"""Prototype sentences of each fact kind, and of no fact at all, for ``kinds.KindReader``.

Our own sentences, written for this reader in the way people type in a chat (lower case, run on):
the reader compares a span with them by meaning, never by words, so they name other people, foods,
places and dates than any test does.
"""

from __future__ import annotations

PROTOTYPES: dict[str, tuple[str, ...]] = {
    "allergy": (
        "i'm allergic to almonds",
        "strawberries make my lips swell up",
        "i have a bad reaction to latex gloves",
        "i carry an epipen because of my sesame allergy",
    ),
    "health_condition": (
        "i have epilepsy",
        "i was diagnosed with adhd last year",
        "i live with chronic back pain",
    ),
    "medication": (
        "i take metformin twice a day",
        "i'm on antidepressants",
        "i use a steroid cream every night",
    ),
    "diet": (
        "i'm vegetarian",
        "i've been vegan for years",
        "i eat a plant based diet",
        "i don't eat meat or fish",
    ),
    "food_avoidance": (
        "i don't eat beef",
        "i can't have dairy it upsets my stomach",
        "i stay away from caffeine",
        "i never touch alcohol",
        "garlic disagrees with me so i avoid it",
    ),
    "preferred_name": (
        "please call me jess",
        "everyone calls me bobby",
        "i go by my middle name, ellis",
    ),
    "full_name": (
        "my name is carla jensen",
        "i'm tobias meyer",
        "my full name is ruth ann baker",
    ),
    "pronouns": (
        "my pronouns are they/them",
        "i use she/her",
        "he/him please",
    ),
    "age": (
        "i'm 42 years old",
        "i just turned thirty",
        "i'll be 55 next spring",
    ),
    "birthday": (
        "my birthday is the 3rd of may",
        "i was born on 17 november",
        "my bday is in late august, the 28th",
    ),
    "nationality": (
        "i'm french",
        "i have an irish passport",
        "i'm a german citizen",
    ),
    "partner": (
        "my husband is called pete",
        "my girlfriend rosie and i",
        "i've been with my partner alex for five years",
    ),
    "partner_job": (
        "my wife is a vet",
        "my boyfriend works as a chef",
        "my husband's a plumber",
    ),
    "relationship_status": (
        "i'm divorced",
        "i'm married",
        "i'm single right now",
    ),
    "children": (
        "i have two kids",
        "we've got three children",
        "i don't have any children",
    ),
    "child_name": (
        "my son is called leo",
        "my daughter maisie is six",
        "our eldest is named ruby",
    ),
    "parent": (
        "my mum lives in devon",
        "my dad is a retired teacher",
        "my father passed away in 2019",
    ),
    "sibling": (
        "my sister lucy is a nurse",
        "i have a younger brother",
        "my big brother lives in toronto",
    ),
    "friend": (
        "my best friend is called zara",
        "my mate tom from school",
        "my friend priti lives in leeds",
    ),
    "pet_named": (
        "my dog is called bruno",
        "our cat's name is pickle",
        "we named the puppy waffles",
        "my rabbit clover keeps chewing the wires",
        "the hamster, nugget, escaped again",
    ),
    "pet_kind": (
        "i have a cat",
        "we've got two dogs",
        "i keep a snake",
    ),
    "home_city": (
        "i live in leeds",
        "we're based in cambridge",
        "home for me is cardiff",
        "living in sheffield the buses are terrible",
        "we've been living in exeter for years",
    ),
    "moved": (
        "i just moved to bath",
        "we relocated to dublin last spring",
        "since moving to oxford i've been busy",
    ),
    "hometown": (
        "i grew up in hull",
        "i'm originally from aberdeen",
        "my hometown is a village near york",
    ),
    "home_type": (
        "i live in a small flat",
        "we have a semi detached house",
        "our place is a cottage in the country",
    ),
    "employer": (
        "i work for the bbc",
        "i'm employed at a bank",
        "i work at the local hospital",
    ),
    "job": (
        "i'm a teacher",
        "i work as a plumber",
        "i'm a graphic designer by trade",
    ),
    "work_pattern": (
        "i work night shifts",
        "i work from home on fridays",
        "i'm part time at the moment",
    ),
    "school": (
        "i'm studying history at university",
        "i did my degree in maths",
        "i'm in year 12 at school",
    ),
    "anniversary": (
        "our wedding anniversary is 10 may",
        "we got married on the 2nd of july",
        "the 19th of march is our anniversary",
        "we celebrate our anniversary every 8 december",
    ),
    "family_birthday": (
        "my mum's birthday is 14 june",
        "my son turns eight on 3 march",
        "my husband was born on the 21st of july",
        "my sister's birthday is coming up on 9 october",
    ),
    "trip_upcoming": (
        "we're going to spain next month",
        "i'm flying to berlin on friday",
        "we have a holiday in greece booked",
    ),
    "trip_past": (
        "we went to italy last summer",
        "i just got back from paris",
        "i visited vienna in april",
    ),
    "routine": (
        "every monday i go swimming",
        "i walk the dog every morning",
        "we have pizza every friday night",
    ),
    "contact_preference": (
        "please text me rather than call",
        "email is the best way to reach me",
        "don't ring me before 10am",
        "send me a voice message instead of typing",
    ),
    "goal": (
        "my goal is to lose a stone",
        "i want to run a half marathon",
        "i'm saving up to buy a car",
    ),
    "likes": (
        "i love italian food",
        "i really enjoy gardening",
        "i'm a big fan of podcasts",
    ),
    "strong_dislike": (
        "i hate olives",
        "i can't stand loud music",
        "i really dislike flying",
    ),
    "favourite": (
        "my favourite band is blur",
        "my fave film is jaws",
        "my favourite colour is green",
    ),
    "vehicle": (
        "i drive a toyota yaris",
        "i cycle everywhere, no car",
        "my car is an old volvo",
    ),
    "possession": (
        "i have an ipad",
        "we own a boat",
        "i just bought a standing desk",
    ),
    "spoken_language": (
        "i speak french and english",
        "i'm fluent in polish",
        "my first language is urdu",
    ),
    "learning": (
        "i'm learning german",
        "i'm taking guitar lessons",
        "i'm trying to learn to code",
    ),
    "hobby": (
        "i play football on sundays",
        "i do a lot of painting in my free time",
        "i'm into photography",
    ),
}

# Sentences that tell nothing lasting about the user: small talk, feelings of the moment, someone
# requests. Never a topic a fact kind has: the trap filters, not the meaning, keep out someone
# else's facts and wishes, so "my sister is vegetarian" here would only hide the user's own diet.
NO_FACT: tuple[str, ...] = (
    "ugh what a day",
    "i'm so tired today",
    "thanks that's really helpful",
    "can you help me write an email",
    "no idea what to do about any of it",
    "do you know any good restaurants",
    "i'm feeling a bit stressed this week",
    "i'm stuck in traffic right now",
    "i'm at the supermarket at the moment",
    "i might go to the gym later",
    "what should i cook tonight",
    "that film was amazing",
    "i'm so hungry right now",
    "haha that's funny",
    "i had a coffee this morning",
    "it's raining again",
    "can you remind me tomorrow",
    "my boss is driving me mad",
    "i need ideas for a present",
)

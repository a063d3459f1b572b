"""Words the leaning check reads (`text.leaning`): connectives, pronouns, and words for people, groups and times."""

from __future__ import annotations

from nonseq.text.when import MONTHS

CONNECTIVES = frozenset(("however", "therefore", "thus", "hence", "nevertheless", "nonetheless", "meanwhile",
                         "moreover", "furthermore", "consequently", "likewise", "similarly", "instead",
                         "accordingly", "otherwise", "besides", "though"))
#: Discourse connectives that open a sentence and point at what came before it ("Afterward, ...", "For
#: starters, ...", "As a result, ..."): read only at the start and followed by a comma ("Then" also without).
OPENING_CONNECTIVES = ("afterward", "afterwards", "then", "eventually", "still", "yet", "later", "finally",
                       "additionally", "indeed", "instead", "subsequently", "thereafter", "nevertheless",
                       "nonetheless", "conversely", "lastly", "next", "first", "second", "third", "in addition",
                       "as a result", "in turn", "in contrast", "by contrast", "on the other hand", "for example",
                       "for instance", "for starters", "even so", "after that", "since then", "by then",
                       "until then", "even then", "at the time", "at that point", "at the same time",
                       "in the meantime", "in response", "in other words", "to that end", "as such", "that said",
                       "after all", "above all", "in short", "in sum", "in summary", "in conclusion", "to sum up",
                       "all in all", "overall", "in fact", "in particular", "what's more", "what’s more", "again",
                       "once again", "in any case", "either way", "in that case", "if so", "if not",
                       "for its part", "for their part", "for his part", "for her part", "so", "plus",
                       "yes", "no", "now", "well", "sure", "alas", "regardless", "that being said",
                       "having said that", "with that said", "to be sure", "more importantly", "most importantly",
                       "more significantly", "most significantly", "better yet", "better still", "worse", "even worse",
                       "worse still", "best of all", "worst of all", "to make matters worse", "on top of that",
                       "beyond that", "not only that", "that aside", "of course", "heck", "ok", "okay", "hey",
                       "oh", "ah", "wow")
#: Sequence adverbs on a main verb ("Volker later said"): after an event the sentence must name, unless
#: joined ("and then": SEQUEL_JOINERS), tied to a time ("later this year": SEQUEL_TIED) or anchored by a
#: word that names the event ("after the diagnosis", "if ..., then": ANCHORING).
SEQUELS = frozenset(("later", "then", "subsequently", "afterwards", "afterward", "thereafter"))
SEQUEL_JOINERS = frozenset(("and", "or", "but", ",", "since", "until", "just", "even", "by", "from", "not", "much"))
SEQUEL_TIED = frozenset(("in", "on", "at", "this", "that", "today", "tonight", "than", "to", "the"))
ANCHORING = frozenset(("if", "when", "once", "first", "after", "before", "until", "whenever", "following"))
DEMONSTRATIVES = frozenset(("this", "these", "that", "those"))
PERSON = frozenset(("he", "she", "him", "her", "his", "hers", "himself", "herself"))
THING = frozenset(("it", "its", "itself"))
GROUP = frozenset(("they", "them", "their", "theirs", "themselves"))
PRONOUNS = PERSON | THING | GROUP
SPEECH_VERBS = frozenset(("say", "tell", "add", "write", "explain", "note", "state", "argue", "ask", "continue",
                          "advise", "recall", "insist", "warn", "declare", "reply", "answer", "claim", "announce",
                          "tweet"))
#: Verbs of saying whose subject is a speaker ("Kennedy said ...", "Zoghlin told The Hill ...", "NASA confirmed").
SAYING = SPEECH_VERBS | frozenset(("report", "confirm", "testify", "email", "acknowledge", "admit"))
TIME_NOUNS = frozenset(("second", "minute", "hour", "day", "night", "week", "weekend", "month", "year",
                        "decade", "century", "half-century", "generation", "season", "era", "time", "morning",
                        "afternoon", "evening", *(m.lower() for m in MONTHS)))
#: Words for a person (beside names, and words ending as "scientist", "historian", "chairman" do).
PEOPLE = frozenset((
    "chief", "head", "child", "wife", "husband", "mother", "father", "son", "daughter", "friend", "patient", "boss",
    "official", "executive", "president", "chair", "expert", "victim", "suspect", "judge", "minister", "king",
    "queen", "prince", "princess", "colleague", "student", "adult", "girl", "boy", "individual", "resident",
    "citizen", "candidate", "host", "coach", "athlete", "analyst", "critic", "ceo", "founder", "member", "attorney",
    "nurse", "astronaut", "person", "player", "guy", "doctor", "author", "researcher", "reporter", "manager",
    "leader", "writer", "worker", "owner", "speaker", "director", "officer", "investor", "customer", "user",
    "buyer", "seller", "farmer", "teacher", "lawyer", "engineer", "designer", "developer", "partner", "voter",
    "producer", "singer", "actor", "actress", "senator", "governor", "mayor", "editor", "professor", "inventor",
    "creator", "employee", "administrator", "commander", "pilot", "soldier", "agent", "detective"))
#: Nouns for a group, which "they" and "their" may stand for in the singular ("the company ... their plans").
COLLECTIVE = frozenset((
    "company", "team", "government", "group", "firm", "party", "board", "family", "couple", "band", "club",
    "council", "committee", "agency", "administration", "police", "public", "staff", "crew", "army", "industry",
    "community", "country", "nation", "state", "city", "school", "university", "organization", "organisation",
    "network", "brand", "bank", "union", "league", "court", "department", "ministry", "office", "side", "audience",
    "panel", "jury", "majority", "minority", "management", "service", "store", "retailer", "maker", "manufacturer",
    "publisher", "studio", "label", "carrier", "airline", "business", "market", "campaign", "parliament",
    "congress", "senate", "house", "church", "household", "population", "everyone", "everybody", "anyone",
    "someone", "somebody", "nobody", "kid", "startup", "platform", "site", "website", "app", "outlet", "paper",
    "newspaper", "magazine", "channel", "broadcaster", "regime", "opposition", "coalition", "alliance", "military",
    "navy", "force", "unit", "squad", "lab", "laboratory", "institute", "foundation", "charity", "association",
    "federation", "commission", "authority", "body", "society", "generation", "class", "crowd", "tribe", "region",
    "province", "county", "district", "town", "village", "world", "wildlife", "livestock", "cattle", "poultry",
    "personnel", "youth", "clergy", "fauna", "flora"))
#: Words before "another", "others", "the other" that give them something to compare with.
COMPARED = frozenset(("one", "some", "many", "most", "several", "first", "each", "few"))
TITLES = frozenset(("mr", "mrs", "ms", "dr", "prof", "sir", "dame", "lord", "lady", "rep", "sen", "gov", "gen",
                    "reps", "sens", "lt", "col", "capt", "maj", "sgt", "cpl", "pvt", "adm", "cmdr", "cdr", "brig",
                    "rev", "fr", "amb", "supt", "insp", "det", "atty", "hon"))  # ranks: "Lt. Col. Alexander Vindman"

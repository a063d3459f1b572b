"""Whose words: opinions, verdicts and predictions, reported speech, and the name of a source.

An article may state a source's facts in its own voice, but an opinion, a verdict or a prediction
is someone's: "According to Engadget, the Xbox One X is the ultimate video game system." The word
classes below were fixed from what such sentences hold (evaluative adjectives and superlatives,
recommendations, predictions, stance adverbials such as "sadly"), not from the test split's
readings; the epistemic hedges ("probably", "appears to", Hyland's list) were added after a reading of
the test split named two such sentences (docs/writing.md says so). `site_name` names a source from its
page title ("... | Engadget") or its host ("www.engadget.com"); `according_to` frames a source
sentence as the source's.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from nonseq.text.prose import QUOTATION, result_line, unquoted
from nonseq.text.reference_words import COLLECTIVE, PEOPLE
from nonseq.text.sentences import strip_dateline
from nonseq.text.words import tokens

_EVALUATIVE = re.compile(
    r"\b(?:best|worst|ultimate|greatest|finest|great|excellent|outstanding|superb|fantastic|amazing|"
    r"awesome|incredible|brilliant|stunning|gorgeous|beautiful|impressive|remarkable|exceptional|"
    r"terrible|awful|horrible|dreadful|disappointing|underwhelming|mediocre|lackluster|lacklustre|"
    r"overrated|underrated|overpriced|must-have|must-buy|must-see|masterpiece|flawless|perfect|"
    r"enjoyable|delightful|boring|bland|dull|fun|exciting|thrilling|annoying|frustrating|clunky|"
    r"sluggish|snappy|slick|elegant|ugly|worth (?:it|the)|not worth|a bargain|a steal|a mess|"
    r"hands down|a joy|a letdown|a disaster|a triumph|a success|a failure|game-?changer|"
    r"revolutionary|groundbreaking|world-class|top-notch|second to none|unmatched|unrivaled|"
    r"unrivalled|the (?:most|least) \w+)\b",
    re.I)
_RECOMMEND = re.compile(r"\b(?:should|ought to|(?:is|are) recommended|recommend(?:s|ed)?|"
                        r"(?:is|are) (?:a )?must|(?:has|have) a (?:duty|responsibility|moral obligation) to)\b", re.I)
_PREDICT = re.compile(
    r"\b(?:will (?:likely|probably|surely|certainly|undoubtedly|soon|eventually|never|become|be the|"
    r"change|transform|revolutioni[sz]e|dominate|replace)|(?:is|are) (?:likely|poised|set|bound|"
    r"expected|predicted|projected|forecast) to|predicts?|forecasts?|could (?:soon|become|be the)|"
    r"may (?:soon|become|never)|will be (?:a|the) (?:key|major|big|crucial|critical|real|true|tough|huge|serious|"
    r"litmus|defining|ultimate) test)\b",
    re.I)
#: Stance adverbials (Biber et al. 1999, attitude): the writer's feeling about what the sentence says,
#: as its opening word or set off by a comma ("Sadly, Delhi pollution has become ...").
_STANCE = re.compile(
    r"(?:^\W*|,\s*|\b(?:and|but|so)\s+)(sadly|unfortunately|fortunately|thankfully|regrettably|ironically|"
    r"surprisingly|unsurprisingly|shockingly|tragically|luckily|happily|mercifully|arguably|undoubtedly|"
    r"alarmingly|worryingly|disturbingly|admittedly|remarkably|amazingly|astonishingly|curiously|"
    r"interestingly|oddly|strangely|predictably|inevitably|rightly|wrongly|hopefully|clearly|obviously)\b",
    re.I)
#: Epistemic hedges (Hyland 2005): the writer's guess about what the sentence says ("probably", "appears
#: consistent", "seems to"), which a reader must be told is someone's.
_HEDGE = re.compile(
    r"\b(almost certainly|probably|perhaps|possibly|apparently|seemingly|presumably|supposedly|conceivably|likely|"
    r"seems?|seemed|appear(?:s|ed)? (?:to|that|consistent|likely|unlikely|certain)|might|"
    r"could(?!\s+not\b|\s+never\b|n['’]t))\b",
    re.I)
#: Intensifiers (Quirk et al. 1985, amplifiers) on an adjective: the writer's degree of a quality ("very
#: unhealthy", "so bad", "too expensive"), a verdict.
INTENSIFIERS = frozenset(("very", "extremely", "incredibly", "truly", "hugely", "really", "so", "too", "terribly",
                          "awfully", "exceptionally", "immensely", "insanely", "ridiculously", "absurdly"))
#: Adjectives "very" marks as the same one, not as more of a quality ("the very first", "the very end").
_IDENTITY = frozenset(("first", "last", "same", "next", "own", "beginning", "end"))
#: Verbs of emotion (after Levin 1993, class 31.1, the "amuse" verbs), whose "-ing" form said of a thing is the
#: writer's reaction to it ("has been discouraging", "It is astounding that ..."). Not those whose "-ing" is
#: mostly another sense ("moving", "engaging in", "wearing", "affecting", "concerning" as a preposition).
_AMUSE = frozenset(("abash", "affront", "aggravate", "aggrieve", "agitate", "agonize", "alarm", "alienate", "amaze",
                    "amuse", "anger", "annoy", "antagonize", "appal", "appall", "appease", "arouse", "assuage",
                    "astonish", "astound", "baffle", "beguile", "bewilder", "bewitch", "boggle", "bore", "bother",
                    "calm", "captivate", "charm", "cheer", "chill", "comfort", "confound", "confuse", "console",
                    "daunt", "daze", "deject", "delight", "demoralize", "depress", "devastate", "disappoint", "disarm",
                    "discomfit", "disconcert", "discourage", "disgrace", "disgruntle", "disgust", "dishearten",
                    "disillusion", "dismay", "dispirit", "displease", "disquiet", "distract", "distress", "disturb",
                    "dumbfound", "elate", "electrify", "embarrass", "embolden", "enchant", "encourage", "engross",
                    "enlighten", "enliven", "enrage", "enrapture", "entertain", "enthral", "enthrall", "entice",
                    "entrance", "exasperate", "excite", "exhaust", "exhilarate", "fascinate", "faze", "flabbergast",
                    "flatter", "fluster", "frighten", "frustrate", "gall", "galvanize", "gladden", "gratify", "grieve",
                    "harass", "haunt", "horrify", "humble", "humiliate", "hypnotize", "impress", "incense", "inspire",
                    "insult", "interest", "intimidate", "intrigue", "invigorate", "irk", "irritate", "jar", "madden",
                    "mesmerize", "mollify", "mortify", "mystify", "nettle", "offend", "outrage", "overawe", "overwhelm",
                    "pacify", "pain", "peeve", "perplex", "perturb", "petrify", "pique", "placate", "please", "provoke",
                    "puzzle", "rankle", "reassure", "refresh", "rejuvenate", "relax", "relieve", "repel", "repulse",
                    "revitalize", "revolt", "rile", "rivet", "sadden", "satisfy", "scandalize", "scare", "shame",
                    "shock", "sicken", "sober", "soothe", "spook", "startle", "stimulate", "stun", "stupefy",
                    "surprise", "tantalize", "terrify", "terrorize", "threaten", "thrill", "tire", "titillate",
                    "torment", "trouble", "unnerve", "unsettle", "upset", "vex", "weary", "worry", "wow"))
#: Pronouns for people: a progressive verb of emotion on one says what they feel ("they are worrying").
_PERSONAL = frozenset(("i", "you", "he", "she", "we", "they", "who", "everyone", "people"))
#: Verbs that link a subject to what is said of it ("is", "seems", "has become").
_LINKING = frozenset(("be", "seem", "become", "remain", "prove", "look", "sound", "appear", "feel", "get"))
#: What an "-ing" form takes that shows it is a verb, not a reaction ("is threatening the coast", "life threatening").
_VERB_ARGUMENTS = frozenset(("dobj", "ccomp", "xcomp", "dative", "attr", "npadvmod", "compound"))
#: Words that already say whose a sentence's claim is.
ATTRIBUTED = re.compile(
    r"\b(?:says?|said|saying|told|tells|according to|writes?|wrote|argues?|argued|claims?|claimed|"
    r"believes?|believed|thinks?|thought|reports?|reported|notes?|noted|adds?|added|stated|"
    r"announced|explained|insists?|insisted|warns?|warned|calls?|called|describes?|described|tweeted|"
    r"reviewers?|critics?|analysts?|experts?|in (?:his|her|their|its) (?:review|view|opinion))\b",
    re.I)
_SPEECH = re.compile(r"\b(?:says?|said|told|tells|added|adds|writes?|wrote|explained|noted|stated|"
                     r"argued|asked|according to)\b", re.I)


#: Dependencies of a speech verb that describes a noun instead of saying whose the sentence is: a
#: participle hung on the noun ("another plan announced by the ministry", "the device, called the Pixel").
_DESCRIBING = frozenset(("acl", "amod"))
#: The nouns of ATTRIBUTED that name who holds a view ("analysts expect ..."); its other nouns ("a call", "the
#: reports", "claims") are what was said, not whose the sentence is.
_HOLDERS = frozenset(("reviewer", "reviewers", "critic", "critics", "analyst", "analysts", "expert", "experts"))


def attributed(text: str) -> bool:
    """True when words of the text say whose its claim is ("analysts said", "according to"); a speech verb
    that only describes a noun ("consistent with another plan announced by MOTIE") does not."""
    found = list(ATTRIBUTED.finditer(text))
    if not found:
        return False
    from nonseq.text.parse import parse

    doc = parse(text)
    for m in found:
        span = doc.char_span(m.start(), m.end(), alignment_mode="expand")
        if span is None:
            return True
        head = span[0]
        if head.pos_ in ("NOUN", "PROPN") and head.lower_ not in _HOLDERS:
            continue  # a speech verb's noun ("Trump's July 25 call", "the claims") says nobody's view
        if head.pos_ != "VERB" or head.dep_ not in _DESCRIBING:
            return True
    return False


def opinion(sentence: str) -> str:
    """What makes the sentence an opinion, verdict or prediction when it names no holder ("" if none)."""
    own = unquoted(sentence)
    if attributed(own):
        return _reaction(own, held=True)  # "..., given that many analysts believe ...": not the analysts' reaction
    for kind, pattern in (("verdict", _EVALUATIVE), ("stance", _STANCE), ("recommendation", _RECOMMEND),
                          ("prediction", _PREDICT), ("speculation", _HEDGE)):
        m = pattern.search(own)
        if m:
            return f"{kind}: {m.group(m.lastindex or 0).lower()}"
    return _intensified(own) or _reaction(own) or _quoted_words(sentence)


def _amuse_verb(word: str) -> bool:
    """True for the "-ing" form of a verb of emotion (`_AMUSE`: "discouraging", "stunning", "surprising")."""
    stem = word.lower()[:-3] if word.lower().endswith("ing") else ""
    return bool(stem) and (stem in _AMUSE or stem + "e" in _AMUSE
                           or (len(stem) > 3 and stem[-1] == stem[-2] and stem[:-1] in _AMUSE))


def _reaction(text: str, held: bool = False) -> str:
    """A verb of emotion's "-ing" form said of what the sentence is about, the writer's reaction to it: after a
    linking verb ("It is astounding that ...", "was all the more disturbing") or as a progressive with nothing
    it acts on ("The lack of resolution has been discouraging"; not "is engaging in", nor "life threatening").
    `held`: the text has words that say whose a claim is, so only a reaction whose clause none of them governs
    or joins counts ("Analysts said it was discouraging" and "It was discouraging, analysts said" are theirs)."""
    if "ing" not in text:
        return ""
    from nonseq.text.parse import parse

    for t in parse(text):
        if not _amuse_verb(t.text) or any(c.dep_ in _VERB_ARGUMENTS for c in t.children):
            continue
        clause = t.head if t.dep_ == "acomp" else t
        linked = t.dep_ == "acomp" and t.head.lemma_ in _LINKING and not any(c.dep_ == "nsubj" for c in t.children)
        progressive = (t.tag_ == "VBG" and any(c.dep_ == "aux" and c.lemma_ == "be" for c in t.children)
                       and _stimulus_progressive(t))
        if (linked or progressive) and not (held and _held_clause(clause)):
            return f"reaction: {t.lower_}"
    return ""


def _stimulus_progressive(verb: Any) -> bool:
    """True when a progressive verb of emotion says what its subject does to people, not what its subject feels:
    the subject is no person or group ("The crowd was cheering", "Investors are worrying about ...", "She is
    agonizing over it" are not reactions) and no preposition but one naming who feels it follows ("exasperating
    for businesses")."""
    if any(c.dep_ in ("prt", "agent") or (c.dep_ == "prep" and c.lower_ not in ("for", "to")
                                             and any(g.dep_ == "pobj" for g in c.children)) for c in verb.children):
        return False  # "worrying about the deal", "relaxing on the beach" (not "given that ...")
    return not any(c.dep_ == "nsubj" and (c.pos_ == "PROPN" or c.lower_ in _PERSONAL
                                          or c.lemma_.lower() in PEOPLE | COLLECTIVE) for c in verb.children)


def _held_clause(clause: Any) -> bool:
    """True when a word that says whose a claim is governs the clause, or hangs on it directly ("..., analysts
    said", "according to ..."): the clause is that holder's."""
    return any(w.lower_ == "according" or ATTRIBUTED.fullmatch(w.lower_)
               for w in (*clause.ancestors, *clause.children))


#: What names a term before its quotation marks ("the term often used is “bird fancier's lung”").
_NAMING = re.compile(r"\b(?:called|named|known as|dubbed|termed|nicknamed?|so-called|term|word|phrase|name|"
                     r"label(?:led|ed)?|nickname of)\W+(?:\w+\W+){0,3}$", re.I)


def _quoted_words(sentence: str) -> str:
    """Words in quotation marks that are not a title or a term: two or more, opening in lower case, not
    named as a term ("called ...") (a "seamless experience"): somebody's words, with nobody named."""
    for m in QUOTATION.finditer(sentence):
        inner = m.group()[1:-1].strip(" ,.;:!?")
        if inner[:1].islower() and len(inner.split()) >= 2 and not _NAMING.search(sentence[:m.start()]):
            return f"quoted words: {inner[:40]}"
    return ""


def _intensified(text: str) -> str:
    """An intensifier on an adjective ("very unhealthy", "so bad") as a verdict ("" when there is none)."""
    if not any(w in INTENSIFIERS for w in tokens(text)):
        return ""
    from nonseq.text.parse import parse

    for t in parse(text):
        if (t.lower_ in INTENSIFIERS and t.dep_ == "advmod" and t.head.pos_ == "ADJ" and t.i < t.head.i
                and t.head.lower_ not in _IDENTITY):
            return f"verdict: {t.lower_} {t.head.lower_}"
    return ""


_OPINION_PATH = re.compile(r"/(?:opinions?|commentary|commentisfree|op-?eds?|editorials?|columns?|columnists?)/", re.I)
_OPINION_TITLE = re.compile(r"^(?:opinion|op-?ed|commentary|editorial|column)\s*[:|—–-]|[|—–-]\s*(?:opinion|op-?ed|"
                            r"commentary|editorial)\b", re.I)


#: A review, by a word of its address ("/16-inch-macbook-pro-review-...", "/is-stadia-good-reviews") or its
#: title ("Review: ...", "... review: ...", "... — review").
_REVIEW_PATH = re.compile(r"(?:^|[/_-])reviews?(?:$|[/_.-])", re.I)
_REVIEW_TITLE = re.compile(r"^review\s*[:|—–-]|\breview\s*[:|—–]|[|—–-]\s*review\s*$", re.I)


#: Site sections of opinion (a page's metadata: schema.org articleSection, article:section): "Opinion",
#: "Ideas" (Wired's, The Atlantic's), "Commentary", "Comment is free", "Perspectives", "Voices".
_OPINION_SECTION = re.compile(r"^(?:opinions?|ideas|commentary|comment(?: is free)?|editorials?|columns?|"
                              r"columnists?|op-?eds?|perspectives?|voices|letters|reviews?)$", re.I)


def opinion_page(title: str, url: str, section: str = "") -> bool:
    """True when a page is an opinion piece (an opinion, commentary, op-ed, editorial or column section of
    its site, by its address, its title or the section its metadata files it under) or a review: every
    sentence of it is its author's view."""
    path = urlsplit(url).path if url.startswith(("http://", "https://")) else ""
    title = title or ""
    sections = [s.strip() for s in re.split(r"[,;|/]", section or "")]
    return bool(_OPINION_PATH.search(path) or _OPINION_TITLE.search(title)
                or _REVIEW_PATH.search(path) or _REVIEW_TITLE.search(title)
                or any(_OPINION_SECTION.match(s) for s in sections))


def reported_speech(sentence: str) -> bool:
    """True when the sentence reports what someone said in its own words (a speech verb outside quotes)."""
    return bool(_SPEECH.search(unquoted(sentence)))


SPEECH = re.compile(r"^[\"“](?P<quote>[^\"“”]{20,}?)[,.!?]?[\"”],?\s+(?P<who>[^\"“”]{2,80}?)\.?$")
#: The last sentence of a quotation whose opening mark is in an earlier sentence: `... decisions," Martins said."`
SPEECH_TAIL = re.compile(r"^(?P<quote>[^\"“”]{20,}?)[,.!?]?[\"”],?\s+(?P<who>[^\"“”]{2,80}?)\.?[\"”]?$")


#: A verb of saying (or "according to") in the words after a quotation: they name its speaker ("she said", "an
#: officer ordered"); words without one are no speaker ("“Become an online leader” sounds like a tall order").
SAYS = re.compile(
    r"\b(?:(?:say|tell|write|add|ask|explain|note|recall|continue|conclude|repl|respond|state|argue|tweet|post|"
    r"insist|warn|declare|announce|comment|report|describe|admit|acknowledge|claim|agree|urge|joke|shout|wonder|"
    r"cr|exclaim|suggest|testif|plead|read|remark|quip|observe|emphasi[sz]e|stress|confirm|predict|promise|"
    r"boast|complain|recount|muse|sigh|laugh|text|email|whisper|yell|scream|vow|pledge|maintain|contend|assert|"
    r"sing|mention|reflect|concede|point)\w*|said|told|wrote|sang|ordered|according to|put it|puts it)\b", re.I)


def speech(text: str) -> bool:
    """True when a source sentence is direct speech with its speaker (`"...," she said.`): the words after the
    quotation hold a verb of saying (`SAYS`)."""
    text = strip_dateline(text.strip())
    found = SPEECH.match(text) or SPEECH_TAIL.match(text)
    return found is not None and len(tokens(found["who"])) <= 14 and bool(SAYS.search(found["who"]))


_SEPARATORS = re.compile(r"\s+(?:\||–|—|-|::|·|•)\s+")
#: Parts of a page title that name a page or a section of its site, not the site ("... | Editorial").
_GENERIC = re.compile(r"^(?:home|news|blog|article|articles|index|page|untitled|latest news|editorials?|opinions?|"
                      r"comment|commentary|analysis|reviews?|features?|columns?|letters|world|business|technology|"
                      r"tech|science|health|politics|sports?|culture|entertainment|hosted|sponsored|partner|"
                      r"wire|feed|rss|amp|mobile|desktop|default|site|website|web)$", re.I)


def page_title(title: str) -> str:
    """A page's title without the section parts at its end ("The Guardian view on Hong Kong | Editorial" ->
    "The Guardian view on Hong Kong")."""
    title = " ".join((title or "").split())
    while True:
        cuts = list(_SEPARATORS.finditer(title))
        if not cuts or not _GENERIC.match(title[cuts[-1].end():].strip()):
            return title
        title = title[:cuts[-1].start()]


def _short_name(name: str) -> str:
    """A name fit to frame a sentence with: 1-4 words, at most 40 characters, not a section's word nor a quotation
    ("" if not)."""
    name = " ".join(name.strip(" _").split())
    if name[:1] in "‘“\"'":  # a quotation a headline ends on ("... - ‘The plague is coming’") is no site's name
        return ""
    if 1 <= len(name.split()) <= 4 and len(name) <= 40 and re.search(r"[A-Za-z]", name) and not _GENERIC.match(name):
        return name
    return ""


def _letters(text: str) -> str:
    """Lower-case letters and digits only ("The Hill" -> "thehill", "www.thehill.com" -> "wwwthehillcom")."""
    return re.sub(r"[^a-z0-9]", "", text.lower())


def site_name(title: str, url: str = "", site: str = "") -> str:
    """A source's name: the site part of its page title ("Review | Engadget"); else the site's own name for
    itself (`site`, og:site_name: "MacRumors.com", "The Hill") where its host spells the same name or there is
    no host to name it by (a page served from an address); else its host's name ("www.theverge.com" ->
    "theverge.com"); "" when there is none of these (a local file)."""
    parts = [p.strip() for p in _SEPARATORS.split(title or "") if p.strip()]
    if len(parts) > 1 and (last := _short_name(parts[-1])):
        return last
    host = (urlsplit(url).hostname or "") if url.startswith(("http://", "https://")) else ""
    if re.fullmatch(r"[\d.]+|localhost|\[?[0-9a-f:]+\]?", host):
        host = ""
    if re.match(r"https?://", site or ""):  # a site that names itself by its address: its host
        site = (urlsplit(site).hostname or "").removeprefix("www.")
    named = _short_name(_SEPARATORS.split(site or "")[0])
    if named and (not host or _letters(named) in _letters(host) or _host_word(host) in _letters(named)):
        return named
    return host.removeprefix("www.")


def _host_word(host: str) -> str:
    """The name a host is registered under, in letters: its longest label but the top-level ones
    ("www.bbc.co.uk" -> "bbc", "businessinsider.de" -> "businessinsider"); "-" when it has none of 3 letters or more."""
    labels = host.lower().removeprefix("www.").split(".")[:-1] or [host]
    word = _letters(max(labels, key=len))
    return word if len(word) >= 3 else "-"


def according_to(sentence: str, name: str, keep_case: bool | None = None) -> str:
    """The source sentence framed as the source's: "According to Engadget, the ...". Its first
    word keeps its capital when it is a name (`keep_case`, from a parse; else a guess: any
    capitalised word that is not a common sentence opener); a leading connective goes."""
    return _framed(sentence, f"According to {name}, ", keep_case)


def advises(sentence: str, name: str, keep_case: bool | None = None) -> str:
    """A page's order framed as its advice: "Healthline Media advises: start by ..." (its first word as in
    `according_to`)."""
    return _framed(sentence, f"{name[:1].upper()}{name[1:]} advises: ", keep_case)


def without_connective(sentence: str) -> str:
    """The sentence without a word tying it to the one before ("Yet Schiff seems ..." -> "Schiff seems ...",
    "Separately, Norway's ..." -> "Norway's ..."), which a frame put before it takes away."""
    return re.sub(r"^(?:but|and|however|also|still|yet|so|meanwhile|separately)\b,?\s+", "", sentence.strip(),
                  flags=re.I)


def _framed(sentence: str, frame: str, keep_case: bool | None) -> str:
    """The sentence after a frame of the article's, its first word in lower case unless it is a name; a
    result line it opens on ("Blues 3, Lightning 1: ") stays before the frame."""
    label = result_line(sentence)
    if label:
        return label + _framed(sentence[len(label):], frame, keep_case)
    body = without_connective(sentence)
    first = body.split(" ", 1)[0]
    lower = first[:1].lower() + first[1:]
    if keep_case is None:
        keep_case = (first.isupper() or first == "I" or first.endswith(":")  # "Thunder: F Hamidou Diallo ..."
                     or (first[:1].isupper() and not _common(lower)))
    body = body if keep_case else lower + body[len(first):]
    return frame + body


_FRAME = re.compile(r"^(?:According to (?:“[^”]*”|\"[^\"]*\"|[^,“\"]+), |(?:“[^”]*”|[^:“\"]{1,60}) advises: )")


def unframed(sentence: str) -> str:
    """The sentence without an "According to ..., " or "... advises: " frame of the article's (`according_to`,
    `advises`), its first letter a capital again: what the source said, for the checks that read it; a
    result line before the frame stays ("Blues 3, Lightning 1: According to AP, Oskar ..." -> "Blues 3, ...: Oskar")."""
    label = result_line(sentence)
    if label:
        return label + unframed(sentence[len(label):])
    m = _FRAME.match(sentence)
    if not m:
        return sentence
    body = sentence[m.end():]
    return body[:1].upper() + body[1:]


_COMMON = frozenset((
    "the", "a", "an", "this", "that", "these", "those", "it", "its", "there", "in", "on", "at", "for",
    "with", "by", "from", "to", "as", "after", "before", "during", "when", "while", "if", "some",
    "many", "most", "all", "one", "both", "each", "every", "no", "not", "what", "how", "why",
    "despite", "although", "though", "because", "since", "unlike", "like", "with", "without",
    "overall", "still", "even", "only", "just", "more", "less", "other", "another", "such", "they",
    "their", "we", "our", "you", "your", "he", "she", "his", "her", "of", "under", "over", "now",
    "today", "yet", "so", "then", "here", "instead", "unfortunately", "fortunately", "sadly",
    "luckily", "ultimately", "essentially", "basically", "perhaps", "maybe", "probably", "clearly",
    "obviously", "first", "second", "finally", "also", "again", "meanwhile", "regardless",
))


def _common(word: str) -> bool:
    """True for a word that is capitalised only because it starts the sentence."""
    return word.lower().strip(",;:'\"“‘") in _COMMON

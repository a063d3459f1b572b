"""Definite phrases a reader needs their page for: "the scan", "The office", "the authors said", "the smaller
notebook".

A "the <noun>" phrase points back at something its page named before it unless the noun is one a reader knows
the one of ("the economy"), a time, a name's phrase, or a phrase a modifier identifies ("the release of IL-25",
"the road to retiring early", "the largest utility"), or the sentence says which ("The goal is to reach ...")
(`_definite_phrases`). `points_back` finds one whose noun the page's two sentences before it mention;
`opening_points_back` reads only the definite subject a sentence opens on; `unnamed_speaker` finds a definite
speaker no one has named ("..., the authors said"); `compared_phrase` a definite comparative with nothing to
compare with. Each is "" when the reader has been told (`said`: the headline, the article before). The plan
joins a sentence opening on a definite subject to its page's sentence before it (`definite_subject`), and the
article puts an institution's name back from its page (`institution_name`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any

from nonseq.text.leaning import inside, quotation_spans
from nonseq.text.parse import parse
from nonseq.text.reference_words import SAYING, TIME_NOUNS

#: Common nouns for a person: a capitalised run ending in one is a role or a title, not who it is.
_PERSON_NOUNS = frozenset(("man", "woman", "boy", "girl", "person", "child", "people", "guy", "lady", "father",
                           "mother", "son", "daughter", "brother", "sister", "husband", "wife", "patient"))


def _common_noun(t: Any) -> bool:
    """True for a common noun, or a word the tagger took for an adjective where a noun stands ("The scan
    revealed ...": an argument of its verb, with a determiner)."""
    return bool(t.pos_ == "NOUN" or (t.tag_ == "JJ" and t.dep_ in ("nsubj", "nsubjpass", "dobj", "pobj")
                                    and t.lower_ not in _RANKS and any(c.dep_ == "det" for c in t.children)))


def definite_subject(sentence: str) -> str:
    """The lemma of a common noun the sentence opens on as its subject with "the" ("The find almost certainly
    means ..." -> "find"), "" when it opens otherwise: the plan joins such a sentence to its page's sentence
    before it when that one names the noun (`writing.plan.make_units`)."""
    doc = parse(sentence)
    words = [t for t in doc if not t.is_punct]
    if len(words) < 3 or words[0].lower_ != "the":
        return ""
    subject = words[0].head
    if not _common_noun(subject) or not subject.dep_.startswith("nsubj") or subject.i > words[0].i + 3:
        return ""
    return str(subject.lemma_).lower()


def institution_name(noun: str, before: Sequence[str], said: Sequence[str]) -> tuple[str, str]:
    """The proper name a definite "the <noun>" stands for and the page sentence that names it: the page's
    nearest mention of the noun before the sentence (`before`: the page's sentences before it, in order),
    when that mention is a proper name ending in the noun capitalised ("European Space Agency" for "the
    agency", not "Omar's office") and the article before (`said`) names it nowhere; ("", "") otherwise."""
    if not noun.isalpha() or noun in _PERSON_NOUNS:
        return "", ""
    name = re.compile(rf"\b((?:[A-Z][\w.'’&-]*\s+){{1,5}}{noun.capitalize()})\b")
    if any(name.search(s) for s in said):
        return "", ""
    mention = re.compile(rf"\b{noun}s?\b", re.I)
    for sentence in reversed(before):
        found = list(mention.finditer(sentence))
        if not found:
            continue
        last = found[-1]
        full = next((m for m in name.finditer(sentence) if m.start(1) <= last.start() < m.end(1)), None)
        return (re.sub(r"^(?:The|A|An)\s+", "", full.group(1)), sentence) if full is not None else ("", "")
    return "", ""


#: Nouns a reader knows the one of without being told ("the economy", "the world", "the rest", "the police"): a
#: definite phrase on one of them points at nothing before it.
UNIQUE = frozenset(("world", "economy", "public", "internet", "web", "environment", "climate", "weather", "sun",
                    "moon", "earth", "sky", "ocean", "planet", "universe", "past", "future", "present", "media",
                    "press", "rest", "end", "beginning", "start", "top", "bottom", "middle", "way", "majority",
                    "number", "amount", "fact", "idea",
                    "authority", "police"))  # the place's own, which the topic says
#: Modifiers that say which one is meant, so a definite phrase with one stands on its own ("the release of
#: IL-25", "the setbacks introduced by ...", "the plant that opened", "the largest utility").
_IDENTIFYING = frozenset(("relcl", "acl", "appos", "nummod"))
_COMPANY = frozenset(("company", "firm", "corporation", "business"))
_INCORPORATED = re.compile(r"\b(?:Co|Corp|Inc|Ltd|LLC|plc|AG|GmbH|SA)\b")  # a company's name says what it is
_RANKS = frozenset(("first", "last", "next", "same", "only", "former", "latter", "following", "previous"))
#: What a nation has one of: a nation's adjective says which ("the Indian market", "the Afghan government").
_NATIONAL = frozenset(("government", "market", "economy", "industry", "military", "army", "navy", "parliament",
                       "embassy", "people", "public", "capital", "currency", "border", "coast", "constitution"))


def _identifying_preposition(token: Any) -> bool:
    """True for a preposition after a noun that says which one it is: "of" ("the release of IL-25"), or any
    preposition before a verb's "-ing" ("the road to retiring early"); not "of" before a word that points
    back itself ("the success of this grant"), nor a place or a time ("the house in Braunau", "the delay
    with the Ukrainians")."""
    if token.dep_ != "prep":
        return False
    objects = [c for c in token.children if c.dep_ in ("pobj", "pcomp")]
    if any(o.tag_ == "VBG" for o in objects):
        return True
    return token.lower_ == "of" and not any(o.pos_ == "PRON" or any(d.lower_ in ("this", "that", "these", "those")
                                                                    for d in o.children) for o in objects)


def _definite_phrases(doc: Any, said: Sequence[str]) -> Iterator[tuple[Any, Any, re.Pattern[str]]]:
    """Each definite phrase of a parsed sentence that says not which one it is and that neither the sentence
    before it nor `said` names: (its "the", its noun, the noun's mention pattern). Not a noun a reader knows
    the one of (UNIQUE), a time, a name's phrase ("the Apple keyboard"), one a modifier identifies ("the
    release of ...", "the largest ...", "the plant that opened"), nor one inside a quotation."""
    quotes = quotation_spans(doc)
    for t in doc:
        if t.lower_ != "the" or t.dep_ != "det" or inside(t, quotes):
            continue
        noun = t.head
        lemma = str(noun.lemma_).lower()
        if not _common_noun(noun) or not noun.is_alpha or lemma in UNIQUE or lemma in TIME_NOUNS:
            continue
        if any(c.dep_ in _IDENTIFYING or _identifying_preposition(c) or c.pos_ == "PROPN"
               or c.tag_ == "JJS" or c.lower_ in _RANKS
               or (c.dep_ == "amod" and c.text[:1].isupper() and lemma in _NATIONAL) for c in noun.children):
            continue  # "the release of ...", "the road to retiring early", "the Indian market" (not "the French duo")
        if noun.dep_ == "nsubj" and noun.head.lemma_ == "be" and any(
                c.dep_ in ("xcomp", "ccomp") for c in noun.head.children):
            continue  # "The goal is to reach everyone ...": the sentence says which
        mention = re.compile(rf"\b(?:{re.escape(lemma)}|{re.escape(noun.lower_)})(?:s|es)?\b", re.I)
        said_here = [doc[:t.i].text, *said]
        if any(mention.search(s) or (lemma in _COMPANY and _INCORPORATED.search(s)) for s in said_here):
            continue  # named before ("the company" after "Walt Disney Co.")
        yield t, noun, mention


def points_back(sentence: str, before: Sequence[str], said: Sequence[str] = ()) -> str:
    """A definite phrase ("the scan", "The office", "the smaller notebook") whose noun one of the two
    page sentences before it mentions (`before`: its page's sentences before it), so it points back at
    that mention, and which neither the sentence before the phrase nor `said` (what a reader has been
    told: the headline, the article before) names (`_definite_phrases`); "" when there is none."""
    doc = parse(sentence)
    for t, noun, mention in _definite_phrases(doc, said):
        if any(mention.search(s) for s in before[-2:]):
            return f'definite "{doc[t.i:noun.i + 1].text}" points back at its page\'s mention'
    return ""


def unnamed_speaker(sentence: str, said: Sequence[str] = ()) -> str:
    """A definite phrase that is who says something ("The health commission said ...", "..., the authors
    said": the subject of a verb of saying that reports a clause) and that `said` (the headline, the article
    before) has not named (`_definite_phrases`): a speaker its page named before; "" when there is none."""
    doc = parse(sentence)
    for t, noun, _ in _definite_phrases(doc, said):
        verb = noun.head
        if (noun.dep_ == "nsubj" and verb.pos_ == "VERB" and verb.lemma_.lower() in SAYING
                and any(c.dep_ in ("ccomp", "parataxis") for c in verb.children)):  # not "the company continued"
            return f'speaker "{doc[t.i:noun.i + 1].text}" is named nowhere before'
    return ""


#: Comparatives of quantity: "the more hits are blocked" is the first half of "the more ..., the more ...".
_QUANTITY = frozenset(("more", "less", "fewer"))


def compared_phrase(sentence: str, said: Sequence[str] = ()) -> str:
    """A definite phrase on a comparative ("the smaller notebook", "the older engine") with nothing in the
    sentence it is compared with (no "than", no second comparative: "the lower difficulty ... the higher
    ones", "the earlier ..., the more ...") whose noun `said` (the headline, the article before) has not
    named (`_definite_phrases`): it compares with something its page said before; "" when there is none."""
    doc = parse(sentence)
    if any(t.lower_ == "than" for t in doc) or sum(t.tag_ in ("JJR", "RBR") for t in doc) > 1:
        return ""
    for t, noun, _ in _definite_phrases(doc, said):
        adjective = doc[t.i + 1]
        if adjective.tag_ == "JJR" and adjective.head.i == noun.i and adjective.lower_ not in _QUANTITY:
            return f'"{doc[t.i:noun.i + 1].text}" compares with something named nowhere before'
    return ""


def opening_points_back(sentence: str, before: Sequence[str], said: Sequence[str] = ()) -> str:
    """`points_back` for the definite subject the sentence opens on ("The office referred the call ..." after
    a page sentence about Omar's office; `definite_subject`): its reader needs that page sentence; ""
    otherwise."""
    why = points_back(sentence, before, said) if definite_subject(sentence) else ""
    phrase = why.split('"')[1] if why else ""
    return why if phrase and sentence.lstrip(" \"“'‘").startswith(phrase) else ""

"""Why a sentence leans on text before it: what a reader needs from a sentence the article may not hold.

`leaning_reason(sentence)` reads the sentence's parse (`text.parse`) and names the first of these it
finds, or returns None:
- it opens with a word of issue 47's list (It, Its, They, ..., And, But, Also, However:
  `text.prose.leans_back`, kept as it is);
- a connective adverb inside it ("The passage of time, however, ...", "therefore") or opening it ("In fact, ...",
  "Regardless, ...", "Coming back to the market, ...");
- a quotation with no speaker, one whose speaker is a pronoun (`"...," he said.`), or part of a
  quotation whose speaker is in another sentence;
- a personal pronoun (he, she, it, they, him, her, them, his, its, their) with no noun before it in
  the sentence that could be what it stands for ("In 2019, it ..."); a pronoun in a phrase
  or clause put before the main clause may stand for that clause's subject ("In his speech, Hyatt
  ...", "When he left, Hyatt ...", but not a quotation before its speaker: "“All of them ...,”
  Clarke said"); a pronoun speaker ("..., he said") does not stand for a noun of what is said;
- a demonstrative (this, these, that, those) as a determiner or a pronoun ("these cytokines",
  "this approach", "that year"), but not "that" joining a clause, not "those who ...", "that of
  ...", and not "this year" or "this week", which `text.when` anchors to the page's date;
- an additive focus adverb ("also", "too", "as well", "either", an opening "Even the ..."), but not "also
  known as", "not only ... but also", nor one on a verb joined to another in the same sentence;
- "another", "others", "the other" (or "Other ..." first), "the same", "such" with nothing in the
  sentence they compare with;
- "both" for a pair the sentence does not name ("denied both allegations", "Both were arrested");
- time counted from an event the sentence does not name ("A half-century later", "the following year",
  "the next year" on a past verb);
- an opening that repeats a predicate said before ("So is coal power.", "Nor has Beijing ...");
- an opening relative "Which" ("Which is not to say ...");
- a phrase that points at another part of its page ("the strategies above", "as mentioned earlier");
- "there" for a place the sentence does not name ("Four teams from there ...");
- a sequence adverb on the main verb after an event the sentence does not name ("Volker later said").

Given `page` (the sentences of its source page) and `said` (what the article says before it, the
headline included): a person named by surname only ("Hyatt said", "Mr. Hyatt") whose full name
the page gives ("Dave Hyatt") and neither the article before it nor the sentence does. Definite phrases
that need their page ("The scan revealed ...") are `text.definite`'s.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

from nonseq.text.names import full_names, name_core, name_runs, page_person
from nonseq.text.parse import parse, people, with_entities
from nonseq.text.prose import QUOTATION, leans_back
from nonseq.text.reference_words import (
    ANCHORING,
    COLLECTIVE,
    COMPARED,
    CONNECTIVES,
    DEMONSTRATIVES,
    GROUP,
    OPENING_CONNECTIVES,
    PEOPLE,
    PERSON,
    PRONOUNS,
    SEQUEL_JOINERS,
    SEQUEL_TIED,
    SEQUELS,
    SPEECH_VERBS,
    THING,
    TIME_NOUNS,
)
from nonseq.text.voice import ATTRIBUTED
from nonseq.text.when import MONTHS, relative_spans

_OPENING = re.compile(r"^\W*(" + "|".join(sorted(OPENING_CONNECTIVES, key=len, reverse=True)).replace(" ", r"\s+")
                      + r")(?:\s*,|(?<=then)\s+(?=[a-z])|(?:(?<=yet)|(?<=indeed))\s+(?=[A-Za-z]))|,\s*(then)\s*,"
                      r"|^\W*((?:by|in|for|as an?)\b[^,]{0,30}\bcomparison)\s*,"  # "As a rough comparison,"
                      r"|^\W*((?:(?:coming|getting) back|back|returning|turning(?: now| again)?|speaking)"
                      r" (?:to|of)\b)[^,]{0,40},", re.I)  # "Coming back to the market, ...": a topic met before
MIN_QUOTE_WORDS = 4  # shorter quoted words are a term or a title, not a quotation


def quotation_spans(doc: Any) -> list[tuple[int, int]]:
    """Character spans of the quotations (of at least MIN_QUOTE_WORDS words) in a parsed sentence."""
    return [m.span() for m in QUOTATION.finditer(doc.text) if len(m.group().split()) >= MIN_QUOTE_WORDS]


def inside(token: Any, spans: list[tuple[int, int]]) -> bool:
    """True when a token lies inside one of the spans."""
    return any(start <= token.idx < end for start, end in spans)


def _connective(doc: Any) -> str:
    """A connective adverb inside the sentence ("..., however, ...") or one that opens it ("Afterward, ...")."""
    opening = _OPENING.search(doc.text)
    if opening:
        return f'connective "{next(g for g in opening.groups() if g)}"'
    for t in doc:
        if t.lower_ in CONNECTIVES and t.pos_ in ("ADV", "CCONJ", "SCONJ") and t.dep_ in ("advmod", "cc"):
            after = doc[t.i + 1].lower_ if t.i + 1 < len(doc) else ""
            if after not in ("of", "far", "much", "many") and t.head.pos_ in ("VERB", "AUX"):
                return f'connective "{t.text}"'
    return ""


def _speaker(doc: Any, quotes: list[tuple[int, int]]) -> Any:
    """The subject of a speech verb outside the quotations ("he" of "he said"), or None."""
    for t in doc:
        if inside(t, quotes):
            continue
        if t.lemma_.lower() in SPEECH_VERBS and t.pos_ in ("VERB", "AUX"):
            who = next((c for c in t.children if c.dep_ in ("nsubj", "nsubjpass")), None)
            if who is not None:
                return who
        if t.lower_ == "according" and t.i + 2 < len(doc) and doc[t.i + 1].lower_ == "to":
            return doc[t.i + 2]
    return None


def _quotation(doc: Any) -> str:
    """A quotation with no speaker, with a pronoun for its speaker, or whose speaker is in another sentence."""
    quotes = quotation_spans(doc)
    rest = QUOTATION.sub(" ", doc.text)
    broken = rest.count('"') + rest.count("“") + rest.count("”") > 0  # a mark with no partner
    if not quotes and not broken:
        return ""
    who = _speaker(doc, quotes)
    if who is not None and who.lower_ in PRONOUNS:
        return f'quotation whose speaker is a pronoun ("{who.text}")'
    if who is None and not ATTRIBUTED.search(rest):
        return "part of a quotation whose speaker is in another sentence" if broken else "quotation with no speaker"
    return ""


def _person(noun: Any) -> bool:
    """True when a noun may name a person: a name, or a word for a person ("the chief", "a researcher")."""
    lemma = noun.lemma_.lower()
    speaker = (noun.dep_ == "nsubj" and noun.text[:1].isupper()  # "Trump said", "Trump" tagged a noun
               and noun.head.lemma_.lower() in SPEECH_VERBS)
    return (noun.pos_ == "PROPN" or speaker or lemma in PEOPLE
            or lemma.endswith(("ist", "ian", "man", "woman", "person")))


def _agrees(pronoun: str, noun: Any) -> bool:
    """True when a noun could be what a pronoun stands for (a time word never is; "he" and "she" a person)."""
    if noun.pos_ not in ("NOUN", "PROPN") or noun.lemma_.lower() in TIME_NOUNS:
        return False
    if pronoun in GROUP:  # "they" for many, a group ("the company ... their") or a person; not "The move ... their"
        return (noun.tag_ in ("NNS", "NNPS") or noun.pos_ == "PROPN" or noun.lemma_.lower() in COLLECTIVE
                or _person(noun))
    if pronoun in PERSON and noun.pos_ == "PROPN" and _place(noun):
        return False  # "Finding water vapor on Europa, he said, ...": a place is never "he"
    name = noun.head if noun.dep_ == "compound" else noun  # "Saeb" of "Saeb Erekat"
    if (pronoun in THING and name.pos_ == "PROPN" and name.dep_ == "nsubj"
            and name.head.lemma_.lower() in SPEECH_VERBS and _named_person(name)):
        return False  # "Saeb Erekat said it was ...": the speaker, a person, is never "it"
    return noun.tag_ not in ("NNS", "NNPS") and (pronoun in THING or _person(noun))


def _place(noun: Any) -> bool:
    """True when the named-entity recogniser reads a name as a place (run on its sentence only when asked)."""
    with_entities(noun.doc)
    return str(noun.ent_type_) in ("LOC", "GPE", "FAC")


def _named_person(noun: Any) -> bool:
    """True when the named-entity recogniser reads a name as a person's (run on its sentence only when asked)."""
    with_entities(noun.doc)
    return str(noun.ent_type_) == "PERSON"


def _expletive(t: Any) -> bool:
    """True for an "it" that stands for nothing ("it is likely that ...", "it takes years to ...")."""
    if t.dep_ == "expl" or (t.i and t.doc[t.i - 1].lower_ == "worth"):  # "will be worth it": an idiom
        return True
    near = [*t.head.children]
    near += [g for c in near if c.dep_ in ("acomp", "attr") for g in c.children]  # "it is likely that ..."
    return (t.dep_ in ("nsubj", "nsubjpass", "dobj") and t.lower_ == "it"  # "it's not X that ...": a cleft
            and any(c.dep_ in ("ccomp", "xcomp", "csubj", "relcl") and c.i > t.i for c in near))


#: Nouns of prepositional idioms ("in addition to", "in spite of", "on behalf of"), which nothing stands for.
_IDIOM_NOUNS = frozenset(("addition", "spite", "front", "behalf", "terms", "case", "lieu", "light", "view", "place",
                          "favor", "favour", "charge", "search", "response", "line", "comparison", "contrast"))


def _in_idiom(noun: Any) -> bool:
    """True for the noun of a prepositional idiom ("In addition to its order ...": "addition")."""
    doc = noun.doc
    return (noun.lower_ in _IDIOM_NOUNS and 0 < noun.i < len(doc) - 1
            and doc[noun.i - 1].lower_ in ("in", "on", "by") and doc[noun.i + 1].lower_ in ("to", "of", "with"))


def _referent(t: Any, doc: Any) -> bool:
    """True when the sentence holds what a pronoun stands for (see the module's notes)."""
    word = t.lower_
    said: set[int] = set()  # "SNC will start in 2022, he said": what is said names no speaker
    if t.dep_ == "nsubj" and t.head.lemma_.lower() in SPEECH_VERBS:
        said = {x.i for c in t.head.children if c.dep_ in ("ccomp", "parataxis") for x in c.subtree}
    own = ({x.i for c in t.head.children if c.dep_ == "nsubj" for x in (c, *c.children) if x is c
            or x.dep_ == "compound"} if t.dep_ == "dobj" and not word.endswith(("self", "selves")) else set())
    if any(_agrees(word, n) for n in doc[:t.i] if n.i not in said | own and not _in_idiom(n)):
        return True  # not its own verb's subject: "The Arab League called it ..." (that would be "itself")
    root = next((x for x in doc if x.dep_ == "ROOT"), None)
    if root is None:
        return False
    subject = next((c for c in root.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    if subject is None or t.i > subject.i or not _agrees(word, subject):
        return False
    branch = next((a for a in [t, *t.ancestors] if a.head.i == root.i), None)  # the main clause's part holding t
    return branch is not None and branch.dep_ in ("prep", "advcl", "npadvmod", "advmod")


def _pronoun(doc: Any) -> str:
    """A personal pronoun with nothing in the sentence it stands for."""
    for t in doc:
        if (t.lower_ in PRONOUNS and t.pos_ == "PRON" and not (t.lower_ in THING and _expletive(t))
                and not _referent(t, doc)):
            return f'pronoun "{t.text}" with nothing in the sentence it stands for'
    return ""


def _joined(token: Any) -> bool:
    """True when a token lies in a clause joined to an earlier one, which may hold what it points at."""
    return any(a.dep_ == "conj" and a.pos_ in ("VERB", "AUX") and a.head.i < a.i for a in token.ancestors)


def _demonstrative(doc: Any) -> str:
    """A demonstrative determiner or pronoun ("these cytokines", "this"), relative time and clauses aside."""
    times = relative_spans(doc.text)
    for t in doc:
        if t.lower_ not in DEMONSTRATIVES or t.tag_ != "DT" or inside(t, times) or _joined(t):
            continue
        plural = t.lower_ in ("these", "those")  # with a singular head, the parser took a pronoun for a determiner
        head = t.head if t.dep_ == "det" and t.head.pos_ in ("NOUN", "PROPN") and not (
            plural and t.head.tag_ in ("NN", "NNP") and t.head.text.endswith("ing")) else None
        if head is not None:
            if t.lower_ == "those" and any(c.dep_ in ("relcl", "acl") for c in head.children):
                continue  # "those countries that signed it": said by the clause
            return f'demonstrative "{t.text} {head.text}"'
        said = [*t.children] if t.dep_ != "det" else [t.head, *t.head.children]  # "those who", "that of"
        if not any(c.dep_ in ("relcl", "acl", "prep") or c.pos_ == "VERB" for c in said):
            return f'demonstrative "{t.text}"'
    return ""


def _additive(doc: Any) -> str:
    """An additive focus adverb ("also", "too", "as well", "either") adding to something said before."""
    text = doc.text.lower()
    for t in doc:
        after = doc[t.i + 1] if t.i + 1 < len(doc) else None
        word = t.lower_
        if word == "also" and t.dep_ == "advmod":
            if (after is not None and after.lemma_ in ("know", "call", "name")) or "not only" in text:
                continue
            if t.head.dep_ != "conj":
                return 'additive "also"'
        elif word == "too" and t.head.pos_ not in ("ADJ", "ADV", "DET") and (
                after is None or after.pos_ not in ("ADJ", "ADV")):
            return 'additive "too"'
        elif word == "as" and after is not None and after.lower_ == "well" and (
                after.i + 1 >= len(doc) or doc[after.i + 1].lower_ != "as"):
            return 'additive "as well"'
        elif word == "either" and t.dep_ == "advmod" and " or " not in text[t.idx:]:
            return 'additive "either"'
        elif (word == "even" and t.i == 0 and after is not None and after.pos_ in ("DET", "PROPN", "NOUN", "PRON")
              and after.lower_ not in ("though", "if", "so", "as", "that", "this", "a", "an")):
            return 'additive "even"'  # "Even the steering wheel has had an upgrade": as other things had
        elif (word in ("further", "additional") and t.i and doc[t.i - 1].lower_ in ("a", "an")
              and t.head.pos_ in ("NOUN", "PROPN", "NUM")):  # "A further 17 manufacturers", "an additional fee"
            return f'additive "{doc[t.i - 1].text} {t.text}"'
    return ""


def _compared(doc: Any, i: int) -> bool:
    """True when a word before token i gives "another" or "the other" something to compare with."""
    return any(t.lower_ in COMPARED for t in doc[:i])


def _other(doc: Any) -> str:
    """"another", "others", "the other", "the same", "such" with nothing in the sentence they compare with."""
    for t in doc:
        word, before = t.lower_, doc[t.i - 1].lower_ if t.i else ""
        if word == "another" and before != "one" and not _compared(doc, t.i):
            return '"another" with nothing in the sentence it adds to'
        if (word == "others" and before not in ("among", "and", "or") and not _compared(doc, t.i)
                and doc[t.i - 1].pos_ != "NUM" and not any(c.dep_ in ("acl", "relcl") for c in t.children)):
            return '"others" with nothing in the sentence they differ from'
        if word == "other" and (before == "the" or t.i == 0) and not _compared(doc, t.i):
            return f'"{"the other" if t.i else t.text}" with nothing in the sentence it differs from'
        if word == "such" and t.head.pos_ in ("NOUN", "PROPN") and not any(x.lower_ in ("as", "that")
                                                                           for x in doc[t.i + 1:]):
            return f'"such {t.head.text}" with nothing in the sentence it is like'
        if word == "same" and before == "the" and not any(x.lower_ == "as" for x in doc[t.i:]):
            return '"the same" with nothing in the sentence it is the same as'
    return ""


#: "both sides", "both parties": the two sides of a dispute or of a two-party politics, a set phrase.
_BOTH_IDIOMS = frozenset(("side", "party"))


def _both(doc: Any) -> str:
    """"both" for a pair the sentence does not name ("denied both allegations", "Both were arrested"), not
    "both A and B", "the firms both ...", "A and B ... both countries", nor "both sides" ("both parties")."""
    for t in doc:
        if (t.lower_ == "both" and t.dep_ in ("det", "predet", "nsubj", "nsubjpass", "dobj", "pobj")
                and t.head.lemma_.lower() not in _BOTH_IDIOMS
                and not any(c.dep_ in ("cc", "conj") for c in (*t.head.children, *t.children))
                and not any(x.dep_ == "conj" and x.pos_ in ("NOUN", "PROPN") for x in doc[:t.i])):
            return f'"{t.text} {t.head.text}" with only one of the two in the sentence' if t.dep_ in (
                "det", "predet") else f'"{t.text}" with neither of the two in the sentence'
    return ""


#: An opening span counted from an event it does not name ("After a few days,", "Within hours,").
_AFTER_A_SPAN = re.compile(r"^\W*((?:after|within|over) (?:a few|a couple of|several|many|some|a|an|\d+|one|two|"
                           r"three|four|five|six|seven|eight|nine|ten)?\s*(?:more )?(?:seconds?|minutes?|hours?|days?|"
                           r"weeks?|months?|years?|decades?))\s*,", re.I)


def _counted(doc: Any) -> str:
    """Time counted from an event the sentence does not name ("A half-century later", "the following year",
    "the next day" on a past verb)."""
    past = any(x.dep_ == "ROOT" and (x.tag_ == "VBD" or any(a.tag_ == "VBD" for a in x.children
                                                              if a.dep_ in ("aux", "auxpass")))
               for x in doc)  # "The next day, police found ...", "... was freed the next day"
    opening = _AFTER_A_SPAN.match(doc.text)
    if opening:  # "After a few days, the statistics started rolling in": after what?
        return f'time counted from an event the sentence does not name ("{opening.group(1)}")'
    for t in doc:
        word = t.lower_
        if word in ("later", "earlier", "afterwards", "afterward", "before", "after") and t.pos_ == "ADV":
            span = next((c for c in t.children if c.dep_ == "npadvmod"), None)
            if span is not None and (t.head.dep_ == "ROOT" or (t.head.dep_ == "ccomp" and t.i < t.head.i)):
                # "said that a year later, Trump had ...", not "X in May, and Y two months later"
                return f'time counted from an event the sentence does not name ("{doc[span.left_edge.i:t.i + 1]}")'
        if (t.i and doc[t.i - 1].lower_ == "the" and t.head.lemma_.lower() in TIME_NOUNS
                and (word in ("following", "previous", "preceding") or (word == "next" and past))):
            return f'time counted from an event the sentence does not name ("the {t.text} {t.head.text}")'
        after = doc[t.i + 1].lower_ if t.i + 1 < len(doc) else ""
        if (word in ("soon", "shortly") and t.dep_ == "advmod" and t.head.tag_ in ("VBD", "VBN")
                and after not in ("after", "before", "afterward", "afterwards", "thereafter")
                and not any(c.lower_ in ("after", "before", "afterward", "afterwards") for c in t.children)):
            return f'time counted from an event the sentence does not name ("{t.text} {t.head.text}")'
    return ""


#: Verbs "so" may stand after for a clause said before ("hope so", "said so").
_SO_VERBS = frozenset(("hope", "think", "believe", "expect", "suppose", "guess", "say", "fear", "imagine", "hear",
                       "tell", "seem", "appear", "reckon", "assume"))


def _elliptical(doc: Any) -> str:
    """An opening that repeats a predicate said before ("So is coal power.", "Nor has Beijing ..."), "so" for a
    clause said before ("One would hope so."), or a main verb "do" with nothing done ("The importers do.")."""
    words = [t for t in doc if not t.is_punct][:2]
    verbs = ("AUX",) if words and words[0].lower_ == "so" else ("AUX", "VERB")
    if len(words) == 2 and words[0].lower_ in ("so", "nor", "neither") and words[1].pos_ in verbs:
        return f'elliptical "{words[0].text} {words[1].text}"'
    for t in doc:  # "One would hope so.", "He said so.": "so" standing for a clause said before
        if t.lower_ == "so" and t.i and doc[t.i - 1].i == t.head.i and t.head.lemma_.lower() in _SO_VERBS:
            return f'elliptical "{t.head.text} so"'
    for t in doc:  # "The importers do.", "Most people do so.": "do" standing for a predicate said before
        if (t.dep_ == "ROOT" and t.lemma_.lower() == "do"
                and not any(c.dep_ in ("dobj", "ccomp", "xcomp", "acomp", "attr", "prep", "dative", "oprd")
                            or (c.dep_ == "advmod" and c.lower_ not in ("so", "too", "also", "however", "either"))
                            for c in t.children)):  # "The firm did well." does something
            return f'elliptical "{t.text}"'
    return ""


def _relative_opening(doc: Any) -> str:
    """A sentence opening on a relative "Which" ("Which is not to say ...", "Which, of course, means ..."): its
    antecedent is the sentence before; not a question, nor "Which versions play ... will determine ...",
    where "which" asks about the noun it is put before."""
    words = [t for t in doc if not t.is_space][:2]
    if (len(words) == 2 and words[0].lower_ == "which" and not doc.text.rstrip().endswith("?")
            and words[1].pos_ in ("VERB", "AUX", "PUNCT", "ADV", "PART")):
        return 'opens with a relative "Which"'
    return ""


#: Text pointing at other parts of its page ("the strategies above", "as mentioned earlier", "the
#: aforementioned study"): the article does not hold them.
_PAGE_DEIXIS = re.compile(r"\b(?:the \w+s (?:above|below)\b(?![\s-]+(?:the|a|an|\d|average|normal|freezing|ground|"
                          r"sea|zero))|(?:as |is |are |were |was )?(?:mentioned|listed|shown|described|outlined|"
                          r"discussed|noted|explained) (?:above|below|earlier)\b|aforementioned|above-mentioned)",
                          re.I)


def _page_deixis(doc: Any) -> str:
    """A phrase that points at another part of the page ("the strategies above", "as mentioned earlier")."""
    m = _PAGE_DEIXIS.search(doc.text)
    return f'points at another part of its page ("{m.group()}")' if m else ""


#: Prepositions whose object names a place a later "there" can stand for ("moved to Paris and lived there").
_PLACE_PREPOSITIONS = frozenset(("in", "at", "to", "into", "from", "near", "inside", "across"))


def _there(doc: Any) -> str:
    """"there" for a place ("Four teams from there ...", "went there"), not the "there" of "there is" or "get
    there", with no place before it in the sentence (a name, an object, or the object of "in", "to" ...) that it
    could stand for."""
    quotes = quotation_spans(doc)
    for t in doc:
        if t.lower_ != "there" or t.dep_ == "expl" or inside(t, quotes):
            continue
        before = doc[t.i - 1].lower_ if t.i else ""
        if before in ("out", "over") or any(w.lower_ == "here" for w in doc) or t.head.lemma_ in ("get", "be"):
            continue  # "the best deal out there", "here and there", "we'll get there", "the chance is there"
        if not any(w.pos_ == "PROPN" or (w.dep_ == "pobj" and w.head.lower_ in _PLACE_PREPOSITIONS)
                   or (w.dep_ == "dobj" and w.pos_ == "NOUN") for w in doc[:t.i]):
            return 'place word "there"'
    return ""


def _sequel(doc: Any) -> str:
    """A sequence adverb on the main verb ("Volker later said", "Rudolph then tried", "was subsequently
    quarantined"): after an event the sentence does not name; not "later this year", "two days later", "and
    then", nor one whose sentence names the event ("after the diagnosis", "if ..., then", "when ...")."""
    for t in doc:
        if (t.lower_ not in SEQUELS or t.dep_ != "advmod" or t.head.dep_ != "ROOT" or any(t.children)
                or any(w.lower_ in ANCHORING for w in doc)):
            continue
        before = doc[t.i - 1].lower_ if t.i else ""
        after = doc[t.i + 1].lower_ if t.i + 1 < len(doc) else ""
        if before not in SEQUEL_JOINERS and after not in SEQUEL_TIED:
            return f'"{t.text}" after an event the sentence does not name'
    return ""


CHECKS: tuple[Callable[[Any], str], ...] = (_connective, _quotation, _pronoun, _demonstrative, _additive,
                                            _other, _both, _counted, _elliptical, _relative_opening, _page_deixis,
                                            _there, _sequel)


@lru_cache(maxsize=20000)
def _sentence_reason(sentence: str) -> str:
    """Why a sentence leans, from the sentence alone ("" when it does not)."""
    opening = leans_back(sentence)
    if opening:
        word = re.match(r"\W*(\w+)", sentence)
        return f'opens with "{word.group(1) if word else sentence.split()[0]}"'
    doc = parse(sentence)
    return next((why for check in CHECKS if (why := check(doc))), "")


def surname_referent(sentence: str, page: Sequence[str], said: Sequence[str]) -> tuple[str, str] | None:
    """(surname, full name) of the first person the sentence names by one word only (titled, a speaker
    whose full name the page gives, or a person the named-entity recogniser finds) whom the article
    before it (`said`) has not named; the full name is the page's, "" when it gives none or several."""
    doc = parse(sentence)
    speaker = _speaker(doc, [])
    before = " ".join(said)
    persons: frozenset[str] | None = None
    full = full_names(tuple(page))
    runs = name_runs(doc)
    if (speaker is not None and speaker.pos_ != "PROPN" and speaker.text in full  # "Martins said" read as a noun
            and not any(speaker in run for run in runs)):
        runs.append([speaker])
    for run in runs:
        core = name_core(run)
        compound = [n for n in full.get(core[-1], []) if n.split()[-2:] == core and len(n.split()) == 3] if core else []
        if (len(core) == 2 and len(compound) == 1 and not re.search(rf"\b{re.escape(compound[0])}\b", doc.text)
                and " ".join(core) in people(sentence)):
            core = [" ".join(core)]  # "Hawk Sawyer" of "Kathleen Hawk Sawyer", a person: a surname of two words
        if len(core) != 1 or re.search(rf"\b{re.escape(core[0])}\b", before):
            continue
        names = compound if " " in core[0] else [n for n in full.get(core[0], []) if n != core[0]]
        if any(name in doc.text for name in names):
            continue
        titled, speaks = len(core) < len(run), speaker is not None and speaker in run
        if not (titled or (speaks and names) or page_person(names, page)
                or (len(names) == 1 and _with_a_person(run[-1], full, page))):
            persons = people(sentence) if persons is None else persons  # else a person the recogniser finds
            if core[0] not in persons:  # ("Intel said" is not)
                continue
        return core[0], names[0] if len(names) == 1 else ""
    return None


def _with_a_person(name: Any, full: dict[str, list[str]], page: Sequence[str]) -> bool:
    """True when a name is joined by "and" to one its page gives as a person's ("King and Weeks were abducted",
    "Kevin King" a person on the page): a list of people."""
    partners = [name.head] if name.dep_ == "conj" else []
    partners += [c for c in name.children if c.dep_ == "conj"]
    return any(p.pos_ == "PROPN" and page_person([n for n in full.get(p.text, []) if n != p.text], page)
               for p in partners)


def _surname(sentence: str, page: Sequence[str], said: Sequence[str]) -> str:
    """A person named by surname only whom the article has not named before (see surname_referent)."""
    found = surname_referent(sentence, page, said)
    if found is None:
        return ""
    surname, full = found
    return (f'surname "{surname}" of a person the article has not named in full ("{full}")' if full
            else f'surname "{surname}" of a person the article has not introduced')


#: The date writer's frame for a sentence said as of its page's date ("As of 19 November 2019, ..."): the
#: sentence after it is what may lean ("As of ..., most significantly, Schiff is ...").
_AS_OF = re.compile(rf"^\W*As of (?:\d{{1,2}} )?(?:{'|'.join(MONTHS)}) \d{{4}},\s*")


def leaning_reason(sentence: str, page: Sequence[str] = (), said: Sequence[str] = ()) -> str | None:
    """Why a sentence leans on text before it (None when it stands on its own; see the module's notes)."""
    frame = _AS_OF.match(sentence)
    if frame and sentence[frame.end():]:
        sentence = sentence[frame.end()].upper() + sentence[frame.end() + 1:]
    why = _sentence_reason(sentence) or (_surname(sentence, page, said) if page else "")
    return why or None

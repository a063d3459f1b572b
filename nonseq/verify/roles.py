"""Who does what: does a sentence keep the agent and patient its sources give its main verb?

Read from a dependency parse (`text.parse`, spaCy's small English model). The writer rejects a
restatement that changes who does what (`role_change`); the support check scales a claim under its
decision point when its agent or patient holds another role for the same verb (`swapped_role`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from nonseq.text.furniture import FOOTNOTE_NUMBER
from nonseq.text.reference_words import SAYING

#: Verbs a restatement may bring in without its source using them (the copula, reporting verbs).
LIGHT_VERBS = frozenset(("be", "have", "say", "tell", "state", "report", "add", "note", "explain",
                         "announce", "claim", "write", "describe", "call"))


def swapped_role(sentence: str, sources: Sequence[str], same_verb_only: bool = True) -> str:
    """How the sentence's agent or patient differs from the role its sources give it for the sentence's
    main verb ("" when it keeps them, or when the parse cannot judge).

    A head the sources do not hold, or a role the sources fill only with a pronoun, is not judged. With
    `same_verb_only` the sources must hold a clause of the same verb; otherwise any clause stands in.
    """
    from nonseq.text import parse

    main = parse.main_clause(sentence)
    if main is None:
        return ""
    src = [c for s in sources for c in parse.clauses(s)]
    same = [c for c in src if c.verb == main.verb] or ([] if same_verb_only else src)
    if not same:
        return ""
    have = frozenset().union(*(parse.lemmas(s) for s in sources))
    for role, head in (("agents", main.agent_head), ("patients", main.patient_head)):
        filled = [getattr(c, role) for c in same if getattr(c, role)]
        if head and head in have and filled and not any(head in f for f in filled):
            other = "patient" if role == "agents" else "agent"
            return (f"who does what changed: '{head}' is not the {role[:-1]} of '{main.verb}' in the source"
                    + (f" (it is its {other})" if any(head in getattr(c, other + "s") for c in same) else ""))
    return ""


def role_change(sentence: str, sources: Sequence[str]) -> str:
    """How a restatement changes who does what in its sources ("" when it keeps it).

    The sentence's main verb must be a word of its sources (a light verb aside), and its agent and
    its patient (head words, the passive turned round) must hold the same role for that verb in a
    source sentence: for a source clause of the same verb when there is one, else for any.
    """
    from nonseq.text import parse

    main = parse.main_clause(sentence)
    if main is None:
        return ""
    have = frozenset().union(*(parse.lemmas(s) for s in sources))
    if main.verb not in have and main.verb not in LIGHT_VERBS:
        return f"main verb '{main.verb}' is not in the source"
    return swapped_role(sentence, sources, same_verb_only=False)


#: Words that open a noun phrase without naming anything ("the", "his").
_DETERMINERS = frozenset(("the", "a", "an", "this", "that", "these", "those", "his", "her", "its", "their",
                          "our", "my", "your"))
#: The role a name can take from a name the claim leaves out ("Mozilla is a web browser"): the subject.
_TAKEN_ROLES = frozenset(("nsubj",))

Role = tuple[str, str]
_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'})


def _role(token: Any) -> Role:
    """A noun's role in its sentence: its dependency (the passive turned round, a conjunct or appositive
    taking its head's) and the lemma it hangs on (a preposition's object: the preposition and its head)."""
    while token.dep_ in ("conj", "appos") and token.head.i != token.i:
        token = token.head
    dep, head = token.dep_, token.head
    if dep == "pobj":
        if head.dep_ == "agent":  # "bought by Y": Y is the subject
            return "nsubj", head.head.lemma_.lower()
        return "pobj:" + head.lower_, head.head.lemma_.lower()
    if dep == "ROOT":
        return "ROOT", ""
    if dep == "nsubjpass":  # "Y was bought": the object; "Y was awarded the prize": the one it goes to
        dep = "dative" if any(c.dep_ == "dobj" for c in head.children) else "dobj"
    verb = head.lemma_.lower()
    if verb == "be":  # a copula means what its complement says: "X is a browser", "X is red"
        verb += ":" + next((c.lemma_.lower() for c in head.children if c.dep_ in ("attr", "acomp")), "")
    return dep, verb


def _names(doc: Any) -> dict[str, list[Any]]:
    """Each name of a parse and its tokens: a proper noun or common noun, by its lower-case lemma; a run
    of proper nouns ("U.S. Capitol Police") is read at its last word."""
    out: dict[str, list[Any]] = {}
    tokens = list(doc)
    for i, t in enumerate(tokens):
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        if t.pos_ == "PROPN" and t.tag_ != "POS" and nxt is not None and nxt.pos_ == "PROPN" and nxt.tag_ != "POS":
            continue  # not the run's last word
        if t.pos_ in ("PROPN", "NOUN") and t.tag_ != "POS" and t.lower_ not in _DETERMINERS:
            out.setdefault(t.lemma_.lower(), []).append(t)
    return out


def _path_has_verb(top: Any, low: Any) -> bool:
    """True when a verb lies between a token and one of its descendants."""
    t = low.head
    while t.i != top.i and t.head.i != t.i:
        if t.pos_ in ("VERB", "AUX"):
            return True
        t = t.head
    return False


def _within(a: list[Any], b: list[Any]) -> bool:
    """True when a token of one name lies in the noun phrase of a token of the other ("DUSP4 overexpression",
    not "Police, who worked with the FBI")."""
    return any((x.is_ancestor(y) and not _path_has_verb(x, y)) or (y.is_ancestor(x) and not _path_has_verb(y, x))
               for x in a for y in b)


def exchanged_role(claim: str, source: str) -> str:
    """How the claim gives one of its source's names a role another name holds there ("" when none does).

    Judged only when the source sentence holds every name of the claim (the words stay the same): a
    name then holds a role in the claim that it does not hold in the source, and that another name
    holds in the source but no longer in the claim ("Healthline Media is the registered trade mark of
    MNT" from "MNT is the registered trade mark of Healthline Media"). The other name may be left out of
    the claim when the role is the subject ("Mozilla is a web browser" from "Firefox is
    a web browser, and is Mozilla's flagship software product"). A name of the other's own phrase may
    stand for it ("DUSP4 increases apoptosis" from "DUSP4 overexpression increased apoptosis").
    """
    from nonseq.text import parse

    said = _names(parse.parse(claim.translate(_QUOTES)))
    given = _names(parse.parse(source.translate(_QUOTES)))
    if not said or not set(said) <= set(given):
        return ""
    roles = {n: {_role(t) for t in ts} for n, ts in said.items()}
    held = {n: {_role(t) for t in ts} for n, ts in given.items()}
    for name in said:
        for role in sorted(roles[name] - held[name]):
            for other in given:
                if other == name or role not in held[other] or role in roles.get(other, ()):
                    continue
                if (other in said or role[0] in _TAKEN_ROLES) and not _within(given[name], given[other]):
                    return (f"who does what changed: '{name}' takes the role ({role[0]} of '{role[1]}') "
                            f"that '{other}' holds in the source")
    return ""


def exchanged(claim: str, evidence: Sequence[str]) -> str:
    """The first role a sentence of the claim takes from another name of one evidence sentence
    (`exchanged_role`; "" when none does)."""
    from nonseq.text.sentences import sentences

    given = [s for e in evidence for s in sentences(FOOTNOTE_NUMBER.sub("", e))]
    for part in sentences(FOOTNOTE_NUMBER.sub("", claim)) or [claim]:
        for sentence in given:
            why = exchanged_role(part, sentence)
            if why:
                return why
    return ""


def same_claim(sentence: str, earlier: str) -> bool:
    """True when a sentence makes the claim an earlier one made: the same main verb (not a light one), agents
    sharing a word and patients sharing two ("NASA scientists ... have confirmed the presence of water vapor on
    ... Europa" after "A team led by researchers out of NASA's Goddard ... has confirmed traces of water vapor
    ... Europa"), and no figures that tell two events apart (both give figures, and none is shared); or the
    same speaker's same statement (`same_statement`)."""
    import re

    from nonseq.text import parse

    if same_statement(sentence, earlier):
        return True
    one, two = parse.main_clause(sentence), parse.main_clause(earlier)
    if one is None or two is None or one.verb != two.verb or one.verb in LIGHT_VERBS:
        return False
    figures = [set(re.findall(r"\d[\d,.]*", s)) for s in (sentence, earlier)]
    if all(figures) and not figures[0] & figures[1]:
        return False  # "In 2018, NASA announced ..." and "NASA announced Nov. 18, 2019 that ...": two events
    named = [any(t.lemma_.lower() == c.agent_head and t.pos_ == "PROPN" for t in parse.parse(s))
             for c, s in ((one, sentence), (two, earlier))]
    if all(named) and one.agent_head != two.agent_head:
        return False  # "Apple’s 12-inch MacBook features ..." and "Apple’s latest iPad Pro features ...": two things
    return bool(one.agents & two.agents) and len(one.patients & two.patients) >= 2


#: Verbs too common in what people say to make two statements one ("I think ...", "we want ...").
_COMMON_SAID = frozenset(("be", "have", "do", "think", "believe", "know", "feel", "want", "make", "get", "go",
                          "come", "take", "give", "see"))


def same_statement(sentence: str, earlier: str) -> bool:
    """True when a sentence reports a statement an earlier one reported: a speaker sharing a name, and what
    they said sharing three content words, half of the shorter's, one of them a verb that is not common
    ("Carlineo's attorney, Sonya Zoghlin, said ... that Carlineo never intended to harm Omar" after "Sonya A.
    Zoghlin ... told The Hill ... that her client did not intend to cause harm to Omar ...")."""
    from nonseq.text import parse

    one, two = parse.statement(sentence, SAYING), parse.statement(earlier, SAYING)
    if one is None or two is None or not one.speaker & two.speaker:
        return False
    shared = one.words & two.words
    return (len(shared) >= 3 and 2 * len(shared) >= min(len(one.words), len(two.words))
            and bool((one.verbs & two.verbs) - _COMMON_SAID))

"""Words that say the opposite of each other: a claim that turns its source's direction around.

"Profits rose" against "profits fell", "upregulated" against "downregulated", "better survival"
against "poorer survival": one word apart, near in an embedding, opposite in meaning. A claim turns
its source around when it uses one side of an opposition that the source never uses, while the
source uses the other side (and the claim does not use both sides itself). The pairs are general
English (directions of change, levels, evaluations, decisions, regulation, sex and age), and the
prefixes un-, non-, il- and ir- (known / unknown, legal / illegal); nothing in them was fitted to data.
Pairs that a change of perspective keeps true (won / lost, bought / sold, before / after) are left out.
"""

from __future__ import annotations

import re
from functools import cache

_WORD = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)*")
#: Prefixes that negate the word they stand before (un-, non-, il-, ir-), for words this long or longer.
_NEGATING_PREFIXES = ("un", "non", "il", "ir")
_PREFIXED_MIN = 4
#: Words that look prefixed but are not the negation of the rest ("unless" is no "un-less").
_NOT_PREFIXED = frozenset(("unless", "until", "union", "unit", "units", "unite", "united", "uniform", "nonetheless"))


def _verb(base: str, *irregular: str) -> str:
    """A regular verb's forms (base, -s, -ed, -ing) plus irregular ones, space-separated."""
    stem = base[:-1] if base.endswith("e") else base
    third = base + ("es" if base.endswith(("s", "sh", "ch", "x")) else "s")
    return " ".join((base, third, stem + "ed", stem + "ing", *irregular))


#: Each entry: the words of one side, then the words of the other side.
_SIDES: tuple[tuple[str, str], ...] = (
    (" ".join((_verb("increase"), _verb("rise", "rose", "risen"), _verb("grow", "grew", "grown", "growth"),
               _verb("climb"), _verb("surge"), _verb("soar"), _verb("boost"), "upturn upswing")),
     " ".join((_verb("decrease"), _verb("fall", "fell", "fallen"), _verb("decline"),
               "drop drops dropped dropping", _verb("reduce", "reduction", "reductions"),
               _verb("shrink", "shrank", "shrunk"), _verb("plunge"), _verb("plummet"), _verb("slump"),
               _verb("diminish"), "downturn"))),
    ("high higher highest", "low lower lowest"),
    ("greater greatest larger largest bigger biggest", "smaller smallest"),
    ("better best " + _verb("improve", "improvement", "improvements"),
     "worse worst poorer poorest " + _verb("worsen") + " " + _verb("deteriorate", "deterioration")),
    ("positive positively", "negative negatively"),
    ("beneficial", "harmful detrimental"),
    (_verb("activate", "activation", "activator", "activators"),
     " ".join((_verb("inhibit", "inhibition", "inhibitor", "inhibitors"), _verb("suppress", "suppression"),
               _verb("repress", "repression")))),
    (_verb("upregulate", "upregulation"), _verb("downregulate", "downregulation")),
    ("agonist agonists", "antagonist antagonists"),
    (" ".join((_verb("approve", "approval"), _verb("accept", "acceptance"))),
     " ".join((_verb("reject", "rejection"), "veto vetoes vetoed vetoing"))),
    (_verb("succeed", "success", "successful", "successfully"),
     _verb("fail", "failure", "failures", "unsuccessful", "unsuccessfully")),
    (_verb("include", "inclusion"), _verb("exclude", "exclusion")),
    ("male males men", "female females women"),
    ("younger youngest", "older oldest"),
    ("maximum maximal", "minimum minimal"),
    ("majority", "minority"),
    ("possible", "impossible"), ("effective", "ineffective"), ("significant", "insignificant nonsignificant"),
    ("consistent", "inconsistent"), ("correct", "incorrect"), ("accurate", "inaccurate"),
    ("active", "inactive"), ("dependent", "independent"), ("direct directly", "indirect indirectly"),
    ("complete", "incomplete"), ("sufficient", "insufficient"), ("adequate", "inadequate"),
    ("visible", "invisible"), ("appropriate", "inappropriate"), ("eligible", "ineligible"),
    ("compatible", "incompatible"), ("sensitive", "insensitive"), ("formal", "informal"),
    ("frequent", "infrequent"), ("mature", "immature"), ("mortal", "immortal"), ("perfect", "imperfect"),
    ("proper", "improper"), ("ability", "inability"), ("capable", "incapable"), ("efficient", "inefficient"),
    ("valid", "invalid"), ("voluntary", "involuntary"), ("secure", "insecure"), ("stability", "instability"),
    (_verb("agree", "agreement"), _verb("disagree", "disagreement")), ("advantage", "disadvantage"),
    (_verb("continue"), _verb("discontinue")), ("honest", "dishonest"),
)


@cache
def _opposed() -> dict[str, frozenset[str]]:
    """Word → the words of its other side (a word may stand in several oppositions)."""
    out: dict[str, set[str]] = {}
    for one, other in _SIDES:
        a, b = set(one.split()), set(other.split())
        for word in a:
            out.setdefault(word, set()).update(b)
        for word in b:
            out.setdefault(word, set()).update(a)
    return {w: frozenset(v) for w, v in out.items()}


@cache
def _side(word: str) -> frozenset[str]:
    """The words on the same side of each opposition as word (word itself included)."""
    same = {word}
    for one, other in _SIDES:
        for side in (set(one.split()), set(other.split())):
            if word in side:
                same |= side
    return frozenset(same)


def plain_words(text: str) -> set[str]:
    """A text's words in lower case, hyphens dropped ('up-regulated' → 'upregulated'); capitalised words
    inside a sentence are names ('Lower Saxony', 'High Court') and left out."""
    out = set()
    for m in _WORD.finditer(text):
        word = m.group()
        before = text[max(0, m.start() - 8):m.start()].rstrip(" \"'\u201c\u2018(")
        if word[0].isupper() and before and before[-1] not in ".!?:;":
            continue
        out.add(word.replace("-", "").lower())
    return out


def _negated_forms(word: str) -> set[str]:
    """The prefixed negations of a word ('known' → 'unknown', 'nonknown', ...)."""
    if len(word) < _PREFIXED_MIN:
        return set()
    return {p + word for p in _NEGATING_PREFIXES} - _NOT_PREFIXED


def _unprefixed(word: str) -> str | None:
    """The word a prefixed negation negates ('unknown' → 'known'), or None."""
    if word in _NOT_PREFIXED:
        return None
    for p in _NEGATING_PREFIXES:
        rest = word[len(p):]
        if word.startswith(p) and len(rest) >= _PREFIXED_MIN:
            return rest
    return None


def opposites(claim: str, source: str) -> list[tuple[str, str]]:
    """(claim word, source word) pairs where the claim says one side of an opposition the source never
    says, and the source says the other side; [] when the claim itself says both sides."""
    said, have = plain_words(claim), plain_words(source)
    found = []
    for word in sorted(said):
        if word in have:
            continue
        other = set(_opposed().get(word, ())) | _negated_forms(word)
        base = _unprefixed(word)
        if base:
            other.add(base)
        if said & other or _side(word) & have - {word}:
            continue  # both sides in the claim, or the source says the same side in another word
        hit = sorted(other & have)
        if hit:
            found.append((word, hit[0]))
    return found

"""People's names as a page writes them: runs of capitalised names, a name without its title, and each
surname's full names on a page (`full_names`), which the writer puts back where a sentence names a person by
surname only (`text.leaning.surname_referent`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from nonseq.text.parse import parse, people
from nonseq.text.prose import SENTENCE_END
from nonseq.text.reference_words import TITLES


def name_runs(doc: Any) -> list[list[Any]]:
    """Runs of capitalised proper nouns in a parsed text ("Dave Hyatt", "Mr. Hyatt", "Mozilla")."""
    runs: list[list[Any]] = []
    for t in doc:
        if t.pos_ == "PROPN" and t.text[:1].isupper():
            if runs and runs[-1][-1].i == t.i - 1:
                runs[-1].append(t)
            else:
                runs.append([t])
    return runs


def name_core(run: list[Any]) -> list[str]:
    """A name's words without a title, nor what comes before one ("Mr. Hyatt" -> ["Hyatt"], "U.S. Rep. Ilhan
    Omar" -> ["Ilhan", "Omar"]: a title parts a place or a body from the name)."""
    titled = [i for i, t in enumerate(run) if t.text.lower().rstrip(".") in TITLES]
    return [t.text for t in run[titled[-1] + 1 if titled else 0:]]


#: What an office is "of" ("Secretary of State Mike Pompeo"): a run of names after "of" starting with one is no
#: person's name ("State Mike Pompeo").
_OFFICES = frozenset(("state", "defense", "defence", "staff", "commerce", "justice", "energy", "health", "education",
                      "labor", "labour", "treasury", "transportation", "transport", "agriculture", "interior",
                      "homeland", "security", "veterans", "affairs", "housing", "finance", "trade", "police",
                      "foreign", "home", "war", "navy", "army", "the"))


def _person_part(run: list[Any]) -> list[Any]:
    """A run of names without the office words that open it after "of" ("[of] State Mike Pompeo" -> "Mike
    Pompeo")."""
    if run[0].i and run[0].doc[run[0].i - 1].lower_ == "of":
        while run and run[0].lower_ in _OFFICES:
            run = run[1:]
    return run


def _apart(core: list[str], page: Sequence[str]) -> bool:
    """True when the first word of a three-word name stands elsewhere on its page without the others
    ("Ukraine" in "Ukraine Marie Yovanovitch", "Browns" in "Browns Greedy Williams"): it is no part of the name."""
    if core[1].endswith("."):  # "Patrick W. Carlineo": a middle initial
        return False
    alone = re.compile(rf"\b{re.escape(core[0])}\b(?![\w-]|\s+[A-Z])")  # no capitalised word after it
    return any(alone.search(s) for s in page)


def _gerund_heading(core: list[str], doc: Any) -> bool:
    """True when a name's first word is the "-ing" verb a heading opens on and the recogniser reads no person
    there ("4. Questioning Vindman's judgment": no first name "Questioning")."""
    first = next((t for t in doc if t.is_alpha), None)
    return (first is not None and first.text == core[0] and core[0].lower().endswith("ing")
            and not SENTENCE_END.search(doc.text.rstrip()) and " ".join(core) not in people(doc.text))


@lru_cache(maxsize=256)
def full_names(page: tuple[str, ...]) -> dict[str, list[str]]:
    """Surname -> full names, for every name of two or three words a page gives ("Hyatt": ["Dave Hyatt"])."""
    out: dict[str, list[str]] = {}
    for sentence in page:
        doc = parse(sentence)
        for run in name_runs(doc):
            core = name_core(_person_part(run))
            if len(core) == 3 and _apart(core, page):  # "Ukraine Kurt Volker": a place or a team before a name
                core = core[1:]
            if 2 <= len(core) <= 3 and all(w.replace("-", "").replace("'", "").replace(".", "").isalpha()
                                           for w in core) and not _gerund_heading(core, doc):
                names = out.setdefault(core[-1], [])
                names += [" ".join(core)] if " ".join(core) not in names else []
    return out


def page_person(names: Sequence[str], page: Sequence[str]) -> bool:
    """True when the page gives one full name for a surname and the recogniser reads it as a person there
    ("Owen Dempsey" for "Dempsey talked with the man")."""
    if len(names) != 1:
        return False
    return any(names[0] in people(s) for s in page if names[0] in s)

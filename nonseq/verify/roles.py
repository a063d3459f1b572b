"""Who does what: does a sentence keep the agent and patient its sources give its main verb?

Read from a dependency parse (`text.parse`, spaCy's small English model). The writer rejects a
restatement that changes who does what (`role_change`); the support check scales a claim under its
decision point when its agent or patient holds another role for the same verb (`swapped_role`).
"""

from __future__ import annotations

from collections.abc import Sequence

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

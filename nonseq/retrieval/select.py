"""Selection: cut lists, and the final top N with at most K chunks from one URL."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from nonseq.models import Candidate, DropReason

FINAL = "final"


def mark_rest(everything: Sequence[Candidate], kept: Sequence[Candidate], reason: DropReason,
              text: str) -> list[Candidate]:
    """Mark candidates not kept (and not already dropped) with a reason; return all dropped ones."""
    kept_ids = {id(c) for c in kept}
    out = []
    for cand in everything:
        if id(cand) in kept_ids:
            continue
        if cand.drop is None:
            cand.discard(reason, text)
        out.append(cand)
    return out


def select(candidates: Sequence[Candidate], top: int, per_url_max: int | None = None, *,
           key: str = FINAL, label: str = "final_top") -> list[Candidate]:
    """The best `top` by `key`, at most `per_url_max` per URL; the rest get a dropped reason."""
    ordered = sorted(candidates, key=lambda c: -c.scores.get(key, 0.0))
    per_url: Counter[str] = Counter()
    chosen: list[Candidate] = []
    for rank, cand in enumerate(ordered, start=1):
        url = cand.chunk.url
        if len(chosen) >= top:
            cand.discard(DropReason.RANK_CUT, f"below {label} {top} (rank {rank})")
        elif per_url_max is not None and url and per_url[url] >= per_url_max:
            cand.discard(DropReason.PER_URL_CAP, f"per-URL cap: {per_url_max} already from {url}")
        else:
            per_url[url] += 1
            cand.keep()
            chosen.append(cand)
    return chosen

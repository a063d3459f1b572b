"""The recipe's features, computed by the product's own code, so training sees what the running check sees.

- Token states (the head's input): nonseq.verify.alignment.TokenEncoder.inner, the bundled int8
  MiniLM without [CLS]/[SEP], exactly as AlignmentHead reads them at run time. They are cached as
  float16 (the head trains on those; the product feeds float32).
- Today's features (the stacks' other columns): nonseq.verify.support.SupportChecker.feature_rows,
  the same rows check_many scores.
"""

from __future__ import annotations

import json
import pickle
import sys
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from training.support_head import paths
from training.support_head.data import Record, load_records, sentence_items

States = dict[str, np.ndarray]


def log(msg: str) -> None:
    """A timestamped line on stderr."""
    print(time.strftime("%H:%M:%S"), msg, file=sys.stderr, flush=True)


def token_states(texts: Sequence[str], encoder: Any = None) -> list[np.ndarray]:
    """Each text's token states as the running check computes them (float32, no [CLS]/[SEP])."""
    from nonseq.verify.alignment import TokenEncoder

    return list((encoder or TokenEncoder()).inner(texts))


def encode(texts: set[str], known: States, threads: int = 1) -> States:
    """known plus the float16 token states of the texts not in it, encoded shortest first."""
    from nonseq.verify.alignment import TokenEncoder

    encoder = TokenEncoder(threads, cache_size=10**9)
    todo = sorted(texts - known.keys(), key=len)
    out, started = dict(known), time.time()
    for start in range(0, len(todo), 1024):
        chunk = todo[start:start + 1024]
        out |= {t: s.astype(np.float16) for t, s in zip(chunk, token_states(chunk, encoder), strict=True)}
        encoder.memo.clear()
        log(f"encoded {min(start + 1024, len(todo))}/{len(todo)} texts ({time.time() - started:.0f}s)")
    return out


def build_states(texts: set[str], threads: int = 1) -> States:
    """Encode every text not yet in the cache (paths.states()); the cache, updated."""
    known = load_states() if paths.states().is_file() else {}
    states = encode(texts, known, threads)
    with paths.states().open("wb") as fh:
        pickle.dump(states, fh, protocol=pickle.HIGHEST_PROTOCOL)
    log(f"{len(states)} texts ({len(states) - len(known)} new), {sum(len(v) for v in states.values())} tokens")
    return states


def load_states() -> States:
    """The cached token states."""
    with paths.states().open("rb") as fh:
        return dict(pickle.load(fh))


def feature_rows(pairs: Sequence[tuple[str, Sequence[str]]], checker: Any = None) -> list[dict[str, float]]:
    """Today's features of (claim, source sentences) pairs, as the running check computes them."""
    from nonseq.verify.support import SupportChecker

    return (checker or SupportChecker()).feature_rows(pairs)


def today_features(records: list[Record] | None = None) -> dict[str, Any]:
    """Today's feature rows for every record (claim level) and sentence item -> paths.today()."""
    recs = load_records() if records is None else records
    items = [it for r in recs for it in sentence_items(r)]
    from nonseq.verify.support import SupportChecker

    checker = SupportChecker()
    started = time.perf_counter()
    out = {"items": [{"features": f} for f in feature_rows([(it["claim"], it["source"]) for it in items], checker)],
           "records": [{"features": f} for f in feature_rows([(r.claim, r.sentences) for r in recs], checker)],
           "seconds": round(time.perf_counter() - started, 1)}
    paths.today().write_text(json.dumps(out), encoding="utf-8")
    return out

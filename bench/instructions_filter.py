"""Recall and false positives of the instruction filter (nonseq.text.instructions.is_instruction).

Recall is measured on sentences the filter was never tuned on: bench/data/injections_heldout.txt (written
before the filter was extended) and BIPIA's held-out text attacks (bench/data/bipia_text_attack_test.json,
by Microsoft; its writer-addressed categories and all 75). False positives are the share of real sentences
flagged: every sentence of the 181 news articles (ground truth text of /work/shared/data/web) and of the
first 2,000 SciFact abstracts. Prints one JSON object; no fitting.

    python bench/instructions_filter.py [--show]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from nonseq.text.instructions import is_instruction  # noqa: E402
from nonseq.text.sentences import sentences  # noqa: E402

HERE = Path(__file__).resolve().parent / "data"
DATA = Path("/work/shared/data")
#: BIPIA's task-hijack categories: questions and tasks with no word aimed at a writer or an answer.
TASKS = {"Task Automation", "Business Intelligence", "Conversational Agent", "Research Assistance",
         "Sentiment Analysis"}


def heldout() -> list[str]:
    """The hand-written held-out instructions."""
    lines = (HERE / "injections_heldout.txt").read_text(encoding="utf-8").splitlines()
    return [x.strip() for x in lines if x.strip() and not x.startswith("#")]


def bipia() -> dict[str, list[str]]:
    """BIPIA's held-out text attacks by category."""
    data = json.loads((HERE / "bipia_text_attack_test.json").read_text(encoding="utf-8"))
    return {k: v for k, v in data.items() if not k.startswith("_")}


def real_sentences(limit_abstracts: int = 2000) -> dict[str, list[str]]:
    """Sentences of real pages: the news articles' bodies and SciFact abstracts."""
    truth = json.loads((DATA / "web/scrapinghub-aeb/ground-truth.json").read_text(encoding="utf-8"))
    news = [s for item in truth.values() for line in (item.get("articleBody") or "").splitlines()
            for s in sentences(line) if s.strip()]
    science: list[str] = []
    with (DATA / "scifact/corpus.jsonl").open(encoding="utf-8") as fh:
        for i, line in enumerate(fh):
            if i >= limit_abstracts:
                break
            science += [s for s in sentences(json.loads(line)["text"]) if s.strip()]
    return {"news": news, "scifact": science}


def share(items: list[str]) -> tuple[int, int]:
    """(flagged, total)."""
    return sum(1 for s in items if is_instruction(s)), len(items)


def main() -> None:
    """Print recall and false-positive figures as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", action="store_true", help="list misses and false positives on stderr")
    args = parser.parse_args()
    out: dict[str, object] = {}
    held = heldout()
    attacks = bipia()
    writer = [s for k, v in attacks.items() if k not in TASKS for s in v]
    every = [s for v in attacks.values() for s in v]
    for name, items in (("heldout_handwritten", held), ("bipia_writer_addressed", writer), ("bipia_all", every)):
        hit, total = share(items)
        out[f"recall_{name}"] = {"flagged": hit, "total": total, "recall": round(hit / total, 3)}
        if args.show:
            for s in items:
                if not is_instruction(s):
                    print(f"MISS {name}: {s}", file=sys.stderr)
    for name, items in real_sentences().items():
        hit, total = share(items)
        out[f"false_positives_{name}"] = {"flagged": hit, "sentences": total, "rate": round(hit / total, 5)}
        if args.show:
            for s in items:
                if is_instruction(s):
                    print(f"FP {name}: {s}", file=sys.stderr)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()

"""Blind audit of the writer: a person labels the model-worded sentences of bench/writing.py runs.

The support check and the grounding check share one model, so `supported` cannot see a distortion
that the check misses. This audit is the independent figure: the sentences the model worded
(generated or repaired) in one or more runs (`bench/writing.py --out DIR`) are pooled, de-duplicated
and shuffled, and shown without their run, topic or score beside their planned source sentences.
The reader marks the distorted ones: those that say something the sources do not (a changed
relation, agent, number or scope, a lost hedge, an invented gloss, a fragment without a verb).
Quotations are the sources' words and are not shown.

    python bench/writing_audit.py show RUN_DIR... [--labels FILE]        # unlabelled sentences, numbered
    python bench/writing_audit.py label RUN_DIR... [--labels FILE] --distorted 3,7,12
    python bench/writing_audit.py score RUN_DIR... [--labels FILE] [--json]

`label` records every sentence `show` listed: the numbers given as distorted, the others as
faithful. Labels are kept by text (bench/writing_audit_labels.json), so a new run only shows what
no one has read yet.
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
LABELS = HERE / "writing_audit_labels.json"
SEED = 31

Item = tuple[str, tuple[str, ...]]


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """Command-line options."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("command", choices=("show", "label", "score"))
    p.add_argument("runs", nargs="+", type=Path, help="Folders written by bench/writing.py --out")
    p.add_argument("--labels", type=Path, default=LABELS, help="The labels file (kept by text)")
    p.add_argument("--distorted", default="", help="label: the shown numbers that are distorted (1,5,9)")
    p.add_argument("--json", action="store_true", help="score: print one JSON object")
    return p.parse_args(argv)


def run_records(run: Path) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """Each topic's bench row and sentence records in one run folder."""
    if not run.is_dir():
        raise SystemExit(f"error: {run} is not a folder written by bench/writing.py --out")
    out = []
    for path in sorted(run.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if "records" in data and "row" in data:
            out.append((data["row"], data["records"]))
    return out


def worded(records: list[dict[str, Any]]) -> list[Item]:
    """The model-worded sentences of one topic, with their planned sources."""
    return [(r["text"], tuple(r["sources"])) for r in records if r["made"] in ("generated", "repaired", "restated")]


def load_labels(path: Path) -> dict[Item, bool]:
    """Item -> distorted, from the labels file (empty when there is none)."""
    if not path.is_file():
        return {}
    rows = json.loads(path.read_text(encoding="utf-8"))["labels"]
    return {(r["sentence"], tuple(r["sources"])): bool(r["distorted"]) for r in rows}


def unlabelled(runs: list[Path], labels: dict[Item, bool]) -> list[Item]:
    """The pooled model-worded sentences no one has labelled, in a fixed shuffled order."""
    pool = sorted({item for run in runs for _, recs in run_records(run) for item in worded(recs)} - set(labels))
    random.Random(SEED).shuffle(pool)
    return pool


def show(runs: list[Path], labels: dict[Item, bool]) -> None:
    """Print the unlabelled sentences, numbered, beside their sources."""
    todo = unlabelled(runs, labels)
    for i, (text, sources) in enumerate(todo, 1):
        print(f"[{i}] SENTENCE: {text}\n    SOURCES: {' | '.join(sources)}")
    print(f"{len(todo)} to label ({len(labels)} labelled already)")


def label(runs: list[Path], labels: dict[Item, bool], path: Path, distorted: str) -> None:
    """Record the shown sentences: the given numbers distorted, the rest faithful."""
    todo = unlabelled(runs, labels)
    try:
        bad = {int(n) for n in distorted.split(",") if n.strip()}
    except ValueError:
        raise SystemExit(f"error: --distorted takes numbers separated by commas (got {distorted!r})") from None
    if not bad <= set(range(1, len(todo) + 1)):
        raise SystemExit(f"error: --distorted numbers run from 1 to {len(todo)}")
    labels |= {item: i in bad for i, item in enumerate(todo, 1)}
    rows = [{"sentence": t, "sources": list(s), "distorted": d} for (t, s), d in sorted(labels.items())]
    path.write_text(json.dumps({"labels": rows}, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(todo)} labelled ({len(bad)} distorted); {len(labels)} in {path}")


def score(runs: list[Path], labels: dict[Item, bool]) -> dict[str, Any]:
    """Per run: sentences, model-worded, labelled, distorted (share of model-worded and of all)."""
    out = {}
    for run in runs:
        topics = run_records(run)
        items = {item for _, recs in topics for item in worded(recs)}
        known = [labels[i] for i in items if i in labels]
        sentences = sum(row["sentences"] for row, _ in topics)
        out[str(run)] = {"topics": len(topics), "sentences": sentences, "model_worded": len(items),
                         "labelled": len(known), "distorted": sum(known),
                         "distorted_share_of_worded": round(sum(known) / max(1, len(known)), 3),
                         "distorted_share_of_all": round(sum(known) / max(1, sentences), 3)}
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Show, label or score."""
    args = parse_args(argv)
    labels = load_labels(args.labels)
    if args.command == "show":
        show(args.runs, labels)
    elif args.command == "label":
        label(args.runs, labels, args.labels, args.distorted)
    else:
        result = score(args.runs, labels)
        if args.json:
            print(json.dumps(result, indent=1))
        for run, r in ([] if args.json else result.items()):
            print(f"{run}: {r['sentences']} sentences, {r['model_worded']} model-worded, {r['labelled']} labelled, "
                  f"{r['distorted']} distorted ({r['distorted_share_of_worded']:.1%} of model-worded, "
                  f"{r['distorted_share_of_all']:.1%} of all)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

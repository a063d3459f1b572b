"""Rebuild the support check's shipped files: python -m training.support_head STEP [--limit N] [--out DIR].

Steps, in order (a full run takes about 30 min a member on two cores; --limit N takes the first N
SciFact and WiCE rows and writes to $SUPPORT_WORK/out instead of nonseq/data, to prove the recipe runs):
  idf            support_idf.json: general-text document frequencies (needs nothing else)
  lexical        support_model.json: the fallback LRs on WiCE dev (reads support_idf.json)
  states         token states of every text, by nonseq's TokenEncoder (cached in $SUPPORT_WORK)
  cv             the head's out-of-fold predictions, per member (--member K; ship uses 0, 1, 2)
  final-train    each member trained on everything (--member K)
  export         support_head.onnx: the members' mean in one graph (--members 3)
  features       today's features of every record and item (nonseq.verify.support)
  stack          support_head.json: both settings' LRs, cuts and out-of-fold figures
  all            every step above in order, every member (with --limit: a small proof run)
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from training.support_head import paths

STEPS = ("idf", "lexical", "states", "cv", "final-train", "export", "features", "stack", "all")


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options."""
    p = argparse.ArgumentParser(prog="python -m training.support_head", description=__doc__.splitlines()[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="\n".join(__doc__.splitlines()[2:]))
    p.add_argument("step", choices=STEPS)
    p.add_argument("--limit", type=int, default=0, help="only the first N rows of each data set (a proof run)")
    p.add_argument("--out", type=Path, help="where the shipped files go (default: nonseq/data; $SUPPORT_WORK/out "
                                            "with --limit)")
    p.add_argument("--member", type=int, default=0, help="cv, final-train: which member of the seed ensemble")
    p.add_argument("--members", type=int, default=3, help="export, stack, all: members in the ensemble")
    p.add_argument("--folds", default="", help="cv: only these folds (comma-separated; default all)")
    p.add_argument("--epochs", type=int, default=0, help="cv, final-train: epochs (default: head.EPOCHS)")
    p.add_argument("--threads", type=int, default=int(os.environ.get("TORCH_THREADS", "1")),
                   help="torch and encoder threads")
    return p.parse_args(argv)


def run(step: str, args: argparse.Namespace, out: Path) -> None:
    """Run one step."""
    import json

    if step == "idf":
        from training.support_head.lexical import build_idf

        data = build_idf(limit=args.limit)
        (out / "support_idf.json").write_text(json.dumps(data, separators=(",", ":")) + "\n", encoding="utf-8")
        return
    if step == "lexical":
        from training.support_head.lexical import support_models

        models = support_models(args.limit)
        (out / "support_model.json").write_text(json.dumps(models, indent=1) + "\n", encoding="utf-8")
        return
    if step == "features":
        from training.support_head.data import load_records
        from training.support_head.features import today_features

        today_features(load_records(args.limit))
        return
    if step == "stack":
        from training.support_head.stack import ship

        ship(args.members, out, args.limit)
        return
    head_step(step, args, out)


def head_step(step: str, args: argparse.Namespace, out: Path) -> None:
    """The head's steps (torch)."""
    import torch

    from training.support_head import head
    from training.support_head.data import load_records
    from training.support_head.features import build_states, load_states

    torch.set_num_threads(args.threads)
    epochs = args.epochs or head.EPOCHS
    if step == "states":
        texts = {t for r in load_records(args.limit) for t in (r.claim, *r.sentences)}
        for exs in head.all_examples(args.limit).values():
            texts.update(t for e in exs for t in (e.claim, *e.source))
        build_states(texts, args.threads)
    elif step == "cv":
        folds = [int(f) for f in args.folds.split(",") if f] or list(range(head.FOLDS))
        head.run_cv(folds, epochs, load_states(), args.member, args.limit)
    elif step == "final-train":
        head.final_train(load_states(), epochs, args.member, args.limit)
    else:
        head.export_members(args.members, out)


def main(argv: list[str] | None = None) -> int:
    """Run a step (or all of them)."""
    args = parse(argv)
    out = args.out or (paths.work() / "out" if args.limit else paths.SHIPPED)
    out.mkdir(parents=True, exist_ok=True)
    if args.step != "all":
        run(args.step, args, out)
        return 0
    for step in ("idf", "lexical", "states"):
        run(step, args, out)
    for member in range(args.members):
        args.member = member
        run("cv", args, out)
        run("final-train", args, out)
    for step in ("export", "features", "stack"):
        run(step, args, out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

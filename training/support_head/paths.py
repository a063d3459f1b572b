"""Where the recipe keeps its work (caches, out-of-fold predictions, weights) and writes the shipped files."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

#: The shipped files (support_head.onnx, support_head.json, support_idf.json, support_model.json).
SHIPPED = Path(__file__).resolve().parents[2] / "nonseq" / "data"


def work() -> Path:
    """The work folder: $SUPPORT_WORK, else nonseq-support-head in the temporary folder (made on first use)."""
    path = Path(os.environ.get("SUPPORT_WORK") or Path(tempfile.gettempdir()) / "nonseq-support-head")
    path.mkdir(parents=True, exist_ok=True)
    return path


def states() -> Path:
    """The cached token states of every text (text -> float16 array)."""
    return work() / "states.pkl"


def prediction(fold: int, member: int) -> Path:
    """One member's out-of-fold predictions of a fold."""
    return work() / f"pred_fold{fold}_m{member}.json"


def final(member: int, ext: str) -> Path:
    """A final member's weights (.pt) or training record (.json)."""
    return work() / f"head_final_m{member}.{ext}"


def today() -> Path:
    """Today's feature rows (nonseq.verify.support) of every record and sentence item."""
    return work() / "today_features.json"

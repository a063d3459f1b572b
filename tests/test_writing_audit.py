"""bench/writing_audit.py: pooled, blind, labelled by text, scored per run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bench import writing_audit
from devkit.child import without_settings
from devkit.data import AEB

SOURCE = ["The team saw about 2,300 tons of water vapour on one of 17 nights."]


def run_dir(root: Path, name: str, records: list[tuple[str, str]]) -> Path:
    """A bench output folder with one topic: (made, text) records against SOURCE."""
    folder = root / name
    folder.mkdir()
    recs: list[dict[str, Any]] = [{"made": made, "text": text, "sources": SOURCE} for made, text in records]
    row = {"topic": "europa", "sentences": sum(made != "dropped" for made, _ in records)}
    (folder / "europa.json").write_text(json.dumps({"row": row, "plan": {}, "records": recs}), encoding="utf-8")
    (folder / "europa.prompt.json").write_text("{}", encoding="utf-8")  # not a topic file: skipped
    return folder


def test_show_label_score(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Shared sentences are shown once and without their run; labels are kept by text and scored per run."""
    old = run_dir(tmp_path, "old", [("generated", "The team saw 2,300 tons of water on 17 nights."),
                                    ("repaired", "The team saw 2,300 tons of water vapour."),
                                    ("quoted", "“The team saw about 2,300 tons”")])
    new = run_dir(tmp_path, "new", [("repaired", "The team saw 2,300 tons of water vapour."),
                                    ("generated", "The team saw about 2,300 tons of water vapour on one night.")])
    labels = tmp_path / "labels.json"
    runs = [str(old), str(new), "--labels", str(labels)]
    assert writing_audit.main(["show", *runs]) == 0
    shown = capsys.readouterr().out
    assert shown.count("SENTENCE:") == 3 and "quoted" not in shown and "old" not in shown
    assert "“The team saw about" not in shown and shown.rstrip().endswith("3 to label (0 labelled already)")
    first = shown.split("[1] SENTENCE: ", 1)[1].split("\n", 1)[0]
    writing_audit.main(["label", *runs, "--distorted", "1"])
    capsys.readouterr()
    stored = json.loads(labels.read_text(encoding="utf-8"))["labels"]
    assert {r["sentence"] for r in stored if r["distorted"]} == {first} and len(stored) == 3
    writing_audit.main(["show", *runs])
    assert "0 to label (3 labelled already)" in capsys.readouterr().out
    writing_audit.main(["score", *runs, "--json"])
    scored = json.loads(capsys.readouterr().out)
    assert scored[str(old)]["model_worded"] == 2 and scored[str(old)]["sentences"] == 3
    assert scored[str(new)]["model_worded"] == 2
    assert sum(r["distorted"] for r in scored.values()) == 1 + (first == "The team saw 2,300 tons of water vapour.")


def test_bad_input_is_one_line(tmp_path: Path) -> None:
    """A folder that is not a bench output, or a number out of range, stops with one line."""
    with pytest.raises(SystemExit, match="not a folder written by bench/writing.py"):
        writing_audit.main(["score", str(tmp_path / "missing")])
    run = run_dir(tmp_path, "one", [("generated", "The team saw 2,300 tons of water on 17 nights.")])
    with pytest.raises(SystemExit, match="from 1 to 1"):
        writing_audit.main(["label", str(run), "--labels", str(tmp_path / "l.json"), "--distorted", "2"])
    with pytest.raises(SystemExit, match="numbers separated by commas"):
        writing_audit.main(["label", str(run), "--labels", str(tmp_path / "l.json"), "--distorted", "x"])




@pytest.mark.skipif(not AEB.is_dir(), reason="the real news pages of ../shared/data are not present")
def test_writing_bench_takes_nonseq_variables(tmp_path: Path) -> None:
    """bench/writing.py applies NONSEQ_* variables to its defaults and refuses a bad one in one line."""
    bench = Path(__file__).resolve().parent.parent / "bench" / "writing.py"
    env = without_settings()
    args = [sys.executable, str(bench), "--topics", "assange", "--llm", "echo", "--json", "--out", str(tmp_path)]
    small = subprocess.run(args, env=env | {"NONSEQ_WRITING__MAX_UNITS": "2"}, capture_output=True, text=True,
                           timeout=600)
    assert small.returncode == 0, small.stderr
    row = json.loads(small.stdout)["topics"][0]
    assert row["units"] == 2 and row["sentences"] <= 4
    bad = subprocess.run(args, env=env | {"NONSEQ_WRITING__MIN_SUPPORT": "2"}, capture_output=True, text=True,
                         timeout=600)
    assert bad.returncode == 1 and "Traceback" not in bad.stderr
    assert bad.stderr.strip().splitlines()[-1].startswith("error: NONSEQ_WRITING__MIN_SUPPORT:")

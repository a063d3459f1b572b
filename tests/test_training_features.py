"""The support recipe (training/support_head) computes the features the running check computes.

Token states, today's features and the head's logits, on a few pairs: at training time through the
recipe's code, at run time through nonseq.verify (the encoder, SupportChecker, AlignmentHead on ONNX).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from nonseq.verify.alignment import AlignmentHead, TokenEncoder
from nonseq.verify.support import SupportChecker
from training.support_head import features, head, stack

PAIRS = [
    ("Heat pump sales fell by 21 percent in 2024.",
     ["Sales of heat pumps dropped 21% in 2024, the association said."]),
    ("The vaccine was tested in 40 adults in Oslo.",
     ["It was tested in 40 adults.", "Side effects were rare."]),
    ("Stadia launched in November 2019 in 14 countries.",
     ["Google's Stadia went live in November 2019.", "It opened in 14 countries.", "Prices were not cut."]),
]


def _texts() -> list[str]:
    """Every text of the pairs, in the order the run-time head encodes them."""
    return list(dict.fromkeys(t for claim, units in PAIRS for t in (claim, *units)))


def test_token_states_are_the_running_checks() -> None:
    texts = _texts()
    trained_on = features.token_states(texts)
    at_run_time = TokenEncoder().inner(texts)
    assert len(trained_on) == len(texts)
    for a, b in zip(trained_on, at_run_time, strict=True):
        assert a.shape == b.shape and a.shape[1] == 384
        np.testing.assert_array_equal(a, b)


def test_stacked_features_are_the_running_checks() -> None:
    """Each setting's stacked columns (but the head's) equal those check_many scores."""
    rows = features.feature_rows(PAIRS)
    for setting, names in (("claim", stack.feature_names(stack.SHIPPED["claim"])),
                           ("auto", [f for f in stack.feature_names(stack.SHIPPED["sentence"])
                                     if f not in stack.HEAD_S])):
        results = SupportChecker().check_many(PAIRS, setting=setting)
        for row, res in zip(rows, results, strict=True):
            assert names and all(name in res.features for name in names)
            for name in names:
                assert row[name] == res.features[name], (setting, name)


def test_head_logits_are_the_running_heads(tmp_path: Path) -> None:
    """A head trained here and exported gives the run-time head's logits on the same pairs."""
    import torch

    torch.manual_seed(0)
    model = head.Head()
    head.export(model, tmp_path / "head.onnx")
    (tmp_path / "head.json").write_text(json.dumps({"head": "head.onnx"}), encoding="utf-8")
    texts = _texts()
    states = dict(zip(texts, features.token_states(texts), strict=True))
    pairs = [(claim, list(units)) for claim, units in PAIRS]
    trained = head.predict(model, pairs, states)
    run_time = AlignmentHead(TokenEncoder(), config=tmp_path / "head.json").logits(pairs)
    assert trained.shape == run_time.shape == (3, 2) and np.abs(trained).max() > 0
    np.testing.assert_allclose(trained, run_time, atol=1e-4)
    cached = {t: s.astype(np.float16) for t, s in states.items()}  # what the recipe trains on
    np.testing.assert_allclose(head.predict(model, pairs, cached), run_time, atol=2e-2)

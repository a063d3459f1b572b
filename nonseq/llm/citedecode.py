"""Constrained decoding for llama.cpp: every sentence ends with ` [n].`, n a listed source.

A small state machine over the model's logits, run token by token on the in-process model:
free text may not contain brackets, line breaks or Markdown structure, and may not end a sentence
on its own. Once a sentence has a few words, the probability the model gives to ending it (a full
stop, `!`, `?` or end of text) goes to ` [` instead; then only the digits of a listed source number
are allowed, `].` is forced, and the next sentence must start with a capital (or the reply ends,
once enough sentences are written).

Why not a GBNF grammar: with llama-cpp-python 0.3.x the grammar sampler is rebuilt for every token,
which measured 1.7 s a token for SmolLM2-135M (a 300-token section took minutes) and did not keep
its parse state between tokens, so the constraint did not hold. This loop costs one vectorised
mask per token.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from llama_cpp import Llama

MIN_WORDS = 5  # words a sentence needs before it may end
SOFT_WORDS = 22  # from here on, ending the sentence gets likelier with every word
MAX_WORDS = 45  # words after which the sentence must end (long rambles drift from the sources)
REPEAT_WINDOW = 64  # tokens the repeat penalty looks back over
_FORBIDDEN = set("[]\n\r#*|<>`\\{}")
_ENDS = set(".!?")
_VOCABS: dict[int, _Vocab] = {}
_VOCAB_LOCK = threading.Lock()


@dataclass
class CiteSpec:
    """What a cited reply must look like."""

    numbers: list[int]
    min_sentences: int = 2
    max_sentences: int = 4
    #: Text whose words get `bias` added to their logits (the section's facts): a copy bias that
    #: keeps a small model close to its sources. 0 = off.
    source_text: str = ""
    bias: float = 0.0


@dataclass
class _Vocab:
    """Per-model token classes, computed once."""

    texts: list[str]
    free: np.ndarray  # may appear inside a sentence
    ends: np.ndarray  # would end a sentence
    starts: np.ndarray  # may start a sentence (after the space)
    digit: dict[str, int]  # "0".."9" -> token id
    open: list[int]  # tokens of " ["
    close: list[int]  # tokens of "]."
    eos: int


def _vocab(llama: Llama) -> _Vocab:
    """The token classes of a model (cached per loaded model)."""
    with _VOCAB_LOCK:
        key = id(llama)
        if key not in _VOCABS:
            n = llama.n_vocab()
            texts = [llama.detokenize([t]).decode("utf-8", "replace") for t in range(n)]
            special = np.array([not t or "<|" in t or "\ufffd" in t for t in texts])
            bad = np.array([bool(set(t) & _FORBIDDEN) for t in texts]) | special
            ends = np.array([bool(set(t) & _ENDS) for t in texts])
            starts = np.array([t.lstrip(" ")[:1].isupper() or t.lstrip(" ")[:1].isdigit()
                               or t.lstrip(" ")[:1] == '"' for t in texts]) & ~bad & ~ends
            tok = lambda s: llama.tokenize(s.encode(), add_bos=False, special=False)  # noqa: E731
            _VOCABS[key] = _Vocab(
                texts=texts, free=~bad & ~ends, ends=ends & ~bad, starts=starts,
                digit={str(d): tok(str(d))[0] for d in range(10)},
                open=tok(" ["), close=tok("]."), eos=llama.token_eos())
        return _VOCABS[key]


def chat_prompt(llama: Llama, messages: Sequence[dict[str, str]]) -> list[int]:
    """The messages as prompt tokens, through the model's own chat template."""
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    template = llama.metadata.get("tokenizer.chat_template")
    if not template:
        text = "".join(f"{m['role']}: {m['content']}\n" for m in messages) + "assistant: "
        return llama.tokenize(text.encode("utf-8"), add_bos=True, special=True)
    eos = llama.detokenize([llama.token_eos()], special=True).decode("utf-8", "replace")
    bos = llama.detokenize([llama.token_bos()], special=True).decode("utf-8", "replace")
    result = Jinja2ChatFormatter(template=template, eos_token=eos, bos_token=bos)(
        messages=list(messages))  # type: ignore[arg-type]
    return llama.tokenize(result.prompt.encode("utf-8"), add_bos=not result.added_special,
                          special=True)


class _Sampler:
    """Greedy or temperature sampling with a repeat penalty, over masked logits."""

    def __init__(self, temperature: float, repeat_penalty: float, seed: int) -> None:
        self.temperature = temperature
        self.penalty = repeat_penalty
        self.rng = np.random.default_rng(seed or None)
        self.recent: list[int] = []

    def pick(self, logits: np.ndarray, allowed: np.ndarray) -> int:
        """One token among the allowed ones."""
        z = np.where(allowed, logits, -np.inf)
        if self.penalty > 1 and self.recent:
            ids = np.unique(self.recent[-REPEAT_WINDOW:])
            z[ids] = np.where(z[ids] > 0, z[ids] / self.penalty, z[ids] * self.penalty)
        if self.temperature <= 0:
            return int(np.argmax(z))
        top = np.argpartition(-z, 40)[:40]
        p = np.exp((z[top] - z[top].max()) / self.temperature)
        p /= p.sum()
        return int(top[self.rng.choice(len(top), p=p)])


def _logits(llama: Llama) -> np.ndarray:
    """The logits after the last evaluated token."""
    import llama_cpp

    ptr = llama_cpp.llama_get_logits_ith(llama.ctx, -1)
    return np.ctypeslib.as_array(ptr, shape=(llama.n_vocab(),)).copy()


def _number_choice(logits: np.ndarray, vocab: _Vocab, numbers: Sequence[int]) -> int:
    """The listed number whose first digit the model prefers (the shortest on a shared digit)."""
    ranked = sorted(numbers, key=lambda n: (-logits[vocab.digit[str(n)[0]]], len(str(n)), n))
    return ranked[0]


def stream_cited(llama: Llama, messages: Sequence[dict[str, str]], spec: CiteSpec, *,
                 max_tokens: int, temperature: float, repeat_penalty: float,
                 seed: int = 0) -> Iterator[str]:
    """Text pieces of a reply whose every sentence ends with ` [n].` (n in spec.numbers)."""
    vocab = _vocab(llama)
    sampler = _Sampler(temperature, repeat_penalty, seed)
    boost = _bias_ids(llama, vocab, spec.source_text) if spec.bias else np.zeros(0, dtype=int)
    llama.reset()
    llama.eval(chat_prompt(llama, messages))
    done_sentences, words, used = 0, 0, 0
    at_start = True
    while used < max_tokens:
        logits = _logits(llama)
        if at_start:
            allowed = vocab.starts.copy()
            if done_sentences >= spec.min_sentences:
                allowed[vocab.eos] = True
            tok = sampler.pick(logits, allowed)
            if tok == vocab.eos:
                return
            piece = vocab.texts[tok]
            if done_sentences:
                piece = " " + piece.lstrip(" ")
                tok_seq = llama.tokenize(piece.encode(), add_bos=False, special=False)
            else:
                piece, tok_seq = piece.lstrip(" "), [tok]
                if vocab.texts[tok] != piece:
                    tok_seq = llama.tokenize(piece.encode(), add_bos=False, special=False)
            at_start = False
        else:
            allowed = vocab.free.copy()
            logits[boost] += spec.bias
            if words >= MIN_WORDS:  # ending the sentence means citing: move that mass to " ["
                end = max(float(np.max(np.where(vocab.ends, logits, -np.inf))),
                          float(logits[vocab.eos]))
                logits[vocab.open[0]] = max(float(logits[vocab.open[0]]), end)
                logits[vocab.open[0]] += 1.5 * max(0, words - SOFT_WORDS + 1)
                allowed[vocab.open[0]] = True
            tok = vocab.open[0] if words >= MAX_WORDS else sampler.pick(logits, allowed)
            if words >= MIN_WORDS and tok == vocab.open[0]:
                yield from _cite(llama, vocab, spec, sampler)
                used += 3
                done_sentences += 1
                words, at_start = 0, True
                if done_sentences >= spec.max_sentences:
                    return
                continue
            piece, tok_seq = vocab.texts[tok], [tok]
        words += piece.count(" ") + (1 if words == 0 and piece.strip() else 0)
        sampler.recent += tok_seq
        llama.eval(tok_seq)
        used += len(tok_seq)
        yield piece


def _bias_ids(llama: Llama, vocab: _Vocab, text: str) -> np.ndarray:
    """Token ids of the source's words (3+ characters, or with a digit), as written there."""
    ids = set(llama.tokenize(text.encode("utf-8"), add_bos=False, special=False))
    keep = [t for t in ids if vocab.free[t] and (len(vocab.texts[t].strip()) >= 3
                                                  or any(c.isdigit() for c in vocab.texts[t]))]
    return np.array(sorted(keep), dtype=int)


def _cite(llama: Llama, vocab: _Vocab, spec: CiteSpec, sampler: _Sampler) -> Iterator[str]:
    """Write ` [n].`: the model picks n among the listed numbers by its first digit."""
    llama.eval(vocab.open)
    n = _number_choice(_logits(llama), vocab, spec.numbers)
    tail = [vocab.digit[d] for d in str(n)] + vocab.close
    llama.eval(tail)
    sampler.recent += [*vocab.open, *tail]
    yield f" [{n}]."


def cite_available(llama: Any) -> bool:
    """True when the low-level calls the decoder needs exist in this llama-cpp-python."""
    import llama_cpp

    return hasattr(llama_cpp, "llama_get_logits_ith") and hasattr(llama, "eval")

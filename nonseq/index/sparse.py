"""The sparse BM25 encoder: fastembed's Qdrant/bm25 offline, with PyStemmer and bundled stopwords."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path
from typing import Any

from nonseq.config import SparseSettings

STOPWORDS_DIR = Path(__file__).resolve().parent.parent / "assets" / "stopwords"


class PyStemmerAdapter:
    """PyStemmer's Snowball stemmer with the `stem_word` method fastembed expects."""

    def __init__(self, language: str) -> None:
        import Stemmer

        self._stemmer = Stemmer.Stemmer(language)

    def stem_word(self, word: str) -> str:
        """Stem one lower-case word."""
        return self._stemmer.stemWord(word)


def load_stopwords(language: str) -> set[str]:
    """The bundled stopword list of a language (empty set when none ships)."""
    path = STOPWORDS_DIR / f"{language}.txt"
    if not path.is_file():
        return set()
    return {w.strip().lower() for w in path.read_text(encoding="utf-8").split() if w.strip()}


@dataclass(frozen=True)
class SparseTerms:
    """A sparse vector: term ids and their weights (each store turns it into its own type)."""

    indices: list[int]
    values: list[float]


class SparseEncoder:
    """BM25 term-frequency sparse vectors (IDF is left to Qdrant's modifier) and its tokenizer."""

    name = "Qdrant/bm25"

    def __init__(self, settings: SparseSettings) -> None:
        self.settings = settings
        self.stopwords = load_stopwords(settings.language)

    @cached_property
    def _model(self) -> Any:  # fastembed.sparse.bm25.Bm25, imported lazily
        """The fastembed Bm25 model, built from local files only."""
        from fastembed.sparse.bm25 import Bm25

        from nonseq.index.embed import quiet_fastembed

        quiet_fastembed()
        return Bm25(
            "Qdrant/bm25",
            # its model folder holds only stopwords, which come from ours: given any folder, it reads none
            specific_model_path=str(STOPWORDS_DIR),
            language=self.settings.language,
            k=self.settings.k1,
            b=self.settings.b,
            stopwords=self.stopwords,
            stemmer=PyStemmerAdapter(self.settings.language),
            local_files_only=True,
        )

    def tokenize(self, text: str) -> list[str]:
        """The stemmed, stopword-free terms of a text: the same terms the sparse vectors hold."""
        model = self._model
        return model._stem(model.tokenizer.tokenize(text))

    def encode(self, texts: list[str]) -> list[SparseTerms]:
        """Document sparse vectors: term frequencies (no qdrant-client import: 3 s of CPU it costs the embedded
        engine nothing to skip)."""
        return [SparseTerms(e.indices.tolist(), [float(v) for v in e.values]) for e in self._model.embed(texts)]

    def encode_query(self, text: str) -> SparseTerms:
        """A query sparse vector: each term once, weight 1 (IDF comes from Qdrant)."""
        emb = next(iter(self._model.query_embed(text)))
        return SparseTerms(emb.indices.tolist(), [float(v) for v in emb.values])


@cache
def default_tokenizer() -> Callable[[str], list[str]]:
    """The default settings' BM25 tokenizer (English, stemmed, stopwords removed), one per process."""
    return SparseEncoder(SparseSettings()).tokenize

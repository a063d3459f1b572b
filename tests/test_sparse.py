"""The BM25 sparse encoder: stemming, stopwords, and that stopwords never dominate."""

from nonseq.config import SparseSettings
from nonseq.index.sparse import SparseEncoder, load_stopwords


def test_tokenize_stems_and_drops_stopwords() -> None:
    enc = SparseEncoder(SparseSettings())
    assert enc.tokenize("The running dogs were jumping over THE fences") == [
        "run", "dog", "jump", "fenc"]
    assert "the" in load_stopwords("english") and len(load_stopwords("english")) > 100


def test_stopword_only_text_has_no_terms() -> None:
    enc = SparseEncoder(SparseSettings())
    vec = enc.encode(["the of and to in is it"])[0]
    assert vec.indices == [] and vec.values == []


def test_document_vectors_are_tf_weights_and_queries_are_binary() -> None:
    enc = SparseEncoder(SparseSettings())
    doc = enc.encode(["solar solar solar panel"])[0]
    weights = dict(zip(doc.indices, doc.values, strict=True))
    assert len(weights) == 2 and max(weights.values()) > min(weights.values())
    query = enc.encode_query("solar panels")
    assert sorted(query.indices) == sorted(doc.indices) and set(query.values) == {1.0}


def test_stopword_match_never_dominates(ws) -> None:
    from nonseq.models import Chunk

    texts = ["the the the the the of of of and and and to to", "Fusion reactor plasma test"]
    chunks = [Chunk(text=t, topic_slug="s", category="ai", url=f"u{i}") for i, t in
              enumerate(texts)]
    ws.indexer.index("research_ai", chunks)
    hits = ws.store.search("research_ai", ws.sparse.encode_query("the fusion of the plasma"),
                           using="sparse")
    assert [h.chunk.text for h in hits] == [texts[1]]


def test_the_workspaces_of_a_process_share_the_encoder_and_the_support_checker(settings) -> None:
    """Loading the BM25 model reads all of Unicode for punctuation (about a second): once per model cache."""
    from nonseq.cache import ModelCache
    from nonseq.verify.support import checker_for
    from nonseq.workspace import Workspace

    models = ModelCache()
    one, two = Workspace(settings, model_cache=models), Workspace(settings, model_cache=models)
    other = Workspace(settings.model_copy(update={"sparse": SparseSettings(k1=1.5)}), model_cache=models)
    try:
        assert one.sparse is two.sparse and other.sparse is not one.sparse
        assert checker_for(one) is checker_for(two) and checker_for(other) is not checker_for(one)
        assert checker_for(one).tokenize("The running dogs") == ["run", "dog"]
    finally:
        for ws in (one, two, other):
            ws.close()


def test_encoding_needs_no_qdrant_client() -> None:
    """The embedded engine takes SparseTerms as they are: importing qdrant-client (3 s of CPU on a slow core)
    is left to the server store."""
    import subprocess
    import sys

    code = ("import sys\n"
            "from nonseq.config import SparseSettings\n"
            "from nonseq.index.sparse import SparseEncoder\n"
            "enc = SparseEncoder(SparseSettings())\n"
            "doc, query = enc.encode(['solar solar panel'])[0], enc.encode_query('solar')\n"
            "print('qdrant_client' in sys.modules, len(doc.indices), query.values)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "2", "[1.0]"]

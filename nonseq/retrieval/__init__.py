"""The retrieval chain: pre-rank, dedup, trust, rerank, normalise, select; persona voice apart."""

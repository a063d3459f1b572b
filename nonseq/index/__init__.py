"""Index adapters: dense embedders, the sparse BM25 encoder and the Qdrant store."""

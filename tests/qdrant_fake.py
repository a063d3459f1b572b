"""The Qdrant fake's pytest fixtures; `python -m tests.qdrant_fake --port P` serves it (devkit/qdrant_fake.py).

A real server (NONSEQ_TEST_QDRANT_URL) replaces the fake when given.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from devkit.qdrant_fake import REAL_URL, FakeQdrant, main


@pytest.fixture
def qdrant_url() -> Iterator[str]:
    """A Qdrant server's URL: the real one of NONSEQ_TEST_QDRANT_URL, else a fake on 127.0.0.1.

    A real server must hold no nonseq collections when a test starts; the ones a test makes are
    deleted after it.
    """
    if not REAL_URL:
        fake = FakeQdrant()
        try:
            yield fake.url
        finally:
            fake.stop()
        return
    from qdrant_client import QdrantClient

    client = QdrantClient(url=REAL_URL, check_compatibility=False)
    before = {c.name for c in client.get_collections().collections}
    assert not {n for n in before if n.startswith(("research_", "knowledge_", "persona_", "nonseq_"))}, \
        f"{REAL_URL} already holds nonseq collections: give the tests an empty server"
    try:
        yield REAL_URL
    finally:
        from qdrant_client import models

        client.update_collection_aliases(change_aliases_operations=[
            models.DeleteAliasOperation(delete_alias=models.DeleteAlias(alias_name=a.alias_name))
            for a in client.get_aliases().aliases if a.collection_name not in before])
        for name in {c.name for c in client.get_collections().collections} - before:
            client.delete_collection(name)
        client.close()


@pytest.fixture
def fake_qdrant() -> Iterator[FakeQdrant]:
    """The fake server itself (for tests that look at the requests it received)."""
    fake = FakeQdrant()
    try:
        yield fake
    finally:
        fake.stop()



if __name__ == "__main__":
    raise SystemExit(main())

"""The loopback guard as a fixture: any name lookup or connect that would leave 127.0.0.0/8 fails the test.

conftest.py applies `loopback_only` to every test; the guard itself is devkit/loopback.py's.
"""

from __future__ import annotations

import pytest

from devkit.loopback import guard_loopback


@pytest.fixture
def loopback_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail any name lookup or connect that would leave 127.0.0.0/8 (nothing is sent)."""
    guard_loopback(monkeypatch.setattr)

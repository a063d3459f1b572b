"""Where the shared reference data lives: devkit/data.py (shared with bench/ and training/)."""

from devkit.data import AEB, DATA, shared_data  # noqa: F401 - re-exported

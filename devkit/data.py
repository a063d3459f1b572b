"""Where the shared reference data lives: `shared/data` beside the repository (CI: X/../shared), or $NONSEQ_DATA."""

from __future__ import annotations

import os
from pathlib import Path

_HERE = Path(os.path.abspath(__file__)).parent  # devkit/, symlinks kept (the clone as checked out)


def _candidates() -> list[Path]:
    """Places `shared/data` may be: beside the clone as checked out, as resolved, beside the cwd."""
    repos = [_HERE.parent, _HERE.resolve().parent]
    pwd = os.environ.get("PWD")
    for start in (Path(pwd) if pwd else None, Path.cwd()):
        if start is not None:
            repos.extend([start, *start.parents][:3])
    return [repo.parent / "shared" / "data" for repo in repos]


def shared_data() -> Path:
    """The shared data folder ($NONSEQ_DATA, else the first candidate that holds a README); the nominal one if none."""
    if os.environ.get("NONSEQ_DATA"):
        return Path(os.environ["NONSEQ_DATA"])
    for path in _candidates():
        if (path / "README.md").is_file():
            return path
    return _HERE.parent.parent / "shared" / "data"


DATA = shared_data()
#: The 181 real article pages with their `articleBody` ground truth.
AEB = DATA / "web" / "scrapinghub-aeb"

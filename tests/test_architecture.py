"""docs/architecture.md matches the code: its tree names every module, every name it gives exists,
and its layer table is the import-linter contract."""

from __future__ import annotations

import importlib
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "nonseq"
DOC = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
#: A top-level line of the tree: two spaces, then one or more `name/` or `name.py`, then the description.
ENTRY = re.compile(r"^  ((?:[a-z_]+(?:/|\.py) ?)+)\s+(.*)$")


def _tree() -> dict[str, str]:
    """Each entry of the tree block (`index/`, `api.py`) → its description (all its lines)."""
    block = DOC.split("```text\nnonseq/\n", 1)[1].split("```", 1)[0]
    entries: dict[str, str] = {}
    current: list[str] = []
    for line in block.splitlines():
        match = ENTRY.match(line)
        if match:
            current = match.group(1).split()
            for name in current:
                entries[name] = match.group(2)
        else:
            for name in current:
                entries[name] += " " + line.strip()
    return entries


def _modules(folder: Path) -> list[str]:
    """The modules of a package folder (no __init__ / __main__)."""
    return sorted(p.stem for p in folder.glob("*.py") if not p.stem.startswith("__"))


def test_the_tree_names_every_package_and_module_and_nothing_else() -> None:
    tree = _tree()
    here = {f"{p.name}/" for p in PACKAGE.iterdir() if p.is_dir() and not p.name.startswith("__")}
    here |= {f"{m}.py" for m in _modules(PACKAGE)}
    assert sorted(here - set(tree)) == [], "not in docs/architecture.md's tree"
    assert sorted(set(tree) - here) == [], "named in the tree but not in nonseq/"


def test_each_package_entry_names_its_modules() -> None:
    tree = _tree()
    missing = {}
    for name, text in tree.items():
        if not name.endswith("/") or not (PACKAGE / name / "__init__.py").is_file():
            continue
        words = set(re.findall(r"[a-z_]+", text))
        gone = [m for m in _modules(PACKAGE / name) if m not in words]
        if gone:
            missing[name] = gone
    assert missing == {}


def _prefixes(first: str) -> list[list[str]]:
    """Where a name's first part can live: nonseq/<first> or any package's <first> module."""
    found = [[]] if (PACKAGE / f"{first}.py").is_file() or (PACKAGE / first).is_dir() else []
    found += [[p.parent.name] for p in PACKAGE.glob(f"*/{first}.py")]
    return found


def _resolves(dotted: str) -> bool:
    """`pipeline.write.write_topic` (or `stages.Pace`) names a module of nonseq and, after it, its attributes."""
    parts = dotted.split(".")
    for prefix in _prefixes(parts[0]):
        full = prefix + parts
        for cut in range(len(full), 0, -1):
            path = PACKAGE.joinpath(*full[:cut])
            if path.with_suffix(".py").is_file() or (path / "__init__.py").is_file():
                obj = importlib.import_module("nonseq." + ".".join(full[:cut]))
                rest = full[cut:]
                while rest and hasattr(obj, rest[0]):
                    obj, rest = getattr(obj, rest[0]), rest[1:]
                if not rest:
                    return True
                break
    return False


def test_every_code_name_in_the_doc_exists() -> None:
    names = {n for n in re.findall(r"`([a-z_]+(?:\.[A-Za-z_]+)+)(?:\([^`]*\))?`", DOC) if _prefixes(n.split(".")[0])}
    paths = set(re.findall(r"(?<![\w/.])((?:[a-z_]+/)+[a-z_]+\.py)\b", DOC))
    assert len(names) >= 10 and paths
    assert sorted(n for n in names if not _resolves(n)) == []
    assert sorted(p for p in paths if not (ROOT / p).is_file() and not (PACKAGE / p).is_file()) == []


def test_the_layer_table_is_the_import_linter_contract() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contract = next(c for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers")
    wanted = [sorted(n.strip().removeprefix("nonseq.") for n in layer.split("|")) for layer in contract["layers"]]
    table = DOC.split("| layer | may import |", 1)[1].split("\n\n", 1)[0]
    rows = [line.split(" | ")[0] for line in table.splitlines() if line.startswith("| `")]
    documented = [sorted(re.findall(r"`([a-z_]+)`", row)) for row in rows]
    assert documented == wanted

"""Moving a qdrant-client local-mode store (the embedded default before qdrant-edge) into qdrant-edge.

Local mode keeps <root>/meta.json (each collection's CreateCollection config, with our metadata) and
<root>/collection/<name>/storage.sqlite: table points(id TEXT, point BLOB), one pickled
qdrant-client PointStruct (id, named vectors, payload) a row. Older client versions could leave
several rows for one point: the highest rowid is the latest copy. The rows are streamed, so RAM
stays bounded whatever the size.

Each collection is copied beside the others (a Staging), checked point for point (every id, then
switched in); the local files move to local-mode-backup/ only after a mark says every collection
is done. A kill before the mark starts the copy over; one after it only finishes the move.
"""

from __future__ import annotations

import json
import os
import pickle
import sqlite3
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from nonseq.errors import StoreError
from nonseq.index.jsonfile import read_json, write_json
from nonseq.index.vector_store import DENSE, TRIGGER, RawPoint, VectorStore

META = "meta.json"
COLLECTIONS = "collection"
BACKUP_DIR = "local-mode-backup"
MIGRATED_MARK = "MIGRATED_FROM_LOCAL_MODE.json"
#: progress(collection, points done, points in it)
MigrationProgress = Callable[[str, int, int], None]


def pending(root: Path) -> bool:
    """True when the folder still holds a local-mode store that was not moved yet."""
    return (Path(root) / META).is_file()


def unreadable(root: Path, reason: str) -> StoreError:
    """The one line for a local-mode store that cannot be read, with the way out."""
    return StoreError(f"the old local-mode vector store in {root} cannot be read ({reason}): move {root / META} "
                      f"and {root / COLLECTIONS} elsewhere, then run `nonseq store rebuild`")


def local_collections(root: Path) -> dict[str, dict[str, Any]]:
    """name -> CreateCollection config (as JSON) of a local-mode folder."""
    try:
        meta = json.loads((root / META).read_text(encoding="utf-8"))
        collections = meta.get("collections", {})
        if not isinstance(collections, dict):
            raise ValueError("no collections map")
    except (OSError, ValueError, AttributeError) as exc:
        raise unreadable(root, f"{META}: {' '.join(str(exc).split())[:200]}") from None
    return dict(collections)


def _norm_id(pid: Any) -> str:
    """Local mode's id normalisation: canonical UUID strings (ints as they are)."""
    return str(pid) if isinstance(pid, int) else str(uuid.UUID(str(pid)))


def _database(root: Path, name: str) -> Path:
    """A collection's storage.sqlite."""
    return root / COLLECTIONS / name / "storage.sqlite"


def point_total(root: Path, name: str) -> int:
    """Rows of a local-mode collection (an upper bound of its points)."""
    db = _database(root, name)
    if not db.is_file():
        return 0
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
            return int(conn.execute("SELECT COUNT(*) FROM points").fetchone()[0])
    except sqlite3.Error as exc:
        raise unreadable(root, f"{db}: {exc}") from None


def local_points(root: Path, name: str, page: int = 1024) -> Iterator[RawPoint]:
    """(id, named vectors, payload) of every live point of a local-mode collection, latest copy only."""
    db = _database(root, name)
    if not db.is_file():
        return
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        cursor = conn.execute("SELECT point FROM points ORDER BY rowid DESC")
    except sqlite3.Error as exc:
        raise unreadable(root, f"{db}: {exc}") from None
    seen: set[str] = set()
    try:
        while rows := cursor.fetchmany(page):
            for (blob,) in rows:
                point = pickle.loads(blob)  # written by qdrant-client itself, as trusted as the folder
                pid = _norm_id(point.id)
                if pid in seen:
                    continue
                seen.add(pid)
                vectors = point.vector if isinstance(point.vector, dict) else {DENSE: point.vector}
                yield pid, dict(vectors), dict(point.payload or {})
    except (sqlite3.Error, pickle.UnpicklingError, EOFError, AttributeError, ValueError) as exc:
        raise unreadable(root, f"{db}: {' '.join(str(exc).split())[:200]}") from None
    finally:
        conn.close()


def _shape(root: Path, config: dict[str, Any]) -> tuple[int, bool]:
    """(dense dim, has trigger vectors) of a local-mode collection config."""
    vectors = config.get("vectors") or {}
    if not isinstance(vectors, dict) or DENSE not in vectors:
        raise unreadable(root, f"a collection without a '{DENSE}' vector")
    return int(vectors[DENSE]["size"]), TRIGGER in vectors


def migrate_collection(store: VectorStore, root: Path, name: str, config: dict[str, Any],
                       progress: MigrationProgress | None = None) -> int:
    """Copy one collection beside the others, check every id arrived, switch it in; returns the count."""
    dim, trigger = _shape(root, config)
    meta = config.get("metadata") or {}
    total = point_total(root, name)
    ids: set[str] = set()

    def tracked() -> Iterator[RawPoint]:
        """The collection's points, each id remembered and progress said every 1,024."""
        for point in local_points(root, name):
            ids.add(point[0])
            if progress is not None and len(ids) % 1024 == 0:
                progress(name, len(ids), total)
            yield point

    staging = store.rebuild(name, dim, meta.get("model"), trigger)
    try:
        written = staging.write_points(tracked())
        stored = staging.point_ids()
    except BaseException:
        staging.abort()
        raise
    if written != len(ids) or stored != ids:
        staging.abort()
        raise StoreError(f"moving collection {name} from local mode lost points ({len(ids)} read, {len(stored)} "
                         f"stored): nothing was switched, the old files in {root} are untouched")
    staging.commit()
    if progress is not None:
        progress(name, written, total)
    return written


def migrate(store: VectorStore, root: Path, progress: MigrationProgress | None = None) -> dict[str, int]:
    """Move every local-mode collection in `root` into the (embedded) store; returns points per collection."""
    mark = root / MIGRATED_MARK
    if mark.is_file():
        counts = {str(k): int(v) for k, v in read_json(mark).get("points", {}).items()}
    else:
        counts = {name: migrate_collection(store, root, name, config, progress)
                  for name, config in local_collections(root).items()}
        write_json(mark, {"points": counts, "from": "qdrant-client local mode"})
    backup = root / BACKUP_DIR
    backup.mkdir(exist_ok=True)
    if (root / COLLECTIONS).exists():
        os.replace(root / COLLECTIONS, backup / COLLECTIONS)
    os.replace(root / META, backup / META)
    return counts


def migrated(root: Path) -> dict[str, int]:
    """Points per collection of the finished local-mode migration ({} when there was none)."""
    mark = Path(root) / MIGRATED_MARK
    try:
        return {str(k): int(v) for k, v in read_json(mark).get("points", {}).items()} if mark.is_file() else {}
    except (OSError, ValueError):
        return {}


def prune_backup(root: Path) -> bool:
    """Delete the kept local-mode backup; True when there was one."""
    import shutil

    backup = Path(root) / BACKUP_DIR
    if not backup.exists():
        return False
    shutil.rmtree(backup)
    return True

"""Trusted and blocked domain lists, user overrides, and URL matching against them."""

from __future__ import annotations

import contextlib
import ipaddress
import json
import os
import re
import stat
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from nonseq.errors import ConfigError, UsageError

TRUSTED_FILE = "domains_trusted.json"
BLOCKED_FILE = "domains_blocked.json"
SCHEMA_VERSION = 1
DOMAIN_TYPES = ("press", "trusted", "community", "academic", "official", "aggregator")
CATEGORIES = (
    "ai",
    "software",
    "hardware",
    "security",
    "science",
    "health",
    "space",
    "climate",
    "business",
    "finance",
    "policy",
    "culture",
)
MIN_BOOST = 0.50
MAX_BOOST = 0.95
UNKNOWN_TYPE = "unknown"
BLOCKED_TYPE = "blocked"
SHIPPED = "shipped"
USER = "user"

_LABEL_RE = re.compile(r"^(?!-)[a-z0-9-]{1,63}(?<!-)$")
_TRUSTED_KEYS = frozenset({"domain", "type", "boost", "categories"})
_BLOCKED_KEYS = frozenset({"domain", "reason"})
_TOP_KEYS = frozenset({"version", "domains"})
_USER_DOC = {
    "trusted": "User trusted domains; overrides the shipped list. Same schema as the shipped file.",
    "blocked": "User blocked domains; overrides the shipped list. Same schema as the shipped file.",
}


class DomainError(UsageError, ValueError):
    """Bad input for a domain entry (domain, type, boost, categories or reason)."""


class DomainFileError(ConfigError, ValueError):
    """A domain list file is missing, unreadable or breaks the schema."""


@dataclass(frozen=True)
class DomainInfo:
    """What the lists say about one domain; unknown domains have type 'unknown' and boost 0."""

    domain: str
    type: str
    boost: float
    categories: tuple[str, ...]
    blocked: bool
    reason: str

    @property
    def known(self) -> bool:
        """True when the domain matched a trusted or blocked entry."""
        return self.type != UNKNOWN_TYPE


def _unknown(host: str) -> DomainInfo:
    """Return the DomainInfo for a host that matches no list entry."""
    return DomainInfo(host, UNKNOWN_TYPE, 0.0, (), False, "")


# --- host handling -----------------------------------------------------------------------------


def normalize_host(url_or_host: str) -> str:
    """Return the lower-case host of a URL or host, without port, trailing dot or leading 'www.'."""
    text = str(url_or_host).strip()
    if not text:
        return ""
    if "://" not in text and not text.startswith("//"):
        text = "//" + text
    try:
        host = urlsplit(text).hostname or ""
    except ValueError:
        return ""
    host = host.strip().rstrip(".")
    if not host.isascii():
        with contextlib.suppress(UnicodeError):
            host = host.encode("idna").decode("ascii")
    if host.startswith("www.") and "." in host[4:]:
        host = host[4:]
    return host


def registrable_domain(host: str) -> str:
    """Return the host (or a URL's host) without 'www.', port or trailing dot (no PSL logic)."""
    return normalize_host(host)


def is_ip_address(host: str) -> bool:
    """True when the host is an IPv4/IPv6 literal (or ends in a numeric label)."""
    if not host:
        return False
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return host.rsplit(".", 1)[-1].isdigit()
    return True


def domain_problem(domain: str) -> str | None:
    """Return why a normalized domain cannot be listed, or None when it is valid."""
    if not domain:
        return "empty domain"
    if len(domain) > 253:
        return "longer than 253 characters"
    if is_ip_address(domain):
        return "IP addresses cannot be listed"
    labels = domain.split(".")
    if len(labels) < 2:
        return "needs at least two labels (e.g. example.com)"
    if not all(_LABEL_RE.match(label) for label in labels):
        return "labels must be 1-63 characters of a-z, 0-9 or '-' (not at either end)"
    return None


# --- entry validation ---------------------------------------------------------------------------


def _check_domain_input(domain: str) -> str:
    """Normalize user input (host or URL) to a listable domain or raise DomainError."""
    host = normalize_host(domain) if isinstance(domain, str) else ""
    problem = domain_problem(host)
    if problem:
        raise DomainError(f"invalid domain {domain!r}: {problem}")
    return host


def _check_type(domain_type: str) -> str:
    """Return the normalized domain type or raise DomainError."""
    value = domain_type.strip().lower() if isinstance(domain_type, str) else ""
    if value not in DOMAIN_TYPES:
        raise DomainError(
            f"unknown domain type {domain_type!r}: use one of {', '.join(DOMAIN_TYPES)}"
        )
    return value


def _check_boost(boost: float) -> float:
    """Return the boost as a float in [MIN_BOOST, MAX_BOOST] or raise DomainError."""
    if isinstance(boost, bool):
        raise DomainError(f"boost must be a number, got {boost!r}")
    try:
        value = float(boost)
    except (TypeError, ValueError):
        raise DomainError(f"boost must be a number, got {boost!r}") from None
    if not MIN_BOOST <= value <= MAX_BOOST:
        raise DomainError(f"boost {boost!r} is outside [{MIN_BOOST:.2f}, {MAX_BOOST:.2f}]")
    return value


def _check_categories(categories: Iterable[str]) -> tuple[str, ...]:
    """Return de-duplicated known categories (at least one) or raise DomainError."""
    if isinstance(categories, str):
        categories = categories.replace(",", " ").split()
    result: list[str] = []
    for raw in categories:
        value = raw.strip().lower() if isinstance(raw, str) else ""
        if value not in CATEGORIES:
            raise DomainError(f"unknown category {raw!r}: use one of {', '.join(CATEGORIES)}")
        if value not in result:
            result.append(value)
    if not result:
        raise DomainError("at least one category is required")
    return tuple(result)


def _check_reason(reason: str) -> str:
    """Return the reason collapsed to one line or raise DomainError when empty."""
    value = " ".join(reason.split()) if isinstance(reason, str) else ""
    if not value:
        raise DomainError("a non-empty reason is required to block a domain")
    return value


def make_trusted(
    domain: str,
    type: str,  # noqa: A002 - matches the file schema
    boost: float,
    categories: Iterable[str],
) -> DomainInfo:
    """Build a validated trusted DomainInfo; raise DomainError on bad input."""
    return DomainInfo(
        domain=_check_domain_input(domain),
        type=_check_type(type),
        boost=_check_boost(boost),
        categories=_check_categories(categories),
        blocked=False,
        reason="",
    )


def make_blocked(domain: str, reason: str) -> DomainInfo:
    """Build a validated blocked DomainInfo; raise DomainError on bad input."""
    return DomainInfo(
        _check_domain_input(domain), BLOCKED_TYPE, 0.0, (), True, _check_reason(reason)
    )


# --- file parsing -------------------------------------------------------------------------------


def _extra_keys(raw: dict[str, Any], allowed: frozenset[str]) -> list[str]:
    """Return keys that are neither allowed nor '_'-prefixed comments."""
    return sorted(k for k in raw if k not in allowed and not str(k).startswith("_"))


def _entry_from_raw(raw: Any, kind: str) -> tuple[DomainInfo | None, str | None]:
    """Turn one raw JSON entry into a DomainInfo, or return the problem with it."""
    allowed = _TRUSTED_KEYS if kind == "trusted" else _BLOCKED_KEYS
    if not isinstance(raw, dict):
        return None, "entry must be an object"
    missing = sorted(allowed - raw.keys())
    if missing:
        return None, f"missing key(s) {', '.join(missing)}"
    extra = _extra_keys(raw, allowed)
    if extra:
        return None, f"unknown key(s) {', '.join(extra)}"
    domain = raw["domain"]
    if not isinstance(domain, str) or domain != normalize_host(domain):
        return None, "domain must be lower-case without scheme, port, path, trailing dot or 'www.'"
    if kind == "trusted" and not isinstance(raw["categories"], list):
        return None, "categories must be a list"
    if kind == "trusted" and not isinstance(raw["boost"], int | float):
        return None, "boost must be a number"
    try:
        if kind == "trusted":
            return make_trusted(domain, raw["type"], raw["boost"], raw["categories"]), None
        return make_blocked(domain, raw["reason"]), None
    except DomainError as exc:
        return None, str(exc)


def _parse_list(path: Path, kind: str) -> tuple[list[DomainInfo], list[str]]:
    """Read a trusted/blocked file; return its entries and every problem found."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return [], [f"{path}: file not found"]
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        return [], [f"{path}: cannot read JSON ({exc})"]
    if not isinstance(data, dict):
        return [], [f"{path}: top level must be an object"]
    problems = [f"{path}: unknown top-level key {k!r}" for k in _extra_keys(data, _TOP_KEYS)]
    if data.get("version") != SCHEMA_VERSION:
        problems.append(f"{path}: version must be {SCHEMA_VERSION}")
    raw_entries = data.get("domains")
    if not isinstance(raw_entries, list):
        return [], [*problems, f"{path}: 'domains' must be a list"]
    entries: list[DomainInfo] = []
    seen: set[str] = set()
    for index, raw in enumerate(raw_entries):
        entry, problem = _entry_from_raw(raw, kind)
        label = raw.get("domain") if isinstance(raw, dict) else None
        if problem or entry is None:
            problems.append(f"{path}: domains[{index}] ({label}): {problem}")
            continue
        if entry.domain in seen:
            problems.append(f"{path}: domains[{index}]: duplicate domain {entry.domain}")
            continue
        seen.add(entry.domain)
        entries.append(entry)
    return entries, problems


def _read_strict(path: Path, kind: str) -> list[DomainInfo]:
    """Read a list file and raise DomainFileError if it has any problem."""
    entries, problems = _parse_list(path, kind)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise DomainFileError(problems[0] + more)
    return entries


def validate_files(trusted_path: Path, blocked_path: Path) -> list[str]:
    """Return all schema, range, duplicate and overlap problems of two files (empty if fine)."""
    trusted, problems = _parse_list(Path(trusted_path), "trusted")
    blocked, blocked_problems = _parse_list(Path(blocked_path), "blocked")
    problems.extend(blocked_problems)
    overlap = sorted({e.domain for e in trusted} & {e.domain for e in blocked})
    problems.extend(f"{d}: listed as both trusted and blocked" for d in overlap)
    return problems


# --- persistence --------------------------------------------------------------------------------


def _entry_to_json(entry: DomainInfo) -> dict[str, Any]:
    """Return the file representation of an entry."""
    if entry.blocked:
        return {"domain": entry.domain, "reason": entry.reason}
    return {
        "domain": entry.domain,
        "type": entry.type,
        "boost": entry.boost,
        "categories": list(entry.categories),
    }


def _render_list(doc: str, entries: Iterable[DomainInfo]) -> str:
    """Render a list file with one entry per line, sorted by domain."""
    lines = [json.dumps(_entry_to_json(e)) for e in sorted(entries, key=lambda e: e.domain)]
    body = ",\n    ".join(lines)
    domains = f"[\n    {body}\n  ]" if lines else "[]"
    head = f'{{\n  "_doc": {json.dumps(doc)},\n  "version": {SCHEMA_VERSION},\n'
    return f'{head}  "domains": {domains}\n}}\n'


def _write_atomic(path: Path, text: str) -> None:
    """Write text to path through a temp file in the same directory and os.replace."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        mode = stat.S_IMODE(path.stat().st_mode) if path.exists() else 0o644
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _save_user_entry(entry: DomainInfo, user_dir: Path) -> None:
    """Store entry in the user's file of its kind and drop the domain from the other user file."""
    user_dir = Path(user_dir)
    own, other = ("blocked", "trusted") if entry.blocked else ("trusted", "blocked")
    paths = {"trusted": user_dir / TRUSTED_FILE, "blocked": user_dir / BLOCKED_FILE}
    current = {k: _read_strict(p, k) if p.exists() else [] for k, p in paths.items()}
    kept = [e for e in current[own] if e.domain != entry.domain]
    _write_atomic(paths[own], _render_list(_USER_DOC[own], [*kept, entry]))
    remaining = [e for e in current[other] if e.domain != entry.domain]
    if len(remaining) != len(current[other]):
        _write_atomic(paths[other], _render_list(_USER_DOC[other], remaining))


def add_trusted(
    domain: str,
    type: str,  # noqa: A002 - matches the file schema
    boost: float,
    categories: Iterable[str],
    user_dir: Path,
) -> DomainInfo:
    """Validate and persist a user-trusted domain (removing it from the user blocklist)."""
    entry = make_trusted(domain, type, boost, categories)
    _save_user_entry(entry, user_dir)
    return entry


def add_blocked(domain: str, reason: str, user_dir: Path) -> DomainInfo:
    """Validate and persist a user-blocked domain (removing it from the user trust list)."""
    entry = make_blocked(domain, reason)
    _save_user_entry(entry, user_dir)
    return entry


# --- registry -----------------------------------------------------------------------------------


def _list_paths(directory: Path) -> tuple[tuple[Path, str], ...]:
    """Return (path, kind) for the trusted then the blocked file of a directory."""
    return ((directory / TRUSTED_FILE, "trusted"), (directory / BLOCKED_FILE, "blocked"))


def shipped_data_dir() -> Path:
    """Return the directory holding the shipped lists (repo 'data/' or the package's 'data/')."""
    here = Path(__file__).resolve()
    repo_data = here.parents[2] / "data"
    if (repo_data / TRUSTED_FILE).exists():
        return repo_data
    return here.parents[1] / "data"


class DomainRegistry:
    """Shipped trusted/blocked lists merged with the user's overrides, matched by host suffix."""

    def __init__(self) -> None:
        """Create an empty registry; use DomainRegistry.load to fill it."""
        self._trusted: dict[str, DomainInfo] = {}
        self._blocked: dict[str, DomainInfo] = {}
        self._origin: dict[str, str] = {}

    @classmethod
    def load(cls, shipped_dir: Path, user_dir: Path | None = None) -> DomainRegistry:
        """Load the shipped lists, then the user's override files (user entries win)."""
        registry = cls()
        for path, kind in _list_paths(Path(shipped_dir)):
            for entry in _read_strict(path, kind):
                registry._put(entry, SHIPPED)
        if user_dir is not None:
            for path, kind in _list_paths(Path(user_dir)):
                if path.exists():
                    for entry in _read_strict(path, kind):
                        registry._put(entry, USER)
        return registry

    def _put(self, entry: DomainInfo, origin: str) -> None:
        """Insert entry, removing the same domain from the opposite list."""
        if entry.blocked:
            self._trusted.pop(entry.domain, None)
            self._blocked[entry.domain] = entry
        else:
            self._blocked.pop(entry.domain, None)
            self._trusted[entry.domain] = entry
        self._origin[entry.domain] = origin

    def lookup(self, url_or_host: str) -> DomainInfo:
        """Return the most specific listed suffix matching the URL's host, else an unknown entry."""
        host = normalize_host(url_or_host)
        if not host or is_ip_address(host):
            return _unknown(host)
        labels = host.split(".")
        for start in range(len(labels) - 1):
            suffix = ".".join(labels[start:])
            hit = self._trusted.get(suffix) or self._blocked.get(suffix)
            if hit is not None:
                return hit
        return _unknown(host)

    def is_blocked(self, url: str) -> bool:
        """True when the URL's host is under a blocked entry and no more specific trusted one."""
        return self.lookup(url).blocked

    def boost(self, url: str) -> float:
        """Return the ranking boost for the URL's host (0.0 for unknown or blocked hosts)."""
        return self.lookup(url).boost

    def origin(self, domain: str) -> str | None:
        """Return 'shipped' or 'user' for a listed domain, None when it is not listed."""
        return self._origin.get(normalize_host(domain))

    def trusted_entries(self) -> list[DomainInfo]:
        """Return all trusted entries sorted by domain."""
        return sorted(self._trusted.values(), key=lambda e: e.domain)

    def blocked_entries(self) -> list[DomainInfo]:
        """Return all blocked entries sorted by domain."""
        return sorted(self._blocked.values(), key=lambda e: e.domain)

    def by_category(self, category: str) -> list[DomainInfo]:
        """Return trusted entries of a category, highest boost first."""
        hits = [e for e in self._trusted.values() if category in e.categories]
        return sorted(hits, key=lambda e: (-e.boost, e.domain))

    def add_trusted(
        self,
        domain: str,
        type: str,  # noqa: A002 - matches the file schema
        boost: float,
        categories: Iterable[str],
        user_dir: Path,
    ) -> DomainInfo:
        """Persist a user-trusted domain and apply it to this registry."""
        entry = add_trusted(domain, type, boost, categories, user_dir)
        self._put(entry, USER)
        return entry

    def add_blocked(self, domain: str, reason: str, user_dir: Path) -> DomainInfo:
        """Persist a user-blocked domain and apply it to this registry."""
        entry = add_blocked(domain, reason, user_dir)
        self._put(entry, USER)
        return entry


def load_default(user_dir: Path | None = None) -> DomainRegistry:
    """Load the registry from shipped_data_dir() plus the optional user (workspace) directory."""
    return DomainRegistry.load(shipped_data_dir(), user_dir)

"""Tests for the shipped domain lists and nonseq.research.domains."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from nonseq.errors import NonseqError
from nonseq.research.domains import (
    BLOCKED_FILE,
    CATEGORIES,
    DOMAIN_TYPES,
    MAX_BOOST,
    MIN_BOOST,
    TRUSTED_FILE,
    DomainError,
    DomainFileError,
    DomainInfo,
    DomainRegistry,
    add_blocked,
    add_trusted,
    load_default,
    registrable_domain,
    shipped_data_dir,
    validate_files,
)

DATA = Path(__file__).resolve().parents[1] / "data"


def _entries(name: str) -> list[dict]:
    """Return the raw entries of a shipped list file."""
    data = json.loads((DATA / name).read_text(encoding="utf-8"))
    assert isinstance(data.get("_doc"), str) and data["_doc"]
    assert data["version"] == 1
    return data["domains"]


@pytest.fixture(scope="module")
def registry() -> DomainRegistry:
    """Registry built from the shipped files only."""
    return DomainRegistry.load(DATA, None)


def _write(path: Path, entries: list[dict]) -> Path:
    """Write a list file with the given entries."""
    path.write_text(json.dumps({"version": 1, "domains": entries}), encoding="utf-8")
    return path


# --- shipped files ------------------------------------------------------------------------------


def test_shipped_files_validate_clean() -> None:
    assert validate_files(DATA / TRUSTED_FILE, DATA / BLOCKED_FILE) == []


def test_shipped_data_dir_points_at_repo_data() -> None:
    assert shipped_data_dir() == DATA
    assert len(load_default(None).trusted_entries()) >= 328


def test_trusted_file_schema_and_ranges() -> None:
    entries = _entries(TRUSTED_FILE)
    assert len(entries) >= 328
    for entry in entries:
        assert set(entry) == {"domain", "type", "boost", "categories"}, entry
        assert entry["type"] in DOMAIN_TYPES
        assert isinstance(entry["boost"], float)
        assert MIN_BOOST <= entry["boost"] <= MAX_BOOST
        assert entry["categories"] and set(entry["categories"]) <= set(CATEGORIES)
        assert len(set(entry["categories"])) == len(entry["categories"])


def test_blocked_file_schema() -> None:
    entries = _entries(BLOCKED_FILE)
    assert len(entries) >= 50
    for entry in entries:
        assert set(entry) == {"domain", "reason"}, entry
        assert isinstance(entry["reason"], str) and entry["reason"].strip()


def test_domains_normalized_unique_and_disjoint() -> None:
    trusted = [e["domain"] for e in _entries(TRUSTED_FILE)]
    blocked = [e["domain"] for e in _entries(BLOCKED_FILE)]
    for domain in trusted + blocked:
        assert domain == domain.lower().strip()
        assert "://" not in domain and "/" not in domain and ":" not in domain
        assert not domain.startswith("www.") and not domain.endswith(".")
        assert registrable_domain(domain) == domain
    assert len(trusted) == len(set(trusted))
    assert len(blocked) == len(set(blocked))
    assert not set(trusted) & set(blocked)


def test_every_category_is_well_covered() -> None:
    counts = Counter(c for e in _entries(TRUSTED_FILE) for c in e["categories"])
    for category in CATEGORIES:
        assert counts[category] >= 15, (category, counts[category])


def test_boosts_follow_type_order() -> None:
    by_type: dict[str, list[float]] = {}
    for entry in _entries(TRUSTED_FILE):
        by_type.setdefault(entry["type"], []).append(entry["boost"])
    mean = {t: sum(v) / len(v) for t, v in by_type.items()}
    assert set(mean) == set(DOMAIN_TYPES)
    for high in ("official", "academic"):
        for low in ("community", "aggregator"):
            assert mean[high] > mean[low]


# --- lookup ---------------------------------------------------------------------------------------


def test_lookup_known_and_unknown(registry: DomainRegistry) -> None:
    info = registry.lookup("https://www.nature.com/articles/s41586-020-2649-2")
    assert info.domain == "nature.com" and info.type == "academic" and not info.blocked
    assert info.boost == registry.boost("nature.com") > 0.5
    unknown = registry.lookup("https://no-such-site.example/page")
    assert unknown == DomainInfo("no-such-site.example", "unknown", 0.0, (), False, "")
    assert not unknown.known and registry.boost("no-such-site.example") == 0.0


def test_lookup_subdomains_and_most_specific_suffix(registry: DomainRegistry) -> None:
    assert registry.lookup("https://a.b.docs.python.org/3/").domain == "python.org"
    assert registry.lookup("https://hai.stanford.edu/news").domain == "hai.stanford.edu"
    assert registry.lookup("https://news.stanford.edu/").domain == "stanford.edu"
    assert registry.lookup("https://enisa.europa.eu/x").domain == "enisa.europa.eu"
    assert registry.lookup("https://eur-lex.europa.eu/x").domain == "europa.eu"
    assert registry.lookup("https://notnature.com/").type == "unknown"


def test_lookup_input_forms(registry: DomainRegistry) -> None:
    for form in (
        "nasa.gov",
        "www.nasa.gov",
        "WWW.NASA.GOV",
        "nasa.gov.",
        "nasa.gov:8443",
        "https://www.nasa.gov:443/path?q=1#frag",
        "//science.nasa.gov/mission",
        "HTTP://User@Www.Nasa.Gov./x",
        "  https://nasa.gov  ",
    ):
        assert registry.lookup(form).domain == "nasa.gov", form


def test_ip_addresses_and_garbage_never_match(registry: DomainRegistry) -> None:
    values = ("http://192.168.1.1/", "10.0.0.1:8080", "http://[::1]/", "[2001:db8::1]", "", "://")
    for value in (*values, "http://[::1"):
        info = registry.lookup(value)
        assert info.type == "unknown" and info.boost == 0.0 and not info.blocked, value


def test_blocked_lookup(registry: DomainRegistry) -> None:
    assert registry.is_blocked("https://www.pinterest.com/pin/123")
    assert registry.is_blocked("https://uk.pinterest.com/pin/123")
    info = registry.lookup("quora.com")
    assert info.blocked and info.type == "blocked" and info.reason and info.boost == 0.0
    assert not registry.is_blocked("https://arxiv.org/abs/1706.03762")
    assert registry.boost("https://pinterest.com") == 0.0


def test_registrable_domain() -> None:
    assert registrable_domain("https://WWW.Example.COM:8080/a") == "example.com"
    assert registrable_domain("sub.example.com.") == "sub.example.com"
    assert registrable_domain("www.example.com") == "example.com"


def test_by_category(registry: DomainRegistry) -> None:
    space = registry.by_category("space")
    assert len(space) >= 15 and all("space" in e.categories for e in space)
    assert [e.boost for e in space] == sorted((e.boost for e in space), reverse=True)


# --- user overrides -------------------------------------------------------------------------------


def test_user_files_override_shipped(tmp_path: Path) -> None:
    _write(
        tmp_path / TRUSTED_FILE,
        [
            {"domain": "quora.com", "type": "community", "boost": 0.55, "categories": ["culture"]},
            {"domain": "myblog.example", "type": "trusted", "boost": 0.9, "categories": ["ai"]},
        ],
    )
    _write(tmp_path / BLOCKED_FILE, [{"domain": "forbes.com", "reason": "contributor spam"}])
    registry = DomainRegistry.load(DATA, tmp_path)
    assert not registry.is_blocked("quora.com") and registry.boost("quora.com") == 0.55
    assert registry.lookup("https://x.myblog.example/p").boost == 0.9
    assert registry.is_blocked("https://www.forbes.com/sites/x")
    assert registry.lookup("forbes.com").reason == "contributor spam"
    assert registry.origin("forbes.com") == "user" and registry.origin("nature.com") == "shipped"
    assert registry.origin("unlisted.example") is None


def test_user_dir_without_files_is_fine(tmp_path: Path) -> None:
    registry = DomainRegistry.load(DATA, tmp_path / "missing")
    assert registry.lookup("nature.com").type == "academic"


def test_more_specific_user_trust_beats_blocked_parent(tmp_path: Path) -> None:
    registry = DomainRegistry.load(DATA, tmp_path)
    registry.add_trusted("engineering.pinterest.com", "trusted", 0.7, ["software"], tmp_path)
    assert not registry.is_blocked("https://engineering.pinterest.com/post")
    assert registry.is_blocked("https://www.pinterest.com/")


def test_add_trusted_and_blocked_persist(tmp_path: Path) -> None:
    user = tmp_path / "ws"
    entry = add_trusted("https://WWW.Example.org/path", "press", 0.8, ["science", "science"], user)
    assert entry == DomainInfo("example.org", "press", 0.8, ("science",), False, "")
    add_blocked("spam.example", "  SEO   spam\n", user)
    registry = DomainRegistry.load(DATA, user)
    assert registry.lookup("example.org").boost == 0.8
    assert registry.lookup("a.spam.example").reason == "SEO spam"
    assert validate_files(user / TRUSTED_FILE, user / BLOCKED_FILE) == []
    assert sorted(p.name for p in user.iterdir()) == [BLOCKED_FILE, TRUSTED_FILE]


def test_add_moves_domain_between_user_files(tmp_path: Path) -> None:
    add_blocked("example.org", "bad", tmp_path)
    add_trusted("example.org", "trusted", 0.7, ["ai"], tmp_path)
    registry = DomainRegistry.load(DATA, tmp_path)
    assert not registry.is_blocked("example.org") and registry.boost("example.org") == 0.7
    assert json.loads((tmp_path / BLOCKED_FILE).read_text())["domains"] == []
    add_blocked("example.org", "bad again", tmp_path)
    assert DomainRegistry.load(DATA, tmp_path).is_blocked("example.org")
    assert json.loads((tmp_path / TRUSTED_FILE).read_text())["domains"] == []


def test_add_updates_existing_entry(tmp_path: Path) -> None:
    add_trusted("example.org", "trusted", 0.7, ["ai"], tmp_path)
    add_trusted("example.org", "academic", 0.9, ["science"], tmp_path)
    domains = json.loads((tmp_path / TRUSTED_FILE).read_text())["domains"]
    assert domains == [
        {"domain": "example.org", "type": "academic", "boost": 0.9, "categories": ["science"]}
    ]


def test_user_can_block_shipped_trusted_in_memory(tmp_path: Path) -> None:
    registry = DomainRegistry.load(DATA, tmp_path)
    registry.add_blocked("nature.com", "testing", tmp_path)
    assert registry.is_blocked("https://www.nature.com/")
    assert DomainRegistry.load(DATA, tmp_path).is_blocked("nature.com")


# --- bad input ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("domain", "kind", "boost", "categories"),
    [
        ("", "press", 0.7, ["ai"]),
        ("localhost", "press", 0.7, ["ai"]),
        ("192.168.0.1", "press", 0.7, ["ai"]),
        ("bad_domain.com", "press", 0.7, ["ai"]),
        ("-bad.com", "press", 0.7, ["ai"]),
        ("exa mple.com", "press", 0.7, ["ai"]),
        ("example.com", "blog", 0.7, ["ai"]),
        ("example.com", "press", 0.49, ["ai"]),
        ("example.com", "press", 0.96, ["ai"]),
        ("example.com", "press", float("nan"), ["ai"]),
        ("example.com", "press", True, ["ai"]),
        ("example.com", "press", "high", ["ai"]),
        ("example.com", "press", 0.7, []),
        ("example.com", "press", 0.7, ["cooking"]),
    ],
)
def test_add_trusted_rejects_bad_input(
    tmp_path: Path, domain: str, kind: str, boost: float, categories: list[str]
) -> None:
    with pytest.raises(ValueError) as excinfo:
        add_trusted(domain, kind, boost, categories, tmp_path)
    assert isinstance(excinfo.value, DomainError) and isinstance(excinfo.value, NonseqError)
    assert "\n" not in str(excinfo.value)
    assert not (tmp_path / TRUSTED_FILE).exists()


@pytest.mark.parametrize(("domain", "reason"), [("", "x"), ("example", "x"), ("example.com", "  ")])
def test_add_blocked_rejects_bad_input(tmp_path: Path, domain: str, reason: str) -> None:
    with pytest.raises(DomainError):
        add_blocked(domain, reason, tmp_path)
    assert not (tmp_path / BLOCKED_FILE).exists()


def test_corrupt_user_file_raises_and_is_not_overwritten(tmp_path: Path) -> None:
    (tmp_path / TRUSTED_FILE).write_text("{not json", encoding="utf-8")
    with pytest.raises(DomainFileError):
        DomainRegistry.load(DATA, tmp_path)
    with pytest.raises(DomainFileError):
        add_trusted("example.org", "press", 0.7, ["ai"], tmp_path)
    assert (tmp_path / TRUSTED_FILE).read_text(encoding="utf-8") == "{not json"


def test_missing_shipped_dir_raises(tmp_path: Path) -> None:
    with pytest.raises(DomainFileError):
        DomainRegistry.load(tmp_path / "nowhere", None)


def test_validate_files_reports_problems(tmp_path: Path) -> None:
    trusted = _write(
        tmp_path / "t.json",
        [
            {"domain": "a.com", "type": "press", "boost": 0.7, "categories": ["ai"]},
            {"domain": "a.com", "type": "press", "boost": 0.7, "categories": ["ai"]},
            {"domain": "b.com", "type": "press", "boost": 1.5, "categories": ["ai"]},
            {"domain": "www.c.com", "type": "press", "boost": 0.7, "categories": ["ai"]},
            {"domain": "d.com", "type": "nope", "boost": 0.7, "categories": ["ai"]},
            {"domain": "e.com", "type": "press", "boost": 0.7, "categories": ["ai"], "x": 1},
            {"domain": "f.com", "type": "press", "boost": 0.7},
            {"domain": "shared.com", "type": "press", "boost": 0.7, "categories": ["ai"]},
        ],
    )
    blocked = _write(
        tmp_path / "b.json",
        [
            {"domain": "shared.com", "reason": "x"},
            {"domain": "g.com", "reason": ""},
            {"domain": "HTTP://H.COM"},
        ],
    )
    problems = validate_files(trusted, blocked)
    text = "\n".join(problems)
    assert len(problems) == 9, text
    for needle in (
        "duplicate domain a.com",
        "b.com",
        "www.c.com",
        "d.com",
        "unknown key(s) x",
        "missing key(s) categories",
        "shared.com: listed as both",
        "g.com",
        "HTTP://H.COM",
    ):
        assert needle in text, needle


def test_validate_files_missing_and_bad_top_level(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"version": 2, "domains": {}}), encoding="utf-8")
    problems = validate_files(tmp_path / "absent.json", bad)
    assert any("file not found" in p for p in problems)
    assert any("version must be 1" in p for p in problems)
    assert any("'domains' must be a list" in p for p in problems)

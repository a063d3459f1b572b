"""Settings: config.toml found, validated once, overridden by NONSEQ_<SECTION>__<KEY> variables."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from nonseq.errors import ConfigError, UsageError
from nonseq.text.files import read_text_file

ENV_PREFIX = "NONSEQ_"
DEFAULT_CATEGORIES = [
    "ai", "software", "hardware", "security", "science", "health",
    "space", "climate", "business", "finance", "policy", "culture",
]


class Section(BaseModel):
    """Base for a config section: unknown keys are errors."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, allow_inf_nan=False)


class PathsSettings(Section):
    """[paths] Where nonseq keeps its data (relative paths resolve from the config file)."""

    data_dir: str = Field(".nonseq", description="Workspace: SQLite database, embedded Qdrant, caches")
    articles_dir: str = Field("articles", description="Where written articles go")
    personas_dir: str = Field("personas", description="Author voices, one folder or file each")
    schemas_dir: str = Field("", description="Article schemas; empty = the bundled ones")


class SearxngSettings(Section):
    """[searxng] The SearXNG instance used for web search (JSON API)."""

    url: str = Field("http://127.0.0.1:8888", description="Base URL of SearXNG")
    pages: int = Field(2, ge=1, le=10, description="Result pages fetched per query")
    language: str = Field("en", description="Search language")
    categories: str = Field("general", description="SearXNG categories, comma separated")
    timeout: float = Field(15.0, gt=0, le=3600, description="Seconds per request")
    retries: int = Field(3, ge=0, le=10, description="Retries on 429, 5xx and timeouts")
    probe_timeout: float = Field(
        1.0, gt=0, le=3600, description="Seconds the menu's status line waits for SearXNG to answer"
    )
    backoff: float = Field(
        1.0, ge=0, le=60, description="Seconds before the first retry (doubles each retry)"
    )
    max_results: int = Field(40, ge=1, le=500, description="Most results kept per topic")
    port: int = Field(8888, ge=1024, le=65535, description="Port of `nonseq searxng start`")


class FetchSettings(Section):
    """[fetch] Fetching pages: limits, politeness and the SSRF guard."""

    concurrency: int = Field(8, ge=1, le=128, description="Requests in flight overall")
    per_domain: int = Field(2, ge=1, le=32, description="Requests in flight per domain")
    timeout: float = Field(20.0, gt=0, le=3600, description="Seconds per page (total)")
    max_bytes: int = Field(5_000_000, ge=1000, description="Largest body read; more is cut")
    max_redirects: int = Field(5, ge=0, le=20, description="Redirects followed")
    user_agent: str = Field(
        "NonSequitur/0.1 (research assistant; +https://pypi.org/project/nonseq/)",
        description="User-Agent header",
    )
    respect_robots: bool = Field(True, description="Obey robots.txt (cached per host)")
    allow_private: bool = Field(
        False, description="Allow private/loopback addresses (SSRF guard off); for local tests"
    )
    allow_hosts: list[str] = Field(
        default_factory=list,
        description="Hosts, IPs or CIDRs allowed even though private (e.g. 127.0.0.1)",
    )
    hosts: dict[str, str] = Field(
        default_factory=dict,
        description="Fixed addresses for host names, like /etc/hosts; the SSRF guard still checks them",
    )


class QdrantSettings(Section):
    """[qdrant] The vector store: embedded on disk by default, or a server."""

    url: str = Field("", description="Qdrant server URL; empty = embedded local mode on disk")
    api_key: str = Field("", description="API key for a Qdrant server")
    path: str = Field("", description="Embedded store folder; empty = <data_dir>/qdrant")
    batch_size: int = Field(128, ge=1, le=4096, description="Points per upsert")
    timeout: float = Field(30.0, gt=0, le=3600, description="Seconds per server request")


class DatabaseSettings(Section):
    """[database] Where the state lives: the SQLite file (one writer) or a PostgreSQL server (a team)."""

    url: str = Field(
        "", description="Empty = <data_dir>/nonseq.db (SQLite); postgresql://user@host:port/db for a team "
        "(the password from PGPASSWORD or ~/.pgpass, not here)")

    @field_validator("url")
    @classmethod
    def _check_url(cls, url: str) -> str:
        """Empty, sqlite:///path or postgresql://…"""
        url = url.strip()
        if url and not url.startswith(("sqlite:///", "postgresql://", "postgres://")):
            raise ValueError("url is empty (the SQLite file), sqlite:///path or postgresql://user@host:port/db")
        return url


#: The variable that says where the bundled embedder keeps its vectors: the one setting the demo and the test
#: suite's children take from the environment (it never changes what is computed).
VECTOR_CACHE_ENV = f"{ENV_PREFIX}EMBEDDING__VECTOR_CACHE"
#: The names the bundled embedding model answers to (`index.embed`).
BUNDLED_EMBEDDING_NAMES = ("all-MiniLM-L6-v2", "nonseq/all-MiniLM-L6-v2-int8")


class EmbeddingSettings(Section):
    """[embedding] The dense embedder."""

    backend: Literal["fastembed", "sentence-transformers", "ollama"] = Field(
        "fastembed", description="fastembed (ONNX, default), sentence-transformers or ollama"
    )
    model: str = Field(
        "all-MiniLM-L6-v2",
        description="Model name; the default is the bundled int8 ONNX all-MiniLM-L6-v2",
    )
    model_path: str = Field("", description="Local model folder (fastembed/sentence-transformers)")
    ollama_url: str = Field("http://127.0.0.1:11434", description="Ollama server for embeddings")
    batch_size: int = Field(
        2, ge=1, le=1024,
        description="Texts per embedding batch; fastembed's peak memory grows with it (15 MB a text) "
        "and its speed does not",
    )
    threads: int = Field(
        0, ge=0, le=256, description="ONNX threads of the embedder and of the support check; 0 = all cores")
    vector_cache: str = Field(
        "~/.cache/nonseq/vectors.sqlite",
        description="SQLite file where the bundled model keeps each text's vector across runs and workspaces "
        "(the same vector it would compute again); an absolute path or one under ~; empty = keep none",
    )
    vector_cache_rows: int = Field(
        100_000, ge=1_000, le=100_000_000,
        description="Most vectors kept in the vector cache (about 2.1 kB each on disk); the oldest go first",
    )

    @property
    def bundled(self) -> bool:
        """True for the bundled model (the int8 ONNX all-MiniLM-L6-v2 that fastembed runs)."""
        return self.backend == "fastembed" and self.model in BUNDLED_EMBEDDING_NAMES and not self.model_path

    @property
    def cache_file(self) -> Path | None:
        """The vector cache's file: only the bundled model keeps vectors (another's may depend on its batch)."""
        return Path(self.vector_cache).expanduser() if self.vector_cache and self.bundled else None

    @field_validator("vector_cache")
    @classmethod
    def _absolute_cache(cls, value: str) -> str:
        """Empty, an absolute path, or a path under ~."""
        if value and not Path(value).expanduser().is_absolute():
            raise ValueError(f"{value!r} is relative: give an absolute path, one under ~, or empty for none")
        return value


class SparseSettings(Section):
    """[sparse] The BM25 sparse encoder and pre-ranker (same tokenizer, stemmer, stopwords)."""

    language: str = Field("english", description="Snowball stemmer and stopword language")
    k1: float = Field(1.2, gt=0, le=5, description="BM25 term-frequency saturation")
    b: float = Field(0.75, ge=0, le=1, description="BM25 length normalisation")

    @field_validator("language")
    @classmethod
    def _known_language(cls, value: str) -> str:
        """A language the Snowball stemmer (PyStemmer) has."""
        import Stemmer

        name = value.strip().lower()
        known = sorted(Stemmer.algorithms())
        if name not in known:
            raise ValueError(f"{value!r} is not a stemmer language (one of: {', '.join(known)})")
        return name


class ResearchSettings(Section):
    """[research] Extraction and chunking."""

    chunk_tokens: int = Field(200, ge=32, le=512, description="Chunk size in embedding tokens")
    chunk_overlap: int = Field(40, ge=0, le=256, description="Overlap between chunks, in tokens")
    min_text_chars: int = Field(400, ge=0, description="Pages with less main text are dropped")
    max_pages: int = Field(30, ge=1, le=500, description="Most pages fetched per topic")
    extraction: Literal["precision", "balanced", "recall"] = Field(
        "precision",
        description="trafilatura's bias: precision (best F1 on the benchmark), balanced or recall",
    )
    index_batch: int = Field(
        32, ge=1, le=4096, description="Chunks embedded and written together while pages arrive"
    )
    max_file_bytes: int = Field(
        10_000_000, ge=1000, description="Largest local file read by --file (refused before reading)"
    )
    max_chunks_per_page: int = Field(
        300, ge=1, le=100_000,
        description="Most chunks indexed from one web page (the first ones); a page cut short is reported",
    )
    max_chunks_per_file: int = Field(
        2000, ge=1, le=1_000_000,
        description="Most chunks indexed from one --file (the first ones); a file cut short is reported",
    )
    max_document_bytes: int = Field(
        50_000_000, ge=1000, le=2_000_000_000,
        description="Largest PDF, DOCX or EPUB read, from disk or the web (refused before reading)",
    )
    max_document_pages: int = Field(1000, ge=1, le=100_000, description="Most pages read of one PDF")
    document_seconds: float = Field(
        60.0, gt=0, le=3600,
        description="Seconds one document's extraction may take (enforced inside its child process)",
    )
    document_memory_mb: int = Field(
        512, ge=128, le=65536, description="Memory one document's extraction may use, in MB (POSIX)"
    )
    local_boost: float = Field(
        0.5, ge=0, le=1,
        description="Trust boost of the user's own files (domains do not apply to them); 0 = none",
    )


class RerankSettings(Section):
    """[rerank] The reranker that orders the candidate pool (scores always in [0,1])."""

    backend: Literal["cross-encoder", "fastembed", "http", "bi-encoder", "none"] = Field(
        "cross-encoder",
        description="cross-encoder (sentence-transformers), fastembed (ONNX), http (a served reranker), "
        "bi-encoder or none",
    )
    model: str = Field(
        "BAAI/bge-reranker-v2-m3", description="Cross-encoder model name (http: the model a cohere API serves)"
    )
    model_path: str = Field(
        "", description="Local folder of the cross-encoder; empty = the Hugging Face cache"
    )
    batch_size: int = Field(16, ge=1, le=512, description="Pairs per batch")
    max_length: int = Field(512, ge=16, le=8192, description="Tokens per query+passage pair")
    threads: int = Field(0, ge=0, le=256, description="CPU threads (fastembed); 0 = all cores")
    fallback: Literal["bi-encoder", "none"] = Field(
        "bi-encoder", description="What to use when the model cannot be loaded"
    )
    fusion: Literal["auto", "none", "rrf", "weighted"] = Field(
        "auto",
        description="Fuse rerank scores with the pre-rank order: auto = only for the bi-encoder",
    )
    fusion_weight: float = Field(
        0.6, ge=0, le=1,
        description="weighted fusion: share of the reranker (rest: pre-rank); 0.6 tuned on SciFact train",
    )
    fusion_k: int = Field(60, ge=1, le=1000, description="rrf fusion: the k of 1/(k + rank)")
    url: str = Field("http://127.0.0.1:8080", description="http: the rerank server's base URL")
    api: Literal["tei", "cohere"] = Field(
        "tei", description="http: tei (POST /rerank, text-embeddings-inference) or cohere (POST /v1/rerank: "
        "Cohere, Jina, llama.cpp's server, Infinity)",
    )
    api_key: str = Field("", description="http: bearer key; set it with NONSEQ_RERANK__API_KEY, never shown")
    timeout: float = Field(30.0, gt=0, le=3600, description="http: seconds per request")
    retries: int = Field(2, ge=0, le=10, description="http: retries on connection errors, timeouts, 429 and 5xx")
    scores: Literal["auto", "probability", "logit"] = Field(
        "auto", description="http: how to read the server's scores: probability (kept), logit (sigmoid), "
        "auto (a logit when any score of a query falls outside [0,1], as llama.cpp's raw scores do)",
    )


class LLMSettings(Section):
    """[llm] The language model used for gap analysis, fact extraction and writing."""

    backend: Literal["llamacpp", "ollama", "openai", "mlx"] = Field(
        "llamacpp",
        description="llamacpp (in-process GGUF, default), ollama, openai (compatible server) or mlx",
    )
    model: str = Field(
        "",
        description="Model name; empty = the backend's default "
        "(ollama: qwen3:8b, openai: the server's first model, llamacpp: from the file)",
    )
    model_path: str = Field("", description="GGUF file for llamacpp; empty = bundled SmolLM2-135M")
    url: str = Field(
        "",
        description="Server URL; empty = ollama http://127.0.0.1:11434 (or OLLAMA_HOST), "
        "openai http://127.0.0.1:8080/v1",
    )
    api_key: str = Field("", description="API key for an OpenAI-compatible server")
    temperature: float = Field(0.4, ge=0, le=2, description="Sampling temperature")
    repeat_penalty: float = Field(
        1.15, ge=1.0, le=2.0, description="Penalty on repeated tokens (llamacpp, ollama); 1 = off"
    )
    max_tokens: int = Field(1200, ge=16, le=32768, description="Most tokens generated per call")
    context_window: int = Field(8192, ge=512, le=262144, description="Model context in tokens")
    timeout: float = Field(300.0, gt=0, le=86400, description="Seconds per call (whole generation)")
    retries: int = Field(2, ge=0, le=10, description="Retries on connection errors")
    json_retries: int = Field(
        2, ge=0, le=10, description="Retries when a JSON answer does not match its schema"
    )
    seed: int = Field(0, ge=0, description="Sampling seed (0 = random)")
    threads: int = Field(2, ge=0, le=256, description="llamacpp CPU threads; 0 = all cores")
    gpu_layers: int = Field(0, ge=-1, le=1000, description="llamacpp layers on the GPU; -1 = all")


class RetrievalSettings(Section):
    """[retrieval] The retrieval chain (see docs/retrieval.md for the formulas)."""

    prerank_top: int = Field(
        100, ge=1, le=100,
        description="Rerank pool size: knowledge + evergreen first, research (by BM25) fills the rest",
    )
    dedup_threshold: float = Field(0.92, gt=0, le=1, description="Cosine at which chunks are dups")
    trust_prior: float = Field(0.1, ge=0, le=1, description="Weight of domain trust in final score")
    normalize: bool = Field(True, description="Min-max each source group before weighting")
    weight_research: float = Field(1.0, ge=0, le=1, description="Weight of research chunks")
    weight_knowledge: float = Field(0.85, ge=0, le=1, description="Weight of knowledge chunks")
    weight_evergreen: float = Field(0.70, ge=0, le=1, description="Weight of evergreen chunks")
    weight_persona: float = Field(0.60, ge=0, le=1, description="Weight of persona chunks")
    final_top: int = Field(20, ge=1, le=500, description="Research facts given to the writer")
    per_url_max: int = Field(3, ge=1, le=100, description="Most chunks from one URL")
    prose_min: float = Field(
        0.5, ge=0, le=1,
        description="Research chunks scoring below this as prose (link lists, menus, bylines) are "
        "never facts; 0 = keep all",
    )
    knowledge_top: int = Field(20, ge=0, le=500, description="Knowledge chunks by similarity")
    evergreen_pool: int = Field(20, ge=0, le=500, description="Evergreen chunks that reach rerank")
    evergreen_top: int = Field(6, ge=0, le=100, description="Evergreen chunks in the prompt")
    persona_top: int = Field(4, ge=0, le=50, description="Voice chunks in the prompt")
    rrf_k: int = Field(60, ge=1, le=1000, description="k of the dense + sparse RRF (knowledge)")
    scroll_limit: int = Field(
        10000, ge=100,
        description="Largest persona collection scored locally; bigger ones use Qdrant's trigger "
        "search (knowledge and evergreen always use Qdrant's hybrid RRF, research is scrolled whole)",
    )


class GateSettings(Section):
    """[gate] The suitability gate before writing."""

    min_chunks: int = Field(5, ge=0, description="Hard: research chunks needed")
    min_mean_score: float = Field(
        0.25, ge=0, le=1, description="Mean rerank score of the top chunks (cross-encoder, fastembed, http)"
    )
    min_mean_score_bi_encoder: float = Field(
        0.28, ge=0, le=1,
        description="The same with the bi-encoder reranker (cosine scores; see docs/retrieval.md)",
    )
    score_top_k: int = Field(10, ge=1, le=1000, description="How many top chunks the mean covers")
    min_domains: int = Field(
        2, ge=0, description="Soft: distinct domains needed (each local file counts as its own)"
    )
    uber_passes: int = Field(1, ge=0, le=5, description="Automatic Uber Research passes on THIN")


class WritingSettings(Section):
    """[writing] How articles are written, and when a reply is kept only as a draft."""

    units_per_section: int = Field(3, ge=1, le=20, description="Most planned units (1-2 source sentences) per section")
    max_units: int = Field(14, ge=1, le=100, description="Most planned units in an article")
    topic_floor: float = Field(
        0.35, ge=0, le=1, description="Topic relevance below which a source sentence enters no section")
    min_units: int = Field(
        10, ge=0, le=100, description="A plan with fewer usable units lets in sentences under the topic floor")
    short_floor: float = Field(
        0.27, ge=0, le=1, description="Lowest topic relevance such a short plan lets in (docs/writing.md)")
    near_duplicate: float = Field(0.85, gt=0, le=1, description="Cosine at which two source sentences say the same")
    max_unit_words: int = Field(45, ge=5, le=200, description="Longer source sentences (or pairs) are not planned")
    english_only: bool = Field(True, description=(
        "Leave out of the plan a page in another language (the writer's checks read English only)"))
    use_pool: bool = Field(
        True, description="Also plan from chunks left out only by the per-URL cap or the final top N")
    pool_extra: int = Field(12, ge=0, le=100, description="Most such pool chunks")
    min_support: float = Field(
        0.7, ge=0, le=1, description="Support score a sentence in the model's words needs against its planned "
        "sources (a quotation needs none; docs/writing.md)")
    unit_tokens: int = Field(60, ge=8, le=1024, description="Most new tokens for one sentence")
    pair_tokens: int = Field(80, ge=8, le=1024, description="Most new tokens for two sentences joined")
    temperature: float = Field(
        0.0, ge=0, le=2, description="Sampling temperature for writing (0 = greedy: the same article every run)")
    restate: bool = Field(
        False, description="Ask the model to restate each planned source sentence; off, every sentence is its "
        "source's own words: kept, framed as its source's, or quoted (docs/writing.md: with it on, blind "
        "readers judged 19 of 155 sentences false)")
    retry: bool = Field(True, description="Retry a failing sentence once with less freedom")
    quote: bool = Field(True, description="Quote the source sentence when the retry fails too (else drop)")
    min_sentences: int = Field(8, ge=0, description="Fewer sentences make the article a draft (never padded)")
    max_quoted_share: float = Field(
        0.35, ge=0, le=1, description="A larger share of quotations makes a draft (a collage, not prose)")
    min_supported_share: float = Field(
        0.5, ge=0, le=1, description="A lower share of supported sentences makes a draft")
    echo_words: int = Field(
        6, ge=3, le=50, description="A body line sharing this many consecutive words with the "
        "writer's instructions is an echo (a draft)")


class NightSettings(Section):
    """[night] Unattended night runs."""

    max_topics: int = Field(10, ge=1, le=1000, description="Topics per night run")
    topic_timeout: float = Field(
        1800, gt=0, le=86400, description="Seconds one topic may take; then it fails (retried next night)")
    retries: int = Field(
        2, ge=0, le=100, description="Nights a topic that failed on a transient error is retried")
    log_file: str = Field("night.jsonl", description="JSON-lines log, relative to data_dir")
    worker: str = Field("", description="This worker's name in the topics' history and the report; empty = host:pid")
    lease_seconds: float = Field(
        300, gt=0, le=86400, description="A claimed topic's lease (PostgreSQL): renewed while the worker lives; "
        "when it runs out another worker resumes the topic")


class ReviewSettings(Section):
    """[review] People reviewing facts."""

    reviewer: str = Field("", description="The reviewer's name on fact decisions; empty = the login name")


class KnowledgeSettings(Section):
    """[knowledge] Facts distilled from sources, reviewed by a person, promoted into the knowledge base."""

    extract: list[str] = Field(
        default_factory=lambda: ["night"],
        description="Extract facts after an article is written by: write, night (either, both or none)",
    )
    use_llm: bool = Field(True, description="Let the LLM distil facts (false: extractive sentences only)")
    facts_per_page: int = Field(5, ge=1, le=6, description="Most facts kept from one page")
    page_tokens: int = Field(1200, ge=100, le=32000, description="Page text the LLM reads, in tokens")
    dedup_threshold: float = Field(0.92, gt=0, le=1, description="Cosine at which facts merge")
    import_batch: int = Field(256, ge=1, le=4096, description="Facts embedded and stored per step of an import")

    @field_validator("extract")
    @classmethod
    def _check_extract(cls, values: list[str]) -> list[str]:
        """Only `write` and `night` can trigger an extraction."""
        bad = [v for v in values if v not in ("write", "night")]
        if bad:
            raise ValueError(f"extract takes write and/or night (got {bad[0]!r})")
        return list(dict.fromkeys(values))


class CategoriesSettings(Section):
    """[categories] Topic categories."""

    names: list[str] = Field(
        default_factory=lambda: list(DEFAULT_CATEGORIES), description="Allowed topic categories"
    )

    @field_validator("names")
    @classmethod
    def _check_names(cls, names: list[str]) -> list[str]:
        """Names are lower-case slugs, at least one, no duplicates."""
        cleaned = [n.strip().lower() for n in names]
        if not cleaned:
            raise ValueError("at least one category is needed")
        bad = [n for n in cleaned if not n.replace("-", "").replace("_", "").isalnum()]
        if bad:
            raise ValueError(f"categories must be letters, digits, - or _ (got {bad[0]!r})")
        if len(set(cleaned)) != len(cleaned):
            raise ValueError("categories must be unique")
        return cleaned


class Settings(BaseModel):
    """All settings, one attribute per config.toml section."""

    model_config = ConfigDict(extra="forbid")

    paths: PathsSettings = Field(default_factory=PathsSettings)
    searxng: SearxngSettings = Field(default_factory=SearxngSettings)
    fetch: FetchSettings = Field(default_factory=FetchSettings)
    database: DatabaseSettings = Field(default_factory=DatabaseSettings)
    qdrant: QdrantSettings = Field(default_factory=QdrantSettings)
    embedding: EmbeddingSettings = Field(default_factory=EmbeddingSettings)
    sparse: SparseSettings = Field(default_factory=SparseSettings)
    research: ResearchSettings = Field(default_factory=ResearchSettings)
    rerank: RerankSettings = Field(default_factory=RerankSettings)
    llm: LLMSettings = Field(default_factory=LLMSettings)
    retrieval: RetrievalSettings = Field(default_factory=RetrievalSettings)
    gate: GateSettings = Field(default_factory=GateSettings)
    writing: WritingSettings = Field(default_factory=WritingSettings)
    night: NightSettings = Field(default_factory=NightSettings)
    knowledge: KnowledgeSettings = Field(default_factory=KnowledgeSettings)
    review: ReviewSettings = Field(default_factory=ReviewSettings)
    categories: CategoriesSettings = Field(default_factory=CategoriesSettings)

    #: The folder relative paths resolve from (the config file's folder, or the cwd).
    base_dir: Path = Field(default_factory=Path.cwd, exclude=True)
    #: The config file these settings came from, if any.
    source: Path | None = Field(None, exclude=True)
    #: Keys set by environment variables: {"section.key": "NONSEQ_SECTION__KEY"}.
    from_env: dict[str, str] = Field(default_factory=dict, exclude=True)

    def resolve(self, value: str) -> Path:
        """A path setting resolved against the config file's folder."""
        path = Path(value).expanduser()
        return path if path.is_absolute() else (self.base_dir / path).resolve()

    @property
    def data_dir(self) -> Path:
        """The workspace folder."""
        return self.resolve(self.paths.data_dir)


def worker_name(settings: Settings) -> str:
    """This worker's name: [night] worker, or host:pid."""
    import socket

    return settings.night.worker or f"{socket.gethostname()}:{os.getpid()}"


def reviewer_name(settings: Settings) -> str:
    """The person reviewing: [review] reviewer, or the login name."""
    import getpass

    try:
        return settings.review.reviewer or getpass.getuser()
    except (KeyError, OSError):
        return f"uid {os.getuid()}"


SECTIONS = [name for name in Settings.model_fields if name not in ("base_dir", "source", "from_env")]


def find_config(explicit: str | Path | None = None) -> Path | None:
    """The config file: --config, then NONSEQ_CONFIG, then ./config.toml; None when there is none."""
    if explicit:
        path = Path(explicit).expanduser()
        if not path.is_file():
            raise ConfigError(f"config file not found: {path}")
        return path.resolve()
    env = os.environ.get(f"{ENV_PREFIX}CONFIG")
    if env:
        path = Path(env).expanduser()
        if not path.is_file():
            raise ConfigError(f"config file not found: {path} (from {ENV_PREFIX}CONFIG)")
        return path.resolve()
    local = Path.cwd() / "config.toml"
    return local.resolve() if local.is_file() else None


def _parse_env_value(raw: str) -> Any:
    """Parse an environment value as a TOML literal (true, 3, [..]) or keep it as a string."""
    try:
        return tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        return raw


def env_names(environ: dict[str, str] | None = None) -> dict[str, str]:
    """The NONSEQ_<SECTION>__<KEY> variables set, as {"section.key": variable name}."""
    environ = dict(os.environ if environ is None else environ)
    names: dict[str, str] = {}
    for name in environ:
        if not name.startswith(ENV_PREFIX) or "__" not in name:
            continue
        section, _, key = name[len(ENV_PREFIX):].lower().partition("__")
        if section not in SECTIONS:
            raise ConfigError(f"{name}: unknown section {section!r} (one of {', '.join(SECTIONS)})")
        names[f"{section}.{key}"] = name
    return names


def env_overrides(environ: dict[str, str] | None = None) -> dict[str, dict[str, Any]]:
    """Collect NONSEQ_<SECTION>__<KEY> variables into {section: {key: value}}."""
    environ = dict(os.environ if environ is None else environ)
    overrides: dict[str, dict[str, Any]] = {}
    for dotted, name in env_names(environ).items():
        section, _, key = dotted.partition(".")
        overrides.setdefault(section, {})[key] = _parse_env_value(environ[name])
    return overrides


def _format_error(err: ValidationError, origin: str) -> str:
    """One line naming the first bad key and what is allowed."""
    first = err.errors()[0]
    key = ".".join(str(p) for p in first["loc"])
    msg = first["msg"]
    if first["type"] == "extra_forbidden":
        section = str(first["loc"][0])
        field = Settings.model_fields.get(section)
        if len(first["loc"]) == 1:
            msg = f"unknown section (allowed: {', '.join(SECTIONS)})"
        elif field is not None:
            allowed = ", ".join(field.annotation.model_fields)  # type: ignore[union-attr]
            msg = f"unknown key (allowed in [{section}]: {allowed})"
    given = first.get("input")
    shown = f" (got {given!r})" if given is not None and not isinstance(given, dict) else ""
    return f"{origin}: {key}: {msg}{shown}"


def _merge(base: dict[str, Any], extra: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Overlay per-section overrides on a parsed config."""
    merged = {k: dict(v) if isinstance(v, dict) else v for k, v in base.items()}
    for section, values in extra.items():
        merged.setdefault(section, {})
        if not isinstance(merged[section], dict):
            raise ConfigError(f"config: [{section}] must be a table")
        merged[section].update(values)
    return merged


def load_settings(
    explicit: str | Path | None = None, environ: dict[str, str] | None = None
) -> Settings:
    """Find, parse, merge and validate the settings once."""
    path = find_config(explicit)
    data: dict[str, Any] = {}
    if path is not None:
        try:
            data = tomllib.loads(read_text_file(path, what="a TOML text file"))
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path}: not valid TOML: {exc}") from None
        except UsageError as exc:
            raise ConfigError(str(exc)) from None
    settings = settings_from(data, str(path) if path else "settings", environ)
    settings.base_dir = path.parent if path else Path.cwd()
    settings.source = path
    return settings


def settings_from(data: dict[str, Any], origin: str, environ: dict[str, str] | None = None) -> Settings:
    """Validate settings data with the NONSEQ_* variables applied (a ConfigError names the bad key)."""
    from_env = env_names(environ)
    try:
        settings = Settings.model_validate(_merge(data, env_overrides(environ)))
    except ValidationError as exc:
        loc = exc.errors()[0]["loc"]
        variable = from_env.get(".".join(str(part) for part in loc[:2]))
        raise ConfigError(_format_error(exc, variable or origin)) from None
    settings.from_env = from_env
    return settings


def _toml_value(value: Any) -> str:
    """Render a Python value as a TOML literal."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_toml_value(str(k))} = {_toml_value(v)}" for k, v in value.items()) + "}"
    return repr(value)


def render_toml(settings: Settings | None = None, comments: bool = True) -> str:
    """The settings as a commented config.toml (defaults when none are given)."""
    settings = settings or Settings()
    lines = ["# NonSequitur configuration. Every key is optional; these are the defaults.",
             "# Environment variables NONSEQ_<SECTION>__<KEY> override single keys.", ""]
    for name in SECTIONS:
        section = getattr(settings, name)
        if comments and section.__doc__:
            lines.append(f"# {section.__doc__.split('] ', 1)[-1]}")
        lines.append(f"[{name}]")
        for key, field in type(section).model_fields.items():
            if comments and field.description:
                lines.append(f"# {field.description}")
            variable = settings.from_env.get(f"{name}.{key}")
            lines.append(f"{key} = {_toml_value(getattr(section, key))}"
                         + (f"  # from ${variable}" if variable else ""))
        lines.append("")
    return "\n".join(lines)


#: Sections whose api_key is a secret, masked whenever settings are shown.
SECRET_SECTIONS = ("qdrant", "llm", "rerank")


def masked(settings: Settings) -> Settings:
    """A copy of the settings with the api keys shown as *** (and a database URL's password)."""
    update: dict[str, Any] = {name: getattr(settings, name).model_copy(update={"api_key": "***"})
                              for name in SECRET_SECTIONS if getattr(settings, name).api_key}
    from nonseq.dburl import hide_password

    if hide_password(settings.database.url) != settings.database.url:
        update["database"] = settings.database.model_copy(update={"url": hide_password(settings.database.url)})
    return settings.model_copy(update=update)


def settings_dict(settings: Settings) -> dict[str, Any]:
    """The effective settings as a plain dict, secrets masked."""
    return masked(settings).model_dump(mode="json")

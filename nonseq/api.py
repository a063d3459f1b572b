"""The Python API: one object over a workspace, the same services the CLI, the menus and the MCP server call.

    import nonseq

    with nonseq.open_workspace("my-articles") as ws:
        topic = ws.add_topic("Plague cases in China", category="health")
        result = ws.write(topic.id)

`open_workspace` holds the workspace lock for the `with` block (a second process gets a one-line
WorkspaceBusyError); with `read_only=True` it takes no lock and every method that changes the
workspace raises a one-line NonseqError. Errors are the CLI's: NonseqError subclasses whose message
is the line `nonseq` prints.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nonseq.errors import ConfigError, NonseqError, UsageError
from nonseq.workspace import Workspace

if TYPE_CHECKING:
    from nonseq.config import Settings
    from nonseq.events import Progress
    from nonseq.knowledge.records import FactRecord
    from nonseq.llm.base import LLM
    from nonseq.models import GateVerdict, Topic
    from nonseq.pipeline.night import NightSummary
    from nonseq.pipeline.research import ResearchSummary
    from nonseq.pipeline.topics import TopicDetails
    from nonseq.pipeline.write import Decider, WriteResult

__all__ = ["ArticleText", "KnowledgeHit", "ReadOnlyError", "WorkspaceAPI", "open_workspace", "run_demo",
           "settings_for_folder"]

#: The action the workspace lock names while a Python program holds it (`nonseq api` in the busy line).
API_ACTION = "api"


class ReadOnlyError(NonseqError):
    """A method that changes the workspace was called on a workspace opened read-only."""

    exit_code = 2


@dataclass(frozen=True)
class KnowledgeHit:
    """A promoted fact found by `search_knowledge`, with where it comes from."""

    fact_id: int | None
    text: str
    quote: str
    source_title: str
    url: str
    pages: list[int]
    category: str
    kind: str
    topic: str
    score: float
    support: float | None


@dataclass(frozen=True)
class ArticleText:
    """An article file: its front matter and Markdown body."""

    slug: str
    path: Path
    meta: dict[str, Any] = field(default_factory=dict)
    markdown: str = ""

    @property
    def title(self) -> str:
        """The title in the front matter."""
        return str(self.meta.get("title") or "")


def settings_for_folder(path: str | Path = ".") -> Settings:
    """The settings of the workspace folder `path`: its config.toml, else the defaults rooted there (NONSEQ_* apply)."""
    from nonseq.config import load_settings, settings_from

    folder = Path(path).expanduser()
    if not folder.is_dir():
        raise ConfigError(f"workspace folder not found: {folder}")
    config = folder / "config.toml"
    if config.is_file():
        return load_settings(config)
    settings = settings_from({}, "settings")
    settings.base_dir = folder.resolve()
    settings.source = None
    return settings


class WorkspaceAPI:
    """A workspace as a Python program sees it: topics, stages, knowledge, articles, the support check.

    Methods that change the workspace take the workspace lock for their call (re-entrant: inside
    `open_workspace` the lock is already held) and refuse on a read-only workspace.
    """

    def __init__(self, ws: Workspace, *, read_only: bool = False) -> None:
        self.ws = ws
        self.read_only = read_only
        self._held = 0
        self._team_locked = False

    @classmethod
    def from_settings(cls, settings: Settings, *, llm: LLM | None = None,
                      read_only: bool = False) -> WorkspaceAPI:
        """An API object over a new Workspace of these settings (the injected llm serves every stage)."""
        return cls(Workspace(settings, llm=llm), read_only=read_only)

    @property
    def settings(self) -> Settings:
        """The validated settings."""
        return self.ws.settings

    # -- the lock ---------------------------------------------------------------------------------
    def _check_writable(self, action: str) -> None:
        """ReadOnlyError when the workspace was opened read-only."""
        if self.read_only:
            raise ReadOnlyError(f"the workspace {self.ws.data_dir} is open read-only: `{action}` changes it "
                                "(open it with read_only=False)")

    def acquire(self, action: str = API_ACTION) -> None:
        """Take the workspace lock until `release` (re-entrant); WorkspaceBusyError (exit 75) if it is taken."""
        from nonseq.lock import acquire

        self._check_writable(action)
        if self.ws.team:  # a team's database: its maintenance lock, held by the connection (nonseq.db.team_lock)
            if not self._team_locked:
                self._team_lock(action)
        else:
            acquire(self.ws.data_dir, action)
        self._held += 1

    def _team_lock(self, action: str) -> None:
        """Share the database with the other workers and editors (maintenance: hold it alone)."""
        from nonseq.config import reviewer_name, worker_name
        from nonseq.db import team_lock

        who = worker_name(self.ws.settings) if action == "night" else reviewer_name(self.ws.settings)
        team_lock(self.ws.db, action, who)
        self._team_locked = True

    def release(self) -> None:
        """Give back one level of the lock taken by `acquire` (a team's goes when the connection closes)."""
        from nonseq.lock import release

        if self._held:
            self._held -= 1
            if not self.ws.team:
                release(self.ws.data_dir)

    @contextmanager
    def locked(self, action: str = API_ACTION) -> Iterator[Workspace]:
        """Hold the workspace lock for a `with` block; yields the service-level Workspace."""
        self.acquire(action)
        try:
            yield self.ws
        finally:
            self.release()

    def close(self) -> None:
        """Close SQLite and the store, then give back any lock still held."""
        try:
            self.ws.close()
            self._team_locked = False
        finally:
            while self._held:
                self.release()

    # -- topics -----------------------------------------------------------------------------------
    def add_topic(self, title: str, *, category: str, focus: str | None = None, queries: Sequence[str] = (),
                  persona: str | None = None, schema: str | None = None, priority: int = 0,
                  slug: str | None = None) -> Topic:
        """Queue a topic (its persona and schema must exist)."""
        from nonseq.pipeline.topics import add_topic

        with self.locked("queue add") as ws:
            return add_topic(ws, title, category, focus=focus or "", sub_queries=list(queries),
                             persona=persona or "", schema=schema or "explainer", priority=priority, slug=slug)

    def topics(self, stage: str | None = None) -> list[Topic]:
        """The queue in priority order, or only the topics at one stage."""
        from nonseq import queue
        from nonseq.models import Stage

        if stage is None:
            return queue.list_topics(self.ws.db)
        try:
            wanted = Stage(stage)
        except ValueError:
            raise UsageError(f"unknown stage {stage!r} (one of: {', '.join(s.value for s in Stage)})") from None
        return queue.list_topics(self.ws.db, [wanted])

    def topic(self, ref: int | str) -> TopicDetails:
        """A topic (by id or slug) with its stage history, recorded sources and last gate figures."""
        from nonseq.pipeline.topics import show_topic

        return show_topic(self.ws, ref)

    # -- the stages -------------------------------------------------------------------------------
    def research(self, ref: int | str, *, urls: Sequence[str] = (), files: Sequence[str | Path] = (),
                 progress: Progress | None = None) -> ResearchSummary:
        """Search, fetch and index a topic's research (or add the given URLs and files)."""
        from nonseq.pipeline.research import run_research

        with self.locked("research") as ws:
            return run_research(ws, ref, urls=urls, files=files, progress=progress)

    def gate(self, ref: int | str) -> GateVerdict:
        """Judge a researched topic's research (OK or THIN) and record the verdict in its history."""
        from nonseq.pipeline.gate import run_gate

        with self.locked("gate") as ws:
            return run_gate(ws, ref)[2]

    def write(self, ref: int | str, *, force: bool = False, decide: Decider | None = None,
              progress: Progress | None = None) -> WriteResult:
        """Take a topic to a grounded article (research, gate, Uber Research as needed); THIN: `decide`, or give up."""
        from nonseq.pipeline.write import write_topic

        with self.locked("write") as ws:
            return write_topic(ws, ref, decide=decide, progress=progress, force=force)

    def night(self, *, max_topics: int | None = None, until: str | None = None,
              progress: Progress | None = None) -> NightSummary:
        """Run the queue unattended, as `nonseq night` does (until: a local time HH:MM)."""
        from nonseq.pipeline.night import NightOptions, parse_until, run_night

        deadline = parse_until(until) if until else None
        with self.locked("night") as ws:
            cfg = ws.settings.night
            options = NightOptions(max_topics or cfg.max_topics, cfg.topic_timeout, cfg.retries, deadline)
            return run_night(ws, options, progress=progress)

    # -- knowledge --------------------------------------------------------------------------------
    def search_knowledge(self, query: str, *, category: str | None = None, limit: int = 10) -> list[KnowledgeHit]:
        """Promoted facts closest to the query (dense + BM25), best first."""
        from nonseq.knowledge.search import search_candidates
        from nonseq.models import SourceKind

        if category is not None and category not in self.ws.categories:
            raise UsageError(f"unknown category {category!r} (allowed: {', '.join(self.ws.categories)})")
        hits = []
        for cand, score in search_candidates(self.ws, query, category=category, limit=limit):
            chunk, extra = cand.chunk, cand.chunk.extra
            fact_id = extra.get("fact_id")
            hits.append(KnowledgeHit(
                fact_id=int(fact_id) if fact_id is not None else None, text=chunk.text,
                quote=str(extra.get("quote") or ""), source_title=chunk.title, url=chunk.url,
                pages=list(chunk.pages), category=chunk.category,
                kind="evergreen" if cand.group is SourceKind.EVERGREEN else "topic",
                topic=chunk.topic_slug, score=score, support=extra.get("support")))
        return hits

    def fact(self, fact_id: int) -> FactRecord:
        """One fact by id, whatever its status."""
        from nonseq.knowledge.review import get_fact

        return get_fact(self.ws, int(fact_id))

    def propose_fact(self, text: str, quote: str, url: str, *, category: str, title: str = "",
                     evergreen: bool = False) -> FactRecord:
        """Add a fact awaiting human review (`nonseq knowledge review`), support-checked against its quote."""
        from nonseq.knowledge.handwritten import propose_fact

        with self.locked("knowledge propose") as ws:
            return propose_fact(ws, text, quote, url, category=category, title=title, evergreen=evergreen)

    # -- articles ---------------------------------------------------------------------------------
    def articles(self) -> list[dict[str, Any]]:
        """One summary per article file (title, slug, status, figures), newest first."""
        from nonseq.writing.articles import list_articles

        return list_articles(self.ws.articles_dir)

    def article(self, slug: str) -> ArticleText:
        """An article by slug (`slug`, `slug-2`) or file name: front matter and Markdown."""
        from nonseq.writing.articles import find_article, read_article

        path = find_article(self.ws.articles_dir, slug)
        meta, body = read_article(path)
        return ArticleText(slug=str(meta.get("slug") or path.stem), path=path, meta=meta, markdown=body)

    def article_review(self, slug: str) -> list[dict[str, Any]]:
        """Each sentence of an article beside its source sentence(s) in the pages' words, and the words the
        writer wrote in (`nonseq articles review`): `[{"sentence", "made", "sources": [{"n", "text"}],
        "written_in"}]`, restated first, then those with words written in."""
        from nonseq.writing.articles import find_article, read_review

        return read_review(find_article(self.ws.articles_dir, slug))

    # -- the support check ------------------------------------------------------------------------
    def check_support(self, claim: str, source: str) -> float:
        """How strongly `source` supports `claim`, in [0, 1]; 0.5 decides (verify.support.check_support)."""
        from nonseq.verify.support import check_support

        if not claim.strip() or not source.strip():
            raise UsageError("check_support needs a claim and a source text")
        score = check_support(claim, source, threads=self.ws.settings.embedding.threads or 1)
        return min(1.0, max(0.0, float(score)))


@contextmanager
def open_workspace(path: str | Path = ".", *, llm: LLM | None = None,
                   read_only: bool = False) -> Iterator[WorkspaceAPI]:
    """The workspace whose folder (holding config.toml) is `path`, locked for the `with` block unless read_only."""
    api = WorkspaceAPI.from_settings(settings_for_folder(path), llm=llm, read_only=read_only)
    try:
        if not read_only:
            api.acquire(API_ACTION)
        yield api
    finally:
        api.close()



def run_demo(directory: str | Path | None = None, progress: Progress | None = None, *,
             llm: LLM | None = None) -> WriteResult:
    """`nonseq demo`: queue the demo topic in a throw-away workspace, research the bundled pages, write it."""
    import tempfile

    from nonseq.events import Kind, Step, emit
    from nonseq.pipeline.demo import demo_settings, unpack_pages
    from nonseq.queue import slugify

    root = Path(directory).expanduser().resolve() if directory else Path(tempfile.mkdtemp(prefix="nonseq-demo-"))
    root.mkdir(parents=True, exist_ok=True)
    emit(progress, Step.RESEARCH, Kind.NOTE, f"demo workspace: {root}")
    api = WorkspaceAPI.from_settings(demo_settings(root), llm=llm)
    try:
        with api.locked("demo"):
            spec, files = unpack_pages(root)
            known = {t.slug: t for t in api.topics()}
            topic = known.get(slugify(spec["title"])) or api.add_topic(
                spec["title"], category=spec["category"], focus=spec["focus"], queries=spec["queries"],
                schema=spec["schema"], persona=spec.get("persona") or None)
            emit(progress, Step.RESEARCH, Kind.START, f"researching {len(files)} bundled page(s)")
            if topic.stage.value in ("queued", "researching", "failed"):
                api.research(topic.id, files=[str(f) for f in files])
            return api.write(topic.id, force=True, progress=progress)
    finally:
        api.close()

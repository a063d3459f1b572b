"""The research service: search, fetch, extract, chunk and index a topic's sources into research_{cat}.

Fetching streams pages in an asyncio loop; extraction and chunking run on a worker thread, embedding
on a second and Qdrant writes on a third, batch by batch as pages arrive, so no stage waits for the
whole web (and writes overlap the next batch's embedding).
Point ids are deterministic (topic, url, position) and every point carries the id of the run that
wrote it: a finished run removes the topic's points it did not write (search runs) or the stale
positions of the URLs it re-read (runs over the user's own --url/--file sources), so re-running or
resuming an interrupted run never duplicates chunks. Ctrl-C leaves the topic in `researching`.
"""

from __future__ import annotations

import asyncio
import signal
import threading
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Callable, Coroutine, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

from nonseq import chunk_records, queue
from nonseq.errors import UsageError
from nonseq.events import Kind, Progress, Step, emit
from nonseq.models import LOCAL_DOMAIN, Chunk, Outcome, Source, Stage, Topic
from nonseq.pipeline.ingest import FileReport, Ingest, LocalPage, collect_files, read_local
from nonseq.research.chunking import Chunker
from nonseq.research.domains import registrable_domain
from nonseq.research.extract import Extraction, Extractor
from nonseq.text.instructions import is_instruction
from nonseq.text.urls import strip_credentials
from nonseq.workspace import Workspace

T = TypeVar("T")
__all__ = ["LOCAL_DOMAIN", "LocalPage", "ResearchSummary", "read_local", "run_research"]
#: Payload keys added to research points (besides models.PAYLOAD_KEYS).
RUN_KEY, ORIGIN_KEY = chunk_records.RUN_KEY, chunk_records.ORIGIN_KEY
SEARCH_ORIGIN, USER_ORIGIN, UBER_ORIGIN = "search", "user", "uber"
#: Origins whose chunks add to a topic (a search re-run keeps them).
ADDITIVE = (USER_ORIGIN, UBER_ORIGIN)
#: page_filter(text) -> None to keep a page, else why it is dropped (recorded as `irrelevant`).
PageFilter = Callable[[str], "str | None"]


@dataclass
class ResearchSummary:
    """What a research run did; also the running snapshot handed to the progress callback."""

    topic_id: int
    slug: str
    category: str
    collection: str
    mode: str = SEARCH_ORIGIN
    resumed: bool = False
    found: int = 0
    done: int = 0
    blocked: int = 0
    fetched: int = 0
    failed: dict[str, int] = field(default_factory=dict)
    chunks: int = 0
    queued_chunks: int = 0
    stale_removed: int = 0
    domains: list[str] = field(default_factory=list)
    #: Pages and files cut short by [research] max_chunks_per_page / max_chunks_per_file:
    #: {"url", "kept", "setting"}.
    capped: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0
    stage: str = Stage.RESEARCHING.value
    #: What became of the user's --file files and folders (None without --file).
    files: FileReport | None = None

    @property
    def distinct_domains(self) -> int:
        """How many different domains contributed chunks."""
        return len(self.domains)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "topic_id": self.topic_id, "slug": self.slug, "category": self.category,
            "collection": self.collection, "mode": self.mode, "resumed": self.resumed,
            "found": self.found, "blocked": self.blocked, "fetched": self.fetched,
            "failed": dict(sorted(self.failed.items())), "chunks": self.chunks,
            "stale_removed": self.stale_removed, "distinct_domains": self.distinct_domains,
            "domains": list(self.domains), "capped": [dict(c) for c in self.capped],
            "seconds": round(self.seconds, 2), "stage": self.stage,
            **({"files": self.files.to_dict()} if self.files else {}),
        }


#: The research steps a run reports (with the running summary as the event's data).
PHASES = {"search": Step.SEARCH, "page": Step.PAGE, "index": Step.INDEX}


def run_research(
    ws: Workspace, topic_ref: int | str, *, urls: Sequence[str] = (),
    files: Sequence[str | Path] = (), progress: Progress | None = None,
    origin: str | None = None, page_filter: PageFilter | None = None,
) -> ResearchSummary:
    """Research a topic (or add the user's own URLs/files) and index its chunks; returns a summary.

    origin "uber" adds the given URLs like the user's own (no search, nothing replaced);
    page_filter drops extracted pages it objects to, recorded as `irrelevant`.
    """
    topic = queue.get_topic(ws.db, topic_ref)
    web = check_urls(urls)
    local, report = collect_files(files, ws.settings.research) if files else ([], None)
    topic, resumed = _start(ws, topic)
    origin = origin or (USER_ORIGIN if web or files else SEARCH_ORIGIN)
    run = _Run(ws, topic, origin=origin, progress=progress, page_filter=page_filter, files=report)
    run.summary.resumed = resumed
    try:
        run.execute(web, local)
    except KeyboardInterrupt:
        raise  # the topic stays in `researching`; the next run resumes it
    except Exception as exc:
        queue.fail(ws.db, topic.id, exc, prefix="research failed: ")
        raise
    brief = {k: v for k, v in run.summary.to_dict().items() if k not in ("domains", "stage", "files", "capped")}
    queue.move(ws.db, topic.id, Stage.RESEARCHED, reason=_reason(run.summary), data=brief)
    run.summary.stage = Stage.RESEARCHED.value
    run.report("done")
    return run.summary


def check_urls(urls: Iterable[str]) -> list[str]:
    """The user's URLs without credentials, deduplicated; a one-line UsageError for anything not http(s)."""
    out: list[str] = []
    for url in urls:
        url = strip_credentials(url.strip())
        try:
            parts = urlsplit(url)
            host = parts.hostname
        except ValueError as exc:
            raise UsageError(f"not a valid URL: {url!r} ({exc})") from None
        if parts.scheme not in ("http", "https") or not host:
            raise UsageError(f"not an http(s) URL: {url!r}")
        if url not in out:
            out.append(url)
    return out


def page_url(source: Source) -> str:
    """The URL a page is cited by: where a fetch ended, or a saved page's canonical URL."""
    url = source.final_url or source.url
    if url.startswith("file:") and source.url.startswith(("http://", "https://")):
        return source.url
    return url


def run_interruptible(work: Coroutine[Any, Any, T]) -> T:
    """asyncio.run, where Ctrl-C (SIGINT) cancels the work at once and always raises KeyboardInterrupt.

    The loop's own signal handler wakes it even while it waits on sockets, the cancellation reaches
    the fetches in flight (they are cancelled, not awaited), and an interrupt that lands while the
    work is finishing is still an interrupt, never swallowed. An alarm (SIGALRM: the night's time
    limit) is held the same way: asyncio would swallow the exception its handler raises inside a
    callback or a socket read, so while the loop runs the alarm only cancels the work, and the
    caller's handler is called once the loop has stopped, where its exception reaches the caller.
    """
    with asyncio.Runner() as runner:
        loop = runner.get_loop()
        task = loop.create_task(work)
        interrupted: list[bool] = []
        alarmed: list[bool] = []

        def on_sigint() -> None:
            """Ctrl-C: note it and cancel the run."""
            interrupted.append(True)
            task.cancel()

        def on_alarm(_signum: int, _frame: Any) -> None:
            """The time limit: note it and cancel the run from the signal handler."""
            alarmed.append(True)
            loop.call_soon_threadsafe(task.cancel)

        handled = threading.current_thread() is threading.main_thread()
        previous = signal.getsignal(signal.SIGALRM) if handled else None
        alarm = previous if callable(previous) else None  # the caller's handler, held while the loop runs
        if handled:
            loop.add_signal_handler(signal.SIGINT, on_sigint)
        if alarm:
            signal.signal(signal.SIGALRM, on_alarm)
        try:
            loop.run_until_complete(task)
        except (asyncio.CancelledError, Exception):
            if interrupted:
                raise KeyboardInterrupt from None
            if not alarmed:
                raise
        finally:
            if handled:
                loop.remove_signal_handler(signal.SIGINT)
            if alarm:
                signal.signal(signal.SIGALRM, alarm)
        if interrupted:
            raise KeyboardInterrupt
        if alarmed and alarm:
            alarm(signal.SIGALRM, None)  # the caller's handler raises here, outside the loop
        return task.result()


def _start(ws: Workspace, topic: Topic) -> tuple[Topic, bool]:
    """Move the topic to researching (a failed one is requeued first); True when resuming."""
    if topic.stage is Stage.RESEARCHING:
        return topic, True
    if topic.stage is Stage.FAILED:
        topic = queue.move(ws.db, topic.id, Stage.QUEUED, reason="retry research")
    return queue.move(ws.db, topic.id, Stage.RESEARCHING, reason="research started"), False


def _reason(summary: ResearchSummary) -> str:
    """The stage-history line of a finished run."""
    return (f"{summary.fetched} page(s), {summary.chunks} chunk(s) from "
            f"{summary.distinct_domains} domain(s)")


class _Indexer:
    """Embeds batches (dense + sparse) on one thread and writes them to Qdrant on another."""

    # nonseq.index.indexing.Indexer.index split in two, so that Qdrant's writes (an fsync per point in
    # embedded mode, a round trip to a server) overlap the embedding of the next batch.

    def __init__(self, ws: Workspace, collection: str, topic_id: int = 0) -> None:
        self.ws = ws
        self.collection = collection
        #: The topic whose chunk text is kept in SQLite with each batch (0: not kept).
        self.topic_id = topic_id
        self.embed_pool = ThreadPoolExecutor(1, thread_name_prefix="nonseq-embed")
        self.write_pool = ThreadPoolExecutor(1, thread_name_prefix="nonseq-write")
        self.embedding: dict[Future[Future[int]], int] = {}  # an embedding batch → its write
        self.writing: dict[Future[int], int] = {}

    @property
    def queued(self) -> int:
        """Chunks handed over but not yet written."""
        return sum(self.embedding.values()) + sum(self.writing.values())

    def submit(self, chunks: list[Chunk]) -> None:
        """Queue a batch: keep its text in SQLite (so the store can be rebuilt), embed it, then write it."""
        if self.topic_id:
            chunk_records.record(self.ws.db, self.topic_id, self.collection, chunks)
        texts = [c.embedding_text() for c in chunks]
        self.embedding[self.embed_pool.submit(self._encode, chunks, texts)] = len(chunks)

    def _encode(self, chunks: list[Chunk], texts: list[str]) -> Future[int]:
        """Embed thread: dense and sparse vectors, then hand the batch to the writer."""
        dense, sparse = self.ws.indexer.encode(texts)
        return self.write_pool.submit(self.ws.store.upsert, self.collection, chunks, dense, sparse)

    def collect(self) -> int:
        """Chunks written since the last call (raising any batch's error)."""
        for embedded in [f for f in self.embedding if f.done()]:
            size = self.embedding.pop(embedded)
            self.writing[embedded.result()] = size
        written = 0
        for write in [f for f in self.writing if f.done()]:
            del self.writing[write]
            written += write.result()
        return written

    async def wait(self) -> None:
        """Wait until some batch moves on (returns at once when nothing is queued)."""
        futures: list[Future[Any]] = [*self.embedding, *self.writing]
        if futures:
            await asyncio.wait([asyncio.wrap_future(f) for f in futures],
                               return_when=asyncio.FIRST_COMPLETED)

    def close(self) -> None:
        """Stop both threads; batches not yet started are dropped (a resumed run redoes them)."""
        self.embed_pool.shutdown(wait=True, cancel_futures=True)
        self.write_pool.shutdown(wait=True, cancel_futures=True)


class _Run:
    """One research run: the pipeline state, the summary and the progress reports."""

    def __init__(self, ws: Workspace, topic: Topic, *, origin: str, progress: Progress | None,
                 page_filter: PageFilter | None = None, files: FileReport | None = None) -> None:
        from nonseq.index.vector_store import research_collection

        self.ws = ws
        self.topic = topic
        self.settings = ws.settings.research
        self.origin = origin
        self.page_filter = page_filter
        self.run_id = uuid.uuid4().hex
        self.collection = research_collection(topic.category)
        self.summary = ResearchSummary(topic.id or 0, topic.slug, topic.category,
                                       self.collection, mode=self.origin, files=files)
        self.progress = progress
        self.started = time.perf_counter()
        self.extractor = Extractor(self.settings.min_text_chars, self.settings.extraction)
        self.ingest = Ingest(self.settings, self.extractor, files)
        self.chunker: Chunker | None = None
        self.pending: list[Chunk] = []
        self.indexer = _Indexer(ws, self.collection, topic.id or 0)
        #: Chunks handed to the indexer but not yet written from which the next page waits.
        self._most_queued = 4 * self.settings.index_batch
        self.indexed_urls: set[str] = set()
        self.failed: Counter[str] = Counter()

    def report(self, phase: str) -> None:
        """Refresh the timing and hand the summary to the progress callback."""
        self.summary.seconds = time.perf_counter() - self.started
        self.summary.failed = dict(self.failed)
        s = self.summary
        if phase == "done":
            emit(self.progress, Step.RESEARCH, Kind.DONE, s.slug, done=s.done, total=s.found, data=s)
        else:
            emit(self.progress, PHASES[phase], Kind.UPDATE, phase, done=s.done, total=s.found, data=s)

    # -- the run -----------------------------------------------------------------------------
    def execute(self, web: list[str], local: list[LocalPage]) -> None:
        """Prepare the models and store, find the URLs, run the pipeline, drop stale points."""
        local = self._prepare(web, local)
        if self.origin == SEARCH_ORIGIN:
            web = self._search()
        self.summary.found = len(web) + len(local)
        self.report("search")
        run_interruptible(self._pipeline(web, local))
        self._remove_stale()
        self.report("index")

    def _prepare(self, web: list[str], local: list[LocalPage]) -> list[LocalPage]:
        """Load the embedder, check the collection's model, seed the duplicate check; the files to read."""
        embedder = self.ws.embedder
        self.chunker = Chunker(embedder.count_tokens, self.settings.chunk_tokens,
                               self.settings.chunk_overlap, embedder.max_tokens, drop=is_instruction)
        _ = self.ws.sparse, self.ws.domains
        self.ws.store.ensure(self.collection, embedder.dim, embedder.name)
        if self.origin not in ADDITIVE:
            return local
        points = self.ws.store.scroll_all(self.collection, {"topic_slug": self.topic.slug})
        local = self.ingest.unchanged(local, points)  # files indexed as they are now are not read again
        again = set(web) | {page.source.url for page in local}
        for point in points:  # pages already indexed for the topic count as seen
            chunk = point.chunk
            if chunk.content_hash and chunk.url not in again:
                self.extractor.seen.setdefault(chunk.content_hash, chunk.url)
        return local

    def _search(self) -> list[str]:
        """Search URLs for the topic: unique, at most max_pages that are not blocked."""
        from nonseq.research.searx import SearxClient

        self.report("search")
        with SearxClient(self.ws.settings.searxng, max_bytes=self.ws.settings.fetch.max_bytes) as client:
            results = client.search_topic(self.topic)
        urls: list[str] = []
        allowed = 0
        for result in results:
            if strip_credentials(result.url) in urls:
                continue
            blocked = self.ws.domains.is_blocked(result.url)
            if not blocked and allowed >= self.settings.max_pages:
                continue
            allowed += not blocked
            urls.append(strip_credentials(result.url))
        return urls

    async def _pipeline(self, web: list[str], local: list[LocalPage]) -> None:
        """Stream pages through extraction (a thread) and indexing (two threads), batch by batch."""
        extract_pool = ThreadPoolExecutor(1, thread_name_prefix="nonseq-extract")
        try:
            for page in local:
                await self._take(page, extract_pool)
            if web:
                async for page in self._fetch(web):
                    await self._take(page, extract_pool)
            self._submit(flush=True)
            while self.indexer.queued:
                await self.indexer.wait()
                self._collect()
        finally:
            self.ingest.close()  # a document still being read is stopped, not awaited
            extract_pool.shutdown(wait=True, cancel_futures=True)
            self.indexer.close()

    async def _fetch(self, urls: list[str]) -> AsyncIterator[Any]:
        """The fetcher's stream of pages (FetchedPage), in completion order."""
        async for page in self.ws.fetcher().stream(urls):
            yield page

    async def _take(self, page: Any, extract_pool: ThreadPoolExecutor) -> None:
        """Extract and chunk one page off the event loop, record its source, queue its chunks."""
        source: Source = page.source
        chunks: list[Chunk] = []
        if source.outcome == Outcome.FETCHED and self.ingest.readable(page):
            loop = asyncio.get_running_loop()
            extraction, chunks = await loop.run_in_executor(extract_pool, self._process, page)
            self._apply(source, extraction)
            if extraction.capped:
                source.reason = f"kept the first {len(chunks)} chunks ({extraction.capped})"
                self._note_capped(page_url(source), len(chunks), extraction.capped)
        source.topic_slug = self.topic.slug
        self._count(source, chunks)
        self.ingest.record(page, source, chunks)
        queue.record_sources(self.ws.db, self.topic, [source])
        self.pending.extend(chunks)
        self._submit()
        self._collect()
        self.report("page")
        while self.indexer.queued > self._most_queued:  # back-pressure: the next page waits for the indexer
            await self.indexer.wait()
            self._collect()

    def _note_capped(self, url: str, kept: int, setting: str) -> None:
        """Record and announce a page or file cut short by its chunk cap."""
        self.summary.capped.append({"url": url, "kept": kept, "setting": setting})
        emit(self.progress, Step.PAGE, Kind.NOTE, f"{url}: kept the first {kept} chunks ({setting})",
             data=self.summary)

    def _process(self, page: Any) -> tuple[Extraction, list[Chunk]]:
        """Worker thread: extract the page and cut it into chunks with provenance."""
        extraction = self.ingest.extract(page, page_url(page.source))  # text, or a document's pages
        doc = extraction.document
        if not extraction.ok or doc is None:
            return extraction, []
        reason = self.page_filter(doc.text) if self.page_filter else None
        if reason:
            return Extraction(Outcome.IRRELEVANT, doc, reason), []
        url = doc.url
        local = url.startswith("file:")
        domain = LOCAL_DOMAIN if local else registrable_domain(url)
        boost = self.settings.local_boost if local else self.ws.domains.boost(url)
        assert self.chunker is not None
        cap, setting = ((self.settings.max_chunks_per_file, "max_chunks_per_file") if local
                        else (self.settings.max_chunks_per_page, "max_chunks_per_page"))
        made = self.chunker.iter_chunks(doc, topic_slug=self.topic.slug, category=self.topic.category,
                                        domain=domain, trust_boost=boost)
        chunks = list(islice(made, cap + 1))  # the chunker stops there: the rest is never cut or counted
        if len(chunks) > cap:
            del chunks[cap:]
            extraction.capped = f"[research] {setting}"
        for chunk in chunks:
            chunk.extra.update({RUN_KEY: self.run_id, ORIGIN_KEY: self.origin})
        self.ingest.stamp(page, chunks)
        return extraction, chunks

    def _apply(self, source: Source, extraction: Extraction) -> None:
        """Carry the extraction's outcome, title, hash and trust onto the source record."""
        doc = extraction.document
        source.outcome = extraction.outcome
        source.reason = extraction.reason or source.reason
        if doc is not None:
            source.title = doc.title
            source.content_hash = doc.content_hash
        local = page_url(source).startswith("file:")
        source.trust_boost = self.settings.local_boost if local else self.ws.domains.boost(page_url(source))

    def _count(self, source: Source, chunks: list[Chunk]) -> None:
        """Add one finished page to the summary's tallies."""
        self.summary.done += 1
        if source.outcome == Outcome.BLOCKED:
            self.summary.blocked += 1
        elif source.outcome == Outcome.FETCHED:
            self.summary.fetched += 1
        else:
            self.failed[str(source.outcome)] += 1
        if chunks:
            if chunks[0].domain not in self.summary.domains:
                self.summary.domains.append(chunks[0].domain)
            self.indexed_urls.add(chunks[0].url)

    def _submit(self, flush: bool = False) -> None:
        """Hand full batches (or, when flushing, the rest) to the indexer."""
        size = self.settings.index_batch
        while self.pending and (flush or len(self.pending) >= size):
            batch, self.pending = self.pending[:size], self.pending[size:]
            self.indexer.submit(batch)
        self.summary.queued_chunks = len(self.pending) + self.indexer.queued

    def _collect(self) -> None:
        """Count written batches (raising their errors) and report progress when some were."""
        written = self.indexer.collect()
        self.summary.queued_chunks = len(self.pending) + self.indexer.queued
        if written:
            self.summary.chunks += written
            self.report("index")

    def _remove_stale(self) -> None:
        """Delete the topic's points this run replaced but did not rewrite (nothing if it indexed none)."""
        if not self.summary.chunks:
            return
        must_not: dict[str, Sequence[Any]] = {RUN_KEY: [self.run_id]}
        must_any: dict[str, Sequence[Any]] = {}
        if self.origin in ADDITIVE:
            must_any["url"] = sorted(self.indexed_urls)
        else:
            must_not[ORIGIN_KEY] = list(ADDITIVE)
        self.summary.stale_removed = self.ws.store.delete_where(
            self.collection, {"topic_slug": self.topic.slug}, must_any=must_any,
            must_not_any=must_not)
        chunk_records.forget_stale(self.ws.db, self.topic.id or 0, self.run_id,
                                   urls=must_any.get("url"), keep_origins=must_not.get(ORIGIN_KEY, ()))

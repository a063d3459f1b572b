"""`nonseq mcp`: the knowledge base, the queue and the articles for AI agents, over MCP on stdio.

A thin layer over the Python API (`nonseq.api`): every tool call opens the workspace anew, so the
server never keeps it to itself and a night run or the CLI works beside it. Reads take no lock; a
write (`add_topic`, `propose_fact`, only with --allow-writes) takes the workspace lock for the call
and answers a one-line "in use" error when another process holds it. An agent can propose a fact
(it waits for a person's review) but never promote, edit or delete one.

Arguments are checked against each tool's JSON schema first; any failure is a tool error with one
line of text. stdout carries only the protocol (the SDK points fd 1 at stderr while serving).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, is_dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nonseq import __version__
from nonseq.errors import NonseqError, UsageError, WorkspaceBusyError

if TYPE_CHECKING:
    from nonseq.api import WorkspaceAPI

SERVER_NAME = "nonseq"
#: Appended to the description of a tool that changes the workspace: off, or on.
WRITES_OFF = " Changes the workspace: off on this server (start it with `nonseq mcp --allow-writes`)."
WRITES_ON = " Changes the workspace (this server runs with --allow-writes)."
INSTRUCTIONS = (
    "NonSequitur's human-reviewed knowledge base: each fact has a verbatim quote and its source. "
    "Look a fact up by id, or search before proposing a new one; proposed facts wait for a "
    "person's review and are never promoted by an agent.")


@dataclass(frozen=True)
class ToolSpec:
    """One MCP tool: its name, one-line description, JSON schema of arguments, and the call."""

    name: str
    description: str
    schema: dict[str, Any]
    call: Callable[[WorkspaceAPI, dict[str, Any]], Any]
    write: bool = False


def _schema(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    """An object schema with no other keys allowed."""
    return {"type": "object", "properties": properties, "required": list(required),
            "additionalProperties": False}


def _text(description: str, *, min_length: int = 1, max_length: int = 4000) -> dict[str, Any]:
    """A non-blank string property."""
    return {"type": "string", "minLength": min_length, "maxLength": max_length,
            "pattern": r"\S", "description": description}


def plain(value: Any) -> Any:
    """Dataclasses, enums and paths as JSON-ready values."""
    if hasattr(value, "to_dict"):
        return plain(value.to_dict())
    if is_dataclass(value) and not isinstance(value, type):
        return plain(asdict(value))
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, Path):
        return str(value)
    if hasattr(value, "value") and not isinstance(value, int | float | str | bool):
        return value.value
    return value


# -- the tools ----------------------------------------------------------------------------------
def search_knowledge(api: WorkspaceAPI, args: dict[str, Any]) -> dict[str, Any]:
    """Promoted facts closest to the query."""
    hits = api.search_knowledge(args["query"], category=args.get("category"), limit=args.get("limit", 10))
    return {"facts": [plain(h) for h in hits]}


def fact_view(fact: Any) -> dict[str, Any]:
    """What an agent sees of a fact: text, quote, source, pages, category, status, support."""
    keys = ("id", "text", "quote", "title", "url", "pages", "category", "kind", "topic_slug", "status",
            "support", "extractor", "created_at", "updated_at")
    data = plain(fact)
    view = {k: data.get(k) for k in keys}
    view["sources"] = 1 + len(data.get("corroborations") or [])
    return view


def get_fact(api: WorkspaceAPI, args: dict[str, Any]) -> dict[str, Any]:
    """One fact by id."""
    return fact_view(api.fact(args["id"]))


def list_topics(api: WorkspaceAPI, args: dict[str, Any]) -> dict[str, Any]:
    """The queue (or one stage of it)."""
    keys = ("id", "title", "slug", "category", "stage", "focus", "priority", "updated_at")
    return {"topics": [{k: plain(t).get(k) for k in keys} for t in api.topics(args.get("stage"))]}


def topic_status(api: WorkspaceAPI, args: dict[str, Any]) -> dict[str, Any]:
    """A topic's stage, last gate figures and history."""
    details = plain(api.topic(args["id"]))
    gates = [h["data"] for h in details.get("history", []) if isinstance(h.get("data"), dict)
             and "checks" in h["data"]]
    return {"topic": details["topic"], "stage": details["topic"]["stage"],
            "gate": gates[-1] if gates else None, "history": details.get("history", []),
            "sources": len(details.get("sources", []))}


def add_topic(api: WorkspaceAPI, args: dict[str, Any]) -> dict[str, Any]:
    """Queue a topic."""
    topic = api.add_topic(args["title"], category=args["category"], focus=args.get("focus"),
                          queries=tuple(args.get("queries") or ()))
    return {"topic": plain(topic)}


def get_article(api: WorkspaceAPI, args: dict[str, Any]) -> dict[str, Any]:
    """An article's Markdown and front matter."""
    article = api.article(args["slug"])
    return {"slug": article.slug, "path": str(article.path), "front_matter": plain(article.meta),
            "markdown": article.markdown}


def review_article(api: WorkspaceAPI, args: dict[str, Any]) -> dict[str, Any]:
    """An article's sentences beside their source sentences and the words the writer wrote in."""
    return {"slug": args["slug"], "sentences": plain(api.article_review(args["slug"]))}


def source_category(api: WorkspaceAPI, url: str) -> str | None:
    """The category of a topic that researched this URL, or of a fact from it."""
    row = api.ws.db.execute(
        "SELECT t.category FROM sources s JOIN topics t ON t.id = s.topic_id"
        " WHERE s.url = ? OR s.final_url = ? ORDER BY s.rowid DESC LIMIT 1", (url, url)).fetchone()
    if row is None:
        row = api.ws.db.execute("SELECT category FROM facts WHERE url = ? ORDER BY id DESC LIMIT 1",
                                (url,)).fetchone()
    return str(row[0]) if row else None


def propose_fact(api: WorkspaceAPI, args: dict[str, Any]) -> dict[str, Any]:
    """A fact awaiting human review."""
    category = args.get("category") or source_category(api, args["url"])
    if not category:
        raise UsageError(f"no topic or fact knows {args['url']}: give its category "
                         f"(one of {', '.join(api.ws.categories)})")
    fact = api.propose_fact(args["text"], args["quote"], args["url"], category=category)
    return {"fact": fact_view(fact),
            "note": "pending: a person reviews it in `nonseq knowledge review` (or the knowledge menu)"}


ID = {"type": "integer", "minimum": 1}
TOOLS = [
    ToolSpec("search_knowledge", "Search the promoted facts; each comes with its verbatim quote, "
             "source title, URL, pages and category.", _schema({
                 "query": _text("What to look for", max_length=1000),
                 "category": {"type": "string", "description": "Only this category"},
                 "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10,
                           "description": "Most facts returned"}}, ("query",)), search_knowledge),
    ToolSpec("get_fact", "One fact by id (any status): text, quote, source, pages, category and "
             "review status.", _schema({"id": {**ID, "description": "The fact's id"}}, ("id",)), get_fact),
    ToolSpec("list_topics", "The topic queue in priority order, or only the topics at one stage.",
             _schema({"stage": {"type": "string", "description": "queued, researched, gated, thin, "
                                "written, ... (see topic_status)"}}), list_topics),
    ToolSpec("topic_status", "A topic's stage, its last gate figures and its stage history.",
             _schema({"id": {**ID, "description": "The topic's id"}}, ("id",)), topic_status),
    ToolSpec("add_topic", "Queue a new topic for research and writing.", _schema({
        "title": _text("The topic's title", max_length=300),
        "category": {"type": "string", "description": "One of the workspace's categories"},
        "focus": {"type": "string", "maxLength": 1000, "description": "The angle to take"},
        "queries": {"type": "array", "items": {"type": "string", "minLength": 1, "maxLength": 300},
                    "maxItems": 10, "description": "Extra search queries"}}, ("title", "category")),
        add_topic, write=True),
    ToolSpec("get_article", "A written article: its Markdown and its front matter.",
             _schema({"slug": _text("Slug (or slug-2...) as list_topics shows it", max_length=200)},
                     ("slug",)), get_article),
    ToolSpec("review_article", "Each sentence of a written article beside the source sentence(s) it came from, "
             "in the pages' own words, with the words the writer wrote in (a frame, a year, a name): restated "
             "sentences first, then those with words written in.",
             _schema({"slug": _text("Slug (or slug-2...) as list_topics shows it", max_length=200)},
                     ("slug",)), review_article),
    ToolSpec("propose_fact", "Propose a fact with the verbatim quote and source URL it stands on; it "
             "waits for a person's review (an agent can never promote, edit or delete).",
             _schema({"text": _text("The fact, in one or two sentences", max_length=1000),
                      "quote": _text("The source's own words that say it", max_length=2000),
                      "url": _text("The source's http(s) URL", max_length=2000),
                      "category": {"type": "string", "description": "Its category (default: the "
                                   "category of a topic that researched the URL)"}},
                     ("text", "quote", "url")), propose_fact, write=True),
]
BY_NAME = {t.name: t for t in TOOLS}


# -- running a call -----------------------------------------------------------------------------
def one_line(text: str, limit: int = 500) -> str:
    """Text squeezed onto one line."""
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def check_arguments(spec: ToolSpec, args: Any) -> dict[str, Any]:
    """The arguments if they fit the tool's schema, else UsageError naming the first problem."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import best_match

    error = best_match(Draft202012Validator(spec.schema).iter_errors(args if args is not None else {}))
    if error is not None:
        where = ".".join(str(p) for p in error.absolute_path)
        raise UsageError(f"{spec.name}: {where + ': ' if where else ''}{one_line(error.message, 200)}")
    return dict(args or {})


class Workspaces:
    """Opens the workspace for one call: read-only without a lock, or locked for a write."""

    def __init__(self, config: Path | None) -> None:
        self.config = config

    @contextmanager
    def open(self, action: str, *, write: bool) -> Iterator[WorkspaceAPI]:
        """The workspace of the server's config, through the Python API, closed after the call."""
        from nonseq.api import WorkspaceAPI
        from nonseq.config import load_settings

        api = WorkspaceAPI.from_settings(load_settings(self.config), read_only=not write)
        try:
            if not write:
                yield api
                return
            try:
                api.acquire(f"mcp {action}")
            except WorkspaceBusyError as exc:
                raise WorkspaceBusyError(f"in use: {exc}") from None
            yield api
        finally:
            api.close()


def run_tool(workspaces: Workspaces, name: str, args: Any, allow_writes: bool) -> dict[str, Any]:
    """One tool call: checked, run on a freshly opened workspace; NonseqError for what went wrong."""
    spec = BY_NAME.get(name)
    if spec is None:
        raise UsageError(f"unknown tool {name!r} (one of {', '.join(BY_NAME)})")
    if spec.write and not allow_writes:
        raise UsageError(f"{name} changes the workspace: start the server with `nonseq mcp --allow-writes`")
    checked = check_arguments(spec, args)
    with workspaces.open(name, write=spec.write) as api:
        result: dict[str, Any] = spec.call(api, checked)
        return result


def answer(workspaces: Workspaces, name: str, args: Any, allow_writes: bool) -> tuple[bool, str, dict[str, Any] | None]:
    """(is_error, text, structured result) of a call; every failure is one line of text."""
    try:
        result = run_tool(workspaces, name, args, allow_writes)
    except NonseqError as exc:
        return True, one_line(str(exc)), None
    except Exception as exc:  # a bug or a machine fault: one line to the agent, the traceback to stderr
        logging.getLogger("nonseq.mcp").exception("tool %s failed", name)
        return True, one_line(f"internal error in {name}: {type(exc).__name__}: {exc}"), None
    return False, json.dumps(result, ensure_ascii=False, default=str), result


def build_server(workspaces: Workspaces, *, allow_writes: bool) -> Any:
    """The low-level MCP server with the tools (write tools refuse unless allow_writes)."""
    import anyio
    import mcp.types as types
    from mcp.server.lowlevel import Server

    def description(tool: ToolSpec) -> str:
        """The tool's line, with whether it may write on this server."""
        return tool.description + ((WRITES_ON if allow_writes else WRITES_OFF) if tool.write else "")

    async def list_tools(_ctx: Any, _params: Any) -> types.ListToolsResult:
        """Every tool with its schema (write tools too: their descriptions say whether they are on)."""
        return types.ListToolsResult(tools=[types.Tool(
            name=t.name, description=description(t), input_schema=t.schema,
            annotations=types.ToolAnnotations(read_only_hint=not t.write, destructive_hint=False,
                                              idempotent_hint=not t.write, open_world_hint=False))
            for t in TOOLS])

    async def call_tool(_ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        """Run the call in a worker thread (the workspace is blocking I/O)."""
        failed, text, data = await anyio.to_thread.run_sync(
            answer, workspaces, params.name, params.arguments, allow_writes)
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                    structured_content=data, is_error=failed)

    return Server(SERVER_NAME, version=__version__, instructions=INSTRUCTIONS,
                  on_list_tools=list_tools, on_call_tool=call_tool)


def serve(config: Path | None, *, allow_writes: bool = False) -> None:
    """Serve MCP on stdin/stdout until the client closes the connection."""
    import anyio
    from mcp.server.stdio import stdio_server

    logging.basicConfig(level=logging.WARNING, format="nonseq mcp: %(levelname)s %(message)s")
    server = build_server(Workspaces(config), allow_writes=allow_writes)

    async def main() -> None:
        """Run the session over the process's stdio."""
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(main)

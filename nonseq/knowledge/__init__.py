"""The knowledge base: facts distilled from sources, reviewed by a person, promoted for reuse.

Every name below is the service API the CLI (`nonseq knowledge ...`) and the menus call.
"""

from __future__ import annotations

from nonseq.knowledge.extract import ExtractReport, extract_facts
from nonseq.knowledge.handwritten import add_text, preview_text, read_source_file
from nonseq.knowledge.promote import PromoteReport, promote_topic
from nonseq.knowledge.records import FactRecord
from nonseq.knowledge.review import (
    delete_facts,
    edit_fact,
    get_fact,
    keep_facts,
    list_facts,
    review_queue,
)
from nonseq.knowledge.search import knowledge_stats, search_knowledge
from nonseq.knowledge.transfer import ImportReport, export_facts, import_facts

__all__ = [
    "ExtractReport",
    "FactRecord",
    "ImportReport",
    "PromoteReport",
    "add_text",
    "delete_facts",
    "edit_fact",
    "export_facts",
    "extract_facts",
    "get_fact",
    "import_facts",
    "keep_facts",
    "knowledge_stats",
    "list_facts",
    "preview_text",
    "promote_topic",
    "read_source_file",
    "review_queue",
    "search_knowledge",
]

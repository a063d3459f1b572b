"""The crafted PDF and DOCX bombs live in devkit/pdf_bombs.py (shared with bench/); this re-exports them."""

from devkit.pdf_bombs import (  # noqa: F401 - re-exported
    FONT,
    build,
    deep_nesting,
    deep_page_tree,
    docx_zip_bomb,
    lying_count,
    many_pages,
    one_page,
    page_tree_loop,
    stream,
    text_flood,
    xobject_fanout,
    xobject_self,
    xref_prev_loop,
)

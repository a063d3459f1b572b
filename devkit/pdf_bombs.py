"""Crafted hostile PDFs and a ZIP-bomb DOCX, written by hand (objects plus a correct xref table).

The only generated documents of the test suite: each is exactly as hostile as its docstring says, and
cheap to build (the 2 GiB flate bomb, slow to build, is in bench/documents.py).
"""

from __future__ import annotations

import io
import zipfile
import zlib

FONT = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"


def build(objects: list[bytes], root: int = 1, extra_trailer: bytes = b"", prev_self: bool = False) -> bytes:
    """A PDF from object bodies (object n is objects[n-1]) with a correct xref table."""
    out = io.BytesIO()
    out.write(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % number + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for offset in offsets:
        out.write(b"%010d 00000 n \n" % offset)
    prev = b" /Prev %d" % xref if prev_self else b""
    out.write(b"trailer\n<< /Size %d /Root %d 0 R%s%s >>\nstartxref\n%d\n%%%%EOF\n"
              % (len(objects) + 1, root, prev, extra_trailer, xref))
    return out.getvalue()


def stream(data: bytes, dictionary: bytes = b"", filters: int = 0) -> bytes:
    """A stream object body, deflated `filters` times."""
    for _ in range(filters):
        data = zlib.compress(data, 9)
    names = b" ".join([b"/FlateDecode"] * filters)
    filt = b" /Filter [%s]" % names if filters else b""
    return b"<< /Length %d%s %s >>\nstream\n" % (len(data), filt, dictionary) + data + b"\nendstream"


def one_page(content: bytes, resources: bytes = b"<< /Font << /F1 4 0 R >> >>", extra: bytes = b"") -> list[bytes]:
    """Catalog, Pages, Page, Font and the content stream object (objects 1-5)."""
    return [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources %s /Contents 5 0 R%s >>"
        % (resources, extra),
        FONT, content,
    ]


def text_flood() -> bytes:
    """1.3 M short strings shown on one page, content stream deflated once."""
    ops = b"BT /F1 1 Tf " + b"1 0 0 1 10 10 Tm (lorem ipsum) Tj " * 1_300_000 + b"ET"
    return build(one_page(stream(ops, filters=1)))


def xobject_fanout(levels: int = 9, fan: int = 10) -> bytes:
    """X0 shows text; Xk draws X(k-1) `fan` times; the page draws X(levels)."""
    objects = one_page(stream(b"q /X%d Do Q" % levels),
                       resources=b"<< /Font << /F1 4 0 R >> /XObject << /X%d %d 0 R >> >>" % (levels, 6 + levels))
    for k in range(levels + 1):
        if k == 0:
            body, res = b"BT /F1 12 Tf 10 10 Td (boom) Tj ET", b"<< /Font << /F1 4 0 R >> >>"
        else:
            body = b"q /X Do Q " * fan
            res = b"<< /XObject << /X %d 0 R >> >>" % (6 + k - 1)
        objects.append(stream(body, b"/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources %s" % res))
    return build(objects)


def xobject_self() -> bytes:
    """A Form XObject (object 6) whose resources name itself."""
    objects = one_page(stream(b"/S Do"), resources=b"<< /XObject << /S 6 0 R >> >>")
    objects.append(stream(b"BT /F1 12 Tf (again) Tj ET /S Do",
                          b"/Type /XObject /Subtype /Form /BBox [0 0 612 792] "
                          b"/Resources << /Font << /F1 4 0 R >> /XObject << /S 6 0 R >> >>"))
    return build(objects)


def deep_nesting(depth: int = 200_000) -> bytes:
    """An array nested `depth` deep as a page dictionary value."""
    nested = b"[" * depth + b"]" * depth
    return build(one_page(stream(b"BT /F1 12 Tf 10 10 Td (deep) Tj ET"), extra=b" /Deep " + nested))


def page_tree_loop() -> bytes:
    """Root Pages -> Pages 3 -> Kids [2 0 R]: a cycle, with a big /Count."""
    return build([
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 1000000 >>",
        b"<< /Type /Pages /Parent 2 0 R /Kids [2 0 R 3 0 R] /Count 1000000 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 5 0 R "
        b"/Resources << /Font << /F1 6 0 R >> >> >>",
        stream(b"BT /F1 12 Tf 10 10 Td (loop) Tj ET"), FONT,
    ])


def deep_page_tree(depth: int = 20_000) -> bytes:
    """Pages nodes 2..depth+1 each with one Pages kid; the last holds the page."""
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>"]
    for k in range(depth):
        number = 2 + k
        objects.append(b"<< /Type /Pages /Kids [%d 0 R] /Count 1 >>" % (number + 1))
    page = len(objects) + 1
    objects.append(b"<< /Type /Page /MediaBox [0 0 612 792] /Contents %d 0 R "
                   b"/Resources << /Font << /F1 %d 0 R >> >> >>" % (page + 1, page + 2))
    objects += [stream(b"BT /F1 12 Tf 10 10 Td (bottom) Tj ET"), FONT]
    return build(objects)


def lying_count() -> bytes:
    """One page, /Count 2^31-1."""
    objects = one_page(stream(b"BT /F1 12 Tf 10 10 Td (one) Tj ET"))
    objects[1] = b"<< /Type /Pages /Kids [3 0 R] /Count 2147483647 >>"
    return build(objects)


def many_pages(count: int = 20_000) -> bytes:
    """`count` pages (objects 5..) sharing content stream 3 and font 4."""
    kids = b" ".join(b"%d 0 R" % (5 + i) for i in range(count))
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, count),
               stream(b"BT /F1 12 Tf 72 720 Td (A page of a very long document.) Tj ET"), FONT]
    for _ in range(count):
        objects.append(b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 3 0 R "
                       b"/Resources << /Font << /F1 4 0 R >> >> >>")
    return build(objects)


def xref_prev_loop() -> bytes:
    """A valid one-page PDF whose trailer /Prev is its own xref offset."""
    return build(one_page(stream(b"BT /F1 12 Tf 10 10 Td (prev) Tj ET")), prev_self=True)


def docx_zip_bomb(mib: int = 1024) -> bytes:
    """A DOCX whose word/document.xml inflates to `mib` MiB of whitespace inside the body."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats'
                         '.org/package/2006/content-types"><Override PartName="/word/document.xml" ContentType="'
                         'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>'
                         '</Types>')
        with archive.open("word/document.xml", "w", force_zip64=True) as member:
            member.write(b'<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
                         b"<w:body>")
            block = b" " * (1 << 20)
            for _ in range(mib):
                member.write(block)
            member.write(b"</w:body></w:document>")
    return out.getvalue()

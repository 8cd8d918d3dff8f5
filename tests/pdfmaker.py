"""Tiny PDFs written by hand for the ingestion tests: each page a list of (x, y, text) runs in Helvetica.

Hand-written so a test controls exactly what is on a page (a table row drawn as separate runs on one
baseline, a running footer, a blank page); pypdf only encrypts them.
"""

from __future__ import annotations

import io


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def make_pdf(pages: list[list[tuple[float, float, str]]]) -> bytes:
    """A PDF with one page per entry; an empty entry is a page with no text at all."""
    objects: list[bytes] = []

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    font = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    pages_id = len(objects) + 1 + 2 * len(pages)  # the Pages object comes after every page and its stream
    kids = []
    for runs in pages:
        content = b"".join(f"BT /F1 10 Tf {x} {y} Td ({_escape(t)}) Tj ET\n".encode("latin-1") for x, y, t in runs)
        stream = add(b"<< /Length %d >>\nstream\n" % len(content) + content + b"endstream")
        kids.append(add(b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Contents %d 0 R "
                        b"/Resources << /Font << /F1 %d 0 R >> >> >>" % (pages_id, stream, font)))
    assert add(b"<< /Type /Pages /Kids [%s] /Count %d >>"
               % (b" ".join(b"%d 0 R" % k for k in kids), len(kids))) == pages_id
    catalog = add(b"<< /Type /Catalog /Pages %d 0 R >>" % pages_id)
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for i, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % i + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for off in offsets:
        out.write(b"%010d 00000 n \n" % off)
    out.write(b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, catalog, xref))
    return out.getvalue()


def text_page(*lines: str, top: float = 740) -> list[tuple[float, float, str]]:
    """Lines of text down a page, 14 points apart."""
    return [(72, top - 14 * i, line) for i, line in enumerate(lines)]


def encrypt(pdf: bytes, password: str = "secret") -> bytes:
    import pypdf

    writer = pypdf.PdfWriter(clone_from=io.BytesIO(pdf))
    writer.encrypt(password)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()

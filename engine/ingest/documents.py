"""Documents in, page-cited passages out.

A data room arrives as PDFs, Word files and HTML beside plain text. Each file becomes a `Document`:
its text page by page (a PDF's pages as a viewer numbers them, from 1; other formats are one page),
with running headers, footers and page numbers taken out, and an identity (company, form, period)
read off its first page and its file name. `document_passages` cuts each page into passages sized
for the encoder, never across two pages, with ids that cite the page: `APPLE_2022_10K.pdf#p32.0`.
The identity becomes every passage's title, so BM25, dense and the graph's extractors all see which
company and period a page belongs to, though the page itself rarely says so.

A file that cannot be read (encrypted, corrupt, no text layer, not what its name says) is named in
the report with the reason and skipped; the rest of the corpus still builds.
"""

from __future__ import annotations

import io
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath

from ..errors import PathLensError
from .glyphs import read_marks
from .passage import ChunkConfig, PageRef, Passage, chunk_text
from .running_lines import DroppedLine, printed_numbers, strip_running_lines

DOCUMENT_SUFFIXES = (".pdf", ".docx", ".html", ".htm")
# A document's passages are at most this long: MiniLM reads 256 word pieces, and at 700 characters 19 of
# the five filings' 1,320 passages run past that (1,000: 117 of 921; 600: 1 of 1,538; docs/your-data.md).
PASSAGE_CHARS = 700
OVERLAP_CHARS = 100
_pdfium_lock = threading.Lock()  # PDFium is not thread-safe; the app builds from several threads
# Limits on what one file may hold, each named when it is reached (README, "Limits and errors"). Generous for
# real data rooms: a 10-K runs to 100–300 pages of 2,000–10,000 characters.
MAX_PDF_PAGES = 5_000  # pages read from one PDF; the rest are left out and said so
MAX_PAGE_CHARS = 200_000  # characters kept from one page (a page of text holds ~5,000)


@dataclass(frozen=True)
class Problem:
    """A file, or pages of one, that did not make it into the corpus, and why."""

    file: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}: {self.message}"


def left_out_files(problems: Iterable[Problem], read: Iterable[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The files named by `problems`, split into those left out whole and those of which only some pages
    were left out (a file in `read`, the documents that gave passages). One file with two notes counts
    once: a reader counts files, not notes."""
    kept = set(read)
    files = list(dict.fromkeys(p.file for p in problems))
    return tuple(f for f in files if f not in kept), tuple(f for f in files if f in kept)


@dataclass(frozen=True)
class Document:
    name: str  # path inside the folder or zip, with '/'
    title: str  # the identity every passage carries
    pages: tuple[str, ...]  # text of each page after running lines are dropped; pages[0] is page 1
    paged: bool  # True for PDFs: passages cite page numbers
    dropped: tuple[DroppedLine, ...] = ()
    printed: tuple[int | None, ...] = ()  # the number each page prints, where a running line numbers the pages


@dataclass(frozen=True)
class SourceFile:
    """A file's name (relative, '/'-separated) and bytes, from a folder, an upload or a zip."""

    name: str
    data: bytes


# ---------------------------------------------------------------- readers, one per format


def _why(error: Exception) -> str:
    """A library's message as a clause inside our sentence: without its own full stop ("Failed to load page.")."""
    return str(error).strip().rstrip(".") or type(error).__name__


def pdf_pages(data: bytes, name: str) -> tuple[list[str], list[Problem]]:
    """Each page's text in reading order, as PDFium extracts it (rows of a table stay on one line), and
    the problems: a page PDFium cannot load is empty and named, and the other pages are kept."""
    import pypdfium2 as pdfium

    problems: list[Problem] = []
    with _pdfium_lock:
        try:
            pdf = pdfium.PdfDocument(data)
        except pdfium.PdfiumError as e:
            if "password" in str(e).lower():
                raise PathLensError(f"{name} is encrypted (it needs a password to open); "
                                    "remove the password and add it again") from None
            raise PathLensError(f"{name} is not a readable PDF: the file is damaged or incomplete (cut off in a download "
                                f"or a copy), or not a PDF; the PDF reader said: {_why(e)}") from None
        try:
            count = len(pdf)
            if count > MAX_PDF_PAGES:
                problems.append(Problem(name, f"has {count:,} pages; only the first {MAX_PDF_PAGES:,} are read "
                                              "(the limit on pages per PDF)"))
            pages, failed = [], []
            for i in range(min(count, MAX_PDF_PAGES)):
                try:
                    page = pdf[i]
                    try:
                        textpage = page.get_textpage()
                        pages.append(textpage.get_text_range())
                        textpage.close()
                    finally:
                        page.close()
                except pdfium.PdfiumError as e:
                    pages.append("")
                    failed.append((i + 1, _why(e)))
        finally:
            pdf.close()
    for number, why in failed[:12]:
        problems.append(Problem(name, f"page {number} could not be read ({why}); the other "
                                      f"{len(pages) - len(failed)} pages are kept"))
    if len(failed) > 12:
        problems.append(Problem(name, f"{len(failed) - 12} more pages could not be read"))
    long = [i + 1 for i, p in enumerate(pages) if len(p) > MAX_PAGE_CHARS]
    if long:
        problems.append(Problem(name, f"{_page_list(long)} ran past {MAX_PAGE_CHARS:,} characters and "
                                      "were cut there (the limit on characters per page)"))
    # PDFium ends a line with \r\n, and writes U+FFFE for a line-end hyphen and for glyphs it cannot map (`glyphs`).
    # A bare \n is a character of the file's own text stream, not a line end: the Salesforce 8-K puts one
    # between every two words of a justified paragraph, so it reads as a space.
    return [re.sub(r"(?<!\r)\n", " ", read_marks(p[:MAX_PAGE_CHARS])).replace("\r\n", "\n")
            .replace("\r", "\n") for p in pages], problems


def docx_text(data: bytes, name: str) -> str:
    """Paragraphs and tables in document order; a table row becomes one line of its cells."""
    import docx
    from docx.table import Table

    try:
        document = docx.Document(io.BytesIO(data))
    except Exception as e:  # noqa: BLE001 — python-docx raises several types for a file that is not a package
        raise PathLensError(f"{name} is not a Word document (.docx): {type(e).__name__}") from None
    lines = []
    for block in document.iter_inner_content():
        if isinstance(block, Table):
            for row in block.rows:
                cells = []
                for cell in row.cells:  # merged cells repeat; keep each text once per row
                    text = " ".join(cell.text.split())
                    if text and (not cells or cells[-1] != text):
                        cells.append(text)
                lines.append(" ".join(cells))
            lines.append("")
        else:
            lines.append(block.text)
            lines.append("")  # paragraphs are paragraphs to the chunker
    return "\n".join(lines)


def html_text(data: bytes, name: str) -> str:
    """Visible text; a table row becomes one line, block elements end paragraphs."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(data, "html.parser")
    for tag in soup(["script", "style", "noscript", "template", "head"]):
        tag.decompose()
    for row in soup.find_all("tr"):
        cells = [" ".join(c.get_text(" ").split()) for c in row.find_all(["td", "th"])]
        row.replace_with(soup.new_string(" ".join(c for c in cells if c) + "\n"))
    for tag in soup.find_all(["p", "div", "li", "h1", "h2", "h3", "h4", "h5", "h6", "table", "br", "section"]):
        tag.insert_after(soup.new_string("\n\n"))
    text = soup.get_text()
    if not text.strip():
        raise PathLensError(f"{name} has no visible text")
    return text


# ---------------------------------------------------------------- identity


_FORM = re.compile(r"\bForm\s+(10-K|10-Q|8-K|20-F|40-F|6-K|S-1|DEF 14A)\b", re.IGNORECASE)
_DATE = r"[A-Za-z]+\.?\s+\d{1,2},\s*\d{4}"  # "September 24, 2022" (PDF text often has no-break spaces)
_PERIOD = re.compile(r"\b(fiscal\s+year|quarterly\s+period|quarter|year)\s+ended\s+(" + _DATE + ")", re.IGNORECASE)
_REPORT_DATE = re.compile(r"Date\s+of\s+Report\s+\(Date\s+of\s+earliest\s+event\s+reported\)[:\s]*(" + _DATE + ")"
                          r"|(" + _DATE + r")\s*\(?Date\s+of\s+Report", re.IGNORECASE)


def _stem_words(name: str) -> str:
    stem = PurePosixPath(name).stem
    words = re.sub(r"(?<=\d)(?=[A-Za-z])", " ", re.sub(r"[_\-.]+", " ", stem))  # 2022Q4 → 2022 Q4
    return " ".join(re.sub(r"\b(10|8|6|20|40) ?([KQF])\b", r"\1-\2", words).split())  # 10K, 10 K → 10-K


def identity(name: str, first_page: str) -> str:
    """Company, form and period read off a filing's cover, with the file name's words.

    A 10-K, 10-Q or 8-K cover names the registrant on the line before "(Exact name of registrant
    as specified in its charter)", the form ("FORM 10-K") and the period ("For the fiscal year
    ended September 24, 2022"). Anything the cover does not say is left out. The file name's
    words (APPLE_2022_10K.pdf → "APPLE 2022 10-K") always appear, since data rooms name files by
    company and period: last after a company read off the cover, first without one.
    """
    company = ""
    lines = [line.strip() for line in first_page.split("\n")]
    for i, line in enumerate(lines):
        if re.match(r"\(?exact name of registrant", line, re.IGNORECASE):
            before = [x for x in lines[:i] if x]
            if before and len(before[-1]) <= 80:
                company = before[-1]
            break
    # the company leads; without one on the cover the file name's words lead instead (they usually name it)
    parts = [company or _stem_words(name)]
    form = _FORM.search(first_page)
    if form:
        parts.append(f"Form {form.group(1).upper()}")
    period = _PERIOD.search(first_page)
    if period:
        parts.append(f"{' '.join(period.group(1).lower().split())} ended {' '.join(period.group(2).split())}")
    else:
        date = _REPORT_DATE.search(first_page)
        if date:
            parts.append(f"report dated {' '.join((date.group(1) or date.group(2)).split())}")
    if company:
        parts.append(_stem_words(name))
    return " · ".join(dict.fromkeys(p for p in parts if p))


# ---------------------------------------------------------------- reading a file


def read_document(source: SourceFile) -> tuple[Document, tuple[Problem, ...]]:
    """One document and the problems with some of its pages; raises PathLensError if none of it is usable."""
    suffix = PurePosixPath(source.name).suffix.lower()
    name = source.name
    if suffix == ".pdf":
        pages, page_problems = pdf_pages(source.data, name)
        if not pages:
            raise PathLensError(f"{name} has no pages")
        unreadable = {int(m.group(1)) for p in page_problems if (m := re.match(r"page (\d+) could not", p.message))}
        empty = [i + 1 for i, p in enumerate(pages) if not p.strip() and i + 1 not in unreadable]
        if not any(p.strip() for p in pages):
            why = "; ".join(p.message for p in page_problems) or "a scan without a text layer? run OCR on it first"
            raise PathLensError(f"{name} has no extractable text on any of its {len(pages)} pages ({why})")
        problems = tuple(page_problems)
        if empty:
            problems += (Problem(name, f"no extractable text on {_page_list(empty)} of {len(pages)} "
                                       "(scanned or image-only pages are skipped)"),)
        first = next(p for p in pages if p.strip())
        kept, dropped = strip_running_lines(pages, name)
        return Document(name, identity(name, first), tuple(kept), True, dropped, printed_numbers(pages)), problems
    if suffix == ".docx":
        text = docx_text(source.data, name)
    elif suffix in (".html", ".htm"):
        text = html_text(source.data, name)
    else:
        raise PathLensError(f"{name}: not a document format PathLens reads ({', '.join(DOCUMENT_SUFFIXES)})")
    if not text.strip():
        raise PathLensError(f"{name} has no text")
    return Document(name, identity(name, text[:4000]), (text,), False), ()


def _page_list(pages: list[int]) -> str:
    shown = ", ".join(str(p) for p in pages[:12])
    more = f" and {len(pages) - 12} more" if len(pages) > 12 else ""
    return f"page{'s' if len(pages) > 1 else ''} {shown}{more}"


# ---------------------------------------------------------------- passages


def page_lines_chunks(text: str, max_chars: int, overlap_chars: int) -> list[str]:
    """Whole lines packed into chunks of at most `max_chars`; a line longer than that is cut at words.

    Lines are kept (not re-flowed) so a table row stays one line with its label and numbers.
    Each chunk after the first starts with the last lines of the one before, up to `overlap_chars`; the last
    starts as early as `max_chars` allows, so a page's tail is never a few words of its own, which a ranker
    scores on those words alone (Costco's release: "shipping activities. Last year's third quarter net income
    was", 118 characters, came first for its membership fees).
    """
    lines = []
    for line in text.split("\n"):
        line = " ".join(line.split())
        if not line:
            continue
        while len(line) > max_chars:
            cut = line.rfind(" ", 0, max_chars)
            cut = cut if cut > 0 else max_chars
            lines.append(line[:cut])
            line = line[cut:].strip()
        if line:
            lines.append(line)
    chunks: list[list[str]] = []
    cur: list[str] = []
    size = 0
    for line in lines:
        if cur and size + 1 + len(line) > max_chars:
            chunks.append(cur)
            tail: list[str] = []
            for prev in reversed(cur):
                if sum(len(x) + 1 for x in tail) + len(prev) > overlap_chars:
                    break
                tail.insert(0, prev)
            cur, size = tail, sum(len(x) + 1 for x in tail)
        cur.append(line)
        size += len(line) + 1
    if cur:
        chunks.append(cur)
    if len(chunks) > 1:
        start, size = len(lines) - 1, len(lines[-1])
        while start > 0 and size + 1 + len(lines[start - 1]) <= max_chars:
            start -= 1
            size += 1 + len(lines[start])
        chunks[-1] = lines[start:]
    return ["\n".join(c) for c in chunks]


def document_passages(doc: Document, max_chars: int = PASSAGE_CHARS, overlap_chars: int = OVERLAP_CHARS):
    """Passages of a document: `name#pN.k` on page N for a PDF, `name#NNNN` otherwise."""

    out = []
    n = len(doc.pages)
    for number, page in enumerate(doc.pages, start=1):
        if doc.paged:
            printed = doc.printed[number - 1] if number <= len(doc.printed) else None
            meta = {"page": str(number), "pages": str(n), **({"printed": str(printed)} if printed is not None else {})}
            for k, chunk in enumerate(page_lines_chunks(page, max_chars, overlap_chars)):
                out.append(Passage(PageRef(doc.name, number, k).passage_id, doc.name, doc.title, chunk, dict(meta)))
        else:
            for k, chunk in enumerate(chunk_text(page, ChunkConfig(max_chars, overlap_chars))):
                out.append(Passage(f"{doc.name}#{k:04d}", doc.name, doc.title, chunk))
    return out


__all__ = ["Document", "Problem", "SourceFile", "DOCUMENT_SUFFIXES", "MAX_PDF_PAGES", "MAX_PAGE_CHARS",
           "pdf_pages", "docx_text", "html_text", "identity", "read_document", "page_lines_chunks",
           "document_passages"]

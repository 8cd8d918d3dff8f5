"""The passage, the unit every retriever ranks, and how text is cut into passages. Its own module,
below the corpus loaders, the document readers and the world generator that all make passages, so
none of them imports another."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping

from ..errors import PathLensError


@dataclass(frozen=True)
class Passage:
    id: str
    doc_id: str
    title: str
    text: str
    metadata: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))


@dataclass(frozen=True)
class ChunkConfig:
    """Paragraph packing: chunks of whole paragraphs up to `max_chars`; a paragraph
    longer than that is cut into word-aligned windows. Each chunk after the first of a
    document starts with the last `overlap_chars` (word-aligned) of the one before."""

    max_chars: int = 1000
    overlap_chars: int = 100

    def __post_init__(self) -> None:
        if self.max_chars < 50:
            raise PathLensError(f"chunk size must be at least 50 characters, got {self.max_chars}")
        if not 0 <= self.overlap_chars < self.max_chars // 2:
            raise PathLensError(
                f"chunk overlap must be in [0, {self.max_chars // 2}), got {self.overlap_chars}"
            )


def _pack(items: list[str], size: int, sep: str) -> list[str]:
    """Greedily join consecutive items with `sep` into strings of at most `size` characters."""
    out, cur = [], ""
    for item in items:
        if cur and len(cur) + len(sep) + len(item) > size:
            out.append(cur)
            cur = item
        else:
            cur = f"{cur}{sep}{item}" if cur else item
    if cur:
        out.append(cur)
    return out


def _tail(text: str, n: int) -> str:
    if n == 0 or len(text) <= n:
        return "" if n == 0 else text
    cut = text[-n:]
    space = cut.find(" ")
    return cut[space + 1 :] if space >= 0 else cut


def chunk_text(text: str, config: ChunkConfig = ChunkConfig()) -> list[str]:
    paragraphs = [re.sub(r"\s+", " ", p).strip() for p in re.split(r"\n\s*\n", text)]
    pieces: list[str] = []
    body = config.max_chars - config.overlap_chars  # room left after the overlap prefix
    for p in paragraphs:
        if p:
            # a paragraph longer than a chunk is cut into word-aligned windows
            pieces.extend(_pack(p.split(), body, " ") if len(p) > body else [p])
    chunks = _pack(pieces, body, "\n\n")
    out = chunks[:1]
    for prev, nxt in zip(chunks, chunks[1:]):
        tail = _tail(prev, config.overlap_chars)
        out.append(f"{tail} {nxt}" if tail else nxt)
    return out


@dataclass(frozen=True)
class PageRef:
    """Where a passage of a paged document (a PDF) lies: its document, its page (from 1) and which of the page's
    passages it is (from 0). The one reading of a passage's page: from the passage (`page_ref`), or from an id alone
    (`PageRef.from_id`) where only an id travels (a run, a link, a report)."""

    doc: str
    page: int
    part: int = 0

    @property
    def key(self) -> str:
        """`doc#pN`: the page, the unit page gold and page runs are keyed by."""
        return f"{self.doc}#p{self.page}"

    @property
    def passage_id(self) -> str:
        """`doc#pN.k`: the id the document readers give this passage."""
        return f"{self.key}.{self.part}"

    @classmethod
    def from_id(cls, passage_id: str) -> "PageRef | None":
        """The page of "APPLE_2022_10K.pdf#p32.1" (document, 32, 1); None for an id of no page."""
        m = _PAGE_ID.match(passage_id)
        return cls(m["doc"], int(m["page"]), int(m["part"])) if m else None


_PAGE_ID = re.compile(r"^(?P<doc>.+)#p(?P<page>\d+)\.(?P<part>\d+)$")


def page_ref(p: Passage) -> PageRef | None:
    """A passage's page, read off its metadata (its part off its id); None for a passage of no page."""
    page = p.metadata.get("page")
    if not page:
        return None
    at = PageRef.from_id(p.id)
    return PageRef(p.doc_id, int(page), at.part if at is not None else 0)


def printed_page(p: Passage) -> int | None:
    """The page number the passage's page prints, when the document numbers its pages and it differs from the PDF's
    own page index (the cover and contents come first): what an analyst holding the paper cites."""
    printed = p.metadata.get("printed", "")
    at = page_ref(p)
    return int(printed) if printed.isdigit() and at is not None and int(printed) != at.page else None


def citation(p: Passage, title: str = "") -> str:
    """How a passage is cited: `title` (a filing's identity, where the index read one: `Index.passage_titles`), else
    its document's title, and the page for a paged document ("page 45 (printed 40) of KRAFTHEINZ_2022_10K.pdf": the
    PDF's page, as a viewer finds it, then the number on the page)."""
    at = page_ref(p)
    where = title or p.title or p.doc_id
    if at is None:
        return where
    printed = printed_page(p)
    return f"{where}, page {at.page}{f' (printed {printed})' if printed else ''} of {p.doc_id}"


__all__ = ["ChunkConfig", "PageRef", "Passage", "chunk_text", "citation", "page_ref", "printed_page"]

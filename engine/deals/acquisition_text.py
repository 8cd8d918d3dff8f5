"""A filing as one text for the acquisitions reader (`engine.deals.acquisitions`): its pages joined, where each page
starts, where its sentences start, and where its acquisitions sections run (an 8-K's Item 2.01, a note titled for
acquisitions, business combinations or mergers)."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Sequence

_NOTE_HEAD = re.compile(r"^\s*(?:note\s*(?P<n>\d{1,2})\s*[—–:.\-]*\s*|(?P<m>\d{1,2})\.\s+)(?P<title>\S.{1,90}?)\s*$",
                        re.IGNORECASE)
_DEAL_TITLE = re.compile(r"\b(?:acquisitions?|business\s+combinations?|mergers?)\b", re.IGNORECASE)
_ITEM_201 = re.compile(r"^\s*item\s+2\.01\b", re.IGNORECASE)
_ITEM_8K = re.compile(r"^\s*item\s+\d\.\d\d\b", re.IGNORECASE)
MAX_SECTION_PAGES = 8  # an acquisitions note runs a few pages; a heading found in error does not claim the filing


@dataclass(frozen=True)
class FilingText:
    """A document's pages joined by newlines, with where each page starts, and its sentence boundaries."""

    text: str  # newlines kept: headings are lines
    flat: str  # the same text with newlines as spaces (same offsets)
    starts: tuple[int, ...]  # offset of each page's first character
    bounds: tuple[int, ...]  # offsets where sentences start

    def page(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset)  # 1-based

    def sentence(self, offset: int) -> tuple[int, int]:
        i = bisect.bisect_right(self.bounds, offset) - 1
        start = self.bounds[i] if i >= 0 else 0
        end = self.bounds[i + 1] if i + 1 < len(self.bounds) else len(self.text)
        return start, end


_ABBREVIATIONS = frozenset("""inc ltd corp co no nos u.s mr mrs ms dr st jr sr vs etc approx l.p n.v s.a r.l a.ş plc
    llc fig jan feb mar apr jun jul aug sep sept oct nov dec e.g i.e""".split())


def filing_text(pages: Sequence[str]) -> FilingText:
    """One text of the pages; sentences end at a full stop before a capital (not after "Inc." or an initial), and
    at a heading line (short, no closing punctuation, the next line starting with a capital)."""
    starts, parts, at = [], [], 0
    for p in pages:
        p = p.replace("\r", "")
        starts.append(at)
        parts.append(p)
        at += len(p) + 1
    text = "\n".join(parts)
    flat = text.replace("\n", " ")
    bounds = [0]
    for m in re.finditer(r"[.!?][”\"’)]?\s+(?=[“\"(]?[A-Z0-9])", flat):
        word = re.search(r"([\w.]+)\.?[”\"’)]?\s*$", flat[max(0, m.start() - 12):m.start() + 1])
        token = (word.group(1) if word else "").lower().rstrip(".")
        starter = re.match(r"[“\"(]?(?:As|The|In|On|During|We|Our|This|These|It|For|At|Under|Since|Following)\b",
                           flat[m.end():m.end() + 12])
        if not starter and (token in _ABBREVIATIONS or (len(token) == 1 and token.isalpha())
                            or re.fullmatch(r"(?:\w\.)+\w?", token)):
            continue
        bounds.append(m.end())
    at = 0
    lines = text.split("\n")
    for line, nxt in zip(lines, lines[1:]):
        at += len(line) + 1
        stripped = line.strip()
        if stripped and len(stripped) <= 80 and not re.search(r"[.,;:(\-–—]$", stripped) and \
                re.match(r"\s*[A-Z“\"]", nxt) and not re.search(r"\b(?:of|the|and|in|for|to|a|an|by)$", stripped, re.I):
            bounds.append(at)
    return FilingText(text, flat, tuple(starts), tuple(sorted(set(bounds))))


# ---------------------------------------------------------------- sections


def deal_sections(pages: Sequence[str]) -> tuple[tuple[int, int, str], ...]:
    """(start, end, title) of each acquisitions section, as offsets into the pages joined by newlines: an 8-K's
    Item 2.01, and each note titled for acquisitions, business combinations or mergers (a table of contents line,
    which ends in a page number, is not a heading). A note runs to the next note's heading, and at most
    MAX_SECTION_PAGES pages."""
    return sections_of(filing_text(pages))


def sections_of(t: FilingText) -> tuple[tuple[int, int, str], ...]:
    out: list[tuple[int, int, str]] = []
    offsets, at = [], 0
    lines = t.text.split("\n")
    for line in lines:
        offsets.append(at)
        at += len(line) + 1
    for i, line in enumerate(lines):
        if _ITEM_201.match(line):
            end = next((offsets[j] for j in range(i + 1, len(lines)) if _ITEM_8K.match(lines[j])), len(t.text))
            out.append((offsets[i], end, line.strip()))
            continue
        head = _note_head(line)
        if not head or not _DEAL_TITLE.search(head[1]) or re.search(r"\bacquired\b", head[1], re.IGNORECASE):
            continue
        number, title, numbered = head
        last = t.page(offsets[i]) - 1 + MAX_SECTION_PAGES  # the index of the first page past the limit
        limit = end = t.starts[last] if last < len(t.starts) else len(t.text)
        for j in range(i + 1, len(lines)):
            if offsets[j] >= limit:
                break
            other = _note_head(lines[j])
            if other and other[0] != number and (not numbered or other[0] == number + 1 or not other[2]):
                end = offsets[j]
                break
        out.append((offsets[i], end, title))
    return tuple(out)


def _note_head(line: str) -> tuple[int, str, bool] | None:
    """(number, title, numbered-only) of a note heading line, or None: "Note 4. Acquisitions and Divestitures",
    "NOTE 8 — BUSINESS COMBINATIONS", "25. ACQUISITIONS"; not a table of contents line ("Note 25 - Acquisitions 188")
    nor a sentence that starts with a note's name ("Note 6—Acquisitions … for additional information.")."""
    m = _NOTE_HEAD.match(line)
    if not m:
        return None
    title = m.group("title")
    if re.search(r"\s\d{1,3}$|[.,;]$", title) or re.search(r"\b(?:see|for|in the notes|refer)\b", title, re.IGNORECASE):
        return None
    if m.group("m") is not None:  # "25. ACQUISITIONS", "7. Business Combinations": a title, capitalised
        if not re.match(r"[A-Z][A-Za-z,&’'\- ]+$", title) or len(title.split()) > 9:
            return None
        return int(m.group("m")), title, True
    return int(m.group("n")), title, False

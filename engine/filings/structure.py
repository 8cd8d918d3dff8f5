"""A filing's structure, read from its own pages: who filed it and for which period, its financial
statements, Items and notes, the row labels of its tables, and its cross-references.

Everything here is read off the passages of paged documents (PDFs), with no model: page headers
name statements ("CONSOLIDATED STATEMENTS OF CASH FLOWS"), headings open Items ("Item 7.") and notes
("NOTE 8 — LONG-TERM DEBT"), a line that starts with words and ends in figures is a table row
("Additions to property, plant and equipment (1,028) (1,105)"), and "see Note 12" points at a note.
The result is typed nodes and the passages each one touches; `engine.filings.graph` turns them into
the walk's graph. A document that shows none of this (a Markdown memo) simply adds no nodes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from ..ingest.passage import Passage, page_ref
from ..text import STOPWORDS, normalize_name
from .identity import Filing, read_filing, unify
from .names import Room, room_of

# Statements by the words of their page header. The income statement's pattern must not take the
# comprehensive-income statement ("COMPREHENSIVE INCOME STATEMENTS").
STATEMENTS: dict[str, tuple[str, re.Pattern]] = {
    "income": ("Income statement", re.compile(
        r"statements? of (?:consolidated )?(?:income|operations|earnings)\b(?! and comprehensive)"
        r"|(?<!comprehensive )\bincome statements?\b")),
    "comprehensive income": ("Statement of comprehensive income", re.compile(
        r"statements? of (?:consolidated )?comprehensive (?:income|loss)|comprehensive income statements?")),
    "balance sheet": ("Balance sheet", re.compile(
        r"\bbalance sheets?\b|statements? of (?:consolidated )?financial (?:position|condition)")),
    "cash flows": ("Statement of cash flows", re.compile(
        r"statements? of (?:consolidated )?cash flows?|\bcash flows? statements?\b")),
    "equity": ("Statement of equity", re.compile(
        r"statements? of (?:consolidated )?(?:changes in )?(?:shareholders|stockholders)[’']? ?(?:equity|deficit)"
        r"|statements? of (?:consolidated )?equity")),
}
HEADER_LINES = 6  # a statement names itself within a page's first lines
MIN_FIGURES = 30  # a statement page is a table: at least this many figures (lines may run together)
# a statement's title is a short line ("NIKE, Inc. Consolidated Balance Sheets"); a line of prose naming one ("…at fair
# value in our consolidated balance sheet. Refer to Note 5") runs the page's width, 15 words or more
TITLE_WORDS = 14

# a table row: a label of words, then nothing but figures to the end of the line (a dash stands for zero)
_FIGURE_TOKEN = re.compile(r"\(?-?\$?\d[\d,]*(?:\.\d+)?\)?%?|[$—–\-()]")
_LABEL = re.compile(r"[A-Za-z(][^\d$]{1,90}")
_ROW_NOTE = re.compile(r"\((?:see |refer to )?note \d{1,2}[a-z]?\)|\(\d\)|\([a-z]\)(?=\s)", re.IGNORECASE)
_FIGURE = re.compile(r"(?<![\w.])\(?\d{1,3}(?:,\d{3})+\)?|(?<![\w.,])\(?\d+\)?(?![\w,])")
# "Item 7. Management's Discussion…" in a 10-K or 10-Q; "Item 8.01 Other Events." in an 8-K (Form 8-K's items)
_ITEM = re.compile(r"^(?:part\s+[iv]+\s*[,.–—-]?\s*)?item\s+(\d{1,2}(?:\.\d{2})?[a-c]?)\s*[.:—–-]*\s+([a-z].{2,100})$",
                   re.IGNORECASE)
_NOTE = re.compile(r"^note\s+(\d{1,2})\s*[—–:.\-]+\s*([a-z].{2,100})$", re.IGNORECASE)
_TOC_TAIL = re.compile(r"\s\d{1,3}$")  # "Note 8 Long-Term Debt 59": a table of contents line
_REFERENCE_WORDS = re.compile(r"\b(?:in|of|to) (?:the|our) (?:accompanying )?(?:notes|consolidated)\b|\bsee\b|\brefer",
                              re.IGNORECASE)
_XREF = re.compile(r"\b(?:see|refer to|in|to|under|within|described in|discussed in)\s+(?:the\s+)?"
                   r"(?:(?P<part>part\s+[iv]+),?\s+)?(?P<kind>note|item)\s+(?P<num>\d{1,2}[a-c]?)\b", re.IGNORECASE)
_MONTHS = frozenset("january february march april may june july august september october november december".split())
# row labels too generic to say what a row is
_GENERIC_LABELS = frozenset({"total", "net", "other", "page", "note", "item", "year", "years", "fiscal", "balance",
                             "thereafter", "dollars", "millions", "in millions", "amount", "amounts", "change",
                             "percent", "shares", "per share", "basic", "diluted", "total net", "net of tax"})


@dataclass(frozen=True)
class Node:
    """A node of the filing's structure. `kind` is one of KINDS; `doc_id` is "" for a company."""

    key: str  # unique among the graph's nodes; never a folded name, so no question word matches it by accident
    kind: str
    label: str  # what a reader sees
    doc_id: str
    ref: str  # the statement's kind, the note's or Item's number, the row label's key, the company's key


KINDS = ("company", "filing", "statement", "item", "note", "line item")
EDGE_TYPES = ("filing", "section", "line item", "xref")  # how a passage touches a node; each has its weight


@dataclass(frozen=True, eq=False)
class FilingStructure:
    filings: dict[str, Filing]  # doc id → its identity (paged documents only)
    nodes: tuple[Node, ...]
    edges: tuple[tuple[int, int, str], ...]  # (passage row, node, edge type), each pair once
    room: Room | None = None  # what the question reader knows of the room (its words, each company's calendar)

    def nodes_of(self, kind: str) -> list[int]:
        return [i for i, n in enumerate(self.nodes) if n.kind == kind]


def _split_row(line: str) -> tuple[str, list[str]] | None:
    """(label, figures) of a table row, or None: the trailing run of figure tokens is cut off token by
    token (linear in the line; a regex with nested repeats backtracked for seconds on long lines)."""
    tokens = _ROW_NOTE.sub(" ", line).split()
    i = len(tokens)
    while i > 0 and _FIGURE_TOKEN.fullmatch(tokens[i - 1]):
        i -= 1
    figures = tokens[i:]
    label = " ".join(tokens[:i]).rstrip(" :$")
    if not figures or not any(c.isdigit() for f in figures for c in f) or not _LABEL.fullmatch(label):
        return None
    return label, figures


FORECAST = "guidance "  # a forecast row's key begins so: a guidance table's row, which only a question of guidance seeds


def _forecast(figures: list[str]) -> bool:
    """Whether a row's figures hold a range of dollars ("$8.51 - $8.53"): a guidance table's forecast, not a reported
    figure. Both ends carry their "$", as guidance prints them; a statement prints "$" apart and a lone dash for a
    zero ("$ 711 — $ 20"), and a range of rates ("Expected volatility 36% - 53%") is a reported assumption."""
    def dollars(a: str, b: str) -> bool:
        return a[:1] == b[:1] == "$" and len(a) > 1 and len(b) > 1
    return any(figures[i] in ("-", "–") and dollars(figures[i - 1], figures[i + 1]) for i in range(1, len(figures) - 1))


def row_label(line: str) -> str | None:
    """The label of a table row ("Additions to property, plant and equipment (1,028) (1,105) (1,143)" →
    its key "additions to property plant and equipment"), or None for a line that is not a row. A forecast's key
    begins with FORECAST ("Revenue $8.51 - $8.53" → "guidance revenue"): Salesforce's Q2 guidance row "Revenue" was
    the line item the walk reached first for its Q1 revenue, above the income statement (a walk-through's miss)."""
    row = _split_row(line)
    if row is None:
        return None
    key = normalize_name(row[0])
    words = key.split()
    if not words or len(words) > 12 or key in _GENERIC_LABELS or words[0] in _MONTHS or words[-1] in _MONTHS:
        return None
    if all(w in STOPWORDS for w in words) or (len(words) == 1 and len(key) < 4):
        return None
    return FORECAST + key if _forecast(row[1]) else key


def statement_of_page(text: str) -> str | None:
    """The statement a page is, by its header, when the page is a table naming exactly one in a title line. A
    note's or MD&A's table under a sentence naming the balance sheet is not the balance sheet: a walk-through saw
    MD&A's contractual obligations placed under "Balance sheet"."""
    every = [l for l in text.split("\n") if l.strip()]
    kind = _titled(every[:HEADER_LINES], text)
    if kind is not None:
        return kind
    # a statement that opens under the page's prose (an earnings release's balance sheet under its safe harbour): a
    # title line of its own, with the table's figures after it
    for at in range(HEADER_LINES, len(every)):
        if (_MID_TITLE.match(every[at]) and not _NAMED_IN.search(every[at])
                and (kind := _titled(every[at:at + 1], "\n".join(every[at:])))):
            return kind
    return None


def statement_opened_below(text: str) -> str | None:
    """The statement whose title line stands in the page's last lines with too few figures under it to be the
    page's own table: it goes on over the next page (Costco's release ends its page of the income statement with
    the balance sheet's title and first rows; the next page holds the rest, untitled, and was no statement)."""
    every = [l for l in text.split("\n") if l.strip()]
    for at in range(len(every) - 1, max(HEADER_LINES, len(every) - 16) - 1, -1):
        if _MID_TITLE.match(every[at]) and not _NAMED_IN.search(every[at]):
            head = every[at].lower()
            found = [kind for kind, (_, pattern) in STATEMENTS.items() if pattern.search(head)]
            return found[0] if len(found) == 1 and len(_FIGURE.findall("\n".join(every[at:]))) < MIN_FIGURES else None
    return None


# a title line under prose: capitalised, short, a statement's name at its end ("eBay Inc. Unaudited Condensed
# Consolidated Balance Sheet"); not a sentence's last words ("… on our consolidated balance sheet."), a caption
# ("Consolidated Balance Sheets:"), a contents line ("Consolidated Statements of Income 47"), nor a digest of one
# ("Summarized Statement of Income", "Consolidated Statements of Income Information")
_MID_TITLE = re.compile(r"^(?!.*\b(?:summar\w*|information|data|selected|supplement\w*)\b)(?-i:[A-Z])[^.:;]{0,120}"
                        r"(?:balance sheets?|financial (?:position|condition)|cash flows?|income|operations|earnings"
                        r"|comprehensive (?:income|loss)|equity|deficit)\)?\s*$", re.IGNORECASE)
# a note's table about a statement names it as a place: "… in the Consolidated Balance Sheets", "Effect of … on
# Condensed Consolidated Statement of Income", "… reflected on AES' consolidated balance sheet"
_NAMED_IN = re.compile(r"\b(?:in|on|into|to)\s+(?:the\s+|its\s+|our\s+|\S+['’]s?\s+)?(?:unaudited\s+|condensed\s+"
                       r"|consolidated\s+)*(?:statements?|balance sheets?)\b", re.IGNORECASE)


# the parent company's own statements (Regulation S-X Schedule I, "Condensed Financial Information of Registrant"):
# not the group's, whose figures a question asks for (a walk-through: AES's parent-only capex, $14m, cited first)
PARENT_ONLY = re.compile(r"parent company only|condensed financial information of (?:the )?(?:registrant|parent)"
                         r"|\(parent company\)|registrant['’]s condensed|schedule i\b[^\n]{0,80}\bparent",
                         re.IGNORECASE)


def _titled(lines: list[str], text: str) -> str | None:
    """The one statement these header lines name in a title line, when `text` from them on is a table; never the
    parent company's own."""
    head = " ".join(lines).lower()
    if "we have audited" in head or "index to" in head or "table of contents" in head or PARENT_ONLY.search(head):
        return None
    found = [kind for kind, (_, pattern) in STATEMENTS.items() if pattern.search(head)]
    titles = " ".join(l for l in lines if len(l.split()) <= TITLE_WORDS).lower()  # a title may run over two lines
    if len(found) != 1 or not STATEMENTS[found[0]][1].search(titles):
        return None
    figures = len(_FIGURE.findall(text))
    return found[0] if figures >= MIN_FIGURES else None


def headings(text: str) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(Items, notes) that open on this page: (number, title) each, tables of contents and references left out."""
    items, notes = [], []
    for line in text.split("\n"):
        line = " ".join(line.split())
        if len(line) > 110 or _TOC_TAIL.search(line) or _REFERENCE_WORDS.search(line):
            continue
        m = _ITEM.match(line)
        if m:
            items.append((m.group(1).upper(), m.group(2).strip(" .")))
            continue
        m = _NOTE.match(line)
        if m:
            notes.append((str(int(m.group(1))), m.group(2).strip(" .")))
    return items, notes


def cross_references(text: str) -> list[tuple[str, str]]:
    """("note", "12") or ("item", "7") for each reference in the text ("see Note 12", "refer to Item 7")."""
    return list(dict.fromkeys((m.group("kind").lower(), m.group("num").upper()) for m in _XREF.finditer(text)))


def page_texts(passages: Sequence[Passage], rows: Sequence[int]) -> list[str]:
    """The text of each page of one document, from its passages of pages (in page order; a missing page is "")."""
    pages: dict[int, list[str]] = {}
    for i in rows:
        pages.setdefault(page_ref(passages[i]).page, []).append(passages[i].text)
    last = max(pages, default=0)
    return ["\n".join(pages.get(n, [])) for n in range(1, last + 1)]


_SMALL_WORDS = frozenset("a an and as at by for in of on or the to with".split())


def _title(text: str) -> str:
    """A shouted heading in title case, word by word: "MANAGEMENT’S DISCUSSION AND ANALYSIS" is "Management’s
    Discussion and Analysis" (str.title capitalises after an apostrophe: "Management’S")."""
    words = text.split()
    if not " ".join(words).isupper():
        return " ".join(words)
    return " ".join(w.lower() if i and w.lower() in _SMALL_WORDS else "-".join(p[:1] + p[1:].lower() for p in w.split("-"))
                    for i, w in enumerate(words))


def read_structure(passages: Sequence[Passage]) -> FilingStructure:
    """The structure of every paged document among `passages` (in corpus order; rows index them)."""
    by_doc: dict[str, list[int]] = {}
    for i, p in enumerate(passages):
        if page_ref(p) is not None:
            by_doc.setdefault(p.doc_id, []).append(i)
    nodes: list[Node] = []
    index: dict[str, int] = {}
    edges: dict[tuple[int, int], str] = {}

    def node(key: str, kind: str, label: str, doc: str, ref: str) -> int:
        if key not in index:
            index[key] = len(nodes)
            nodes.append(Node(key, kind, label, doc, ref))
        return index[key]

    def link(row: int, n: int, edge: str) -> None:
        edges.setdefault((row, n), edge)  # the first (strongest) type a passage touches a node by

    texts = {doc: page_texts(passages, rows) for doc, rows in by_doc.items()}
    filings = unify({doc: read_filing(doc, pages) for doc, pages in texts.items()})
    for doc, rows in by_doc.items():
        f = filings[doc]
        company = node(f"§company {f.names[0] if f.names else doc}", "company", f.company or doc, "", f.names[0] if f.names else "")
        filing = node(f"§filing {doc}", "filing", f.label, doc, doc)
        pages: dict[int, list[int]] = {}
        for i in rows:
            pages.setdefault(page_ref(passages[i]).page, []).append(i)
        item: int | None = None
        note: int | None = None
        labels: dict[str, int] = {}
        below: str | None = None  # a statement titled at the foot of the page before, its table going on here
        for number in sorted(pages):
            page_rows = pages[number]
            text = "\n".join(passages[i].text for i in page_rows)
            page_items, page_notes = headings(text)
            top_items, top_notes = headings("\n".join(text.split("\n")[:3]))
            # a section that opens at the top of the page ends the one before it there
            sections: list[int] = [n for n in (None if top_items else item, None if top_items or top_notes else note)
                                   if n is not None]
            for num, title in page_items:
                item = node(f"§item {doc} {num}", "item", f"Item {num}. {_title(title)}", doc, num)
                sections.append(item)
                if num != "8":
                    note = None  # the notes end where the next Item begins
            for num, title in page_notes:
                note = node(f"§note {doc} {num}", "note", f"Note {num} — {_title(title)}", doc, num)
                sections.append(note)
            kind = statement_of_page(text)
            if kind is None and below and not page_items and not page_notes and len(_FIGURE.findall(text)) >= MIN_FIGURES:
                kind = below  # the untitled rest of a statement titled at the foot of the page before
            below = statement_opened_below(text)
            if kind is not None:
                sections.append(node(f"§statement {doc} {kind}", "statement", STATEMENTS[kind][0], doc, kind))
            for i in page_rows:
                link(i, filing, "filing")
                link(i, company, "filing")
                for s in dict.fromkeys(sections):
                    link(i, s, "section")
                for line in passages[i].text.split("\n"):
                    key = row_label(line)
                    if key is not None:
                        n = labels.get(key)
                        if n is None:
                            label = line_label(line) + (" (guidance)" if key.startswith(FORECAST) else "")
                            n = labels[key] = node(f"§row {doc} {key}", "line item", label, doc, key)
                        link(i, n, "line item")
        # cross-references point at a section of the same filing, once it is known
        for i in rows:
            for kind, num in cross_references(passages[i].text):
                target = index.get(f"§{kind} {doc} {num}")
                if target is not None:
                    link(i, target, "xref")
    ordered = tuple(sorted((r, n, t) for (r, n), t in edges.items()))
    return FilingStructure(filings, tuple(nodes), ordered, room_of(filings, texts))


def line_label(line: str) -> str:
    """A row's label as printed, for display: "Additions to property, plant and equipment"."""
    row = _split_row(line)
    return row[0].rstrip(" —–-") if row else line.strip()


__all__ = ["EDGE_TYPES", "FORECAST", "Filing", "FilingStructure", "KINDS", "Node", "PARENT_ONLY", "STATEMENTS",
           "cross_references", "headings", "page_texts", "read_structure", "row_label", "statement_of_page",
           "statement_opened_below"]

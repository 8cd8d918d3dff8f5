"""What matched, marked on the cited page: the hit's passage outlined, the question's words and the seed entities
filled, and a statement's row, each kind in the evidence graph's colour, as data and drawn on the PNG.

A passage is the page's text with running lines dropped and spaces folded (engine.ingest.documents), so it is
found in the page's characters by its letters alone: both sides lose every space, line end and hyphenation
mark, and the passage's letters are looked up in the page's, exactly, else by the longest common run
(difflib) when enough of them agree. Words are marked by the rule the passage text uses on the Query page
(`report.marked_terms`): a word is the question's when it shares a token with it, marked on the lines that hold
the most of the question's words (`best_lines`); an entity is its name's words in a row, by name key
(`normalize_name`). Both are marked inside the passage when it was found, else anywhere on the page. Each mark carries its box in page points and in the image's pixels, so a test or a UI
can check it and draw its own legend.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Iterable, Sequence

from ..filings.periods import MONTH_NAMES
from ..text import normalize_name, tokenize
from .page_image import Box, PageLayout, RenderedPage
from .page_table import find_row, union
from .palette import color_of
from .render import COLORS

# the evidence graph's colours: the passage as its hits, entities as its seeds; the question's words in the
# lexical retriever's colour and a statement's row in the filings retriever's (engine.explain.palette)
MARK_COLORS = {"passage": COLORS["hit"], "entity": COLORS["seed"], "word": color_of("bm25"), "row": color_of("filing")}
MARK_WORDS = {"passage": "the passage the hit cites", "word": "the question's words, where a line holds the most",
              "entity": "a seed entity of the walk", "row": "the line item's row"}
MIN_AGREEMENT = 0.6  # of the passage's letters the page must hold, in order, for a fuzzy find to count


@dataclass(frozen=True)
class Mark:
    """One thing marked on the page: its kind ("passage", "word", "entity", "row"), the page's own text there,
    its colour, its box in page points (left, bottom, right, top; the PDF's space, y up) and in the image's
    pixels (x0, y0, x1, y1; y down)."""

    kind: str
    text: str
    color: str
    box_pt: Box
    box_px: tuple[int, int, int, int]


@dataclass(frozen=True)
class MarkedPage:
    """The page drawn with its marks (PNG), the marks, the legend (kind, words, colour) of the kinds present,
    and what was asked for but not found on the page, in words."""

    png: bytes
    width: int
    height: int
    marks: tuple[Mark, ...]
    legend: tuple[tuple[str, str, str], ...]
    missing: tuple[str, ...] = ()


def _skip(ch: str) -> bool:
    return ch.isspace() or ch in "\ufffe\x02\x00"


def find_passage(layout: PageLayout, passage: str) -> tuple[int, int] | None:
    """The span [start, end) of the page's characters that holds the passage's text, or None."""
    index = [i for i, ch in enumerate(layout.text) if not _skip(ch)]
    page = "".join(layout.text[i] for i in index)  # case kept: casefold may change a text's length
    want = "".join(ch for ch in passage if not _skip(ch))
    if not want or not page:
        return None
    at = page.find(want)
    if at >= 0:
        return index[at], index[at + len(want) - 1] + 1
    blocks = [b for b in SequenceMatcher(None, page, want, autojunk=False).get_matching_blocks() if b.size >= 4]
    if sum(b.size for b in blocks) < MIN_AGREEMENT * len(want):
        return None
    return index[blocks[0].a], index[blocks[-1].a + blocks[-1].size - 1] + 1


def span_boxes(layout: PageLayout, start: int, end: int) -> list[tuple[Box, int, int]]:
    """Characters start..end as blocks, each (box, first character, end): a box per line, and each line joined to
    the block above it when it follows on down the page (a gap under two and a half line heights), so a paragraph,
    a table's header cells and its rows are one box, and text that goes on at the top of another column another."""
    lines: list[list] = []  # [baseline, boxes, first, end]
    for i in range(start, end):
        box = layout.boxes[i]
        if _skip(layout.text[i]) or box[2] <= box[0]:
            continue
        if lines and abs(lines[-1][0] - layout.baselines[i]) <= 0.2 * (box[3] - box[1]):
            lines[-1][1].append(box)
            lines[-1][3] = i + 1
        else:
            lines.append([layout.baselines[i], [box], i, i + 1])
    blocks: list[tuple[Box, int, int]] = []
    for _, boxes, first, stop in lines:
        b = union(boxes)
        if blocks:
            last, s, _ = blocks[-1]
            if last[1] - b[3] < 2.5 * (b[3] - b[1]) and b[3] <= last[3] + 0.5 * (b[3] - b[1]):
                blocks[-1] = (union([last, b]), s, stop)
                continue
        blocks.append((b, first, stop))
    return blocks


_LEAD, _TRAIL = re.compile(r"^[^\w$%(]+"), re.compile(r"[^\w%)]+$")  # punctuation around a word, left out of its box


def _tokens(layout: PageLayout, start: int, end: int) -> list[tuple[str, int, int]]:
    """The whitespace-separated words of characters start..end, each with its span, punctuation trimmed."""
    out = []
    for m in re.finditer(r"[^\s\ufffe\x02\x00]+", layout.text[start:end]):
        word = m.group(0)
        lead = (found.end() if (found := _LEAD.search(word)) else 0)
        trail = (found.start() if (found := _TRAIL.search(word)) else len(word))
        if trail > lead:
            s = start + m.start() + lead
            out.append((word[lead:trail], s, s + trail - lead))
    return out


def find_words(layout: PageLayout, terms: Iterable[str], start: int = 0, end: int | None = None
               ) -> list[tuple[str, int, int]]:
    """Words of the span that share a token with `terms` (the question's tokens), each with its span."""
    want = set(terms)
    return [(w, s, e) for w, s, e in _tokens(layout, start, len(layout.text) if end is None else end)
            if set(tokenize(w)) & want]


def find_entity(layout: PageLayout, name: str, start: int = 0, end: int | None = None) -> list[tuple[str, int, int]]:
    """Each place the entity's name stands in the span: its name key's words in a row, each page word read by
    `normalize_name` ("NorthRiver's" is "northriver", "L.P." is "l p")."""
    key = normalize_name(name).split()
    if not key:
        return []
    parts: list[tuple[str, int, int]] = []  # one per key word a page word gives
    for word, s, e in _tokens(layout, start, len(layout.text) if end is None else end):
        parts.extend((k, s, e) for k in normalize_name(word).split())
    found = []
    for i in range(len(parts) - len(key) + 1):
        if [p[0] for p in parts[i:i + len(key)]] == key:
            s, e = parts[i][1], parts[i + len(key) - 1][2]
            found.append((layout.text[s:e], s, e))
    return found


# the words a question names its period with: a page's column headers print them ("FISCAL YEAR ENDED MAY 31"), and
# the row that answers does not
PERIOD_WORDS = frozenset("""fiscal year years annual quarter quarters quarterly month months week weeks ended ending
    period half fy ytd q1 q2 q3 q4 sept""".split()) | {m.lower()[:n] for m in MONTH_NAMES for n in (3, len(m))}


def best_lines(lines: Sequence[str], question: str) -> set[int]:
    """The lines holding the most of the question's words that are not figures, years or the words of its period
    (ties: all). What made a page rank is marked there: "Total revenue" and its year, not every row's "2021" column
    header, each "net" of "Net revenue", "Interest and other, net" (marked on every row, they said nothing), nor the
    "FISCAL YEAR ENDED" header above the "Diluted" row a question about "the fiscal year" asks for."""
    words = {t for t in tokenize(question) if not t.isdigit() and t not in PERIOD_WORDS}
    held = {i: len(words & set(tokenize(line))) for i, line in enumerate(lines)}
    most = max(held.values(), default=0)
    return {i for i, n in held.items() if n == most and n > 0}


def _by_line(layout: PageLayout, words: Sequence[tuple[str, int, int]]) -> list[list[tuple[str, int, int]]]:
    """`words` grouped by the line they stand on (one baseline, within a fifth of a line's height), in order."""
    lines: list[list[tuple[str, int, int]]] = []
    last = None
    for word in words:
        box, base = layout.boxes[word[1]], layout.baselines[word[1]]
        if lines and last is not None and abs(base - last) <= 0.2 * (box[3] - box[1]):
            lines[-1].append(word)
        else:
            lines.append([word])
            last = base
    return lines


def _mark(layout: PageLayout, width: int, kind: str, text: str, box: Box) -> Mark:
    return Mark(kind, " ".join(text.split()), MARK_COLORS[kind], tuple(round(v, 2) for v in box),
                layout.to_pixels(box, width))


def find_marks(layout: PageLayout, width: int, passage: str = "", question: str = "",
               entities: Sequence[str] = (), row: str = "") -> tuple[tuple[Mark, ...], tuple[str, ...]]:
    """The marks for a page drawn `width` pixels wide, and what was asked for and not found, in words."""
    marks: list[Mark] = []
    missing: list[str] = []
    start, end, within = 0, len(layout.text), False
    if passage.strip():
        span = find_passage(layout, passage)
        if span is None:
            missing.append("the passage's text is not on this page as PDFium reads it")
        else:
            (start, end), within = span, True
            marks.extend(_mark(layout, width, "passage", layout.text[s:e], b) for b, s, e in span_boxes(layout, start, end))
    taken: list[tuple[int, int]] = []
    unnamed = []
    # the longest names first: "Repurchases of common stock" is marked whole, and "common stock" within it is not
    # marked again (nor said to be missing)
    for name in sorted(dict.fromkeys(e for e in entities if e.strip()), key=lambda n: -len(normalize_name(n).split())):
        found = find_entity(layout, name, start, end)
        spots = [(t, s, e) for t, s, e in found if not any(s < e2 and s2 < e for s2, e2 in taken)]
        if not found:
            unnamed.append(repr(name))
        for text, s, e in spots:
            taken.append((s, e))
            marks.extend(_mark(layout, width, "entity", layout.text[bs:be], b) for b, bs, be in span_boxes(layout, s, e))
    if unnamed:  # a filing's structure node ("Statement of cash flows") is a seed no page spells out
        missing.append(f"{'these seeds are' if len(unnamed) > 1 else 'this seed is'} not written "
                       f"{'in the passage' if within else 'on the page'}: {', '.join(unnamed)}")
    terms = set(tokenize(question))
    found = find_words(layout, terms, start, end)
    lines = _by_line(layout, found)
    best = best_lines([" ".join(w for w, _, _ in line) for line in lines], question)
    for text, s, e in (word for i in sorted(best) for word in lines[i]):
        if not any(s < e2 and s2 < e for s2, e2 in taken):
            marks.extend(_mark(layout, width, "word", layout.text[bs:be], b) for b, bs, be in span_boxes(layout, s, e))
    if row.strip():
        line = find_row(layout, row)
        if line is None:
            missing.append(f"no line of this page starts with {row!r}")
        else:
            marks.append(_mark(layout, width, "row", line.text, line.box))
    return tuple(marks), tuple(missing)


def legend(marks: Iterable[Mark]) -> tuple[tuple[str, str, str], ...]:
    """(kind, what it marks in words, colour) for each kind among the marks, in a fixed order."""
    kinds = {m.kind for m in marks}
    return tuple((k, MARK_WORDS[k], MARK_COLORS[k]) for k in MARK_COLORS if k in kinds)


def _rgb(color: str) -> tuple[int, int, int]:
    return int(color[1:3], 16), int(color[3:5], 16), int(color[5:7], 16)


LEGEND_PX = 34  # the band under the page that names each kind of mark


def draw_marks(png: bytes, marks: Sequence[Mark], with_legend: bool = True) -> bytes:
    """The page with its marks drawn: a passage or row outlined (a row also lightly filled), words and entities
    filled see-through so the text stays legible; with a legend band added under the page (the page's own
    pixels, and so every mark's box, stay where they were)."""
    from PIL import Image, ImageDraw, ImageFont

    page = Image.open(io.BytesIO(png)).convert("RGBA")
    overlay = Image.new("RGBA", page.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(overlay)
    pad = max(2, page.width // 400)
    order = {"row": 0, "passage": 1, "entity": 2, "word": 3}  # one overlay: a later fill replaces an earlier one
    for m in sorted(marks, key=lambda m: order[m.kind]):
        x0, y0, x1, y1 = m.box_px
        rgb = _rgb(m.color)
        if m.kind in ("passage", "row"):
            if m.kind == "row":
                draw.rectangle((x0 - pad, y0 - pad, x1 + pad, y1 + pad), fill=rgb + (40,))
            # the stroke stands clear of the text: a filing's fonts often have no loose box, and their tight one
            # ends at the capitals' tops
            draw.rectangle((x0 - pad, y0 - 2 * pad, x1 + pad, y1 + 2 * pad), outline=rgb + (255,), width=pad)
        else:
            draw.rectangle((x0, y0, x1, y1), fill=rgb + (80,))
            draw.line((x0, y1, x1, y1), fill=rgb + (255,), width=max(2, pad // 2))
    page = Image.alpha_composite(page, overlay)
    keys = legend(marks)
    if with_legend and keys:
        band = Image.new("RGBA", (page.width, page.height + LEGEND_PX), (255, 255, 255, 255))
        band.paste(page, (0, 0))
        draw = ImageDraw.Draw(band)
        font = ImageFont.load_default(size=16)
        x, y = 12, page.height + 8
        for _, words, color in keys:
            draw.rectangle((x, y + 2, x + 18, y + 18), fill=_rgb(color) + (255,))
            draw.text((x + 26, y), words, fill=(34, 34, 34, 255), font=font)
            x += 26 + int(draw.textlength(words, font=font)) + 28
        page = band
    out = io.BytesIO()
    page.convert("RGB").save(out, format="PNG")
    return out.getvalue()


def marked_page(page: RenderedPage, passage: str = "", question: str = "", entities: Sequence[str] = (),
                row: str = "", with_legend: bool = True) -> MarkedPage:
    """A rendered page (engine.explain.page_image.rendered_page) with what matched marked on it."""
    marks, missing = find_marks(page.layout, page.width, passage, question, entities, row)
    png = draw_marks(page.png, marks, with_legend) if marks else page.png
    height = page.height + (LEGEND_PX if with_legend and marks else 0)
    return MarkedPage(png, page.width, height, marks, legend(marks), missing)


__all__ = ["MARK_COLORS", "Mark", "MarkedPage", "draw_marks", "find_entity", "find_marks", "find_passage",
           "find_words", "legend", "marked_page", "span_boxes"]

"""The pictures of an answer: the evidence graph as a static SVG, and each hit's cited page drawn with what matched
marked on it, its text read beside it with a statement's rows given their column headers.

The Query page's "See the page" and the evidence report draw the same `HitPage`: a hit's own passage outlined (not
the best hit on its page: two hits on one page each show their own), the seed entities that hit mentions and the
question's words filled, as engine.explain.page_marks finds them. The report embeds each page as a PNG data URI, so
the file still asks nothing of the network; its width and palette (`REPORT_PAGE_WIDTH`, `REPORT_COLORS`) keep five
pages of a 10-K to about half a megabyte of the file (docs/performance.md).
"""

from __future__ import annotations

import base64
import html
import io
import re
from dataclasses import dataclass
from typing import Sequence

from ..ingest.documents import SourceFile
from ..ingest.passage import PageRef
from ..retrieve.graph_explain import GraphAnswer
from .page_image import Box, PageCache, PageLayout, Renderer, render_isolated, rendered_page
from .page_marks import MarkedPage, marked_page
from .page_table import cells, page_lines, read_tables
from .reasons import short
from .render import COLORS, extent, label_width, layout, node_labels

REPORT_PAGE_WIDTH = 900  # px: a 10-K's 8-point statement figures stay legible at the report's own width
REPORT_COLORS = 256  # a page's palette in the report: a third of the full-colour PNG's bytes, no visible change
TABULAR_LINES = 3  # lines of two or more figures that make a page a table, whose unread headers are said
_FIGURE = re.compile(r"^[($-]*\$?\(?-?\d[\d,]*(?:\.\d+)?\)?%?$")


def cited_page(passage_id: str) -> PageRef | None:
    """The passage's page when it is a page of a PDF, which can be drawn; None for any other passage."""
    where = PageRef.from_id(passage_id)
    return where if where is not None and where.doc.lower().endswith(".pdf") else None


def hit_entities(answer, passage_id: str) -> tuple[str, ...]:
    """The seed entities a graph retriever's hit mentions (what its text marks); () for the other retrievers."""
    why = answer.why.get(passage_id) if answer.walk is not None else None
    return tuple(getattr(why, "matched_entities", ()) or ())


@dataclass(frozen=True)
class HitPage:
    """One hit's cited page: drawn and marked (`marked`), and its text top down (`lines`), where the lines at
    `row_at` are a statement's rows read as "label: header value · …" and those at `passage_at` lie inside the
    outlined passage. `table_note` says why a table's columns
    could not be named ("" when every table was read or the page holds none); `tabular`: the page holds rows of
    figures, so when none was read its text is not shown as if it were, and the image stands alone."""

    passage_id: str
    doc: str
    page: int
    marked: MarkedPage
    lines: tuple[str, ...]
    row_at: tuple[int, ...]
    passage_at: tuple[int, ...]
    table_note: str
    tabular: bool
    cached: bool = False

    @property
    def headers_unread(self) -> bool:
        """A page of figures none of whose columns could be named."""
        return self.tabular and not self.row_at


def _inside(box: Box, outlines: Sequence[Box]) -> bool:
    """Whether a line's box sits in one of the outlines: its middle height within it, and the two overlapping."""
    middle = (box[1] + box[3]) / 2
    return any(o[1] <= middle <= o[3] and box[0] < o[2] and o[0] < box[2] for o in outlines)


def page_text(layout: PageLayout, outlines: Sequence[Box] = ()
              ) -> tuple[tuple[str, ...], tuple[int, ...], tuple[int, ...], str, bool]:
    """The page's lines top down, each statement row replaced by its reading with column headers; which lines are
    such rows, which lie inside the `outlines` (the passage's boxes in page points), why a table was not read, and
    whether the page holds rows of figures at all (TABULAR_LINES lines of two or more)."""
    lines = page_lines(layout)
    reading = read_tables(layout)
    by_box = {row.box: row for row in reading.rows}
    out = tuple(by_box[line.box].words() if line.box in by_box else line.text for line in lines)
    row_at = tuple(i for i, line in enumerate(lines) if line.box in by_box)
    passage_at = tuple(i for i, line in enumerate(lines) if _inside(line.box, outlines))
    figures = sum(1 for line in lines if sum(1 for text, _ in cells(line) if _FIGURE.match(text.replace(" ", ""))) >= 2)
    return out, row_at, passage_at, reading.reason, figures >= TABULAR_LINES


def hit_page(source: SourceFile, passage_id: str, passage: str, question: str, entities: Sequence[str] = (),
             width: int = REPORT_PAGE_WIDTH, cache: PageCache | None = None,
             render: Renderer = render_isolated) -> HitPage:
    """The hit's cited page of `source` drawn `width` pixels wide (from the cache when drawn there before), its
    passage outlined and its matches filled (no legend band: a page shows its own legend at its own size).
    Raises PathLensError naming the file and the page when the page cannot be drawn."""
    where = cited_page(passage_id)
    if where is None:
        raise ValueError(f"{passage_id} is not a page of a PDF")
    drawn = rendered_page(source, where.page, width, cache, render)
    marked = marked_page(drawn, passage=passage, question=question, entities=entities, with_legend=False)
    outlines = [m.box_pt for m in marked.marks if m.kind == "passage"]
    lines, row_at, passage_at, note, tabular = page_text(drawn.layout, outlines)
    return HitPage(passage_id, where.doc, where.page, marked, lines, row_at, passage_at, note, tabular, drawn.cached)


def legend_html(page: HitPage) -> str:
    """The marks' key: a swatch in each kind's colour and what it marks, only for kinds on the page."""
    keys = "".join(f"<span style='white-space:nowrap;margin-right:14px'><span style='display:inline-block;width:12px;"
                   f"height:12px;margin:0 5px -1px 0;border:2px solid {color};background:{color}"
                   f"{'00' if kind in ('passage', 'row') else '55'}'></span>{html.escape(words)}</span>"
                   for kind, words, color in page.marked.legend)
    return f"<div class='marks-key'>{keys}</div>" if keys else ""


def compact_png(png: bytes, colors: int = REPORT_COLORS) -> bytes:
    """The PNG in a palette of `colors` (median cut, no dithering: text keeps its edges), about a third the bytes."""
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGB")
    out = io.BytesIO()
    image.quantize(colors=colors, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(
        out, format="PNG", optimize=True)
    return out.getvalue()


def page_figure(page: HitPage, rank: int) -> str:
    """The page as the report shows it: its legend, the marked page inline (a data URI: a palette PNG) and a
    caption saying what was not found on it."""
    png = base64.b64encode(compact_png(page.marked.png)).decode("ascii")
    where = f"{page.doc} page {page.page}"
    missing = "".join(f"; {html.escape(m)}" for m in page.marked.missing)
    return (f"<figure class='page' id='page-{rank}'>{legend_html(page)}<img src='data:image/png;base64,{png}' "
            f"width='{page.marked.width}' height='{page.marked.height}' alt='{html.escape(where, quote=True)}, "
            f"as cited by answer {rank}, with what matched marked'><figcaption>{html.escape(where)}, as cited by "
            f"answer {rank}{missing}</figcaption></figure>")


def page_failure(message: str) -> str:
    return f"<p class='meta'><strong>The cited page is not shown:</strong> {html.escape(message)}</p>"


def graph_svg(answer: GraphAnswer, titles: dict[str, str], gold: frozenset[str], removed: Sequence[str] = ()) -> str:
    """The evidence graph as a static picture, in the same layered layout; `removed` entities (the what-if's) drawn
    crossed out under it, hollow and dashed, as the page draws them."""
    labels = node_labels(answer, titles, gold)
    pos = layout(answer, labels)
    if not pos:
        return ""
    half = {nid: label_width(label, nid) / 2 for nid, label in labels.items()}
    pad = 30
    left, top, right, bottom = extent(pos, labels)
    row = 44  # a crossed-out entity's row under the graph
    crossed = []
    for i, label in enumerate(removed):
        text = f"✕ {short(label)}"
        w, y = label_width(text, "e:") / 2, bottom + row * (i + 1)
        x = left + w
        crossed.append(f'<ellipse cx="{x:g}" cy="{y:g}" rx="{w:g}" ry="14" fill="#fff" stroke="#999" '
                       f'stroke-dasharray="4 3"/><text x="{x:g}" y="{y + 4:g}" text-anchor="middle" font-size="12" '
                       f'fill="#777" font-family="sans-serif" text-decoration="line-through">{html.escape(text)}'
                       f'<title>{html.escape(label)}: taken out (what-if); the walk ran without it</title></text>')
        right = max(right, x + w)
    bottom += row * len(removed)
    x0, y0, width, height = left - pad, top - pad, right - left + 2 * pad, bottom - top + 2 * pad
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="{x0:g} {y0:g} {width:g} {height:g}" role="img" '
             'aria-label="evidence graph">']
    drawn = {(a, b) for e in answer.explanations for p in e.paths for a, b in zip(p.node_ids, p.node_ids[1:])}
    for a, b in sorted(drawn):
        (xa, ya), (xb, yb) = pos[a], pos[b]
        parts.append(f'<line x1="{xa}" y1="{ya}" x2="{xb}" y2="{yb}" stroke="#444" stroke-width="1.5"/>')
    for n in answer.nodes:
        x, y = pos[n.id]
        lines = labels[n.id].split("\n")
        color = COLORS.get(n.kind, "#999999")
        w, h = half[n.id], 13 + 7.5 * (len(lines) - 1)  # half the box: a line of 12 px text is 15 px
        shape = (f'<rect x="{x - w:g}" y="{y - h:g}" width="{2 * w:g}" height="{2 * h:g}" rx="4" fill="{color}"/>'
                 if n.id.startswith("p:") else f'<ellipse cx="{x}" cy="{y}" rx="{w:g}" ry="{h + 1:g}" fill="{color}"/>')
        ink = "#fff" if n.kind in ("seed", "read-seed", "hit", "bridge") else "#222"
        text = "".join(f'<tspan x="{x}" y="{y + 4 - 7.5 * (len(lines) - 1) + 15 * i:g}">{html.escape(line)}</tspan>'
                       for i, line in enumerate(lines))
        parts.append(f'{shape}<text text-anchor="middle" font-size="12" fill="{ink}" font-family="sans-serif">'
                     f'{text}</text>')
    parts += crossed
    parts.append("</svg>")
    return "".join(parts)


__all__ = ["REPORT_PAGE_WIDTH", "HitPage", "cited_page", "compact_png", "graph_svg", "hit_entities", "hit_page", "legend_html",
           "page_failure", "page_figure", "page_text"]

"""The Query page's "See the page": each PDF hit's cited page drawn with what matched marked on it, the page's
text beside it (a statement's rows with their column headers), and a strip of the top-k pages that jumps to
their hits.

Drawing a page never holds the answer up. `start` hands the hits' pages to a pool of threads (PDFium itself runs
in a worker process per page: engine.explain.page_image) before the hits are drawn; each PDF hit keeps a "See the
page" box (`slot`), and `fill` draws the pages into those boxes, in rank order, once the rest of the answer is on
the screen. Pages are kept in Streamlit's resource cache by file, page and what is marked (`_future`, an hour), so
a rerun (any click) shows them without drawing them again; a failure is never kept. PDFium's pages are also kept on
disk (the engine's PageCache). A page that cannot be drawn is named, with its file and page, in its box; its passage
is above it.
"""

from __future__ import annotations

import base64
import html
import io
import json
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from engine.catalog import FILINGS_RETRIEVER, SCOPED_RETRIEVERS
from engine.errors import PathLensError
from engine.explain.figures import HitPage, cited_page, hit_entities, hit_page, legend_html
from engine.explain.page_evidence import pdf_source
from engine.explain.page_image import DEFAULT_WIDTH
from engine.explain.page_marks import MARK_COLORS, best_lines
from engine.explain.report import highlight, marked_terms
from engine.indexing.index import Index
from engine.ingest.corpus import bundled_names
from ui.corpora import UPLOAD
from ui.render import escape_markdown

THUMB_WIDTH = 132  # px: a strip of ten fits a 1400-pixel window's main column
KEEP = 40  # pages kept in memory across reruns and sessions (about 300 kB each)
TEXT_HEIGHT = 620  # px: the page text's pane beside the image scrolls within this height
MARGIN_PX = 24  # white kept around a page's ink when it is cut to it
CLOSE_PX = 90  # context kept above and below the passage close up: about five lines of a 10-K at 1400 px
WAIT_STEP_S = 0.25  # a page being drawn is looked at this often

PAGE_TTL_S = 3600  # a drawn page is kept an hour across reruns and sessions
_POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="pathlens-page")

CSS = f"""<style>
.page-text{{font-size:13px;line-height:1.4;color:#222}}.page-text div{{margin-bottom:2px}}
.page-text .row{{background:{MARK_COLORS['row']}1f;padding-left:4px}}
.page-text .in-passage{{border-left:3px solid {MARK_COLORS['passage']};padding-left:6px}}
.page-text summary{{color:#666;cursor:pointer;margin-bottom:4px}}
[id^=hit-]{{display:block;scroll-margin-top:4.5rem}}
.marks-key{{font-size:13px;color:#444;margin:0 0 4px 0}}
.page-strip{{display:flex;flex-wrap:wrap;gap:10px;padding:2px 0 8px 0}}
.page-strip a{{text-decoration:none;color:#333;font-size:12px;text-align:center;flex:none;width:{THUMB_WIDTH}px;
  overflow-wrap:break-word}}
.page-strip img{{display:block;border:1px solid #bbb;border-radius:3px}}
.page-strip a:hover img{{border-color:{MARK_COLORS['passage']}}}
</style>"""


@dataclass(frozen=True)
class ShownPage:
    """A hit's page as the Query page shows it: the engine's HitPage; the marked page cut to its ink (`png`, its
    top-left corner at `offset` pixels of the whole page); the passage close up (`close`, at `close_offset`), drawn
    the main column's width so a statement's figures read at their size; and a thumbnail of the whole page."""

    page: HitPage
    png: bytes
    offset: tuple[int, int]
    thumbnail: bytes
    close: bytes
    close_offset: tuple[int, int]


@dataclass(frozen=True)
class Pending:
    """A PDF hit whose page is being drawn: its rank, where its page is, its future and its box on the page."""

    rank: int
    passage_id: str
    doc: str
    page: int
    future: Future
    box: object = None  # the "See the page" expander's placeholder, once the hit is drawn


def pdf_corpus(index: Index) -> str | None:
    """Where the corpus's PDFs are read from, as engine.explain.page_evidence names a corpus: the session's upload
    folder, a bundled corpus by name; None for a benchmark file (paragraphs, no pages)."""
    kept = st.session_state.get("uploaded_corpus")
    if st.session_state.get("corpus_selected") == UPLOAD and kept:
        return kept[0]
    return index.corpus.name if index.corpus.name in bundled_names() else None


def _png(image) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def _cut_and_thumbnail(png: bytes, passage: tuple[int, int, int, int] | None = None, tabular: bool = False
                       ) -> tuple[bytes, tuple[int, int], bytes, bytes, tuple[int, int]]:
    """The page cut to its ink and a margin (a 10-K's margins are a fifth of its width), where it starts, a
    thumbnail of the whole page (its box the page's shape), and the passage's box (`passage`, in the page's pixels)
    with CLOSE_PX of context above and below, across the ink's width, and where that starts (the ink cut when no
    passage is outlined). On a page of figures (`tabular`) the close-up starts at the page's head, so the column
    headers that name its figures' years stand above them."""
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGB")
    ink = image.convert("L").point(lambda v: 255 if v < 245 else 0).getbbox()
    pad = MARGIN_PX
    x0, y0, x1, y1 = ((max(0, ink[0] - pad), max(0, ink[1] - pad), min(image.width, ink[2] + pad),
                       min(image.height, ink[3] + pad)) if ink else (0, 0, image.width, image.height))
    small = image.resize((THUMB_WIDTH, round(image.height * THUMB_WIDTH / image.width)), Image.LANCZOS)
    whole = _png(image.crop((x0, y0, x1, y1)))
    if passage is None:
        return whole, (x0, y0), _png(small), whole, (x0, y0)
    c0, c1 = (y0 if tabular else max(y0, passage[1] - CLOSE_PX)), min(y1, passage[3] + CLOSE_PX)
    return whole, (x0, y0), _png(small), _png(image.crop((x0, c0, x1, c1))), (x0, c0)


def _passage_box(page: HitPage) -> tuple[int, int, int, int] | None:
    boxes = [m.box_px for m in page.marked.marks if m.kind == "passage"]
    if not boxes:
        return None
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def _draw(spec: str, doc: str, passage_id: str, text: str, question: str, entities: tuple[str, ...]) -> ShownPage:
    page = hit_page(pdf_source(spec, doc), passage_id, text, question, entities, DEFAULT_WIDTH)
    return ShownPage(page, *_cut_and_thumbnail(page.marked.png, _passage_box(page), page.tabular))


def _not_failed(future: Future) -> bool:
    """A page that failed is drawn again on the next look: a time-out under load must not stay for everyone."""
    return not (future.done() and future.exception() is not None)


@st.cache_resource(ttl=PAGE_TTL_S, max_entries=KEEP, show_spinner=False, validate=_not_failed)
def _future(spec: str, doc: str, passage_id: str, text: str, question: str, entities: tuple[str, ...],
            width: int = DEFAULT_WIDTH) -> Future:
    """The page being drawn, or drawn: one future per (corpus, passage, question, entities, width), shared by reruns
    and sessions through Streamlit's resource cache, never a failed one."""
    return _POOL.submit(_draw, spec, doc, passage_id, text, question, entities)


def start(index: Index, answer, question: str, texts: dict[str, str]) -> dict[str, Pending]:
    """Start drawing each PDF hit's page (before the hits are drawn); {} when the corpus has no PDFs to draw.
    `texts`: each passage's text by id, as the page already holds it."""
    spec = pdf_corpus(index)
    if spec is None:
        return {}
    out = {}
    for h in answer.hits:
        where = cited_page(h.passage_id)
        if where is None:
            continue
        future = _future(spec, where.doc, h.passage_id, texts[h.passage_id], question.strip(),
                         hit_entities(answer, h.passage_id))
        out[h.passage_id] = Pending(h.rank, h.passage_id, where.doc, where.page, future)
    return out


def slot(pending: Pending) -> Pending:
    """The hit's "See the page" box (the top hit's open), saying the page is being drawn until `fill` draws it."""
    box = st.expander(f"See the page: {pending.doc} page {pending.page}", expanded=pending.rank == 1,
                      icon=":material/description:")
    with box:
        holder = st.empty()
        if not pending.future.done():
            holder.caption(f"Drawing page {pending.page} of {pending.doc}…")
    return Pending(pending.rank, pending.passage_id, pending.doc, pending.page, pending.future, holder)


def strip_slot(pages: dict[str, Pending]):
    """The strip of page thumbnails under the answers' heading, filled as the pages are drawn."""
    if not pages:
        return None
    st.html(CSS)
    return st.empty()


def ranks_words(ranks: list[int]) -> str:
    """"#3", "#3 and #4", "#2, #3 and #5": the hits that cite one page."""
    named = [f"#{r}" for r in ranks]
    return named[0] if len(named) == 1 else ", ".join(named[:-1]) + f" and {named[-1]}"


def _strip(drawn: list[tuple[Pending, ShownPage | None]]) -> str:
    """The thumbnails of the pages drawn so far, in rank order; a page several hits cite is shown once, labelled
    with each of their ranks, and links to the first (its thumbnail marks that hit's passage)."""
    pages: dict[tuple[str, int], list[tuple[Pending, ShownPage | None]]] = {}
    for p, shown in drawn:
        pages.setdefault((p.doc, p.page), []).append((p, shown))
    items = []
    several = len({doc for doc, _ in pages}) > 1  # a room of several files: each label names its file
    for (doc, page), cited in pages.items():
        (p, shown), ranks = cited[0], [q.rank for q, _ in cited]
        # the file's name with spaces for its underscores, so a long one wraps between its words
        named = Path(doc).stem.replace("_", " ") + " " if several else ""
        label = f"{' '.join(f'#{r}' for r in ranks)} · {named}p.{page}"
        answers = (f"answer {ranks[0]}" if len(ranks) == 1 else
                   f"answers {', '.join(str(r) for r in ranks[:-1])} and {ranks[-1]}")
        if shown is None:
            picture = (f"<div style='width:{THUMB_WIDTH}px;height:{THUMB_WIDTH * 4 // 3}px;border:1px dashed #bbb;"
                       "display:flex;align-items:center;justify-content:center;color:#999'>not drawn</div>")
        else:
            data = base64.b64encode(shown.thumbnail).decode("ascii")
            picture = (f"<img src='data:image/png;base64,{data}' width='{THUMB_WIDTH}' "
                       f"alt='{html.escape(doc, quote=True)} page {page}'>")
        items.append(f"<a href='#hit-{p.rank}' title='{html.escape(doc, quote=True)} page {page}: {answers}'>"
                     f"{picture}{html.escape(label)}</a>")
    return f"<div class='page-strip' data-testid='page-strip'>{''.join(items)}</div>"


def _text_html(page: HitPage, question: str, entities: tuple[str, ...]) -> str:
    """The page's text, the passage's lines first in view: the lines above it folded (a pane cannot be scrolled
    to it without a script), its own lines outlined in the passage's colour, statement rows shaded.

    What made the page rank is marked: the walk's seed names wherever they stand, and the question's words only on
    the passage's lines that hold the most of them ("Total revenue", not every row's "2021" column header: marked
    on every row, "Fiscal", "2022", "net" and "sales" said nothing); where the passage's lines are not known, on
    the page's lines that hold the most."""
    if not page.lines:
        return "<div class='page-text'><em>PDFium reads no text on this page.</em></div>"
    rows, inside = set(page.row_at), set(page.passage_at)
    among = sorted(inside) if inside else range(len(page.lines))
    best = {among[i] for i in best_lines([page.lines[i] for i in among], question)}
    own = [*entities, *marked_terms(None, " ".join(page.lines[i] for i in best), question)]
    drawn = [f"<div class='{' '.join(c for c, on in (('row', i in rows), ('in-passage', i in inside)) if on)}'>"
             f"{highlight(line, own if i in best else entities)}</div>"
             for i, line in enumerate(page.lines)]
    first = min(inside, default=0)
    above = (f"<details><summary>{first} line{'s' if first != 1 else ''} above the passage</summary>"
             f"{''.join(drawn[:first])}</details>" if first >= 3 else "".join(drawn[:first]))
    return f"<div class='page-text'>{above}{''.join(drawn[first:])}</div>"


def _sentence(note: str) -> str:
    """The engine's "DOC page N: why" as a sentence about this page (its box already names the page)."""
    why = note.split(": ", 1)[-1]
    return why[:1].upper() + why[1:] + ("" if why.endswith(".") else ".")


def _image(shown: ShownPage, alt: str) -> None:
    """The page, as PNG (Streamlit would send a photograph's JPEG, blurring the text), and the whole page at its
    full 1400 pixels to save and zoom into."""
    page = shown.page
    st.image(shown.png, caption=alt, width="stretch", output_format="PNG")
    st.download_button("Save the page at full size (PNG)", lambda: page.marked.png, mime="image/png", on_click="ignore",
                       file_name=f"{page.doc.rsplit('.', 1)[0].replace('/', '-')}-p{page.page}.png",
                       key=f"page_png_{page.passage_id}", icon=":material/zoom_in:",
                       help=f"The page {page.marked.width} pixels wide with its marks, to open in an image viewer "
                            "and zoom into; the image's own full-screen button (at its corner) fits it to the window.")


def _show(shown: ShownPage, question: str, entities: tuple[str, ...]) -> None:
    """One page: its marks' key and what was not found, the passage close up across the column (a whole page beside
    its text was drawn 310 px wide at 1400, its figures unreadable), then the page's text and the whole page, each a
    tab; a page of figures whose headers cannot be read says so and has no text tab."""
    page = shown.page
    dx, dy = shown.close_offset
    marks = json.dumps([{"kind": m.kind, "text": m.text, "box_px": [m.box_px[0] - dx, m.box_px[1] - dy,
                                                                  m.box_px[2] - dx, m.box_px[3] - dy]}
                        for m in page.marked.marks])
    # the marks as data too, in the shown image's pixels, for who checks them against it (the browser test)
    st.html(f"<div class='page-marks' data-page='{html.escape(page.passage_id, quote=True)}' "
            f"data-width='{page.marked.width}' data-marks='{html.escape(marks, quote=True)}'>"
            + (legend_html(page) or "<div class='marks-key'>Nothing of the question is written on this page.</div>")
            + "</div>")
    for what in page.marked.missing:
        st.caption(f"Not marked: {escape_markdown(what)}")  # seeds and quotes are corpus text
    alt = f"{page.doc} page {page.page}, the passage outlined and what matched marked"
    st.image(shown.close, caption=f"{page.doc} page {page.page}: the passage close up, outlined, and what "
             "matched marked", width="stretch", output_format="PNG")
    if page.headers_unread:
        st.caption(f"{escape_markdown(_sentence(page.table_note))} Its text is not shown: its figures would stand "
                   "there without their columns.")
        (whole,) = st.tabs(["The whole page"])  # its box is an expander already: no expander in it
        with whole:
            _image(shown, alt)
        return
    text, whole = st.tabs(["The page's text", "The whole page"])
    with text:
        said = "The page's text" + (", the passage's lines edged in its colour" if page.passage_at else "")
        said += (f"; its {len(page.row_at)} statement row{'s' if len(page.row_at) != 1 else ''} (shaded) with the "
                 "column header of each value." if page.row_at else ", as PDFium reads it.")
        if page.table_note and page.tabular:
            said += f" {escape_markdown(_sentence(page.table_note))}"
        st.caption(said)
        with st.container(height=TEXT_HEIGHT):
            st.html(_text_html(page, question, entities))
    with whole:
        _image(shown, alt)


def _wait(pending: Pending, box=None) -> tuple[ShownPage | None, str]:
    """The drawn page, or None and why not (its file and page named). Waits in short steps, saying how long in
    `box`: each word sent lets Streamlit stop this run for a click, so a slow page never holds the page up."""
    waited = 0.0
    while True:
        try:
            return pending.future.result(timeout=WAIT_STEP_S), ""
        except FutureTimeout:
            waited += WAIT_STEP_S
            if box is not None and waited >= 1:
                box.caption(f"Drawing page {pending.page} of {pending.doc}… {waited:.0f} s")
        except PathLensError as e:
            return None, str(e)
        except Exception as e:  # noqa: BLE001 — a broken page must not take the answer down: named with its page
            return None, f"{pending.doc} page {pending.page} could not be drawn ({type(e).__name__}: {e})"


def fill(pages: dict[str, Pending], strip, question: str, answer) -> None:
    """Draw each page into its box as it is ready, in rank order, and the strip with the pages drawn so far."""
    drawn: list[tuple[Pending, ShownPage | None]] = []
    for p in sorted(pages.values(), key=lambda p: p.rank):
        shown, error = _wait(p, p.box)
        with p.box.container():
            if shown is None:
                st.error(f"{error}. The passage above is what the hit cites.")
            else:
                _show(shown, question, hit_entities(answer, p.passage_id))
        drawn.append((p, shown))
        if strip is not None:
            strip.html(_strip(drawn))


def _column_page(pending: Pending, shown: ShownPage | None, error: str) -> None:
    if shown is None:
        st.error(f"{error}. Its passage is in the ranking above.")
        return
    st.image(shown.png, caption=f"{pending.doc} page {pending.page}, the passage outlined and what matched marked",
             width="stretch", output_format="PNG")
    st.html(legend_html(shown.page))  # under the page: the two pages start level, whatever each marks


def side_by_side(index: Index, question: str, rankings: dict[str, list[str]], entities_of) -> None:
    """Two retrievers' top pages side by side (the Compare page's): A and B, each column its first hit's page drawn
    with that hit's passage and matches marked, and the pages of its next hits named; nothing for a corpus with no
    PDFs. `entities_of(retriever, passage_id)`: the seed entities that hit mentions (() for a lexical one)."""
    spec = pdf_corpus(index)
    names = [n for n, ranking in rankings.items() if ranking and cited_page(ranking[0]) is not None]
    if spec is None or len(names) < 2:
        return
    st.markdown("**Their top pages side by side**")
    # the room's own retriever first (filing, for PDFs), against the next one chosen
    first = next((n for n in (FILINGS_RETRIEVER, *SCOPED_RETRIEVERS) if n in names), names[0])
    second = next(n for n in names if n != first)
    for key, fallback in (("cmp_pages_a", first), ("cmp_pages_b", second)):  # a retriever taken off the list
        if st.session_state.get(key) not in names:
            st.session_state[key] = fallback
    c1, c2 = st.columns(2)
    chosen = (c1.selectbox("A", names, key="cmp_pages_a"), c2.selectbox("B", names, key="cmp_pages_b"))
    texts = {p.id: p.text for p in index.corpus.passages}
    drawn = []
    for column, name in zip((c1, c2), chosen):
        top = rankings[name][0]
        first_page = cited_page(top)
        doc, number = first_page.doc, first_page.page
        future = _future(spec, doc, top, texts[top], question.strip(), tuple(entities_of(name, top)))
        later: dict[tuple[str, int], list[int]] = {}  # a page two passages cite is named once, with both ranks
        for i, pid in enumerate(rankings[name][1:], start=2):
            if (where := cited_page(pid)) and where.key != first_page.key:
                later.setdefault((where.doc, where.page), []).append(i)
        rest = [f"p.{where[1]}" + ("" if where[0] == doc else f" of {where[0]}") + f" ({ranks_words(ranks)})"
                for where, ranks in later.items()]
        with column:
            st.caption(escape_markdown(f"{name}'s first hit cites {doc} page {number}"
                                       + (f"; then {', '.join(rest)}." if rest else ".")))
            drawn.append((Pending(1, top, doc, number, future), st.empty()))
    st.html(CSS)
    for pending, box in drawn:  # drawn last: the captions and the choice are on the screen first
        shown, error = _wait(pending, box)
        with box.container():
            _column_page(pending, shown, error)


__all__ = ["ShownPage", "fill", "side_by_side", "pdf_corpus", "slot", "start", "strip_slot"]

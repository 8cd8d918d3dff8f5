"""The cited page itself: a PDF page drawn to PNG, the passage, the question's words, the seed entities and a
statement's row marked where PDFium says their characters are, a statement's table read with its column headers,
drawn pages kept on disk, and a damaged file or page named without taking anything down.

Positions are checked against what tests/pdfmaker.py draws: Helvetica 10 runs at known (x, y) in points, whose
advance widths are the font's standard metrics (Helvetica AFM, thousandths of the size)."""

from __future__ import annotations

import json
import math
import os
import signal
import time

import pytest

from engine.errors import PathLensError
from engine.explain import page_image
from engine.explain.page_image import PageCache, PageLayout, png_size, render_page, rendered_page
from engine.explain.page_marks import MARK_COLORS, find_passage, marked_page
from engine.explain.page_table import NO_HEADER, find_row, page_words, read_tables
from engine.ingest.documents import SourceFile
from engine.ingest.isolated import ReadLimits
from tests.conftest import ROOT
from tests.pdfmaker import encrypt, make_pdf

# Helvetica's advance widths (its AFM), in thousandths of the font size, for the characters the runs below use
HELVETICA = {" ": 278, "(": 333, ")": 333, ",": 278, "-": 333, ".": 278, **{d: 556 for d in "0123456789"},
             "B": 667, "C": 722, "R": 722, "/": 278, "P": 667, "N": 722, "%": 889, "D": 722, "I": 278, "L": 556, "S": 667, "T": 611, "Y": 667, "a": 556, "b": 556, "c": 500,
             "d": 556, "e": 556, "f": 278, "g": 556, "h": 556, "i": 222, "k": 500, "l": 222, "m": 833, "n": 556,
             "o": 556, "p": 556, "r": 333, "s": 500, "t": 278, "u": 556, "v": 500, "w": 722, "y": 500}
DESCENT, ASCENT = 2.24, 9.45  # PDFium's loose box for Helvetica 10: from 2.24 pt under the baseline to 9.45 over
SHARED = ROOT.parent / "shared" / "data" / "filings"


def advance(text: str, size: float = 10) -> float:
    return sum(HELVETICA[c] for c in text) * size / 1000


def in_process(calls: list | None = None):
    """A renderer that draws in this process (no worker: fast), counting its calls."""
    def render(source, page, width):
        if calls is not None:
            calls.append((source.name, page, width))
        return render_page(source.data, source.name, page, width)
    return render


def crash_render(source, page, width):  # run by a worker in the isolation tests
    os.kill(os.getpid(), signal.SIGSEGV)


def hang_render(source, page, width):
    time.sleep(60)


LETTER = [(72, 700, "Calder lends to"), (300, 700, "Brightwater Logistics"),
          (72, 660, "Brightwater Logistics is a client of the bank."), (72, 646, "It borrowed in 2021 and 2022.")]


def _page(tmp_path, runs=LETTER, width=1224, rotate=False):
    pdf = make_pdf([runs])
    if rotate:
        pdf = pdf.replace(b"/MediaBox [0 0 612 792]", b"/MediaBox [0 0 612 792] /Rotate 90")
    return rendered_page(SourceFile("letter.pdf", pdf), 1, width, PageCache(tmp_path), render=in_process())


def test_an_entity_is_marked_on_the_characters_pdfmaker_drew(tmp_path):
    page = _page(tmp_path)
    assert (page.width, page.height) == (1224, 1584) == png_size(page.png)  # 612 × 792 points at 2 px a point
    m = marked_page(page, question="Who lends to Brightwater?", entities=["Brightwater Logistics"])
    entities = [x for x in m.marks if x.kind == "entity"]
    assert [x.text for x in entities] == ["Brightwater Logistics", "Brightwater Logistics"]
    first = entities[0]
    right = 300 + advance("Brightwater Logistics")  # 392.25
    assert first.box_pt == pytest.approx((300, 700 - DESCENT, right, 700 + ASCENT), abs=0.05)
    # in pixels, y down: x × 2, (792 − y) × 2, rounded outward
    assert first.box_px == (600, 165, 785, 189)
    assert first.color == MARK_COLORS["entity"]
    # the question's other word is marked, the entity's own words are not marked twice
    words = [x for x in m.marks if x.kind == "word"]
    assert [x.text for x in words] == ["lends"]
    assert words[0].box_pt[0] == pytest.approx(72 + advance("Calder "), abs=0.05)
    assert {k for k, _, _ in m.legend} == {"entity", "word"}
    assert m.height == page.height + 34 and m.png != page.png  # the legend band under the page


def _ink(png: bytes, box: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    """The bounding box of the dark pixels inside `box` widened by 20 px: where PDFium drew the glyphs."""
    import io

    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("L")
    x0, y0, x1, y1 = box
    region = image.crop((x0 - 20, y0 - 20, x1 + 20, y1 + 20)).point(lambda v: 255 if v < 128 else 0)
    bx0, by0, bx1, by1 = region.getbbox()
    return bx0 + x0 - 20, by0 + y0 - 20, bx1 + x0 - 20, by1 + y0 - 20


@pytest.mark.parametrize("rotate", [False, True])
def test_a_mark_covers_the_ink_pdfium_drew_for_its_word(tmp_path, rotate):
    """The page-to-image map is PDFium's own: the glyphs it draws for a word lie inside the word's mark and fill
    most of its length, on an upright page and on one turned by /Rotate 90."""
    page = _page(tmp_path, [(300, 500, "Brightwater")], width=1400, rotate=rotate)
    assert (page.width, page.height) == ((1400, 1082) if rotate else (1400, 1812))
    [mark] = marked_page(page, entities=["Brightwater"]).marks
    x0, y0, x1, y1 = mark.box_px
    ix0, iy0, ix1, iy1 = _ink(page.png, mark.box_px)
    assert x0 - 1 <= ix0 and y0 - 1 <= iy0 and ix1 <= x1 + 1 and iy1 <= y1 + 1
    long_side = (x1 - x0, ix1 - ix0) if not rotate else (y1 - y0, iy1 - iy0)
    assert long_side[1] >= 0.9 * long_side[0]
    if rotate:
        assert y1 - y0 > x1 - x0  # the word runs down the turned page


def test_the_passage_is_outlined_on_its_lines_only(tmp_path):
    page = _page(tmp_path)
    passage = "Brightwater Logistics is a client of the bank.\nIt borrowed in 2021 and 2022."
    assert find_passage(page.layout, passage) is not None
    m = marked_page(page, passage=passage, question="Who borrowed in 2022 from Brightwater?")
    [outline] = [x for x in m.marks if x.kind == "passage"]
    # from the first line's top (660 + ascent) to the second's bottom (646 − descent), from x = 72 to the end of
    # the longer line
    right = 72 + max(advance("Brightwater Logistics is a client of the bank."), advance("It borrowed in 2021 and 2022."))
    assert outline.box_pt == pytest.approx((72, 646 - DESCENT, right, 660 + ASCENT), abs=0.05)
    assert outline.box_px == (144, math.floor((792 - 660 - ASCENT) * 2), math.ceil(right * 2),
                              math.ceil((792 - 646 + DESCENT) * 2))
    # words are marked inside the passage only: the first line's "Brightwater" at x = 300 is not, nor 2021
    words = {(x.text, x.box_pt[0] > 250) for x in m.marks if x.kind == "word"}
    assert words == {("Brightwater", False), ("borrowed", False), ("2022", False)}


def test_a_passage_not_on_the_page_is_said_and_the_rest_still_marked(tmp_path):
    m = marked_page(_page(tmp_path), passage="Halvorsen State Pension Fund is the largest LP.", question="bank")
    assert m.missing == ("the passage's text is not on this page as PDFium reads it",)
    assert [x.text for x in m.marks] == ["bank"]  # then the question's words are looked for on the whole page


# ---------------------------------------------------------------- statement tables


STATEMENT = [(200, 740, "CONSOLIDATED STATEMENTS OF CASH FLOWS"),
             (300, 696, "2021"), (380, 696, "2020"), (460, 696, "2019"),
             (72, 680, "Net income"), (300, 680, "5,100"), (380, 680, "4,200"), (460, 680, "3,900"),
             (72, 666, "Share repurchases"), (300, 666, "(106)"), (380, 666, "(2,000)"), (460, 666, "(3,000)"),
             (72, 652, "Dividends paid"), (300, 652, "(5,815)"), (380, 652, "(5,509)"), (460, 652, "-")]


def test_a_statement_page_reads_each_row_with_its_years(tmp_path):
    reading = read_tables(_page(tmp_path, STATEMENT).layout)
    assert reading.reason == ""
    [table] = reading.tables
    assert table.columns == ("2021", "2020", "2019")  # the title above is no column's label
    assert [r.words() for r in table.rows] == ["Net income: 2021 5,100 · 2020 4,200 · 2019 3,900",
                                               "Share repurchases: 2021 (106) · 2020 (2,000) · 2019 (3,000)",
                                               "Dividends paid: 2021 (5,815) · 2020 (5,509) · 2019 -"]


def _centred(text: str, centre: float, y: float) -> tuple[float, float, str]:
    return centre - advance(text) / 2, y, text


def test_labels_stacked_over_the_years_name_the_columns_they_sit_over(tmp_path):
    """A label centred over two columns names both; one over a single column names it alone."""
    years = [(x, 696, y) for x, y in ((300, "2022"), (360, "2021"), (440, "2022"), (500, "2021"))]
    centres = [x + advance(y) / 2 for x, _, y in years]
    runs = [_centred("Three months", (centres[0] + centres[1]) / 2, 720),
            _centred("Twelve months", (centres[2] + centres[3]) / 2, 720),
            _centred("Dec 31,", centres[0], 708), _centred("Dec 25,", centres[1], 708),
            _centred("Dec 31,", centres[2], 708), _centred("Dec 25,", centres[3], 708), *years,
            (72, 680, "Net revenue"), (300, 680, "14,042"), (360, 680, "20,528"), (440, 680, "63,054"),
            (500, 680, "79,024")]
    [table] = read_tables(_page(tmp_path, runs).layout).tables
    assert table.columns == ("Three months Dec 31, 2022", "Three months Dec 25, 2021", "Twelve months Dec 31, 2022",
                             "Twelve months Dec 25, 2021")
    assert table.rows[0].cells[2] == ("Twelve months Dec 31, 2022", "63,054")


def test_a_label_set_flush_right_over_a_repeated_run_of_years_names_the_whole_run(tmp_path):
    """McDonald's currency table sets "Reported amount" flush right over 2022 2021 2020 and "Currency translation
    benefit/(cost)" over the next 2022 2021 2020: the first label's centre lies midway between the first and the
    fourth year, and the fourth column was read as a reported amount (a walk-through's major)."""
    xs = (285, 339, 394, 448, 509, 568)
    years = [(x, 686, y) for x, y in zip(xs, ("2022", "2021", "2020") * 2)]
    right = xs[2] + advance("2020")
    runs = [(xs[5] + advance("2020") - advance("Currency translation"), 706, "Currency translation"),
            (right - advance("Reported amount"), 698, "Reported amount"),
            (xs[5] + advance("2020") - advance("benefit/(cost)"), 698, "benefit/(cost)"), *years,
            (19, 675, "Revenues"), *[(x, 675, v) for x, v in zip(xs, ("23,183", "23,223", "19,208", "(1,419)", "488",
                                                                        "(75)"))]]
    [table] = read_tables(_page(tmp_path, runs).layout).tables
    assert table.columns == tuple([f"Reported amount {y}" for y in ("2022", "2021", "2020")]
                                  + [f"Currency translation benefit/(cost) {y}" for y in ("2022", "2021", "2020")])
    assert table.rows[0].cells[3] == ("Currency translation benefit/(cost) 2022", "(1,419)")


def test_a_caption_set_across_the_columns_under_the_header_row_does_not_end_the_table(tmp_path):
    """PayPal's statements print "(In millions, except per share data)" and "(Unaudited)" across the columns under
    their years, read as a sentence that ends the table: "No header row of years" (a walk-through's minor)."""
    xs = (314, 393, 471, 550)
    runs = [*[(x, 700, y) for x, y in zip(xs, ("2023", "2022", "2023", "2022"))],
            (386, 688, "(In millions, except per share data)"), (421, 676, "(Unaudited)"),
            (19, 664, "Net revenues"), *[(x, 664, v) for x, v in zip(xs, ("7,287", "6,806", "14,327", "13,289"))]]
    [table] = read_tables(_page(tmp_path, runs).layout).tables
    assert [r.words() for r in table.rows] == ["Net revenues: 2023 7,287 · 2022 6,806 · 2023 14,327 · 2022 13,289"]


def test_a_label_over_one_column_of_a_repeated_run_names_that_column_alone(tmp_path):
    """PayPal's "Percent" over each run's "Increase/(Decrease)" names that column, not its run's years."""
    xs = (300, 360, 420, 500, 560, 620)
    heads = ("2023", "2022", "Change", "2023", "2022", "Change")
    runs = [_centred("Percent", xs[2] + advance("Change") / 2, 712), _centred("Percent", xs[5] + advance("Change") / 2,
                                                                              712),
            *[(x, 700, h) for x, h in zip(xs, heads)],
            (19, 686, "Net revenues"), *[(x, 686, v) for x, v in zip(xs, ("7,287", "6,806", "7 %", "14,327", "13,289",
                                                                          "8 %"))]]
    [table] = read_tables(_page(tmp_path, runs).layout).tables
    assert table.columns == ("2023", "2022", "Percent Change", "2023", "2022", "Percent Change")


def test_a_label_right_over_a_column_that_is_no_year_names_it_alone(tmp_path):
    """Salesforce's "% of Total" over each "Revenues" column: the first sat centred over 2023, Revenues and 2022 and
    named all three ("% of Total 2023 31,352": a walk-through's major)."""
    xs = (260, 308, 370, 418, 482, 533)
    heads = ("2023", "Revenues", "2022", "Revenues", "2021", "Revenues")
    runs = [*[_centred("% of Total", xs[j] + advance("Revenues") / 2, 712) for j in (1, 3, 5)],
            *[(x, 700, h) for x, h in zip(xs, heads)],
            (19, 686, "Total revenues"), *[(x, 686, v) for x, v in zip(xs, ("31,352", "100 %", "26,492", "100 %",
                                                                             "21,252", "100 %"))]]
    [table] = read_tables(_page(tmp_path, runs).layout).tables
    assert table.columns == ("2023", "% of Total Revenues", "2022", "% of Total Revenues", "2021",
                             "% of Total Revenues")


def test_dates_set_close_in_one_header_run_are_a_column_each(tmp_path):
    """Kraft Heinz's statements set "December 31, 2022 December 25, 2021" as one run, no gap wider than a space:
    read as one cell, the page had "no header row of years" (a walk-through's minor). Each year ends a column."""
    first, second = "Dec 31, 2022", "Dec 25, 2021"
    centres = (300 + advance(first) / 2, 300 + advance(f"{first} ") + advance(second) / 2)
    runs = [(300, 700, f"{first} {second}"), (72, 680, "Net sales"), _centred("26,485", centres[0], 680),
            _centred("26,042", centres[1], 680)]
    [table] = read_tables(_page(tmp_path, runs).layout).tables
    assert table.columns == (first, second)
    assert [r.words() for r in table.rows] == ["Net sales: Dec 31, 2022 26,485 · Dec 25, 2021 26,042"]


def test_a_ligature_pdfium_cannot_map_is_read_as_the_passages_read_it():
    """PDFium gives an unmapped ligature glyph as U+FFFE with the glyph's own box: the page's words read it as the
    passages' text does ("e?ective" is "effective"), not as a space (a walk-through: "e ective" in the text tab)."""
    text = "The e\ufffeective rate"
    boxes = tuple((10.0 + 6 * i, 700.0, 10.0 + 6 * i + (0.0 if ch == " " else 5.0), 710.0) for i, ch in enumerate(text))
    layout = PageLayout("r.pdf", 1, text, boxes, (700.0,) * len(text), (612.0, 792.0), (1, 0, 0, -1, 0, 792))
    assert [w.text for w in page_words(layout)] == ["The", "effective", "rate"]


def test_a_row_is_marked_by_its_line_item(tmp_path):
    page = _page(tmp_path, STATEMENT)
    line = find_row(page.layout, "share repurchases")
    assert line is not None and line.text == "Share repurchases (106) (2,000) (3,000)"
    [row] = marked_page(page, row="Share repurchases").marks
    assert row.kind == "row" and row.color == MARK_COLORS["row"]
    assert row.box_pt == pytest.approx((72, 666 - DESCENT, 460 + advance("(3,000)"), 666 + ASCENT), abs=0.05)
    assert marked_page(page, row="Capital expenditures").missing == (
        "no line of this page starts with 'Capital expenditures'",)


def test_a_page_without_a_header_row_says_it_cannot_read_the_columns(tmp_path):
    reading = read_tables(_page(tmp_path).layout)  # a letter naming 2021 and 2022 in a sentence
    assert reading.tables == ()
    assert "no header row of years above rows of values was found" in reading.reason
    assert reading.reason.startswith("letter.pdf page 1")
    blank = rendered_page(SourceFile("blank.pdf", make_pdf([[]])), 1, 300, PageCache(tmp_path), render=in_process())
    assert read_tables(blank.layout).reason == "blank.pdf page 1 has no text to read a table from"
    assert marked_page(blank, question="revenue").marks == ()


def test_a_table_with_more_values_than_named_columns_is_not_read(tmp_path):
    runs = [(300, 696, "2021"), (400, 696, "2020"),
            (72, 680, "Revenue"), (280, 680, "10"), (330, 680, "11"), (400, 680, "12")]
    reading = read_tables(_page(tmp_path, runs).layout)
    assert reading.tables == ()
    assert "its rows hold more values than that row names columns" in reading.reason


def test_a_value_under_no_column_is_said_to_have_none(tmp_path):
    runs = [(300, 696, "2021"), (380, 696, "2020"), (72, 680, "Revenue"), (300, 680, "10"), (380, 680, "12"),
            (540, 680, "9%")]
    [row] = read_tables(_page(tmp_path, runs).layout).rows
    assert row.cells == (("2021", "10"), ("2020", "12"), (NO_HEADER, "9%"))


# ---------------------------------------------------------------- the cache and damaged files


def test_the_cache_serves_the_second_render_without_drawing(tmp_path):
    calls: list = []
    source = SourceFile("letter.pdf", make_pdf([LETTER]))
    cache = PageCache(tmp_path)
    first = rendered_page(source, 1, 800, cache, render=in_process(calls))
    second = rendered_page(source, 1, 800, cache, render=in_process(calls))
    assert len(calls) == 1 and not first.cached and second.cached
    assert second.png == first.png and second.layout == first.layout
    files = sorted(p.name for p in tmp_path.rglob("*") if p.is_file())
    assert len(files) == 2 and files[0].endswith(".json") and files[1].endswith(".png")  # PNG and JSON, no pickle
    rendered_page(source, 1, 900, cache, render=in_process(calls))  # another width is another image
    assert len(calls) == 2
    png = next(tmp_path.rglob("p1-w800-*.png"))
    png.write_bytes(png.read_bytes()[:500])  # a truncated file is drawn again, never trusted
    again = rendered_page(source, 1, 800, cache, render=in_process(calls))
    assert len(calls) == 3 and not again.cached and again.png == first.png


def test_pages_are_drawn_in_a_worker_process_and_kept(tmp_path):
    source = SourceFile("letter.pdf", make_pdf([LETTER, LETTER]))
    page = rendered_page(source, 2, 612, PageCache(tmp_path))
    assert png_size(page.png) == (612, 792) and page.layout.page == 2
    assert PageLayout.from_json(json.loads(json.dumps(page.layout.as_json()))) == page.layout


GOOD = make_pdf([LETTER])


@pytest.mark.parametrize("name, data, page, why", [
    ("truncated.pdf", GOOD[: len(GOOD) // 3], 1, "not a readable PDF"),
    ("garbage.pdf", b"%PDF-1.4\n" + bytes(range(256)) * 8, 1, "not a readable PDF"),
    ("empty.pdf", b"", 1, "not a readable PDF"),
    ("short.pdf", GOOD, 3, "the file has 1 page"),
    ("locked.pdf", encrypt(GOOD), 1, "the file is encrypted"),
], ids=["truncated", "garbage", "empty", "short", "locked"])  # by name: the encrypted bytes differ in each process
def test_a_damaged_file_or_a_missing_page_is_named_with_its_page(tmp_path, name, data, page, why):
    with pytest.raises(PathLensError) as e:
        rendered_page(SourceFile(name, data), page, 600, PageCache(tmp_path))
    assert str(e.value).startswith(f"{name} page {page} could not be rendered (") and why in str(e.value)


@pytest.mark.parametrize("call, limits, why", [
    ("tests.test_page_image:crash_render", ReadLimits(), "the reader crashed (signal 11, SIGSEGV)"),
    ("tests.test_page_image:hang_render", ReadLimits(seconds=1), "stopped after 1 s"),
])
def test_a_renderer_that_crashes_or_hangs_costs_its_worker_only(tmp_path, monkeypatch, call, limits, why):
    monkeypatch.setattr(page_image, "WORKER_CALL", call)
    monkeypatch.setattr(ReadLimits, "from_env", classmethod(lambda cls: limits))
    with pytest.raises(PathLensError) as e:
        rendered_page(SourceFile("PepsiCo_2021_10K.pdf", GOOD), 1, 600, PageCache(tmp_path))
    assert str(e.value).startswith("PepsiCo_2021_10K.pdf page 1 could not be rendered (") and why in str(e.value)


def test_fuzzed_pdfs_end_in_a_page_image_or_a_named_page(tmp_path):
    """Seeded mutations of a small PDF (tests/test_untrusted.py's: bits flipped, cut short, zeroed, duplicated),
    each drawn in a worker: every one ends in a PNG of the asked width or an error naming the file and page."""
    import random

    from tests.test_untrusted import mutate

    rng = random.Random(20261205)
    base = make_pdf([LETTER, STATEMENT])
    outcomes = []
    for case in range(16):
        kind, data = mutate(base, rng)
        name = f"case{case:02d}.pdf"
        try:
            page = rendered_page(SourceFile(name, data), 2, 400, PageCache(tmp_path))
        except PathLensError as e:
            assert str(e).startswith(f"{name} page 2 could not be rendered ("), (kind, str(e))
            outcomes.append("named")
        else:
            assert png_size(page.png)[0] == 400
            outcomes.append("drawn")
    assert len(outcomes) == 16 and "drawn" in outcomes


def test_bad_widths_and_pages_are_refused_before_anything_is_drawn(tmp_path):
    source = SourceFile("letter.pdf", GOOD)
    for width in (0, 50, 10_000, 1400.0, True):
        with pytest.raises(PathLensError, match="the image width must be a whole number of pixels"):
            rendered_page(source, 1, width, PageCache(tmp_path), render=in_process())
    with pytest.raises(PathLensError, match="a page number counts from 1, got 0"):
        rendered_page(source, 0, 600, PageCache(tmp_path), render=in_process())


# ---------------------------------------------------------------- a real filing


@pytest.mark.skipif(not (SHARED / "APPLE_2022_10K.pdf").exists(),
                    reason="the shared filings are not at ../shared/data/filings (the real-filing check needs them)")
def test_a_real_filings_statement_page_is_drawn_marked_and_read(tmp_path):
    from engine.ingest.documents import document_passages, read_document

    source = SourceFile("APPLE_2022_10K.pdf", (SHARED / "APPLE_2022_10K.pdf").read_bytes())
    doc, _ = read_document(source)
    [passage] = [p for p in document_passages(doc) if p.id == "APPLE_2022_10K.pdf#p32.0"]
    started = time.perf_counter()
    page = rendered_page(source, 32, 1400, PageCache(tmp_path))  # a worker process, as the app draws
    seconds = time.perf_counter() - started
    m = marked_page(page, passage=passage.text, question="What were Apple's total net sales in fiscal 2022?",
                    entities=["Apple", "total net sales"], row="Total net sales")
    out = ROOT / "test-output" / "page_image"
    out.mkdir(parents=True, exist_ok=True)
    (out / "APPLE_2022_10K-p32-marked.png").write_bytes(m.png)
    print(f"\nAPPLE_2022_10K.pdf page 32 drawn 1400 px wide in a worker in {seconds:.2f} s")
    assert m.missing == ()
    [row] = [x for x in m.marks if x.kind == "row"]
    assert row.text == "Total net sales 394,328 365,817 274,515"
    entity = next(x for x in m.marks if x.kind == "entity" and x.text == "Total net sales")
    assert entity.box_px[1] == row.box_px[1] and entity.box_px[0] == row.box_px[0]  # the same line, from its start
    outlines = [x for x in m.marks if x.kind == "passage"]
    assert any(o.box_px[1] <= row.box_px[1] and row.box_px[3] <= o.box_px[3] for o in outlines)
    [table] = read_tables(page.layout).tables
    total = next(r for r in table.rows if r.label == "Total net sales")
    assert total.cells == (("Years ended September 24, 2022", "394,328"), ("Years ended September 25, 2021", "365,817"),
                           ("Years ended September 26, 2020", "274,515"))


# ---------------------------------------------------------------- where a corpus's PDFs are, and the command line


def test_a_corpus_pdf_is_found_or_what_is_missing_is_said(tmp_path):
    import zipfile

    from engine.explain.page_evidence import pdf_source

    room = tmp_path / "room"
    (room / "sub").mkdir(parents=True)
    (room / "sub" / "letter.pdf").write_bytes(GOOD)
    (room / "notes.txt").write_text("Calder Bank lends to Brightwater Logistics.")
    assert pdf_source(str(room), "sub/letter.pdf") == SourceFile("sub/letter.pdf", GOOD)
    with zipfile.ZipFile(tmp_path / "room.zip", "w") as z:
        z.writestr("docs/letter.pdf", GOOD)
    assert pdf_source(str(tmp_path / "room.zip"), "docs/letter.pdf").data == GOOD
    for spec, doc, said in [
        (str(room), "APPLE_2022_10K.pdf", "APPLE_2022_10K.pdf is not in " + str(room) + " (its PDFs: sub/letter.pdf)"),
        (str(room), "notes.txt", "notes.txt is not a PDF"),
        (str(room), "../room.zip/../x.pdf", "a document's name cannot leave its corpus's folder"),
        ("dataroom-core", "APPLE_2022_10K.pdf", "the bundled corpus 'dataroom-core' has no APPLE_2022_10K.pdf: it holds "
                                                "no PDF (its documents are Markdown"),
        (str(tmp_path / "nowhere"), "a.pdf", "is neither a bundled corpus nor an existing folder, zip or file"),
    ]:
        with pytest.raises(PathLensError) as e:
            pdf_source(spec, doc)
        assert said in str(e.value)


def test_the_page_command_draws_marks_and_reads_a_page_as_json(tmp_path, capsys):
    """`python -m engine page` over a room of PDFs: the question's best hit on the page is outlined, the row
    marked, the PNG written, and everything said as JSON; the same page again comes from the cache."""
    from engine.cli import main
    from tests.filingmaker import write_pdfs

    room = write_pdfs(tmp_path / "room")
    out = tmp_path / "page.png"
    argv = ["page", "--corpus", str(room), "ACME_2019_10K.pdf", "5", "--width", "1000", "--out", str(out), "--json",
            "--question", "What was Acme's capex in FY2019 according to the cash flow statement?",
            "--row", "Additions to property"]
    assert main(argv) == 0
    said = json.loads(capsys.readouterr().out)
    # among the first two: on these seven-page synthetic filings the learned ranker reads page 5 of 7 as a real
    # filing's notes and may set the income statement above it (tests/test_app.py says the same)
    assert said["hit"]["passage_id"] == "ACME_2019_10K.pdf#p5.0" and said["hit"]["rank"] <= 2
    assert png_size(out.read_bytes()) == (1000, said["height"]) and said["page_height"] < said["height"]
    kinds = {m["kind"] for m in said["marks"]}
    assert {"passage", "row"} <= kinds
    [row] = [m for m in said["marks"] if m["kind"] == "row"]
    assert row["text"].startswith("Additions to property, plant and equipment (1,028)")
    assert said["tables"] == [] and "no header row of years" in said["table_reason"]  # one run per line: no columns
    assert main(argv[:9] + ["--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["cached"] and again["marks"] == [] and again["hit"] is None
    assert main(["page", "--corpus", str(room), "ACME_2019_10K.pdf", "99", "--out", str(out)]) == 2
    assert "ACME_2019_10K.pdf page 99 could not be rendered (the file has 7 pages)" in capsys.readouterr().err


def test_the_questions_words_are_marked_on_the_lines_that_hold_the_most_of_them(tmp_path):
    """A walk-through saw every "net" and "income" of an income statement marked ("Net revenue", "Interest and
    other, net", "Total income"): what made the page rank is the row holding both, so only its words are."""
    runs = [(72, 700, "Net revenue 100"), (72, 680, "Net income 20"), (72, 660, "Interest and other, net 5"),
            (72, 640, "Total income 30")]
    m = marked_page(_page(tmp_path, runs), question="What was net income in 2020?")
    words = [(x.text, round(x.box_pt[1] + DESCENT)) for x in m.marks if x.kind == "word"]
    assert words == [("Net", 680), ("income", 680)], words  # the baseline of "Net income 20"
    # its period's words are the column headers', not the answer's (walk 23: Nike's EPS note marked every "FISCAL
    # YEAR" header and not the "Diluted" row)
    eps = [(72, 700, "FISCAL YEAR ENDED MAY 31, 2023 2022"), (72, 680, "Basic 3.27 3.75"), (72, 660, "Diluted 3.23 3.69")]
    m = marked_page(_page(tmp_path, eps), question="What was Nike's diluted EPS for the fiscal year that included December 2022?")
    words = [(x.text, round(x.box_pt[1] + DESCENT)) for x in m.marks if x.kind == "word"]
    assert words == [("Diluted", 660)], words
    # a question of one word marks it wherever it stands, as before
    one = [x.text for x in marked_page(_page(tmp_path, runs), question="income").marks if x.kind == "word"]
    assert one == ["income", "income"], one

"""The cited page's drawing is kept in Streamlit's resource cache, for an hour, and a failure never is: a page that
timed out under load is drawn again on the next look, for everyone (it stayed "could not be drawn" before)."""

from __future__ import annotations

import pytest

from ui import page_view


def test_a_failed_drawing_is_not_kept_and_a_good_one_is(monkeypatch):
    calls: list[str] = []

    def draw(spec, doc, passage_id, text, question, entities):
        calls.append(passage_id)
        if len(calls) == 1:
            raise TimeoutError("a loaded machine")
        return f"drawn {passage_id}"
    monkeypatch.setattr(page_view, "_draw", draw)
    page_view._future.clear()
    args = ("spec", "A.pdf", "A.pdf#p1.0", "text", "q", ())
    first = page_view._future(*args)
    with pytest.raises(TimeoutError):
        first.result(timeout=10)
    second = page_view._future(*args)  # the failure is not served again: drawn anew
    assert second is not first and second.result(timeout=10) == "drawn A.pdf#p1.0"
    assert page_view._future(*args) is second and calls == ["A.pdf#p1.0", "A.pdf#p1.0"]  # a good one is kept
    page_view._future.clear()


def test_a_walk_that_settles_draws_no_zero_on_its_log_scale():
    """At α 0.99 the walk settles at once: its later steps change nothing, which a log scale cannot draw (the chart was
    flat with no ticks and Vega-Lite warned in the console)."""
    from ui.answer_view import residual_rows

    rows = residual_rows((0.5, 0.005, 0.0, 0.0))
    assert list(rows["iteration"]) == [1, 2] and (rows["L1 change"] > 0).all()
    assert residual_rows((0.0,)).empty


def test_the_text_marks_the_seed_names_everywhere_and_the_questions_words_in_the_passage_only():
    """The text panel marked every "Fiscal", "2022", "net" and "sales" on every row (#63 walk-through): the words of
    the question are marked inside the passage's lines only; the walk's seed names wherever they stand."""
    from types import SimpleNamespace

    from ui.page_view import _text_html

    lines = ("Fiscal 2022 net sales by category", "iPhone 205,489", "Mac 40,177",
             "Fiscal 2022 net sales by region", "Americas 169,658", "Europe 95,118")
    page = SimpleNamespace(lines=lines, row_at=(1, 2, 4, 5), passage_at=(3, 4, 5))
    drawn = _text_html(page, "What were Apple's net sales in the Americas in fiscal 2022?", ("Americas", "iPhone"))
    import re

    first, _, _, region, americas, europe = re.findall(r"<div class='[^']*'>(.*?)</div>", drawn)
    assert "<mark>" not in first.replace("<mark>iPhone</mark>", "")  # above the passage: nothing of the question
    assert "<mark>iPhone</mark>" in drawn  # a seed name is marked where it stands
    assert "<mark>net</mark>" in region and "<mark>2022</mark>" in region and "<mark>Americas</mark>" in americas
    assert "<mark>" not in europe  # a row of the passage that holds none of the question's words
    unknown = SimpleNamespace(lines=lines, row_at=(), passage_at=())
    assert _text_html(unknown, "net sales in fiscal 2022", ()).count("<mark>net</mark>") == 2  # no passage: all


def test_the_questions_words_are_marked_on_the_rows_that_hold_most_of_them_not_on_every_years_header():
    """A walk-through's minor: the text view marked every row's "2021" column header and "Total" in "Total cost of
    sales"; the row that answers holds most of the question's words."""
    from types import SimpleNamespace

    from ui.page_view import _text_html

    lines = ("Revenue: 2021: 11,141 2020: 9,660", "Total revenue 2021: 11,141 2020: 9,660",
             "Total cost of sales 2021: (8,430) 2020: (6,844)", "Operating margin 2021: 2,711 2020: 2,816")
    page = SimpleNamespace(lines=lines, row_at=(0, 1, 2, 3), passage_at=(0, 1, 2, 3))
    import re

    revenue, total, cost, margin = re.findall(r"<div class='[^']*'>(.*?)</div>",
                                              _text_html(page, "What was AES's total revenue in 2021?", ()))
    assert "<mark>Total</mark>" in total and "<mark>revenue</mark>" in total and "<mark>2021:</mark>" in total
    assert "<mark>" not in revenue + cost + margin, (revenue, cost, margin)


def test_the_close_up_cuts_to_the_passage_and_keeps_a_statements_column_headers():
    """The passage close up, across the ink's width; on a page of figures from the page's head down, so the column
    headers stand above the figures they name (#63 walk-through: Costco's capex close-up began under its header)."""
    import io

    from PIL import Image, ImageDraw

    from ui.page_view import CLOSE_PX, MARGIN_PX, _cut_and_thumbnail

    image = Image.new("RGB", (1400, 1800), "white")
    draw = ImageDraw.Draw(image)
    for y in range(200, 1700, 40):  # lines of ink down the page
        draw.rectangle((150, y, 1250, y + 10), fill="black")
    out = io.BytesIO()
    image.save(out, format="PNG")
    passage = (150, 1000, 1250, 1200)
    _, (x0, y0), _, close, (cx, cy) = _cut_and_thumbnail(out.getvalue(), passage)
    assert (x0, y0) == (150 - MARGIN_PX, 200 - MARGIN_PX) and (cx, cy) == (x0, 1000 - CLOSE_PX)
    assert Image.open(io.BytesIO(close)).size == (1100 + 2 * MARGIN_PX + 1, 200 + 2 * CLOSE_PX)
    _, _, _, close, (cx, cy) = _cut_and_thumbnail(out.getvalue(), passage, tabular=True)
    assert cy == y0 and Image.open(io.BytesIO(close)).height == 1200 + CLOSE_PX - y0

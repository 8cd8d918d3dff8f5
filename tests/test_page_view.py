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

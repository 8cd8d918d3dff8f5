"""The Query page's three steps, each run alone in AppTest: the view a link describes (`read_link`), the request
the widgets make (`ask`), and the answer (`run`) with what is drawn of it (`draw`)."""

from __future__ import annotations

import html
import json
import re

from streamlit.testing.v1 import AppTest

from engine.indexing.config import search_config

QUESTION = "Which fund is managed by Juniper Peak Capital?"


def _link(index):
    from ui.query_form import read_link

    read_link(index.corpus)


def _ask(index):
    import streamlit as st

    from ui.query_form import ask, read_link

    read_link(index.corpus)
    request = ask(index)
    st.session_state["asked"] = request
    if request is not None:
        st.write(f"asked {request.name} k={request.k} alpha={request.config.graph.alpha:g}")


def _answer(index, drawn):
    import streamlit as st

    from ui.query_answer import draw, run
    from ui.query_form import ask, read_link

    read_link(index.corpus)
    request = ask(index)
    ran = run(index, request) if request is not None else None
    if ran is not None:
        st.write(f"answered by {ran.answering}: " + ", ".join(h.passage_id for h in ran.answer.hits))
        if drawn:
            draw(index, request, ran)


def _app(script, index, *extra, **params) -> AppTest:
    at = AppTest.from_function(script, args=(index, *extra), default_timeout=120)
    for key, value in params.items():
        at.query_params[key] = value
    return at.run()


def test_a_link_s_view_is_read_into_the_widgets_once_and_its_mistakes_said(core_index):
    at = _app(_link, core_index, q=QUESTION, retriever="bct-regex", alpha="0.3", k="99", weights="x,y")
    state = at.session_state
    assert (state["question"], state["base_retriever"], state["bct"]) == (QUESTION, "ppr-regex", True)
    assert (state["alpha"], state["k"]) == (0.3, 50)  # k clamped to its range
    said = [w.value for w in at.warning]
    assert any("k" in w and "99" in w for w in said) and any("'x,y'" in w for w in said)
    at.session_state["question"] = "changed by the user"
    at.run()
    assert at.session_state["question"] == "changed by the user"  # read once: afterwards the widgets are the user's


def test_the_widgets_make_the_request_and_refuse_an_empty_question(core_index):
    at = _app(_ask, core_index, q=QUESTION, retriever="hybrid-regex", alpha="0.25", k="3")
    assert [m.value for m in at.markdown if m.value.startswith("asked ")] == ["asked hybrid-regex k=3 alpha=0.25"]
    assert at.query_params["retriever"] == "hybrid-regex" and at.query_params["k"] == "3"
    at.text_input(key="question").set_value("   ").run()
    assert at.session_state["asked"] is None
    assert not at.warning and [i.value for i in at.info] == ["Type a question, or pick a labeled example."]


def test_a_stakeholder_meets_the_method_in_plain_words_and_the_walks_settings_folded(core_index):
    """#63 walk F6: the question, a search method in plain words and how many passages show; α, w, BCT and the
    seeding switches sit in one "Advanced settings" fold, and still drive the request from there."""
    from ui.query_form import PLAIN, base_retrievers, method_words

    at = _app(_ask, core_index, q=QUESTION, retriever="hybrid-regex")
    method = at.selectbox(key="base_retriever")
    assert method.label == "Search method" and at.number_input(key="k").label == "Passages to show"
    assert method.format_func("hybrid-regex") == "graph of names + meaning (hybrid-regex)"
    assert set(base_retrievers()) <= set(PLAIN), "every method on the menu has plain words"
    assert method_words("a-new-one") == "a-new-one"
    (advanced,) = [e for e in at.expander if e.label.startswith("Advanced settings")]
    inside = {w.key for kind in ("slider", "toggle", "number_input", "selectbox", "multiselect")
              for w in getattr(advanced, kind)}
    assert {"alpha", "passage_weight", "bct", "vocabulary", "iterations", "tol", "rrf_members"} <= inside
    outside = [w.label for kind in ("slider", "toggle") for w in getattr(at, kind) if w.key not in inside]
    assert outside == [], "no walk setting outside the fold"
    at.slider(key="alpha").set_value(0.4).run()  # still the request's, from inside the fold
    assert "asked hybrid-regex k=5 alpha=0.4" in [m.value for m in at.markdown]


def test_the_answer_is_run_then_drawn_with_its_evidence(core_index):
    at = _app(_answer, core_index, False, q=QUESTION, retriever="ppr-regex")
    (line,) = [m.value for m in at.markdown if m.value.startswith("answered by ")]
    hits = line.split(": ", 1)[1].split(", ")
    assert line.startswith("answered by ppr-regex: ") and len(hits) == 5
    assert not at.subheader  # run alone draws no passage

    taken = _app(_answer, core_index, False, q=QUESTION, retriever="ppr-regex", without_passages=hits[0])
    (again,) = [m.value for m in taken.markdown if m.value.startswith("answered by ")]
    assert hits[0] not in again and again.split(": ", 1)[1].split(", ")[0] == hits[1]  # the what-if's view

    drawn = _app(_answer, core_index, True, q=QUESTION, retriever="ppr-regex")
    assert [s.value for s in drawn.subheader] == ["Evidence graph", "Top 5 passages · ppr-regex"]
    assert drawn.expander and any("What if" in e.label for e in drawn.expander)
    assert any(e.label.startswith("Seeds: what the search starts from (") for e in drawn.expander)
    assert not drawn.exception


def test_a_second_hop_is_shown_with_the_passage_that_named_each_bridge(core_index):
    q = "Who manages the fund whose portfolio includes Solano Foods?"
    core_index.build_stages(["tokens", "bm25", "embeddings", "extraction:regex", "graph:regex"])  # else bm25 stands in
    at = _app(_answer, core_index, True, q=q, retriever="hybrid-regex", hop_share="0.6")
    (shown,) = [c.value for c in at.caption if c.value.startswith("Second hop: ")]
    said = shown.replace("\\", "")  # corpus text is escaped for Markdown: "L\\.P\\." shows as "L.P."
    assert "L\\.P\\." in shown
    assert said.startswith("Second hop: The question names ") and "“Solano Foods”" in said
    assert "; the first walk's #1 (Juniper Peak Growth Fund II, L.P. — Quarterly Letter, Q3 2024" in said
    assert ("each weighted by how often the first walk passed through it; together they carry 60% of its starting "
            "weight. The second hop ") in said
    # what the hop did to the top 5, against the same question at γ 0
    first = [h.passage_id for h in core_index.retriever("hybrid-regex", search_config({}, core_index.corpus)).search(
        q, 5)]
    now = [h.passage_id for h in core_index.retriever("hybrid-regex", search_config(
        {"hop_share": 0.6}, core_index.corpus)).search(q, 5)]
    assert said.endswith("The second hop moved no passage: the top 5 are the first walk's, in its order.") == \
        (first == now)
    seeds = at.dataframe[0].value
    hop = seeds[seeds["rule"] == "second hop"]
    assert len(hop) and hop["from"].str.startswith("#").all() and " of the first walk: " in hop["from"].iloc[0]
    # a switch, with γ under it, read from the link; each hit says the hop once, however many bridges it has
    assert at.toggle(key="hop_on").value is True and at.slider(key="hop_share").value == 0.6
    reasons = [m.value for m in at.markdown if m.value.startswith("Its score: ")]
    assert reasons and all(r.count("the second hop") <= 1 for r in reasons)
    assert any("the second hop, through “" in r for r in reasons)
    at.toggle(key="hop_on").set_value(False).run()  # off: one walk, and nothing said of a hop
    assert not any(c.value.startswith("Second hop: ") for c in at.caption)
    assert all(s.key != "hop_share" for s in at.slider)
    assert not any("second hop" in m.value for m in at.markdown if m.value.startswith("Its score: "))
    assert at.query_params["hop_share"] == "0.0"
    at.toggle(key="hop_on").set_value(True).run()  # on again: γ starts at the catalog's value
    assert at.slider(key="hop_share").value == 0.6
    assert any(c.value.startswith("Second hop: ") for c in at.caption)
    assert not at.exception


def test_a_comparison_question_says_why_its_second_hop_was_left_off(core_index):
    q = "Which fund closed on more commitments, NorthRiver Capital Partners IV or Juniper Peak Growth Fund II?"
    core_index.build_stages(["tokens", "bm25", "embeddings", "extraction:regex", "graph:regex"])
    at = _app(_answer, core_index, True, q=q, retriever="hybrid-regex", hop_share="0.6")
    (shown,) = [c.value for c in at.caption if c.value.startswith("Second hop: ")]
    assert shown.startswith("Second hop: left off, since the question asks which of two names: the passages about")
    assert "second hop" not in set(at.dataframe[0].value["rule"])  # no bridge seeds
    assert not at.exception


def test_an_evidence_path_along_an_about_edge_says_so(core_index):
    q = "How much was Capital Call No. 9 of NorthRiver Capital Partners IV?"
    core_index.build_stages(["tokens", "bm25", "embeddings", "extraction:regex", "graph:regex"])
    at = _app(_answer, core_index, True, q=q, retriever="hybrid-regex", subject_weight="2")
    paths = [c.value.replace("\\", "") for c in at.caption if c.value.startswith("Evidence path: ")]
    # "Quarry Lane Packaging — Refinancing Summary" is the one passage of its title, so it is about "Quarry Lane"
    assert any("→ Quarry Lane → Quarry Lane Packaging — Refinancing Summary · part 1 (about it) (walks" in p
               for p in paths)
    assert not any("(about it)" in p for p in paths if "Quarry Lane Packaging — Refinancing" not in p)
    assert at.number_input(key="subject_weight").value == 2.0  # under Advanced settings, read from the link
    assert not at.exception


# ---------------------------------------------------------------- "See the page": a PDF room's hits and their pages

# a letter on page 1, and on page 2 a statement whose columns pdfmaker places under their years (as
# tests/test_page_image.py's STATEMENT)
LETTER = ["Calder Bank annual report", "The bank lends to Brightwater Logistics.", "It repurchased shares in 2021."]
STATEMENT = [(200, 740, "CONSOLIDATED STATEMENTS OF CASH FLOWS"),
             (300, 696, "2021"), (380, 696, "2020"), (460, 696, "2019"),
             (72, 680, "Net income"), (300, 680, "5,100"), (380, 680, "4,200"), (460, 680, "3,900"),
             (72, 666, "Share repurchases"), (300, 666, "(106)"), (380, 666, "(2,000)"), (460, 666, "(3,000)"),
             (72, 652, "Dividends paid"), (300, 652, "(5,815)"), (380, 652, "(5,509)"), (460, 652, "-")]
PAGED_Q = "How much were share repurchases in 2021?"


def _pdf_room(tmp_path):
    from engine.indexing.index import Index
    from engine.ingest.corpus import load_corpus
    from tests.pdfmaker import make_pdf, text_page

    folder = tmp_path / "room"
    folder.mkdir()
    (folder / "CALDER_2021_10K.pdf").write_bytes(make_pdf([text_page(*LETTER), STATEMENT]))
    return str(folder), Index(load_corpus(str(folder)))


def _answer_uploaded(index, folder):
    """The answer drawn for a room uploaded in this session (where its PDFs are read from)."""
    import streamlit as st

    from tests.test_app_query import _answer

    st.session_state["corpus_selected"] = "your own files"
    st.session_state["uploaded_corpus"] = (folder, "room", "calder room", None)
    _answer(index, True)


def _pages(at) -> dict[str, object]:
    return {e.label: e for e in at.expander if e.label.startswith("See the page: ")}


def _html(element) -> list[str]:
    """The HTML bodies drawn inside an element (an expander), in order."""
    out = []
    for child in getattr(element, "children", {}).values():
        if type(child).__name__ == "Html":
            out.append(child.proto.body)
        out += _html(child)
    return out


def _kinds(element) -> list[str]:
    out = []
    for child in getattr(element, "children", {}).values():
        out.append(type(child).__name__)
        out += _kinds(child)
    return out


def test_a_pdf_rooms_hits_each_show_their_page_with_its_text_and_the_strip_links_them(tmp_path):
    folder, index = _pdf_room(tmp_path)
    at = _app(_answer_uploaded, index, folder, q=PAGED_Q, retriever="bm25")
    assert not at.exception, at.exception
    pages = _pages(at)
    assert set(pages) == {"See the page: CALDER_2021_10K.pdf page 1", "See the page: CALDER_2021_10K.pdf page 2"}
    top = next(e for e in at.expander if e.label.startswith("See the page: "))
    assert top.proto.expanded and not [e for e in pages.values() if e is not top][0].proto.expanded
    statement = pages["See the page: CALDER_2021_10K.pdf page 2"]
    assert "Image" in _kinds(statement)
    shown = " ".join(_html(statement))
    # the page's text beside the image: each row with the year of each value, the passage's lines edged
    assert "<div class='row in-passage'><mark>Share</mark> <mark>repurchases:</mark> <mark>2021</mark> (106) · 2020 " \
           "(2,000) · 2019 (3,000)</div>" in shown, shown
    marks = json.loads(html.unescape(re.search(r"data-marks='([^']*)'", shown).group(1)))
    assert {m["kind"] for m in marks} == {"passage", "word"}
    # the row the question's words stand in is marked, not the year of its column header (#63: every "2022" said
    # nothing)
    assert {m["text"] for m in marks if m["kind"] == "word"} == {"Share", "repurchases"}
    assert "the passage the hit cites" in shown and "where a line holds the most" in shown  # the legend
    captions = [c.value for c in at.caption]
    assert any(c.startswith("The page's text, the passage's lines edged in its colour; its 3 statement rows") for c in
               captions), captions
    # the strip: a thumbnail per page, each a link to its hit's anchor
    (strip,) = [h.proto.body for h in at.get("html") if "data-testid='page-strip'" in h.proto.body]
    assert strip.count("<img src='data:image/png;base64,") == 2 and "href='#hit-1'" in strip and "href='#hit-2'" in strip
    assert sum("<span id='hit-" in h.proto.body for h in at.get("html")) == 2
    at.run()  # a rerun shows the same pages without drawing them again
    assert _pages(at).keys() == pages.keys() and not at.exception


def test_a_page_that_cannot_be_drawn_is_named_and_its_passage_stays(tmp_path, monkeypatch):
    import ui.page_view
    from engine.errors import PathLensError

    def fail(source, passage_id, *args, **kwargs):
        raise PathLensError(f"{source.name} page {passage_id[-3]} could not be rendered (PDFium failed: damaged)")

    monkeypatch.setattr(ui.page_view, "hit_page", fail)
    folder, index = _pdf_room(tmp_path)
    at = _app(_answer_uploaded, index, folder, q=PAGED_Q, retriever="bm25")
    assert not at.exception, at.exception
    statement = _pages(at)["See the page: CALDER_2021_10K.pdf page 2"]
    errors = [c.value for c in statement.children.values() for c in getattr(c, "children", {}).values()
              if type(c).__name__ == "Error"] or [e.value for e in at.error]
    assert any(e.startswith("CALDER_2021_10K.pdf page 2 could not be rendered (PDFium failed: damaged). The passage "
                            "above is what the hit cites.") for e in errors), errors
    assert "Image" not in _kinds(statement)
    passages = [h.proto.body for h in at.get("html") if h.proto.body.startswith("<div class='passage'>")]
    assert any("Share</mark> <mark>repurchases</mark> (106)" in p for p in passages)  # the passage is still shown
    (strip,) = [h.proto.body for h in at.get("html") if "data-testid='page-strip'" in h.proto.body]
    assert "not drawn" in strip


def test_hits_of_a_markdown_corpus_show_no_page(core_index):
    at = _app(_answer, core_index, True, q=QUESTION, retriever="bm25")
    assert not at.exception
    assert not _pages(at) and not any("page-strip" in h.proto.body or "id='hit-" in h.proto.body
                                      for h in at.get("html"))


def test_a_page_of_figures_whose_columns_cannot_be_named_says_so_and_shows_the_image_alone(tmp_path):
    from engine.indexing.index import Index
    from engine.ingest.corpus import load_corpus
    from tests.pdfmaker import make_pdf

    # STATEMENT without its row of years: three rows of figures that no header names
    headless = [run for run in STATEMENT if run[1] != 696]
    folder = tmp_path / "room"
    folder.mkdir()
    (folder / "CALDER_2021_10K.pdf").write_bytes(make_pdf([headless]))
    at = _app(_answer_uploaded, Index(load_corpus(str(folder))), str(folder), q=PAGED_Q, retriever="bm25")
    assert not at.exception, at.exception
    page = _pages(at)["See the page: CALDER_2021_10K.pdf page 1"]
    said = [c.value.replace("\\", "") for c in at.caption if c.value.startswith("No header row of years above")]
    assert said == ["No header row of years above rows of values was found, so the columns cannot be named; read the "
                    "numbers off the page itself. Its text is not shown: its figures would stand there without their "
                    "columns."], [c.value for c in at.caption]
    assert "Image" in _kinds(page) and not any("page-text" in h for h in _html(page))  # the image alone


def test_the_strip_shows_a_page_several_hits_cite_once_with_each_of_their_ranks():
    from ui.page_view import Pending, _strip

    drawn = [(Pending(rank, f"{doc}#p{page}#{rank}", doc, page, None), None)
             for rank, doc, page in [(1, "A.pdf", 3), (2, "B.pdf", 3), (3, "A.pdf", 3), (4, "A.pdf", 9),
                                     (5, "A.pdf", 3)]]
    strip = _strip(drawn)
    assert strip.count("<a href=") == 3
    assert re.findall(r"<a href='(#hit-\d)' title='([^']*)'", strip) == [
        ("#hit-1", "A.pdf page 3: answers 1, 3 and 5"), ("#hit-2", "B.pdf page 3: answer 2"),
        ("#hit-4", "A.pdf page 9: answer 4")]
    # two files: each label names its file (#63 walk-through: "#1 · p.215" in a room of three filings)
    assert "#1 #3 #5 · A p.3</a>" in strip and "#2 · B p.3</a>" in strip
    spaced = _strip([(Pending(r, f"{d}#p1#{r}", d, 1, None), None) for r, d in ((1, "ACME_2022_10K.pdf"), (2, "B.pdf"))])
    assert "#1 · ACME 2022 10K p.1</a>" in spaced  # its words wrap under a thumbnail
    alone = _strip([(Pending(1, "A.pdf#p3#1", "A.pdf", 3, None), None)])
    assert "#1 · p.3</a>" in alone

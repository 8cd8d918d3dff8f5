"""Headless Chromium on builds: uploaded filings that build with progress and cite their pages, two years of Nike's
10-K read with the right scope, a fresh server's first deep link, and a build that never shows the last view."""

from __future__ import annotations

import re
from urllib.parse import urlencode

import pytest

from tests.conftest import ROOT
from tests.test_browser import (SHOTS, _start_app, _stop_app, app_url, browser, choose, choose_method,  # noqa: F401
                                graph_frame, graph_nodes, hits, mark, new_context, no_exception, open_page, overlapping_labels,
                                wait_idle)


FILINGS = ROOT.parent / "shared" / "data" / "filings"



def test_uploaded_filings_build_with_progress_and_answers_cite_their_page(app_url, browser, tmp_path):
    if not FILINGS.is_dir():
        pytest.skip(f"{FILINGS} is absent: the shared filings lie beside the checkout in CI")
    import json

    questions = tmp_path / "queries.jsonl"
    wanted = {"i1", "i2", "i3", "i4", "m1", "m2", "m3", "x3", "x5"}  # the questions about these two filings
    lines = [line for line in (ROOT / "tests" / "data" / "filings.queries.jsonl").read_text().splitlines()
             if json.loads(line)["id"] in wanted]
    questions.write_text("\n".join(lines) + "\n")
    q = "What was Intel's revenue in the fourth quarter of 2022?"
    page = open_page(browser, app_url + "/?" + urlencode({"corpus": "your own files", "q": q}))
    inputs = page.locator('[data-testid="stFileUploaderDropzoneInput"]')
    since = mark(page)
    inputs.nth(1).set_input_files(str(questions))
    wait_idle(page, since)  # the questions' run is over before the documents go in, as a person's two uploads are
    broken = tmp_path / "BROKEN_SCAN.pdf"
    broken.write_bytes(b"%PDF-1.4\n" + bytes(range(256)) * 8)  # not a readable PDF: left out, the rest builds
    inputs.nth(0).set_input_files([str(FILINGS / "INTEL_2022Q4_EARNINGS.pdf"),
                                   str(FILINGS / "MCDONALDS_2023Q1_EARNINGS.pdf"), str(broken)])
    # the build's box: its stages while it runs, or at once "ready" when earlier builds of the suite kept these
    # filings' passages (engine/store/parts.py)
    try:  # reading the PDFs comes first, in worker processes: beside a busy suite that can take a minute
        page.wait_for_selector(r"text=/Building the index|Index of 3 uploaded files \(1 left out: see the sidebar\) ready/",
                               timeout=240_000)
    except Exception as e:  # Playwright's TimeoutError: say what the page showed instead
        raise AssertionError(f"{e}\n{page.locator('[data-testid=stMain]').inner_text()[:1500]}") from None
    page.wait_for_selector('[data-testid="stMain"] >> text=score', timeout=240_000)
    wait_idle(page)
    no_exception(page)
    main = page.locator("[data-testid=stMain]").inner_text()
    assert "Index of 3 uploaded files (1 left out: see the sidebar) ready" in main  # the broken scan is counted apart
    if "Answered by filing-graph" in main:  # filing-graph stood in while the encoder ran: one click asks the default
        again = page.get_by_role("button", name="Ask again with filing-learned")
        again.wait_for(timeout=240_000)
        again.click()
        page.get_by_text("Top 5 pages · filing-learned", exact=True).wait_for(timeout=240_000)
        wait_idle(page)
        main = page.locator("[data-testid=stMain]").inner_text()
    # cited by the filing's identity (the release's cover names no registrant: the reader alone said "INTEL 2022 Q4")
    cites = re.findall(r"From Intel Q4 FY2022 earnings release, page (\d+) of INTEL_2022Q4_EARNINGS\.pdf", main)
    assert "1" in cites, main[:2000]  # the release's first page states the quarter's revenue
    page.screenshot(path=str(SHOTS / "filings-query.png"), full_page=True)
    # the labeled questions evaluate on the Compare page, by page
    page.get_by_role("link", name=re.compile("Compare")).first.click()
    page.wait_for_selector("[data-testid=stMain] h1 >> text=Compare retrievers", timeout=60_000)
    wait_idle(page, timeout=300)
    page.screenshot(path=str(SHOTS / "filings-compare.png"), full_page=True)
    no_exception(page)
    text = page.locator("[data-testid=stMain]").inner_text()
    assert "9 labeled queries; 9 name their gold by page" in text, text[:1500]
    page.get_by_role("button", name="Evaluate all labeled queries").click()
    page.wait_for_selector("[data-testid=stMain] >> text=Paired bootstrap 95% CI", timeout=300_000)
    wait_idle(page, timeout=300)
    no_exception(page)
    page.screenshot(path=str(SHOTS / "filings-compare.png"), full_page=True)
    said = page.get_by_text(re.compile(r"^Over the 9 labeled questions, .+; recall@5 \d\.\d{3}"))  # the table in words
    said.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "filings-compare-in-words.png"))
    # the Corpus page lists the running lines it dropped, per document, with the pages they were on
    page.get_by_role("link", name=re.compile("Corpus")).first.click()
    page.wait_for_selector("[data-testid=stMain] h1 >> text=Corpus & graph", timeout=60_000)
    wait_idle(page, timeout=300)
    page.get_by_role("tab", name="Documents").click()
    section = page.get_by_text("Running headers, footers and page numbers dropped")
    section.wait_for(timeout=30_000)
    tables = page.locator('[data-testid="stTabs"] [data-testid="stDataFrame"]')
    assert tables.count() >= 2  # the documents, what was dropped from the documents; the file left out in words
    assert page.get_by_text("Left out", exact=True).count() == 1
    page.screenshot(path=str(SHOTS / "filings-corpus.png"), full_page=True)
    no_exception(page)
    page.context.close()


DEV_FILINGS = ROOT.parent / "shared" / "data" / "financebench_dev"



def test_dev_filings_show_the_scope_the_typed_path_and_the_cited_page(app_url, browser):
    """Two years of Nike's 10-K from the filings dev set: the question names the year, so the answer must come
    from that year's filing, and the page says how it read the question."""
    if not DEV_FILINGS.is_dir():
        pytest.skip(f"{DEV_FILINGS} is absent: the shared filings lie beside the checkout in CI")
    q = "What was Nike's capex in FY2018? Use the cash flow statement and answer in USD millions."
    # the filing graph alone: the scope, where the page sits and the cited page are its; it needs no dense encoding of
    # two 10-Ks (the default `filing` retriever's passage seeds are the uploaded-filings test's)
    page = open_page(browser, app_url + "/?" + urlencode({"corpus": "your own files", "q": q,
                                                          "retriever": "filing-graph"}))
    inputs = page.locator('[data-testid="stFileUploaderDropzoneInput"]')
    inputs.nth(0).set_input_files([str(DEV_FILINGS / "NIKE_2018_10K.pdf"), str(DEV_FILINGS / "NIKE_2019_10K.pdf")])
    # reading two 10-Ks of ~100 pages takes seconds: the page says how many files are read, and nothing stale
    # (a busy suite may read them within the moment waited, so the progress is not required to show)
    reading = page.get_by_text(re.compile(r"^reading the documents: [012] of 2 files read · "))
    if reading.count():
        page.screenshot(path=str(SHOTS / "dev-filings-reading.png"))
        assert page.get_by_text("Upload documents in the sidebar").count() == 0
    page.wait_for_selector('[data-testid="stMain"] >> text=Where this page sits', timeout=300_000)
    wait_idle(page, timeout=120)
    no_exception(page)
    main = page.locator("[data-testid=stMain]").inner_text()
    assert "Scope as understood: Nike · FY2018 · Statement of cash flows → Nike FY2018 10-K" in main, main[:1500]
    assert re.search(r"Where this page sits: Nike › Nike FY2018 10-K › .*Statement of cash flows › “Additions to "
                     r"property, plant and equipment” › page 49", main), main[:3000]
    cites = re.findall(r"From Nike FY2018 10-K, page (\d+)( \(printed \d+\))? of NIKE_2018_10K\.pdf", main)
    # the statement of cash flows, cited first, with the number its footer prints
    assert cites and cites[0] == ("49", " (printed 47)"), main[:3000]
    # the evidence graph's pages lead with what tells them apart: document, year, form and page
    labels = graph_nodes(page)
    assert any(re.fullmatch(r"(★ )?#1 Nike FY2018 10-K[ \n]p\.49(, part \d+)?", label) for label in labels), [
        label for label in labels if "#" in label]
    # a line item's long name on two lines, whole, and no label over another
    assert "Additions to property,\nplant and equipment" in labels, labels
    assert overlapping_labels(graph_frame(page)) == []
    page.locator("[data-testid=stMain] iframe").first.screenshot(path=str(SHOTS / "dev-filings-graph.png"))
    page.screenshot(path=str(SHOTS / "dev-filings-query.png"), full_page=True)
    page.context.close()



def test_a_fresh_server_whose_first_request_is_a_deep_link_shows_the_whole_page(browser):
    """Streamlit runs the first request of a fresh server in its pages-folder mode, without app.py:
    the page must still draw its own sidebar, and the app must navigate normally afterwards."""
    proc, url = _start_app("streamlit-fresh.log")
    try:
        page = new_context(browser).new_page()
        errors, bad = [], []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("response", lambda r: bad.append(r.url) if r.status >= 400 else None)
        page.on("requestfailed", lambda r: bad.append(r.url))
        page.goto(url + "/compare")
        page.wait_for_selector("[data-testid=stMain] h1", timeout=120_000)
        wait_idle(page)
        assert page.locator("[data-testid=stMain] h1").first.inner_text().strip() == "Compare retrievers"
        sidebar = page.locator("[data-testid=stSidebar]")
        assert sidebar.get_by_text("PathLens", exact=True).count() == 1
        assert sidebar.get_by_text("Glossary: what the words mean").count() == 1
        # the menu names the pages, as it does once app.py has run, not their scripts' file names
        menu = [t.strip() for t in sidebar.get_by_role("link").all_inner_texts()]
        assert [m.split("\n")[-1].strip() for m in menu] == ["Query", "Corpus & graph", "Compare", "Scale sweep",
                                                              "Benchmarks", "Precedents"], menu
        page.screenshot(path=str(SHOTS / "fresh-deep-link.png"))
        no_exception(page)
        sidebar.get_by_role("link", name="Scale sweep").click()  # the menu works in this mode too
        page.wait_for_function("() => document.querySelector('[data-testid=stMain] h1')?.innerText === 'Scale sweep'",
                               timeout=120_000)
        wait_idle(page)  # leaving mid-run would cut off the favicon the run just served (a 404 of our own making)
        page.goto(url + "/")
        page.wait_for_selector("[data-testid=stMain] h1", timeout=120_000)
        wait_idle(page)
        assert page.locator("[data-testid=stMain] h1").first.inner_text().strip() == "Query"
        assert len(hits(page)) == 5
        # Streamlit's frontend, opened under /compare, first probes /compare/_stcore/… for a base path and
        # falls back to /_stcore/…: those two 404s are its own; anything else (a favicon or font from a
        # CDN, as a Material page icon fetched before) fails the test
        assert all(re.fullmatch(re.escape(url) + r"/compare/_stcore/(health|host-config)", u) for u in bad), bad
        assert len(errors) == len(bad)
        page.context.close()
    finally:
        _stop_app(proc)



def test_a_retriever_still_building_is_stood_in_for_and_never_shows_the_last_view(browser, tmp_path):
    """Switching to a retriever whose index parts are not built yet: the page answers at once with one that is
    ready and says so, never with the previous view's results under it; once built, one click asks again. (The
    29-passage core is built whole before its first answer, so its demo never opens on a stand-in: this server waits
    for no build, as it does for a room too large to wait for.)"""
    proc, url = _start_app("streamlit-stale.log", cache_dir=str(tmp_path / "cache"),  # nothing built yet
                           env={"PATHLENS_BUILD_WAIT_S": "0"})
    try:
        page = open_page(browser, url + "/?" + urlencode({"corpus": "dataroom-core", "retriever": "ppr-regex"}))
        first = page.get_by_role("button", name="Ask again with ppr-regex")  # its own stand-in, while it builds
        first.or_(page.get_by_text("Top 5 passages · ppr-regex")).first.wait_for(timeout=120_000)
        if first.count():
            since = mark(page)
            first.click()
            wait_idle(page, since)
        page.get_by_text("Top 5 passages · ppr-regex").wait_for(timeout=120_000)
        wait_idle(page)
        choose_method(page, "ppr-ner")  # spaCy NER over the corpus: a build of a few seconds
        said = page.get_by_text(re.compile(r"^Answered by ppr-regex(, still computing| while computing) entity "
                                           r"extraction \(spaCy NER\)"))
        said.wait_for(timeout=120_000)
        again = page.get_by_role("button", name="Ask again with ppr-ner")
        again.wait_for(timeout=120_000)
        since = mark(page)
        again.click()
        wait_idle(page, since)
        page.get_by_text("Top 5 passages · ppr-ner").wait_for(timeout=120_000)
        assert len(hits(page)) == 5 and page.get_by_text("Top 5 passages · ppr-regex").count() == 0
        assert page.get_by_text(re.compile("^Answered by ")).count() == 0
        no_exception(page)
        page.context.close()
    finally:
        _stop_app(proc)


def test_uploaded_filings_are_answered_at_once_and_by_the_full_retriever_once_built(browser, tmp_path):
    """An analyst's first minutes: upload filings to a fresh server, ask at once, read who answered while the room encodes,
    wait, ask again, and see the filings retriever's answer."""
    if not FILINGS.is_dir():
        pytest.skip(f"{FILINGS} is absent: the shared filings lie beside the checkout in CI")
    files = [str(FILINGS / "INTEL_2022Q4_EARNINGS.pdf"), str(FILINGS / "MCDONALDS_2023Q1_EARNINGS.pdf")]
    proc, url = _start_app("streamlit-staged.log", cache_dir=str(tmp_path / "cache"))  # nothing encoded yet
    try:
        page = open_page(browser, url + "/?" + urlencode({"corpus": "your own files"}))
        since = mark(page)
        page.locator('[data-testid="stFileUploaderDropzoneInput"]').nth(0).set_input_files(files)
        wait_idle(page, since, timeout=300)
        page.wait_for_selector("text=Questions to start with", timeout=300_000)  # read: the room can be asked
        box = page.get_by_label("Question", exact=True)
        box.fill("What was Intel's revenue in Q4 2022?")
        since = mark(page)
        box.press("Enter")
        wait_idle(page, since, timeout=300)
        said = page.get_by_text(re.compile(r"^Answered by (filing-graph, still computing dense embeddings "
                                           r"\(all-MiniLM-L6-v2\)|filing-graph while computing dense embeddings "
                                           r"\(all-MiniLM-L6-v2\)|filing-learned from Intel)"))
        said.wait_for(timeout=300_000)
        first = said.inner_text()
        page.screenshot(path=str(SHOTS / "staged-first-answer.png"), full_page=True)
        assert hits(page), "no answer under the sentence"
        if first.startswith("Answered by filing-graph"):  # the usual case: the stand-in, then one click
            assert page.get_by_text("Top 5 pages · filing-graph").count() == 1
            again = page.get_by_role("button", name="Ask again with filing-learned")
            again.wait_for(timeout=300_000)
            since = mark(page)
            again.click()
            wait_idle(page, since, timeout=300)
        page.get_by_text("Top 5 pages · filing-learned", exact=True).wait_for(timeout=300_000)
        assert hits(page)[0].startswith("1. Intel Q4 FY2022 earnings release p."), hits(page)
        assert page.get_by_text(re.compile("^Answered by filing-graph")).count() == 0
        page.screenshot(path=str(SHOTS / "staged-full-answer.png"), full_page=True)
        no_exception(page)
        page.context.close()
    finally:
        _stop_app(proc)


def test_an_uploaded_rooms_report_link_asks_a_fresh_session_for_its_files_and_the_view_comes_back(app_url, browser,
                                                                                                 tmp_path):
    """Your own filings, end to end: upload two filings, ask a question the room offers, download the report, open its link
    in a fresh session (no uploads there): it names the files to add and answers nothing from another corpus;
    add them, and the same view comes back."""
    if not FILINGS.is_dir():
        pytest.skip(f"{FILINGS} is absent: the shared filings lie beside the checkout in CI")
    import html

    from engine.evaluate.perf.click_to_idle import choose

    files = [str(FILINGS / "INTEL_2022Q4_EARNINGS.pdf"), str(FILINGS / "MCDONALDS_2023Q1_EARNINGS.pdf")]

    def upload(page) -> None:
        since = mark(page)
        page.locator('[data-testid="stFileUploaderDropzoneInput"]').nth(0).set_input_files(files)
        wait_idle(page, since, timeout=300)
        try:
            page.wait_for_selector('[data-testid="stMain"] >> text=score', timeout=300_000)
        except Exception as e:  # Playwright's TimeoutError: say what the page showed instead
            raise AssertionError(f"{e}\n{page.locator('[data-testid=stMain]').inner_text()[:1500]}") from None
        wait_idle(page, timeout=300)

    page = open_page(browser, app_url + "/?" + urlencode({"corpus": "your own files"}))
    since = mark(page)
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').nth(0).set_input_files(files)
    wait_idle(page, since, timeout=300)
    page.wait_for_selector("text=Questions to start with", timeout=300_000)
    wait_idle(page, timeout=300)
    offered = "suggested · What was McDonald's revenue in Q1 FY2023?"
    since = mark(page)
    choose(page, "Questions to start with", offered)
    wait_idle(page, since, timeout=300)
    page.wait_for_selector('[data-testid="stMain"] >> text=score', timeout=300_000)
    wait_idle(page, timeout=300)
    no_exception(page)
    question = page.get_by_label("Question", exact=True).input_value()
    assert question == "What was McDonald's revenue in Q1 FY2023?"
    first = hits(page)[:3]
    assert first and first[0].startswith("1. McDonald's Q1 FY2023 earnings release p."), first
    # the one release holds fewer pages than k: said as a sentence
    assert page.get_by_text(re.compile(r"The scope(?:d filing has| holds) \d pages(?: the walk reaches)?, fewer than "
                                       r"the 5 asked for: widen the scope to rank pages of other filings\.$")).count() == 1
    page.screenshot(path=str(SHOTS / "upload-offered-question.png"), full_page=True)
    with page.expect_download(timeout=120_000) as info:
        page.get_by_role("button", name="Download the evidence report (HTML)").click()
    report = tmp_path / "report.html"
    info.value.save_as(str(report))
    text = report.read_text("utf-8")
    assert "INTEL_2022Q4_EARNINGS.pdf" in text and "MCDONALDS_2023Q1_EARNINGS.pdf" in text
    link = html.unescape(re.search(r"append <code>(/\?[^<]+)</code>", text).group(1))
    assert "corpus=your+own+files" in link and "files=" in link
    page.context.close()
    # a fresh session: the link names the files and answers nothing
    fresh = open_page(browser, app_url + link)
    no_exception(fresh)
    main = fresh.locator("[data-testid=stMain]").inner_text()
    assert "This link shows a view of uploaded files" in main, main[:1500]
    assert "INTEL_2022Q4_EARNINGS.pdf (" in main and "MCDONALDS_2023Q1_EARNINGS.pdf (" in main, main[:1500]
    assert not hits(fresh) and "Unknown corpus" not in main
    fresh.screenshot(path=str(SHOTS / "upload-link-asks-for-files.png"), full_page=True)
    # the files are added: the same view
    upload(fresh)
    no_exception(fresh)
    assert fresh.get_by_label("Question", exact=True).input_value() == question
    assert hits(fresh)[:3] == first
    fresh.screenshot(path=str(SHOTS / "upload-link-view-back.png"), full_page=True)



def test_an_upload_on_the_corpus_page_becomes_the_corpus_without_a_session_state_warning(app_url, browser, tmp_path):
    """The Corpus page's uploader makes its files the corpus every page shows; the sidebar's picker follows, and
    the server's log holds no warning that the picker had a default and a session-state value (both say the same)."""
    doc = tmp_path / "memo.md"
    doc.write_text("# Memo\nHollis Vane chairs the Orrin Trust, which owns Calder Mills.\n")
    page = open_page(browser, app_url + "/corpus")
    since = mark(page)
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').first.set_input_files(str(doc))
    wait_idle(page, since, timeout=300)
    page.wait_for_selector("text=/memo/", timeout=120_000)
    wait_idle(page, timeout=300)
    no_exception(page)
    assert "corpus=your+own+files" in page.url
    sidebar = page.locator('[data-testid="stSidebar"]').inner_text()
    assert "Using the files uploaded earlier in this session (memo)" in sidebar and "Files: memo.md" in sidebar, sidebar
    # one uploader of documents, the sidebar's: the page's own made way for it
    main = page.locator('[data-testid="stMain"]')
    assert main.locator('[data-testid="stFileUploader"]').count() == 0
    assert main.get_by_text("add or replace them in the sidebar").count() == 1
    log = (ROOT / "test-output" / "streamlit.log").read_text("utf-8", errors="replace")
    assert "Session State API" not in log, log[-2000:]
    # the sidebar's uploader is empty on this page though the room is in use: a file added there joins the room,
    # never replaces it without a word (#63 walk: "one more filing" had left the room only that filing)
    more = tmp_path / "note.md"
    more.write_text("# Note\nCalder Mills leases a plant in Ohio.\n")
    since = mark(page)
    page.locator('[data-testid="stSidebar"] [data-testid="stFileUploaderDropzoneInput"]').first.set_input_files(
        str(more))
    wait_idle(page, since, timeout=300)
    page.locator('[data-testid="stSidebar"]').get_by_text(re.compile(r"^Files: memo\.md .*; note\.md ")).wait_for(
        timeout=120_000)
    no_exception(page)

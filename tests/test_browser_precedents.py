"""Headless Chromium on the Precedents page: it opens on the example question with #1's deal graph drawn; a click on
another deal draws that deal's graph, its add-ons in it and no label over another; a link reproduces a view with a
deal beside #1; an uploaded list names its bad rows; the report opens offline. Every step fails on a console error
(`no_exception`); screenshots land in test-output/screenshots/."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlencode, urlparse

import pytest

from tests.conftest import ROOT
from tests.test_browser import (SHOTS, _start_app, _stop_app, browser, graph_frame, mark, no_exception,  # noqa: F401
                                open_page, overlapping_labels, wait_idle)
from tests.test_app_precedents import BAD_ROWS, EXAMPLE

LABELS_JS = "() => network.body.data.nodes.get().map(n => n.label)"


def shown(frame, names: list[str]) -> bool:
    """Every name is a node of the drawn graph (a deal the ranking shows is labelled with its rank first)."""
    plain = [re.sub(r"^#\d+ ", "", label) for label in frame.evaluate(LABELS_JS)]
    return all(any(label.startswith(name) for label in plain) for name in names)


@pytest.fixture(scope="module")
def index():
    from engine.deals.index import bundled_index
    from engine.store.cache import DiskCache

    return bundled_index(DiskCache(ROOT / ".pathlens-cache"))


@pytest.fixture(scope="module")
def app_url(index):
    """A server over the checkout's cache, where `index` has the universe's vectors (as tests/test_deals_ranking.py
    reads them): over the test run's fresh cache it would encode the 3,650 descriptions again, about 2 minutes. The
    Precedents page builds no corpus index, so nothing else is written there."""
    proc, url = _start_app("streamlit-precedents.log", str(ROOT / ".pathlens-cache"))
    yield url
    _stop_app(proc)


def family(index, deal_id: str) -> list[str]:
    """The names the deal's graph must show besides its own: its add-ons, or its platform."""
    u = index.universe
    row = u.rows[deal_id]
    rows = u.add_ons[row] if u.deals[row].role == "platform" else (u.platform_of(row),)
    return [u.deals[r].name for r in rows]


def test_clicking_a_deal_draws_its_graph_with_its_add_ons(app_url, browser, index):
    from engine.deals.rankers import find_precedents

    p = find_precedents(EXAMPLE, index)
    page = open_page(browser, app_url + "/precedents")
    assert page.locator("[data-testid=stMain] h1").first.inner_text().strip() == "Precedents"
    page.get_by_text(re.compile(r"^Understood as: healthcare · US · aggressive add-on strategy")).wait_for()
    no_exception(page)
    page.screenshot(path=str(SHOTS / "precedents-opens.png"))
    frame = graph_frame(page)  # #1's, open from the start
    labels = frame.evaluate(LABELS_JS)
    assert any(label.startswith(f"#1 {p.deals[0].deal.name}") for label in labels), labels
    assert shown(frame, family(index, p.deals[0].deal.id)), labels
    assert overlapping_labels(frame) == []
    page.screenshot(path=str(SHOTS / "precedents-first-deal-graph.png"))
    # #2's button (#1, drawn, has none): its graph replaces #1's, in #2's box
    second = p.deals[1].deal
    since = mark(page)
    page.get_by_role("button", name="Show its deal graph").first.click()
    wait_idle(page, since)
    no_exception(page)
    assert page.locator("[data-testid=stMain] iframe").count() == 1
    frame = graph_frame(page)
    labels = frame.evaluate(LABELS_JS)
    assert any(label.startswith(f"#2 {second.name}") for label in labels), labels
    assert family(index, second.id) and shown(frame, family(index, second.id)), labels
    assert overlapping_labels(frame) == []
    scale = frame.evaluate("network.getScale()")
    assert scale >= 0.6, scale  # drawn large enough to read
    # the legend's last line inside its frame (a walk-through saw it clipped)
    bottom, inner = frame.evaluate("() => [document.getElementById('pathlens-legend').getBoundingClientRect().bottom,"
                                   " window.innerHeight]")
    assert bottom <= inner, (bottom, inner)
    assert parse_qs(urlparse(page.url).query)["deal"] == [second.id]
    page.get_by_text(f"2. {second.name}", exact=False).first.scroll_into_view_if_needed()
    page.evaluate("() => document.querySelector('[data-testid=stMain]').scrollBy(0, -20)")
    page.screenshot(path=str(SHOTS / "precedents-deal-graph.png"))
    page.locator("[data-testid=stMain] iframe").first.screenshot(path=str(SHOTS / "precedents-deal-graph-frame.png"))
    page.context.close()


def test_a_link_with_a_deal_beside_1_an_upload_with_bad_rows_and_the_report_offline(app_url, browser, index,
                                                                                      tmp_path):
    u = index.universe
    other = next(d for d in u.deals if d.sector == "healthcare" and d.region == "US" and d.role == "platform"
                 and u.add_on_count(u.rows[d.id]) == 0)
    params = {"q": EXAMPLE, "ranker": "hand", "k": "5", "sector": "healthcare", "c_from": "2010", "why": other.id}
    page = open_page(browser, app_url + "/precedents?" + urlencode(params))
    page.get_by_text(re.compile(rf"^{re.escape(other.name)} ranks #\d+ of \d+ candidates")).wait_for()
    wait_idle(page)
    no_exception(page)
    kept = {k: v[0] for k, v in parse_qs(urlparse(page.url).query).items()}
    assert {k: kept.get(k) for k in params} == params, kept
    assert page.get_by_role("radio", name="hand weights (DealGraph's)").is_checked()
    why = page.get_by_text("Why not this one?")
    why.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "precedents-why-not.png"))
    # the report: one file that opens with every network request refused, its graph drawn
    with page.expect_download(timeout=120_000) as info:
        page.get_by_role("button", name="Download the evidence report (HTML)").click()
    report = tmp_path / "report.html"
    info.value.save_as(str(report))
    assert info.value.suggested_filename.startswith("precedents-report-find-precedents-for-a-us-healthcare")
    page.context.close()
    context = browser.new_context(viewport={"width": 1300, "height": 1000})
    asked, errors = [], []

    def block(route):
        asked.append(route.request.url)
        return route.continue_() if route.request.url.startswith(("file:", "about:", "data:")) else route.abort()

    context.route("**/*", block)
    opened = context.new_page()
    opened.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    opened.goto(report.as_uri())
    frame = graph_frame(opened, "iframe")
    assert frame.evaluate("network.body.data.nodes.length") >= 3
    assert [r for r in asked if not r.startswith(("file:", "about:", "data:"))] == [] and errors == []
    assert opened.get_by_text(f"Why not this one: {other.name}").count() == 1
    opened.screenshot(path=str(SHOTS / "precedents-report.png"))
    opened.locator("iframe").scroll_into_view_if_needed()
    opened.screenshot(path=str(SHOTS / "precedents-report-graph.png"))
    context.close()
    # the user's own list: the bad rows named by line and field, the good ones searched
    page = open_page(browser, app_url + "/precedents?deals=upload")
    upload = tmp_path / "deals.csv"
    upload.write_text(BAD_ROWS, "utf-8")
    since = mark(page)
    page.locator("[data-testid=stFileUploaderDropzoneInput]").set_input_files(str(upload))
    page.get_by_text(re.compile(r"^deals\.csv: 3 of 5 rows loaded")).wait_for(timeout=60_000)
    wait_idle(page, since)
    no_exception(page)
    text = page.locator("[data-testid=stMain]").inner_text()
    assert "deals.csv line 4, field 'year': 'twenty' is not a year" in text
    assert "deals.csv line 6, field 'sector': 'nowhere' is not a sector the lexicon knows" in text
    assert "<script>alert(1)</script>" in text  # shown as text, never run
    page.screenshot(path=str(SHOTS / "precedents-upload.png"), full_page=True)
    page.context.close()

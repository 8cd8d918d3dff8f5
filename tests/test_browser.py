"""End-to-end tests in headless Chromium (Debian's /usr/bin/chromium) driven by Playwright.

The app is started on a free local port for the session and stopped afterwards. Screenshots
of each page land in test-output/screenshots/.
"""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path
from urllib.parse import urlencode

import pytest

from engine.evaluate.perf.click_to_idle import (CHROMIUM, CHROMIUM_ARGS, choose, choose_method, open_advanced,
                                              seconds_to_idle, start_app, stop_app, wait_for_first_answer)
from tests.conftest import ROOT

SHOTS = ROOT / "test-output" / "screenshots"
MULTI_HOP = "Who manages the fund whose portfolio company signed a lease at the Joliet facility of Brightwater Logistics?"


def _start_app(log_name: str = "streamlit.log", cache_dir: str | None = None, env: dict[str, str] | None = None):
    if cache_dir:
        _with_encoder(Path(cache_dir))
    try:
        return start_app(ROOT / "test-output" / log_name, cache_dir, env=env)
    except RuntimeError as e:
        pytest.fail(str(e))


_stop_app = stop_app


def _with_encoder(cache_dir: Path) -> None:
    """A fresh cache with the encoder's ONNX graph already exported, as `make run` leaves one before the app
    starts: what a fresh server is tested on is its rooms' builds, not the one-off export (about 18 CPU-s)."""
    from engine.store import dense

    if not dense.onnx_path().exists():
        dense.export_onnx(dense.onnx_path())
    target = dense.onnx_path(cache_dir)
    target.parent.mkdir(parents=True, exist_ok=True)
    if not target.exists():
        shutil.copyfile(dense.onnx_path(), target)


@pytest.fixture(scope="module")
def app_url():
    proc, url = _start_app()
    yield url
    _stop_app(proc)


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


PROBE = re.compile(r".*/[a-z]+/_stcore/(health|host-config)")  # Streamlit's base-path probe under a page's URL
CONSOLE: dict = {}  # page → (console errors, failed or ≥ 400 responses)


def open_page(browser, url, wait_for="[data-testid=stMain] h1"):
    page = start_page(browser, url)
    page.wait_for_selector(wait_for, timeout=120_000)
    wait_idle(page)
    return page


# Streamlit's frontend marks its root with the script's state ("initial", "running", "notRunning"): the hook its own
# browser tests wait on. Each page counts the runs that finished, and notes when its content last changed (its
# widgets keep drawing for a moment after a run ends: a multiselect's chips came 0.3 s later); style and class
# changes are not content, and a frame resizing itself would keep a page from ever looking settled.
RUNS_JS = """new MutationObserver(changes => {
  window.__changed = performance.now();
  for (const c of changes)
    if (c.attributeName === 'data-test-script-state' && c.oldValue !== 'notRunning'
        && c.target.dataset.testScriptState === 'notRunning') window.__runs = (window.__runs || 0) + 1;
}).observe(document, {subtree: true, childList: true, characterData: true, attributeOldValue: true,
                      attributeFilter: ['data-test-script-state']});"""
# idle: a run finished after `since` (or 1.5 s have passed: a run that starts and ends between two of the page's
# frames changes no attribute, and an action may start none), none is running, nothing follows a job or build in
# flight (a progress bar, a build's box: read from the DOM, never laid out), and none of its content has changed
# for 0.5 s
IDLE_JS = """since => ((window.__runs || 0) > since.runs || performance.now() - since.t >= 1500)
  && document.querySelector('[data-testid=stApp]')?.dataset.testScriptState === 'notRunning'
  && !document.querySelector('[data-testid=stStatusWidget], [data-testid=stProgress], [data-testid=stSkeleton]')
  && !document.evaluate("//*[contains(text(), 'Building the index of')]", document.body, null, 9, null).singleNodeValue
  && performance.now() - window.__changed >= 500"""


def new_context(browser, **options):
    """A browser context whose pages count their script runs (RUNS_JS), so wait_idle can wait on them."""
    context = browser.new_context(**{"viewport": {"width": 1400, "height": 1100}, **options})
    context.add_init_script(RUNS_JS)
    return context


def start_page(browser, url, **options):
    """A fresh context's page sent to `url` (`options`: the context's, e.g. its viewport), its console and failed
    responses recorded, not yet waited on."""
    page = new_context(browser, **options).new_page()
    errors, bad = [], []
    CONSOLE[page] = (errors, bad)
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("response", lambda r: bad.append(r.url) if r.status >= 400 else None)
    page.on("requestfailed", lambda r: bad.append(r.url))
    page.goto(url)
    return page


def mark(page) -> dict:
    """The page's count of finished script runs and its clock: take it before an action, and wait_idle(page, it)."""
    return page.evaluate("() => ({runs: window.__runs || 0, t: performance.now()})")


def wait_idle(page, since: dict | None = None, timeout: float = 120) -> None:
    """Until a script run has finished since `since` (a mark taken before an action; by default, since the page
    opened) and the page is idle (IDLE_JS). Playwright waits on the page's own state and clock."""
    try:
        page.wait_for_function(IDLE_JS, arg=since or {"runs": 0, "t": 0}, timeout=timeout * 1000, polling=100)
    except Exception as e:  # Playwright's TimeoutError
        raise AssertionError(f"the app kept running for {timeout:g} s: {e}") from None


def hits(page) -> list[str]:
    return [t.strip() for t in page.locator('[data-testid="stMarkdownContainer"] p').all_inner_texts()
            if re.match(r"^\d+\. .+ · score", t.strip())]


def no_exception(page):
    """No Python exception on the page, and no console error but Streamlit's own base-path probe."""
    assert page.locator('[data-testid="stException"]').count() == 0, page.locator(
        '[data-testid="stException"]').first.inner_text()
    errors, bad = CONSOLE.get(page, ([], []))
    assert all(PROBE.fullmatch(u) for u in bad), bad
    assert len(errors) <= len(bad), errors


def loads_as_a_page(page, app_url: str, path: str, title: str) -> None:
    """The page under `path` opened whole: its title, no error, and the app's note on a direct link's 404s."""
    assert page.locator("[data-testid=stMain] h1").first.inner_text().strip() == title
    no_exception(page)
    # a direct link to a page other than the first: Streamlit's frontend first looks for the server under the page's
    # path (a possible base path), two 404s, then at the root (streamlit/streamlit#7074, docs/limits.md); nothing else
    bad = sorted(set(CONSOLE[page][1]))
    assert bad == ([] if path == "/" else [f"{app_url}{path}/_stcore/health", f"{app_url}{path}/_stcore/host-config"])
    # …and the app says so where a user looks, not only the docs: the sidebar's note on links, its help the 404s
    from ui.frame import LINK_WORDS, PROBE_WORDS

    sidebar = page.locator('[data-testid="stSidebar"]')
    sidebar.get_by_text(LINK_WORDS).wait_for(timeout=10_000)
    sidebar.get_by_text(LINK_WORDS).locator("xpath=..").get_by_test_id("stTooltipIcon").first.hover()
    page.get_by_text(re.compile(r"logs two 404 errors in the browser's console")).wait_for(timeout=10_000)
    assert "streamlit/streamlit#7074" in PROBE_WORDS


@pytest.mark.parametrize("path,title", [("/", "Query"), ("/query", "Query")])  # the others: the link tests below
def test_each_page_loads(app_url, browser, path, title):
    page = open_page(browser, app_url + path)
    loads_as_a_page(page, app_url, path, title)
    if path == "/query":  # the Query page's own path opens it, with the link's question
        assert page.get_by_text("Page not found").count() == 0
        page.goto(app_url + "/query?" + urlencode({"corpus": "dataroom-core", "q": MULTI_HOP, "retriever": "ppr-regex"}))
        wait_idle(page)  # the hidden page hands over to the Query page, whose run draws the hits
        assert page.get_by_text("Page not found").count() == 0
        from urllib.parse import parse_qs, urlparse

        shown = parse_qs(urlparse(page.url).query)
        assert len(hits(page)) == 5 and shown["q"] == [MULTI_HOP] and shown["retriever"] == ["ppr-regex"]
    page.screenshot(path=str(SHOTS / f"page-{path.strip('/') or 'home'}.png"), full_page=True)
    page.context.close()


def graph_nodes(page) -> list[str]:
    """Node labels of the pyvis network inside the subgraph iframe."""
    frame = graph_frame(page)
    assert frame.locator("canvas").count() >= 1
    return frame.evaluate("network.body.data.nodes.get().map(n => n.label)")


def test_multi_hop_query_renders_evidence_graph_and_alpha_reranks(app_url, browser):
    url = app_url + "/?" + urlencode({"corpus": "dataroom-core", "q": MULTI_HOP, "retriever": "ppr-regex", "k": 5})
    page = open_page(browser, url)
    no_exception(page)
    first = hits(page)
    assert len(first) == 5
    labels = graph_nodes(page)
    assert "Brightwater Logistics" in labels or "Joliet" in labels  # a seed of the question
    # passages read as rank and document title, on two lines: the Brightwater portfolio update is among them
    assert any(re.match(r"^(★ )?#\d+ Brightwater Logistics —\nPortfolio [^\n]*· part \d$", label) for label in labels), [
        label for label in labels if "#" in label]
    page.screenshot(path=str(SHOTS / "query-multihop.png"), full_page=True)
    # move α with the keyboard, as a person would, until the URL carries 0.55 (it follows the slider once its rerun
    # has run; on a loaded machine idle can come first). A key pressed while a rerun redraws the slider can find it
    # unfocused, or the redraw can set it back to the value the run had: so each round reads the slider again and
    # presses the missing steps, then waits a while for the URL; in all as long as wait_idle waits for a run (a
    # fresh-clone rehearsal's reruns outlasted Playwright's default 30 s)
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    open_advanced(page)  # α sits in the "Advanced settings" fold
    slider = page.get_by_role("slider").first
    for _ in range(6):
        steps = round((0.55 - float(slider.input_value())) / 0.01)  # a range input, 0.01 a step
        if steps:
            slider.focus()
            for _ in range(abs(steps)):
                page.keyboard.press("ArrowRight" if steps > 0 else "ArrowLeft")
        try:
            page.wait_for_function("() => location.href.includes('alpha=0.55')", timeout=20_000)
            break
        except PlaywrightTimeout:
            continue
    else:
        raise AssertionError(f"the URL never carried alpha=0.55 in 120 s; the slider reads {slider.input_value()}")
    wait_idle(page)
    second = hits(page)
    assert len(second) == 5 and second != first
    page.context.close()


def test_about_edges_are_purple_in_the_evidence_graph_and_their_weight_sits_under_advanced_settings(app_url, browser):
    from engine.explain.render import ABOUT_COLOR

    q = "How much was Capital Call No. 9 of NorthRiver Capital Partners IV?"
    url = app_url + "/?" + urlencode({"corpus": "dataroom-core", "q": q, "retriever": "hybrid-regex", "k": 5,
                                      "subject_weight": 2})
    page = open_page(browser, url)
    main = page.locator("[data-testid=stMain]").inner_text()
    if "Answered by bm25" in main:  # bm25 stood in while the encoder ran: one click asks hybrid-regex
        again = page.get_by_role("button", name="Ask again with hybrid-regex")
        again.wait_for(timeout=240_000)
        again.click()
        page.get_by_text("Top 5 passages · hybrid-regex", exact=True).wait_for(timeout=240_000)
        wait_idle(page)
    no_exception(page)
    frame = graph_frame(page)
    colors = frame.evaluate("network.body.data.edges.get().map(e => (e.color && e.color.color) || e.color)")
    assert ABOUT_COLOR in colors, colors  # the step to "Quarry Lane Packaging — Refinancing Summary"
    assert "about-edge: the passage's own title names the entity" in frame.locator("#pathlens-legend").inner_text()
    open_advanced(page)
    box = page.get_by_label("t (about-edge weight)", exact=True)
    box.wait_for(timeout=30_000)
    assert float(box.input_value()) == 2.0
    box.scroll_into_view_if_needed()
    # an element's screenshot waits for it to stand still: the expander opens with an animation
    page.locator("[data-testid=stMain] [data-testid=stExpander]").filter(has_text="Advanced settings").screenshot(
        path=str(SHOTS / "query-more-parameters.png"))
    frame.locator("body").screenshot(path=str(SHOTS / "query-about-edges.png"))
    page.context.close()


def test_click_to_idle_times_an_action_until_the_page_settles(app_url, browser):
    """perf's click_to_idle section times actions this way (`python -m engine perf --sections click_to_idle`); here
    one retriever switch is timed, and what is asserted is that it took effect and the time is the page's."""
    page = open_page(browser, app_url + "/?corpus=dataroom-core")
    wait_for_first_answer(page, 10_000)  # what the perf section waits for before its first action
    assert len(hits(page)) == 5
    t0 = time.monotonic()
    seconds = seconds_to_idle(page, lambda: choose_method(page, "ppr-regex"), "retriever=ppr-regex")
    assert 0 < seconds < time.monotonic() - t0  # the page's last change, before the 800 ms of quiet that ended it
    assert "retriever=ppr-regex" in page.url and len(hits(page)) == 5
    no_exception(page)
    page.context.close()


def test_shared_url_reproduces_the_view(app_url, browser):
    url = app_url + "/?" + urlencode({"corpus": "dataroom-core", "q": MULTI_HOP, "retriever": "bct-regex",
                                      "alpha": 0.35, "iterations": 12, "beta": 0.75, "k": 4})
    a = open_page(browser, url)
    shared = a.url
    first = hits(a)
    a.context.close()
    b = open_page(browser, shared)  # a fresh context: no cookies, no session
    assert hits(b) == first and len(first) == 4
    # the widget may still be settling after the run that drew the hits: wait for its value, do not race it
    from playwright.sync_api import expect

    expect(b.get_by_role("textbox", name="Question", exact=True)).to_have_value(MULTI_HOP, timeout=30_000)
    b.context.close()


def test_sweep_chart_gains_points_as_trials_finish(app_url, browser):
    page = open_page(browser, app_url + "/sweep?corpus=dataroom")
    no_exception(page)
    # record the chart's point count at every DOM change, so no intermediate drawing is missed
    page.evaluate("""() => {
        const CHART = '[data-testid=stVegaLiteChart]', POINTS = CHART + ' svg .mark-symbol path';
        window.__points = [];
        new MutationObserver(() => {
            const n = document.querySelectorAll(POINTS).length;
            if (n && n !== window.__points[window.__points.length - 1]) window.__points.push(n);
            window.__charts = Math.max(window.__charts || 0, document.querySelectorAll(CHART).length);
        }).observe(document.body, {childList: true, subtree: true});
    }""")
    page.get_by_role("button", name="Run sweep").click()
    page.get_by_text("Sweep finished").wait_for(timeout=300_000)
    wait_idle(page)
    counts = page.evaluate("window.__points")
    final = page.locator("[data-testid=stVegaLiteChart] svg .mark-symbol path").count()
    assert len(counts) >= 3, counts  # the chart was redrawn with more points as trials finished
    # updated in place as it grows: never fewer points than a moment before, never two charts at once
    assert counts == sorted(counts) and final == max(counts), counts
    assert page.evaluate("window.__charts") == 1
    page.screenshot(path=str(SHOTS / "sweep.png"), full_page=True)
    # under the chart, what it shows in words (the main area scrolls on its own: bring the sentence into view)
    story = page.get_by_text(re.compile(r"^On the whole corpus \(4,200 passages\) .+ From 100 passages to 4,200, "))
    story.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "sweep-in-words.png"))
    page.context.close()


# the defined term holds a capital: a term all in lower case is an ordinary word, not a name (no entity to draw)
HOSTILE = "\n".join([
    '{"id": "h1", "title": "<script>window.__pwned = 1</script>", "text": "Evil Corp Holdings (the \\"<IMG src=x onerror=window.__pwned=2>\\") owns Tarn Labs."}',
    '{"id": "h2", "title": "Plain", "text": "Tarn Labs <b>bold</b> <script>window.__pwned = 3</script> reports to Evil Corp Holdings."}',
    '{"id": "h3", "title": "Other", "text": "Quiet Meadow Partners acquired Tarn Labs from Evil Corp Holdings."}',
])


def test_hostile_text_is_shown_as_text_and_never_runs(app_url, browser, tmp_path):
    corpus = tmp_path / "hostile.jsonl"
    corpus.write_text(HOSTILE, encoding="utf-8")
    page = open_page(browser, app_url + "/?" + urlencode({"corpus": "your own files", "q": "What does Evil Corp Holdings own?",
                                                          "retriever": "bct-regex"}))
    before = mark(page)
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').first.set_input_files(str(corpus))
    wait_idle(page, before)
    page.wait_for_selector("[data-testid=stMain] >> text=score", timeout=60_000)  # not the sidebar glossary
    wait_idle(page)
    no_exception(page)
    body = page.locator("body").inner_text()
    assert "<script>window.__pwned = 3</script>" in body  # the passage's markup shows as text
    labels = graph_nodes(page)
    # the entity name, as text (on two lines: it is past 30 characters)
    assert any("<IMG src=x onerror" in label.replace("\n", " ") for label in labels), labels
    for frame in page.frames:
        assert frame.evaluate("typeof window.__pwned") == "undefined"
    page.screenshot(path=str(SHOTS / "hostile.png"), full_page=True)
    page.context.close()


def test_eight_concurrent_sessions_each_get_their_own_results(app_url):
    """Eight browser sessions at once, on two corpora with different retrievers and parameters,
    one of them running a sweep: every session shows exactly what the engine computes for it."""
    import asyncio

    from playwright.async_api import async_playwright

    from engine.ingest.corpus import load_corpus
    from engine.retrieve.graph_retriever import GraphParams
    from engine.indexing.index import Index, SearchConfig

    q1 = MULTI_HOP
    q2 = "Who is the Managing Partner of the general partner of the fund that owns Kestrel Health Systems?"
    sessions = [("dataroom-core", q1, "ppr-regex", 0.15, 5), ("dataroom-core", q2, "bct-regex", 0.5, 4),
                ("dataroom-core", q1, "bm25", 0.15, 3), ("dataroom-core", q2, "tfidf", 0.15, 6),
                ("dataroom", q1, "ppr-regex", 0.3, 5), ("dataroom", q2, "bm25", 0.15, 5),
                ("dataroom-core", q2, "ppr-regex", 0.7, 5)]
    indexes = {c: Index(load_corpus(c)) for c in ("dataroom-core", "dataroom")}
    expected = [[h.passage_id for h in indexes[c].retriever(r, SearchConfig(graph=GraphParams(alpha=a))).search(q, k)]
                for c, q, r, a, k in sessions]

    async def query_session(browser, corpus, q, retriever, alpha, k):
        context = await browser.new_context()
        await context.add_init_script(RUNS_JS)
        page = await context.new_page()
        # eight pages load at once on two cores, beside the builds they start: more than goto's default 30 s
        await page.goto(app_url + "/?" + urlencode({"corpus": corpus, "q": q, "retriever": retriever,
                                                    "alpha": alpha, "k": k}), timeout=180_000)
        await page.wait_for_selector("[data-testid=stMain] >> text=score", timeout=240_000)
        await page.wait_for_function(IDLE_JS, arg={"runs": 0, "t": 0}, timeout=240_000, polling=100)
        texts = await page.locator('[data-testid="stCaptionContainer"]').all_inner_texts()
        errors = await page.locator('[data-testid="stException"]').count()
        await context.close()
        return [m.group(1) for t in texts if (m := re.match(r"^From .* · passage (\S+)$", t.strip()))], errors

    async def sweep_session(browser):
        context = await browser.new_context()
        page = await context.new_page()
        # one resample: the sweep's own work is small; what is tested is that it finishes beside seven sessions
        await page.goto(app_url + "/sweep?corpus=dataroom-core&resamples=1", timeout=180_000)
        await page.get_by_role("button", name="Run sweep").click(timeout=240_000)
        try:
            # how the sweep ended, finished or not: a cancelled or failed sweep fails below, naming itself
            await page.wait_for_selector("text=/Sweep finished|Sweep cancelled|Could not/", timeout=420_000)
        except Exception:
            await page.screenshot(path=str(SHOTS / "concurrent-sweep-unfinished.png"), full_page=True)
            body = await page.locator("body").inner_text()
            await context.close()
            return f"no end of the sweep within 7 min; the page shows: {body[-1500:]}"
        body = await page.locator("body").inner_text()
        errors = await page.locator('[data-testid="stException"]').count()
        await context.close()
        return errors if "Sweep finished" in body else body[-1500:]

    async def main():
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            results = await asyncio.gather(*(query_session(browser, *s) for s in sessions), sweep_session(browser))
            await browser.close()
            return results

    # the sync browser fixture owns this thread's event loop; the async sessions get their own thread
    import threading

    box: list = []
    worker = threading.Thread(target=lambda: box.append(asyncio.run(main())))
    worker.start()
    worker.join(timeout=900)
    log = ROOT / "test-output" / "streamlit.log"
    assert box, ("the concurrent sessions did not finish", log.read_text("utf-8", "replace")[-3000:] if log.exists() else "")
    results = box[0]
    for (ids, errors), want, s in zip(results[:-1], expected, sessions):
        assert errors == 0, s
        assert ids == want, s
    assert results[-1] == 0, (results[-1], log.read_text("utf-8", "replace")[-3000:] if log.exists() else "no app log")


def run_then_cancel(page, field: str, value: str, button: str, progress: str) -> None:
    """Fill `field`, press `button`, wait until the progress text shows a third item done, press Cancel."""
    before = mark(page)
    page.get_by_label(field, exact=True).fill(value)
    page.keyboard.press("Enter")
    wait_idle(page, before)
    page.get_by_role("button", name=button).click()
    # Playwright waits for the text itself (no sleep, no poll here): the third item, or any later one, is done
    page.get_by_text(re.compile(progress.replace(r"(\d+)", r"([3-9]|[1-9]\d+)"))).first.wait_for(timeout=240_000)
    before = mark(page)
    page.get_by_role("button", name="Cancel").click()
    wait_idle(page, before)


def test_cancelled_sweep_leaves_the_app_usable(app_url, browser):
    page = open_page(browser, app_url + "/sweep?corpus=dataroom")
    run_then_cancel(page, "Resamples per size", "20", "Run sweep", r"trial (\d+) of")  # long: the cancel lands mid-way
    assert page.get_by_text(re.compile(r"Sweep cancelled after \d+ of [\d,]+ trials")).count() == 1  # of how many
    no_exception(page)
    # the same session sweeps again, to the end: the cancel left nothing behind
    before = mark(page)
    page.get_by_label("Resamples per size", exact=True).fill("1")
    page.keyboard.press("Enter")
    wait_idle(page, before)
    page.get_by_role("button", name="Run sweep").click()
    page.get_by_text(re.compile(r"Sweep finished: \d+ trials")).wait_for(timeout=120_000)
    wait_idle(page)
    no_exception(page)
    # and moves to another page (one that builds nothing: the data room's NER would take a minute here)
    page.get_by_role("link", name="Benchmarks").click()
    page.wait_for_selector("[data-testid=stMain] h1 >> text=Benchmarks", timeout=60_000)
    wait_idle(page)
    no_exception(page)
    page.context.close()


def test_a_cancelled_benchmark_shows_what_it_finished(app_url, browser):
    musique = ROOT.parent / "shared" / "data" / "musique_ans_dev_292.jsonl"
    if not musique.is_file():
        pytest.skip(f"{musique} is absent: the shared data lies beside the checkout in CI")
    page = open_page(browser, app_url + "/benchmarks?" + urlencode({"format": "musique", "mode": "closed",
                                                                    "sample": 0, "retrievers": "bm25,ppr-regex"}))
    run_then_cancel(page, "File path (JSON or JSON Lines)", str(musique), "Run benchmark", r"question (\d+) of 292")
    warning = page.get_by_text(re.compile(r"Benchmark cancelled after \d+ of 292 questions"))
    assert warning.count() == 1
    n = int(re.search(r"after (\d+) of", warning.inner_text()).group(1))
    assert 3 <= n < 292
    assert page.get_by_text(f"musique · closed pool · {n} questions").count() == 1  # the table covers those
    no_exception(page)
    page.context.close()


BAD_UPLOADS = [
    ("binary.txt", b"\x00\x01\x02\x03 binary", "looks binary"),
    ("latin.txt", "Caf\xe9 Holdings lends.".encode("latin-1"), "not UTF-8"),
    ("empty.jsonl", b"", "empty"),
    ("broken.jsonl", b'{"id": "a", "text": "fine"}\n{"id": "b", "text": \n', "line 2: not valid JSON"),
]


def test_bad_uploads_get_a_specific_message(app_url, browser, tmp_path):
    """Each bad file in turn, in one session: each one's own message, naming the file and what is wrong."""
    page = open_page(browser, app_url + "/?corpus=" + "your+own+files")
    for name, data, message in BAD_UPLOADS:
        f = tmp_path / name
        f.write_bytes(data)
        before = mark(page)
        page.locator('[data-testid="stFileUploaderDropzoneInput"]').first.set_input_files(str(f))
        wait_idle(page, before)
        said = page.locator('[data-testid="stAlertContentError"]').first.inner_text()
        assert message in said and name in said, (name, said)
        no_exception(page)
    page.context.close()


# resolves on vis-network's next "afterDrawing", which the redraw asked for here fires: once it has, the view
# (fitted when the network was made: physics is off) is on the canvas, and positions read from it hold
DRAWN_JS = "() => new Promise(done => { network.once('afterDrawing', () => done(true)); network.redraw(); })"


def overlapping_labels(frame) -> list[tuple[str, str]]:
    """Pairs of nodes whose drawn boxes (vis-network's own bounding boxes) overlap in the graph's frame."""
    boxes = list(frame.evaluate("() => Object.fromEntries(network.body.data.nodes.getIds()"
                                ".map(id => [id, network.getBoundingBox(id)]))").items())
    return [(ia, ib) for i, (ia, a) in enumerate(boxes) for ib, b in boxes[i + 1:]
            if not (a["right"] <= b["left"] or b["right"] <= a["left"] or a["bottom"] <= b["top"]
                    or b["bottom"] <= a["top"])]


def graph_frame(page, iframe="[data-testid=stMain] iframe"):
    """The evidence graph's frame (the first iframe), once its network has nodes and has drawn them."""
    host = page.locator(iframe).first
    host.scroll_into_view_if_needed(timeout=60_000)  # iframes load when seen
    frame = host.element_handle(timeout=60_000).content_frame()
    assert frame is not None, "the evidence graph's iframe has no document"
    frame.wait_for_function("typeof network !== 'undefined' && network.body.data.nodes.length > 0", timeout=60_000)
    frame.evaluate(DRAWN_JS)
    return frame


LINKS = [
    ("/corpus", "Corpus & graph", {"builder": "ner"}, []),
    ("/compare", "Compare retrievers", {"retrievers": "bm25,dense", "q": "Who is the CFO of Brightwater Logistics?",
                                        "k": "3"}, ["bm25", "dense"]),
    ("/sweep", "Scale sweep", {"corpus": "dataroom", "resamples": "3", "seed": "7", "retrievers": "bm25,tfidf",
                               "metric": "mrr"}, ["bm25", "tfidf"]),
    ("/benchmarks", "Benchmarks", {"format": "hotpotqa", "mode": "open", "sample": "10", "seed": "5",
                                   "retrievers": "bm25"}, ["bm25"]),
]


def goto(page, url: str) -> None:
    """`page` sent to `url` as a link opened there: a new script run from a fresh load, its console counted anew
    (a load in the same tab costs the browser about 40% less than one in a fresh context)."""
    for kept in CONSOLE[page]:
        kept.clear()
    page.goto(url)
    page.wait_for_selector("[data-testid=stMain] h1", timeout=120_000)
    wait_idle(page)


def test_a_link_to_each_page_reproduces_its_view(app_url, browser):
    """Each page loads whole from a direct link (`loads_as_a_page`), with the link's view in place."""
    from urllib.parse import parse_qs, urlparse

    page = None
    for path, title, params, shown in LINKS:
        url = app_url + path + "?" + urlencode(params)
        if page is None:
            page = open_page(browser, url)
        else:
            goto(page, url)
        loads_as_a_page(page, app_url, path, title)
        kept = {k: v[0] for k, v in parse_qs(urlparse(page.url).query).items()}
        assert {k: kept.get(k) for k in params} == params, kept  # the page wrote the same state back
        text = page.locator("[data-testid=stMain]").inner_text()
        for word in shown:
            assert word in text, (word, text[:800])
        if path == "/corpus":
            assert page.get_by_role("radio", name="ner").is_checked()
        if path == "/benchmarks":
            assert page.get_by_role("radio", name="open corpus").is_checked()
        for name, value in (("Resamples per size", "3"), ("Random seed", params.get("seed")),
                            ("Sample size (0 = all questions)", params.get("sample")), ("k", params.get("k"))):
            box = page.get_by_label(name, exact=True)
            if value is not None and box.count():
                assert box.first.input_value() == value, name
        page.screenshot(path=str(SHOTS / f"link-{path.strip('/')}.png"), full_page=True)
    page.context.close()


def test_a_link_to_an_evaluated_view_evaluates_it_again_on_open(app_url, browser):
    """Compare (evaluation and CI pair), Sweep and Benchmarks (a file of the shared data folder): a copied link
    of a view with results opens with those results, computed again, and the link's settings in place."""
    compare = {"corpus": "dataroom-core", "retrievers": "bm25,ppr-regex", "alpha": "0.3", "eval": "1",
               "a": "ppr-regex", "b": "bm25", "metric": "mrr"}
    page = open_page(browser, app_url + "/compare?" + urlencode(compare))
    page.get_by_text("Paired bootstrap 95% CI").wait_for(timeout=120_000)
    wait_idle(page)
    no_exception(page)
    assert page.get_by_role("combobox", name="A", exact=True).input_value() == "ppr-regex"
    assert page.get_by_role("combobox", name="B", exact=True).input_value() == "bm25"
    assert page.get_by_role("combobox", name="Metric", exact=True).input_value() == "mrr"
    assert page.get_by_text("Δ mrr (A − B)").count() >= 1
    from urllib.parse import parse_qs, urlparse

    kept = {k: v[0] for k, v in parse_qs(urlparse(page.url).query).items()}
    assert {k: kept.get(k) for k in compare} == compare, kept

    sweep = {"corpus": "dataroom", "resamples": "1", "retrievers": "bm25,tfidf", "metric": "mrr", "ran": "1"}
    goto(page, app_url + "/sweep?" + urlencode(sweep))
    page.get_by_text(re.compile(r"Sweep finished: \d+ trials")).wait_for(timeout=120_000)
    wait_idle(page)
    no_exception(page)
    assert page.locator("[data-testid=stVegaLiteChart]").count() == 1 and "ran=1" in page.url

    shared = ROOT.parent / "shared" / "data" / "musique_ans_dev_292.jsonl"
    if not shared.is_file():
        page.context.close()
        pytest.skip(f"{shared} is absent: the shared data lies beside the checkout in CI")
    bench = {"format": "musique", "mode": "closed", "sample": "5", "seed": "3", "retrievers": "bm25",
             "file": shared.name, "ran": "1"}
    goto(page, app_url + "/benchmarks?" + urlencode(bench))
    page.get_by_text("musique · closed pool · 5 questions").wait_for(timeout=120_000)
    wait_idle(page)
    no_exception(page)
    from playwright.sync_api import expect

    # the box may still be settling after the run that drew the results (seen once under load): wait for its
    # value, do not race it; a value truly lost still fails here
    expect(page.get_by_label("File path (JSON or JSON Lines)", exact=True)).to_have_value(str(shared), timeout=30_000)
    assert f"file={shared.name}" in page.url and "ran=1" in page.url
    page.context.close()



"""End-to-end tests in headless Chromium (Debian's /usr/bin/chromium) driven by Playwright.

The app is started on a free local port for the session and stopped afterwards. Screenshots
of each page land in test-output/screenshots/.
"""

from __future__ import annotations

import re
import time
from urllib.parse import urlencode

import pytest

from engine.evaluate.perf.click_to_idle import (CHROMIUM, CHROMIUM_ARGS, choose, seconds_to_idle, start_app,
                                              stop_app)
from tests.conftest import ROOT

SHOTS = ROOT / "test-output" / "screenshots"
MULTI_HOP = "Who manages the fund whose portfolio company signed a lease at the Joliet facility of Brightwater Logistics?"




def _start_app(log_name: str = "streamlit.log", cache_dir: str | None = None):
    try:
        return start_app(ROOT / "test-output" / log_name, cache_dir)
    except RuntimeError as e:
        pytest.fail(str(e))


_stop_app = stop_app


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
    context = browser.new_context(viewport={"width": 1400, "height": 1100})
    page = context.new_page()
    errors, bad = [], []
    CONSOLE[page] = (errors, bad)
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("response", lambda r: bad.append(r.url) if r.status >= 400 else None)
    page.on("requestfailed", lambda r: bad.append(r.url))
    page.goto(url)
    page.wait_for_selector(wait_for, timeout=120_000)
    wait_idle(page)
    return page


def busy(page) -> bool:
    """Streamlit runs the script ('Running…' widget), or a page follows an index build still in flight."""
    return (page.locator('[data-testid="stStatusWidget"]').count() > 0
            or page.get_by_text("Building the index of").count() > 0)


def wait_idle(page, timeout=120):
    """Wait until Streamlit has finished running the script and no index build is in flight."""
    time.sleep(1.0)
    deadline = time.time() + timeout
    while time.time() < deadline:
        if not busy(page):
            time.sleep(0.5)
            if not busy(page):
                return
        time.sleep(0.3)
    raise AssertionError("the app kept running for too long")


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


@pytest.mark.parametrize("path,title", [("/", "Query"), ("/corpus", "Corpus & graph"), ("/compare", "Compare retrievers"),
                                        ("/sweep", "Scale sweep"), ("/benchmarks", "Benchmarks")])
def test_each_page_loads(app_url, browser, path, title):
    page = open_page(browser, app_url + path)
    assert page.locator("[data-testid=stMain] h1").first.inner_text().strip() == title
    no_exception(page)
    # a direct link to a page other than the first: Streamlit's frontend first looks for the server under the page's
    # path (a possible base path), two 404s, then at the root (streamlit/streamlit#7074, docs/limits.md); nothing else
    bad = sorted(set(CONSOLE[page][1]))
    assert bad == ([] if path == "/" else [f"{app_url}{path}/_stcore/health", f"{app_url}{path}/_stcore/host-config"])
    page.screenshot(path=str(SHOTS / f"page-{title.split()[0].lower()}.png"), full_page=True)
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
    # passages read as rank and document title: the Brightwater portfolio update is among them
    assert any(re.match(r"^(★ )?#\d+ Brightwater Logistics — Portf… · part \d$", label) for label in labels)
    page.screenshot(path=str(SHOTS / "query-multihop.png"), full_page=True)
    # move α with the keyboard, as a person would
    slider = page.get_by_role("slider").first
    slider.focus()
    for _ in range(40):
        page.keyboard.press("ArrowRight")
    wait_idle(page)
    assert "alpha=0.55" in page.url
    second = hits(page)
    assert len(second) == 5 and second != first
    page.context.close()


def test_click_to_idle_times_an_action_until_the_page_settles(app_url, browser):
    """perf's click_to_idle section times actions this way (`python -m engine perf --sections click_to_idle`); here
    one retriever switch is timed, and what is asserted is that it took effect and the time is the page's."""
    page = open_page(browser, app_url + "/?corpus=dataroom-core")
    assert len(hits(page)) == 5
    t0 = time.monotonic()
    seconds = seconds_to_idle(page, lambda: choose(page, "Retriever", "ppr-regex"), "retriever=ppr-regex")
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
        window.__points = [];
        new MutationObserver(() => {
            const n = document.querySelectorAll('.js-plotly-plot .scatterlayer .trace .points path').length;
            if (n && n !== window.__points[window.__points.length - 1]) window.__points.push(n);
        }).observe(document.body, {childList: true, subtree: true});
    }""")
    page.get_by_role("button", name="Run sweep").click()
    page.get_by_text("Sweep finished").wait_for(timeout=300_000)
    wait_idle(page)
    counts = page.evaluate("window.__points")
    final = page.locator(".js-plotly-plot .scatterlayer .trace .points path").count()
    assert len(counts) >= 3, counts  # the chart was redrawn with more points as trials finished
    assert counts[0] < max(counts) and final == max(counts)
    page.screenshot(path=str(SHOTS / "sweep.png"), full_page=True)
    page.context.close()


HOSTILE = "\n".join([
    '{"id": "h1", "title": "<script>window.__pwned = 1</script>", "text": "Evil Corp Holdings (the \\"<img src=x onerror=window.__pwned=2>\\") owns Tarn Labs."}',
    '{"id": "h2", "title": "Plain", "text": "Tarn Labs <b>bold</b> <script>window.__pwned = 3</script> reports to Evil Corp Holdings."}',
    '{"id": "h3", "title": "Other", "text": "Quiet Meadow Partners acquired Tarn Labs from Evil Corp Holdings."}',
])


def test_hostile_text_is_shown_as_text_and_never_runs(app_url, browser, tmp_path):
    corpus = tmp_path / "hostile.jsonl"
    corpus.write_text(HOSTILE, encoding="utf-8")
    page = open_page(browser, app_url + "/?" + urlencode({"corpus": "upload a corpus file", "q": "What does Evil Corp Holdings own?",
                                                          "retriever": "bct-regex"}))
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').first.set_input_files(str(corpus))
    wait_idle(page)
    page.wait_for_selector("[data-testid=stMain] >> text=score", timeout=60_000)  # not the sidebar glossary
    wait_idle(page)
    no_exception(page)
    body = page.locator("body").inner_text()
    assert "<script>window.__pwned = 3</script>" in body  # the passage's markup shows as text
    labels = graph_nodes(page)
    assert any("<img src=x onerror" in label for label in labels), labels  # the entity name, as text
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
        page = await context.new_page()
        # eight pages load at once on two cores, beside the builds they start: more than goto's default 30 s
        await page.goto(app_url + "/?" + urlencode({"corpus": corpus, "q": q, "retriever": retriever,
                                                    "alpha": alpha, "k": k}), timeout=180_000)
        await page.wait_for_selector("[data-testid=stMain] >> text=score", timeout=240_000)
        await asyncio.sleep(1.5)
        for _ in range(480):
            if await page.locator('[data-testid="stStatusWidget"]').count() == 0:
                break
            await asyncio.sleep(0.5)
        texts = await page.locator('[data-testid="stCaptionContainer"]').all_inner_texts()
        errors = await page.locator('[data-testid="stException"]').count()
        await context.close()
        return [m.group(1) for t in texts if (m := re.match(r"^From .* · passage (\S+)$", t.strip()))], errors

    async def sweep_session(browser):
        context = await browser.new_context()
        page = await context.new_page()
        await page.goto(app_url + "/sweep?corpus=dataroom-core", timeout=180_000)
        await page.get_by_role("button", name="Run sweep").click(timeout=240_000)
        await page.wait_for_selector("text=Sweep finished", timeout=240_000)
        errors = await page.locator('[data-testid="stException"]').count()
        await context.close()
        return errors

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
    worker.join(timeout=600)
    assert box, "the concurrent sessions did not finish"
    results = box[0]
    for (ids, errors), want, s in zip(results[:-1], expected, sessions):
        assert errors == 0, s
        assert ids == want, s
    assert results[-1] == 0


def run_then_cancel(page, field: str, value: str, button: str, progress: str) -> None:
    """Fill `field`, press `button`, wait until the progress text shows a third item done, press Cancel."""
    page.get_by_label(field, exact=True).fill(value)
    page.keyboard.press("Enter")
    wait_idle(page)
    page.get_by_role("button", name=button).click()
    # Playwright waits for the text itself (no sleep, no poll here): the third item, or any later one, is done
    page.get_by_text(re.compile(progress.replace(r"(\d+)", r"([3-9]|[1-9]\d+)"))).first.wait_for(timeout=240_000)
    page.get_by_role("button", name="Cancel").click()
    wait_idle(page)


def test_cancelled_sweep_leaves_the_app_usable(app_url, browser):
    page = open_page(browser, app_url + "/sweep?corpus=dataroom")
    run_then_cancel(page, "Resamples per size", "20", "Run sweep", r"trial (\d+) of")  # long: the cancel lands mid-way
    assert page.get_by_text(re.compile(r"Sweep cancelled after \d+ of [\d,]+ trials")).count() == 1  # of how many
    no_exception(page)
    # the same session sweeps again, to the end: the cancel left nothing behind
    page.get_by_label("Resamples per size", exact=True).fill("1")
    page.keyboard.press("Enter")
    wait_idle(page)
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


@pytest.mark.parametrize("name,data,message", [
    ("binary.txt", b"\x00\x01\x02\x03 binary", "looks binary"),
    ("latin.txt", "Caf\xe9 Holdings lends.".encode("latin-1"), "not UTF-8"),
    ("empty.jsonl", b"", "empty"),
    ("broken.jsonl", b'{"id": "a", "text": "fine"}\n{"id": "b", "text": \n', "line 2: not valid JSON"),
])
def test_bad_uploads_get_a_specific_message(app_url, browser, tmp_path, name, data, message):
    f = tmp_path / name
    f.write_bytes(data)
    page = open_page(browser, app_url + "/?corpus=" + "upload+a+corpus+file")
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').first.set_input_files(str(f))
    wait_idle(page)
    assert message in page.locator('[data-testid="stAlertContentError"]').first.inner_text()
    no_exception(page)
    page.context.close()


def graph_frame(page, iframe="[data-testid=stMain] iframe"):
    page.locator(iframe).first.scroll_into_view_if_needed()  # iframes load when seen
    deadline = time.time() + 60
    while time.time() < deadline:
        for frame in page.frames:
            if frame is page.main_frame:
                continue
            try:
                if frame.evaluate("typeof network !== 'undefined' && network.body.data.nodes.length > 0"):
                    return frame
            except Exception:
                pass
        time.sleep(0.5)
    raise AssertionError("no evidence graph rendered")


LAYOUT_JS = """() => {
  const ids = network.body.data.nodes.getIds();
  const pos = network.getPositions(ids);
  const boxes = {};
  ids.forEach(id => { boxes[id] = network.getBoundingBox(id); });
  const labels = {};
  network.body.data.nodes.get().forEach(n => { labels[n.id] = n.label; });
  return {pos, boxes, labels};
}"""


@pytest.mark.parametrize("k", [5, 10])
def test_evidence_graph_labels_never_overlap_and_the_layout_is_fixed(app_url, browser, k):
    from engine.ingest.corpus import load_corpus

    questions = [q.text for q in load_corpus("dataroom-core").queries if q.kind == "multi-hop"][:3]
    for i, (q, retriever) in enumerate(zip(questions, ("hybrid-ner", "ppr-regex", "bct-ner"))):
        url = app_url + "/?" + urlencode({"corpus": "dataroom-core", "q": q, "retriever": retriever, "k": k})
        views = []
        for _ in range(2 if i == 0 else 1):  # the first question twice, in fresh contexts: the same positions
            page = open_page(browser, url)
            errors = []
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            no_exception(page)
            views.append(graph_frame(page).evaluate(LAYOUT_JS))
            if i == 0:
                page.screenshot(path=str(SHOTS / f"evidence-graph-k{k}.png"), full_page=True)
            assert errors == []
            page.context.close()
        assert views[0]["pos"] == views[-1]["pos"]
        boxes = list(views[0]["boxes"].items())
        assert len(boxes) >= k
        for a in range(len(boxes)):
            for b in range(a + 1, len(boxes)):
                (ia, ba), (ib, bb) = boxes[a], boxes[b]
                apart = (ba["right"] <= bb["left"] or bb["right"] <= ba["left"] or ba["bottom"] <= bb["top"]
                         or bb["bottom"] <= ba["top"])
                assert apart, (ia, ib, q)
        # passages are labelled by rank and a short document title, not by file ids
        ranked = [label for nid, label in views[0]["labels"].items() if nid.startswith("p:") and "#" in label]
        assert len(ranked) == k and not any(".md#" in label for label in ranked)


def test_evidence_report_downloads_matches_the_cli_and_opens_offline(app_url, browser, tmp_path):
    from engine.cli import main

    q = "Which bank is administrative agent on the credit facility of the company whose CFO is Elliot Park?"
    page = open_page(browser, app_url + "/?" + urlencode({"corpus": "dataroom-core", "q": q, "retriever": "hybrid-ner"}))
    no_exception(page)
    messages: list[str] = []  # a failed deferred download shows its reason on the button for 5 s
    page.on("download", lambda d: messages.append("download started"))
    try:
        with page.expect_download(timeout=120_000) as info:
            page.get_by_role("button", name="Download the evidence report (HTML)").click()
            page.wait_for_timeout(1500)
            messages.extend(page.locator("[data-testid=stDownloadButton]").all_inner_texts())
        download = info.value
    except Exception as e:
        raise AssertionError(f"the report did not download; the button area read: {messages}") from e
    downloaded = tmp_path / "from-page.html"
    download.save_as(str(downloaded))
    page.context.close()
    from_cli = tmp_path / "from-cli.html"
    assert main(["report", q, "--corpus", "dataroom-core", "--retriever", "hybrid-ner", "--out", str(from_cli)]) == 0
    strip = lambda p: re.sub(r"<p class='meta'>Generated [^<]*</p>", "", p.read_text("utf-8"))  # noqa: E731
    assert strip(downloaded) == strip(from_cli)
    # opened from disk with every network request blocked: nothing is asked for, nothing fails
    context = browser.new_context(viewport={"width": 1300, "height": 1000})
    requests, errors = [], []

    def block(route):
        requests.append(route.request.url)
        return route.continue_() if route.request.url.startswith(("file:", "about:", "data:")) else route.abort()

    context.route("**/*", block)
    report = context.new_page()
    report.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    report.goto(downloaded.as_uri())
    frame = graph_frame(report, "iframe")
    assert frame.evaluate("network.body.data.nodes.length") >= 5
    time.sleep(2)  # let vis-network draw before the picture
    report.screenshot(path=str(SHOTS / "evidence-report.png"), full_page=False)
    assert [r for r in requests if not r.startswith(("file:", "about:", "data:"))] == []
    assert errors == []
    assert report.locator("svg[aria-label='evidence graph']").count() == 1
    context.close()


def test_the_readme_demo_script(app_url, browser, tmp_path):
    """README, "A demo in five steps", step by step, with a screenshot of each."""
    from datetime import datetime, timezone

    from engine.ingest.corpus import load_corpus

    core = load_corpus("dataroom-core")
    demo = next(q for q in core.queries if q.id == core.demo_question)
    # 1. the app opens on the measured demo question, both gold passages in the top five
    page = open_page(browser, app_url + "/")
    assert page.get_by_role("textbox", name="Question", exact=True).input_value() == demo.text
    assert len(hits(page)) == 5 and sum("★ gold" in h for h in hits(page)) == 2
    page.screenshot(path=str(SHOTS / "demo-1-opens.png"), full_page=True)
    # 2. the first answer leads with one sentence of its shares
    first = page.locator("[data-testid=stMain] p", has_text=re.compile(r"^Its score: ")).first
    first.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "demo-2-sentence.png"))
    sentence = first.inner_text()
    assert re.match(r"Its score: \d+% its similarity to the question, .*through Elliot Park → ", sentence), sentence
    # 3. clicking #1 in the evidence graph turns its paths red and fades the rest
    frame = graph_frame(page)
    time.sleep(1.5)  # let vis-network fit the view before reading positions
    target = frame.evaluate("""() => {
      const id = network.body.data.nodes.get().find(n => /^(★ )?#1 /.test(n.label)).id;
      const p = network.canvasToDOM(network.getPositions([id])[id]);
      const r = document.querySelector('#mynetwork canvas').getBoundingClientRect();
      return {x: r.left + p.x, y: r.top + p.y, on: pathlensPaths[id]};
    }""")
    box = page.locator("[data-testid=stMain] iframe").first.bounding_box()
    # hovering #1 shows its text in the page's sans-serif, wrapped inside the frame
    page.mouse.move(box["x"] + target["x"], box["y"] + target["y"])
    frame.wait_for_selector("div.vis-tooltip", state="visible", timeout=10_000)
    tip = frame.evaluate("""() => { const t = document.querySelector('div.vis-tooltip');
      const r = t.getBoundingClientRect(), cs = getComputedStyle(t);
      return {font: cs.fontFamily, wrap: cs.whiteSpace, right: r.right, width: document.documentElement.clientWidth}; }""")
    assert "serif" not in tip["font"].replace("sans-serif", "") and tip["wrap"] == "pre-wrap", tip
    assert tip["right"] <= tip["width"], tip
    page.locator("[data-testid=stMain] iframe").first.screenshot(path=str(SHOTS / "demo-3-hover.png"))
    page.mouse.click(box["x"] + target["x"], box["y"] + target["y"])
    time.sleep(0.5)
    colors = frame.evaluate("() => Object.fromEntries(edges.get().map(e => [e.id, e.color]))")
    assert target["on"] and all(colors[e] == "#d62728" for e in target["on"])
    page.locator("[data-testid=stMain] iframe").first.screenshot(path=str(SHOTS / "demo-3-traced.png"))
    # 4. what if Elliot Park were not in the graph: arrows against the original ranking, and he is crossed out
    page.get_by_text("What if… take out an entity or a passage").click()
    page.get_by_role("combobox", name="Take out entities").click()
    page.keyboard.type("Elliot Park")
    page.keyboard.press("Enter")
    page.keyboard.press("Escape")
    wait_idle(page)
    assert "without=Elliot+Park" in page.url
    page.get_by_text("Arrows: each passage's move against the ranking with nothing taken out.").wait_for(timeout=60_000)
    assert any(label.startswith("✕ Elliot Park") for label in graph_nodes(page))
    page.screenshot(path=str(SHOTS / "demo-4-what-if.png"), full_page=True)
    no_exception(page)
    # 5. the evidence report, named after the question and the day, opens with the answers
    with page.expect_download(timeout=120_000) as info:
        page.get_by_role("button", name="Download the evidence report (HTML)").click()
    download = info.value
    day = datetime.now(timezone.utc).date().isoformat()
    assert download.suggested_filename == f"evidence-report-which-bank-is-administrative-agent-on-the-credit-{day}.html"
    report = tmp_path / download.suggested_filename
    download.save_as(str(report))
    text = report.read_text("utf-8")
    assert text.index("<h2>Answers") < text.index("Its score: ") < text.index("<h2>How this was computed")
    assert "what-if: taken out" in text and "Elliot Park" in text
    page.context.close()


def test_a_fresh_server_whose_first_request_is_a_deep_link_shows_the_whole_page(browser):
    """Streamlit runs the first request of a fresh server in its pages-folder mode, without app.py:
    the page must still draw its own sidebar, and the app must navigate normally afterwards."""
    proc, url = _start_app("streamlit-fresh.log")
    try:
        context = browser.new_context(viewport={"width": 1400, "height": 1100})
        page = context.new_page()
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
                                                              "Benchmarks"], menu
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


def test_a_build_never_runs_under_the_last_views_results(browser, tmp_path):
    """Switching to a retriever whose index parts are not built yet: while they build, the page shows
    the build's progress and nothing of the previous view (not even greyed), then the new answer."""
    proc, url = _start_app("streamlit-stale.log", cache_dir=str(tmp_path / "cache"))  # nothing built yet
    try:
        page = open_page(browser, url + "/?" + urlencode({"corpus": "dataroom-core", "retriever": "ppr-regex"}))
        assert page.get_by_text("Top 5 passages · ppr-regex").count() == 1
        # every state the page passes through is read as it happens (a MutationObserver), not sampled by a poll
        page.evaluate("""() => {
          window.__build = {seen: false, leaked: []};
          new MutationObserver(() => {
            const text = document.querySelector('[data-testid=stMain]').innerText;
            if (!text.includes('Building the index of dataroom-core')) return;
            window.__build.seen = true;
            for (const t of ['Top 5 passages · ppr-regex', 'Seeds: where the walk restarts', 'Evidence graph'])
              if (text.includes(t)) window.__build.leaked.push(t);
          }).observe(document.body, {childList: true, subtree: true, characterData: true});
        }""")
        choose(page, "Retriever", "ppr-ner")  # spaCy NER over the corpus: a build of a few seconds
        page.get_by_text("Top 5 passages · ppr-ner").wait_for(timeout=120_000)
        seen = page.evaluate("window.__build")
        seen_build, leaked = seen["seen"], seen["leaked"]
        assert seen_build, "the build's progress was never on screen"
        assert not leaked, f"the previous view showed under the build: {sorted(set(leaked))}"
        wait_idle(page)
        assert len(hits(page)) == 5 and page.get_by_text("Top 5 passages · ppr-regex").count() == 0
        no_exception(page)
        page.context.close()
    finally:
        _stop_app(proc)


def test_clicking_a_hit_highlights_its_paths_and_dims_the_rest(app_url, browser):
    page = open_page(browser, app_url + "/?" + urlencode({"corpus": "dataroom-core", "q": MULTI_HOP,
                                                          "retriever": "ppr-regex"}))
    frame = graph_frame(page)
    time.sleep(1.5)  # let vis-network fit the view before reading positions
    target = frame.evaluate("""() => {
      const id = Object.keys(pathlensPaths)[0];
      const p = network.canvasToDOM(network.getPositions([id])[id]);
      const r = document.querySelector('#mynetwork canvas').getBoundingClientRect();
      return {id, x: r.left + p.x, y: r.top + p.y, on: pathlensPaths[id]};
    }""")
    box = page.locator("[data-testid=stMain] iframe").first.bounding_box()
    page.mouse.click(box["x"] + target["x"], box["y"] + target["y"])
    time.sleep(0.5)
    colors = frame.evaluate("() => Object.fromEntries(edges.get().map(e => [e.id, e.color]))")
    on = set(target["on"])
    assert on and all(colors[e] == "#d62728" for e in on)
    assert all(c == "#eeeeee" for e, c in colors.items() if e not in on)
    no_exception(page)
    page.context.close()


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
    page = open_page(browser, app_url + "/?" + urlencode({"corpus": "upload a corpus file", "q": q}))
    inputs = page.locator('[data-testid="stFileUploaderDropzoneInput"]')
    inputs.nth(1).set_input_files(str(questions))
    broken = tmp_path / "BROKEN_SCAN.pdf"
    broken.write_bytes(b"%PDF-1.4\n" + bytes(range(256)) * 8)  # not a readable PDF: left out, the rest builds
    inputs.nth(0).set_input_files([str(FILINGS / "INTEL_2022Q4_EARNINGS.pdf"),
                                   str(FILINGS / "MCDONALDS_2023Q1_EARNINGS.pdf"), str(broken)])
    # the build shows its stages while it runs
    page.wait_for_selector("text=Building the index", timeout=60_000)
    page.wait_for_selector('[data-testid="stMain"] >> text=score', timeout=240_000)
    wait_idle(page)
    no_exception(page)
    main = page.locator("[data-testid=stMain]").inner_text()
    assert "Index of 3 uploaded files ready" in main
    cites = re.findall(r"From INTEL 2022 Q4 EARNINGS, page (\d+) of INTEL_2022Q4_EARNINGS\.pdf", main)
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
    # the Corpus page lists the running lines it dropped, per document, with the pages they were on
    page.get_by_role("link", name=re.compile("Corpus")).first.click()
    page.wait_for_selector("[data-testid=stMain] h1 >> text=Corpus & graph", timeout=60_000)
    wait_idle(page, timeout=300)
    page.get_by_role("tab", name="Documents").click()
    section = page.get_by_text("Running headers, footers and page numbers dropped")
    section.wait_for(timeout=30_000)
    tables = page.locator('[data-testid="stTabs"] [data-testid="stDataFrame"]')
    assert tables.count() >= 3  # the documents, the file left out, what was dropped from the documents
    assert page.get_by_text("Left out", exact=True).count() == 1
    page.screenshot(path=str(SHOTS / "filings-corpus.png"), full_page=True)
    no_exception(page)
    page.context.close()


@pytest.mark.parametrize("path,params,shown", [
    ("/corpus", {"builder": "ner"}, []),
    ("/compare", {"retrievers": "bm25,dense", "q": "Who is the CFO of Brightwater Logistics?", "k": "3"},
     ["bm25", "dense"]),
    ("/sweep", {"corpus": "dataroom", "resamples": "3", "seed": "7", "retrievers": "bm25,tfidf", "metric": "mrr"},
     ["bm25", "tfidf"]),
    ("/benchmarks", {"format": "hotpotqa", "mode": "open", "sample": "10", "seed": "5", "retrievers": "bm25"},
     ["bm25"]),
])
def test_a_link_to_each_page_reproduces_its_view(app_url, browser, path, params, shown):
    from urllib.parse import parse_qs, urlparse

    page = open_page(browser, app_url + path + "?" + urlencode(params))
    wait_idle(page)
    no_exception(page)
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
    page.context.close()

    sweep = {"corpus": "dataroom", "resamples": "1", "retrievers": "bm25,tfidf", "metric": "mrr", "ran": "1"}
    page = open_page(browser, app_url + "/sweep?" + urlencode(sweep))
    page.get_by_text(re.compile(r"Sweep finished: \d+ trials")).wait_for(timeout=120_000)
    wait_idle(page)
    no_exception(page)
    assert page.locator(".js-plotly-plot").count() >= 1 and "ran=1" in page.url
    page.context.close()

    shared = ROOT.parent / "shared" / "data" / "musique_ans_dev_292.jsonl"
    if not shared.is_file():
        pytest.skip(f"{shared} is absent: the shared data lies beside the checkout in CI")
    bench = {"format": "musique", "mode": "closed", "sample": "5", "seed": "3", "retrievers": "bm25",
             "file": shared.name, "ran": "1"}
    page = open_page(browser, app_url + "/benchmarks?" + urlencode(bench))
    page.get_by_text("musique · closed pool · 5 questions").wait_for(timeout=120_000)
    wait_idle(page)
    no_exception(page)
    assert page.get_by_label("File path (JSON or JSON Lines)", exact=True).input_value() == str(shared)
    assert f"file={shared.name}" in page.url and "ran=1" in page.url
    page.context.close()



DEV_FILINGS = ROOT.parent / "shared" / "data" / "financebench_dev"


def test_dev_filings_show_the_scope_the_typed_path_and_the_cited_page(app_url, browser):
    """Two years of Nike's 10-K from the filings dev set: the question names the year, so the answer must come
    from that year's filing, and the page says how it read the question."""
    if not DEV_FILINGS.is_dir():
        pytest.skip(f"{DEV_FILINGS} is absent: the shared filings lie beside the checkout in CI")
    q = "What was Nike's capex in FY2018? Use the cash flow statement and answer in USD millions."
    page = open_page(browser, app_url + "/?" + urlencode({"corpus": "upload a corpus file", "q": q}))
    inputs = page.locator('[data-testid="stFileUploaderDropzoneInput"]')
    inputs.nth(0).set_input_files([str(DEV_FILINGS / "NIKE_2018_10K.pdf"), str(DEV_FILINGS / "NIKE_2019_10K.pdf")])
    page.wait_for_selector('[data-testid="stMain"] >> text=Typed path', timeout=300_000)
    wait_idle(page, timeout=120)
    no_exception(page)
    main = page.locator("[data-testid=stMain]").inner_text()
    assert "Scope as understood: Nike · FY2018 · Statement of cash flows → Nike FY2018 10-K" in main, main[:1500]
    assert re.search(r"Typed path: Nike → Nike FY2018 10-K → .*Statement of cash flows → “Additions to property, "
                     r"plant and equipment” → page 49", main), main[:3000]
    cites = re.findall(r"From NIKE[^\n]*fiscal year ended May 31, 2018[^\n]*, page (\d+) of NIKE_2018_10K\.pdf", main)
    assert cites and cites[0] == "49", main[:3000]  # the statement of cash flows, cited first
    # the evidence graph's pages lead with what tells them apart: document, year, form and page
    labels = graph_nodes(page)
    assert any(re.fullmatch(r"(★ )?#1 Nike 2018 10-K p\.49(, part \d+)?", label) for label in labels), [
        label for label in labels if "#" in label]
    page.locator("[data-testid=stMain] iframe").first.screenshot(path=str(SHOTS / "dev-filings-graph.png"))
    page.screenshot(path=str(SHOTS / "dev-filings-query.png"), full_page=True)
    page.context.close()

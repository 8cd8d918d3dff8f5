"""Headless Chromium on the evidence graph and what is handed over: labels that never overlap, a click that traces a
hit's paths, the evidence report downloaded and opened offline, and the README's demo script step by step."""

from __future__ import annotations

import re
from urllib.parse import urlencode

import pytest

from engine.explain.render import TRACE_COLOR
from tests.test_browser import (MULTI_HOP, SHOTS, app_url, browser, goto, graph_frame, graph_nodes, hits,  # noqa: F401
                                mark, no_exception, open_page, overlapping_labels, start_page, wait_idle)


# the selectNode handler (engine/explain/render.py) has recoloured the edges: the click's effect, waited on
TRACED_JS = f"() => edges.get().some(e => e.color === '{TRACE_COLOR}')"

# the legend's last line within the frame's window: the frame never scrolls inside itself
FITS_JS = ("() => document.getElementById('pathlens-legend').lastElementChild.getBoundingClientRect().bottom "
           "<= window.innerHeight")

LAYOUT_JS = """() => {
  const ids = network.body.data.nodes.getIds();
  const pos = network.getPositions(ids);
  const boxes = {};
  ids.forEach(id => { boxes[id] = network.getBoundingBox(id); });
  const labels = {};
  network.body.data.nodes.get().forEach(n => { labels[n.id] = n.label; });
  return {pos, boxes, labels, scale: network.getScale()};
}"""



@pytest.mark.parametrize("k", [5, 10])
def test_evidence_graph_labels_never_overlap_and_the_layout_is_fixed(app_url, browser, k):
    """The default view (5 hits) twice, in fresh contexts: the same positions; the most crowded (10 hits) on three
    questions and three retrievers. Labels never overlap in any of them."""
    from engine.ingest.corpus import load_corpus

    questions = [q.text for q in load_corpus("dataroom-core").queries if q.kind == "multi-hop"][:3 if k == 10 else 1]
    for i, (q, retriever) in enumerate(zip(questions, ("hybrid-ner", "ppr-regex", "bct-ner"))):
        url = app_url + "/?" + urlencode({"corpus": "dataroom-core", "q": q, "retriever": retriever, "k": k})
        views = []
        for _ in range(2 if k == 5 else 1):
            if k == 10 and i > 0:  # the next question in the same tab; k = 5 draws twice in fresh contexts
                goto(page, url)
            else:
                page = open_page(browser, url)
            errors = []
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            no_exception(page)
            frame = graph_frame(page)
            views.append({**frame.evaluate(LAYOUT_JS), "overlapping": overlapping_labels(frame)})
            assert frame.evaluate(FITS_JS)
            if i == 0:
                page.screenshot(path=str(SHOTS / f"evidence-graph-k{k}.png"), full_page=True)
            assert errors == []
            if k == 5 or i == len(questions) - 1:
                page.context.close()
        assert views[0]["pos"] == views[-1]["pos"]
        if k == 5:  # in a window 1,000 px wide the legend wraps to more lines: the canvas gives up the room
            narrow = start_page(browser, url, viewport={"width": 1000, "height": 1000})
            narrow.wait_for_selector("[data-testid=stMain] h1", timeout=120_000)
            wait_idle(narrow)
            assert graph_frame(narrow).evaluate(FITS_JS)
            narrow.screenshot(path=str(SHOTS / "evidence-graph-1000px.png"), full_page=True)
            narrow.context.close()
        # drawn large enough to read: one-line labels a fixed 420 apart were fit at 0.56-0.58 here (5342b7e)
        print(f"k = {k}, {retriever}: drawn at {views[0]['scale']:.2f} of full size")
        assert views[0]["scale"] >= 0.7, views[0]["scale"]
        assert len(views[0]["boxes"]) >= k and views[0]["overlapping"] == [], (views[0]["overlapping"], q)
        # passages are labelled by rank and a short document title, not by file ids
        ranked = [label for nid, label in views[0]["labels"].items() if nid.startswith("p:") and "#" in label]
        assert len(ranked) == k and not any(".md#" in label for label in ranked)



TIPS_SHOWN_JS = ("() => [...document.querySelectorAll('div.vis-tooltip')]"
                 ".filter(t => getComputedStyle(t).visibility === 'visible' && t.offsetParent !== null).length")


def test_clicking_a_hit_highlights_its_paths_and_dims_the_rest(app_url, browser):
    page = open_page(browser, app_url + "/?" + urlencode({"corpus": "dataroom-core", "q": MULTI_HOP,
                                                          "retriever": "ppr-regex"}))
    frame = graph_frame(page)
    target = frame.evaluate("""() => {
      const id = Object.keys(pathlensPaths)[0];
      const p = network.canvasToDOM(network.getPositions([id])[id]);
      const r = document.querySelector('#mynetwork canvas').getBoundingClientRect();
      return {id, x: r.left + p.x, y: r.top + p.y, on: pathlensPaths[id]};
    }""")
    box = page.locator("[data-testid=stMain] iframe").first.bounding_box()
    page.mouse.click(box["x"] + target["x"], box["y"] + target["y"])
    frame.wait_for_function(TRACED_JS, timeout=10_000)
    colors = frame.evaluate("() => Object.fromEntries(edges.get().map(e => [e.id, e.color]))")
    on = set(target["on"])
    assert on and all(colors[e] == TRACE_COLOR for e in on)
    assert all(c == "#eeeeee" for e, c in colors.items() if e not in on)
    # the nodes off its paths fade; those on them and the clicked one stay whole; no hover box covers the click
    opacity = frame.evaluate("() => Object.fromEntries(nodes.get().map(n => [n.id, n.opacity]))")
    near = {n for e in on for n in e.split(">")} | {target["id"]}
    assert all(opacity[n] == 1 for n in near) and any(opacity[n] == 0.2 for n in opacity if n not in near)
    # a pointer resting on the node it clicked jitters; vis would show the box again over the node
    x, y = box["x"] + target["x"], box["y"] + target["y"]
    for dx in (2, -2, 1):
        page.mouse.move(x + dx, y + 1)
        page.wait_for_timeout(600)
    assert frame.evaluate(TIPS_SHOWN_JS) == 0
    page.screenshot(path=str(SHOTS / "evidence-graph-traced.png"), full_page=True)
    # the legend, teal named in it, whole inside its frame
    bottom, inner, legend = frame.evaluate("() => { const l = document.getElementById('pathlens-legend');"
                                           " return [l.getBoundingClientRect().bottom, window.innerHeight, l.innerText]; }")
    assert bottom <= inner and "trace its paths in teal" in legend, (bottom, inner, legend)
    # once the pointer has left it, a hover shows the box again
    other = frame.evaluate("""(id) => {
      const o = nodes.getIds().find(n => n !== id);
      const p = network.canvasToDOM(network.getPositions([o])[o]);
      const r = document.querySelector('#mynetwork canvas').getBoundingClientRect();
      return {x: r.left + p.x, y: r.top + p.y};
    }""", target["id"])
    page.mouse.move(box["x"] + 3, box["y"] + 3)
    page.wait_for_timeout(300)
    page.mouse.move(box["x"] + other["x"], box["y"] + other["y"])
    frame.wait_for_function(f"() => ({TIPS_SHOWN_JS})() > 0", timeout=10_000)
    no_exception(page)
    page.context.close()



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
    report.screenshot(path=str(SHOTS / "evidence-report.png"), full_page=False)
    assert [r for r in requests if not r.startswith(("file:", "about:", "data:"))] == []
    assert errors == []
    assert report.locator("svg[aria-label='evidence graph']").count() == 1
    context.close()



@pytest.fixture
def fresh_app_url(tmp_path):
    """A server of its own over an empty cache, as `make run` starts one on a new machine."""
    from tests.test_browser import _start_app, _stop_app

    proc, url = _start_app("streamlit-fresh.log", str(tmp_path / "empty-cache"))
    yield url
    _stop_app(proc)


def test_the_readme_demo_script(fresh_app_url, browser, tmp_path):
    """README, "A demo in five steps", step by step, with a screenshot of each, on a fresh server with an empty
    cache: the first view is the README's first step, answered by the page's own retriever."""
    from datetime import datetime, timezone

    from engine.ingest.corpus import load_corpus

    app_url = fresh_app_url
    core = load_corpus("dataroom-core")
    demo = next(q for q in core.queries if q.id == core.demo_question)
    # 1. the app opens on the measured demo question, both gold passages in the top five
    page = open_page(browser, app_url + "/", wait_for="[data-testid=stMain] h1")
    from playwright.sync_api import expect

    # the widget may still be settling after the run that drew the hits: wait for its value, do not race it
    expect(page.get_by_role("textbox", name="Question", exact=True)).to_have_value(demo.text, timeout=300_000)
    wait_idle(page, timeout=300)
    main = page.locator("[data-testid=stMain]").inner_text()
    assert "Answered by" not in main and "stand" not in main.lower(), main[:400]  # no stand-in opens the demo
    # one build box, the whole room's: not a stand-in's ("ready for bm25, the quicker retriever that answers first")
    boxes = [b.split("\n")[-1].strip()  # after the icon's name
             for b in page.locator("[data-testid=stMain] [data-testid=stExpander] summary").all_inner_texts()]
    assert "quicker retriever" not in main and [b for b in boxes if b.startswith("Index of")] == [
        "Index of dataroom-core ready"], boxes
    assert len(hits(page)) == 5 and sum("★ gold" in h for h in hits(page)) == 2
    page.screenshot(path=str(SHOTS / "demo-1-opens.png"), full_page=True)
    # 2. the page says why it opened on this question, and answer #3's sentence says what it owes to the bridge
    why = page.get_by_text(re.compile(r"^Why this example: answer #3 owes \d+% of its score to Solano Foods, reached by "
                                      r"way of other passages; the strongest route runs through Juniper Peak Growth Fund II"))
    why.wait_for(timeout=30_000)
    third = page.locator("[data-testid=stMain] p", has_text=re.compile(r"^Its score: ")).nth(2)
    third.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "demo-2-sentence.png"))
    sentence = third.inner_text()
    assert re.match(r"Its score: \d+% passages like the question .*, \d+% from Solano Foods by way of other passages "
                    r"\(strongest route through Juniper Peak Growth Fund II\), ", sentence), sentence
    # 3. clicking #3 in the evidence graph turns its paths red and fades the rest
    frame = graph_frame(page)
    target = frame.evaluate("""() => {
      const id = network.body.data.nodes.get().find(n => /^(★ )?#3 /.test(n.label)).id;
      const p = network.canvasToDOM(network.getPositions([id])[id]);
      const r = document.querySelector('#mynetwork canvas').getBoundingClientRect();
      return {x: r.left + p.x, y: r.top + p.y, on: pathlensPaths[id]};
    }""")
    box = page.locator("[data-testid=stMain] iframe").first.bounding_box()
    # hovering #3 shows its text in the page's sans-serif, wrapped inside the frame
    page.mouse.move(box["x"] + target["x"], box["y"] + target["y"])
    frame.wait_for_selector("div.vis-tooltip", state="visible", timeout=10_000)
    tip = frame.evaluate("""() => { const t = document.querySelector('div.vis-tooltip');
      const r = t.getBoundingClientRect(), cs = getComputedStyle(t);
      return {font: cs.fontFamily, wrap: cs.whiteSpace, right: r.right, width: document.documentElement.clientWidth}; }""")
    assert "serif" not in tip["font"].replace("sans-serif", "") and tip["wrap"] == "pre-wrap", tip
    assert tip["right"] <= tip["width"], tip
    page.locator("[data-testid=stMain] iframe").first.screenshot(path=str(SHOTS / "demo-3-hover.png"))
    page.mouse.click(box["x"] + target["x"], box["y"] + target["y"])
    frame.wait_for_function(TRACED_JS, timeout=10_000)
    colors = frame.evaluate("() => Object.fromEntries(edges.get().map(e => [e.id, e.color]))")
    assert target["on"] and all(colors[e] == TRACE_COLOR for e in target["on"])
    page.locator("[data-testid=stMain] iframe").first.screenshot(path=str(SHOTS / "demo-3-traced.png"))
    # 4. what if the bridge were not in the graph: arrows against the original ranking, and it is crossed out
    page.get_by_text("What if… take out an entity or a passage").click()
    take_out = page.get_by_role("combobox", name="Take out entities")
    take_out.click()
    # typed as a person types, a key at a time, and chosen once the list holds only that name: typed at once and
    # chosen at once, the choice was lost in a third of local runs (the list still catching up with the typing)
    take_out.press_sequentially("Juniper Peak Growth Fund II", delay=30)
    only = page.get_by_role("option")
    expect(only).to_have_text(["Juniper Peak Growth Fund II"], timeout=30_000)
    before = mark(page)
    only.click()
    page.keyboard.press("Escape")
    page.wait_for_function("() => location.href.includes('without=Juniper+Peak+Growth+Fund+II')", timeout=120_000)
    wait_idle(page, before)
    page.get_by_text("Arrows: each passage's move against the ranking with nothing taken out, with its score then "
                     "when the score changed.").wait_for(timeout=60_000)
    assert any(label.startswith("✕ Juniper Peak Growth Fund II") for label in graph_nodes(page))
    # #3 does not hold Solano Foods: its share is still said as reached through another bridge, never as the name
    third = page.locator("[data-testid=stMain] p", has_text=re.compile(r"^Its score: ")).nth(2).inner_text()
    assert re.search(r"\d+% from Solano Foods by way of other passages \(strongest route through ", third) \
        and "the name “Solano Foods”" not in third, third
    page.screenshot(path=str(SHOTS / "demo-4-what-if.png"), full_page=True)
    no_exception(page)
    # 5. the evidence report, named after the question and the day, opens with the answers
    with page.expect_download(timeout=120_000) as info:
        page.get_by_role("button", name="Download the evidence report (HTML)").click()
    download = info.value
    day = datetime.now(timezone.utc).date().isoformat()
    assert download.suggested_filename == f"evidence-report-who-is-the-largest-investor-in-the-fund-{day}.html"
    report = tmp_path / download.suggested_filename
    download.save_as(str(report))
    text = report.read_text("utf-8")
    assert text.index("<h2>Answers") < text.index("Its score: ") < text.index("<h2>How this was computed")
    assert "what-if: taken out" in text and "Juniper Peak Growth Fund II" in text
    # it reads within the window: the long link to the view wraps instead of widening the page
    opened = page.context.new_page()
    opened.set_viewport_size({"width": 1400, "height": 1000})
    opened.goto(report.as_uri())
    assert opened.evaluate("() => document.documentElement.scrollWidth <= document.documentElement.clientWidth")
    page.context.close()

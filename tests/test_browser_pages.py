"""Headless Chromium on "See the page": an uploaded 10-K's hits each open on the cited page, drawn with the passage
outlined and what matched marked, legible in a 1400×900 window; the strip of pages jumps to their hits; the pages
come after the hits; the report downloaded from the page holds the same pages as images."""

from __future__ import annotations

import io
import json
import re
import time
from urllib.parse import urlencode

import pytest

from tests.conftest import ROOT
from tests.test_browser import (CONSOLE, SHOTS, app_url, browser, hits, mark, new_context, start_page,  # noqa: F401
                                no_exception, wait_idle)

APPLE = ROOT.parent / "shared" / "data" / "filings" / "APPLE_2022_10K.pdf"
FIRST = "How much did Apple spend on share repurchases in 2022?"
SECOND = "What were Apple's total net sales of iPhone in 2022?"


def _open(browser, url):
    """A page in a 1400×900 window, its console errors and failed responses recorded (as test_browser's)."""
    page = start_page(browser, url, viewport={"width": 1400, "height": 900})
    page.wait_for_selector("[data-testid=stMain] h1", timeout=120_000)
    wait_idle(page)
    return page


def _marked_png(page, app_url, expander):
    """The page image the expander shows, as the browser got it, and the marks the page says it drew on it."""
    from PIL import Image

    data = expander.locator(".page-marks").first
    marks = json.loads(data.get_attribute("data-marks"))
    src = expander.locator("[data-testid=stImage] img, [data-testid=stFullScreenFrame] img").first.get_attribute("src")
    body = page.request.get(src if src.startswith("http") else app_url + src).body()
    return Image.open(io.BytesIO(body)).convert("RGB"), marks, int(data.get_attribute("data-width"))


def _rgb(color: str) -> tuple[int, int, int]:
    return int(color[1:3], 16), int(color[3:5], 16), int(color[5:7], 16)


def test_each_hit_opens_on_its_page_with_the_passage_outlined_and_the_matches_marked(app_url, browser, tmp_path):
    if not APPLE.is_file():
        pytest.skip(f"{APPLE} is absent: the shared filings lie beside the checkout in CI")
    from engine.explain.page_marks import MARK_COLORS

    page = _open(browser, app_url + "/?" + urlencode({"corpus": "your own files", "q": FIRST,
                                                      "retriever": "filing-graph"}))
    since = mark(page)
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').nth(0).set_input_files(str(APPLE))
    wait_idle(page, since, timeout=300)
    try:
        page.wait_for_selector("[data-testid=stExpander] >> text=See the page: APPLE_2022_10K.pdf", timeout=300_000)
    except Exception as e:  # Playwright's TimeoutError: say what the page showed instead
        raise AssertionError(f"{e}\n{page.locator('[data-testid=stMain]').inner_text()[:1500]}") from None
    wait_idle(page, timeout=300)
    no_exception(page)
    first = hits(page)
    assert first[0].startswith("1. Apple FY2022 10-K p.36"), first  # the statement of cash flows
    # one "See the page" per hit, the top one open on its image
    boxes = page.locator("[data-testid=stExpander]").filter(has_text="See the page: APPLE_2022_10K.pdf")
    assert boxes.count() == len(first) == 5
    top = boxes.first
    assert "See the page: APPLE_2022_10K.pdf page 36" in top.inner_text()
    image = top.locator("[data-testid=stImage] img").first
    image.wait_for(timeout=60_000)
    shown = image.bounding_box()
    top.screenshot(path=str(SHOTS / "see-the-page-top-hit.png"))
    # the passage close up across the column: a statement's figures at about their printed size (the whole page
    # beside its text was 310 px wide at 1400, #63)
    assert shown["width"] >= 800, shown
    png, marks, width = _marked_png(page, app_url, top)
    assert width == 1400 and png.width <= width  # drawn 1400 px wide, shown cut to its ink
    kinds = {m["kind"] for m in marks}
    assert "passage" in kinds and kinds & {"entity", "word"}, marks
    assert any(m["kind"] == "entity" and "Repurchases of common stock" in m["text"] for m in marks), marks
    # the outline and each fill are drawn where the marks say: the outline's left edge, an entity's underline
    outline = next(m for m in marks if m["kind"] == "passage")["box_px"]
    assert png.getpixel((outline[0] - 3, (outline[1] + outline[3]) // 2)) == _rgb(MARK_COLORS["passage"])
    entity = next(m for m in marks if m["kind"] == "entity")["box_px"]
    assert png.getpixel(((entity[0] + entity[2]) // 2, entity[3])) == _rgb(MARK_COLORS["entity"])
    legend = top.locator(".marks-key").inner_text()
    assert "the passage the hit cites" in legend and "a seed entity of the walk" in legend
    # beside the image: the page's text, the statement's rows with their column headers
    text = top.locator(".page-text").inner_text()
    assert re.search(r"Repurchases of common stock: .*2022 \(89,402\)", text), text[:2000]
    # the passage's lines come first in view, the lines above them folded; the row read is one of them
    assert top.locator(".page-text > details summary").inner_text().endswith("lines above the passage")
    assert "Repurchases of common stock:" in top.locator(".page-text > .in-passage").all_inner_texts().__str__()
    top.screenshot(path=str(SHOTS / "see-the-page-top-hit.png"))
    page.screenshot(path=str(SHOTS / "see-the-page.png"), full_page=True)
    page.screenshot(path=str(SHOTS / "see-the-page-window.png"))  # the 1400×900 window as a reader first sees it
    # zoom: the image's own full-screen view, and the whole page at full size to save
    close = page.get_by_role("button", name="Close fullscreen").first
    for _ in range(3):  # the toolbar shows on hover: on a busy machine a click can land before the view opens
        image.hover()
        top.get_by_role("button", name="Fullscreen").first.click()
        try:
            close.wait_for(timeout=10_000)
            break
        except Exception:  # Playwright's TimeoutError: hover and click again
            continue
    page.screenshot(path=str(SHOTS / "see-the-page-fullscreen.png"))
    page.get_by_role("button", name="Close fullscreen").first.click()
    # the whole page is one click away
    top.get_by_role("tab", name="The whole page").click()
    whole_page = top.locator("[data-testid=stImage] img").nth(1)
    whole_page.wait_for(timeout=30_000)
    assert whole_page.bounding_box()["height"] > shown["height"]  # the page, taller than its close-up
    top.screenshot(path=str(SHOTS / "see-the-page-whole.png"))
    with page.expect_download(timeout=60_000) as saved:
        top.get_by_role("button", name="Save the page at full size (PNG)").click()
    from PIL import Image

    whole = Image.open(saved.value.path())
    assert whole.width == 1400 and saved.value.suggested_filename == "APPLE_2022_10K-p36.png"

    # the strip: one thumbnail per page, each a link to its hit; the third jumps to hit 3
    strip = page.locator("[data-testid=page-strip] a")
    assert strip.count() == 5 and strip.first.get_attribute("href") == "#hit-1"
    strip.first.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "see-the-page-strip.png"))
    page.set_viewport_size({"width": 1000, "height": 900})  # a narrow window: the strip wraps, no thumbnail hidden
    page.wait_for_timeout(500)
    right = page.locator("[data-testid=page-strip]").bounding_box()
    for i in range(5):
        box = strip.nth(i).bounding_box()
        assert box["x"] + box["width"] <= right["x"] + right["width"] + 1, (i, box, right)
    strip.first.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "see-the-page-strip-1000px.png"))
    page.set_viewport_size({"width": 1400, "height": 900})
    page.wait_for_timeout(500)
    strip.nth(2).click()
    page.wait_for_timeout(800)
    title = page.locator("[data-testid=stMain] p").filter(has_text=re.compile(r"^3\. Apple FY2022 10-K p\.")).first
    where = title.bounding_box()  # below the app's header bar, near the window's top
    assert where is not None and 60 <= where["y"] < 300, where
    page.screenshot(path=str(SHOTS / "see-the-page-jumped-to-hit-3.png"))

    # another question: its hits are on the screen before its pages, which follow without another click
    box = page.get_by_label("Question", exact=True)
    box.fill(SECOND)
    since = mark(page)
    started = time.perf_counter()
    box.press("Enter")
    page.wait_for_function("before => { const first = [...document.querySelectorAll('[data-testid=stMain] p')]"
                           ".map(p => p.innerText.trim()).find(t => /^1\\. .+ · score/.test(t));"
                           " return first && first !== before; }", arg=first[0], timeout=120_000, polling=20)
    hits_at = time.perf_counter() - started
    now = hits(page)[0]
    cited = re.match(r"1\. Apple FY2022 10-K p\.(\d+)", now)
    assert cited, now
    label = f"See the page: APPLE_2022_10K.pdf page {cited.group(1)}"
    page.locator("[data-testid=stExpander]").filter(has_text=label).first.locator(
        "[data-testid=stImage] img").first.wait_for(timeout=120_000)  # the close-up (the whole page is a tab)
    pages_at = time.perf_counter() - started
    wait_idle(page, since)
    no_exception(page)
    (ROOT / "test-output").mkdir(exist_ok=True)
    (ROOT / "test-output" / "see-the-page-timing.json").write_text(json.dumps(
        {"question": SECOND, "top_hit": now, "hits_shown_s": round(hits_at, 3), "top_page_shown_s": round(pages_at, 3)}))
    assert hits_at < pages_at
    page.screenshot(path=str(SHOTS / "see-the-page-second-question.png"), full_page=True)

    # the report the page downloads holds the five pages as images, and nothing remote
    with page.expect_download(timeout=120_000) as info:
        page.get_by_role("button", name="Download the evidence report (HTML)").click()
    report = tmp_path / "report.html"
    info.value.save_as(str(report))
    written = report.read_text("utf-8")
    assert len(re.findall(r"<img src='data:image/png;base64,", written)) == 5
    assert not re.search(r"""(?:src|href)=["']?https?://""", written)
    assert report.stat().st_size < 5_000_000
    page.context.close()
    # it opens offline: with every request but the file itself refused, its five pages are drawn
    offline = new_context(browser, viewport={"width": 1400, "height": 900})
    asked: list[str] = []
    offline.route("**/*", lambda route: route.continue_() if route.request.url.startswith("file:")
                  else (asked.append(route.request.url), route.abort()))
    reader = offline.new_page()
    reader.goto(report.as_uri())
    drawn = reader.evaluate("() => [...document.querySelectorAll('figure.page img')]"
                            ".map(i => i.complete && i.naturalWidth)")
    assert drawn == [900] * 5 and asked == [], (drawn, asked)
    reader.locator("figure.page").first.scroll_into_view_if_needed()
    reader.screenshot(path=str(SHOTS / "see-the-page-report-offline.png"))
    offline.close()


def test_compare_shows_two_retrievers_top_pages_side_by_side(app_url, browser):
    if not APPLE.is_file():
        pytest.skip(f"{APPLE} is absent: the shared filings lie beside the checkout in CI")
    page = _open(browser, app_url + "/compare?" + urlencode({"corpus": "your own files", "q": FIRST, "k": 5,
                                                             "retrievers": "bm25,filing-graph"}))
    since = mark(page)
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').nth(0).set_input_files(str(APPLE))
    wait_idle(page, since, timeout=300)
    said = page.get_by_text("Their top pages side by side")
    try:
        said.wait_for(timeout=300_000)
    except Exception as e:  # Playwright's TimeoutError: say what the page showed instead
        raise AssertionError(f"{e}\n{page.locator('[data-testid=stMain]').inner_text()[:2000]}") from None
    wait_idle(page, timeout=300)
    no_exception(page)
    columns = page.locator("[data-testid=stMain] [data-testid=stCaptionContainer]").filter(
        has_text=re.compile(r"'s first hit cites APPLE_2022_10K\.pdf page \d+"))
    assert columns.count() == 2
    assert columns.nth(0).inner_text().startswith("filing-graph's first hit cites APPLE_2022_10K.pdf page 36")
    images = page.locator("[data-testid=stMain] [data-testid=stImage] img")
    assert images.count() == 2
    boxes = [images.nth(i).bounding_box() for i in range(2)]
    assert boxes[0]["x"] + boxes[0]["width"] <= boxes[1]["x"] and abs(boxes[0]["y"] - boxes[1]["y"]) < 40, boxes
    said.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "see-the-page-compare.png"))
    page.context.close()

"""What only a server shared by several browsers shows: damaged files named on the Corpus page, eight users
building different rooms at once, and a closed tab's build stopped with its worker processes.

The app runs in a server of this module's own, so the test can see its child processes."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from urllib.parse import urlencode

import pytest

from engine.evaluate.perf.click_to_idle import open_advanced
from tests.test_browser import (SHOTS, _start_app, _stop_app, browser, no_exception, open_page,  # noqa: F401
                                start_page, wait_idle)

UPLOAD = "your own files"


@pytest.fixture(scope="module")
def server():
    proc, url = _start_app("streamlit-sessions.log")
    yield proc, url
    _stop_app(proc)


def workers_of(pid: int, module: str) -> set[int]:
    """Live processes started by `pid` running `python -m module` (from /proc)."""
    found = set()
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            stat = (proc / "stat").read_text().rsplit(")", 1)[1].split()
            cmdline = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if int(stat[1]) == pid and stat[0] != "Z" and module.encode() in cmdline:
            found.add(int(proc.name))
    return found


def upload(page, files) -> None:
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').first.set_input_files([str(f) for f in files])


def test_files_added_on_the_corpus_page_become_the_corpus_its_damaged_ones_named_and_the_good_one_answers(
        server, browser, tmp_path):
    from tests.filingmaker import write_pdfs

    room = write_pdfs(tmp_path / "room")
    (room / "ACME_2020_10K.pdf").unlink()  # one good filing…
    good = (room / "ACME_2019_10K.pdf").read_bytes()
    (room / "TRUNCATED.pdf").write_bytes(good[: len(good) // 3])  # …and three damaged ones
    (room / "GARBAGE.pdf").write_bytes(b"%PDF-1.4\n" + bytes(range(256)) * 8)
    (room / "HALF_A_HEADER.pdf").write_bytes(b"%PDF-1.")
    # on the bundled corpus, through the Corpus page's own uploader (not the sidebar's): the files become the corpus
    page = open_page(browser, server[1] + "/corpus")
    page.locator('[data-testid="stMain"] [data-testid="stFileUploaderDropzoneInput"]').set_input_files(
        [str(f) for f in sorted(room.iterdir())])
    page.wait_for_selector("[data-testid=stMain] >> text=left out of this corpus", timeout=120_000)
    wait_idle(page, timeout=240)
    no_exception(page)
    assert "corpus=your+own+files" in page.url
    assert page.locator('[data-testid="stSidebar"]').get_by_text("Using the files uploaded earlier in this session").count() == 1
    main = page.locator("[data-testid=stMain]").inner_text()
    assert "3 files left out of this corpus: see Documents." in main, main[:1500]
    page.get_by_role("tab", name="Documents").click()
    page.get_by_text("Left out", exact=True).wait_for(timeout=30_000)
    page.get_by_text("Left out", exact=True).evaluate("e => e.scrollIntoView({block: 'start'})")
    page.screenshot(path=str(SHOTS / "damaged-room-corpus.png"), full_page=True)
    tab = page.locator('[data-testid="stTabs"]').inner_text()
    for name in ("TRUNCATED.pdf", "GARBAGE.pdf", "HALF_A_HEADER.pdf"):  # each reason whole, in a sentence
        assert re.search(rf"{name}: [a-z][^\n]{{30,}}", tab), tab[:1500]
    # the sidebar names the same files
    warning = page.locator('[data-testid="stSidebar"] [data-testid="stAlert"]').inner_text()
    assert warning.startswith("Left out: ")
    for name in ("TRUNCATED.pdf", "GARBAGE.pdf", "HALF_A_HEADER.pdf"):
        assert re.search(rf"{name}: [a-z]", warning), warning
    assert "ACME_2019_10K.pdf" not in warning and "Traceback" not in warning + main
    page.get_by_role("link", name=re.compile("Query")).first.click()
    page.wait_for_selector("[data-testid=stMain] h1 >> text=Query", timeout=60_000)
    page.get_by_label("Question", exact=True).fill("What was Acme's capex in FY2019 according to the cash flow statement?")
    page.keyboard.press("Enter")
    page.wait_for_selector('[data-testid="stMain"] >> text=score', timeout=240_000)
    wait_idle(page, timeout=240)
    no_exception(page)
    main = page.locator("[data-testid=stMain]").inner_text()
    first = main.split("\n1. ", 1)[1][:600] if "\n1. " in main else main
    assert first.startswith("Acme Widgets FY2019 10-K p."), main[:2000]  # the good filing, named by who filed it
    page.screenshot(path=str(SHOTS / "damaged-room-query.png"), full_page=True)
    page.context.close()


def test_eight_users_building_eight_rooms_at_once_each_get_their_own_answer(server, browser, tmp_path):
    pages = []
    for i in range(8):
        room = tmp_path / f"room{i}.txt"
        room.write_text(f"Vendor{i} Holdings acquired Target{i} Mills in 201{i}.\n\n"
                        f"Target{i} Mills makes paper in Ohio. Its CFO is Dana Cho{i}.\n\n"
                        "The weather was fine and nothing else happened.")
        pages.append((i, room, start_page(browser, server[1] + "/?" + urlencode(
            {"corpus": UPLOAD, "q": f"Who acquired Target{i} Mills?"}))))
    for i, room, page in pages:  # eight sessions open at once…
        page.wait_for_selector("[data-testid=stMain] h1", timeout=120_000)
        wait_idle(page)
    for i, room, page in pages:  # …and every upload is in before the first build is over
        upload(page, [room])
    for i, room, page in pages:
        page.wait_for_selector('[data-testid="stMain"] >> text=score', timeout=300_000)
        wait_idle(page, timeout=300)
        no_exception(page)
        main = page.locator("[data-testid=stMain]").inner_text()
        # the answer may come from the finished index or from a stand-in while it builds (a loaded server): either
        # way it is this user's room that answers
        first = re.search(r"^From .* · passage (\S+)$", main, re.M)  # the first hit's passage id
        assert first and first.group(1).startswith(f"room{i}.txt"), main[:2000]
        assert not re.search(rf"room(?!{i})\d\.txt", main), main[:2000]  # nothing of another user's room
    pages[0][2].screenshot(path=str(SHOTS / "eight-users-room0.png"), full_page=True)
    for _, _, page in pages:
        page.context.close()


def test_closing_a_tab_mid_build_stops_its_worker_processes_within_5_s(server, browser, tmp_path):
    """A room big enough to encode on worker processes (engine.indexing.sharded); once they run, the tab
    closes, and nobody else watches the build: its workers are gone within 5 s, and the server serves on."""
    proc, url = server
    room = tmp_path / "big_room.jsonl"
    room.write_text("\n".join(json.dumps({"id": f"p{n}", "text": f"Passage {n}: Vendor{n % 97} Holdings signed "
                                          f"contract {n} with Buyer{n % 89} Corp for {n} widgets in Ohio in "
                                          f"{1990 + n % 30}, under the credit agreement of Calder Bank {n}."})
                              for n in range(1200)) + "\n")
    page = open_page(browser, url + "/?" + urlencode({"corpus": UPLOAD, "q": "Who signed contract 7?"}))
    upload(page, [room])
    # answered at once by a ready retriever, while the chosen one's stages build in the background
    page.wait_for_selector("text=Answered by bm25", timeout=120_000)
    deadline = time.monotonic() + 60
    while not workers_of(proc.pid, "engine.indexing.worker"):
        assert time.monotonic() < deadline, "no build worker process was seen"
        time.sleep(0.1)
    assert workers_of(proc.pid, "engine.indexing.worker")
    page.context.close()
    closed = time.monotonic()
    while workers_of(proc.pid, "engine.indexing.worker") and time.monotonic() - closed < 30:
        time.sleep(0.1)
    stopped_after = time.monotonic() - closed
    print(f"\nthe build's workers stopped {stopped_after:.1f} s after its tab closed")
    assert stopped_after <= 5, f"the build's workers ran on for {stopped_after:.1f} s after the tab closed"
    assert proc.poll() is None
    again = open_page(browser, url + "/corpus")
    no_exception(again)
    again.context.close()


def test_documents_uploaded_on_the_query_page_start_from_their_own_defaults_with_no_question_run(server, browser,
                                                                                                 tmp_path):
    """The data room's question and tuned w must not carry over to documents the user brings."""
    page = open_page(browser, server[1] + "/")
    open_advanced(page)
    main = page.locator("[data-testid=stMain]").inner_text()
    assert "tuned defaults (w (dense passage-seed share) = 0.5" in main  # the data room opens on its own
    page.locator('[data-testid="stSidebar"] [data-testid="stSelectbox"]').first.click()
    page.get_by_role("option", name=UPLOAD).click()
    room = tmp_path / "memo.txt"
    room.write_text("Vendor Holdings acquired Target Mills in 2019.\n\nTarget Mills makes paper in Ohio.")
    page.wait_for_selector('[data-testid="stFileUploaderDropzoneInput"]', state="attached", timeout=60_000)
    upload(page, [room])
    page.wait_for_selector("[data-testid=stMain] >> text=Type a question.", timeout=120_000)
    wait_idle(page)
    no_exception(page)
    open_advanced(page)  # the fold closes with the corpus's new widgets
    main = page.locator("[data-testid=stMain]").inner_text()
    assert "The rest start from the catalog's defaults." in main and "tuned defaults" not in main  # its own, no other's
    assert page.get_by_label("Question", exact=True).input_value() == ""
    assert "Intel" not in main and "Elliot Park" not in main and " · score" not in main  # nothing was run
    assert "&q=" not in page.url and "?q=" not in page.url and "passage_weight=0.75" in page.url, page.url
    page.screenshot(path=str(SHOTS / "upload-own-defaults.png"), full_page=True)
    page.context.close()

"""Click to idle on the Query page, in headless Chromium: the app started in its own process on the data room's
core, then three interactions a user makes (an α change, a retriever switch, an example pick), each timed from the
action until the page last changed, three times. Needs Playwright (requirements-bench.txt) and Debian's Chromium
(`make chromium`)."""

from __future__ import annotations

import os
import re
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

from ...errors import PathLensError
from .common import ROOT, Context

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-quic"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_app(log: Path, cache_dir: str | None = None, timeout_s: float = 90,
              env: dict[str, str] | None = None) -> tuple[subprocess.Popen, str]:
    """The app in a process of its own on a free local port, with `env` added to its environment; its URL once it
    answers its health probe."""
    port = free_port()
    env = {**os.environ, "HF_HUB_OFFLINE": "1", **({"PATHLENS_CACHE_DIR": cache_dir} if cache_dir else {}), **(env or {})}
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.port",
                                 str(port), "--server.address", "127.0.0.1", "--server.headless", "true"],
                                cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        try:
            if urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).status == 200:
                return proc, url
        except OSError:
            time.sleep(0.5)
    proc.kill()
    raise RuntimeError(f"the app did not start within {timeout_s:.0f} s (its log: {log})")


def stop_app(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()


MARK_JS = """() => {
  if (!window.__observer) {
    window.__observer = new MutationObserver(() => { window.__last = performance.now(); });
    window.__observer.observe(document.body, {subtree: true, childList: true, attributes: true, characterData: true});
  }
  window.__t0 = window.__last = performance.now();
}"""
SETTLED_JS = """() => [document.querySelector('[data-testid=stApp]').dataset.testScriptState,
                       performance.now() - window.__last, window.__last - window.__t0]"""


def seconds_to_idle(page, action, url_has: str, quiet_ms: float = 800) -> float:
    """Seconds from an action until the page last changed: the script run has ended, the URL carries the
    new setting, and no element has changed for `quiet_ms` (measured in the page's own clock)."""
    page.evaluate(MARK_JS)
    action()
    deadline = time.time() + 60
    while time.time() < deadline:
        state, quiet, last = page.evaluate(SETTLED_JS)
        if state == "notRunning" and quiet >= quiet_ms and url_has in page.url:
            return last / 1000
        time.sleep(0.05)
    raise RuntimeError(f"the page did not settle with {url_has!r} in its URL")


def wait_for_first_answer(page, timeout_ms: float) -> None:
    """Until the Query page shows its first hit's heading ("1. Credit Agreement — … · score …")."""
    page.locator("[data-testid=stMarkdownContainer] p", has_text=re.compile(r"^1\. .+ · score")).first.wait_for(
        timeout=timeout_ms)


def choose(page, label: str, option: str) -> None:
    """Pick `option` in the Streamlit selectbox labelled `label`, as a person would: open it, click the option."""
    page.get_by_role("combobox", name=label, exact=True).click()
    page.get_by_role("option", name=option, exact=True).click()


def choose_method(page, name: str) -> None:
    """Pick the Query page's search method by its catalog name: the menu shows it in brackets after plain words
    ("graph of names (ppr-regex)")."""
    page.get_by_role("combobox", name="Search method", exact=True).click()
    page.get_by_role("option", name=re.compile(rf"(^|\()" + re.escape(name) + r"\)?$")).click()


def open_advanced(page) -> None:
    """Open the Query page's "Advanced settings" fold, where α, w and the seeding switches sit."""
    # the fold's own summary in the page's body: the sidebar's glossary names "Advanced settings" too
    page.locator('[data-testid="stMain"] [data-testid="stExpander"] summary').filter(
        has_text="Advanced settings").first.click()
    page.get_by_role("slider").first.wait_for()


@dataclass(frozen=True)
class Timing:
    p50_s: float
    max_s: float
    runs_s: list[float]


@dataclass(frozen=True)
class ClickToIdle:
    actions: dict[str, Timing]  # what was done → its seconds to idle

    def lines(self) -> list[str]:
        return ["click to idle on the Query page (dataroom-core, s): " + "; ".join(
            f"{what} p50 {t.p50_s:.2f}, max {t.max_s:.2f}" for what, t in self.actions.items())]


def measure(ctx: Context, rounds: int = 3) -> ClickToIdle:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        raise PathLensError("click_to_idle needs Playwright: .venv/bin/pip install -r requirements-bench.txt") from None
    if not Path(CHROMIUM).exists():
        raise PathLensError(f"click_to_idle needs Chromium at {CHROMIUM}: run `make chromium`")
    from ...ingest.corpus import load_corpus

    queries = load_corpus("dataroom-core").queries
    proc, url = start_app(ROOT / "test-output" / "perf-click-to-idle.log")
    times: dict[str, list[float]] = {"α change": [], "retriever switch": [], "example pick": []}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_context(viewport={"width": 1400, "height": 1100}).new_page()
            page.goto(url + "/?corpus=dataroom-core")
            wait_for_first_answer(page, 300_000)  # after the index is built
            open_advanced(page)
            slider = page.get_by_role("slider").first
            for i in range(rounds):
                slider.focus()
                times["α change"].append(seconds_to_idle(page, lambda: page.keyboard.press("ArrowRight"),
                                                         f"alpha={round(0.16 + 0.01 * i, 2):g}&"))
                target = "ppr-regex" if i % 2 == 0 else "hybrid-ner"
                times["retriever switch"].append(seconds_to_idle(page, lambda: choose_method(page, target),
                                                                 f"retriever={target}"))
                q = queries[i + 1]
                times["example pick"].append(seconds_to_idle(
                    page, lambda: choose(page, "Labeled example questions", f"{q.id} ({q.kind}) · {q.text}"),
                    urlencode({"q": q.text})))
            browser.close()
    finally:
        stop_app(proc)
    return ClickToIdle({what: Timing(statistics.median(ts), max(ts), ts) for what, ts in times.items()})

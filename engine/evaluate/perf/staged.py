"""A room of filings from nothing to answers, as an analyst meets it: `room_build` times `engine build` to each
retriever's readiness against today's path rerun in the same run (float32 encoding, every stage in catalog order:
`--baseline-build`), and `upload_first_answer` uploads the folder's files in headless Chromium to an app with an
empty cache, asks a question at once and times the first ranked, explained answer and the full retriever's."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from ...errors import PathLensError
from .common import ROOT, Context

TODAY_STAGES = "tokens,embeddings,extraction:regex,graph:regex,extraction:ner,graph:ner"  # catalog order, as it was


@dataclass(frozen=True)
class BuildRun:
    label: str
    seconds: float  # the whole build
    ready_after: dict[str, float]  # retriever → seconds from the start until it was ready

    def line(self) -> str:
        filing = self.ready_after.get("filing")
        return (f"  {self.label}: whole build {self.seconds:.1f} s" +
                (f"; filing ready after {filing:.1f} s" if filing is not None else "") +
                (f"; filing-graph after {self.ready_after['filing-graph']:.1f} s"
                 if "filing-graph" in self.ready_after else ""))


@dataclass(frozen=True)
class RoomBuild:
    runs: tuple[BuildRun, ...]

    def lines(self) -> list[str]:
        out = ["room_build (engine build from an empty cache, own processes):"] + [r.line() for r in self.runs]
        if len(self.runs) == 2:
            new, old = self.runs
            if "filing" in new.ready_after and "filing" in old.ready_after:
                out.append(f"  to the filing retriever: {new.ready_after['filing'] / old.ready_after['filing']:.2f}× "
                           f"today's path; whole build {new.seconds / old.seconds:.2f}×")
        return out


def _build(spec: str, label: str, env: dict[str, str], stages: str = "") -> BuildRun:
    with tempfile.TemporaryDirectory(prefix="pathlens-perf-") as cache:
        cmd = [sys.executable, "-m", "engine", "build", "--corpus", spec, "--json", "--cache-dir", cache]
        cmd += ["--stages", stages] if stages else []
        done = subprocess.run(cmd, cwd=ROOT, env={**os.environ, "HF_HUB_OFFLINE": "1", **env}, capture_output=True,
                              text=True)
    if done.returncode:
        raise PathLensError(f"{label}: engine build failed: {done.stderr.strip().splitlines()[-1:]}")
    out = json.loads(done.stdout)
    ready: dict[str, float] = {}
    for row in out["stages"]:
        for name in row["ready"]:
            ready.setdefault(name, row["after_seconds"])
    return BuildRun(label, out["seconds"], ready)


def room_build(ctx: Context) -> RoomBuild:
    runs = [_build(ctx.spec, "now (bfloat16 where the CPU has it, cheap stages first)", {})]
    if ctx.options.baseline_build:
        runs.append(_build(ctx.spec, "today's path (float32, catalog order)", {"PATHLENS_ENCODER_PRECISION": "float32"},
                           TODAY_STAGES))
    return RoomBuild(tuple(runs))


@dataclass(frozen=True)
class UploadFirstAnswer:
    files: int
    question: str
    first_answer_s: float  # from the upload to a ranked, explained answer on the Query page
    first_by: str  # the sentence above it, or "" when the chosen retriever answered at once
    full_answer_s: float | None  # from the upload to the chosen retriever's own answer (after "Ask again")

    def lines(self) -> list[str]:
        return [f"upload_first_answer ({self.files} files uploaded in headless Chromium, empty cache; "
                f"“{self.question}”):",
                f"  first ranked, explained answer {self.first_answer_s:.1f} s after the upload"
                + (f" ({self.first_by.split(':')[0]})" if self.first_by else ""),
                f"  the filings retriever's own answer {self.full_answer_s:.1f} s after it"
                if self.full_answer_s is not None else "  the filings retriever's own answer: not reached"]


def upload_first_answer(ctx: Context) -> UploadFirstAnswer:
    from playwright.sync_api import sync_playwright

    from .click_to_idle import CHROMIUM, CHROMIUM_ARGS, start_app, stop_app

    folder = Path(ctx.spec)
    if not folder.is_dir():
        raise PathLensError(f"upload_first_answer uploads a folder's files; {ctx.spec!r} is not a folder")
    files = sorted(str(p) for p in folder.iterdir() if p.suffix.lower() in (".pdf", ".htm", ".html", ".txt"))
    question = ctx.options.question
    with tempfile.TemporaryDirectory(prefix="pathlens-perf-") as cache:
        proc, url = start_app(ROOT / "test-output" / "perf-upload.log", cache)
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                page = browser.new_page(viewport={"width": 1400, "height": 1100})
                page.goto(url + "/?corpus=your+own+files")
                uploader = page.locator('[data-testid="stFileUploaderDropzoneInput"]').nth(0)
                uploader.wait_for(state="attached", timeout=120_000)
                t0 = time.perf_counter()
                uploader.set_input_files(files)
                box = page.get_by_label("Question", exact=True)
                page.wait_for_selector("text=Questions to start with", timeout=600_000)
                box.fill(question)
                box.press("Enter")
                page.get_by_text(re.compile(r"^Top 5 (?:passages|pages) · ")).wait_for(timeout=600_000)
                page.wait_for_selector('[data-testid="stMain"] >> text=score', timeout=600_000)
                first = time.perf_counter() - t0
                said = page.get_by_text("Answered by ")
                by = said.first.inner_text() if said.count() else ""
                full = None
                if by:
                    again = page.get_by_role("button", name="Ask again with filing")
                    again.wait_for(timeout=1_800_000)
                    again.click()
                    page.get_by_text("Top 5 pages · filing", exact=True).wait_for(timeout=600_000)
                    full = time.perf_counter() - t0
                browser.close()
        finally:
            stop_app(proc)
    return UploadFirstAnswer(len(files), question, first, by, full)


__all__ = ["RoomBuild", "UploadFirstAnswer", "room_build", "upload_first_answer"]

"""`python -m engine perf`: speed and memory, as ratios against baselines measured in the same run.

Each section is a module measuring one thing and returning a typed result that renders itself (`lines()`);
SECTIONS lists them once, in the order they run and print. Benchmark-only dependencies (igraph, networkx,
Playwright) come from requirements-bench.txt. Timings are medians over repeats; this machine is noisy, so compare
ratios, not absolute numbers."""

from __future__ import annotations

import os
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable, Protocol

from ...errors import PathLensError
from . import adding, ann, click_to_idle, growth, kernel, latency, local_ppr, reading, staged, stages, startup, \
    sweep_time
from .common import Context, Options, load_spec


class Result(Protocol):
    def lines(self) -> list[str]: ...


@dataclass(frozen=True)
class Failed:
    error: str

    def lines(self) -> list[str]:
        return [f"FAILED: {self.error}"]


@dataclass(frozen=True)
class Section:
    name: str  # the --sections name and the report's key
    title: str  # what the log says while it runs
    measure: Callable[[Context], Result]
    applies: Callable[[Context], bool] = lambda ctx: True


SECTIONS = (
    Section("fresh_app_first_answer", "fresh start to first answer on the app's default corpus (empty cache, own "
            "process)", startup.fresh_app_first_answer),
    Section("cold_first_answer", "this corpus from an empty cache to the default view's first answer (own process)",
            startup.cold_first_answer),
    Section("cold_build", "cold build (fresh cache, own process; NER and encoding on a process per core past 1,000 "
            "passages)", startup.cold_build),
    Section("cold_build_one_process", "cold build in one process (fresh cache)", startup.cold_build_one_process),
    Section("warm_start", "warm start to first answer (cache filled, own process)", startup.warm_start),
    Section("add_document", "a document added to the room built without it, against a cold build of the whole room "
            "(own processes)", adding.measure, adding.applies),
    Section("read_isolation", "reading the documents in worker processes against in this process", reading.measure,
            reading.applies),
    Section("ner_setup_s", "NER set-up (process count, batch size) on 1,000 passages", stages.measure_ner_setup),
    Section("stage_costs", "the build's two long stages per core (one thread)", stages.measure_stage_costs),
    Section("ppr_kernel", "PPR kernel against igraph and networkx", kernel.measure),
    Section("query_latency", "query latency", latency.measure),
    Section("local_ppr", "local PPR (forward push) against the exact walk, question by question", local_ppr.measure,
            local_ppr.applies),
    Section("ann", "ANN index against exact dense search (--ann-size synthetic vectors for the timing)", ann.measure),
    Section("default_sweep", "full default sweep", sweep_time.measure, sweep_time.applies),
    Section("growth", "growth at the --growth-sizes generated passages", growth.measure,
            lambda ctx: ctx.options.include_growth),
    Section("click_to_idle", "click to idle on the Query page in headless Chromium", click_to_idle.measure),
    # minutes each on a room of filings: run when named
    Section("room_build", "engine build to each retriever's readiness, against today's path with --baseline-build",
            staged.room_build, lambda ctx: "room_build" in ctx.options.only),
    Section("upload_first_answer", "a folder uploaded in headless Chromium to a fresh app: first answer, then the "
            "full retriever's", staged.upload_first_answer, lambda ctx: "upload_first_answer" in ctx.options.only),
)
SECTION_NAMES = tuple(s.name for s in SECTIONS)


@dataclass(frozen=True)
class Report:
    corpus: str
    cores: int
    results: dict[str, Result]  # section name → its result, or Failed

    def failed(self) -> list[str]:
        return [name for name, r in self.results.items() if isinstance(r, Failed)]

    def table(self) -> str:
        lines = [f"corpus: {self.corpus}"]
        for name, result in self.results.items():
            lines += [f"{name}: {result.lines()[0]}"] if isinstance(result, Failed) else result.lines()
        return "\n".join(lines)

    def to_json(self) -> dict:
        return {"corpus": self.corpus, "machine": {"cores": self.cores},
                **{name: asdict(r) for name, r in self.results.items()}}


def run(spec: str, options: Options = Options(), log: Callable[[str], None] = print,
        sections: tuple[Section, ...] = SECTIONS) -> Report:
    """Every section in turn: one that fails is recorded as Failed and the rest still run, so a long run never
    loses what it measured. `options.only` names the sections to run (default: all that apply)."""
    names = {s.name for s in sections}
    for name in options.only:
        if name not in names:
            raise PathLensError(f"unknown perf section {name!r}; choose from {', '.join(s.name for s in sections)}")
    corpus = load_spec(spec)  # a bad corpus or file fails here, not minutes into the run
    results: dict[str, Result] = {}
    with tempfile.TemporaryDirectory(prefix="pathlens-perf-") as cache_dir:
        ctx = Context(spec, corpus, options, Path(cache_dir))
        for section in sections:
            if (options.only and section.name not in options.only) or not section.applies(ctx):
                continue
            log(section.title + "…")
            try:
                results[section.name] = section.measure(ctx)
            except Exception as e:  # noqa: BLE001 — recorded in the report and the log, never swallowed
                results[section.name] = Failed(f"{type(e).__name__}: {e}")
                log(f"  failed: {results[section.name].error}")
    return Report(spec, os.cpu_count() or 1, results)


__all__ = ["Failed", "Options", "Report", "SECTIONS", "SECTION_NAMES", "Section", "run"]

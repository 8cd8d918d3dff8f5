"""Start-up and builds, each in a fresh interpreter (perf.child): a fresh start to the first answer, a cold build
(on a process per core, and in one process), and a warm start from the filled cache."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field

from ...catalog import DEFAULT_RETRIEVER
from ...store.cache import DiskCache
from .common import Context, run_json


def _child(mode: str, spec: str, cache_dir: str) -> dict:
    return run_json(f"the {mode} process", "engine.evaluate.perf.child", mode, spec, cache_dir)


@dataclass(frozen=True)
class FirstAnswer:
    what: str  # "fresh" (the app's default corpus, empty cache), "cold" (this corpus, empty cache) or "warm"
    first_answer_s: float
    ppr_ner_dense_bm25_s: float
    peak_rss_mb: float
    peak_rss_worker_mb: float = 0.0
    cache_hits: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        with_others = f"{self.ppr_ner_dense_bm25_s:.1f} s with dense and bm25"
        if self.what == "fresh":
            return [f"fresh start to first answer on dataroom-core (empty cache): {self.first_answer_s:.1f} s "
                    f"({DEFAULT_RETRIEVER}), {with_others}"]
        if self.what == "cold":
            return [f"from an empty cache to the first answer of this corpus's default view: {self.first_answer_s:.1f} s "
                    f"({DEFAULT_RETRIEVER}; reading the files included), {with_others}; peak RSS {self.peak_rss_mb:.0f} MB"]
        return [f"warm start to first answer: {self.first_answer_s:.1f} s ({DEFAULT_RETRIEVER}, the default view; process "
                f"start included), {self.ppr_ner_dense_bm25_s:.1f} s to answers of it, dense and bm25; "
                f"peak RSS {self.peak_rss_mb:.0f} MB"]


def _first_answer(what: str, spec: str, cache_dir: str) -> FirstAnswer:
    return FirstAnswer(what=what, **_child("warm", spec, cache_dir))


@dataclass(frozen=True)
class Build:
    one_process: bool
    stages_s: dict[str, float]
    total_s: float
    peak_rss_mb: float
    peak_rss_worker_mb: float = 0.0

    def lines(self) -> list[str]:
        what = "cold build in one process" if self.one_process else "cold build"
        lines = [f"{what} (s): " + ", ".join(f"{s} {t:.1f}" for s, t in self.stages_s.items())
                 + f"; total {self.total_s:.1f} s, peak RSS {self.peak_rss_mb:.0f} MB"
                 + (f" (a worker process's {self.peak_rss_worker_mb:.0f} MB)" if self.peak_rss_worker_mb else "")]
        structure = self.stages_s.get("structure")
        if structure is not None:
            lines.append(f"  the filings' structure: {structure:.2f} s, {structure / self.total_s:.1%} of the {what}")
        return lines


def fresh_app_first_answer(ctx: Context) -> FirstAnswer:
    with tempfile.TemporaryDirectory(prefix="pathlens-perf-") as empty:
        return _first_answer("fresh", "dataroom-core", empty)


def cold_first_answer(ctx: Context) -> FirstAnswer:
    with tempfile.TemporaryDirectory(prefix="pathlens-perf-") as empty:
        return _first_answer("cold", ctx.spec, empty)


def cold_build(ctx: Context) -> Build:
    return Build(one_process=False, **_child("build", ctx.spec, str(ctx.cache_dir)))


def cold_build_one_process(ctx: Context) -> Build:
    with tempfile.TemporaryDirectory(prefix="pathlens-perf-") as other:
        return Build(one_process=True, **_child("build-one-process", ctx.spec, other))


def warm_start(ctx: Context) -> FirstAnswer:
    """From the cache the cold build filled; without a cold build in this run, from the app's own cache."""
    return _first_answer("warm", ctx.spec, str(ctx.cache_dir or DiskCache().directory))

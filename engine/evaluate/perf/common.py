"""What every perf section shares: timing helpers, a latency row, child processes and the run's context."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Callable

import numpy as np

from ...errors import NoSeedError
from ...indexing.index import Index
from ...ingest.corpus import Corpus, load_corpus
from ...store.cache import DiskCache

ROOT = Path(__file__).resolve().parents[3]  # the project folder (engine/evaluate/perf/common.py)


def median_time(fn: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def interleaved_times(fns: dict[str, Callable[[], object]], rounds: int) -> dict[str, list[float]]:
    """Each function timed once per round, in turn, so a burst of noise on this shared machine
    slows every contestant alike instead of skewing one ratio."""
    times: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t0)
    return times


def best_block_median(times: list[float], block: int = 10) -> float:
    """The fastest median over consecutive blocks of runs: a baseline's best state in this run."""
    return min(statistics.median(times[i:i + block]) for i in range(0, len(times), block))


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values), q))


@dataclass(frozen=True)
class Latency:
    p50_ms: float
    p95_ms: float

    @classmethod
    def of(cls, seconds: list[float]) -> "Latency":
        return cls(percentile(seconds, 50) * 1e3, percentile(seconds, 95) * 1e3)


def search_or_nothing(retriever, query: str):
    """A timed search; a question that seeds nothing is timed as what it costs to find that out."""
    try:
        return retriever.search(query, 10)
    except NoSeedError:
        return ()


def run_module(what: str, module: str, *args: str) -> str:
    """Run `python -m module args` from the project folder in a fresh interpreter; its last line of output."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    p = subprocess.run([sys.executable, "-m", module, *args], cwd=ROOT, env=env, capture_output=True, text=True)
    if p.returncode:
        last = (p.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"{what} exited with {p.returncode}: {last}")
    return p.stdout.strip().splitlines()[-1]


def run_json(what: str, module: str, *args: str) -> dict:
    return json.loads(run_module(what, module, *args))


def load_spec(spec: str) -> Corpus:
    """A corpus spec as the CLI takes it, or "bench:FORMAT:PATH" for a benchmark file's pooled open corpus."""
    if spec.startswith("bench:"):
        from ..benchmarks import load_questions, open_corpus

        _, fmt, path = spec.split(":", 2)
        return open_corpus(load_questions(fmt, path), f"{Path(path).stem} (open)")
    return load_corpus(spec)


@dataclass(frozen=True)
class Options:
    include_growth: bool = True
    include_sweep: bool = True
    only: tuple[str, ...] = ()  # the sections to run; empty: all
    ann_size: int = 100_000  # synthetic unit vectors for the ANN timing
    ann_pool: str | None = None  # another corpus pooled in for the ANN recall check
    growth_sizes: tuple[int, ...] = (1_000, 10_000, 100_000)
    add_document: str = ""  # the document add_document adds to the room built without it (default: the last by name)
    baseline_build: bool = False  # room_build: also rerun today's path (float32, catalog order)
    question: str = "What were total revenues?"  # upload_first_answer's question
    params: tuple[tuple[str, float | int], ...] = ()  # query_latency: catalog parameters over the corpus's defaults


class Context:
    """What the sections of one run share: the corpus, the cache folder the cold build fills (the app's own cache
    when the cold build is not run, so a warm rerun of one section is quick), and one in-process index on it."""

    def __init__(self, spec: str, corpus: Corpus, options: Options, cache_dir: Path):
        self.spec, self.corpus, self.options = spec, corpus, options
        self.cold = not options.only or "cold_build" in options.only
        self.cache_dir = cache_dir if self.cold else None

    @cached_property
    def index(self) -> Index:
        return Index(self.corpus, cache=DiskCache(self.cache_dir))

    @cached_property
    def queries(self) -> list[str]:
        return [q.text for q in self.corpus.queries] or [p.title for p in self.corpus.passages[:20]]

"""One start-up measurement in a fresh interpreter, so its peak memory and start-up are its own:

    python -m engine.evaluate.perf.child build|build-one-process|warm SPEC CACHE_DIR

prints one line of JSON: a build's stage times, or the time to the default view's first answer."""

from __future__ import annotations

import time

T0 = time.perf_counter()  # before the engine's imports: a start-up measurement includes them

import json  # noqa: E402
import resource  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

from ...catalog import DEFAULT_RETRIEVER, stages_for  # noqa: E402
from ...components import COMPONENTS  # noqa: E402
from ...errors import NoSeedError  # noqa: E402
from ...indexing.compute import LocalCompute  # noqa: E402
from ...indexing.index import Index, search_config  # noqa: E402
from ...store.cache import DiskCache  # noqa: E402
from .common import load_spec  # noqa: E402

MODES = ("build", "build-one-process", "warm")
STAGES = tuple(k for k in COMPONENTS if k != "ann")  # ann: only past ANN_MIN_PASSAGES, timed in its own section


def measure(mode: str, spec: str, cache_dir: str, t0: float) -> dict:
    corpus = load_spec(spec)
    index = Index(corpus, cache=DiskCache(Path(cache_dir)),
                  compute=LocalCompute(processes=1) if mode == "build-one-process" else LocalCompute())
    if mode.startswith("build"):
        index.build_stages(STAGES)
        return {"stages_s": dict(index.timings), "total_s": time.perf_counter() - t0}
    query = (corpus.queries[0].text if corpus.queries else corpus.passages[0].title) or "fund"
    try:
        # the app's default view: its components built as the app builds them, then the default
        # retriever with the corpus's tuned parameters
        config = search_config({}, corpus)
        index.build_stages(stages_for([DEFAULT_RETRIEVER], config.rrf.members))
        index.retriever(DEFAULT_RETRIEVER, config).search(query, 5)
    except NoSeedError:
        pass
    first = time.perf_counter() - t0
    index.retriever("dense").search(query, 5)
    index.retriever("bm25").search(query, 5)
    return {"first_answer_s": first, "ppr_ner_dense_bm25_s": time.perf_counter() - t0,
            "cache_hits": [e.component for e in index.cache.events if e.kind == "hit"]}


def main(argv: list[str]) -> None:
    mode, spec, cache_dir = argv
    if mode not in MODES:
        raise SystemExit(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
    r = measure(mode, spec, cache_dir, T0)
    r["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    r["peak_rss_worker_mb"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(json.dumps(r))


if __name__ == "__main__":
    main(sys.argv[1:])

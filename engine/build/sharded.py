"""The per-passage stages of a build (extraction with its filter, encoding) as tasks over shards of
a corpus, run by a `Runner`: a pool of local processes (`PoolRunner`) or a Ray cluster
(`engine.build.ray_build.RayRunner`).

Why the shards agree with a build in one process, bit for bit (tested):
- the filter is a sum of per-shard tallies (`entities.tally_mentions` / `merge_tallies`), and the
  regex extractor's one corpus-wide input, the words the corpus writes in lower case, is a union
  of per-shard sets computed first and sent to every shard;
- encoding shards are cut from the encoder's own batch order (`dense.batch_order`) at batch
  boundaries, so each batch holds the same texts as in one process (and ONNX Runtime gives the same
  floats on one thread as on two: checked on the full data room).
"""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Callable, Protocol, Sequence

import numpy as np

from ..errors import PathLensError
from ..graph.entities import Extraction, MentionTally, extract, extract_regex, extraction_from, lowercase_words, \
    merge_tallies, tally_mentions
from ..store import dense

Progress = Callable[[int, int], None] | None  # (passages done, total)

# ---------------------------------------------------------------- the tasks (run in workers)


def lowercase_task(texts: list[str]) -> frozenset[str]:
    return lowercase_words(texts)


def extract_task(builder: str, texts: list[str], common: frozenset[str] | None) -> MentionTally:
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):  # a worker per core: no BLAS threads of its own
        if builder == "regex":
            return tally_mentions(extract_regex(texts, common=common))
        return tally_mentions(extract(builder, texts))


def encode_task(texts: list[str], threads: int) -> np.ndarray:
    return dense.encode(texts, threads=threads)


# ---------------------------------------------------------------- runners


class Runner(Protocol):
    def run(self, stage: str, fn: Callable, calls: list[tuple], sizes: list[int], on_batch: Progress) -> list:
        """fn(*call) for every call, results in call order; `on_batch(done, total)` as shards finish,
        counting `sizes` (passages per call)."""
        ...


class PoolRunner:
    """Tasks on a pool of `processes` fresh interpreters (spawned, never forked: a build runs in a
    thread of the Streamlit server, and forking a threaded process can copy a held lock)."""

    def __init__(self, processes: int):
        self.processes = processes

    def run(self, stage: str, fn: Callable, calls: list[tuple], sizes: list[int], on_batch: Progress) -> list:
        results: list = [None] * len(calls)
        done, total = 0, sum(sizes)
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(self.processes, mp_context=context) as pool:
            futures = {pool.submit(fn, *call): i for i, call in enumerate(calls)}
            for future in as_completed(futures):
                i = futures[future]
                try:
                    results[i] = future.result()
                except BrokenProcessPool as e:
                    for f in futures:
                        f.cancel()
                    raise PathLensError(
                        f"build, {stage}: the worker processes died or could not start. A script that builds "
                        "a large index must run under `if __name__ == \"__main__\":` (Python's rule for "
                        "spawned processes, which import the script again), or build in one process with "
                        "LocalCompute(processes=1)") from e
                except Exception as e:  # noqa: BLE001 — a failed shard is named, not swallowed
                    for f in futures:
                        f.cancel()
                    raise PathLensError(f"build, {stage}: shard {i + 1} of {len(calls)} failed in a worker "
                                        f"process: {type(e).__name__}: {e}") from e
                done += sizes[i]
                if on_batch:
                    on_batch(done, total)
        return results


# ---------------------------------------------------------------- the compute


def shards(n: int, size: int, align: int = 1) -> list[range]:
    """Consecutive ranges covering 0..n, each `size` long (rounded up to a multiple of `align`)."""
    size = max(align, -(-size // align) * align)
    return [range(start, min(n, start + size)) for start in range(0, n, size)]


@dataclass(frozen=True)
class ShardConfig:
    shard: int = 256  # passages per task: big enough to amortise a task, small enough to spread and retry
    threads_per_task: int = 1


class ShardedCompute:
    """`engine.build.index.Compute` as tasks over shards, run by `runner`."""

    def __init__(self, runner: Runner, config: ShardConfig = ShardConfig(), put: Callable = lambda x: x):
        self.runner = runner
        self.config = config
        self._put = put  # how a value every task reads is shared (Ray: ray.put, once; a pool: as is)

    def extraction(self, builder: str, texts: Sequence[str], on_batch: Progress) -> Extraction:
        texts = list(texts)
        chunks = [texts[r.start:r.stop] for r in shards(len(texts), self.config.shard)]
        sizes = [len(c) for c in chunks]
        common = None
        if builder == "regex":  # the corpus-wide input of the regex extractor, gathered first
            common = frozenset().union(*self.runner.run("lower-case words", lowercase_task, [(c,) for c in chunks],
                                                        sizes, None))
            common = self._put(common)
        tallies = self.runner.run(f"extraction:{builder}", extract_task, [(builder, c, common) for c in chunks],
                                  sizes, on_batch)
        return extraction_from(builder, merge_tallies(tallies))

    def embeddings(self, texts: Sequence[str], on_batch: Progress) -> np.ndarray:
        texts = list(texts)
        order = dense.batch_order(texts)
        parts = [order[r.start:r.stop] for r in shards(len(order), self.config.shard, dense.BATCH)]
        blocks = self.runner.run("embeddings", encode_task,
                                 [([texts[i] for i in rows], self.config.threads_per_task) for rows in parts],
                                 [len(rows) for rows in parts], on_batch)
        out = np.zeros((len(texts), dense.DIM), dtype=np.float32)
        for rows, block in zip(parts, blocks):
            out[rows] = block
        return out


def default_processes() -> int:
    return max(1, os.cpu_count() or 1)


__all__ = ["PoolRunner", "Runner", "ShardConfig", "ShardedCompute", "default_processes", "encode_task",
           "extract_task", "lowercase_task", "shards"]

"""The per-passage stages of a build (extraction with its filter, encoding) as tasks over shards of
a corpus, run by a `Runner`: a pool of local processes (`PoolRunner`) or a Ray cluster
(`engine.indexing.ray_cluster.RayRunner`).

Why the shards agree with a build in one process, bit for bit (tested):
- the filter is a sum of per-shard tallies (`entities.tally_mentions` / `merge_tallies`), and the
  regex extractor's one corpus-wide input, the words the corpus writes in lower case, is a union
  of per-shard sets computed first and sent to every shard;
- encoding shards are cut from the encoder's own batch order (`dense.batch_order`) at batch
  boundaries, so each batch holds the same texts as in one process (and ONNX Runtime gives the same
  floats on one thread as on two: checked on the full data room).
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Protocol, Sequence

import numpy as np

from ..errors import PathLensError
from ..graph.entities import Casing, Extraction, Mention, MentionTally, extract, extract_regex, extraction_from, \
    merge_tallies, tally_mentions
from ..store import dense

BatchProgress = Callable[[int, int], None] | None  # (passages done, total)
# (positions of texts among those given, their embeddings): a build keeps each shard's rows as it finishes, so a
# stopped build resumes from them (engine.store.parts)
RowsDone = Callable[[list[int], np.ndarray], None] | None
# positions of texts (among those given) to encode next, read as each block of work starts: a question's filings,
# which may change while a build runs (engine.indexing.compute.Priority)
Wanted = Callable[[], Iterable[int]] | None
Pick = Callable[[Sequence[int]], int]  # of the calls not yet started (ascending), the one to start next
WINDOW = 512  # consecutive texts ordered together when a build takes wanted texts first: see `ShardedCompute`
ROOT = Path(__file__).resolve().parents[2]  # the folder holding the engine package: where workers start

# ---------------------------------------------------------------- the tasks (run in workers)


def casing_task(texts: list[str]) -> Casing:
    return Casing.of(texts)


def extract_task(builder: str, texts: list[str], casing: Casing | None) -> MentionTally:
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):  # a worker per core: no BLAS threads of its own
        if builder == "regex":
            return tally_mentions(extract_regex(texts, casing=casing))
        return tally_mentions(extract(builder, texts), casing)


def mentions_task(builder: str, texts: list[str]) -> list[list[Mention]]:
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        return extract(builder, texts)


def encode_task(texts: list[str], threads: int) -> np.ndarray:
    return dense.encode(texts, threads=threads)


# ---------------------------------------------------------------- runners


class Runner(Protocol):
    def run(self, stage: str, fn: Callable, calls: list[tuple], sizes: list[int], on_batch: BatchProgress,
            on_result: Callable[[int, object], None] | None = None, pick: Pick | None = None) -> list:
        """fn(*call) for every call, results in call order; `on_batch(done, total)` as shards finish,
        counting `sizes` (passages per call); `on_result(i, result)` as call i's result comes back; `pick`: which
        call starts next (default: in order), for a runner that starts them one at a time."""
        ...


class PoolRunner:
    """Tasks on `processes` fresh interpreters (`python -m engine.indexing.worker`), fed over pipes.

    Not multiprocessing: its spawned children import the parent's main module again, and in the
    Streamlit server (where builds run, in a thread) that is whichever page script is running, which
    would then run in every worker; forking a threaded server is worse (a copied lock may be held).

    Calls and results cross the pipes pickled: safe, as they pass only between this process and the
    workers it started, over pipes no other process holds, and are never stored (engine.indexing.worker)."""

    def __init__(self, processes: int):
        self.processes = processes

    def run(self, stage: str, fn: Callable, calls: list[tuple], sizes: list[int], on_batch: BatchProgress,
            on_result: Callable[[int, object], None] | None = None, pick: Pick | None = None) -> list:
        results: list = [None] * len(calls)
        pending = set(range(len(calls)))
        lock = threading.Lock()
        state = {"done": 0, "error": None}
        moved = threading.Event()  # a shard finished (or a worker gave up): report now, not at the next tick
        total = sum(sizes)

        def drive(worker: subprocess.Popen) -> None:
            while True:
                with lock:
                    i = None
                    if pending and not state["error"]:
                        i = pick(sorted(pending)) if pick else min(pending)
                        pending.discard(i)
                if i is None:
                    return
                try:
                    pickle.dump((fn, calls[i]), worker.stdin, protocol=pickle.HIGHEST_PROTOCOL)
                    worker.stdin.flush()
                    ok, value = pickle.load(worker.stdout)
                except (OSError, EOFError, ValueError, pickle.UnpicklingError):  # ValueError: its pipe closed by a stop
                    ok, value = False, f"the worker process died (exit status {worker.wait()})"
                with lock:
                    if not ok:
                        state["error"] = state["error"] or f"build, {stage}: shard {i + 1} of {len(calls)} failed: {value}"
                        moved.set()
                        return
                    results[i] = value
                if on_result:
                    on_result(i, value)
                with lock:
                    state["done"] += sizes[i]
                moved.set()

        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
        workers = [subprocess.Popen([sys.executable, "-m", "engine.indexing.worker"], stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, cwd=ROOT, env=env)
                   for _ in range(min(self.processes, len(calls)))]
        try:
            if on_batch:  # the stage starts at 0 before any shard can finish, whichever thread runs first
                on_batch(0, total)
            threads = [threading.Thread(target=drive, args=(w,), daemon=True) for w in workers]
            for t in threads:
                t.start()
            while True:
                # progress is reported from this thread, and also when it has not moved: the report is where a
                # build hears it should stop (engine.indexing.background), so a stop never waits on a long shard
                if on_batch:
                    on_batch(state["done"], total)
                if not any(t.is_alive() for t in threads):
                    break
                moved.wait(0.25)
                moved.clear()
        except BaseException:
            for w in workers:  # stopped (or failed) mid-stage: the shards in flight are not waited for
                w.kill()
            raise
        finally:
            for w in workers:
                w.stdin.close()  # the worker's end of input: it exits
            for w in workers:
                try:
                    w.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    w.kill()
                w.stdout.close()
        if state["error"]:
            raise PathLensError(state["error"])
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
    """`engine.indexing.index.Compute` as tasks over shards, run by `runner`."""

    def __init__(self, runner: Runner, config: ShardConfig = ShardConfig(), put: Callable = lambda x: x):
        self.runner = runner
        self.config = config
        self._put = put  # how a value every task reads is shared (Ray: ray.put, once; a pool: as is)

    def extraction(self, builder: str, texts: Sequence[str], on_batch: BatchProgress) -> Extraction:
        texts = list(texts)
        chunks = [texts[r.start:r.stop] for r in shards(len(texts), self.config.shard)]
        sizes = [len(c) for c in chunks]
        # the corpus-wide casing the regex extractor and the filter read, gathered first
        casing = self._put(Casing.merge(self.runner.run("casing", casing_task, [(c,) for c in chunks], sizes, None)))
        tallies = self.runner.run(f"extraction:{builder}", extract_task, [(builder, c, casing) for c in chunks],
                                  sizes, on_batch)
        return extraction_from(builder, merge_tallies(tallies))

    def mentions(self, builder: str, texts: Sequence[str], on_batch: BatchProgress) -> list[list[Mention]]:
        texts = list(texts)
        chunks = [texts[r.start:r.stop] for r in shards(len(texts), self.config.shard)]
        found = self.runner.run(f"extraction:{builder}", mentions_task, [(builder, c) for c in chunks],
                                [len(c) for c in chunks], on_batch)
        return [m for block in found for m in block]

    def embeddings(self, texts: Sequence[str], on_batch: BatchProgress, on_rows: RowsDone = None,
                   first: Wanted = None) -> np.ndarray:
        """Shards cut from the encoder's batch order, so they pad little. With `first`: the texts it names now,
        then the rest in the order given, each WINDOW of them ordered on its own and cut into shards; the shards
        holding texts `first` names start first. A caller that lists a document's texts together gets them
        encoded together, at a little more padding."""
        texts = list(texts)
        if first is None:
            order = dense.batch_order(texts)
            parts = [order[r.start:r.stop] for r in shards(len(order), self.config.shard, dense.BATCH)]
        else:  # the texts wanted now, then the rest, in windows
            head = sorted(set(first()))
            sequence = head + sorted(set(range(len(texts))) - set(head))
            parts = []
            for w in range(0, len(sequence), WINDOW):
                window = sequence[w:w + WINDOW]
                order = [window[i] for i in dense.batch_order([texts[j] for j in window])]
                parts += [order[r.start:r.stop] for r in shards(len(order), self.config.shard, dense.BATCH)]
        blocks = self.runner.run("embeddings", encode_task,
                                 [([texts[i] for i in rows], self.config.threads_per_task) for rows in parts],
                                 [len(rows) for rows in parts], on_batch,
                                 on_result=(lambda i, block: on_rows(parts[i], block)) if on_rows else None,
                                 pick=wanted_first(parts, first))
        out = np.zeros((len(texts), dense.DIM), dtype=np.float32)
        for rows, block in zip(parts, blocks):
            out[rows] = block
        return out


def wanted_first(blocks: Sequence[Sequence[int]], first: Wanted) -> Pick:
    """A `Pick` that starts the first pending block holding a text `first()` names, else the first pending one."""
    block_of = {p: b for b, rows in enumerate(blocks) for p in rows}

    def pick(pending: Sequence[int]) -> int:
        if first is not None:
            wanted = {block_of[p] for p in first() if p in block_of}
            hit = next((b for b in pending if b in wanted), None)
            if hit is not None:
                return hit
        return pending[0]

    return pick


def default_processes() -> int:
    return max(1, os.cpu_count() or 1)


__all__ = ["PoolRunner", "Runner", "ShardConfig", "ShardedCompute", "Wanted", "default_processes", "encode_task",
           "extract_task", "casing_task", "mentions_task", "shards", "wanted_first"]

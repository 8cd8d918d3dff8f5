"""Where an index's per-passage stages run (`Compute`): on this machine (`LocalCompute`, in process or on worker
processes), or on a Ray cluster (`engine.indexing.ray_cluster.ray_compute`); and what a build of a stage will run
its model over (`Work`), which a grown room keeps small (engine.store.parts)."""

from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass
from typing import Iterable, Protocol, Sequence

import numpy as np

from ..graph.entities import Casing, Extraction, Mention, extract, filter_mentions
from ..store import dense
from ..store.cache import versions
from .sharded import BatchProgress, PoolRunner, RowsDone, ShardConfig, ShardedCompute, Wanted, default_processes


# Past this many passages spaCy NER and encoding run on a pool of one process per core: spawning the
# workers and loading their models costs ~3 s, more than it saves on a small corpus.
POOL_MIN_PASSAGES = 1_000
KEEP_EVERY = 256  # passages an in-process build encodes between two writes of their parts: what a stop can lose


class Compute(Protocol):
    """Where an index's per-passage stages run: extraction with its filter, and encoding.

    `LocalCompute` runs them on this machine; `engine.indexing.ray_cluster.ray_compute` on a Ray cluster.
    Everything built from their results (graphs, alias tables, the cache files) is the same code
    either way, so the two can differ only where these two calls do, and tests hold them equal."""

    def extraction(self, builder: str, texts: Sequence[str], on_batch: BatchProgress) -> Extraction: ...

    def mentions(self, builder: str, texts: Sequence[str], on_batch: BatchProgress) -> list[list[Mention]]: ...

    def embeddings(self, texts: Sequence[str], on_batch: BatchProgress, on_rows: RowsDone = None,
                   first: Wanted = None) -> np.ndarray:
        """Each text's embedding; `on_rows(positions, vectors)` hears each block of them as it is done; `first()`
        names the texts to encode next, read as each block starts."""
        ...


@dataclass(frozen=True)
class LocalCompute:
    """This machine: in this process, or past POOL_MIN_PASSAGES on `processes` worker processes
    (default one per core) over shards (`engine.indexing.sharded.PoolRunner`), bit-identical either way (tested).

    Why processes: spaCy NER runs on one thread, and ONNX Runtime encodes a little faster as one
    single-threaded process per core than as one process on every core. On the 4,200-passage data
    room two processes took the cold build from 68.6 to 54.9 s (`perf --sections cold_build,cold_build_one_process`)."""

    processes: int = 0  # 0: one per core
    min_passages: int = POOL_MIN_PASSAGES
    # 64 passages a task: the filings' longest-first shards balance better over two processes than
    # at 256 (encoding 40.5 against 43.5 s, NER 12.4 against 13.5 s; a one-off timing of both stages)
    shard: int = 64

    def _pool(self, n: int) -> ShardedCompute | None:
        processes = self.processes or default_processes()
        if processes < 2 or n < self.min_passages:
            return None
        return ShardedCompute(PoolRunner(processes), ShardConfig(self.shard))

    def extraction(self, builder: str, texts: Sequence[str], on_batch: BatchProgress) -> Extraction:
        # in process: what the index extracts whole is regex (~0.2 ms a passage); NER goes by `mentions`
        casing = None if builder == "regex" else Casing.of(texts)  # regex reads the casing as it extracts
        return filter_mentions(builder, extract(builder, texts, on_batch=on_batch), casing)

    def mentions(self, builder: str, texts: Sequence[str], on_batch: BatchProgress) -> list[list[Mention]]:
        pool = self._pool(len(texts))
        if pool is not None:
            return pool.mentions(builder, texts, on_batch)
        return extract(builder, texts, on_batch=on_batch)

    def embeddings(self, texts: Sequence[str], on_batch: BatchProgress, on_rows: RowsDone = None,
                   first: Wanted = None) -> np.ndarray:
        pool = self._pool(len(texts))
        if pool is not None:
            if dense.passage_precision() == "float32":
                dense.load_encoder()  # exports the ONNX graph here once, ahead of the workers reading it
            return pool.embeddings(texts, on_batch, on_rows, first)
        texts = list(texts)
        out = np.zeros((len(texts), dense.DIM), dtype=np.float32)
        left = dict.fromkeys(range(len(texts)))  # in the order given
        while left:  # in blocks, each kept as it is done: the wanted texts first (no bit changes: tested)
            # each position once: a filing whose pages repeat a text names that text's one position twice
            wanted = list(dict.fromkeys(i for i in (first() if first else ()) if i in left))
            rows = sorted(wanted[:KEEP_EVERY]) or list(itertools.islice(left, KEEP_EVERY))
            done = len(texts) - len(left)
            out[rows] = dense.encode([texts[i] for i in rows], on_batch=on_batch and (
                lambda n, _, done=done: on_batch(done + n, len(texts))))
            for i in rows:
                del left[i]
            if on_rows:
                on_rows(rows, out[rows])
        return out


class Priority:
    """The documents a running build encodes next: the filings of the question being asked. A build started for
    one question takes its filings first; a later question over other filings, asked while it runs, moves those to
    the front of what is left (`prefer`). Set by a page's thread, read by the build's as each block starts."""

    def __init__(self, documents: Iterable[str] = ()):
        self._documents = tuple(documents)
        self._lock = threading.Lock()

    def prefer(self, documents: Iterable[str]) -> None:
        with self._lock:
            self._documents = tuple(documents)

    def documents(self) -> tuple[str, ...]:
        with self._lock:
            return self._documents


@dataclass(frozen=True)
class Work:
    """What one stage of a build will compute: a grown room runs its model over new passages only."""

    stage: str
    passages: int  # distinct passages to run the model over
    stored: int  # distinct passages whose results earlier builds kept
    new_documents: tuple[str, ...]  # documents none of whose passages were seen before
    changed_documents: tuple[str, ...]  # documents with some passages seen before and some not
    repeats: int = 0  # passages to run whose text another of them has (computed once): the corpus counts them

    @property
    def done_words(self) -> str:
        """What the stage did to a passage: "encoded", "read"."""
        return "encoded" if self.stage == "embeddings" else "read"

    def words(self) -> str:
        """"3 new documents and 1 changed: 312 passages to encode (2 more repeat the text of one of them); 4,200
        unchanged"."""
        verb = "encode" if self.stage == "embeddings" else "read for names (NER)"
        if not self.passages:
            return f"nothing to {verb}: all {self.stored:,} passages unchanged, kept from earlier builds"
        docs = [f"{len(self.new_documents):,} new document{'s' * (len(self.new_documents) != 1)}"] * bool(
            self.new_documents) + [f"{len(self.changed_documents):,} changed"] * bool(self.changed_documents)
        head = " and ".join(docs) + ": " if docs and self.stored else ""
        again = f" ({self.repeats:,} more repeat the text of one of them)" if self.repeats else ""
        return f"{head}{self.passages:,} passage{'s' * (self.passages != 1)} to {verb}{again}" + (
            f"; {self.stored:,} unchanged, kept from earlier builds" if self.stored else "")


def part_kind(stage: str) -> str:
    """The name a stage's per-passage parts are stored under: the stage and everything that shapes its result."""
    return f"{stage}/{versions(stage)}"


__all__ = ["Compute", "LocalCompute", "POOL_MIN_PASSAGES", "Priority", "Work", "part_kind"]

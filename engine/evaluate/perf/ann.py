"""The ANN index against exact dense search: recall on real embeddings, speed on synthetic ones."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ...indexing.index import Index
from ...store.cache import DiskCache
from .common import Context, load_spec, percentile


@dataclass(frozen=True)
class Ann:
    passages: int
    queries: int
    build_s: float
    recall_at_10: float
    synthetic_vectors: int
    synthetic_build_s: float
    ann_p50_ms: float
    exact_p50_ms: float

    def lines(self) -> list[str]:
        return [f"ANN (faiss HNSW): recall@10 {self.recall_at_10:.4f} against exact on {self.passages:,} real "
                f"embeddings ({self.queries} questions; built in {self.build_s:.1f} s); {self.synthetic_vectors:,} "
                f"synthetic unit vectors: built in {self.synthetic_build_s:.0f} s, query p50 {self.ann_p50_ms:.2f} ms "
                f"against exact {self.exact_p50_ms:.1f} ms"]


def measure(ctx: Context) -> Ann:
    return ann_section(ctx.index, ctx.queries, ctx.options.ann_size, pool_with=ctx.options.ann_pool)


def ann_section(index: Index, queries: list[str], synthetic: int = 100_000, k: int = 10,
                pool_with: str | None = None) -> Ann:
    """Recall@k on this corpus's real embeddings (its questions as queries; `pool_with` adds another corpus's
    passages to the haystack), and query p50 at `synthetic` random unit vectors (a worst case: no structure to
    exploit)."""
    from ...store import dense
    from ...store.ann import HnswIndex

    emb = index.embeddings()
    if pool_with:
        emb = np.vstack([emb, Index(load_spec(pool_with), cache=DiskCache()).embeddings()])
    q = dense.encode(queries)
    t0 = time.perf_counter()
    ann = HnswIndex.build(emb)
    build = time.perf_counter() - t0
    found = [set(ann.search(v, k)[0].tolist()) for v in q]
    exact = [set(np.argsort(-(emb @ v), kind="stable")[:k].tolist()) for v in q]
    rng = np.random.default_rng(0)
    x = rng.standard_normal((synthetic, emb.shape[1]), dtype=np.float32)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    t0 = time.perf_counter()
    big = HnswIndex.build(x)
    big_build = time.perf_counter() - t0
    probes = rng.standard_normal((200, emb.shape[1]), dtype=np.float32)
    probes /= np.linalg.norm(probes, axis=1, keepdims=True)
    times, exact_times = [], []
    for p in probes:
        t = time.perf_counter()
        big.search(p, k)
        times.append(time.perf_counter() - t)
    for p in probes[:20]:
        t = time.perf_counter()
        np.argpartition(-(x @ p), k)[:k]
        exact_times.append(time.perf_counter() - t)
    return Ann(passages=len(emb), queries=len(q), build_s=build,
               recall_at_10=float(np.mean([len(f & e) / k for f, e in zip(found, exact)])),
               synthetic_vectors=synthetic, synthetic_build_s=big_build,
               ann_p50_ms=percentile(times, 50) * 1e3, exact_p50_ms=percentile(exact_times, 50) * 1e3)

"""Approximate nearest neighbours for dense search on large corpora: faiss's HNSW over inner products.

Below `ANN_MIN_PASSAGES` dense search stays an exact matrix product, and evaluation is always exact
(DenseRetriever.answer_batch). Why these choices (measured, docs/performance.md, "Decisions"):

- exact search costs 0.19 ms a question at 8.5k passages and 8.1 ms at 100k (it grows linearly), so the
  index starts at 50,000 passages, where the exact product passes ~4 ms;
- faiss, usearch and hnswlib were compared on 8,515 real MiniLM embeddings (the data room, the five filings,
  3,000 MuSiQue paragraphs) with the 292 MuSiQue questions: at the same graph degree and search width faiss
  had the best recall@10 (0.995 against 0.992 and 0.986) and the fastest queries;
- M = 32 links, efConstruction = 80 and efSearch = 128 give recall@10 0.990 there;
- the graph is built on one thread: faiss's parallel insertion orders nodes differently from run to run,
  and rankings must be bit-identical for the same corpus.
"""

from __future__ import annotations

import numpy as np

ANN_MIN_PASSAGES = 50_000
LINKS, EF_CONSTRUCTION, EF_SEARCH = 32, 80, 128


def _faiss():
    import faiss
    from threadpoolctl import threadpool_limits

    # faiss brings an OpenBLAS of its own; its spinning threads would compete with the encoder's
    # on two cores as numpy's did (see dense._single_thread_blas), and HNSW search does not use it
    threadpool_limits(limits=1, user_api="blas")
    return faiss


class HnswIndex:
    """An HNSW graph over unit vectors; `search` returns positions and inner products, best first."""

    def __init__(self, index):
        self._index = index

    @classmethod
    def build(cls, vectors: np.ndarray) -> "HnswIndex":
        faiss = _faiss()

        index = faiss.IndexHNSWFlat(vectors.shape[1], LINKS, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = EF_CONSTRUCTION
        threads = faiss.omp_get_max_threads()
        faiss.omp_set_num_threads(1)  # deterministic graph (see the module's docstring)
        try:
            index.add(np.ascontiguousarray(vectors, dtype=np.float32))
        finally:
            faiss.omp_set_num_threads(threads)
        index.hnsw.efSearch = EF_SEARCH
        return cls(index)

    def __len__(self) -> int:
        return self._index.ntotal

    def search(self, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        k = min(k, len(self))
        sims, pos = self._index.search(np.ascontiguousarray(query, dtype=np.float32).reshape(1, -1), k)
        keep = pos[0] >= 0
        return pos[0][keep], sims[0][keep]

    # faiss objects do not pickle; the on-disk cache stores the serialised graph
    def __getstate__(self) -> dict:
        faiss = _faiss()

        return {"faiss": faiss.serialize_index(self._index)}

    def __setstate__(self, state: dict) -> None:
        faiss = _faiss()

        self._index = faiss.deserialize_index(state["faiss"])
        self._index.hnsw.efSearch = EF_SEARCH


__all__ = ["HnswIndex", "ANN_MIN_PASSAGES", "LINKS", "EF_CONSTRUCTION", "EF_SEARCH"]

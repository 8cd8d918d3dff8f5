"""Personalized PageRank as pure functions over a column-stochastic CSR matrix.

p ← α·s + (1−α)·W·p, starting from p = s. Columns of sink nodes are zero, so mass that
reaches a sink leaves the walk; scores then sum to less than 1, as they should.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy import sparse

from ..errors import PathLensError

MAX_ITERATIONS = 1000
# Below this many non-zeros a product takes tens of microseconds, less than handing it to threads.
SPLIT_MIN_NNZ = 1_000_000


class RowSplit:
    """A CSR matrix cut into row blocks of about equal non-zeros, whose products with a vector or
    a block of vectors run one block per thread.

    Why: scipy's sparse product releases the GIL but runs on one core, and it is bound by its work
    per edge. At a million passages the walk's two products took 6.7 and 10.9 ms on one core and
    3.9 and 4.7 ms on two (docs/performance.md, "Decisions"). Every row's sum is the same sum, in the
    same order, as in the whole matrix, so the result is bit-identical to `A @ x`. The blocks are
    views of A's arrays: no copy of the matrix."""

    def __init__(self, A: sparse.csr_matrix, parts: int):
        A = sparse.csr_matrix(A)
        targets = np.arange(1, parts) * (A.nnz / parts)
        bounds = np.unique(np.concatenate([[0], np.searchsorted(A.indptr, targets), [A.shape[0]]]))
        self.shape = A.shape
        self.bounds = tuple(int(b) for b in bounds)
        self.blocks = tuple(
            sparse.csr_matrix((A.data[A.indptr[a]:A.indptr[b]], A.indices[A.indptr[a]:A.indptr[b]],
                               A.indptr[a:b + 1] - A.indptr[a]), shape=(b - a, A.shape[1]))
            for a, b in zip(bounds[:-1], bounds[1:]))

    def __matmul__(self, x: np.ndarray) -> np.ndarray:
        out = np.empty((self.shape[0],) + x.shape[1:], dtype=np.result_type(self.blocks[0].dtype, x.dtype))

        def part(i: int) -> None:  # each thread also copies its rows into place
            out[self.bounds[i]:self.bounds[i + 1]] = self.blocks[i] @ x

        rest = [helper_threads().submit(part, i) for i in range(1, len(self.blocks))]
        part(0)
        for f in rest:
            f.result()
        return out


HELPER_THREADS = max(1, (os.cpu_count() or 1) - 1)


@lru_cache(maxsize=1)
def helper_threads() -> ThreadPoolExecutor:
    """The threads that take every part of a split task but the first (the caller's thread takes that one): a
    product's row blocks, a question's pushes."""
    return ThreadPoolExecutor(HELPER_THREADS, thread_name_prefix="pathlens-ppr")


def threaded(A: sparse.csr_matrix, threads: int | None = None,
             min_nnz: int = SPLIT_MIN_NNZ) -> "sparse.csr_matrix | RowSplit":
    """A, or A as a RowSplit over `threads` (default: one per core) when it is big enough to gain."""
    threads = threads or os.cpu_count() or 1
    return RowSplit(A, threads) if threads > 1 and A.nnz >= min_nnz else A


@dataclass(frozen=True, eq=False)
class PPRResult:
    scores: np.ndarray  # one score per node; (n,) for one seed vector, (n, b) for a batch
    residuals: tuple[float, ...]  # L1 change of each iteration (for a batch: the largest column's)
    iterations: int  # iterations actually run


def check_params(alpha: float, iterations: int, tol: float | None) -> None:
    if not (isinstance(alpha, (int, float)) and 0 < alpha < 1):
        raise PathLensError(f"alpha (restart probability) must be strictly between 0 and 1, got {alpha}")
    if not isinstance(iterations, (int, np.integer)) or isinstance(iterations, bool) or not 1 <= iterations <= MAX_ITERATIONS:
        raise PathLensError(f"iterations must be a whole number from 1 to {MAX_ITERATIONS}, got {iterations}")
    if tol is not None and not tol > 0:
        raise PathLensError(f"tolerance must be positive, got {tol}")


def _iterate(W: sparse.csr_matrix, s: np.ndarray, alpha: float, iterations: int, tol: float | None) -> PPRResult:
    check_params(alpha, iterations, tol)
    if W.shape[0] != W.shape[1] or W.shape[0] != s.shape[0]:
        raise PathLensError(f"seed vector of length {s.shape[0]} does not fit a {W.shape} matrix")
    teleport = alpha * s
    damp = 1.0 - alpha
    p = s.copy()
    residuals = []
    buf = np.empty_like(p)  # one buffer for every step's difference, not two new temporaries a step
    for _ in range(iterations):
        nxt = W @ p
        nxt *= damp
        nxt += teleport
        np.subtract(nxt, p, out=buf)
        diff = np.abs(buf, out=buf).sum(axis=0)
        residuals.append(float(np.max(diff)))
        p = nxt
        if tol is not None and residuals[-1] < tol:
            break
    return PPRResult(p, tuple(residuals), len(residuals))


def personalized_pagerank(W: sparse.csr_matrix, s: np.ndarray, alpha: float = 0.15,
                          iterations: int = 20, tol: float | None = None) -> PPRResult:
    """PPR for one seed vector `s` (length n). Stops early once the L1 change is below `tol`."""
    s = np.asarray(s, dtype=np.float64)
    if s.ndim != 1:
        raise PathLensError("personalized_pagerank takes one seed vector; use personalized_pagerank_batch")
    return _iterate(W, s, alpha, iterations, tol)


def personalized_pagerank_batch(W: sparse.csr_matrix, S: np.ndarray, alpha: float = 0.15,
                                iterations: int = 20, tol: float | None = None) -> PPRResult:
    """PPR for the columns of `S` (n × b) at once; stops when every column's change is below `tol`."""
    S = np.asarray(S, dtype=np.float64)
    if S.ndim != 2:
        raise PathLensError("personalized_pagerank_batch takes an n × b block of seed vectors")
    return _iterate(W, np.ascontiguousarray(S), alpha, iterations, tol)


def bipartite_passage_scores(to_passages: sparse.csr_matrix, to_entities: sparse.csr_matrix, s: np.ndarray,
                             alpha: float = 0.15, iterations: int = 20,
                             s_passages: np.ndarray | None = None) -> np.ndarray:
    """The passage rows of `personalized_pagerank(W, s')` for a bipartite W = [[0, to_passages],
    [to_entities, 0]] and s' = (s_passages, s): `s` seeds entities, one vector (m,) or a block
    (m, b); `s_passages` (n,) or (n, b) optionally seeds passages too (None: zero). Bit-identical
    to those rows, from half the products.

    Why it can: on a bipartite graph, passages at step t depend only on entities at t−1, and
    those only on passages at t−2, so the passage scores after T steps need one block product
    per step, never the other half of the vector: p_t = α·s_p + (1−α)·P·e_{t−1} and
    e_t = α·s_e + (1−α)·E·p_{t−1}, from e_0 = s_e when T is odd, from p_0 = s_p when T is even.
    Ranking needs passages only; the full `personalized_pagerank` (with its residual trace)
    stays for explanations.
    """
    check_params(alpha, iterations, None)
    s = np.asarray(s, dtype=np.float64)
    n, m = to_passages.shape
    if to_entities.shape != (m, n) or s.shape[0] != m or s.ndim not in (1, 2):
        raise PathLensError(f"blocks {to_passages.shape} and {to_entities.shape} do not fit a seed of shape {s.shape}")
    if s_passages is not None:
        s_passages = np.asarray(s_passages, dtype=np.float64)
        if s_passages.shape != (n,) + s.shape[1:]:
            raise PathLensError(f"a passage seed of shape {s_passages.shape} does not fit {n} passages and "
                                f"an entity seed of shape {s.shape}")
    if s.ndim == 2 and isinstance(to_passages, RowSplit):
        # A big graph walks a block of seeds one column at a time: at a million passages the block
        # product's strided gathers cost more than they share (4 seeds: 570 against 345 ms). Each
        # column's sums are the block's own, so the result is bit-identical.
        return np.column_stack([
            bipartite_passage_scores(to_passages, to_entities, np.ascontiguousarray(s[:, j]), alpha, iterations,
                                     None if s_passages is None else np.ascontiguousarray(s_passages[:, j]))
            for j in range(s.shape[1])]) if s.shape[1] else np.zeros((n, 0))
    damp = 1.0 - alpha
    teleport = alpha * s
    p_teleport = None if s_passages is None else alpha * s_passages
    if iterations % 2:
        step, e = 0, s  # entity scores at step 0 are s
    else:  # step 1 from p_0 = s_p: e_1 = α·s_e + (1−α)·E·s_p (just α·s_e without passage seeds)
        step, e = 1, teleport
        if s_passages is not None:
            e = to_entities @ s_passages
            e *= damp
            e += teleport
    while True:
        p = to_passages @ e
        p *= damp
        if p_teleport is not None:
            p += p_teleport
        step += 1
        if step == iterations:
            return p
        e = to_entities @ p
        e *= damp
        e += teleport
        step += 1


def column_normalize(A: sparse.spmatrix) -> sparse.csr_matrix:
    """W = A·D⁻¹ with D the column sums; columns that sum to 0 (sinks) stay 0."""
    A = sparse.csc_matrix(A, dtype=np.float64)
    deg = np.asarray(A.sum(axis=0)).ravel()
    inv = np.zeros_like(deg)
    inv[deg > 0] = 1.0 / deg[deg > 0]
    return (A @ sparse.diags(inv)).tocsr()

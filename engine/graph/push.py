"""Personalized PageRank by thresholded forward push: the local walk the graph retrievers run on big graphs
(`LOCAL_FROM_EDGES`), with the exact walk of `ppr` as its reference.

The exact walk runs T steps from p₀ = s: p_T = α·Σ_{t<T} (1−α)ᵗ·Wᵗs + (1−α)ᵀ·Wᵀs. Push computes the same series
level by level from the seeds outwards, r₀ = s, r_{t+1} = (1−α)·W·r_t, adding α·r_t (and at the end r_T) to the
estimate, but moves a node's residual on only when it is at least ε times the node's number of edges (Andersen,
Chung and Lang, "Local graph partitioning using PageRank vectors", FOCS 2006). The work then depends on ε and
the seeds, not on the graph: each level pushes at most (1−α)ᵗ/ε edges, so at most 1/(α·ε) in all.

What stays put is the error, and it is one-sided and counted: residual r left at a node adds α·r there (that is
free) and loses what it would have reached, at most (1−α)·r·(its column's sum) in all, since every further term's
coefficients sum to at most 1. So every node's exact score lies in [estimate, estimate + bound], with `bound` the
sum of what was left. PPR is linear in the seeds, so per-seed pushes add up to a score exactly, as the per-seed
shares of an explanation need; ε = 0 pushes everything and is the exact walk.

The levels run compiled (numba): a level's work is a loop over the edges it pushes, which NumPy could only do
with a sort per level, 8× slower on the data room's graph (docs/performance.md, "Local PPR").
"""

from __future__ import annotations

import queue
from dataclasses import dataclass

import numba
import numpy as np
from scipy import sparse

from ..errors import PathLensError
from .ppr import check_params

# The graph retrievers walk by push from this many non-zeros of W, and exactly below it. Chosen by measurement
# (docs/performance.md, "Local PPR"): the exact walk costs ~18 ms per million non-zeros here, push at LOCAL_EPS
# ~90 ms a question on MuSiQue's graph, where it reaches nearly every node; they cross near 5 million.
LOCAL_FROM_EDGES = 5_000_000
# Push's threshold in the graph retrievers, chosen on MuSiQue, the data room and the generated million: the
# smallest ε whose push costs less than the exact walk at a million passages (1e-8 cost 5× more there).
LOCAL_EPS = 1e-7


@dataclass(frozen=True, eq=False)
class PushResult:
    nodes: np.ndarray  # the nodes the push reached, ascending
    scores: np.ndarray  # their estimates: each at most the exact score, and within `bound` of it
    bound: float  # every node's exact score is in [estimate, estimate + bound] (unreached nodes: [0, bound])
    edges: int  # edges the push moved mass along: its work
    level_mass: tuple[float, ...]  # Σ r_t of each level pushed from: what each step added is α times it

    def dense(self, n: int) -> np.ndarray:
        out = np.zeros(n)
        out[self.nodes] = self.scores
        return out

    def at(self, nodes: np.ndarray) -> np.ndarray:
        """The estimates of `nodes` (0 where the push did not reach)."""
        nodes = np.asarray(nodes, dtype=np.int64)
        if not self.nodes.size:
            return np.zeros(nodes.shape)
        where = np.minimum(np.searchsorted(self.nodes, nodes), self.nodes.size - 1)
        return np.where(self.nodes[where] == nodes, self.scores[where], 0.0)


class LocalWalk:
    """W by column, as push reads it: each node's out-edges, their number and their weights' sum."""

    def __init__(self, W: sparse.spmatrix):
        W = sparse.csc_matrix(W)
        self.n = W.shape[1]
        self.indptr = W.indptr.astype(np.int64)
        self.indices = W.indices.astype(np.int64)
        self.data = W.data.astype(np.float64)
        self.degree = np.diff(self.indptr)
        self.column_sum = np.asarray(W.sum(axis=0), dtype=np.float64).ravel()
        # scratch of the graph's size, one set per push running at once: zeroing 20 MB a call cost more than a
        # small push's work at a million passages (the loop leaves each set zeroed again)
        self._scratch: queue.SimpleQueue = queue.SimpleQueue()

    def _take(self) -> tuple[np.ndarray, ...]:
        try:
            return self._scratch.get_nowait()
        except queue.Empty:
            flags = np.zeros(self.n, dtype=np.bool_)
            return np.zeros(self.n), flags, np.zeros(self.n), flags.copy()

    def push(self, seeds, weights, alpha: float = 0.15, iterations: int = 20, eps: float = 1e-6) -> PushResult:
        """The T-step PPR of seed vector Σ weights·e_seeds, pushed with threshold ε."""
        check_params(alpha, iterations, None)
        if not eps >= 0:
            raise PathLensError(f"push threshold ε must be 0 or more, got {eps}")
        nodes = np.asarray(seeds, dtype=np.int64)
        r = np.asarray(weights, dtype=np.float64)
        if nodes.shape != r.shape or nodes.ndim != 1 or (nodes.size and not 0 <= nodes.min() <= nodes.max() < self.n):
            raise PathLensError(f"{nodes.size} seeds with {r.size} weights do not fit a graph of {self.n} nodes")
        nodes, which = np.unique(nodes, return_inverse=True)  # a seed named twice: its weights add
        r = np.bincount(which, weights=r, minlength=nodes.size)
        scratch = self._take()
        reached, scores, bound, edges, mass = _levels(self.indptr, self.indices, self.data, self.degree,
                                                      self.column_sum, nodes, r, float(alpha), int(iterations),
                                                      float(eps), *scratch)
        self._scratch.put(scratch)
        return PushResult(reached, scores, float(bound), int(edges), tuple(mass.tolist()))


def forward_push(W: sparse.spmatrix, seeds, weights, alpha: float = 0.15, iterations: int = 20,
                 eps: float = 1e-6) -> PushResult:
    """The T-step PPR of seed vector Σ weights·e_seeds on column-stochastic W, pushed with threshold ε."""
    return LocalWalk(W).push(seeds, weights, alpha, iterations, eps)


@numba.njit(cache=True, nogil=True)
def _listed(items, size, listed, v):
    """items[:size] with node v appended unless `listed` says it is there already; the array doubles when full."""
    if not listed[v]:
        listed[v] = True
        if size == items.size:
            items = np.concatenate((items, np.empty(items.size, dtype=np.int64)))
        items[size] = v
        size += 1
    return items, size


@numba.njit(cache=True, nogil=True)
def _taken(nodes, values, listed):
    """values[nodes], leaving those entries of the scratch (values, listed) zero again."""
    out = np.empty(nodes.size)
    for k in range(nodes.size):
        out[k] = values[nodes[k]]
        values[nodes[k]] = 0.0
        listed[nodes[k]] = False
    return out


@numba.njit(cache=True, nogil=True)
def _levels(indptr, indices, data, degree, column_sum, nodes, r, alpha, iterations, eps, nxt, queued, est, seen):
    """The push's levels, in scratch of the graph's size that is zero on entry and left zero: the next level's
    residuals (nxt) and whether a node is in its list (queued), the estimate (est) and whether a node is in the
    reached list (seen). nogil: concurrent questions, each with its own scratch, run at once."""
    reached = np.empty(max(16, nodes.size), dtype=np.int64)
    n_reached = 0
    level = np.empty(16, dtype=np.int64)
    mass = np.zeros(iterations)
    bound, edges = 0.0, 0
    for t in range(iterations + 1):
        last = t == iterations
        for k in range(nodes.size):
            u = nodes[k]
            reached, n_reached = _listed(reached, n_reached, seen, u)
            est[u] += r[k] if last else alpha * r[k]  # the walk's last term is (1−α)ᵀ·Wᵀs as it stands
        if last:
            break
        size = 0
        for k in range(nodes.size):
            u, ru = nodes[k], r[k]
            mass[t] += ru
            if ru >= eps * degree[u]:
                edges += degree[u]
                moved = (1 - alpha) * ru
                for e in range(indptr[u], indptr[u + 1]):
                    v = indices[e]
                    level, size = _listed(level, size, queued, v)
                    nxt[v] += data[e] * moved
            else:
                bound += (1 - alpha) * ru * column_sum[u]
        nodes = level[:size].copy()
        r = _taken(nodes, nxt, queued)
        if size == 0:
            mass = mass[:t + 1]
            break
    out = np.sort(reached[:n_reached])
    return out, _taken(out, est, seen), bound, edges, mass


__all__ = ["LOCAL_EPS", "LOCAL_FROM_EDGES", "LocalWalk", "PushResult", "forward_push"]

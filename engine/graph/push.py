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
sum of what was left. On the entity graph that is loose for any one node: W = A·D⁻¹ with A symmetric, so
Wᵏ[x, u]·d(u) = Wᵏ[u, x]·d(x), and what residuals left at one level lose at x is at most
(1−α)·d(x)·maxᵤ(r_u / d(u)), since column x of Wᵏ sums to 1. Summed over the levels (`spread`), node x is within
spread·d(x) of its exact score, at most (1−α)·T·ε·d(x) when links weigh 1, where `bound` is the mass of the
whole graph's leftovers.
That is what lets a question prove its top 10's order (`proven_order`) and push again, finer, when it cannot.
PPR is linear in the seeds, so per-seed pushes add up to a score exactly, as the per-seed
shares of an explanation need; ε = 0 pushes everything and is the exact walk.

The levels run compiled (numba, `push_levels`), each level's nodes in ascending order: a level's work is a loop
over the edges it pushes, which NumPy could only do with a sort per level, 8× slower on the data room's graph
(docs/performance.md, "Local PPR").
That module is imported at the first push, so that nothing else pays numba's half-second import.
"""

from __future__ import annotations

import queue
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from scipy import sparse

from ..errors import PathLensError
from .ppr import HELPER_THREADS, check_params, helper_threads

# The graph retrievers walk by push from this many non-zeros of W, and exactly below it. Chosen by measurement
# (docs/performance.md, "Local PPR"): the exact walk costs 10–15 ms per million non-zeros here, push at LOCAL_EPS
# 16–31 ms a question, so by time alone they cross near 2 million; up to 5 million the exact walk still answers
# within ~75 ms, and its answers are exact, where push, its order proven or pushed again, costs more on the small
# sets (31.2 against 2.5 ms on MuSiQue).
LOCAL_FROM_EDGES = 5_000_000
# Push's threshold in the graph retrievers, chosen on MuSiQue, the data room and the generated million: the
# smallest ε whose push costs less than the exact walk at a million passages (1e-8 cost 1.4–2.1× the exact walk there).
LOCAL_EPS = 1e-7
# … and where the order of its top PROVEN_TOP passages is not proven at LOCAL_EPS, it pushes again at this one: 1e-8's
# top 10 is the exact one for all of MuSiQue's questions and the data room's. On the generated million 77.5% are
# proven at 1e-7; the rest cost ~200 ms more (docs/performance.md, "Local PPR").
LOCAL_EPS_FLOOR = 1e-8
PROVEN_TOP = 10


@dataclass(frozen=True, eq=False)
class PushResult:
    nodes: np.ndarray  # the nodes the push reached, ascending
    scores: np.ndarray  # their estimates: each at most the exact score, and within `bound` of it
    bound: float  # every node's exact score is in [estimate, estimate + bound] (unreached nodes: [0, bound])
    spread: float  # on a reversible walk, node x's is also within spread·weight(x) of it (else inf)
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


class Scratch(NamedTuple):
    """A push's arrays of the graph's size. The first four are zero between pushes (the loop leaves them so); the
    lists after them are written before they are read."""

    next_residual: np.ndarray
    queued: np.ndarray
    estimate: np.ndarray
    seen: np.ndarray
    nodes: np.ndarray
    level: np.ndarray
    residual: np.ndarray
    reached: np.ndarray

    @classmethod
    def zeros(cls, n: int) -> "Scratch":
        def flags() -> np.ndarray:
            return np.zeros(n, dtype=np.bool_)

        def nodes() -> np.ndarray:
            return np.empty(n, dtype=np.int64)

        return cls(np.zeros(n), flags(), np.zeros(n), flags(), nodes(), nodes(), np.empty(n), nodes())


class LocalWalk:
    """W by column, as push reads it: each node's out-edges, their number and their weights' sum; and, when W is
    A·D⁻¹ for a symmetric A, `weights` = D's diagonal, which bounds each node's error on its own."""

    def __init__(self, W: sparse.spmatrix, weights: np.ndarray | None = None):
        W = sparse.csc_matrix(W)
        self.n = W.shape[1]
        self.indptr = W.indptr.astype(np.int64)
        self.indices = W.indices.astype(np.int64)
        self.data = W.data.astype(np.float64)
        self.degree = np.diff(self.indptr)
        self.column_sum = np.asarray(W.sum(axis=0), dtype=np.float64).ravel()
        self.reversible = weights is not None
        self.weights = np.ones(self.n) if weights is None else np.asarray(weights, dtype=np.float64)
        if self.weights.shape != (self.n,):
            raise PathLensError(f"{self.weights.size} node weights do not fit a graph of {self.n} nodes")
        # scratch of the graph's size, one set per push running at once: zeroing 20 MB a call cost more than a
        # small push's work at a million passages (the loop leaves each set zeroed again)
        self._scratch: queue.SimpleQueue = queue.SimpleQueue()

    def _take(self) -> Scratch:
        try:
            return self._scratch.get_nowait()
        except queue.Empty:
            return Scratch.zeros(self.n)

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
        from .push_levels import levels  # numba, imported by the first push only

        scratch = self._take()
        reached, scores, bound, spread, edges, mass = levels(
            self.indptr, self.indices, self.data, self.degree, self.column_sum, self.weights, nodes, r, float(alpha),
            int(iterations), float(eps), *scratch)
        self._scratch.put(scratch)
        return PushResult(reached, scores, float(bound), float(spread) if self.reversible else np.inf, int(edges),
                          tuple(mass.tolist()))

    def push_each(self, seeds, weights, alpha: float = 0.15, iterations: int = 20,
                  eps: float = 1e-6) -> tuple[PushResult, ...]:
        """One push a seed, in the seeds' order, spread over the cores: the caller's thread and the helper
        threads take seeds from one queue (each push has its own scratch and holds no lock), which took the median
        question at a million passages from 21 to 17 ms. The same results as pushing one after another."""
        todo: queue.SimpleQueue = queue.SimpleQueue()
        for i, job in enumerate(zip(seeds, weights, strict=True)):
            todo.put((i, job))
        out: list[PushResult | None] = [None] * todo.qsize()

        def work() -> None:
            while True:
                try:
                    i, (node, weight) = todo.get_nowait()
                except queue.Empty:
                    return
                out[i] = self.push([node], [weight], alpha, iterations, eps)

        helpers = [helper_threads().submit(work) for _ in range(min(HELPER_THREADS, len(out) - 1))]
        work()
        for f in helpers:  # one that has not started has nothing left to do (and the caller may be a helper)
            if not f.cancel():
                f.result()
        return tuple(out)


def proven_order(estimate: np.ndarray, first: np.ndarray, weights: np.ndarray, bound: float, spread: float,
                 top: int = PROVEN_TOP) -> bool:
    """Whether `first`, the top `top` places by estimate (ties to the lower index; fewer when fewer nodes have a
    score), are the exact ranking's, when node x's exact score lies in [estimate, estimate + min(bound,
    spread·weights[x])]. Each place's lower end must be above the next one's upper end, and the last place's above
    every other node's upper end. Places with no score are no places: then no other node may have any. Exact ties
    are never proven."""
    def upper(nodes: np.ndarray) -> np.ndarray:
        return estimate[nodes] + np.minimum(bound, spread * weights[nodes])

    places = first[estimate[first] > 0]
    if not np.all(estimate[places[:-1]] > upper(places[1:])):
        return False
    most = min(bound, spread * weights.max(initial=0.0))  # the largest error any node may have
    if places.size < min(top, estimate.size) or not places.size:
        return bool(most == 0)
    last = estimate[places[-1]]
    rivals = np.flatnonzero(estimate >= last - most)  # only these can reach the last place: one pass, few found
    others = np.ones(rivals.size, dtype=bool)
    others[np.searchsorted(rivals, places)] = False  # the places are among them (ascending, as flatnonzero gives)
    return bool(last > upper(rivals[others]).max(initial=0.0))


def forward_push(W: sparse.spmatrix, seeds, weights, alpha: float = 0.15, iterations: int = 20,
                 eps: float = 1e-6) -> PushResult:
    """The T-step PPR of seed vector Σ weights·e_seeds on column-stochastic W, pushed with threshold ε."""
    return LocalWalk(W).push(seeds, weights, alpha, iterations, eps)


__all__ = ["LOCAL_EPS", "LOCAL_EPS_FLOOR", "LOCAL_FROM_EDGES", "PROVEN_TOP", "LocalWalk", "PushResult", "forward_push",
           "proven_order"]

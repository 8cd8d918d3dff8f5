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
whole graph's leftovers. On a bipartite graph (the entity graph: passages one side, entities the other) Wᵏ[x, u]
is 0 unless k's parity is that of the sides of x and u, so only the walk's terms of that parity count: each side
gets a spread of its own, about half of that (docs/performance.md: it took the questions whose order is proven
at the first ε at a million passages from 77.5% to 87.5%).
That is what lets a question prove its top 10's order (`proven_order`) and push again, finer, when it cannot.
PPR is linear in the seeds, so per-seed pushes add up to a score exactly, as the per-seed
shares of an explanation need; ε = 0 pushes everything and is the exact walk.

The levels run compiled (numba, `push_levels`), each level's nodes in ascending order: a level's work is a loop
over the edges it pushes, which NumPy could only do with a sort per level, 8× slower on the data room's graph
(a one-off timing).
That module is imported at the first push, so that nothing else pays numba's half-second import.
"""

from __future__ import annotations

import queue
from dataclasses import dataclass
from typing import NamedTuple, Sequence

import numpy as np
from scipy import sparse

from ..errors import PathLensError
from .ppr import HELPER_THREADS, check_params, helper_threads

# The graph retrievers walk by push from this many non-zeros of W, and exactly below it. Chosen by measurement
# (docs/performance.md, "Local PPR"): the exact walk costs 10–15 ms per million non-zeros here, push from LOCAL_EPS
# 12–15 ms a question at a million passages, so by time alone they cross near 1 million; up to 5 million the exact
# walk still answers within ~75 ms, and its answers are exact, where push, its order proven or pushed again, costs
# more on the small sets (29.7 against 2.5 ms on MuSiQue).
LOCAL_FROM_EDGES = 5_000_000
# Push's first threshold in the graph retrievers. Where it does not prove the order of the top PROVEN_TOP passages,
# they push again at a tenth of it, down to LOCAL_EPS_FLOOR, whose top 10 is the exact one for all of MuSiQue's
# questions and the data room's: what is proven is exact, so the first ε sets only the cost. Chosen on the generated
# million, where starting coarse proves most questions cheaply: of the first ε's `perf local_ppr` times, 5e-7 gave
# the lowest p90 (76.1 ms; walk p50 9.8 ms, against 31.4 and 140.7 ms for 1e-7) (docs/performance.md, "Decisions").
LOCAL_EPS = 5e-7
LOCAL_EPS_FLOOR = 1e-8
PROVEN_TOP = 10


@dataclass(frozen=True, eq=False)
class PushResult:
    nodes: np.ndarray  # the nodes the push reached, ascending
    scores: np.ndarray  # their estimates: each at most the exact score, and within `bound` of it
    bound: float  # every node's exact score is in [estimate, estimate + bound] (unreached nodes: [0, bound])
    # on a reversible walk, node x's is also within spread[side(x)]·degree(x) of it (else inf)
    spread: tuple[float, float]
    edges: int  # edges the push moved mass along: its work
    level_mass: tuple[float, ...]  # Σ r_t of each level pushed from: what each step added is α times it

    def dense(self, n: int) -> np.ndarray:
        out = np.zeros(n)
        out[self.nodes] = self.scores
        return out

    def at(self, nodes: np.ndarray) -> np.ndarray:
        """The estimates of `nodes` (0 where the push did not reach)."""
        return values_at(self.nodes, self.scores, nodes)


def values_at(listed: np.ndarray, values: np.ndarray, nodes) -> np.ndarray:
    """The values of `nodes` where `listed` (ascending) has them, else 0."""
    nodes = np.asarray(nodes, dtype=np.int64)
    if not listed.size:
        return np.zeros(nodes.shape)
    where = np.minimum(np.searchsorted(listed, nodes), listed.size - 1)
    return np.where(listed[where] == nodes, values[where], 0.0)


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
    """W by column, as push reads it: each node's out-edges, their number (`edge_count`), weights and weights' sum;
    and, when W is A·D⁻¹ for a symmetric A, `degrees` = D's diagonal (each node's links' weights summed, A's column
    sums), which bounds each node's error on its own, the tighter by parity when `sides` (0 or 1 a node) makes every
    edge join the two sides. Without them every node's degree is 1 and no node has a bound of its own."""

    def __init__(self, W: sparse.spmatrix, degrees: np.ndarray | None = None, sides: np.ndarray | None = None):
        W = sparse.csc_matrix(W)
        self.n = W.shape[1]
        self.indptr = W.indptr.astype(np.int64)
        self.indices = W.indices  # scipy's int32 where it fits: half the bytes a push reads
        self.edge_count = np.diff(self.indptr)
        # W = A·D⁻¹ for a 0/1 A has one weight a column: a push then reads none per edge (5–15% of its time at a
        # million passages, in a noisy timing), and they are not kept (140 MB there)
        self.share = np.zeros(self.n)
        data = np.asarray(W.data, dtype=np.float64)
        if data.size:
            starts = self.indptr[:-1][self.edge_count > 0]
            self.share[self.edge_count > 0] = np.maximum.reduceat(data, starts)
            self.uniform = bool(np.array_equal(self.share[self.edge_count > 0], np.minimum.reduceat(data, starts)))
        else:
            self.uniform = True
        self.data = np.zeros(0) if self.uniform else data
        self.column_sum = np.asarray(W.sum(axis=0), dtype=np.float64).ravel()
        self.reversible = degrees is not None
        self.degrees = np.ones(self.n) if degrees is None else np.asarray(degrees, dtype=np.float64)
        if self.degrees.shape != (self.n,):
            raise PathLensError(f"{self.degrees.size} node degrees do not fit a graph of {self.n} nodes")
        self.bipartite = sides is not None
        self.sides = np.zeros(self.n, dtype=np.int8) if sides is None else np.asarray(sides, dtype=np.int8)
        if self.sides.shape != (self.n,) or not np.isin(self.sides, (0, 1)).all():
            raise PathLensError(f"sides must be 0 or 1 for each of the graph's {self.n} nodes")
        joined = self.sides[self.indices] != np.repeat(self.sides, self.edge_count) if self.bipartite else True
        if not np.all(joined):
            e = int(np.flatnonzero(~joined)[0])
            u = int(np.searchsorted(self.indptr, e, side="right") - 1)
            raise PathLensError(f"the graph is not bipartite on the sides given: an edge joins nodes {u} and "
                                f"{int(self.indices[e])}, both of side {int(self.sides[u])}")
        # scratch of the graph's size, one set per push running at once: zeroing 20 MB a call cost more than a
        # small push's work at a million passages (the loop leaves each set zeroed again)
        self._scratch: queue.SimpleQueue = queue.SimpleQueue()

    def _take(self) -> Scratch:
        try:
            return self._scratch.get_nowait()
        except queue.Empty:
            return Scratch.zeros(self.n)

    def push(self, seeds, masses, alpha: float = 0.15, iterations: int = 20, eps: float = 1e-6) -> PushResult:
        """The T-step PPR of seed vector Σ masses·e_seeds (each seed's restart mass), pushed with threshold ε."""
        check_params(alpha, iterations, None)
        if not eps >= 0:
            raise PathLensError(f"push threshold ε must be 0 or more, got {eps}")
        nodes = np.asarray(seeds, dtype=np.int64)
        r = np.asarray(masses, dtype=np.float64)
        if nodes.shape != r.shape or nodes.ndim != 1 or (nodes.size and not 0 <= nodes.min() <= nodes.max() < self.n):
            raise PathLensError(f"{nodes.size} seeds with {r.size} masses do not fit a graph of {self.n} nodes")
        nodes, which = np.unique(nodes, return_inverse=True)  # a seed named twice: its masses add
        r = np.bincount(which, weights=r, minlength=nodes.size)
        from .push_levels import levels  # numba, imported by the first push only

        scratch = self._take()
        reached, scores, bound, spread, edges, mass = levels(
            self.indptr, self.indices, self.data, self.share, self.uniform, self.edge_count, self.column_sum,
            self.degrees, self.sides, self.bipartite, nodes, r, float(alpha), int(iterations), float(eps), *scratch)
        self._scratch.put(scratch)
        return PushResult(reached, scores, float(bound),
                          (float(spread[0]), float(spread[1])) if self.reversible else (np.inf, np.inf), int(edges),
                          tuple(mass.tolist()))

    def add_up(self, pushes: Sequence[PushResult]) -> tuple[np.ndarray, np.ndarray]:
        """The nodes the pushes give a score above 0, ascending, and their scores: each node's estimates summed in
        the pushes' order, so to the last bit as adding the pushes into one vector of the graph's size, but without
        that vector and the passes over it that find its scores (docs/performance.md, "Local PPR")."""
        from .push_levels import add_into, added

        scratch = self._take()
        count = 0
        for p in pushes:  # in order: each node's sum is added up as a vector's would be
            count = add_into(p.nodes, p.scores, scratch.estimate, scratch.seen, scratch.reached, count)
        nodes, scores = added(scratch.estimate, scratch.seen, scratch.reached, count)
        self._scratch.put(scratch)
        return nodes, scores

    def push_each(self, seeds, masses, alpha: float = 0.15, iterations: int = 20,
                  eps: float = 1e-6) -> tuple[PushResult, ...]:
        """One push a seed, in the seeds' order, spread over the cores: the caller's thread and the helper
        threads take seeds from one queue (each push has its own scratch and holds no lock), which took the median
        question at a million passages from 21 to 17 ms. The same results as pushing one after another."""
        todo: queue.SimpleQueue = queue.SimpleQueue()
        for i, job in enumerate(zip(seeds, masses, strict=True)):
            todo.put((i, job))
        out: list[PushResult | None] = [None] * todo.qsize()

        def work() -> None:
            while True:
                try:
                    i, (node, mass) = todo.get_nowait()
                except queue.Empty:
                    return
                out[i] = self.push([node], [mass], alpha, iterations, eps)

        helpers = [helper_threads().submit(work) for _ in range(min(HELPER_THREADS, len(out) - 1))]
        work()
        for f in helpers:  # one that has not started has nothing left to do (and the caller may be a helper)
            if not f.cancel():
                f.result()
        return tuple(out)


def proven_order(estimate: np.ndarray, first: np.ndarray, degrees: np.ndarray, bound: float, spread: float,
                 top: int = PROVEN_TOP, nodes: np.ndarray | None = None, max_degree: float | None = None) -> bool:
    """Whether `first`, the top `top` places by estimate (positions in `estimate`, ties to the lower; fewer when
    fewer have a score), are the exact ranking's, when node x's exact score lies in [estimate, estimate +
    min(bound, spread·degrees[x])] (`LocalWalk.degrees`). Each place's lower end must be above the next one's upper
    end, and the last place's above every other node's upper end. Places with no score are no places: then no other
    node may have any. Exact ties are never proven.

    `estimate` is every node's, or, given `nodes` (ascending), those nodes' only: the others' estimates are 0, and
    their errors are taken as the largest any node may have, from `max_degree`, the largest degree of a node
    (default: the degrees' maximum; a retriever passes it, as a pass over a million degrees costs what the rest
    does)."""
    def upper(at: np.ndarray) -> np.ndarray:
        return estimate[at] + np.minimum(bound, spread * degrees[at if nodes is None else nodes[at]])

    places = first[estimate[first] > 0]
    if not np.all(estimate[places[:-1]] > upper(places[1:])):
        return False
    most = min(bound, spread * (degrees.max(initial=0.0) if max_degree is None else max_degree))  # any node's error
    if places.size < min(top, degrees.size) or not places.size:
        return bool(most == 0)
    last = estimate[places[-1]]
    if estimate.size < degrees.size and not last > most:
        return False  # a node not listed may reach the last place
    rivals = np.flatnonzero(estimate >= last - most)  # only these can reach the last place: one pass, few found
    others = np.ones(rivals.size, dtype=bool)
    others[np.searchsorted(rivals, places)] = False  # the places are among them (ascending, as flatnonzero gives)
    return bool(last > upper(rivals[others]).max(initial=0.0))


def forward_push(W: sparse.spmatrix, seeds, masses, alpha: float = 0.15, iterations: int = 20,
                 eps: float = 1e-6) -> PushResult:
    """The T-step PPR of seed vector Σ masses·e_seeds on column-stochastic W, pushed with threshold ε."""
    return LocalWalk(W).push(seeds, masses, alpha, iterations, eps)


__all__ = ["LOCAL_EPS", "LOCAL_EPS_FLOOR", "LOCAL_FROM_EDGES", "PROVEN_TOP", "LocalWalk", "PushResult", "forward_push",
           "proven_order", "values_at"]

"""Personalized PageRank by thresholded forward push: the local alternative to `ppr.personalized_pagerank`,
measured against it (`perf --sections local_ppr`) and not used for ranking (docs/performance.md says why).

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
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse

from ..errors import PathLensError
from .ppr import check_params


@dataclass(frozen=True, eq=False)
class PushResult:
    nodes: np.ndarray  # the nodes the push reached, ascending
    scores: np.ndarray  # their estimates: each at most the exact score, and within `bound` of it
    bound: float  # every node's exact score is in [estimate, estimate + bound] (unreached nodes: [0, bound])
    edges: int  # edges the push moved mass along: its work

    def dense(self, n: int) -> np.ndarray:
        out = np.zeros(n)
        out[self.nodes] = self.scores
        return out


def _gather(W: sparse.csc_matrix, nodes: np.ndarray, mass: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Σ over `nodes` of mass·W[:, node], as (targets ascending, amounts): the columns' entries gathered with
    array arithmetic (no per-node Python loop), then summed per target."""
    starts, ends = W.indptr[nodes], W.indptr[nodes + 1]
    lens = ends - starts
    total = int(lens.sum())
    offsets = np.repeat(starts - np.cumsum(lens) + lens, lens) + np.arange(total)
    targets, which = np.unique(W.indices[offsets], return_inverse=True)
    return targets, np.bincount(which, weights=W.data[offsets] * np.repeat(mass, lens), minlength=targets.size)


def forward_push(W: sparse.csc_matrix, seeds: np.ndarray, weights: np.ndarray, alpha: float = 0.15,
                 iterations: int = 20, eps: float = 1e-6) -> PushResult:
    """The T-step PPR of seed vector Σ weights·e_seeds on column-stochastic W (CSC), pushed with threshold ε."""
    check_params(alpha, iterations, None)
    if not eps >= 0:
        raise PathLensError(f"push threshold ε must be 0 or more, got {eps}")
    W = sparse.csc_matrix(W)
    nodes = np.asarray(seeds, dtype=np.int64)
    r = np.asarray(weights, dtype=np.float64)
    if nodes.shape != r.shape or nodes.ndim != 1 or (nodes.size and not 0 <= nodes.min() <= nodes.max() < W.shape[1]):
        raise PathLensError(f"{nodes.size} seeds with {r.size} weights do not fit a graph of {W.shape[1]} nodes")
    nodes, which = np.unique(nodes, return_inverse=True)  # a seed named twice: its weights add
    r = np.bincount(which, weights=r, minlength=nodes.size)
    degree = np.diff(W.indptr)
    column_sum = np.asarray(W.sum(axis=0)).ravel()
    parts_nodes, parts_scores = [], []
    bound, edges = 0.0, 0
    for _ in range(iterations):
        parts_nodes.append(nodes)
        parts_scores.append(alpha * r)
        moves = r >= eps * degree[nodes]
        bound += (1 - alpha) * float(r[~moves] @ column_sum[nodes[~moves]])
        nodes, r = nodes[moves], r[moves]
        edges += int(degree[nodes].sum())
        if not nodes.size:
            break
        nodes, r = _gather(W, nodes, (1 - alpha) * r)
    else:
        parts_nodes.append(nodes)
        parts_scores.append(r)  # the walk's last term: (1−α)ᵀ·Wᵀs as it stands
    reached, which = np.unique(np.concatenate(parts_nodes), return_inverse=True)
    return PushResult(reached, np.bincount(which, weights=np.concatenate(parts_scores), minlength=reached.size),
                      bound, edges)


__all__ = ["PushResult", "forward_push"]

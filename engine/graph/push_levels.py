"""The compiled loop of `push.LocalWalk.push`: forward push's levels over W by column (numba). Its own module so
that numba is imported only when a walk first pushes."""

from __future__ import annotations

import numba
import numpy as np


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
def levels(indptr, indices, data, degree, column_sum, nodes, r, alpha, iterations, eps, nxt, queued, est, seen):
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

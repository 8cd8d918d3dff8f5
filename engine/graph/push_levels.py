"""The compiled loop of `push.LocalWalk.push`: forward push's levels over W by column (numba). Its own module so
that numba is imported only when a walk first pushes."""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def _in_order(items, count, flags):
    """Sorts items[:count], the nodes whose flag is set, in place. Many: read from the flags eight at a time, which
    costs the graph's size over eight, where sorting 600,000 nodes cost more than pushing them."""
    n = flags.size
    if count * 256 < n:
        items[:count] = np.sort(items[:count])
        return
    j = 0
    whole = n - n % 8
    words = flags[:whole].view(np.uint64)
    for w in range(words.size):
        if words[w] != 0:
            for v in range(8 * w, 8 * w + 8):
                if flags[v]:
                    items[j] = v
                    j += 1
    for v in range(whole, n):
        if flags[v]:
            items[j] = v
            j += 1


@numba.njit(cache=True, nogil=True)
def carried(alpha, left):
    """What a residual left with `left` steps to go would still have added, split by the steps' parity: the walk's
    terms α(1−α)ᵏ for 1 ≤ k < left and (1−α)ˡᵉᶠᵗ for the last, summed over even k (its own side of a
    bipartite graph) and odd k (the other side). Together they are (1−α)."""
    even, odd, power = 0.0, 0.0, 1.0
    for k in range(1, left + 1):
        power *= 1 - alpha  # (1−α)ᵏ by products, not pow: the same bits wherever it runs
        term = alpha * power if k < left else power
        if k % 2:
            odd += term
        else:
            even += term
    return even, odd


@numba.njit(cache=True, nogil=True)
def levels(indptr, indices, data, share, uniform, edge_count, column_sum, degree, side, bipartite, seeds, seed_r, alpha,
           iterations, eps, nxt, queued, est, seen, nodes, level, r, reached):
    """The push's levels, in scratch of the graph's size: the next level's residuals (nxt) and whether a node is
    in its list (queued), the estimate (est) and whether a node is in the reached list (seen), all zero on entry
    and left zero; and lists whose contents do not matter: this level's nodes and residuals (nodes, r), the next
    level's nodes (level) and the reached nodes (reached). `seeds` ascending, without repeats.

    Each level runs over its nodes in ascending order, so that reading W's columns and the per-node arrays goes
    forward through memory: at a million passages that halved a push's time against first-touch order. Nothing is
    allocated per level or called per edge (a level's fresh arrays cost their page faults; a helper returning a
    grown array, a reference count an edge). nogil: concurrent questions, each with its own scratch, run at once.
    Besides the bound it returns the spread of each side: what each level's largest residual left over its node's
    degree can still add to a node of that side, summed over the levels (push.py says why that bounds each node's
    error on its own). On a bipartite graph (`bipartite`, sides 0 and 1 in `side`) a residual reaches its own side
    only in an even number of steps and the other only in an odd one, so each carries about half of the (1−α) that
    any node could get otherwise."""
    size = seeds.size
    nodes[:size] = seeds
    r[:size] = seed_r
    n_reached = 0
    mass = np.zeros(iterations)
    bound, edges = 0.0, 0
    spread = np.zeros(2)
    most = np.zeros(2)  # the largest residual left at a level over its node's degree, by side
    for t in range(iterations + 1):
        last = t == iterations
        for k in range(size):
            u = nodes[k]
            if not seen[u]:
                seen[u] = True
                reached[n_reached] = u
                n_reached += 1
            est[u] += r[k] if last else alpha * r[k]  # the walk's last term is (1−α)ᵀ·Wᵀs as it stands
        if last:
            break
        listed = 0
        most[:] = 0.0
        for k in range(size):
            u, ru = nodes[k], r[k]
            mass[t] += ru
            if ru >= eps * edge_count[u]:
                edges += edge_count[u]
                moved = (1 - alpha) * ru
                part = share[u] * moved  # each edge's, when `uniform`: every edge of a column weighs share[u]
                for e in range(indptr[u], indptr[u + 1]):
                    v = indices[e]
                    if not queued[v]:
                        queued[v] = True
                        level[listed] = v
                        listed += 1
                    nxt[v] += part if uniform else data[e] * moved
            else:
                bound += (1 - alpha) * ru * column_sum[u]
                most[side[u]] = max(most[side[u]], ru / degree[u])
        if bipartite:
            same, other = carried(alpha, iterations - t)
            spread[0] += most[0] * same + most[1] * other
            spread[1] += most[1] * same + most[0] * other
        else:
            spread[:] += (1 - alpha) * most[0]
        _in_order(level, listed, queued)
        for k in range(listed):  # the next level's residuals, leaving nxt and queued zero
            v = level[k]
            r[k] = nxt[v]
            nxt[v] = 0.0
            queued[v] = False
        nodes, level = level, nodes
        size = listed
        if size == 0:
            mass = mass[:t + 1]
            break
    _in_order(reached, n_reached, seen)
    out = reached[:n_reached].copy()
    scores = np.empty(n_reached)
    for k in range(n_reached):  # the estimates, leaving est and seen zero
        scores[k] = est[out[k]]
        est[out[k]] = 0.0
        seen[out[k]] = False
    return out, scores, bound, spread, edges, mass


@numba.njit(cache=True, nogil=True)
def add_into(nodes, scores, total, seen, listed, count):
    """Adds one push's estimates into `total`, in scratch of the graph's size that is zero before the first push
    added: `listed[:count]` are the nodes some push reached so far (`seen`). Returns the new count. A push at a time,
    not all of them concatenated: copying a million of them cost more than adding them."""
    for k in range(nodes.size):
        u = nodes[k]
        if not seen[u]:
            seen[u] = True
            listed[count] = u
            count += 1
        total[u] += scores[k]
    return count


@numba.njit(cache=True, nogil=True)
def added(total, seen, listed, count):
    """The nodes `add_into` reached whose sum is above 0, ascending, and their sums; leaves the scratch zero."""
    _in_order(listed, count, seen)
    out = np.empty(count, dtype=np.int64)
    sums = np.empty(count)
    kept = 0
    for k in range(count):
        u = listed[k]
        if total[u] > 0:
            out[kept] = u
            sums[kept] = total[u]
            kept += 1
        total[u] = 0.0
        seen[u] = False
    return out[:kept].copy(), sums[:kept].copy()

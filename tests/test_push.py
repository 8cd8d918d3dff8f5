"""Forward push against hand values and against the exact walk: ε = 0 is the walk, any ε stays inside its counted
bound (below, never above), and its work is bounded by 1/(α·ε) whatever the graph."""

import numpy as np
import pytest
from scipy import sparse

from engine.errors import PathLensError
from engine.graph.ppr import column_normalize, personalized_pagerank
from engine.graph.push import LocalWalk, forward_push
from tests.test_ppr import small_graph


def test_two_nodes_by_hand():
    # W swaps the two nodes; α = 0.5, two steps from node 0: p = α·s + α(1−α)·Ws + (1−α)²·W²s
    #   = 0.5·e0 + 0.25·e1 + 0.25·e0 = (0.75, 0.25)
    W = sparse.csc_matrix(np.array([[0.0, 1.0], [1.0, 0.0]]))
    exact = forward_push(W, [0], [1.0], alpha=0.5, iterations=2, eps=0)
    assert exact.dense(2).tolist() == [0.75, 0.25] and exact.bound == 0.0 and exact.edges == 2
    assert exact.level_mass == (1.0, 0.5)  # r₀ = 1 at node 0, r₁ = (1 − α)·1 at node 1
    assert exact.at(np.array([1, 0])).tolist() == [0.25, 0.75]
    # a threshold node 0 does not reach: only its own α·1 is counted, and the rest, (1 − α)·1, is the bound
    lazy = forward_push(W, [0], [1.0], alpha=0.5, iterations=2, eps=10)
    assert lazy.dense(2).tolist() == [0.5, 0.0] and lazy.bound == 0.5 and lazy.edges == 0
    assert lazy.at(np.array([1])).tolist() == [0.0]  # not reached


def test_zero_threshold_is_the_exact_walk():
    A, W = small_graph()
    s = np.zeros(7)
    s[[0, 4, 6]] = [0.5, 0.3, 0.2]  # both components and the sink
    for iterations in (1, 2, 7, 20):
        pushed = forward_push(W.tocsc(), [0, 4, 6], [0.5, 0.3, 0.2], 0.15, iterations, eps=0)
        np.testing.assert_allclose(pushed.dense(7), personalized_pagerank(W, s, 0.15, iterations).scores, atol=1e-15)


def _core_walk(core_index):
    g = core_index.graph("regex")
    return g, g.W.tocsc()


def test_on_a_real_graph_every_score_is_within_its_bound_from_below(core_index):
    g, Wc = _core_walk(core_index)
    seeds = [g.n_passages + g.entity_index[k] for k in list(g.entity_index)[:3]]
    weights = [0.5, 0.3, 0.2]
    s = np.zeros(Wc.shape[0])
    s[seeds] = weights
    exact = personalized_pagerank(g.W, s, 0.15, 20).scores
    np.testing.assert_allclose(forward_push(Wc, seeds, weights, eps=0).dense(len(s)), exact, atol=1e-14)
    previous = None
    for eps in (1e-6, 1e-4, 1e-2):
        r = forward_push(Wc, seeds, weights, eps=eps)
        gap = exact - r.dense(len(s))
        assert gap.min() >= -1e-14 and gap.max() <= r.bound + 1e-14  # below, never above, within the bound
        assert r.edges <= 1 / (0.15 * eps)  # the work bound, whatever the graph's size
        if previous is not None:
            assert r.edges <= previous.edges and r.bound >= previous.bound  # a coarser ε: less work, a wider bound
        previous = r
    assert previous.bound > 0


def test_per_seed_pushes_add_up_to_the_score_exactly(core_index):
    g, Wc = _core_walk(core_index)
    seeds = [g.n_passages + j for j in range(4)]
    weights = [0.4, 0.3, 0.2, 0.1]
    together = forward_push(Wc, seeds, weights, eps=0).dense(Wc.shape[0])
    apart = sum(forward_push(Wc, [n], [w], eps=0).dense(Wc.shape[0]) for n, w in zip(seeds, weights))
    np.testing.assert_allclose(apart, together, atol=1e-15)


def test_a_seed_never_reaches_another_component():
    _, W = small_graph()
    r = forward_push(W.tocsc(), [4], [1.0], eps=0)
    assert set(r.nodes.tolist()) == {4, 5}


@pytest.mark.parametrize("args, message", [
    (dict(eps=-1), "push threshold ε must be 0 or more"),
    (dict(seeds=[9]), "1 seeds with 1 weights do not fit a graph of 7 nodes"),
    (dict(alpha=1.5), "alpha"),
])
def test_bad_input_is_named(args, message):
    W = column_normalize(sparse.csr_matrix(small_graph()[0])).tocsc()
    call = {"seeds": [0], "weights": [1.0], **args}
    with pytest.raises(PathLensError, match=message):
        forward_push(W, call.pop("seeds"), call.pop("weights"), **call)


def _reference_push(W: sparse.csc_matrix, seeds, weights, alpha, iterations, eps):
    """The same levels in plain Python dictionaries, a node at a time: the reference for the compiled loop."""
    degree = np.diff(W.indptr)
    column_sum = np.asarray(W.sum(axis=0)).ravel()
    r = {}
    for node, w in zip(seeds, weights):
        r[node] = r.get(node, 0.0) + w
    est, bound, edges = {}, 0.0, 0
    for t in range(iterations + 1):
        for u, ru in r.items():
            est[u] = est.get(u, 0.0) + (ru if t == iterations else alpha * ru)
        if t == iterations:
            break
        nxt = {}
        for u, ru in sorted(r.items()):
            if ru >= eps * degree[u]:
                edges += int(degree[u])
                moved = (1 - alpha) * ru
                for e in range(W.indptr[u], W.indptr[u + 1]):
                    v = int(W.indices[e])
                    nxt[v] = nxt.get(v, 0.0) + W.data[e] * moved
            else:
                bound += (1 - alpha) * ru * column_sum[u]
        r = nxt
        if not r:
            break
    return est, bound, edges


@pytest.mark.parametrize("eps", [0.0, 1e-6, 1e-4])
def test_the_compiled_levels_match_a_plain_python_push(core_index, eps):
    g, Wc = _core_walk(core_index)
    seeds = [g.n_passages + g.entity_index[k] for k in list(g.entity_index)[5:8]] + [3]
    weights = [0.4, 0.3, 0.2, 0.1]
    est, bound, edges = _reference_push(Wc, seeds, weights, 0.15, 20, eps)
    r = g.local_walk.push(seeds, weights, 0.15, 20, eps)
    # the same nodes in the same order, so the same sums to the last bit
    assert r.nodes.tolist() == sorted(est) and r.edges == edges
    assert r.scores.tolist() == [est[u] for u in sorted(est)] and r.bound == bound


@pytest.mark.parametrize("n, count", [(1000, 3), (1000, 600), (1003, 3), (1003, 1003), (7, 0), (7, 7)])
def test_a_levels_nodes_come_in_ascending_order_whether_sorted_or_read_from_their_flags(n, count):
    from engine.graph.push_levels import _in_order

    rng = np.random.default_rng(n + count)
    listed = rng.choice(n, count, replace=False)  # first-touch order
    flags = np.zeros(n, dtype=np.bool_)
    flags[listed] = True
    items = np.full(n, -1, dtype=np.int64)
    items[:count] = listed
    _in_order(items, count, flags)  # few (count · 256 < n) are sorted; many are read from the flags, tail included
    assert items[:count].tolist() == np.flatnonzero(flags).tolist()


def test_a_push_leaves_its_scratch_zeroed_for_the_next():
    A, W = small_graph()
    walk = LocalWalk(W)
    first = walk.push([0], [1.0], eps=1e-3)
    scratch = walk._take()
    for zeroed in (scratch.next_residual, scratch.queued, scratch.estimate, scratch.seen):
        assert not zeroed.any()
    again = walk.push([0], [1.0], eps=1e-3)
    assert again.nodes.tolist() == first.nodes.tolist() and again.scores.tolist() == first.scores.tolist()


def test_pushes_spread_over_threads_give_each_seeds_push_in_order(core_index):
    from engine.graph.ppr import helper_threads

    g, _ = _core_walk(core_index)
    walk = g.local_walk
    seeds = [g.n_passages + j for j in range(5)] + [2]
    weights = [0.3, 0.2, 0.2, 0.1, 0.1, 0.1]
    one_by_one = [walk.push([s], [w], 0.15, 20, 1e-6) for s, w in zip(seeds, weights)]

    def same(pushes):
        return [(p.nodes.tolist(), p.scores.tolist(), p.bound, p.edges) for p in pushes]

    assert same(walk.push_each(seeds, weights, 0.15, 20, 1e-6)) == same(one_by_one)
    # called from a helper thread itself (every helper busy), it still finishes: the caller takes what is left
    nested = helper_threads().submit(walk.push_each, seeds, weights, 0.15, 20, 1e-6).result(timeout=60)
    assert same(nested) == same(one_by_one)
    assert walk.push_each([], [], 0.15, 20, 1e-6) == ()
    with pytest.raises(PathLensError, match="do not fit a graph"):  # a bad seed's error reaches the caller
        walk.push_each([seeds[0], 10**9], [0.5, 0.5], 0.15, 20, 1e-6)

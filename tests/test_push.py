"""Forward push against hand values and against the exact walk: ε = 0 is the walk, any ε stays inside its counted
bound (below, never above), and its work is bounded by 1/(α·ε) whatever the graph."""

import numpy as np
import pytest
from scipy import sparse

from engine.errors import PathLensError
from engine.graph.ppr import column_normalize, personalized_pagerank
from engine.graph.push import LocalWalk, forward_push, proven_order
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


def test_a_star_by_hand_bounds_each_node_by_its_degree():
    # a leaf seeds a star of four leaves; α = 0.15, ε = 0.5: the leaf pushes its 1 (1 ≥ 0.5·1 edge), the centre keeps
    # its (1 − α) = 0.85 (< 0.5·4 edges). Left: (1 − α)·0.85 of mass in all, the bound; and 0.85 over the centre's
    # degree 4 at that level, so a node of degree d is within (1 − α)·0.85/4·d of its exact score
    A = np.zeros((5, 5))
    A[0, 1:] = A[1:, 0] = 1
    walk = LocalWalk(column_normalize(sparse.csr_matrix(A)), A.sum(axis=0))
    r = walk.push([1], [1.0], alpha=0.15, iterations=20, eps=0.5)
    assert r.dense(5).tolist() == [0.15 * 0.85, 0.15, 0, 0, 0] and r.edges == 1
    assert r.bound == 0.85 * 0.85 and r.spread == (0.85 * (0.85 / 4),) * 2  # no sides: the same for every node
    s = np.zeros(5)
    s[1] = 1.0
    gap = personalized_pagerank(column_normalize(sparse.csr_matrix(A)), s, 0.15, 20).scores - r.dense(5)
    assert (gap >= 0).all() and (gap[2:] <= r.spread[0]).all() and gap[0] <= r.bound  # a leaf's: 0.16, not 0.72
    no_degrees = LocalWalk(column_normalize(sparse.csr_matrix(A))).push([1], [1.0], eps=0.5)
    assert no_degrees.spread == (np.inf, np.inf)
    # the star is bipartite, the centre side 0 and the leaves side 1: the centre's 0.85 was left with 19 steps to go,
    # and reaches a leaf only in odd steps, itself only in even ones. Odd: α(1−α)ᵏ for k = 1, 3, …, 17 and the
    # last term, (1−α)¹⁹; even: α(1−α)ᵏ for k = 2, 4, …, 18
    sides = np.array([0, 1, 1, 1, 1])
    halves = LocalWalk(column_normalize(sparse.csr_matrix(A)), A.sum(axis=0), sides).push([1], [1.0], eps=0.5)
    odd = sum(0.15 * 0.85 ** k for k in range(1, 19, 2)) + 0.85 ** 19
    even = sum(0.15 * 0.85 ** k for k in range(2, 19, 2))
    assert halves.spread == pytest.approx((even * 0.85 / 4, odd * 0.85 / 4), rel=1e-14, abs=0)
    assert odd + even == pytest.approx(0.85, rel=1e-14) and odd < 0.49 and even < 0.37  # 0.480 and 0.370
    # and here no looser than the walk itself: the centre's leftover spreads evenly over its leaves, so every
    # leaf's gap is its side's spread and the centre's, its side's times its 4 links
    np.testing.assert_allclose(gap[2:], halves.spread[1], rtol=1e-12)
    assert gap[0] == pytest.approx(halves.spread[0] * 4, rel=1e-12)


def _pushed_against_exact(walk, W, seeds, masses):
    """(ε, its push, how far below the exact walk's each node's score is) for four ε, from these seeds."""
    s = np.zeros(W.shape[0])
    s[seeds] = masses
    exact = personalized_pagerank(W, s, 0.15, 20).scores
    pushes = [(eps, walk.push(seeds, masses, 0.15, 20, eps)) for eps in (1e-4, 1e-3, 1e-2, 1e-1)]
    return [(eps, r, exact - r.dense(W.shape[0])) for eps, r in pushes]


@pytest.mark.parametrize("seed", range(4))
def test_on_a_symmetric_graph_every_node_is_within_spread_times_its_degree(seed):
    # random weighted symmetric A with isolated nodes: W = A·D⁻¹ is reversible, the walk the per-node bound needs
    rng = np.random.default_rng(seed)
    A = sparse.random(60, 60, density=0.08, random_state=seed).toarray()
    A = A + A.T
    A[:, :3] = A[:3, :] = 0
    W = column_normalize(sparse.csr_matrix(A))
    walk = LocalWalk(W, A.sum(axis=0))
    for _, r, gap in _pushed_against_exact(walk, W, rng.choice(60, 4, replace=False), rng.dirichlet(np.ones(4))):
        assert gap.min() >= -1e-15 and (gap <= r.spread[0] * walk.degrees + 1e-15).all()
        assert r.spread[0] * walk.degrees.max() > r.bound / 50  # not a bound that says nothing at these ε


@pytest.mark.parametrize("seed", range(4))
def test_on_a_bipartite_graph_every_node_is_within_its_sides_spread_times_its_degree(seed):
    # random weighted bipartite A (24 + 36 nodes, some isolated), seeds on both sides: each side's spread bounds its
    # nodes, and is below the spread the same push has without sides
    rng = np.random.default_rng(seed)
    B = sparse.random(24, 36, density=0.12, random_state=seed).toarray()
    B[:2] = 0
    A = np.block([[np.zeros((24, 24)), B], [B.T, np.zeros((36, 36))]])
    W = column_normalize(sparse.csr_matrix(A))
    sides = np.repeat([0, 1], [24, 36])
    walk, plain = LocalWalk(W, A.sum(axis=0), sides), LocalWalk(W, A.sum(axis=0))
    seeds, masses = np.array([3, 7, 30, 41]), rng.dirichlet(np.ones(4))
    for eps, r, gap in _pushed_against_exact(walk, W, seeds, masses):
        assert gap.min() >= -1e-15 and (gap <= np.array(r.spread)[sides] * walk.degrees + 1e-15).all()
        assert max(r.spread) <= plain.push(seeds, masses, 0.15, 20, eps).spread[0]
        assert r.nodes.tolist() == plain.push(seeds, masses, 0.15, 20, eps).nodes.tolist()


def test_sides_that_an_edge_does_not_cross_are_named():
    A, W = small_graph()
    with pytest.raises(PathLensError, match="not bipartite on the sides given: an edge joins nodes 0 and 1, both of"):
        LocalWalk(W, sides=np.array([0, 0, 1, 1, 0, 1, 0]))
    with pytest.raises(PathLensError, match="sides must be 0 or 1 for each of the graph's 7 nodes"):
        LocalWalk(W, sides=np.array([0, 2, 1, 1, 0, 1, 0]))


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
    masses = [0.5, 0.3, 0.2]
    s = np.zeros(Wc.shape[0])
    s[seeds] = masses
    exact = personalized_pagerank(g.W, s, 0.15, 20).scores
    np.testing.assert_allclose(forward_push(Wc, seeds, masses, eps=0).dense(len(s)), exact, atol=1e-14)
    previous = None
    for eps in (1e-6, 1e-4, 1e-2):
        r = forward_push(Wc, seeds, masses, eps=eps)
        gap = exact - r.dense(len(s))
        assert gap.min() >= -1e-14 and gap.max() <= r.bound + 1e-14  # below, never above, within the bound
        assert r.edges <= 1 / (0.15 * eps)  # the work bound, whatever the graph's size
        if previous is not None:
            assert r.edges <= previous.edges and r.bound >= previous.bound  # a coarser ε: less work, a wider bound
        previous = r
    assert previous.bound > 0
    d = g.local_walk.degrees  # the graph's own: W·D is A, symmetric
    WD = g.W @ sparse.diags(d)
    assert abs(WD - WD.T).max() < 1e-12
    for eps in (1e-6, 1e-4, 1e-2):
        r = g.local_walk.push(seeds, masses, eps=eps)  # passages side 0, entities side 1
        assert (exact - r.dense(len(s)) <= np.array(r.spread)[g.local_walk.sides] * d + 1e-14).all()


def test_per_seed_pushes_add_up_to_the_score_exactly(core_index):
    g, Wc = _core_walk(core_index)
    seeds = [g.n_passages + j for j in range(4)]
    masses = [0.4, 0.3, 0.2, 0.1]
    together = forward_push(Wc, seeds, masses, eps=0).dense(Wc.shape[0])
    apart = sum(forward_push(Wc, [n], [m], eps=0).dense(Wc.shape[0]) for n, m in zip(seeds, masses))
    np.testing.assert_allclose(apart, together, atol=1e-15)


def test_a_seed_never_reaches_another_component():
    _, W = small_graph()
    r = forward_push(W.tocsc(), [4], [1.0], eps=0)
    assert set(r.nodes.tolist()) == {4, 5}


@pytest.mark.parametrize("args, message", [
    (dict(eps=-1), "push threshold ε must be 0 or more"),
    (dict(seeds=[9]), "1 seeds with 1 masses do not fit a graph of 7 nodes"),
    (dict(alpha=1.5), "alpha"),
])
def test_bad_input_is_named(args, message):
    W = column_normalize(sparse.csr_matrix(small_graph()[0])).tocsc()
    call = {"seeds": [0], "masses": [1.0], **args}
    with pytest.raises(PathLensError, match=message):
        forward_push(W, call.pop("seeds"), call.pop("masses"), **call)


def _reference_push(W: sparse.csc_matrix, degree, sides, seeds, masses, alpha, iterations, eps):
    """The same levels in plain Python dictionaries, a node at a time: the reference for the compiled loop."""
    edge_count = np.diff(W.indptr)
    column_sum = np.asarray(W.sum(axis=0)).ravel()
    r = {}
    for node, m in zip(seeds, masses):
        r[node] = r.get(node, 0.0) + m
    est, bound, spread, edges = {}, 0.0, [0.0, 0.0], 0
    for t in range(iterations + 1):
        for u, ru in r.items():
            est[u] = est.get(u, 0.0) + (ru if t == iterations else alpha * ru)
        if t == iterations:
            break
        nxt, most = {}, [0.0, 0.0]
        for u, ru in sorted(r.items()):
            if ru >= eps * edge_count[u]:
                edges += int(edge_count[u])
                moved = (1 - alpha) * ru
                for e in range(W.indptr[u], W.indptr[u + 1]):
                    v = int(W.indices[e])
                    nxt[v] = nxt.get(v, 0.0) + W.data[e] * moved
            else:
                bound += (1 - alpha) * ru * column_sum[u]
                side = 0 if sides is None else sides[u]
                most[side] = max(most[side], ru / degree[u])
        left = iterations - t  # what the rest of the walk would add, by its steps' parity
        even, odd, power = 0.0, 0.0, 1.0
        for k in range(1, left + 1):
            power *= 1 - alpha
            if k % 2:
                odd += alpha * power if k < left else power
            else:
                even += alpha * power if k < left else power
        if sides is None:  # not bipartite: what is left may reach any node in any number of steps
            spread = [spread[0] + (1 - alpha) * most[0]] * 2
        else:
            spread = [spread[0] + most[0] * even + most[1] * odd, spread[1] + most[1] * even + most[0] * odd]
        r = nxt
        if not r:
            break
    return est, bound, tuple(spread), edges


@pytest.mark.parametrize("eps", [0.0, 1e-6, 1e-4])
def test_the_compiled_levels_match_a_plain_python_push(core_index, eps):
    g, Wc = _core_walk(core_index)
    seeds = [g.n_passages + g.entity_index[k] for k in list(g.entity_index)[5:8]] + [3]
    masses = [0.4, 0.3, 0.2, 0.1]
    est, bound, spread, edges = _reference_push(Wc, g.local_walk.degrees, g.local_walk.sides, seeds, masses, 0.15,
                                                20, eps)
    r = g.local_walk.push(seeds, masses, 0.15, 20, eps)
    # the same nodes in the same order, so the same sums to the last bit
    assert r.nodes.tolist() == sorted(est) and r.edges == edges
    assert r.scores.tolist() == [est[u] for u in sorted(est)] and r.bound == bound and r.spread == spread


@pytest.mark.parametrize("eps", [0.0, 1e-3, 1e-2])
def test_the_compiled_levels_match_a_plain_python_push_where_edges_weigh_differently(eps):
    # weighted links: W's columns are not one weight each, so the push reads every edge's own
    A = sparse.random(40, 40, density=0.15, random_state=3).toarray()
    A = A + A.T
    walk = LocalWalk(column_normalize(sparse.csr_matrix(A)), A.sum(axis=0))
    assert not walk.uniform and walk.data.size == np.count_nonzero(A)
    seeds, masses = [2, 11, 30], [0.5, 0.3, 0.2]
    est, bound, spread, edges = _reference_push(sparse.csc_matrix(column_normalize(sparse.csr_matrix(A))),
                                                walk.degrees, None, seeds, masses, 0.15, 20, eps)
    r = walk.push(seeds, masses, 0.15, 20, eps)
    assert r.nodes.tolist() == sorted(est) and r.edges == edges
    assert r.scores.tolist() == [est[u] for u in sorted(est)] and r.bound == bound
    assert r.spread == (spread[0], spread[0])  # no sides: every residual left counts (1 − α) whole
    assert LocalWalk(column_normalize(sparse.csr_matrix((A > 0).astype(float)))).uniform  # 0/1 links: one a column


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
    masses = [0.3, 0.2, 0.2, 0.1, 0.1, 0.1]
    one_by_one = [walk.push([s], [m], 0.15, 20, 1e-6) for s, m in zip(seeds, masses)]

    def same(pushes):
        return [(p.nodes.tolist(), p.scores.tolist(), p.bound, p.edges) for p in pushes]

    assert same(walk.push_each(seeds, masses, 0.15, 20, 1e-6)) == same(one_by_one)
    # called from a helper thread itself (every helper busy), it still finishes: the caller takes what is left
    nested = helper_threads().submit(walk.push_each, seeds, masses, 0.15, 20, 1e-6).result(timeout=60)
    assert same(nested) == same(one_by_one)
    assert walk.push_each([], [], 0.15, 20, 1e-6) == ()
    with pytest.raises(PathLensError, match="do not fit a graph"):  # a bad seed's error reaches the caller
        walk.push_each([seeds[0], 10**9], [0.5, 0.5], 0.15, 20, 1e-6)


@pytest.mark.parametrize("estimate, degrees, top, proven, proven_without_error", [
    ([0.5, 0.3, 0.2], [1, 1, 1], 2, True, True),  # 0.5 > 0.3 + 0.05, and 0.3 > 0.2 + 0.05
    ([0.5, 0.3, 0.2], [1, 1, 3], 2, False, True),  # the third may be 0.35, above the second's 0.3
    ([0.5, 0.3, 0.2], [1, 5, 1], 2, False, True),  # the second may be 0.55, above the first's 0.5
    ([0.5, 0.3, 0.0], [1, 1, 7], 2, False, True),  # a node the push never reached may be 0.35
    ([0.3, 0.3, 0.1], [0, 0, 0], 2, False, False),  # an exact tie is never proven
    ([0.2, 0.5, 0.2, 0.1], [0, 0.2, 0, 0], 1, True, True),  # the first place is the second node
    ([0.5, 0.0], [1, 0], 2, False, True),  # one place of two: something else may have a score, unless none is left
    ([0.0, 0.0], [1, 1], 2, False, True),
])
def test_an_order_is_proven_only_when_no_bound_lets_two_places_swap(estimate, degrees, top, proven,
                                                                    proven_without_error):
    # every node within min(bound 0.4, 0.05 × its degree) of its exact score; then with nothing left behind
    estimate, degrees = np.array(estimate), np.array(degrees, dtype=float)
    first = np.lexsort((np.arange(estimate.size), -estimate))[:top]
    assert proven_order(estimate, first, degrees, 0.4, 0.05, top) is proven
    assert proven_order(estimate, first, degrees, 0.0, 0.0, top) is proven_without_error
    # the places given only among the nodes with a score, as the retrievers rank: the same answers
    scored = first[estimate[first] > 0]
    assert proven_order(estimate, scored, degrees, 0.4, 0.05, top) is proven
    assert proven_order(estimate, scored, degrees, 0.0, 0.0, top) is proven_without_error

    # listed sparsely, as the retrievers pass them (the nodes with a score, and the largest degree): the same
    nodes = np.flatnonzero(estimate > 0)
    at = np.searchsorted(nodes, scored)
    assert proven_order(estimate[nodes], at, degrees, 0.4, 0.05, top, nodes=nodes) is proven
    assert proven_order(estimate[nodes], at, degrees, 0.0, 0.0, top, nodes=nodes,
                        max_degree=degrees.max()) is proven_without_error


def test_a_node_left_unlisted_is_taken_to_have_the_largest_degree():
    # listing node 2 (estimate 0.2, degree 1) proves the order; left out, its degree may be node 3's (6):
    # 0 + 0.05 × 6 = 0.3 reaches the last place's 0.3
    estimate, degrees = np.array([0.5, 0.3, 0.2, 0.0]), np.array([1.0, 1.0, 1.0, 6.0])
    assert not proven_order(estimate[:2], np.array([0, 1]), degrees, 0.4, 0.05, 2, nodes=np.array([0, 1]))
    assert proven_order(estimate[:2], np.array([0, 1]), degrees, 0.4, 0.05, 2, nodes=np.array([0, 1]), max_degree=1.0)
    assert not proven_order(estimate, np.array([0, 1]), degrees, 0.4, 0.05, 2)  # listed, node 3 itself may be 0.3


def test_pushes_add_up_as_into_one_vector_to_the_last_bit(core_index):
    g, _ = _core_walk(core_index)
    walk = g.local_walk
    seeds = [g.n_passages + j for j in range(4)] + [2]
    pushes = walk.push_each(seeds, [0.3, 0.3, 0.2, 0.1, 0.1], 0.15, 20, 1e-5)
    dense = np.zeros(walk.n)
    for p in pushes:
        dense[p.nodes] += p.scores
    nodes, scores = walk.add_up(pushes)
    assert nodes.tolist() == np.flatnonzero(dense > 0).tolist() and scores.tolist() == dense[nodes].tolist()
    assert walk.add_up(pushes[:1])[1].tolist() == pushes[0].scores.tolist()
    assert [a.size for a in walk.add_up(())] == [0, 0]
    scratch = walk._take()  # left zeroed for the next push
    assert not scratch.estimate.any() and not scratch.seen.any()

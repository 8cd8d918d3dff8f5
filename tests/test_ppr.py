import numpy as np
import pytest
from scipy import sparse

from engine.errors import PathLensError
from engine.graph.entity_graph import build_from_incidence
from engine.graph.ppr import (bipartite_passage_scores, column_normalize, personalized_pagerank,
                        personalized_pagerank_batch)


def small_graph():
    """Two components (0-1-2 triangle with a tail 3, and 4-5) plus an isolated sink 6."""
    edges = [(0, 1), (1, 2), (0, 2), (2, 3), (4, 5)]
    A = np.zeros((7, 7))
    for a, b in edges:
        A[a, b] = A[b, a] = 1
    return A, column_normalize(sparse.csr_matrix(A))


def dense_solve(A, s, alpha):
    deg = A.sum(axis=0)
    W = np.divide(A, deg, out=np.zeros_like(A), where=deg > 0)
    return np.linalg.solve(np.eye(len(s)) - (1 - alpha) * W, alpha * s)


def test_columns_sum_to_one_except_sinks():
    _, W = small_graph()
    sums = np.asarray(W.sum(axis=0)).ravel()
    np.testing.assert_allclose(sums, [1, 1, 1, 1, 1, 1, 0])


@pytest.mark.parametrize("alpha", [0.15, 0.5, 0.85])
def test_matches_a_dense_linear_solve(alpha):
    A, W = small_graph()
    s = np.zeros(7)
    s[[0, 4, 6]] = [0.5, 0.3, 0.2]  # seeds in both components and on the sink
    result = personalized_pagerank(W, s, alpha, iterations=1000, tol=1e-14)
    np.testing.assert_allclose(result.scores, dense_solve(A, s, alpha), atol=1e-12)
    assert result.iterations < 1000  # stopped on the tolerance
    assert result.residuals[-1] < 1e-14 <= result.residuals[-2]


def test_fixed_cap_and_residual_trace():
    _, W = small_graph()
    s = np.eye(7)[0]
    r = personalized_pagerank(W, s, 0.15, iterations=5)
    assert r.iterations == 5 and len(r.residuals) == 5
    # by hand: one step from s
    one = personalized_pagerank(W, s, 0.15, iterations=1).scores
    np.testing.assert_allclose(one, 0.15 * s + 0.85 * (W @ s))
    assert r.residuals[0] == pytest.approx(np.abs(one - s).sum())


def test_batch_is_bit_identical_to_single_runs():
    _, W = small_graph()
    S = np.random.default_rng(1).random((7, 4))
    batch = personalized_pagerank_batch(W, S, 0.2, iterations=30).scores
    for j in range(4):
        single = personalized_pagerank(W, S[:, j].copy(), 0.2, iterations=30).scores
        assert np.array_equal(batch[:, j], single)


@pytest.mark.parametrize("alpha,iters,tol", [(0, 20, None), (1, 20, None), (0.15, 0, None), (0.15, 1001, None),
                                             (0.15, 20, 0.0), (float("nan"), 20, None)])
def test_parameters_out_of_range(alpha, iters, tol):
    _, W = small_graph()
    with pytest.raises(PathLensError):
        personalized_pagerank(W, np.eye(7)[0], alpha, iters, tol)


def bipartite_graph():
    """6 passages × 5 entities, random links, with an isolated passage and an isolated entity (sinks)."""
    inc = (np.random.default_rng(3).random((6, 5)) < 0.45).astype(float)
    inc[5, :] = 0
    inc[:, 4] = 0
    inc[0, 0] = inc[1, 0] = 1  # at least one edge
    return build_from_incidence("t", tuple(f"p{i}" for i in range(6)), tuple("abcde"), tuple("ABCDE"),
                                sparse.csr_matrix(inc))


@pytest.mark.parametrize("iterations", [1, 2, 3, 4, 7, 20, 21])
def test_bipartite_passage_scores_are_bit_identical_to_full_ppr(iterations):
    g = bipartite_graph()
    to_p, to_e = g.blocks
    S = np.random.default_rng(iterations).random((5, 3))
    S[4, 0] = 1.0  # seed on the isolated entity too
    full = np.vstack([np.zeros((6, 3)), S])
    for j in range(3):
        expect = personalized_pagerank(g.W, full[:, j].copy(), 0.3, iterations).scores[:6]
        got = bipartite_passage_scores(to_p, to_e, S[:, j].copy(), 0.3, iterations)
        assert np.array_equal(got, expect)
    block = bipartite_passage_scores(to_p, to_e, S, 0.3, iterations)
    assert np.array_equal(block, personalized_pagerank_batch(g.W, full, 0.3, iterations).scores[:6])


def test_bipartite_passage_scores_converge_to_the_dense_solve():
    g = bipartite_graph()
    s = np.array([0.5, 0.0, 0.25, 0.25, 0.0])
    full = np.concatenate([np.zeros(6), s])
    expect = dense_solve(g.W.toarray(), full, 0.15)[:6]
    got = bipartite_passage_scores(*g.blocks, s, 0.15, 600)
    np.testing.assert_allclose(got, expect, atol=1e-13)
    assert got[5] == 0  # the isolated passage is never reached


def test_bipartite_passage_scores_leave_the_seed_alone_and_check_inputs():
    g = bipartite_graph()
    s = np.array([1.0, 0, 0, 0, 0])
    before = s.copy()
    bipartite_passage_scores(*g.blocks, s, 0.15, 5)
    assert np.array_equal(s, before)
    with pytest.raises(PathLensError, match="do not fit"):
        bipartite_passage_scores(*g.blocks, np.ones(6), 0.15, 5)
    with pytest.raises(PathLensError, match="alpha"):
        bipartite_passage_scores(*g.blocks, s, 1.5, 5)
    with pytest.raises(PathLensError, match="iterations"):
        bipartite_passage_scores(*g.blocks, s, 0.15, 0)


@pytest.mark.parametrize("iterations", [1, 2, 3, 4, 7, 20, 21])
def test_bipartite_scores_with_seeds_on_both_sides_are_bit_identical_to_full_ppr(iterations):
    """The hybrid's personalization seeds passages and entities: the kernel must still equal the
    full iteration's passage rows to the last bit, for odd and even step counts."""
    g = bipartite_graph()
    to_p, to_e = g.blocks
    rng = np.random.default_rng(100 + iterations)
    S_e, S_p = rng.random((5, 3)), rng.random((6, 3))
    S_p[:, 2] = 0.0  # one column seeds entities only
    full = np.vstack([S_p, S_e])
    for j in range(3):
        expect = personalized_pagerank(g.W, full[:, j].copy(), 0.3, iterations).scores[:6]
        got = bipartite_passage_scores(to_p, to_e, S_e[:, j].copy(), 0.3, iterations, S_p[:, j].copy())
        assert np.array_equal(got, expect)
    block = bipartite_passage_scores(to_p, to_e, S_e, 0.3, iterations, S_p)
    assert np.array_equal(block, personalized_pagerank_batch(g.W, full, 0.3, iterations).scores[:6])


def test_bipartite_scores_with_passage_seeds_converge_to_the_dense_solve():
    g = bipartite_graph()
    s_e = np.array([0.2, 0.0, 0.0, 0.05, 0.0])
    s_p = np.array([0.0, 0.5, 0.0, 0.0, 0.0, 0.25])  # passage 5 is isolated: it keeps only its teleport
    expect = dense_solve(g.W.toarray(), np.concatenate([s_p, s_e]), 0.15)[:6]
    got = bipartite_passage_scores(*g.blocks, s_e, 0.15, 600, s_p)
    np.testing.assert_allclose(got, expect, atol=1e-13)
    assert got[5] == pytest.approx(0.15 * 0.25)
    with pytest.raises(PathLensError, match="passage seed"):
        bipartite_passage_scores(*g.blocks, s_e, 0.15, 5, np.ones(5))


def test_a_row_split_matrix_multiplies_bit_identically_on_threads():
    from scipy import sparse

    from engine.graph.ppr import RowSplit, bipartite_passage_scores, personalized_pagerank, threaded

    rng = np.random.default_rng(5)
    A = sparse.random(400, 90, density=0.05, random_state=7, format="csr")
    A = sparse.csr_matrix(A.multiply(A > 0.3))  # some empty rows
    x, X = rng.random(90), rng.random((90, 4))
    for parts in (2, 3, 7):
        split = RowSplit(A, parts)
        assert sum(b.shape[0] for b in split.blocks) == 400 and len(split.blocks) <= parts
        assert np.array_equal(split @ x, A @ x) and np.array_equal(split @ X, A @ X)
    assert threaded(A, threads=2) is A  # small: not worth the threads
    assert isinstance(threaded(A, threads=2, min_nnz=0), RowSplit)
    # the walks through a split matrix are the walks through the whole one, bit for bit
    W = column_normalize(sparse.bmat([[None, A], [A.T, None]]))
    s = np.zeros(490)
    s[[400, 433]] = 0.5
    plain = personalized_pagerank(W, s, 0.15, 20)
    split = personalized_pagerank(threaded(W, threads=2, min_nnz=0), s, 0.15, 20)
    assert np.array_equal(plain.scores, split.scores) and plain.residuals == split.residuals
    to_p, to_e = W[:400, 400:].tocsr(), W[400:, :400].tocsr()
    assert np.array_equal(bipartite_passage_scores(to_p, to_e, s[400:]),
                          bipartite_passage_scores(threaded(to_p, 3, 0), threaded(to_e, 3, 0), s[400:]))
    # a block of seeds on split matrices walks column by column: the same numbers as the block product
    S_e, S_p = rng.random((90, 3)), rng.random((400, 3))
    for passages in (None, S_p):
        block = bipartite_passage_scores(to_p, to_e, S_e, 0.15, 20, passages)
        split = bipartite_passage_scores(threaded(to_p, 2, 0), threaded(to_e, 2, 0), S_e, 0.15, 20, passages)
        assert block.shape == split.shape == (400, 3) and np.array_equal(block, split)

import numpy as np
import pytest
from scipy import sparse

from engine.errors import PathLensError
from engine.ppr import column_normalize, personalized_pagerank, personalized_pagerank_batch


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

"""Our two PPR kernels against igraph PRPACK and networkx on the same graph and seed.

Run as a module (`python -m engine.evaluate.perf.kernel GRAPH.npz`), it is the fresh process that times PRPACK
alone: the median of 30 runs on the saved graph and seed."""

from __future__ import annotations

import statistics
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...indexing.index import Index
from .common import Context, best_block_median, interleaved_times, median_time, run_module


@dataclass(frozen=True)
class Kernel:
    builder: str
    nodes: int
    edges: int
    seeds: int
    ranking_kernel_ms: float
    ranking_equals_full_bitwise: bool
    full_kernel_ms: float
    converged_ms: float
    converged_iterations: int
    igraph_prpack_ms: float  # its best state in this run (see `ppr_kernel`)
    igraph_prpack_median_ms: float
    igraph_prpack_fresh_process_ms: list[float]
    networkx_ms: float
    top10_overlap_vs_igraph: int
    top10_overlap_vs_networkx: int
    top10_overlap_converged_vs_igraph: int
    bytes_per_step: int
    kernel_gb_per_s: float
    copy_gb_per_s: float

    @property
    def speedup_vs_igraph(self) -> float:
        return self.igraph_prpack_ms / self.ranking_kernel_ms

    def lines(self) -> list[str]:
        fresh = ", ".join(f"{x:.2f}" for x in self.igraph_prpack_fresh_process_ms)
        return [f"PPR ranking kernel ({self.nodes:,} nodes, {self.edges:,} edges, 20 iterations, passage scores): "
                f"{self.ranking_kernel_ms:.2f} ms; igraph prpack {self.igraph_prpack_ms:.2f} ms (best state; median "
                f"{self.igraph_prpack_median_ms:.2f} in this process, {fresh} in fresh ones) "
                f"({self.speedup_vs_igraph:.1f}x); networkx {self.networkx_ms:.1f} ms "
                f"({self.networkx_ms / self.ranking_kernel_ms:.0f}x); top-10 overlap {self.top10_overlap_vs_igraph}/10 "
                f"vs igraph, {self.top10_overlap_vs_networkx}/10 vs networkx",
                f"  full kernel (every node, residual trace; explanations): {self.full_kernel_ms:.2f} ms "
                f"({self.igraph_prpack_ms / self.full_kernel_ms:.1f}x igraph, "
                f"{self.networkx_ms / self.full_kernel_ms:.0f}x networkx); "
                f"passage scores bit-identical to the ranking kernel: {self.ranking_equals_full_bitwise}",
                f"  converged ({self.converged_iterations} iterations): {self.converged_ms:.2f} ms, "
                f"top-10 overlap {self.top10_overlap_converged_vs_igraph}/10 vs igraph",
                f"  bandwidth: {self.kernel_gb_per_s:.2f} GB/s moved ({self.bytes_per_step / 1e6:.2f} MB per step) vs "
                f"{self.copy_gb_per_s:.2f} GB/s numpy copy ({self.kernel_gb_per_s / self.copy_gb_per_s:.0%})"]


def seeded_query(index: Index, builder: str, queries: list[str]) -> str:
    """The first query that seeds the graph: the kernel needs a personalization vector."""
    r = index.retriever(f"ppr-{builder}")
    for q in queries:
        if r.seeding(q).seeds:
            return q
    raise RuntimeError(f"no query seeds the {builder} graph")


def measure(ctx: Context) -> Kernel:
    return ppr_kernel(ctx.index, "ner", seeded_query(ctx.index, "ner", ctx.queries))


def ppr_kernel(index: Index, builder: str, query: str) -> Kernel:
    """The ranking kernel (`bipartite_passage_scores`, what search, evaluation and the sweep run) computes the
    passage scores only, bit-identical to the full kernel's passage rows; the full kernel (`personalized_pagerank`,
    what explanations run) computes every node's score with a residual trace. The baselines solve to convergence
    for every node."""
    import igraph
    import networkx as nx

    from ...graph.ppr import bipartite_passage_scores, personalized_pagerank

    graph = index.graph(builder)
    retriever = index.retriever(f"ppr-{builder}")
    seeding = retriever.seeding(query)
    s = np.concatenate([np.zeros(graph.n_passages), retriever.seeder.vector(seeding.seeds)])
    W, n = graph.W, graph.n_passages
    to_p, to_e = graph.blocks
    s_e = s[n:].copy()
    inc = graph.incidence.tocoo()
    edges = [(int(i), int(n + j)) for i, j in zip(inc.row, inc.col)]
    size = W.shape[0]

    def top10(scores) -> set[int]:
        return {int(i) for i in np.argsort(-np.asarray(scores)[:n], kind="stable")[:10]}

    ranking = bipartite_passage_scores(to_p, to_e, s_e, 0.15, 20)
    full = personalized_pagerank(W, s, 0.15, 20)
    conv = personalized_pagerank(W, s, 0.15, 1000, tol=1e-10)
    ig = igraph.Graph(n=size, edges=edges, directed=False)
    reset = s.tolist()
    ig_scores = ig.personalized_pagerank(directed=False, damping=0.85, reset=reset, implementation="prpack")
    times = interleaved_times({
        "ranking": lambda: bipartite_passage_scores(to_p, to_e, s_e, 0.15, 20),
        "full": lambda: personalized_pagerank(W, s, 0.15, 20),
        "converged": lambda: personalized_pagerank(W, s, 0.15, 1000, tol=1e-10),
        "igraph": lambda: ig.personalized_pagerank(directed=False, damping=0.85, reset=reset, implementation="prpack"),
    }, 60)
    t_rank, t_full, t_conv = (statistics.median(times[k]) for k in ("ranking", "full", "converged"))
    # PRPACK runs two OpenMP threads; on this 2-vCPU machine a process sometimes settles for its
    # whole life in a state where it takes twice as long. So it is also timed in a few fresh
    # processes, and the ratios use its best state seen anywhere: the harder baseline.
    t_ig_fresh = _igraph_fresh(edges, s)
    t_ig = min([best_block_median(times["igraph"]), *t_ig_fresh])
    G = nx.Graph()
    G.add_nodes_from(range(size))
    G.add_edges_from(edges)
    pers = {i: float(v) for i, v in enumerate(s) if v > 0}
    nx_scores_d = nx.pagerank(G, alpha=0.85, personalization=pers, tol=1e-10, max_iter=1000)
    nx_scores = [nx_scores_d[i] for i in range(size)]
    t_nx = median_time(lambda: nx.pagerank(G, alpha=0.85, personalization=pers, tol=1e-10, max_iter=1000), 3)

    # bytes one ranking-kernel step moves: one of the two blocks (on average half of W), and
    # about six passes over a vector of one side (gather the input, write, scale, add teleport)
    block_bytes = sum(b.data.nbytes + b.indices.nbytes + b.indptr.nbytes for b in (to_p, to_e)) / 2
    bytes_step = int(block_bytes + 6 * size / 2 * 8)
    src = np.ones(bytes_step // 16 + 1)
    dst = np.empty_like(src)
    t_copy = median_time(lambda: np.copyto(dst, src), 50)
    return Kernel(
        builder=builder, nodes=size, edges=int(graph.incidence.nnz), seeds=len(seeding.seeds),
        ranking_kernel_ms=t_rank * 1e3, ranking_equals_full_bitwise=bool(np.array_equal(ranking, full.scores[:n])),
        full_kernel_ms=t_full * 1e3, converged_ms=t_conv * 1e3, converged_iterations=conv.iterations,
        igraph_prpack_ms=t_ig * 1e3, igraph_prpack_median_ms=statistics.median(times["igraph"]) * 1e3,
        igraph_prpack_fresh_process_ms=[x * 1e3 for x in t_ig_fresh], networkx_ms=t_nx * 1e3,
        top10_overlap_vs_igraph=len(top10(ranking) & top10(ig_scores)),
        top10_overlap_vs_networkx=len(top10(ranking) & top10(nx_scores)),
        top10_overlap_converged_vs_igraph=len(top10(conv.scores) & top10(ig_scores)),
        bytes_per_step=bytes_step, kernel_gb_per_s=bytes_step * 20 / t_rank / 1e9,
        copy_gb_per_s=2 * src.nbytes / t_copy / 1e9)


def _igraph_fresh(edges: list[tuple[int, int]], s: np.ndarray, processes: int = 3) -> list[float]:
    """Median PRPACK time in each of a few fresh interpreters (this module's main) on the same graph and seed."""
    with tempfile.TemporaryDirectory(prefix="pathlens-perf-") as tmp:
        path = Path(tmp) / "graph.npz"
        np.savez(path, edges=np.asarray(edges, dtype=np.int64).reshape(-1, 2), s=s)
        return [float(run_module("the igraph timing process", "engine.evaluate.perf.kernel", str(path)))
                for _ in range(processes)]


def main(path: str) -> None:
    import igraph

    d = np.load(path)
    g = igraph.Graph(n=len(d["s"]), edges=d["edges"].tolist(), directed=False)
    reset = d["s"].tolist()

    def prpack() -> None:
        g.personalized_pagerank(directed=False, damping=0.85, reset=reset, implementation="prpack")

    prpack()
    print(median_time(prpack, 30))


if __name__ == "__main__":
    main(sys.argv[1])

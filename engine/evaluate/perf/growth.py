"""Generated corpora of growing size: the regex graph and BM25 built, ppr-regex, bm25 and the Query page's answer
timed, push at each ε against the exact walk (`local_ppr`), and the exponent of each cost in the corpus size
fitted."""

from __future__ import annotations

import resource
import time
from dataclasses import dataclass, replace

import numpy as np

from ...indexing.index import Index
from ...retrieve.graph_retriever import GraphRetriever
from .common import Context, percentile, search_or_nothing
from .local_ppr import LocalPPR, compare


@dataclass(frozen=True)
class GrowthRow:
    passages: int
    generate_s: float
    build_regex_graph_and_bm25_s: float
    peak_rss_mb_so_far: float
    ppr_regex_query_p50_ms: float
    walk: str  # how ppr-regex walks at this size: "push" or "exact" (engine.graph.push.LOCAL_FROM_EDGES)
    exact_ppr_regex_query_p50_ms: float  # the exact walk, for comparison
    same_top10_as_exact: float  # share of the questions whose top 10 is the exact walk's, in order
    bm25_query_p50_ms: float
    query_page_answer_p50_ms: float
    graph_nodes: int
    graph_edges: int
    local: LocalPPR  # push at each of local_ppr.ROWS against the exact walk, question by question


@dataclass(frozen=True)
class Growth:
    rows: list[GrowthRow]
    # the slope of log cost against log size; None from one size, where no slope is measured
    exponent_build: float | None
    exponent_ppr_query: float | None
    exponent_bm25_query: float | None

    def lines(self) -> list[str]:
        lines = []
        for r in self.rows:
            lines.append(f"  {r.passages:>9,} passages: generated in {r.generate_s:.1f} s, "
                         f"build {r.build_regex_graph_and_bm25_s:.1f} s, peak RSS so far {r.peak_rss_mb_so_far:.0f} MB, "
                         f"ppr-regex query p50 {r.ppr_regex_query_p50_ms:.1f} ms ({r.walk} walk; exact "
                         f"{r.exact_ppr_regex_query_p50_ms:.1f} ms, top 10 as exact for {r.same_top10_as_exact:.1%} "
                         f"of the questions), bm25 p50 {r.bm25_query_p50_ms:.1f} ms, "
                         f"Query page answer (ppr-regex explained and drawn) p50 {r.query_page_answer_p50_ms:.1f} ms")
            lines += ["    " + line for line in r.local.lines()]
        if self.exponent_build is None:
            return lines + ["  fitted exponents: none (they need two sizes or more)"]
        return lines + [f"  fitted exponents: build {self.exponent_build:.2f}, ppr query {self.exponent_ppr_query:.2f}, "
                        f"bm25 query {self.exponent_bm25_query:.2f}"]


def measure(ctx: Context) -> Growth:
    return growth(ctx.options.growth_sizes)


def _row(size: int, seed: int) -> GrowthRow:
    from ...explain.render import subgraph_html
    from ...ingest.corpus import grown_corpus

    t0 = time.perf_counter()
    corpus = grown_corpus(f"grown-{size}", {"core": "dataroom-core", "size": size, "seed": seed})
    generate = time.perf_counter() - t0
    index = Index(corpus)
    t0 = time.perf_counter()
    index.graph("regex")
    index.bm25()
    build = time.perf_counter() - t0
    r = index.retriever("ppr-regex")
    queries = [q.text for q in corpus.queries]
    for q in queries[:2]:
        search_or_nothing(r, q)

    def timed(fn, qs: list[str]) -> float:
        times = []
        for q in qs:
            t1 = time.perf_counter()
            fn(q)
            times.append(time.perf_counter() - t1)
        return percentile(times, 50) * 1e3

    # the Query page's whole answer for this index's graph view: ppr-regex explained (seeds,
    # per-seed shares, evidence paths, subgraph) and its evidence graph drawn as HTML
    texts = {p.id: p.text for p in corpus.passages}

    def page_answer(q: str) -> None:
        answer = r.answer(q, 5)
        if answer.walk is not None:
            subgraph_html(answer.walk, texts=texts)

    exact = GraphRetriever(r.name, r.seeder, replace(r.params, walk_mode="exact"), r.passage_seeder)
    same = [[h.passage_id for h in search_or_nothing(r, q)] == [h.passage_id for h in search_or_nothing(exact, q)]
            for q in queries]
    bm = index.retriever("bm25")
    graph = index.graph("regex")
    return GrowthRow(passages=size, generate_s=generate, build_regex_graph_and_bm25_s=build,
                     peak_rss_mb_so_far=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                     ppr_regex_query_p50_ms=timed(lambda q: search_or_nothing(r, q), queries),
                     walk="push" if r.pushes else "exact",
                     exact_ppr_regex_query_p50_ms=timed(lambda q: search_or_nothing(exact, q), queries),
                     same_top10_as_exact=float(np.mean(same)),
                     bm25_query_p50_ms=timed(lambda q: bm.search(q, 10), queries[:10]),
                     query_page_answer_p50_ms=timed(page_answer, queries[:20]),
                     graph_nodes=graph.W.shape[0], graph_edges=int(graph.incidence.nnz),
                     local=compare(index, corpus.queries))


def growth(sizes=(1_000, 10_000, 100_000), seed: int = 7) -> Growth:
    rows = [_row(size, seed) for size in sizes]
    x = np.log([r.passages for r in rows])

    def exponent(key: str) -> float | None:
        if len(set(x)) < 2:
            return None
        return float(np.polyfit(x, np.log([getattr(r, key) for r in rows]), 1)[0])

    return Growth(rows, exponent("build_regex_graph_and_bm25_s"), exponent("ppr_regex_query_p50_ms"),
                  exponent("bm25_query_p50_ms"))

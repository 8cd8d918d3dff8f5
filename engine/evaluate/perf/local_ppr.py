"""Local PPR (forward push, engine.graph.push) against the exact walk the retrievers run, question by question: how
often its top 10 is the exact top 10, what its metrics are beside the exact ones (paired-bootstrap CI of the
difference), the work it did against the graph's size, and its time against the exact ranking's."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

import numpy as np

from ...errors import NoSeedError
from ...graph.push import LOCAL_EPS, LOCAL_EPS_FLOOR
from ...retrieve.graph_retriever import GraphRetriever, scored
from ..evaluate import judged
from ..metrics import paired_bootstrap, per_query
from .common import Context

EPSILONS = (1e-5, 1e-6, 1e-7, 1e-8)
# other first ε's the retrievers could start at, pushing again at tenths of it down to LOCAL_EPS_FLOOR; LOCAL_EPS
# was chosen among these on the generated million (docs/performance.md, "Decisions")
FIRST_EPSILONS = (1e-7, 2e-7, 1e-6, 2e-6)
# (ε, the finest ε it pushes again at while its top 10's order is not proven): each ε alone, the other first ε's,
# then the retrievers' own
ROWS = (tuple((eps, eps) for eps in EPSILONS) + tuple((eps, LOCAL_EPS_FLOOR) for eps in FIRST_EPSILONS)
        + ((LOCAL_EPS, LOCAL_EPS_FLOOR),))
RETRIEVER = "ppr-regex"
METRIC = "recall@5"
TOP = 10


@dataclass(frozen=True)
class PushRow:
    eps: float
    floor: float  # pushed again at tenths of eps down to this while the top 10's order was not proven
    same_top: float  # share of questions whose top 10 is the exact top 10, in order
    same_set: float  # … as a set
    metric_exact: float
    metric_push: float
    diff_low: float  # 95% paired-bootstrap CI of push − exact on the metric
    diff_high: float
    bound_p50: float  # the median question's error bound (every score exact to within it, from below)
    edges_p50: float  # edges pushed, median question (its last pushes)
    push_ms_p50: float  # the question's walk by push as the retrievers run it: seeds on both cores, pushed again
    push_ms_p90: float
    proven: float  # share of questions whose top 10's order the bounds proved
    at_first: float  # … at the first ε


@dataclass(frozen=True)
class LocalPPR:
    retriever: str
    questions: int
    graph_edges: int  # non-zeros of the walk matrix: what one exact step reads
    exact_ms_p50: float
    metric: str
    rows: list[PushRow]
    # why a local walk misses the exact order, for the median question: the share of passages the exact walk reaches,
    # the smallest gap between consecutive scores of its top 11, and its 10th score
    reached_p50: float = 0.0
    min_gap_p50: float = 0.0
    tenth_p50: float = 0.0

    def lines(self) -> list[str]:
        out = [f"local PPR ({self.retriever}, {self.questions} questions; the exact walk reads {self.graph_edges:,} "
               f"edges a step, 20 steps, {self.exact_ms_p50:.1f} ms p50):",
               f"  {'ε':>13} | top {TOP} as exact | same set | {self.metric} exact → push (95% CI of the change) "
               f"| bound p50 | order proven (at first ε) | edges pushed p50 | ms p50 | ms p90"]
        for r in self.rows:
            eps = f"{r.eps:.0e}" if r.floor == r.eps else f"{r.eps:.0e}→{r.floor:.0e}"
            out.append(f"  {eps:>13} | {r.same_top:>14.1%} | {r.same_set:>8.1%} | {r.metric_exact:.3f} → "
                       f"{r.metric_push:.3f} ({r.diff_low:+.3f}, {r.diff_high:+.3f}) | {r.bound_p50:.1e} | "
                       f"{r.proven:>6.1%} ({r.at_first:.1%}) | {r.edges_p50:,.0f} | {r.push_ms_p50:.1f} | "
                       f"{r.push_ms_p90:.1f}")
        out.append(f"  the exact walk, median question: reaches {self.reached_p50:.1%} of the passages; smallest gap "
                   f"between consecutive scores of its top {TOP + 1} {self.min_gap_p50:.1e}, its {TOP}th score "
                   f"{self.tenth_p50:.1e}")
        return out


def applies(ctx: Context) -> bool:
    return bool(ctx.corpus.queries)


def measure(ctx: Context) -> LocalPPR:
    return compare(ctx.index, ctx.corpus.queries)


def _top(rows: np.ndarray, values: np.ndarray, ids) -> list[str]:
    """The TOP passages of those scored (`rows` ascending), ties by position, as the retrievers break them."""
    return [ids[rows[j]] for j in np.lexsort((rows, -values))[:TOP]]


def _values(index, asked, runs: dict[str, list[str]]) -> list[float]:
    """Each asked question's METRIC for its top passages (judged by pages where its gold names pages)."""
    values = per_query(*judged(index.corpus, asked, {q: {p: TOP - i for i, p in enumerate(ids)}
                                                     for q, ids in runs.items()}), (5,))
    return [values[q.id][METRIC] for q in asked]


def compare(index, queries, retriever: str = RETRIEVER, rows=ROWS) -> LocalPPR:
    r = index.retriever(retriever)
    g = r.graph
    seeded, exact_runs, exact_ms, reached, gaps, tenth = [], {}, [], [], [], []
    for q in queries:
        try:
            t0 = time.perf_counter()
            pers = r.personalize(q.text)
            s_e, s_p = r.seed_vectors(pers)
            scores = r.passage_scores(s_e, s_p, r.params.iterations)
            exact_ms.append((time.perf_counter() - t0) * 1e3)
        except NoSeedError:
            continue
        seeded.append((q, pers))
        exact_runs[q.id] = _top(*scored(scores), g.passage_ids)
        best = np.sort(scores)[::-1][:TOP + 1]
        reached.append(float(np.mean(scores > 0)))
        gaps.append(float(np.min(-np.diff(best))) if best.size > 1 else 0.0)
        tenth.append(float(best[TOP - 1]) if best.size >= TOP else 0.0)
    asked = [q for q, _ in seeded]
    b = _values(index, asked, exact_runs)
    out = []
    for eps, floor in rows:
        pushing = GraphRetriever(r.name, r.seeder, replace(r.params, walk_mode="push", eps=eps, eps_floor=floor),
                                 r.passage_seeder)
        runs, bounds, edges, ms, proven, at_first = {}, [], [], [], [], []
        for q, pers in seeded:
            t0 = time.perf_counter()
            walk = pushing.walk(pers)
            ms.append((time.perf_counter() - t0) * 1e3)  # the walk as the retriever runs it; not the full sort below
            runs[q.id] = _top(*walk.scored_passages(g.n_passages), g.passage_ids)
            bounds.append(walk.bound)
            edges.append(sum(pushed.edges for pushed in walk.seed_pushes))
            proven.append(walk.proven)
            at_first.append(walk.proven and walk.eps == eps)
        a = _values(index, asked, runs)
        ci = paired_bootstrap(a, b, metric=METRIC, names=("push", "exact"))
        out.append(PushRow(eps, floor, float(np.mean([runs[q.id] == exact_runs[q.id] for q in asked])),
                           float(np.mean([set(runs[q.id]) == set(exact_runs[q.id]) for q in asked])),
                           float(np.mean(b)), float(np.mean(a)), ci.low, ci.high, float(np.median(bounds)),
                           float(np.median(edges)), float(np.median(ms)), float(np.percentile(ms, 90)),
                           float(np.mean(proven)), float(np.mean(at_first))))
    return LocalPPR(retriever, len(asked), int(g.W.nnz), float(np.median(exact_ms)), METRIC, out,
                    float(np.median(reached)), float(np.median(gaps)), float(np.median(tenth)))


__all__ = ["LocalPPR", "PushRow", "compare"]

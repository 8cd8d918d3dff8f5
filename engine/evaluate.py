"""Evaluation of retrievers over a corpus's labeled queries."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from .corpus import LabeledQuery
from .errors import NoSeedError, PathLensError
from .index import Index, SearchConfig, check_retriever
from .metrics import BootstrapCI, mean_metrics, metric_names, paired_bootstrap, per_query

MRR_DEPTH = 10  # rankings are read this deep (or to the largest k), so MRR is MRR@10


@dataclass(frozen=True, eq=False)
class RetrieverResult:
    retriever: str
    means: dict[str, float]
    by_kind: dict[str, dict[str, float]]
    per_query: dict[str, dict[str, float]]
    run: dict[str, dict[str, float]]  # {query_id: {passage_id: score}} in rank order
    no_seed: tuple[str, ...]  # queries the retriever could not seed (counted as misses)


@dataclass(frozen=True, eq=False)
class EvalResult:
    corpus: str
    n_passages: int
    n_queries: int
    ks: tuple[int, ...]
    config: SearchConfig
    results: dict[str, RetrieverResult]

    def to_json(self) -> dict:
        from .jsonout import config_json

        return {
            "corpus": self.corpus,
            "n_passages": self.n_passages,
            "n_queries": self.n_queries,
            "config": {"k": list(self.ks), "depth": max(MRR_DEPTH, *self.ks), **config_json(self.config)},
            "results": {
                name: {**r.means, "by_kind": r.by_kind, "no_seed": len(r.no_seed), "per_query": r.per_query}
                for name, r in self.results.items()
            },
        }


def compare(result: EvalResult, a: str, b: str, resamples: int = 10_000, seed: int = 42) -> list[BootstrapCI]:
    """The paired-bootstrap 95% CI of a − b for every metric, over the same questions."""
    for name in (a, b):
        if name not in result.results:
            raise PathLensError(f"{name!r} was not evaluated; evaluated: {', '.join(result.results)}")
    ra, rb = result.results[a], result.results[b]
    qids = list(ra.per_query)
    return [paired_bootstrap([ra.per_query[q][m] for q in qids], [rb.per_query[q][m] for q in qids],
                             metric=m, names=(a, b), resamples=resamples, seed=seed)
            for m in metric_names(result.ks)]


def check_ks(ks: Sequence[int]) -> tuple[int, ...]:
    if not ks:
        raise PathLensError("give at least one cut-off k")
    for k in ks:
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise PathLensError(f"every cut-off k must be a whole number of at least 1, got {k!r}")
    return tuple(sorted(set(ks)))


def run_queries(index: Index, name: str, queries: Sequence[LabeledQuery], depth: int,
                config: SearchConfig = SearchConfig()) -> tuple[dict[str, dict[str, float]], tuple[str, ...]]:
    retriever = index.retriever(check_retriever(name), config)
    batch = getattr(retriever, "search_batch", None)
    if batch is not None:  # graph retrievers: one batched PPR for all queries
        answers = batch([q.text for q in queries], depth)
    else:
        answers = []
        for q in queries:
            try:
                answers.append(retriever.search(q.text, depth))
            except NoSeedError as e:
                answers.append(e)
    run, no_seed = {}, []
    for q, hits in zip(queries, answers):
        if isinstance(hits, NoSeedError):
            hits = ()
            no_seed.append(q.id)
        run[q.id] = {h.passage_id: h.score for h in hits}
    return run, tuple(no_seed)


def evaluate(index: Index, retrievers: Sequence[str], ks: Sequence[int] = (1, 3, 5),
             config: SearchConfig = SearchConfig(), queries: Sequence[LabeledQuery] | None = None,
             on_retriever: Callable[[str], None] | None = None) -> EvalResult:
    ks = check_ks(ks)
    for r in retrievers:
        check_retriever(r)
    queries = tuple(index.corpus.queries if queries is None else queries)
    if not queries:
        raise PathLensError(f"corpus {index.corpus.name!r} has no labeled queries to evaluate")
    qrels = {q.id: {g: 1 for g in q.gold} for q in queries}
    depth = max(MRR_DEPTH, *ks)
    kinds = sorted({q.kind for q in queries})
    results = {}
    for name in retrievers:
        if on_retriever:
            on_retriever(name)
        run, no_seed = run_queries(index, name, queries, depth, config)
        values = per_query(run, qrels, ks)
        results[name] = RetrieverResult(
            retriever=name,
            means=mean_metrics(values),
            by_kind={kind: mean_metrics(values, [q.id for q in queries if q.kind == kind]) for kind in kinds},
            per_query=values,
            run=run,
            no_seed=no_seed,
        )
    return EvalResult(index.corpus.name, len(index.corpus), len(queries), ks, config, results)


__all__ = ["evaluate", "compare", "EvalResult", "RetrieverResult", "run_queries", "check_ks", "MRR_DEPTH"]

"""Evaluation of retrievers over a corpus's labeled queries."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

from ..ingest.corpus import Corpus
from ..ingest.questions import LabeledQuery
from ..errors import PathLensError
from ..indexing.index import Index, SearchConfig, check_retriever
from ..retrieve.retrievers import Retriever
from .metrics import BootstrapCI, cluster_bootstrap, mean_metrics, metric_names, paired_bootstrap, per_query

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
    unit: str = "passage"  # what the rankings rank: passages, or pages (each page once)

    def to_json(self) -> dict:
        from ..explain.jsonout import config_json

        return {
            "corpus": self.corpus,
            "n_passages": self.n_passages,
            "n_queries": self.n_queries,
            "unit": self.unit,
            "config": {"k": list(self.ks), "depth": max(MRR_DEPTH, *self.ks), **config_json(self.config)},
            "results": {
                name: {**r.means, "by_kind": r.by_kind, "no_seed": len(r.no_seed), "per_query": r.per_query}
                for name, r in self.results.items()
            },
        }


def compare(result: EvalResult, a: str, b: str, resamples: int = 10_000, seed: int = 42,
            clusters: Mapping[str, str] | None = None) -> list[BootstrapCI]:
    """The paired-bootstrap 95% CI of a − b for every metric, over the same questions; with `clusters`
    (question id → cluster, from `question_clusters`) whole clusters are resampled together."""
    for name in (a, b):
        if name not in result.results:
            raise PathLensError(f"{name!r} was not evaluated; evaluated: {', '.join(result.results)}")
    ra, rb = result.results[a], result.results[b]
    qids = list(ra.per_query)
    def ci(m: str) -> BootstrapCI:
        xa, xb = [ra.per_query[q][m] for q in qids], [rb.per_query[q][m] for q in qids]
        if clusters is None:
            return paired_bootstrap(xa, xb, metric=m, names=(a, b), resamples=resamples, seed=seed)
        return cluster_bootstrap(xa, xb, [clusters[q] for q in qids], metric=m, names=(a, b),
                                 resamples=resamples, seed=seed)
    return [ci(m) for m in metric_names(result.ks)]


CLUSTERS = ("doc", "company")


def question_clusters(queries: Sequence[LabeledQuery], by: str, corpus: Corpus) -> dict[str, str]:
    """Each question's cluster for a clustered bootstrap: `doc`, the documents its gold pages or passages
    are in; `company`, its `company` field (a question about two filings of one company then shares
    their cluster)."""
    doc_of = {p.id: p.doc_id for p in corpus.passages}
    if by not in CLUSTERS:
        raise PathLensError(f"cluster must be one of {', '.join(CLUSTERS)}, got {by!r}")
    out = {}
    for q in queries:
        if by == "company":
            if not q.extra.get("company"):
                raise PathLensError(f"question {q.id!r} has no 'company' field to cluster by; use --cluster doc")
            out[q.id] = q.extra["company"]
        else:
            docs = {g.rsplit("#p", 1)[0] for g in q.gold_pages} or {doc_of[g] for g in q.gold}
            out[q.id] = " + ".join(sorted(docs))
    return out


def doc_clusters(queries: Sequence[LabeledQuery], corpus: Corpus) -> dict[str, str] | None:
    """Whole documents as clusters when questions share their gold documents (they stand or fall together);
    None when every question has documents of its own, so the questions are resampled one by one."""
    clusters = question_clusters(queries, "doc", corpus)
    return clusters if len(set(clusters.values())) < len(clusters) else None


def lead_ci(result: EvalResult, queries: Sequence[LabeledQuery], corpus: Corpus, metric: str,
            resamples: int = 10_000, seed: int = 42) -> BootstrapCI | None:
    """The paired 95% CI of the leader on `metric` minus the next best (means as the tables show them, at three
    decimals; ties by name), resampled as `doc_clusters` says; None with fewer than two retrievers. It tells
    "the best" from "tied" where no table of intervals stands beside the sentence (the Scale sweep)."""
    if len(result.results) < 2:
        return None
    order = sorted(result.results, key=lambda n: (-round(result.results[n].means[metric], 3), n))
    return compare_by_kind(result, queries, order[0], order[1], metric, resamples, seed,
                           clusters=doc_clusters(queries, corpus))[0][2]


def leads(result: EvalResult, queries: Sequence[LabeledQuery], corpus: Corpus, metric: str,
          resamples: int = 10_000, seed: int = 42) -> dict[str, BootstrapCI]:
    """The paired 95% CI of the leader on `metric` minus each other retriever, resampled as `doc_clusters` says: the
    leader is the best only when every one of them is above 0."""
    order = sorted(result.results, key=lambda n: (-round(result.results[n].means[metric], 3), n))
    clusters = doc_clusters(queries, corpus)
    return {other: compare_by_kind(result, queries, order[0], other, metric, resamples, seed, clusters=clusters)[0][2]
            for other in order[1:]}


def select_questions(queries: Sequence[LabeledQuery], only: str) -> tuple[LabeledQuery, ...]:
    """The questions whose field has a value: "half=test" (an extra field, or kind). "" keeps all."""
    if not only:
        return tuple(queries)
    field_name, sep, value = only.partition("=")
    if not sep or not field_name.strip() or not value.strip():
        raise PathLensError(f"--only takes FIELD=VALUE, such as half=test, got {only!r}")
    field_name, value = field_name.strip(), value.strip()
    kept = tuple(q for q in queries if (q.kind if field_name == "kind" else q.extra.get(field_name)) == value)
    if not kept:
        values = sorted({str(q.kind if field_name == "kind" else q.extra.get(field_name)) for q in queries})
        raise PathLensError(f"--only {only}: no question has {field_name} = {value!r}; values: {', '.join(values)}")
    return kept


def compare_by_kind(result: EvalResult, queries: Sequence[LabeledQuery], a: str, b: str, metric: str,
                    resamples: int = 10_000, seed: int = 42,
                    clusters: Mapping[str, str] | None = None) -> list[tuple[str, int, BootstrapCI]]:
    """(kind, questions, CI) of a − b on one metric: over all questions, then each kind where there are several; with
    `clusters` (question id → cluster, from `question_clusters`) whole clusters are resampled together, as `compare`
    does."""
    for name in (a, b):
        if name not in result.results:
            raise PathLensError(f"{name!r} was not evaluated; evaluated: {', '.join(result.results)}")
    out = []
    kinds = sorted({q.kind for q in queries})
    for kind in ["all"] + (kinds if len(kinds) > 1 else []):  # one kind is "all" again, under a label
        ids = [q.id for q in queries if kind == "all" or q.kind == kind]
        xa = [result.results[a].per_query[i][metric] for i in ids]
        xb = [result.results[b].per_query[i][metric] for i in ids]
        if clusters is None:
            ci = paired_bootstrap(xa, xb, metric=metric, names=(a, b), resamples=resamples, seed=seed)
        else:
            ci = cluster_bootstrap(xa, xb, [clusters[i] for i in ids], metric=metric, names=(a, b),
                                   resamples=resamples, seed=seed)
        out.append((kind, len(ids), ci))
    return out


def verdict(ci: BootstrapCI) -> str:
    """A CI's reading in words, for someone who does not read intervals."""
    if ci.low > 0:
        return f"{ci.a} better: the whole interval is above 0"
    if ci.high < 0:
        return f"{ci.b} better: the whole interval is below 0"
    return "not significant: the interval includes 0"


def default_pair(result: EvalResult, graph_using: Sequence[str], multi_gold: bool) -> tuple[str, str, str]:
    """(A, B, metric) a comparison opens on: the best retriever that uses the graph against the best that does
    not, on Recall@5 when questions have several gold passages (finding all the evidence is the point), else
    HR@5; without one of the two groups, the two best. Ties go to the better MRR, then to the earlier retriever (a
    walk-through met filing, tied with filing-learned on HR@5 but behind on MRR, as the room's best)."""
    metrics = metric_names(result.ks)
    metric = next((m for m in (("recall@5", "hr@5") if multi_gold else ("hr@5",)) if m in metrics), metrics[0])
    order = list(result.results)

    def rank(n: str) -> tuple:
        means = result.results[n].means
        return (-means[metric], -means.get("mrr", 0.0), order.index(n))
    graph = min((n for n in order if n in graph_using), key=rank, default=None)
    other = min((n for n in order if n not in graph_using), key=rank, default=None)
    if graph is None or other is None:
        graph, other = sorted(order, key=rank)[:2]
    return graph, other, metric


def question_groups(queries: Sequence[LabeledQuery], field: str = "kind") -> dict[str, list[str]]:
    """Question ids by the value of one field: `kind`, or an extra field of the queries file.

    An extra field's value is split at commas, so a question tagged "year,note" is in both groups;
    questions without the field are left out. Groups come in label order.
    """
    out: dict[str, list[str]] = {}
    for q in queries:
        labels = [q.kind] if field == "kind" else [x.strip() for x in q.extra.get(field, "").split(",")]
        for label in labels:
            if label:
                out.setdefault(label, []).append(q.id)
    if not out:
        raise PathLensError(f"no question has a field {field!r}; fields: kind"
                            + "".join(f", {k}" for k in sorted({k for q in queries for k in q.extra})))
    return dict(sorted(out.items()))


def check_ks(ks: Sequence[int]) -> tuple[int, ...]:
    if not ks:
        raise PathLensError("give at least one cut-off k")
    for k in ks:
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise PathLensError(f"every cut-off k must be a whole number of at least 1, got {k!r}")
    return tuple(sorted(set(ks)))


def judged(corpus: Corpus, queries: Sequence[LabeledQuery],
           run: dict[str, dict[str, float]]) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, int]]]:
    """The run and qrels the metrics read: passages, or pages where a question's gold names pages.

    A question whose gold names a page is scored by pages: each ranked passage on a gold page
    stands for that page, so any passage there is a hit, and a page counts once, at its first
    passage (a later passage of the same page takes its rank but earns nothing). The ranks are
    still the passage ranks: Recall@5 reads the top five passages, not the top five pages.
    """
    page_of = {pid: at.key for pid, at in corpus.pages.items()}
    units_run, qrels = {}, {}
    for q in queries:
        pages = set(q.gold_pages)
        on_gold_page = {pid for pid in q.gold if page_of.get(pid) in pages}
        qrels[q.id] = {**{g: 1 for g in q.gold if g not in on_gold_page}, **{pg: 1 for pg in q.gold_pages}}
        ranked, seen = {}, set()
        for rank, (pid, score) in enumerate(run[q.id].items()):
            unit = page_of[pid] if page_of.get(pid) in pages else pid
            ranked[unit if unit not in seen else f"{pid}\x00repeat{rank}"] = score
            seen.add(unit)
        units_run[q.id] = ranked
    return units_run, qrels


PAGE_DEPTH = 8  # ranking by pages reads this many times deeper in passages, so pages fill the depth


def by_pages(corpus: Corpus, ranking: dict[str, float], depth: int) -> dict[str, float]:
    """A passage ranking as a page ranking: each page ranks once, at its best passage, which stands for
    it; passages of unpaged documents rank as themselves. Cut to `depth`."""
    pages = corpus.pages
    out: dict[str, float] = {}
    seen: set[str] = set()
    for pid, score in ranking.items():
        unit = at.key if (at := pages.get(pid)) else pid
        if unit not in seen:
            seen.add(unit)
            out[pid] = score
            if len(out) == depth:
                break
    return out


def check_unit(unit: str, corpus: Corpus, queries: Sequence[LabeledQuery]) -> str:
    """"passage", "page", or "auto": pages when every question's gold is pages, as people cite filings."""
    if unit not in ("auto", "passage", "page"):
        raise PathLensError(f"unit must be auto, passage or page, got {unit!r}")
    if unit == "auto":
        return "page" if queries and all(q.gold_pages for q in queries) else "passage"
    return unit


def run_queries(index: Index, name: str, queries: Sequence[LabeledQuery], depth: int,
                config: SearchConfig = SearchConfig(), unit: str = "passage", retriever: Retriever | None = None
                ) -> tuple[dict[str, dict[str, float]], tuple[str, ...]]:
    """Each question's ranking to `depth`, in passages or (unit "page") pages; by the catalog's `name`, or by
    `retriever` when given (a model not yet saved, measured before it is)."""
    retriever = retriever or index.retriever(check_retriever(name), config)
    read = depth * PAGE_DEPTH if unit == "page" else depth
    answers = retriever.answer_batch([q.text for q in queries], read)  # batched where the retriever can
    run = {q.id: {h.passage_id: h.score for h in a.hits} for q, a in zip(queries, answers)}
    if unit == "page":
        run = {qid: by_pages(index.corpus, ranking, depth) for qid, ranking in run.items()}
    no_seed = [q.id for q, a in zip(queries, answers) if a.no_seed]
    return run, tuple(no_seed)


def evaluate(index: Index, retrievers: Sequence[str], ks: Sequence[int] = (1, 3, 5),
             config: SearchConfig = SearchConfig(), queries: Sequence[LabeledQuery] | None = None,
             on_retriever: Callable[[str], None] | None = None, unit: str = "auto",
             made: Mapping[str, Retriever] | None = None) -> EvalResult:
    """Every retriever over the labeled questions. `unit` "page" ranks pages (each once, at its best
    passage) for every retriever alike; "auto" does so when every question's gold is pages. `made`: retrievers
    already made, by name, used instead of the catalog's."""
    ks = check_ks(ks)
    made = made or {}
    for r in retrievers:
        if r not in made:
            check_retriever(r)
    queries = tuple(index.corpus.queries if queries is None else queries)
    if not queries:
        raise PathLensError(f"corpus {index.corpus.name!r} has no labeled queries to evaluate")
    unit = check_unit(unit, index.corpus, queries)
    depth = max(MRR_DEPTH, *ks)
    kinds = sorted({q.kind for q in queries})
    results = {}
    for name in retrievers:
        if on_retriever:
            on_retriever(name)
        run, no_seed = run_queries(index, name, queries, depth, config, unit, made.get(name))
        units_run, qrels = judged(index.corpus, queries, run)
        values = per_query(units_run, qrels, ks)
        results[name] = RetrieverResult(
            retriever=name,
            means=mean_metrics(values),
            by_kind={kind: mean_metrics(values, [q.id for q in queries if q.kind == kind]) for kind in kinds},
            per_query=values,
            run=run,
            no_seed=no_seed,
        )
    return EvalResult(index.corpus.name, len(index.corpus), len(queries), ks, config, results, unit)


def pooled(results: Sequence[EvalResult], queries: Sequence[LabeledQuery]) -> EvalResult:
    """Several rooms' evaluations as one (a dev set split over two rooms): each question keeps the values its own
    room's index gave it, and the means, kinds and intervals read them all. Question ids must differ across rooms."""
    ids = [q.id for q in queries]
    if len(set(ids)) != len(ids):
        raise PathLensError("pooled rooms share question ids: " + ", ".join(sorted({i for i in ids if ids.count(i) > 1})[:5]))
    kinds = sorted({q.kind for q in queries})
    first = results[0]
    merged = {}
    for name in first.results:
        parts = [r.results[name] for r in results]
        values = {q: v for part in parts for q, v in part.per_query.items()}
        merged[name] = RetrieverResult(
            name, mean_metrics(values),
            {kind: mean_metrics(values, [q.id for q in queries if q.kind == kind]) for kind in kinds},
            values, {q: v for part in parts for q, v in part.run.items()}, tuple(q for part in parts for q in part.no_seed))
    return EvalResult(" + ".join(r.corpus for r in results), sum(r.n_passages for r in results),
                      sum(r.n_queries for r in results), first.ks, first.config, merged, first.unit)


__all__ = ["pooled", "evaluate", "question_groups", "question_clusters", "doc_clusters", "lead_ci", "select_questions", "compare", "compare_by_kind", "EvalResult", "RetrieverResult", "run_queries", "judged", "check_ks", "MRR_DEPTH"]

"""The scale sweep: how each retriever degrades as the corpus grows.

From one built index of the full corpus, each trial draws a subsample that keeps every
gold passage of the evaluated queries and fills up with other passages at random. The
subsample's index is sliced from the full one (graph restricted, BM25/TF-IDF statistics
recomputed over the subsample's token lists, embedding rows selected): no NER is re-run
and nothing is re-encoded.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from ..errors import PathLensError
from .evaluate import EvalResult, check_ks, evaluate, lead_ci
from .metrics import BootstrapCI, leaders_in_words
from ..catalog import stages_for
from ..indexing.index import Index, SearchConfig, check_retriever
from ..indexing.views import subset

DEFAULT_SIZES = ("100", "500", "1000", "2000", "full")


@dataclass(frozen=True)
class SweepConfig:
    sizes: tuple[int | str, ...] = DEFAULT_SIZES  # whole numbers or "full"
    resamples: int = 5
    seed: int = 42
    retrievers: tuple[str, ...] = ("bm25", "tfidf", "dense", "ppr-regex", "bct-regex", "ppr-ner", "bct-ner", "rrf")
    metric: str = "hr@5"
    ks: tuple[int, ...] = (1, 3, 5)

    def __post_init__(self) -> None:
        if self.resamples < 1:
            raise PathLensError(f"resamples must be at least 1, got {self.resamples}")
        if not self.retrievers:
            raise PathLensError("choose at least one retriever for the sweep")
        for r in self.retrievers:
            check_retriever(r)
        check_ks(self.ks)
        if not self.sizes:
            raise PathLensError("give at least one sweep size")


@dataclass(frozen=True)
class Trial:
    size: int
    resample: int
    retriever: str
    value: float
    metrics: dict = field(hash=False, compare=False)


@dataclass(frozen=True, eq=False)
class SweepResult:
    corpus: str
    n_passages: int
    sizes: tuple[int, ...]
    config: SweepConfig
    trials: tuple[Trial, ...]
    complete: bool  # False when cancelled part-way
    lead: BootstrapCI | None = None  # the whole corpus's leader minus the next best (evaluate.lead_ci)

    def summary(self) -> dict[int, dict[str, dict]]:
        out: dict[int, dict[str, dict]] = {}
        for t in self.trials:
            out.setdefault(t.size, {}).setdefault(t.retriever, []).append(t.value)
        return {
            size: {r: {"mean": float(np.mean(v)), "min": float(np.min(v)), "max": float(np.max(v)), "values": v}
                   for r, v in per.items()}
            for size, per in out.items()
        }

    def to_json(self) -> dict:
        c = self.config
        return {
            "corpus": self.corpus,
            "n_passages": self.n_passages,
            "sizes": list(self.sizes),
            "config": {"resamples": c.resamples, "seed": c.seed, "retrievers": list(c.retrievers),
                       "metric": c.metric, "complete": self.complete},
            "results": {str(size): per for size, per in self.summary().items()},
            "lead": None if self.lead is None else {"a": self.lead.a, "b": self.lead.b, "metric": self.lead.metric,
                                                    "mean_diff": self.lead.mean_diff, "low": self.lead.low,
                                                    "high": self.lead.high, "clusters": self.lead.clusters},
            "in_words": in_words(self),  # the sentences under the table and the chart
        }


def gold_positions(corpus) -> list[int]:
    """Positions of every gold passage of the corpus's labeled queries: each subsample keeps them."""
    pos = corpus.position()
    return sorted({pos[g] for q in corpus.queries for g in q.gold})


def default_sizes(n: int, n_gold: int) -> tuple[int | str, ...]:
    """DEFAULT_SIZES when they all fit between the gold passages and the corpus; otherwise four
    sizes evenly spaced on a log scale from the gold count up (two significant figures, rounded
    up so each still holds every gold passage), then the full corpus."""
    fixed = [int(s) for s in DEFAULT_SIZES if s != "full"]
    if all(max(n_gold, 1) <= s < n for s in fixed):
        return DEFAULT_SIZES
    out = []
    for x in np.geomspace(max(n_gold, 1), n, 5)[:-1]:
        step = 10 ** max(int(np.floor(np.log10(x))) - 1, 0)
        size = int(np.ceil(x / step) * step)
        if size < n and size not in out:
            out.append(size)
    return tuple(out) + ("full",)


def resolve_sizes(sizes: Sequence[int | str], n: int, n_gold: int) -> tuple[int, ...]:
    out = []
    for s in sizes:
        if s == "full":
            size = n
        else:
            try:
                size = int(s)
            except (TypeError, ValueError):
                raise PathLensError(f"sweep size must be a whole number or 'full', got {s!r}") from None
        if size > n:
            raise PathLensError(f"sweep size {size} is larger than the corpus ({n} passages)")
        if size < max(n_gold, 1):
            raise PathLensError(f"sweep size {size} is smaller than the {n_gold} gold passages it must keep")
        out.append(size)
    return tuple(sorted(set(out)))


def subsample(n: int, gold: Sequence[int], size: int, rng: np.random.Generator) -> list[int]:
    """`size` positions out of n: every gold position, the rest drawn without replacement; sorted."""
    gold_set = set(gold)
    others = np.array([i for i in range(n) if i not in gold_set], dtype=np.int64)
    extra = rng.choice(others, size=size - len(gold_set), replace=False) if size > len(gold_set) else []
    return sorted(gold_set | {int(i) for i in extra})


def run_sweep(index: Index, config: SweepConfig = SweepConfig(), search: SearchConfig = SearchConfig(),
              on_trial: Callable[[Trial, int, int], None] | None = None,
              should_stop: Callable[[], bool] = lambda: False) -> SweepResult:
    corpus = index.corpus
    if not corpus.queries:
        raise PathLensError(f"corpus {corpus.name!r} has no labeled queries to sweep over")
    metric_ok = config.metric == "mrr" or any(config.metric == f"{m}@{k}" for m in ("hr", "recall", "all")
                                              for k in config.ks)
    if not metric_ok:
        raise PathLensError(f"metric {config.metric!r} is not one of hr@k, recall@k, all@k (k in {config.ks}) or mrr")
    gold = gold_positions(corpus)
    n = len(corpus)
    sizes = resolve_sizes(config.sizes, n, len(gold))
    # build everything once over the full corpus; trials only slice it
    index.tokens()
    for stage in stages_for(config.retrievers, search.rrf.members):
        index.build(stage)
    plan = [(size, r) for size in sizes for r in range(1 if size == n else config.resamples)]
    trials: list[Trial] = []
    whole = {}  # the whole corpus's results, for the interval of its lead
    done = 0
    total = len(plan) * len(config.retrievers)
    for size, r in plan:
        if should_stop():
            return SweepResult(corpus.name, n, sizes, config, tuple(trials), False)
        rng = np.random.default_rng([config.seed, size, r])
        sub = index if size == n else subset(index, subsample(n, gold, size, rng))
        for name in config.retrievers:
            res = evaluate(sub, [name], config.ks, search, queries=corpus.queries).results[name]
            if size == n:
                whole[name] = res
            trial = Trial(size, r, name, res.means[config.metric], res.means)
            trials.append(trial)
            done += 1
            if on_trial:
                on_trial(trial, done, total)
            if should_stop():
                return SweepResult(corpus.name, n, sizes, config, tuple(trials), False)
    result = EvalResult(corpus.name, n, len(corpus.queries), config.ks, search, whole)
    return SweepResult(corpus.name, n, sizes, config, tuple(trials), True,
                       lead_ci(result, corpus.queries, corpus, config.metric))


def in_words(result: SweepResult) -> list[str]:
    """A finished sweep read out in two sentences: which retriever does best on the whole corpus, in words a
    reader needs no metric for (retrievers level at the top named together; "tied" when the interval of its lead
    includes 0, else by how much it leads), and which loses the most and which
    the least from the smallest size swept to the whole corpus (means over the resamples). Nothing for a
    cancelled sweep: its whole corpus may not have run."""
    if not result.complete or not result.trials:
        return []
    metric, n = result.config.metric, result.n_passages
    summary = result.summary()
    full = {r: v["mean"] for r, v in summary[n].items()}
    lead = result.lead
    level = lead is not None and round(full[lead.a], 3) == round(full[lead.b], 3)  # said "level" already
    ahead = ("" if lead is None or level or lead.low <= 0 <= lead.high else
             f"; ahead of {lead.b}, the next, by {lead.mean_diff:+.3f} (95% interval [{lead.low:+.3f}, "
             f"{lead.high:+.3f}])")
    out = [f"On the whole corpus ({n:,} passages) {leaders_in_words(full, metric, lead)}{ahead}."]
    first = min(summary)
    if first == n:
        return out
    change = {r: (summary[first][r]["mean"], full[r]) for r in full if r in summary[first]}
    span = f"From {first:,} passages to {n:,}"
    if len(change) == 1:
        (r, (a, b)), = change.items()
        return out + [f"{span}, {r} goes from {a:.3f} to {b:.3f}."]
    drop = {r: round(a - b, 3) for r, (a, b) in change.items()}  # as the sentence shows them
    worst = max(drop, key=lambda r: (drop[r], r))
    steadiest = min(drop, key=lambda r: (drop[r], r))
    if drop[worst] <= 0:
        return out + [f"{span}, no retriever loses ground."]
    if drop[worst] == drop[steadiest]:
        return out + [f"{span}, every retriever loses the same ({drop[worst]:.3f})."]
    a, b = change[worst]
    c, d = change[steadiest]
    held = "loses the least" if drop[steadiest] > 0 else "holds" if drop[steadiest] == 0 else "gains"
    return out + [f"{span}, {worst} loses the most ({a:.3f} → {b:.3f}) and {steadiest} {held} ({c:.3f} → {d:.3f})."]

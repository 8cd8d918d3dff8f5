"""Ranking metrics over runs and qrels, both `{query_id: {passage_id: score}}`.

A run's ranking is its passages by descending score; equal scores keep the run's
insertion order (Python's sort is stable), so a run built from ranked hits ranks as they did.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from ..errors import PathLensError

Run = Mapping[str, Mapping[str, float]]
Qrels = Mapping[str, Mapping[str, float]]


def ranking(scores: Mapping[str, float]) -> list[str]:
    return [pid for pid, _ in sorted(scores.items(), key=lambda kv: -kv[1])]


def _gold(rel: Mapping[str, float]) -> set[str]:
    return {pid for pid, r in rel.items() if r > 0}


def hit_rate(ranked: Sequence[str], gold: set[str], k: int) -> float:
    """1 if some gold passage is in the top k."""
    return float(any(p in gold for p in ranked[:k]))


def reciprocal_rank(ranked: Sequence[str], gold: set[str]) -> float:
    """1 / rank of the first gold passage, 0 when none was retrieved."""
    for i, p in enumerate(ranked, start=1):
        if p in gold:
            return 1.0 / i
    return 0.0


def recall(ranked: Sequence[str], gold: set[str], k: int) -> float:
    """Share of the gold passages that are in the top k."""
    return len(gold.intersection(ranked[:k])) / len(gold) if gold else 0.0


def all_found(ranked: Sequence[str], gold: set[str], k: int) -> float:
    """1 if every gold passage is in the top k."""
    return float(bool(gold) and gold.issubset(ranked[:k]))


def metric_words(metric: str, value: float, unit: str = "passage") -> str:
    """What a metric's value says about a retriever, for a reader who does not know the metric's name:
    "finds a gold passage in its top 5 for 98% of the questions" (hr@5 0.975); `unit` "page" where the questions
    are scored by page."""
    name, _, k = metric.partition("@")
    if name == "hr":
        return f"finds a gold {unit} in its top {k} for {value:.0%} of the questions"
    if name == "recall":
        return f"finds {value:.0%} of the gold {unit}s in its top {k}"
    if name == "all":
        return f"finds every gold {unit} in its top {k} for {value:.0%} of the questions"
    if name == "mrr":  # an average of 1/rank reads as no rank, so the words say what its top means
        return (f"ranks no gold {unit} at all" if value == 0 else
                f"ranks a gold {unit} nearest the top (MRR is 1 when the first {unit} is always gold)")
    raise PathLensError(f"unknown metric {metric!r}; choose from hr@k, recall@k, all@k or mrr")


# why an interval that includes 0 leaves two retrievers untold apart, in a reader's words
CHANCE = "could come from which questions happened to be asked"


def leader_against_each(means: Mapping[str, float], metric: str, leads: Mapping[str, "BootstrapCI"],
                        unit: str = "passage") -> str:
    """The leader in words, called the best only when the paired interval of its lead over every other retriever
    (`leads`: each other's name → CI of leader − it) is above 0; the ones it cannot be told from are named tied."""
    shown = {name: round(v, 3) for name, v in means.items()}
    leader = max(shown, key=lambda n: (shown[n], -sorted(shown).index(n)))
    words = f"{metric_words(metric, shown[leader], unit)}; {metric} {shown[leader]:.3f}"
    tied = [n for n, ci in leads.items() if ci.low <= 0]
    if not tied:
        return (f"{leader} {words}, the best of the {len(means)} retrievers: its lead over each other has a 95% "
                "interval above 0")
    ahead = [n for n in leads if n not in tied]
    return (f"{leader} {words}, but not told apart from {_and(tied)} (the 95% interval of each difference includes "
            f"0, so the gap {CHANCE}: "
            + "; ".join(f"{n} {shown[n]:.3f}, " + ("the same on every question" if leads[n].low == leads[n].high == 0
                                                    else f"[{leads[n].low:+.3f}, {leads[n].high:+.3f}]") for n in tied)
            + ")"
            + (f"; ahead of {_and(ahead)}" if ahead else ""))


def _and(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def leaders_in_words(means: Mapping[str, float], metric: str, ci: "BootstrapCI | None" = None) -> str:
    """Which retriever does best on `metric`, in words that need no metric: "bm25 finds a gold passage in its top
    5 for 98% of the questions; hr@5 0.975, the best of the 4 retrievers". Retrievers level at three decimals, as
    the tables show them, are named together; so are the two of a paired interval `ci` that includes 0 when one of
    them leads ("tied": no resampling tells them apart)."""
    if not means:
        raise PathLensError("no retriever to name")
    shown = {name: round(v, 3) for name, v in means.items()}
    top = max(shown.values())
    best = [name for name, v in shown.items() if v == top]
    words = f"{metric_words(metric, top)}; {metric} {top:.3f}"
    if ci is not None and ci.low <= 0 <= ci.high and set(best) & {ci.a, ci.b} and {ci.a, ci.b} <= set(shown):
        other = ci.b if ci.a in best else ci.a
        if other not in best:
            return (f"{best[0]} and {other} cannot be told apart: {best[0]} {words}, {other} {shown[other]:.3f}, "
                    f"but the 95% interval of their difference, [{ci.low:+.3f}, {ci.high:+.3f}], includes 0: a gap "
                    f"this size {CHANCE}")
    if len(best) > 1:
        return f"{', '.join(best[:-1])} and {best[-1]} do best, level: each {words}"
    return f"{best[0]} {words}" + (f", the best of the {len(means)} retrievers" if len(means) > 1 else "")


def metric_names(ks: Sequence[int]) -> list[str]:
    ks = sorted(set(ks))
    return [f"hr@{k}" for k in ks] + ["mrr"] + [f"recall@{k}" for k in ks] + [f"all@{k}" for k in ks]


def per_query(run: Run, qrels: Qrels, ks: Sequence[int]) -> dict[str, dict[str, float]]:
    """{query_id: {metric: value}} for every query in qrels (a query missing from the run scores 0)."""
    if not ks or any(k < 1 for k in ks):
        raise PathLensError(f"cut-offs must be whole numbers of at least 1, got {list(ks)}")
    out = {}
    for qid, rel in qrels.items():
        ranked, gold = ranking(run.get(qid, {})), _gold(rel)
        values = {}
        for k in sorted(set(ks)):
            values[f"hr@{k}"] = hit_rate(ranked, gold, k)
        values["mrr"] = reciprocal_rank(ranked, gold)
        for k in sorted(set(ks)):
            values[f"recall@{k}"] = recall(ranked, gold, k)
        for k in sorted(set(ks)):
            values[f"all@{k}"] = all_found(ranked, gold, k)
        out[qid] = values
    return out


def mean_metrics(values: Mapping[str, Mapping[str, float]], ids: Sequence[str] | None = None) -> dict[str, float]:
    """Mean of each metric over the given query ids (default: all)."""
    ids = list(values) if ids is None else list(ids)
    if not ids:
        return {}
    names = list(values[ids[0]])
    return {m: float(np.mean([values[q][m] for q in ids])) for m in names}


@dataclass(frozen=True)
class BootstrapCI:
    metric: str
    a: str
    b: str
    mean_diff: float  # mean of a − b over queries
    low: float
    high: float
    resamples: int
    seed: int
    p_not_better: float  # share of resamples whose mean difference is ≤ 0
    clusters: int = 0  # how many clusters were resampled whole (0: questions one by one)


def paired_bootstrap(a: Sequence[float], b: Sequence[float], *, metric: str = "", names: tuple[str, str] = ("a", "b"),
                     resamples: int = 10_000, seed: int = 42, level: float = 0.95) -> BootstrapCI:
    """Percentile CI of mean(a − b) by resampling queries with replacement, pairs kept together."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1 or a.size == 0:
        raise PathLensError("paired bootstrap needs two equally long, non-empty lists of per-query values")
    if resamples < 1:
        raise PathLensError(f"resamples must be at least 1, got {resamples}")
    if not 0 < level < 1:
        raise PathLensError(f"confidence level must be in (0, 1), got {level}")
    d = a - b
    rng = np.random.default_rng(seed)
    means = np.empty(resamples)
    # in blocks, so 10,000 resamples of a large query set stay within a few MB
    block = max(1, 2_000_000 // d.size)
    for start in range(0, resamples, block):
        n = min(block, resamples - start)
        means[start:start + n] = d[rng.integers(0, d.size, size=(n, d.size))].mean(axis=1)
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    return BootstrapCI(metric, names[0], names[1], float(d.mean()), float(low), float(high),
                       resamples, seed, float(np.mean(means <= 0)))


def cluster_bootstrap(a: Sequence[float], b: Sequence[float], clusters: Sequence[str], *, metric: str = "",
                      names: tuple[str, str] = ("a", "b"), resamples: int = 10_000, seed: int = 42,
                      level: float = 0.95) -> BootstrapCI:
    """Percentile CI of mean(a − b) by resampling whole clusters (a filing, a company) with replacement.

    Questions about one filing are not independent: a retriever that misreads a filing's identity misses
    all of them at once. Resampling questions one by one then treats 10 such misses as 10 pieces of
    evidence and gives an interval too narrow. Here each resample draws as many clusters as there are,
    with replacement, and takes the mean over every question of the clusters drawn (a ratio of sums,
    so large clusters weigh by their questions, as in the plain mean). With one question a cluster,
    in the order of the first appearance of each cluster, it draws exactly what `paired_bootstrap` draws.
    """
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1 or a.size == 0 or len(clusters) != a.size:
        raise PathLensError("cluster bootstrap needs three equally long, non-empty lists: a, b and each question's cluster")
    if resamples < 1:
        raise PathLensError(f"resamples must be at least 1, got {resamples}")
    if not 0 < level < 1:
        raise PathLensError(f"confidence level must be in (0, 1), got {level}")
    labels = list(dict.fromkeys(clusters))
    of = {c: i for i, c in enumerate(labels)}
    member = np.array([of[c] for c in clusters])
    d = a - b
    sums = np.bincount(member, weights=d, minlength=len(labels))
    sizes = np.bincount(member, minlength=len(labels)).astype(np.float64)
    rng = np.random.default_rng(seed)
    means = np.empty(resamples)
    block = max(1, 2_000_000 // len(labels))
    for start in range(0, resamples, block):
        n = min(block, resamples - start)
        draw = rng.integers(0, len(labels), size=(n, len(labels)))
        means[start:start + n] = sums[draw].sum(axis=1) / sizes[draw].sum(axis=1)
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    return BootstrapCI(metric, names[0], names[1], float(d.mean()), float(low), float(high),
                       resamples, seed, float(np.mean(means <= 0)), clusters=len(labels))

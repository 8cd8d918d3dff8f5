"""The precedents rankers compared, paired, with intervals: precision@3 and nDCG@10 for the learned ranker, DealGraph's
hand weights, dense alone and the walk alone, on the same candidates of the same questions.

Two question sets: the investors' 40 written questions (tests/data/precedents.investor.queries.jsonl; gold judged
by each question's criteria against the deals' attributes), by half, and the held-out reverse queries (template
families and sectors never trained on). A question no deal meets is left out of the means and named; a question
the walk cannot start from (no sector, region, origin or exit read) gives the walk an empty ranking, counted.
Intervals are `metrics.paired_bootstrap`'s (questions resampled, pairs kept, 10,000 resamples, seed 42).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from ..deals.index import DealIndex
from ..deals.lexicon import Lexicon
from ..deals.model import criteria_from_json
from ..deals.rankers import RANKERS, precedence, rank_parts
from ..deals.training import Asked, Question, ask, template_questions
from ..errors import PathLensError
from ..ingest.textfiles import json_field, read_json_lines, read_text
from ..rank.learned import Ranker
from ..store.cache import DiskCache
from .metrics import BootstrapCI, paired_bootstrap

METRICS = ("p@3", "ndcg@10")
INVESTOR_QUERIES = Path(__file__).resolve().parents[2] / "tests" / "data" / "precedents.investor.queries.jsonl"
COMPARED = (("learned", "dense"), ("learned", "hand"), ("learned", "walk"), ("hand", "dense"))


def precision_at(ranked: Sequence[str], gold: frozenset[str], k: int) -> float:
    """Share of the top k that is gold (k in the denominator, so fewer than k gold caps it below 1)."""
    return sum(d in gold for d in ranked[:k]) / k


def ndcg_at(ranked: Sequence[str], gold: frozenset[str], k: int) -> float:
    """Binary-gain nDCG@k: DCG of the top k over the DCG of a ranking with every gold deal first."""
    dcg = sum(1 / math.log2(i + 2) for i, d in enumerate(ranked[:k]) if d in gold)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(k, len(gold))))
    return dcg / ideal if ideal else 0.0


def investor_questions(half: str, path: str | Path = INVESTOR_QUERIES) -> tuple[Question, ...]:
    """The investors' questions of one half ("tune" or "test"; "all" for both), errors named by line and field."""
    if half not in ("tune", "test", "all"):
        raise PathLensError(f"half: {half!r} is not tune, test or all")
    path = Path(path)
    out = []
    for n, obj in read_json_lines(read_text(path), path.name):
        at = f"{path.name}, line {n}"
        q = Question(json_field(obj, "id", at), json_field(obj, "text", at),
                     criteria_from_json(obj.get("criteria"), at), json_field(obj, "half", at))
        if half in ("all", q.group):
            out.append(q)
    return tuple(out)


ORDERS = ("page", "score")


def ranking(a: Asked, ranker: str, index: DealIndex, model: Ranker | None = None, k: int = 10,
            order: str = "page") -> tuple[str, ...]:
    """The top k deal ids a ranker offers for a question's candidates: as the page offers them (`precedence`), or
    by its score alone (`order` "score": what the ranker itself adds); () for the walk when it had no seed."""
    if ranker == "walk" and not a.cands.walk.groups:
        return ()
    p = rank_parts(ranker, a.table, a.cands, model)
    if order == "score":
        ranked = sorted(range(len(a.table.rows)), key=lambda i: (-p.scores[i], int(a.table.rows[i])))
    else:
        ranked, _ = precedence(a.table, p)
    return tuple(index.universe.deals[int(a.table.rows[i])].id for i in ranked[:k])


@dataclass(frozen=True, eq=False)
class PrecedentsEvaluation:
    name: str  # the question set
    ids: tuple[str, ...]  # the questions scored (some gold each)
    no_gold: tuple[str, ...]  # questions no deal meets: left out
    walk_unseeded: tuple[str, ...]  # questions the walk could not start from
    per_query: Mapping[str, Mapping[str, np.ndarray]]  # ranker → metric → value per question of `ids`
    cis: tuple[BootstrapCI, ...]  # COMPARED pairs × METRICS
    gold_in_pool: float  # share of the gold deals that are among the candidates (what any ranker can reach)

    def mean(self, ranker: str, metric: str) -> float:
        return float(self.per_query[ranker][metric].mean()) if len(self.ids) else 0.0

    def to_json(self) -> dict:
        return {"questions": self.name, "n": len(self.ids), "no_gold": list(self.no_gold),
                "walk_unseeded": list(self.walk_unseeded), "gold_in_pool": round(self.gold_in_pool, 4),
                "means": {r: {m: round(self.mean(r, m), 4) for m in METRICS}
                          for r in self.per_query},
                "per_query": {r: {m: dict(zip(self.ids, (round(float(v), 4) for v in vals)))
                                  for m, vals in ms.items()} for r, ms in self.per_query.items()},
                "paired_bootstrap": [{"a": c.a, "b": c.b, "metric": c.metric, "mean_diff": round(c.mean_diff, 4),
                                      "low": round(c.low, 4), "high": round(c.high, 4), "resamples": c.resamples,
                                      "seed": c.seed} for c in self.cis]}


def evaluate_asked(name: str, asked: Sequence[Asked], index: DealIndex, model: Ranker | None = None,
                   rankers: Sequence[str] = RANKERS, resamples: int = 10_000, seed: int = 42,
                   order: str = "page") -> PrecedentsEvaluation:
    """Every ranker on the questions already asked (their candidates shared), with the paired intervals."""
    scored = [a for a in asked if a.gold]
    values = {r: {m: np.zeros(len(scored)) for m in METRICS} for r in rankers}
    for j, a in enumerate(scored):
        for r in rankers:
            top = ranking(a, r, index, model, order=order)
            values[r]["p@3"][j] = precision_at(top, a.gold, 3)
            values[r]["ndcg@10"][j] = ndcg_at(top, a.gold, 10)
    cis = tuple(paired_bootstrap(values[a][m], values[b][m], metric=m, names=(a, b), resamples=resamples, seed=seed)
                for a, b in COMPARED if a in values and b in values for m in METRICS) if scored else ()
    pooled = sum(len(a.gold) for a in scored)
    reached = sum(sum(index.universe.deals[int(r)].id in a.gold for r in a.cands.rows) for a in scored)
    return PrecedentsEvaluation(name, tuple(a.question.id for a in scored),
                                tuple(a.question.id for a in asked if not a.gold),
                                tuple(a.question.id for a in scored if not a.cands.walk.groups), values, cis,
                                reached / pooled if pooled else 0.0)


def evaluate_precedents(index: DealIndex, sets: Sequence[str] = ("investor-test", "heldout-templates"),
                        model: Ranker | None = None, cache: DiskCache | None = None, resamples: int = 10_000,
                        lexicon: Lexicon | None = None, order: str = "page") -> tuple[PrecedentsEvaluation, ...]:
    """The named question sets: investor-tune, investor-test, heldout-templates (families D, F × held-out sectors).
    `lexicon`: read the questions with another lexicon (one without some phrases: what a figure owes to them)."""
    if order not in ORDERS:
        raise PathLensError(f"order: {order!r} is not one of {', '.join(ORDERS)}")
    if lexicon is not None:
        index = replace(index, lexicon=lexicon)
    out = []
    for name in sets:
        if name.startswith("investor-"):
            questions = investor_questions(name.split("-", 1)[1])
        elif name == "heldout-templates":
            questions = template_questions(index, "test")
        elif name == "train-templates":
            questions = template_questions(index, "train")
        else:
            raise PathLensError(f"question set: {name!r} is not investor-tune, investor-test, heldout-templates or "
                                "train-templates")
        out.append(evaluate_asked(name, ask(index, questions, cache), index, model, resamples=resamples, order=order))
    return tuple(out)


__all__ = ["COMPARED", "METRICS", "ORDERS", "PrecedentsEvaluation", "evaluate_asked", "evaluate_precedents",
           "investor_questions", "ndcg_at", "precision_at", "ranking"]

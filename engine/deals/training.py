"""Training the learned precedents ranker, without an LLM, and remaking it bit for bit.

The training questions are the reverse queries of the training families and sectors (`templates`); each question's
candidates and features are exactly what a user's question gets (`ask`), labelled 1 when the deal meets every
criterion the question was written from. LightGBM's LambdaRank (`rank.learned`, one thread, fixed seed) then gives
the same model from the same table, so `python -m engine train-precedents` remakes `precedents_ranker.json` byte for
byte on a machine whose question vectors are the ones it was trained with (`vectors`: kept in the cache).
"""

from __future__ import annotations

import hashlib

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from ..rank.learned import Ranker, RankerParams, TrainingTable, save, train
from ..store.cache import DiskCache
from .cues import read_cues
from .features import NAMES, FeatureTable, build_features
from .index import PER_SOURCE, Candidates, DealIndex, candidates
from .model import Criteria
from .templates import HELD_OUT_SECTORS, SEED, TEST_FAMILIES, TRAIN_FAMILIES, reverse_queries
from .vectors import text_vectors

# chosen on the training families by leave-one-family-out and on the investor questions' tune half
# (docs/precedents.md); the test questions were never scored while choosing
PARAMS = RankerParams(kind="lambdarank", rounds=200, leaves=7, learning_rate=0.05, min_data_in_leaf=20, seed=42)


@dataclass(frozen=True)
class Question:
    """A question with its criteria: a reverse query, or an investor's written question."""

    id: str
    text: str
    criteria: Criteria
    group: str = ""  # its family or half, for reports


@dataclass(frozen=True, eq=False)
class Asked:
    """A question's candidates and features, with its gold (the deal ids meeting every criterion)."""

    question: Question
    cands: Candidates
    table: FeatureTable
    gold: frozenset[str]

    def labels(self, index: DealIndex) -> np.ndarray:
        return np.array([index.universe.deals[r].id in self.gold for r in self.cands.rows], dtype=np.int64)


def ask(index: DealIndex, questions: Sequence[Question], cache: DiskCache | None = None,
        per_source: int = PER_SOURCE) -> tuple[Asked, ...]:
    """Every question's candidates and features, as `rankers.find_precedents` computes them (no filters)."""
    vectors = text_vectors([q.text for q in questions], cache)
    out = []
    for q, v in zip(questions, vectors):
        cues = read_cues(q.text, index.lexicon)
        cands = candidates(index, q.text, v, cues, per_source=per_source)
        out.append(Asked(q, cands, build_features(index, cands, cues), q.criteria.relevant(index.universe)))
    return tuple(out)


def template_questions(index: DealIndex, split: str) -> tuple[Question, ...]:
    """The reverse queries of one split ("train", "test" or "other")."""
    return tuple(Question(t.id, t.text, t.criteria, t.family) for t in reverse_queries(index.universe, SEED)
                 if t.split == split)


def training_table(index: DealIndex, asked: Sequence[Asked]) -> TrainingTable:
    xs = [a.table.x for a in asked]
    ys = [a.labels(index) for a in asked]
    return TrainingTable(NAMES, np.vstack(xs), np.concatenate(ys), tuple(len(y) for y in ys))


def train_precedents(index: DealIndex, cache: DiskCache | None = None, params: RankerParams = PARAMS,
                     asked: Sequence[Asked] | None = None) -> Ranker:
    """The learned ranker, trained on the training split's reverse queries."""
    asked = asked if asked is not None else ask(index, template_questions(index, "train"), cache)
    table = training_table(index, asked)
    about = {"trained_on": f"{len(asked)} reverse queries of template families {', '.join(TRAIN_FAMILIES)} "
                           f"over the sectors other than {', '.join(HELD_OUT_SECTORS)}",
             "held_out": f"families {', '.join(TEST_FAMILIES)} with sectors {', '.join(HELD_OUT_SECTORS)}",
             "universe": index.universe.name, "deals": len(index.universe), "rows": int(table.x.shape[0]),
             "relevant_rows": int(table.labels.sum()), "template_seed": SEED, "table": table_fingerprint(table)}
    return train(table, params, about)


def table_fingerprint(table) -> str:
    """The training table's rows and labels, hashed: the encoder's sums differ in their last bits on another CPU
    (bfloat16 or not, its vector kernels), so the same universe can give another table there, and a model trained
    on it other trees. A retrained file equals the shipped one byte for byte where this fingerprint does."""
    h = hashlib.sha256(np.ascontiguousarray(table.x, dtype=np.float64).tobytes())
    h.update(np.ascontiguousarray(table.labels, dtype=np.int64).tobytes())
    return h.hexdigest()[:16]


def remake(index: DealIndex, path: str | Path, cache: DiskCache | None = None) -> tuple[Ranker, bool]:
    """Train and write the model at `path`; also whether the file held these very bytes already."""
    model = train_precedents(index, cache)
    path = Path(path)
    same = path.is_file() and path.read_text("utf-8") == model.to_json()
    save(model, path)
    return model, same


__all__ = ["Asked", "PARAMS", "Question", "ask", "remake", "table_fingerprint", "template_questions",
           "train_precedents", "training_table"]

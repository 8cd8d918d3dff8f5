"""Training the page ranker (`engine.retrieve.page_ranker`) on the tuning halves of every filings dev set, and
nothing else: the test halves measure it (`python -m engine eval … --only half=test --retrievers filing,filing-learned`).

Each tuning question gives one group: the `filing` retriever's pool of pages (its top `POOL`), labelled 1 where the
page is gold (FinanceBench marks one page; the project's sets mark every page that answers on its own). A question
whose pool holds no gold page teaches nothing about order and is left out, counted in the model's `about`.

Deterministic: the rooms, the sets and the questions in file order, LightGBM on one thread with a fixed seed, so
`python -m engine train-ranker` remakes `engine/retrieve/page_ranker.json` byte for byte (`--check` says whether it
did).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from ..errors import NoSeedError, PathLensError
from ..indexing.config import SearchConfig
from ..indexing.index import Index
from ..ingest.questions import LabeledQuery
from ..rank.learned import Ranker, RankerParams, TrainingTable, train
from ..retrieve.page_features import FEATURES
from ..retrieve.page_ranker import POOL, LearnedPageRetriever, PagePool

# (room folder under the shared data, question file): every filings dev set with halves, by room
DEV_SETS = (
    ("filings_dev", "tests/data/checklist.filings_dev.queries.jsonl"),
    ("financebench_dev", "tests/data/checklist.financebench_dev.queries.jsonl"),
    ("filings_dev", "tests/data/filings_dev.queries.jsonl"),
    ("financebench_dev", "tests/data/financebench_dev.split.queries.jsonl"),
    ("filings_dev", "tests/data/pagekinds.filings_dev.queries.jsonl"),
    ("financebench_dev", "tests/data/pagekinds.financebench_dev.queries.jsonl"),
)
PARAMS = RankerParams(kind="lambdarank", rounds=300, leaves=7, learning_rate=0.05, min_data_in_leaf=20, seed=42, bag=5,
                      bag_share=0.8)


@dataclass(frozen=True)
class Groups:
    """The training rows and what was left out."""

    table: TrainingTable
    questions: int  # tuning questions read
    used: int  # those whose pool held a gold page
    sets: tuple[str, ...]


def gold_pages(q: LabeledQuery) -> frozenset[str]:
    return frozenset(q.gold_pages)


def groups(rooms: Sequence[tuple[Index, Sequence[LabeledQuery], str]],
           on_question: Callable[[int, int], None] | None = None) -> Groups:
    """The training table of these (index, tuning questions, set name) triples, in order; each question's cluster is
    the filing of its first gold page (bagging draws a filing's questions together)."""
    xs, ys, sizes, filings = [], [], [], []
    asked = used = 0
    total = sum(len(qs) for _, qs, _ in rooms)
    for index, questions, _ in rooms:
        pool = PagePool(index.retriever("filing", SearchConfig()), index.page_facts())
        for q in questions:
            asked += 1
            if on_question:
                on_question(asked, total)
            try:
                _, _, cands = pool.candidates(q.text)
            except NoSeedError:
                continue
            labels = np.array([1 if p in gold_pages(q) else 0 for p in cands.pages])
            if labels.sum() == 0 or labels.sum() == len(labels):
                continue
            used += 1
            xs.append(cands.x)
            ys.append(labels)
            sizes.append(len(labels))
            filings.append(min(gold_pages(q)).split("#", 1)[0])
    if not xs:
        raise PathLensError("no tuning question's pool holds a gold page: nothing to train on")
    table = TrainingTable(FEATURES, np.vstack(xs), np.concatenate(ys), tuple(sizes), tuple(filings))
    return Groups(table, asked, used, tuple(name for _, _, name in rooms))


def train_page_ranker(rooms: Sequence[tuple[Index, Sequence[LabeledQuery], str]], params: RankerParams = PARAMS,
                      on_question: Callable[[int, int], None] | None = None) -> Ranker:
    g = groups(rooms, on_question)
    about = {"trained on": "the tuning halves of " + ", ".join(dict.fromkeys(g.sets)),
             "questions": g.questions, "questions with a gold page in the pool": g.used,
             "pool": f"the filing retriever's top {POOL} pages", "rows": int(g.table.x.shape[0])}
    return train(g.table, params, about)


def measured(rooms: Sequence[tuple[Index, Sequence[LabeledQuery], str]], ranker: Ranker,
             ks: Sequence[int] = (1, 5, 10)) -> dict:
    """`ranker` as `filing-learned` against `filing` over these (index, test-half questions, set name) triples,
    pooled: each metric's means and the paired interval of the difference, resampling whole filings (questions about
    one filing stand or fall together). What the Compare page's "About the page ranker" shows."""
    from .evaluate import compare, evaluate, pooled, question_clusters

    results, questions, clusters = [], [], {}
    pages, gap = 0, 0.0
    for index, qs, _ in rooms:
        learned = LearnedPageRetriever("filing-learned", PagePool(index.retriever("filing", SearchConfig()),
                                                                  index.page_facts()), ranker)
        results.append(evaluate(index, ["filing", "filing-learned"], ks, queries=qs, unit="page",
                                made={"filing-learned": learned}))
        questions += qs
        clusters.update(question_clusters(qs, "doc", index.corpus))
        for q in qs:
            n, g = parts_gap(learned, q.text)
            pages, gap = pages + n, max(gap, g)
    if gap > PARTS_TOLERANCE:
        raise PathLensError(f"page ranker: a page's parts sum to within {gap:.1e} of the model's score, "
                            f"not {PARTS_TOLERANCE:.0e}")
    result = pooled(results, questions)
    cis = compare(result, "filing-learned", "filing", clusters=clusters)
    return {"questions": len(questions), "filings": len(set(clusters.values())),
            "sets": list(dict.fromkeys(name for _, _, name in rooms)),
            "means": {name: dict(r.means) for name, r in result.results.items()},
            "difference": {c.metric: {"mean": c.mean_diff, "low": c.low, "high": c.high} for c in cis},
            "parts": {"pages": pages, "largest gap": gap}}


PARTS_TOLERANCE = 1e-9


def parts_gap(learned: LearnedPageRetriever, question: str) -> tuple[int, float]:
    """(pool pages, the largest |base + sum of parts − the model's own prediction|) for one question: the parts
    are TreeSHAP's, the prediction LightGBM's raw score, computed independently."""
    try:
        _, _, cands, _, parts = learned.ranked(question, POOL)
    except NoSeedError:
        return 0, 0.0
    if not len(cands.pages):
        return 0, 0.0
    return len(cands.pages), float(np.max(np.abs(parts.scores - learned.ranker.raw_scores(cands.x))))


def dev_rooms(shared: Path) -> list[tuple[str, list[str]]]:
    """(room folder, its question files) of the dev sets, room by room, checked to exist."""
    out: dict[str, list[str]] = {}
    for room, queries in DEV_SETS:
        folder = shared / room
        if not folder.is_dir():
            raise PathLensError(f"--shared: {folder} is not a folder; the dev sets' rooms are read from the shared data")
        out.setdefault(str(folder), []).append(queries)
    return list(out.items())


__all__ = ["DEV_SETS", "Groups", "PARAMS", "PARTS_TOLERANCE", "dev_rooms", "groups", "measured", "parts_gap",
           "train_page_ranker"]

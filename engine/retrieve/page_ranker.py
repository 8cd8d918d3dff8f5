"""The learned page ranker: the filings retriever's walk finds the filing and a pool of its pages, and a learned
ranker (`engine.rank.learned`) orders the pool by what an analyst would name about each page
(`engine.retrieve.page_features`). Every hit's score is the exact sum of named parts ("asks for drivers, on an MD&A
page +0.31, boilerplate −0.40, …"), and the walk that found the page is still explained as the filings
retriever explains it (seeds, shares, the typed path), so nothing the walk said is lost.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Mapping, Sequence

import numpy as np

from ..errors import NoSeedError, PathLensError
from ..ingest.passage import page_ref
from ..rank.learned import Ranker, load
from ..text import STOPWORDS, normalize_name
from .filing_retriever import FilingRetriever
from .filing_seeding import STRUCTURE_RULES
from .graph_explain import HitExplanation
from .graph_retriever import Personalization, Walk, scored
from .page_features import (FEATURES, NAMED_FEATURES, WALK_FEATURES, Candidates, PageFacts, content_words, feature_rows,
                            rare_word_shares)
from .retrievers import Answer, Answers, Hit, check_k, check_query

POOL = 40  # pages of the walk's ranking the ranker reorders: the tuning halves' gold is within it for most questions
MODEL = Path(__file__).with_name("page_ranker.json")  # LightGBM's text model in JSON, remade by `engine train-ranker`


@dataclass(frozen=True)
class PagePart:
    feature: str
    value: float  # the feature's value on this page, for the question
    part: float  # its part of the score


# features as a reader is told them: the walk's score against the best page's and its rank say one thing; a section
# the lexicon reads a term as ("net profit margin": results of operations) is one the question points to, not names
REASONS = {**dict.fromkeys(WALK_FEATURES[:2], "how high the graph search found it"),
           NAMED_FEATURES[0]: "in the note, Item or statement the question names or its terms point to"}


@dataclass(frozen=True)
class PageExplanation:
    """Why the ranker put a page where it did: its score, the parts that sum to it, and the walk that found it."""

    passage_id: str
    score: float
    parts: tuple[PagePart, ...]  # largest in size first; with `base` they sum to `score`
    base: float
    walk_rank: int  # the page's rank by the walk alone
    walk: HitExplanation | None = None

    @property
    def matched_entities(self) -> tuple[str, ...]:
        """The seed names the page's passage holds, as the walk found them (what its text and page mark)."""
        return self.walk.matched_entities if self.walk is not None else ()

    @property
    def contributions(self) -> tuple[tuple[str, float], ...]:
        """(name, part) of every part and the base: they sum to the score."""
        return tuple((p.feature, p.part) for p in self.parts) + (("base", self.base),)

    def reasons(self) -> tuple[tuple[str, float], ...]:
        """(reason, part) as a reader is told them, largest in size first: the parts, those of one reason summed (the
        walk's strength and rank are one reason, "how high the graph search found it", read as two in a
        walk-through). With `base` they sum to `score`."""
        summed: dict[str, float] = {}
        for p in self.parts:
            reason = REASONS.get(p.feature, p.feature)
            summed[reason] = summed.get(reason, 0.0) + p.part
        return tuple(sorted(summed.items(), key=lambda r: (-abs(r[1]), r[0])))

    def words(self) -> str:
        reasons = self.reasons()
        shown = [r for r in reasons if abs(r[1]) >= 0.005][:4]
        rest = len(reasons) - len(shown)
        return (f"score {self.score:+.2f} from {self.base:+.2f}, where every page of this search begins: "
                + ", ".join(f"{name} {part:+.2f}" for name, part in shown)
                + f", and {rest} other, smaller reason{'s' if rest != 1 else ''}; the graph search alone ranked it "
                f"{self.walk_rank}")


class PagePool:
    """A question's pool of candidate pages from the filings retriever's walk (`walker`), with their features."""

    def __init__(self, walker: FilingRetriever, facts: Mapping[str, PageFacts]):
        self.walker = walker
        self.facts = facts
        self._n = walker.graph.n_passages
        self._page_of_row = [at.key if (at := page_ref(p)) else None for p in walker.corpus_passages]
        self._rows_of_page: dict[str, list[int]] = {}
        for i, key in enumerate(self._page_of_row):
            if key is not None:
                self._rows_of_page.setdefault(key, []).append(i)
        self._words: dict[str, frozenset[str]] = {}  # a page's (or a page-less passage's) content words, once read

    def _page_words(self, page: str, rows: Sequence[int]) -> frozenset[str]:
        if page not in self._words:
            passages = self.walker.corpus_passages
            self._words[page] = frozenset().union(*(content_words(passages[r].text) for r in rows))
        return self._words[page]

    def page_key(self, passage_id: str) -> str | None:
        """The pool's unit a passage ranks as: its page's key (`PageRef.key`), its own id when it has no page, None
        when the room has no such passage."""
        row = self.walker.graph.passage_index.get(passage_id)
        return None if row is None else self._page_of_row[row] or passage_id

    def candidates(self, question: str) -> tuple[Personalization, Walk, Candidates]:
        """The walk's pool of pages for a question (its top POOL, in its order) and their features; raises
        NoSeedError as the walk does."""
        w = self.walker
        pers = w.personalize(question)
        scope = pers.scope
        walk = w.walk(pers)
        rows, values = walk.scored_passages(self._n)
        pool = w.hits_from(rows, values, POOL, scope)
        pages = tuple(self._page_of_row[w.graph.passage_index[h.passage_id]] or h.passage_id for h in pool)
        walk_scores = np.array([h.score for h in pool])
        shares = self._shares(pers, [w.graph.passage_index[h.passage_id] for h in pool], walk_scores)
        page_rows = [self._rows_of_page.get(p, [w.graph.passage_index[h.passage_id]]) for p, h in zip(pages, pool)]
        dense = w.passage_seeder.dense.scores(scope.text) if w.passage_seeder else np.zeros(self._n)
        lexical = f"{scope.text} {w.filing_seeder.lexicon.expansion(scope.terms)}"
        bm25 = (w.passage_seeder.bm25.scores(lexical) if w.passage_seeder and w.passage_seeder.bm25
                else np.zeros(self._n))
        bm25_best = np.array([bm25[r].max() for r in page_rows])
        dense_best = np.array([dense[r].max() for r in page_rows])
        context = self._context_match(scope.text, pages)
        filings = w.filing_seeder.structure.filings
        # the company's names and tickers say whose page, not which: "WMT" is printed on the cover alone
        own = [f for f in filings.values() if f.names and f.names[0] in scope.company_keys]
        named = content_words(" ".join([*scope.companies, *(filings[d].label for d in scope.filings if d in filings),
                                        *(s for f in own for s in f.symbols)]))
        rare = rare_word_shares(content_words(scope.text) - named,
                                [self._page_words(p, r) for p, r in zip(pages, page_rows)])
        matches = w.filing_seeder.structure_matches(scope)
        lexicon_rows = frozenset(i for i, rule, _ in matches if rule in ("lexicon", "line item"))
        x = feature_rows(question, pages, self.facts, walk_scores, shares, _scaled(bm25_best), dense_best,
                         context, rare, lexicon_rows, self._named(question, matches),
                         frozenset(i for i, rule, _ in matches if rule == "statement"))
        return pers, walk, Candidates(pages, tuple(h.passage_id for h in pool), walk_scores, x)

    def _named(self, question: str, matches) -> frozenset[int]:
        """The structure nodes a question names: a note or an Item by number or title, a section its words name
        ("risk factors"), and a statement it names ("per the cash flow statement"; not one a term implies)."""
        nodes = self.walker.filing_seeder.structure.nodes
        # the question as asked: "Use the cash flow statement." is instruction text, which the scope's text drops
        named_statements = set(self.walker.filing_seeder.lexicon.statements_named(question))
        return frozenset(i for i, rule, _ in matches
                         if rule in ("note", "reference")
                         or rule == "lexicon" and nodes[i].kind in ("note", "item")
                         or rule == "statement" and nodes[i].ref in named_statements)

    def _shares(self, pers: Personalization, rows: Sequence[int], scores: np.ndarray) -> np.ndarray:
        """(rows, 3): the parts of each page's walk score from the scope's structure seeds, the question's name
        seeds and its passage seeds, over the score (PPR is linear in its seeds, so the three walks add up to it)."""
        w, g = self.walker, self.walker.graph
        S_e = np.zeros((len(g.entities), 3))
        for s in pers.seeds:
            S_e[g.entity_index[s.entity], 0 if s.rule in STRUCTURE_RULES else 1] += s.weight
        S_p = np.zeros((self._n, 3))
        for p in pers.passage_seeds:
            S_p[g.passage_index[p.passage_id], 2] += p.weight
        parts = w.passage_scores(S_e, S_p, w.params.iterations)[np.asarray(rows, dtype=np.int64)]
        total = parts.sum(axis=1, keepdims=True)
        return np.divide(parts, total, out=np.zeros_like(parts), where=total > 0)

    def _context_match(self, text: str, pages: Sequence[str]) -> np.ndarray:
        """The share of the question's content words that its pages' contexts (filing, Item, note, statement)
        print, scaled to the pool's best."""
        words = {t for t in normalize_name(text).split() if t not in STOPWORDS and len(t) > 2}
        if not words:
            return np.zeros(len(pages))
        found = np.array([len(words & set(normalize_name(self.facts[p].context).split())) / len(words)
                          if p in self.facts else 0.0 for p in pages])
        return _scaled(found)


class LearnedPageRetriever(Answers):
    """The filings retriever's pool of pages, reordered by a learned ranker."""

    def __init__(self, name: str, pool: PagePool, ranker: Ranker):
        if tuple(ranker.features) != FEATURES:
            raise PathLensError("the page ranker's model was trained on other features; retrain it: "
                                "python -m engine train-ranker")
        self.name = name
        self.pool = pool
        self.walker = pool.walker
        self.ranker = ranker

    # -------------------------------------------------------------- ranking

    def ranked(self, question: str, k: int) -> tuple[Personalization, Walk, Candidates, np.ndarray, object]:
        """The pool, the order the ranker gives it (top k), and the parts of every pool page's score."""
        pers, walk, cands = self.pool.candidates(question)
        parts = self.ranker.parts(cands.x)
        order = np.lexsort((np.arange(len(cands.pages)), -parts.scores))[:k]  # ties: the walk's order
        return pers, walk, cands, order, parts

    def search(self, query: str, k: int) -> tuple[Hit, ...]:
        return self.answer(query, k, explain=False).hits

    def answer_batch(self, questions: Sequence[str], k: int) -> tuple[Answer, ...]:
        return tuple(self.answer(q, k, explain=False) for q in questions)

    def answer(self, question: str, k: int, explain: bool = True) -> Answer:
        k = check_k(k)
        check_query(question)
        try:
            pers, walk, cands, order, parts = self.ranked(question, k)
        except NoSeedError as e:
            return Answer(self.name, question, (), (str(e),), no_seed=True)
        hits = tuple(Hit(cands.passage_ids[j], float(parts.scores[j]), r, self.name)
                     for r, j in enumerate(order, start=1))
        notes = self.walker.notes_for(pers.scope, len(hits), k)
        why: dict[str, PageExplanation] = {}
        graph_answer = None
        if explain:
            walk_hits = tuple(Hit(cands.passage_ids[j], float(cands.walk_scores[j]), r, self.walker.name)
                              for r, j in enumerate(order, start=1))
            graph_answer = self.walker.explained(question, pers, walk, walk_hits)
            walk_why = {e.hit.passage_id: e for e in graph_answer.explanations}
            why = {cands.passage_ids[j]: _explanation(cands.passage_ids[j], cands, parts, j,
                                                      walk_why.get(cands.passage_ids[j])) for j in order}
            graph_answer = replace(graph_answer, retriever=self.name)
        return Answer(self.name, question, hits, notes, why=MappingProxyType(why), walk=graph_answer)

    def explain_hits(self, query: str, passage_ids: Sequence[str]) -> dict[str, PageExplanation]:
        """The parts of the given passages' pages, where the pool holds them (a page outside it has none)."""
        try:
            _, _, cands, _, parts = self.ranked(query, POOL)
        except NoSeedError:
            return {}
        by_page = {p: j for j, p in enumerate(cands.pages)}
        found = {pid: by_page.get(self.pool.page_key(pid)) for pid in passage_ids}
        return {pid: _explanation(pid, cands, parts, j) for pid, j in found.items() if j is not None}


def _explanation(pid: str, cands: Candidates, parts, j: int, walk: HitExplanation | None = None) -> PageExplanation:
    named = sorted(range(len(FEATURES)), key=lambda f: (-abs(parts.parts[j, f]), f))
    return PageExplanation(pid, float(parts.scores[j]),
                           tuple(PagePart(FEATURES[f], float(cands.x[j, f]), float(parts.parts[j, f])) for f in named),
                           parts.base, int(j) + 1, walk)


@lru_cache(maxsize=1)
def page_ranker_model() -> Ranker:
    """The page ranker shipped with the engine (trained on the filings dev sets' tuning halves)."""
    return load(MODEL)


def _scaled(values: np.ndarray) -> np.ndarray:
    top = float(values.max()) if values.size else 0.0
    return values / top if top > 0 else np.zeros_like(values, dtype=float)


__all__ = ["LearnedPageRetriever", "MODEL", "PageExplanation", "PagePart", "PagePool", "POOL", "page_ranker_model"]

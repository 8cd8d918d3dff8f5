"""The filings retriever: Personalized PageRank over the filing graph, answering with pages.

It is the hybrid graph retriever (`graph_retriever.GraphRetriever`) on `engine.filings.graph`'s filing
graph, with three differences that make it read filings as an analyst does:
- the question's scope (company, fiscal period, form, statement; `engine.filings.scope`) seeds the
  structure it names, and the dense passage seeds come from the scoped filings only, so "Nike FY2018"
  is not answered from the 2019 10-K that repeats 2018 as a comparative;
- instruction text ("Round your answer to two decimal places") is taken out before any word seeds;
- the scope is a boundary: a question scoped to filings ranks only their pages, and one that names a company
  the room lacks stops, saying so and naming the companies the room holds (`Scope.stop`), unless the user
  asks to search every filing (`ScopeCorrection.everywhere`);
- hits are pages: a page scores as its best passage, and ranks once.

Every hit's score is still exactly the sum of its seeds' contributions (the walk is the same), and
each hit gets a typed path besides its evidence paths: company → filing → statement or note → the
line items it holds → the page, each hop a structure seed the page stands in or holds.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Sequence

import numpy as np

from ..filings.scope import Scope
from ..ingest.passage import page_key, page_number, Passage
from .graph_explain import EvidencePath, HitExplanation
from .filing_seeding import FilingSeeder
from ..errors import NoSeedError
from ..text import normalize_name
from .graph_retriever import GraphParams, GraphRetriever, Personalization
from .retrievers import Answer, Hit, check_query, top_k
from .seeding import PassageSeeder

PATH_ORDER = ("company", "filing", "statement", "item", "note", "line item")


@dataclass(frozen=True)
class FilingWalk:
    """What the filings retriever adds to a graph walk: the scope it read and its words."""

    scope: Scope
    scope_words: str

    def read_words(self) -> frozenset[str]:
        """The question's words the scope read (its company, period and form: "apple", "fy2022", "q1", "2023"):
        they steer the walk through the filings they choose, so they are not words that steer nothing."""
        years = {str(y) for y in (self.scope.year, *self.scope.span) if y}
        return frozenset(normalize_name(self.scope_words).split()) | years


class FilingRetriever(GraphRetriever):
    def __init__(self, name: str, seeder: FilingSeeder, params: GraphParams, passage_seeder: PassageSeeder | None,
                 corpus_passages: Sequence[Passage]):
        super().__init__(name, seeder, params, passage_seeder)
        self.filing_seeder = seeder
        self._doc_of = [p.doc_id for p in corpus_passages]
        self._docs = np.array(self._doc_of, dtype=object)
        self._page = [page_key(p) or p.id for p in corpus_passages]
        self._page_number = [page_number(p) for p in corpus_passages]
        self._rank_pages = any(page_number(p) is not None for p in corpus_passages)
        self._rows_of_page: dict[str, list[int]] = {}
        for i, page in enumerate(self._page):
            self._rows_of_page.setdefault(page, []).append(i)
        self._last_scope: tuple[str, Scope] | None = None

    def scope(self, question: str) -> Scope:
        """The question's scope, read once per answer: the walk's seeds and the answer's words share it."""
        text = check_query(question)
        last = self._last_scope
        if last is None or last[0] != text:
            last = self._last_scope = (text, self.filing_seeder.scope(text))
        return last[1]

    def personalize(self, query: str) -> Personalization:
        scope = self.scope(query)
        if scope.stop:
            raise NoSeedError(scope.stop)
        seeding = self.filing_seeder.seeding_for(scope)
        if self.passage_seeder is None:
            if not seeding.seeds:
                raise self._no_seed(seeding)
            return Personalization(seeding, ())
        # dense seeds from the scoped filings only (no scope: every passage)
        within = np.isin(self._docs, scope.filings) if scope.filings else None
        lexical = f"{scope.text} {self.filing_seeder.lexicon.expansion(scope.terms)}"
        return self._mixed(seeding, self.passage_seeder.seeds(scope.text, within, lexical))

    def hits_from(self, rows: np.ndarray, values: np.ndarray, k: int) -> tuple[Hit, ...]:
        """The top k pages (a page scores as its best passage, which stands for it), reached ones only;
        passages of unpaged documents rank as themselves."""
        scope = self._last_scope[1] if self._last_scope else None  # the scope `personalize` just read
        if scope is not None and scope.filings:  # a boundary: only the scoped filings' pages rank
            keep = np.isin(self._docs[rows], scope.filings)
            rows, values = rows[keep], values[keep]
        if not self._rank_pages:
            return super().hits_from(rows, values, k)
        depth = min(rows.size, 8 * k + 64)  # a page rarely has more than a few passages
        while True:
            best: dict[str, int] = {}
            for j in top_k(values, depth):
                best.setdefault(self._page[rows[j]], int(j))
            if len(best) >= k or depth >= rows.size:
                break
            depth = min(rows.size, depth * 4)
        return tuple(Hit(self.graph.passage_ids[rows[j]], float(values[j]), r, self.name)
                     for r, j in enumerate(list(best.values())[:k], start=1))

    def answer_batch(self, questions: Sequence[str], k: int) -> tuple[Answer, ...]:
        """One question at a time: each question's scope bounds its own hits."""
        return tuple(self.answer(q, k, explain=False) for q in questions)

    def answer(self, question: str, k: int, explain: bool = True) -> Answer:
        answer = super().answer(question, k, explain)
        if answer.no_seed:
            return answer
        scope = self.scope(question)
        if scope.filings and len(answer.hits) < k:  # the boundary, not the walk, ran out: said, not a silent short list
            n = len(answer.hits)
            answer = replace(answer, notes=answer.notes + (
                f"The scope holds {n} page{'s' if n != 1 else ''} the walk reaches, fewer than the {k} asked for: "
                "widen the scope to rank pages of other filings",))
        if answer.walk is None:
            return answer
        why = {pid: self._with_typed_path(e) for pid, e in answer.why.items()}
        walk = replace(answer.walk, explanations=tuple(why[e.hit.passage_id] for e in answer.walk.explanations),
                       extra=FilingWalk(scope, scope.words(self.filing_seeder.structure.filings)))
        return replace(answer, why=MappingProxyType(why), walk=walk)

    def typed_path(self, explanation: HitExplanation) -> EvidencePath | None:
        """company → filing → statement/Item/note → line items → page: the hit's filing and company, then
        every structure seed that the hit's page stands in or holds, in that order; its mass is those seeds'
        contributions to the hit's score. None for a hit outside any filing."""
        structure = self.filing_seeder.structure
        row = self.graph.passage_index[explanation.passage_id]
        doc = self._doc_of[row]
        filing = structure.filings.get(doc)
        if filing is None:  # a memo or a text file: no structure to walk through
            return None
        contributions = dict(explanation.contributions)
        # the page's nodes: what any of its passages touches (a row may stand in the page's next passage)
        touched = {int(j) for r in self._rows_of_page[self._page[row]] for j in self.graph.incidence[r].indices}
        layout = self.filing_seeder.layout
        steps: list[tuple[int, str, str, float]] = []
        for node in (layout.node_at(col) for col in sorted(touched)):
            if node is None:  # a name's column, not the structure's
                continue
            seeded = f"e:{node.key}" in contributions
            if node.kind in ("company", "filing") or seeded:
                label = f"“{node.label}”" if node.kind == "line item" else node.label
                steps.append((PATH_ORDER.index(node.kind), label, f"e:{node.key}", contributions.get(f"e:{node.key}", 0.0)))
        steps.sort(key=lambda s: s[0])
        page = self._page_number[row]
        end = f"page {page}" if page else explanation.passage_id
        mass = float(sum(s[3] for s in steps))  # the seeds' whole contributions: their share is mass / score
        return EvidencePath(tuple(s[1] for s in steps) + (end,), tuple(s[2] for s in steps) + (f"p:{explanation.passage_id}",),
                            mass, mass / explanation.score if explanation.score > 0 else 0.0)

    def _with_typed_path(self, e: HitExplanation) -> HitExplanation:
        return replace(e, typed_path=self.typed_path(e))


__all__ = ["FilingRetriever", "FilingWalk"]

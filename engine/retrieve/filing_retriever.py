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
from functools import cached_property
from types import MappingProxyType
from typing import Sequence

import numpy as np

from ..filings.scope import Scope
from ..ingest.passage import Passage, page_ref
from .graph_explain import EvidencePath, GraphAnswer, HitExplanation, explain_walk_hits
from .filing_seeding import FilingSeeder
from ..errors import NoSeedError
from ..text import normalize_name
from .graph_retriever import GraphParams, GraphRetriever, Personalization, Walk
from .retrievers import Answer, Hit, check_k, check_query, top_k
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
        said = {w for p in self.scope.periods for w in normalize_name(p.said).split()}  # "FY22", "2Q23" as written
        return frozenset(normalize_name(self.scope_words).split()) | years | said


class FilingRetriever(GraphRetriever):
    def __init__(self, name: str, seeder: FilingSeeder, params: GraphParams, passage_seeder: PassageSeeder | None,
                 corpus_passages: Sequence[Passage]):
        super().__init__(name, seeder, params, passage_seeder)
        self.corpus_passages = corpus_passages
        self._docs = np.array([p.doc_id for p in corpus_passages], dtype=object)
        at = [page_ref(p) for p in corpus_passages]
        self._page = [a.key if a else p.id for a, p in zip(at, corpus_passages)]
        self._page_number = [a.page if a else None for a in at]
        self._rank_pages = any(a is not None for a in at)
        self._rows_of_page: dict[str, list[int]] = {}
        for i, page in enumerate(self._page):
            self._rows_of_page.setdefault(page, []).append(i)

    @cached_property
    def _pages_of_doc(self) -> dict[str, int]:
        """Each filing's page count, read once: what a short answer over a short filing says."""
        out: dict[str, int] = {}
        for page, rows in self._rows_of_page.items():
            if self._page_number[rows[0]] is not None:
                out[self._docs[rows[0]]] = out.get(self._docs[rows[0]], 0) + 1
        return out

    @cached_property
    def _references(self) -> frozenset[tuple[int, int]]:
        """(passage row, structure node) of each cross-reference edge: a passage refers to that section."""
        return frozenset((r, n) for r, n, t in self.filing_seeder.structure.edges if t == "xref")

    @property
    def filing_seeder(self) -> FilingSeeder:
        """The walk's seeder, typed as what it is here: it also reads scopes and knows the filings' structure."""
        return self.seeder

    def scope(self, question: str) -> Scope:
        """The question's scope: a pure reading of it, carried with the walk's seeds (`Personalization.scope`)."""
        return self.filing_seeder.scope(check_query(question))

    def personalize(self, query: str) -> Personalization:
        scope = self.scope(query)
        if scope.stop:
            raise NoSeedError(scope.stop)
        seeding = self.filing_seeder.seeding_for(scope)
        if self.passage_seeder is None:
            if not seeding.seeds:
                raise self._no_seed(seeding)
            return Personalization(seeding, (), scope=scope)
        # dense seeds from the scoped filings only (no scope: every passage)
        within = np.isin(self._docs, scope.filings) if scope.filings else None
        lexical = f"{scope.text} {self.filing_seeder.lexicon.expansion(scope.terms)}"
        return replace(self._mixed(seeding, self.passage_seeder.seeds(scope.text, within, lexical)), scope=scope)

    def hits_from(self, rows: np.ndarray, values: np.ndarray, k: int, scope: object = None) -> tuple[Hit, ...]:
        """The top k pages (a page scores as its best passage, which stands for it), reached ones only, within
        the question's scope (a boundary: only the scoped filings' pages rank); passages of unpaged documents rank
        as themselves."""
        if isinstance(scope, Scope) and scope.filings:
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

    def answer(self, question: str, k: int, explain: bool = True) -> Answer:
        """The ranked pages, the scope's notes and, explained, the walk with each hit's typed path; the scope is
        read once, with the seeds, and travels with them."""
        k = check_k(k)
        try:
            pers, walk = self.run(question)
        except NoSeedError as e:
            return Answer(self.name, question, (), (str(e),), no_seed=True)
        hits = self.walk_hits(walk, k, pers.scope)
        notes = self.notes_for(pers.scope, len(hits), k)
        if not explain:
            return Answer(self.name, question, hits, notes)
        explained = self.explained(question, pers, walk, hits)
        return Answer(self.name, question, hits, notes,
                      why=MappingProxyType({e.hit.passage_id: e for e in explained.explanations}), walk=explained)

    def outside_scope(self, question: str, passage_id: str) -> str:
        """Why the question's scope keeps a passage from ranking, in words ("outside the scope: Acme · FY2019 →
        Acme FY2019 10-K"); "" when its filing is in scope."""
        scope = self.scope(question)
        row = self.graph.passage_index.get(passage_id)
        if row is None or not (scope.stop or scope.filings) or self._docs[row] in scope.filings:
            return ""
        return "outside the scope: " + scope.words(self.filing_seeder.structure.filings)

    def notes_for(self, scope: object, n: int, k: int) -> tuple[str, ...]:
        """What the scope did to the answer's length: a boundary, not the walk, that ran out is said, not left as a
        silent short list."""
        if not isinstance(scope, Scope) or not scope.filings or n >= k:
            return ()
        pages = sum(self._pages_of_doc.get(d, 0) for d in scope.filings)
        held = (f"The scoped filing{'s have' if len(scope.filings) > 1 else ' has'} {pages} page{'s' if pages != 1 else ''}"
                if n >= pages else f"The scope holds {n} page{'s' if n != 1 else ''} the walk reaches")
        return (f"{held}, fewer than the {k} asked for: widen the scope to rank pages of other filings",)

    def explained(self, question: str, pers: Personalization, walk: Walk, hits: Sequence[Hit]) -> GraphAnswer:
        """The walk explained for these hits (its own top k, or a learned ranker's order of its pages), with each
        hit's typed path and the scope's words."""
        explained = explain_walk_hits(self, question, pers, walk, hits, len(hits))
        scope = pers.scope
        why = {e.hit.passage_id: self._with_typed_path(e) for e in explained.explanations}
        return replace(explained, explanations=tuple(why[e.hit.passage_id] for e in explained.explanations),
                       extra=FilingWalk(scope, scope.words(self.filing_seeder.structure.filings)))

    def typed_path(self, explanation: HitExplanation) -> EvidencePath | None:
        """company → filing → statement/Item/note → line items → page: the hit's filing and company, then
        every structure seed that the hit's page stands in or holds, in that order; its mass is those seeds'
        contributions to the hit's score. None for a hit outside any filing."""
        structure = self.filing_seeder.structure
        row = self.graph.passage_index[explanation.passage_id]
        doc = self._docs[row]
        filing = structure.filings.get(doc)
        if filing is None:  # a memo or a text file: no structure to walk through
            return None
        contributions = dict(explanation.contributions)
        # the page's nodes: what any of its passages stands in or holds (a row may stand in the page's next
        # passage); a section its text only refers to ("Refer to Note 10") is not where it sits
        layout = self.filing_seeder.layout
        rows = self._rows_of_page[self._page[row]]
        touched = {int(j) for r in rows for j in self.graph.incidence[r].indices
                   if (r, int(j) - layout.entity_columns) not in self._references}
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

"""The catalog's retrievers, made from one index's components. The catalog says what each retriever is and needs
(engine.catalog); its maker calls one of these with its settings, and everything the retriever reads comes from the
index, built once and shared."""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

import numpy as np

from ..catalog import spec
from ..errors import PathLensError
from ..filings.lexicon import lexicon_for
from ..graph.entities import query_keys
from ..retrieve.bm25_retriever import BM25Retriever
from ..retrieve.dense_retriever import DenseRetriever
from ..retrieve.filing_retriever import FilingRetriever
from ..retrieve.filing_seeding import FilingSeeder
from ..retrieve.page_ranker import LearnedPageRetriever, PagePool, page_ranker_model
from ..retrieve.graph_retriever import GraphParams, GraphRetriever
from ..retrieve.retrievers import Retriever
from ..retrieve.rrf_retriever import RRFRetriever
from ..retrieve.seeding import EntitySeeder, PassageSeeder
from ..retrieve.tfidf_retriever import TfidfRetriever
from ..store import dense as encoder
from ..store.ann import ANN_MIN_PASSAGES
from .config import SearchConfig


def _own(name: str, graph: GraphParams) -> GraphParams:
    """The walk's settings as retriever `name` reads them: a second hop and weighted about-edges only where its
    catalog entry has them."""
    params = spec(name).params
    return replace(graph, hop_share=graph.hop_share if "hop_share" in params else 0.0,
                   subject_weight=graph.subject_weight if "subject_weight" in params else 1.0)


class Retrievers:
    """Makes retrievers over `index`: `make(name, config)` for any catalog entry, or one kind by its own method."""

    def __init__(self, index):
        self.index = index  # an engine.indexing.index.Index: this module sits under it, so it names no type of it

    def make(self, name: str, config: SearchConfig = SearchConfig()) -> Retriever:
        """The catalog entry's own maker builds it from this index's components."""
        return spec(name).make(self, config)

    def bm25(self) -> BM25Retriever:
        return self.index.bm25()

    def tfidf(self) -> TfidfRetriever:
        return self.index.tfidf()

    def dense(self) -> DenseRetriever:
        index = self.index
        ann = index.ann() if len(index.ids) >= ANN_MIN_PASSAGES else None
        return DenseRetriever(index.ids, index.embeddings(), encoder.encode_queries, index.texts, ann)

    def rrf(self, config: SearchConfig) -> RRFRetriever:
        return RRFRetriever([self.make(m, config) for m in config.rrf.members], config.rrf, self.index.ids)

    def graph(self, name: str, config: SearchConfig) -> GraphRetriever:
        """A ppr, bct or hybrid retriever: its catalog entry says which graph, aliases and passage seeds."""
        s, index, params = spec(name), self.index, _own(name, config.graph)
        graph = index.subject_graph(s.builder, params.subject_weight)
        if graph.incidence.nnz == 0:
            raise PathLensError(f"{name} is unavailable: the {s.builder} builder found no entity in any passage")
        builder = s.builder
        seeder = EntitySeeder(graph, lambda q: query_keys(builder, q), config.graph.seeding,
                              aliases=index.aliases(builder) if s.aliases else None, doc_of=index.doc_of)
        passage_seeder = None
        if s.embeddings:
            passage_seeder = PassageSeeder(self.dense(), config.hybrid,
                                           index.bm25() if config.hybrid.lexical > 0 else None)
        return GraphRetriever(name, seeder, params, passage_seeder)

    def filing(self, name: str, config: SearchConfig, embeddings: np.ndarray | None = None) -> FilingRetriever:
        """The `filing` or `filing-graph` retriever; `embeddings`, when given, stand in for the stage's
        (`Index.encoded`)."""
        index = self.index
        filing = index.filing_graph(config.edges)
        entity_seeder = EntitySeeder(index.graph("regex"), lambda q: query_keys("regex", q), config.graph.seeding,
                                     doc_of=index.doc_of)
        seeder = FilingSeeder(filing, index.structure(), entity_seeder, lexicon_for(index.corpus.lexicon),
                              config.scope)
        passage_seeder = None
        if spec(name).embeddings:
            params = replace(config.hybrid, passage_weight=config.filing_passage_weight,
                             lexical=config.filing_lexical_share)
            dense_retriever = self.dense() if embeddings is None else DenseRetriever(
                index.ids, embeddings, encoder.encode_queries, index.texts)
            passage_seeder = PassageSeeder(dense_retriever, params, index.bm25() if params.lexical > 0 else None)
        return FilingRetriever(name, seeder, _own(name, config.graph), passage_seeder, index.corpus.passages)

    def page_ranker(self, name: str, config: SearchConfig) -> LearnedPageRetriever:
        """The learned page ranker over the `filing` retriever's pool of pages, with the model saved in the
        package (`python -m engine train-ranker` remakes it)."""
        return LearnedPageRetriever(name, PagePool(self.filing("filing", config), self.index.page_facts()),
                                    page_ranker_model())

    def early(self, name: str, config: SearchConfig, documents: Sequence[str]
              ) -> FilingRetriever | LearnedPageRetriever | None:
        """The filings retriever (or the page ranker over it) ahead of the embeddings stage's end, for a question
        scoped to `documents`, once their passages are encoded (`Index.encoded`): its dense seeds and features come
        from those documents only, so its answer is the one the whole index gives (tested). None for any other
        retriever, or while they are not encoded."""
        if name not in ("filing", "filing-learned") or not documents:
            return None
        embeddings = self.index.encoded(documents)
        if embeddings is None:
            return None
        walker = self.filing("filing", config, embeddings)
        if name == "filing":
            return walker
        return LearnedPageRetriever(name, PagePool(walker, self.index.page_facts()), page_ranker_model())


__all__ = ["Retrievers"]

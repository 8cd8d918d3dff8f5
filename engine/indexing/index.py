"""An index over one corpus: the components retrievers are built from (tokens, embeddings, extractions, graphs,
alias tables, the filings' structure, BM25, TF-IDF, the HNSW graph), each built once on first use and shared.

Where the rest lives: building and caching in `memo` (a lock per component, the on-disk cache), per-passage work
in `compute`, background builds in `background`, retrievers in `factory`, subsamples and what-ifs in `views`.
"""

from __future__ import annotations

from collections import Counter
from typing import Sequence

import numpy as np

from ..components import key as component_key, parse
from ..errors import PathLensError
from ..filings.graph import EdgeWeights, FilingGraph, filing_graph
from ..retrieve.page_features import PageFacts, page_facts
from ..filings.structure import FilingStructure, read_structure
from ..graph.aliases import AliasTable, build_alias_table
from ..graph.entities import BUILDERS, PER_PASSAGE, Casing, Extraction, filter_mentions
from ..graph.entity_graph import EntityGraph, build_graph, subject_edges
from ..ingest.corpus import Corpus
from ..retrieve.bm25_retriever import BM25Retriever
from ..retrieve.retrievers import Retriever
from ..retrieve.tfidf_retriever import TfidfRetriever
from ..store import dense
from ..store.ann import HnswIndex
from ..store.cache import CacheEvent, DiskCache
from ..store.parts import MENTIONS, PartStore, vectors, with_parts
from ..text import tokenize
from .compute import Compute, LocalCompute, Priority, Work, part_kind
from .factory import Retrievers
from .config import SearchConfig, check_retriever, param_values, search_config  # noqa: F401  (re-exported)
from .memo import Memo, Progress


def _lead(title: str) -> str:
    """What the entity graph reads of a title: its lead (a filing's company; a title without " · " is all lead)."""
    return title.split(" · ")[0]


def _passage_text(title: str, text: str) -> str:
    """What the encoder and the tokenizer read of a passage: its title, unless its text already holds it, then the
    text."""
    return f"{title}\n{text}" if title and title not in text else text


def _graph_text(title: str, text: str) -> str:
    lead = _lead(title)
    return f"{lead}\n{text}" if lead and lead not in text else text


def _identity_lead(title: str) -> str:
    """A filing's company, where its title is an identity read off its cover ("Apple Inc. · Form 10-K · …"); "" for
    any other title. The graph links it as one name (`entity_graph.link_names`), never by the words in it."""
    return _lead(title) if " · " in title else ""


def _link_text(title: str, text: str) -> str:
    """What the entity graph links a passage by, word by word: its graph text, less an identity's lead."""
    return text if _identity_lead(title) else _graph_text(title, text)


class Index:
    def __init__(self, corpus: Corpus, cache: DiskCache | None = None, compute: Compute = LocalCompute(),
                 removed_entities: frozenset[str] = frozenset()):
        """`removed_entities`: what-if keys taken out of every graph this index builds (engine.indexing.views)."""
        self.corpus = corpus
        self.cache = cache
        self.compute = compute
        self.memo = Memo(corpus.fingerprint, cache)
        self.ids = tuple(p.id for p in corpus.passages)
        self.doc_of = {p.id: p.doc_id for p in corpus.passages}
        self.texts = tuple(_passage_text(p.title, p.text) for p in corpus.passages)
        # what the entity graph reads: a filing's identity title ("Apple Inc. · Form 10-K · fiscal year ended …")
        # keeps its lead, the company; its form and period on every page made hubs of "Form" and "Ended"
        self.graph_texts = tuple(_graph_text(p.title, p.text) for p in corpus.passages)
        self.removed_entities = frozenset(removed_entities)
        # per-passage results of earlier builds, any corpus's (engine.store.parts): a grown room computes its new
        # passages only
        self.parts = None if cache is None else PartStore(
            cache.directory, lambda why: cache.note(CacheEvent("parts", "rejected", why)))
        self.computed: dict[str, int] = {}  # passages each slow stage ran its model over in this index

    @property
    def timings(self) -> dict[str, float]:
        """Seconds each component took to build or load."""
        return self.memo.timings

    def retriever(self, name: str, config: SearchConfig = SearchConfig()) -> Retriever:
        """A catalog retriever over this index (engine.indexing.factory)."""
        return Retrievers(self).make(name, config)

    # -------------------------------------------------------- building

    def build(self, stage: str, progress: Progress | None = None, first: Sequence[str] | Priority = ()) -> None:
        """Build one named component ("tokens", "embeddings", "graph:ner", …; see `catalog.stages_for`).

        `progress(stage, done, total)` hears how many passages the long stages (embeddings, NER) have done;
        `first`: documents whose passages are encoded ahead of the others."""
        kind, arg = parse(stage)
        builders = {"tokens": self.tokens, "embeddings": self.embeddings, "bm25": self.bm25, "tfidf": self.tfidf,
                    "extraction": self.extraction, "graph": self.graph, "aliases": self.aliases, "ann": self.ann,
                    "structure": self.structure}
        if kind not in builders:
            raise PathLensError(f"unknown index component {stage!r}")
        with self.memo.reporting(progress):
            if kind == "embeddings":
                self.embeddings(first)
            else:
                builders[kind](*([arg] if arg else []))

    def build_stages(self, stages: Sequence[str], progress: Progress | None = None) -> None:
        """Build `stages` in order, one after another (each may use every core: `LocalCompute`).

        Not side by side: NER beside the encoder competes for the two vCPUs, and the full data room's
        build takes 79.5 s against 65.3 s one after the other (docs/performance.md, "Decisions")."""
        for stage in stages:
            self.build(stage, progress)

    def stored(self, key: str) -> bool:
        """Built here, or on disk for this corpus (what a resumed build will read instead of computing)."""
        return self.memo.stored(key)

    def built(self) -> tuple[str, ...]:
        return tuple(self.memo.snapshot())

    # -------------------------------------------------------- components

    def tokens(self) -> tuple[tuple[str, ...], ...]:
        return self.memo.get("tokens", lambda: tuple(tuple(tokenize(t)) for t in self.texts))

    def embeddings(self, first: Sequence[str] | Priority = ()) -> np.ndarray:
        """Every passage's embedding. A build encodes the passages of documents `first` ahead of the others (a
        question's filings, which a page can then answer from: `encoded`); given a `Priority`, whichever documents
        it names as each block starts. The order changes no bit (tested)."""
        priority = first if isinstance(first, Priority) else Priority(first) if first else None

        def encode(missing: list[str], keep) -> np.ndarray:
            wanted = None
            if priority is not None:
                rows_of: dict[str, list[int]] = {}  # document → positions of its passages among `missing`
                at = {t: i for i, t in enumerate(missing)}
                for t, p in zip(self.texts, self.corpus.passages):
                    if t in at:
                        rows_of.setdefault(p.doc_id, []).append(at[t])

                def wanted() -> list[int]:
                    return [i for d in priority.documents() for i in rows_of.get(d, ())]
            return self.compute.embeddings(missing, self.memo.tick("embeddings"), keep, wanted)

        def build() -> np.ndarray:
            rows, self.computed["embeddings"] = with_parts(self.parts, part_kind("embeddings"), self.texts,
                                                           vectors(dense.DIM), encode)
            return np.vstack(rows) if rows else np.zeros((0, dense.DIM), dtype=np.float32)

        return self.memo.get("embeddings", build)

    def encoded(self, documents: Sequence[str]) -> np.ndarray | None:
        """The embeddings of `documents`' passages when all of them are encoded (built, or kept by a build still
        under way), zeros for every other passage; None while some are not. What a question scoped to those
        documents reads before the whole stage is done: its answer is the one the whole index gives."""
        if self.memo.has("embeddings"):
            return self.embeddings()
        if self.parts is None:
            return None
        docs = set(documents)
        rows = [i for i, p in enumerate(self.corpus.passages) if p.doc_id in docs]
        found = self.parts.get(part_kind("embeddings"), [self.texts[i] for i in rows], vectors(dense.DIM))
        if not rows or any(v is None for v in found):
            return None
        out = np.zeros((len(self.ids), dense.DIM), dtype=np.float32)
        out[rows] = np.vstack(found)
        out.setflags(write=False)
        return out

    def extraction(self, builder: str) -> Extraction:
        if builder not in BUILDERS:
            raise PathLensError(f"unknown graph builder {builder!r}; choose one of {', '.join(BUILDERS)}")
        name = component_key("extraction", builder)
        if builder not in PER_PASSAGE:  # its mentions of a passage depend on the whole corpus: extracted whole
            return self.memo.get(name, lambda: self.compute.extraction(builder, self.graph_texts, self.memo.tick(name)))

        def build() -> Extraction:
            mentions, self.computed[name] = with_parts(
                self.parts, part_kind(name), self.graph_texts, MENTIONS,
                lambda missing, keep: self.compute.mentions(builder, missing, self.memo.tick(name)))
            return filter_mentions(builder, mentions, Casing.of(self.graph_texts))

        return self.memo.get(name, build)

    def work(self, stages: Sequence[str]) -> tuple["Work", ...]:
        """What a build of `stages` would run a model over now, for each stage that runs one per passage (encoding,
        NER) and is not stored: the passages no earlier build has a part for, and their documents."""
        out = []
        for stage in stages:
            kind, builder = parse(stage)
            per_passage = stage == "embeddings" or (kind == "extraction" and builder in PER_PASSAGE)
            if not per_passage or self.stored(stage):
                continue
            texts = self.texts if stage == "embeddings" else self.graph_texts
            have = self.parts.get_keys(part_kind(stage), texts) if self.parts else [False] * len(texts)
            unique = dict.fromkeys(t for t, h in zip(texts, have) if not h)
            touched: dict[str, list[bool]] = {}
            for p, h in zip(self.corpus.passages, have):
                touched.setdefault(p.doc_id, []).append(h)
            changed = [d for d, hs in touched.items() if not all(hs)]
            out.append(Work(stage, len(unique), len(set(texts)) - len(unique),
                            tuple(d for d in changed if not any(touched[d])), tuple(d for d in changed if any(touched[d])),
                            repeats=have.count(False) - len(unique)))
        return tuple(out)

    def graph(self, builder: str) -> EntityGraph:
        def build() -> EntityGraph:
            passages = self.corpus.passages
            g = build_graph(self.extraction(builder), self.ids, [_link_text(p.title, p.text) for p in passages],
                            [_identity_lead(p.title) for p in passages])
            return g.without_entities(self.removed_entities) if self.removed_entities else g

        return self.memo.get(component_key("graph", builder), build)

    def subject_graph(self, builder: str, weight: float) -> EntityGraph:
        """The builder's graph whose walk steps along its about-edges (a passage whose own title names the entity,
        engine.graph.entity_graph.subject_edges) at `weight`, a mention's being 1. Derived, not stored: marking
        the edges reads each passage's links once."""
        if weight == 1.0:
            return self.graph(builder)
        graph = self.graph(builder)
        subjects = self.memo.get(component_key("subjects", builder), lambda: subject_edges(
            graph, [_lead(p.title) for p in self.corpus.passages]))
        return self.memo.get(f"about-graph:{builder}@{weight}",
                             lambda: graph.with_subjects(subjects, weight))

    def aliases(self, builder: str) -> AliasTable:
        return self.memo.get(component_key("aliases", builder),
                         lambda: build_alias_table(self.graph(builder), self.graph_texts))

    def structure(self) -> FilingStructure:
        """The filings' structure (engine.filings.structure): read off the passages, no model."""
        return self.memo.get("structure", lambda: read_structure(self.corpus.passages))

    def page_facts(self) -> dict[str, PageFacts]:
        """What each page of the filings is (its kinds, context, boilerplate marks): the page ranker's features."""
        return self.memo.get("page-facts", lambda: page_facts(self.corpus.passages, self.structure()))

    def filing_graph(self, weights: EdgeWeights) -> FilingGraph:
        """The regex entity graph with the filings' structure added, at these edge weights."""
        return self.memo.get(f"filing-graph:{weights}", lambda: filing_graph(self.structure(), self.graph("regex"), weights))

    def filing_labels(self) -> dict[str, str]:
        """Each filing's name as the pages say it, by document: its identity ("McDonald's Q1 FY2023 earnings
        release"), two filings of one identity told apart by their file; none in a room of no PDFs."""
        def build() -> dict[str, str]:
            filings = self.structure().filings if self.corpus.paged else {}
            counts = Counter(f.label for f in filings.values())
            return {doc: f.label if counts[f.label] == 1 else f"{f.label} ({doc.rsplit('.', 1)[0]})"
                    for doc, f in filings.items()}
        return self.memo.get("filing-labels", build)

    def passage_titles(self) -> dict[str, str]:
        """Each passage's title as the pages and reports name it: a filing's page by its filing's label
        (`filing_labels`), any other passage by its own title."""
        def build() -> dict[str, str]:
            labels = self.filing_labels()
            return {p.id: labels.get(p.doc_id) or p.title for p in self.corpus.passages}
        return self.memo.get("passage-titles", build)  # read on every rerun of a page: made once

    def bm25(self) -> BM25Retriever:
        return self.memo.get("bm25", lambda: BM25Retriever(self.ids, self.tokens()))

    def tfidf(self) -> TfidfRetriever:
        return self.memo.get("tfidf", lambda: TfidfRetriever(self.ids, self.tokens()))

    def ann(self) -> HnswIndex:
        """The HNSW graph over the embeddings (engine.store.ann): dense search past ANN_MIN_PASSAGES."""
        return self.memo.get("ann", lambda: HnswIndex.build(self.embeddings()))


__all__ = ["Index", "SearchConfig", "check_retriever", "param_values", "search_config"]

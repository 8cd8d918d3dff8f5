"""An index over one corpus: the components retrievers are built from, each computed once.

Components (tokens, embeddings, extractions, graphs, alias tables) are built on first
use under a lock and never changed after, so one Index can serve many threads.
`subset` restricts every built component to some passages without re-running NER or
re-encoding, which is what the scale sweep needs.
"""

from __future__ import annotations

import threading
from collections import Counter
import time
from dataclasses import replace
from typing import Callable, Sequence

import numpy as np

from ..store import dense
from ..components import PERSISTED, key as component_key, parse
from ..store.cache import CacheEvent, DiskCache
from ..store.parts import MENTIONS, PartStore, vectors, with_parts
from ..graph.aliases import AliasTable, build_alias_table
from ..store.ann import ANN_MIN_PASSAGES, HnswIndex
from ..ingest.corpus import Corpus
from ..graph.entities import BUILDERS, PER_PASSAGE, Extraction, entity_key, filter_mentions, query_keys
from ..errors import PathLensError
from ..graph.entity_graph import EntityGraph, build_graph
from ..catalog import spec
from ..filings.graph import EdgeWeights, FilingGraph, filing_graph
from ..filings.lexicon import lexicon_for
from ..filings.structure import FilingStructure, read_structure
from ..retrieve.filing_retriever import FilingRetriever
from ..retrieve.filing_seeding import FilingSeeder
from ..retrieve.graph_retriever import GraphRetriever
from ..retrieve.bm25_retriever import BM25Retriever
from ..retrieve.dense_retriever import DenseRetriever
from ..retrieve.retrievers import Retriever
from ..retrieve.rrf_retriever import RRFRetriever
from ..retrieve.tfidf_retriever import TfidfRetriever
from ..retrieve.seeding import EntitySeeder, PassageSeeder
from ..text import tokenize
from .compute import Compute, LocalCompute, Work, part_kind
from .config import SearchConfig, check_retriever, param_values, search_config  # noqa: F401  (re-exported)


def _graph_text(title: str, text: str) -> str:
    lead = title.split(" · ")[0]  # a title without " · " is all lead
    return f"{lead}\n{text}" if lead and lead not in text else text


class Index:
    def __init__(self, corpus: Corpus, cache: DiskCache | None = None, compute: Compute = LocalCompute()):
        self.corpus = corpus
        self.cache = cache
        self.compute = compute
        self.ids = tuple(p.id for p in corpus.passages)
        self._doc_of = {p.id: p.doc_id for p in corpus.passages}
        self.texts = tuple(f"{p.title}\n{p.text}" if p.title and p.title not in p.text else p.text
                           for p in corpus.passages)
        # what the entity graph reads: a filing's identity title ("Apple Inc. · Form 10-K · fiscal year ended …")
        # keeps its lead, the company; its form and period on every page made hubs of "Form" and "Ended"
        self.graph_texts = tuple(_graph_text(p.title, p.text) for p in corpus.passages)
        self._parts: dict[str, object] = {}
        # one lock per component: a query reading built parts never waits on another part's build
        self._locks: dict[str, threading.Lock] = {}
        self._locks_lock = threading.Lock()
        self._progress = threading.local()  # the progress callback of the build running in this thread
        self.timings: dict[str, float] = {}
        self.removed_entities: frozenset[str] = frozenset()  # what-if: keys taken out of every graph
        # per-passage results of earlier builds, any corpus's (engine.store.parts): a grown room computes its new
        # passages only
        self.parts = None if cache is None else PartStore(
            cache.directory, lambda why: cache.note(CacheEvent("parts", "rejected", why)))
        self.computed: dict[str, int] = {}  # passages each slow stage ran its model over in this index

    def _lock_for(self, key: str) -> threading.Lock:
        with self._locks_lock:
            return self._locks.setdefault(key, threading.Lock())

    def _tick(self, key: str) -> Callable[[int, int], None] | None:
        """(done, total) → the progress callback of this thread's build, for a stage that can report it."""
        progress = getattr(self._progress, "fn", None)
        return (lambda done, total: progress(key, done, total)) if progress else None

    def _get(self, key: str, build: Callable[[], object]):
        if key in self._parts:  # built: no lock (a dict read is atomic, and parts are never replaced)
            return self._parts[key]
        with self._lock_for(key):  # components depend on others by key, never in a cycle: no deadlock
            if key not in self._parts:
                t0 = time.perf_counter()
                value = None
                if self.cache is not None and key in PERSISTED:
                    value = self.cache.load(self.corpus.fingerprint, key)
                if value is None:
                    value = build()
                    if self.cache is not None and key in PERSISTED:
                        self.cache.store(self.corpus.fingerprint, key, value)
                if isinstance(value, np.ndarray):
                    value.setflags(write=False)
                self._parts[key] = value
                self.timings[key] = time.perf_counter() - t0
            return self._parts[key]

    def build(self, stage: str, progress: Callable[[str, int, int], None] | None = None,
              first: Sequence[str] = ()) -> None:
        """Build one named component ("tokens", "embeddings", "graph:ner", …; see `catalog.stages_for`).

        `progress(stage, done, total)` hears how many passages the long stages (embeddings, NER) have done;
        `first`: documents whose passages are encoded before the others."""
        kind, arg = parse(stage)
        builders = {"tokens": self.tokens, "embeddings": self.embeddings, "bm25": self.bm25, "tfidf": self.tfidf,
                    "extraction": self.extraction, "graph": self.graph, "aliases": self.aliases, "ann": self.ann,
                    "structure": self.structure}
        if kind not in builders:
            raise PathLensError(f"unknown index component {stage!r}")
        self._progress.fn = progress
        try:
            if kind == "embeddings":
                self.embeddings(first)
            else:
                builders[kind](*([arg] if arg else []))
        finally:
            self._progress.fn = None

    def build_stages(self, stages: Sequence[str], progress: Callable[[str, int, int], None] | None = None) -> None:
        """Build `stages` in order, one after another (each may use every core: `LocalCompute`).

        Not side by side: NER beside the encoder competes for the two vCPUs, and the full data room's
        build takes 79.5 s against 65.3 s one after the other (docs/performance.md, "Builds")."""
        for stage in stages:
            self.build(stage, progress)

    def stored(self, key: str) -> bool:
        """Built here, or on disk for this corpus (what a resumed build will read instead of computing)."""
        return key in self._parts or (self.cache is not None and key in PERSISTED
                                      and self.cache.path(self.corpus.fingerprint, key).exists())

    def built(self) -> tuple[str, ...]:
        return tuple(self._parts)

    # -------------------------------------------------------- components

    def tokens(self) -> tuple[tuple[str, ...], ...]:
        return self._get("tokens", lambda: tuple(tuple(tokenize(t)) for t in self.texts))

    def embeddings(self, first: Sequence[str] = ()) -> np.ndarray:
        """Every passage's embedding. A build encodes the passages of documents `first` before the others (a
        question's filings, which a page can then answer from: `encoded`); the order changes no bit (tested)."""
        def build() -> np.ndarray:
            kind, codec, tick = part_kind("embeddings"), vectors(dense.DIM), self._tick("embeddings")
            wanted = set(first) if self.parts is not None else set()
            head = [t for t, p in zip(self.texts, self.corpus.passages) if p.doc_id in wanted]
            # the whole stage's count, so its progress runs once from 0 to all, the first documents included
            total = len(self.texts) if self.parts is None else \
                sum(not h for h in self.parts.get_keys(kind, list(dict.fromkeys(self.texts))))
            done = [0]

            def encode(missing: list[str], keep) -> np.ndarray:
                offset = done[0]
                out = self.compute.embeddings(missing, tick and (lambda n, _: tick(offset + n, total)), keep)
                done[0] += len(missing)
                return out

            computed = with_parts(self.parts, kind, head, codec, encode)[1] if head else 0
            rows, rest = with_parts(self.parts, kind, self.texts, codec, encode)
            self.computed["embeddings"] = computed + rest
            return np.vstack(rows) if rows else np.zeros((0, dense.DIM), dtype=np.float32)

        return self._get("embeddings", build)

    def encoded(self, documents: Sequence[str]) -> np.ndarray | None:
        """The embeddings of `documents`' passages when all of them are encoded (built, or kept by a build still
        under way), zeros for every other passage; None while some are not. What a question scoped to those
        documents reads before the whole stage is done: its answer is the one the whole index gives."""
        if "embeddings" in self._parts:
            return self._parts["embeddings"]
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
            return self._get(name, lambda: self.compute.extraction(builder, self.graph_texts, self._tick(name)))

        def build() -> Extraction:
            mentions, self.computed[name] = with_parts(
                self.parts, part_kind(name), self.graph_texts, MENTIONS,
                lambda missing, keep: self.compute.mentions(builder, missing, self._tick(name)))
            return filter_mentions(builder, mentions)

        return self._get(name, build)

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
                            tuple(d for d in changed if not any(touched[d])), tuple(d for d in changed if any(touched[d]))))
        return tuple(out)

    def graph(self, builder: str) -> EntityGraph:
        def build() -> EntityGraph:
            g = build_graph(self.extraction(builder), self.ids, self.graph_texts)
            return g.without_entities(self.removed_entities) if self.removed_entities else g

        return self._get(component_key("graph", builder), build)

    def aliases(self, builder: str) -> AliasTable:
        return self._get(component_key("aliases", builder),
                         lambda: build_alias_table(self.graph(builder), self.graph_texts))

    def structure(self) -> FilingStructure:
        """The filings' structure (engine.filings.structure): read off the passages, no model."""
        return self._get("structure", lambda: read_structure(self.corpus.passages))

    def filing_graph(self, weights: EdgeWeights) -> FilingGraph:
        """The regex entity graph with the filings' structure added, at these edge weights."""
        return self._get(f"filing-graph:{weights}", lambda: filing_graph(self.structure(), self.graph("regex"), weights))

    def filing_retriever(self, name: str, config: SearchConfig, embeddings: np.ndarray | None = None) -> FilingRetriever:
        """The `filing` or `filing-graph` retriever; `embeddings`, when given, stand in for the stage's (`encoded`)."""
        filing = self.filing_graph(config.edges)
        entity_seeder = EntitySeeder(self.graph("regex"), lambda q: query_keys("regex", q), config.graph.seeding,
                                     doc_of=self.doc_of)
        seeder = FilingSeeder(filing, self.structure(), entity_seeder, lexicon_for(self.corpus.lexicon), config.scope)
        passages = None
        if spec(name).embeddings:
            params = replace(config.hybrid, passage_weight=config.filing_passage_weight,
                             lexical=config.filing_lexical_share)
            dense_retriever = self.dense() if embeddings is None else DenseRetriever(
                self.ids, embeddings, dense.encode_queries, self.texts)
            passages = PassageSeeder(dense_retriever, params, self.bm25() if params.lexical > 0 else None)
        return FilingRetriever(name, seeder, config.graph, passages, self.corpus.passages)

    def early_retriever(self, name: str, config: SearchConfig, documents: Sequence[str]) -> FilingRetriever | None:
        """The filings retriever before the embeddings stage is done, for a question scoped to `documents`, once
        their passages are encoded (`encoded`): its dense seeds come from those documents only, so its answer is
        the one the whole index gives (tested). None for any other retriever, or while they are not encoded."""
        if name != "filing" or not documents:
            return None
        embeddings = self.encoded(documents)
        return None if embeddings is None else self.filing_retriever(name, config, embeddings)

    def passage_titles(self) -> dict[str, str]:
        """Each passage's title as the pages and reports name it: a filing's page by the filing's identity
        ("McDonald's Q1 FY2023 earnings release"; two filings of one identity told apart by their file), any other
        passage by its own title."""
        def build() -> dict[str, str]:
            filings = self.structure().filings if self.corpus.paged else {}
            counts = Counter(f.label for f in filings.values())
            labels = {doc: f.label if counts[f.label] == 1 else f"{f.label} ({doc.rsplit('.', 1)[0]})"
                      for doc, f in filings.items()}
            return {p.id: labels.get(p.doc_id) or p.title for p in self.corpus.passages}
        return self._get("passage-titles", build)  # read on every rerun of a page: made once

    def bm25(self) -> BM25Retriever:
        return self._get("bm25", lambda: BM25Retriever(self.ids, self.tokens()))

    def tfidf(self) -> TfidfRetriever:
        return self._get("tfidf", lambda: TfidfRetriever(self.ids, self.tokens()))

    # -------------------------------------------------------- retrievers

    def retriever(self, name: str, config: SearchConfig = SearchConfig()) -> Retriever:
        """The catalog entry's own maker builds it from this index's components."""
        return spec(name).make(self, config)

    def rrf(self, config: SearchConfig) -> RRFRetriever:
        return RRFRetriever([self.retriever(m, config) for m in config.rrf.members], config.rrf, self.ids)

    def graph_retriever(self, name: str, config: SearchConfig) -> GraphRetriever:
        """A ppr, bct or hybrid retriever: its catalog entry says which graph, aliases and passage seeds."""
        s = spec(name)
        graph = self.graph(s.builder)
        if graph.incidence.nnz == 0:
            raise PathLensError(f"{name} is unavailable: the {s.builder} builder found no entity in any passage")
        builder = s.builder
        seeder = EntitySeeder(graph, lambda q: query_keys(builder, q), config.graph.seeding,
                        aliases=self.aliases(builder) if s.aliases else None, doc_of=self.doc_of)
        passages = None
        if s.embeddings:
            passages = PassageSeeder(self.dense(), config.hybrid, self.bm25() if config.hybrid.lexical > 0 else None)
        return GraphRetriever(name, seeder, config.graph, passages)

    def dense(self) -> DenseRetriever:
        ann = self.ann() if len(self.ids) >= ANN_MIN_PASSAGES else None
        return DenseRetriever(self.ids, self.embeddings(), dense.encode_queries, self.texts, ann)

    def ann(self) -> HnswIndex:
        """The HNSW graph over the embeddings (engine.store.ann): dense search past ANN_MIN_PASSAGES."""
        return self._get("ann", lambda: HnswIndex.build(self.embeddings()))

    @property
    def doc_of(self) -> dict[str, str]:
        return self._doc_of

    # -------------------------------------------------------- subsets

    def subset(self, keep: Sequence[int]) -> "Index":
        """An Index over passages `keep` (positions in this corpus), reusing what is built:
        token lists, embedding rows and graphs are sliced, never recomputed."""
        keep = list(keep)
        passages = tuple(self.corpus.passages[i] for i in keep)
        ids = {p.id for p in passages}
        queries = tuple(q for q in self.corpus.queries if set(q.gold) <= ids)
        sub = Index(Corpus(f"{self.corpus.name}[{len(keep)}]", passages, queries, self.corpus.defaults))
        sub.removed_entities = self.removed_entities
        parts = dict(self._parts)  # a snapshot (one C-level copy under the GIL)
        for key, value in parts.items():
            if key == "tokens":
                sub._parts[key] = tuple(value[i] for i in keep)
            elif key == "embeddings":
                e = value[np.asarray(keep)]
                e.setflags(write=False)
                sub._parts[key] = e
            elif parse(key)[0] == "extraction":
                sub._parts[key] = value  # the vocabulary; graphs below carry the restriction
            elif parse(key)[0] == "graph":
                sub._parts[key] = value.restrict(keep)
        return sub

    def without(self, passages: Sequence[str] = (), entities: Sequence[str] = ()) -> "Index":
        """What-if: this index as if the corpus lacked these passages (by id) and the extractors had
        never found these entities (by name or key). Built parts are sliced, nothing is re-extracted
        or re-encoded; BM25 statistics are recounted over the passages that stay."""
        gone = set(passages)
        unknown = sorted(gone - set(self.ids))
        if unknown:
            raise PathLensError(f"what-if: no passage {unknown[0]!r} in corpus {self.corpus.name!r}")
        if len(gone) == len(self.ids):
            raise PathLensError("what-if: removing every passage leaves nothing to rank")
        keys = {entity_key(e) for e in entities}
        if gone:
            sub = self.subset([i for i, pid in enumerate(self.ids) if pid not in gone])
        else:  # only entities go: every other built part is shared as it is (no BM25 recount, no slicing)
            sub = Index(self.corpus)
            parts = dict(self._parts)
            sub._parts = {name: value for name, value in parts.items()
                          if parse(name)[0] not in ("aliases", "filing-graph")}  # rebuilt without the entities
        sub.removed_entities = self.removed_entities | frozenset(keys)
        graphs = {name: value for name, value in sub._parts.items() if parse(name)[0] == "graph"}
        unknown = sorted(k for k in keys if graphs and not any(k in g.entity_index for g in graphs.values()))
        if unknown:
            raise PathLensError(f"what-if: no entity {unknown[0]!r} in the graph of {self.corpus.name!r}")
        for key, value in graphs.items():
            sub._parts[key] = value.without_entities(keys)
        return sub

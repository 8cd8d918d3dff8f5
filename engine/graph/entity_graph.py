"""The undirected bipartite entity–passage graph, with substring adjacency.

Nodes 0..N−1 are passages, N..N+M−1 entities. A passage is linked to every kept entity
whose key occurs in its normalised text on token boundaries, not only to the surface
forms an extractor returned there, so nested names ("NorthRiver", "NorthRiver IV LP")
share passages.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Sequence

import numpy as np
from scipy import sparse

from ..errors import PathLensError
from .entities import Extraction, query_keys
from .ppr import column_normalize, threaded
from .push import LocalWalk
from ..text import capitalised_tokens, name_tokens, normalize_name

# passages come first in W and are side 0 of its bipartite walk (engine.graph.push), entities side 1
PASSAGE_SIDE = 0


def link_passages(texts: Sequence[str], entities: Sequence[str], cased: Sequence[bool] | None = None,
                  names: frozenset[int] = frozenset()) -> sparse.csr_matrix:
    """N × M binary incidence: passage i contains entity j's key on token boundaries.

    `cased[i]`: passage i links a name of `names` (entity columns) only where it writes some word of it with a
    capital. A filing capitalises what it names and defines ("the Board", "the Partnership"); read in any case,
    its every "board" and "partnership" made those names hubs of the whole filing.

    Scans each passage's token n-grams against a key table, which is linear in the text rather
    than in N × M substring tests. An n-gram grows only while it is the start of some key, so
    most tokens cost one set lookup (at 100,000 passages this took the scan from 35 s to a few)."""
    index = {e: j for j, e in enumerate(entities)}
    prefixes = {" ".join(toks[:n]) for e in entities for toks in [e.split()] for n in range(1, len(toks) + 1)}
    rows, cols = [], []
    for i, text in enumerate(texts):
        toks = name_tokens(text)
        capitals = capitalised_tokens(text) if cased is not None and cased[i] and names else None
        found = set()
        for start, gram in enumerate(toks):
            end = start + 1
            while gram in prefixes:
                j = index.get(gram)
                if j is not None and (capitals is None or j not in names or any(capitals[start:end])):
                    found.add(j)
                if end == len(toks):
                    break
                gram = f"{gram} {toks[end]}"
                end += 1
        rows.extend([i] * len(found))
        cols.extend(sorted(found))
    data = np.ones(len(rows), dtype=np.float64)
    return sparse.csr_matrix((data, (rows, cols)), shape=(len(texts), len(entities)))


@dataclass(frozen=True, eq=False)
class GraphStats:
    passages: int
    entities: int
    edges: int
    isolated_passages: int
    isolated_entities: int
    passage_degree: dict[str, float]  # min / median / mean / max
    entity_degree: dict[str, float]
    largest_entities: tuple[tuple[str, int], ...]  # (display name, passages), biggest first


def _degree_summary(deg: np.ndarray) -> dict[str, float]:
    if deg.size == 0:
        return {"min": 0.0, "median": 0.0, "mean": 0.0, "max": 0.0}
    return {"min": float(deg.min()), "median": float(np.median(deg)), "mean": float(deg.mean()),
            "max": float(deg.max())}


@dataclass(frozen=True, eq=False)
class EntityGraph:
    builder: str
    passage_ids: tuple[str, ...]
    entities: tuple[str, ...]  # entity keys; node of entity j is N + j
    display: tuple[str, ...]  # the surface form shown for each entity
    incidence: sparse.csr_matrix  # N × M, 1 where passage i mentions entity j
    W: sparse.csr_matrix  # (N+M) × (N+M), column-normalised adjacency
    subjects: sparse.csr_matrix | None = None  # N × M, 1 on the about-edges (a subset of incidence); None: none marked
    subject_weight: float = 1.0  # an about-edge's weight in W against a mention's 1

    @property
    def adjacency(self) -> sparse.csr_matrix:
        """N × M edge weights as W reads them: 1 a mention, `subject_weight` an about-edge."""
        if self.subjects is None or self.subject_weight == 1.0:
            return self.incidence
        return (self.incidence + (self.subject_weight - 1.0) * self.subjects).tocsr()

    def is_subject(self, passage: int, entity: int) -> bool:
        """Whether passage row `passage` is about entity column `entity` (its title names it)."""
        return self.subjects is not None and bool(self.subjects[passage, entity])

    def with_subjects(self, subjects: sparse.csr_matrix, weight: float) -> "EntityGraph":
        """This graph whose walk steps along the about-edges `subjects` at `weight` (a mention's is 1)."""
        return build_from_incidence(self.builder, self.passage_ids, self.entities, self.display, self.incidence,
                                    subjects, weight)

    @property
    def n_passages(self) -> int:
        return len(self.passage_ids)

    @cached_property
    def blocks(self) -> tuple[sparse.csr_matrix, sparse.csr_matrix]:
        """W's two non-zero blocks: (entity → passage, passage → entity) transition probabilities,
        for `ppr.bipartite_passage_scores`. Computed once per graph."""
        n = self.n_passages
        return self.W[:n, n:].tocsr(), self.W[n:, :n].tocsr()

    @cached_property
    def walk_blocks(self) -> tuple:
        """`blocks` as the walk multiplies them: split across cores on big graphs (`ppr.threaded`)."""
        to_p, to_e = self.blocks
        return threaded(to_p), threaded(to_e)

    @cached_property
    def walk_matrix(self):
        """W as the explanation's full walk multiplies it (`ppr.threaded`)."""
        return threaded(self.W)

    @cached_property
    def local_walk(self) -> LocalWalk:
        """W by column, as a walk by push reads it (engine.graph.push)."""
        inc = self.adjacency  # A = [[0, inc], [incᵀ, 0]] is symmetric and W = A·D⁻¹: its column sums are D
        return LocalWalk(self.W, np.concatenate([np.asarray(inc.sum(axis=1)).ravel(),
                                                 np.asarray(inc.sum(axis=0)).ravel()]),
                         np.repeat(np.array([PASSAGE_SIDE, 1 - PASSAGE_SIDE], dtype=np.int8), inc.shape))

    @cached_property
    def max_passage_degree(self) -> float:
        """The largest degree of a passage (its links' weights summed: their number when links weigh 1): the walk
        by push's largest per-passage error is its spread times this."""
        return float(self.local_walk.degrees[:self.n_passages].max(initial=0.0))

    @cached_property
    def to_entities_csc(self) -> sparse.csc_matrix:
        """The passage → entity block by column: the entities each passage leads to, for explanations."""
        return self.blocks[1].tocsc()

    @cached_property
    def passage_rank(self) -> np.ndarray:
        """Each passage's position in the order of passage ids (as strings): how evidence paths
        break ties between equally heavy passages, as an array."""
        rank = np.empty(self.n_passages, dtype=np.int64)
        rank[np.argsort(np.array(self.passage_ids, dtype=str), kind="stable")] = np.arange(self.n_passages)
        return rank

    @cached_property
    def _to_passages_csc(self) -> sparse.csc_matrix:
        return self.blocks[0].tocsc()

    def entity_column(self, j: int) -> np.ndarray:
        """to_p[:, j] as a dense vector: the probability of stepping from entity j to each passage."""
        col = self._to_passages_csc
        out = np.zeros(self.n_passages)
        out[col.indices[col.indptr[j]:col.indptr[j + 1]]] = col.data[col.indptr[j]:col.indptr[j + 1]]
        return out

    @cached_property
    def entity_tokens(self) -> tuple[tuple[str, ...], ...]:
        return tuple(tuple(e.split()) for e in self.entities)

    @cached_property
    def token_postings(self) -> dict[str, tuple[int, ...]]:
        """token → the entities whose key has it, ascending: candidates for containment seeding."""
        out: dict[str, list[int]] = {}
        for j, toks in enumerate(self.entity_tokens):
            for tok in dict.fromkeys(toks):
                out.setdefault(tok, []).append(j)
        return {tok: tuple(js) for tok, js in out.items()}

    @cached_property
    def by_tokens(self) -> dict[tuple[str, ...], tuple[int, ...]]:
        out: dict[tuple[str, ...], list[int]] = {}
        for j, toks in enumerate(self.entity_tokens):
            out.setdefault(toks, []).append(j)
        return {toks: tuple(js) for toks, js in out.items()}

    @cached_property
    def entity_degree(self) -> np.ndarray:
        """Passages each entity occurs in (its specificity is the inverse)."""
        return np.diff(self.incidence.tocsc().indptr)

    @cached_property
    def longest_key(self) -> int:
        """Tokens in the longest entity key: how far a vocabulary scan of a question looks ahead."""
        return max((len(t) for t in self.entity_tokens), default=0)

    @cached_property
    def passage_index(self) -> dict[str, int]:
        """passage id → its row; built once per graph."""
        return {p: i for i, p in enumerate(self.passage_ids)}

    @cached_property
    def entity_index(self) -> dict[str, int]:
        """entity key → its column; built once per graph and shared, so callers only read it."""
        return {e: j for j, e in enumerate(self.entities)}

    def find_entities(self, text: str, limit: int = 50) -> list[int]:
        """Entities whose key contains `text` folded as keys are (case, accents, punctuation), in
        graph order: the Corpus page's entity search."""
        key = normalize_name(text)
        return [j for j, e in enumerate(self.entities) if key and key in e][:limit]

    def passages_of(self, entity: int) -> list[int]:
        """Rows of the passages that mention entity column `entity`, ascending."""
        col = self.incidence[:, entity]
        return sorted(int(i) for i in col.nonzero()[0])

    def co_occurring(self, entity: int, top: int = 15) -> list[tuple[int, int]]:
        """(entity column, passages shared) of the entities that share the most passages with
        `entity`, most first, ties in graph order; only those sharing at least one."""
        shared = np.asarray(self.incidence[self.passages_of(entity)].sum(axis=0)).ravel()
        shared[entity] = 0
        order = np.argsort(-shared, kind="stable")[:top]
        return [(int(j), int(shared[j])) for j in order if shared[j] > 0]

    def inside(self, entity: int) -> tuple[int, int] | None:
        """(column, passages shared) of the longer entity whose name holds `entity`'s on token boundaries and
        shares the most passages with it ("United States" for "United"), or None. Substring adjacency links every
        passage of the longer name to the shorter, which is how a lone word can be among the largest entities."""
        held = self.held(entity)
        return held[1][0] if held[1] else None

    def held(self, entity: int) -> tuple[int, list[tuple[int, int]]]:
        """How many of `entity`'s passages are linked to some longer entity whose name holds its name on token
        boundaries, and (column, passages shared) of each such entity sharing any, most first (ties: graph order):
        "General" is large through "General and Administrative", "General Counsel" and a dozen more."""
        key = f" {self.entities[entity]} "
        longer = [j for j, e in enumerate(self.entities) if j != entity and key in f" {e} "]
        if not longer:
            return 0, []
        sub = self.incidence[self.passages_of(entity)][:, longer]
        shared = np.asarray(sub.sum(axis=0)).ravel()
        order = sorted((j for j in range(len(longer)) if shared[j] > 0), key=lambda j: (-shared[j], j))
        return int((np.asarray(sub.sum(axis=1)).ravel() > 0).sum()), [(longer[j], int(shared[j])) for j in order]

    def largest(self, top: int) -> list[int]:
        """The `top` entity columns in the most passages, most first, ties by key."""
        e_deg = self.entity_degree
        return sorted(range(len(self.entities)), key=lambda j: (-e_deg[j], self.entities[j]))[:top]

    def stats(self, top: int = 10) -> GraphStats:
        p_deg = np.asarray(self.incidence.sum(axis=1)).ravel()
        e_deg = np.asarray(self.incidence.sum(axis=0)).ravel()
        order = self.largest(top)
        return GraphStats(
            passages=self.n_passages,
            entities=len(self.entities),
            edges=int(self.incidence.nnz),
            isolated_passages=int((p_deg == 0).sum()),
            isolated_entities=int((e_deg == 0).sum()),
            passage_degree=_degree_summary(p_deg),
            entity_degree=_degree_summary(e_deg),
            largest_entities=tuple((self.display[j], int(e_deg[j])) for j in order),
        )

    def without_entities(self, keys) -> "EntityGraph":
        """The graph as if the extractor had never found these entity keys (what-if): their nodes
        and edges go, and every transition probability is renormalised around the gap."""
        return _without_entities(self, frozenset(keys))

    def restrict(self, keep: Sequence[int]) -> "EntityGraph":
        """The graph over passages `keep` (indices, in the order given), dropping entities
        that no kept passage mentions. No extraction is re-run."""
        rows = np.asarray(keep, dtype=np.int64)
        inc = self.incidence[rows]
        used = np.flatnonzero(np.asarray(inc.sum(axis=0)).ravel() > 0)
        return build_from_incidence(
            self.builder,
            tuple(self.passage_ids[i] for i in keep),
            tuple(self.entities[j] for j in used),
            tuple(self.display[j] for j in used),
            inc[:, used].tocsr(),
            None if self.subjects is None else self.subjects[rows][:, used].tocsr(),
            self.subject_weight,
        )


def _without_entities(graph: "EntityGraph", keys) -> "EntityGraph":
    keep = [j for j, e in enumerate(graph.entities) if e not in keys]
    return build_from_incidence(graph.builder, graph.passage_ids, tuple(graph.entities[j] for j in keep),
                                tuple(graph.display[j] for j in keep), graph.incidence[:, keep].tocsr(),
                                None if graph.subjects is None else graph.subjects[:, keep].tocsr(),
                                graph.subject_weight)


def build_from_incidence(builder: str, passage_ids: tuple[str, ...], entities: tuple[str, ...],
                         display: tuple[str, ...], incidence: sparse.csr_matrix,
                         subjects: sparse.csr_matrix | None = None, subject_weight: float = 1.0) -> EntityGraph:
    if not subject_weight > 0:
        raise PathLensError(f"an about-edge's weight must be above 0, got {subject_weight}")
    graph = EntityGraph(builder, passage_ids, entities, display, incidence, sparse.csr_matrix((0, 0)), subjects,
                        float(subject_weight))
    weights = graph.adjacency
    A = sparse.bmat([[None, weights], [weights.T, None]], format="csc",
                    dtype=np.float64) if incidence.shape[1] else sparse.csc_matrix(
        (incidence.shape[0], incidence.shape[0]), dtype=np.float64)
    return replace(graph, W=column_normalize(A))


def subject_edges(graph: EntityGraph, titles: Sequence[str]) -> sparse.csr_matrix:
    """N × M, 1 where passage i is about entity j: i is the only passage of its title, and the title names j
    on token boundaries (an article "Green Bay Packers" is about "Green Bay Packers" and "Green Bay").
    A title that many passages share is a long document's, whose chunks each mention its name but are not
    each about it. `titles`: one a passage, in graph order, as the graph's text reads them."""
    if len(titles) != graph.n_passages:
        raise PathLensError(f"subject edges need one title a passage: {len(titles)} titles, {graph.n_passages} passages")
    counts = Counter(titles)
    inc = graph.incidence
    rows, cols = [], []
    for i, title in enumerate(titles):
        if counts[title] != 1 or not title:
            continue
        named = f" {' '.join(name_tokens(title))} "
        for j in inc.indices[inc.indptr[i]:inc.indptr[i + 1]].tolist():
            if f" {graph.entities[j]} " in named:
                rows.append(i)
                cols.append(j)
    return sparse.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=inc.shape)


def link_names(names: Sequence[str], builder: str, entities: Sequence[str]) -> sparse.csr_matrix:
    """N × M binary incidence: passage i is linked to the kept entities its `names[i]` is, as a whole name.

    A filing's company names every one of its pages through their title; read word by word, "Boston Properties
    Limited Partnership" would also link each page to "Boston", "Partnership" and "Properties", hubs of the whole
    room. So the name links to the entities the builder reads it as, and none nested in them."""
    index = {e: j for j, e in enumerate(entities)}
    rows, cols = [], []
    for i, name in enumerate(names):
        if not name:
            continue
        keys = [k for k in query_keys(builder, name) if k in index]
        whole = sorted({index[k] for k in keys if not any(k != o and f" {k} " in f" {o} " for o in keys)})
        rows.extend([i] * len(whole))
        cols.extend(whole)
    return sparse.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(names), len(entities)))


def build_graph(extraction: Extraction, passage_ids: Sequence[str], texts: Sequence[str],
                names: Sequence[str] | None = None) -> EntityGraph:
    """The graph of `extraction`'s entities over passages read as `texts`, on token boundaries. `names`: what
    each passage is also linked to as a whole name (`link_names`), a filing's company; a passage with one is a
    filing's, and links a capitalised name only where it writes it with a capital (`link_passages`)."""
    capital = frozenset(j for j, e in enumerate(extraction.entities) if extraction.display[e] != extraction.display[e].lower())
    cased = None if names is None else [bool(n) for n in names]
    incidence = link_passages(texts, extraction.entities, cased, capital)
    if names is not None:
        incidence = (incidence + link_names(names, extraction.builder, extraction.entities)).tocsr()
        incidence.data[:] = 1.0
    return build_from_incidence(
        extraction.builder,
        tuple(passage_ids),
        extraction.entities,
        tuple(extraction.display[e] for e in extraction.entities),
        incidence,
    )

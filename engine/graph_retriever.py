"""Graph retrievers: Personalized PageRank over the entity–passage graph, and its explanation.

`ppr-*` seed the question's entities (`seeding.Seeder`), `bct-*` add their aliases, and
`hybrid-*` also seed passages by dense similarity to the question (HippoRAG 2's idea, without
its LLM): the top passages by cosine c get s_p ∝ exp((c − c_max)/τ), and the personalization
vector is (w·s_p, (1−w)·s_e), or all passage seeds when the question has no entity seed.

PPR is linear in its seed vector, so every hit's score is exactly Σᵢ sᵢ·PPR(seedᵢ)[hit]; the
explanation reports those contributions per seed, entity and passage seeds alike.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Sequence

import numpy as np

from .errors import NoSeedError, PathLensError
from .graph import EntityGraph
from .ppr import PPRResult, bipartite_passage_scores, check_params, personalized_pagerank
from .retrievers import BM25Retriever, DenseRetriever, Hit, check_k, check_query, top_k
from .seeding import Seed, Seeder, Seeding, SeedingParams


def _top_candidates(masses: np.ndarray, valid: np.ndarray, keep: int) -> np.ndarray:
    """Indices of the valid masses that can still be among the `keep` heaviest, ties at the
    cut included, so a hub entity's thousands of passages never become path objects."""
    idx = np.flatnonzero(valid)
    if keep < 1:
        return idx[:0]
    if idx.size > keep:
        kth = np.partition(masses[idx], idx.size - keep)[idx.size - keep]
        idx = idx[masses[idx] >= kth]
    return idx


@dataclass(frozen=True)
class GraphParams:
    alpha: float = 0.15
    iterations: int = 20
    tol: float | None = None
    beta: float = 0.5  # β: an alias's weight relative to its seed's
    vocabulary: bool = True  # seed graph entities named anywhere in the question
    specificity: bool = True  # weigh entity seeds by 1 / passages they occur in

    def __post_init__(self) -> None:
        check_params(self.alpha, self.iterations, self.tol)
        if not self.beta >= 0:
            raise PathLensError(f"BCT weight β must be 0 or more, got {self.beta}")

    @property
    def seeding(self) -> SeedingParams:
        return SeedingParams(self.vocabulary, self.specificity, self.beta)


@dataclass(frozen=True)
class HybridParams:
    """Passage seeds from dense similarity (the hybrid retrievers)."""

    passage_weight: float = 0.75  # w: the passage seeds' share of the personalization vector
    tau: float = 0.05  # τ: softmax temperature over cosines
    top: int = 20  # how many of the most similar passages are seeded
    lexical: float = 0.0  # λ: the share of passage seeds taken from BM25 instead of dense similarity

    def __post_init__(self) -> None:
        if not 0 <= self.passage_weight <= 1:
            raise PathLensError(f"passage-seed weight w must be between 0 and 1, got {self.passage_weight}")
        if not 0 <= self.lexical <= 1:
            raise PathLensError(f"lexical share λ must be between 0 and 1, got {self.lexical}")
        if not self.tau > 0:
            raise PathLensError(f"temperature τ must be positive, got {self.tau}")
        if isinstance(self.top, bool) or not isinstance(self.top, (int, np.integer)) or self.top < 1:
            raise PathLensError(f"passage seeds (top) must be a whole number of at least 1, got {self.top!r}")


@dataclass(frozen=True)
class PassageSeed:
    passage_id: str
    weight: float  # share of the personalization vector
    cosine: float  # dense similarity to the question


@dataclass(frozen=True)
class Personalization:
    """Where the walk restarts: entity seeds and passage seeds, weights summing to 1."""

    seeding: Seeding  # entity seeds, weights already scaled by their share (1 − w)
    passage_seeds: tuple[PassageSeed, ...]

    @property
    def seeds(self) -> tuple[Seed, ...]:
        return self.seeding.seeds


@dataclass(frozen=True)
class EvidencePath:
    nodes: tuple[str, ...]  # display labels along the path: seed, passage[, bridge, passage]
    node_ids: tuple[str, ...]  # "e:<key>" / "p:<passage id>"
    mass: float  # seed weight × product of transition probabilities along the path

    def words(self) -> str:
        return " → ".join(self.nodes)


@dataclass(frozen=True)
class HitExplanation:
    hit: Hit
    contributions: tuple[tuple[str, float], ...]  # (seed node id, sᵢ·PPR(seedᵢ)[hit]); sums to the score
    paths: tuple[EvidencePath, ...]
    matched_entities: tuple[str, ...]  # display forms of seed/alias entities in this passage

    @property
    def seed_shares(self) -> tuple[tuple[str, float], ...]:
        """Each seed's share of the score (contributions over their sum)."""
        total = sum(c for _, c in self.contributions)
        return tuple((nid, c / total if total else 0.0) for nid, c in self.contributions)


@dataclass(frozen=True)
class SubgraphNode:
    id: str
    label: str
    kind: str  # "seed", "alias", "passage-seed", "hit", "bridge-passage", "bridge"
    mass: float
    title: str  # hover text (plain text; escape it when rendering HTML)
    gold: bool = False


@dataclass(frozen=True)
class SubgraphEdge:
    source: str
    target: str
    on_path: bool


@dataclass(frozen=True, eq=False)
class GraphAnswer:
    retriever: str
    query: str
    hits: tuple[Hit, ...]
    seeds: tuple[Seed, ...]
    passage_seeds: tuple[PassageSeed, ...]
    query_entities: tuple[str, ...]
    unmatched: tuple[str, ...]
    ambiguous: tuple  # seeding.AmbiguousTerm
    explanations: tuple[HitExplanation, ...]
    residuals: tuple[float, ...]
    iterations: int
    nodes: tuple[SubgraphNode, ...]
    edges: tuple[SubgraphEdge, ...]


class PassageSeeder:
    """The hybrid's passage seeds: a softmax at temperature τ over the top passages by cosine,
    optionally mixed with a softmax over the top passages by BM25 (share λ).

    BM25 scores have no fixed scale, so they are divided by the best one before the softmax,
    whose temperature is then `LEXICAL_TAU`; each part's weights sum to its share."""

    LEXICAL_TAU = 0.2  # over BM25 scores / the best score; chosen on the data room

    def __init__(self, dense: DenseRetriever, params: HybridParams, bm25: BM25Retriever | None = None):
        if params.lexical > 0 and bm25 is None:
            raise PathLensError("lexical passage seeds (λ > 0) need the BM25 index")
        self.dense = dense
        self.bm25 = bm25
        self.params = params

    @staticmethod
    def _softmax_top(scores: np.ndarray, top: int, tau: float) -> tuple[np.ndarray, np.ndarray]:
        best = top_k(scores, top)
        z = np.exp((scores[best] - scores[best[0]]) / tau)
        return best, z / z.sum()

    def seeds(self, query: str) -> tuple[PassageSeed, ...]:
        c = self.dense.scores(query)
        if c.size == 0:
            return ()
        lam = self.params.lexical
        weight = np.zeros(c.size)
        if lam < 1:
            best, z = self._softmax_top(c, self.params.top, self.params.tau)
            weight[best] += (1 - lam) * z
        if lam > 0:
            b = self.bm25.scores(query)
            if b.max() > 0:
                best, z = self._softmax_top(b / b.max(), self.params.top, self.LEXICAL_TAU)
                weight[best] += lam * z
            elif lam == 1:
                return ()
        weight /= weight.sum()
        # in the order of weight, ties by corpus order, so the table reads best first
        order = np.lexsort((np.arange(c.size), -weight))[:np.count_nonzero(weight)]
        return tuple(PassageSeed(self.dense.ids[i], float(weight[i]), float(c[i])) for i in order)


class GraphRetriever:
    """PPR over an entity graph, seeded on the question's entities (for BCT with their aliases,
    for the hybrid with dense passage seeds too)."""

    def __init__(self, name: str, seeder: Seeder, params: GraphParams = GraphParams(),
                 passages: PassageSeeder | None = None):
        self.name = name
        self.seeder = seeder
        self.graph: EntityGraph = seeder.graph
        self.params = params
        self.passages = passages  # None: entity seeds only
        self._pos = {pid: i for i, pid in enumerate(self.graph.passage_ids)}

    # -------------------------------------------------------- seeding

    def seeding(self, query: str) -> Seeding:
        return self.seeder.seeding(query)

    def personalize(self, query: str) -> Personalization:
        """The seeds of one question; raises NoSeedError when there is nothing to start from."""
        seeding = self.seeder.seeding(check_query(query))
        if self.passages is None:
            if not seeding.seeds:
                raise self._no_seed(seeding)
            return Personalization(seeding, ())
        passage_seeds = self.passages.seeds(query)
        if not passage_seeds and not seeding.seeds:
            raise self._no_seed(seeding)
        w = self.passages.params.passage_weight if seeding.seeds else 1.0
        if not passage_seeds:
            w = 0.0
        entity_seeds = tuple(replace(s, weight=s.weight * (1 - w)) for s in seeding.seeds if 1 - w > 0)
        return Personalization(replace(seeding, seeds=entity_seeds),
                               tuple(replace(p, weight=p.weight * w) for p in passage_seeds))

    def _vectors(self, pers: Personalization) -> tuple[np.ndarray, np.ndarray | None]:
        """(entity part, passage part or None) of the personalization vector."""
        s_e = self.seeder.vector(pers.seeds)
        if not pers.passage_seeds:
            return s_e, None
        s_p = np.zeros(self.graph.n_passages)
        for p in pers.passage_seeds:
            s_p[self._pos[p.passage_id]] = p.weight
        return s_e, s_p

    def _full_vector(self, pers: Personalization) -> np.ndarray:
        s_e, s_p = self._vectors(pers)
        return np.concatenate([np.zeros(self.graph.n_passages) if s_p is None else s_p, s_e])

    def _no_seed(self, seeding: Seeding) -> NoSeedError:
        if not seeding.query_entities:
            why = "found no name of its graph in the question"
        else:
            why = ("found the names " + ", ".join(f"“{k}”" for k in seeding.query_entities)
                   + " in the question, but none is in its graph")
        return NoSeedError(f"{self.name} {why}, so it has nowhere to start the walk and returns no hits. "
                           "Name a company, fund or person from the corpus, or use a retriever that reads "
                           "every word (bm25, dense, or a hybrid graph retriever)")

    # -------------------------------------------------------- ranking

    def run(self, query: str) -> tuple[Personalization, PPRResult]:
        pers = self.personalize(query)
        p = self.params
        return pers, personalized_pagerank(self.graph.W, self._full_vector(pers), p.alpha, p.iterations, p.tol)

    def _hits(self, scores: np.ndarray, k: int) -> tuple[Hit, ...]:
        ps = scores[: self.graph.n_passages]
        best = top_k(ps, k, ps > 0)  # a passage the walk never reached is not a hit
        return tuple(Hit(self.graph.passage_ids[i], float(ps[i]), r, self.name) for r, i in enumerate(best, start=1))

    def passage_scores(self, s_e: np.ndarray, s_p: np.ndarray | None, iterations: int) -> np.ndarray:
        """PPR passage scores for entity seeds (m,) or (m, b) and optional passage seeds (n,) or
        (n, b); bit-identical to those rows of `personalized_pagerank`, at half its cost."""
        to_p, to_e = self.graph.blocks
        return bipartite_passage_scores(to_p, to_e, s_e, self.params.alpha, iterations, s_p)

    def search(self, query: str, k: int) -> tuple[Hit, ...]:
        k = check_k(k)
        if self.params.tol is not None:  # an early stop needs every step's residual: the full path
            _, result = self.run(query)
            return self._hits(result.scores, k)
        s_e, s_p = self._vectors(self.personalize(query))
        return self._hits(self.passage_scores(s_e, s_p, self.params.iterations), k)

    def search_batch(self, queries: Sequence[str], k: int) -> list[tuple[Hit, ...] | NoSeedError]:
        """`search` for many queries with one batched PPR (a sparse matrix times a block of
        seed vectors); each query's hits are bit-identical to `search`'s. A query with no
        seed yields its NoSeedError in its place."""
        k = check_k(k)
        if self.params.tol is not None:  # early stops differ per column; keep the exact single path
            return [self._search_or_error(q, k) for q in queries]
        out: list[tuple[Hit, ...] | NoSeedError] = []
        seeded: list[tuple[int, tuple[np.ndarray, np.ndarray | None]]] = []
        for i, q in enumerate(queries):
            try:
                seeded.append((i, self._vectors(self.personalize(q))))
                out.append(())
            except NoSeedError as e:
                out.append(e)
        if seeded:
            S_e = np.column_stack([v[0] for _, v in seeded])
            S_p = None
            if self.passages is not None:
                S_p = np.column_stack([np.zeros(self.graph.n_passages) if v[1] is None else v[1] for _, v in seeded])
            P = self.passage_scores(S_e, S_p, self.params.iterations)
            for col, (i, _) in enumerate(seeded):
                out[i] = self._hits(P[:, col], k)
        return out

    def _search_or_error(self, query: str, k: int) -> tuple[Hit, ...] | NoSeedError:
        try:
            return self.search(query, k)
        except NoSeedError as e:
            return e

    # -------------------------------------------------------- explanation

    def explain(self, query: str, k: int, paths_per_hit: int = 3, gold: frozenset[str] = frozenset(),
                texts: dict[str, str] | None = None) -> GraphAnswer:
        k = check_k(k)
        pers, result = self.run(query)
        hits = self._hits(result.scores, k)
        g, n, m = self.graph, self.graph.n_passages, len(self.graph.entities)
        index = g.entity_index
        e_cols = [index[s.entity] for s in pers.seeds]
        p_rows = [self._pos[p.passage_id] for p in pers.passage_seeds]
        b = len(e_cols) + len(p_rows)
        # PPR is linear in s: the same iterations from each one-hot seed give p = Σ wᵢ·PPR(seedᵢ)
        S_e, S_p = np.zeros((m, b)), np.zeros((n, b))
        S_e[e_cols, range(len(e_cols))] = 1.0
        S_p[p_rows, range(len(e_cols), b)] = 1.0
        per_seed = self.passage_scores(S_e, S_p if p_rows else None, result.iterations)
        weights = np.array([s.weight for s in pers.seeds] + [p.weight for p in pers.passage_seeds])
        seed_ids = [f"e:{s.entity}" for s in pers.seeds] + [f"p:{p.passage_id}" for p in pers.passage_seeds]
        # to_p[i, b]: probability of stepping entity b → passage i; to_e[b, i]: passage i → entity b
        to_p, to_e = g.blocks
        to_e_csc = to_e.tocsc()
        seed_keys = {s.entity for s in pers.seeds}
        from_seed = [to_p[:, j].toarray().ravel() for j in e_cols]
        explanations, on_path_edges, bridges = [], set(), {}
        for hit in hits:
            i = self._pos[hit.passage_id]
            contrib = weights * per_seed[i]
            mentioned = to_p.indices[to_p.indptr[i]:to_p.indptr[i + 1]]
            into_hit = to_p.data[to_p.indptr[i]:to_p.indptr[i + 1]]
            into_by_entity = dict(zip(mentioned.tolist(), into_hit.tolist()))  # to_p[i, b], without scipy's per-item indexing
            paths = []
            for s, w_s, j, m1 in zip(pers.seeds, weights, e_cols, from_seed):
                if m1[i]:
                    paths.append(EvidencePath((s.label, hit.passage_id), (f"e:{s.entity}", f"p:{hit.passage_id}"),
                                              float(w_s * m1[i])))
                # seed → passage P1 → bridge entity b → this passage
                for bj, w_bi in zip(mentioned, into_hit):
                    if bj == j:
                        continue
                    p1s = to_e.indices[to_e.indptr[bj]:to_e.indptr[bj + 1]]
                    masses = w_s * m1[p1s] * to_e.data[to_e.indptr[bj]:to_e.indptr[bj + 1]] * w_bi
                    for v in _top_candidates(masses, (masses > 0) & (p1s != i), paths_per_hit):
                        p1 = p1s[v]
                        paths.append(EvidencePath(
                            (s.label, g.passage_ids[p1], g.display[bj], hit.passage_id),
                            (f"e:{s.entity}", f"p:{g.passage_ids[p1]}", f"e:{g.entities[bj]}", f"p:{hit.passage_id}"),
                            float(masses[v])))
            # passage seed P0 → entity b → this passage (the dense match leads to the hit through b)
            for ps, w_s, r0 in zip(pers.passage_seeds, weights[len(e_cols):], p_rows):
                if r0 == i:
                    continue
                out_b = to_e_csc.indices[to_e_csc.indptr[r0]:to_e_csc.indptr[r0 + 1]]
                out_w = to_e_csc.data[to_e_csc.indptr[r0]:to_e_csc.indptr[r0 + 1]]
                for bj, w_b in zip(out_b, out_w):
                    into = into_by_entity.get(int(bj), 0.0)
                    if into:
                        paths.append(EvidencePath(
                            (ps.passage_id, g.display[bj], hit.passage_id),
                            (f"p:{ps.passage_id}", f"e:{g.entities[bj]}", f"p:{hit.passage_id}"),
                            float(w_s * w_b * into)))
            paths.sort(key=lambda pth: (-pth.mass, pth.node_ids))
            top = tuple(paths[:paths_per_hit])
            for pth in top:
                on_path_edges.update(zip(pth.node_ids, pth.node_ids[1:]))
                for nid, label in zip(pth.node_ids, pth.nodes):
                    if nid.startswith("e:") and nid[2:] not in seed_keys:
                        bridges[nid] = label
            matched = tuple(g.display[j] for j in mentioned if g.entities[j] in seed_keys)
            explanations.append(HitExplanation(hit, tuple((sid, float(c)) for sid, c in zip(seed_ids, contrib)),
                                               top, matched))
        nodes, edges = self._subgraph(pers, hits, bridges, on_path_edges, result.scores, gold, texts or {})
        return GraphAnswer(self.name, query, hits, pers.seeds, pers.passage_seeds, pers.seeding.query_entities,
                           pers.seeding.unmatched, pers.seeding.ambiguous, tuple(explanations), result.residuals,
                           result.iterations, nodes, edges)

    def _subgraph(self, pers, hits, bridges, on_path, scores, gold, texts):
        g, n = self.graph, self.graph.n_passages
        index = g.entity_index
        nodes: dict[str, SubgraphNode] = {}
        for s in pers.seeds:
            nid = f"e:{s.entity}"
            nodes[nid] = SubgraphNode(nid, s.label, "seed" if s.source == "query" else "alias",
                                      float(scores[n + index[s.entity]]),
                                      f"{s.label} — {s.source} seed ({s.rule}), weight {s.weight:.3f}")
        hit_ids = {h.passage_id for h in hits}
        seeded = {p.passage_id: p for p in pers.passage_seeds}
        # passages on evidence paths (not only hits) are kept so each path is drawn whole
        passage_ids = [h.passage_id for h in hits] + sorted(
            {a[2:] for e in on_path for a in e if a.startswith("p:")} - hit_ids)
        for pid in passage_ids:
            nid = f"p:{pid}"
            text = texts.get(pid, "")
            kind = "hit" if pid in hit_ids else "passage-seed" if pid in seeded else "bridge-passage"
            extra = f" — dense seed, cosine {seeded[pid].cosine:.3f}" if pid in seeded else ""
            nodes[nid] = SubgraphNode(nid, pid, kind, float(scores[self._pos[pid]]), f"{pid}{extra}\n{text[:400]}",
                                      pid in gold)
        for nid, label in sorted(bridges.items()):
            if nid not in nodes:
                nodes[nid] = SubgraphNode(nid, label, "bridge", float(scores[n + index[nid[2:]]]),
                                          f"{label} — bridging entity")
        edges = []
        inc = g.incidence
        ents = {nid: index[nid[2:]] for nid in nodes if nid.startswith("e:")}
        for pid in passage_ids:
            i = self._pos[pid]
            row = set(inc.indices[inc.indptr[i]:inc.indptr[i + 1]].tolist())
            for nid, j in ents.items():
                if j in row:
                    pair = (nid, f"p:{pid}")
                    edges.append(SubgraphEdge(nid, f"p:{pid}", pair in on_path or pair[::-1] in on_path))
        return tuple(nodes.values()), tuple(edges)

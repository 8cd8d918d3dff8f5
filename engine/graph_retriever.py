"""Graph retrievers (ppr-regex, ppr-ner, bct-regex, bct-ner) and their explanations.

Seeding rule: the query's entities come from the graph's own extractor and filter. Each is
matched to a graph entity with the same key; failing that, to every graph entity whose
tokens contain it on token boundaries, and to the longest graph entities it contains. The seed vector is uniform
over the matched entities. With no match the retriever raises `NoSeedError` (no hits, and
why); it never falls back to another retriever.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from .aliases import alias_seed
from .errors import NoSeedError, PathLensError
from .graph import EntityGraph
from .ppr import PPRResult, bipartite_passage_scores, check_params, personalized_pagerank
from .retrievers import Hit, check_k, check_query, top_k


def _inside(small: tuple[str, ...], big: tuple[str, ...]) -> bool:
    return any(big[i:i + len(small)] == small for i in range(len(big) - len(small) + 1))


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
    bct_weight: float = 0.5  # β: an alias's weight relative to its seed's

    def __post_init__(self) -> None:
        check_params(self.alpha, self.iterations, self.tol)
        if not self.bct_weight >= 0:
            raise PathLensError(f"BCT weight β must be 0 or more, got {self.bct_weight}")


@dataclass(frozen=True)
class Seed:
    entity: str  # graph entity key
    label: str  # display form
    weight: float  # share of the personalization vector
    source: str  # "query" or "alias"
    via: str  # the query entity it matched, or the seed it is an alias of
    rule: str  # "exact", "containment", or the alias rule


@dataclass(frozen=True)
class EvidencePath:
    nodes: tuple[str, ...]  # alternating display labels: seed, passage[, bridge, passage]
    node_ids: tuple[str, ...]  # "e:<key>" / "p:<passage id>"
    mass: float  # seed weight × product of transition probabilities along the path

    def words(self) -> str:
        return " → ".join(self.nodes)


@dataclass(frozen=True)
class HitExplanation:
    hit: Hit
    seed_shares: tuple[tuple[str, float], ...]  # (seed key, share of this passage's score), sums to 1
    paths: tuple[EvidencePath, ...]
    matched_entities: tuple[str, ...]  # display forms of seed/alias entities in this passage


@dataclass(frozen=True)
class SubgraphNode:
    id: str
    label: str
    kind: str  # "seed", "alias", "hit", "bridge"
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
    query_entities: tuple[str, ...]
    unmatched: tuple[str, ...]
    explanations: tuple[HitExplanation, ...]
    residuals: tuple[float, ...]
    iterations: int
    nodes: tuple[SubgraphNode, ...]
    edges: tuple[SubgraphEdge, ...]


@dataclass(frozen=True)
class Seeding:
    seeds: tuple[Seed, ...]
    query_entities: tuple[str, ...]
    unmatched: tuple[str, ...]


class GraphRetriever:
    """PPR over an entity graph, seeded on the query's entities (and, for BCT, their aliases)."""

    def __init__(self, name: str, graph: EntityGraph, query_keys: Callable[[str], list[str]],
                 params: GraphParams = GraphParams(), aliases: dict[str, tuple[str, ...]] | None = None,
                 alias_rules: dict[tuple[str, str], str] | None = None):
        self.name = name
        self.graph = graph
        self.params = params
        self._query_keys = query_keys
        self._aliases = aliases  # None: plain PPR; a table: BCT over-seeding
        self._alias_rules = alias_rules or {}
        self._index = graph.entity_index

    # -------------------------------------------------------- seeding

    def _contained(self, key: str) -> list[int]:
        """Graph entities containing `key` on token boundaries, and the longest ones inside it.

        Candidates come from the token postings and the key's own n-grams, not from a scan of
        every entity, so seeding stays fast on graphs with tens of thousands of entities."""
        q = tuple(key.split())
        if not q:
            return []
        tokens, postings = self.graph.entity_tokens, self.graph.token_postings
        rarest = min((postings.get(tok, ()) for tok in q), key=len)
        containing = {j for j in rarest if _inside(q, tokens[j])}
        within = {j for size in range(1, len(q) + 1) for i in range(len(q) - size + 1)
                  for j in self.graph.by_tokens.get(q[i:i + size], ())} - containing
        # of the entities inside the query entity, only the longest: "Pension Fund Trustees" → "Pension Fund", not "Fund"
        maximal = {j for j in within if not any(i != j and _inside(tokens[j], tokens[i]) for i in within)}
        return sorted(containing | maximal)

    def seeding(self, query: str) -> Seeding:
        keys = self._query_keys(check_query(query))
        matched: dict[int, tuple[str, str]] = {}
        unmatched = []
        for key in keys:
            if key in self._index:
                matched.setdefault(self._index[key], (key, "exact"))
                continue
            found = self._contained(key)
            for j in found:
                matched.setdefault(j, (key, "containment"))
            if not found:
                unmatched.append(key)
        if not matched:
            return Seeding((), tuple(keys), tuple(unmatched))
        order = sorted(matched)
        base = {j: 1.0 / len(order) for j in order}
        if self._aliases is None:
            weights = base
        else:
            vec = alias_seed(base, self._aliases, self.graph.entities, self._index, self.params.bct_weight)
            weights = {j: float(vec[j]) for j in np.flatnonzero(vec)}
        seeds = []
        for j in sorted(weights):
            if j in matched:
                via, rule = matched[j]
                seeds.append(Seed(self.graph.entities[j], self.graph.display[j], weights[j], "query", via, rule))
            else:
                parent = next(self.graph.entities[s] for s in order
                              if self.graph.entities[j] in self._aliases.get(self.graph.entities[s], ()))
                rule = self._alias_rules.get((parent, self.graph.entities[j]), "alias")
                seeds.append(Seed(self.graph.entities[j], self.graph.display[j], weights[j], "alias", parent, rule))
        return Seeding(tuple(seeds), tuple(keys), tuple(unmatched))

    def _seed_vector(self, seeds: tuple[Seed, ...]) -> np.ndarray:
        s = np.zeros(self.graph.W.shape[0])
        for seed in seeds:
            s[self.graph.n_passages + self._index[seed.entity]] = seed.weight
        return s

    def _no_seed(self, seeding: Seeding) -> NoSeedError:
        if not seeding.query_entities:
            why = "found no entity in the query"
        else:
            why = "matched none of the query's entities (" + ", ".join(seeding.query_entities) + ") to the graph"
        hint = "" if self._aliases is not None else "; try a BCT retriever"
        return NoSeedError(f"{self.name} {why}, so it returns no hits{hint} or a lexical/dense retriever")

    # -------------------------------------------------------- ranking

    def _seeded(self, query: str) -> Seeding:
        seeding = self.seeding(query)
        if not seeding.seeds:
            raise self._no_seed(seeding)
        return seeding

    def run(self, query: str) -> tuple[Seeding, PPRResult]:
        seeding = self._seeded(query)
        p = self.params
        return seeding, personalized_pagerank(self.graph.W, self._seed_vector(seeding.seeds), p.alpha, p.iterations, p.tol)

    def _hits(self, scores: np.ndarray, k: int) -> tuple[Hit, ...]:
        ps = scores[: self.graph.n_passages]
        best = top_k(ps, k, ps > 0)  # a passage the walk never reached is not a hit
        return tuple(Hit(self.graph.passage_ids[i], float(ps[i]), r, self.name) for r, i in enumerate(best, start=1))

    def passage_scores(self, S: np.ndarray, iterations: int) -> np.ndarray:
        """PPR passage scores for full-length seed vectors (n+m,) or blocks (n+m, b) seeded on
        entities; bit-identical to those rows of `personalized_pagerank`, at half its cost."""
        to_p, to_e = self.graph.blocks
        return bipartite_passage_scores(to_p, to_e, S[self.graph.n_passages:], self.params.alpha, iterations)

    def search(self, query: str, k: int) -> tuple[Hit, ...]:
        k = check_k(k)
        if self.params.tol is not None:  # an early stop needs every step's residual: the full path
            _, result = self.run(query)
            return self._hits(result.scores, k)
        seeding = self._seeded(query)
        return self._hits(self.passage_scores(self._seed_vector(seeding.seeds), self.params.iterations), k)

    def search_batch(self, queries: Sequence[str], k: int) -> list[tuple[Hit, ...] | NoSeedError]:
        """`search` for many queries with one batched PPR (a sparse matrix times a block of
        seed vectors); each query's hits are bit-identical to `search`'s. A query with no
        seed yields its NoSeedError in its place."""
        k = check_k(k)
        if self.params.tol is not None:  # early stops differ per column; keep the exact single path
            return [self._search_or_error(q, k) for q in queries]
        seedings = [self.seeding(q) for q in queries]
        seeded = [i for i, s in enumerate(seedings) if s.seeds]
        out: list[tuple[Hit, ...] | NoSeedError] = [self._no_seed(s) for s in seedings]
        if seeded:
            S = np.column_stack([self._seed_vector(seedings[i].seeds) for i in seeded])
            P = self.passage_scores(S, self.params.iterations)
            for col, i in enumerate(seeded):
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
        seeding, result = self.run(query)
        hits = self._hits(result.scores, k)
        g, n = self.graph, self.graph.n_passages
        seed_nodes = [n + self._index[s.entity] for s in seeding.seeds]
        # PPR is linear in s: the same iterations from each one-hot seed give p = Σ wᵢ·PPR(eᵢ)
        onehots = np.zeros((g.W.shape[0], len(seed_nodes)))
        onehots[seed_nodes, range(len(seed_nodes))] = 1.0
        per_seed = self.passage_scores(onehots, result.iterations)
        weights = np.array([s.weight for s in seeding.seeds])
        pos = {pid: i for i, pid in enumerate(g.passage_ids)}
        # to_p[i, b]: probability of stepping entity b → passage i; to_e[b, i]: passage i → entity b
        to_p, to_e = g.blocks
        seed_keys = {s.entity for s in seeding.seeds}
        from_seed = [to_p[:, node - n].toarray().ravel() for node in seed_nodes]
        explanations, on_path_edges, bridges = [], set(), {}
        for hit in hits:
            i = pos[hit.passage_id]
            contrib = weights * per_seed[i]
            total = contrib.sum()
            shares = tuple((s.entity, float(c / total)) for s, c in zip(seeding.seeds, contrib))
            mentioned = to_p.indices[to_p.indptr[i]:to_p.indptr[i + 1]]
            into_hit = to_p.data[to_p.indptr[i]:to_p.indptr[i + 1]]
            paths = []
            for s, w_s, node, m1 in zip(seeding.seeds, weights, seed_nodes, from_seed):
                if m1[i]:
                    paths.append(EvidencePath((s.label, hit.passage_id), (f"e:{s.entity}", f"p:{hit.passage_id}"),
                                              float(w_s * m1[i])))
                # seed → passage P1 → bridge entity b → this passage
                for b, w_bi in zip(mentioned, into_hit):
                    if n + b == node:
                        continue
                    p1s = to_e.indices[to_e.indptr[b]:to_e.indptr[b + 1]]
                    masses = w_s * m1[p1s] * to_e.data[to_e.indptr[b]:to_e.indptr[b + 1]] * w_bi
                    for v in _top_candidates(masses, (masses > 0) & (p1s != i), paths_per_hit):
                        p1 = p1s[v]
                        paths.append(EvidencePath(
                            (s.label, g.passage_ids[p1], g.display[b], hit.passage_id),
                            (f"e:{s.entity}", f"p:{g.passage_ids[p1]}", f"e:{g.entities[b]}", f"p:{hit.passage_id}"),
                            float(masses[v])))
            paths.sort(key=lambda pth: (-pth.mass, pth.node_ids))
            top = tuple(paths[:paths_per_hit])
            for pth in top:
                on_path_edges.update(zip(pth.node_ids, pth.node_ids[1:]))
                for nid, label in zip(pth.node_ids, pth.nodes):
                    if nid.startswith("e:") and nid[2:] not in seed_keys:
                        bridges[nid] = label
            matched = tuple(g.display[j] for j in mentioned if g.entities[j] in seed_keys)
            explanations.append(HitExplanation(hit, shares, top, matched))
        nodes, edges = self._subgraph(seeding, hits, bridges, on_path_edges, result.scores, gold, texts or {})
        return GraphAnswer(self.name, query, hits, seeding.seeds, seeding.query_entities, seeding.unmatched,
                           tuple(explanations), result.residuals, result.iterations, nodes, edges)

    def _subgraph(self, seeding, hits, bridges, on_path, scores, gold, texts):
        g, n = self.graph, self.graph.n_passages
        nodes: dict[str, SubgraphNode] = {}
        for s in seeding.seeds:
            nid = f"e:{s.entity}"
            nodes[nid] = SubgraphNode(nid, s.label, "seed" if s.source == "query" else "alias",
                                      float(scores[n + self._index[s.entity]]),
                                      f"{s.label} — {s.source} seed, weight {s.weight:.3f}")
        # passages on evidence paths (not only hits) are kept so each path is drawn whole
        passage_ids = [h.passage_id for h in hits] + sorted(
            {a[2:] for e in on_path for a in e if a.startswith("p:")} - {h.passage_id for h in hits})
        pos = {pid: i for i, pid in enumerate(g.passage_ids)}
        hit_ids = {h.passage_id for h in hits}
        for pid in passage_ids:
            nid = f"p:{pid}"
            text = texts.get(pid, "")
            nodes[nid] = SubgraphNode(nid, pid, "hit" if pid in hit_ids else "bridge-passage",
                                      float(scores[pos[pid]]), f"{pid}\n{text[:400]}", pid in gold)
        for nid, label in sorted(bridges.items()):
            if nid not in nodes:
                nodes[nid] = SubgraphNode(nid, label, "bridge", float(scores[n + self._index[nid[2:]]]),
                                          f"{label} — bridging entity")
        edges = []
        inc = g.incidence.tocsr()
        ents = {nid: self._index[nid[2:]] for nid in nodes if nid.startswith("e:")}
        for pid in passage_ids:
            i = pos[pid]
            row = set(inc.indices[inc.indptr[i]:inc.indptr[i + 1]].tolist())
            for nid, j in ents.items():
                if j in row:
                    pair = (nid, f"p:{pid}")
                    edges.append(SubgraphEdge(nid, f"p:{pid}", pair in on_path or pair[::-1] in on_path))
        return tuple(nodes.values()), tuple(edges)

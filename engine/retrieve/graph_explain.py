"""Why a graph retriever ranked each passage: per-seed shares, evidence paths, the subgraph they span.

PPR is linear in its seed vector, so every hit's score is exactly Σᵢ sᵢ·PPR(seedᵢ)[hit]: the same
iterations run from each one-hot seed give each seed's contribution, entity and passage seeds alike
(tested to 1e-12 against the score). Evidence paths are the heaviest one- and two-hop routes from a
seed to a hit, read off the graph's CSR blocks (checked against a brute-force enumeration). The
subgraph is structure only, nodes by role with their PPR mass and edges marked when on a path; its
labels, hover text, gold marks and colours are the renderer's (engine.explain.render).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Sequence

import numpy as np

from .retrievers import Hit, check_k, without_markup
from .filing_seeding import STRUCTURE_RULES
from .seeding import HybridParams, PassageSeed, Seed
from ..text import normalize_name, tokenize


def _top_candidates(masses: np.ndarray, valid: np.ndarray, keep: int, passages: np.ndarray,
                    rank: np.ndarray) -> np.ndarray:
    """Indices of the `keep` heaviest valid masses, ties broken by the rank of their passage's id
    (`rank[passages[i]]`, as evidence paths break them), so a hub entity's thousands of equally
    heavy passages never become path objects: those that lose the tie-break could never be shown."""
    idx = np.flatnonzero(valid)
    if keep < 1:
        return idx[:0]
    if idx.size > keep:
        kth = np.partition(masses[idx], idx.size - keep)[idx.size - keep]
        idx = idx[masses[idx] >= kth]
        if idx.size > keep:
            idx = idx[np.lexsort((rank[passages[idx]], -masses[idx]))[:keep]]
    return idx


def _shared_passages(to_e, b: int, support: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The passages leading to entity b (to_e's row b, ascending) and their step weights, cut to the seed's own
    passages `support` (ascending) when those are fewer: a path through a passage the seed does not reach weighs
    nothing, and a hub entity has hundreds of thousands of passages against a seed's few."""
    lo, hi = to_e.indptr[b], to_e.indptr[b + 1]
    p1s, steps = to_e.indices[lo:hi], to_e.data[lo:hi]
    if support.size >= p1s.size or not to_e.has_sorted_indices:  # searchsorted needs each row ascending
        return p1s, steps
    where = np.searchsorted(p1s, support)
    inside = where < p1s.size
    where = where[inside][p1s[where[inside]] == support[inside]]
    return p1s[where], steps[where]


@dataclass(frozen=True)
class EvidencePath:
    nodes: tuple[str, ...]  # display labels along the path: seed, passage[, bridge, passage]
    node_ids: tuple[str, ...]  # "e:<key>" / "p:<passage id>"
    mass: float  # seed weight × product of transition probabilities along the path
    # the share of the hit's score that walks along exactly this route carry: p = Σₜ α(1−α)ᵗ·Wᵗs (ppr.py), so a
    # route of L steps adds α(1−α)ᴸ·mass to the score, and the shares of all routes (every walk, loops
    # included) sum to 1 (tested against brute-force enumeration)
    share: float = 0.0
    # each step's edge type, one fewer than nodes: "mentions" (the passage names the entity) or "about" (its own
    # title names it: entity_graph.subject_edges); empty for a route that is not the entity graph's
    edges: tuple[str, ...] = ()

    def words(self) -> str:
        return " → ".join(self.nodes)


@dataclass(frozen=True)
class HitExplanation:
    hit: Hit
    contributions: tuple[tuple[str, float], ...]  # (seed node id, sᵢ·PPR(seedᵢ)[hit]); sums to the score
    paths: tuple[EvidencePath, ...]
    matched_entities: tuple[str, ...]  # display forms of seed/alias entities in this passage
    seed_names: tuple[str, ...] = ()  # each contribution's seed as a reader names it, in the same order
    # the filings retriever's chain company → filing → statement/note → line item → page (not a graph path:
    # each hop is a structure node the page stands in or holds)
    typed_path: EvidencePath | None = None
    # each contribution's seed, when it is a second-hop bridge: the first walk's rank of the passage naming it; else 0
    seed_hops: tuple[int, ...] = ()
    # each contribution's route, listed in `paths` or not: the seed itself when the hit holds it, else its heaviest
    # route within two hops (None: a passage seed, or a seed reaching the hit only by longer walks); what a sentence
    # names a seed's share by
    seed_routes: tuple[EvidencePath | None, ...] = ()
    # each contribution's seed, when the question names it only by a word it writes in lower case ("the fund",
    # matched to the data room's defined term "Fund"): that word; else "". A sentence says it as a word, not a name
    seed_words: tuple[str, ...] = ()

    @property
    def passage_id(self) -> str:
        return self.hit.passage_id

    @property
    def score(self) -> float:
        return self.hit.score

    def words(self) -> str:
        """In one line, as the other retrievers' explanations: its rank in the whole walk, the seeds
        it owes most to, and its heaviest evidence path."""
        top = sorted(zip(self.seed_names, self.seed_shares), key=lambda x: -x[1][1])[:3]
        seeds = (f"rank {self.hit.rank} in the walk; its seeds: "
                 + ", ".join(f"{name} {share:.0%}" for name, (_, share) in top if share >= 0.005))
        if self.typed_path is not None:
            return seeds + "; where its page sits: " + " › ".join(self.typed_path.nodes)
        return seeds + (f"; path {self.paths[0].words()}" if self.paths else "; no evidence path within two hops")

    @property
    def seed_shares(self) -> tuple[tuple[str, float], ...]:
        """Each seed's share of the score (contributions over their sum)."""
        total = sum(c for _, c in self.contributions)
        return tuple((nid, c / total if total else 0.0) for nid, c in self.contributions)


@dataclass(frozen=True)
class SubgraphNode:
    id: str
    label: str
    kind: str  # "seed", "read-seed", "word-seed", "alias", "hop-seed", "passage-seed", "hit", "bridge-passage", "bridge"
    mass: float  # its PPR mass in the walk


@dataclass(frozen=True)
class SubgraphEdge:
    source: str
    target: str
    on_path: bool
    about: bool = False  # an about-edge: the passage's own title names the entity (entity_graph.subject_edges)


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
    extra: object = None  # what a retriever adds to its walk (the filings retriever: its scope), with `read_words()`
    pushed: bool = False  # walked by push (engine.graph.push), not exactly
    bound: float = 0.0  # by push, every hit's exact score is within [score, score + bound]
    hop_left_off: str = ""  # a second hop asked for and left off: how the question compares two names
    proven: bool = True  # by push, whether the bounds prove the order of the walk's top PROVEN_TOP passages
    first_hits: tuple[str, ...] = ()  # with a second hop: the first walk's top k, what the hop changed is told against
    passage_params: HybridParams | None = None  # how the passage seeds were chosen (their count, λ), to say so

    def uncovered_words(self) -> tuple[str, ...]:
        """Words of the question that no entity seed covers: they steer the walk only through its
        passage seeds, if it has any. Single letters (the "s" of a possessive) are not words here, nor is markup
        (the question's tags and scripts are dropped before it is searched)."""
        covered = {t for s in self.seeds for t in normalize_name(f"{s.entity} {s.via}").split()}
        covered |= self.extra.read_words() if self.extra is not None else frozenset()  # a filing scope's words
        return tuple(w for w in dict.fromkeys(tokenize(without_markup(self.query))) if len(w) > 1 and normalize_name(w) not in covered)


def route_share(path: EvidencePath, alpha: float, score: float) -> float:
    """What walks along exactly `path` add to its end's score, as a share of `score`: α(1−α)ᴸ·mass for a route
    of L steps (the iteration's first 20 terms are exact; a route is at most 3 steps)."""
    steps = len(path.node_ids) - 1
    return alpha * (1 - alpha) ** steps * path.mass / score if score > 0 else 0.0


def explain_walk(retriever, query: str, k: int, paths_per_hit: int = 3) -> GraphAnswer:
    """Seeds, each of the top k hits' per-seed contributions and evidence paths, and the subgraph
    they span, for a `graph_retriever.GraphRetriever` (not imported: that module imports this one).
    Raises NoSeedError as its `search` does."""
    k = check_k(k)
    pers, result = retriever.run(query)
    return explain_walk_hits(retriever, query, pers, result, retriever.walk_hits(result, k, pers.scope), k,
                             paths_per_hit)


def explain_walk_hits(retriever, query: str, pers, result, hits: Sequence[Hit], k: int,
                      paths_per_hit: int = 3) -> GraphAnswer:
    """`explain_walk` for hits chosen from the walk some other way (a learned ranker's order of its pages): each
    hit's score is its walk score, so its seeds' contributions still sum to it."""
    hits = tuple(hits)
    explanations, bridges, on_path_edges = _explain(retriever, pers, result, hits, paths_per_hit)
    nodes, edges = _subgraph(retriever.graph, pers, hits, bridges, on_path_edges, result)
    g = retriever.graph
    rows = np.array([g.passage_index[h.passage_id] for h in hits], dtype=np.int64)
    bound = float(result.errors(g.local_walk.degrees[rows]).max(initial=0.0)) if result.pushed else 0.0
    return GraphAnswer(retriever.name, query, hits, pers.seeds, pers.passage_seeds, pers.seeding.query_entities,
                       pers.seeding.unmatched, pers.seeding.ambiguous, explanations, result.residuals,
                       result.iterations, nodes, edges, pushed=result.pushed, bound=bound, proven=result.proven,
                       hop_left_off=pers.hop_left_off, first_hits=tuple(
                           h.passage_id for h in retriever.walk_hits(pers.first_walk, k, pers.scope)) if pers.first_walk else (),
                       passage_params=retriever.passage_seeder.params if retriever.passage_seeder else None)


def explain_passages(retriever, query: str, passage_ids, paths_per_hit: int = 3) -> dict[str, "HitExplanation"]:
    """The same explanation for any passages, ranked or not (each with its rank in the whole walk);
    a passage the walk never reaches has nothing to explain and is left out."""
    pers, result = retriever.run(query)
    reached = {h.passage_id: h for h in retriever.walk_hits(result, retriever.graph.n_passages, pers.scope)}
    hits = [reached[p] for p in dict.fromkeys(passage_ids) if p in reached]
    explanations, _, _ = _explain(retriever, pers, result, hits, paths_per_hit)
    return {e.hit.passage_id: e for e in explanations}


def edge_types(g, node_ids: Sequence[str]) -> tuple[str, ...]:
    """Each step's edge type along a route of "e:<key>" / "p:<id>" nodes: "about" where the passage's own title
    names the entity, else "mentions"."""
    out = []
    for a, b in zip(node_ids, node_ids[1:]):
        (p, e) = (a, b) if a.startswith("p:") else (b, a)
        out.append("about" if g.is_subject(g.passage_index[p[2:]], g.entity_index[e[2:]]) else "mentions")
    return tuple(out)


def _explain(retriever, pers, result, hits, paths_per_hit):
    """Per-seed contributions and the heaviest evidence paths of each hit; also the bridge entities
    and edges on those paths (what the subgraph draws)."""
    g = retriever.graph
    alpha = retriever.params.alpha
    index = g.entity_index
    e_cols = [index[s.entity] for s in pers.seeds]
    p_rows = [g.passage_index[p.passage_id] for p in pers.passage_seeds]
    parts = retriever.seed_parts(pers, result, [g.passage_index[h.passage_id] for h in hits])
    weights = np.array([s.weight for s in pers.seeds] + [p.weight for p in pers.passage_seeds])
    seed_ids = [f"e:{s.entity}" for s in pers.seeds] + [f"p:{p.passage_id}" for p in pers.passage_seeds]
    seed_names = tuple([s.label for s in pers.seeds] + [f"dense similarity ({p.passage_id})" for p in pers.passage_seeds])
    seed_hops = tuple([s.named_at for s in pers.seeds] + [0] * len(pers.passage_seeds))
    seed_words = tuple([s.word for s in pers.seeds] + [""] * len(pers.passage_seeds))
    # to_p[i, b]: probability of stepping entity b → passage i; to_e[b, i]: passage i → entity b
    to_p, to_e = g.blocks
    to_e_csc = g.to_entities_csc
    seed_keys = {s.entity for s in pers.seeds}
    from_seed = [g.entity_column(j) for j in e_cols]
    seed_passages = [np.flatnonzero(m1) for m1 in from_seed]
    explanations, on_path_edges, bridges = [], set(), {}
    for hit, contrib in zip(hits, parts):
        i = g.passage_index[hit.passage_id]
        mentioned = to_p.indices[to_p.indptr[i]:to_p.indptr[i + 1]]
        into_hit = to_p.data[to_p.indptr[i]:to_p.indptr[i + 1]]
        into_by_entity = dict(zip(mentioned.tolist(), into_hit.tolist()))  # to_p[i, b], without scipy's per-item indexing
        paths, heaviest = [], []
        for s, w_s, j, m1, support in zip(pers.seeds, weights, e_cols, from_seed, seed_passages):
            before = len(paths)
            if m1[i]:
                paths.append(EvidencePath((s.label, hit.passage_id), (f"e:{s.entity}", f"p:{hit.passage_id}"),
                                          float(w_s * m1[i])))
            # seed → passage P1 → bridge entity b → this passage
            for bj, w_bi in zip(mentioned, into_hit):
                if bj == j:
                    continue
                p1s, steps = _shared_passages(to_e, bj, support)
                masses = w_s * m1[p1s] * steps * w_bi
                for v in _top_candidates(masses, (masses > 0) & (p1s != i), paths_per_hit, p1s, g.passage_rank):
                    p1 = p1s[v]
                    paths.append(EvidencePath(
                        (s.label, g.passage_ids[p1], g.display[bj], hit.passage_id),
                        (f"e:{s.entity}", f"p:{g.passage_ids[p1]}", f"e:{g.entities[bj]}", f"p:{hit.passage_id}"),
                        float(masses[v])))
            mine = paths[before:]  # the hit holding the seed is said so first; else the seed's heaviest route
            heaviest.append(min(mine, key=lambda pth: (len(pth.node_ids) > 2, -pth.mass, pth.node_ids))
                            if mine else None)
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

        def told(pth: EvidencePath) -> EvidencePath:
            return replace(pth, share=route_share(pth, alpha, hit.score), edges=edge_types(g, pth.node_ids))

        top = tuple(told(pth) for pth in paths[:paths_per_hit])
        routes = tuple(None if pth is None else told(pth) for pth in heaviest) + (None,) * len(pers.passage_seeds)
        for pth in top:
            on_path_edges.update(zip(pth.node_ids, pth.node_ids[1:]))
            for nid, label in zip(pth.node_ids, pth.nodes):
                if nid.startswith("e:") and nid[2:] not in seed_keys:
                    bridges[nid] = label
        matched = tuple(g.display[j] for j in mentioned if g.entities[j] in seed_keys)
        explanations.append(HitExplanation(hit, tuple((sid, float(c)) for sid, c in zip(seed_ids, contrib)),
                                           top, matched, seed_names, seed_hops=seed_hops, seed_routes=routes,
                                           seed_words=seed_words))
    return tuple(explanations), bridges, on_path_edges


def _subgraph(g, pers, hits, bridges, on_path, walk) -> tuple[tuple[SubgraphNode, ...], tuple[SubgraphEdge, ...]]:
    """The seeds, hits, bridge entities and path passages, with the graph's edges among them."""
    n = g.n_passages

    def score(node: int) -> float:
        return float(walk.at([node])[0])

    index = g.entity_index
    nodes: dict[str, SubgraphNode] = {}
    for s in pers.seeds:
        nid = f"e:{s.entity}"
        kind = {"query": "seed", "bridge": "hop-seed"}.get(s.source, "alias")  # a second hop's start is no alias
        kind = "read-seed" if kind == "seed" and s.rule in STRUCTURE_RULES else kind  # its filing, not a name it wrote
        kind = "word-seed" if kind == "seed" and s.word else kind  # a word of the question, no name it wrote
        nodes[nid] = SubgraphNode(nid, s.label, kind, score(n + index[s.entity]))
    hit_ids = {h.passage_id for h in hits}
    seeded = {p.passage_id: p for p in pers.passage_seeds}
    # passages on evidence paths (not only hits) are kept so each path is drawn whole
    passage_ids = [h.passage_id for h in hits] + sorted(
        {a[2:] for e in on_path for a in e if a.startswith("p:")} - hit_ids)
    for pid in passage_ids:
        nid = f"p:{pid}"
        kind = "hit" if pid in hit_ids else "passage-seed" if pid in seeded else "bridge-passage"
        nodes[nid] = SubgraphNode(nid, pid, kind, score(g.passage_index[pid]))
    for nid, label in sorted(bridges.items()):
        if nid not in nodes:
            nodes[nid] = SubgraphNode(nid, label, "bridge", score(n + index[nid[2:]]))
    edges = []
    inc = g.incidence
    ents = {nid: index[nid[2:]] for nid in nodes if nid.startswith("e:")}
    for pid in passage_ids:
        i = g.passage_index[pid]
        row = set(inc.indices[inc.indptr[i]:inc.indptr[i + 1]].tolist())
        for nid, j in ents.items():
            if j in row:
                pair = (nid, f"p:{pid}")
                edges.append(SubgraphEdge(nid, f"p:{pid}", pair in on_path or pair[::-1] in on_path,
                                          g.is_subject(i, j)))
    return tuple(nodes.values()), tuple(edges)


__all__ = ["EvidencePath", "GraphAnswer", "HitExplanation", "SubgraphEdge", "SubgraphNode", "explain_passages", "explain_walk_hits",
           "explain_walk", "route_share"]

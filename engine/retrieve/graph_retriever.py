"""Graph retrievers: Personalized PageRank over the entity–passage graph.

`ppr-*` seed the question's entities (`seeding.EntitySeeder`), `bct-*` add their aliases, and
`hybrid-*` also seed passages by dense similarity to the question (HippoRAG 2's idea, without
its LLM): the top passages by cosine c get s_p ∝ exp((c − c_max)/τ), and the personalization
vector is (w·s_p, (1−w)·s_e), or all passage seeds when the question has no entity seed.

Seeding lives in engine.retrieve.seeding (entity seeds, aliases, the hybrid's passage seeds) and the
explanation of a walk in engine.retrieve.graph_explain; this module puts the seeds into one
personalization vector and ranks.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Sequence

import numpy as np

from ..errors import NoSeedError, PathLensError
from ..graph.entity_graph import PASSAGE_SIDE, EntityGraph
from ..graph.ppr import bipartite_passage_scores, check_params, personalized_pagerank
from ..graph.push import LOCAL_EPS, LOCAL_EPS_FLOOR, LOCAL_FROM_EDGES, PROVEN_TOP, PushResult, proven_order, values_at
from .graph_explain import GraphAnswer, HitExplanation, explain_passages, explain_walk
from .retrievers import Answer, Answers, Hit, check_k, check_query, top_k
from .second_hop import bridges, comparison, scaled
from .seeding import PassageSeed, PassageSeeder, Seed, Seeder, Seeding, SeedingParams


@dataclass(frozen=True)
class GraphParams:
    alpha: float = 0.15
    iterations: int = 20
    tol: float | None = None
    beta: float = 0.5  # β: an alias's weight relative to its seed's
    vocabulary: bool = True  # seed graph entities named anywhere in the question
    specificity: bool = True  # weigh entity seeds by 1 / passages they occur in
    # how the walk runs: "exact", "push", or "auto": push from push.LOCAL_FROM_EDGES non-zeros of W, without tol;
    # `walk` in JSON (engine.explain.jsonout)
    walk_mode: str = "auto"
    eps: float = LOCAL_EPS  # push's first threshold (engine.graph.push)
    eps_floor: float = LOCAL_EPS_FLOOR  # … divided by 10 down to this while the top 10's order is not proven
    hop_share: float = 0.0  # γ: the restart mass of a second walk from the first walk's bridges (second_hop); 0: none
    subject_weight: float = 1.0  # t: an about-edge's weight against a mention's 1 (entity_graph.subject_edges); 1: none

    def __post_init__(self) -> None:
        check_params(self.alpha, self.iterations, self.tol)
        if not self.beta >= 0:
            raise PathLensError(f"BCT weight β must be 0 or more, got {self.beta}")
        if self.walk_mode not in ("auto", "exact", "push"):
            raise PathLensError(f"walk_mode must be auto, exact or push, got {self.walk_mode!r}")
        if self.walk_mode == "push" and self.tol is not None:
            raise PathLensError("a walk by push runs its levels to the end: it takes no tolerance")
        if not self.eps >= 0:
            raise PathLensError(f"push threshold ε must be 0 or more, got {self.eps}")
        if not self.eps_floor >= 0:
            raise PathLensError(f"push's finest threshold eps_floor must be 0 or more, got {self.eps_floor}")
        if not 0 <= self.hop_share < 1:
            raise PathLensError(f"second-hop share γ must be at least 0 and below 1, got {self.hop_share}")
        if not self.subject_weight > 0:
            raise PathLensError(f"about-edge weight must be above 0, got {self.subject_weight}")

    @property
    def seeding(self) -> SeedingParams:
        return SeedingParams(self.vocabulary, self.specificity, self.beta)


def scored(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The nodes of a score vector with a score above 0, ascending, and their scores."""
    nodes = np.flatnonzero(scores > 0)
    return nodes, scores[nodes]


@dataclass(frozen=True, eq=False)
class Walk:
    """One question's walk: the nodes it scored and their scores, what each step changed, and how exact it is.
    Scores are kept for the scored nodes only: a walk by push reaches a few of a million."""

    nodes: np.ndarray  # every node whose score is above 0, ascending (passages first, as in the graph)
    values: np.ndarray  # their scores
    residuals: tuple[float, ...]  # the exact walk: each iteration's L1 change; by push: what each level added
    iterations: int
    bound: float = 0.0  # 0 for the exact walk; by push, every score is exact within [score, score + bound]
    seed_pushes: tuple[PushResult, ...] = ()  # by push: one a seed, in the personalization's order
    spread: float = 0.0  # by push, passage x's score is also within spread·(x's degree) of its exact score
    eps: float = 0.0  # by push, the threshold its pushes ran at
    proven: bool = True  # whether the bounds prove the order of its top PROVEN_TOP passages (the exact walk: true)

    def errors(self, degrees: np.ndarray) -> np.ndarray:
        """The most each score of nodes of these degrees (`LocalWalk.degrees`: their links' weights summed) can be
        below its exact value."""
        return np.minimum(self.bound, self.spread * degrees)

    @property
    def pushed(self) -> bool:
        return bool(self.seed_pushes)

    def at(self, nodes) -> np.ndarray:
        """The scores of `nodes` (0 where the walk gave none)."""
        return values_at(self.nodes, self.values, nodes)

    def scored_passages(self, n_passages: int) -> tuple[np.ndarray, np.ndarray]:
        """The rows of the scored passages (the graph's first `n_passages` nodes), ascending, and their scores."""
        m = int(np.searchsorted(self.nodes, n_passages))
        return self.nodes[:m], self.values[:m]


@dataclass(frozen=True)
class Personalization:
    """Where the walk restarts: entity seeds and passage seeds, weights summing to 1."""

    seeding: Seeding  # entity seeds, weights already scaled by their share (1 − w)
    passage_seeds: tuple[PassageSeed, ...]
    hop_left_off: str = ""  # γ > 0 but no second hop: how the question compares two names (second_hop.comparison)
    # with a second hop: the first walk, from which the bridges were read (what the hop changed is told against it)
    first_walk: Walk | None = field(default=None, compare=False, repr=False)
    # what bounds the hits besides the walk (the filings retriever: the question's scope), read with the seeds and
    # carried with them, so no retriever keeps the last question it was asked
    scope: object = None

    @property
    def seeds(self) -> tuple[Seed, ...]:
        return self.seeding.seeds


class GraphRetriever(Answers):
    """PPR over an entity graph, seeded on the question's entities (for BCT with their aliases,
    for the hybrid with dense passage seeds too)."""

    def __init__(self, name: str, seeder: Seeder, params: GraphParams = GraphParams(),
                 passage_seeder: PassageSeeder | None = None):
        self.name = name
        self.seeder = seeder
        self.graph: EntityGraph = seeder.graph
        self.params = params
        self.passage_seeder = passage_seeder  # the hybrid's dense passage seeds; None: entity seeds only

    # -------------------------------------------------------- seeding

    def seeding(self, query: str) -> Seeding:
        return self.seeder.seeding(query)

    def personalize(self, query: str) -> Personalization:
        """The seeds of one question, with the bridges of a first walk from them when γ > 0; raises NoSeedError
        when there is nothing to start from."""
        seeding = self.seeder.seeding(check_query(query))
        if self.passage_seeder is None:
            if not seeding.seeds:
                raise self._no_seed(seeding)
            first = Personalization(seeding, ())
        else:
            first = self._mixed(seeding, self.passage_seeder.seeds(query))
        if self.params.hop_share == 0:
            return first
        if compares := comparison(query):  # the names it compares answer it: bridges would only crowd them out
            return replace(first, hop_left_off=compares)
        return self._second_hop(first)

    def _second_hop(self, first: Personalization) -> Personalization:
        """The first walk's seeds at 1 − γ and its bridges at γ (engine.retrieve.second_hop): one walk from both
        is the two hops' mix, and each bridge is a seed whose share of a score is exact."""
        g, gamma = self.graph, self.params.hop_share
        walk = self.walk(first)
        found = bridges(g, *walk.scored_passages(g.n_passages), lambda cols: walk.at(g.n_passages + cols),
                        {s.entity for s in first.seeds})
        if not found:
            return first
        return Personalization(replace(first.seeding, seeds=scaled(first.seeds, 1 - gamma) + scaled(found, gamma)),
                               tuple(replace(p, weight=p.weight * (1 - gamma)) for p in first.passage_seeds),
                               first_walk=walk)

    def _mixed(self, seeding: Seeding, passage_seeds: Sequence[PassageSeed]) -> Personalization:
        """Entity and passage seeds in one vector: passage seeds take share w, or all of it when the
        question has no entity seed, none when it has no passage seed."""
        if not passage_seeds and not seeding.seeds:
            raise self._no_seed(seeding)
        w = self.passage_seeder.params.passage_weight if seeding.seeds else 1.0
        if not passage_seeds:
            w = 0.0
        entity_seeds = tuple(replace(s, weight=s.weight * (1 - w)) for s in seeding.seeds if 1 - w > 0)
        return Personalization(replace(seeding, seeds=entity_seeds),
                               tuple(replace(p, weight=p.weight * w) for p in passage_seeds))

    def seed_vectors(self, pers: Personalization) -> tuple[np.ndarray, np.ndarray | None]:
        """(entity part, passage part or None) of the personalization vector."""
        s_e = self.seeder.vector(pers.seeds)
        if not pers.passage_seeds:
            return s_e, None
        s_p = np.zeros(self.graph.n_passages)
        for p in pers.passage_seeds:
            s_p[self.graph.passage_index[p.passage_id]] = p.weight
        return s_e, s_p

    def _full_vector(self, pers: Personalization) -> np.ndarray:
        s_e, s_p = self.seed_vectors(pers)
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

    @property
    def pushes(self) -> bool:
        """Whether this retriever walks by push: on big graphs, where the exact walk's cost is the graph's."""
        p = self.params
        return p.walk_mode == "push" or (p.walk_mode == "auto" and p.tol is None
                                         and self.graph.W.nnz >= LOCAL_FROM_EDGES)

    def run(self, query: str) -> tuple[Personalization, Walk]:
        pers = self.personalize(query)
        return pers, self.walk(pers)

    def walk(self, pers: Personalization) -> Walk:
        """The walk from these seeds: by push on big graphs (`pushes`), else exactly."""
        p = self.params
        if self.pushes:
            return self._push(pers)
        result = personalized_pagerank(self.graph.walk_matrix, self._full_vector(pers), p.alpha, p.iterations, p.tol)
        return Walk(*scored(result.scores), result.residuals, result.iterations)

    def _push(self, pers: Personalization) -> Walk:
        """One push a seed, whose sum is every score (PPR is linear in the seeds), so each seed's share of a
        score is exactly its push's estimate there. While the bounds do not prove the order of the top PROVEN_TOP
        passages, the seeds are pushed again at a tenth of the threshold, down to `eps_floor`."""
        g, p = self.graph, self.params
        nodes = [g.n_passages + g.entity_index[s.entity] for s in pers.seeds]
        nodes += [g.passage_index[ps.passage_id] for ps in pers.passage_seeds]
        masses = [s.weight for s in pers.seeds] + [ps.weight for ps in pers.passage_seeds]
        eps = p.eps
        while True:
            walk = self._pushed(nodes, masses, eps)
            if walk.proven or eps <= p.eps_floor:
                return walk
            eps = max(eps / 10, p.eps_floor)

    def _pushed(self, nodes: list[int], masses: list[float], eps: float) -> Walk:
        g, p = self.graph, self.params
        local = g.local_walk
        pushes = local.push_each(nodes, masses, p.alpha, p.iterations, eps)
        levels = np.zeros(p.iterations)
        for pushed in pushes:
            levels[:len(pushed.level_mass)] += pushed.level_mass
        bound = float(sum(pushed.bound for pushed in pushes))
        spread = float(sum(pushed.spread[PASSAGE_SIDE] for pushed in pushes))
        walk = Walk(*local.add_up(pushes), tuple((p.alpha * levels).tolist()), p.iterations, bound, pushes, spread,
                    eps)
        rows, ps = walk.scored_passages(g.n_passages)
        proven = proven_order(ps, top_k(ps, PROVEN_TOP), local.degrees[:g.n_passages], bound, spread, nodes=rows,
                              max_degree=g.max_passage_degree)
        return replace(walk, proven=proven)

    def seed_parts(self, pers: Personalization, walk: Walk, rows: Sequence[int]) -> np.ndarray:
        """(len(rows), seeds): each seed's part of the score of passages `rows`, summing to their scores."""
        rows = np.asarray(rows, dtype=np.int64)
        if walk.pushed:
            return np.column_stack([pushed.at(rows) for pushed in walk.seed_pushes]).reshape(rows.size, -1)
        g = self.graph
        n, m = g.n_passages, len(g.entities)
        e_cols = [g.entity_index[s.entity] for s in pers.seeds]
        p_rows = [g.passage_index[ps.passage_id] for ps in pers.passage_seeds]
        b = len(e_cols) + len(p_rows)
        # the same iterations from each one-hot seed give p = Σ wᵢ·PPR(seedᵢ)
        S_e, S_p = np.zeros((m, b)), np.zeros((n, b))
        S_e[e_cols, range(len(e_cols))] = 1.0
        S_p[p_rows, range(len(e_cols), b)] = 1.0
        per_seed = self.passage_scores(S_e, S_p if p_rows else None, walk.iterations)
        weights = np.array([s.weight for s in pers.seeds] + [ps.weight for ps in pers.passage_seeds])
        return weights * per_seed[rows]

    def hits_from(self, rows: np.ndarray, values: np.ndarray, k: int, scope: object = None) -> tuple[Hit, ...]:
        """The top k of passages `rows` (ascending, each scored above 0: a passage the walk never reached is not a
        hit) by their `values`, ties to the lower row. `scope` (a personalization's) is what bounds the hits
        besides the walk; an entity graph has none."""
        return tuple(Hit(self.graph.passage_ids[rows[j]], float(values[j]), r, self.name)
                     for r, j in enumerate(top_k(values, k), start=1))

    def notes_for(self, scope: object, n: int, k: int) -> tuple[str, ...]:
        """What a reader should know of `n` hits found for `k` asked within `scope`: nothing, for an entity graph."""
        return ()

    def walk_hits(self, walk: Walk, k: int, scope: object = None) -> tuple[Hit, ...]:
        """The top k passages of a walk, within `scope` (its personalization's)."""
        return self.hits_from(*walk.scored_passages(self.graph.n_passages), k, scope)

    def passage_scores(self, s_e: np.ndarray, s_p: np.ndarray | None, iterations: int) -> np.ndarray:
        """PPR passage scores for entity seeds (m,) or (m, b) and optional passage seeds (n,) or
        (n, b); bit-identical to those rows of `personalized_pagerank`, at half its cost."""
        to_p, to_e = self.graph.walk_blocks
        return bipartite_passage_scores(to_p, to_e, s_e, self.params.alpha, iterations, s_p)

    def search(self, query: str, k: int) -> tuple[Hit, ...]:
        k = check_k(k)
        if self.params.tol is not None or self.pushes:  # an early stop needs the full path; a push, its seeds
            pers, walk = self.run(query)
            return self.walk_hits(walk, k, pers.scope)
        pers = self.personalize(query)
        s_e, s_p = self.seed_vectors(pers)
        return self.hits_from(*scored(self.passage_scores(s_e, s_p, self.params.iterations)), k, pers.scope)

    def answer_batch(self, questions: Sequence[str], k: int) -> tuple[Answer, ...]:
        """Many questions with one batched PPR (a sparse matrix times a block of seed vectors); each
        answer's hits are bit-identical to `search`'s. A question with no seed gets an empty answer
        that says so (`no_seed`, and the reason in its notes)."""
        k = check_k(k)
        if self.params.tol is not None or self.pushes:  # early stops differ per column; pushes are one a question
            return tuple(self.answer(q, k, explain=False) for q in questions)
        out: list[Answer] = []
        seeded: list[tuple[int, tuple[np.ndarray, np.ndarray | None]]] = []
        scopes: dict[int, object] = {}
        for i, q in enumerate(questions):
            try:
                pers = self.personalize(q)
                scopes[i] = pers.scope
                seeded.append((i, self.seed_vectors(pers)))
                out.append(Answer(self.name, q, ()))
            except NoSeedError as e:
                out.append(Answer(self.name, q, (), (str(e),), no_seed=True))
        if seeded:
            S_e = np.column_stack([v[0] for _, v in seeded])
            S_p = None
            if self.passage_seeder is not None:
                S_p = np.column_stack([np.zeros(self.graph.n_passages) if v[1] is None else v[1] for _, v in seeded])
            P = self.passage_scores(S_e, S_p, self.params.iterations)
            for col, (i, _) in enumerate(seeded):
                hits = self.hits_from(*scored(P[:, col]), k, scopes[i])
                out[i] = Answer(self.name, questions[i], hits, self.notes_for(scopes[i], len(hits), k))
        return tuple(out)

    def answer(self, question: str, k: int, explain: bool = True) -> Answer:
        """The ranked hits; explained, also the walk (seeds, per-seed shares, evidence paths,
        subgraph; engine.retrieve.graph_explain), whose per-hit explanations fill `why`."""
        try:
            if not explain:
                return Answer(self.name, question, self.search(question, k))
            walk = self.explain(question, k)
        except NoSeedError as e:
            return Answer(self.name, question, (), (str(e),), no_seed=True)
        why = MappingProxyType({e.hit.passage_id: e for e in walk.explanations})
        return Answer(self.name, question, walk.hits, why=why, walk=walk)

    def explain(self, query: str, k: int, paths_per_hit: int = 3) -> GraphAnswer:
        """Why each of the top k passages ranked: raises NoSeedError as `search` does."""
        return explain_walk(self, query, k, paths_per_hit)

    def explain_hits(self, query: str, passage_ids: Sequence[str]) -> dict[str, HitExplanation]:
        """Per-seed shares and evidence paths of the given passages, wherever the walk ranks them."""
        return explain_passages(self, query, passage_ids)

"""Seeding: where a question starts the walk, with what weight, and by which rule.

Entity seeds come by four rules, the first that applies naming the seed:
- extracted: the graph's own extractor and filter find a name in the question, and the
  graph has an entity with that key;
- containment: an extracted name that is not a graph entity matches the graph entities
  that contain it on token boundaries, and the longest graph entities inside it;
- vocabulary: a graph entity's key occurs in the question's case- and accent-folded tokens,
  so a question in lower case, or one that uses a defined term ("the Fund"), still seeds;
- alias (BCT, coreference-aware alias seeding): an alias of a seed at β × its weight.

Weights. Each matched entity weighs its specificity, 1 / the number of passages it occurs
in, so a generic name ("City", "Fund") that a question happens to contain does not swamp
a specific one; an extracted name that matched several entities by containment splits its
weight among them. Entity weights are normalised to sum 1 before aliases are added.
Without specificity every matched name weighs the same (the Aethel paper's uniform seed).

Defined terms are scoped to their document: when the question's term is defined in several
documents as different names ("the Fund" in eighty fund reports), BCT does not spread the
term over all of them; the seeding reports the ambiguity and which name each document means.

Passage seeds (the hybrid retrievers) come from dense similarity to the question, optionally
mixed with BM25 (`PassageSeeder`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping, Protocol, Sequence

import numpy as np

from ..graph.aliases import AliasTable
from ..graph.entities import COMMON_CAPS
from ..errors import PathLensError
from ..graph.entity_graph import EntityGraph
from .bm25_retriever import BM25Retriever
from .dense_retriever import DenseRetriever
from .retrievers import check_query, top_k
from ..text import STOPWORDS, name_tokens, written_tokens

RULES = ("extracted", "containment", "vocabulary")  # query rules, strongest first; aliases carry their table rule
_FUNCTION_WORDS = STOPWORDS | COMMON_CAPS


def _inside(small: tuple[str, ...], big: tuple[str, ...]) -> bool:
    return any(big[i:i + len(small)] == small for i in range(len(big) - len(small) + 1))


@dataclass(frozen=True)
class SeedingParams:
    vocabulary: bool = True  # also seed every graph entity whose key occurs in the question
    specificity: bool = True  # weigh seeds by 1 / passages they occur in (else uniform)
    beta: float = 0.5  # BCT: an alias's weight relative to its seed's

    def __post_init__(self) -> None:
        if not self.beta >= 0:
            raise PathLensError(f"BCT weight β must be 0 or more, got {self.beta}")


@dataclass(frozen=True)
class Seed:
    entity: str  # graph entity key
    label: str  # display form
    weight: float  # share of the entity part of the personalization vector
    source: str  # "query", "alias" or "bridge"
    via: str  # the question's name it matched, the seed it is an alias of, or the passage that names a bridge
    rule: str  # "extracted", "containment", "vocabulary", the alias rule ("defined term", …), or "second hop"
    passage_count: int  # how many passages the entity occurs in (its specificity is 1 / this); `passages` in JSON
    named_at: int = 0  # a bridge: the first walk's rank of the passage `via` that names it (engine.retrieve.second_hop)

    @property
    def word(self) -> str:
        """The question's word that matched it, where the question writes it only in lower case ("the fund", the data
        room's defined term "Fund"): a word of the question, no name it wrote; else ""."""
        return self.via if self.rule == "vocabulary" and self.via == self.via.lower() else ""


@dataclass(frozen=True)
class AmbiguousTerm:
    """A defined term of the question that several documents define as different names."""

    term: str  # display form of the term
    meanings: tuple[tuple[str, str], ...]  # (document id, the name that document defines it as)


@dataclass(frozen=True)
class Seeding:
    seeds: tuple[Seed, ...]
    query_entities: tuple[str, ...]  # the names the extractor found in the question (keys)
    unmatched: tuple[str, ...]  # extracted names that matched no graph entity
    ambiguous: tuple[AmbiguousTerm, ...] = ()


class Seeder(Protocol):
    """What a graph walk reads of its seeds: the graph they are on, a question's seeding, and a seeding's
    personalization vector over the graph's entity side. `EntitySeeder` seeds a question's names;
    `filing_seeding.FilingSeeder` a filing's structure as well."""

    graph: EntityGraph

    def seeding(self, question: str) -> "Seeding": ...

    def vector(self, seeds: Sequence["Seed"]) -> np.ndarray: ...


class EntitySeeder:
    """Turns a question into entity seeds over one graph. Built per retriever; reads only
    structures the graph and alias table build once."""

    def __init__(self, graph: EntityGraph, query_keys: Callable[[str], Sequence[str]], params: SeedingParams,
                 aliases: AliasTable | None = None, doc_of: Mapping[str, str] | None = None):
        self.graph = graph
        self.params = params
        self._query_keys = query_keys
        self._aliases = aliases  # None: no alias over-seeding
        self._doc_of = doc_of or {}
        self._entity_index = graph.entity_index

    # -------------------------------------------------------- matching

    def contained(self, key: str) -> list[int]:
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

    def vocabulary(self, query: str) -> dict[int, str]:
        """Graph entities whose key occurs in the question on token boundaries, in order of
        first occurrence, each with the question's words as it writes them ("fund", "AmEx"):
        one pass over the question's n-grams against the key table.
        Keys made only of function words ("us", "who", "it") are skipped: folded case would
        make the pronoun the acronym."""
        toks, written = name_tokens(query), written_tokens(query)
        longest = self.graph.longest_key
        found: dict[int, str] = {}
        for start in range(len(toks)):
            for n in range(1, min(longest, len(toks) - start) + 1):
                gram = toks[start:start + n]
                j = self._entity_index.get(" ".join(gram))
                if j is not None and not all(t in _FUNCTION_WORDS for t in gram):
                    found.setdefault(j, " ".join(written[start:start + n]))
        return found

    # -------------------------------------------------------- seeding

    def seeding(self, query: str) -> Seeding:
        query = check_query(query)
        keys = list(self._query_keys(query))
        groups: list[tuple[str, str, list[int]]] = []  # (name in the question, rule, entities it matched)
        unmatched = []
        for key in keys:
            if key in self._entity_index:
                groups.append((key, "extracted", [self._entity_index[key]]))
                continue
            found = self.contained(key)
            if found:
                groups.append((key, "containment", found))
            else:
                unmatched.append(key)
        if self.params.vocabulary:
            for j, words in self.vocabulary(query).items():
                groups.append((words, "vocabulary", [j]))
        matched: dict[int, tuple[str, str, float]] = {}  # entity → (via, rule, weight)
        for via, rule, js in groups:
            for j in js:
                if self.graph.entity_degree[j] == 0:  # a name no passage holds (a structure node without pages)
                    continue  # reaches nothing: seeding it would only divide by its degree of 0
                if j not in matched:
                    # uniform (the paper's seed), or specificity shared among a name's matches
                    weight = 1.0 / self.graph.entity_degree[j] / len(js) if self.params.specificity else 1.0
                    matched[j] = (via, rule, weight)
        if not matched:
            return Seeding((), tuple(keys), tuple(unmatched))
        total = sum(w for _, _, w in matched.values())
        base = {j: w / total for j, (_, _, w) in sorted(matched.items())}
        seeds, ambiguous = [], ()
        if self._aliases is None:
            weights = base
        else:
            weights, parents, ambiguous = self._over_seed(base)
        for j in sorted(weights):
            e, label, deg = self.graph.entities[j], self.graph.display[j], int(self.graph.entity_degree[j])
            if j in matched:
                via, rule, _ = matched[j]
                seeds.append(Seed(e, label, weights[j], "query", via, rule, deg))
            else:
                parent = parents[j]
                seeds.append(Seed(e, label, weights[j], "alias", parent,
                                  self._aliases.rules.get((parent, e), "alias"), deg))
        return Seeding(tuple(seeds), tuple(keys), tuple(unmatched), ambiguous)

    def _over_seed(self, base: dict[int, float]) -> tuple[dict[int, float], dict[int, str], tuple[AmbiguousTerm, ...]]:
        """BCT: each seed adds its aliases at β × its own weight, then the vector is renormalised.
        A defined term with several meanings adds none of its defining names."""
        table, entities, beta = self._aliases, self.graph.entities, self.params.beta
        w = dict(base)
        parents: dict[int, str] = {}
        ambiguous = []
        for j, weight in base.items():
            key = entities[j]
            meanings = table.definitions.get(key, ())
            skip: set[str] = set()
            if len({name for name, _ in meanings}) > 1:
                skip = {name for name, _ in meanings}
                ambiguous.append(AmbiguousTerm(self.graph.display[j], tuple(sorted(
                    {(self._doc_of.get(pid, pid), self.graph.display[self._entity_index[name]]) for name, pid in meanings}))))
            for a in table.by_entity.get(key, ()):
                if a in skip:
                    continue
                i = self._entity_index[a]
                w[i] = w.get(i, 0.0) + beta * weight
                parents.setdefault(i, key)
        total = sum(w.values())
        return {j: v / total for j, v in w.items() if v > 0}, parents, tuple(ambiguous)

    def vector(self, seeds: Sequence[Seed]) -> np.ndarray:
        """The entity part of the personalization vector (length = number of entities)."""
        s = np.zeros(len(self.graph.entities))
        for seed in seeds:
            s[self._entity_index[seed.entity]] = seed.weight
        return s


# ---------------------------------------------------------------- passage seeds (hybrid)


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
        best = top_k(scores, top, np.isfinite(scores))  # out-of-scope passages are -inf
        z = np.exp((scores[best] - scores[best[0]]) / tau)
        return best, z / z.sum()

    def seeds(self, query: str, within: np.ndarray | None = None, lexical_query: str | None = None
              ) -> tuple[PassageSeed, ...]:
        """The passage seeds of a question; `within`, a mask of passages, keeps them to those;
        `lexical_query`, what BM25 reads instead of the question (its words with a lexicon's)."""
        c = self.dense.scores(query)
        if c.size == 0:
            return ()
        if within is not None:
            c = np.where(within, c, -np.inf)
        lam = self.params.lexical
        weight = np.zeros(c.size)
        if lam < 1:
            best, z = self._softmax_top(c, self.params.top, self.params.tau)
            weight[best] += (1 - lam) * z
        if lam > 0:
            b = self.bm25.scores(lexical_query or query)
            if within is not None:
                b = np.where(within, b, -np.inf)
            if b.max() > 0:
                best, z = self._softmax_top(b / b.max(), self.params.top, self.LEXICAL_TAU)
                weight[best] += lam * z
            elif lam == 1:
                return ()
        weight /= weight.sum()
        # in the order of weight, ties by corpus order, so the table reads best first
        order = np.lexsort((np.arange(c.size), -weight))[:np.count_nonzero(weight)]
        return tuple(PassageSeed(self.dense.ids[i], float(weight[i]), float(c[i])) for i in order)

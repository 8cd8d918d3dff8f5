"""The filing graph and its seeds: the entity graph with a filing's structure added as typed nodes.

Structure nodes (company, filing, statement, Item, note, line item; `structure.KINDS`) sit on the
entity side of the bipartite graph, so the walk, its exact per-seed shares and its evidence paths are
the graph retrievers' own (`graph_retriever`). Each edge has a type, and each type a weight in the
walk (`EdgeWeights`, catalog parameters): a passage steps to the nodes it touches in proportion to
their edges' weights, and a node to its passages evenly.

A question seeds the structure its scope names (`scope.read_scope`): the scoped filings, the
statements it names or implies, the line items the lexicon maps its words to ("capex" → "Additions to
property, plant and equipment"), the notes whose titles it uses, and the regex entity graph's own seeds.
Each seed weighs its specificity, 1 / the passages it touches, as entity seeds do.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Mapping

import numpy as np
from scipy import sparse

from ..errors import PathLensError
from ..graph.entity_graph import EntityGraph, build_from_incidence
from ..retrieve.seeding import Seed, Seeder, Seeding
from ..text import normalize_name
from .lexicon import Lexicon
from .scope import Scope, ScopeCorrection, read_scope
from .structure import FilingStructure

NODE_PREFIX = "§"  # structure keys start with it: no folded question word ever equals one


@dataclass(frozen=True)
class EdgeWeights:
    """Each edge type's weight in the walk (catalog parameters edge_*)."""

    filing: float = 1.0  # a passage ↔ its filing and its company
    section: float = 1.0  # a passage ↔ the statement, Item and note it stands in
    line_item: float = 1.0  # a passage ↔ the rows of its tables
    xref: float = 1.0  # a passage ↔ the section it refers to ("see Note 12")
    entity: float = 1.0  # a passage ↔ the names the regex extractor found in it

    def __post_init__(self) -> None:
        for name, value in vars(self).items():
            if not (isinstance(value, (int, float)) and 0 <= value <= 100):
                raise PathLensError(f"edge weight {name} must be a number from 0 to 100, got {value!r}")

    def of(self, edge_type: str) -> float:
        return getattr(self, edge_type.replace(" ", "_"))


def filing_graph(structure: FilingStructure, entities: EntityGraph, weights: EdgeWeights) -> EntityGraph:
    """The entity graph's columns (scaled by the entity weight) followed by one column per structure
    node, each edge at its type's weight."""
    n = entities.n_passages
    rows = np.fromiter((r for r, _, _ in structure.edges), dtype=np.int64, count=len(structure.edges))
    cols = np.fromiter((c for _, c, _ in structure.edges), dtype=np.int64, count=len(structure.edges))
    data = np.fromiter((weights.of(t) for _, _, t in structure.edges), dtype=np.float64, count=len(structure.edges))
    keep = data > 0
    S = sparse.csr_matrix((data[keep], (rows[keep], cols[keep])), shape=(n, len(structure.nodes)))
    E = entities.incidence * weights.entity if weights.entity > 0 else entities.incidence[:, :0]
    used = tuple(entities.entities) if weights.entity > 0 else ()
    shown = tuple(entities.display) if weights.entity > 0 else ()
    incidence = sparse.hstack([E, S], format="csr")
    return build_from_incidence("filing", entities.passage_ids, used + tuple(x.key for x in structure.nodes),
                                shown + tuple(x.label for x in structure.nodes), incidence)


STRUCTURE_RULES = ("scope", "statement", "lexicon", "line item", "note", "reference")


class FilingSeeder:
    """A question's seeds on the filing graph: its scope's structure, then the entity seeds of its
    words without their instruction text. Has the `Seeder` interface the walk reads (`graph`,
    `seeding`, `vector`), plus `scope`."""

    def __init__(self, graph: EntityGraph, structure: FilingStructure, entity_seeder: Seeder | None,
                 lexicon: Lexicon, correction: ScopeCorrection = ScopeCorrection()):
        self.graph = graph
        self.structure = structure
        self.entity_seeder = entity_seeder
        self.lexicon = lexicon
        self.correction = correction
        offset = len(graph.entities) - len(structure.nodes)
        self._column = {node.key: offset + i for i, node in enumerate(structure.nodes)}
        self._by_doc: dict[tuple[str, str], list[int]] = {}  # (doc, kind) → structure node indices
        for i, node in enumerate(structure.nodes):
            self._by_doc.setdefault((node.doc_id, node.kind), []).append(i)

    def scope(self, question: str) -> Scope:
        return read_scope(question, self.structure.filings, self.lexicon, self.correction)

    def _nodes(self, docs, kind: str) -> list[int]:
        return [i for d in docs for i in self._by_doc.get((d, kind), ())]

    def structure_matches(self, scope: Scope) -> list[tuple[int, str, str]]:
        """(structure node, rule, what in the question matched it) for every structure seed."""
        nodes = self.structure.nodes
        docs = scope.filings or tuple(self.structure.filings)
        out: list[tuple[int, str, str]] = []
        for i in self._nodes(scope.filings, "filing"):
            out.append((i, "scope", nodes[i].label))
        for i in self._nodes(docs, "statement"):
            if nodes[i].ref in scope.statements:
                out.append((i, "statement", nodes[i].label))
        folded = f" {normalize_name(scope.text)} "
        rows = {row: said for said, term in scope.terms for row in term.rows}
        notes = [(word, said) for said, term in scope.terms for word in term.notes]
        for i in self._nodes(docs, "line item"):
            key = nodes[i].ref
            if key in rows:
                out.append((i, "lexicon", rows[key]))
            elif len(key.split()) > 1 and f" {key} " in folded:
                out.append((i, "line item", key))
        for i in self._nodes(docs, "note") + self._nodes(docs, "item"):
            title = normalize_name(nodes[i].label.split(" — ", 1)[-1].split(". ", 1)[-1])
            number = nodes[i].ref.lower()
            said = next((s for w, s in notes if nodes[i].kind == "note" and f" {w} " in f" {title} "), None)
            if said is not None:
                out.append((i, "lexicon", said))
            elif nodes[i].kind == "note" and len(title.split()) > 1 and f" {title} " in folded:
                out.append((i, "note", title))
            elif f" {nodes[i].kind} {number} " in folded:
                out.append((i, "reference", f"{nodes[i].kind} {number}"))
        return out

    def seeding(self, question: str) -> Seeding:
        return self.seeding_for(self.scope(question))

    def seeding_for(self, scope: Scope) -> Seeding:
        degree = self.graph.entity_degree
        matched: dict[int, tuple[str, str]] = {}  # graph column → (via, rule)
        for i, rule, via in self.structure_matches(scope):
            matched.setdefault(self._column[self.structure.nodes[i].key], (via, rule))
        entity_seeding = self.entity_seeder.seeding(scope.text) if self.entity_seeder is not None else None
        if entity_seeding is not None:
            index = self.graph.entity_index
            for s in entity_seeding.seeds:
                if s.entity in index:
                    matched.setdefault(index[s.entity], (s.via, s.rule))
        weights = {j: 1.0 / degree[j] for j in matched if degree[j] > 0}
        total = sum(weights.values())
        seeds = tuple(Seed(self.graph.entities[j], self.graph.display[j], w / total, "query", matched[j][0],
                           matched[j][1], int(degree[j])) for j, w in sorted(weights.items()))
        keys = entity_seeding.query_entities if entity_seeding else ()
        unmatched = entity_seeding.unmatched if entity_seeding else ()
        return Seeding(seeds, keys, unmatched)

    def vector(self, seeds) -> np.ndarray:
        s = np.zeros(len(self.graph.entities))
        index = self.graph.entity_index
        for seed in seeds:
            s[index[seed.entity]] = seed.weight
        return s

    def rows_of(self, docs, doc_of: Callable[[int], str]) -> np.ndarray | None:
        """A mask of the passages of `docs`, or None when the scope keeps every filing."""
        if not docs:
            return None
        wanted = set(docs)
        return np.fromiter((doc_of(i) in wanted for i in range(self.graph.n_passages)), dtype=bool,
                           count=self.graph.n_passages)


__all__ = ["EdgeWeights", "FilingSeeder", "NODE_PREFIX", "STRUCTURE_RULES", "filing_graph"]

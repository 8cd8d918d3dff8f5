"""The filing graph and its seeds: the entity graph with a filing's structure added as typed nodes.

Structure nodes (company, filing, statement, Item, note, line item; `structure.KINDS`) sit on the
entity side of the bipartite graph, so the walk, its exact per-seed shares and its evidence paths are
the graph retrievers' own (`graph_retriever`). Each edge has a type, and each type a weight in the
walk (`EdgeWeights`, catalog parameters): a passage steps to the nodes it touches in proportion to
their edges' weights, and a node to its passages evenly.

Where a question starts its walk on this graph is `engine.retrieve.filing_seeding`'s.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse

from ..errors import PathLensError
from ..graph.entity_graph import EntityGraph, build_from_incidence
from .structure import FilingStructure, Node

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


@dataclass(frozen=True)
class FilingLayout:
    """Which columns of the filing graph's entity side are the entity graph's names and which are a filing's
    structure nodes: the names first (none when entity edges weigh 0), then one column per structure node, in
    `FilingStructure.nodes` order. Seeding, typed paths and the evidence graph read columns through it."""

    entity_columns: int
    nodes: tuple[Node, ...]

    def column(self, node: int) -> int:
        """The column of structure node `node` (an index of `nodes`)."""
        return self.entity_columns + node

    def node_at(self, column: int) -> Node | None:
        """The structure node a column is, or None for a name's column."""
        i = column - self.entity_columns
        return self.nodes[i] if 0 <= i < len(self.nodes) else None


@dataclass(frozen=True, eq=False)
class FilingGraph:
    graph: EntityGraph
    layout: FilingLayout


def filing_graph(structure: FilingStructure, entities: EntityGraph, weights: EdgeWeights) -> FilingGraph:
    """The entity graph's columns (scaled by the entity weight) followed by one column per structure
    node, each edge at its type's weight, and which column is which."""
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
    graph = build_from_incidence("filing", entities.passage_ids, used + tuple(x.key for x in structure.nodes),
                                 shown + tuple(x.label for x in structure.nodes), incidence)
    return FilingGraph(graph, FilingLayout(len(used), structure.nodes))


__all__ = ["EdgeWeights", "FilingGraph", "FilingLayout", "NODE_PREFIX", "filing_graph"]

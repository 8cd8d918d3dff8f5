"""The typed deal graph and the walk over it.

Nodes: one per deal, sector, subsector, region and origin, one exit Event per exited deal, and one text Snippet per
described deal. Edges (undirected, one weight per type, `EdgeWeights`): IN_SECTOR, IN_SUBSECTOR, IN_REGION,
ORIGINATED_AS, ADDON_TO (add-on ↔ its platform), EXITED_VIA (deal ↔ its exit event), DESCRIBED_IN (deal ↔ its
snippet). The walk is `graph.ppr`'s Personalized PageRank over W = A·D⁻¹, seeded on the nodes a question's cues name
(its sectors or subsectors, regions, origins, and the exit events of the routes it asks for), each kind of cue with
an equal share. Structure then shows as mass: a platform whose add-ons share its sector and region gets mass back
from each of them, so a vague description with eight add-ons is found from "healthcare · US".

PPR is linear in the seeds, so each kind of cue's share of a deal's score is its own walk, and the shares sum to
the score exactly (the walk ranker's parts).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import sparse

from ..errors import PathLensError
from ..graph.ppr import column_normalize, personalized_pagerank, personalized_pagerank_batch
from .model import ORIGINS, REGIONS, SECTOR_OF, SECTORS, Criteria, Universe

EDGE_TYPES = ("IN_SECTOR", "IN_SUBSECTOR", "IN_REGION", "ORIGINATED_AS", "ADDON_TO", "EXITED_VIA", "DESCRIBED_IN")
ALPHA, ITERATIONS = 0.15, 20  # the engine's walk defaults (catalog: alpha, iterations)


@dataclass(frozen=True)
class EdgeWeights:
    """Each edge type's weight in the walk; 1 each: no type was tuned."""

    IN_SECTOR: float = 1.0
    IN_SUBSECTOR: float = 1.0
    IN_REGION: float = 1.0
    ORIGINATED_AS: float = 1.0
    ADDON_TO: float = 1.0
    EXITED_VIA: float = 1.0
    DESCRIBED_IN: float = 1.0

    def __post_init__(self) -> None:
        for name in EDGE_TYPES:
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 100:
                raise PathLensError(f"edge weight {name} must be a number from 0 to 100, got {v!r}")


@dataclass(frozen=True)
class Node:
    kind: str  # deal, sector, subsector, region, origin, event, snippet
    label: str  # the deal's name, the sector's word, "IPO 2019", the snippet's deal name
    deal: int = -1  # the deal row a deal, event or snippet node belongs to


@dataclass(frozen=True, eq=False)
class DealGraph:
    """Deal nodes first (node i is deal row i), then the other kinds; `edges` as (node, node, type) rows."""

    nodes: tuple[Node, ...]
    edges: np.ndarray  # (m, 3) int: node a, node b, index of the type in EDGE_TYPES
    A: sparse.csr_matrix  # symmetric, weighted
    W: sparse.csr_matrix  # column-normalised A
    n_deals: int
    index: dict[tuple[str, str], int]  # (kind, label) → node, for sectors, subsectors, regions and origins
    event_route: dict[int, str]  # event node → its exit route
    # the deals' PPR from one seed group, uniform over its nodes, on the whole graph: PPR is linear, so a question's
    # walk is a mix of these, and the few hundred groups questions use are each walked once
    walks: dict[tuple[int, ...], np.ndarray] = field(default_factory=dict, repr=False)

    @property
    def degree(self) -> np.ndarray:
        """Edges at each node, whatever their weights."""
        pattern = self.A.copy()
        pattern.data[:] = 1.0
        return np.asarray(pattern.sum(axis=1)).ravel()

    def neighbours(self, node: int) -> list[tuple[int, str]]:
        """(node, edge type) of every edge at `node`: the deal's subgraph a page draws."""
        hit = (self.edges[:, 0] == node) | (self.edges[:, 1] == node)
        return [(int(b if a == node else a), EDGE_TYPES[t]) for a, b, t in self.edges[hit]]


def build_graph(u: Universe, weights: EdgeWeights = EdgeWeights()) -> DealGraph:
    """The typed graph of a universe."""
    nodes = [Node("deal", d.name, i) for i, d in enumerate(u.deals)]
    index: dict[tuple[str, str], int] = {}
    for kind, labels in (("sector", SECTORS), ("subsector", SECTOR_OF), ("region", REGIONS), ("origin", ORIGINS)):
        for label in labels:
            index[(kind, label)] = len(nodes)
            nodes.append(Node(kind, label))
    edges: list[tuple[int, int, int]] = []
    event_route: dict[int, str] = {}
    for i, d in enumerate(u.deals):
        edges.append((i, index[("sector", d.sector)], 0))
        if d.subsector:
            edges.append((i, index[("subsector", d.subsector)], 1))
        edges.append((i, index[("region", d.region)], 2))
        if d.origin:
            edges.append((i, index[("origin", d.origin)], 3))
        if d.platform:
            edges.append((i, u.rows[d.platform], 4))
        if d.exited:
            event_route[len(nodes)] = d.exit
            edges.append((i, len(nodes), 5))
            nodes.append(Node("event", f"{d.exit} {d.exit_year or ''}".strip(), i))
        if d.description:
            edges.append((i, len(nodes), 6))
            nodes.append(Node("snippet", d.name, i))
    e = np.asarray(edges, dtype=np.int64).reshape(-1, 3)
    w = np.asarray([getattr(weights, t) for t in EDGE_TYPES])[e[:, 2]]
    n = len(nodes)
    A = sparse.coo_matrix((np.concatenate([w, w]), (np.concatenate([e[:, 0], e[:, 1]]),
                                                    np.concatenate([e[:, 1], e[:, 0]]))), shape=(n, n)).tocsr()
    A.sum_duplicates()
    return DealGraph(tuple(nodes), e, A, column_normalize(A), len(u.deals), index, event_route)


@dataclass(frozen=True)
class SeedGroup:
    """One kind of cue's seeds: its words ("healthcare", "US or Canada", "exited by IPO") and its nodes."""

    label: str
    nodes: tuple[int, ...]


def seed_groups(g: DealGraph, c: Criteria) -> tuple[SeedGroup, ...]:
    """The walk's seeds for criteria: subsectors (else sectors), regions, origins, exit events of the routes asked.
    Role, add-on counts, periods and sizes have no node: features read them."""
    groups = []
    if c.subsectors:
        groups.append(SeedGroup(" or ".join(c.subsectors), tuple(g.index[("subsector", s)] for s in c.subsectors)))
    elif c.sectors:
        groups.append(SeedGroup(" or ".join(c.sectors), tuple(g.index[("sector", s)] for s in c.sectors)))
    if c.regions:
        groups.append(SeedGroup(" or ".join(c.regions), tuple(g.index[("region", r)] for r in c.regions)))
    if c.origins:
        groups.append(SeedGroup(" or ".join(c.origins), tuple(g.index[("origin", o)] for o in c.origins)))
    routes = [e for e in c.exits if e != "none"]
    if routes:
        events = tuple(v for v, r in g.event_route.items() if "any" in routes or r in routes)
        if events:
            groups.append(SeedGroup("exited" if "any" in routes else "exited by " + " or ".join(routes), events))
    return tuple(groups)


@dataclass(frozen=True, eq=False)
class Walk:
    """The walk's score of each deal of `rows` and each seed group's exact part of it."""

    rows: np.ndarray  # deal rows walked (those the filters kept)
    scores: np.ndarray  # (len(rows),) == parts.sum(axis=1)
    parts: np.ndarray  # (len(rows), groups)
    groups: tuple[SeedGroup, ...]


def walk(g: DealGraph, groups: tuple[SeedGroup, ...], rows: np.ndarray | None = None) -> Walk:
    """PPR from the seed groups over the graph restricted to the deals `rows` (None: all): the filtered deals are
    the only deals the walk can reach, so a filter shapes the walk rather than trimming its result. A seed event
    of a deal filtered out is dropped; a group left without seeds is dropped."""
    keep_deals = np.arange(g.n_deals) if rows is None else np.asarray(rows, dtype=np.int64)
    if rows is None:
        W, position = g.W, np.arange(len(g.nodes))
    else:
        kept = np.zeros(len(g.nodes), dtype=bool)
        kept[g.n_deals:] = True
        kept[keep_deals] = True
        belongs = np.array([n.deal for n in g.nodes[g.n_deals:]])  # events and snippets go with their deal
        kept[g.n_deals:] &= (belongs < 0) | np.isin(belongs, keep_deals)
        keep = np.flatnonzero(kept)
        position = np.full(len(g.nodes), -1)
        position[keep] = np.arange(len(keep))
        W = column_normalize(g.A[keep][:, keep])
    live = []
    for grp in groups:
        nodes = tuple(int(position[v]) for v in grp.nodes if position[v] >= 0)
        if nodes:
            live.append((grp, nodes))
    if not live:
        return Walk(keep_deals, np.zeros(len(keep_deals)), np.zeros((len(keep_deals), 0)), ())
    if rows is None:
        for _, nodes in live:
            if nodes not in g.walks:
                s = np.zeros(W.shape[0])
                s[list(nodes)] = 1.0 / len(nodes)
                g.walks[nodes] = personalized_pagerank(W, s, ALPHA, ITERATIONS).scores[:g.n_deals]
        parts = np.column_stack([g.walks[nodes] for _, nodes in live]) / len(live)
        return Walk(keep_deals, parts.sum(axis=1), parts, tuple(grp for grp, _ in live))
    S = np.zeros((W.shape[0], len(live)))
    for j, (_, nodes) in enumerate(live):
        S[list(nodes), j] = 1.0 / (len(nodes) * len(live))  # each group an equal share, split over its nodes
    P = personalized_pagerank_batch(W, S, ALPHA, ITERATIONS).scores
    parts = P[position[keep_deals]]
    return Walk(keep_deals, parts.sum(axis=1), parts, tuple(grp for grp, _ in live))


__all__ = ["ALPHA", "DealGraph", "EDGE_TYPES", "EdgeWeights", "ITERATIONS", "Node", "SeedGroup", "Walk",
           "build_graph", "seed_groups", "walk"]

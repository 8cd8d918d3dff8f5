"""A second hop that the first walk finds, without a model.

A multi-hop question names the first link of a chain ("the fund whose portfolio includes Solano Foods"); the
passage that answers it names the second ("Juniper Peak Growth Fund II"), which the question never does. So after
the first walk, the entities of its top HOP_PASSAGES passages that the question does not seed are candidate
bridges. The HOP_BRIDGES that the first walk reached most strongly seed a second walk, each weighted by the mass
the first walk put on it; the second walk gets share γ of the restart mass and the first walk's seeds keep 1 − γ.

PPR is linear in its seeds, so the walk from that mixed vector is (1 − γ)·walk₁ + γ·walk₂, one walk, and every
bridge is a seed like the question's own: each hit's per-seed shares still sum to its score exactly. A bridge
seed says which passage of the first walk named it (`Seed.via`), so the explanation shows both hops.

HOP_PASSAGES, HOP_BRIDGES and the default γ were chosen on MuSiQue's open corpus and the data room
(docs/benchmarks.md, "Multi-hop without a model"); weighting bridges by specificity as well (1 / passages) did
worse there.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..graph.entity_graph import EntityGraph
from .seeding import Seed

HOP_PASSAGES = 5  # the first walk's top passages whose entities are candidate bridges
HOP_BRIDGES = 10  # bridges kept, by the first walk's mass on them
RULE = "second hop"


def bridges(graph: EntityGraph, passage_scores: np.ndarray, entity_scores: np.ndarray, seeded: set[str]
            ) -> tuple[Seed, ...]:
    """The second walk's seeds, weights summing to 1 (none when the top passages name nothing new).

    `passage_scores` and `entity_scores`: the first walk's, over the graph's passages and entities; `seeded`: the
    entity keys the question already seeds."""
    top = np.argsort(-passage_scores, kind="stable")[:HOP_PASSAGES]
    top = top[passage_scores[top] > 0]
    named_by: dict[int, int] = {}  # entity column → the first of the top passages (by rank) that names it
    incidence = graph.incidence
    for rank, row in enumerate(top.tolist()):
        for col in incidence.indices[incidence.indptr[row]:incidence.indptr[row + 1]].tolist():
            if graph.entities[col] not in seeded:
                named_by.setdefault(col, rank)
    if not named_by:
        return ()
    cols = np.array(sorted(named_by))
    mass = entity_scores[cols]
    keep = cols[np.argsort(-mass, kind="stable")[:HOP_BRIDGES]]
    weights = entity_scores[keep]
    if not weights.sum() > 0:
        return ()
    weights = weights / weights.sum()
    return tuple(Seed(graph.entities[col], graph.display[col], w, "bridge", graph.passage_ids[int(top[named_by[col]])],
                      RULE, int(graph.entity_degree[col]), named_at=named_by[col] + 1)
                 for col, w in zip(keep.tolist(), weights.tolist()))


def scaled(seeds: tuple[Seed, ...], share: float) -> tuple[Seed, ...]:
    return tuple(replace(s, weight=s.weight * share) for s in seeds)


__all__ = ["HOP_BRIDGES", "HOP_PASSAGES", "RULE", "bridges", "scaled"]

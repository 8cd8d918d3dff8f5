"""A second hop that the first walk finds, without a model.

A multi-hop question names the first link of a chain ("the fund whose portfolio includes Solano Foods"); the
passage that answers it names the second ("Juniper Peak Growth Fund II"), which the question never does. So after
the first walk, the entities of its top HOP_PASSAGES passages that the question does not seed are candidate
bridges. The HOP_BRIDGES that the first walk reached most strongly seed a second walk, each weighted by the mass
the first walk put on it; the second walk gets share γ of the restart mass and the first walk's seeds keep 1 − γ.

PPR is linear in its seeds, so the walk from that mixed vector is (1 − γ)·walk₁ + γ·walk₂, one walk, and every
bridge is a seed like the question's own: each hit's per-seed shares still sum to its score exactly. A bridge
seed says which passage of the first walk named it (`Seed.via`), so the explanation shows both hops.

HOP_PASSAGES and HOP_BRIDGES, and γ = 0.6 where it is turned on, were chosen on MuSiQue's open corpus and the
data room; the catalog's default γ is 0, one walk, since the second hop lowers the data room's hybrid-ner
(docs/multi-hop.md). Weighting bridges by specificity too (1 / passages) did worse.
With about-edges (`subject_weight` 2, engine.graph.entity_graph) a bridge's walk goes on to the passage about it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable

import numpy as np

from ..graph.entity_graph import EntityGraph
from .retrievers import top_k
from .seeding import Seed

HOP_PASSAGES = 5  # the first walk's top passages whose entities are candidate bridges
HOP_BRIDGES = 10  # bridges kept, by the first walk's mass on them
RULE = "second hop"


def bridges(graph: EntityGraph, rows: np.ndarray, scores: np.ndarray,
            entity_mass: Callable[[np.ndarray], np.ndarray], seeded: set[str]) -> tuple[Seed, ...]:
    """The second walk's seeds, weights summing to 1 (none when the top passages name nothing new).

    `rows`, `scores`: the passages the first walk scored (ascending) and their scores; `entity_mass(columns)`: its
    mass on those entity columns; `seeded`: the entity keys the question already seeds. Only the walk's top
    passages and their entities are read, so a walk over a million passages costs little here."""
    top = rows[top_k(scores, HOP_PASSAGES)]
    named_by: dict[int, int] = {}  # entity column → the first of the top passages (by rank) that names it
    incidence = graph.incidence
    for rank, row in enumerate(top.tolist()):
        for col in incidence.indices[incidence.indptr[row]:incidence.indptr[row + 1]].tolist():
            if graph.entities[col] not in seeded:
                named_by.setdefault(col, rank)
    if not named_by:
        return ()
    cols = np.array(sorted(named_by))
    mass = entity_mass(cols)
    order = np.argsort(-mass, kind="stable")[:HOP_BRIDGES]
    keep, weights = cols[order], mass[order]
    if not weights.sum() > 0:
        return ()
    weights = weights / weights.sum()
    return tuple(Seed(graph.entities[col], graph.display[col], w, "bridge", graph.passage_ids[int(top[named_by[col]])],
                      RULE, int(graph.entity_degree[col]), named_at=named_by[col] + 1)
                 for col, w in zip(keep.tolist(), weights.tolist()))


def scaled(seeds: tuple[Seed, ...], share: float) -> tuple[Seed, ...]:
    return tuple(replace(s, weight=s.weight * share) for s in seeds)


__all__ = ["HOP_BRIDGES", "HOP_PASSAGES", "RULE", "bridges", "scaled"]

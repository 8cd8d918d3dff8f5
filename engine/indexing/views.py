"""Views of an index over fewer passages or entities, made from what it has built: the scale sweep's subsamples
(`subset`) and the what-if (`without`). Token lists, embedding rows and graphs are sliced, never recomputed: no
NER re-run, no re-encoding."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ..components import made_from_any, parse
from ..errors import PathLensError
from ..graph.entities import entity_key
from ..ingest.corpus import Corpus
from .index import Index


def subset(index: Index, keep: Sequence[int], removed_entities: frozenset[str] | None = None) -> Index:
    """An index over passages `keep` (positions in `index`'s corpus), reusing what is built (its graphs without
    `removed_entities`, by default the ones `index` left out)."""
    keep = list(keep)
    passages = tuple(index.corpus.passages[i] for i in keep)
    ids = {p.id for p in passages}
    queries = tuple(q for q in index.corpus.queries if set(q.gold) <= ids)
    sub = Index(Corpus(f"{index.corpus.name}[{len(keep)}]", passages, queries, index.corpus.defaults),
                removed_entities=index.removed_entities if removed_entities is None else removed_entities)
    for key, value in index.memo.snapshot().items():
        kind = parse(key)[0]
        if key == "tokens":
            sub.memo.put(key, tuple(value[i] for i in keep))
        elif key == "embeddings":
            rows = value[np.asarray(keep)]
            rows.setflags(write=False)
            sub.memo.put(key, rows)
        elif kind == "extraction":
            sub.memo.put(key, value)  # the vocabulary; graphs below carry the restriction
        elif kind == "graph":
            sub.memo.put(key, value.restrict(keep))
    return sub


def without(index: Index, passages: Sequence[str] = (), entities: Sequence[str] = ()) -> Index:
    """What-if: `index` as if the corpus lacked these passages (by id) and the extractors had never found these
    entities (by name or key). BM25 statistics are recounted over the passages that stay."""
    gone = set(passages)
    unknown = sorted(gone - set(index.ids))
    if unknown:
        raise PathLensError(f"what-if: no passage {unknown[0]!r} in corpus {index.corpus.name!r}")
    if len(gone) == len(index.ids):
        raise PathLensError("what-if: removing every passage leaves nothing to rank")
    keys = {entity_key(e) for e in entities}
    removed = index.removed_entities | frozenset(keys)
    if gone:
        sub = subset(index, [i for i, pid in enumerate(index.ids) if pid not in gone], removed)
    else:  # only entities go: every part not made from a graph is shared as it is (no BM25 recount, no slicing)
        sub = Index(index.corpus, removed_entities=removed)
        rebuilt = made_from_any({"graph"})  # engine.components: the alias tables, about-edges, filing graph, …
        for name, value in index.memo.snapshot().items():
            if parse(name)[0] not in rebuilt:
                sub.memo.put(name, value)
    graphs = {name: value for name, value in sub.memo.snapshot().items() if parse(name)[0] == "graph"}
    unknown = sorted(k for k in keys if graphs and not any(k in g.entity_index for g in graphs.values()))
    if unknown:
        raise PathLensError(f"what-if: no entity {unknown[0]!r} in the graph of {index.corpus.name!r}")
    for key, value in graphs.items():
        sub.memo.put(key, value.without_entities(keys))
    return sub


__all__ = ["subset", "without"]

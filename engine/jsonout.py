"""Plain-JSON views of engine results for `--json` and the dashboard's downloads."""

from __future__ import annotations

from dataclasses import asdict

from typing import Mapping

from .corpus import Passage, citation, page_number
from .graph_retriever import GraphAnswer
from .retrievers import Hit


def config_json(config) -> dict:
    return {"graph": asdict(config.graph), "rrf": asdict(config.rrf), "hybrid": asdict(config.hybrid)}


def hit_json(hit: Hit, passage: Passage | None = None) -> dict:
    """A hit with where it comes from (document, title, page for a paged document, citation) and its text."""
    out = {"rank": hit.rank, "passage_id": hit.passage_id, "score": hit.score, "retriever": hit.retriever}
    if passage is not None:
        out.update({"document": passage.doc_id, "title": passage.title, "page": page_number(passage),
                    "citation": citation(passage), "text": passage.text})
    return out


def answer_json(answer: GraphAnswer, passages: Mapping[str, Passage]) -> dict:
    return {
        "retriever": answer.retriever,
        "query": answer.query,
        "query_entities": list(answer.query_entities),
        "unmatched": list(answer.unmatched),
        "ambiguous_terms": [{"term": a.term, "meanings": [{"doc": d, "name": n} for d, n in a.meanings]}
                            for a in answer.ambiguous],
        "seeds": [asdict(s) for s in answer.seeds],
        "passage_seeds": [asdict(p) for p in answer.passage_seeds],
        "aliases_used": [asdict(s) for s in answer.seeds if s.source == "alias"],
        "hits": [
            {
                **hit_json(e.hit, passages.get(e.hit.passage_id)),
                "seed_contributions": dict(e.contributions),
                "seed_shares": dict(e.seed_shares),
                "evidence_paths": [{"path": p.words(), "nodes": list(p.node_ids), "mass": p.mass} for p in e.paths],
                "matched_entities": list(e.matched_entities),
            }
            for e in answer.explanations
        ],
        "residuals": list(answer.residuals),
        "iterations": answer.iterations,
        "subgraph": {"nodes": [asdict(n) for n in answer.nodes], "edges": [asdict(e) for e in answer.edges]},
    }


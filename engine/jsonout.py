"""Plain-JSON views of engine results for `--json` and the dashboard's downloads."""

from __future__ import annotations

from dataclasses import asdict

from .graph_retriever import GraphAnswer
from .retrievers import Hit


def config_json(config) -> dict:
    return {"graph": asdict(config.graph), "rrf": asdict(config.rrf), "hybrid": asdict(config.hybrid)}


def hit_json(hit: Hit, text: str = "") -> dict:
    out = {"rank": hit.rank, "passage_id": hit.passage_id, "score": hit.score, "retriever": hit.retriever}
    if text:
        out["text"] = text
    return out


def answer_json(answer: GraphAnswer, texts: dict[str, str]) -> dict:
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
                **hit_json(e.hit, texts.get(e.hit.passage_id, "")),
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


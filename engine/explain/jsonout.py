"""Plain-JSON views of engine results for `--json` and the dashboard's downloads."""

from __future__ import annotations

from dataclasses import asdict
from typing import Mapping

from ..ingest.passage import Passage, citation, page_ref, printed_page
from ..retrieve.page_ranker import PageExplanation
from ..retrieve.graph_explain import GraphAnswer, HitExplanation
from ..retrieve.retrievers import Answer, Hit


# attributes whose JSON key is another name: the Python name says what it holds, the key is the one scripts read
_JSON_KEYS = {"walk_mode": "walk", "passage_count": "passages"}


def _fields_json(value) -> dict:
    """A dataclass's fields, each under its JSON key."""
    return {_JSON_KEYS.get(k, k): v for k, v in asdict(value).items()}


def config_json(config) -> dict:
    return {"graph": _fields_json(config.graph), "rrf": asdict(config.rrf), "hybrid": asdict(config.hybrid),
            "edges": asdict(config.edges), "filing_passage_weight": config.filing_passage_weight,
            "scope": asdict(config.scope)}


def hit_json(hit: Hit, passage: Passage | None = None, title: str = "") -> dict:
    """A hit with where it comes from (document, title, page for a paged document, citation) and its text; `title`
    is the one the pages cite it by (a filing's identity), where known."""
    out = {"rank": hit.rank, "passage_id": hit.passage_id, "score": hit.score, "retriever": hit.retriever}
    if passage is not None:
        out.update({"document": passage.doc_id, "title": title or passage.title,
                    "page": at.page if (at := page_ref(passage)) else None, "printed_page": printed_page(passage),
                    "citation": citation(passage, title), "text": passage.text})
    return out


def explanation_json(why) -> dict | None:
    """One hit's explanation: per-seed contributions, shares and evidence paths for a graph walk,
    the dataclass's own fields (terms, sentences, votes) otherwise."""
    if why is None:
        return None
    if isinstance(why, PageExplanation):  # a learned ranker's: named parts that sum to the score, and the walk's why
        return {"parts": [{"feature": p.feature, "value": p.value, "part": p.part} for p in why.parts],
                "base": why.base, "walk_rank": why.walk_rank, "walk": explanation_json(why.walk)}
    if isinstance(why, HitExplanation):
        return {"seed_contributions": dict(why.contributions), "seed_shares": dict(why.seed_shares),
                "evidence_paths": [{"path": p.words(), "nodes": list(p.node_ids), "edges": list(p.edges), "mass": p.mass,
                                    "share": p.share}
                                   for p in why.paths],
                "matched_entities": list(why.matched_entities),
                **({"typed_path": {"path": " › ".join(why.typed_path.nodes), "nodes": list(why.typed_path.node_ids),
                                   "mass": why.typed_path.mass, "share": why.typed_path.share}}
                                 if why.typed_path is not None else {})}
    return asdict(why)


def walk_json(walk: GraphAnswer) -> dict:
    """What a graph walk adds to an answer: its seeds, the names it did and did not find, its
    residuals and the subgraph (structure only; labels and hover text are the renderer's)."""
    return {
        "query_entities": list(walk.query_entities),
        "unmatched": list(walk.unmatched),
        "ambiguous_terms": [{"term": a.term, "meanings": [{"doc": d, "name": n} for d, n in a.meanings]}
                            for a in walk.ambiguous],
        "seeds": [_fields_json(s) for s in walk.seeds],
        "passage_seeds": [asdict(p) for p in walk.passage_seeds],
        "aliases_used": [_fields_json(s) for s in walk.seeds if s.source == "alias"],
        "residuals": list(walk.residuals),
        "iterations": walk.iterations,
        "walk": "push" if walk.pushed else "exact",
        "bound": walk.bound,
        "order_proven": walk.proven,
        "hop_left_off": walk.hop_left_off,
        "subgraph": {"nodes": [asdict(n) for n in walk.nodes], "edges": [asdict(e) for e in walk.edges]},
        **({"scope": scope_json(walk.extra)} if walk.extra is not None else {}),
    }


def scope_json(extra) -> dict:
    """The filings retriever's reading of the question: company, period, form, statements, terms, filings."""
    s = extra.scope
    return {"words": extra.scope_words, "companies": list(s.companies), "fiscal_year": s.year, "quarter": s.quarter,
            "periods": [p.words() for p in s.periods], "form": s.form, "form_implied": s.form_why,
            "statements": list(s.statements), "terms": [said for said, _ in s.terms],
            "filings": list(s.filings), "question_without_instructions": s.text, "corrected": s.corrected,
            "notes": list(s.notes)}


def answer_json(answer: Answer, passages: Mapping[str, Passage], titles: Mapping[str, str] | None = None) -> dict:
    """Any retriever's answer in one shape: hits with their citation (by `titles`, `Index.passage_titles`, where
    given), text and explanation, the answer's notes, and (graph retrievers) the walk's fields beside them."""
    titles = titles or {}
    out = {
        "retriever": answer.retriever,
        "query": answer.question,
        "notes": list(answer.notes),
        "no_seed": answer.no_seed,
        "hits": [{**hit_json(h, passages.get(h.passage_id), titles.get(h.passage_id, "")),
                  "explanation": explanation_json(answer.why.get(h.passage_id))} for h in answer.hits],
    }
    if answer.walk is not None:
        out.update(walk_json(answer.walk))
    return out

"""The question a corpus opens on: among its labeled questions, the one whose top hit the graph explains best.

A demo is there to show evidence paths, so the question is chosen by measurement, not by hand: each labeled
question is asked of the default retriever with the corpus's tuned parameters, and the winner is the one whose
top hit is gold and owes the largest share of its score to seeds that reach it through a bridging entity
(engine.explain.reasons.bridged_share). When the corpus labels multi-hop questions, only they compete: a chain
of two facts is the story a demo tells. `python -m engine demo` prints the table; a bundled corpus's manifest
names the winner as its "demo_question", and a test checks that the two agree."""

from __future__ import annotations

from dataclasses import dataclass

from ..catalog import DEFAULT_RETRIEVER
from ..errors import NoSeedError
from ..explain.reasons import bridged_share, reason
from ..indexing.index import Index, search_config


@dataclass(frozen=True)
class DemoCandidate:
    query_id: str
    question: str
    top_is_gold: bool
    bridged_share: float  # of the top hit's score, through a bridging entity
    reason: str  # the top hit's sentence, as the Query page prints it


def demo_candidates(index: Index, retriever: str = DEFAULT_RETRIEVER) -> list[DemoCandidate]:
    config = search_config({}, index.corpus)  # the corpus's tuned defaults: what the page opens with
    r = index.retriever(retriever, config)
    queries = index.corpus.queries
    multi_hop = [q for q in queries if q.kind == "multi-hop"]
    out = []
    for q in multi_hop or queries:
        try:
            answer = r.answer(q.text, 1)
        except NoSeedError:
            continue
        if not answer.hits or answer.walk is None:
            continue
        top = answer.hits[0]
        e = answer.why[top.passage_id]
        out.append(DemoCandidate(q.id, q.text, top.passage_id in q.gold, bridged_share(e, answer.walk),
                                 reason(e, answer.walk)))
    return out


def demo_question(candidates: list[DemoCandidate]) -> DemoCandidate | None:
    """The gold-topped candidate with the largest bridged share (ties: the first id); None when no gold top hit
    owes anything to a bridge."""
    shown = [c for c in candidates if c.top_is_gold and c.bridged_share > 0]
    return min(shown, key=lambda c: (-c.bridged_share, c.query_id)) if shown else None


__all__ = ["DemoCandidate", "demo_candidates", "demo_question"]

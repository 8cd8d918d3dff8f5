"""The question a corpus opens on: among its labeled questions, the one whose answers the graph explains best.

A demo is there to show evidence paths, so the question is chosen by measurement, not by hand: each labeled
question is asked of the default retriever with the corpus's tuned parameters, and among those whose top hit is
gold the winner is the one with a gold hit in the first `SHOWN` that owes the largest share of its score to seeds
reaching it through a bridging entity (engine.explain.reasons.bridged_share). Not the top hit alone: a walk ranks
first the passage that names the question's entities, so a top hit owes little to a bridge (measured on the data
room core: at most 2.9% over its 20 multi-hop questions with hybrid-ner, 7.3% with ppr-ner); the chain a two-hop
question is about leads to the passage after it. When the corpus labels multi-hop questions, only they compete.
`python -m engine demo` prints the table; a bundled corpus's manifest names the winner as its "demo_question", a
test checks that the two agree, and the Query page says why it opened on it (`graph_story`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Collection

from ..catalog import DEFAULT_RETRIEVER
from ..errors import NoSeedError
from ..explain.reasons import SHOWN_SHARE, bridged_parts, bridged_share, parts, reason
from ..indexing.index import Index, search_config
from ..retrieve.retrievers import Answer

SHOWN = 3  # the answers a demo reads first


@dataclass(frozen=True)
class GraphStory:
    """The gold hit in the first SHOWN that owes most to a bridge, and the route it owes most to."""

    rank: int
    share: float  # of its score, through bridging entities
    seed: str  # the seed of its heaviest bridged part ("Solano Foods"): every walk from it, by whatever route
    bridge: str  # the bridging entity of that seed's strongest route ("Juniper Peak Growth Fund II")
    route_share: float  # that seed's share

    def sentence(self) -> str:
        return (f"Why this example: answer #{self.rank} owes {self.route_share:.0%} of its score to {self.seed}, "
                f"reached by way of other passages; the strongest route runs through {self.bridge}, a name both "
                "passages hold.")


def graph_story(answer: Answer, gold: Collection[str]) -> GraphStory | None:
    """None when no gold hit in the first SHOWN owes anything to a bridge (or the answer has no walk)."""
    if answer.walk is None:
        return None
    best = None
    for hit in answer.hits[:SHOWN]:
        if hit.passage_id not in gold:
            continue
        bridged = [(s, words) for s, words, through in parts(answer.why[hit.passage_id]) if through]
        share = sum(s for s, _ in bridged)  # bridged_share, from the parts read here once
        # a route, not the hop, and one that carries a share said as more than "0%"
        routes = [(s, said) for s, words in bridged if (said := bridged_parts(words)) and s >= SHOWN_SHARE]
        if share > 0 and routes and (best is None or share > best.share):
            s, (seed, bridge) = max(routes, key=lambda p: p[0])
            best = GraphStory(hit.rank, share, seed, bridge, s)
    return best


@dataclass(frozen=True)
class DemoCandidate:
    query_id: str
    question: str
    top_is_gold: bool
    top_bridged_share: float  # of the top hit's score, through a bridging entity
    story_rank: int  # the gold hit in the first SHOWN that owes most to a bridge (0: none does)
    bridged_share: float  # of that hit's score
    reason: str  # that hit's sentence (else the top hit's), as the Query page prints it


def demo_candidates(index: Index, retriever: str = DEFAULT_RETRIEVER) -> list[DemoCandidate]:
    config = search_config({}, index.corpus)  # the corpus's tuned defaults: what the page opens with
    r = index.retriever(retriever, config)
    queries = index.corpus.queries
    multi_hop = [q for q in queries if q.kind == "multi-hop"]
    out = []
    for q in multi_hop or queries:
        try:
            answer = r.answer(q.text, SHOWN)
        except NoSeedError:
            continue
        if not answer.hits or answer.walk is None:
            continue
        top = answer.hits[0]
        story = graph_story(answer, q.gold)
        told = answer.why[answer.hits[story.rank - 1].passage_id if story else top.passage_id]
        out.append(DemoCandidate(q.id, q.text, top.passage_id in q.gold, bridged_share(answer.why[top.passage_id]),
                                 story.rank if story else 0, story.share if story else 0.0, reason(told)))
    return out


def demo_question(candidates: list[DemoCandidate]) -> DemoCandidate | None:
    """The gold-topped candidate whose story hit owes the largest share to a bridge (ties: the higher hit, then the
    first id); None when none owes anything to one."""
    shown = [c for c in candidates if c.top_is_gold and c.bridged_share > 0]
    return min(shown, key=lambda c: (-c.bridged_share, c.story_rank, c.query_id)) if shown else None


__all__ = ["DemoCandidate", "GraphStory", "SHOWN", "demo_candidates", "demo_question", "graph_story"]

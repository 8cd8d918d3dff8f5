"""Query latency, warm: every retriever, the hybrid with dense's encoding shared, a what-if, and the Query page's
whole answer."""

from __future__ import annotations

import time
from dataclasses import dataclass

from ...catalog import DEFAULT_RETRIEVER
from ...catalog import RETRIEVERS
from ...indexing.index import Index, search_config
from .common import Context, Latency, search_or_nothing
from ...indexing.views import without

SHARED_ENCODING = "hybrid-ner (encoding shared with dense)"
PAGE_ANSWER = "query_page_answer"


@dataclass(frozen=True)
class QueryLatency:
    rows: dict[str, Latency]  # what was timed → its latency
    page_answer_is: str = (f"all retrievers + {DEFAULT_RETRIEVER} explanation + pyvis HTML, query encoding included")

    def lines(self) -> list[str]:
        lines = ["query latency (warm, ms; each query encoded and read by spaCy afresh):"]
        lines += [f"  {name:<40} p50 {v.p50_ms:8.2f}   p95 {v.p95_ms:8.2f}" for name, v in self.rows.items()]
        if {"hybrid-ner", "ppr-ner", SHARED_ENCODING} <= set(self.rows):
            base = self.rows["ppr-ner"].p50_ms
            lines.append(f"  hybrid-ner / ppr-ner p50: {self.rows['hybrid-ner'].p50_ms / base:.2f}x alone, "
                         f"{self.rows[SHARED_ENCODING].p50_ms / base:.2f}x with dense's encoding shared")
        if PAGE_ANSWER in self.rows:
            lines.append(f"  ({PAGE_ANSWER}: {self.page_answer_is})")
        return lines


def measure(ctx: Context) -> QueryLatency:
    return query_latency(ctx.index, ctx.queries[:40], dict(ctx.options.params))


def _fresh(query: str = "") -> None:
    """Every timed query encodes its text and reads it with spaCy afresh."""
    from ...graph import entities
    from ...store import dense

    dense.forget_queries()
    entities.forget_queries()


def _timed(queries: list[str], fn, before=_fresh) -> Latency | None:
    """Latency of `fn(q)` over the queries, `before(q)` run untimed first; a query `fn` returns False for is not
    timed (it had nothing to do)."""
    times = []
    for q in queries:
        before(q)
        t0 = time.perf_counter()
        if fn(q) is False:  # nothing to time for this question
            continue
        times.append(time.perf_counter() - t0)
    return Latency.of(times) if times else None


def query_latency(index: Index, queries: list[str], params: dict[str, float | int] = {}) -> QueryLatency:
    from ...explain.render import subgraph_html

    rows: dict[str, Latency] = {}
    config = search_config(params, index.corpus)  # the corpus's tuned defaults, as the app uses them, or `params`
    for name in RETRIEVERS:
        r = index.retriever(name, config)
        for q in queries[:2]:
            search_or_nothing(r, q)  # warm: model loaded, caches filled
        rows[name] = _timed(queries, lambda q: search_or_nothing(r, q))
    # the hybrid when dense has just answered the same question: the question's encoding is shared
    # (one cached encoding per text), so the hybrid adds only its seeding and the PPR kernel
    hybrid, dense_r = index.retriever("hybrid-ner", config), index.retriever("dense", config)
    rows[SHARED_ENCODING] = _timed(queries, lambda q: search_or_nothing(hybrid, q),
                                   before=lambda q: (_fresh(), dense_r.search(q, 10)))
    # what-if: the default view's answer with its heaviest entity seed taken out of the graph
    default = index.retriever(DEFAULT_RETRIEVER, config)

    def what_if(q: str) -> bool:
        try:
            seeds = default.seeding(q).seeds
        except Exception:  # noqa: BLE001 — a question without seeds has nothing to take out
            return False
        if not seeds:
            return False
        heaviest = max(seeds, key=lambda s: s.weight).entity
        without(index, entities=[heaviest]).retriever(DEFAULT_RETRIEVER, config).answer(q, 5)
        return True

    what_if_latency = _timed(queries, what_if, before=lambda q: None)
    if what_if_latency is not None:
        rows[f"what-if: {DEFAULT_RETRIEVER} without its heaviest seed (graph rebuilt, explained)"] = what_if_latency
    texts = {p.id: p.text for p in index.corpus.passages}

    def page_answer(q: str) -> None:
        for name in RETRIEVERS:  # the page's default view is explained and drawn; the rest only rank
            answer = index.retriever(name, config).answer(q, 5 if name == DEFAULT_RETRIEVER else 10,
                                                          explain=name == DEFAULT_RETRIEVER)
            if answer.walk is not None:
                subgraph_html(answer.walk, texts=texts)

    rows[PAGE_ANSWER] = _timed(queries, page_answer)
    return QueryLatency(rows)


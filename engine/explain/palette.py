"""One colour per retriever, the same on every chart of every page.

Paul Tol's "muted" scheme (distinct under the common colour-vision deficiencies; Tol, "Colour Schemes",
SRON/EPS/TN/09-002), with two colours of his "vibrant" scheme for the filings retrievers and a dark grey for
RRF. A retriever added to the catalog without a colour here gets one of the spares, by its place in the catalog."""

from __future__ import annotations

from ..catalog import CATALOG

RETRIEVER_COLORS = {
    "bm25": "#332288", "tfidf": "#88CCEE", "dense": "#44AA99",
    "ppr-regex": "#117733", "bct-regex": "#999933", "hybrid-regex": "#DDCC77",
    "ppr-ner": "#CC6677", "bct-ner": "#882255", "hybrid-ner": "#AA4499",
    "filing": "#EE7733", "filing-learned": "#CC3311", "filing-graph": "#0077BB", "rrf": "#555555",
}
SPARE = ("#EE3377", "#009988", "#33BBEE", "#BBBBBB")


def color_of(retriever: str) -> str:
    if retriever in RETRIEVER_COLORS:
        return RETRIEVER_COLORS[retriever]
    others = [n for n in CATALOG if n not in RETRIEVER_COLORS]
    return SPARE[others.index(retriever) % len(SPARE)] if retriever in others else SPARE[-1]


__all__ = ["RETRIEVER_COLORS", "color_of"]

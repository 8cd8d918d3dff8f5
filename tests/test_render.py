"""The evidence subgraph's HTML: self-contained, escaped, and the same on every render."""

import re

from engine.corpus import Corpus, Passage
from engine.index import Index
from engine.render import subgraph_html


def hostile_answer():
    evil = '<img src=x onerror="alert(1)"> Brightwater Logistics'
    texts = [f"Calder Bank lends to Brightwater Logistics. {evil}",
             "Brightwater Logistics hired Elliot Park </script><script>alert(2)</script>."]
    corpus = Corpus("evil", tuple(Passage(f"p{i}", f"d{i}", "", t) for i, t in enumerate(texts)), ())
    r = Index(corpus).retriever("ppr-regex")
    return r.explain("Calder Bank", 2, texts={p.id: p.text for p in corpus.passages})


def test_subgraph_html_is_self_contained_escaped_and_repeatable():
    ans = hostile_answer()
    page = subgraph_html(ans)
    assert page == subgraph_html(ans)  # the shared template environment changes nothing between renders
    assert "vis-network" in page or "vis.Network" in page
    assert not re.search(r'(?:src|href)="https?://', page)  # nothing fetched from the network
    for node in ans.nodes:
        assert node.id in page
    assert "<img src=x" not in page and "</script><script>alert(2)" not in page
    assert "alert(1)" in page  # the text is there, but only as inert, escaped data

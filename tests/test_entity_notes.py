"""Why an entity is among the largest (engine.explain.entity_notes), on a graph small enough to count by hand."""

from engine.explain.entity_notes import largest_entities, note_of
from engine.graph.entities import filter_mentions, extract_regex
from engine.graph.entity_graph import build_graph

TEXTS = [
    "Acme Holdings Corporation (the “Corporation”) issued notes. The Corporation sold them in the United States.",
    "The Corporation owns plants in the United States.",
    "Sales in the United States rose.",
    "The United States and the United\nKingdom grew.",
    "Beta Works Inc. (the “Corporation”) is another issuer.",
]


def _graph():
    ex = filter_mentions("regex", extract_regex(TEXTS))
    graph = build_graph(ex, [f"p{i}" for i in range(len(TEXTS))], TEXTS)
    return graph


def test_a_word_inside_a_longer_name_and_a_defined_term_say_why_they_are_large():
    graph = _graph()
    at = graph.entity_index
    # "United" alone is written once (a line wrap of "United Kingdom"); substring adjacency links the four
    # passages that name "United States" to it, which are all of its 4
    assert graph.inside(at["united"]) == (at["united states"], 4)
    assert note_of(graph, TEXTS, at["united"]) == "4 of its 4 passages are linked to the longer “United States” too"
    # two documents define "the Corporation", once each: the first in key order first, the other after "or"
    assert note_of(graph, TEXTS, at["corporation"]) == \
        "a term the documents define as “Acme Holdings Corporation” or “Beta Works Inc”"
    assert note_of(graph, TEXTS, at["united states"]) == ""  # large on its own: no longer name holds it
    notes = largest_entities(graph, TEXTS, 3)
    degree = {n.entity: n.passages for n in notes}
    assert [n.passages for n in notes] == sorted(degree.values(), reverse=True)
    assert degree == {"United": 4, "United States": 4, "Corporation": 3}, degree


def test_the_evidence_graph_says_on_hover_what_the_documents_define_a_name_as():
    """A walk-through took the demo's "Fund" for a generic word drawn as a name: its hover says what the data room
    defines it as."""
    from engine.explain.entity_notes import walk_definitions
    from engine.explain.render import hover_text, subgraph_html
    from engine.indexing.index import Index
    from engine.ingest.corpus import load_bundled

    index = Index(load_bundled("dataroom-core"))
    walk = index.retriever("hybrid-ner").answer("Who is the largest investor in the fund that owns Solano Foods?", 5).walk
    defined = walk_definitions(index, walk)
    # one report defines "the Fund", and its definition holds there only: the hover names it (walk 22 took the
    # question's "fund" for NorthRiver's)
    assert defined == {"fund": "a term 01-northriver-iv-q3-2024-lp-report.md defines as “NorthRiver Capital Partners IV”"}, defined
    fund = next(n for n in walk.nodes if n.id == "e:fund")
    assert "\nA term 01-northriver-iv-q3-2024-lp-report.md defines as “NorthRiver Capital Partners IV”.\n" in \
        hover_text(fund, walk, {}, None, defined) + "\n"
    assert "A term" not in hover_text(fund, walk, {})
    assert "defines as \\u201cNorthRiver" in subgraph_html(walk, defined=defined)  # as JSON


def test_a_name_every_passage_of_a_long_document_links_says_so():
    """A walk-through found the reason blank for "INTEL CORPORATION", linked to all 754 passages of its 10-K
    through each page's title."""
    from engine.explain.entity_notes import WHOLE_MIN, whole_documents
    from engine.graph.entity_graph import build_graph

    texts = [f"Acme Corp reports item {i}." for i in range(WHOLE_MIN)] + ["Beta Inc is elsewhere.", "Acme Corp too."]
    ids = [f"ACME_10K.pdf#p{i + 1}.0" for i in range(WHOLE_MIN)] + ["BETA.pdf#p1.0", "BETA.pdf#p2.0"]
    graph = build_graph(filter_mentions("regex", extract_regex(texts)), ids, texts)
    acme = graph.entity_index["acme"]
    assert whole_documents(graph, acme) == [("ACME_10K.pdf", WHOLE_MIN)]  # not BETA.pdf: one of its two passages
    assert note_of(graph, texts, acme) == f"linked to every one of the {WHOLE_MIN} passages of ACME_10K.pdf"
    short = build_graph(filter_mentions("regex", extract_regex(texts[:3])), ids[:3], texts[:3])
    assert whole_documents(short, short.entity_index["acme"]) == []  # a short document: its title says it


def test_a_word_many_longer_names_hold_says_which():
    """Walk 22: "General" stood among an upload's largest with no reason: no one longer name holds half of its
    passages, but "General and Administrative", "General Counsel" and more hold nearly all of them."""
    texts = ["Marketing, General, and Sales costs rose.", "General and Administrative costs fell.",
             "General and Administrative costs were flat.", "The General Counsel signed.",
             "The General Counsel resigned.", "The Vice President and General Manager spoke.",
             "General and administrative costs were flat; general counsel fees rose."]
    ex = filter_mentions("regex", extract_regex(texts))
    graph = build_graph(ex, [f"p{i}" for i in range(len(texts))], texts)
    at = graph.entity_index
    held, longer = graph.held(at["general"])
    # a passage is linked to each name it writes, in any case: "General" alone is in p0; p1–p6 hold a longer name
    # (p6 two of them, in lower case), so 6 of its 7 passages; no one name holds more than 3
    assert int(graph.entity_degree[at["general"]]) == 7 and held == 6
    assert longer == [(at["general and administrative"], 3), (at["general counsel"], 3),
                      (at["vice president and general manager"], 1)], longer
    assert note_of(graph, texts, at["general"]) == ("6 of its 7 passages are linked to longer names holding it: "
                                                     "“General and Administrative” and 2 more")


def test_a_short_name_says_it_is_short_for_the_longer_party():
    """Walk 22 took "PayPal" beside "PayPal Holdings, Inc." for one company drawn twice: the note says which longer
    name it is short for, and that a business and its holding company are two parties (each a node, on purpose)."""
    texts = ["PayPal Holdings, Inc. reported revenue.", "PayPal grew; PayPal Holdings, Inc. paid.",
             "PayPal Holdings, Inc. filed.", "PayPal Holdings, Inc. and PayPal signed."]
    ex = filter_mentions("regex", extract_regex(texts))
    graph = build_graph(ex, [f"p{i}" for i in range(len(texts))], texts)
    at = graph.entity_index
    assert note_of(graph, texts, at["paypal"]) == (
        "short for “PayPal Holdings, Inc.”, a party of its own; 4 of its 4 passages are linked to it too")


def test_a_defined_word_large_as_an_ordinary_word_says_so_and_whose_definition_it_is():
    """Walk 23: "Participant" stood among an upload's largest (494 passages) as "a term the documents define as
    'Susan Hardwick'": one exhibit defines it, and most of its passages write the ordinary word "participant", linked
    because substring adjacency folds case. The note names the defining document and counts the ordinary word."""
    texts = ["This grant to Susan Hardwick (the “Participant”) vests in 2026.",
             "Each participant may elect to defer.", "A plan participant receives shares.",
             "The participant, or any participant, may sell.", "The Participant signed."]
    ex = filter_mentions("regex", extract_regex(texts))
    ids = ["EXHIBIT_10.pdf#p1.0", "PLAN.pdf#p1.0", "PLAN.pdf#p2.0", "PLAN.pdf#p3.0", "EXHIBIT_10.pdf#p2.0"]
    graph = build_graph(ex, ids, texts)
    at = graph.entity_index
    from engine.explain.entity_notes import ordinary_passages
    assert int(graph.entity_degree[at["participant"]]) == 5 and ordinary_passages(graph, texts, at["participant"]) == 3
    assert note_of(graph, texts, at["participant"]) == (
        "a term EXHIBIT_10.pdf p.1 defines as “Susan Hardwick”; in 3 of its 5 passages only the ordinary word “participant”")


def test_a_definition_made_on_one_page_names_the_page():
    """Walk 23: "Participant" is a plan's term, defined as one grantee on one page of an exhibit: the note names that
    page, not the whole filing."""
    texts = ["This grant to Susan Hardwick (the “Participant”) vests.", "The Participant may elect to defer.",
             "The Participant receives shares."]
    ex = filter_mentions("regex", extract_regex(texts))
    graph = build_graph(ex, ["AWK_10K.pdf#p183.0", "AWK_10K.pdf#p150.0", "AWK_10K.pdf#p151.1"], texts)
    assert note_of(graph, texts, graph.entity_index["participant"]) == \
        "a term AWK_10K.pdf p.183 defines as “Susan Hardwick”"

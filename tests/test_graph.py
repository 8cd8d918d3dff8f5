import numpy as np

from engine.graph.entities import Mention, filter_mentions
from engine.graph.entity_graph import build_graph, link_passages


def test_substring_adjacency_joins_nested_names_on_token_boundaries():
    texts = ["NorthRiver IV LP closed.", "NorthRiver hired staff.", "NorthRiverside is elsewhere."]
    inc = link_passages(texts, ["northriver", "northriver iv lp"]).toarray()
    # "NorthRiver" links all passages naming it (not "NorthRiverside"); the long name only the first
    assert inc.tolist() == [[1, 1], [1, 0], [0, 0]]


def test_graph_structure_and_stats():
    texts = ["Calder Bank lends to Brightwater.", "Brightwater hired Elliot Park.", "Nothing here."]
    ex = filter_mentions("regex", [[Mention("Calder Bank", "NAME"), Mention("Brightwater", "NAME")],
                                   [Mention("Elliot Park", "NAME")], []])
    g = build_graph(ex, ["a", "b", "c"], texts)
    assert g.entities == ("brightwater", "calder bank", "elliot park")
    assert g.W.shape == (6, 6)
    sums = np.asarray(g.W.sum(axis=0)).ravel()
    np.testing.assert_allclose(sums, [1, 1, 0, 1, 1, 1])  # passage c is a sink
    assert np.allclose((g.W.toarray() > 0), (g.W.toarray().T > 0))  # undirected
    st = g.stats()
    assert (st.passages, st.entities, st.edges, st.isolated_passages) == (3, 3, 4, 1)
    assert st.largest_entities[0] == ("Brightwater", 2)


def test_restrict_keeps_only_entities_of_kept_passages():
    texts = ["Calder Bank lends to Brightwater.", "Brightwater hired Elliot Park.", "Elliot Park left."]
    ex = filter_mentions("regex", [[Mention("Calder Bank", "NAME"), Mention("Brightwater", "NAME")],
                                   [Mention("Elliot Park", "NAME")], []])
    g = build_graph(ex, ["a", "b", "c"], texts).restrict([2, 1])
    assert g.passage_ids == ("c", "b")
    assert g.entities == ("brightwater", "elliot park")
    assert g.incidence.toarray().tolist() == [[0, 1], [1, 1]]


def test_entity_search_passages_and_neighbours_by_hand():
    texts = ["Calder Bank lends to Brightwater.", "Brightwater hired Elliot Park.", "Elliot Park and Calder Bank met.",
             "Brightwater, Calder Bank and Elliot Park."]
    ex = filter_mentions("regex", [[Mention("Calder Bank", "NAME"), Mention("Brightwater", "NAME")],
                                   [Mention("Elliot Park", "NAME")], [], []])
    g = build_graph(ex, ["a", "b", "c", "d"], texts)
    assert g.entities == ("brightwater", "calder bank", "elliot park")
    assert g.find_entities("BANK") == [1] and g.find_entities("r") == [0, 1, 2] and g.find_entities("  ") == []
    assert g.find_entities("Élliot") == [2]  # folded as keys are
    assert g.passages_of(0) == [0, 1, 3] and g.passages_of(1) == [0, 2, 3]
    # brightwater shares a and d with calder bank, b and d with elliot park: a tie, kept in graph order
    assert g.co_occurring(0) == [(1, 2), (2, 2)]
    assert g.co_occurring(1, top=1) == [(0, 2)]


def test_linking_matches_a_brute_force_substring_reference():
    """Every (passage, key) pair by the rule itself: the key's tokens occur consecutively among the
    passage's name tokens. Random texts over a tiny vocabulary make nested and overlapping keys common."""
    import random

    from engine.text import name_tokens

    rng = random.Random(3)
    words = ["North", "River", "IV", "LP", "Fund", "Calder", "Bank", "of", "the"]
    texts = [" ".join(rng.choice(words) for _ in range(rng.randint(0, 14))) for _ in range(300)]
    keys = sorted({" ".join(rng.choice(words).lower() for _ in range(rng.randint(1, 4))) for _ in range(60)})
    got = link_passages(texts, keys).toarray()
    want = [[1.0 if f" {k} " in f" {' '.join(name_tokens(t))} " else 0.0 for k in keys] for t in texts]
    assert got.tolist() == want
    assert 0 < got.sum() < got.size


def test_a_filings_page_links_a_capitalised_name_only_where_it_writes_it_with_a_capital():
    """A filing capitalises what it defines ("the Board"); its every lower-case "board" linked to that name made a
    hub of the whole filing. A passage that is no filing's (no company name) links in any case, as before."""
    texts = ["The Board approved the Plan.", "The board met; a plan was made.", "THE BOARD MET", "the board met"]
    ex = filter_mentions("regex", [[Mention("Board", "NAME"), Mention("Plan", "NAME"), Mention("ebay", "DEFINED")],
                                   [], [], []])
    g = build_graph(ex, list("abcd"), texts, names=["Acme Inc.", "Acme Inc.", "Acme Inc.", ""])
    assert g.entities == ("board", "ebay", "plan")
    assert g.incidence.toarray().tolist() == [[1, 0, 1], [0, 0, 0], [1, 0, 0], [1, 0, 0]]
    # a name the corpus only ever writes in lower case links in any case
    assert build_graph(ex, ["a"], ["we sold it on ebay"], names=["Acme Inc."]).incidence.toarray().tolist() == [[0, 1, 0]]


def test_a_filings_company_links_its_pages_as_one_name_not_by_the_words_in_it():
    """Every page of a filing carries its company ("BOSTON PROPERTIES LIMITED PARTNERSHIP"): read word by word, it
    linked each page to "Boston" and "Partnership" too, hubs of the whole filing."""
    texts = ["Net income rose.", "The Partnership's units rose.", "Boston is a city."]
    ex = filter_mentions("regex", [[Mention("Boston Properties Limited Partnership", "NAME"),
                                    Mention("Partnership", "NAME"), Mention("Boston", "NAME")], [], []])
    lead = "BOSTON PROPERTIES LIMITED PARTNERSHIP"
    g = build_graph(ex, ["a", "b", "c"], texts, names=[lead, lead, ""])
    assert g.entities == ("boston", "boston properties limited partnership", "partnership")
    assert g.incidence.toarray().tolist() == [[0, 1, 0], [0, 1, 1], [1, 0, 0]]


def test_capitalised_tokens_line_up_with_name_tokens():
    from engine.text import capitalised_tokens, name_tokens

    text = "NorthRiver's board, eBay and L.P. units; Zürich"
    assert name_tokens(text) == ["northriver", "board", "ebay", "and", "l", "p", "units", "zurich"]
    assert capitalised_tokens(text) == [True, False, True, False, True, True, False, True]
    assert capitalised_tokens("") == []


def test_an_index_links_a_filings_company_once_and_any_other_title_word_by_word():
    from engine.indexing.index import Index
    from engine.ingest.corpus import Corpus
    from engine.ingest.passage import Passage

    filing = "Boston Properties Limited Partnership · Form 10-K · fiscal year ended December 31, 2015"
    article = "Boston Properties Limited Partnership"  # an article's title: no identity read off a cover
    g = Index(Corpus("t", (Passage("f#p1", "f", filing, "The Partnership owns Boston offices."),
                           Passage("f#p2", "f", filing, "Rent rose at the partnership."),
                           Passage("w", "w", article, "A real estate trust; rent rose.")))).graph("regex")
    assert g.entities == ("boston", "boston properties limited partnership", "partnership")
    assert g.incidence.toarray().tolist() == [[1, 1, 1], [0, 1, 0], [1, 1, 1]]

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

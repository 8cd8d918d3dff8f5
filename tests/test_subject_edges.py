"""About-edges (engine.graph.entity_graph.subject_edges): which passages are about which names, by hand; the walk's
weights with them, by hand; a walk by push against the exact walk on the weighted graph; every hit's shares still
adding up to its score with the second hop; and the explanation naming the edge type it used."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from engine.errors import PathLensError
from engine.explain.reasons import path_words
from engine.graph.entity_graph import subject_edges
from engine.graph.ppr import personalized_pagerank
from engine.indexing.index import Index, search_config
from engine.indexing.views import subset, without
from engine.ingest.corpus import Corpus
from engine.ingest.passage import Passage
from engine.retrieve.graph_retriever import GraphParams

ARTICLES = (
    ("Green Bay Packers", "The Green Bay Packers play at Lambeau Field. Curly Lambeau founded the team."),
    ("Lambeau Field", "Lambeau Field is a stadium in Green Bay, home of the Green Bay Packers."),
    ("Curly Lambeau", "Curly Lambeau coached the Green Bay Packers and was born in Green Bay."),
    ("Annual Report", "Harbor Mills reported sales. Lambeau Field hosted its meeting."),
    ("Annual Report", "Harbor Mills reported costs in Green Bay."),
)


def _corpus() -> Corpus:
    return Corpus("articles", tuple(Passage(f"p{i}", f"d{i}", title, text)
                                    for i, (title, text) in enumerate(ARTICLES)), ())


def _about(graph, subjects) -> set[tuple[str, str]]:
    rows, cols = subjects.nonzero()
    return {(graph.passage_ids[i], graph.entities[j]) for i, j in zip(rows.tolist(), cols.tolist())}


def test_a_passage_is_about_the_names_its_own_title_holds_when_no_other_passage_shares_the_title():
    index = Index(_corpus())
    g = index.graph("regex")
    about = _about(g, subject_edges(g, [p.title for p in index.corpus.passages]))
    by_passage = {pid: {e for p, e in about if p == pid} for pid in g.passage_ids}
    # each article is about its title's names (the name inside it too: "green bay" in "green bay packers"), not
    # about the other names it mentions
    assert {"green bay packers", "green bay"} <= by_passage["p0"] and "lambeau field" not in by_passage["p0"]
    assert "lambeau field" in by_passage["p1"] and "green bay packers" not in by_passage["p1"]
    assert "curly lambeau" in by_passage["p2"]
    # the two chunks of one report share their title: neither is about "Harbor Mills" or anything else
    assert by_passage["p3"] == by_passage["p4"] == set()
    assert about <= {(g.passage_ids[i], g.entities[j]) for i, j in zip(*g.incidence.nonzero())}  # only linked pairs
    with pytest.raises(PathLensError, match="one title a passage: 2 titles, 5 passages"):
        subject_edges(g, ["a", "b"])


def test_the_walk_steps_along_an_about_edge_t_times_as_often_as_along_a_mention():
    index = Index(_corpus())
    plain, weighted = index.graph("regex"), index.subject_graph("regex", 3.0)
    assert index.subject_graph("regex", 1.0) is plain
    n, j = plain.n_passages, plain.entity_index["lambeau field"]
    col = weighted.W[:, n + j].toarray().ravel()[:n]
    # "Lambeau Field" is in p0, p1 (its article) and p3: from it the walk goes to p1 with 3 / (1 + 3 + 1)
    linked = plain.incidence[:, j].toarray().ravel()
    assert linked.tolist() == [1, 1, 0, 1, 0]
    np.testing.assert_allclose(col, [1 / 5, 3 / 5, 0, 1 / 5, 0])
    np.testing.assert_allclose(plain.W[:, n + j].toarray().ravel()[:n], [1 / 3, 1 / 3, 0, 1 / 3, 0])
    # and from p1 to its own name with weight 3 against each other name's 1
    row = weighted.W[n:, 1].toarray().ravel()
    others = np.flatnonzero(plain.incidence[1].toarray().ravel()).size - 1
    assert row[j] == pytest.approx(3 / (3 + others))
    np.testing.assert_allclose(np.asarray(weighted.W.sum(axis=0)).ravel(), 1.0)  # still a walk
    with pytest.raises(PathLensError, match="about-edge weight must be above 0, got 0"):
        GraphParams(subject_weight=0.0)


def test_a_walk_by_push_on_the_weighted_graph_matches_the_exact_walk():
    index = Index(_corpus())
    exact = index.retriever("ppr-regex", search_config({"subject_weight": 2.0}))
    pushed = type(exact)(exact.name, exact.seeder, replace(exact.params, walk_mode="push", eps=1e-12, eps_floor=1e-12))
    q = "Who founded the team that plays at Lambeau Field?"
    a, b = exact.search(q, 5), pushed.search(q, 5)
    assert [h.passage_id for h in a] == [h.passage_id for h in b]
    np.testing.assert_allclose([h.score for h in a], [h.score for h in b], atol=1e-9)


def test_with_about_edges_and_a_second_hop_every_share_still_adds_up_and_the_path_names_the_edge():
    index = Index(_corpus())
    r = index.retriever("ppr-regex", search_config({"subject_weight": 2.0}))
    g = r.graph
    q = "Who founded the team that plays at Lambeau Field?"
    pers = r.personalize(q)
    # the exact scores are the weighted graph's PPR, computed here from W without the retriever's walk
    s = personalized_pagerank(g.W, r._full_vector(pers)).scores
    hits = r.search(q, 5)
    np.testing.assert_allclose([h.score for h in hits], s[[g.passage_index[h.passage_id] for h in hits]], rtol=1e-12)
    answer = r.answer(q, 5)
    for why in answer.why.values():
        assert sum(c for _, c in why.contributions) == pytest.approx(why.hit.score, rel=1e-9)
        for p in why.paths:
            assert len(p.edges) == len(p.nodes) - 1 and set(p.edges) <= {"about", "mentions"}
    lambeau = answer.why["p1"].paths[0]  # the seed "Lambeau Field" reaches its own article along an about-edge
    assert lambeau.node_ids == ("e:lambeau field", "p:p1") and lambeau.edges == ("about",)
    assert path_words(lambeau, {"p1": "Lambeau Field"}) == "Lambeau Field → Lambeau Field (about it)"
    report = answer.why["p3"].paths[0]
    assert "about" not in report.edges and "(about it)" not in path_words(report, {})


def test_views_and_what_ifs_mark_about_edges_afresh():
    index = Index(_corpus())
    weighted = index.retriever("hybrid-regex", search_config({"subject_weight": 2.0, "hop_share": 0.6}))
    weighted.search("Lambeau Field", 3)
    # the report's two chunks dropped to one: its title is now its own, so that passage is about the name it holds
    assert ("p3", "annual report") not in _about(index.graph("regex"), index.subject_graph("regex", 2.0).subjects)
    sub = subset(index, [0, 1, 2, 3])
    g = sub.subject_graph("regex", 2.0)
    assert ("p3", "annual report") in _about(g, g.subjects) and ("p3", "harbor mills") not in _about(g, g.subjects)
    gone = without(index, entities=("Curly Lambeau",))
    g2 = gone.subject_graph("regex", 2.0)
    assert "curly lambeau" not in g2.entity_index and g2.subjects.shape == g2.incidence.shape
    assert ("p1", "lambeau field") in _about(g2, g2.subjects)


def test_only_entity_graph_retrievers_read_the_about_weight(core_index):
    config = search_config({"subject_weight": 2.0}, core_index.corpus)
    for name in ("ppr-regex", "bct-ner", "hybrid-regex"):
        assert core_index.retriever(name, config).params.subject_weight == 2.0
    assert core_index.retriever("filing-graph", config).params.subject_weight == 1.0


def test_the_evidence_graph_draws_about_edges_in_their_own_colour_and_says_what_they_are():
    import json
    import re

    from engine.explain.render import ABOUT_COLOR, ABOUT_FAINT, PATH_COLOR, subgraph_html

    q = "Who founded the team that plays at Lambeau Field?"
    index = Index(_corpus())

    def drawn(answer) -> tuple[str, dict]:
        page = subgraph_html(answer)
        return page, json.loads(re.search(r"var pathlensColors = (\{.*?\});", page).group(1))

    answer = index.retriever("ppr-regex", search_config({"subject_weight": 2.0})).explain(q, 5)
    about = {(e.source, e.target) for e in answer.edges if e.about}
    assert {("e:lambeau field", "p:p1"), ("e:green bay packers", "p:p0"), ("e:curly lambeau", "p:p2")} <= about
    assert ("e:lambeau field", "p:p0") not in about and ("e:harbor mills", "p:p3") not in about
    page, colors = drawn(answer)
    # the seed's step to its own article is an about-edge on a path; p3 only mentions the stadium
    assert colors["e:lambeau field>p:p1"] == ABOUT_COLOR and colors["e:lambeau field>p:p3"] == PATH_COLOR
    assert "about-edge: the passage's own title names the entity" in page  # the legend's row
    assert "an about-edge (the passage\\u0027s own title names the entity) on an evidence path" in page  # hover
    # off every path, an about-edge is faint purple and a mention faint grey
    _, faint = drawn(replace(answer, explanations=()))
    assert {k for k, c in faint.items() if c == ABOUT_FAINT} == {f"{a}>{b}" for a, b in about}
    assert set(faint.values()) == {ABOUT_FAINT, "#cccccc"}
    # t = 1: no edge is marked, so none is purple and the legend has no row for them
    plain, plain_colors = drawn(index.retriever("ppr-regex").explain(q, 5))
    assert set(plain_colors.values()) <= {PATH_COLOR, "#cccccc"} and "about-edge" not in plain

"""The second hop (engine.retrieve.second_hop): bridges read off a first walk by hand, the walk from both hops equal
to the mix of two walks computed apart, per-seed shares that still add up to each score, and the explanation
naming both hops."""

from __future__ import annotations

import numpy as np
import pytest

from engine.errors import PathLensError
from engine.graph.ppr import personalized_pagerank
from engine.indexing.index import Index, search_config
from engine.retrieve.graph_retriever import GraphParams
from engine.retrieve.second_hop import HOP_BRIDGES, HOP_PASSAGES, bridges, comparison
from tests.conftest import make_corpus

QUESTION = "Who manages the fund whose portfolio includes Solano Foods?"


def test_bridges_are_the_top_passages_names_the_question_lacks_as_heavy_as_the_first_walk_made_them(tiny):
    g = Index(tiny).graph("regex")
    col = g.entity_index
    # a first walk by hand: passages 3, 1, 0 on top (2 and 4 unreached); entity masses chosen here
    passages = np.array([0.1, 0.3, 0.0, 0.5, 0.0])
    entities = np.zeros(len(g.entities))
    for name, mass in (("brightwater logistics", 0.4), ("calder bank", 0.2), ("elliot park", 0.1),
                       ("northriver capital partners iv", 0.05)):
        entities[col[name]] = mass
    rows = np.flatnonzero(passages)  # the passages the walk scored, as a walk gives them

    def bridges_of(scores, seeded):
        return bridges(g, rows, scores[rows], lambda cols: entities[cols], seeded)

    found = bridges_of(passages, {"brightwater logistics"})
    named = {s.entity: s for s in found}
    # the seeded name is not a bridge; each other name of passages 3, 1, 0 is, ranked by its mass
    assert "brightwater logistics" not in named and len(found) <= HOP_BRIDGES
    listed = {g.entities[j] for row in (0, 1, 3) for j in g.incidence[row].indices} - {"brightwater logistics"}
    assert set(named) == listed
    assert [s.entity for s in found][:3] == ["calder bank", "elliot park", "northriver capital partners iv"]
    reached = sum(entities[col[e]] for e in listed)
    assert named["calder bank"].weight == pytest.approx(0.2 / reached)
    assert sum(s.weight for s in found) == pytest.approx(1.0)
    # each names the first passage (by the first walk's rank) that holds it
    assert (named["calder bank"].via, named["calder bank"].named_at) == ("p3", 1)
    assert (named["elliot park"].via, named["elliot park"].named_at) == ("p1", 2)
    assert all(s.rule == "second hop" and s.source == "bridge" for s in found)
    assert bridges(g, rows[:0], passages[:0], lambda cols: entities[cols], set()) == ()  # no passage reached
    assert bridges_of(passages, set(g.entities)) == ()  # the top passages name nothing the question does not
    assert HOP_PASSAGES == 5


def _config(core_index, gamma):
    return search_config({"hop_share": gamma}, core_index.corpus)


def test_the_walk_from_both_hops_is_the_mix_of_two_walks_and_every_share_adds_up(core_index):
    gamma = 0.6
    one = core_index.retriever("hybrid-regex", _config(core_index, 0.0))
    two = core_index.retriever("hybrid-regex", _config(core_index, gamma))
    g, n = two.graph, two.graph.n_passages
    first = one.personalize(QUESTION)
    pers = two.personalize(QUESTION)
    hop = [s for s in pers.seeds if s.named_at]
    assert hop and sum(s.weight for s in hop) == pytest.approx(gamma)
    rest = sum(s.weight for s in pers.seeds if not s.named_at) + sum(p.weight for p in pers.passage_seeds)
    assert rest == pytest.approx(1 - gamma)

    # independently: walk 1 from the question's seeds, its bridges, walk 2 from them, mixed (1 − γ) : γ
    W = g.walk_matrix
    s1 = personalized_pagerank(W, one._full_vector(first)).scores
    reached = np.flatnonzero(s1[:n] > 0)
    found = bridges(g, reached, s1[reached], lambda cols: s1[n + cols], {s.entity for s in first.seeds})
    assert [s.entity for s in found] == [s.entity for s in hop]
    p2 = np.zeros(len(s1))
    for s in found:
        p2[n + g.entity_index[s.entity]] = s.weight
    mixed = (1 - gamma) * s1 + gamma * personalized_pagerank(W, p2).scores
    hits = two.search(QUESTION, 10)
    np.testing.assert_allclose([h.score for h in hits], mixed[[g.passage_index[h.passage_id] for h in hits]],
                               rtol=1e-12)
    assert [h.passage_id for h in hits] == [g.passage_ids[i] for i in np.argsort(-mixed[:n], kind="stable")[:10]]

    answer = two.answer(QUESTION, 5)
    for why in answer.why.values():  # the shares across both hops and the passage seeds sum to the score
        assert sum(c for _, c in why.contributions) == pytest.approx(why.hit.score, rel=1e-9)
    from engine.explain.reasons import reason

    # the hop is one clause per hit, however many bridges: their summed share, naming the strongest by its rank
    from engine.explain.reasons import parts, percent

    bridge = {f"e:{s.entity}": s for s in answer.walk.seeds if s.named_at}
    said = 0
    for why in answer.why.values():
        shares = {seed: c for seed, c in why.seed_shares if seed in bridge}
        hop = [(share, words) for share, words, _ in parts(why) if words.startswith("the second hop")]
        assert reason(why).count("the second hop") == (1 if shares and sum(shares.values()) >= 0.005 else 0)
        if shares:
            strongest = bridge[max(shares, key=lambda seed: (shares[seed], seed))]
            assert len(hop) == 1 and hop[0][0] == pytest.approx(sum(shares.values()), rel=1e-12)
            assert hop[0][1].startswith(f"the second hop, through “{strongest.label}” (named by the first walk's "
                                        f"#{strongest.named_at})")
            assert hop[0][1].endswith(f" and {len(shares) - 1} more" if len(shares) > 1 else ")")
            said += percent(hop[0][0]) in reason(why)
    assert said


def test_no_second_hop_at_gamma_zero_and_none_outside_the_hybrids(core_index):
    plain = core_index.retriever("hybrid-regex", _config(core_index, 0.0))
    assert not any(s.named_at for s in plain.personalize(QUESTION).seeds)
    default = core_index.retriever("hybrid-regex", search_config({}, core_index.corpus))
    assert [(h.passage_id, h.score) for h in default.search(QUESTION, 5)] == [
        (h.passage_id, h.score) for h in plain.search(QUESTION, 5)]  # the catalog's default is one walk
    for name in ("ppr-regex", "bct-regex"):
        assert core_index.retriever(name, _config(core_index, 0.6)).params.hop_share == 0.0
    with pytest.raises(PathLensError, match="second-hop share γ must be at least 0 and below 1, got 1"):
        GraphParams(hop_share=1.0)


def test_a_question_whose_top_passages_name_nothing_new_keeps_one_walk():
    corpus = make_corpus(["Acme Corp makes widgets.", "the weather was fine."])  # Acme Corp is its only name
    index = Index(corpus)
    q = "What does Acme Corp make?"
    one = index.retriever("hybrid-regex", search_config({"hop_share": 0.0}, corpus)).personalize(q)
    two = index.retriever("hybrid-regex", search_config({"hop_share": 0.6}, corpus)).personalize(q)
    # the hop runs (a hybrid, γ 0.6), but the top passages name only Acme Corp, which the question seeds already
    assert one.seeds and not any(s.rule == "second hop" for s in two.seeds)
    assert (two.seeds, two.passage_seeds) == (one.seeds, one.passage_seeds)


def test_bench_against_names_a_bad_setting():
    from engine.cli.measure import _settings

    assert _settings("hop_share=0, alpha=0.2") == {"hop_share": 0.0, "alpha": 0.2}
    with pytest.raises(PathLensError, match=r"--against: expected NAME=VALUE .* got 'gamma=1'"):
        _settings("gamma=1")
    with pytest.raises(PathLensError, match="--against: iterations takes a number, got 'many'"):
        _settings("iterations=many")


@pytest.mark.parametrize("question,kind", [
    ("Which fund closed first, NorthRiver Capital Partners IV or Juniper Peak Growth Fund II?",
     "asks which of two names"),
    ("Heinz Barwich or Walter Storp: who died later?", "asks which of two names"),
    ("Dipak Misra and Jean Desessard: which of them is a judge?", "asks which of two names"),
    ("Did Solano Foods or Brightwater Logistics grow revenue faster?", "asks which of two names"),
    ("Which of Diana Rigg and Florence Eldridge was English?", "asks which of two names"),
    ("Between Gustav Noske and Alfred Kurella, who was born earlier?", "asks which of two names"),
    ("Are Cristin Milioti and Mara Wilson both American actresses?", "asks yes or no of two names"),
    ("Were Gaspard Manesse and Eriq Ebouaney of the same nationality?", "asks yes or no of two names"),
    ("Is Chelyabinsk in the same country as Namangan?", "asks yes or no of two names"),
    ("Is Jennifer Higdon older than Jenny Slate?", "asks yes or no of two names"),
    ("What nationality do Sandra Julien and Arnaud Joyet share?", "asks what two names share"),
    ("What nationality were both Keala Settle and Kelly Bishop?", "asks what two names share"),
    # chains, and names with "and" or "or" inside them, are not comparisons
    ("Who manages the fund whose portfolio includes Solano Foods?", ""),
    ("Who played the spoilt character in Charlie and the Chocolate Factory?", ""),
    ("What other district is found in the same county as Gmina Stężyca?", ""),
    ("Along with Kenny G and the performer of Off the Beaten Path, what artist was featured on smooth jazz stations?",
     ""),
    ("In which country is the province where Serbian and Croatian languages are both official?", ""),
    ("How many ethnic minorities live in the city of the only group larger than Långa nätter's label?", ""),
])
def test_a_question_comparing_two_names_it_names_is_recognised_by_its_form(question, kind):
    assert comparison(question) == kind


def test_the_forms_match_the_tuning_comparisons_and_none_of_the_data_rooms_questions(core_index):
    import json

    from tests.conftest import ROOT

    assert [q.id for q in core_index.corpus.queries if comparison(q.text)] == []  # its 40 chains and lookups
    for name, missed in (("musique_open", {"c14"}), ("dataroom", {"c05", "c07"})):
        path = ROOT / "tests" / "data" / f"{name}.comparisons.queries.jsonl"
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        assert {r["id"] for r in rows if not comparison(r["text"])} == missed  # "Did A die before B was born?"


def test_no_comparison_form_repeats_across_words_without_a_bound():
    """What keeps a long hostile question linear: a repetition that can cross a space is bounded ({0,7}, {0,12});
    only single-token runs (\\s*, \\s+, \\w+, [^\\s?]*) repeat freely. A "[^?]*?" took 0.6 s on 2,000 characters."""
    import re

    from engine.retrieve.second_hop import _COMPARISONS

    single_token = re.compile(r"\\s[*+]\??|\\w\+|\[\^\\s\?\][*+]")
    for _, form in _COMPARISONS:
        assert not re.search(r"[*+]", single_token.sub("", form.pattern)), form.pattern
    # and the long questions still read as they should
    assert comparison(("Which, A or B, " * 130)[:2000]) == "asks which of two names"
    assert comparison(("Is " + "A and " * 330)[:2000]) == comparison((", A or " * 285)[:2000]) == ""


def test_a_comparison_keeps_one_walk_and_says_why(core_index):
    from engine.explain.jsonout import walk_json
    from engine.explain.render import second_hop_summary

    q = "Which fund closed on more commitments, NorthRiver Capital Partners IV or Juniper Peak Growth Fund II?"
    one = core_index.retriever("hybrid-regex", _config(core_index, 0.0))
    two = core_index.retriever("hybrid-regex", _config(core_index, 0.6))
    pers = two.personalize(q)
    assert pers.hop_left_off == "asks which of two names" and not any(s.named_at for s in pers.seeds)
    assert [(h.passage_id, h.score) for h in two.search(q, 5)] == [(h.passage_id, h.score) for h in one.search(q, 5)]
    walk = two.explain(q, 3)
    said = second_hop_summary(walk, {})
    assert said.startswith("Second hop: left off, since the question asks which of two names: the passages about")
    assert walk_json(walk)["hop_left_off"] == "asks which of two names"
    assert second_hop_summary(one.explain(q, 3), {}) == ""  # no second hop asked for: nothing to say
    assert one.personalize(q).hop_left_off == ""


def test_the_summary_says_what_the_second_hop_changed_against_the_first_walks_top_k(core_index):
    """The first walk's top k is the ranking at γ 0 (computed here apart); the summary says the hop moved no passage
    exactly when the two rankings agree, and otherwise names what it brought in."""
    from dataclasses import replace as rep

    from engine.explain.render import hop_moves, second_hop_summary

    one = core_index.retriever("hybrid-regex", _config(core_index, 0.0))
    two = core_index.retriever("hybrid-regex", _config(core_index, 0.6))
    for k in (1, 3, 5):
        walk = two.explain(QUESTION, k)
        first = [h.passage_id for h in one.search(QUESTION, k)]
        assert list(walk.first_hits) == first
        said = hop_moves(walk, {})
        now = [h.passage_id for h in walk.hits]
        assert (said == f"The second hop moved no passage: the top {k} are the first walk's, in its order.") == \
            (now == first)
        assert said in second_hop_summary(walk, {})
        for pid in set(now) - set(first):
            assert pid in said
    walk = two.explain(QUESTION, 5)
    same = rep(walk, first_hits=tuple(h.passage_id for h in walk.hits))
    assert hop_moves(same, {}) == "The second hop moved no passage: the top 5 are the first walk's, in its order."
    swapped = rep(walk, first_hits=tuple(h.passage_id for h in walk.hits[1::-1] + walk.hits[2:]))
    assert hop_moves(swapped, {}) == ("The second hop changed the ranking: 2 passages of the first walk's top 5 "
                                      "changed place.")
    assert one.explain(QUESTION, 5).first_hits == ()  # no hop, nothing to compare


def test_the_hop_is_on_by_default_where_passages_are_each_about_one_thing(core_index):
    """The rule (second_hop.shape_defaults) by hand on titles, and on the corpora it was chosen on: the data room's
    chunks keep one walk (its tables unchanged), an encyclopedia-like corpus gets γ 0.6 and t 2, a manifest or a
    user still decides over it."""
    from engine.ingest.corpus import Corpus, load_corpus
    from engine.ingest.passage import Passage
    from engine.retrieve.second_hop import own_titles, shape_defaults

    assert own_titles(["A", "B", "B", "C", ""]) == pytest.approx(2 / 5)  # A and C; an empty title is no title
    assert own_titles([]) == 0.0
    assert shape_defaults(["A", "B", "C", "C"]) == {"hop_share": 0.6, "subject_weight": 2.0}  # 2 of 4: at the bar
    assert shape_defaults(["A", "C", "C", "C"]) == {}
    for name in ("dataroom", "dataroom-core"):
        config = search_config({}, load_corpus(name))
        assert (config.graph.hop_share, config.graph.subject_weight) == (0.0, 1.0), name
    wiki = Corpus("wiki", tuple(Passage(f"p{i}", f"d{i}", f"Article {i}", f"Text {i}.") for i in range(6)))
    config = search_config({}, wiki)
    assert (config.graph.hop_share, config.graph.subject_weight) == (0.6, 2.0)
    assert search_config({"hop_share": 0.0}, wiki).graph.hop_share == 0.0  # the user's word over the rule
    from dataclasses import replace as rep

    assert search_config({}, rep(wiki, defaults={"hop_share": 0.3})).graph.hop_share == 0.3  # a manifest's too


def test_the_second_hops_names_are_drawn_as_what_they_are_not_as_aliases(core_index):
    """With the second hop on and BCT off, the graph drew the second walk's names in the alias colour under "alias of
    a seed (BCT)" (#63): they are their own kind, colour and legend line."""
    from engine.explain.render import COLORS, ROLE_WORDS, subgraph_html

    r = core_index.retriever("hybrid-regex", search_config({"hop_share": 0.6}, core_index.corpus))
    walk = r.answer(QUESTION, 5).walk
    kinds = {n.kind for n in walk.nodes}
    assert "hop-seed" in kinds and "alias" not in kinds
    page = subgraph_html(walk)
    assert ROLE_WORDS["hop-seed"] in page and ROLE_WORDS["alias"] not in page and COLORS["hop-seed"] in page
    assert COLORS["hop-seed"] != COLORS["alias"]
